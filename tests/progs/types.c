// SPDX-License-Identifier: GPL-2.0
/*
 * Data types on real code (tests/cli/types.sh), built -O2 -g: every access
 * below is the first touch of a page no one touched before (fresh mmap and
 * thread-stack pages, pages given back with MADV_DONTNEED), so a page-fault
 * recording samples exactly these instructions and addresses.
 *
 *  - conn_add:    a member of a nested struct through a pointer parameter
 *  - conn_hits:   the same through a const pointer (a read)
 *  - conn_bump:   an element of an mmap'd array by an index (the mapping's
 *                 start gives the element, with --alloc)
 *  - items_bump:  an array of structs walked in a loop (element from --alloc)
 *  - items_pick:  an element chosen by an index register
 *  - gdata/gbss:  globals in .data and .bss
 *  - on_stack:    a local struct on a fresh thread's stack
 *  - tls_touch:   a thread-local struct of the executable
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096

struct conn_stats {
	long bytes;
	long hits;
};

struct conn {
	int id;
	char name[60];
	struct conn_stats st;   /* offset 64 */
	char tail[PAGE - 64 - sizeof(struct conn_stats)];
};

struct item {
	long key;
	long hits;
	char pad[PAGE - 2 * sizeof(long)];
};

struct gstats {
	long calls;
	long errors;
	char pad[PAGE - 2 * sizeof(long)];
};

struct frame_stats {
	long first;
	long counts[3 * PAGE / sizeof(long)];
};

struct tls_stats {
	char pad[PAGE];
	long reads;
	long writes;
	char tail[PAGE - 2 * sizeof(long)];
};

struct gstats gdata __attribute__((aligned(PAGE))) = { .calls = 1 };
struct gstats gbss __attribute__((aligned(PAGE)));
__thread struct tls_stats tstats __attribute__((aligned(PAGE)));

__attribute__((noinline)) void conn_add(struct conn *c, long n)
{
	c->st.bytes += n;
}

__attribute__((noinline)) long conn_hits(const struct conn *c)
{
	return c->st.hits;
}

/* an element of a mapping-sized array, by an index the code computes */
__attribute__((noinline)) void conn_bump(struct conn *cs, const volatile int *i)
{
	cs[*i].st.hits++;
}

__attribute__((noinline)) void items_bump(struct item *it, int n)
{
	for (int i = 1; i < n; i += 2)
		it[i].hits += i;
}

__attribute__((noinline)) void items_pick(struct item *it, const int *which, int n)
{
	for (int i = 0; i < n; i++)
		it[which[i]].key = which[i];
}

__attribute__((noinline)) void globals_touch(long v)
{
	gdata.errors += v;
	gbss.calls += v;
}

__attribute__((noinline)) void tls_touch(long v)
{
	tstats.writes += v;
}

static void *on_stack(void *arg)
{
	struct frame_stats fs;
	long v = (long)(intptr_t)arg;

	/* the compiler must keep fs in memory: its address escapes */
	__asm__ volatile("" : : "r"(&fs) : "memory");
	fs.counts[2 * PAGE / sizeof(long)] = v;
	__asm__ volatile("" : : "r"(&fs) : "memory");
	/* this thread's TLS block: give its page back, touch it again */
	madvise((void *)((uintptr_t)&tstats.reads & ~(uintptr_t)(PAGE - 1)), PAGE, MADV_DONTNEED);
	tls_touch(v);
	return NULL;
}

int main(void)
{
	struct conn *conns = mmap(NULL, 4 * sizeof(struct conn), PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct item *items = malloc(64 * sizeof(struct item));
	struct item *picked = malloc(64 * sizeof(struct item));
	int which[3] = { 5, 9, 12 };
	volatile int three = 3;
	pthread_t t;
	long sum;

	if (conns == MAP_FAILED || !items || !picked)
		return 1;
	conn_add(&conns[1], 10);
	sum = conn_hits(&conns[2]);
	conn_bump(conns, &three);
	items_bump(items, 8);
	items_pick(picked, which, 3);
	globals_touch(2);
	if (pthread_create(&t, NULL, on_stack, (void *)(intptr_t)3) || pthread_join(t, NULL))
		return 1;
	printf("%ld %ld %ld %ld\n", sum, items[3].hits, gdata.errors, gbss.calls);
	return 0;
}
