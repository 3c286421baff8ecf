// SPDX-License-Identifier: GPL-2.0
/*
 * c2cscan diff: did the change help? Two recordings (before and after a
 * fix, usually of two builds) read as report reads them, their lines
 * matched by what they hold (report/diff.c). Exit codes as report's: 0, 1
 * an input cannot be read, 2 one of them is partial, 129 usage.
 */
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "report/diff.h"
#include "report/report.h"

enum { OPT_STDIO = 256, OPT_JSON, OPT_HTML };

static const struct cli_opt diff_opts[] = {
	{ "stdio", OPT_STDIO, NULL, "a table (the default)", NULL },
	{ "json", OPT_JSON, NULL, "{\"lines\": [{\"name\", \"before\", \"after\"}]} (c2cscan-diff(1))", NULL },
	{ "html", OPT_HTML, "FILE", "the same as one self-contained HTML page in FILE (nothing printed)", NULL },
	CLI_OPT_DISPLAY("compare by tot|lcl|rmt (HITM), peer or all (default: BEFORE's)"),
	CLI_OPT_SYMFS_ENTRY("look for objects under DIR"),
	CLI_OPT_NO_DEBUGINFOD_ENTRY("never ask debuginfod servers"),
	CLI_OPT_HELP,
	CLI_OPT_END,
};

static const struct cli_cmd diff_cmd = {
	.name = "diff",
	.head = "usage: c2cscan diff [options] BEFORE AFTER\n"
		"\n"
		"  Matches the contended lines of two recordings by name (data symbol, heap\n"
		"  allocation site, object and function), never by address, and prints each\n"
		"  name's counters before and after.\n"
		"\n",
	.column = 27,
	.opts = diff_opts,
};

int cmd_diff(int argc, char **argv)
{
	struct report_opts o = { .call_graph = REPORT_CG_OFF };
	struct report *r[2] = { NULL, NULL };
	struct report_diff d;
	struct report_error e;
	const char *html = NULL;
	bool json = false;
	char err[512];
	struct cli_parser p;
	int c, opt, ret = 0;

	if (!cli__parser_init(&p, &diff_cmd, argc, argv))
		return 0;
	while ((c = cli__next(&p)) != -1) {
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
			return cli__help(&diff_cmd, stdout);
		default:
			return cli__bad_option(&p, c);
		}
	}
	if (argc - optind != 2)
		return cli__usage_error("diff", "%s", "give two recordings: BEFORE AFTER");
	for (int i = 0; i < 2; i++) {
		o.input = argv[optind + i];
		if (report__load(&r[i], &o, &e) < 0) {
			fprintf(stderr, "c2cscan: %s: %s\n", o.input, cli__report_error(&e, err, sizeof(err)));
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
		int werr = report_diff__write_html(&d, html);

		if (werr < 0) {
			fprintf(stderr, "c2cscan diff: --html %s: cannot write: %s\n", html, strerror(-werr));
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
