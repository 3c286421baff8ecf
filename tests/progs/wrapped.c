// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation stacks (tests/cli/callgraph.sh): objects allocated through
 * wrappers. xmalloc() is a wrapper report knows; pool_get() is one only
 * --alloc-wrapper names. Each object is large (a fresh mmap) and its second
 * page is first touched by touch(), so a page-fault sample lands in each.
 * With record --alloc -g the heap site of each object must be the caller of
 * the wrappers (make_conn, make_table, make_pool_item), not the wrapper.
 * Prints "obj SITE" per object. "wait": for record -p (allocator probes),
 * print the pid and allocate when SIGUSR1 comes (record's command sends it
 * once the probes are on), or after 10 seconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "await.h"

#define PG 4096
#define SZ (64 * PG)

void *volatile keep[4];
int volatile sink;

__attribute__((noinline)) static void touch(char *p)
{
	p[PG + 8] = 1;
}

__attribute__((noinline)) void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		abort();
	sink++;
	return p;
}

__attribute__((noinline)) void *pool_get(size_t n)
{
	void *p = xmalloc(n);

	sink++;
	return p;
}

__attribute__((noinline)) void make_conn(void)
{
	keep[0] = xmalloc(SZ);
	touch(keep[0]);
	puts("obj make_conn");
}

__attribute__((noinline)) void make_table(void)
{
	keep[1] = xmalloc(SZ + PG);
	touch(keep[1]);
	puts("obj make_table");
}

__attribute__((noinline)) void make_pool_item(void)
{
	keep[2] = pool_get(SZ + 2 * PG);
	touch(keep[2]);
	puts("obj make_pool_item");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "wait")) {
		await_block();
		await_go();
	}
	make_conn();
	make_table();
	make_pool_item();
	return 0;
}
