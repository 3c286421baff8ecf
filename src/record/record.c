// SPDX-License-Identifier: GPL-2.0
/*
 * c2cscan record: sample memory accesses with their data addresses into a
 * perf.data file that perf and `c2cscan report` read.
 *
 * Targets: a command (one event per CPU following it: inherit, enabled when
 * it execs, like perf), existing processes or threads (-p/-t: one event per
 * thread, or per thread and CPU with -C), or the whole system (-a, -C: one
 * event per CPU). Every (task, CPU) slot has one ring buffer; the other
 * events of the slot write into it (PERF_EVENT_IOC_SET_OUTPUT). Buffers are
 * drained after poll(), with a FINISHED_ROUND after each pass, so a reader
 * may sort what came before it.
 *
 * Side-band records (MMAP2 in the inode form with prot/flags, COMM with
 * exec, FORK/EXIT) come from one tracking event per slot; for targets that
 * already ran, synth.c writes what the kernel would have said, before the
 * events' first records. Events are enabled before that synthesis, so a
 * mapping made meanwhile is reported twice rather than never.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "record/buildcache.h"
#include "record/record_int.h"
#include "util/util.h"

static void free_all(struct recorder *rc)
{
	recorder__close_all(rc);
	recorder__release_space(rc);
	for (int i = 0; i < rc->nr_ev; i++) {
		free(rc->ev[i].cpus);
		free(rc->ev[i].ids);
	}
	free(rc->bufs);
	free(rc->fds);
	free(rc->tmp);
	buildids__delete(rc->bids);
	free(rc->procs);
	pd_writer__delete(rc->w);
	free(rc->cpuset);
	free(rc->tasks);
	for (int i = 0; i < 2; i++) {
		if (rc->go[i] >= 0)
			close(rc->go[i]);
		if (rc->fail[i] >= 0)
			close(rc->fail[i]);
	}
	if (rc->signals_caught)
		recorder__release_signals(&rc->sigorig);
	alloc_rec__delete(rc->alloc);
	emu_rec__delete(rc->emu);
	free(rc->probes);
	free(rc->new_tids);
}

/* ---- options ---------------------------------------------------------------- */

int record_opts__add_events(struct record_opts *o, const char *list)
{
	const char *p = list;

	while (*p) {
		const char *q = p;
		int slashes = 0;

		while (*q && !(*q == ',' && slashes % 2 == 0)) {
			if (*q == '/')
				slashes++;
			q++;
		}
		if (q > p) {
			if (o->nr_events >= RECORD_MAX_EVENTS)
				return -E2BIG;
			o->events[o->nr_events] = xmalloc(q - p + 1);
			memcpy(o->events[o->nr_events], p, q - p);
			o->events[o->nr_events++][q - p] = '\0';
		}
		p = *q ? q + 1 : q;
	}
	return 0;
}

void record_opts__exit(struct record_opts *o)
{
	for (int i = 0; i < o->nr_events; i++)
		free(o->events[i]);
	for (int i = 0; i < o->nr_alloc_fns; i++)
		free(o->alloc_fns[i]);
	for (int i = 0; i < o->nr_free_fns; i++)
		free(o->free_fns[i]);
	free(o->pids);
	free(o->tids);
}

/* ---- the steps of a recording ------------------------------------------------ */

/* Each step returns 0, or the exit status after saying in one line what
 * failed; record__run undoes what the steps before had done. */

/* --emulate of a launched command whose only event is the tracking one
 * (the model writes the samples), where CPU-wide events are allowed: that
 * event follows every CPU instead of the command's tasks. Per task, the
 * kernel clones it (one per CPU: an inherited event cannot be mapped
 * unless bound to a CPU) into every thread the program creates and
 * switches it in and out at each of its context switches: a
 * ThreadSanitizer program creating threads took 470 us a thread instead
 * of 300, and a token passed through a condition variable paid at every
 * switch. CPU-wide, the file has every process's MMAP2, COMM and FORK
 * records; the report keys by pid and uses those of the processes that
 * have samples; the build-ids noted (the file's, and the copies in the
 * build-id cache) are only those of the command's processes
 * (buildids__only_tree): with every process's, the cache took another
 * program's objects, and a test running beside found a rebuilt binary
 * there. */
static bool track_cpus(const struct recorder *rc)
{
	return rc->o.emulate && rc->nr_ev == 1 && rc->ev[0].tracking &&
	       (pmu__paranoid() <= 0 || pmu__cap_perfmon() || pmu__cap_sys_admin());
}

/* Every event on every target, their attrs and ids into the file. */
static int open_events(struct recorder *rc)
{
	pid_t pid_any = -1;
	bool launched = rc->cmd && !rc->sys_mode && !rc->task_mode, per_task = launched && !track_cpus(rc);
	int ret;

	if (launched && recorder__fork_command(rc))
		return 1;
	/* (every CPU's records: the build-ids of the command's processes
	 * only) */
	if (launched && !per_task)
		buildids__only_tree(rc->bids, (uint32_t)rc->child);
	for (int i = 0; i < rc->nr_ev; i++)
		recorder__fill_attr(rc, &rc->ev[i], per_task || rc->task_mode, per_task);
	if (per_task)
		ret = recorder__open_all(rc, &rc->child, 1, rc->cpuset, rc->nr_cpus);
	else if (rc->task_mode)
		ret = recorder__open_all(rc, rc->tasks, rc->nr_tasks, rc->cpuset, rc->nr_cpus);
	else
		ret = recorder__open_all(rc, &pid_any, 1, rc->cpuset, rc->nr_cpus);
	if (ret < 0) {
		rc->why.kind = RM_OPEN;
		rc->why.n[0] = ret == -ESRCH && rc->task_mode;
		say(rc, rc->why);
		if (rc->memory && (ret == -ENOENT || ret == -ENODEV || ret == -EOPNOTSUPP))
			say(rc, (struct record_msg){ .kind = RM_NO_MEMORY_PMU, .err = ret });
		return 1;
	}
	if (rc->task_mode)
		recorder__set_enable(rc, true);
	for (int i = 0; i < rc->nr_ev; i++) {
		ret = pd_writer__add_attr(rc->w, &rc->ev[i].attr, rc->ev[i].pe.name, rc->ev[i].ids,
					  rc->ev[i].nr_ids);
		if (ret < 0) {
			say(rc, (struct record_msg){ .kind = RM_OUTPUT, .err = ret, .s = { rc->o.out } });
			return 1;
		}
	}
	ret = recorder__aux_info(rc);
	if (ret < 0) {
		say(rc, (struct record_msg){ .kind = RM_OUTPUT, .err = ret, .s = { rc->o.out } });
		return 1;
	}
	return 0;
}

/* The file's end: buffers closed, data flushed, build-ids and header
 * written. Returns the exit status. */
static int finish(struct recorder *rc)
{
	int ret;

	recorder__close_all(rc);
	if (!rc->werr)
		rc->werr = pd_writer__flush(rc->w);
	recorder__release_space(rc);
	if (!rc->werr) {
		size_t nb = buildids__write(rc->bids, rc->w);

		say(rc, (struct record_msg){ .kind = RM_BUILDIDS, .n = { nb, buildids__nr(rc->bids), buildids__dropped(rc->bids) != 0 } });
		if (!rc->o.no_buildid_cache) {
			struct buildcache_stats bc;

			buildcache__store(rc->bids, &bc);
			say(rc, (struct record_msg){ .kind = RM_BUILDCACHE, .n = { bc.copied, bc.present } });
			if (bc.failed)
				say(rc, (struct record_msg){ .kind = RM_BUILDCACHE_FAILED, .n = { bc.failed } });
		}
	}
	if (!rc->werr && rc->alloc)
		recorder__collect_allocs(rc);
	if (!rc->werr && rc->emu)
		recorder__collect_emulated(rc);
	ret = pd_writer__finish(rc->w);
	if (!rc->werr && ret < 0)
		rc->werr = ret;
	if (rc->child_err || rc->emu_none)
		return 1;       /* the command never ran, or nothing was emulated: record__run removes the file */
	if (rc->werr) {
		say(rc, (struct record_msg){ .kind = RM_WRITE, .err = rc->werr, .s = { rc->o.out }, .n = { ret < 0 } });
		recorder__summary(rc);
		return 1;
	}
	recorder__warnings(rc);
	recorder__summary(rc);
	/* a signal stopped the recording (the file holds what came before):
	 * said, and the shell's status for it */
	if (stop_requested && !rc->duration_over) {
		say(rc, (struct record_msg){ .kind = RM_INTERRUPTED, .n = { (uint64_t)stop_requested, rc->child > 0 } });
		return 128 + stop_requested;
	}
	if (rc->child > 0 && !stop_requested && !rc->task_mode && !rc->sys_mode)
		return recorder__command_status(rc);
	return 0;
}

/* A recording that failed before its end: the command killed, the output
 * removed and an old file put back. */
static void abandon(struct recorder *rc)
{
	if (rc->child > 0) {
		kill(rc->child, SIGKILL);
		waitpid(rc->child, NULL, 0);
	}
	recorder__close_all(rc);
	if (rc->w) {
		pd_writer__delete(rc->w);
		rc->w = NULL;
		unlink(rc->o.out);
	}
	if (rc->moved_old)
		rename(rc->old, rc->o.out);     /* nothing recorded: put the old file back */
}

int record__run(const struct record_opts *o, char *const *cmd, int argc, char **argv)
{
	struct recorder *rc = xcalloc(1, sizeof(*rc));
	int status;

	rc->o = *o;
	rc->cmd = cmd;
	rc->reserve_fd = -1;
	rc->go[0] = rc->go[1] = rc->fail[0] = rc->fail[1] = -1;
	for (int c = 0; c < PMU_MAX_CPUS; c++)
		rc->cpu_out[c] = -1;
	rc->page = (size_t)sysconf(_SC_PAGESIZE);
	rc->task_mode = o->nr_pids || o->nr_tids;
	rc->sys_mode = o->system_wide || (o->cpus && !rc->task_mode && !cmd);

	/* a command that cannot run is said before anything about events */
	if (cmd && !rc->task_mode && !rc->sys_mode) {
		int err = recorder__command_path(cmd[0], rc->exe, sizeof(rc->exe));

		if (err) {
			say(rc, (struct record_msg){ .kind = RM_CANNOT_RUN, .err = err, .s = { cmd[0] } });
			status = 1;
			goto out;
		}
		/* a program the model cannot see is said after its run (it
		 * may start one that it can: sh -c, env, a launcher) */
		if (o->emulate)
			rc->emu_not_tsan = emu_rec__is_tsan(rc->exe) == 0;
	}
	status = recorder__choose_events(rc);
	if (status)
		goto out;
	recorder__choose_tracking(rc);
	status = recorder__find_targets(rc);
	if (!status && o->alloc)
		status = recorder__start_alloc(rc);
	if (!status && o->emulate) {
		struct record_msg why;

		if (emu_rec__new(&rc->emu, &why)) {
			say(rc, why);
			status = 1;
		} else if (rc->exe[0] && !rc->emu_not_tsan) {
			static char keeps[256];   /* (the message outlives this call) */
			bool without = emu_rec__choose_libtsan(rc->emu, rc->exe, keeps, sizeof(keeps));

			if (without || keeps[0])
				say(rc, (struct record_msg){ .kind = RM_EMU_LIBTSAN, .n = { without }, .s = { keeps } });
		}
	}
	if (!status)
		status = recorder__open_output(rc);
	if (!status)
		status = open_events(rc);
	if (!status) {
		recorder__set_features(rc->w, argc, argv);
		/* the lines the report keys by are the model's */
		if (rc->o.emulate)
			pd_writer__set_cacheline(rc->w, rc->o.emulate_line ? rc->o.emulate_line : 64);
		recorder__verbose_events(rc);
		status = recorder__synthesize(rc, rc->tasks + rc->tid_start, rc->nr_tasks - rc->tid_start,
				    rc->sys_mode ? 2 : rc->task_mode ? 1 : 0);
		if (status < 0 || rc->werr) {
			say(rc, (struct record_msg){ .kind = RM_SYNTH, .err = rc->werr ? rc->werr : status });
			status = 1;
		}
	}
	if (status) {
		abandon(rc);
		goto out;
	}
	recorder__catch_signals(&rc->sigorig);
	rc->signals_caught = true;
	status = recorder__start_command(rc);
	if (!status)
		recorder__drain_loop(rc);
	status = finish(rc) | status;
	if (rc->emu_none) {
		/* nothing emulated: not a recording to replace the old one */
		status = 1;
		abandon(rc);
	} else if (rc->child_err) {
		say(rc, (struct record_msg){ .kind = RM_CANNOT_RUN, .err = -rc->child_err, .s = { cmd[0] } });
		rc->child = 0;          /* reaped */
		abandon(rc);
	}
out:
	free_all(rc);
	free(rc);
	return status;
}
