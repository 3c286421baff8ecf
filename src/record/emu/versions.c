// SPDX-License-Identifier: GPL-2.0
/*
 * record --emulate without libtsan: the C library functions a GCC
 * -fsanitize=thread build imports without a symbol version, that glibc
 * defines in an older version apart from its current one. The build was
 * linked against libtsan, whose interceptors (unversioned) were found
 * first, so the executable asks for no version; without libtsan glibc's
 * dynamic linker binds such an import to the oldest version (index 2:
 * GLIBC_2.2.5 on x86-64), as for a program from before symbol versions:
 * pthread_cond_init's from before 2.3.2, which takes the condition
 * variable for a pointer to one it allocates, and pthread_cond_destroy
 * then frees what the current pthread_cond_wait wrote there (pigz crashed
 * so). Each function here is the program's and calls the next definition
 * dlsym finds, the current version (or libtsan's interceptor, where
 * libtsan is loaded). The condition variables' wait, signal and
 * broadcast, and realpath, are locks.c's and heap.c's. record looks for
 * any other such import before it leaves libtsan out (emulink.c). Part of
 * libc2cscan-emu.so.
 */
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include "record/emu/emu.h"

/* name, defined to call its next definition (ENOSYS-like failure ret_fail
 * without one). */
#define FORWARD(ret_t, name, ret_fail, params, ...)                        \
	typedef ret_t(*name##_fn) params;                                  \
	EXPORT ret_t name params                                           \
	{                                                                  \
		static name##_fn next;                                     \
		if (!next)                                                 \
			next = (name##_fn)emu_next(#name, (void *)name);   \
		if (!next)                                                 \
			return ret_fail;                                   \
		return next(__VA_ARGS__);                                  \
	}

FORWARD(int, pthread_cond_init, ENOSYS, (pthread_cond_t *restrict c, const pthread_condattr_t *restrict a), c, a)
FORWARD(int, pthread_cond_destroy, ENOSYS, (pthread_cond_t *c), c)
FORWARD(int, pthread_kill, ENOSYS, (pthread_t t, int sig), t, sig)
FORWARD(int, posix_spawn, ENOSYS,
	(pid_t *restrict pid, const char *restrict path, const posix_spawn_file_actions_t *fa,
	 const posix_spawnattr_t *restrict attr, char *const argv[restrict], char *const envp[restrict]),
	pid, path, fa, attr, argv, envp)
FORWARD(int, posix_spawnp, ENOSYS,
	(pid_t *restrict pid, const char *restrict file, const posix_spawn_file_actions_t *fa,
	 const posix_spawnattr_t *restrict attr, char *const argv[restrict], char *const envp[restrict]),
	pid, file, fa, attr, argv, envp)
FORWARD(FILE *, fmemopen, NULL, (void *buf, size_t size, const char *mode), buf, size, mode)
FORWARD(int, glob, GLOB_NOSPACE,
	(const char *restrict pattern, int flags, int (*err)(const char *, int), glob_t *restrict g), pattern,
	flags, err, g)
FORWARD(int, glob64, GLOB_NOSPACE,
	(const char *restrict pattern, int flags, int (*err)(const char *, int), glob64_t *restrict g), pattern,
	flags, err, g)
/* (regex.h declares the matches an array of n: a pointer here) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wvla-parameter"
FORWARD(int, regexec, REG_ESPACE,
	(const regex_t *restrict re, const char *restrict s, size_t n, regmatch_t *restrict m, int flags), re, s, n,
	m, flags)
#pragma GCC diagnostic pop
FORWARD(double, lgamma, NAN, (double x), x)
FORWARD(float, lgammaf, NAN, (float x), x)
FORWARD(long double, lgammal, NAN, (long double x), x)
