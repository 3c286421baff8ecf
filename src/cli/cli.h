/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands: each parses its own argv (argv[0] is the subcommand name)
 * and returns the process exit status. Only these and main() may exit. */
#ifndef C2CSCAN_CLI_H
#define C2CSCAN_CLI_H

#include <stdbool.h>
#include <stdio.h>

int cmd_report(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_diff(int argc, char **argv);

struct option;
struct report_opts;

/* The "can this machine record memory samples" diagnosis (check, and record
 * when it cannot), one "key : value" line each; true when it can. */
bool cli__mem_diagnosis(FILE *fp, int procmap_query_err, int sw_err);

/* "c2cscan CMD: " + fmt (with arg) and where the options are listed, one
 * line on stderr (as an unknown option's); returns the usage exit status
 * (129). */
int cli__usage_error(const char *cmd, const char *fmt, const char *arg);

/* Option ids report and diff share (beside -d). */
enum { CLI_OPT_SYMFS = 900, CLI_OPT_NO_DEBUGINFOD };
/* -d, --symfs, --no-debuginfod into o: 1 when c was one of them, 0 when
 * not; an unknown display mode is a usage error of c2cscan cmd (said, and
 * its exit status returned negated). */
int cli__report_option(const char *cmd, int c, const char *arg, struct report_opts *o);
/* The long option of opts closest to arg ("--stdoi" -> "stdio"), or NULL
 * when none is close. */
const char *cli__closest_option(const struct option *opts, const char *arg);
/* Says in one line that arg is not an option of c2cscan cmd, naming the
 * closest one; returns the usage exit status (129). */
int cli__unknown_option(const char *cmd, const char *arg, const struct option *opts);
/* "c2cscan CMD --list-options": prints its options, short and long, one
 * a line, from the tables its parser uses (the bash completion asks for
 * them: one list, never stale); true when that was the command line. */
bool cli__list_options(int argc, char **argv, const char *shortopts, const struct option *opts);
/* The values an option takes, for the completion: "CMD --list-values
 * OPTION" prints them, a line each (nothing for an option without a fixed
 * set). true when asked. The words come from the tables the parsers use. */
struct cli_values {
	const char *opt;                /* "--fail-on", "-d" */
	const char *const *words;       /* NULL-terminated */
};
bool cli__list_values(int argc, char **argv, const struct cli_values *v);
/* The display modes' names, NULL-terminated (-d). */
extern const char *const cli__display_words[];
/* What getopt_long's c (':' a missing value, else an unknown option) at
 * arg says, as cli__usage_error or cli__unknown_option. */
int cli__option_error(const char *cmd, int c, const char *arg, const struct option *opts);

#endif
