// SPDX-License-Identifier: GPL-2.0
/*
 * "freed" only for a use after free (tests/cli/alloc-truth.sh): each page
 * below is first touched (a page fault at a known place) in a freed
 * object's range, by the program once and by the allocator or a new
 * mapping the other times.
 *   uaf      the program writes a freed block: a use after free
 *   regrow   the heap's top, trimmed by free, grown again by the next
 *            malloc: malloc's own first writes there make the new object
 *   remap    a munmapped block's range mapped again by plain mmap
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define BIG (1 << 20)

/* the compiler may not drop a malloc, free or write it cannot see used */
static void escape(void *p)
{
	__asm__ volatile("" : : "g"(p) : "memory");
}

static void __attribute__((noinline)) use_after_free(void)
{
	char *a = malloc(64 << 10), *b = malloc(64 << 10), *guard = malloc(64);

	a[0] = b[0] = guard[0] = 1;     /* b's later pages stay untouched */
	escape(a);
	escape(b);
	escape(guard);
	free(b);
	escape(b);
	b[40000] = 2;                   /* the bug: a page of the freed b */
	escape(b);
}

static void __attribute__((noinline)) regrow(void)
{
	char *t = malloc(512 << 10), *u;

	memset(t, 1, 512 << 10);
	escape(t);
	free(t);                        /* the top is trimmed: its pages go */
	u = malloc(512 << 10);          /* grown again: malloc writes its header there */
	escape(u);
}

static void __attribute__((noinline)) remap(void)
{
	char *big = malloc(BIG), *m;

	memset(big, 1, BIG);
	escape(big);
	free(big);                      /* munmapped */
	m = mmap(NULL, BIG + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return;
	memset(m, 3, BIG + 4096);       /* the old block's range, a new mapping */
	escape(m);
}

int main(void)
{
	mallopt(M_MMAP_THRESHOLD, 800 << 10);   /* use_after_free and regrow on the heap */
	mallopt(M_TRIM_THRESHOLD, 64 << 10);
	use_after_free();
	regrow();
	remap();
	puts("freed truth");
	return 0;
}
