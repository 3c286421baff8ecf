// SPDX-License-Identifier: GPL-2.0
/*
 * Objects that reuse one address across thread generations: main
 * allocates a small buffer, one worker writes it, main reads the result
 * after the join and frees it, and the next generation's buffer comes back
 * at the same address. No two threads ever use one buffer at the same
 * time: tests/cli/units.sh asserts the report says no sharing of it (each
 * allocation its own object; a read after the join is a handover).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define GENERATIONS 3
#define ITERS 400000

struct buf {
	int len;
	int sum;
	int last;
};

__attribute__((noinline)) static void fill(struct buf *b, int i)
{
	b->len++;
	b->sum += i;
	b->last = i;
}

static void *work(void *arg)
{
	struct buf *b = arg;

	for (int i = 0; i < ITERS; i++)
		fill(b, i);
	return NULL;
}

int main(void)
{
	long total = 0;

	for (int g = 0; g < GENERATIONS; g++) {
		struct buf *b = calloc(1, sizeof(*b));
		pthread_t t;

		if (!b || pthread_create(&t, NULL, work, b))
			return 1;
		pthread_join(t, NULL);
		total += b->len + b->last;
		free(b);
	}
	printf("total %ld\n", total);
	return 0;
}
