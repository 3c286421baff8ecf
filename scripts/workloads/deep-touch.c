// SPDX-License-Identifier: GPL-2.0
/*
 * deep-touch: N writes, each to a fresh page of a small anonymous region
 * (its pages are dropped with MADV_DONTNEED after every round, so every
 * write faults again), each from one of several call paths 4 to 12 frames
 * deep (a recursive descent whose functions differ by level). A page-fault
 * recording with call graphs then holds N samples over a few lines (the
 * region's pages), many per line, as a contended program's memory samples
 * are: the workload of scripts/bench-callgraph.
 *
 * Between writes it computes for SPIN iterations (default 20000, some
 * microseconds), so that a recorder copying 8 KB of stack a sample keeps up.
 *
 * usage: deep-touch [WRITES [PAGES [SPIN]]]  (default 20000 writes, 32 pages)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PG 4096

static char *region;
static long next_page, pages, writes, spin = 20000;
int volatile sink;

__attribute__((noinline)) static void leaf(void)
{
	region[(size_t)next_page * PG + 16] = 1;
	if (++next_page == pages) {
		madvise(region, (size_t)pages * PG, MADV_DONTNEED);
		next_page = 0;
	}
}

static void level_a(int d);
static void level_b(int d);

__attribute__((noinline)) static void level_a(int d)
{
	if (d <= 0) {
		leaf();
	} else if (d & 1) {
		level_b(d - 1);
	} else {
		level_a(d - 1);
	}
	sink++;
}

__attribute__((noinline)) static void level_b(int d)
{
	if (d <= 0) {
		leaf();
	} else if (d % 3 == 0) {
		level_a(d - 1);
	} else {
		level_b(d - 1);
	}
	sink += 2;
}

__attribute__((noinline)) static void worker(long n)
{
	for (long i = 0; i < n; i++) {
		int depth = 2 + (int)(i * 7 % 9);

		for (long k = 0; k < spin; k++)
			sink += (int)k;
		if (i & 1)
			level_a(depth);
		else
			level_b(depth);
	}
}

int main(int argc, char **argv)
{
	writes = argc > 1 ? atol(argv[1]) : 20000;
	pages = argc > 2 ? atol(argv[2]) : 32;
	spin = argc > 3 ? atol(argv[3]) : spin;
	if (writes <= 0 || pages <= 0 || spin < 0)
		return 2;
	region = mmap(NULL, (size_t)pages * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	worker(writes);
	printf("%ld writes over %ld pages\n", writes, pages);
	return 0;
}
