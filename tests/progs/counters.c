// SPDX-License-Identifier: GPL-2.0
/*
 * The layout cases of tests/cli/verdict.sh: `counters` has a producer's and
 * a consumer's counter in one line (false sharing; built with -DPADDED the
 * consumer's moves to the next line: the fix), `lockbox` a counter that
 * both threads increment (true sharing). The test does not run it: it
 * reads the built binary's symbols and instructions and writes recordings
 * whose samples are these functions' real stores and loads of these real
 * members (tests/tools/mkhitm.py), as a machine with a memory PMU would
 * record them. Running it works too: two threads, half a second
 * (COUNTERS_SECONDS=s: at least s, default 0.25, and COUNTERS_ROUNDS=n of
 * 100,000 steps, default 20; the lockstep emulation needs no overlap in
 * time: tests/cli/emulate.sh asks for 0 s and 8 rounds).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct counters {
	long produced;          /* the producer's */
#ifdef PADDED
	char pad[56];
#endif
	long consumed;          /* the consumer's */
	long flags;
};

struct lockbox {
	int lock;
	long hits;              /* both threads' */
};

struct counters counters __attribute__((aligned(64)));
struct lockbox lockbox __attribute__((aligned(64))) = { 0, 1 };

__attribute__((noinline)) void producer_step(void)
{
	counters.produced++;
	__atomic_add_fetch(&lockbox.hits, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void consumer_step(void)
{
	counters.consumed++;
	__atomic_add_fetch(&lockbox.hits, 1, __ATOMIC_RELAXED);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static pthread_barrier_t start;

/* COUNTERS_SECONDS and COUNTERS_ROUNDS, read by each thread into its own
 * variables (the C library's getenv is not instrumented: no global of
 * ours to share) */
static double env_or(const char *name, double dflt)
{
	const char *s = getenv(name);

	return s ? atof(s) : dflt;
}

static void *run(void *arg)
{
	double end;
	int rounds = (int)env_or("COUNTERS_ROUNDS", 20);

	/* at least 2M steps and a quarter of a second, from a common start: the two
	 * threads must overlap for their lines to bounce */
	pthread_barrier_wait(&start);
	end = now() + env_or("COUNTERS_SECONDS", 0.25);
	for (int k = 0; k < rounds || now() < end; k++)
		for (int i = 0; i < 100000; i++)
			(arg ? consumer_step : producer_step)();
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_barrier_init(&start, NULL, 2);
	pthread_create(&a, NULL, run, NULL);
	pthread_create(&b, NULL, run, &a);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("produced %ld consumed %ld hits %ld\n", counters.produced, counters.consumed, lockbox.hits);
	return 0;
}
