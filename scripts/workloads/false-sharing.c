// SPDX-License-Identifier: GPL-2.0
/*
 * false-sharing: two threads increment their own counter; the counters sit
 * in one cacheline (the bug) or, with "padded", two lines apart (the fix).
 *
 * usage: false-sharing [padded] [ROUNDS]
 *
 * The counters live in a private anonymous page that is dropped
 * (MADV_DONTNEED) after every round, so each round's first write faults
 * again: `c2cscan record -e page-faults` then sees both threads' data
 * addresses even without a memory PMU. Prints one line per counter:
 *   counter N tid T addr 0xADDR
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096
#define ITERS 200000

static char *page;
static size_t stride;
static int rounds = 20;
static pthread_barrier_t step, start, done;

/* Each thread in turn writes its counter into a freshly dropped page, so
 * both threads' addresses show up as page faults every round. */
static void touch_phase(long n)
{
	for (int k = 0; k < 2; k++) {
		pthread_barrier_wait(&step);
		if (k == n)
			*(volatile long *)(page + 0x100 + n * stride) += 1;
		pthread_barrier_wait(&step);
	}
}

static void *worker(void *arg)
{
	long n = (long)arg;

	printf("counter %ld tid %ld addr %p\n", n, (long)syscall(SYS_gettid), (void *)(page + 0x100 + n * stride));
	fflush(stdout);
	for (int r = 0; r < rounds; r++) {
		volatile long *c;

		touch_phase(n);
		pthread_barrier_wait(&start);
		c = (volatile long *)(page + 0x100 + n * stride);
		for (int i = 0; i < ITERS; i++)
			(*c)++;
		pthread_barrier_wait(&done);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	int padded = argc > 1 && !strcmp(argv[1], "padded");

	if (argc > 1 + padded)
		rounds = atoi(argv[1 + padded]);
	/* 8 bytes apart: one line; 128 apart: also clear of the adjacent-line prefetcher */
	stride = padded ? 128 : 8;
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
		madvise(page, PAGE, MADV_DONTNEED);     /* the next round faults again */
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%s: %d rounds done\n", padded ? "padded" : "false sharing", rounds);
	return 0;
}
