// SPDX-License-Identifier: GPL-2.0
/*
 * Heap false sharing report --patch fixes at the allocation sites, shaped
 * like real code: a few unrelated allocations, then a malloc'd array of
 * per-thread queue states (24 bytes each) and, for each thread, a counter
 * of its own from a malloc of its own (16 bytes: glibc puts two in a
 * line); each of NT threads (more than this machine's CPUs) touches its
 * own element and counter; main sums them after the joins. Checked by
 * tests/cli/patch-arrays.sh: the element type aligned, both mallocs made
 * aligned_alloc with the size rounded up, no false sharing after.
 * HEAPSLOTS_STEPS: each thread's steps.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4

struct qstate {
	long head;
	long tail;
	int id;
};

struct counter {
	long n;
	long spare;
};

static struct qstate *queues;
static struct counter *counters[NT];
static long steps = 600000;

static __attribute__((noipa)) long work(long i)
{
	return i * 2654435761u & 7;
}

static void *run(void *arg)
{
	long me = (long)arg;

	for (long i = 0; i < steps; i++) {
		queues[me].head += work(i);
		if (i & 1)
			queues[me].tail++;
		counters[me]->n++;
	}
	return NULL;
}

int main(void)
{
	char *name = malloc(32), *buf = malloc(200);
	const char *s = getenv("HEAPSLOTS_STEPS");
	pthread_t t[NT];
	long sum = 0;

	if (!name || !buf)
		return 1;
	if (s)
		steps = atol(s);
	snprintf(name, 32, "queues");
	queues = malloc(NT * sizeof(*queues));
	if (!queues)
		return 1;
	for (int i = 0; i < NT; i++) {
		queues[i] = (struct qstate){ .id = i };
		counters[i] = malloc(sizeof(*counters[i]));
		if (!counters[i])
			return 1;
		counters[i]->n = 0;
	}
	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, run, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NT; i++) {
		sum += queues[i].head + queues[i].tail + counters[i]->n;
		free(counters[i]);
	}
	printf("%s %ld\n", name, sum);
	free(queues);
	free(name);
	free(buf);
	return 0;
}
