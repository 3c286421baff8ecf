// SPDX-License-Identifier: GPL-2.0
/* The option tables (src/cli/options.c): getopt's tables, -h's layout, the
 * completion's answers and the value words, built from one table. */
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>
#include "cli/cli.h"
#include "test.h"

enum { OPT_LONG_ONLY = 256, OPT_MAYBE };
static const char *const colours[] = { "red", "green", "blue", NULL };
static const struct cli_opt opts[] = {
	{ "input", 'i', "FILE", "read FILE", NULL },
	{ "long-only", OPT_LONG_ONLY, NULL, "two lines\nof text", NULL },
	{ NULL, 'g', NULL, "a short option only", NULL },
	{ "maybe", OPT_MAYBE, "[=OPTS]", "an optional value", NULL },
	{ "colour", 'c', "red|green|blue", "a left part longer than the column", colours },
	CLI_OPT_HELP,
	CLI_OPT_END,
};
static const struct cli_cmd cmd = {
	.name = "t", .head = "usage: t\n\n", .tail = "end\n", .column = 20, .in_order = true, .opts = opts,
};

/* argv from a string of words (at most 15) */
static int args(char *buf, char **argv)
{
	int n = 0;

	for (char *save = NULL, *w = strtok_r(buf, " ", &save); w && n < 15; w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	argv[n] = NULL;
	return n;
}

/* What the parser returns for line, its ids and values as "id=value ...",
 * then the first argument left ("| rest"). */
static void parse(const char *line, char *out, size_t size)
{
	char buf[256], *argv[16];
	int argc, c;
	struct cli_parser p;
	size_t n = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	argc = args(buf, argv);
	out[0] = '\0';
	CHECK(cli__parser_init(&p, &cmd, argc, argv));
	while ((c = cli__next(&p)) != -1)
		n += (size_t)snprintf(out + n, size - n, "%s%d=%s", n ? " " : "", c, optarg ? optarg : "-");
	if (optind < argc)
		snprintf(out + n, size - n, " | %s", argv[optind]);
}

/* What a function printing to a FILE * prints. */
#define CAPTURE(buf, call)                                                      \
	do {                                                                    \
		FILE *_fp = fmemopen(buf, sizeof(buf), "w");                    \
		call;                                                           \
		fclose(_fp);                                                    \
	} while (0)

int main(void)
{
	struct cli_parser p;
	char out[512], help[1024], buf[64], *argv[4];

	/* getopt's tables: every short letter with its colons, after '+:' */
	snprintf(buf, sizeof(buf), "t x");
	CHECK(cli__parser_init(&p, &cmd, args(buf, argv), argv));
	CHECK_STR(p.shortopts, "+:i:gc:h");
	CHECK_STR(p.longopts[3].name, "colour");
	CHECK(p.longopts[2].has_arg == optional_argument);
	CHECK(p.longopts[3].has_arg == required_argument);
	CHECK(p.longopts[5].name == NULL);

	parse("t -i a --long-only -g --maybe --maybe=x --colour=red -c blue", out, sizeof(out));
	CHECK_STR(out, "105=a 256=- 103=- 257=- 257=x 99=red 99=blue");
	parse("t --in b cmd -g", out, sizeof(out));        /* a prefix; in order: stops at cmd */
	CHECK_STR(out, "105=b | cmd");
	parse("t -x", out, sizeof(out));
	CHECK_STR(out, "63=-");
	parse("t -i", out, sizeof(out));
	CHECK_STR(out, "58=-");

	/* -h's layout: the text at the column, or two spaces past a longer
	 * left part; its further lines under the column */
	CAPTURE(help, cli__help(&cmd, _fp));
	CHECK_STR(help, "usage: t\n\n"
		  "  -i, --input FILE  read FILE\n"
		  "      --long-only   two lines\n"
		  "                    of text\n"
		  "  -g                a short option only\n"
		  "      --maybe[=OPTS]  an optional value\n"
		  "  -c, --colour red|green|blue  a left part longer than the column\n"
		  "  -h, --help        this text\n"
		  "end\n");

	/* the completion's questions, answered from the table */
	snprintf(buf, sizeof(buf), "t --list-values -c");
	fflush(stdout);
	{
		char got[256] = "";
		int saved = dup(STDOUT_FILENO);
		FILE *tmp = tmpfile();

		dup2(fileno(tmp), STDOUT_FILENO);
		CHECK(!cli__parser_init(&p, &cmd, args(buf, argv), argv));
		snprintf(buf, sizeof(buf), "t --list-values --colour");
		CHECK(!cli__parser_init(&p, &cmd, args(buf, argv), argv));
		snprintf(buf, sizeof(buf), "t --list-options");
		CHECK(!cli__parser_init(&p, &cmd, args(buf, argv), argv));
		fflush(stdout);
		dup2(saved, STDOUT_FILENO);
		close(saved);
		rewind(tmp);
		got[fread(got, 1, sizeof(got) - 1, tmp)] = '\0';
		fclose(tmp);
		CHECK_STR(got, "red\ngreen\nblue\nred\ngreen\nblue\n"
			  "-i\n-g\n-c\n-h\n--input\n--long-only\n--maybe\n--colour\n--help\n");
	}

	/* value words: one, and a comma-separated set */
	unsigned int set = 0;

	CHECK(cli__word(colours, "green") == 1);
	CHECK(cli__word(colours, "gree") == -1);
	CHECK(cli__word_set(colours, "blue,red", &set) == 0 && set == 5);
	CHECK(cli__word_set(colours, "blue,", &set) == 0 && set == 4);
	CHECK(cli__word_set(colours, "blue,pink", &set) < 0);
	CHECK(cli__word_set(colours, "", &set) < 0);
	CHECK_STR(cli__closest_option(opts, "--colur"), "colour");
	CHECK(cli__closest_option(opts, "--zzzzzz") == NULL);
	return test_done("test_options");
}
