/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record --alloc through uprobes, where no shim can be preloaded (-p, -t,
 * -a, -C) and for the user's own allocators (--alloc-fn, --free-fn): an
 * entry probe on each allocator (its arguments: the size, the old pointer)
 * and a return probe (the pointer returned; the sample's ip is the call
 * site). Each probe is a perf event named "c2cscan_alloc:FN:ROLE:ARGS"
 * (ROLE entry, ret or free; ARGS "size=a0", "size=a0*a1", "old=a0,size=a1",
 * "free=a0"), sampling the argument registers; the report turns the samples
 * back into allocation events (report/report.c). perf script reads them as
 * samples of a uprobe PMU.
 *
 * Never prints; returns 0 or a negative errno with a sentence in why.
 */
#ifndef C2CSCAN_PROBES_H
#define C2CSCAN_PROBES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "perfdata/alloc.h"
#include "record/pmu.h"
#include "record/record.h"

#define PROBES_MAX 40

struct probes {
	struct pmu_event ev[PROBES_MAX];
	int nr;
	char paths[8][4096];    /* the kernel reads config1 as a path pointer at open time */
	int nr_paths;
	int type;               /* the uprobe PMU's, or a negative errno; 0: not looked up yet */
	uint64_t areg, rreg;    /* registers of the arguments and of the return value */
};

/* The C library's allocators as mapped in pid (0: this process, for -a). */
int probes__add_libc(struct probes *p, pid_t pid, struct record_msg *why);
/* The malloc family and free defined in the ELF file at path: all of them
 * (the C library), or those it has, malloc and free at least (an
 * executable with an allocator of its own). */
int probes__add_allocators(struct probes *p, const char *path, bool all, struct record_msg *why);
/* "SYM[:size=N]" (allocator: size in argument N, default 1) or, with
 * free_fn, "SYM" (its first argument is freed), looked up in the ELF files
 * of objs in order (the first that defines it). */
int probes__add_user(struct probes *p, char *const *objs, int nr_objs, const char *spec, bool free_fn,
		     struct record_msg *why);
/* Where the program's functions are: the executable at exe and the
 * libraries it needs (DT_NEEDED, found in its RUNPATH, LD_LIBRARY_PATH and
 * the usual directories), or, for a running pid, every executable file it
 * maps. Appends malloc'ed paths to objs (at most max); returns how many. */
int probes__objects_of_exe(const char *exe, char **objs, int max);
int probes__objects_of_pid(pid_t pid, char **objs, int max);
/* File offset of the function sym in the ELF file at path, or a negative errno. */
int64_t probes__func_offset(const char *path, const char *sym);

#endif
