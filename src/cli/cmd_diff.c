// SPDX-License-Identifier: GPL-2.0
/*
 * c2cscan diff: did the change help? Two recordings (before and after a
 * fix, usually of two builds) read as report reads them, their lines
 * matched by what they hold (report/diff.c). Exit codes as report's: 0, 1
 * an input cannot be read, 2 one of them is partial, 129 usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "report/diff.h"
#include "report/report.h"

static const char diff_usage[] =
	"usage: c2cscan diff [options] BEFORE AFTER\n"
	"\n"
	"  Matches the contended lines of two recordings by name (data symbol, heap\n"
	"  allocation site, object and function), never by address, and prints each\n"
	"  name's counters before and after.\n"
	"\n"
	"      --stdio              a table (the default)\n"
	"      --json               {\"lines\": [{\"name\", \"before\", \"after\"}]} (c2cscan-diff(1))\n"
	"      --html FILE          the same as one self-contained HTML page in FILE (nothing printed)\n"
	"  -d, --display MODE       compare by tot|lcl|rmt (HITM), peer or all (default: BEFORE's)\n"
	"      --symfs DIR          look for objects under DIR\n"
	"      --no-debuginfod      never ask debuginfod servers\n"
	"  -h, --help               this text\n";

static int usage_error(const char *fmt, const char *arg)
{
	return cli__usage_error("diff", fmt, arg);
}

#define SHORTOPTS ":d:h"

int cmd_diff(int argc, char **argv)
{
	enum { OPT_STDIO = 256, OPT_JSON, OPT_HTML };
	static const struct option longopts[] = {
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "display", required_argument, NULL, 'd' },
		{ "symfs", required_argument, NULL, CLI_OPT_SYMFS },
		{ "no-debuginfod", no_argument, NULL, CLI_OPT_NO_DEBUGINFOD },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_opts o = { .call_graph = REPORT_CG_OFF };
	struct report *r[2] = { NULL, NULL };
	struct report_diff d;
	const char *html = NULL;
	bool json = false;
	char err[512];
	int c, opt, ret = 0;
	static const struct cli_values values[] = {
		{ "-d", cli__display_words }, { "--display", cli__display_words }, { NULL, NULL },
	};

	optind = 1;
	opterr = 0;
	if (cli__list_options(argc, argv, SHORTOPTS, longopts) || cli__list_values(argc, argv, values))
		return 0;
	while ((c = getopt_long(argc, argv, SHORTOPTS, longopts, NULL)) != -1) {
		opt = cli__report_option("diff", c, optarg, &o);
		if (opt < 0)
			return -opt;
		if (opt)
			continue;
		switch (c) {
		case OPT_STDIO:
		case OPT_JSON:
			json = c == OPT_JSON;
			break;
		case OPT_HTML:
			html = optarg;
			break;
		case 'h':
			fputs(diff_usage, stdout);
			return 0;
		default:
			return cli__option_error("diff", c, argv[optind - 1], longopts);
		}
	}
	if (argc - optind != 2)
		return usage_error("%s", "give two recordings: BEFORE AFTER");
	for (int i = 0; i < 2; i++) {
		o.input = argv[optind + i];
		if (report__load(&r[i], &o, err, sizeof(err)) < 0) {
			fprintf(stderr, "c2cscan: %s: %s\n", o.input, err);
			report__delete(r[0]);
			return 1;
		}
		if (report__partial(r[i])) {
			fprintf(stderr, "c2cscan: %s: partial: %s\n", o.input, report__partial_reason(r[i]));
			ret = 2;
		}
	}
	/* one measure for both: the given mode, else the one BEFORE chose */
	if (!o.mode_set)
		report__set_mode(r[1], report__mode(r[0]));
	report_diff__build(r[0], r[1], &d);
	if (html) {
		if (report_diff__write_html(&d, html, err, sizeof(err)) < 0) {
			fprintf(stderr, "c2cscan diff: --html %s\n", err);
			ret = 1;
		}
	} else if (json) {
		report_diff__fprintf_json(&d, stdout);
	} else {
		report_diff__fprintf_stdio(&d, stdout);
	}
	report_diff__exit(&d);
	report__delete(r[0]);
	report__delete(r[1]);
	return ret;
}
