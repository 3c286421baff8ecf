// SPDX-License-Identifier: GPL-2.0
/*
 * record: what --alloc and --emulate add to a recording. --alloc: a
 * launched command gets the allocation shim (allocrec.c), -p/-t/-a/-C get
 * uprobes on the C library's allocators (probes.c), --alloc-fn/--free-fn
 * uprobes on the user's; the shim's events become the C2CSCAN_ALLOC
 * section. --emulate: the coherence model's samples (emurec.c) become
 * samples of an attr of their own.
 */
#include <errno.h>
#include <stdlib.h>
#include "record/record_int.h"
#include "util/util.h"

/* The user's allocators (--alloc-fn, --free-fn): in the launched command's
 * executable and the libraries it needs, or in what -p's process maps.
 * What fails is said here (the message names an object freed on return). */
static int probe_user_fns(struct recorder *rc, const char *exe, pid_t pid)
{
	struct record_msg why;
	char *objs[64];
	int nr = exe ? probes__objects_of_exe(exe, objs, 64) : probes__objects_of_pid(pid, objs, 64), err = 0;

	for (int i = 0; i < rc->o.nr_alloc_fns && !err; i++)
		err = probes__add_user(rc->probes, objs, nr, rc->o.alloc_fns[i], false, &why);
	for (int i = 0; i < rc->o.nr_free_fns && !err; i++)
		err = probes__add_user(rc->probes, objs, nr, rc->o.free_fns[i], true, &why);
	if (err)
		say(rc, why);
	for (int i = 0; i < nr; i++)
		free(objs[i]);
	return err;
}

/* --alloc: a launched command gets the shim; -p/-t/-a/-C get uprobes on the
 * C library's allocators (about 7 us a call); --alloc-fn/--free-fn get
 * uprobes on the user's functions, in the command's executable or -p's. */
int recorder__start_alloc(struct recorder *rc)
{
	struct record_msg why = { 0 };
	bool launched = rc->cmd && !rc->task_mode && !rc->sys_mode;
	bool user_fns = rc->o.nr_alloc_fns || rc->o.nr_free_fns;
	pid_t target = rc->nr_procs ? rc->procs[0] : 0;
	int err = 0;

	if (launched && alloc_rec__new(&rc->alloc, &why)) {
		say(rc, why);
		return 1;
	}
	if (!launched || user_fns)
		rc->probes = xcalloc(1, sizeof(*rc->probes));
	if (!launched)
		err = probes__add_libc(rc->probes, target, &why);
	/* an executable with an allocator of its own (a sanitizer's runtime
	 * linked in: Clang's -fsanitize=thread) binds its malloc ahead of the
	 * shim's: its allocators get the probes (under --emulate the runtime
	 * makes them jump to the shim's, which calls the production heap's) */
	if (!err && launched && !rc->o.emulate && rc->exe[0] && probes__func_offset(rc->exe, "malloc") >= 0 &&
	    probes__func_offset(rc->exe, "free") >= 0) {
		if (!rc->probes)
			rc->probes = xcalloc(1, sizeof(*rc->probes));
		err = probes__add_allocators(rc->probes, rc->exe, false, &why);
		rc->exe_allocator = !err;
		if (!err)
			say(rc, (struct record_msg){ .kind = RM_EXE_ALLOCATOR, .s = { rc->exe } });
	}
	if (!err && user_fns) {
		/* a launched command's executable was found before (record__run) */
		if (!launched && !target) {
			say(rc, (struct record_msg){ .kind = RM_ALLOC_FN_TARGET });
			return 1;
		} else if (probe_user_fns(rc, launched ? rc->exe : NULL, target)) {
			return 1;       /* (said) */
		}
	}
	if (err) {
		say(rc, why);
		return 1;
	}
	for (int i = 0; !err && rc->probes && i < rc->probes->nr; i++)
		err = recorder__add_event(rc, &rc->probes->ev[i]);
	if (err) {
		say(rc, (struct record_msg){ .kind = RM_TOO_MANY_EVENTS });
		return 1;
	}
	if (rc->probes)
		say(rc, (struct record_msg){ .kind = RM_PROBES, .n = { (uint64_t)rc->probes->nr } });
	return 0;
}

/* The allocation events the shim wrote, into the file (one warning line
 * when there are none: the program is static or setuid, or ended by _exit
 * or a signal before it wrote). */
void recorder__collect_allocs(struct recorder *rc)
{
	struct alloc_rec_stats st;
	size_t len;
	uint8_t *p = alloc_rec__collect(rc->alloc, &len, &st);

	/* the executable's own allocator was probed instead */
	if (!p && rc->exe_allocator)
		return;
	if (!p) {
		say(rc, (struct record_msg){ .kind = RM_ALLOC_NONE });
		return;
	}
	pd_writer__set_alloc(rc->w, p, len);
	if (st.dropped)
		say(rc, (struct record_msg){ .kind = RM_ALLOC_DROPPED, .n = { st.dropped, st.events } });
	say(rc, (struct record_msg){ .kind = RM_ALLOC_EVENTS, .n = { st.events, st.processes },
				     .x = st.events ? (double)st.bytes / st.events : 0.0 });
}

/* The coherence model's samples, under an attr of their own (one warning
 * line when there are none: the command is not built with -fsanitize=thread,
 * or ended before writing them). */
void recorder__collect_emulated(struct recorder *rc)
{
	struct perf_event_attr attr;
	struct emu_rec_stats st;
	/* an id no kernel event of this file has */
	const uint64_t id = 0xc2c5ca0000000001ULL;
	int ret;

	emu_rec__head(rc->emu, &st);
	emu_rec__attr(&attr, rc->o.call_graph != CALL_GRAPH_NONE, rc->o.emulate_exact, st.stalls);
	ret = pd_writer__add_attr(rc->w, &attr, PD_EMU_EVENT_NAME, &id, 1);
	if (!ret)
		ret = emu_rec__collect(rc->emu, rc->w, &attr, id, &st);
	if (ret < 0) {
		rc->werr = ret;
		return;
	}
	rc->samples += st.samples;
	if (st.torn || st.bad)
		say(rc, (struct record_msg){ .kind = RM_EMU_BAD, .n = { st.bad, st.torn } });
	if (st.processes)
		say(rc, (struct record_msg){ .kind = st.allocator[0] ? RM_EMU_HEAP : RM_EMU_HEAP_TSAN,
					     .s = { st.allocator } });
	if (st.cores_shared)
		say(rc, (struct record_msg){ .kind = RM_EMU_CORES_SHARED, .n = { st.cores_shared, PD_EMU_CORES } });
	if (st.stalls)
		say(rc, (struct record_msg){ .kind = RM_EMU_STALLS, .n = { st.stalls } });
	if (st.evicted)
		say(rc, (struct record_msg){ .kind = RM_EMU_EVICTED, .n = { st.evicted, PD_EMU_EVICT_AGE } });
	if (st.unmodelled)
		say(rc, (struct record_msg){ .kind = RM_EMU_UNMODELLED, .n = { st.unmodelled } });
	if (st.cut)
		say(rc, (struct record_msg){ .kind = RM_EMU_CHAINS_CUT, .n = { st.cut, st.samples, PD_EMU_MAX_FRAMES } });
	if (!st.processes) {
		if (rc->emu_not_tsan)
			say(rc, (struct record_msg){ .kind = RM_EMU_NOT_TSAN, .s = { rc->cmd[0] } });
		else
			say(rc, (struct record_msg){ .kind = RM_EMU_NONE });
		rc->emu_none = true;
	}
	else
		say(rc, (struct record_msg){ .kind = RM_EMU_SAMPLES, .n = { st.samples, st.processes } });
}
