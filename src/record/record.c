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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "perfdata/buildid.h"
#include "perfdata/alloc.h"
#include "record/alloc.h"
#include "record/emurec.h"
#include "record/buildcache.h"
#include "record/probes.h"
#include "record/record.h"
#include "record/pmu.h"
#include "record/synth.h"
#include "util/util.h"
#include "perfdata/writer.h"

#ifndef C2CSCAN_VERSION
#define C2CSCAN_VERSION "0.0.0"
#endif

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
	uint8_t *tmp;           /* a record that wraps the ring end */
	int werr;
	pid_t child;            /* the command, or 0 */
	int reserve_fd;         /* blocks held back for the header on a full disk */
	pid_t *procs;           /* -p/-t: thread group ids to watch */
	int nr_procs;
	bool memory;            /* some event is a memory event */
	char why[512];          /* the sentence for the last failure */
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

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = sig;
}

/* Only there to interrupt ppoll() when the command exits. */
static void on_sigchld(int sig)
{
	(void)sig;
}

/* Handlers for SIGINT/SIGTERM/SIGCHLD, delivered only inside ppoll() (the
 * mask blocks them elsewhere), so an exit is never missed between the check
 * and the wait. */
static void catch_signals(sigset_t *orig)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_sigchld;
	sigaction(SIGCHLD, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, orig);
}

static void release_signals(const sigset_t *orig)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_SETMASK, orig, NULL);
}

/* One sentence for an errno of the perf_event API (open, mmap, ioctl), in one place. */
/* What failed, for record__strerror. */
enum rec_op {
	REC_OP_OPEN,            /* perf_event_open */
	REC_OP_MMAP,            /* mapping a ring buffer (pages) */
	REC_OP_SET_OUTPUT,      /* PERF_EVENT_IOC_SET_OUTPUT into a slot's buffer */
};

static const char *record__strerror(enum rec_op op, int err, const struct pmu_event *pe, size_t pages,
				    char *buf, size_t size)
{
	const char *name = pe ? pe->name : "the event";

	if (op == REC_OP_MMAP) {
		snprintf(buf, size, "cannot map a ring buffer of %zu pages: %s; use a smaller -m%s", pages,
			 strerror(err), err == EPERM ? " (or raise kernel.perf_event_mlock_kb)" : "");
		return buf;
	}
	if (op == REC_OP_SET_OUTPUT) {
		snprintf(buf, size, "%s: cannot share the ring buffer: %s", name, strerror(err));
		return buf;
	}
	switch (err) {
	case EACCES:
	case EPERM:
		snprintf(buf, size, "%s: permission denied: perf_event_paranoid is %ld; lower it "
			 "(sysctl kernel.perf_event_paranoid=-1) or grant CAP_PERFMON", name, pmu__paranoid());
		break;
	case ENOENT:
	case ENODEV:
		snprintf(buf, size, "%s: this machine has no such event or PMU (see 'c2cscan check')", name);
		break;
	case EOPNOTSUPP:
		snprintf(buf, size, "%s: the PMU cannot sample this way (%s; see 'c2cscan check')", name,
			 pe && pe->per_cpu_only ? "IBS follows CPUs, not tasks, on this kernel: use -a" :
			 "try without -u/-k, or another -c/-F");
		break;
	case ESRCH:
		snprintf(buf, size, "no such process or thread");
		break;
	case EMFILE:
	case ENFILE:
		snprintf(buf, size, "%s: too many open files: one is needed per event, CPU and thread "
			 "(raise 'ulimit -n', or use -C)", name);
		break;
	case EINVAL:
		snprintf(buf, size, "%s: the kernel refused the event settings (invalid argument); "
			 "try another -c/-F, or without -u/-k", name);
		break;
	case ENOMEM:
		snprintf(buf, size, "out of memory for ring buffers: use a smaller -m");
		break;
	default:
		snprintf(buf, size, "%s: %s", name, strerror(err));
	}
	return buf;
}

/* ---- output helpers --------------------------------------------------------- */

static int emit_record(void *ctx, const void *rec, size_t size)
{
	struct recorder *rc = ctx;

	if (!rc->werr)
		rc->werr = pd_writer__write(rc->w, rec, size);
	buildids__note(rc->bids, rec, rec);
	return rc->werr;
}

static void read_text(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (!f)
		return;
	if (!fgets(buf, (int)size, f))
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

static int read_int(const char *path, int dflt)
{
	char buf[32], *end;
	long v;

	read_text(path, buf, sizeof(buf));
	v = strtol(buf, &end, 10);
	return end == buf ? dflt : (int)v;
}

/* CPUDESC and CPUID as perf writes them (x86: "GenuineIntel,6,85,7"). */
static void set_cpu_strings(struct pd_writer *w)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512], vendor[64] = "", model_name[256] = "", midr[64];
	int family = -1, model = -1, stepping = -1;

	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *v;

		if (!colon)
			continue;
		if (line[0] == '\n')
			break;          /* the first CPU is enough */
		v = colon + 1 + (colon[1] == ' ');
		v[strcspn(v, "\n")] = 0;
		if (!strncmp(line, "vendor_id", 9))
			snprintf(vendor, sizeof(vendor), "%s", v);
		else if (!strncmp(line, "cpu family", 10))
			family = atoi(v);
		else if (!strncmp(line, "model name", 10))
			snprintf(model_name, sizeof(model_name), "%s", v);
		else if (!strncmp(line, "model", 5) && line[5] != ' ')
			model = atoi(v);
		else if (!strncmp(line, "model\t", 6))
			model = atoi(v);
		else if (!strncmp(line, "stepping", 8))
			stepping = atoi(v);
	}
	if (f)
		fclose(f);
	if (model_name[0])
		pd_writer__set_string(w, PD_FEAT_CPUDESC, model_name);
	if (vendor[0] && family >= 0) {
		snprintf(line, sizeof(line), "%s,%d,%d,%d", vendor, family, model, stepping);
		pd_writer__set_string(w, PD_FEAT_CPUID, line);
	} else {
		read_text("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", midr, sizeof(midr));
		if (midr[0])
			pd_writer__set_string(w, PD_FEAT_CPUID, midr);
	}
}

static void set_features(struct pd_writer *w, int argc, char **argv)
{
	struct utsname u;
	char host[256], path[128];
	long ncpu = sysconf(_SC_NPROCESSORS_CONF), online = sysconf(_SC_NPROCESSORS_ONLN);
	long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	int32_t *node, *core, *socket;
	char **cmd = xcalloc(argc + 2, sizeof(*cmd));
	FILE *f;

	if (ncpu < 1)
		ncpu = 1;
	if (!uname(&u)) {
		pd_writer__set_string(w, PD_FEAT_OSRELEASE, u.release);
		pd_writer__set_string(w, PD_FEAT_ARCH, u.machine);
	}
	if (!gethostname(host, sizeof(host)))
		pd_writer__set_string(w, PD_FEAT_HOSTNAME, host);
	pd_writer__set_string(w, PD_FEAT_VERSION, "c2cscan " C2CSCAN_VERSION);
	pd_writer__set_nrcpus(w, (uint32_t)ncpu, (uint32_t)(online > 0 ? online : ncpu));
	/* perf's CMDLINE starts with the tool's own name */
	cmd[0] = (char *)"c2cscan";
	for (int i = 0; i < argc; i++)
		cmd[i + 1] = argv[i];
	pd_writer__set_cmdline(w, argc + 1, (const char *const *)cmd);
	free(cmd);
	if (line <= 0)
		line = read_int("/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size", 64);
	pd_writer__set_cacheline(w, (uint32_t)(line > 0 ? line : 64));
	set_cpu_strings(w);

	node = xcalloc(ncpu, sizeof(*node));
	core = xcalloc(ncpu, sizeof(*core));
	socket = xcalloc(ncpu, sizeof(*socket));
	for (long c = 0; c < ncpu; c++) {
		node[c] = 0;
		for (int n = 0; n < 1024; n++) {
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/node%d", c, n);
			if (!access(path, F_OK)) {
				node[c] = n;
				break;
			}
		}
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/topology/core_id", c);
		core[c] = read_int(path, (int)c);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/topology/physical_package_id", c);
		socket[c] = read_int(path, 0);
	}
	pd_writer__set_topology(w, (uint32_t)ncpu, node, core, socket);
	free(node);
	free(core);
	free(socket);
	f = fopen("/proc/meminfo", "r");
	if (f) {
		unsigned long long kb;

		if (fscanf(f, "MemTotal: %llu kB", &kb) == 1)
			pd_writer__set_total_mem(w, kb);
		fclose(f);
	}
}

/*
 * A full disk must still leave a readable file: the features and header
 * are written after the data. An unlinked file in the same directory holds
 * some blocks until a write fails; closing it then gives them back.
 */
#define RESERVE_BYTES (256 << 10)

static int reserve_space(const char *out)
{
	char dir[4096], *slash;
	struct statvfs st;
	uint64_t size;
	int fd;

	snprintf(dir, sizeof(dir), "%s", out);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = 0;
	else
		*slash = 0;
	if (statvfs(dir, &st) < 0)
		return -1;
	/* a small file system: an eighth of what is free (the features take a few KiB) */
	size = (uint64_t)st.f_bavail * st.f_frsize / 8;
	if (size > RESERVE_BYTES)
		size = RESERVE_BYTES;
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (size < 4096 || posix_fallocate(fd, 0, (off_t)size)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void release_space(struct recorder *rc)
{
	if (rc->reserve_fd >= 0)
		close(rc->reserve_fd);
	rc->reserve_fd = -1;
}

/* ---- ring buffers ------------------------------------------------------------ */

/* A FORK of a new thread in a recorded process: its allocator probes are
 * opened after this drain (uprobe events cannot be inherited). */
static void note_new_thread(struct recorder *rc, const struct perf_event_header *h, const uint8_t *rec)
{
	uint32_t pid, ppid, tid;

	if (h->type != PERF_RECORD_FORK || h->size < 24 || !rc->probes || !rc->task_mode)
		return;
	memcpy(&pid, rec + 8, 4);
	memcpy(&ppid, rec + 12, 4);
	memcpy(&tid, rec + 16, 4);
	if (pid != ppid || tid == pid)
		return;
	if (rc->nr_new_tids == rc->alloc_new_tids) {
		rc->alloc_new_tids = rc->alloc_new_tids ? 2 * rc->alloc_new_tids : 16;
		rc->new_tids = xrealloc(rc->new_tids, rc->alloc_new_tids, sizeof(*rc->new_tids));
	}
	rc->new_tids[rc->nr_new_tids++] = (pid_t)tid;
}

static void count_record(struct recorder *rc, const struct perf_event_header *h, const uint8_t *rec)
{
	uint64_t v;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		rc->samples++;
		break;
	case PERF_RECORD_LOST:
		if (h->size >= 24) {
			memcpy(&v, rec + 16, sizeof(v));
			rc->lost += v;
		}
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (h->size >= 16) {
			memcpy(&v, rec + 8, sizeof(v));
			rc->lost_samples += v;
		}
		break;
	case PERF_RECORD_THROTTLE:
		rc->throttled++;
		break;
	}
}

/* Copies every complete record out of one ring buffer into the file. */
static void drain(struct recorder *rc, struct rec_buf *b)
{
	struct perf_event_mmap_page *meta = b->base;
	uint8_t *data = (uint8_t *)b->base + rc->page;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;

	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail % b->size;
		const uint8_t *rec;

		if (off + sizeof(h) <= b->size) {
			memcpy(&h, data + off, sizeof(h));
		} else {
			size_t first = b->size - off;

			memcpy(&h, data + off, first);
			memcpy((uint8_t *)&h + first, data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (off + h.size <= b->size) {
			rec = data + off;
		} else {
			size_t first = b->size - off;

			memcpy(rc->tmp, data + off, first);
			memcpy(rc->tmp + first, data, h.size - first);
			rec = rc->tmp;
		}
		count_record(rc, &h, rec);
		note_new_thread(rc, &h, rec);
		buildids__note(rc->bids, &h, rec);
		if (!rc->werr)
			rc->werr = pd_writer__write(rc->w, rec, h.size);
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

static void drain_all(struct recorder *rc)
{
	char buf[16];
	ssize_t n;
	uint64_t before = pd_writer__data_size(rc->w);

	for (int i = 0; i < rc->nr_bufs; i++)
		drain(rc, &rc->bufs[i]);
	if (pd_writer__data_size(rc->w) == before)
		return;         /* an empty round says nothing */
	n = pd_fmt_finished_round(buf, sizeof(buf));
	if (n > 0 && !rc->werr)
		rc->werr = pd_writer__write(rc->w, buf, n);
}

/* ---- events ------------------------------------------------------------------ */

static int add_event(struct recorder *rc, const struct pmu_event *pe)
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
	if (pe->memory)
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

static void fill_attr(struct recorder *rc, struct rec_evsel *e, bool task, bool on_exec)
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
	set_call_graph(a, o);
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
	if (base == MAP_FAILED) {
		int err = errno;

		record__strerror(REC_OP_MMAP, err, NULL, pages, rc->why, sizeof(rc->why));
		return -err;
	}
	xgrow((void **)&rc->bufs, &rc->alloc_bufs, rc->nr_bufs + 1, sizeof(*rc->bufs));
	b = &rc->bufs[rc->nr_bufs++];
	b->fd = fd;
	b->base = base;
	b->size = size;
	b->hup = false;
	return 0;
}

/*
 * Opens every event on one (pid, cpu) slot. The first fd of a CPU gets the
 * ring buffer (*out), the others write into it. Returns the number of
 * events opened (0: none applies here, or the task/CPU is gone) or a
 * negative errno with rc->why set.
 */
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

	if (uid >= 0 && (uid_t)uid != geteuid() && geteuid() != 0)
		snprintf(rc->why, sizeof(rc->why), "%s: pid %d belongs to another user (uid %ld): record it as "
			 "that user, or as root", e->pe.name, (int)pid, uid);
	else if (!e->attr.exclude_kernel && paranoid >= 2)
		snprintf(rc->why, sizeof(rc->why), "%s: kernel sampling is not permitted (perf_event_paranoid is %ld): "
			 "sysctl kernel.perf_event_paranoid=1, run as root or with CAP_PERFMON, or sample user "
			 "space only (:u, -u)", e->pe.name, paranoid);
	else if (pid < 0 && cpu >= 0 && paranoid >= 1)
		snprintf(rc->why, sizeof(rc->why), "%s: recording every process (-a, -C) is not permitted "
			 "(perf_event_paranoid is %ld): sysctl kernel.perf_event_paranoid=0, run as root or with "
			 "CAP_PERFMON, or record a command or -p PID", e->pe.name, paranoid);
	else
		record__strerror(REC_OP_OPEN, EACCES, &e->pe, 0, rc->why, sizeof(rc->why));
}

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
				record__strerror(REC_OP_OPEN, -fd, &e->pe, 0, rc->why, sizeof(rc->why));
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
			record__strerror(REC_OP_SET_OUTPUT, -err, &e->pe, 0, rc->why, sizeof(rc->why));
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

/* ---- targets ------------------------------------------------------------------ */

/* Threads of a process from /proc/PID/task. */
static int list_threads(pid_t pid, pid_t **tids, int *nr)
{
	char path[64];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -ESRCH;
	while ((de = readdir(d))) {
		char *end;
		long t = strtol(de->d_name, &end, 10);

		if (*end || end == de->d_name)
			continue;
		*tids = xrealloc(*tids, *nr + 1, sizeof(**tids));
		(*tids)[(*nr)++] = (pid_t)t;
	}
	closedir(d);
	return 0;
}

static bool procs_alive(const struct recorder *rc)
{
	for (int i = 0; i < rc->nr_procs; i++)
		if (!kill(rc->procs[i], 0) || errno != ESRCH)
			return true;
	return false;
}

/* ---- the recording ----------------------------------------------------------- */

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void no_memory_pmu(int err)
{
	fprintf(stderr, "c2cscan record: this machine cannot sample memory accesses%s:\n",
		err == -EOPNOTSUPP ? " with c2cscan" : "");
	mem_diagnosis__fprintf(stderr, synth__query_probe(), 0);
	fprintf(stderr, "c2cscan record: --emulate models the contention of a program built with -fsanitize=thread "
		"instead; -e page-faults records the data address of every page fault\n");
}

/* Events from -e, or this machine's memory events. 0, or the exit status. */
static int choose_events(struct recorder *rc)
{
	struct pmu_event pe[8];
	int n, err;

	/* --emulate: the model's samples, and a tracking event for the maps */
	if (!rc->o.nr_events && !rc->o.emulate) {
		n = pmu__memory_events(pe, (int)ARRAY_SIZE(pe), rc->o.ldlat, rc->o.ldlat_set);
		if (n < 0) {
			no_memory_pmu(n);
			return 1;
		}
		for (int i = 0; i < n; i++)
			add_event(rc, &pe[i]);
	}
	for (int i = 0; i < rc->o.nr_events; i++) {
		err = pmu__parse_event(rc->o.events[i], rc->o.ldlat, &pe[0]);
		if (err == -EOPNOTSUPP) {
			fprintf(stderr, "c2cscan record: event '%s': Arm SPE writes an AUX trace that c2cscan "
				"cannot decode yet; record with 'perf c2c record' and read that file with "
				"'c2cscan report'\n", rc->o.events[i]);
			return 1;
		}
		if (err == -ENODEV && (!strcmp(rc->o.events[i], "mem-loads") ||
				       !strcmp(rc->o.events[i], "mem-stores") ||
				       !strncmp(rc->o.events[i], "ibs_op", 6))) {
			no_memory_pmu(err);
			return 1;
		}
		if (err) {
			fprintf(stderr, "c2cscan record: event '%s': %s\n", rc->o.events[i],
				err == -ENODEV ? "no such PMU in /sys/bus/event_source/devices" :
				err == -ENOENT ? "unknown term (see the PMU's format/ and events/ in sysfs)" :
				"unknown event (page-faults, minor-faults, major-faults, mem-loads, "
				"mem-stores, ibs_op, or PMU/terms/)");
			return 1;
		}
		add_event(rc, &pe[0]);
	}
	if (!rc->o.nr_events && !rc->o.emulate && !rc->o.quiet) {
		bool covered[PMU_MAX_CPUS] = { false };
		long ncpu = sysconf(_SC_NPROCESSORS_CONF);

		for (int i = 0; i < rc->nr_ev; i++)
			for (int c = 0; c < PMU_MAX_CPUS; c++)
				covered[c] |= rc->ev[i].pe.memory && rc->ev[i].cpus[c];
		for (long c = 0; c < ncpu && c < PMU_MAX_CPUS; c++) {
			if (!covered[c]) {
				fprintf(stderr, "c2cscan record: warning: CPU %ld (and maybe others) has no memory "
					"event: accesses made there are not sampled\n", c);
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
static void choose_tracking(struct recorder *rc)
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
static int open_all(struct recorder *rc, pid_t *tasks, int nr_tasks, const bool *cpuset, int nr_cpus)
{
	/* a dwarf sample carries its stack: 8 KiB fill 128 pages in 64 samples */
	size_t pages = rc->o.pages ? rc->o.pages : rc->o.call_graph == CALL_GRAPH_DWARF ? 1024 : 128;
	int opened = 0, ret;

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
		snprintf(rc->why, sizeof(rc->why), "%s", nr_tasks && tasks[0] > 0 ?
			 "no such process or thread (it may have exited)" : "no CPU accepted the events");
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

static void close_all(struct recorder *rc)
{
	for (int i = 0; i < rc->nr_bufs; i++)
		munmap(rc->bufs[i].base, rc->bufs[i].size + rc->page);
	if (!rc->probes || rc->nr_fds <= 4 || !close_detached(rc->fds, rc->nr_fds))
		for (size_t i = 0; i < rc->nr_fds; i++)
			close(rc->fds[i]);
	rc->nr_bufs = 0;
	rc->nr_fds = 0;
}

static void free_all(struct recorder *rc)
{
	close_all(rc);
	release_space(rc);
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
		release_signals(&rc->sigorig);
	alloc_rec__delete(rc->alloc);
	emu_rec__delete(rc->emu);
	free(rc->probes);
	free(rc->new_tids);
}

static void set_enable(struct recorder *rc, bool on)
{
	for (size_t i = 0; i < rc->nr_fds; i++)
		ioctl(rc->fds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

/* Kernel map always; processes for -p/-t (mode 1) and -a/-C (mode 2). */
static int synthesize(struct recorder *rc, const pid_t *tids, int nr_tids, int mode)
{
	struct synth s;
	struct rec_evsel *t = &rc->ev[0];
	double t0 = now_s();
	int ret;

	for (int i = 0; i < rc->nr_ev; i++)
		if (rc->ev[i].tracking)
			t = &rc->ev[i];
	synth__init(&s, &t->attr, t->nr_ids ? t->ids[0] : 0, rc->o.synth, emit_record, rc);
	ret = synth__kernel(&s);
	if (ret || !mode) {
		synth__exit(&s);
		return ret;
	}
	if (mode == 2) {
		/* one thread: measured on a 2-CPU VM, a second one did not help
		 * (the ioctl and /proc reads are syscall-bound), see bench-synth */
		ret = synth__all(&s, 1);
	} else if (rc->o.pids) {
		for (int i = 0; i < rc->nr_procs && !ret; i++)
			ret = synth__process(&s, rc->procs[i]);
	}
	for (int i = 0; i < nr_tids && !ret && rc->o.nr_tids && mode == 1; i++) {
		int tgid = synth__tgid(tids[i]);

		if (tgid > 0)
			ret = synth__thread(&s, tgid, tids[i]);
	}
	if (ret == -ESRCH)
		ret = 0;        /* it exited meanwhile: the recording will say so */
	if (rc->o.verbose)
		fprintf(stderr, "c2cscan record: synthesized %llu processes, %llu threads, %llu maps with %s "
			"in %.1f ms\n", (unsigned long long)s.nr_procs, (unsigned long long)s.nr_threads,
			(unsigned long long)s.nr_maps, synth__method_name(s.method), (now_s() - t0) * 1e3);
	synth__exit(&s);
	return ret;
}

static void summary(const struct recorder *rc)
{
	uint64_t size = pd_writer__data_size(rc->w);
	struct stat st;
	int n = 0;

	if (rc->o.quiet)
		return;
	fprintf(stderr, "c2cscan record: %llu samples (", (unsigned long long)rc->samples);
	for (int i = 0; i < rc->nr_ev; i++) {
		if (rc->ev[i].pe.aux_leader || rc->ev[i].pe.regs_user ||
		    (rc->ev[i].tracking && rc->ev[i].pe.config == PERF_COUNT_SW_DUMMY &&
		     rc->ev[i].pe.type == PERF_TYPE_SOFTWARE))
			continue;
		fprintf(stderr, "%s%s", n++ ? ", " : "", rc->ev[i].pe.name);
	}
	if (rc->probes)
		fprintf(stderr, "%s%d allocator probes", n++ ? ", " : "", rc->probes->nr);
	if (rc->emu)
		fprintf(stderr, "%s%s", n++ ? ", " : "", PD_EMU_EVENT_NAME);
	/* the whole file, the allocation section and features included */
	if (strcmp(rc->o.out, "-") && !stat(rc->o.out, &st) && S_ISREG(st.st_mode))
		size = (uint64_t)st.st_size;
	fprintf(stderr, ") written to %s (%.1f MB)\n", rc->o.out, size / 1048576.0);
}

static void warnings(const struct recorder *rc)
{
	/* these matter even with -q: the recording is incomplete */
	if (rc->lost || rc->lost_samples)
		fprintf(stderr, "c2cscan record: lost %llu samples: raise -m or lower -F (or raise -c)\n",
			(unsigned long long)(rc->lost + rc->lost_samples));
	if (rc->throttled)
		fprintf(stderr, "c2cscan record: the kernel throttled sampling %llu times "
			"(kernel.perf_event_max_sample_rate): lower -F or raise -c\n",
			(unsigned long long)rc->throttled);
	for (int i = 0; i < rc->nr_ev; i++)
		if (rc->ev[i].fell_back_user && !rc->o.quiet)
			fprintf(stderr, "c2cscan record: %s: kernel sampling not permitted "
				"(perf_event_paranoid %ld): user space only\n", rc->ev[i].pe.name, pmu__paranoid());
}

static void verbose_events(const struct recorder *rc)
{
	for (int i = 0; i < rc->nr_ev; i++) {
		const struct rec_evsel *e = &rc->ev[i];

		fprintf(stderr, "c2cscan record: event %s: type %u config %#llx config1 %#llx precise %u "
			"sample_type %#llx %s %llu on %zu fds%s\n", e->pe.name, e->attr.type,
			(unsigned long long)e->attr.config, (unsigned long long)e->attr.config1,
			e->attr.precise_ip, (unsigned long long)e->attr.sample_type,
			e->attr.freq ? "freq" : "period",
			(unsigned long long)(e->attr.freq ? e->attr.sample_freq : e->attr.sample_period),
			e->nr_ids, e->tracking ? ", tracking" : "");
	}
	fprintf(stderr, "c2cscan record: %d ring buffers of %zu KiB\n", rc->nr_bufs,
		rc->nr_bufs ? rc->bufs[0].size / 1024 : (size_t)0);
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

/* CPUs (-C narrows) and the threads of -p and -t. */
static int find_targets(struct recorder *rc)
{
	rc->cpuset = xcalloc(PMU_MAX_CPUS, sizeof(*rc->cpuset));
	pmu__cpus(NULL, rc->cpuset, &rc->nr_cpus);
	if (rc->o.cpus) {
		memset(rc->cpuset, 0, PMU_MAX_CPUS * sizeof(*rc->cpuset));
		if (pmu__parse_cpulist(rc->o.cpus, rc->cpuset, rc->nr_cpus)) {
			fprintf(stderr, "c2cscan record: bad CPU list '%s' (CPUs 0-%d)\n", rc->o.cpus,
				rc->nr_cpus - 1);
			return 1;
		}
	}
	for (int i = 0; i < rc->o.nr_pids; i++) {
		if (list_threads(rc->o.pids[i], &rc->tasks, &rc->nr_tasks)) {
			fprintf(stderr, "c2cscan record: -p %d: no such process\n", (int)rc->o.pids[i]);
			return 1;
		}
		rc->procs = xrealloc(rc->procs, rc->nr_procs + 1, sizeof(*rc->procs));
		rc->procs[rc->nr_procs++] = rc->o.pids[i];
	}
	rc->tid_start = rc->nr_tasks;
	for (int i = 0; i < rc->o.nr_tids; i++) {
		if (synth__tgid(rc->o.tids[i]) <= 0) {
			fprintf(stderr, "c2cscan record: -t %d: no such thread\n", (int)rc->o.tids[i]);
			return 1;
		}
		rc->tasks = xrealloc(rc->tasks, rc->nr_tasks + 1, sizeof(*rc->tasks));
		rc->tasks[rc->nr_tasks++] = rc->o.tids[i];
		rc->procs = xrealloc(rc->procs, rc->nr_procs + 1, sizeof(*rc->procs));
		rc->procs[rc->nr_procs++] = rc->o.tids[i];
	}
	return 0;
}

/* The executable a launched command will run: cmd[0], or found in PATH. */
static int command_path(const char *cmd, char *out, size_t size)
{
	const char *path = getenv("PATH");

	if (strchr(cmd, '/')) {
		snprintf(out, size, "%s", cmd);
		return access(out, X_OK) ? -errno : 0;
	}
	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(out, size, "%.*s/%s", (int)n, n ? path : ".", cmd);
		if (!access(out, X_OK))
			return 0;
		path += n + (path[n] == ':');
	}
	return -ENOENT;
}

/* The user's allocators (--alloc-fn, --free-fn): in the launched command's
 * executable and the libraries it needs, or in what -p's process maps. */
static int probe_user_fns(struct recorder *rc, const char *exe, pid_t pid, char *why, size_t whysize)
{
	char *objs[64];
	int nr = exe ? probes__objects_of_exe(exe, objs, 64) : probes__objects_of_pid(pid, objs, 64), err = 0;

	for (int i = 0; i < rc->o.nr_alloc_fns && !err; i++)
		err = probes__add_user(rc->probes, objs, nr, rc->o.alloc_fns[i], false, why, whysize);
	for (int i = 0; i < rc->o.nr_free_fns && !err; i++)
		err = probes__add_user(rc->probes, objs, nr, rc->o.free_fns[i], true, why, whysize);
	for (int i = 0; i < nr; i++)
		free(objs[i]);
	return err;
}

/* --alloc: a launched command gets the shim; -p/-t/-a/-C get uprobes on the
 * C library's allocators (about 7 us a call); --alloc-fn/--free-fn get
 * uprobes on the user's functions, in the command's executable or -p's. */
static int start_alloc(struct recorder *rc)
{
	char why[512];
	bool launched = rc->cmd && !rc->task_mode && !rc->sys_mode;
	bool user_fns = rc->o.nr_alloc_fns || rc->o.nr_free_fns;
	pid_t target = rc->nr_procs ? rc->procs[0] : 0;
	int err = 0;

	if (launched && alloc_rec__new(&rc->alloc, why, sizeof(why))) {
		fprintf(stderr, "c2cscan record: %s\n", why);
		return 1;
	}
	if (!launched || user_fns)
		rc->probes = xcalloc(1, sizeof(*rc->probes));
	if (!launched)
		err = probes__add_libc(rc->probes, target, why, sizeof(why));
	/* an executable with an allocator of its own (a sanitizer's runtime
	 * linked in: Clang's -fsanitize=thread) binds its malloc ahead of the
	 * shim's: its allocators get the probes */
	if (!err && launched && rc->exe[0] && probes__func_offset(rc->exe, "malloc") >= 0 &&
	    probes__func_offset(rc->exe, "free") >= 0) {
		if (!rc->probes)
			rc->probes = xcalloc(1, sizeof(*rc->probes));
		err = probes__add_allocators(rc->probes, rc->exe, false, why, sizeof(why));
		rc->exe_allocator = !err;
		if (!err && !rc->o.quiet)
			fprintf(stderr, "c2cscan record: --alloc: %s has an allocator of its own (a sanitizer's runtime?): "
				"probing it (uprobes, about 7 us a call)\n", rc->exe);
	}
	if (!err && user_fns) {
		/* a launched command's executable was found before (record__run) */
		if (!launched && !target) {
			err = -EINVAL;
			snprintf(why, sizeof(why),
				 "--alloc-fn: give the process (-p) or the command whose functions to probe");
		} else {
			err = probe_user_fns(rc, launched ? rc->exe : NULL, target, why, sizeof(why));
		}
	}
	for (int i = 0; !err && rc->probes && i < rc->probes->nr; i++)
		err = add_event(rc, &rc->probes->ev[i]);
	if (err) {
		fprintf(stderr, "c2cscan record: %s\n", err == -E2BIG ? "--alloc: too many events" : why);
		return 1;
	}
	if (rc->probes && rc->o.verbose)
		fprintf(stderr, "c2cscan record: --alloc: %d uprobes\n", rc->probes->nr);
	return 0;
}

/* The output file; perf's convention: keep the previous recording as FILE.old. */
static int open_output(struct recorder *rc)
{
	int ret;
	struct stat st;

	/* a previous recording, not a device or a pipe: as root, -o /dev/null
	 * moved /dev/null away and put a regular file in its place */
	snprintf(rc->old, sizeof(rc->old), "%s.old", rc->o.out);
	if (!stat(rc->o.out, &st) && S_ISREG(st.st_mode) && st.st_size && !rename(rc->o.out, rc->old))
		rc->moved_old = true;
	ret = pd_writer__open(&rc->w, rc->o.out);
	if (ret < 0) {
		fprintf(stderr, "c2cscan record: cannot write %s: %s\n", rc->o.out, strerror(-ret));
		return 1;
	}
	rc->tmp = xmalloc(1 << 16);
	rc->bids = buildids__new();
	rc->reserve_fd = reserve_space(rc->o.out);
	return 0;
}

/* The launched command: forked now, it waits on the go pipe so that the
 * events can be opened on its pid first, and execs when told (the events
 * enable at exec). */
static int fork_command(struct recorder *rc)
{
	if (pipe2(rc->go, O_CLOEXEC) < 0 || pipe2(rc->fail, O_CLOEXEC) < 0) {
		fprintf(stderr, "c2cscan record: pipe: %s\n", strerror(errno));
		return 1;
	}
	rc->child = fork();
	if (rc->child < 0) {
		fprintf(stderr, "c2cscan record: fork: %s\n", strerror(errno));
		return 1;
	}
	if (!rc->child) {
		char x;
		int e;

		close(rc->go[1]);
		close(rc->fail[0]);
		if (read(rc->go[0], &x, 1) != 1)
			_exit(127);
		if (rc->alloc)
			alloc_rec__child_env(rc->alloc, rc->o.call_graph != CALL_GRAPH_NONE);
		if (rc->emu)
			emu_rec__child_env(rc->emu, (uint32_t)rc->o.period, rc->o.emulate_hitm, rc->o.emulate_line,
					   rc->o.call_graph != CALL_GRAPH_NONE);
		execvp(rc->cmd[0], rc->cmd);
		e = errno;
		if (write(rc->fail[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(rc->go[0]);
	close(rc->fail[1]);
	rc->go[0] = rc->fail[1] = -1;
	return 0;
}

/* Every event on every target, their attrs and ids into the file. */
static int open_events(struct recorder *rc)
{
	pid_t pid_any = -1;
	bool launched = rc->cmd && !rc->sys_mode && !rc->task_mode;
	int ret;

	if (launched && fork_command(rc))
		return 1;
	for (int i = 0; i < rc->nr_ev; i++)
		fill_attr(rc, &rc->ev[i], launched || rc->task_mode, launched);
	if (launched)
		ret = open_all(rc, &rc->child, 1, rc->cpuset, rc->nr_cpus);
	else if (rc->task_mode)
		ret = open_all(rc, rc->tasks, rc->nr_tasks, rc->cpuset, rc->nr_cpus);
	else
		ret = open_all(rc, &pid_any, 1, rc->cpuset, rc->nr_cpus);
	if (ret < 0) {
		if (ret == -ESRCH && rc->task_mode)
			fprintf(stderr, "c2cscan record: %s\n", rc->why);
		else
			fprintf(stderr, "c2cscan record: cannot open %s\n", rc->why);
		if (rc->memory && (ret == -ENOENT || ret == -ENODEV || ret == -EOPNOTSUPP))
			no_memory_pmu(ret);
		return 1;
	}
	if (rc->task_mode)
		set_enable(rc, true);
	for (int i = 0; i < rc->nr_ev; i++) {
		ret = pd_writer__add_attr(rc->w, &rc->ev[i].attr, rc->ev[i].pe.name, rc->ev[i].ids,
					  rc->ev[i].nr_ids);
		if (ret < 0) {
			fprintf(stderr, "c2cscan record: %s: %s\n", rc->o.out, strerror(-ret));
			return 1;
		}
	}
	return 0;
}

/* Let the command run: a launched one execs now (its exec failure comes
 * back on the fail pipe); with -p/-t/-a it only says how long, and starts. */
static int start_command(struct recorder *rc)
{
	if (rc->cmd && (rc->task_mode || rc->sys_mode)) {
		rc->child = fork();
		if (rc->child < 0) {
			fprintf(stderr, "c2cscan record: fork: %s\n", strerror(errno));
			return 1;
		}
		if (!rc->child) {
			release_signals(&rc->sigorig);
			execvp(rc->cmd[0], rc->cmd);
			fprintf(stderr, "c2cscan record: cannot run '%s': %s\n", rc->cmd[0], strerror(errno));
			_exit(127);
		}
	} else if (rc->child) {
		if (write(rc->go[1], "x", 1) != 1)
			rc->child_err = EPIPE;
		close(rc->go[1]);
		rc->go[1] = -1;
		if (read(rc->fail[0], &rc->child_err, sizeof(rc->child_err)) != sizeof(rc->child_err))
			rc->child_err = 0;
		close(rc->fail[0]);
		rc->fail[0] = -1;
	}
	return 0;
}

/* The allocator probes of the threads born since the last drain, on each
 * CPU's buffer. Allocations a thread makes before this are missed. */
static void follow_new_threads(struct recorder *rc)
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

/* Drain the buffers until the command ends, the processes are gone, the
 * duration passes, a signal comes or a write fails. */
static void drain_loop(struct recorder *rc)
{
	struct pollfd *pfd = xcalloc(rc->nr_bufs ? rc->nr_bufs : 1, sizeof(*pfd));
	double t0 = now_s();

	for (;;) {
		struct timespec tick = { 0, 100 * 1000 * 1000 };
		int n = 0;

		for (int i = 0; i < rc->nr_bufs; i++)
			if (!rc->bufs[i].hup)
				pfd[n++] = (struct pollfd){ .fd = rc->bufs[i].fd, .events = POLLIN };
		if (ppoll(pfd, n, &tick, &rc->sigorig) > 0) {
			for (int i = 0, j = 0; i < rc->nr_bufs && j < n; i++) {
				if (rc->bufs[i].hup)
					continue;
				if (pfd[j++].revents & (POLLHUP | POLLERR))
					rc->bufs[i].hup = true;
			}
		}
		drain_all(rc);
		follow_new_threads(rc);
		if (rc->o.duration > 0 && !stop_requested && now_s() - t0 >= rc->o.duration)
			stop_requested = SIGTERM;
		if (stop_requested && rc->child > 0) {
			/* SIGTERM, not the signal we got: a command started in
			 * the background of a script ignores SIGINT */
			kill(rc->child, SIGTERM);
		}
		if (rc->child > 0) {
			pid_t w = waitpid(rc->child, &rc->status, WNOHANG);

			if (w == rc->child || (w < 0 && errno == ECHILD))
				break;
		} else if (stop_requested) {
			break;
		}
		if (rc->task_mode && !procs_alive(rc))
			break;
		if (rc->werr) {
			if (rc->child > 0)
				kill(rc->child, SIGTERM);
			break;
		}
	}
	free(pfd);
	set_enable(rc, false);
	drain_all(rc);
}

/* The allocation events the shim wrote, into the file (one warning line
 * when there are none: the program is static or setuid, or ended by _exit
 * or a signal before it wrote). */
static void collect_allocs(struct recorder *rc)
{
	struct alloc_rec_stats st;
	size_t len;
	uint8_t *p = alloc_rec__collect(rc->alloc, &len, &st);

	/* the executable's own allocator was probed instead */
	if (!p && rc->exe_allocator)
		return;
	if (!p) {
		fprintf(stderr, "c2cscan record: --alloc: no allocation events: the shim did not load (a setuid "
			"program?) or the program ended before writing them (_exit, a signal)\n");
		return;
	}
	pd_writer__set_alloc(rc->w, p, len);
	if (st.dropped)
		fprintf(stderr, "c2cscan record: --alloc: %llu allocation events past the limit of %llu were dropped "
			"(the file says so; heap objects of the run's end are unnamed)\n",
			(unsigned long long)st.dropped, (unsigned long long)st.events);
	if (!rc->o.quiet)
		fprintf(stderr, "c2cscan record: %llu allocation events from %llu process(es), %.1f bytes each "
			"in the file\n", (unsigned long long)st.events, (unsigned long long)st.processes,
			st.events ? (double)st.bytes / st.events : 0.0);
}

/* The coherence model's samples, under an attr of their own (one warning
 * line when there are none: the command is not built with -fsanitize=thread,
 * or ended before writing them). */
static void collect_emulated(struct recorder *rc)
{
	struct perf_event_attr attr;
	struct emu_rec_stats st;
	/* an id no kernel event of this file has */
	const uint64_t id = 0xc2c5ca0000000001ULL;
	int ret;

	emu_rec__attr(&attr, rc->o.call_graph != CALL_GRAPH_NONE);
	ret = pd_writer__add_attr(rc->w, &attr, PD_EMU_EVENT_NAME, &id, 1);
	if (!ret)
		ret = emu_rec__collect(rc->emu, rc->w, &attr, id, &st);
	if (ret < 0) {
		rc->werr = ret;
		return;
	}
	rc->samples += st.samples;
	if (st.torn || st.bad)
		fprintf(stderr, "c2cscan record: --emulate: %llu samples of an unknown class and %llu cut chunks "
			"skipped\n", (unsigned long long)st.bad, (unsigned long long)st.torn);
	if (!st.processes)
		fprintf(stderr, "c2cscan record: --emulate: no emulated samples: the command is not built with "
			"-fsanitize=thread (GCC or Clang), or it ended before writing them (_exit, a signal)\n");
	else if (!rc->o.quiet)
		fprintf(stderr, "c2cscan record: %llu emulated samples from %llu process(es) (a coherence model "
			"over the accesses of a -fsanitize=thread build)\n", (unsigned long long)st.samples,
			(unsigned long long)st.processes);
}

/* The launched command's own exit status, as a shell gives it (128 + the
 * signal that killed it), said in one line when it is not 0. */
static int command_status(const struct recorder *rc)
{
	int st = rc->status;

	if (WIFEXITED(st)) {
		if (WEXITSTATUS(st))
			fprintf(stderr, "c2cscan record: the command exited with status %d\n", WEXITSTATUS(st));
		return WEXITSTATUS(st);
	}
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "c2cscan record: the command was killed by signal %d (%s)%s\n", WTERMSIG(st),
			strsignal(WTERMSIG(st)), WCOREDUMP(st) ? ", core dumped" : "");
		return 128 + WTERMSIG(st);
	}
	return 1;
}

/* The file's end: buffers closed, data flushed, build-ids and header
 * written. Returns the exit status. */
static int finish(struct recorder *rc)
{
	int ret;

	close_all(rc);
	if (!rc->werr)
		rc->werr = pd_writer__flush(rc->w);
	release_space(rc);
	if (!rc->werr) {
		size_t nb = buildids__write(rc->bids, rc->w);

		if (rc->o.verbose)
			fprintf(stderr, "c2cscan record: build-ids of %zu of %zu mapped objects (and the kernel's)%s\n",
				nb, buildids__nr(rc->bids), buildids__dropped(rc->bids) ? "; more were not noted" : "");
		if (!rc->o.no_buildid_cache) {
			struct buildcache_stats bc;

			buildcache__store(rc->bids, &bc);
			if (rc->o.verbose)
				fprintf(stderr, "c2cscan record: build-id cache (~/.debug): %zu objects copied, %zu "
					"there already\n", bc.copied, bc.present);
			if (bc.failed)
				fprintf(stderr, "c2cscan record: could not keep %zu objects in the build-id cache "
					"(~/.debug): after a rebuild their names are lost\n", bc.failed);
		}
	}
	if (!rc->werr && rc->alloc)
		collect_allocs(rc);
	if (!rc->werr && rc->emu)
		collect_emulated(rc);
	ret = pd_writer__finish(rc->w);
	if (!rc->werr && ret < 0)
		rc->werr = ret;
	if (rc->child_err)
		return 1;       /* the command never ran: record__run removes the file */
	if (rc->werr) {
		fprintf(stderr, "c2cscan record: writing %s failed: %s; recording stopped (the file holds "
			"the records written before%s)\n", rc->o.out, strerror(-rc->werr),
			ret < 0 ? ", but its header could not be written: it is not readable" : " and is readable");
		summary(rc);
		return 1;
	}
	warnings(rc);
	summary(rc);
	if (rc->child > 0 && !stop_requested && !rc->task_mode && !rc->sys_mode)
		return command_status(rc);
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
	close_all(rc);
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
		int err = command_path(cmd[0], rc->exe, sizeof(rc->exe));

		if (err) {
			fprintf(stderr, "c2cscan record: cannot run '%s': %s\n", cmd[0], strerror(-err));
			status = 1;
			goto out;
		}
	}
	status = choose_events(rc);
	if (status)
		goto out;
	choose_tracking(rc);
	status = find_targets(rc);
	if (!status && o->alloc)
		status = start_alloc(rc);
	if (!status && o->emulate) {
		char why[512];

		if (emu_rec__new(&rc->emu, why, sizeof(why))) {
			fprintf(stderr, "c2cscan record: %s\n", why);
			status = 1;
		}
	}
	if (!status)
		status = open_output(rc);
	if (!status)
		status = open_events(rc);
	if (!status) {
		set_features(rc->w, argc, argv);
		/* the lines the report keys by are the model's */
		if (rc->o.emulate)
			pd_writer__set_cacheline(rc->w, rc->o.emulate_line ? rc->o.emulate_line : 64);
		if (rc->o.verbose)
			verbose_events(rc);
		status = synthesize(rc, rc->tasks + rc->tid_start, rc->nr_tasks - rc->tid_start,
				    rc->sys_mode ? 2 : rc->task_mode ? 1 : 0);
		if (status < 0 || rc->werr) {
			fprintf(stderr, "c2cscan record: synthesizing maps: %s\n",
				strerror(rc->werr ? -rc->werr : -status));
			status = 1;
		}
	}
	if (status) {
		abandon(rc);
		goto out;
	}
	catch_signals(&rc->sigorig);
	rc->signals_caught = true;
	status = start_command(rc);
	if (!status)
		drain_loop(rc);
	status = finish(rc) | status;
	if (rc->child_err) {
		fprintf(stderr, "c2cscan record: cannot run '%s': %s\n", cmd[0], strerror(rc->child_err));
		rc->child = 0;          /* reaped */
		abandon(rc);
	}
out:
	free_all(rc);
	free(rc);
	return status;
}
