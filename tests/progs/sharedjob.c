// SPDX-License-Identifier: GPL-2.0
/*
 * A struct shared through a pointer: a job's producer and consumer
 * threads each get the job (one malloc, after a few unrelated ones) and
 * write their own counter in it, next to each other. report --patch
 * aligns the consumer's member in the struct's declaration, as for a
 * variable (tests/cli/patch-arrays.sh); the allocation stays as it is.
 * SHAREDJOB_STEPS: each thread's steps.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct job {
	char name[16];
	long produced;
	long consumed;
	int state;
};

static long steps = 600000;

static __attribute__((noipa)) long item(long i)
{
	return i * 2654435761u & 15;
}

static void *producer(void *arg)
{
	struct job *j = arg;

	for (long i = 0; i < steps; i++)
		j->produced += item(i);
	return NULL;
}

static void *consumer(void *arg)
{
	struct job *j = arg;

	for (long i = 0; i < steps; i++)
		j->consumed += item(i + 1);
	return NULL;
}

int main(void)
{
	char *log = malloc(128), *path = strdup("/var/spool/jobs");
	const char *s = getenv("SHAREDJOB_STEPS");
	struct job *j;
	pthread_t t[2];

	if (!log || !path)
		return 1;
	if (s)
		steps = atol(s);
	j = calloc(1, sizeof(*j));
	if (!j)
		return 1;
	snprintf(j->name, sizeof(j->name), "job-%d", 1);
	pthread_create(&t[0], NULL, producer, j);
	pthread_create(&t[1], NULL, consumer, j);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	printf("%s %s produced %ld consumed %ld\n", path, j->name, j->produced, j->consumed);
	free(j);
	free(log);
	free(path);
	return 0;
}
