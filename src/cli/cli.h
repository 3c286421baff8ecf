/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands: each parses its own argv (argv[0] is the subcommand name)
 * and returns the process exit status. Only these and main() may exit. */
#ifndef C2CSCAN_CLI_H
#define C2CSCAN_CLI_H

int cmd_report(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_check(int argc, char **argv);

#endif
