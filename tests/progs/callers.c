// SPDX-License-Identifier: GPL-2.0
/*
 * One function reached from two callers, for the call-graph tests
 * (tests/cli/callgraph.sh). touch() writes the first byte + 8 of a fresh
 * page of an anonymous mapping, so each call is one page-fault sample whose
 * ip is in touch(): via_alpha() calls it ALPHA times directly, via_beta()
 * BETA times through helper(). Built -O0 (frame pointers everywhere) and
 * -O1 (touch() is a leaf without a frame), recorded with -g and
 * --call-graph dwarf; the report's callers per row must add up to exactly
 * ALPHA and BETA. Prints "callers ALPHA BETA".
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PG 4096
#define ALPHA 7
#define BETA 13

static char *region;
static int next_page;
int volatile sink;

__attribute__((noinline, noclone)) void touch(void)
{
	region[(size_t)next_page++ * PG + 8] = 1;
}

__attribute__((noinline, noclone)) void helper(void)
{
	touch();
	sink++;                 /* no tail call: helper keeps its frame */
}

__attribute__((noinline, noclone)) void via_alpha(int n)
{
	for (int i = 0; i < n; i++)
		touch();
	sink++;
}

__attribute__((noinline, noclone)) void via_beta(int n)
{
	for (int i = 0; i < n; i++)
		helper();
	sink++;
}

int main(void)
{
	region = mmap(NULL, (ALPHA + BETA) * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	via_alpha(ALPHA);
	via_beta(BETA);
	printf("callers %d %d\n", ALPHA, BETA);
	return 0;
}
