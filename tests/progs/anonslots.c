// SPDX-License-Identifier: GPL-2.0
/*
 * report --patch on a typedef'd anonymous struct (tests/cli/patch.sh):
 * four threads count into their own element of a global array of
 * `slot_t`, after a few unrelated allocations; the patch aligns the
 * anonymous struct (`typedef struct __attribute__((aligned(64))) {`).
 * Prints the total.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT 4

typedef struct {
	long hits;
	long misses;
} slot_t;

slot_t slots[NT];
static pthread_barrier_t start;

__attribute__((noinline)) static void hit(slot_t *s)
{
	s->hits++;
}

static void *run(void *arg)
{
	pthread_barrier_wait(&start);
	for (long i = 0; i < 300000; i++)
		hit(&slots[(long)arg]);
	return NULL;
}

int main(void)
{
	char *name = strdup("an unrelated object first");
	pthread_t t[NT];
	long sum = 0;

	pthread_barrier_init(&start, NULL, NT);
	for (long i = 0; i < NT; i++)
		pthread_create(&t[i], NULL, run, (void *)i);
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NT; i++)
		sum += slots[i].hits;
	printf("hits %ld\n", sum);
	free(name);
	return 0;
}
