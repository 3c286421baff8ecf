// SPDX-License-Identifier: GPL-2.0
/*
 * A running process that allocates until it is killed (tests/cli/alloc-truth.sh:
 * record -p PID --alloc --duration ends within a small constant of it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	for (;;) {
		void *p = malloc(100);

		__asm__ volatile("" : : "g"(p) : "memory");
		free(p);
		usleep(1000);
	}
}
