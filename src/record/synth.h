/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Synthesis of the records the kernel would have sent for processes that
 * existed before recording started (COMM, FORK for their threads, MMAP2 for their mappings).
 *
 * Mappings are read with the PROCMAP_QUERY ioctl on /proc/PID/maps (Linux
 * 6.11+) or, where it is missing, by parsing the text of that file; both give
 * the same records (tests/unit/test_synth.c holds them to it).
 *
 * Functions return 0 or a negative errno and never print.
 */
#ifndef C2CSCAN_SYNTH_H
#define C2CSCAN_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

enum synth_method { SYNTH_AUTO, SYNTH_QUERY, SYNTH_TEXT };

/* One mapping as /proc shows it; prot/flags as in MMAP2 (PROT_*, MAP_SHARED
 * or MAP_PRIVATE). name is "//anon" for unnamed anonymous memory, as the
 * kernel's own MMAP2 records say; valid during the callback only. */
struct synth_map {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min, prot, flags;
	const char *name;
};

typedef int (*synth_map_fn)(const struct synth_map *m, void *arg);

/* 0 when PROCMAP_QUERY works on this kernel, else the negative errno of the
 * probe (-ENOTTY: kernel older than 6.11). */
int synth__query_probe(void);
const char *synth__method_name(enum synth_method m);

/* Calls fn for each mapping of pid in address order; stops at fn's first
 * non-zero return and returns it. -ESRCH/-ENOENT: the process is gone. */
int synth__maps(pid_t pid, enum synth_method method, synth_map_fn fn, void *arg);

/* Where synthesized records go; emit gets each complete record. */
struct synth {
	struct perf_event_attr attr;    /* the first event's: sample_id_all trailer layout */
	uint64_t id;                    /* its first id, in the trailer */
	enum synth_method method;       /* resolved: never SYNTH_AUTO after init */
	int (*emit)(void *ctx, const void *rec, size_t size);
	void *ctx;
	uint64_t nr_procs, nr_threads, nr_maps, nr_gone;
	uint8_t *rec;                   /* record buffer */
	char *text;                     /* /proc/PID/maps text */
	size_t text_alloc;
};

int synth__init(struct synth *s, const struct perf_event_attr *attr, uint64_t id,
		enum synth_method method, int (*emit)(void *ctx, const void *rec, size_t size), void *ctx);
void synth__exit(struct synth *s);
/* COMM for each thread, FORK for each thread but the main one, MMAP2 for
 * each mapping. -ESRCH when the process is gone. */
int synth__process(struct synth *s, pid_t pid);
/* Only thread tid of process tgid (its COMM, and the process's maps). */
int synth__thread(struct synth *s, pid_t tgid, pid_t tid);
/* Every process in /proc, read by up to nr_threads threads (records are
 * emitted from the caller's thread, in /proc order); processes that vanish
 * meanwhile are skipped. */
int synth__all(struct synth *s, int nr_threads);
/* The kernel's text mapping as perf writes it (MMAP, pid -1,
 * "[kernel.kallsyms]_text" at _text, pgoff _text), so that perf resolves
 * kernel samples without a warning. 0 and nothing written when kallsyms
 * hides addresses (kptr_restrict). */
int synth__kernel(struct synth *s);
/* Thread group id of tid from /proc/TID/status, or a negative errno. */
int synth__tgid(pid_t tid);

#endif
