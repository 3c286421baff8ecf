// SPDX-License-Identifier: GPL-2.0
/*
 * Lock bouncing for record --emulate (tests/cli/emulate-locks.sh): six
 * threads (more than the CPUs here) hammer one lock of struct sync (locks), each
 * on its own line; the counts it guards are on a line of their own
 * (struct totals). argv[1] picks the lock: mutex, rwlock, spin, cond (a
 * token passed round the threads, each waiting for its turn), sem, or
 * pipe (the mutex, while thread 0 waits in read() on a pipe main writes
 * to once the others are done: blocked where record --emulate's lockstep
 * cannot see), or pipes (thread 0 blocks in read() 20 times, between
 * runs of accesses, fed by thread 1 every 2 ms); argv[2] the rounds.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREADS 6
#define ROUNDS 25000                   /* argv[2] sets another number (scripts/bench-emulate) */

struct sync {
	_Alignas(64) pthread_mutex_t mutex;
	_Alignas(64) pthread_rwlock_t rwlock;
	_Alignas(64) pthread_spinlock_t spin;
	_Alignas(64) pthread_cond_t cond;
	_Alignas(64) pthread_mutex_t cond_mutex;
	_Alignas(64) sem_t sem;
};

struct totals {
	_Alignas(64) long done;
	long token;
};

static struct sync locks;
static struct totals totals;
static int fds[2];
static pthread_barrier_t start;
static const char *mode;
static int rounds = ROUNDS;

static void *worker(void *arg)
{
	long id = (long)arg;

	pthread_barrier_wait(&start);
	if (!strcmp(mode, "pipe") && id == 0) {
		char c;

		return read(fds[0], &c, 1) == 1 ? NULL : (void *)1;
	}
	if (!strcmp(mode, "pipes") && id < 2) {
		for (int k = 0; k < 20; k++) {
			char c = 'x';

			if (id == 1) {
				usleep(2000);
				if (write(fds[1], &c, 1) != 1)
					return (void *)1;
				continue;
			}
			for (int i = 0; i < 20000; i++)
				totals.token++;
			if (read(fds[0], &c, 1) != 1)
				return (void *)1;
		}
		return NULL;
	}
	for (int i = 0; i < rounds; i++) {
		if (!strcmp(mode, "mutex") || !strcmp(mode, "pipe") || !strcmp(mode, "pipes")) {
			pthread_mutex_lock(&locks.mutex);
			totals.done++;
			pthread_mutex_unlock(&locks.mutex);
		} else if (!strcmp(mode, "rwlock")) {
			pthread_rwlock_wrlock(&locks.rwlock);
			totals.done++;
			pthread_rwlock_unlock(&locks.rwlock);
		} else if (!strcmp(mode, "spin")) {
			pthread_spin_lock(&locks.spin);
			totals.done++;
			pthread_spin_unlock(&locks.spin);
		} else if (!strcmp(mode, "sem")) {
			sem_wait(&locks.sem);
			totals.done++;
			sem_post(&locks.sem);
		} else {
			if (i >= rounds / 20)
				break;
			pthread_mutex_lock(&locks.cond_mutex);
			while (totals.token % THREADS != id)
				pthread_cond_wait(&locks.cond, &locks.cond_mutex);
			totals.token++;
			totals.done++;
			pthread_cond_broadcast(&locks.cond);
			pthread_mutex_unlock(&locks.cond_mutex);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];
	/* a few unrelated allocations first, as a real program has */
	char *name = strdup("locks");
	long *scratch = calloc(100, sizeof(long));

	mode = argc > 1 ? argv[1] : "mutex";
	if (argc > 2 && atoi(argv[2]) > 0)
		rounds = atoi(argv[2]);
	pthread_mutex_init(&locks.mutex, NULL);
	pthread_rwlock_init(&locks.rwlock, NULL);
	pthread_spin_init(&locks.spin, PTHREAD_PROCESS_PRIVATE);
	pthread_cond_init(&locks.cond, NULL);
	pthread_mutex_init(&locks.cond_mutex, NULL);
	sem_init(&locks.sem, 0, 1);
	pthread_barrier_init(&start, NULL, THREADS);
	if (pipe(fds))
		return 1;
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = THREADS - 1; i >= 0; i--) {
		/* thread 0 last: the others are done, its read gets its byte */
		if (!i && !strcmp(mode, "pipe") && write(fds[1], "x", 1) != 1)
			return 1;
		pthread_join(t[i], NULL);
	}
	printf("%s %s %ld\n", name, mode, totals.done + scratch[0]);
	free(scratch);
	free(name);
	return 0;
}
