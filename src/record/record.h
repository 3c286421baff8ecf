/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recording: open the events on the targets, synthesize what ran before
 * (synth.h), drain the ring buffers into a perf.data file (perfdata/writer.h)
 * until the command ends, the processes are gone, the duration passes or a
 * signal comes, then write the features and the build-ids.
 *
 * The command line is parsed in src/cli/cmd_record.c; this stage gets the
 * options as values.
 */
#ifndef C2CSCAN_RECORD_H
#define C2CSCAN_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "record/synth.h"

#define RECORD_MAX_EVENTS 16
#define RECORD_STACK_DEFAULT 8192       /* --call-graph dwarf's user stack copy, as perf's */
#define RECORD_STACK_MAX 65528          /* the largest the kernel takes (a u16, 8-aligned) */

enum call_graph { CALL_GRAPH_NONE, CALL_GRAPH_FP, CALL_GRAPH_DWARF };

struct record_opts {
	const char *out;                /* output file (an old one becomes FILE.old) */
	char *events[RECORD_MAX_EVENTS]; /* -e, one event each; owned (record_opts__exit) */
	int nr_events;
	unsigned long period, freq, pages;
	unsigned int ldlat;
	bool ldlat_set, pages_set, user, kernel, system_wide, quiet;
	bool alloc;                     /* --alloc: allocation events (record/alloc.h) */
	bool emulate;                   /* --emulate: the coherence model's samples (record/emurec.h) */
	uint32_t emulate_line;          /* --emulate=line=N: the model's line size, 0 for 64 */
	uint32_t emulate_hitm;          /* --emulate=hitm=N: its HITM sampling period, 0 for the default */
	bool no_buildid_cache;          /* -N: no copies in ~/.debug (record/buildcache.h) */
	char *alloc_fns[8], *free_fns[8]; /* --alloc-fn, --free-fn; owned */
	int nr_alloc_fns, nr_free_fns;
	enum call_graph call_graph;     /* -g, --call-graph */
	unsigned int stack_size;        /* CALL_GRAPH_DWARF: bytes of user stack per sample */
	int verbose;
	pid_t *pids, *tids;             /* -p, -t; owned (record_opts__exit) */
	int nr_pids, nr_tids;
	const char *cpus;               /* -C list, checked against this machine's CPUs */
	double duration;
	enum synth_method synth;
};

/* Adds the events of "a,b,cpu/x,y/P": commas inside PMU/.../ belong to the
 * event. -E2BIG past RECORD_MAX_EVENTS. */
int record_opts__add_events(struct record_opts *o, const char *list);
void record_opts__exit(struct record_opts *o);

/* Records what o says. cmd: the command to launch and its arguments
 * (NULL-terminated) or NULL; argv: the whole command line (the file's
 * CMDLINE feature). Prints its one-line errors, warnings and summary to
 * stderr; returns the process exit status. */
/* The user registers --call-graph dwarf samples (perf's numbers for this
 * machine's arch; 0 where it is not supported). */
uint64_t record__unwind_regs(void);
int record__run(const struct record_opts *o, char *const *cmd, int argc, char **argv);

#endif
