// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"

static const char usage[] =
	"usage: c2cscan [-v|--version] [help] <command> [<args>]\n"
	"\n"
	"Cache-line contention analysis (false sharing, lock bouncing) from perf.data.\n"
	"\n"
	"commands:\n"
	"  record    sample loads and stores with data addresses into perf.data\n"
	"  report    rank contended cachelines of a perf.data file (ours or perf's)\n"
	"  check     can this machine record memory samples? why not?\n"
	"  diff      did a fix help? two recordings' lines matched by name\n"
	"  help      this text; 'c2cscan help <command>' for a command's options\n"
	"\n"
	"See c2cscan(1), c2cscan-report(1), c2cscan-record(1), c2cscan-check(1), c2cscan-diff(1).\n";

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
};

static const struct cmd cmds[] = {
	{ "report", cmd_report },
	{ "record", cmd_record },
	{ "check", cmd_check },
	{ "diff", cmd_diff },
};

static const struct cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2) {
		fputs(usage, stderr);
		return 129;
	}
	if (!strcmp(argv[1], "--list-commands")) {
		/* for the bash completion: the table, not a copy of it */
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			puts(cmds[i].name);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-v") || !strcmp(argv[1], "version")) {
		printf("c2cscan %s\n", C2CSCAN_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		if (argc > 2) {
			char *hargv[] = { argv[2], (char *)"-h", NULL };

			c = find_cmd(argv[2]);
			if (!c) {
				fprintf(stderr, "c2cscan: '%s' is not a command. See 'c2cscan help'.\n", argv[2]);
				return 129;
			}
			return c->fn(2, hargv);
		}
		fputs(usage, stdout);
		return 0;
	}
	c = find_cmd(argv[1]);
	if (!c) {
		fprintf(stderr, "c2cscan: '%s' is not a command. See 'c2cscan help'.\n", argv[1]);
		return 129;
	}
	return c->fn(argc - 1, argv + 1);
}
