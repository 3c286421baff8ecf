// SPDX-License-Identifier: GPL-2.0
/* What the subcommands' option parsers share. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "report/report.h"

/* Levenshtein distance of two short strings (option names), capped. */
static unsigned int distance(const char *a, const char *b)
{
	unsigned int row[64], la = (unsigned int)strlen(a), lb = (unsigned int)strlen(b);

	if (la >= 63 || lb >= 63)
		return 99;
	for (unsigned int j = 0; j <= lb; j++)
		row[j] = j;
	for (unsigned int i = 1; i <= la; i++) {
		unsigned int diag = row[0];

		row[0] = i;
		for (unsigned int j = 1; j <= lb; j++) {
			unsigned int up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			if (up + 1 < best)
				best = up + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

const char *cli__closest_option(const struct option *opts, const char *arg)
{
	const char *best = NULL, *name = arg;
	unsigned int best_d = 3;        /* at most two edits away */

	while (*name == '-')
		name++;
	for (const struct option *o = opts; o->name; o++) {
		unsigned int d = distance(name, o->name);

		if (d < best_d || (!strncmp(o->name, name, strlen(name)) && *name && d < 99 && !best)) {
			best = o->name;
			best_d = d < best_d ? d : best_d;
		}
	}
	return best;
}

int cli__unknown_option(const char *cmd, const char *arg, const struct option *opts)
{
	const char *near = arg[0] == '-' && arg[1] == '-' ? cli__closest_option(opts, arg) : NULL;

	fprintf(stderr, "c2cscan %s: unknown option '%s'", cmd, arg);
	if (near)
		fprintf(stderr, "; did you mean '--%s'?", near);
	fprintf(stderr, " (c2cscan %s -h lists them)\n", cmd);
	return 129;
}

int cli__option_error(const char *cmd, int c, const char *arg, const struct option *opts)
{
	if (c == ':')
		return cli__usage_error(cmd, "option '%s' needs a value", arg);
	return cli__unknown_option(cmd, arg, opts);
}

int cli__report_option(const char *cmd, int c, const char *arg, struct report_opts *o)
{
	switch (c) {
	case 'd':
		if (c2c_display__parse(arg, &o->mode) < 0)
			return -cli__usage_error(cmd, "unknown display mode '%s' (tot, lcl, rmt, peer, all)", arg);
		o->mode_set = true;
		return 1;
	case CLI_OPT_SYMFS:
		o->names.symfs = arg;
		return 1;
	case CLI_OPT_NO_DEBUGINFOD:
		o->names.no_debuginfod = true;
		return 1;
	default:
		return 0;
	}
}

int cli__usage_error(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "c2cscan %s: ", cmd);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (c2cscan %s -h lists the options)\n", cmd);
	return 129;
}

bool cli__list_options(int argc, char **argv, const char *shortopts, const struct option *opts)
{
	if (argc != 2 || strcmp(argv[1], "--list-options"))
		return false;
	for (const char *p = shortopts; *p; p++)
		if (*p != ':' && *p != '+')
			printf("-%c\n", *p);
	for (const struct option *o = opts; o->name; o++)
		printf("--%s\n", o->name);
	return true;
}

const char *const cli__display_words[] = { "tot", "lcl", "rmt", "peer", "all", NULL };

bool cli__list_values(int argc, char **argv, const struct cli_values *v)
{
	if (argc != 3 || strcmp(argv[1], "--list-values"))
		return false;
	for (; v->opt; v++) {
		if (strcmp(v->opt, argv[2]))
			continue;
		for (const char *const *w = v->words; *w; w++)
			printf("%s\n", *w);
	}
	return true;
}
