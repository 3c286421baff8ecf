// SPDX-License-Identifier: GPL-2.0
/*
 * Where the heap puts things (tests/cli/emulate-heap.sh): a few unrelated
 * allocations, some of them made by C library functions libtsan intercepts
 * (strdup, getline, asprintf, realpath), then per-thread structs of 24, 40,
 * 64 and 96 bytes in one malloc each, a calloc'd counter array, aligned
 * allocations and a realloc; prints each address modulo 64, and frees
 * everything (memory the C library allocated included). Built bare and
 * with -fsanitize=thread: under record --emulate the numbers must be the
 * bare build's (the production allocator), not libtsan's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE     /* asprintf, getline's friends (the TSan build's command line has none) */
#endif
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT 4

struct s24 { long a, b; int c; };
struct s40 { long a, b, c, d; int e; };
struct s64 { long v[8]; };
struct s96 { long v[12]; };

static void *touch(void *arg)
{
	((volatile long *)arg)[0]++;
	return NULL;
}

static unsigned long m64(const void *p)
{
	return (unsigned long)p % 64;
}

int main(void)
{
	char *config = malloc(40), *host = strdup("localhost"), *msg = NULL, *line = NULL, *path;
	size_t cap = 0;
	FILE *f = fmemopen((void *)"one line\n", 9, "r");
	void *al = NULL, *r;
	struct s24 *a24;
	struct s40 *a40;
	struct s64 *a64;
	struct s96 *a96;
	int *counts;
	pthread_t t;

	if (!config || !host || !f || getline(&line, &cap, f) < 0 || asprintf(&msg, "%s:%d", host, 80) < 0)
		return 1;
	fclose(f);
	path = realpath("/", NULL);
	a24 = malloc(NT * sizeof(*a24));
	a40 = malloc(NT * sizeof(*a40));
	a64 = malloc(NT * sizeof(*a64));
	a96 = malloc(NT * sizeof(*a96));
	counts = calloc(NT, sizeof(*counts));
	if (posix_memalign(&al, 64, 200))
		return 1;
	r = realloc(config, 300);
	if (!path || !a24 || !a40 || !a64 || !a96 || !counts || !r)
		return 1;
	pthread_create(&t, NULL, touch, a64);
	pthread_join(t, NULL);
	printf("host %lu line %lu msg %lu path %lu s24 %lu s40 %lu s64 %lu s96 %lu counts %lu aligned %lu realloc %lu "
	       "usable %zu\n", m64(host), m64(line), m64(msg), m64(path), m64(a24), m64(a40), m64(a64), m64(a96),
	       m64(counts), m64(al), m64(r), malloc_usable_size(a24));
	free(host);
	free(line);
	free(msg);
	free(path);
	free(a24);
	free(a40);
	free(a64);
	free(a96);
	free(counts);
	free(al);
	free(r);
	return 0;
}
