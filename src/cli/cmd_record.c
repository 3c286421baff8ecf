// SPDX-License-Identifier: GPL-2.0
/* c2cscan record's command line: options into a struct record_opts, then
 * the recording (record/record.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "perfdata/perf_data.h"
#include "record/record.h"
#include "record/synth.h"
#include "util/util.h"

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

/* --emulate=line=N,hitm=N,exact: 0, or the usage error said. */
static int emulate_opts(const char *arg, struct record_opts *o)
{
	char *copy = xstrdup(arg), *save = NULL;
	int ret = 0;

	for (char *t = strtok_r(copy, ",", &save); t && !ret; t = strtok_r(NULL, ",", &save)) {
		bool line = !strncmp(t, "line=", 5), hitm = !strncmp(t, "hitm=", 5);
		char *end;
		unsigned long n = line || hitm ? strtoul(t + 5, &end, 10) : 0;

		if (!strcmp(t, "exact"))
			o->emulate_exact = true;
		else if (!line && !hitm)
			ret = usage_error("--emulate: line=N, hitm=N or exact, not '%s'", t);
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

enum { OPT_DURATION = 256, OPT_SYNTH, OPT_ALLOC, OPT_ALLOC_FN, OPT_FREE_FN, OPT_CALL_GRAPH, OPT_EMULATE };

static const char *const synth_words[] = { "auto", "query", "text", NULL };
static const enum synth_method synth_methods[] = { SYNTH_AUTO, SYNTH_QUERY, SYNTH_TEXT };
static const char *const emulate_words[] = { "line=", "hitm=", "exact", NULL };
static const char *const call_graph_words[] = { "fp", "dwarf", NULL };

/* record's options, in -h's order: the parser, -h, the completion. */
static const struct cli_opt record_opts_table[] = {
	{ "event", 'e', "EVENT", "event(s), comma-separated; default: this machine's memory\n"
	  "events (Intel mem-loads + mem-stores, AMD ibs_op, Arm SPE).\n"
	  "Also mem-loads, mem-stores, ibs_op, arm_spe, PMU/term=val,.../[ukpP].\n"
	  "page-faults, minor-faults, major-faults work everywhere,\n"
	  "VMs too, but only record where each page was first\n"
	  "touched: they locate objects and code, they cannot show\n"
	  "contention (no HITM)", NULL },
	{ "pid", 'p', "PID,...", "record existing processes (all their threads)", NULL },
	{ "tid", 't', "TID,...", "record existing threads", NULL },
	{ "all-cpus", 'a', NULL, "system-wide, every CPU", NULL },
	{ "cpu", 'C', "CPUS", "only these CPUs (0-3,8): system-wide on them, or limits -p/-t/command", NULL },
	{ "output", 'o', "FILE", "output file (default perf.data; an old one becomes FILE.old)", NULL },
	{ "count", 'c', "N", "sample every N events (default: 1 for software events)", NULL },
	{ "freq", 'F', "HZ", "sample HZ times a second (default 4000 for memory events)", NULL },
	{ "ldlat", 'l', "CYCLES", "load latency threshold (Intel default 30; AMD: only when given)", NULL },
	{ "user", 'u', NULL, "user space only", NULL },
	{ "kernel", 'k', NULL, "kernel only", NULL },
	{ "mmap-pages", 'm', "N", "ring buffer pages per buffer, a power of two (default 128;\n"
	  "with --call-graph dwarf room for 512 samples' stacks)", NULL },
	{ "duration", OPT_DURATION, "SECS", "stop after SECS seconds (the command gets SIGTERM)", NULL },
	{ "synth-method", OPT_SYNTH, "M", "auto, query (PROCMAP_QUERY) or text (/proc/PID/maps)", synth_words },
	{ "emulate", OPT_EMULATE, "[=OPTS]", "the command is built with -fsanitize=thread: a coherence model\n"
	  "over its every access gives HITM samples on any machine\n"
	  "(no memory PMU needed), threads in lockstep windows: the\n"
	  "same counts on any machine; OPTS: line=N (N-byte lines,\n"
	  "default 64), hitm=N (one HITM in N sampled, default 1;\n"
	  "31 with exact), exact (every change of owner, threads as\n"
	  "they ran); -c N: one other access in N (default 4001)", emulate_words },
	{ "alloc", OPT_ALLOC, NULL, "record the command's heap allocations too (malloc family,\n"
	  "operator new/delete), so that report names heap objects;\n"
	  "with -p/-t/-a/-C through uprobes on the C library", NULL },
	{ "alloc-fn", OPT_ALLOC_FN, "SYM[:size=N],...", "the program's own allocators too (size in\n"
	  "argument N, default 1); implies --alloc", NULL },
	{ "free-fn", OPT_FREE_FN, "SYM,...", "the program's own frees (the first argument is freed)", NULL },
	{ NULL, 'g', NULL, "call graphs by frame pointers (--call-graph fp)", NULL },
	{ "call-graph", OPT_CALL_GRAPH, "fp|dwarf[,SIZE]", "call graphs: fp follows frame pointers;\n"
	  "dwarf copies SIZE bytes of user stack per sample\n"
	  "(default 8192, at most 65528), unwound by report", call_graph_words },
	{ "no-buildid-cache", 'N', NULL, "keep no copy of the recorded objects in ~/.debug (by\n"
	  "default each is kept once, so that a rebuild does not\n"
	  "lose an old recording's names)", NULL },
	{ "quiet", 'q', NULL, "no summary", NULL },
	{ "verbose", 'v', NULL, "say what is opened and how maps were read", NULL },
	CLI_OPT_HELP,
	CLI_OPT_END,
};

static const struct cli_cmd record_cmd = {
	.name = "record",
	.head = "usage: c2cscan record [options] [--] [command [args]]\n\n",
	.tail = "\n"
		"With -p, -t, -a or -C the command is optional: recording stops on SIGINT,\n"
		"--duration, or when the recorded processes are gone.\n",
	.column = 24,
	.in_order = true,
	.opts = record_opts_table,
};

/* One option into o: -1 taken, else the exit status (help: 0, a usage
 * error). */
/* An option with a number (-c, -F, -m, --duration, --ldlat) into o: -2
 * not one of those, -1 taken, else a usage error's status. */
static int numeric_option(int c, struct record_opts *o)
{
	unsigned long v;

	switch (c) {
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
	case OPT_DURATION: {
		char *end;

		o->duration = strtod(optarg, &end);
		if (*end || end == optarg || !(o->duration > 0))
			return usage_error("bad duration '%s'", optarg);
		break;
	}
	case 'l':
		if (!parse_ulong(optarg, &v) || !v || v > 65535)
			return usage_error("bad --ldlat '%s'", optarg);
		o->ldlat = (unsigned int)v;
		o->ldlat_set = true;
		break;
	default:
		return -2;
	}
	return -1;
}

static int record_option(const struct cli_parser *p, int c, struct record_opts *o)
{
	int ret = numeric_option(c, o);

	if (ret != -2)
		return ret;
	switch (c) {
	case 'e':
		if (record_opts__add_events(o, optarg))
			return usage_error("too many events in '%s'", optarg);
		break;
	case 'o':
		o->out = optarg;
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
	case OPT_SYNTH: {
		int w = cli__word(synth_words, optarg);

		if (w < 0)
			return usage_error("--synth-method: auto, query or text, not '%s'", optarg);
		o->synth = synth_methods[w];
		break;
	}
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
		return cli__help(&record_cmd, stdout);
	default:
		return cli__bad_option(p, c);
	}
	return -1;
}

/* The options together, and the command after them (argv[optind] on):
 * -1 they agree, else a usage error's status. */
static int options_agree(int argc, const struct record_opts *o)
{
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

static int parse_options(int argc, char **argv, struct record_opts *o)
{
	struct cli_parser p;
	int c, ret;

	if (!cli__parser_init(&p, &record_cmd, argc, argv))
		return 0;
	while ((c = cli__next(&p)) != -1)
		if ((ret = record_option(&p, c, o)) >= 0)
			return ret;
	return options_agree(argc, o);
}

/* How much of what record says is shown: errors and warnings always,
 * what was done without -q, how with -v. */
enum { SAY_ALWAYS, SAY_INFO, SAY_VERBOSE };

static int say_level(enum record_msg_kind k)
{
	if (k >= RM_EVENT_OPENED)
		return SAY_VERBOSE;
	if (k >= RM_CPU_UNCOVERED)
		return SAY_INFO;
	return SAY_ALWAYS;
}

/* Every message of the recording (record/record.h), worded here; one line
 * each on stderr, "c2cscan record: " first (the diagnosis of a machine
 * without a memory PMU is c2cscan check's). */
/* Why the events could not be opened (RM_OPEN), and the least change that
 * allows it. */
static void say_open(const struct record_msg *m)
{
	const char *name = m->s[0] ? m->s[0] : "the event";
	const uint64_t *n = m->n;
	int err = -m->err;

	switch (n[1]) {
	case RECORD_OPEN_MMAP:
		fprintf(stderr, "cannot map a ring buffer of %llu pages: %s; use a smaller -m%s", (unsigned long long)n[5],
			strerror(err), err == EPERM ? " (or raise kernel.perf_event_mlock_kb)" : "");
		return;
	case RECORD_OPEN_SET_OUTPUT:
		fprintf(stderr, "%s: cannot share the ring buffer: %s", name, strerror(err));
		return;
	case RECORD_OPEN_OTHER_USER:
		fprintf(stderr, "%s: pid %d belongs to another user (uid %ld): record it as that user, or as root", name,
			(int)n[3], (long)n[4]);
		return;
	case RECORD_OPEN_KERNEL:
		fprintf(stderr, "%s: kernel sampling is not permitted (perf_event_paranoid is %ld): sysctl "
			"kernel.perf_event_paranoid=1, run as root or with CAP_PERFMON, or sample user space only (:u, -u)",
			name, (long)n[2]);
		return;
	case RECORD_OPEN_ALL:
		fprintf(stderr, "%s: recording every process (-a, -C) is not permitted (perf_event_paranoid is %ld): "
			"sysctl kernel.perf_event_paranoid=0, run as root or with CAP_PERFMON, or record a command or "
			"-p PID", name, (long)n[2]);
		return;
	case RECORD_OPEN_NO_TASK:
		fputs("no such process or thread (it may have exited)", stderr);
		return;
	case RECORD_OPEN_NO_CPU:
		fputs("no CPU accepted the events", stderr);
		return;
	}
	switch (err) {
	case EACCES:
	case EPERM:
		fprintf(stderr, "%s: permission denied: perf_event_paranoid is %ld; lower it (sysctl "
			"kernel.perf_event_paranoid=-1) or grant CAP_PERFMON", name, (long)n[2]);
		break;
	case ENOENT:
	case ENODEV:
		fprintf(stderr, "%s: this machine has no such event or PMU (see 'c2cscan check')", name);
		break;
	case EOPNOTSUPP:
		fprintf(stderr, "%s: the PMU cannot sample this way (%s; see 'c2cscan check')", name,
			n[6] ? "IBS follows CPUs, not tasks, on this kernel: use -a" : "try without -u/-k, or another -c/-F");
		break;
	case ESRCH:
		fputs("no such process or thread", stderr);
		break;
	case EMFILE:
	case ENFILE:
		fprintf(stderr, "%s: too many open files: one is needed per event, CPU and thread (raise 'ulimit -n', "
			"or use -C)", name);
		break;
	case EINVAL:
		fprintf(stderr, "%s: the kernel refused the event settings (invalid argument); try another -c/-F, or "
			"without -u/-k", name);
		break;
	case ENOMEM:
		fputs("out of memory for ring buffers: use a smaller -m", stderr);
		break;
	default:
		fprintf(stderr, "%s: %s", name, strerror(err));
	}
}

/* The option of a library record preloads (record_msg's n[0]). */
static const char *lib_option(uint64_t lib)
{
	return lib == RECORD_LIB_EMU ? "--emulate" : "--alloc";
}

static void say(void *arg, const struct record_msg *m)
{
	const struct record_opts *o = arg;
	const uint64_t *n = m->n;
	const char *err = m->err ? strerror(-m->err) : "";
	int level = say_level(m->kind);

	if ((level == SAY_INFO && o->quiet) || (level == SAY_VERBOSE && !o->verbose))
		return;
	fputs("c2cscan record: ", stderr);
	switch (m->kind) {
	case RM_NO_MEMORY_PMU:
		fprintf(stderr, "this machine cannot sample memory accesses%s:\n",
			m->err == -EOPNOTSUPP ? " with c2cscan" : "");
		cli__mem_diagnosis(stderr, synth__query_probe(), 0);
		fprintf(stderr, "c2cscan record: --emulate models the contention of a program built with "
			"-fsanitize=thread instead; -e page-faults records the data address of every page fault\n");
		return;
	case RM_EVENT_UNKNOWN:
		fprintf(stderr, "event '%s': %s", m->s[0],
			m->err == -ENODEV ? "no such PMU in /sys/bus/event_source/devices" :
			m->err == -ENOENT ? "unknown term (see the PMU's format/ and events/ in sysfs)" :
			"unknown event (page-faults, minor-faults, major-faults, mem-loads, mem-stores, ibs_op, "
			"or PMU/terms/)");
		break;
	case RM_BAD_CPU_LIST:
		fprintf(stderr, "bad CPU list '%s' (CPUs 0-%llu)", m->s[0], (unsigned long long)n[0]);
		break;
	case RM_NO_PROCESS:
		fprintf(stderr, "-p %llu: no such process", (unsigned long long)n[0]);
		break;
	case RM_NO_THREAD:
		fprintf(stderr, "-t %llu: no such thread", (unsigned long long)n[0]);
		break;
	case RM_CANNOT_RUN:
		fprintf(stderr, "cannot run '%s': %s", m->s[0], err);
		break;
	case RM_SYSCALL:
		fprintf(stderr, "%s: %s", m->s[0], err);
		break;
	case RM_OUTPUT:
		fprintf(stderr, "cannot write %s: %s", m->s[0], err);
		break;
	case RM_OPEN:
		/* (a ring buffer not mapped, a target gone: not the open's) */
		if (!n[0] && n[1] != RECORD_OPEN_MMAP && n[1] != RECORD_OPEN_NO_TASK && n[1] != RECORD_OPEN_NO_CPU)
			fputs("cannot open ", stderr);
		say_open(m);
		break;
	case RM_LIB_MISSING:
		fprintf(stderr, "%s: cannot find %s beside c2cscan (or set %s): %s", lib_option(n[0]), m->s[0], m->s[1],
			strerror(-m->err));
		break;
	case RM_LIB_TMPDIR:
		fprintf(stderr, "%s: cannot make a directory in /tmp: %s", lib_option(n[0]), strerror(-m->err));
		break;
	case RM_EMU_MODEL_FILE:
		fprintf(stderr, "--emulate: cannot make the model's file %s: %s", m->s[0], strerror(-m->err));
		break;
	case RM_ALLOC_PROBES:
		fprintf(stderr, "--alloc: cannot probe the allocators of %s: %s", m->s[0],
			m->err == -EOPNOTSUPP ? "not on this architecture (x86_64 and aarch64 only)" :
			m->err == -ENOENT ? "no uprobe PMU, or a function is missing" : strerror(-m->err));
		break;
	case RM_ALLOC_NO_LIBC:
		fprintf(stderr, "--alloc: no C library mapped in %s", n[0] ? "the process" : "c2cscan");
		break;
	case RM_ALLOC_FN_SPEC:
		fprintf(stderr, "'%s': SYM or SYM:size=N with N 1 to 3", m->s[0]);
		break;
	case RM_ALLOC_FN_PROBE:
		fprintf(stderr, "%s '%.*s' in %s%s: %s", n[0] ? "--free-fn" : "--alloc-fn",
			(int)strcspn(m->s[0], ":"), m->s[0], m->s[1] ? m->s[1] : "?", n[1] ? " and its libraries" : "",
			m->err == -ENOENT ? "no such function" : strerror(-m->err));
		break;
	case RM_TOO_MANY_EVENTS:
		fputs("--alloc: too many events", stderr);
		break;
	case RM_ALLOC_FN_TARGET:
		fputs("--alloc-fn: give the process (-p) or the command whose functions to probe", stderr);
		break;
	case RM_SYNTH:
		fprintf(stderr, "synthesizing maps: %s", err);
		break;
	case RM_WRITE:
		fprintf(stderr, "writing %s failed: %s; recording stopped (the file holds the records written "
			"before%s)", m->s[0], err,
			n[0] ? ", but its header could not be written: it is not readable" : " and is readable");
		break;
	case RM_LOST:
		fprintf(stderr, "lost %llu samples: raise -m or lower -F (or raise -c)", (unsigned long long)n[0]);
		break;
	case RM_THROTTLED:
		fprintf(stderr, "the kernel throttled sampling %llu times (kernel.perf_event_max_sample_rate): "
			"lower -F or raise -c", (unsigned long long)n[0]);
		break;
	case RM_BUILDCACHE_FAILED:
		fprintf(stderr, "could not keep %llu objects in the build-id cache (~/.debug): after a rebuild their "
			"names are lost", (unsigned long long)n[0]);
		break;
	case RM_ALLOC_NONE:
		fputs("--alloc: no allocation events: the shim did not load (a setuid program?) or the program "
		      "ended before writing them (_exit, a signal)", stderr);
		break;
	case RM_ALLOC_DROPPED:
		fprintf(stderr, "--alloc: %llu allocation events past the limit of %llu were dropped (the file says "
			"so; heap objects of the run's end are unnamed)", (unsigned long long)n[0],
			(unsigned long long)n[1]);
		break;
	case RM_EMU_BAD:
		fprintf(stderr, "--emulate: %llu samples of an unknown class and %llu cut chunks skipped",
			(unsigned long long)n[0], (unsigned long long)n[1]);
		break;
	case RM_EMU_NONE:
		fputs("--emulate: no emulated samples: the command is not built with -fsanitize=thread (GCC or "
		      "Clang), or it ended before writing them (_exit, a signal); nothing written", stderr);
		break;
	case RM_EMU_HEAP:
		fprintf(stderr, "--emulate: the heap is %s's, as in the build without -fsanitize=thread", m->s[0]);
		break;
	case RM_EMU_LIBTSAN:
		if (n[0])
			fputs("--emulate: libtsan not loaded (the runtime and the C library define all the program "
			      "needs): threads, locks and signals are the C library's, as in production", stderr);
		else
			fprintf(stderr, "--emulate: libtsan loaded (its interceptors run beside the model): %s", m->s[0]);
		break;
	case RM_EMU_HEAP_TSAN:
		fputs("--emulate: the heap is libtsan's (a Clang build's allocator is in its executable): objects "
		      "may sit otherwise in lines than in the build without -fsanitize=thread", stderr);
		break;
	case RM_EMU_CORES_SHARED:
		fprintf(stderr, "--emulate: more live threads than the model's %llu cores: %llu thread(s) shared a "
			"core, and their accesses to each other's lines count as cache hits", (unsigned long long)n[1],
			(unsigned long long)n[0]);
		break;
	case RM_EMU_STALLS:
		fprintf(stderr, "--emulate: %llu time(s) a thread blocked where the model cannot see (a system call, a "
			"lock inside uninstrumented code) and the others went on without it: what it shares with them "
			"is counted as this machine ran it", (unsigned long long)n[0]);
		break;
	case RM_EMU_EVICTED:
		fprintf(stderr, "--emulate: the model's table was full: %llu lines no thread had touched for %llu windows "
			"were evicted to make room (as a cache would: their next access counts as a miss)",
			(unsigned long long)n[0], (unsigned long long)n[1]);
		break;
	case RM_EMU_UNMODELLED:
		fprintf(stderr, "--emulate: %llu accesses went to lines the model's table had no room for (over a "
			"million lines touched, or a region of it full): they count as cache hits, and contention on "
			"those lines is not seen", (unsigned long long)n[0]);
		break;
	case RM_EMU_CHAINS_CUT:
		fprintf(stderr, "--emulate: %llu of %llu samples had more callers than a call chain holds (%llu "
			"frames): the innermost are kept, the outermost cut",
			(unsigned long long)n[0], (unsigned long long)n[1], (unsigned long long)n[2]);
		break;
	case RM_EMU_NOT_TSAN:
		fprintf(stderr, "--emulate: %s is not built with -fsanitize=thread (it has no ThreadSanitizer "
			"hooks, and started nothing that has): rebuild it with -fsanitize=thread, or record without "
			"--emulate; nothing written", m->s[0]);
		break;
	case RM_INTERRUPTED:
		fprintf(stderr, "interrupted by %s: the recording holds what came before%s", strsignal((int)n[0]),
			n[1] ? "; the command was stopped (SIGTERM)" : "");
		break;
	case RM_COMMAND_EXIT:
		fprintf(stderr, "the command exited with status %llu", (unsigned long long)n[0]);
		break;
	case RM_COMMAND_SIGNAL:
		fprintf(stderr, "the command was killed by signal %llu (%s)%s", (unsigned long long)n[0],
			strsignal((int)n[0]), n[1] ? ", core dumped" : "");
		break;
	case RM_CPU_UNCOVERED:
		fprintf(stderr, "warning: CPU %llu (and maybe others) has no memory event: accesses made there are "
			"not sampled", (unsigned long long)n[0]);
		break;
	case RM_USER_ONLY:
		fprintf(stderr, "%s: kernel sampling not permitted (perf_event_paranoid %lld): user space only",
			m->s[0], (long long)n[0]);
		break;
	case RM_EXE_ALLOCATOR:
		fprintf(stderr, "--alloc: %s has an allocator of its own (a sanitizer's runtime?): probing it "
			"(uprobes, about 7 us a call)", m->s[0]);
		break;
	case RM_ALLOC_EVENTS:
		fprintf(stderr, "%llu allocation events from %llu process(es), %.1f bytes each in the file",
			(unsigned long long)n[0], (unsigned long long)n[1], m->x);
		break;
	case RM_EMU_SAMPLES:
		fprintf(stderr, "%llu emulated samples from %llu process(es) (a coherence model over the accesses "
			"of a -fsanitize=thread build)", (unsigned long long)n[0], (unsigned long long)n[1]);
		break;
	case RM_SUMMARY: {
		int k = 0;

		fprintf(stderr, "%llu samples (", (unsigned long long)n[0]);
		for (int i = 0; i < m->nr_names; i++)
			fprintf(stderr, "%s%s", k++ ? ", " : "", m->names[i]);
		if (n[1])
			fprintf(stderr, "%s%llu allocator probes", k++ ? ", " : "", (unsigned long long)n[1]);
		if (n[2])
			fprintf(stderr, "%s%s", k++ ? ", " : "", PD_EMU_EVENT_NAME);
		fprintf(stderr, ") written to %s (%.1f MB", m->s[0], m->x);
		if (n[3])
			fprintf(stderr, ", %.1f MB of it Arm SPE trace", n[3] / 1048576.0);
		fputc(')', stderr);
		break;
	}
	case RM_EVENT_OPENED:
		fprintf(stderr, "event %s: type %llu config %#llx config1 %#llx precise %llu sample_type %#llx %s %llu "
			"on %llu fds%s", m->s[0], (unsigned long long)n[0], (unsigned long long)n[1],
			(unsigned long long)n[2], (unsigned long long)n[3], (unsigned long long)n[4],
			n[5] ? "freq" : "period", (unsigned long long)n[6],
			(unsigned long long)(n[7] & ~(1ULL << 63)), n[7] >> 63 ? ", tracking" : "");
		break;
	case RM_BUFFERS:
		fprintf(stderr, "%llu ring buffers of %llu KiB", (unsigned long long)n[0], (unsigned long long)n[1]);
		break;
	case RM_SYNTHESIZED:
		fprintf(stderr, "synthesized %llu processes, %llu threads, %llu maps with %s in %.1f ms",
			(unsigned long long)n[0], (unsigned long long)n[1], (unsigned long long)n[2], m->s[0], m->x);
		break;
	case RM_PROBES:
		fprintf(stderr, "--alloc: %llu uprobes", (unsigned long long)n[0]);
		break;
	case RM_BUILDIDS:
		fprintf(stderr, "build-ids of %llu of %llu mapped objects (and the kernel's)%s",
			(unsigned long long)n[0], (unsigned long long)n[1], n[2] ? "; more were not noted" : "");
		break;
	case RM_BUILDCACHE:
		fprintf(stderr, "build-id cache (~/.debug): %llu objects copied, %llu there already",
			(unsigned long long)n[0], (unsigned long long)n[1]);
		break;
	}
	fputc('\n', stderr);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { .out = "perf.data", .say = say };
	int ret = parse_options(argc, argv, &o);

	o.say_arg = &o;

	if (ret < 0)
		ret = record__run(&o, optind < argc ? argv + optind : NULL, argc, argv);
	record_opts__exit(&o);
	return ret;
}
