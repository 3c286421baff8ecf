// SPDX-License-Identifier: GPL-2.0
/*
 * The most common false sharing of all, shaped like real code: a few
 * unrelated allocations, then one malloc'd array of per-thread structs
 * (SLOT_BYTES 24, 40 or 64 each) and one calloc'd array of per-thread int
 * counters, and a global array of the same per-thread structs; each of NT
 * threads (more than this machine's CPUs) touches only its own elements;
 * main reads every element once after the joins. Built
 * with -DFIXED the arrays are allocated line-aligned with elements a line
 * apart (the fix report --advice asks for). tests/cli/units.sh records it
 * with --emulate --alloc and asserts the verdict, the element names, the
 * advice and --fail-on. SLOTS_STEPS: each thread's steps (default ITERS),
 * read by each thread into its own variable (getenv is not instrumented).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SLOT_BYTES
#define SLOT_BYTES 24
#endif
#define NT 4
#define ITERS 1500000

struct slot {
	long hits;
	long misses;
	char name[SLOT_BYTES - 16];
#ifdef FIXED
} __attribute__((aligned(64)));
#else
};
#endif

struct counter {
	int n;
#ifdef FIXED
} __attribute__((aligned(64)));
#else
};
#endif

static struct slot *slots;
static struct slot gslots[NT];
static struct counter *use_len;
static pthread_barrier_t start;

__attribute__((noinline)) static void step(struct slot *s, struct counter *c, long me, long i)
{
	s->hits++;
	if (i % 3 == 0)
		s->misses++;
	c->n++;
	gslots[me].hits++;
}

static long steps(void)
{
	const char *s = getenv("SLOTS_STEPS");

	return s ? atol(s) : ITERS;
}

static void *run(void *arg)
{
	long me = (long)arg, iters = steps();

	pthread_barrier_wait(&start);
	for (long i = 0; i < iters; i++)
		step(&slots[me], &use_len[me], me, i);
	return NULL;
}

static void *alloc_array(size_t n, size_t size)
{
#ifdef FIXED
	void *p = aligned_alloc(64, n * size);

	if (p)
		memset(p, 0, n * size);
	return p;
#else
	return calloc(n, size);
#endif
}

int main(void)
{
	char *config = malloc(40), *path = malloc(100), *host = strdup("localhost");
	pthread_t t[NT];
	long sum = 0;

	if (!config || !path || !host)
		return 1;
	snprintf(path, 100, "/etc/%s.conf", host);
	slots = alloc_array(NT, sizeof(*slots));
	use_len = alloc_array(NT, sizeof(*use_len));
	if (!slots || !use_len)
		return 1;
	pthread_barrier_init(&start, NULL, NT);
	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, run, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NT; i++)
		sum += slots[i].hits + slots[i].misses + use_len[i].n + gslots[i].hits;
	printf("sum %ld slot %zu B\n", sum, sizeof(struct slot));
	free(config);
	free(path);
	free(host);
	free(slots);
	free(use_len);
	return 0;
}
