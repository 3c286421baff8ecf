// SPDX-License-Identifier: GPL-2.0
/*
 * heap-false-sharing: the main thread allocates one small counter object per
 * worker from one site, make_counter(); malloc places the two 24-byte
 * objects next to each other, in one cacheline, and each worker increments
 * its own: false sharing that only the heap objects name (record --alloc).
 * With "aligned" each object gets its own line (aligned_alloc(64, 64)): the
 * fix.
 *
 * usage: heap-false-sharing [aligned] [ITERS]
 * Prints "counter N tid T addr 0xADDR line 0xLINE".
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct counter {
	long hits;
	long misses;
	long bytes;
};

static int bool_aligned;
static long iters = 50000000;
static struct counter *counters[2];
static pthread_barrier_t start;

__attribute__((noinline)) static struct counter *make_counter(void)
{
	return bool_aligned ? aligned_alloc(64, 64) : calloc(1, sizeof(struct counter));
}

static void *worker(void *arg)
{
	long n = (long)arg;
	struct counter *c = counters[n];

	printf("counter %ld tid %ld addr %p line %#lx\n", n, (long)syscall(SYS_gettid), (void *)c,
	       (unsigned long)(uintptr_t)c & ~63ul);
	/* both loops at once (the second thread started a loop later left
	 * short runs nothing to bounce) */
	pthread_barrier_wait(&start);
	for (long i = 0; i < iters; i++)
		((volatile struct counter *)c)->hits++;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "aligned"))
			bool_aligned = 1;
		else
			iters = atol(argv[i]);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* one after the other: neighbours in the heap; of four, two that
	 * share a line (malloc's 32-byte chunks may straddle one) */
	{
		struct counter *c[4];
		int k = 0;

		for (int i = 0; i < 4; i++) {
			c[i] = make_counter();
			memset(c[i], 0, sizeof(*c[i]));
		}
		for (int i = 0; i < 3 && !bool_aligned; i++)
			if (((uintptr_t)c[i] & ~63ul) == ((uintptr_t)c[i + 1] & ~63ul)) {
				k = i;
				break;
			}
		counters[0] = c[k];
		counters[1] = c[k + 1];
	}
	pthread_barrier_init(&start, NULL, 2);
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
