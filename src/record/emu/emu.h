/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parts of libc2cscan-emu.so (record --emulate's runtime): emu.c the
 * model and the hooks, heap.c the program's production allocator.
 */
#ifndef C2CSCAN_RECORD_EMU_EMU_H
#define C2CSCAN_RECORD_EMU_EMU_H

/* The model runs: the program's heap is its production allocator's from
 * now on (heap.c). */
void emu_heap__start(void);
/* That allocator's file name ("libc.so.6", "libjemalloc.so.2"), NULL while
 * the heap is libtsan's. */
const char *emu_heap__allocator(void);

#endif
