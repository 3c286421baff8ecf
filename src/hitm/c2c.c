// SPDX-License-Identifier: GPL-2.0
/*
 * Aggregation.
 *
 * While adding, every sample goes to one accumulator per (line key, offset,
 * code address), found through a single hash table; the lines themselves
 * only hold their identity. A line's counters, latency sums and sets are
 * the sum of its accumulators, built when c2c__sort asks for them
 * (renderers read nothing before), so a sample touches one hash slot and
 * one accumulator instead of a line, its row and both of their indexes.
 *
 * An accumulator does not increment 35 counters per sample either: decoding
 * is a pure function of (data_src, has address, mapped), real streams use a
 * few dozen distinct data_src values and a row sees a handful, so each
 * distinct decode is kept once (struct dec) and an accumulator counts its
 * samples per decode; c2c__sort multiplies out.
 *
 * A uniform stream over 100k lines misses the caches on nearly every
 * sample, so samples wait in a short queue: the hash slots, then the
 * accumulators of the queued samples are requested from memory together,
 * then counted in arrival order.
 *
 * Memory grows with distinct lines, rows and decodes (capped), never with
 * samples.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "c2c.h"

#define DEC_MAX 4096            /* distinct decodes kept; more are decoded per sample */
#define DEC_NONE 0xffff
#define DELTA_MAX 40            /* increments listed per decode (a valid one has < 32) */
#define DELTA_SLOW 0xff
#define ACC_IDS 4               /* distinct decodes counted inline per accumulator */
#define ACC_CHUNK 1024          /* accumulators per chunk (chunks never move) */
#define QUEUE 16

enum { F_ADDR = 1, F_MAPPED = 2, F_ACCESS = 4 };

/* One distinct decode and what it does to the totals and to a line. */
struct dec {
	uint64_t data_src;
	uint8_t flags;
	bool keep;              /* counted into a line */
	bool load, hitm;        /* for the latency sums */
	uint8_t nr_tot, nr_one; /* DELTA_SLOW: add the whole struct */
	uint8_t tot_idx[DELTA_MAX];
	uint8_t one_idx[DELTA_MAX];
	struct c2c_stats tot;   /* into the totals */
	struct c2c_stats one;   /* into the line and the row */
};

/*
 * The accumulators' sets. Most rows are touched by a few threads on a few
 * cpus: four values inline (u32set keeps two, and a malloc per row for the
 * third thread dominated the add time); beyond, a sorted array.
 */
#define ASET_INLINE 4

struct aset {
	uint32_t nr, alloc;     /* alloc 0: values in inl[], unsorted */
	union {
		uint32_t inl[ASET_INLINE];
		uint32_t *heap;
	};
};

static void aset__add(struct aset *s, uint32_t x)
{
	uint32_t lo = 0, hi, *heap;

	if (!s->alloc) {
		for (uint32_t i = 0; i < s->nr; i++)
			if (s->inl[i] == x)
				return;
		if (s->nr < ASET_INLINE) {
			s->inl[s->nr++] = x;
			return;
		}
		heap = xmalloc(2 * ASET_INLINE * sizeof(*heap));

		memcpy(heap, s->inl, sizeof(s->inl));
		for (uint32_t i = 1; i < s->nr; i++)    /* insertion sort of 4 */
			for (uint32_t j = i; j && heap[j - 1] > heap[j]; j--) {
				uint32_t t = heap[j];

				heap[j] = heap[j - 1];
				heap[j - 1] = t;
			}
		s->heap = heap;
		s->alloc = 2 * ASET_INLINE;
	}
	for (hi = s->nr; lo < hi;) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->heap[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->nr && s->heap[lo] == x)
		return;
	if (s->nr == s->alloc) {
		s->alloc *= 2;
		s->heap = xrealloc(s->heap, s->alloc, sizeof(*s->heap));
	}
	memmove(s->heap + lo + 1, s->heap + lo, (s->nr - lo) * sizeof(*s->heap));
	s->heap[lo] = x;
	s->nr++;
}

static void aset__to_u32set(const struct aset *s, struct u32set *dst)
{
	const uint32_t *v = s->alloc ? s->heap : s->inl;

	for (uint32_t i = 0; i < s->nr; i++)
		u32set__add(dst, v[i]);
}

static void aset__exit(struct aset *s)
{
	if (s->alloc)
		free(s->heap);
	memset(s, 0, sizeof(*s));
}

struct acc {
	struct cl_key key;
	uint32_t line;          /* index in c->lines */
	uint16_t nr_ids;
	uint16_t ids[ACC_IDS];
	uint32_t cnt[ACC_IDS];
	struct c2c_stats *full; /* decodes beyond ids[] or outside the registry */
	/* the row without its counters (built from ids[] when needed) */
	uint32_t offset;
	uint8_t cpumode;
	uint64_t iaddr;
	const char *code_object;
	const struct map_desc *code_map;
	uint32_t first_pid;
	uint64_t first_time;
	struct c2c_lat lat;
	struct aset pids, tids, cpus, nodes;
};

struct slot {                   /* hash table slot: 32 bits of hash, index + 1 */
	uint32_t hash;
	uint32_t idx;
};

struct pending {
	struct c2c_sample s;
	uint32_t hash;
	uint16_t dec;
};

struct c2c {
	uint32_t line_size;
	struct c2c_stats totals;

	struct c2c_line **lines;
	size_t nr_lines, alloc_lines;
	struct slot *line_slots;
	size_t nr_line_slots;

	struct acc **chunks;
	size_t nr_chunks, alloc_chunks, nr_accs;
	struct slot *acc_slots;
	size_t nr_acc_slots;

	struct dec *decs;
	size_t nr_decs, alloc_decs;
	uint16_t *dec_slots;    /* index + 1 into decs; 0 empty */
	size_t nr_dec_slots;

	struct pending queue[QUEUE];
	unsigned int nr_queued;

	bool dirty;             /* samples added since the lines were built */
	const struct c2c_line **view;
};

static inline struct acc *acc__get(const struct c2c *c, size_t i)
{
	return &c->chunks[i / ACC_CHUNK][i % ACC_CHUNK];
}

struct c2c *c2c__new(uint32_t line_size)
{
	struct c2c *c = xcalloc(1, sizeof(*c));

	c->line_size = line_size;
	c->nr_line_slots = 256;
	c->line_slots = xcalloc(c->nr_line_slots, sizeof(*c->line_slots));
	c->nr_acc_slots = 1024;
	c->acc_slots = xcalloc(c->nr_acc_slots, sizeof(*c->acc_slots));
	c->nr_dec_slots = 64;
	c->dec_slots = xcalloc(c->nr_dec_slots, sizeof(*c->dec_slots));
	return c;
}

static void sets__exit(struct u32set *pids, struct u32set *tids, struct u32set *cpus, struct u32set *nodes)
{
	u32set__exit(pids);
	u32set__exit(tids);
	u32set__exit(cpus);
	u32set__exit(nodes);
}

static void line__reset(struct c2c_line *l)
{
	for (size_t i = 0; i < l->nr_rows && l->rows; i++)
		sets__exit(&l->rows[i].pids, &l->rows[i].tids, &l->rows[i].cpus, &l->rows[i].nodes);
	free(l->rows);
	l->rows = NULL;
	l->nr_rows = l->alloc_rows = 0;
	memset(&l->stats, 0, sizeof(l->stats));
	memset(&l->lat, 0, sizeof(l->lat));
	sets__exit(&l->pids, &l->tids, &l->cpus, &l->nodes);
}

void c2c__delete(struct c2c *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr_accs; i++) {
		struct acc *a = acc__get(c, i);

		aset__exit(&a->pids);
		aset__exit(&a->tids);
		aset__exit(&a->cpus);
		aset__exit(&a->nodes);
		free(a->full);
	}
	for (size_t i = 0; i < c->nr_chunks; i++)
		free(c->chunks[i]);
	for (size_t i = 0; i < c->nr_lines; i++) {
		line__reset(c->lines[i]);
		free(c->lines[i]);
	}
	free(c->chunks);
	free(c->acc_slots);
	free(c->lines);
	free(c->line_slots);
	free(c->decs);
	free(c->dec_slots);
	free(c->view);
	free(c);
}

uint32_t c2c__line_size(const struct c2c *c)
{
	return c->line_size;
}

const struct c2c_stats *c2c__totals(const struct c2c *c)
{
	return &c->totals;
}

/* ---- decodes ---------------------------------------------------------- */

static uint8_t idx_list(const struct c2c_stats *st, uint8_t *idx)
{
	const uint32_t *v = (const uint32_t *)st;
	unsigned int n = 0;

	for (size_t i = 0; i < sizeof(*st) / sizeof(uint32_t); i++)
		for (uint32_t k = 0; k < v[i]; k++) {
			if (n == DELTA_MAX)
				return DELTA_SLOW;
			idx[n++] = (uint8_t)i;
		}
	return (uint8_t)n;
}

static void dec__compute(struct dec *d, uint64_t data_src, uint8_t flags, uint64_t addr, bool mapped)
{
	bool keep, nomap;

	memset(d, 0, sizeof(*d));
	d->data_src = data_src;
	d->flags = flags;
	if (flags & F_ACCESS) {
		/* software events: no cache level, only "this address was
		 * touched"; they rank lines in the 'all' display mode */
		d->tot.nr_entries = d->tot.access = 1;
		d->one = d->tot;
		d->keep = flags & F_ADDR;
	} else {
		keep = c2c_stats__decode(&d->tot, data_src, addr, mapped);
		nomap = d->tot.nomap;
		d->one = d->tot;
		/* perf drops unmapped samples (nomap); the keying rule keeps
		 * them, per pid, flagged unmapped in the key */
		d->keep = keep || nomap;
		if (!d->keep && (flags & F_ADDR) && datasrc__is_na(data_src)) {
			/* a data address without a data source (page faults
			 * recorded with perf record -d): perf counts it as
			 * unparsable, and so do the totals; in lines it is an
			 * access of unknown kind */
			d->tot.access++;
			memset(&d->one, 0, sizeof(d->one));
			d->one.nr_entries = d->one.access = 1;
			d->keep = true;
		}
	}
	d->load = d->one.load;
	d->hitm = d->one.tot_hitm;
	d->nr_tot = idx_list(&d->tot, d->tot_idx);
	d->nr_one = idx_list(&d->one, d->one_idx);
}

static size_t dec_hash(uint64_t data_src, uint8_t flags)
{
	return hash64(data_src ^ ((uint64_t)flags << 58));
}

static void dec_index__grow(struct c2c *c)
{
	size_t n = c->nr_dec_slots * 2;
	uint16_t *slots = xcalloc(n, sizeof(*slots));

	for (size_t i = 0; i < c->nr_decs; i++) {
		size_t h = dec_hash(c->decs[i].data_src, c->decs[i].flags) & (n - 1);

		while (slots[h])
			h = (h + 1) & (n - 1);
		slots[h] = (uint16_t)(i + 1);
	}
	free(c->dec_slots);
	c->dec_slots = slots;
	c->nr_dec_slots = n;
}

/* Index of the decode of s in the registry, DEC_NONE when it is full. */
static uint16_t dec__get(struct c2c *c, const struct c2c_sample *s)
{
	uint8_t flags = (s->addr ? F_ADDR : 0) | (s->mapped ? F_MAPPED : 0) | (s->no_datasrc ? F_ACCESS : 0);
	uint64_t data_src = s->no_datasrc ? 0 : s->data_src;
	size_t mask = c->nr_dec_slots - 1, h = dec_hash(data_src, flags) & mask;
	struct dec *d;

	for (; c->dec_slots[h]; h = (h + 1) & mask) {
		d = &c->decs[c->dec_slots[h] - 1];
		if (d->data_src == data_src && d->flags == flags)
			return c->dec_slots[h] - 1;
	}
	if (c->nr_decs == DEC_MAX)
		return DEC_NONE;
	xgrow((void **)&c->decs, &c->alloc_decs, c->nr_decs + 1, sizeof(*c->decs));
	dec__compute(&c->decs[c->nr_decs], data_src, flags, s->addr, s->mapped);
	c->dec_slots[h] = (uint16_t)(c->nr_decs + 1);
	if (++c->nr_decs * 2 > c->nr_dec_slots)
		dec_index__grow(c);
	return (uint16_t)(c->nr_decs - 1);
}

static void stats__apply(struct c2c_stats *st, const uint8_t *idx, uint8_t nr, const struct c2c_stats *full,
			 uint32_t times)
{
	uint32_t *v = (uint32_t *)st;
	const uint32_t *f = (const uint32_t *)full;

	if (nr == DELTA_SLOW) {
		for (size_t i = 0; i < sizeof(*st) / sizeof(uint32_t); i++)
			v[i] += f[i] * times;
		return;
	}
	for (unsigned int i = 0; i < nr; i++)
		v[idx[i]] += times;
}

/* ---- lines ------------------------------------------------------------ */

static void line_index__grow(struct c2c *c)
{
	size_t n = c->nr_line_slots * 2;
	struct slot *slots = xcalloc(n, sizeof(*slots));

	for (size_t i = 0; i < c->nr_line_slots; i++) {
		size_t h;

		if (!c->line_slots[i].idx)
			continue;
		for (h = c->line_slots[i].hash & (n - 1); slots[h].idx; h = (h + 1) & (n - 1))
			;
		slots[h] = c->line_slots[i];
	}
	free(c->line_slots);
	c->line_slots = slots;
	c->nr_line_slots = n;
}

static uint32_t line__findnew(struct c2c *c, const struct c2c_sample *s)
{
	uint32_t hash = (uint32_t)cl_key__hash(&s->key);
	size_t mask = c->nr_line_slots - 1, h = hash & mask;
	struct c2c_line *l;

	for (; c->line_slots[h].idx; h = (h + 1) & mask) {
		if (c->line_slots[h].hash != hash)
			continue;
		l = c->lines[c->line_slots[h].idx - 1];
		if (cl_key__equal(&l->key, &s->key)) {
			if (!l->object)
				l->object = s->object;
			return c->line_slots[h].idx - 1;
		}
	}
	l = xcalloc(1, sizeof(*l));
	l->key = s->key;
	l->addr = s->addr & ~(uint64_t)(c->line_size - 1);
	l->first_pid = s->pid;
	l->first_time = s->time;
	l->data_map = s->data_map;
	l->object = s->object;
	xgrow((void **)&c->lines, &c->alloc_lines, c->nr_lines + 1, sizeof(*c->lines));
	c->lines[c->nr_lines] = l;
	c->line_slots[h] = (struct slot){ hash, (uint32_t)++c->nr_lines };
	if (c->nr_lines * 2 > c->nr_line_slots)
		line_index__grow(c);
	return (uint32_t)(c->nr_lines - 1);
}

/* ---- accumulators ----------------------------------------------------- */

static uint32_t acc_hash(const struct c2c_sample *s, uint32_t offset)
{
	return (uint32_t)hash64(cl_key__hash(&s->key) ^ (s->ip * 0x9e3779b97f4a7c15ULL) ^ offset);
}

static void acc_index__grow(struct c2c *c)
{
	size_t n = c->nr_acc_slots * 2;
	struct slot *slots = xcalloc(n, sizeof(*slots));

	for (size_t i = 0; i < c->nr_acc_slots; i++) {
		size_t h;

		if (!c->acc_slots[i].idx)
			continue;
		for (h = c->acc_slots[i].hash & (n - 1); slots[h].idx; h = (h + 1) & (n - 1))
			;
		slots[h] = c->acc_slots[i];
	}
	free(c->acc_slots);
	c->acc_slots = slots;
	c->nr_acc_slots = n;
}

static struct acc *acc__findnew(struct c2c *c, const struct c2c_sample *s, uint32_t hash)
{
	uint32_t offset = s->addr & (c->line_size - 1);
	size_t mask = c->nr_acc_slots - 1, h = hash & mask;
	struct acc *a;

	for (; c->acc_slots[h].idx; h = (h + 1) & mask) {
		if (c->acc_slots[h].hash != hash)
			continue;
		a = acc__get(c, c->acc_slots[h].idx - 1);
		if (a->iaddr == s->ip && a->offset == offset && cl_key__equal(&a->key, &s->key))
			return a;
	}
	if (c->nr_accs == (size_t)c->nr_chunks * ACC_CHUNK) {
		xgrow((void **)&c->chunks, &c->alloc_chunks, c->nr_chunks + 1, sizeof(*c->chunks));
		c->chunks[c->nr_chunks++] = xcalloc(ACC_CHUNK, sizeof(struct acc));
	}
	a = acc__get(c, c->nr_accs);
	a->key = s->key;
	a->line = line__findnew(c, s);
	a->offset = offset;
	a->iaddr = s->ip;
	a->cpumode = s->cpumode;
	a->code_object = s->code_object;
	a->code_map = s->code_map;
	a->first_pid = s->pid;
	a->first_time = s->time;
	c->acc_slots[h] = (struct slot){ hash, (uint32_t)++c->nr_accs };
	if (c->nr_accs * 2 > c->nr_acc_slots)
		acc_index__grow(c);
	return a;
}

static void acc__count(struct acc *a, uint16_t id, const struct dec *d, const struct c2c_sample *s)
{
	unsigned int i;

	for (i = 0; i < a->nr_ids && a->ids[i] != id; i++)
		;
	if (i < a->nr_ids) {
		a->cnt[i]++;
	} else if (i < ACC_IDS && id != DEC_NONE) {
		a->ids[i] = id;
		a->cnt[i] = 1;
		a->nr_ids++;
	} else {
		if (!a->full)
			a->full = xcalloc(1, sizeof(*a->full));
		c2c_stats__add(a->full, &d->one);
	}
	if (s->weight && d->load) {
		a->lat.load_sum += s->weight;
		a->lat.load_cnt++;
		if (d->hitm) {
			a->lat.hitm_sum += s->weight;
			a->lat.hitm_cnt++;
		}
	}
	aset__add(&a->pids, s->pid);
	aset__add(&a->tids, s->tid);
	if (s->cpu != (uint32_t)-1)
		aset__add(&a->cpus, s->cpu);
	if (s->node >= 0)
		aset__add(&a->nodes, (uint32_t)s->node);
}

/* Count the queued samples: their slots were requested when queued; now
 * request the accumulators the slots point to, then count in order. */
static void flush(struct c2c *c)
{
	unsigned int n = c->nr_queued;

	for (unsigned int i = 0; i < n; i++) {
		const struct slot *sl = &c->acc_slots[c->queue[i].hash & (c->nr_acc_slots - 1)];

		if (sl->idx && sl->hash == c->queue[i].hash) {
			const char *p = (const char *)acc__get(c, sl->idx - 1);

			__builtin_prefetch(p);
			__builtin_prefetch(p + 64);
			__builtin_prefetch(p + 128);
			__builtin_prefetch(p + 192);
		}
	}
	for (unsigned int i = 0; i < n; i++) {
		const struct pending *q = &c->queue[i];

		acc__count(acc__findnew(c, &q->s, q->hash), q->dec, &c->decs[q->dec], &q->s);
	}
	c->nr_queued = 0;
}

int c2c__add(struct c2c *c, const struct c2c_sample *s)
{
	uint16_t id = dec__get(c, s);
	struct pending *q;
	struct dec one;

	c->dirty = true;
	if (id == DEC_NONE) {
		/* more distinct data sources than the registry keeps (a
		 * hostile file): decode this one on its own */
		flush(c);
		dec__compute(&one, s->no_datasrc ? 0 : s->data_src,
			     (s->addr ? F_ADDR : 0) | (s->mapped ? F_MAPPED : 0) | (s->no_datasrc ? F_ACCESS : 0),
			     s->addr, s->mapped);
		c2c_stats__add(&c->totals, &one.tot);
		if (one.keep)
			acc__count(acc__findnew(c, s, acc_hash(s, s->addr & (c->line_size - 1))), DEC_NONE, &one, s);
		return 0;
	}
	stats__apply(&c->totals, c->decs[id].tot_idx, c->decs[id].nr_tot, &c->decs[id].tot, 1);
	if (!c->decs[id].keep)
		return 0;
	q = &c->queue[c->nr_queued++];
	q->s = *s;
	q->dec = id;
	q->hash = acc_hash(s, s->addr & (c->line_size - 1));
	__builtin_prefetch(&c->acc_slots[q->hash & (c->nr_acc_slots - 1)]);
	if (c->nr_queued == QUEUE)
		flush(c);
	return 0;
}

size_t c2c__nr_lines(const struct c2c *c)
{
	/* queued samples may make lines: count them first (the object is
	 * never defined const; only this view of it is) */
	if (c->nr_queued)
		flush((struct c2c *)c);
	return c->nr_lines;
}

/* ---- sorted view ------------------------------------------------------ */

uint64_t c2c_stats__metric(const struct c2c_stats *st, enum c2c_display mode)
{
	switch (mode) {
	case C2C_DISPLAY_LCL:
		return st->lcl_hitm;
	case C2C_DISPLAY_RMT:
		return st->rmt_hitm;
	case C2C_DISPLAY_PEER:
		return st->tot_peer;
	case C2C_DISPLAY_ALL:
		return st->nr_entries;
	case C2C_DISPLAY_TOT:
	default:
		return st->tot_hitm;
	}
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int key_cmp(const struct cl_key *a, const struct cl_key *b)
{
	int r;

	if ((r = cmp_u64(a->kind, b->kind)) || (r = cmp_u64(a->ident, b->ident)) ||
	    (r = cmp_u64(a->pid, b->pid)) || (r = cmp_u64(a->maj, b->maj)) || (r = cmp_u64(a->min, b->min)) ||
	    (r = cmp_u64(a->ino, b->ino)) || (r = cmp_u64(a->ino_generation, b->ino_generation)) ||
	    (r = cmp_u64(a->ident_id, b->ident_id)) || (r = cmp_u64(a->line, b->line)) ||
	    (r = cmp_u64(a->unmapped, b->unmapped)))
		return r;
	return cmp_u64(a->approx, b->approx);
}

static int line_cmp(const void *pa, const void *pb, void *arg)
{
	const struct c2c_line *a = *(const struct c2c_line *const *)pa;
	const struct c2c_line *b = *(const struct c2c_line *const *)pb;
	enum c2c_display mode = *(const enum c2c_display *)arg;
	int r;

	if ((r = cmp_u64(c2c_stats__metric(&b->stats, mode), c2c_stats__metric(&a->stats, mode))))
		return r;
	if ((r = cmp_u64(b->stats.nr_entries, a->stats.nr_entries)))
		return r;
	return key_cmp(&a->key, &b->key);
}

static int row_cmp(const void *pa, const void *pb, void *arg)
{
	const struct c2c_row *a = pa, *b = pb;
	enum c2c_display mode = *(const enum c2c_display *)arg;
	int r;

	if ((r = cmp_u64(a->offset, b->offset)))
		return r;
	if ((r = cmp_u64(c2c_stats__metric(&b->stats, mode), c2c_stats__metric(&a->stats, mode))))
		return r;
	if ((r = cmp_u64(b->stats.nr_entries, a->stats.nr_entries)))
		return r;
	return cmp_u64(a->iaddr, b->iaddr);
}

static void acc__stats(const struct c2c *c, const struct acc *a, struct c2c_stats *st)
{
	if (a->full)
		*st = *a->full;
	else
		memset(st, 0, sizeof(*st));
	for (unsigned int k = 0; k < a->nr_ids; k++) {
		const struct dec *d = &c->decs[a->ids[k]];

		stats__apply(st, d->one_idx, d->nr_one, &d->one, a->cnt[k]);
	}
}

/* Counters and latency of every line from its accumulators. */
static void build_stats(struct c2c *c)
{
	for (size_t i = 0; i < c->nr_lines; i++)
		line__reset(c->lines[i]);
	for (size_t i = 0; i < c->nr_accs; i++) {
		const struct acc *a = acc__get(c, i);
		struct c2c_line *l = c->lines[a->line];
		struct c2c_stats st;

		acc__stats(c, a, &st);
		c2c_stats__add(&l->stats, &st);
		l->lat.hitm_sum += a->lat.hitm_sum;
		l->lat.hitm_cnt += a->lat.hitm_cnt;
		l->lat.load_sum += a->lat.load_sum;
		l->lat.load_cnt += a->lat.load_cnt;
		l->nr_rows++;
	}
	c->dirty = false;
}

/* Rows and sets of the lines in the view that do not have them yet. */
static void build_rows(struct c2c *c, size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		struct c2c_line *l = (struct c2c_line *)c->view[i];

		if (!l->rows) {
			l->rows = xcalloc(l->nr_rows, sizeof(*l->rows));
			l->alloc_rows = 0;      /* fill cursor until done */
			any = true;
		}
	}
	if (!any)
		return;
	for (size_t i = 0; i < c->nr_accs; i++) {
		const struct acc *a = acc__get(c, i);
		struct c2c_line *l = c->lines[a->line];
		struct c2c_row *row;

		if (!l->rows || l->alloc_rows == l->nr_rows)
			continue;
		row = &l->rows[l->alloc_rows++];
		row->offset = a->offset;
		row->iaddr = a->iaddr;
		row->cpumode = a->cpumode;
		row->code_object = a->code_object;
		row->code_map = a->code_map;
		row->first_pid = a->first_pid;
		row->first_time = a->first_time;
		row->lat = a->lat;
		aset__to_u32set(&a->pids, &row->pids);
		aset__to_u32set(&a->tids, &row->tids);
		aset__to_u32set(&a->cpus, &row->cpus);
		aset__to_u32set(&a->nodes, &row->nodes);
		acc__stats(c, a, &row->stats);
		u32set__merge(&l->pids, &row->pids);
		u32set__merge(&l->tids, &row->tids);
		u32set__merge(&l->cpus, &row->cpus);
		u32set__merge(&l->nodes, &row->nodes);
	}
}

size_t c2c__sort(struct c2c *c, enum c2c_display mode, bool show_all,
		 const struct c2c_line *const **linesp)
{
	size_t n = 0;

	flush(c);
	if (c->dirty)
		build_stats(c);
	free(c->view);
	c->view = xcalloc(c->nr_lines ? c->nr_lines : 1, sizeof(*c->view));
	for (size_t i = 0; i < c->nr_lines; i++) {
		struct c2c_line *l = c->lines[i];

		if (show_all || c2c_stats__metric(&l->stats, mode))
			c->view[n++] = l;
	}
	build_rows(c, n);
	for (size_t i = 0; i < n; i++) {
		struct c2c_line *l = (struct c2c_line *)c->view[i];

		if (l->nr_rows > 1)
			qsort_r(l->rows, l->nr_rows, sizeof(*l->rows), row_cmp, &mode);
	}
	if (n > 1)
		qsort_r(c->view, n, sizeof(*c->view), line_cmp, &mode);
	*linesp = (const struct c2c_line *const *)c->view;
	return n;
}
