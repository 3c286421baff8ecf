/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For record -p tests: the program prints its pid and waits until SIGUSR1
 * comes (record's command sends it once the events and probes are on), or
 * 10 seconds pass. await_block() first, before any thread is created, so
 * that every thread blocks the signal and none dies of it.
 */
#ifndef PROGS_AWAIT_H
#define PROGS_AWAIT_H

#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static sigset_t await_set;

static void await_block(void)
{
	sigemptyset(&await_set);
	sigaddset(&await_set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &await_set, NULL);
}

static void await_go(void)
{
	struct timespec limit = { 10, 0 };

	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	sigtimedwait(&await_set, NULL, &limit);
}

#endif
