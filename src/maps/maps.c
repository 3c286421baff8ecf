// SPDX-License-Identifier: GPL-2.0
/*
 * Maps timeline and the keying rule.
 *
 * Side-band events are kept until maps__finalize(), which sorts them by
 * (time, file order) and replays them into one timeline per address space
 * (util/timeline.h): every mapping is an address range valid over
 * [t_begin, t_end).
 *
 * A process id can name several address spaces over time ("incarnations"):
 * a FORK creating the pid or an exec (COMM with the exec flag) starts a new
 * one. A lookup first picks the incarnation live at the sample's time, then
 * asks its timeline. Memory is O(number of mappings) and does not depend on
 * the number of samples.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "maps/maps.h"
#include "util/htab.h"
#include "util/timeline.h"
#include "util/util.h"

#define USER_MIN_ADDR 4096ULL
#define PAGE_MASK_4K 4095ULL
#define HUGE_LEN (1ULL << 56)
#define T_INF TIMELINE_INF
#define NO_PID UINT32_MAX
#define DESC_CHUNK 256
#define ANCESTRY_WALK_MAX 4096
/* Against hostile streams (man/c2cscan-report.1, LIMITS): a FORK copies the
 * parent's mappings, so a few kB of FORK records after many MMAPs would
 * otherwise cost forks x mappings entries. What passes a limit is dropped
 * and counted in maps_stats.untracked. */
#define MAPS_MAX_ENTRIES (1u << 23)
#define MAPS_MAX_PROCS   (1u << 20)
#define MAPS_MAX_THREADS (1u << 21)

/* The public desc plus its key class, decided once when the record is added. */
struct mdesc {
	struct map_desc d;
	uint8_t kind;           /* CL_PRIVATE or CL_SHARED */
	uint8_t ident;          /* enum map_ident when CL_SHARED */
	uint8_t approx;         /* private because the record could not tell (v1 file) */
	uint64_t ident_id;      /* interned name/build-id id, or origin */
};

/* One address space of a pid, live for lookups in [t_begin, t_until). */
struct aspace {
	uint64_t t_begin, t_until;
	uint32_t ppid;          /* for the ancestry check; NO_PID if none */
	bool exited;
	struct timeline *tl;    /* values: const struct mdesc * (shared between fork copies) */
};

struct proc {
	uint32_t pid;
	struct aspace *as;      /* incarnations in time order */
	size_t nr_as, alloc_as;
};

struct comm_at {
	uint64_t t;
	const char *comm;
};

struct thread {
	uint32_t tid;
	struct comm_at *c;
	size_t nr, alloc;
};

enum sb_kind { SB_MMAP, SB_COMM, SB_FORK, SB_EXIT };

struct sb_event {
	uint64_t time, order;
	uint32_t pid, tid, ppid, ptid;
	uint8_t kind;
	bool exec;
	const void *p;          /* SB_MMAP: struct mdesc; SB_COMM: interned comm */
};

struct maps {
	uint64_t kernel_start;
	uint64_t gen;           /* tells apart lookup caches of different instances */
	bool finalized;
	struct strtab *strs;
	struct maps_stats stats;

	struct sb_event *evs;
	size_t nr_evs, alloc_evs;

	struct mdesc **chunks;  /* descs never move: users keep pointers */
	size_t nr_chunks, alloc_chunks, chunk_used;
	uint64_t next_origin;

	struct proc **procs;
	size_t nr_procs, alloc_procs;
	struct u64map pidmap;   /* pid -> index in procs */
	struct thread **threads;
	size_t nr_threads, alloc_threads;
	struct u64map tidmap;   /* tid -> index in threads */

	/* replay only */
	size_t nr_entries;      /* in all address spaces, against MAPS_MAX_ENTRIES */
};

/* ---- small helpers ---- */

static bool name_starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * Names the kernel gives to shared memory without a regular file behind it:
 * MAP_SHARED|MAP_ANONYMOUS ("/dev/zero (deleted)"), SysV shm ("/SYSV%08x",
 * the IPC key), memfd_create ("/memfd:NAME"); plus POSIX shm files.
 */
static bool name_is_shm(const char *s)
{
	return name_starts(s, "/dev/shm/") || name_starts(s, "/SYSV") ||
	       name_starts(s, "/dev/zero") || name_starts(s, "/memfd:");
}

/*
 * Names with no file identity: anonymous memory and the kernel's special
 * mappings ("[heap]", "[stack]", "[vdso]", "[anon:NAME]"), and hugetlb
 * anonymous memory ("/anon_hugepage (deleted)", "//anon_hugepage").
 */
static bool name_is_anon(const char *s)
{
	return !s[0] || s[0] != '/' || name_starts(s, "//anon") || name_starts(s, "/anon_hugepage");
}

/* ---- descs ---- */

static struct mdesc *mdesc__alloc(struct maps *m)
{
	if (!m->nr_chunks || m->chunk_used == DESC_CHUNK) {
		xgrow((void **)&m->chunks, &m->alloc_chunks, m->nr_chunks + 1, sizeof(*m->chunks));
		m->chunks[m->nr_chunks++] = xcalloc(DESC_CHUNK, sizeof(struct mdesc));
		m->chunk_used = 0;
	}
	return &m->chunks[m->nr_chunks - 1][m->chunk_used++];
}

/* Part [start, end) of md, as a desc of its own (pgoff follows the start). */
static const struct mdesc *mdesc__cut(struct maps *m, const struct mdesc *md, uint64_t start, uint64_t end)
{
	struct mdesc *n;

	if (md->d.start == start && md->d.end == end)
		return md;
	n = mdesc__alloc(m);
	*n = *md;
	n->d.pgoff += start - md->d.start;
	n->d.start = start;
	n->d.end = end;
	return n;
}

static void mdesc__classify(struct maps *m, struct mdesc *md, uint32_t pid)
{
	const char *name = md->d.name;
	char hex[2 * sizeof(md->d.build_id) + 1];

	md->kind = CL_PRIVATE;
	if (pid == KERNEL_PID)
		return;
	if (!md->d.v2) {
		/*
		 * No flags: decide by name. Shared memory names are keyed by
		 * name, which merges unrelated segments that share a name
		 * ("/dev/zero (deleted)", "/SYSV00000000"): the record does
		 * not tell more. Anonymous hugetlb ("/anon_hugepage") is
		 * private: almost always MAP_PRIVATE|MAP_HUGETLB.
		 */
		if (name_is_shm(name)) {
			md->kind = CL_SHARED;
			md->ident = MAP_ID_NAME;
			strtab__intern(m->strs, name, &md->ident_id);
		} else if (!name_is_anon(name)) {
			md->approx = 1;
			m->stats.v1_file_mappings = true;
		}
		return;
	}
	if (!(md->d.flags & MAP_SHARED))
		return;         /* MAP_PRIVATE: copy-on-write, the process's own lines */
	md->kind = CL_SHARED;
	if (!md->d.build_id_form) {
		/* An inode of 0 is valid (SysV shm uses the shm id); only a
		 * record with no device and no inode at all has no identity,
		 * so it falls back to its origin like the build-id form. */
		if (md->d.maj || md->d.min || md->d.ino) {
			md->ident = MAP_ID_INODE;
		} else {
			md->ident = MAP_ID_ORIGIN;
			md->ident_id = md->d.origin;
		}
		return;
	}
	if (md->d.build_id_size) {
		hex_encode(hex, md->d.build_id, md->d.build_id_size);
		md->ident = MAP_ID_BUILDID;
		strtab__intern(m->strs, hex, &md->ident_id);
	} else if (name_is_anon(name) || name_starts(name, "/dev/zero") || name_starts(name, "/SYSV") ||
		   name_starts(name, "/memfd:")) {
		/* no name that other processes could share: only fork shares it */
		md->ident = MAP_ID_ORIGIN;
		md->ident_id = md->d.origin;
	} else {
		md->ident = MAP_ID_BUILDID;
		strtab__intern(m->strs, name, &md->ident_id);
	}
}

/* Returns a MAPS_REJ_* reason, or -1 when the record is usable. */
static int mmap__check(const struct pd_mmap *mm, uint64_t *endp)
{
	uint64_t end = mm->start + mm->len;

	if (!mm->len)
		return MAPS_REJ_ZERO_LEN;
	if (end < mm->start) {
		if (end)
			return MAPS_REJ_WRAP;
		end = UINT64_MAX;       /* ends exactly at 2^64: drop the last byte */
		if (end <= mm->start)
			return MAPS_REJ_WRAP;   /* that byte was all of it */
	}
	*endp = end;
	if (mm->pid == KERNEL_PID)
		return -1;      /* kernel text/modules: ranges as perf computed them */
	if (mm->len > HUGE_LEN)
		return MAPS_REJ_HUGE_LEN;
	if (mm->start < USER_MIN_ADDR)
		return MAPS_REJ_LOW_START;
	if (mm->start & PAGE_MASK_4K)
		return MAPS_REJ_UNALIGNED;
	if (!mm->filename || !mm->filename[0]) {
		if (!mm->v2)
			return MAPS_REJ_NO_NAME;
		if (mm->build_id_form ? mm->build_id_size != 0 : (mm->maj || mm->min || mm->ino))
			return MAPS_REJ_NO_NAME;
	}
	return -1;
}

/* ---- public: lifetime, input ---- */

struct maps *maps__new(void)
{
	static uint64_t gens;
	struct maps *m = xcalloc(1, sizeof(*m));

	m->kernel_start = 1ULL << 63;
	m->gen = __atomic_add_fetch(&gens, 1, __ATOMIC_RELAXED);
	m->strs = strtab__new();
	return m;
}

void maps__delete(struct maps *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nr_procs; i++) {
		struct proc *p = m->procs[i];

		for (size_t j = 0; j < p->nr_as; j++)
			timeline__delete(p->as[j].tl);
		free(p->as);
		free(p);
	}
	free(m->procs);
	u64map__exit(&m->pidmap);
	for (size_t i = 0; i < m->nr_threads; i++) {
		free(m->threads[i]->c);
		free(m->threads[i]);
	}
	free(m->threads);
	u64map__exit(&m->tidmap);
	for (size_t i = 0; i < m->nr_chunks; i++)
		free(m->chunks[i]);
	free(m->chunks);
	free(m->evs);
	strtab__delete(m->strs);
	free(m);
}

uint64_t maps__kernel_start(const struct maps *m)
{
	return m->kernel_start;
}

void maps__set_kernel_start(struct maps *m, uint64_t kernel_start)
{
	m->kernel_start = kernel_start;
}

static struct sb_event *sb_event__new(struct maps *m, uint64_t time, uint8_t kind)
{
	struct sb_event *e;

	xgrow((void **)&m->evs, &m->alloc_evs, m->nr_evs + 1, sizeof(*m->evs));
	e = &m->evs[m->nr_evs];
	memset(e, 0, sizeof(*e));
	e->time = time;
	e->order = m->nr_evs++;
	e->kind = kind;
	return e;
}

static int maps__add_mmap(struct maps *m, const struct pd_event *ev, uint64_t time)
{
	const struct pd_mmap *mm = &ev->u.mmap;
	struct mdesc *md;
	struct sb_event *e;
	uint64_t end = 0;
	int rej;

	if (!mm->v2)
		m->stats.mmap_v1++;
	else if (mm->build_id_form)
		m->stats.mmap2_build_id++;
	else
		m->stats.mmap2++;
	rej = mmap__check(mm, &end);
	if (rej >= 0) {
		m->stats.rejected[rej]++;
		m->stats.rejected_total++;
		return 0;
	}
	md = mdesc__alloc(m);
	md->d.start = mm->start;
	md->d.end = end;
	md->d.pgoff = mm->pgoff;
	md->d.v2 = mm->v2;
	if (mm->v2) {
		md->d.prot = mm->prot;
		md->d.flags = mm->flags;
		md->d.build_id_form = mm->build_id_form;
		if (mm->build_id_form) {
			md->d.build_id_size = mm->build_id_size < sizeof(md->d.build_id) ?
						      mm->build_id_size : sizeof(md->d.build_id);
			memcpy(md->d.build_id, mm->build_id, md->d.build_id_size);
		} else {
			md->d.maj = mm->maj;
			md->d.min = mm->min;
			md->d.ino = mm->ino;
			md->d.ino_generation = mm->ino_generation;
		}
	}
	md->d.name = strtab__intern(m->strs, mm->filename ? mm->filename : "", NULL);
	md->d.origin = ++m->next_origin;
	mdesc__classify(m, md, mm->pid);

	e = sb_event__new(m, time, SB_MMAP);
	e->pid = mm->pid;
	e->tid = mm->tid;
	e->p = md;
	return 0;
}

int maps__add_event(struct maps *m, const struct pd_event *ev, uint64_t time)
{
	struct sb_event *e;

	if (m->finalized)
		return -EBUSY;
	switch (ev->kind) {
	case PD_MMAP:
		return maps__add_mmap(m, ev, time);
	case PD_COMM:
		e = sb_event__new(m, time, SB_COMM);
		e->pid = ev->u.comm.pid;
		e->tid = ev->u.comm.tid;
		e->exec = ev->u.comm.exec;
		e->p = strtab__intern(m->strs, ev->u.comm.comm ? ev->u.comm.comm : "", NULL);
		m->stats.comms++;
		m->stats.comm_execs += e->exec;
		return 0;
	case PD_FORK:
	case PD_EXIT:
		e = sb_event__new(m, time, ev->kind == PD_FORK ? SB_FORK : SB_EXIT);
		e->pid = ev->u.fork.pid;
		e->tid = ev->u.fork.tid;
		e->ppid = ev->u.fork.ppid;
		e->ptid = ev->u.fork.ptid;
		if (ev->kind == PD_FORK)
			m->stats.forks++;
		else
			m->stats.exits++;
		return 0;
	default:
		return 0;
	}
}

/* ---- replay: mappings ---- */

static const void *desc_cut(void *m, const void *md, uint64_t start, uint64_t end)
{
	return mdesc__cut(m, md, start, end);
}

/* A new mapping replaces whatever it overlaps from time on. */
static void aspace__map(struct maps *m, struct aspace *as, const struct mdesc *md, uint64_t time)
{
	/* at most three entries: the mapping and two cut ends of others */
	if (m->nr_entries + 3 > MAPS_MAX_ENTRIES) {
		m->stats.untracked++;
		return;
	}
	m->nr_entries += timeline__map(as->tl, md->d.start, md->d.end, time, md);
}

/* ---- replay: processes and threads ---- */

static struct proc *proc__find(const struct maps *m, uint32_t pid)
{
	uint64_t i;

	return u64map__get(&m->pidmap, pid, &i) ? m->procs[i] : NULL;
}

static struct proc *proc__findnew(struct maps *m, uint32_t pid)
{
	struct proc *p = proc__find(m, pid);

	if (p)
		return p;
	if (m->nr_procs >= MAPS_MAX_PROCS) {
		m->stats.untracked++;
		return NULL;
	}
	p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	xgrow((void **)&m->procs, &m->alloc_procs, m->nr_procs + 1, sizeof(*m->procs));
	u64map__put(&m->pidmap, pid, m->nr_procs);
	m->procs[m->nr_procs++] = p;
	return p;
}

static struct aspace *proc__cur(struct proc *p)
{
	return p && p->nr_as ? &p->as[p->nr_as - 1] : NULL;
}

/* Start a new address space for p at time (fork, exec, first sight). */
static struct aspace *proc__new_aspace(struct maps *m, struct proc *p, uint64_t time, uint32_t ppid)
{
	struct aspace *as = proc__cur(p);

	if (as)
		timeline__end_all(as->tl, time);
	/* most processes have one address space: no room for eight */
	if (!p->alloc_as) {
		p->as = xmalloc(sizeof(*p->as));
		p->alloc_as = 1;
	}
	xgrow((void **)&p->as, &p->alloc_as, p->nr_as + 1, sizeof(*p->as));
	as = &p->as[p->nr_as++];
	memset(as, 0, sizeof(*as));
	as->t_begin = time;
	as->ppid = ppid;
	as->tl = timeline__new(desc_cut, m);
	m->stats.processes++;
	return as;
}

/* The address space events of pid go to; created when first seen. A pid seen
 * for the first time without a FORK existed before the recording: from 0. */
static struct aspace *proc__aspace(struct maps *m, uint32_t pid)
{
	struct proc *p = proc__findnew(m, pid);
	struct aspace *as = proc__cur(p);

	if (!p)
		return NULL;
	return as ? as : proc__new_aspace(m, p, 0, NO_PID);
}

static struct thread *thread__find(const struct maps *m, uint32_t tid)
{
	uint64_t i;

	return u64map__get(&m->tidmap, tid, &i) ? m->threads[i] : NULL;
}

static struct thread *thread__findnew(struct maps *m, uint32_t tid)
{
	struct thread *th = thread__find(m, tid);

	if (th)
		return th;
	if (m->nr_threads >= MAPS_MAX_THREADS) {
		m->stats.untracked++;
		return NULL;
	}
	th = xcalloc(1, sizeof(*th));
	th->tid = tid;
	xgrow((void **)&m->threads, &m->alloc_threads, m->nr_threads + 1, sizeof(*m->threads));
	u64map__put(&m->tidmap, tid, m->nr_threads);
	m->threads[m->nr_threads++] = th;
	return th;
}

static const char *thread__comm(const struct thread *th, uint64_t time)
{
	size_t lo = 0, hi;

	if (!th || !th->nr)
		return NULL;
	hi = th->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (th->c[mid].t <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* before the first COMM: the earliest name is the best guess */
	return th->c[lo ? lo - 1 : 0].comm;
}

static void thread__set_comm(struct maps *m, uint32_t tid, uint64_t time, const char *comm)
{
	struct thread *th = thread__findnew(m, tid);

	if (!comm || !th)
		return;
	xgrow((void **)&th->c, &th->alloc, th->nr + 1, sizeof(*th->c));
	th->c[th->nr++] = (struct comm_at){ time, comm };
}

/* Would pid become its own ancestor if ppid forked it now? Only live
 * processes count: an exited pid may be reused by a descendant. */
static bool fork__loops(struct maps *m, uint32_t pid, uint32_t ppid)
{
	uint32_t cur = ppid;
	const struct aspace *self = proc__cur(proc__find(m, pid));

	/* the walk stops at the first pid without a live address space, so a
	 * pid without one cannot be found: the common case, no walk */
	if (!self || self->exited)
		return false;
	for (int i = 0; i < ANCESTRY_WALK_MAX; i++) {
		struct aspace *as = proc__cur(proc__find(m, cur));

		if (!as || as->exited)
			return false;
		if (cur == pid)
			return true;
		if (as->ppid == NO_PID)
			return false;
		cur = as->ppid;
	}
	return false;
}

static void replay_fork(struct maps *m, const struct sb_event *e)
{
	const char *comm;

	if (e->pid == e->ppid && e->tid == e->ptid) {
		m->stats.fork_loops++;  /* a thread creating itself */
		return;
	}
	comm = thread__comm(thread__find(m, e->ptid), e->time);
	if (!comm)
		comm = thread__comm(thread__find(m, e->ppid), e->time);
	if (e->pid == e->ppid) {
		/* new thread: shares the address space */
		proc__aspace(m, e->pid);
	} else {
		struct aspace *parent, *child;
		struct timeline_iter it;
		const struct tl_entry *pe;
		struct proc *p;

		if (fork__loops(m, e->pid, e->ppid)) {
			m->stats.fork_loops++;
			return;
		}
		p = proc__findnew(m, e->pid);
		if (!p)
			return;
		child = proc__new_aspace(m, p, e->time, e->ppid);
		parent = proc__cur(proc__find(m, e->ppid));
		/* copy the parent's live mappings */
		if (parent) {
			timeline_iter__init(&it, parent->tl);
			while ((pe = timeline_iter__next(&it))) {
				if (m->nr_entries >= MAPS_MAX_ENTRIES) {
					m->stats.untracked++;
					break;
				}
				m->nr_entries += timeline__map(child->tl, pe->start, pe->end, e->time, pe->val);
			}
			timeline_iter__exit(&it);
		}
	}
	thread__set_comm(m, e->tid, e->time, comm);
}

static void replay(struct maps *m, const struct sb_event *e)
{
	struct aspace *as;
	struct proc *p;

	switch (e->kind) {
	case SB_MMAP:
		as = proc__aspace(m, e->pid);
		if (!as)
			break;
		as->exited = false;     /* the leader may exit before its threads */
		aspace__map(m, as, e->p, e->time);
		break;
	case SB_COMM:
		if (e->exec) {
			p = proc__findnew(m, e->pid);
			as = proc__cur(p);
			if (p)
				proc__new_aspace(m, p, e->time, as ? as->ppid : NO_PID);
		} else {
			proc__aspace(m, e->pid);
		}
		thread__set_comm(m, e->tid, e->time, e->p);
		break;
	case SB_FORK:
		replay_fork(m, e);
		break;
	case SB_EXIT:
		/* Keep the mappings: samples stamped before still need them,
		 * and the leader can exit (pthread_exit) while threads run;
		 * a new FORK of the pid starts a new address space anyway. */
		as = proc__cur(proc__find(m, e->pid));
		if (as && e->tid == e->pid)
			as->exited = true;
		break;
	default:
		break;
	}
}

static int sb_event__cmp(const void *a, const void *b)
{
	const struct sb_event *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int maps__finalize(struct maps *m)
{
	if (m->finalized)
		return -EBUSY;
	if (m->nr_evs)
		qsort(m->evs, m->nr_evs, sizeof(*m->evs), sb_event__cmp);
	for (size_t i = 0; i < m->nr_evs; i++)
		replay(m, &m->evs[i]);
	free(m->evs);
	m->evs = NULL;
	m->nr_evs = m->alloc_evs = 0;
	for (size_t i = 0; i < m->nr_procs; i++) {
		struct proc *p = m->procs[i];

		for (size_t j = 0; j < p->nr_as; j++) {
			p->as[j].t_until = j + 1 < p->nr_as ? p->as[j + 1].t_begin : T_INF;
			timeline__finalize(p->as[j].tl);
		}
	}
	m->finalized = true;
	return 0;
}

/* ---- lookups ---- */

static const struct aspace *proc__aspace_at(const struct proc *p, uint64_t time)
{
	size_t lo = 0, hi = p->nr_as;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->as[mid].t_begin <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &p->as[lo - 1] : NULL;
}

/* Samples come in runs from a few mappings per process, processes
 * interleave: remember the last few hits per pid slot, in one cache for
 * data addresses (maps__key) and one for code addresses (maps__find), so
 * that the two lookups of a sample do not evict each other. Per thread, so
 * concurrent lookups on one struct maps stay correct. */
#define LOOKUP_CACHE_SLOTS 64
#define LOOKUP_CACHE_WAYS 4

/* matches nothing: an empty range */
static const struct tl_entry no_entry;

/* Which lookup cache a lookup uses. */
enum lookup_kind { LOOKUP_DATA, LOOKUP_CODE, LOOKUP__NR };

static __thread struct lookup_cache {
	uint64_t gen;
	uint32_t pid;
	uint32_t next;          /* way replaced on the next miss */
	uint32_t last;          /* way of the last hit */
	const struct aspace *as;
	uint64_t t_begin, t_span; /* as's time range: t_begin + [0, t_span) */
	const struct tl_entry *e[LOOKUP_CACHE_WAYS];
} lookup_cache[LOOKUP__NR][LOOKUP_CACHE_SLOTS];

static inline bool tl_entry__has(const struct tl_entry *x, uint64_t addr, uint64_t time)
{
	return (addr - x->start < x->end - x->start) & (time - x->t_begin < x->t_end - x->t_begin);
}

/* inlined in its two callers: it runs twice per sample */
static inline __attribute__((always_inline)) const struct tl_entry *
maps__lookup(const struct maps *m, uint32_t pid, uint64_t addr, uint64_t time, enum lookup_kind which)
{
	struct lookup_cache *lc = &lookup_cache[which][(pid ^ (pid >> 6)) & (LOOKUP_CACHE_SLOTS - 1)];
	const struct aspace *as;
	const struct tl_entry *e;

	if (!m->finalized)
		return NULL;
	if ((lc->gen == m->gen) & (lc->pid == pid) & (lc->as != NULL) & (time - lc->t_begin < lc->t_span)) {
		uintptr_t hit = 0;
		uint32_t way = 0;

		/* code addresses come in runs from one mapping */
		if (which == LOOKUP_CODE && tl_entry__has(lc->e[lc->last], addr, time))
			return lc->e[lc->last];
		/* which way holds a data address's mapping is as random as
		 * the sample: test them all, masks rather than branches (the
		 * ways hold distinct entries, disjoint ranges: one matches at
		 * most) */
#pragma GCC unroll 4
		for (unsigned int i = 0; i < LOOKUP_CACHE_WAYS; i++) {
			uintptr_t in = -(uintptr_t)tl_entry__has(lc->e[i], addr, time);

			hit |= (uintptr_t)lc->e[i] & in;
			way |= i & (uint32_t)in;
		}
		if (hit) {
			lc->last = way;
			return (const struct tl_entry *)hit;
		}
		as = lc->as;
	} else {
		const struct proc *p = proc__find(m, pid);

		as = p ? proc__aspace_at(p, time) : NULL;
		if (!as)
			return NULL;
		memset(lc, 0, sizeof(*lc));
		lc->gen = m->gen;
		lc->pid = pid;
		lc->as = as;
		lc->t_begin = as->t_begin;
		lc->t_span = as->t_until - as->t_begin;
		for (unsigned int i = 0; i < LOOKUP_CACHE_WAYS; i++)
			lc->e[i] = &no_entry;
	}
	e = timeline__find(as->tl, addr, time);
	if (e) {
		lc->e[lc->next] = e;
		lc->last = lc->next;
		lc->next = (lc->next + 1) % LOOKUP_CACHE_WAYS;
	}
	return e;
}

uint32_t maps__aspace(const struct maps *m, uint32_t pid, uint64_t time)
{
	const struct proc *p = proc__find(m, pid);
	uint32_t i = p ? p->nr_as : 0;

	while (i > 1 && p->as[i - 1].t_begin > time)
		i--;
	return i ? i - 1 : 0;
}

const struct map_desc *maps__find(const struct maps *m, uint32_t pid, uint64_t addr, uint64_t time)
{
	const struct tl_entry *e = maps__lookup(m, pid, addr, time, LOOKUP_CODE);

	return e ? &((const struct mdesc *)e->val)->d : NULL;
}

const struct map_desc *maps__key(const struct maps *m, uint32_t pid, uint64_t addr, uint64_t time,
				 uint8_t cpumode, uint32_t line_size, struct cl_key *key)
{
	uint64_t mask = ~((uint64_t)(line_size ? line_size : 64) - 1);
	bool kmode = cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
	const struct tl_entry *e;
	const struct mdesc *md;
	uint64_t shared, inode;

	memset(key, 0, sizeof(*key));
	if (addr >= m->kernel_start || pid == KERNEL_PID) {
		key->kind = CL_KERNEL;
		key->line = addr & mask;
		return maps__find(m, KERNEL_PID, addr, time);
	}
	e = maps__lookup(m, pid, addr, time, LOOKUP_DATA);
	if (!e) {
		key->line = addr & mask;
		if (kmode) {
			/* kernel code on a user address nobody mapped */
			key->kind = CL_KERNEL;
			return NULL;
		}
		key->kind = CL_PRIVATE;
		key->pid = pid;
		key->unmapped = 1;
		return NULL;
	}
	/* private or shared, filled without branches (a stream mixes them
	 * unpredictably): each field masked to zero where the kind has none */
	md = e->val;
	shared = -(uint64_t)(md->kind == CL_SHARED);
	inode = shared & -(uint64_t)(md->ident == MAP_ID_INODE);
	key->kind = md->kind == CL_SHARED ? CL_SHARED : CL_PRIVATE;
	key->pid = pid & ~(uint32_t)shared;
	key->approx = md->approx & ~(uint8_t)shared;
	key->ident = md->ident & (uint8_t)shared;
	key->maj = md->d.maj & (uint32_t)inode;
	key->min = md->d.min & (uint32_t)inode;
	key->ino = md->d.ino & inode;
	key->ino_generation = md->d.ino_generation & inode;
	key->ident_id = md->ident_id & shared & ~inode;
	key->line = (addr - (shared & (md->d.start - md->d.pgoff))) & mask;
	return &md->d;
}

/* Every field goes through its own odd multiplier, then one finalizer:
 * a hash per sample, so one mixing round instead of three. */
const char *maps__ident_name(const struct maps *m, uint64_t ident_id)
{
	return strtab__str(m->strs, ident_id);
}

const char *maps__comm(const struct maps *m, uint32_t pid, uint32_t tid, uint64_t time)
{
	const char *c = thread__comm(thread__find(m, tid), time);

	if (!c && tid != pid)
		c = thread__comm(thread__find(m, pid), time);
	return c ? c : "";
}

const struct maps_stats *maps__stats(const struct maps *m)
{
	return &m->stats;
}

size_t cl_key__scnprintf(const struct cl_key *k, const struct maps *m, char *buf, size_t size)
{
	const char *s;

	switch (k->kind) {
	case CL_KERNEL:
		return scnprintf(buf, size, "kernel");
	case CL_PRIVATE:
		return scnprintf(buf, size, "%s pid %u%s", k->unmapped ? "unmapped" : "private", k->pid,
				 k->approx ? " (approx)" : "");
	case CL_SHARED:
		break;
	default:
		return scnprintf(buf, size, "?");
	}
	switch (k->ident) {
	case MAP_ID_INODE:
		return scnprintf(buf, size, "shared %02x:%02x ino %" PRIu64, k->maj, k->min, k->ino);
	case MAP_ID_NAME:
	case MAP_ID_BUILDID:
		s = maps__ident_name(m, k->ident_id);
		return scnprintf(buf, size, "shared %s %s", k->ident == MAP_ID_NAME ? "name" : "build-id",
				 s ? s : "?");
	case MAP_ID_ORIGIN:
		return scnprintf(buf, size, "shared origin #%" PRIu64, k->ident_id);
	default:
		return scnprintf(buf, size, "shared");
	}
}
