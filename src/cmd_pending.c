// SPDX-License-Identifier: GPL-2.0
/* record and check land with issue 3; until then they say so. */
#include <stdio.h>
#include "builtin.h"

int cmd_record(int argc, char **argv)
{
	fprintf(stderr, "c2cscan record: not in this build yet; record with 'perf c2c record' or "
			"'perf record -d' and use 'c2cscan report'\n");
	return 1;
}

int cmd_check(int argc, char **argv)
{
	fprintf(stderr, "c2cscan check: not in this build yet\n");
	return 1;
}
