// SPDX-License-Identifier: GPL-2.0
/*
 * Atomics of every width and operation, from two threads, built with
 * -fsanitize=thread (tests/cli/emulate-workloads.sh): under record
 * --emulate the runtime performs them for the program, so the totals must
 * come out exact. Each thread adds, subtracts, ors, xors, ands, nands,
 * exchanges and compare-exchanges on its own word of each width and on a
 * shared one, then the program checks every result and prints "atomics ok"
 * (or what differs, exit 1). Also a fork: the child does the same on a
 * MAP_SHARED page, so the atomics act across processes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 20000

struct words {
	uint8_t b[2];
	uint16_t h[2];
	uint32_t w[2];
	uint64_t d[2];
	uint8_t sb;
	uint16_t sh;
	uint32_t sw;
	uint64_t sd;
	uint32_t flags;
	uint32_t arrived;               /* both processes there: they run at once */
};

static struct words *g;
static int bad;

#define EACH(T, own, shared, k)                                                                       \
	do {                                                                                          \
		T x;                                                                                  \
		__atomic_fetch_add(&(shared), 1, __ATOMIC_RELAXED);                                   \
		__atomic_add_fetch(&(own), 3, __ATOMIC_ACQ_REL);                                      \
		__atomic_fetch_sub(&(own), 1, __ATOMIC_SEQ_CST);                                      \
		__atomic_fetch_or(&(own), 0, __ATOMIC_RELEASE);                                       \
		__atomic_fetch_xor(&(own), 0, __ATOMIC_ACQUIRE);                                      \
		__atomic_fetch_and(&(own), (T)~(T)0, __ATOMIC_SEQ_CST);                               \
		x = __atomic_load_n(&(own), __ATOMIC_ACQUIRE);                                        \
		__atomic_store_n(&(own), x, __ATOMIC_RELEASE);                                        \
		x = __atomic_exchange_n(&(own), x, __ATOMIC_SEQ_CST);                                 \
		(void)x;                                                                              \
		for (;;) {                                                                            \
			T old = __atomic_load_n(&(shared), __ATOMIC_RELAXED);                         \
			if (__atomic_compare_exchange_n(&(shared), &old, (T)(old + 1), k,             \
							__ATOMIC_SEQ_CST, __ATOMIC_RELAXED))          \
				break;                                                                \
		}                                                                                     \
	} while (0)

static void *run(void *arg)
{
	int t = (int)(intptr_t)arg;

	for (int i = 0; i < N; i++) {
		EACH(uint8_t, g->b[t], g->sb, 0);
		EACH(uint16_t, g->h[t], g->sh, 1);
		EACH(uint32_t, g->w[t], g->sw, 0);
		EACH(uint64_t, g->d[t], g->sd, 1);
		__atomic_fetch_nand(&g->flags, 0, __ATOMIC_SEQ_CST);       /* ~(x & 0): all ones */
	}
	return NULL;
}

static void check(const char *what, uint64_t got, uint64_t want)
{
	if (got != want) {
		printf("%s: %llu, want %llu\n", what, (unsigned long long)got, (unsigned long long)want);
		bad = 1;
	}
}

static void round_of_two(void)
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, run, (void *)(intptr_t)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	/* each step adds 2 to its own word, 2 to the shared one */
	for (int i = 0; i < 2; i++) {
		check("own 8", g->b[i], (uint8_t)(2 * N));
		check("own 16", g->h[i], (uint16_t)(2 * N));
		check("own 32", g->w[i], 2u * N);
		check("own 64", g->d[i], 2ull * N);
	}
	check("shared 8", g->sb, (uint8_t)(4 * N));
	check("shared 16", g->sh, (uint16_t)(4 * N));
	check("shared 32", g->sw, 4u * N);
	check("shared 64", g->sd, 4ull * N);
	check("nand", g->flags, UINT32_MAX);
}

int main(void)
{
	static struct words priv;
	pid_t pid;
	int st;

	g = &priv;
	round_of_two();
	g = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (g == MAP_FAILED)
		return 1;
	pid = fork();
	__atomic_fetch_add(&g->arrived, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&g->arrived, __ATOMIC_ACQUIRE) < 2)
		;
	if (pid == 0) {
		run((void *)(intptr_t)1);
		_exit(0);
	}
	run((void *)(intptr_t)0);
	waitpid(pid, &st, 0);
	check("processes: shared 64", g->sd, 4ull * N);
	check("processes: own 32", g->w[0] + g->w[1], 4u * N);
	printf("%s\n", bad ? "atomics wrong" : "atomics ok");
	return bad;
}
