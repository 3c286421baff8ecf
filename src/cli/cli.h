/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands: each parses its own argv (argv[0] is the subcommand name)
 * and returns the process exit status. Only these and main() may exit. */
#ifndef C2CSCAN_CLI_H
#define C2CSCAN_CLI_H

#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>

int cmd_report(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_diff(int argc, char **argv);

struct report_opts;
struct report_error;

/* Why a report could not be made, in one line (without the file name). */
const char *cli__report_error(const struct report_error *e, char *buf, size_t size);

/* The "can this machine record memory samples" diagnosis (check, and record
 * when it cannot), one "key : value" line each; true when it can. */
bool cli__mem_diagnosis(FILE *fp, int procmap_query_err, int sw_err);

/* "c2cscan CMD: " + fmt (with arg) and where the options are listed, one
 * line on stderr (as an unknown option's); returns the usage exit status
 * (129). */
int cli__usage_error(const char *cmd, const char *fmt, const char *arg);

/*
 * One option of a subcommand, in one table per subcommand that drives its
 * parser (getopt_long's tables are built from it), its -h text, the
 * completion (--list-options, --list-values) and so the man-page check.
 */
struct cli_opt {
	const char *name;               /* the long name; NULL: a short option only */
	int id;                         /* the short letter, or an id >= 256 */
	const char *arg;                /* its value's name in -h ("FILE"); "[=OPTS]": an
					 * optional value; NULL: none */
	const char *help;               /* -h's text, lines split by \n */
	const char *const *values;      /* the words its value takes, NULL-terminated
					 * (the completion offers them; parsers match them) */
};

/* A subcommand's command line: its table (ending in { NULL, 0 }) and the
 * text around the options in -h. */
struct cli_cmd {
	const char *name;               /* "report" */
	const char *head;               /* -h before the options (usage line, intro) */
	const char *tail;               /* -h after them, or NULL */
	int column;                     /* where the options' text starts in -h */
	bool in_order;                  /* options stop at the first argument (a command) */
	const struct cli_opt *opts;
};

#define CLI_MAX_OPTS 48
/* One pass of getopt_long over argv by a cli_cmd's table. */
struct cli_parser {
	const struct cli_cmd *cmd;
	int argc;
	char **argv;
	char shortopts[3 * CLI_MAX_OPTS + 3];   /* getopt_long's, built from cmd */
	struct option longopts[CLI_MAX_OPTS + 1];
};

/* Readies p over argv; false when argv was a question of the completion
 * ("--list-options", "--list-values OPTION"), answered on stdout (exit 0). */
bool cli__parser_init(struct cli_parser *p, const struct cli_cmd *cmd, int argc, char **argv);
/* The next option's id (optarg its value), -1 at the end, ':' a missing
 * value, '?' an unknown option: cli__bad_option says which. */
int cli__next(struct cli_parser *p);
/* What getopt_long's c (':' or '?') at the option just read says, in one
 * line, naming the closest option when one is close: the usage exit
 * status (129). */
int cli__bad_option(const struct cli_parser *p, int c);
/* cmd's -h text on fp: 0, the exit status of -h. */
int cli__help(const struct cli_cmd *cmd, FILE *fp);
/* The index of word in words (NULL-terminated), -1 when not there. */
int cli__word(const char *const *words, const char *word);
/* A comma-separated list of words into a bit set (bit i: words[i]);
 * -EINVAL for a word not in words or an empty list. */
int cli__word_set(const char *const *words, const char *list, unsigned int *set);

/* Option ids report and diff share (beside -d). */
enum { CLI_OPT_SYMFS = 900, CLI_OPT_NO_DEBUGINFOD };
/* -d, --symfs, --no-debuginfod into o: 1 when c was one of them, 0 when
 * not; an unknown display mode is a usage error of c2cscan cmd (said, and
 * its exit status returned negated). */
int cli__report_option(const char *cmd, int c, const char *arg, struct report_opts *o);
/* Their table entries, for report's and diff's tables. */
#define CLI_OPT_DISPLAY(text) { "display", 'd', "MODE", text, cli__display_words }
#define CLI_OPT_SYMFS_ENTRY(text) { "symfs", CLI_OPT_SYMFS, "DIR", text, NULL }
#define CLI_OPT_NO_DEBUGINFOD_ENTRY(text) { "no-debuginfod", CLI_OPT_NO_DEBUGINFOD, NULL, text, NULL }
#define CLI_OPT_HELP { "help", 'h', NULL, "this text", NULL }
#define CLI_OPT_END { NULL, 0, NULL, NULL, NULL }
/* The long option of opts closest to arg ("--stdoi" -> "stdio"), or NULL
 * when none is close. */
const char *cli__closest_option(const struct cli_opt *opts, const char *arg);
/* The display modes' names, NULL-terminated (-d). */
extern const char *const cli__display_words[];

#endif
