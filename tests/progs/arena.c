// SPDX-License-Identifier: GPL-2.0
/*
 * A custom allocator for record --alloc-fn (tests/cli/alloc.sh): objects
 * carved out of one malloc'd arena by arena_alloc() and released by
 * arena_free(). Each object spans 4 pages and is touched at k * 4096 + 8
 * like heapobj.c's, so its samples must name the arena object (innermost),
 * allocated in make_conn, not the arena. Prints "obj SITE FN SIZE PAGES".
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#define PG 4096
#define OBJ (4 * PG)

static char *arena, *next;
void *volatile keep[8];

__attribute__((noinline)) void *arena_alloc(size_t n)
{
	char *p = next;

	next += (n + PG - 1) / PG * PG;
	return p;
}

__attribute__((noinline)) void arena_free(void *p)
{
	keep[7] = p;
}

__attribute__((noinline)) static void touch(char *p, int pages)
{
	for (int k = 1; k < pages; k++)
		p[(size_t)k * PG + 8] = 1;
}

__attribute__((noinline)) void *make_conn(void) { return arena_alloc(OBJ); }

int main(void)
{
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	arena = malloc(64 * PG);
	next = arena + PG;              /* page 0 holds malloc's header */
	for (int i = 0; i < 3; i++) {
		char *c = make_conn();

		touch(c, 4);
		keep[i] = c;
	}
	arena_free(keep[0]);
	printf("obj make_conn arena_alloc %d 4\n", OBJ);
	return 0;
}
