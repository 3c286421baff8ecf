/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The emulation runtime's own zeroing and copying (tests/unit/test_emucopy.c).
 * Not memset, memcpy and memmove: in the program those are libtsan's
 * interceptors (ahead of the C library in its scope), which check the
 * range as the program's access and cost a few hundred ns a call; the
 * runtime is built so that the compiler turns no loop into a call to them
 * either (-fno-tree-loop-distribute-patterns, Makefile): the gate's shift
 * at every modelled access went through libtsan's memmove (scatter: 15%).
 * Words at a time when both ends and the length are 8-byte aligned.
 */
#ifndef C2CSCAN_RECORD_EMU_COPY_H
#define C2CSCAN_RECORD_EMU_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline void emu_zero(void *d, size_t n)
{
	unsigned char *p = d;

	for (; n && ((uintptr_t)p & 7); n--)
		*p++ = 0;
	for (; n >= 8; n -= 8, p += 8)
		*(uint64_t *)(void *)p = 0;
	while (n--)
		*p++ = 0;
}

/* n bytes from s to d, which may overlap (as memmove). */
static inline void emu_copy(void *d, const void *s, size_t n)
{
	unsigned char *to = d;
	const unsigned char *from = s;
	bool words = !(((uintptr_t)to | (uintptr_t)from | n) & 7);

	if (to == from || !n)
		return;
	if (to < from || to >= from + n) {
		size_t i = 0;

		for (; words && i < n; i += 8)
			*(uint64_t *)(void *)(to + i) = *(const uint64_t *)(const void *)(from + i);
		for (; i < n; i++)
			to[i] = from[i];
	} else if (words) {
		while (n) {
			n -= 8;
			*(uint64_t *)(void *)(to + n) = *(const uint64_t *)(const void *)(from + n);
		}
	} else {
		while (n--)
			to[n] = from[n];
	}
}

#endif
