// SPDX-License-Identifier: GPL-2.0
/*
 * scatter: threads updating words of tables of their own at random, as
 * hash tables and counters by key do (no sharing: what it costs a model
 * to follow accesses that land on a different line nearly every time;
 * scripts/bench-emulate).
 *
 * usage: scatter UPDATES [THREADS [WORDS]]  (default 2 threads, 8192
 *        longs a table: 64 KiB a thread)
 * Prints a checksum; exits 0 (1 when memory or a thread cannot be had).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long updates, words;

static void *worker(void *arg)
{
	long *t = calloc((size_t)words, sizeof(long)), sum = 0;
	unsigned long x = 88172645463325252ul + (unsigned long)arg;

	if (!t)
		return (void *)-1L;
	for (long i = 0; i < updates; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		sum += t[x % (unsigned long)words]++;
	}
	free(t);
	return (void *)sum;
}

int main(int argc, char **argv)
{
	long threads = argc > 2 ? atol(argv[2]) : 2, sum = 0;
	pthread_t *t;

	updates = argc > 1 ? atol(argv[1]) : 1000000;
	words = argc > 3 ? atol(argv[3]) : 8192;
	if (updates < 1 || threads < 1 || threads > 1024 || words < 1)
		return fprintf(stderr, "usage: scatter UPDATES [THREADS [WORDS]]\n"), 2;
	t = calloc((size_t)threads, sizeof(*t));
	if (!t)
		return 1;
	for (long i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i))
			return 1;
	for (long i = 0; i < threads; i++) {
		void *r;

		pthread_join(t[i], &r);
		if (r == (void *)-1L)
			return 1;
		sum += (long)r;
	}
	printf("scatter %ld updates, %ld threads: %ld\n", updates, threads, sum);
	free(t);
	return 0;
}
