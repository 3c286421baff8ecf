// SPDX-License-Identifier: GPL-2.0
/*
 * Threads' lives under record --emulate, whose runtime stands between the
 * program and libtsan for thread creation, joins, waits and signals
 * (src/record/emu/locks.c): a signal to a thread blocked in pause() runs
 * its handler there (installed with sigaction, and another with
 * signal()); a thread waiting on a condition variable with a time-out
 * ends; a detached thread, one joined with pthread_tryjoin_np, one with
 * pthread_timedjoin_np and one that ends by pthread_exit all end as the C
 * library says (a libtsan interceptor run in a thread libtsan did not
 * start crashed in the unwinding of pthread_exit). Two threads update
 * neighbouring counters. Prints what each thread returned; exits 0.
 * tests/cli/emulate.sh runs it under --emulate with a time-out: a handler
 * that never runs hangs it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got_usr1, got_usr2;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static volatile int detached_done;
static long counters[2];

static void on_usr1(int sig, siginfo_t *info, void *ctx)
{
	(void)info;
	(void)ctx;
	got_usr1 = sig;
}

static void on_usr2(int sig)
{
	got_usr2 = sig;
}

static void *pauser(void *arg)
{
	(void)arg;
	while (!got_usr1 || !got_usr2)
		pause();
	return (void *)1;
}

static void *timed_waiter(void *arg)
{
	struct timespec ts;
	int r = 0;

	(void)arg;
	pthread_mutex_lock(&m);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 50 * 1000 * 1000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	while (r != ETIMEDOUT)
		r = pthread_cond_timedwait(&cv, &m, &ts);
	pthread_mutex_unlock(&m);
	return (void *)2;
}

static void *counter(void *arg)
{
	long i = (long)arg;

	for (int k = 0; k < 200000; k++)
		__atomic_add_fetch(&counters[i], 1, __ATOMIC_RELAXED);
	return (void *)3;
}

static void *detached(void *arg)
{
	(void)arg;
	__atomic_store_n(&detached_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *exiter(void *arg)
{
	(void)arg;
	pthread_exit((void *)4);
}

int main(void)
{
	struct sigaction sa;
	pthread_t p, w, c[2], d, e, t;
	void *rp, *rw, *rc[2], *re, *rt;
	struct timespec ts;
	int r;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) || signal(SIGUSR2, on_usr2) == SIG_ERR)
		return 1;
	if (pthread_create(&p, NULL, pauser, NULL) || pthread_create(&w, NULL, timed_waiter, NULL) ||
	    pthread_create(&c[0], NULL, counter, (void *)0) || pthread_create(&c[1], NULL, counter, (void *)1) ||
	    pthread_create(&d, NULL, detached, NULL) || pthread_detach(d) || pthread_create(&e, NULL, exiter, NULL) ||
	    pthread_create(&t, NULL, exiter, NULL))
		return 1;
	usleep(100 * 1000);
	pthread_kill(p, SIGUSR1);
	usleep(10 * 1000);
	pthread_kill(p, SIGUSR2);
	pthread_join(p, &rp);
	pthread_join(w, &rw);
	pthread_join(c[0], &rc[0]);
	pthread_join(c[1], &rc[1]);
	while ((r = pthread_tryjoin_np(e, &re)) == EBUSY)
		usleep(1000);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	r |= pthread_timedjoin_np(t, &rt, &ts);
	while (!__atomic_load_n(&detached_done, __ATOMIC_ACQUIRE))
		usleep(1000);
	printf("pauser %ld (signals %d %d) waiter %ld counters %ld %ld (%ld %ld) exits %ld %ld joins %d\n", (long)rp,
	       (int)got_usr1, (int)got_usr2, (long)rw, (long)rc[0], (long)rc[1], counters[0], counters[1], (long)re,
	       (long)rt, r);
	return 0;
}
