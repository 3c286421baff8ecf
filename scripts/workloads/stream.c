// SPDX-License-Identifier: GPL-2.0
/*
 * stream: threads working through memory of their own, as numeric code
 * does: each thread computes a[i] = b[i] + c[i] + r over three arrays of
 * its own, round after round (no sharing: what it costs a model to follow
 * accesses that move to a new line every eight; scripts/bench-emulate).
 * With "scatter", each thread updates words of a table of its own at
 * random instead, ROUNDS updates, as hash tables and counters by key do (a
 * different line nearly every access).
 *
 * usage: stream ROUNDS [THREADS [LENGTH [scatter]]]  (default 2 threads,
 *        4096 longs an array: 96 KiB a thread; scatter: LENGTH longs)
 * Prints a checksum; exits 0 (1 when memory or a thread cannot be had).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long rounds, len;
static int scatter;

/* ROUNDS updates of words of a table of the thread's own, at random. */
static long update_at_random(long seed)
{
	long *t = calloc((size_t)len, sizeof(long)), sum = 0;
	unsigned long x = 88172645463325252ul + (unsigned long)seed;

	if (!t)
		return -1;
	for (long i = 0; i < rounds; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		sum += t[x % (unsigned long)len]++;
	}
	free(t);
	return sum;
}

/* ROUNDS rounds of a[i] = b[i] + c[i] + r over arrays of the thread's own. */
static long compute_in_order(void)
{
	long *a = calloc((size_t)len, sizeof(long)), *b = calloc((size_t)len, sizeof(long));
	long *c = calloc((size_t)len, sizeof(long)), sum = 0;

	if (!a || !b || !c)
		return -1;
	for (long i = 0; i < len; i++) {
		b[i] = i;
		c[i] = 2 * i;
	}
	for (long r = 0; r < rounds; r++)
		for (long i = 0; i < len; i++)
			a[i] = b[i] + c[i] + r;
	for (long i = 0; i < len; i++)
		sum += a[i];
	free(a);
	free(b);
	free(c);
	return sum;
}

static void *worker(void *arg)
{
	return (void *)(scatter ? update_at_random((long)arg) : compute_in_order());
}

int main(int argc, char **argv)
{
	long threads = argc > 2 ? atol(argv[2]) : 2, sum = 0;
	pthread_t *t;

	rounds = argc > 1 ? atol(argv[1]) : 100;
	len = argc > 3 ? atol(argv[3]) : 4096;
	scatter = argc > 4 && !strcmp(argv[4], "scatter");
	if (rounds < 1 || threads < 1 || threads > 1024 || len < 1 || (argc > 4 && !scatter))
		return fprintf(stderr, "usage: stream ROUNDS [THREADS [LENGTH [scatter]]]\n"), 2;
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
	printf("stream %ld %s, %ld threads: %ld\n", rounds, scatter ? "updates" : "rounds", threads, sum);
	free(t);
	return 0;
}
