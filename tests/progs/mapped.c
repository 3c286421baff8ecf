// SPDX-License-Identifier: GPL-2.0
/*
 * A struct that is a whole mapping (tests/cli/types.sh): mmap'ed, indexed by
 * CPU through a pointer, c->per_cpu[cpu].misses. Each element is a page, so
 * each access is a page fault at a known element; the report names the
 * element from the mapping's start, with and without record --alloc.
 */
#include <stdio.h>
#include <sys/mman.h>

struct per_cpu {
	long hits, misses;
	char pad[4096 - 16];
};

struct cache {
	long total;
	char pad[4096 - 8];
	struct per_cpu per_cpu[16];
};

static void __attribute__((noinline)) cache_miss(struct cache *c, int cpu)
{
	c->per_cpu[cpu].misses++;
}

int main(void)
{
	struct cache *c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (c == MAP_FAILED)
		return 1;
	for (int i = 0; i < 16; i++)
		cache_miss(c, i);
	printf("misses %ld\n", c->per_cpu[3].misses);
	return 0;
}
