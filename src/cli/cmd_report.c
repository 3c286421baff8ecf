// SPDX-License-Identifier: GPL-2.0
/*
 * c2cscan report: option parsing and the exit status. Exit codes:
 * 0 report printed; 1 the input cannot be read (one line on stderr naming the
 * file and the reason); 2 a partial report (the stream broke mid-way; the
 * report covers what was read and says so); 129 usage error; 130 the browser
 * was left by Ctrl-C (or SIGTERM/SIGHUP).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/cli.h"
#include "report/callchain.h"
#include "report/coalesce.h"
#include "report/output.h"
#include "report/report.h"
#include "report/verdict.h"
#include "tui/tui.h"

static const char report_usage[] =
	"usage: c2cscan report [options]\n"
	"\n"
	"  -i, --input FILE         perf.data file to read (default perf.data; - = stdin)\n"
	"      --stdio              text output (default when stdout is not a terminal)\n"
	"      --json               JSON output (schema: c2cscan-report(1))\n"
	"      --tui                the interactive browser (default on a terminal)\n"
	"      --pprof FILE         the view as a pprof profile (gzipped profile.proto) in FILE, for\n"
	"                           go tool pprof and profile stores; alone, nothing else is printed\n"
	"      --html FILE          the view as one self-contained HTML page (pictures of the lines'\n"
	"                           bytes, sortable tables); alone, nothing else is printed\n"
	"      --patch FILE         a unified diff (git apply, patch -p1) that gives the data of every\n"
	"                           false-shared line a line of its own in the program's sources\n"
	"                           (- = stdout); alone, nothing else is printed\n"
	"  -d, --display MODE       rank lines by tot|lcl|rmt (HITM), peer, or all (accesses)\n"
	"      --show-all           list every line, not only contended ones\n"
	"      --double-cl          group by 2 cachelines (adjacent-line prefetch)\n"
	"      --cacheline-size N   override the file's cacheline size (default: file's, else 64)\n"
	"      --lines N            --stdio: detail the offsets of the first N lines only\n"
	"      --no-symbols         do not name code and data (faster; addresses only)\n"
	"      --symfs DIR          look for objects and debug info under DIR (another machine's files)\n"
	"  -k, --vmlinux FILE       kernel image with symbols (default: /proc/kallsyms when it matches)\n"
	"      --no-debuginfod      never ask debuginfod servers (DEBUGINFOD_URLS) for debug info\n"
	"      --stats              --stdio: the statistics only, no cacheline tables (perf c2c's --stats)\n"
	"      --full-symbols       --stdio: source files with their whole path\n"
	"  -g, --call-graph         callers of every row (the default when the recording has\n"
	"                           stacks: record -g or --call-graph dwarf)\n"
	"      --no-call-graph      no callers (and no pass over the stacks)\n"
	"  -N, --node-info          --stdio: each offset's NUMA nodes and their cpus, Node{cpus}\n"
	"  -c, --coalesce FIELDS    --stdio: offset rows per FIELDS besides the offset, any of\n"
	"                           tid,pid,iaddr,dso (perf c2c's; default: iaddr)\n"
	"      --sort gain|metric   lines by estimated gain (cycles a fix could save), or by the\n"
	"                           display mode's metric (the default)\n"
	"      --fail-on KINDS      exit 1 when a line's verdict is one of KINDS (false-sharing,\n"
	"                           true-sharing, mixed; comma-separated), naming them and why on\n"
	"                           stderr; alone it prints nothing else (add --stdio for the report)\n"
	"      --fail-share PCT     with --fail-on: only lines with at least PCT% of the metric\n"
	"                           (default 1)\n"
	"      --alloc-wrapper SYM  with allocation stacks (record --alloc -g): SYM only passes\n"
	"                           allocations on, its caller is the site (SYM* a prefix; 16)\n"
	"  -f, --force              accepted for perf c2c's habits (c2cscan reads any owner's file)\n"
	"  -h, --help               this text\n";

static int usage_error(const char *fmt, const char *arg)
{
	return cli__usage_error("report", fmt, arg);
}

static int parse_uint(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v > 1u << 30)
		return -EINVAL;
	*out = v;
	return 0;
}

#define SHORTOPTS ":i:d:k:fghNc:"

/* --fail-on's kinds: names[i] is kinds[i] */
static const char *const fail_on_words[] = { "false-sharing", "true-sharing", "mixed", NULL };
static const enum verdict_kind fail_on_kinds[] = { VERDICT_FALSE, VERDICT_TRUE, VERDICT_MIXED };
static const char *const sort_words[] = { "gain", "metric", NULL };
static const char *const coalesce_words[] = { "tid", "pid", "iaddr", "dso", NULL };
static const struct cli_values report_values[] = {
	{ "--fail-on", fail_on_words }, { "--sort", sort_words }, { "-d", cli__display_words },
	{ "--display", cli__display_words }, { "-c", coalesce_words }, { "--coalesce", coalesce_words },
	{ NULL, NULL },
};

/* "false-sharing,true-sharing" into a set of verdict kinds. */
static int parse_fail_on(const char *s, unsigned int *kinds)
{

	*kinds = 0;
	while (*s) {
		size_t n = strcspn(s, ","), i;

		for (i = 0; i < ARRAY_SIZE(fail_on_kinds); i++)
			if (strlen(fail_on_words[i]) == n && !strncmp(s, fail_on_words[i], n))
				break;
		if (i == ARRAY_SIZE(fail_on_kinds))
			return -EINVAL;
		*kinds |= 1u << fail_on_kinds[i];
		s += n + (s[n] == ',');
	}
	return *kinds ? 0 : -EINVAL;
}

/* --patch FILE: the diff in FILE (- stdout), and how many changes it
 * holds on stderr. */
enum { OPT_STDIO = 256, OPT_JSON, OPT_TUI, OPT_SHOW_ALL, OPT_DOUBLE_CL, OPT_CL_SIZE, OPT_LINES,
       OPT_NO_SYMBOLS, OPT_STATS, OPT_FULL_SYMBOLS,
       OPT_NO_CALL_GRAPH, OPT_ALLOC_WRAPPER, OPT_SORT, OPT_FAIL_ON, OPT_FAIL_SHARE, OPT_PPROF, OPT_HTML,
       OPT_PATCH };

/* An output of report (the table, outputs[], is below its writers). */
struct output {
	int opt;
	const char *option;
	bool file;
	int (*write)(const struct output *o, struct report *r, const char *path, bool forced);
	int (*lib)(struct report *r, const char *path, char *err, size_t errsize);      /* write_lib's */
};

static int write_patch(const struct output *o, struct report *r, const char *path, bool forced)
{
	FILE *fp = strcmp(path, "-") ? fopen(path, "w") : stdout;
	size_t n = 0;
	int rc;

	(void)forced;
	if (!fp) {
		fprintf(stderr, "c2cscan report: --patch %s: cannot write: %s\n", path, strerror(errno));
		return -1;
	}
	rc = report__write_patch(r, fp, &n);
	if (fp != stdout && fclose(fp) && !rc)
		rc = -errno;
	if (rc) {
		fprintf(stderr, "c2cscan report: --patch %s: cannot write: %s\n", path, strerror(-rc));
		return -1;
	}
	fprintf(stderr, "c2cscan report: --patch %s: %zu change%s%s\n", path, n, n == 1 ? "" : "s",
		n ? "" : " (no false sharing in a variable of the program's sources; see the lines that start "
		"with # in it)");
	return 0;
}

/* A file the report library writes (pprof, HTML): its sentence, said
 * under the output's option, when it cannot. */
static int write_lib(const struct output *o, struct report *r, const char *path, bool forced)
{
	char err[512];

	(void)forced;
	if (o->lib(r, path, err, sizeof(err)) < 0) {
		fprintf(stderr, "c2cscan report: %s %s\n", o->option, err);
		return -1;
	}
	return 0;
}

static int write_stdio(const struct output *o, struct report *r, const char *path, bool forced)
{
	(void)path;
	(void)forced;
	report__coalesce_rows(r);
	report__fprintf_stdio(r, stdout);
	return 0;
}

static int write_json(const struct output *o, struct report *r, const char *path, bool forced)
{
	(void)path;
	(void)forced;
	report__fprintf_json(r, stdout);
	return 0;
}

/* The browser; a terminal it cannot use (TERM=dumb): text, as --stdio,
 * unless --tui was asked for. -EINTR: Ctrl-C. */
static int write_tui(const struct output *o, struct report *r, const char *path, bool forced)
{
	char err[512];
	int ret = tui__browse(r, err, sizeof(err));

	(void)path;
	if (ret == -ENOTTY && !forced)
		return write_stdio(o, r, path, forced);
	if (ret < 0 && ret != -EINTR)
		fprintf(stderr, "c2cscan: %s\n", err);
	return ret;
}

/*
 * report's outputs, one table: a stream output goes to stdout, one of them
 * at a time (stdio, json, tui); a file output takes a path (- for stdout
 * where it says so) and goes beside it. A writer prints its own error and
 * returns a negative value. A new output is a writer and a line here (and
 * its option in longopts, its text in report_usage and the man page).
 */
static const struct output outputs[] = {
	{ OPT_STDIO, "--stdio", false, write_stdio, NULL },
	{ OPT_JSON, "--json", false, write_json, NULL },
	{ OPT_TUI, "--tui", false, write_tui, NULL },
	{ OPT_PPROF, "--pprof", true, write_lib, report__write_pprof },
	{ OPT_HTML, "--html", true, write_lib, report__write_html },
	{ OPT_PATCH, "--patch", true, write_patch, NULL },
};
#define NR_OUTPUTS ARRAY_SIZE(outputs)

static const struct output *output_of(int opt)
{
	for (size_t i = 0; i < NR_OUTPUTS; i++)
		if (outputs[i].opt == opt)
			return &outputs[i];
	return NULL;
}

/* What cmd_report gathers from its arguments. */
struct report_args {
	struct report_opts o;
	const char *paths[NR_OUTPUTS];          /* the file outputs asked for */
	const struct output *stream;            /* the stdout output, NULL none */
	bool stream_asked;                      /* by an option (a --tui the terminal cannot show fails) */
	bool input_set;
};

static const struct option report_longopts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "stdio", no_argument, NULL, OPT_STDIO },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "tui", no_argument, NULL, OPT_TUI },
	{ "pprof", required_argument, NULL, OPT_PPROF },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "patch", required_argument, NULL, OPT_PATCH },
	{ "display", required_argument, NULL, 'd' },
	{ "show-all", no_argument, NULL, OPT_SHOW_ALL },
	{ "double-cl", no_argument, NULL, OPT_DOUBLE_CL },
	{ "cacheline-size", required_argument, NULL, OPT_CL_SIZE },
	{ "lines", required_argument, NULL, OPT_LINES },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "full-symbols", no_argument, NULL, OPT_FULL_SYMBOLS },
	{ "call-graph", no_argument, NULL, 'g' },
	{ "no-call-graph", no_argument, NULL, OPT_NO_CALL_GRAPH },
	{ "node-info", no_argument, NULL, 'N' },
	{ "coalesce", required_argument, NULL, 'c' },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
	{ "fail-share", required_argument, NULL, OPT_FAIL_SHARE },
	{ "alloc-wrapper", required_argument, NULL, OPT_ALLOC_WRAPPER },
	{ "force", no_argument, NULL, 'f' },
	{ "no-symbols", no_argument, NULL, OPT_NO_SYMBOLS },
	{ "symfs", required_argument, NULL, CLI_OPT_SYMFS },
	{ "vmlinux", required_argument, NULL, 'k' },
	{ "no-debuginfod", no_argument, NULL, CLI_OPT_NO_DEBUGINFOD },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* One option that is neither an output nor a shared report option: -1
 * taken, else the exit status (help: 0, a usage error). */
static int report_option(int c, char **argv, struct report_args *a)
{
	switch (c) {
	case 'i':
		a->o.input = optarg;
		a->input_set = true;
		break;
	case OPT_SHOW_ALL:
		a->o.show_all = true;
		break;
	case OPT_DOUBLE_CL:
		a->o.double_cl = true;
		break;
	case OPT_CL_SIZE:
		if (parse_uint(optarg, &a->o.cl_size) < 0 || !a->o.cl_size)
			return usage_error("bad cacheline size '%s'", optarg);
		break;
	case OPT_STATS:
		a->o.stats_only = true;
		break;
	case OPT_FULL_SYMBOLS:
		a->o.full_symbols = true;
		break;
	case 'f':
		break;
	case 'g':
		a->o.call_graph = REPORT_CG_ON;
		break;
	case 'N':
		a->o.node_info = true;
		break;
	case 'c':
		if (report__coalesce_parse(optarg, &a->o.coalesce) < 0)
			return usage_error("--coalesce: a list of tid, pid, iaddr, dso, not '%s'", optarg);
		break;
	case OPT_SORT:
		if (strcmp(optarg, sort_words[0]) && strcmp(optarg, sort_words[1]))
			return usage_error("--sort: gain or metric, not '%s'", optarg);
		a->o.sort_gain = !strcmp(optarg, sort_words[0]);
		break;
	case OPT_FAIL_ON:
		if (parse_fail_on(optarg, &a->o.fail_on))
			return usage_error("--fail-on: false-sharing, true-sharing or mixed, comma-separated, "
					   "not '%s'", optarg);
		break;
	case OPT_FAIL_SHARE: {
		char *end;

		errno = 0;
		a->o.fail_share = strtod(optarg, &end);
		if (errno || end == optarg || *end || !(a->o.fail_share >= 0 && a->o.fail_share <= 100))
			return usage_error("--fail-share: a percentage 0..100, not '%s'", optarg);
		break;
	}
	case OPT_NO_CALL_GRAPH:
		a->o.call_graph = REPORT_CG_OFF;
		break;
	case OPT_ALLOC_WRAPPER:
		if (a->o.nr_alloc_wrappers == (int)ARRAY_SIZE(a->o.alloc_wrappers) || !optarg[0])
			return usage_error("--alloc-wrapper '%s': a name, 16 at most", optarg);
		a->o.alloc_wrappers[a->o.nr_alloc_wrappers++] = optarg;
		break;
	case OPT_LINES:
		if (parse_uint(optarg, &a->o.max_lines) < 0)
			return usage_error("bad number of lines '%s'", optarg);
		a->o.max_lines_set = true;
		break;
	case OPT_NO_SYMBOLS:
		a->o.names.disabled = true;
		break;
	case 'k':
		a->o.names.vmlinux = optarg;
		break;
	case 'h':
		fputs(report_usage, stdout);
		return 0;
	default:
		return cli__option_error("report", c, argv[optind - 1], report_longopts);
	}
	return -1;
}

/* The arguments into *a: -1 to go on, else the exit status (the help, a
 * list for completion, a usage error). */
static int report_args(int argc, char **argv, struct report_args *a)
{
	const struct output *out;
	bool files = false;
	int c, opt;

	optind = 1;
	opterr = 0;
	if (cli__list_options(argc, argv, SHORTOPTS, report_longopts) || cli__list_values(argc, argv, report_values))
		return 0;
	while ((c = getopt_long(argc, argv, SHORTOPTS, report_longopts, NULL)) != -1) {
		opt = cli__report_option("report", c, optarg, &a->o);
		if (opt < 0)
			return -opt;
		if (opt)
			continue;
		out = output_of(c);
		if (out && out->file) {
			a->paths[out - outputs] = optarg;
			files = true;
		} else if (out) {
			if (a->stream && a->stream != out)
				return usage_error("%s", "--stdio, --json and --tui exclude each other");
			a->stream = out;
		} else if ((opt = report_option(c, argv, a)) >= 0) {
			return opt;
		}
	}
	/* "report FILE" as perf's users type it */
	if (optind < argc && !a->input_set && optind + 1 == argc)
		a->o.input = argv[optind++];
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	a->stream_asked = a->stream != NULL;
	/* a file output alone: the file only; --fail-on alone: the failing
	 * lines only (a test suite's log); else the browser on a terminal */
	if (!a->stream && !files && !a->o.fail_on)
		a->stream = output_of(isatty(STDOUT_FILENO) ? OPT_TUI : OPT_STDIO);
	if (a->o.fail_share < 0)
		a->o.fail_share = REPORT_FAIL_SHARE;
	return -1;
}

/* The report loaded and written to every output asked for: the exit status. */
static int report_run(struct report_args *a)
{
	struct report *r;
	char err[512];
	int ret, c;

	ret = report__load(&r, &a->o, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "c2cscan: %s: %s\n", strcmp(a->o.input, "-") ? a->o.input : "<stdin>", err);
		return 1;
	}
	if (a->o.call_graph == REPORT_CG_ON && !report__has_stacks(r))
		fprintf(stderr, "c2cscan report: %s has no call graphs (record with -g or --call-graph dwarf)\n",
			report__path(r));
	for (size_t i = 0; i < NR_OUTPUTS; i++) {
		if (a->paths[i] && outputs[i].write(&outputs[i], r, a->paths[i], true) < 0) {
			report__delete(r);
			return 1;
		}
	}
	ret = a->stream ? a->stream->write(a->stream, r, NULL, a->stream_asked) : 0;
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "c2cscan: writing the report: %s\n", strerror(errno));
		ret = -EIO;
	}
	if (report__partial(r))
		fprintf(stderr, "c2cscan: %s: partial report: %s\n", report__path(r), report__partial_reason(r));
	/* Ctrl-C in the browser: the shell's convention for SIGINT */
	c = ret == -EINTR ? 130 : ret < 0 ? 1 : report__partial(r) ? 2 : 0;
	/* for test suites: their contention fails the run */
	if (!c && a->o.fail_on && report__fail_lines(r, a->o.fail_on, a->o.fail_share, stderr))
		c = 1;
	report__delete(r);
	return c;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .o = { .input = "perf.data", .fail_share = -1 } };
	int ret = report_args(argc, argv, &a);

	if (ret >= 0)
		return ret;
	if (a.o.names.symfs) {
		struct stat st;
		int e = stat(a.o.names.symfs, &st) ? errno : 0;

		if (e || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "c2cscan report: --symfs %s: %s\n", a.o.names.symfs,
				e ? strerror(e) : "not a directory");
			return 129;
		}
	}
	if (!a.input_set && access(a.o.input, F_OK) && errno == ENOENT) {
		fprintf(stderr, "c2cscan report: no perf.data here: record one ('c2cscan record -- COMMAND') "
			"or name a file (-i FILE)\n");
		return 1;
	}
	return report_run(&a);
}
