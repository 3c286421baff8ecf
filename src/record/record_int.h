/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorder's state and steps, for src/record/ only (record.h is the
 * library's interface). record.c runs the steps; each other file is one
 * concern: targets.c, events.c (and their ring buffers), ring.c (draining
 * them), output.c, runtime.c (--alloc, --emulate). None of them uses
 * record.c; ring.c uses events.c and targets.c, runtime.c events.c.
 */
#ifndef C2CSCAN_RECORD_INT_H
#define C2CSCAN_RECORD_INT_H

#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "perfdata/writer.h"
#include "record/allocrec.h"
#include "record/aux.h"
#include "record/emurec.h"
#include "record/pmu.h"
#include "record/probes.h"
#include "record/record.h"

struct rec_evsel {
	struct pmu_event pe;
	struct perf_event_attr attr;
	bool cpus_all;          /* the PMU covers every CPU */
	bool *cpus;             /* [PMU_MAX_CPUS] */
	int leader;             /* index of the group leader (mem-loads-aux), or -1 */
	bool tracking;          /* carries mmap/comm/task */
	bool fell_back_user;    /* kernel sampling refused: user only */
	bool tried;             /* first open done; attr settled */
	uint64_t *ids;
	size_t nr_ids, alloc_ids;
};

struct rec_buf {
	int fd;
	void *base;
	size_t size;            /* data area bytes */
	bool hup;               /* the task is gone: drain, but poll no more */
	bool has_aux;           /* an AUX area is mapped (Arm SPE) */
	struct aux_ring aux;
};

struct recorder {
	struct record_opts o;      /* the caller's, copied; strings and arrays not owned */
	struct pd_writer *w;
	struct rec_evsel ev[RECORD_MAX_EVENTS + 1 + PROBES_MAX];
	int nr_ev;
	struct rec_buf *bufs;
	int nr_bufs;
	size_t alloc_bufs;
	int *fds;
	size_t nr_fds, alloc_fds;
	size_t page;
	uint64_t samples, lost, lost_samples, throttled;
	uint64_t aux_bytes;     /* of AUX traces written */
	uint8_t *tmp;           /* a record that wraps the ring end */
	int werr;
	pid_t child;            /* the command, or 0 */
	int reserve_fd;         /* blocks held back for the header on a full disk */
	pid_t *procs;           /* -p/-t: thread group ids to watch */
	int nr_procs;
	bool memory;            /* some event is a memory event */
	struct record_msg why;  /* the last failure to open the events (RM_OPEN) */
	struct buildids *bids;  /* the objects mapped, for the BUILD_ID feature */
	char *const *cmd;       /* the command to launch, or NULL */
	bool task_mode;         /* -p/-t */
	bool sys_mode;          /* -a, or -C without a command or -p/-t */
	bool *cpuset;           /* [PMU_MAX_CPUS]: CPUs to open on */
	int nr_cpus;
	pid_t *tasks;           /* threads to open on: -p's threads, then -t's */
	int nr_tasks, tid_start;
	int go[2], fail[2];     /* the launched command waits on go, reports exec failure on fail */
	int child_err;          /* errno of the command's exec */
	bool emu_none;          /* --emulate: no process wrote samples (the file is abandoned) */
	pid_t record_pid;       /* the command's parent: a child whose parent is gone quits */
	bool duration_over;     /* --duration stopped it (stop_requested set, no signal came) */
	bool emu_not_tsan;      /* --emulate: the command's executable has no ThreadSanitizer hooks */
	int status;             /* the command's wait status */
	char old[4096];         /* FILE.old */
	bool moved_old;         /* an old file was renamed to it */
	sigset_t sigorig;
	bool signals_caught;
	struct alloc_rec *alloc;        /* --alloc with a launched command: the shim */
	struct emu_rec *emu;            /* --emulate: the coherence model's runtime */
	char exe[4096];                 /* a launched command's executable (command_path) */
	bool exe_allocator;             /* it defines malloc and free: probed, the shim cannot bind */
	struct probes *probes;          /* --alloc through uprobes, --alloc-fn, --free-fn */
	int cpu_out[PMU_MAX_CPUS];      /* the ring buffer's fd of each CPU (task and system modes) */
	pid_t *new_tids;                /* threads of -p/-t's processes born while recording */
	int nr_new_tids, alloc_new_tids;
};

/* SIGINT, SIGTERM or the duration's end: the recording stops (targets.c). */
extern volatile sig_atomic_t stop_requested;

/* m through the caller's o.say */
static inline void say(const struct recorder *rc, struct record_msg m)
{
	if (rc->o.say)
		rc->o.say(rc->o.say_arg, &m);
}

static inline double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* events.c: the events, opened on every (task, CPU) slot with one ring buffer per slot */
int recorder__add_event(struct recorder *rc, const struct pmu_event *pe);
void recorder__fill_attr(struct recorder *rc, struct rec_evsel *e, bool task, bool on_exec);
/* Events from -e, or this machine's memory events. 0, or the exit status. */
int recorder__choose_events(struct recorder *rc);
/* One tracking event: the first that covers every CPU and is not a group
 * member, else a dummy software event (hybrid machines). */
void recorder__choose_tracking(struct recorder *rc);
/* One ring buffer per CPU; every task's events on that CPU write into it
 * (per-task buffers cannot be used with inherit: the kernel refuses to map
 * an inherited event that follows a task on any CPU). */
int recorder__open_all(struct recorder *rc, pid_t *tasks, int nr_tasks, const bool *cpuset, int nr_cpus);
void recorder__close_all(struct recorder *rc);
void recorder__set_enable(struct recorder *rc, bool on);
/* The allocator probes of the threads born since the last drain, on each
 * CPU's buffer. Allocations a thread makes before this are missed. */
void recorder__follow_new_threads(struct recorder *rc);
void recorder__verbose_events(const struct recorder *rc);

/* targets.c: what is recorded (-C CPUs, -p/-t threads, a launched command) and the signals that stop it */
/* Handlers for SIGINT/SIGTERM/SIGCHLD, delivered only inside ppoll() (the
 * mask blocks them elsewhere), so an exit is never missed between the check
 * and the wait. */
void recorder__catch_signals(sigset_t *orig);
void recorder__release_signals(const sigset_t *orig);
bool recorder__procs_alive(const struct recorder *rc);
/* CPUs (-C narrows) and the threads of -p and -t. */
int recorder__find_targets(struct recorder *rc);
/* The executable a launched command will run: cmd[0], or found in PATH. */
int recorder__command_path(const char *cmd, char *out, size_t size);
/* The launched command: forked now, it waits on the go pipe so that the
 * events can be opened on its pid first, and execs when told (the events
 * enable at exec). */
int recorder__fork_command(struct recorder *rc);
/* Let the command run: a launched one execs now (its exec failure comes
 * back on the fail pipe); with -p/-t/-a it only says how long, and starts. */
int recorder__start_command(struct recorder *rc);
/* The launched command's own exit status, as a shell gives it (128 + the
 * signal that killed it), said in one line when it is not 0. */
int recorder__command_status(const struct recorder *rc);

/* ring.c: the ring buffers drained into the file until the recording ends */
/* Drain the buffers until the command ends, the processes are gone, the
 * duration passes, a signal comes or a write fails. */
void recorder__drain_loop(struct recorder *rc);

/* output.c: the output file, its features, the synthesized side-band, the summary */
void recorder__set_features(struct pd_writer *w, int argc, char **argv);
void recorder__release_space(struct recorder *rc);
/* The output file; perf's convention: keep the previous recording as FILE.old. */
int recorder__open_output(struct recorder *rc);
/* Kernel map always; processes for -p/-t (mode 1) and -a/-C (mode 2). */
/* TIME_CONV and AUXTRACE_INFO when an AUX trace (Arm SPE) is recorded:
 * 0, or the writer's negative errno. */
int recorder__aux_info(struct recorder *rc);
int recorder__synthesize(struct recorder *rc, const pid_t *tids, int nr_tids, int mode);
void recorder__summary(const struct recorder *rc);
void recorder__warnings(const struct recorder *rc);

/* runtime.c: what --alloc and --emulate add: the allocation shim or uprobes, the emulated samples */
/* --alloc: a launched command gets the shim; -p/-t/-a/-C get uprobes on the
 * C library's allocators (about 7 us a call); --alloc-fn/--free-fn get
 * uprobes on the user's functions, in the command's executable or -p's. */
int recorder__start_alloc(struct recorder *rc);
/* The allocation events the shim wrote, into the file (one warning line
 * when there are none: the program is static or setuid, or ended by _exit
 * or a signal before it wrote). */
void recorder__collect_allocs(struct recorder *rc);
/* The coherence model's samples, under an attr of their own (one warning
 * line when there are none: the command is not built with -fsanitize=thread,
 * or ended before writing them). */
void recorder__collect_emulated(struct recorder *rc);

#endif
