// SPDX-License-Identifier: GPL-2.0
/*
 * Heap objects across fork() (tests/cli/alloc-truth.sh): the parent
 * allocates a 64 KiB table, forks, and the child writes a page of it (a
 * copy-on-write fault at a known offset) and frees it. The child's write
 * is named by the parent's allocation site and its free matches the object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TABLE (64 << 10)

static char *__attribute__((noinline)) make_table(void)
{
	char *t = malloc(TABLE);

	memset(t, 1, TABLE);
	return t;
}

int main(void)
{
	char *volatile t = make_table();
	pid_t pid;
	int st;

	printf("table %p size %d\n", (void *)t, TABLE);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		t[8192 + 24] = 2;       /* a copy-on-write fault in the parent's object */
		free(t);
		exit(0);        /* the shim writes the child's events at exit */
	}
	waitpid(pid, &st, 0);
	free(t);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
