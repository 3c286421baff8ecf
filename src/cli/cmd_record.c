// SPDX-License-Identifier: GPL-2.0
/* c2cscan record's command line: options into a struct record_opts, then
 * the recording (record/record.h). */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "record/record.h"
#include "util/util.h"

static const char record_usage[] =
	"usage: c2cscan record [options] [--] [command [args]]\n"
	"\n"
	"  -e, --event EVENT     event(s), comma-separated; default: this machine's memory\n"
	"                        events (Intel mem-loads + mem-stores, AMD ibs_op).\n"
	"                        Also mem-loads, mem-stores, ibs_op, PMU/term=val,.../[ukpP].\n"
	"                        page-faults, minor-faults, major-faults work everywhere,\n"
	"                        VMs too, but only record where each page was first\n"
	"                        touched: they locate objects and code, they cannot show\n"
	"                        contention (no HITM)\n"
	"  -p, --pid PID,...     record existing processes (all their threads)\n"
	"  -t, --tid TID,...     record existing threads\n"
	"  -a, --all-cpus        system-wide, every CPU\n"
	"  -C, --cpu CPUS        only these CPUs (0-3,8): system-wide on them, or limits -p/-t/command\n"
	"  -o, --output FILE     output file (default perf.data; an old one becomes FILE.old)\n"
	"  -c, --count N         sample every N events (default: 1 for software events)\n"
	"  -F, --freq HZ         sample HZ times a second (default 4000 for memory events)\n"
	"  -l, --ldlat CYCLES    load latency threshold (Intel default 30; AMD: only when given)\n"
	"  -u, --user            user space only\n"
	"  -k, --kernel          kernel only\n"
	"  -m, --mmap-pages N    ring buffer pages per buffer, a power of two (default 128,\n"
	"                        1024 with --call-graph dwarf)\n"
	"      --duration SECS   stop after SECS seconds (the command gets SIGTERM)\n"
	"      --synth-method M  auto, query (PROCMAP_QUERY) or text (/proc/PID/maps)\n"
	"      --emulate[=OPTS]  the command is built with -fsanitize=thread: a coherence model\n"
	"                        over its every access gives HITM samples on any machine\n"
	"                        (no memory PMU needed); OPTS: line=N (N-byte lines, default\n"
	"                        64), hitm=N (one HITM in N sampled, default 31); -c N: one\n"
	"                        other access in N (default 4001)\n"
	"      --alloc           record the command's heap allocations too (malloc family,\n"
	"                        operator new/delete), so that report names heap objects;\n"
	"                        with -p/-t/-a/-C through uprobes on the C library\n"
	"      --alloc-fn SYM[:size=N],...  the program's own allocators too (size in\n"
	"                        argument N, default 1); implies --alloc\n"
	"      --free-fn SYM,... the program's own frees (the first argument is freed)\n"
	"  -g                    call graphs by frame pointers (--call-graph fp)\n"
	"      --call-graph fp|dwarf[,SIZE]  call graphs: fp follows frame pointers;\n"
	"                        dwarf copies SIZE bytes of user stack per sample\n"
	"                        (default 8192, at most 65528), unwound by report\n"
	"  -N, --no-buildid-cache  keep no copy of the recorded objects in ~/.debug (by\n"
	"                        default each is kept once, so that a rebuild does not\n"
	"                        lose an old recording's names)\n"
	"  -q, --quiet           no summary\n"
	"  -v, --verbose         say what is opened and how maps were read\n"
	"  -h, --help            this text\n"
	"\n"
	"With -p, -t, -a or -C the command is optional: recording stops on SIGINT,\n"
	"--duration, or when the recorded processes are gone.\n";

/* "1,2,3": ids appended to *ids. */
static int parse_id_list(const char *s, pid_t **ids, int *nr)
{
	const char *p = s;

	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p || v <= 0 || v > INT32_MAX || (*end && *end != ','))
			return -EINVAL;
		*ids = xrealloc(*ids, *nr + 1, sizeof(**ids));
		(*ids)[(*nr)++] = (pid_t)v;
		p = *end ? end + 1 : end;
	}
	return *nr ? 0 : -EINVAL;
}

static int usage_error(const char *fmt, const char *arg)
{
	return cli__usage_error("record", fmt, arg);
}

static bool parse_ulong(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	return end != s && !*end && !errno && s[0] != '-';
}

/* "a,b:size=2": appended to fns (8 at most). */
static int add_fns(const char *list, char **fns, int *nr)
{
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");

		if (n) {
			if (*nr == 8)
				return -E2BIG;
			fns[*nr] = xmalloc(n + 1);
			memcpy(fns[*nr], p, n);
			fns[(*nr)++][n] = '\0';
		}
		p += n + (p[n] == ',');
	}
	return 0;
}

/* "fp", "dwarf", "dwarf,SIZE" (perf's --call-graph, without lbr). */
static bool parse_call_graph(const char *s, struct record_opts *o)
{
	unsigned long v;

	if (!strcmp(s, "fp")) {
		o->call_graph = CALL_GRAPH_FP;
		return true;
	}
	if (strncmp(s, "dwarf", 5) || (s[5] && s[5] != ','))
		return false;
	o->call_graph = CALL_GRAPH_DWARF;
	o->stack_size = RECORD_STACK_DEFAULT;
	if (!s[5])
		return true;
	/* the kernel takes a multiple of 8 below 64 KiB */
	if (!parse_ulong(s + 6, &v) || !v || v > RECORD_STACK_MAX)
		return false;
	o->stack_size = (unsigned int)((v + 7) & ~7ul);
	return o->stack_size <= RECORD_STACK_MAX;
}

#define SHORTOPTS "+:e:o:c:F:m:p:t:aC:ukqvhl:gN"

/* Returns -1 when parsing succeeded, else the exit status. */
/* --emulate=line=N,hitm=N: 0, or the usage error said. */
static int emulate_opts(const char *arg, struct record_opts *o)
{
	char *copy = xstrdup(arg), *save = NULL;
	int ret = 0;

	for (char *t = strtok_r(copy, ",", &save); t && !ret; t = strtok_r(NULL, ",", &save)) {
		bool line = !strncmp(t, "line=", 5), hitm = !strncmp(t, "hitm=", 5);
		char *end;
		unsigned long n = line || hitm ? strtoul(t + 5, &end, 10) : 0;

		if (!line && !hitm)
			ret = usage_error("--emulate: line=N or hitm=N, not '%s'", t);
		else if (line && (*end || n < 16 || n > 4096 || (n & (n - 1))))
			ret = usage_error("--emulate: %s: a power of two in 16..4096", t);
		else if (hitm && (*end || n < 1 || n >= (1ul << 30)))
			ret = usage_error("--emulate: %s: a count of 1 or more", t);
		else if (line)
			o->emulate_line = (uint32_t)n;
		else
			o->emulate_hitm = (uint32_t)n;
	}
	free(copy);
	return ret;
}

static int parse_options(int argc, char **argv, struct record_opts *o)
{
	enum { OPT_DURATION = 256, OPT_LDLAT, OPT_SYNTH, OPT_ALLOC, OPT_ALLOC_FN, OPT_FREE_FN, OPT_CALL_GRAPH, OPT_EMULATE };
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ "count", required_argument, NULL, 'c' },
		{ "freq", required_argument, NULL, 'F' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "user", no_argument, NULL, 'u' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "ldlat", required_argument, NULL, OPT_LDLAT },
		{ "synth-method", required_argument, NULL, OPT_SYNTH },
		{ "alloc", no_argument, NULL, OPT_ALLOC },
		{ "emulate", optional_argument, NULL, OPT_EMULATE },
		{ "alloc-fn", required_argument, NULL, OPT_ALLOC_FN },
		{ "free-fn", required_argument, NULL, OPT_FREE_FN },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "no-buildid-cache", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v;
	int c;

	optind = 1;
	opterr = 0;
	if (cli__list_options(argc, argv, SHORTOPTS, longopts))
		return 0;
	while ((c = getopt_long(argc, argv, SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (record_opts__add_events(o, optarg))
				return usage_error("too many events in '%s'", optarg);
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'c':
			if (!parse_ulong(optarg, &o->period) || !o->period)
				return usage_error("bad count '%s'", optarg);
			break;
		case 'F':
			if (!parse_ulong(optarg, &o->freq) || !o->freq)
				return usage_error("bad frequency '%s'", optarg);
			break;
		case 'm':
			if (!parse_ulong(optarg, &v) || !v || v & (v - 1) || v > (1ul << 20))
				return usage_error("-m needs a power of two, got '%s'", optarg);
			o->pages = v;
			o->pages_set = true;
			break;
		case 'p':
			if (parse_id_list(optarg, &o->pids, &o->nr_pids))
				return usage_error("bad PID list '%s'", optarg);
			break;
		case 't':
			if (parse_id_list(optarg, &o->tids, &o->nr_tids))
				return usage_error("bad TID list '%s'", optarg);
			break;
		case 'a':
			o->system_wide = true;
			break;
		case 'C':
			o->cpus = optarg;
			break;
		case 'u':
			o->user = true;
			break;
		case 'k':
			o->kernel = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case OPT_DURATION: {
			char *end;

			o->duration = strtod(optarg, &end);
			if (*end || end == optarg || !(o->duration > 0))
				return usage_error("bad duration '%s'", optarg);
			break;
		}
		case 'l':               /* perf c2c record's -l */
		case OPT_LDLAT:
			if (!parse_ulong(optarg, &v) || !v || v > 65535)
				return usage_error("bad --ldlat '%s'", optarg);
			o->ldlat = (unsigned int)v;
			o->ldlat_set = true;
			break;
		case OPT_SYNTH:
			if (!strcmp(optarg, "auto"))
				o->synth = SYNTH_AUTO;
			else if (!strcmp(optarg, "query"))
				o->synth = SYNTH_QUERY;
			else if (!strcmp(optarg, "text"))
				o->synth = SYNTH_TEXT;
			else
				return usage_error("--synth-method: auto, query or text, not '%s'", optarg);
			break;
		case OPT_ALLOC:
			o->alloc = true;
			break;
		case OPT_EMULATE:
			o->emulate = true;
			if (optarg && emulate_opts(optarg, o))
				return 129;
			break;
		case OPT_ALLOC_FN:
		case OPT_FREE_FN:
			o->alloc = true;
			if (add_fns(optarg, c == OPT_ALLOC_FN ? o->alloc_fns : o->free_fns,
				    c == OPT_ALLOC_FN ? &o->nr_alloc_fns : &o->nr_free_fns))
				return usage_error("too many functions in '%s' (8 at most)", optarg);
			break;
		case 'g':
			o->call_graph = CALL_GRAPH_FP;
			break;
		case 'N':
			o->no_buildid_cache = true;
			break;
		case OPT_CALL_GRAPH:
			if (!parse_call_graph(optarg, o))
				return usage_error("--call-graph: fp, dwarf or dwarf,SIZE (8..65528), not '%s'",
						   optarg);
			break;
		case 'h':
			fputs(record_usage, stdout);
			return 0;
		default:
			return cli__option_error("record", c, argv[optind - 1], longopts);
		}
	}
	if (o->user && o->kernel)
		return usage_error("%s", "-u and -k exclude each other");
	if (o->call_graph == CALL_GRAPH_DWARF && !record__unwind_regs())
		return usage_error("%s", "--call-graph dwarf: not supported on this architecture (use fp)");
	if (o->period && o->freq)
		return usage_error("%s", "-c and -F exclude each other");
	if ((o->nr_pids || o->nr_tids) && o->system_wide)
		return usage_error("%s", "-p/-t and -a exclude each other");
	if (optind >= argc && !o->nr_pids && !o->nr_tids && !o->system_wide && !o->cpus)
		return usage_error("%s", "nothing to record: give a command, -p, -t, -a or -C");
	if (o->emulate && (optind >= argc || o->nr_pids || o->nr_tids || o->system_wide || o->cpus))
		return usage_error("%s", "--emulate: give the command to launch (its runtime is preloaded)");
	return -1;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { .out = "perf.data" };
	int ret = parse_options(argc, argv, &o);

	if (ret < 0)
		ret = record__run(&o, optind < argc ? argv + optind : NULL, argc, argv);
	record_opts__exit(&o);
	return ret;
}
