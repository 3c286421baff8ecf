/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record --emulate: the coherence model's runtime (record/emu/emu.c, the
 * preloaded libc2cscan-emu.so) for a launched command built with
 * -fsanitize=thread, and the samples it wrote turned into samples of the
 * output file, under one attr of their own. Never prints.
 */
#ifndef C2CSCAN_RECORD_EMUREC_H
#define C2CSCAN_RECORD_EMUREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "record/record.h"

struct emu_rec;
struct pd_writer;
struct perf_event_attr;

struct emu_rec_stats {
	uint64_t samples;               /* written */
	uint64_t processes;             /* that wrote a file */
	uint64_t bad;                   /* of an unknown class: skipped */
	uint64_t torn;                  /* chunks whose last sample is cut or claims too many frames */
	uint64_t cores_shared;          /* threads that shared a core: more live threads than cores */
	uint64_t stalls;                /* threads dropped from the lockstep: blocked out of sight */
	uint64_t unmodelled;            /* accesses to lines the model's table had no room for */
	uint64_t evicted;               /* lines evicted from it for room */
	uint64_t cut;                   /* samples whose call chain lost its outermost callers (record -g's depth) */
	char allocator[48];             /* the production allocator the heap was ("libc.so.6"), "" libtsan's */
};


/* Finds the runtime (C2CSCAN_EMU_LIB, else libc2cscan-emu.so beside the
 * running executable or installed) and makes the directory it writes to.
 * 0, or a negative errno with the message in why. */
int emu_rec__new(struct emu_rec **out, struct record_msg *why);
/* Whether the program at exe runs without libtsan: a GCC build (libtsan.so.N
 * in DT_NEEDED) whose symbols the dynamic linker all binds with the runtime
 * and libc2cscan-libtsan.so.N (beside the runtime) preloaded; then the
 * child's LD_PRELOAD carries the stand-in. Otherwise why says what keeps
 * libtsan ("" for a program that does not load it: a Clang build). */
bool emu_rec__choose_libtsan(struct emu_rec *e, const char *exe, char *why, size_t wsize);
/* In the forked child, before exec: the runtime first in LD_PRELOAD,
 * C2CSCAN_EMU_DIR, the sampling periods and line size (0: the runtime's),
 * the exact model or the default one (pace.c) and, with chains, that
 * samples carry their shadow stack's call chain. */
void emu_rec__child_env(const struct emu_rec *e, uint32_t period, uint32_t hitm_period, uint32_t line,
			bool exact, bool chains);
/* The attr of the emulated samples (sample_type of theirs, the clock the
 * runtime stamps with; PERF_SAMPLE_CALLCHAIN with chains; the model and
 * the lockstep's stalls in config1 and config2, perfdata/perf_data.h). */
void emu_rec__attr(struct perf_event_attr *attr, bool chains, bool exact, uint64_t stalls);
/* What the model's head says after the run: threads that shared a core,
 * the lockstep's stalls, the heap's allocator (nothing when it cannot be
 * read: a process mapped a model of its own). */
void emu_rec__head(const struct emu_rec *e, struct emu_rec_stats *st);
/* Every process's samples into w as samples of attr (its id), with perf's
 * data_src encoding of their class. 0, or a negative errno. */
int emu_rec__collect(struct emu_rec *e, struct pd_writer *w, const struct perf_event_attr *attr, uint64_t id,
		     struct emu_rec_stats *st);
/* Whether the executable at path is built with -fsanitize=thread: 1 when
 * its dynamic symbols name ThreadSanitizer's hooks (__tsan_*: GCC's
 * imports from libtsan, Clang's exports of its runtime), 0 when it is an
 * ELF file without them, a negative errno when that cannot be told (not
 * an ELF file: a script; unreadable). */
int emu_rec__is_tsan(const char *path);
/* Removes the directory and its files. */
void emu_rec__delete(struct emu_rec *e);

#endif
