/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parts of libc2cscan-emu.so (record --emulate's runtime): emu.c the
 * model and the hooks, heap.c the program's production allocator, locks.c
 * the lock functions' accesses.
 */
#ifndef C2CSCAN_RECORD_EMU_EMU_H
#define C2CSCAN_RECORD_EMU_EMU_H

#include <stdint.h>
#include <time.h>
#include "perfdata/perf_data.h"

/* What an access of emu_access() does. */
enum emu_kind { EMU_LOAD, EMU_STORE, EMU_RMW };

/* One access of the model (locks.c: the lock functions' accesses of the
 * lock object), by the instruction before the return address ret (the
 * call): read-modify-writes are locked. */
void emu_access(const void *addr, uint32_t size, enum emu_kind kind, uint64_t ret);
/* The next definition of name past this library (libtsan's interceptor in
 * a GCC build, the C library's), never own. */
void *emu_next(const char *name, void *own);

/* ---- lockstep windows (pace.c): the default model ---- */
#define EMU_WIN (1u << PD_EMU_WIN_BITS)  /* a window: accesses of a thread */

struct pace_slot {                      /* a core's */
	uint32_t win;                   /* the window its thread is in */
	uint32_t state;                 /* free, in step, away (in a wait; dropped) */
	uint32_t tid;
	uint32_t pacing;                /* waiting at its window's end for others: not blocked */
	uint32_t drops;                 /* times dropped as blocked out of sight (PACE_DROPS: for good) */
};

/* In the model every process maps. */
struct pace {
	uint32_t progress;              /* a futex: bumped at every window end, leave, away */
	uint32_t waiters;
	struct pace_slot slots[PD_EMU_CORES];
};

/* The lockstep runs over p; threads dropped after blocking where the
 * runtime cannot see are counted in *stalls. */
void pace__start(struct pace *p, uint64_t *stalls);
/* A thread starts on core idx (its own): the window it starts in (it is
 * waited for from that window's end on). */
uint32_t pace__join(int idx, uint32_t tid);
/* It ended. */
void pace__leave(int idx);
/* It waits in a call (a lock, a join, a sleep): not waited for ... */
void pace__away(int idx);
/* ... and is back, in window win: the window it goes on in. */
uint32_t pace__back(int idx, uint32_t win);
/* It finished window win: waits until every thread in step has, and
 * returns the next window. */
uint32_t pace__window_end(int idx, uint32_t win);

/* CLOCK_MONOTONIC in ns: the recording's clock. */
static inline uint64_t emu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The calling thread waits in a call the runtime knows (locks.c), and is
 * back from it. */
void emu_away(void);
void emu_back(void);

/* The model runs: the program's heap is its production allocator's from
 * now on (heap.c). */
void emu_heap__start(void);
/* That allocator's file name ("libc.so.6", "libjemalloc.so.2"), NULL while
 * the heap is libtsan's. */
const char *emu_heap__allocator(void);

#endif
