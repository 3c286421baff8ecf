// SPDX-License-Identifier: GPL-2.0
/*
 * record: the events. From -e or this machine's memory PMU (pmu.c), with
 * one tracking event for mmap/comm/task records; each opened on every
 * (task, CPU) slot, the first fd of a CPU owning its ring buffer and the
 * others writing into it (PERF_EVENT_IOC_SET_OUTPUT). The first open of an
 * event settles its attr by stepping down what the kernel refuses. Why an
 * open failed is a typed message (open_failed, permission_advice: RM_OPEN),
 * worded by the CLI.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "record/record_int.h"
#include "util/util.h"

/* One sentence for an errno of the perf_event API (open, mmap, ioctl), in one place. */
/* Why opening failed, for the CLI to word (RM_OPEN): what failed (a
 * RECORD_OPEN_*), the errno, the event. */
static void open_failed(struct recorder *rc, int what, int err, const struct pmu_event *pe, size_t pages)
{
	rc->why = (struct record_msg){ .kind = RM_OPEN, .err = -err, .s = { pe ? pe->name : NULL },
				       .n = { 0, (uint64_t)what, (uint64_t)pmu__paranoid(), 0, 0, pages,
					      pe && pe->per_cpu_only } };
}

int recorder__add_event(struct recorder *rc, const struct pmu_event *pe)
{
	struct rec_evsel *e;
	int nr;

	if (rc->nr_ev >= (int)ARRAY_SIZE(rc->ev))
		return -E2BIG;
	e = &rc->ev[rc->nr_ev++];
	memset(e, 0, sizeof(*e));
	e->pe = *pe;
	e->leader = -1;
	e->cpus = xcalloc(PMU_MAX_CPUS, sizeof(*e->cpus));
	e->cpus_all = true;
	if (pe->pmu[0] && !pmu__cpus(pe->pmu, e->cpus, &nr)) {
		for (int c = 0; c < nr; c++)
			if (!e->cpus[c])
				e->cpus_all = false;
	} else {
		for (int c = 0; c < PMU_MAX_CPUS; c++)
			e->cpus[c] = true;
	}
	if (pe->memory || pe->aux)
		rc->memory = true;
	return 0;
}

/* The user registers an unwinder starts from, as perf numbers them: x86_64
 * all but the segment registers DS, ES, FS, GS (as perf's PERF_REGS_MASK);
 * aarch64 X0..X30, SP, PC. */
uint64_t record__unwind_regs(void)
{
#if defined(__x86_64__)
	return 0xff0fffULL;
#elif defined(__aarch64__)
	return (1ULL << 33) - 1;
#else
	return 0;
#endif
}

/* -g: the kernel walks the frame pointers; --call-graph dwarf: the kernel's
 * chain stops at the user boundary and the user registers and stack are
 * copied for report to unwind (as perf does). Kernel chains only where the
 * event samples the kernel. */
static void set_call_graph(struct perf_event_attr *a, const struct record_opts *o)
{
	if (o->call_graph == CALL_GRAPH_NONE)
		return;
	a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	a->exclude_callchain_kernel = a->exclude_kernel;
	if (o->call_graph != CALL_GRAPH_DWARF)
		return;
	a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->sample_regs_user |= record__unwind_regs();
	a->sample_stack_user = o->stack_size;
	a->exclude_callchain_user = 1;
}

void recorder__fill_attr(struct recorder *rc, struct rec_evsel *e, bool task, bool on_exec)
{
	struct perf_event_attr *a = &e->attr;
	const struct record_opts *o = &rc->o;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = e->pe.type;
	a->config = e->pe.config;
	a->config1 = e->pe.config1;
	a->config2 = e->pe.config2;
	a->precise_ip = e->pe.precise;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (e->pe.memory) {
		a->sample_type |= PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT;
		/* the kernel allows it where kernel profiling is allowed */
		if (pmu__paranoid() < 2 || pmu__cap_perfmon() || pmu__cap_sys_admin())
			a->sample_type |= PERF_SAMPLE_PHYS_ADDR;
	}
	if (e->pe.aux_leader) {
		a->sample_period = 0;   /* counts only; the next event samples */
	} else if (e->pe.has_period) {
		a->sample_period = e->pe.period;
	} else if (o->period) {
		a->sample_period = o->period;
	} else if (o->freq) {
		a->freq = 1;
		a->sample_freq = o->freq;
	} else if (e->pe.type == PERF_TYPE_SOFTWARE) {
		a->sample_period = 1;
	} else {
		a->freq = 1;
		a->sample_freq = 4000;
	}
	a->exclude_kernel = o->user || e->pe.exclude_kernel;
	a->exclude_user = o->kernel || e->pe.exclude_user;
	if (e->pe.regs_user) {
		/* an allocator probe: registers, no data address */
		a->sample_type = (a->sample_type & ~(uint64_t)PERF_SAMPLE_ADDR) | PERF_SAMPLE_REGS_USER;
		a->sample_regs_user = e->pe.regs_user;
	}
	if (e->pe.aux) {
		/* a trace: its records are the samples (report decodes them),
		 * the event's own say when and where only */
		a->sample_type &= ~(uint64_t)PERF_SAMPLE_ADDR;
		a->precise_ip = 0;
	} else {
		set_call_graph(a, o);
	}
	/* a uprobe event cannot be inherited: the kernel would read its path
	 * (config1, a pointer into c2cscan) in the new task's memory, fail,
	 * and then inherit none of the task's events. New threads get their
	 * allocator probes from follow_new_threads instead. */
	a->inherit = task && !e->pe.regs_user;
	if (rc->alloc) {
		/* the shim stamps allocations with CLOCK_MONOTONIC */
		a->use_clockid = 1;
		a->clockid = CLOCK_MONOTONIC;
	}
	/* existing tasks: opened disabled, enabled together once every event
	 * and buffer is in place (as perf does) */
	a->disabled = on_exec || (task && !on_exec);
	a->enable_on_exec = on_exec;
	if (e->tracking) {
		a->mmap = a->mmap2 = a->mmap_data = a->comm = a->comm_exec = a->task = 1;
		/* an AUX trace's records name their thread only where the kernel
		 * puts the pid in CONTEXTIDR: elsewhere what each CPU ran says
		 * (as perf c2c record does for SPE) */
		for (int i = 0; i < rc->nr_ev; i++)
			a->context_switch |= rc->ev[i].pe.aux;
	}
	a->sample_id_all = 1;
}

static int sys_open(struct perf_event_attr *a, pid_t pid, int cpu, int group)
{
	int fd = (int)syscall(SYS_perf_event_open, a, pid, cpu, group, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/*
 * Opens e on (pid, cpu). On the first open, settles the attr by stepping
 * down what the kernel refuses: precision, WEIGHT_STRUCT (< 5.12),
 * PHYS_ADDR, kernel sampling (perf_event_paranoid 2).
 */
static int open_one(struct recorder *rc, struct rec_evsel *e, pid_t pid, int cpu, int group)
{
	struct perf_event_attr *a = &e->attr;
	int fd;

	for (;;) {
		fd = sys_open(a, pid, cpu, group);
		if (fd >= 0 || e->tried)
			break;
		if ((fd == -EINVAL || fd == -EOPNOTSUPP) && a->precise_ip) {
			a->precise_ip--;
			continue;
		}
		if (fd == -EINVAL && (a->sample_type & PERF_SAMPLE_WEIGHT_STRUCT)) {
			a->sample_type &= ~(uint64_t)PERF_SAMPLE_WEIGHT_STRUCT;
			a->sample_type |= PERF_SAMPLE_WEIGHT;
			continue;
		}
		if ((fd == -EACCES || fd == -EPERM || fd == -EINVAL) && (a->sample_type & PERF_SAMPLE_PHYS_ADDR)) {
			a->sample_type &= ~(uint64_t)PERF_SAMPLE_PHYS_ADDR;
			continue;
		}
		/* an explicit :k or -k is not turned into nothing */
		if ((fd == -EACCES || fd == -EPERM) && !a->exclude_kernel && !a->exclude_user && !rc->o.kernel) {
			a->exclude_kernel = 1;
			e->fell_back_user = true;
			continue;
		}
		break;
	}
	if (fd >= 0)
		e->tried = true;
	return fd;
}

static int add_buffer(struct recorder *rc, int fd, size_t pages)
{
	struct rec_buf *b;
	void *base;
	size_t size = pages * rc->page;

	base = mmap(NULL, size + rc->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	/* a size of ours (not -m) beyond what the user may lock: smaller */
	while (base == MAP_FAILED && (errno == EPERM || errno == ENOMEM) && !rc->o.pages && pages > 16) {
		pages /= 2;
		size = pages * rc->page;
		base = mmap(NULL, size + rc->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	}
	if (base == MAP_FAILED) {
		int err = errno;

		open_failed(rc, RECORD_OPEN_MMAP, err, NULL, pages);
		return -err;
	}
	xgrow((void **)&rc->bufs, &rc->alloc_bufs, rc->nr_bufs + 1, sizeof(*rc->bufs));
	b = &rc->bufs[rc->nr_bufs++];
	b->fd = fd;
	b->base = base;
	b->size = size;
	b->hup = false;
	b->has_aux = false;
	return 0;
}

/* AUX area pages of a trace's buffer: perf's defaults (4 MiB, 128 KiB
 * unprivileged: the locked memory limit) */
static size_t aux_pages(void)
{
	return geteuid() == 0 ? 1024 : 32;
}

/* The AUX area of the buffer whose owner is fd (an AUX event of the slot
 * (pid, cpu) writes there), mapped once. */
static int map_aux(struct recorder *rc, int fd, pid_t pid, int cpu)
{
	struct rec_buf *b = NULL;
	int err;

	for (int i = 0; i < rc->nr_bufs && !b; i++)
		if (rc->bufs[i].fd == fd)
			b = &rc->bufs[i];
	if (!b || b->has_aux)
		return 0;
	b->aux.idx = (uint32_t)(b - rc->bufs);
	b->aux.tid = cpu >= 0 ? UINT32_MAX : (uint32_t)pid;
	b->aux.cpu = cpu >= 0 ? (uint32_t)cpu : UINT32_MAX;
	/* after the buffer's data area, as mapped (it may be smaller than asked) */
	err = aux_ring__map(&b->aux, fd, b->base, rc->page, b->size / rc->page, aux_pages());
	if (err) {
		open_failed(rc, RECORD_OPEN_MMAP, -err, NULL, aux_pages());
		return err;
	}
	b->has_aux = true;
	return 0;
}

/* The uid owning pid, or -1. */
static long task_uid(pid_t pid)
{
	char path[64], line[256];
	long uid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %ld", &uid) == 1)
			break;
	if (f)
		fclose(f);
	return uid;
}

/* Why opening e on (pid, cpu) was refused, and the least change that
 * allows it: another user's process, kernel sampling, every process. */
static void permission_advice(struct recorder *rc, const struct rec_evsel *e, pid_t pid, int cpu)
{
	long paranoid = pmu__paranoid(), uid = pid > 0 ? task_uid(pid) : -1;

	int what = RECORD_OPEN_ERRNO;

	if (uid >= 0 && (uid_t)uid != geteuid() && geteuid() != 0)
		what = RECORD_OPEN_OTHER_USER;
	else if (!e->attr.exclude_kernel && paranoid >= 2)
		what = RECORD_OPEN_KERNEL;
	else if (pid < 0 && cpu >= 0 && paranoid >= 1)
		what = RECORD_OPEN_ALL;
	open_failed(rc, what, EACCES, &e->pe, 0);
	rc->why.n[3] = (uint64_t)pid;
	rc->why.n[4] = (uint64_t)uid;
}

/*
 * Opens every event on one (pid, cpu) slot. The first fd of a CPU gets the
 * ring buffer (*out), the others write into it. Returns the number of
 * events opened (0: none applies here, or the task/CPU is gone) or a
 * negative errno with rc->why set.
 */
static int open_slot(struct recorder *rc, pid_t pid, int cpu, int *out, size_t pages)
{
	int leader_fd = -1, n = 0, err;

	for (int i = 0; i < rc->nr_ev; i++) {
		struct rec_evsel *e = &rc->ev[i];
		uint64_t id;
		int fd;

		if (cpu >= 0 && (cpu >= PMU_MAX_CPUS || !e->cpus[cpu]))
			continue;
		fd = open_one(rc, e, pid, cpu, e->leader >= 0 ? leader_fd : -1);
		if (fd < 0) {
			/* a thread that exited, a CPU that is offline */
			if (fd == -ESRCH && pid > 0 && !n)
				return 0;
			if (fd == -ENODEV && cpu >= 0 && !n)
				return 0;
			if (fd == -EACCES || fd == -EPERM)
				permission_advice(rc, e, pid, cpu);
			else
				open_failed(rc, RECORD_OPEN_ERRNO, -fd, &e->pe, 0);
			return fd;
		}
		xgrow((void **)&rc->fds, &rc->alloc_fds, rc->nr_fds + 1, sizeof(*rc->fds));
		rc->fds[rc->nr_fds++] = fd;
		if (e->pe.aux_leader)
			leader_fd = fd;
		if (*out < 0) {
			err = add_buffer(rc, fd, pages);
			if (err)
				return err;
			*out = fd;
		} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, *out) < 0) {
			err = -errno;
			open_failed(rc, RECORD_OPEN_SET_OUTPUT, -err, &e->pe, 0);
			return err;
		}
		if (e->pe.aux) {
			err = map_aux(rc, *out, pid, cpu);
			if (err)
				return err;
		}
		if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
			id = 0;
		xgrow((void **)&e->ids, &e->alloc_ids, e->nr_ids + 1, sizeof(*e->ids));
		e->ids[e->nr_ids++] = id;
		n++;
	}
	return n;
}

/* Events from -e, or this machine's memory events. 0, or the exit status. */
int recorder__choose_events(struct recorder *rc)
{
	struct pmu_event pe[8];
	int n, err;

	/* --emulate: the model's samples, and a tracking event for the maps */
	if (!rc->o.nr_events && !rc->o.emulate) {
		n = pmu__memory_events(pe, (int)ARRAY_SIZE(pe), rc->o.ldlat, rc->o.ldlat_set);
		if (n < 0) {
			say(rc, (struct record_msg){ .kind = RM_NO_MEMORY_PMU, .err = n });
			return 1;
		}
		for (int i = 0; i < n; i++)
			recorder__add_event(rc, &pe[i]);
	}
	for (int i = 0; i < rc->o.nr_events; i++) {
		err = pmu__parse_event(rc->o.events[i], rc->o.ldlat, &pe[0]);
		if (err == -ENODEV && (!strcmp(rc->o.events[i], "mem-loads") ||
				       !strcmp(rc->o.events[i], "mem-stores") ||
				       !strncmp(rc->o.events[i], "ibs_op", 6))) {
			say(rc, (struct record_msg){ .kind = RM_NO_MEMORY_PMU, .err = err });
			return 1;
		}
		if (err) {
			say(rc, (struct record_msg){ .kind = RM_EVENT_UNKNOWN, .err = err, .s = { rc->o.events[i] } });
			return 1;
		}
		recorder__add_event(rc, &pe[0]);
	}
	if (!rc->o.nr_events && !rc->o.emulate) {
		bool covered[PMU_MAX_CPUS] = { false };
		long ncpu = sysconf(_SC_NPROCESSORS_CONF);

		for (int i = 0; i < rc->nr_ev; i++)
			for (int c = 0; c < PMU_MAX_CPUS; c++)
				covered[c] |= (rc->ev[i].pe.memory || rc->ev[i].pe.aux) && rc->ev[i].cpus[c];
		for (long c = 0; c < ncpu && c < PMU_MAX_CPUS; c++) {
			if (!covered[c]) {
				say(rc, (struct record_msg){ .kind = RM_CPU_UNCOVERED, .n = { (uint64_t)c } });
				break;
			}
		}
	}
	/* mem-loads-aux leads the event after it */
	for (int i = 0; i + 1 < rc->nr_ev; i++)
		if (rc->ev[i].pe.aux_leader)
			rc->ev[i + 1].leader = i;
	return 0;
}

/* One tracking event: the first that covers every CPU and is not a group
 * member, else a dummy software event (hybrid machines). */
void recorder__choose_tracking(struct recorder *rc)
{
	struct pmu_event dummy;

	for (int i = 0; i < rc->nr_ev; i++) {
		if (rc->ev[i].cpus_all && rc->ev[i].leader < 0 && !rc->ev[i].pe.aux_leader) {
			rc->ev[i].tracking = true;
			return;
		}
	}
	memset(&dummy, 0, sizeof(dummy));
	snprintf(dummy.name, sizeof(dummy.name), "dummy:u");
	dummy.type = PERF_TYPE_SOFTWARE;
	dummy.config = PERF_COUNT_SW_DUMMY;
	/* first, so that every slot's buffer starts with it */
	memmove(&rc->ev[1], &rc->ev[0], rc->nr_ev * sizeof(rc->ev[0]));
	rc->nr_ev++;
	for (int i = 1; i < rc->nr_ev; i++)
		if (rc->ev[i].leader >= 0)
			rc->ev[i].leader++;
	memset(&rc->ev[0], 0, sizeof(rc->ev[0]));
	rc->ev[0].pe = dummy;
	rc->ev[0].leader = -1;
	rc->ev[0].cpus_all = true;
	rc->ev[0].cpus = xcalloc(PMU_MAX_CPUS, sizeof(bool));
	for (int c = 0; c < PMU_MAX_CPUS; c++)
		rc->ev[0].cpus[c] = true;
	rc->ev[0].tracking = true;
}

/* One ring buffer per CPU; every task's events on that CPU write into it
 * (per-task buffers cannot be used with inherit: the kernel refuses to map
 * an inherited event that follows a task on any CPU). */
int recorder__open_all(struct recorder *rc, pid_t *tasks, int nr_tasks, const bool *cpuset, int nr_cpus)
{
	size_t pages = rc->o.pages ? rc->o.pages : 128;
	int opened = 0, ret;

	/* a dwarf sample carries its stack: room for 512 of them (8 KiB
	 * stacks: 2048 pages), so that a burst of samples is not lost before
	 * the next drain */
	if (!rc->o.pages && rc->o.call_graph == CALL_GRAPH_DWARF) {
		size_t want = ((size_t)rc->o.stack_size + 512) * 512 / rc->page;

		while (pages < want && pages < 8192)
			pages *= 2;
	}
	for (int c = 0; c < nr_cpus; c++) {
		int out = -1;

		if (!cpuset[c])
			continue;
		for (int t = 0; t < nr_tasks; t++) {
			ret = open_slot(rc, tasks[t], c, &out, pages);
			if (ret < 0)
				return ret;
			opened += ret;
		}
		if (c < PMU_MAX_CPUS)
			rc->cpu_out[c] = out;
	}
	if (!opened) {
		open_failed(rc, nr_tasks && tasks[0] > 0 ? RECORD_OPEN_NO_TASK : RECORD_OPEN_NO_CPU, ESRCH, NULL, 0);
		return -ESRCH;
	}
	return 0;
}

/* Closing a uprobe event waits for the kernel to unregister it, one after
 * another (~90 ms each here, threads or not): the 30 events of a 1 s
 * record -p --alloc took 2.6 s more. A detached process of our own holds
 * them and closes them by exiting, after the recording ended and its file
 * was written; the events are disabled already. Returns false when it
 * could not be made (the caller closes them itself). */
static bool close_detached(const int *fds, size_t nr)
{
	int done[2];
	pid_t child;
	char c;

	if (pipe2(done, O_CLOEXEC))
		return false;
	child = fork();
	if (child < 0) {
		close(done[0]);
		close(done[1]);
		return false;
	}
	if (!child) {
		/* a pipe reading our output must not wait for the grandchild */
		if (fork() == 0) {
			close(STDIN_FILENO);
			close(STDOUT_FILENO);
			close(STDERR_FILENO);
			close(done[1]);
			/* ours go first (end of file: we closed them), so
			 * the slow last closes are the grandchild's */
			while (read(done[0], &c, 1) < 0 && errno == EINTR)
				;
			for (size_t i = 0; i < nr; i++)
				close(fds[i]);
		}
		_exit(0);
	}
	close(done[0]);
	waitpid(child, NULL, 0);
	for (size_t i = 0; i < nr; i++)
		close(fds[i]);
	close(done[1]);
	return true;
}

void recorder__close_all(struct recorder *rc)
{
	for (int i = 0; i < rc->nr_bufs; i++) {
		if (rc->bufs[i].has_aux)
			aux_ring__unmap(&rc->bufs[i].aux);
		munmap(rc->bufs[i].base, rc->bufs[i].size + rc->page);
	}
	if (!rc->probes || rc->nr_fds <= 4 || !close_detached(rc->fds, rc->nr_fds))
		for (size_t i = 0; i < rc->nr_fds; i++)
			close(rc->fds[i]);
	rc->nr_bufs = 0;
	rc->nr_fds = 0;
}

void recorder__set_enable(struct recorder *rc, bool on)
{
	for (size_t i = 0; i < rc->nr_fds; i++)
		ioctl(rc->fds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

/* The allocator probes of the threads born since the last drain, on each
 * CPU's buffer. Allocations a thread makes before this are missed. */
void recorder__follow_new_threads(struct recorder *rc)
{
	for (int t = 0; t < rc->nr_new_tids; t++) {
		for (int i = 0; i < rc->nr_ev; i++) {
			struct rec_evsel *e = &rc->ev[i];

			if (!e->pe.regs_user)
				continue;
			for (int c = 0; c < rc->nr_cpus && c < PMU_MAX_CPUS; c++) {
				uint64_t id = 0;
				int fd;

				if (!rc->cpuset[c] || rc->cpu_out[c] < 0)
					continue;
				fd = sys_open(&e->attr, rc->new_tids[t], c, -1);
				if (fd < 0)
					continue;       /* gone already */
				if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, rc->cpu_out[c]) < 0 ||
				    ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0) {
					close(fd);
					continue;
				}
				xgrow((void **)&rc->fds, &rc->alloc_fds, rc->nr_fds + 1, sizeof(*rc->fds));
				rc->fds[rc->nr_fds++] = fd;
				pd_writer__add_attr_id(rc->w, (size_t)i, id);
				ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			}
		}
	}
	rc->nr_new_tids = 0;
}

void recorder__verbose_events(const struct recorder *rc)
{
	for (int i = 0; i < rc->nr_ev; i++) {
		const struct rec_evsel *e = &rc->ev[i];

		say(rc, (struct record_msg){ .kind = RM_EVENT_OPENED, .s = { e->pe.name },
					     .n = { e->attr.type, e->attr.config, e->attr.config1, e->attr.precise_ip,
						    e->attr.sample_type, e->attr.freq,
						    e->attr.freq ? e->attr.sample_freq : e->attr.sample_period,
						    e->nr_ids | (uint64_t)e->tracking << 63 } });
	}
	say(rc, (struct record_msg){ .kind = RM_BUFFERS, .n = { (uint64_t)rc->nr_bufs,
							 rc->nr_bufs ? rc->bufs[0].size / 1024 : 0 } });
}
