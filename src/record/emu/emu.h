/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parts of libc2cscan-emu.so (record --emulate's runtime): emu.c the
 * model and the hooks, heap.c the program's production allocator, locks.c
 * the lock functions' accesses.
 */
#ifndef C2CSCAN_RECORD_EMU_EMU_H
#define C2CSCAN_RECORD_EMU_EMU_H

#include <stdint.h>

/* What an access of emu_access() does. */
enum emu_kind { EMU_LOAD, EMU_STORE, EMU_RMW };

/* One access of the model (locks.c: the lock functions' accesses of the
 * lock object), by the instruction before the return address ret (the
 * call): read-modify-writes are locked. */
void emu_access(const void *addr, uint32_t size, enum emu_kind kind, uint64_t ret);
/* The next definition of name past this library (libtsan's interceptor in
 * a GCC build, the C library's), never own. */
void *emu_next(const char *name, void *own);

/* The model runs: the program's heap is its production allocator's from
 * now on (heap.c). */
void emu_heap__start(void);
/* That allocator's file name ("libc.so.6", "libjemalloc.so.2"), NULL while
 * the heap is libtsan's. */
const char *emu_heap__allocator(void);

#endif
