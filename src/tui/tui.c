// SPDX-License-Identifier: GPL-2.0
/* Placeholder until the browser lands (issue 5): the text report. */
#include <stdio.h>
#include "../report.h"
#include "tui.h"

int tui__browse(struct report *r)
{
	report__fprintf_stdio(r, stdout);
	return 0;
}
