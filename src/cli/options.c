// SPDX-License-Identifier: GPL-2.0
/* What the subcommands' option parsers share. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "perfdata/error.h"
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

static bool is_short(const struct cli_opt *o)
{
	return o->id > 0 && o->id < 256;
}

static bool end_of(const struct cli_opt *o)
{
	return !o->name && !o->id;
}

/* Its value may be left out ("[=OPTS]"). */
static bool optional(const struct cli_opt *o)
{
	return o->arg && o->arg[0] == '[';
}

const char *cli__closest_option(const struct cli_opt *opts, const char *arg)
{
	const char *best = NULL, *name = arg;
	unsigned int best_d = 3;        /* at most two edits away */

	while (*name == '-')
		name++;
	for (const struct cli_opt *o = opts; !end_of(o); o++) {
		unsigned int d;

		if (!o->name)
			continue;
		d = distance(name, o->name);
		if (d < best_d || (!strncmp(o->name, name, strlen(name)) && *name && d < 99 && !best)) {
			best = o->name;
			best_d = d < best_d ? d : best_d;
		}
	}
	return best;
}

/* "--list-options" and "--list-values OPTION": the completion's questions. */
static bool answer_completion(const struct cli_cmd *cmd, int argc, char **argv)
{
	const struct cli_opt *o;

	if (argc == 2 && !strcmp(argv[1], "--list-options")) {
		for (o = cmd->opts; !end_of(o); o++)
			if (is_short(o))
				printf("-%c\n", o->id);
		for (o = cmd->opts; !end_of(o); o++)
			if (o->name)
				printf("--%s\n", o->name);
		return true;
	}
	if (argc != 3 || strcmp(argv[1], "--list-values"))
		return false;
	for (o = cmd->opts; !end_of(o); o++) {
		const char *a = argv[2];
		bool named = (a[0] == '-' && a[1] == '-' && o->name && !strcmp(a + 2, o->name)) ||
			     (a[0] == '-' && is_short(o) && a[1] == o->id && !a[2]);

		for (const char *const *w = o->values; named && w && *w; w++)
			printf("%s\n", *w);
	}
	return true;
}

bool cli__parser_init(struct cli_parser *p, const struct cli_cmd *cmd, int argc, char **argv)
{
	char *s = p->shortopts;
	size_t nl = 0;

	p->cmd = cmd;
	p->argc = argc;
	p->argv = argv;
	if (answer_completion(cmd, argc, argv))
		return false;
	if (cmd->in_order)
		*s++ = '+';
	*s++ = ':';             /* a missing value is ':', told from an unknown option */
	for (const struct cli_opt *o = cmd->opts; !end_of(o); o++) {
		/* a table past its bound is a mistake every test of the command shows */
		if (nl == CLI_MAX_OPTS)
			abort();
		if (is_short(o)) {
			*s++ = (char)o->id;
			if (o->arg)
				*s++ = ':';
			if (optional(o))
				*s++ = ':';
		}
		if (o->name)
			p->longopts[nl++] = (struct option){
				o->name, !o->arg ? no_argument : optional(o) ? optional_argument : required_argument,
				NULL, o->id,
			};
	}
	*s = '\0';
	p->longopts[nl] = (struct option){ NULL, 0, NULL, 0 };
	optind = 1;
	opterr = 0;
	return true;
}

int cli__next(struct cli_parser *p)
{
	return getopt_long(p->argc, p->argv, p->shortopts, p->longopts, NULL);
}

int cli__bad_option(const struct cli_parser *p, int c)
{
	const char *arg = p->argv[optind - 1];
	const char *near = arg[0] == '-' && arg[1] == '-' ? cli__closest_option(p->cmd->opts, arg) : NULL;

	if (c == ':')
		return cli__usage_error(p->cmd->name, "option '%s' needs a value", arg);
	fprintf(stderr, "c2cscan %s: unknown option '%s'", p->cmd->name, arg);
	if (near)
		fprintf(stderr, "; did you mean '--%s'?", near);
	fprintf(stderr, " (c2cscan %s -h lists them)\n", p->cmd->name);
	return 129;
}

/* One option's lines of -h: "  -i, --input FILE", its text from the
 * column (two spaces past a longer left part), the rest of its lines
 * under the column. */
static void help_option(FILE *fp, const struct cli_opt *o, int column)
{
	char left[128];
	int n = is_short(o) ? snprintf(left, sizeof(left), "  -%c%s", o->id, o->name ? ", " : "") :
		snprintf(left, sizeof(left), "      ");

	if (o->name)
		n += snprintf(left + n, sizeof(left) - (size_t)n, "--%s", o->name);
	if (o->arg)
		snprintf(left + n, sizeof(left) - (size_t)n, "%s%s", optional(o) ? "" : " ", o->arg);
	n = (int)strlen(left);
	fprintf(fp, "%s%*s", left, n >= column ? 2 : column - n, "");
	for (const char *t = o->help; *t;) {
		size_t len = strcspn(t, "\n");

		fprintf(fp, "%.*s\n", (int)len, t);
		t += len;
		if (*t && *++t)
			fprintf(fp, "%*s", column, "");
	}
}

int cli__help(const struct cli_cmd *cmd, FILE *fp)
{
	fputs(cmd->head, fp);
	for (const struct cli_opt *o = cmd->opts; !end_of(o); o++)
		help_option(fp, o, cmd->column);
	if (cmd->tail)
		fputs(cmd->tail, fp);
	return 0;
}

int cli__word(const char *const *words, const char *word)
{
	for (int i = 0; words[i]; i++)
		if (!strcmp(words[i], word))
			return i;
	return -1;
}

int cli__word_set(const char *const *words, const char *list, unsigned int *set)
{
	*set = 0;
	while (*list) {
		size_t n = strcspn(list, ",");
		int i;

		for (i = 0; words[i]; i++)
			if (strlen(words[i]) == n && !strncmp(list, words[i], n))
				break;
		if (!words[i] || i >= 32)
			return -EINVAL;
		*set |= 1u << i;
		list += n + (list[n] == ',');
	}
	return *set ? 0 : -EINVAL;
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

const char *const cli__display_words[] = { "tot", "lcl", "rmt", "peer", "all", NULL };

const char *cli__report_error(const struct report_error *e, char *buf, size_t size)
{
	switch (e->kind) {
	case REPORT_ERR_FILE:
		return pd_error__str(&e->file, buf, size);
	case REPORT_ERR_MAPS:
		snprintf(buf, size, "cannot build the maps timeline: %s", strerror(e->errnum));
		break;
	case REPORT_ERR_LINE_SIZE:
		snprintf(buf, size, "cacheline size %u is not a power of two in 8..4096", e->line_size);
		break;
	case REPORT_ERR_REREAD:
		snprintf(buf, size, "cannot re-read the file: %s", strerror(e->errnum));
		break;
	case REPORT_ERR_NONE:
		snprintf(buf, size, "no error");
		break;
	}
	return buf;
}
