// SPDX-License-Identifier: GPL-2.0
/*
 * Test program for naming code and data in a report (tests/cli/names.sh
 * builds it with -g as a PIE against libnames.so, records it with page
 * faults, and checks the names). Every variable written here starts a page
 * of its own that nothing else touches first, so the page fault's data
 * address is exactly the member written and its ip the store.
 */
#include <stdio.h>

#define PAGE 4096

#include "../symbols/types.h"

struct nest {
	int x;
	struct {
		short lo, hi;
	} in;
	long pad[5];
};

struct counters counters __attribute__((aligned(PAGE))) = { 1, 2, 3, { 4, 5, 6 } };
struct arg args[8] __attribute__((aligned(PAGE))) = { { 1, 2, "x" } };
struct nest nests[300] __attribute__((aligned(PAGE)));
#ifdef CHANGED
long changed_after_recording[4] = { 1 };
#endif
static long hidden_static[1024] __attribute__((aligned(PAGE)));
/* last in .data (the test builds with -fno-toplevel-reorder): the kernel
 * zeroes the start of .bss in the last .data page, touching it first */
long data_tail[2] __attribute__((aligned(PAGE))) = { 1, 2 };

void lib_touch(int i);

static inline __attribute__((always_inline)) void bump(struct counters *c, int v)
{
	c->b = v;                                       /* @bump */
}

__attribute__((noinline)) void touch_counters(int v)
{
	bump(&counters, v);
}

__attribute__((noinline)) void touch_args(int i, int v)
{
	args[i].SX = v;                                 /* @args */
}

__attribute__((noinline)) void touch_nests(int i, short v)
{
	nests[i].in.hi = v;                             /* @nests */
}

__attribute__((noinline)) void touch_hidden(int i, long v)
{
	hidden_static[i] = v;                           /* @hidden */
}

int main(int argc, char **argv)
{
	(void)argv;
	touch_counters(argc + 6);
	touch_args(3, argc);
	touch_nests(200, (short)argc);
	touch_hidden(9, argc);
	lib_touch(7);
	printf("%d\n", counters.b + args[3].SX + nests[200].in.hi + (int)hidden_static[9]);
	return 0;
}
