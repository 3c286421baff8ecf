// SPDX-License-Identifier: GPL-2.0
/*
 * A write through a NULL pointer, recovered from (tests/cli/record-sw.sh):
 * its page fault is at address 0, which no mapping holds; the report lists
 * it as an unmapped line, named by the writing code.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>

struct pair {
	long first, second;
};

static sigjmp_buf env;

static void on_segv(int sig)
{
	siglongjmp(env, 1);
}

int main(void)
{
	struct pair *volatile p = NULL;

	signal(SIGSEGV, on_segv);
	if (!sigsetjmp(env, 1))
		p->first = 1;
	puts("recovered from a NULL write");
	return 0;
}
