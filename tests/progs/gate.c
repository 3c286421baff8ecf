// SPDX-License-Identifier: GPL-2.0
/*
 * A start barrier between workers created at different times
 * (tests/cli/emulate.sh): the first warms up (about 25 of the model's
 * windows of accesses) and waits at the barrier; the second is created
 * DELAY microseconds later; then both count in their own half of one line
 * (false sharing). Under record --emulate the count must not depend on
 * DELAY: threads a barrier releases resume in step, the second included
 * however late the machine runs it.
 *
 * usage: gate DELAY   prints both counts
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static struct {
	long a, b;
} pair __attribute__((aligned(64)));
static pthread_barrier_t go;
static long warm[4096];

static void *worker(void *arg)
{
	long *v = arg;

	if (v == &pair.a)
		for (int r = 0; r < 50; r++)
			for (int i = 0; i < 4096; i++)
				warm[i] += i;
	pthread_barrier_wait(&go);
	for (long i = 0; i < 400000; i++)
		(*(volatile long *)v)++;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	if (argc < 2)
		return 2;
	pthread_barrier_init(&go, NULL, 2);
	pthread_create(&t[0], NULL, worker, &pair.a);
	usleep((useconds_t)atoi(argv[1]));
	pthread_create(&t[1], NULL, worker, &pair.b);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	pthread_barrier_destroy(&go);
	printf("%ld %ld %ld\n", pair.a, pair.b, warm[1]);
	return 0;
}
