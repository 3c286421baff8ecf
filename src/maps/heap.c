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
	struct htab idx;        /* pid -> procs */
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

static struct heap_proc *proc__find(const struct heap *h, uint32_t pid, size_t *pos)
{
	uint32_t hash = (uint32_t)hash64(pid), i;

	*pos = htab__start(&h->idx, hash);
	while ((i = htab__next(&h->idx, hash, pos)) != HTAB_NONE)
		if (h->procs[i].pid == pid)
			return &h->procs[i];
	return NULL;
}

static struct heap_proc *proc__findnew(struct heap *h, uint32_t pid)
{
	size_t pos;
	struct heap_proc *p = proc__find(h, pid, &pos);

	if (p)
		return p;
	xgrow((void **)&h->procs, &h->alloc_procs, h->nr_procs + 1, sizeof(*h->procs));
	p = &h->procs[h->nr_procs];
	p->pid = pid;
	p->tl = timeline__new(same_obj, NULL);
	p->zero = NULL;
	htab__insert(&h->idx, pos, (uint32_t)hash64(pid), (uint32_t)h->nr_procs++);
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
	if (live && !((const struct heap_obj *)live->val)->freed &&
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

struct heap *heap__new(const struct pd_alloc_event *ev, uint64_t nr)
{
	struct heap *h = xcalloc(1, sizeof(*h));
	struct order *ord = xmalloc((nr ? nr : 1) * sizeof(*ord));
	struct heap_proc *p = NULL;

	for (uint64_t i = 0; i < nr; i++)
		ord[i] = (struct order){ ev[i].pid, ev[i].time, i };
	qsort(ord, nr, sizeof(*ord), order_cmp);
	h->stats.events = nr;
	for (uint64_t k = 0; k < nr; k++) {
		const struct pd_alloc_event *e = &ev[ord[k].i];

		if (!p || p->pid != e->pid)
			p = proc__findnew(h, e->pid);
		if (e->kind == PD_ALLOC_ALLOC)
			replay_alloc(h, p, e);
		else if (e->kind == PD_ALLOC_FREE)
			replay_free(h, p, e);
	}
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
	htab__exit(&h->idx);
	for (size_t i = 0; i * OBJ_CHUNK < h->nr_objs; i++)
		free(h->chunks[i]);
	free(h->chunks);
	free(h);
}

const struct heap_obj *heap__find(const struct heap *h, uint32_t pid, uint64_t addr, uint64_t time)
{
	size_t pos;
	const struct heap_proc *p = h ? proc__find(h, pid, &pos) : NULL;
	const struct tl_entry *e = p ? timeline__find(p->tl, addr, time) : NULL;

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
