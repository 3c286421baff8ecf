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
#include <inttypes.h>
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

/* --fail-on's kinds: fail_on_words[i] is fail_on_kinds[i] */
static const char *const fail_on_words[] = { "false-sharing", "true-sharing", "mixed", NULL };
static const enum verdict_kind fail_on_kinds[] = { VERDICT_FALSE, VERDICT_TRUE, VERDICT_MIXED };
static const char *const sort_words[] = { "gain", "metric", NULL };
/* -c's fields: coalesce_words[i] is bit 1 << i of report_opts.coalesce */
static const char *const coalesce_words[] = { "tid", "pid", "iaddr", "dso", NULL };
_Static_assert(CO_TID == 1 && CO_PID == 2 && CO_IADDR == 4 && CO_DSO == 8, "-c's words are the CO_ bits");

/* "false-sharing,true-sharing" into a set of verdict kinds. */
static int parse_fail_on(const char *s, unsigned int *kinds)
{
	unsigned int words;

	if (cli__word_set(fail_on_words, s, &words))
		return -EINVAL;
	*kinds = 0;
	for (size_t i = 0; i < ARRAY_SIZE(fail_on_kinds); i++)
		if (words & (1u << i))
			*kinds |= 1u << fail_on_kinds[i];
	return 0;
}

/* --patch FILE: the diff in FILE (- stdout), and how many changes it
 * holds on stderr. */
enum { OPT_STDIO = 256, OPT_JSON, OPT_TUI, OPT_SHOW_ALL, OPT_DOUBLE_CL, OPT_CL_SIZE, OPT_LINES,
       OPT_NO_SYMBOLS, OPT_STATS, OPT_FULL_SYMBOLS,
       OPT_NO_CALL_GRAPH, OPT_ALLOC_WRAPPER, OPT_SORT, OPT_FAIL_ON, OPT_FAIL_SHARE, OPT_PPROF, OPT_HTML,
       OPT_PATCH, OPT_PATCH_LATENT };

/* An output of report (the table, outputs[], is below its writers). */
struct output {
	int opt;
	const char *option;
	bool file;
	int (*write)(const struct output *o, struct report *r, const char *path, bool forced);
	int (*lib)(struct report *r, const char *path);        /* write_lib's: 0 or -errno */
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

/* A file the report library writes (pprof, HTML): why it could not,
 * said under the output's option. */
static int write_lib(const struct output *o, struct report *r, const char *path, bool forced)
{
	int ret = o->lib(r, path);

	(void)forced;
	if (ret < 0) {
		fprintf(stderr, "c2cscan report: %s %s: cannot write: %s\n", o->option, path, strerror(-ret));
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
	struct tui_error e = { .kind = TUI_ERR_NONE };
	int ret = tui__browse(r, &e);

	(void)path;
	if (ret == -ENOTTY && !forced)
		return write_stdio(o, r, path, forced);
	switch (ret < 0 && ret != -EINTR ? e.kind : TUI_ERR_NONE) {
	case TUI_ERR_KEY_SCRIPT:
		fprintf(stderr, "c2cscan: cannot read the key script %s: %s\n", e.name, strerror(e.errnum));
		break;
	case TUI_ERR_NO_TERMINAL:
		fprintf(stderr, "c2cscan: the browser needs a terminal (use --stdio or --json)\n");
		break;
	case TUI_ERR_TERM_SETUP:
		fprintf(stderr, "c2cscan: cannot set up the terminal '%s' (use --stdio or --json)\n", e.name);
		break;
	case TUI_ERR_NO_CURSOR:
		fprintf(stderr, "c2cscan: the terminal '%s' cannot move the cursor (use --stdio or --json)\n",
			e.name);
		break;
	case TUI_ERR_NONE:
		break;
	}
	return ret;
}

/*
 * report's outputs, one table: a stream output goes to stdout, one of them
 * at a time (stdio, json, tui); a file output takes a path (- for stdout
 * where it says so) and goes beside it. A writer prints its own error and
 * returns a negative value. A new output is a writer and a line here (and
 * its line in report_opts_table, and the man page).
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

/* report's options, in -h's order: the parser, -h, the completion. */
static const struct cli_opt report_opts_table[] = {
	{ "input", 'i', "FILE", "perf.data file to read (default perf.data; - = stdin)", NULL },
	{ "stdio", OPT_STDIO, NULL, "text output (default when stdout is not a terminal)", NULL },
	{ "json", OPT_JSON, NULL, "JSON output (schema: c2cscan-report(1))", NULL },
	{ "tui", OPT_TUI, NULL, "the interactive browser (default on a terminal)", NULL },
	{ "pprof", OPT_PPROF, "FILE", "the view as a pprof profile (gzipped profile.proto) in FILE, for\n"
	  "go tool pprof and profile stores; alone, nothing else is printed", NULL },
	{ "html", OPT_HTML, "FILE", "the view as one self-contained HTML page (pictures of the lines'\n"
	  "bytes, sortable tables); alone, nothing else is printed", NULL },
	{ "patch", OPT_PATCH, "FILE", "a unified diff (git apply, patch -p1) that gives the data of every\n"
	  "false-shared line a line of its own in the program's sources\n"
	  "(- = stdout); alone, nothing else is printed", NULL },
	{ "patch-latent", OPT_PATCH_LATENT, NULL, "with --patch: latent false sharing too (data of two threads\n"
	  "a line apart or less across a boundary, or in one 128-byte\n"
	  "block): the later aligned to 128 bytes", NULL },
	CLI_OPT_DISPLAY("rank lines by tot|lcl|rmt (HITM), peer, or all (accesses)"),
	{ "show-all", OPT_SHOW_ALL, NULL, "list every line, not only contended ones", NULL },
	{ "double-cl", OPT_DOUBLE_CL, NULL, "group by 2 cachelines (adjacent-line prefetch)", NULL },
	{ "cacheline-size", OPT_CL_SIZE, "N", "override the file's cacheline size (default: file's, else 64)", NULL },
	{ "lines", OPT_LINES, "N", "--stdio: detail the offsets of the first N lines only", NULL },
	{ "no-symbols", OPT_NO_SYMBOLS, NULL, "do not name code and data (faster; addresses only)", NULL },
	CLI_OPT_SYMFS_ENTRY("look for objects and debug info under DIR (another machine's files)"),
	{ "vmlinux", 'k', "FILE", "kernel image with symbols (default: /proc/kallsyms when it matches)", NULL },
	CLI_OPT_NO_DEBUGINFOD_ENTRY("never ask debuginfod servers (DEBUGINFOD_URLS) for debug info"),
	{ "stats", OPT_STATS, NULL, "--stdio: the statistics only, no cacheline tables (perf c2c's --stats)", NULL },
	{ "full-symbols", OPT_FULL_SYMBOLS, NULL, "--stdio: source files with their whole path", NULL },
	{ "call-graph", 'g', NULL, "callers of every row (the default when the recording has\n"
	  "stacks: record -g or --call-graph dwarf)", NULL },
	{ "no-call-graph", OPT_NO_CALL_GRAPH, NULL, "no callers (and no pass over the stacks)", NULL },
	{ "node-info", 'N', NULL, "--stdio: each offset's NUMA nodes and their cpus, Node{cpus}", NULL },
	{ "coalesce", 'c', "FIELDS", "--stdio: offset rows per FIELDS besides the offset, any of\n"
	  "tid,pid,iaddr,dso (perf c2c's; default: iaddr)", coalesce_words },
	{ "sort", OPT_SORT, "gain|metric", "lines by estimated gain (cycles a fix could save), or by the\n"
	  "display mode's metric (the default)", sort_words },
	{ "fail-on", OPT_FAIL_ON, "KINDS", "exit 1 when a line's verdict is one of KINDS (false-sharing,\n"
	  "true-sharing, mixed; comma-separated), naming them and why on\n"
	  "stderr; alone it prints nothing else (add --stdio for the report)", fail_on_words },
	{ "fail-share", OPT_FAIL_SHARE, "PCT", "with --fail-on: only lines with at least PCT% of the metric\n"
	  "(default 1)", NULL },
	{ "alloc-wrapper", OPT_ALLOC_WRAPPER, "SYM", "with allocation stacks (record --alloc -g): SYM only passes\n"
	  "allocations on, its caller is the site (SYM* a prefix; 16)", NULL },
	{ "force", 'f', NULL, "accepted for perf c2c's habits (c2cscan reads any owner's file)", NULL },
	CLI_OPT_HELP,
	CLI_OPT_END,
};

static const struct cli_cmd report_cmd = {
	.name = "report",
	.head = "usage: c2cscan report [options]\n\n",
	.column = 27,
	.opts = report_opts_table,
};

/* One option that is neither an output nor a shared report option: -1
 * taken, else the exit status (help: 0, a usage error). */
static int report_option(const struct cli_parser *p, int c, struct report_args *a)
{
	switch (c) {
	case 'i':
		a->o.input = optarg;
		a->input_set = true;
		break;
	case OPT_SHOW_ALL:
		a->o.show_all = true;
		break;
	case OPT_PATCH_LATENT:
		a->o.patch_latent = true;
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
		if (cli__word_set(coalesce_words, optarg, &a->o.coalesce) < 0)
			return usage_error("--coalesce: a list of tid, pid, iaddr, dso, not '%s'", optarg);
		break;
	case OPT_SORT: {
		int w = cli__word(sort_words, optarg);

		if (w < 0)
			return usage_error("--sort: gain or metric, not '%s'", optarg);
		a->o.sort_gain = w == 0;
		break;
	}
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
		return cli__help(&report_cmd, stdout);
	default:
		return cli__bad_option(p, c);
	}
	return -1;
}

/* The arguments into *a: -1 to go on, else the exit status (the help, a
 * list for completion, a usage error). */
static int report_args(int argc, char **argv, struct report_args *a)
{
	const struct output *out;
	struct cli_parser p;
	bool files = false;
	int c, opt;

	if (!cli__parser_init(&p, &report_cmd, argc, argv))
		return 0;
	while ((c = cli__next(&p)) != -1) {
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
		} else if ((opt = report_option(&p, c, a)) >= 0) {
			return opt;
		}
	}
	/* "report FILE" as perf's users type it */
	if (optind < argc && !a->input_set && optind + 1 == argc)
		a->o.input = argv[optind++];
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (a->o.patch_latent && !a->paths[output_of(OPT_PATCH) - outputs])
		return usage_error("%s", "--patch-latent goes with --patch FILE");
	a->stream_asked = a->stream != NULL;
	/* a file output alone: the file only; --fail-on alone: the failing
	 * lines only (a test suite's log); else the browser on a terminal */
	if (!a->stream && !files && !a->o.fail_on)
		a->stream = output_of(isatty(STDOUT_FILENO) ? OPT_TUI : OPT_STDIO);
	if (a->o.fail_share < 0)
		a->o.fail_share = REPORT_FAIL_SHARE;
	return -1;
}

/* A line --fail-on fails on, one line on stderr. */
static void say_fail_line(void *ctx, const struct fail_line *l)
{
	const struct report *r = ctx;

	fprintf(stderr, "c2cscan report: --fail-on: line %zu %#" PRIx64 " %s: %s, %.1f%% of %s: %s\n", l->rank,
		l->addr, l->name, verdict__word(l->kind), l->share, c2c_display__name(report__mode(r)), l->what);
}

/* The report loaded and written to every output asked for: the exit status. */
static int report_run(struct report_args *a)
{
	struct report_error e;
	struct report *r;
	char err[512];
	int ret, c;

	ret = report__load(&r, &a->o, &e);
	if (ret < 0) {
		fprintf(stderr, "c2cscan: %s: %s\n", strcmp(a->o.input, "-") ? a->o.input : "<stdin>",
			cli__report_error(&e, err, sizeof(err)));
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
	if (!c && a->o.fail_on && report__fail_lines(r, a->o.fail_on, a->o.fail_share, say_fail_line, r))
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
