// SPDX-License-Identifier: GPL-2.0
/* Allocation-heavy workload for scripts/bench-alloc: N malloc/free pairs of
 * small, varied sizes, 64 objects live at a time (a server's request
 * buffers), each written once so the allocator cannot skip it.
 * usage: alloc-heavy [N] [threads] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long n = 1000000;

static void *run(void *arg)
{
	char *live[64] = { 0 };
	unsigned int seed = (unsigned int)(long)arg * 2654435761u + 1;
	long sum = 0;

	for (long i = 0; i < n; i++) {
		size_t size = 16 + (seed % 497);

		seed = seed * 1103515245u + 12345u;
		free(live[i & 63]);
		live[i & 63] = malloc(size);
		live[i & 63][0] = (char)i;
		sum += live[i & 63][0];
	}
	for (int k = 0; k < 64; k++)
		free(live[k]);
	return (void *)sum;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	pthread_t t[64];

	if (argc > 1)
		n = atol(argv[1]);
	if (threads < 1 || threads > 64)
		threads = 1;
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, run, (void *)(long)i);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("%ld allocations in %d thread(s)\n", n * threads, threads);
	return 0;
}
