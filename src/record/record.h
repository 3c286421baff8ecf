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

/* What record has to say, as it happens: its kind and its facts; the
 * command line words and prints it (cli/cmd_record.c), and decides by the
 * kind what -q and -v show. */
enum record_msg_kind {
	/* errors: the recording did not happen or stopped */
	RM_NO_MEMORY_PMU,       /* err: -EOPNOTSUPP (a PMU c2cscan cannot read), else none */
	RM_EVENT_UNKNOWN,       /* s[0]: the event; err: -ENODEV no such PMU, -ENOENT unknown term, else unknown */
	RM_BAD_CPU_LIST,        /* s[0]: -C's list; n[0]: the last CPU */
	RM_NO_PROCESS,          /* n[0]: -p's pid */
	RM_NO_THREAD,           /* n[0]: -t's tid */
	RM_CANNOT_RUN,          /* s[0]: the command; err */
	RM_SYSCALL,             /* s[0]: "pipe", "fork"; err */
	RM_OUTPUT,              /* s[0]: the output file; err: it cannot be written */
	RM_OPEN,                /* the events could not be opened: n[0] 1 a target is gone rather than
				 * refused; n[1] RECORD_OPEN_*; s[0] the event; err; n[2]
				 * perf_event_paranoid; n[3] pid, n[4] its uid; n[5] ring pages;
				 * n[6] 1 the event follows CPUs only */
	RM_LIB_MISSING,         /* n[0]: RECORD_LIB_*; s[0]: the library, s[1]: its variable; err */
	RM_LIB_TMPDIR,          /* n[0]: RECORD_LIB_*; err: its directory in /tmp cannot be made */
	RM_EMU_MODEL_FILE,      /* s[0]: the model's file; err: it cannot be made */
	RM_ALLOC_PROBES,        /* s[0]: the ELF file whose allocators cannot be probed; err */
	RM_ALLOC_NO_LIBC,       /* n[0]: 1 in the process (-p), 0 in c2cscan's own (-a) */
	RM_ALLOC_FN_SPEC,       /* s[0]: an --alloc-fn that is not SYM or SYM:size=N */
	RM_ALLOC_FN_PROBE,      /* s[0]: the spec (SYM[:...]), s[1]: the first object looked in; n[0]:
				 * 1 --free-fn; n[1]: 1 its libraries too; err (-ENOENT: no such function) */
	RM_TOO_MANY_EVENTS,     /* --alloc's probes and -e's events are more than a recording takes */
	RM_ALLOC_FN_TARGET,     /* --alloc-fn without -p or a command */
	RM_SYNTH,               /* err: synthesizing the maps failed */
	RM_WRITE,               /* s[0]: the file; err; n[0]: 1 its header is not written either */
	/* warnings: the recording is incomplete (said with -q too) */
	RM_LOST,                /* n[0]: samples lost */
	RM_THROTTLED,           /* n[0]: times */
	RM_BUILDCACHE_FAILED,   /* n[0]: objects not kept in ~/.debug */
	RM_ALLOC_NONE,          /* --alloc: the shim wrote nothing */
	RM_ALLOC_DROPPED,       /* n[0]: allocation events dropped past the limit n[1] */
	RM_EMU_BAD,             /* n[0]: samples of an unknown class, n[1]: cut chunks */
	RM_EMU_NONE,            /* --emulate: no process wrote samples */
	RM_EMU_HEAP_TSAN,       /* --emulate: the heap was libtsan's (not the production build's) */
	RM_EMU_CORES_SHARED,    /* --emulate: n[0] threads shared one of the model's n[1] cores */
	RM_EMU_STALLS,          /* --emulate: n[0] times a thread blocked where the model cannot see */
	RM_EMU_UNMODELLED,      /* --emulate: n[0] accesses to lines the model's table had no room for */
	RM_EMU_EVICTED,         /* --emulate: n[0] lines evicted from the table, untouched n[1] windows */
	RM_EMU_CHAINS_CUT,      /* --emulate: n[0] of n[1] samples' chains lost outer callers (n[2] frames at most) */
	RM_EMU_NOT_TSAN,        /* --emulate: s[0], the command, has no ThreadSanitizer hooks, and
				 * no process wrote samples */
	RM_COMMAND_EXIT,        /* n[0]: the command's exit status (not 0) */
	RM_COMMAND_SIGNAL,      /* n[0]: the signal that killed it; n[1]: 1 it dumped core */
	RM_INTERRUPTED,         /* n[0]: the signal that stopped record; n[1]: 1 a launched command was stopped */
	/* what was done (not with -q) */
	RM_CPU_UNCOVERED,       /* n[0]: a CPU no memory event covers */
	RM_USER_ONLY,           /* s[0]: an event kernel sampling was refused to; n[0]: perf_event_paranoid */
	RM_EXE_ALLOCATOR,       /* s[0]: the executable whose own allocator is probed */
	RM_ALLOC_EVENTS,        /* n[0]: allocation events, n[1]: processes; x: bytes each */
	RM_EMU_SAMPLES,         /* n[0]: emulated samples, n[1]: processes */
	RM_EMU_HEAP,            /* --emulate: s[0] the heap's allocator, the production build's ("libc.so.6") */
	RM_EMU_LIBTSAN,         /* --emulate: n[0] 1 libtsan was left out; else s[0] what keeps it */
	RM_SUMMARY,             /* n[0]: samples; names: the events; n[1]: allocator probes; n[2]: 1
				 * emulated; n[3]: bytes of AUX trace; s[0]: the file; x: its size, MB */
	/* what was opened and how (-v) */
	RM_EVENT_OPENED,        /* s[0]: the event; n[]: type, config, config1, precise, sample_type,
				 * 1 by frequency, the period or frequency, fds; n[7] bit 0: tracking */
	RM_BUFFERS,             /* n[0]: ring buffers, n[1]: KiB each */
	RM_SYNTHESIZED,         /* n[0..2]: processes, threads, maps; s[0]: the method; x: ms */
	RM_PROBES,              /* n[0]: uprobes */
	RM_BUILDIDS,            /* n[0]: build-ids written, n[1]: objects mapped, n[2]: 1 more were not noted */
	RM_BUILDCACHE,          /* n[0]: objects copied to ~/.debug, n[1]: there already */
};

/* Why the events could not be opened (RM_OPEN's n[1]). */
enum {
	RECORD_OPEN_ERRNO,              /* perf_event_open refused the event: err */
	RECORD_OPEN_MMAP,               /* a ring buffer of n[5] pages cannot be mapped: err */
	RECORD_OPEN_SET_OUTPUT,         /* the event cannot share a ring buffer: err */
	RECORD_OPEN_OTHER_USER,         /* pid n[3] belongs to uid n[4] */
	RECORD_OPEN_KERNEL,             /* kernel sampling is not permitted (paranoid n[2]) */
	RECORD_OPEN_ALL,                /* every process (-a, -C) is not permitted (paranoid n[2]) */
	RECORD_OPEN_NO_TASK,            /* the process or thread is gone */
	RECORD_OPEN_NO_CPU,             /* no CPU accepted the events */
};

/* The libraries record preloads, as record_msg's n[0] says them. */
enum { RECORD_LIB_ALLOC, RECORD_LIB_EMU };

struct record_msg {
	enum record_msg_kind kind;
	int err;                        /* a negative errno, where one says why */
	const char *s[2];
	uint64_t n[8];
	double x;
	const char *const *names;       /* RM_SUMMARY */
	int nr_names;
};

struct record_opts {
	const char *out;                /* output file (an old one becomes FILE.old) */
	char *events[RECORD_MAX_EVENTS]; /* -e, one event each; owned (record_opts__exit) */
	int nr_events;
	unsigned long period, freq, pages;
	unsigned int ldlat;
	bool ldlat_set, pages_set, user, kernel, system_wide, quiet;
	bool alloc;                     /* --alloc: allocation events (record/allocrec.h) */
	bool emulate;                   /* --emulate: the coherence model's samples (record/emurec.h) */
	uint32_t emulate_line;          /* --emulate=line=N: the model's line size, 0 for 64 */
	uint32_t emulate_hitm;          /* --emulate=hitm=N: its HITM sampling period, 0 for the default */
	bool emulate_exact;             /* --emulate=exact: every change of owner, threads as they ran */
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
	/* where messages go (NULL: nowhere); called on record__run's thread,
	 * and in a forked child for RM_CANNOT_RUN */
	void (*say)(void *arg, const struct record_msg *m);
	void *say_arg;
};

/* Adds the events of "a,b,cpu/x,y/P": commas inside PMU/.../ belong to the
 * event. -E2BIG past RECORD_MAX_EVENTS. */
int record_opts__add_events(struct record_opts *o, const char *list);
void record_opts__exit(struct record_opts *o);

/* The user registers --call-graph dwarf samples (perf's numbers for this
 * machine's arch; 0 where it is not supported). */
uint64_t record__unwind_regs(void);
/* Records what o says. cmd: the command to launch and its arguments
 * (NULL-terminated) or NULL; argv: the whole command line (the file's
 * CMDLINE feature). Says its errors, warnings and summary through o->say;
 * returns the process exit status (the launched command's, 1 when the
 * recording failed). */
int record__run(const struct record_opts *o, char *const *cmd, int argc, char **argv);

#endif
