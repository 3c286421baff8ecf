// SPDX-License-Identifier: GPL-2.0
/*
 * scale: what the emulation runtime's cost grows with (scripts/bench-emulate).
 *
 * usage: scale threads N   N threads live at once, each counting in its own
 *                          slot of one array (neighbours share lines) and
 *                          writing 16 pages of its own heap buffer
 *        scale maps N      N separate mappings (a page each, every other
 *                          one read-only so that the kernel cannot merge
 *                          them), each written as it is made and then by
 *                          two threads in turn
 *
 * Prints a checksum; exits 0 (1 when a thread or a mapping cannot be made).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ROUNDS 2000
#define PAGES 16

static long *slots;
static char **maps;
static long nr;
static pthread_barrier_t start;

static void *counter(void *arg)
{
	long i = (long)arg;
	char *own = malloc(PAGES * 4096);

	if (!own)
		return NULL;
	pthread_barrier_wait(&start);
	for (int r = 0; r < ROUNDS; r++) {
		__atomic_add_fetch(&slots[i], 1, __ATOMIC_RELAXED);
		own[(r % PAGES) * 4096] = (char)r;
	}
	slots[i] += own[0];
	free(own);
	return NULL;
}

static int run_threads(long n)
{
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	long sum = 0;

	slots = calloc((size_t)n, sizeof(*slots));
	if (!t || !slots || pthread_barrier_init(&start, NULL, (unsigned)n))
		return 1;
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, counter, (void *)i))
			return 1;
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	for (long i = 0; i < n; i++)
		sum += slots[i];
	printf("threads %ld sum %ld\n", n, sum);
	return 0;
}

/* Each mapping's first word, by one of two threads in turn. */
static void *walker(void *arg)
{
	long who = (long)arg;

	pthread_barrier_wait(&start);
	for (int r = 0; r < 4; r++)
		for (long i = 0; i < nr; i += 2)
			__atomic_add_fetch((long *)maps[i], who, __ATOMIC_RELAXED);
	return NULL;
}

static int run_maps(long n)
{
	pthread_t t[2];
	long sum = 0;

	maps = calloc((size_t)n, sizeof(*maps));
	if (!maps || pthread_barrier_init(&start, NULL, 2))
		return 1;
	for (nr = 0; nr < n; nr++) {
		int prot = nr % 2 ? PROT_READ : PROT_READ | PROT_WRITE;

		maps[nr] = mmap(NULL, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (maps[nr] == MAP_FAILED)
			return 1;
		if (prot & PROT_WRITE)
			maps[nr][0] = 1;
	}
	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, walker, (void *)(i + 1)))
			return 1;
	for (long i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (long i = 0; i < n; i += 2)
		sum += *(long *)maps[i];
	printf("maps %ld sum %ld\n", n, sum);
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;

	if (n > 0 && !strcmp(argv[1], "threads"))
		return run_threads(n);
	if (n > 0 && !strcmp(argv[1], "maps"))
		return run_maps(n);
	fprintf(stderr, "usage: scale threads|maps N\n");
	return 2;
}
