// SPDX-License-Identifier: GPL-2.0
/*
 * stream: threads working through memory of their own, as numeric code
 * does: each thread computes a[i] = b[i] + c[i] + r over three arrays of
 * its own, round after round (no sharing: what it costs a model to follow
 * accesses that move to a new line every eight; scripts/bench-emulate).
 *
 * usage: stream ROUNDS [THREADS [LENGTH]]  (default 2 threads, 4096 longs
 *        an array: 96 KiB a thread)
 * Prints a checksum; exits 0 (1 when memory or a thread cannot be had).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long rounds, len;

static void *worker(void *arg)
{
	long *a = calloc((size_t)len, sizeof(long)), *b = calloc((size_t)len, sizeof(long));
	long *c = calloc((size_t)len, sizeof(long)), sum = 0;

	(void)arg;
	if (!a || !b || !c)
		return (void *)-1L;
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
	return (void *)sum;
}

int main(int argc, char **argv)
{
	long threads = argc > 2 ? atol(argv[2]) : 2, sum = 0;
	pthread_t *t;

	rounds = argc > 1 ? atol(argv[1]) : 100;
	len = argc > 3 ? atol(argv[3]) : 4096;
	if (rounds < 1 || threads < 1 || threads > 1024 || len < 1)
		return fprintf(stderr, "usage: stream ROUNDS [THREADS [LENGTH]]\n"), 2;
	t = calloc((size_t)threads, sizeof(*t));
	if (!t)
		return 1;
	for (long i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	for (long i = 0; i < threads; i++) {
		void *r;

		pthread_join(t[i], &r);
		if (r == (void *)-1L)
			return 1;
		sum += (long)r;
	}
	printf("stream %ld rounds, %ld threads: %ld\n", rounds, threads, sum);
	free(t);
	return 0;
}
