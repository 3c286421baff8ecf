// SPDX-License-Identifier: GPL-2.0
/*
 * record --emulate: locks as the hardware sees them. The C library's lock
 * functions are not instrumented (and libtsan intercepts them): without
 * this file four threads hammering one mutex show nothing on the mutex,
 * where a memory PMU shows the lock word's line as the hottest. Each
 * function here is the program's (ahead of libtsan's interceptor in a GCC
 * build; in a Clang build the executable's interceptor calls it as the
 * "real" function it found next), models the locked read-modify-writes
 * and loads the C library's implementation does on the lock object's
 * first bytes, and calls the next definition. Part of libc2cscan-emu.so.
 *
 * What is modelled (glibc's implementations, their lock word first):
 *   mutex, rwlock, spinlock, C11 mtx: taking it is one locked
 *     read-modify-write of the lock word (the compare-and-swap); when it
 *     is held (a try first says so), the waiter's failed read-modify-write,
 *     the load that finds it free after the wait (a spinning waiter's last
 *     load, a sleeping one's re-check after the wake), and the one that
 *     takes it: contention costs three accesses, however long the wait;
 *   unlocking: a read-modify-write (the spinlock's: a store);
 *   condition variables: a read-modify-write of the sequence word for
 *     each wait, signal and broadcast, and the mutex released and taken
 *     again around a wait as above;
 *   barriers: the arrival's read-modify-write and the load that sees the
 *     round end; semaphores: a read-modify-write per wait and post.
 * Each access is the call instruction's (its return address), named by
 * the lock object's address as any other access.
 */
#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <threads.h>
#include <time.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>
#include "record/emu/emu.h"

#define RA ((uint64_t)(uintptr_t)__builtin_return_address(0))

/* The next definition of name (libtsan's interceptor, the C library's),
 * found once: a race finds the same. */
#define NEXT_FN(T, name)                                                   \
	({                                                                 \
		static T next_;                                            \
		if (!next_)                                                \
			next_ = (T)emu_next(#name, (void *)name);          \
		next_;                                                     \
	})

typedef int (*lock_fn)(void *);
typedef int (*timed_fn)(void *, const void *);

/* Calls the next definition of name with the arguments, ENOSYS without one. */
#define CALL(T, name, ...)                                                 \
	({                                                                 \
		T f_ = NEXT_FN(T, name);                                   \
		f_ ? f_(__VA_ARGS__) : ENOSYS;                             \
	})

/* Taking a lock: try first; held, the waiter's accesses around the wait. */
static int take(void *lock, uint64_t ret, lock_fn try, timed_fn wait, const void *arg)
{
	int r = try(lock);

	emu_access(lock, sizeof(int), EMU_RMW, ret);
	if (r != EBUSY)
		return r;       /* taken, or an error the wait would give too (a robust mutex's owner died) */
	emu_lock_wait(lock, true);
	emu_away();
	r = wait(lock, arg);
	emu_back();
	emu_lock_wait(lock, false);
	/* the load that finds it free, the read-modify-write that takes it */
	emu_access(lock, sizeof(int), EMU_LOAD, ret);
	emu_access(lock, sizeof(int), EMU_RMW, ret);
	return r;
}

/* ---- mutexes (and C11's: glibc's call its mutex functions internally) ---- */
static int mutex_try(void *m)
{
	return CALL(lock_fn, pthread_mutex_trylock, m);
}

static int mutex_wait(void *m, const void *arg)
{
	return CALL(lock_fn, pthread_mutex_lock, m);
}

static int mutex_timed(void *m, const void *t)
{
	return CALL(timed_fn, pthread_mutex_timedlock, m, t);
}

static int mutex_unlock(void *m)
{
	return CALL(lock_fn, pthread_mutex_unlock, m);
}

EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	return take(m, RA, mutex_try, mutex_wait, NULL);
}

EXPORT int pthread_mutex_timedlock(pthread_mutex_t *restrict m, const struct timespec *restrict t)
{
	return take(m, RA, mutex_try, mutex_timed, t);
}

EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	emu_access(m, sizeof(int), EMU_RMW, RA);
	return mutex_try(m);
}

EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	emu_access(m, sizeof(int), EMU_RMW, RA);
	return mutex_unlock(m);
}

EXPORT int mtx_lock(mtx_t *m)
{
	return take(m, RA, mutex_try, mutex_wait, NULL) ? thrd_error : thrd_success;
}

EXPORT int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict t)
{
	int r = take(m, RA, mutex_try, mutex_timed, t);

	return !r ? thrd_success : r == ETIMEDOUT ? thrd_timedout : thrd_error;
}

EXPORT int mtx_trylock(mtx_t *m)
{
	int r;

	emu_access(m, sizeof(int), EMU_RMW, RA);
	r = mutex_try(m);
	return !r ? thrd_success : r == EBUSY ? thrd_busy : thrd_error;
}

EXPORT int mtx_unlock(mtx_t *m)
{
	emu_access(m, sizeof(int), EMU_RMW, RA);
	return mutex_unlock(m) ? thrd_error : thrd_success;
}

/* ---- reader-writer locks ---- */
#define RWLOCK(kind)                                                                               \
	static int rw_try##kind(void *l)                                                           \
	{                                                                                          \
		return CALL(lock_fn, pthread_rwlock_try##kind##lock, l);                           \
	}                                                                                          \
	static int rw_wait##kind(void *l, const void *arg)                                         \
	{                                                                                          \
		return CALL(lock_fn, pthread_rwlock_##kind##lock, l);                              \
	}                                                                                          \
	static int rw_timed##kind(void *l, const void *t)                                          \
	{                                                                                          \
		return CALL(timed_fn, pthread_rwlock_timed##kind##lock, l, t);                     \
	}                                                                                          \
	EXPORT int pthread_rwlock_##kind##lock(pthread_rwlock_t *l)                                \
	{                                                                                          \
		return take(l, RA, rw_try##kind, rw_wait##kind, NULL);                             \
	}                                                                                          \
	EXPORT int pthread_rwlock_try##kind##lock(pthread_rwlock_t *l)                             \
	{                                                                                          \
		emu_access(l, sizeof(int), EMU_RMW, RA);                                           \
		return rw_try##kind(l);                                                            \
	}                                                                                          \
	EXPORT int pthread_rwlock_timed##kind##lock(pthread_rwlock_t *restrict l,                  \
						    const struct timespec *restrict t)             \
	{                                                                                          \
		return take(l, RA, rw_try##kind, rw_timed##kind, t);                               \
	}
RWLOCK(rd)
RWLOCK(wr)

EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	emu_access(l, sizeof(int), EMU_RMW, RA);
	return CALL(lock_fn, pthread_rwlock_unlock, l);
}

/* ---- spinlocks: unlocking is a store ---- */
static int spin_try(void *l)
{
	return CALL(lock_fn, pthread_spin_trylock, l);
}

static int spin_wait(void *l, const void *arg)
{
	return CALL(lock_fn, pthread_spin_lock, l);
}

EXPORT int pthread_spin_lock(pthread_spinlock_t *l)
{
	return take((void *)l, RA, spin_try, spin_wait, NULL);
}

EXPORT int pthread_spin_trylock(pthread_spinlock_t *l)
{
	emu_access((void *)l, sizeof(int), EMU_RMW, RA);
	return spin_try((void *)l);
}

EXPORT int pthread_spin_unlock(pthread_spinlock_t *l)
{
	emu_access((void *)l, sizeof(int), EMU_STORE, RA);
	return CALL(lock_fn, pthread_spin_unlock, (void *)l);
}

/* ---- condition variables: the mutex released and taken around a wait ---- */
typedef int (*wait_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*timedwait_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
typedef int (*cond_fn)(pthread_cond_t *);

static void cond_waits(pthread_cond_t *c, pthread_mutex_t *m, uint64_t ret)
{
	emu_access(c, sizeof(uint64_t), EMU_RMW, ret);
	emu_access(m, sizeof(int), EMU_RMW, ret);
}

EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	int r;

	cond_waits(c, m, RA);
	emu_away();
	r = CALL(wait_fn, pthread_cond_wait, c, m);
	emu_back();
	cond_waits(c, m, RA);
	return r;
}

EXPORT int pthread_cond_timedwait(pthread_cond_t *restrict c, pthread_mutex_t *restrict m,
				  const struct timespec *restrict t)
{
	int r;

	cond_waits(c, m, RA);
	emu_away();
	r = CALL(timedwait_fn, pthread_cond_timedwait, c, m, t);
	emu_back();
	cond_waits(c, m, RA);
	return r;
}

/* A function that is one read-modify-write of the object's first word,
 * then the call: CALLER is CALL or SEM_CALL. */
#define RMW_THEN(CALLER, T, name, obj_t)                                   \
	EXPORT int name(obj_t *o)                                          \
	{                                                                  \
		emu_access(o, sizeof(uint64_t), EMU_RMW, RA);              \
		return CALLER(T, name, o);                                 \
	}
RMW_THEN(CALL, cond_fn, pthread_cond_signal, pthread_cond_t)
RMW_THEN(CALL, cond_fn, pthread_cond_broadcast, pthread_cond_t)

/* ---- barriers and semaphores (these fail with -1 and errno) ---- */
typedef int (*barrier_fn)(pthread_barrier_t *);

/* A read-modify-write of obj's first size bytes, then the call (CALL or
 * SEM_CALL) as a wait: away from the lockstep while in it. */
#define RMW_WAIT(CALLER, T, name, obj, size, ...)                          \
	({                                                                 \
		int r_;                                                    \
		emu_access(obj, size, EMU_RMW, RA);                        \
		emu_away();                                                \
		r_ = CALLER(T, name, __VA_ARGS__);                         \
		emu_back();                                                \
		r_;                                                        \
	})

typedef int (*barrier_init_fn)(pthread_barrier_t *, const pthread_barrierattr_t *, unsigned int);

/* (the lockstep learns the barrier's count: its threads resume together) */
EXPORT int pthread_barrier_init(pthread_barrier_t *restrict b, const pthread_barrierattr_t *restrict a,
				unsigned int count)
{
	int r = CALL(barrier_init_fn, pthread_barrier_init, b, a, count);

	if (!r)
		emu_meet(b, count);
	return r;
}

EXPORT int pthread_barrier_destroy(pthread_barrier_t *b)
{
	emu_meet(b, 0);
	return CALL(barrier_fn, pthread_barrier_destroy, b);
}

EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
	uint32_t token;
	int r;

	emu_access(b, sizeof(int), EMU_RMW, RA);
	token = emu_arrive(b);
	r = CALL(barrier_fn, pthread_barrier_wait, b);
	emu_depart(b, token);
	emu_access(b, sizeof(int), EMU_LOAD, RA);
	return r;
}

typedef int (*sem_fn)(sem_t *);
typedef int (*sem_timed_fn)(sem_t *, const struct timespec *);

#define SEM_CALL(T, name, ...)                                             \
	({                                                                 \
		T f_ = NEXT_FN(T, name);                                   \
		f_ ? f_(__VA_ARGS__) : (errno = ENOSYS, -1);               \
	})

EXPORT int sem_wait(sem_t *s)
{
	return RMW_WAIT(SEM_CALL, sem_fn, sem_wait, s, sizeof(uint64_t), s);
}

RMW_THEN(SEM_CALL, sem_fn, sem_trywait, sem_t)
RMW_THEN(SEM_CALL, sem_fn, sem_post, sem_t)

EXPORT int sem_timedwait(sem_t *restrict s, const struct timespec *restrict t)
{
	return RMW_WAIT(SEM_CALL, sem_timed_fn, sem_timedwait, s, sizeof(uint64_t), s, t);
}

/* ---- waits that touch no lock: the thread is away from the lockstep
 * (pace.c) while in them ---- */
#define AWAY(ret_t, name, params, ...)                                     \
	typedef ret_t (*name##_next_t)params;                              \
	EXPORT ret_t name params                                           \
	{                                                                  \
		name##_next_t f_ = NEXT_FN(name##_next_t, name);           \
		ret_t ret_;                                                \
		if (!f_) {                                                 \
			errno = ENOSYS;                                    \
			return (ret_t)-1;                                  \
		}                                                          \
		emu_away();                                                \
		ret_ = f_(__VA_ARGS__);                                    \
		emu_back();                                                \
		return ret_;                                               \
	}
AWAY(int, pthread_join, (pthread_t t, void **ret), t, ret)
/* The threads in step wait at the creator's window until it is back
 * (pace__coming): the new thread starts in step there; the creator is
 * away meanwhile (libtsan's pthread_create waits for the new thread to
 * start). */
typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

EXPORT int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
	create_fn f = NEXT_FN(create_fn, pthread_create);
	bool said;
	int r;

	if (!f)
		return ENOSYS;
	said = emu_creating();
	emu_away();
	r = f(t, a, fn, arg);
	emu_back();
	if (said)
		emu_created(!r);
	return r;
}
AWAY(int, nanosleep, (const struct timespec *req, struct timespec *rem), req, rem)
AWAY(int, clock_nanosleep, (clockid_t clk, int flags, const struct timespec *req, struct timespec *rem), clk, flags,
     req, rem)
AWAY(int, usleep, (useconds_t us), us)
AWAY(unsigned int, sleep, (unsigned int s), s)
AWAY(int, poll, (struct pollfd *fds, nfds_t n, int timeout), fds, n, timeout)
AWAY(int, select, (int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *t), n, r, w, e, t)
AWAY(int, epoll_wait, (int fd, struct epoll_event *ev, int max, int timeout), fd, ev, max, timeout)
AWAY(pid_t, waitpid, (pid_t p, int *status, int options), p, status, options)
AWAY(pid_t, wait, (int *status), status)
AWAY(int, pause, (void))
AWAY(int, sigwait, (const sigset_t *set, int *sig), set, sig)
AWAY(int, sigtimedwait, (const sigset_t *set, siginfo_t *info, const struct timespec *t), set, info, t)
/* (libtsan's fork takes its own locks around the fork) */
AWAY(pid_t, fork, (void))
/* vfork, as libtsan has it, is a fork: a vforked child shares the
 * parent's memory and thread state, and the runtime's hooks in what it
 * runs before its exec would write the parent's (the lockstep's slot among
 * them) */
EXPORT pid_t vfork(void)
{
	return fork();
}
/* an exec'd image is another process for the lockstep: the thread's slot
 * stays away (back only when the exec failed) */
AWAY(int, execve, (const char *path, char *const argv[], char *const envp[]), path, argv, envp)
AWAY(int, execv, (const char *path, char *const argv[]), path, argv)
AWAY(int, execvp, (const char *file, char *const argv[]), file, argv)

/* The list forms, whose C library versions call the system call directly:
 * their arguments into an array for the vector forms above (execle's
 * environment follows the list's NULL). */
enum exec_how { EXEC_V, EXEC_VP, EXEC_VE };

static int exec_list(enum exec_how how, const char *target, const char *arg, va_list ap)
{
	va_list count;
	size_t n = 1;
	char **argv, *const *env = NULL;

	va_copy(count, ap);
	for (const char *a = arg; a; a = va_arg(count, const char *))
		n++;
	va_end(count);
	argv = __builtin_alloca(n * sizeof(*argv));
	argv[0] = (char *)arg;
	for (size_t i = 1; i < n; i++)
		argv[i] = va_arg(ap, char *);
	if (how == EXEC_VE)
		env = va_arg(ap, char *const *);
	return how == EXEC_V ? execv(target, argv) : how == EXEC_VP ? execvp(target, argv) : execve(target, argv, env);
}

#define EXEC_LIST(name, how)                                               \
	EXPORT int name(const char *target, const char *arg, ...)          \
	{                                                                  \
		va_list ap;                                                \
		int r;                                                     \
		va_start(ap, arg);                                         \
		r = exec_list(how, target, arg, ap);                       \
		va_end(ap);                                                \
		return r;                                                  \
	}
EXEC_LIST(execl, EXEC_V)
EXEC_LIST(execlp, EXEC_VP)
EXEC_LIST(execle, EXEC_VE)
