/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parts of libc2cscan-emu.so (record --emulate's runtime): emu.c the
 * model and the hooks, jumps.c the jumps over a Clang executable's hooks,
 * heap.c the program's production allocator, locks.c the lock functions'
 * accesses, pace.c the lockstep windows, maps.c the keys of the program's
 * memory.
 */
#ifndef C2CSCAN_RECORD_EMU_EMU_H
#define C2CSCAN_RECORD_EMU_EMU_H

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "perfdata/perf_data.h"
#include "record/emu/copy.h"

#define EXPORT __attribute__((visibility("default")))

/* What an access of emu_access() does. */
enum emu_kind { EMU_LOAD, EMU_STORE, EMU_RMW };

/* One access of the model (locks.c: the lock functions' accesses of the
 * lock object), by the instruction before the return address ret (the
 * call): read-modify-writes are locked. */
void emu_access(const void *addr, uint32_t size, enum emu_kind kind, uint64_t ret);
/* The next definition of name past this library (libtsan's interceptor in
 * a GCC build, the C library's), never own. */
void *emu_next(const char *name, void *own);
/* The C library's definition of name, NULL none. */
void *emu_libc(const char *name);
/* Whether the model runs (record's environment). */
bool emu_running(void);
/* Whether the calling thread is in the runtime (a signal's handler must
 * wait: signals.c), and a signal held back until it leaves. */
bool emu_busy_now(void);
void emu_defer(int sig);
/* The signals held back while the thread was in the runtime let through
 * (signals.c). */
void emu_signals__release(uint64_t sigs);
/* Whether record preloaded its stand-in for libtsan (libc2cscan-libtsan.so.N)
 * and no ThreadSanitizer runtime follows this library: the C library's
 * functions are the program's own. */
bool emu_libtsan_left_out(void);
/* A handle to an object already loaded (path NULL: the program's scope,
 * the executable first), NULL when it is not; given back with
 * emu_release(). Through the C library's dlopen and dlclose: libtsan's
 * interceptors list every module again at each call (mappings made and
 * unmade, about half a millisecond apiece; the runtime looks some 35
 * objects up as it starts). */
void *emu_loaded(const char *path);
void emu_release(void *h);

/* ---- lockstep windows (pace.c): the default model ---- */
#define EMU_WIN (1u << PD_EMU_WIN_BITS)  /* a window: accesses of a thread */

struct pace_slot {                      /* a core's, a cache line of its own: written at every wait */
	uint32_t win;                   /* the window its thread is in */
	uint32_t state;                 /* free, in step, away (in a wait; dropped) */
	uint32_t tid;
	uint32_t pacing;                /* waiting at its window's end for others: not blocked */
	uint32_t drops;                 /* times dropped as blocked out of sight (PACE_DROPS: for good) */
	uint32_t fresh;                 /* joined as announced, its first window not ended: blocked,
					 * dropped without a count (its first hook can run in a signal
					 * handler while libtsan's thread start blocks it) */
} __attribute__((aligned(64)));

/* A barrier's meeting point (pace.c): where the threads it releases
 * resume. */
#define PACE_MEETS 32
struct pace_meet {
	uint64_t obj;                   /* the barrier's address, 0 free */
	uint32_t count;                 /* threads a round */
	uint32_t arrivals;
	struct pace_round {             /* round r's at r % 2 (under meet_lock) */
		uint32_t round, latest; /* the latest window a thread arrived in */
		uint64_t cores;         /* the threads that arrived, not yet back in step */
	} rounds[2];
};

/* In the model every process maps. */
struct pace {
	uint32_t progress;              /* a futex: bumped at every window end, leave, away while
					 * a thread waits on it */
	uint32_t waiters;
	struct pace_slot slots[PD_EMU_CORES];
	uint32_t meet_lock;
	struct pace_meet meets[PACE_MEETS];
	/* threads being created (pace__coming): waited for from the window
	 * their creator was in until they join, or COMING_NS at the most */
	uint32_t coming_lock, coming, coming_win;
	uint64_t coming_ns;
};

/* The lockstep runs over p; threads dropped after blocking where the
 * runtime cannot see are counted in *stalls. */
void pace__start(struct pace *p, uint64_t *stalls);
/* A thread starts on core idx (its own): the window it starts in (it is
 * waited for from that window's end on). */
uint32_t pace__join(int idx, uint32_t tid);
/* A thread in window win creates another (pthread_create): the threads in
 * step wait at that window until pace__created() (the creator is back;
 * made: the thread was) and the new thread has joined (pace__join starts
 * it in step there), as a core that starts then would (a start under
 * libtsan takes long enough for a fast thread to run ahead alone). */
void pace__coming(uint32_t win);
void pace__created(bool made);
/* It ended. */
void pace__leave(int idx);
/* It waits in a call (a lock, a join, a sleep): not waited for ... */
void pace__away(int idx);
/* ... and is back, in window win: the window it goes on in. */
uint32_t pace__back(int idx, uint32_t win);
/* It finished window win: waits until every thread in step has, and
 * returns the next window. */
uint32_t pace__window_end(int idx, uint32_t win);

/* A barrier of count threads at obj (init), gone (count 0: destroy). */
void pace__meet(const void *obj, uint32_t count);
/* The thread on core idx arrives at it in window win: its round + 1 (0:
 * the barrier is not known) ... */
uint32_t pace__arrive(const void *obj, int idx, uint32_t win);
/* ... and, released, the window it resumes in (win, or later). */
uint32_t pace__depart(const void *obj, int idx, uint32_t round, uint32_t win);

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
/* It begins (and ends) waiting to take the lock at lock: the default
 * model counts the lock's line, and the lines the waiter wrote in its
 * window and the last, as coming to any other thread that touches them in
 * a window meanwhile: on a core of its own the waiter would go on running
 * its loop, taking them in that window. */
void emu_lock_wait(const void *lock, bool begin);
/* The calling thread creates another (pace__coming): true when it said so
 * (emu_created() then, when pthread_create returns). */
bool emu_creating(void);
void emu_created(bool made);
/* The same for a barrier at obj: the threads it releases resume together
 * (pace.c); emu_arrive's token goes to emu_depart. */
void emu_meet(const void *obj, uint32_t count);
uint32_t emu_arrive(const void *obj);
void emu_depart(const void *obj, uint32_t token);

/* A function of the runtime's, by name (the executable's definitions a
 * Clang build links in are patched to jump to these). */
struct emu_fn {
	const char *name;
	void *fn;
};

/* Every ThreadSanitizer hook and mapping call the runtime defines (emu.c). */
extern const struct emu_fn emu_hooks[];
extern const size_t emu_nhooks;

/* ---- jumps (jumps.c) ---- */
/* A Clang build: the executable's hooks (and, all or none, its allocator)
 * jump to the runtime's; how many hooks did (0: a GCC build). */
int emu_jumps__redirect(void);
/* Not run by record: the runtime's exported functions jump to the next
 * definitions. */
void emu_jumps__forward(void);
/* dlsym(prog, name) (prog: the program's scope), when the executable (exe,
 * its link map) defines name itself; else NULL. */
void *emu_exe_sym(void *prog, const void *exe, const char *name);

/* The model runs: the program's heap is its production allocator's from
 * now on (heap.c). */
void emu_heap__start(void);
/* That allocator's file name ("libc.so.6", "libjemalloc.so.2"), NULL while
 * the heap is libtsan's. */
const char *emu_heap__allocator(void);
/* In a forked child: the runtime's own heap's lock free (a parent's
 * thread that held it is not in the child). */
void emu_heap__forked(void);
/* A Clang build, whose executable (prog, its handle; exe, its link map)
 * holds ThreadSanitizer's allocator: true when what that allocator holds
 * can go back to it without its malloc family (cfree and the sanitizer
 * interface), so that its malloc family may jump to emu_heap_fns. */
bool emu_heap__program(void *prog, const void *exe);
extern const struct emu_fn emu_heap_fns[];
extern const size_t emu_heap_nfns;

/* A spin lock of the runtime's (no futex, no allocation: hooks and
 * interposed calls take it); a waiter yields now and then, so that a
 * holder preempted among many threads on few CPUs gets to run. */
static inline void emu_lock(uint32_t *l)
{
	for (uint32_t spins = 0; __atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE);)
		while (__atomic_load_n(l, __ATOMIC_RELAXED))
			if (++spins % 256)
				__builtin_ia32_pause();
			else
				syscall(SYS_sched_yield);
}

static inline void emu_unlock(uint32_t *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/* The same, taken outside a hook (or in a hook's rare path), with signals
 * held off until it is let go: the kernel delivers a signal at any
 * instruction (without libtsan nothing holds it back), and a handler that
 * called into the runtime meanwhile, or left by longjmp, would leave the
 * lock taken for ever. */
static inline void emu_signals_off(sigset_t *was)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, was);
}

static inline void emu_signals_back(const sigset_t *was)
{
	pthread_sigmask(SIG_SETMASK, was, NULL);
}

static inline void emu_lock_quiet(uint32_t *l, sigset_t *was)
{
	emu_signals_off(was);
	emu_lock(l);
}

static inline void emu_unlock_quiet(uint32_t *l, const sigset_t *was)
{
	emu_unlock(l);
	emu_signals_back(was);
}

/* A file opened by the system call itself (libc's open is libtsan's
 * interceptor in these programs), close-on-exec; a file it makes: 0600. */
static inline int emu_sys_open(const char *path, int flags)
{
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags | O_CLOEXEC, 0600);
}

/* Where the runtime's next mapping of len bytes is asked for: a zone of
 * its own (EMU_ZONE on), far below where the kernel places the program's
 * mappings, so that none of the runtime's lands in a hole the program just
 * made and moves the program's next mapping (as production has it). A
 * hint: taken, the kernel places the mapping as it would. */
uintptr_t emu_zone(size_t len);

/* A mapping of the runtime's own (a system call: the program's mmap, which
 * this library defines, tells the model of the program's). */
static inline void *emu_sys_mmap(size_t len, int prot, int flags, int fd, off_t off)
{
	return (void *)syscall(SYS_mmap, emu_zone(len), len, prot, flags, fd, off);
}

/* ---- the samples' file (out.c) ---- */

/* A thread's chunk of the process's sample file. */
struct emu_out {
	uint8_t *chunk;                 /* mapped, NULL none yet */
	uint32_t used;                  /* bytes of it written */
};
/* The process's file is dir/emu-PID. */
void emu_out__start(const char *dir, uint32_t pid);
/* In a forked child: its own pid (and file); the lock free, the parent's
 * spare chunks dropped. */
void emu_out__forked(uint32_t pid);
/* The process's file made, empty (record tells a modelled process that
 * sampled nothing from a program the runtime never saw). */
void emu_out__mark(void);
/* len bytes to write a sample in, in o's chunk (a new one when it is
 * full); NULL when no chunk can be had (the sample is lost). */
uint8_t *emu_out__room(struct emu_out *o, size_t len);
/* A thread's end: o's chunk left to the next thread that samples (its
 * room), else unmapped. */
void emu_out__close(struct emu_out *o);
/* o's chunk unmapped (a forked child's copy of its parent's). */
void emu_out__drop(struct emu_out *o);
/* How many bytes at a from its page on are mapped readable, up to max
 * (the code after a call near a page's end is in the next page, or not
 * mapped). */
uint32_t emu_out__code_bytes(uint64_t a, uint32_t max);

/* ---- the program's memory (maps.c) ---- */
#define EMU_SHARED (1ull << 63)         /* a space of MAP_SHARED memory: | device | inode */

/* Moves when the shared mappings change: page keys made before are stale. */
extern uint32_t emu_maps_gen;
static inline uint32_t emu_maps__gen(void)
{
	return __atomic_load_n(&emu_maps_gen, __ATOMIC_ACQUIRE);
}
/* How the page at a is keyed: the space of the shared mapping that holds
 * it, and (*off) the page's offset in its file; 0 (private: the process's
 * own) and a itself when none does. Never waits for another thread. */
uint64_t emu_maps__key(uint64_t a, uint64_t *off);
/* The program is about to unmap [a, a + len), or to map over it: the
 * model forgets its private lines (emu.c). */
void emu_forget(uint64_t a, uint64_t len);
/* Whether the byte at a is mapped readable. */
bool emu_maps__readable(uint64_t a);
/* In a forked child: the locks other threads held are free. */
void emu_maps__forked(void);
/* The runtime's own files (its directory's, the model): not the program's. */
void emu_maps__own(const char *dir, const char *model);

#endif
