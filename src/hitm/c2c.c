// SPDX-License-Identifier: GPL-2.0
/*
 * Aggregation: a hash of lines keyed by cl_key, and one hash of rows keyed by
 * (line, offset, code address). Lines live in individually allocated structs
 * (pointers handed to renderers stay valid); rows live in each line's array
 * and are found through the row index, rebuilt when a sort has moved them.
 * Memory grows with distinct lines and rows, never with samples.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "c2c.h"

struct row_slot {
	uint32_t line;          /* index in c2c->lines, + 1; 0 = empty */
	uint32_t row;
	uint32_t offset;
	uint64_t iaddr;
};

/* The key's hash is kept in the slot so a probe rarely touches a line that
 * is not the one looked for (lines are scattered in memory). */
struct line_slot {
	uint32_t idx;           /* index in c2c->lines, + 1; 0 = empty */
	uint32_t hash;
};

/*
 * A sample increments a handful of counters, and real streams use a few
 * dozen distinct data_src values: decode each (data_src, has address,
 * mapped) once and remember which counters it increments, then apply that
 * list to the totals, the line and the row.
 */
#define DELTA_CACHE 256
#define DELTA_MAX 16

struct delta {
	uint64_t data_src;
	uint8_t flags;          /* bit 0 valid, 1 has address, 2 mapped */
	uint8_t nr;
	bool keep;
	bool nomap;
	uint8_t idx[DELTA_MAX]; /* u32 counter indexes in struct c2c_stats */
	bool load, hitm;        /* for the latency sums */
};

struct c2c {
	uint32_t line_size;
	struct c2c_stats totals;
	struct c2c_line **lines;
	size_t nr_lines, alloc_lines;
	struct line_slot *line_slots;
	size_t nr_line_slots;
	struct row_slot *row_slots;
	size_t nr_row_slots, nr_rows;
	bool row_index_stale;
	const struct c2c_line **view;
	struct delta deltas[DELTA_CACHE];
};

struct c2c *c2c__new(uint32_t line_size)
{
	struct c2c *c = xcalloc(1, sizeof(*c));

	c->line_size = line_size;
	c->nr_line_slots = 1024;
	c->line_slots = xcalloc(c->nr_line_slots, sizeof(*c->line_slots));
	c->nr_row_slots = 2048;
	c->row_slots = xcalloc(c->nr_row_slots, sizeof(*c->row_slots));
	return c;
}

static void row__exit(struct c2c_row *row)
{
	u32set__exit(&row->pids);
	u32set__exit(&row->tids);
	u32set__exit(&row->cpus);
	u32set__exit(&row->nodes);
}

void c2c__delete(struct c2c *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr_lines; i++) {
		struct c2c_line *l = c->lines[i];

		for (size_t r = 0; r < l->nr_rows; r++)
			row__exit(&l->rows[r]);
		free(l->rows);
		u32set__exit(&l->pids);
		u32set__exit(&l->tids);
		u32set__exit(&l->cpus);
		u32set__exit(&l->nodes);
		free(l);
	}
	free(c->lines);
	free(c->line_slots);
	free(c->row_slots);
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

size_t c2c__nr_lines(const struct c2c *c)
{
	return c->nr_lines;
}

static void line_index__grow(struct c2c *c)
{
	size_t n = c->nr_line_slots * 2;
	struct line_slot *slots = xcalloc(n, sizeof(*slots));

	for (size_t i = 0; i < c->nr_lines; i++) {
		uint64_t hash = cl_key__hash(&c->lines[i]->key);
		size_t h = hash & (n - 1);

		while (slots[h].idx)
			h = (h + 1) & (n - 1);
		slots[h] = (struct line_slot){ i + 1, (uint32_t)(hash >> 32) };
	}
	free(c->line_slots);
	c->line_slots = slots;
	c->nr_line_slots = n;
}

static struct c2c_line *line__findnew(struct c2c *c, const struct c2c_sample *s, uint32_t *idx)
{
	uint64_t hash = cl_key__hash(&s->key);
	size_t mask = c->nr_line_slots - 1, h = hash & mask;
	struct c2c_line *l;

	while (c->line_slots[h].idx) {
		if (c->line_slots[h].hash == (uint32_t)(hash >> 32)) {
			l = c->lines[c->line_slots[h].idx - 1];
			if (cl_key__equal(&l->key, &s->key)) {
				*idx = c->line_slots[h].idx - 1;
				return l;
			}
		}
		h = (h + 1) & mask;
	}
	l = xcalloc(1, sizeof(*l));
	l->key = s->key;
	l->addr = s->addr & ~(uint64_t)(c->line_size - 1);
	l->first_pid = s->pid;
	l->object = s->object;
	xgrow((void **)&c->lines, &c->alloc_lines, c->nr_lines + 1, sizeof(*c->lines));
	c->lines[c->nr_lines] = l;
	c->line_slots[h] = (struct line_slot){ ++c->nr_lines, (uint32_t)(hash >> 32) };
	*idx = c->nr_lines - 1;
	if (c->nr_lines * 2 > c->nr_line_slots)
		line_index__grow(c);
	return l;
}

static size_t row_hash(uint32_t line, uint32_t offset, uint64_t iaddr)
{
	return hash64(iaddr ^ ((uint64_t)line << 32) ^ ((uint64_t)offset << 20));
}

static void row_index__insert(struct row_slot *slots, size_t n, const struct row_slot *rs)
{
	size_t h = row_hash(rs->line, rs->offset, rs->iaddr) & (n - 1);

	while (slots[h].line)
		h = (h + 1) & (n - 1);
	slots[h] = *rs;
}

/* Rebuild (also to grow): rows may have moved in a sort. */
static void row_index__rebuild(struct c2c *c, size_t n)
{
	free(c->row_slots);
	c->row_slots = xcalloc(n, sizeof(*c->row_slots));
	c->nr_row_slots = n;
	for (size_t i = 0; i < c->nr_lines; i++) {
		const struct c2c_line *l = c->lines[i];

		for (size_t r = 0; r < l->nr_rows; r++) {
			struct row_slot rs = { i + 1, r, l->rows[r].offset, l->rows[r].iaddr };

			row_index__insert(c->row_slots, n, &rs);
		}
	}
	c->row_index_stale = false;
}

static struct c2c_row *row__findnew(struct c2c *c, struct c2c_line *l, uint32_t lidx,
				    const struct c2c_sample *s)
{
	uint32_t offset = s->addr & (c->line_size - 1);
	size_t mask, h;
	struct c2c_row *row;
	struct row_slot rs;

	if (c->row_index_stale)
		row_index__rebuild(c, c->nr_row_slots);
	mask = c->nr_row_slots - 1;
	h = row_hash(lidx + 1, offset, s->ip) & mask;
	while (c->row_slots[h].line) {
		const struct row_slot *p = &c->row_slots[h];

		if (p->line == lidx + 1 && p->offset == offset && p->iaddr == s->ip)
			return &l->rows[p->row];
		h = (h + 1) & mask;
	}
	/* most lines have one or two rows: start small */
	if (!l->alloc_rows) {
		l->rows = xmalloc(2 * sizeof(*l->rows));
		l->alloc_rows = 2;
	}
	xgrow((void **)&l->rows, &l->alloc_rows, l->nr_rows + 1, sizeof(*l->rows));
	row = &l->rows[l->nr_rows];
	memset(row, 0, sizeof(*row));
	row->offset = offset;
	row->iaddr = s->ip;
	row->cpumode = s->cpumode;
	row->code_object = s->code_object;
	rs = (struct row_slot){ lidx + 1, l->nr_rows, offset, s->ip };
	c->row_slots[h] = rs;
	l->nr_rows++;
	if (++c->nr_rows * 2 > c->nr_row_slots)
		row_index__rebuild(c, c->nr_row_slots * 2);
	return row;
}

static void lat__add(struct c2c_lat *lat, const struct delta *d, uint64_t weight)
{
	if (!weight || !d->load)
		return;
	lat->load_sum += weight;
	lat->load_cnt++;
	if (d->hitm) {
		lat->hitm_sum += weight;
		lat->hitm_cnt++;
	}
}

static void delta__apply(const struct delta *d, struct c2c_stats *st)
{
	uint32_t *v = (uint32_t *)st;

	for (unsigned int i = 0; i < d->nr; i++)
		v[d->idx[i]]++;
}

static void delta__fill(struct delta *d, const struct c2c_stats *one)
{
	const uint32_t *v = (const uint32_t *)one;

	d->nr = 0;
	for (size_t i = 0; i < sizeof(*one) / sizeof(uint32_t) && d->nr < DELTA_MAX; i++)
		if (v[i])
			d->idx[d->nr++] = i;
	d->load = one->load;
	d->hitm = one->tot_hitm;
	d->nomap = one->nomap;
}

static const struct delta *delta__get(struct c2c *c, const struct c2c_sample *s)
{
	uint8_t flags = 1 | (s->addr ? 2 : 0) | (s->mapped ? 4 : 0);
	struct delta *d = &c->deltas[hash64(s->data_src ^ flags) & (DELTA_CACHE - 1)];
	struct c2c_stats one = { 0 };

	if (d->flags == flags && d->data_src == s->data_src)
		return d;
	d->keep = c2c_stats__decode(&one, s->data_src, s->addr, s->mapped);
	delta__fill(d, &one);
	d->data_src = s->data_src;
	d->flags = flags;
	return d;
}

static void sets__add(struct u32set *pids, struct u32set *tids, struct u32set *cpus, struct u32set *nodes,
		      const struct c2c_sample *s)
{
	u32set__add(pids, s->pid);
	u32set__add(tids, s->tid);
	if (s->cpu != (uint32_t)-1)
		u32set__add(cpus, s->cpu);
	if (s->node >= 0)
		u32set__add(nodes, (uint32_t)s->node);
}

int c2c__add(struct c2c *c, const struct c2c_sample *s)
{
	static const struct delta access_delta = {
		.nr = 2,
		.idx = { offsetof(struct c2c_stats, nr_entries) / 4, offsetof(struct c2c_stats, access) / 4 },
	};
	const struct delta *d;
	struct c2c_line *l;
	struct c2c_row *row;
	uint32_t lidx;
	bool keep;

	if (s->no_datasrc) {
		/* software events: no cache level, only "this address was
		 * touched"; they rank lines in the 'all' display mode */
		d = &access_delta;
		delta__apply(d, &c->totals);
		keep = s->addr != 0;
	} else {
		d = delta__get(c, s);
		delta__apply(d, &c->totals);
		/* perf drops unmapped samples (nomap); the keying rule keeps
		 * them, per pid, flagged unmapped in the key */
		keep = d->keep || d->nomap;
		if (!keep && s->addr && datasrc__is_na(s->data_src)) {
			/* a data address without a data source (page faults
			 * recorded with perf record -d): perf counts it as
			 * unparsable, and so do the totals; in lines it is an
			 * access of unknown kind */
			d = &access_delta;
			c->totals.access++;
			keep = true;
		}
	}
	if (!keep)
		return 0;
	l = line__findnew(c, s, &lidx);
	delta__apply(d, &l->stats);
	lat__add(&l->lat, d, s->weight);
	sets__add(&l->pids, &l->tids, &l->cpus, &l->nodes, s);
	if (!l->object && s->object)
		l->object = s->object;
	row = row__findnew(c, l, lidx, s);
	delta__apply(d, &row->stats);
	lat__add(&row->lat, d, s->weight);
	sets__add(&row->pids, &row->tids, &row->cpus, &row->nodes, s);
	return 0;
}

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
	    (r = cmp_u64(a->ident_id, b->ident_id)) || (r = cmp_u64(a->line, b->line)))
		return r;
	return cmp_u64(a->unmapped, b->unmapped);
}

/* qsort has no context argument in C11; the sort mode is passed through a
 * file-scope variable set only for the duration of the sort. */
static enum c2c_display sort_mode;

static int line_cmp(const void *pa, const void *pb)
{
	const struct c2c_line *a = *(const struct c2c_line *const *)pa;
	const struct c2c_line *b = *(const struct c2c_line *const *)pb;
	int r;

	if ((r = cmp_u64(c2c_stats__metric(&b->stats, sort_mode), c2c_stats__metric(&a->stats, sort_mode))))
		return r;
	if ((r = cmp_u64(b->stats.nr_entries, a->stats.nr_entries)))
		return r;
	return key_cmp(&a->key, &b->key);
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct c2c_row *a = pa, *b = pb;
	int r;

	if ((r = cmp_u64(a->offset, b->offset)))
		return r;
	if ((r = cmp_u64(c2c_stats__metric(&b->stats, sort_mode), c2c_stats__metric(&a->stats, sort_mode))))
		return r;
	if ((r = cmp_u64(b->stats.nr_entries, a->stats.nr_entries)))
		return r;
	return cmp_u64(a->iaddr, b->iaddr);
}

size_t c2c__sort(struct c2c *c, enum c2c_display mode, bool show_all,
		 const struct c2c_line *const **linesp)
{
	size_t n = 0;

	free(c->view);
	c->view = xcalloc(c->nr_lines ? c->nr_lines : 1, sizeof(*c->view));
	sort_mode = mode;
	for (size_t i = 0; i < c->nr_lines; i++) {
		struct c2c_line *l = c->lines[i];

		if (!show_all && !c2c_stats__metric(&l->stats, mode))
			continue;
		if (l->nr_rows > 1)
			qsort(l->rows, l->nr_rows, sizeof(*l->rows), row_cmp);
		c->view[n++] = l;
	}
	if (n)
		qsort(c->view, n, sizeof(*c->view), line_cmp);
	c->row_index_stale = true;
	*linesp = (const struct c2c_line *const *)c->view;
	return n;
}
