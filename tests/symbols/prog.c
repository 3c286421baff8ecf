// SPDX-License-Identifier: GPL-2.0
/*
 * Test program for the symbolizer (tests/unit/test_symbols.c builds it with
 * -g and runs it): prints where its variables and code are, then its own
 * /proc/self/maps, and exits. Lines marked "@name" are found by the test in
 * this source to check file:line answers.
 */
#include <stdio.h>
#include <string.h>

#include "types.h"

struct nest {
	int x;
	struct {
		short lo, hi;
	} in;
	union {
		int i;
		float f;
	} u;
	int m[3][4];
	unsigned flag : 3, mode : 5;
};

struct counters counters = { 1, 2, 3, { 4, 5, 6 } };
struct arg args[8] = { { 1, 2, "x" } };
struct nest nest = { 1 };
long big_bss[8192];                 /* 64 KB: reaches past the file's last page */
static long hidden_static = 5;

long *shlib_static_addr(void);
void *shlib_func_addr(void);
void *shlib_code_addr(void);

static void *ra_seen;

__attribute__((noinline)) static void note_ra(void)
{
	ra_seen = __builtin_return_address(0);
}

static inline __attribute__((always_inline)) int add_in(int v)
{
	note_ra(); /* @ra */
	return v + 1;
}

__attribute__((noinline)) int worker(int v)
{
	static int calls;

	calls++;
	v = add_in(v); /* @call */
	printf("addr calls %p\n", (void *)&calls);
	return v;
}

int main(void)
{
	char line[4096];
	FILE *f;

	printf("addr counters.b %p\n", (void *)&counters.b);
	printf("addr counters.d2 %p\n", (void *)&counters.d[2]);
	printf("addr args3.SX %p\n", (void *)&args[3].SX);
	printf("addr args5.tag6 %p\n", (void *)&args[5].tag[6]);
	printf("addr nest.in.hi %p\n", (void *)&nest.in.hi);
	printf("addr nest.u %p\n", (void *)&nest.u.f);
	printf("addr nest.m21 %p\n", (void *)&nest.m[2][1]);
	printf("addr big_bss5000 %p\n", (void *)&big_bss[5000]);
	printf("addr hidden_static %p\n", (void *)&hidden_static);
	printf("addr shlib_static %p\n", (void *)shlib_static_addr());
	printf("addr shlib_func %p\n", shlib_func_addr());
	printf("addr shlib_code %p\n", shlib_code_addr());
	printf("addr worker %p\n", (void *)worker);
	worker(1);
	printf("addr ra %p\n", ra_seen);
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		printf("map %s", line);
	fclose(f);
	return 0;
}
