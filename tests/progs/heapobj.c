// SPDX-License-Identifier: GPL-2.0
/*
 * Heap objects for record --alloc (tests/cli/alloc.sh). Every object is
 * large (glibc serves it from a fresh mmap), so page 0 is first touched by
 * malloc's header but every later page first by touch(), at byte
 * k * 4096 + 8 of the object: a page-fault sample there names the object
 * and that offset exactly. One allocating function per object, so the
 * site tells them apart. Prints "obj SITE FN SIZE PAGES" for each.
 */
#include <malloc.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "await.h"

#define PG 4096
#define SZ (64 * PG)

void *volatile keep[16];


__attribute__((noinline)) static void touch(char *p, size_t size, int pages)
{
	for (int k = 1; k < pages && (size_t)k * PG + 8 < size; k++)
		p[(size_t)k * PG + 8] = 1;
}

static void say(const char *site, const char *fn, size_t size, int pages)
{
	printf("obj %s %s %zu %d\n", site, fn, size, pages);
}

__attribute__((noinline)) void *make_malloc(void) { return malloc(SZ); }
__attribute__((noinline)) void *make_calloc(void) { return calloc(SZ / 8, 8); }
__attribute__((noinline)) void *make_aligned(void) { return aligned_alloc(PG, SZ); }
__attribute__((noinline)) void *make_memalign(void) { return memalign(PG, SZ); }
__attribute__((noinline)) void *make_valloc(void) { return valloc(SZ); }
__attribute__((noinline)) void *make_posix(void)
{
	void *p = NULL;

	return posix_memalign(&p, 64, SZ) ? NULL : p;
}
__attribute__((noinline)) void *make_reuse_a(void) { return malloc(SZ); }
__attribute__((noinline)) void *make_reuse_b(void) { return malloc(SZ); }
__attribute__((noinline)) void *grow_obj(void *p, size_t n) { return realloc(p, n); }
__attribute__((noinline)) void *make_in_thread(void) { return malloc(SZ); }
__attribute__((noinline)) void *make_in_late_thread(void) { return malloc(SZ); }

/* born after record -p attached: record opens its probes when it sees the
 * thread's FORK (within its 100 ms tick, a busy machine allowing); it
 * allocates 1.5 s later (at once when launched: the shim sees it anyway) */
static void *late_thread_main(void *arg)
{
	char *p;

	if (arg)
		usleep(1500 * 1000);
	p = make_in_late_thread();
	touch(p, SZ, 8);
	keep[10] = p;
	return arg;
}

static pthread_mutex_t go = PTHREAD_MUTEX_INITIALIZER;

/* An object from make, touched page by page, kept in keep[slot], said. */
static void one(void *(*make)(void), int slot, const char *site, const char *fn)
{
	char *p = make();

	touch(p, SZ, 8);
	keep[slot] = p;
	say(site, fn, SZ, 8);
}

static void *thread_main(void *arg)
{
	char *p;

	/* started before record -p attaches (allocator probes follow the
	 * threads that exist then), runs when main lets it */
	pthread_mutex_lock(&go);
	pthread_mutex_unlock(&go);
	p = make_in_thread();

	touch(p, SZ, 8);
	keep[9] = p;
	return arg;
}

int main(int argc, char **argv)
{
	/* "wait": for record -p, allocate once record says so; the C library's
	 * probes cannot see posix_memalign's pointer (it is stored through an
	 * argument), so that object is left out */
	bool probes = argc > 1 && !strcmp(argv[1], "wait");
	char *p, *a;
	pthread_t t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (probes)
		await_block();
	pthread_mutex_lock(&go);
	pthread_create(&t, NULL, thread_main, NULL);
	if (probes)
		await_go();
	/* a fixed threshold: a freed mmap'd object is unmapped and the next
	 * one of its size mapped again, usually at the same address */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	one(make_malloc, 0, "make_malloc", "malloc");
	one(make_calloc, 1, "make_calloc", "calloc");
	one(make_aligned, 2, "make_aligned", "aligned_alloc");
	one(make_memalign, 3, "make_memalign", "memalign");
	one(make_valloc, 4, "make_valloc", "valloc");
	if (!probes)
		one(make_posix, 5, "make_posix", "posix_memalign");

	/* a freed range reused: a's pages are unmapped, b gets fresh ones at
	 * (usually) the same address; samples there are b's */
	a = make_reuse_a();
	touch(a, SZ, 4);
	free(a);
	p = make_reuse_b();
	touch(p, SZ, 8);
	keep[6] = p;
	printf("reuse %s\n", p == a ? "same" : "moved");
	say("make_reuse_a", "malloc", SZ, 4);
	say("make_reuse_b", "malloc", SZ, 8);

	/* realloc that moves (a small object into a large one) */
	p = malloc(64);
	keep[7] = p;
	p = grow_obj(p, 2 * SZ);
	touch(p, 2 * SZ, 8);
	keep[7] = p;
	say("grow_obj", "realloc", 2 * SZ, 8);

	pthread_mutex_unlock(&go);
	pthread_join(t, NULL);
	say("make_in_thread", "malloc", SZ, 8);
	pthread_create(&t, NULL, late_thread_main, probes ? &t : NULL);
	pthread_join(t, NULL);
	say("make_in_late_thread", "malloc", SZ, 8);
	return 0;
}
