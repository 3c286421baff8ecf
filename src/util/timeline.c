// SPDX-License-Identifier: GPL-2.0
/* Values over address ranges and time intervals (timeline.h). */
#include <stdlib.h>
#include <string.h>
#include "util/timeline.h"
#include "util/util.h"

struct tnode {                  /* treap of live entries by start */
	uint64_t start;
	uint32_t ent;           /* index into ents */
	uint32_t prio;
	uint32_t l, r;
};

struct itnode {                 /* centered interval tree node */
	uint64_t center;
	uint32_t first, nr;     /* slice of ents, sorted by t_begin */
	int32_t left, right;
};

struct timeline {
	timeline_cut_fn cut;
	void *ctx;
	struct tl_entry *ents;
	size_t nr_ents, alloc_ents;
	bool finalized;
	/* building */
	struct tnode *tn;       /* [0] is the nil node */
	size_t nr_tn, alloc_tn;
	uint32_t tn_free, root, rng;
	/* after finalize */
	struct itnode *nodes;
	int32_t it_root;
};

struct timeline *timeline__new(timeline_cut_fn cut, void *ctx)
{
	struct timeline *t = xcalloc(1, sizeof(*t));

	t->cut = cut;
	t->ctx = ctx;
	t->rng = 0x9e3779b9u;
	t->it_root = -1;
	return t;
}

void timeline__delete(struct timeline *t)
{
	if (!t)
		return;
	free(t->ents);
	free(t->tn);
	free(t->nodes);
	free(t);
}

size_t timeline__nr_entries(const struct timeline *t)
{
	return t->nr_ents;
}

/* ---- building: the treap of live entries ---- */

static uint32_t rng_next(struct timeline *t)
{
	uint32_t x = t->rng;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return t->rng = x;
}

static uint32_t tnode__new(struct timeline *t, uint64_t start, uint32_t ent)
{
	uint32_t i;

	if (t->tn_free) {
		i = t->tn_free;
		t->tn_free = t->tn[i].l;
	} else {
		if (!t->nr_tn)
			t->nr_tn = 1;   /* nil */
		xgrow((void **)&t->tn, &t->alloc_tn, t->nr_tn + 1, sizeof(*t->tn));
		i = (uint32_t)t->nr_tn++;
	}
	t->tn[i] = (struct tnode){ .start = start, .ent = ent, .prio = rng_next(t) };
	return i;
}

static void tnode__free(struct timeline *t, uint32_t i)
{
	t->tn[i].l = t->tn_free;
	t->tn_free = i;
}

/* a: starts < key, b: starts >= key */
static void treap__split(struct timeline *t, uint32_t n, uint64_t key, uint32_t *a, uint32_t *b)
{
	if (!n) {
		*a = *b = 0;
	} else if (t->tn[n].start < key) {
		uint32_t r = t->tn[n].r;

		treap__split(t, r, key, &r, b);
		t->tn[n].r = r;
		*a = n;
	} else {
		uint32_t l = t->tn[n].l;

		treap__split(t, l, key, a, &l);
		t->tn[n].l = l;
		*b = n;
	}
}

/* every start in a < every start in b */
static uint32_t treap__merge(struct timeline *t, uint32_t a, uint32_t b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if (t->tn[a].prio > t->tn[b].prio) {
		t->tn[a].r = treap__merge(t, t->tn[a].r, b);
		return a;
	}
	t->tn[b].l = treap__merge(t, a, t->tn[b].l);
	return b;
}

/* End the entries of a subtree at time and free its nodes. */
static void treap__end(struct timeline *t, uint32_t n, uint64_t time)
{
	while (n) {
		uint32_t l = t->tn[n].l, r = t->tn[n].r;

		t->ents[t->tn[n].ent].t_end = time;
		tnode__free(t, n);
		treap__end(t, l, time);
		n = r;
	}
}

static uint32_t add_entry(struct timeline *t, uint64_t start, uint64_t end, uint64_t time, const void *val)
{
	xgrow((void **)&t->ents, &t->alloc_ents, t->nr_ents + 1, sizeof(*t->ents));
	t->ents[t->nr_ents] = (struct tl_entry){ start, end, time, TIMELINE_INF, val };
	return (uint32_t)t->nr_ents++;
}

/* The rightmost node of a subtree, or 0. */
static uint32_t treap__last(const struct timeline *t, uint32_t n)
{
	while (n && t->tn[n].r)
		n = t->tn[n].r;
	return n;
}

size_t timeline__map(struct timeline *t, uint64_t s, uint64_t e, uint64_t time, const void *val)
{
	size_t before = t->nr_ents;
	uint32_t left, mid, right, x, rest = 0;

	/* an empty or wrapped range maps nothing (the interval tree's
	 * partition by centre assumes start < end) */
	if (e <= s)
		return 0;

	treap__split(t, t->root, s, &left, &mid);
	treap__split(t, mid, e, &mid, &right);

	/* the last value starting below s may reach into [s, e), and past e */
	x = treap__last(t, left);
	if (x && t->ents[t->tn[x].ent].end > s) {
		struct tl_entry old = t->ents[t->tn[x].ent];

		t->ents[t->tn[x].ent].t_end = time;
		t->tn[x].ent = add_entry(t, old.start, s, time, t->cut(t->ctx, old.val, old.start, s));
		if (old.end > e)
			rest = tnode__new(t, e, add_entry(t, e, old.end, time, t->cut(t->ctx, old.val, e, old.end)));
	}
	/* the last one starting inside may reach past e */
	x = treap__last(t, mid);
	if (x && t->ents[t->tn[x].ent].end > e) {
		struct tl_entry old = t->ents[t->tn[x].ent];

		rest = tnode__new(t, e, add_entry(t, e, old.end, time, t->cut(t->ctx, old.val, e, old.end)));
	}
	treap__end(t, mid, time);
	right = treap__merge(t, rest, right);
	x = tnode__new(t, s, add_entry(t, s, e, time, val));
	t->root = treap__merge(t, treap__merge(t, left, x), right);
	return t->nr_ents - before;
}

const struct tl_entry *timeline__live_find(const struct timeline *t, uint64_t addr)
{
	uint32_t n = t->finalized ? 0 : t->root, best = 0;

	while (n) {
		if (t->tn[n].start <= addr) {
			best = n;
			n = t->tn[n].r;
		} else {
			n = t->tn[n].l;
		}
	}
	if (best && addr < t->ents[t->tn[best].ent].end)
		return &t->ents[t->tn[best].ent];
	return NULL;
}

const struct tl_entry *timeline__live_next(const struct timeline *t, uint64_t addr)
{
	const struct tl_entry *e = timeline__live_find(t, addr);
	uint32_t n = t->finalized ? 0 : t->root, best = 0;

	if (e)
		return e;
	while (n) {
		if (t->tn[n].start > addr) {
			best = n;
			n = t->tn[n].l;
		} else {
			n = t->tn[n].r;
		}
	}
	return best ? &t->ents[t->tn[best].ent] : NULL;
}

void timeline__end_all(struct timeline *t, uint64_t time)
{
	treap__end(t, t->root, time);
	t->root = 0;
}

void timeline_iter__init(struct timeline_iter *it, const struct timeline *t)
{
	it->t = t;
	it->stack = it->inl;
	it->alloc = sizeof(it->inl) / sizeof(it->inl[0]);
	it->nr = 0;
	it->cur = t->finalized ? 0 : t->root;
}

/* In order, with an explicit stack (the treap's depth is O(log n) expected,
 * but a hostile stream is not bound to expectations). */
const struct tl_entry *timeline_iter__next(struct timeline_iter *it)
{
	const struct timeline *t = it->t;
	uint32_t n;

	while (it->cur) {
		if (it->nr == it->alloc) {
			uint32_t *s = xmalloc(2 * it->alloc * sizeof(*s));

			memcpy(s, it->stack, it->nr * sizeof(*s));
			if (it->stack != it->inl)
				free(it->stack);
			it->stack = s;
			it->alloc *= 2;
		}
		it->stack[it->nr++] = it->cur;
		it->cur = t->tn[it->cur].l;
	}
	if (!it->nr)
		return NULL;
	n = it->stack[--it->nr];
	it->cur = t->tn[n].r;
	return &t->ents[t->tn[n].ent];
}

void timeline_iter__exit(struct timeline_iter *it)
{
	if (it->stack != it->inl)
		free(it->stack);
	it->stack = it->inl;
}

/* ---- the lookup structure ---- */

struct it_build {
	const struct tl_entry *src;
	struct tl_entry *out;
	size_t nr_out;
	struct itnode *nodes;
	size_t nr_nodes;
	uint32_t *scratch;
};

static int entry__cmp_tbegin(const void *a, const void *b)
{
	const struct tl_entry *x = a, *y = b;

	return x->t_begin < y->t_begin ? -1 : x->t_begin > y->t_begin;
}

/* idx: entries sorted by start */
static int32_t it_build(struct it_build *c, uint32_t *idx, size_t n)
{
	size_t nl = 0, nr = 0, first = c->nr_out;
	int32_t ni, l, r;
	uint64_t center;

	if (!n)
		return -1;
	center = c->src[idx[n / 2]].start;
	for (size_t i = 0; i < n; i++) {
		const struct tl_entry *e = &c->src[idx[i]];

		if (e->end <= center)
			idx[nl++] = idx[i];     /* stable: nl <= i */
		else if (e->start > center)
			c->scratch[nr++] = idx[i];
		else
			c->out[c->nr_out++] = *e;
	}
	memcpy(idx + nl, c->scratch, nr * sizeof(*idx));
	ni = (int32_t)c->nr_nodes++;
	c->nodes[ni].center = center;
	c->nodes[ni].first = (uint32_t)first;
	c->nodes[ni].nr = (uint32_t)(c->nr_out - first);
	qsort(c->out + first, c->nr_out - first, sizeof(*c->out), entry__cmp_tbegin);
	l = it_build(c, idx, nl);
	r = it_build(c, idx + nl, nr);
	c->nodes[ni].left = l;
	c->nodes[ni].right = r;
	return ni;
}

static int idx__cmp_start(const void *a, const void *b, void *ents)
{
	const struct tl_entry *src = ents;
	const struct tl_entry *x = &src[*(const uint32_t *)a], *y = &src[*(const uint32_t *)b];

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->t_begin < y->t_begin ? -1 : x->t_begin > y->t_begin;
}

void timeline__finalize(struct timeline *t)
{
	struct it_build c = { 0 };
	size_t n = 0, room;
	uint32_t *idx;

	if (t->finalized)
		return;
	free(t->tn);
	t->tn = NULL;
	t->nr_tn = t->alloc_tn = 0;
	t->tn_free = t->root = 0;
	room = t->nr_ents ? t->nr_ents : 1;
	idx = xmalloc(room * sizeof(*idx));
	for (size_t i = 0; i < t->nr_ents; i++) {
		/* never live: replaced at the instant it appeared */
		if (t->ents[i].t_begin < t->ents[i].t_end)
			idx[n++] = (uint32_t)i;
	}
	qsort_r(idx, n, sizeof(*idx), idx__cmp_start, t->ents);
	room = n ? n : 1;
	c.src = t->ents;
	c.out = xmalloc(room * sizeof(*c.out));
	c.nodes = xmalloc(room * sizeof(*c.nodes));
	c.scratch = xmalloc(room * sizeof(*c.scratch));
	t->it_root = it_build(&c, idx, n);
	free(c.scratch);
	free(idx);
	free(t->ents);
	t->ents = c.out;
	t->nr_ents = t->alloc_ents = n;
	t->nodes = c.nodes;
	t->finalized = true;
}

static bool entry__has(const struct tl_entry *e, uint64_t addr, uint64_t time)
{
	return e->start <= addr && addr < e->end && e->t_begin <= time && time < e->t_end;
}

const struct tl_entry *timeline__find(const struct timeline *t, uint64_t addr, uint64_t time)
{
	int32_t n = t->finalized ? t->it_root : -1;

	while (n >= 0) {
		const struct itnode *node = &t->nodes[n];
		const struct tl_entry *v = t->ents + node->first;
		size_t lo = 0, hi = node->nr;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (v[mid].t_begin <= time)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* the entries of a node are disjoint in time: one candidate */
		if (lo && entry__has(&v[lo - 1], addr, time))
			return &v[lo - 1];
		n = addr < node->center ? node->left : node->right;
	}
	return NULL;
}
