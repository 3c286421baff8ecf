/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the libraries record preloads that define malloc (the allocation
 * shim, shim/shim.c; the emulation runtime's heap, emu/heap.c): dlsym
 * allocates while they look up the real allocator, and gets static memory
 * from here, which free() must then leave alone. One copy per library
 * (everything static).
 */
#ifndef C2CSCAN_RECORD_BOOT_ALLOC_H
#define C2CSCAN_RECORD_BOOT_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

static _Alignas(16) char boot[16384];
static size_t boot_used;

static void *boot_alloc(size_t n)
{
	size_t at = (boot_used + 15) & ~(size_t)15;

	if (at + n > sizeof(boot))
		return NULL;
	boot_used = at + n;
	return boot + at;
}

static bool in_boot(const void *p)
{
	return (const char *)p >= boot && (const char *)p < boot + sizeof(boot);
}

#endif
