// SPDX-License-Identifier: GPL-2.0
/*
 * true-sharing: two threads take one spinlock (a lock word) to bump one
 * shared counter: the line is truly shared and bounces. With "fixed" each
 * thread counts in its own padded slot and takes the lock once per round.
 *
 * usage: true-sharing [fixed] [ROUNDS]
 *
 * The lock, counter and slots live in a private anonymous page dropped
 * (MADV_DONTNEED) after every round so that page-fault sampling sees them.
 * Prints "lock tid T addr 0xADDR" per thread and "slot N tid T addr 0xADDR".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096
#define ITERS 100000

static char *page;
static int rounds = 20, fixed;
static pthread_barrier_t step, start, done;

static void lock(volatile int *l)
{
	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
		while (*l)
			;
}

static void unlock(volatile int *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/* Each thread in turn touches what it uses first (the lock word, or its
 * slot) in a freshly dropped page: both show up as page faults every round. */
static void touch_phase(long n)
{
	for (int k = 0; k < 2; k++) {
		pthread_barrier_wait(&step);
		if (k == n) {
			if (fixed) {
				*(volatile long *)(page + 0x400 + n * 128) += 0;
			} else {
				lock((volatile int *)(page + 0x40));
				unlock((volatile int *)(page + 0x40));
			}
		}
		pthread_barrier_wait(&step);
	}
}

static void *worker(void *arg)
{
	long n = (long)arg, tid = (long)syscall(SYS_gettid);

	printf("lock tid %ld addr %p\n", tid, (void *)(page + 0x40));
	if (fixed)
		printf("slot %ld tid %ld addr %p\n", n, tid, (void *)(page + 0x400 + n * 128));
	fflush(stdout);
	for (int r = 0; r < rounds; r++) {
		volatile int *l = (volatile int *)(page + 0x40);
		volatile long *counter = (volatile long *)(page + 0x48);
		volatile long *slot = (volatile long *)(page + 0x400 + n * 128);

		touch_phase(n);
		pthread_barrier_wait(&start);
		if (fixed) {
			for (int i = 0; i < ITERS; i++)
				(*slot)++;
			lock(l);
			*counter += *slot;
			unlock(l);
		} else {
			for (int i = 0; i < ITERS; i++) {
				lock(l);
				(*counter)++;
				unlock(l);
			}
		}
		pthread_barrier_wait(&done);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	fixed = argc > 1 && !strcmp(argv[1], "fixed");
	if (argc > 1 + fixed)
		rounds = atoi(argv[1 + fixed]);
	page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 1;
	pthread_barrier_init(&step, NULL, 3);
	pthread_barrier_init(&start, NULL, 3);
	pthread_barrier_init(&done, NULL, 3);
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < 2; k++) {
			pthread_barrier_wait(&step);
			pthread_barrier_wait(&step);
			madvise(page, PAGE, MADV_DONTNEED);
		}
		pthread_barrier_wait(&start);
		pthread_barrier_wait(&done);
		madvise(page, PAGE, MADV_DONTNEED);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%s: %d rounds done\n", fixed ? "fixed" : "true sharing", rounds);
	return 0;
}
