// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation edge cases record --alloc must get right (tests/cli/alloc-truth.sh):
 * zero-size allocations, which are valid and whose frees match them.
 */
#include <stdio.h>
#include <stdlib.h>

static void *volatile keep[8];

int main(void)
{
	keep[0] = malloc(0);
	keep[1] = calloc(0, 16);
	keep[2] = realloc(NULL, 0);
	keep[3] = malloc(32);
	keep[3] = realloc(keep[3], 0);  /* frees it (glibc), returns NULL */
	for (int i = 0; i < 4; i++)
		free(keep[i]);
	printf("zero-size: 3 allocations, 4 frees\n");
	return 0;
}
