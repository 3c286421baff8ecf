// SPDX-License-Identifier: GPL-2.0
/*
 * record --emulate without libtsan: the program's signal handlers run
 * outside the runtime. libtsan held an asynchronous signal back to its
 * thread's next interceptor; without it the kernel delivers one at any
 * instruction, inside a hook too, and a handler that then accesses memory
 * (its hooks find the thread busy and are not modelled) or leaves by
 * siglongjmp (the hook's state half-written, its lock held: a crash, or
 * every other thread waiting for ever) would harm the program. So each
 * handler the program installs with sigaction, signal, bsd_signal or
 * sysv_signal is installed as relay(), which calls it at once unless the
 * thread is in the runtime (emu_busy_now: a hook's modelling, a wait's
 * bookkeeping); then the signal is queued again to the thread with its own
 * siginfo (rt_tgsigqueueinfo) and blocked in the interrupted context, and
 * the runtime unblocks it when it leaves (emu_signals__release): the
 * kernel then delivers it, with what it carried, where the program is.
 * A synchronous signal (a fault's SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP)
 * cannot wait and is the handler's at once. Programs keep seeing their own
 * actions (the old action sigaction returns is theirs). Where libtsan is
 * loaded, or without the model, every call passes to the next definition.
 * Part of libc2cscan-emu.so.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include "record/emu/emu.h"

#define SIGS 64                         /* the kernel's signals, 1 to 64 */

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

static sigaction_fn next_sigaction;
static struct sigaction user[SIGS + 1]; /* the program's actions, as it gave them */
static uint64_t known;                  /* bit sig - 1: user[sig] holds it */
static uint32_t lock;
static int wrap = -1;                   /* -1: not asked yet */

static bool wrapping(void)
{
	if (wrap < 0 && emu_running())
		wrap = emu_libtsan_left_out();
	return wrap > 0;
}

static bool synchronous(int sig, const siginfo_t *info)
{
	return (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGTRAP) && info &&
	       info->si_code > 0;
}

static void relay(int sig, siginfo_t *info, void *uctx)
{
	struct sigaction u;
	int err = errno;

	if (emu_busy_now() && !synchronous(sig, info)) {
		sigset_t one;

		/* (SA_NODEFER: held here too, or the queued one would come
		 * back at once) */
		sigemptyset(&one);
		sigaddset(&one, sig);
		syscall(SYS_rt_sigprocmask, SIG_BLOCK, &one, NULL, sizeof(uint64_t));
		sigaddset(&((ucontext_t *)uctx)->uc_sigmask, sig);
		emu_defer(sig);
		syscall(SYS_rt_tgsigqueueinfo, (int)getpid(), (int)syscall(SYS_gettid), sig, info);
		errno = err;
		return;
	}
	u = user[sig];
	if (u.sa_flags & SA_RESETHAND) {
		/* (the kernel's reset of a one-shot action, which relay is
		 * installed without) */
		struct sigaction dfl;

		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		user[sig] = dfl;
		next_sigaction(sig, &dfl, NULL);
	}
	errno = err;
	if (u.sa_flags & SA_SIGINFO)
		u.sa_sigaction(sig, info, uctx);
	else if (u.sa_handler != SIG_DFL && u.sa_handler != SIG_IGN)
		u.sa_handler(sig);
}

void emu_signals__release(uint64_t sigs)
{
	sigset_t set;

	sigemptyset(&set);
	for (int sig = 1; sig <= SIGS; sig++)
		if (sigs & 1ull << (sig - 1))
			sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction prev, w;
	sigset_t was;
	int r = 0;

	if (!next_sigaction)
		next_sigaction = (sigaction_fn)emu_next("sigaction", (void *)sigaction);
	if (!next_sigaction) {
		errno = ENOSYS;
		return -1;
	}
	if (sig < 1 || sig > SIGS || sig == SIGKILL || sig == SIGSTOP || !wrapping())
		return next_sigaction(sig, act, old);
	emu_lock_quiet(&lock, &was);
	if (known & 1ull << (sig - 1))
		prev = user[sig];
	else
		r = next_sigaction(sig, NULL, &prev);
	if (!r && act) {
		w = *act;
		if (act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN) {
			w.sa_sigaction = relay;
			w.sa_flags = (act->sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
		}
		user[sig] = *act;
		r = next_sigaction(sig, &w, NULL);
		if (!r)
			known |= 1ull << (sig - 1);
		else
			user[sig] = prev;
	}
	emu_unlock_quiet(&lock, &was);
	if (!r && old)
		*old = prev;
	return r;
}

/* signal() and its BSD and System V forms: sigaction with their flags
 * (wrapped); else the next definition's */
typedef sighandler_t (*signal_fn)(int, sighandler_t);

static sighandler_t set_handler(int sig, sighandler_t h, int flags, const char *name, void *own)
{
	struct sigaction a, o;

	if (!wrapping()) {
		signal_fn next = (signal_fn)emu_next(name, own);

		if (!next) {
			errno = ENOSYS;
			return SIG_ERR;
		}
		return next(sig, h);
	}
	memset(&a, 0, sizeof(a));
	a.sa_handler = h;
	a.sa_flags = flags;
	sigemptyset(&a.sa_mask);
	return sigaction(sig, &a, &o) ? SIG_ERR : o.sa_handler;
}

EXPORT sighandler_t signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESTART, "signal", (void *)signal);
}

EXPORT sighandler_t bsd_signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESTART, "bsd_signal", (void *)bsd_signal);
}

EXPORT sighandler_t sysv_signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESETHAND | SA_NODEFER, "sysv_signal", (void *)sysv_signal);
}
