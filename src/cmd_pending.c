// SPDX-License-Identifier: GPL-2.0
/* record lands with issue 3; until then it says so and points to what works. */
#include <stdio.h>
#include "builtin.h"

int cmd_record(int argc, char **argv)
{
	fprintf(stderr, "c2cscan record: not in this build yet; record with 'perf c2c record' (memory PMU) "
			"or 'perf record -e page-faults -d' and use 'c2cscan report'\n");
	return 1;
}
