/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record --emulate: whether a GCC -fsanitize=thread build runs as it
 * should with the runtime preloaded and record's stand-in in the place of
 * libtsan (src/record/standin/), asked of glibc's dynamic linker and of
 * the objects it would load. Never prints.
 */
#ifndef C2CSCAN_RECORD_EMULINK_H
#define C2CSCAN_RECORD_EMULINK_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the executable at path names libtsan.so.N in DT_NEEDED (1, N in
 * *abi) and its dynamic linker (PT_INTERP, into interp); 0 for anything
 * else (a Clang build: its runtime is in the executable; a script), a
 * negative errno when it cannot be read. */
int emu_link__libtsan(const char *path, unsigned *abi, char *interp, size_t isize);

/* Whether exe, with LD_PRELOAD set to pre (the runtime at runtime first,
 * the stand-in after it), binds every symbol it and its libraries use as
 * it would with libtsan: (1) glibc's dynamic linker, run on it in trace
 * mode (it lists, never runs the program) with every symbol bound, finds
 * each; (2) no name that an object linked against libtsan imports without
 * a version (libtsan's interceptors were found first when it was linked)
 * has, in the library that defines it, an older version apart from its
 * current one, which an unversioned reference would get (glibc's
 * condition variables before 2.3.2), unless the runtime defines the name
 * itself (it passes the call to the current version). Otherwise why says
 * what keeps libtsan. */
bool emu_link__without_libtsan(const char *interp, const char *exe, const char *pre, const char *runtime, char *why,
			       size_t wsize);

#endif
