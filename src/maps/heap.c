// SPDX-License-Identifier: GPL-2.0
/* Heap objects over time (heap.h): one timeline of objects per process. */
#include <stdlib.h>
#include <string.h>
#include "maps/heap.h"
#include "util/htab.h"
#include "util/timeline.h"
#include "util/util.h"

#define OBJ_CHUNK 4096
#define MAX_OBJ_SIZE (1ULL << 47)

struct heap_proc {
	uint32_t pid;
	struct timeline *tl;    /* values: const struct heap_obj * */
	/* live zero-size allocations (malloc(0) returns a unique pointer its
	 * free must match): a byte each, values &zero_live or &zero_freed;
	 * made at the first one, never asked by heap__find (no byte is theirs) */
	struct timeline *zero;
};

static const char zero_live, zero_freed;

struct heap {
	struct heap_proc *procs;
	size_t nr_procs, alloc_procs;
	struct u64map idx;      /* pid -> index in procs */
	struct heap_obj **chunks; /* objects never move: the timelines point at them */
	size_t nr_objs, alloc_chunks;
	struct heap_stats stats;
};

/* A later object cuts an earlier one: the remaining parts are still it
 * (offsets stay relative to its start). */
static const void *same_obj(void *ctx, const void *val, uint64_t start, uint64_t end)
{
	return val;
}

static struct heap_obj *obj__new(struct heap *h)
{
	size_t i = h->nr_objs++;

	if (i % OBJ_CHUNK == 0) {
		xgrow((void **)&h->chunks, &h->alloc_chunks, i / OBJ_CHUNK + 1, sizeof(*h->chunks));
		h->chunks[i / OBJ_CHUNK] = xmalloc(OBJ_CHUNK * sizeof(struct heap_obj));
	}
	h->chunks[i / OBJ_CHUNK][i % OBJ_CHUNK].key = (uint32_t)i + 1;
	return &h->chunks[i / OBJ_CHUNK][i % OBJ_CHUNK];
}

static struct heap_proc *proc__find(const struct heap *h, uint32_t pid)
{
	uint64_t i;

	return u64map__get(&h->idx, pid, &i) ? &h->procs[i] : NULL;
}

static struct heap_proc *proc__findnew(struct heap *h, uint32_t pid)
{
	struct heap_proc *p = proc__find(h, pid);

	if (p)
		return p;
	xgrow((void **)&h->procs, &h->alloc_procs, h->nr_procs + 1, sizeof(*h->procs));
	p = &h->procs[h->nr_procs];
	p->pid = pid;
	p->tl = timeline__new(same_obj, NULL);
	p->zero = NULL;
	u64map__put(&h->idx, pid, h->nr_procs++);
	h->stats.processes++;
	return p;
}

static void replay_alloc(struct heap *h, struct heap_proc *p, const struct pd_alloc_event *e)
{
	const struct tl_entry *live;
	struct heap_obj *o;

	if (!e->size) {
		if (!p->zero)
			p->zero = timeline__new(same_obj, NULL);
		timeline__map(p->zero, e->addr, e->addr + 1, e->time, &zero_live);
		h->stats.zero_size++;
		h->stats.allocs++;
		return;
	}
	if (e->size > MAX_OBJ_SIZE || e->addr + e->size < e->addr) {
		h->stats.absurd++;
		return;
	}
	live = timeline__live_find(p->tl, e->addr);
	/* a user allocator's object inside a C library one (an arena) is the
	 * innermost object, not an overlap */
	if (live && live->val && !((const struct heap_obj *)live->val)->freed &&
	    (e->fn >= PD_ALLOC_FN_USER) == (((const struct heap_obj *)live->val)->fn >= PD_ALLOC_FN_USER))
		h->stats.overlaps++;
	o = obj__new(h);
	*o = (struct heap_obj){ .key = o->key, .addr = e->addr, .size = e->size, .site = e->site, .time = e->time,
				.pid = e->pid, .tid = e->tid, .fn = e->fn, .id = (uint32_t)h->stats.allocs,
				.stack = e->reserved };
	timeline__map(p->tl, e->addr, e->addr + e->size, e->time, o);
	h->stats.allocs++;
}

static void replay_free(struct heap *h, struct heap_proc *p, const struct pd_alloc_event *e)
{
	const struct tl_entry *live = timeline__live_find(p->tl, e->addr);
	const struct heap_obj *was = live ? live->val : NULL;
	struct heap_obj *o;
	uint32_t key;

	if (!was || was->freed || was->addr != e->addr) {
		live = p->zero ? timeline__live_find(p->zero, e->addr) : NULL;
		if (live && live->val == &zero_live && live->start == e->addr) {
			timeline__map(p->zero, e->addr, e->addr + 1, e->time, &zero_freed);
			h->stats.frees++;
			return;
		}
		h->stats.unmatched_frees++;
		return;
	}
	o = obj__new(h);
	key = o->key;
	/* the heap owns its objects: the live one learns its end too */
	((struct heap_obj *)was)->freed_at = e->time;
	*o = *was;
	o->key = key;
	o->freed = true;
	timeline__map(p->tl, was->addr, was->addr + was->size, e->time, o);
	h->stats.frees++;
}

struct order {
	uint32_t pid;
	uint64_t time;
	uint64_t i;
};

static int order_cmp(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* A child's inheritance: the parent's live objects at the fork. */
struct snapshot {
	uint32_t child;
	uint64_t time;
	const struct heap_obj **objs;
	size_t nr;
};

static int fork_time_cmp(const void *a, const void *b)
{
	const struct heap_fork *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* The parent's live objects now, for each child forked by time (the forks
 * of parent from *k on, in time order). */
static void take_snapshots(struct heap *h, struct heap_proc *p, const struct heap_fork *forks, size_t nr_forks,
			   size_t *k, uint64_t time, struct snapshot *snaps)
{
	for (; *k < nr_forks && forks[*k].time <= time; (*k)++) {
		struct snapshot *sn = &snaps[*k];
		struct timeline_iter it;
		const struct tl_entry *e;
		size_t alloc = 0;

		if (forks[*k].ppid != p->pid)
			continue;
		sn->child = forks[*k].pid;
		sn->time = forks[*k].time;
		timeline_iter__init(&it, p->tl);
		while ((e = timeline_iter__next(&it))) {
			const struct heap_obj *o = e->val;

			if (!o || o->freed)
				continue;
			if (h->stats.fork_copies >= HEAP_MAX_FORK_COPIES) {
				h->stats.fork_copies_dropped++;
				continue;
			}
			xgrow((void **)&sn->objs, &alloc, sn->nr + 1, sizeof(*sn->objs));
			sn->objs[sn->nr++] = o;
			h->stats.fork_copies++;
		}
		timeline_iter__exit(&it);
	}
}

/* A child starts with its snapshot: copies of the objects, its own. */
static void inherit(struct heap *h, struct heap_proc *c, const struct snapshot *sn)
{
	for (size_t i = 0; i < sn->nr; i++) {
		const struct heap_obj *o = sn->objs[i];
		struct heap_obj *copy = obj__new(h);
		uint32_t key = copy->key;

		/* pid stays the allocating process: its maps name the site */
		*copy = *o;
		copy->key = key;
		timeline__map(c->tl, o->addr, o->addr + o->size, sn->time, copy);
	}
}

/* A mapping made over [start, end) at time: the freed ranges there are
 * gone (a munmapped block's range mapped again by plain mmap is not the
 * freed object's). Live objects stay: brk and mprotect report the whole,
 * merged mapping again. */
static void forget_freed(struct heap_proc *p, uint64_t start, uint64_t end, uint64_t time)
{
	const struct tl_entry *x;
	uint64_t a = start;

	while (a < end && (x = timeline__live_next(p->tl, a)) && x->start < end) {
		uint64_t lo = x->start > start ? x->start : start, hi = x->end < end ? x->end : end, next = x->end;
		const struct heap_obj *o = x->val;

		/* x moves with the timeline's entries: read before mapping. A
		 * mapping that starts before the object's page is an old one
		 * reported again, merged (brk, an arena's mprotect): not new */
		if (o && o->freed && start >= (o->addr & ~0xfffULL))
			timeline__map(p->tl, lo, hi, time, NULL);
		a = next;
	}
}

static int mmap_cmp(const void *a, const void *b)
{
	const struct heap_mmap *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/* The mmaps of pid before time (from *k on, in (pid, time) order). */
static void apply_mmaps(struct heap_proc *p, const struct heap_mmap *mm, size_t nr, size_t *k, uint64_t time)
{
	while (*k < nr && mm[*k].pid < p->pid)
		(*k)++;
	for (; *k < nr && mm[*k].pid == p->pid && mm[*k].time < time; (*k)++)
		forget_freed(p, mm[*k].start, mm[*k].end, mm[*k].time);
}

struct pid_run {
	uint32_t pid;
	uint64_t born;          /* fork time, 0 when not forked in the recording */
	size_t start, end;      /* its events in ord */
};

static int run_cmp(const void *a, const void *b)
{
	const struct pid_run *x = a, *y = b;

	if (x->born != y->born)
		return x->born < y->born ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

struct heap *heap__new(const struct pd_alloc_event *ev, uint64_t nr, const struct heap_side *side)
{
	const struct heap_fork *forks_in = side ? side->forks : NULL;
	size_t nr_forks = side ? side->nr_forks : 0, nr_mm = side ? side->nr_mmaps : 0;
	struct heap_mmap *mm = xmalloc((nr_mm ? nr_mm : 1) * sizeof(*mm));
	struct heap *h = xcalloc(1, sizeof(*h));
	struct order *ord = xmalloc((nr ? nr : 1) * sizeof(*ord));
	struct heap_fork *forks = xmalloc((nr_forks ? nr_forks : 1) * sizeof(*forks));
	struct snapshot *snaps = xcalloc(nr_forks ? nr_forks : 1, sizeof(*snaps));
	struct pid_run *runs = NULL;
	size_t nr_runs = 0, alloc_runs = 0;

	for (uint64_t i = 0; i < nr; i++)
		ord[i] = (struct order){ ev[i].pid, ev[i].time, i };
	qsort(ord, nr, sizeof(*ord), order_cmp);
	if (nr_forks)
		memcpy(forks, forks_in, nr_forks * sizeof(*forks));
	qsort(forks, nr_forks, sizeof(*forks), fork_time_cmp);
	if (nr_mm)
		memcpy(mm, side->mmaps, nr_mm * sizeof(*mm));
	qsort(mm, nr_mm, sizeof(*mm), mmap_cmp);
	h->stats.events = nr;
	/* a run of events per pid, and a run for each forked child (its
	 * events, or none: it may only touch what it inherited) */
	for (uint64_t k = 0; k < nr; k++) {
		if (!nr_runs || runs[nr_runs - 1].pid != ord[k].pid) {
			xgrow((void **)&runs, &alloc_runs, nr_runs + 1, sizeof(*runs));
			runs[nr_runs++] = (struct pid_run){ ord[k].pid, 0, k, k };
		}
		runs[nr_runs - 1].end = k + 1;
	}
	for (size_t f = 0, have = nr_runs; f < nr_forks; f++) {
		size_t i;

		for (i = 0; i < have && runs[i].pid != forks[f].pid; i++)
			;
		if (i == have) {
			xgrow((void **)&runs, &alloc_runs, nr_runs + 1, sizeof(*runs));
			runs[nr_runs++] = (struct pid_run){ forks[f].pid, forks[f].time, 0, 0 };
			have = nr_runs;
		} else if (!runs[i].born) {
			runs[i].born = forks[f].time;
		}
	}
	/* parents before their children: by the time each was forked */
	if (nr_runs)
		qsort(runs, nr_runs, sizeof(*runs), run_cmp);
	for (size_t r = 0; r < nr_runs; r++) {
		struct heap_proc *p = NULL;
		size_t fk = 0, mk = 0;

		/* its inheritance: the latest fork that made it */
		for (size_t f = nr_forks; f-- > 0;) {
			if (snaps[f].child == runs[r].pid && snaps[f].time <= (runs[r].end > runs[r].start ?
			    ev[ord[runs[r].start].i].time : UINT64_MAX)) {
				p = proc__findnew(h, runs[r].pid);
				inherit(h, p, &snaps[f]);
				break;
			}
		}
		if (runs[r].end == runs[r].start && !p)
			continue;
		if (!p)
			p = proc__findnew(h, runs[r].pid);
		for (size_t k = runs[r].start; k < runs[r].end; k++) {
			const struct pd_alloc_event *e = &ev[ord[k].i];

			take_snapshots(h, p, forks, nr_forks, &fk, e->time - (e->time > 0), snaps);
			apply_mmaps(p, mm, nr_mm, &mk, e->time);
			if (e->kind == PD_ALLOC_ALLOC)
				replay_alloc(h, p, e);
			else if (e->kind == PD_ALLOC_FREE)
				replay_free(h, p, e);
		}
		take_snapshots(h, p, forks, nr_forks, &fk, UINT64_MAX, snaps);
		apply_mmaps(p, mm, nr_mm, &mk, UINT64_MAX);
	}
	for (size_t f = 0; f < nr_forks; f++)
		free(snaps[f].objs);
	free(snaps);
	free(forks);
	free(mm);
	free(runs);
	free(ord);
	for (size_t i = 0; i < h->nr_procs; i++) {
		timeline__finalize(h->procs[i].tl);
		/* their frees are matched: they are of no further use */
		timeline__delete(h->procs[i].zero);
		h->procs[i].zero = NULL;
	}
	return h;
}

void heap__delete(struct heap *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nr_procs; i++)
		timeline__delete(h->procs[i].tl);
	free(h->procs);
	u64map__exit(&h->idx);
	for (size_t i = 0; i * OBJ_CHUNK < h->nr_objs; i++)
		free(h->chunks[i]);
	free(h->chunks);
	free(h);
}

const struct heap_obj *heap__find(const struct heap *h, uint32_t pid, uint64_t addr, uint64_t time)
{
	const struct heap_proc *p = h ? proc__find(h, pid) : NULL;
	const struct tl_entry *e = p ? timeline__find(p->tl, addr, time) : NULL;

	return e ? e->val : NULL;
}

const struct heap_obj *heap__next_at(const struct heap *h, uint32_t pid, uint64_t addr, uint64_t time)
{
	const struct heap_proc *p = h ? proc__find(h, pid) : NULL;
	const struct tl_entry *e = p ? timeline__find(p->tl, addr, time) : NULL;

	if (!e || e->t_end == TIMELINE_INF)
		return NULL;
	e = timeline__find(p->tl, addr, e->t_end);
	return e ? e->val : NULL;
}

const struct heap_obj *heap__obj(const struct heap *h, uint32_t key)
{
	if (!h || !key || key > h->nr_objs)
		return NULL;
	return &h->chunks[(key - 1) / OBJ_CHUNK][(key - 1) % OBJ_CHUNK];
}

const struct heap_stats *heap__stats(const struct heap *h)
{
	return &h->stats;
}
