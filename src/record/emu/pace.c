// SPDX-License-Identifier: GPL-2.0
/*
 * record --emulate's default model: threads in lockstep windows, so that
 * the answer does not depend on the machine (its load, its CPU count).
 * Part of libc2cscan-emu.so.
 *
 * The exact model (--emulate=exact) counts every change of a line's owner,
 * and how often two threads alternate on a line depends on whether they
 * run at the same time: on two idle CPUs nearly every access, time-sliced
 * on a loaded machine once a slice, and not at all when one thread ran
 * before the other. Here each thread's accesses are counted in windows of
 * EMU_WIN accesses of its own, and (1) no thread starts window w + 1
 * before every other live thread has finished window w: threads overlap
 * window by window on any machine, as if each had a core of its own and
 * all ran at one speed; (2) emu.c counts a line coming to a thread at most
 * once a window (it keeps the line for the rest of the window): what
 * happens inside a window, parallel or time-sliced, does not change the
 * count. A count is then the windows in which the line came from another
 * thread.
 *
 * A thread waiting in a lock, a condition variable, a barrier, a join, a
 * sleep or a poll (locks.c says so: pace__away and pace__back) is not
 * waited for. A thread blocked elsewhere (a system call the runtime does
 * not know, a lock taken inside uninstrumented code) is found by the
 * waiters after WAIT_NS: not runnable (its /proc state), or runnable but
 * without progress for STUCK_NS (spinning in uninstrumented code), it is
 * dropped from the lockstep until it comes back, and counted
 * (pd_emu_model_head.stalls: record says so, since such a thread's
 * windows then overlap the others' as the machine had them).
 *
 * A thread dropped PACE_DROPS times is not waited for again: one that
 * keeps blocking out of sight (a server's read loop, a spin in an
 * uninstrumented library) would otherwise cost the others a wait at each
 * of its returns.
 *
 * A thread is waited for from the end of its first window (pace__join),
 * and one another thread in step creates from the window its creator was
 * in (pace__coming), and the threads in step do not go past that window
 * until the creator is back from pthread_create (pace__created) and the
 * new thread has joined (however late its first hook comes): without
 * that, a thread that starts a worker and then a second, the first's loop
 * fast, runs the first alone while libtsan starts the second (a producer
 * and a consumer sharing a line: no contention at all, or some, as the
 * machine's load had it). A creation is waited for COMING_NS at the most.
 *
 * Threads a barrier releases leave it together in real time, and resume in
 * one window: the latest any of them arrived in. Each in its own instead, a
 * thread that arrived windows behind the others (created later, by the
 * machine's timing) would run those windows alone while they waited for
 * it, and a start barrier's workers would overlap by as much as the
 * machine happened to give (a Clang build's false sharing: 48 to 245 HITM
 * in six idle runs, none in one loaded). A barrier's arrivals are counted
 * in rounds of its count; round r's latest window is kept at r % 2 (round
 * r + 2 cannot begin before every thread of round r has left).
 *
 * The slots live in the model every process of the recording maps: threads
 * of forked and exec'd processes keep step too (futexes on shared memory).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "record/emu/emu.h"

#define WAIT_NS 1000000ull              /* a laggard looked at after a millisecond */
#define STUCK_NS 100000000ull           /* runnable without progress this long: dropped */
#define SPINS 200                       /* looks before sleeping ... */
#define SPINS_OWN_CPU 3000              /* ... when each thread in step can have a CPU of its own */
#define COMING_NS 100000000ull          /* a creation: waited for this long at the most */
#define PACE_DROPS 3                    /* a thread dropped this often is not waited for again */

enum { SLOT_FREE, SLOT_ON, SLOT_WAITING, SLOT_DROPPED };

static struct pace *pace;
static uint64_t *stalls;
static uint32_t cpus = 1;               /* the CPUs the process may run on */

void pace__start(struct pace *p, uint64_t *stall_count)
{
	cpu_set_t set;
	/* (the system call itself: libtsan intercepts the C library's) */
	long n = syscall(SYS_sched_getaffinity, 0, sizeof(set), &set);

	pace = p;
	stalls = stall_count;
	if (n > 0 && CPU_COUNT_S((size_t)n, &set))
		cpus = (uint32_t)CPU_COUNT_S((size_t)n, &set);
}

static void progress(void)
{
	/* (a thread that waits counts itself in waiters before its last look:
	 * either it sees what moved, or this sees it and bumps the futex. No
	 * waiter, no write: threads that wait on locks do not bounce the line) */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&pace->waiters, __ATOMIC_SEQ_CST))
		return;
	__atomic_add_fetch(&pace->progress, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &pace->progress, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

/* The window of the slowest thread in step but idx: where a thread joins
 * (new, or back from a wait), so that it holds nobody back; own when none. */
static uint32_t group_win(int idx, uint32_t own)
{
	bool any = false;
	uint32_t min = own;

	for (int i = 0; i < PD_EMU_CORES; i++) {
		struct pace_slot *s = &pace->slots[i];

		if (i == idx || __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != SLOT_ON)
			continue;
		if (!any || (int32_t)(__atomic_load_n(&s->win, __ATOMIC_ACQUIRE) - min) < 0)
			min = __atomic_load_n(&s->win, __ATOMIC_ACQUIRE);
		any = true;
	}
	return min;
}

/* Whether a creation holds back window win (at the most COMING_NS after
 * the first under way began, then forgotten). */
static bool coming_behind(uint32_t win, uint64_t now)
{
	bool behind = false;

	if (!__atomic_load_n(&pace->coming, __ATOMIC_ACQUIRE))
		return false;
	emu_lock(&pace->coming_lock);
	if (pace->coming && now && now - pace->coming_ns >= COMING_NS)
		pace->coming = 0;
	behind = pace->coming && (int32_t)(pace->coming_win - win) < 0;
	emu_unlock(&pace->coming_lock);
	return behind;
}

void pace__coming(uint32_t win)
{
	if (!pace)
		return;
	emu_lock(&pace->coming_lock);
	if (!pace->coming || (int32_t)(win - pace->coming_win) < 0)
		pace->coming_win = win;
	if (!pace->coming)
		pace->coming_ns = emu_now_ns();
	/* two marks: the creator's, until it is back; the new thread's,
	 * until it joins */
	__atomic_store_n(&pace->coming, pace->coming + 2, __ATOMIC_RELEASE);
	emu_unlock(&pace->coming_lock);
}

void pace__created(bool made)
{
	uint32_t marks = made ? 1 : 2;  /* (no thread will join for a creation that failed) */

	if (!pace)
		return;
	emu_lock(&pace->coming_lock);
	__atomic_store_n(&pace->coming, pace->coming > marks ? pace->coming - marks : 0, __ATOMIC_RELEASE);
	emu_unlock(&pace->coming_lock);
	progress();
}

uint32_t pace__join(int idx, uint32_t tid)
{
	struct pace_slot *s;
	uint32_t win, state = SLOT_DROPPED;

	if (!pace)
		return 0;
	s = &pace->slots[idx];
	win = group_win(idx, 0);
	/* a thread created while a creation is under way: in step at once,
	 * from the creator's window (the others wait there for it) */
	if (__atomic_load_n(&pace->coming, __ATOMIC_ACQUIRE)) {
		emu_lock(&pace->coming_lock);
		if (pace->coming) {
			win = pace->coming_win;
			state = SLOT_ON;
			__atomic_store_n(&pace->coming, pace->coming - 1, __ATOMIC_RELEASE);
		}
		emu_unlock(&pace->coming_lock);
	}
	__atomic_store_n(&s->tid, tid, __ATOMIC_RELAXED);
	__atomic_store_n(&s->drops, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->fresh, state == SLOT_ON, __ATOMIC_RELAXED);
	__atomic_store_n(&s->win, win, __ATOMIC_RELEASE);
	/* else waited for from its first window's end on: a thread whose
	 * first hook ran in a signal handler while it was blocked in libtsan's
	 * thread start, or one that ends within a window, holds nobody back */
	__atomic_store_n(&s->state, state, __ATOMIC_RELEASE);
	if (state == SLOT_ON)
		progress();
	return win;
}

void pace__leave(int idx)
{
	if (!pace)
		return;
	__atomic_store_n(&pace->slots[idx].state, SLOT_FREE, __ATOMIC_RELEASE);
	progress();
}

void pace__away(int idx)
{
	uint32_t on = SLOT_ON;

	if (pace && __atomic_compare_exchange_n(&pace->slots[idx].state, &on, SLOT_WAITING, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
		progress();
}

uint32_t pace__back(int idx, uint32_t win)
{
	struct pace_slot *s;
	uint32_t st;

	if (!pace)
		return win;
	s = &pace->slots[idx];
	__atomic_store_n(&s->fresh, 0, __ATOMIC_RELAXED);      /* past its start, whatever blocks it next */
	st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
	if (st == SLOT_ON || st == SLOT_FREE)
		return win;
	if (st == SLOT_DROPPED && __atomic_load_n(&s->drops, __ATOMIC_RELAXED) >= PACE_DROPS)
		return group_win(idx, win);     /* out of step for good, counted still in windows */
	/* back from a wait the runtime knows: in its own window (a wait spends
	 * no accesses: a thread's windows are its accesses, however long it
	 * waited; the others wait for it to catch up at their window ends);
	 * dropped or new: where the slowest thread in step is, so that it holds
	 * nobody back */
	if (st != SLOT_WAITING)
		win = group_win(idx, win);
	__atomic_store_n(&s->win, win, __ATOMIC_RELEASE);
	__atomic_store_n(&s->state, SLOT_ON, __ATOMIC_RELEASE);
	return win;
}

/* The thread's state letter from /proc (R runnable, S sleeping, ...); 0
 * when it is gone. No allocation, no stdio: raw system calls. */
static char thread_state(uint32_t tid)
{
	char path[48], buf[512];
	const char *paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/stat", tid);
	fd = emu_sys_open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = syscall(SYS_read, fd, buf, sizeof(buf) - 1);
	syscall(SYS_close, fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' ? paren[2] : 0;
}

/* Slot i is another thread in step than idx's, behind window win. */
static bool behind(int i, int idx, uint32_t win)
{
	const struct pace_slot *s = &pace->slots[i];

	return i != idx && __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == SLOT_ON &&
	       (int32_t)(__atomic_load_n(&s->win, __ATOMIC_ACQUIRE) - win) < 0;
}

/* The threads in step. */
static uint32_t in_step(void)
{
	uint32_t n = 0;

	for (int i = 0; i < PD_EMU_CORES; i++)
		n += __atomic_load_n(&pace->slots[i].state, __ATOMIC_RELAXED) == SLOT_ON;
	return n;
}

/* Whether a thread in step is behind window win. */
static bool laggard(int idx, uint32_t win)
{
	for (int i = 0; i < PD_EMU_CORES; i++)
		if (behind(i, idx, win))
			return true;
	return coming_behind(win, 0);
}

/* Drop laggards that cannot catch up by themselves: blocked where the
 * runtime cannot see (not runnable), gone, or runnable without progress
 * for STUCK_NS. */
static void drop_blocked(int idx, uint32_t win, bool stuck)
{
	for (int i = 0; i < PD_EMU_CORES; i++) {
		struct pace_slot *s = &pace->slots[i];
		uint32_t on = SLOT_ON;
		char st;

		if (!behind(i, idx, win))
			continue;
		st = thread_state(__atomic_load_n(&s->tid, __ATOMIC_RELAXED));
		if (st == 'R' && !stuck)
			continue;
		/* one waiting in the lockstep itself is sleeping, not blocked
		 * (what it waits for is judged by it): its flag read after its
		 * state, which it sets before it sleeps */
		if (st && __atomic_load_n(&s->pacing, __ATOMIC_ACQUIRE))
			continue;
		/* gone (its process ended with it, a zombie): free, not a stall */
		if (st == 'Z' || st == 'X')
			st = 0;
		if (__atomic_compare_exchange_n(&s->state, &on, st ? SLOT_DROPPED : SLOT_FREE, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			if (st && !__atomic_load_n(&s->fresh, __ATOMIC_RELAXED)) {
				__atomic_add_fetch(stalls, 1, __ATOMIC_RELAXED);
				__atomic_add_fetch(&s->drops, 1, __ATOMIC_RELAXED);
			}
			progress();
		}
	}
}

uint32_t pace__window_end(int idx, uint32_t win)
{
	struct pace_slot *s;
	uint64_t start = 0, looked = 0;
	int spins_max = 0;

	if (!pace)
		return win + 1;
	s = &pace->slots[idx];
	/* new, or dropped by a waiter while it was away from the hooks: back
	 * in step */
	if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == SLOT_DROPPED)
		win = pace__back(idx, win);
	__atomic_store_n(&s->fresh, 0, __ATOMIC_RELAXED);
	win++;
	__atomic_store_n(&s->win, win, __ATOMIC_RELEASE);
	progress();
	/* window win starts when every thread in step has finished win - 1 */
	for (int spins = 0;; spins++) {
		uint32_t seq = __atomic_load_n(&pace->progress, __ATOMIC_ACQUIRE);
		struct timespec tick = { 0, (long)WAIT_NS };
		uint64_t now;

		if (!laggard(idx, win))
			break;
		/* (the laggard, on a CPU of its own, is about to end its window:
		 * a sleep and a wake-up cost more than the wait in a VM, and
		 * two threads in step spent 8% of their time on them; with
		 * more threads than CPUs the laggard may need this one) */
		if (!spins_max)
			spins_max = in_step() <= cpus ? SPINS_OWN_CPU : SPINS;
		if (spins < spins_max) {
			__builtin_ia32_pause();
			continue;
		}
		__atomic_add_fetch(&pace->waiters, 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&s->pacing, 1, __ATOMIC_RELEASE);
		if (laggard(idx, win))
			syscall(SYS_futex, &pace->progress, FUTEX_WAIT, seq, &tick, NULL, 0);
		__atomic_store_n(&s->pacing, 0, __ATOMIC_RELEASE);
		__atomic_sub_fetch(&pace->waiters, 1, __ATOMIC_ACQ_REL);
		now = emu_now_ns();
		coming_behind(win, now);        /* (a thread created long ago and never seen: forgotten) */
		if (!start)
			start = looked = now;
		if (__atomic_load_n(&pace->progress, __ATOMIC_ACQUIRE) != seq) {
			looked = now;   /* someone moved: look again before judging */
			continue;
		}
		if (now - looked >= WAIT_NS) {
			drop_blocked(idx, win, now - start >= STUCK_NS);
			looked = now;
		}
	}
	return win;
}

/* ---- barriers: meeting points ---- */

static struct pace_meet *meet_of(uint64_t obj, bool make)
{
	struct pace_meet *free_one = NULL;

	for (int i = 0; i < PACE_MEETS; i++) {
		struct pace_meet *m = &pace->meets[i];
		uint64_t o = __atomic_load_n(&m->obj, __ATOMIC_ACQUIRE);

		if (o == obj)
			return m;
		if (!o && !free_one)
			free_one = m;
	}
	return make ? free_one : NULL;
}

void pace__meet(const void *obj, uint32_t count)
{
	struct pace_meet *m;

	if (!pace)
		return;
	emu_lock(&pace->meet_lock);
	m = meet_of((uintptr_t)obj, count > 0);
	if (m) {
		__atomic_store_n(&m->obj, 0, __ATOMIC_RELEASE);
		if (count) {
			m->count = count;
			m->arrivals = 0;
			emu_zero(m->rounds, sizeof(m->rounds));
			__atomic_store_n(&m->obj, (uintptr_t)obj, __ATOMIC_RELEASE);
		}
	}
	emu_unlock(&pace->meet_lock);
}

uint32_t pace__arrive(const void *obj, int idx, uint32_t win)
{
	struct pace_meet *m = pace ? meet_of((uintptr_t)obj, false) : NULL;
	struct pace_round *r;
	uint32_t round;

	if (!m || !m->count)
		return 0;
	round = __atomic_fetch_add(&m->arrivals, 1, __ATOMIC_ACQ_REL) / m->count;
	emu_lock(&pace->meet_lock);
	r = &m->rounds[round & 1];
	if (r->round != round || !r->cores) {
		r->round = round;
		r->latest = win;
		r->cores = 0;
	}
	if ((int32_t)(win - r->latest) > 0)
		r->latest = win;
	r->cores |= 1ull << idx;
	emu_unlock(&pace->meet_lock);
	return round + 1;
}

/* The first thread back puts every thread of the round in step at the
 * latest window, whether it runs yet or not: a thread the machine is slow
 * to run again is waited for, not left behind while the others run windows
 * alone. */
uint32_t pace__depart(const void *obj, int idx, uint32_t round, uint32_t win)
{
	struct pace_meet *m = pace ? meet_of((uintptr_t)obj, false) : NULL;
	struct pace_round *r;

	if (!m)
		return win;
	emu_lock(&pace->meet_lock);
	r = &m->rounds[round & 1];
	if (r->round == round) {
		if ((int32_t)(r->latest - win) > 0)
			win = r->latest;
		for (int i = 0; i < PD_EMU_CORES; i++) {
			struct pace_slot *s = &pace->slots[i];
			uint32_t st;

			/* (itself too: a new thread, not yet in step, would
			 * otherwise join where the slowest thread in step is) */
			if (!(r->cores & (1ull << i)) && i != idx)
				continue;
			st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
			if (st == SLOT_WAITING ||
			    (st == SLOT_DROPPED && __atomic_load_n(&s->drops, __ATOMIC_RELAXED) < PACE_DROPS)) {
				__atomic_store_n(&s->win, win, __ATOMIC_RELEASE);
				__atomic_compare_exchange_n(&s->state, &st, SLOT_ON, false, __ATOMIC_ACQ_REL,
							    __ATOMIC_RELAXED);
			}
		}
		r->cores = 0;
	}
	emu_unlock(&pace->meet_lock);
	return win;
}
