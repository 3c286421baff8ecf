// SPDX-License-Identifier: GPL-2.0
/*
 * Aggregation (c2c.c): the sorted view. c2c__sort ranks the lines by
 * per-line metrics summed once over their accumulators and makes a small
 * struct c2c_line per line of the view; a line's counts and rows are built
 * from its accumulators only when a renderer asks (c2c_line__counts,
 * c2c_line__rows) and freed again by c2c__trim.
 */
#include "hitm/c2c_int.h"

/* l is about to get counts or rows (of size bytes): listed for c2c__trim
 * unless it has the other already. */
static void note_built(struct c2c *c, struct c2c_line *l, size_t size)
{
	if (!l->counts && !l->built) {
		xgrow((void **)&c->built, &c->alloc_built, c->nr_built + 1, sizeof(*c->built));
		c->built[c->nr_built++] = l;
	}
	c->built_bytes += size;
}

/* The context ids of a into buf (CTX_BITS of room) or a pointer to them. */
static const uint32_t *acc__ctx(const struct c2c *c, const struct acc *a, uint32_t *buf, uint32_t *nr)
{
	uint32_t k = 0;

	if (a->nr_ids & CTX_HEAP) {
		*nr = c->exts[a->ext - 1].nr_ctx;
		return c->exts[a->ext - 1].ctx;
	}
	for (uint64_t bits = a->ctx; bits; bits &= bits - 1)
		buf[k++] = (uint32_t)__builtin_ctzll(bits);
	*nr = k;
	return buf;
}

uint64_t c2c_stats__metric(const struct c2c_stats *st, enum c2c_display mode)
{
	switch (mode) {
	case C2C_DISPLAY_LCL:
		return (uint64_t)st->lcl_hitm + st->st_hitm;
	case C2C_DISPLAY_RMT:
		return st->rmt_hitm;
	case C2C_DISPLAY_PEER:
		return st->tot_peer;
	case C2C_DISPLAY_ALL:
		return st->nr_entries;
	case C2C_DISPLAY_TOT:
	default:
		return (uint64_t)st->tot_hitm + st->st_hitm;
	}
}

static uint64_t metric__get(const struct line_metric *m, enum c2c_display mode)
{
	struct c2c_stats st = { .lcl_hitm = m->lcl_hitm, .rmt_hitm = m->rmt_hitm, .tot_hitm = m->tot_hitm,
				.st_hitm = m->st_hitm, .tot_peer = m->tot_peer, .nr_entries = m->nr_entries };

	return c2c_stats__metric(&st, mode);
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

struct sort_arg {
	const struct c2c *c;
	enum c2c_display mode;
};

static int line_cmp(const void *pa, const void *pb, void *arg)
{
	const struct c2c_line *a = *(const struct c2c_line *const *)pa;
	const struct c2c_line *b = *(const struct c2c_line *const *)pb;
	const struct sort_arg *s = arg;
	const struct line_metric *ma = &s->c->metrics[a->idx], *mb = &s->c->metrics[b->idx];
	int r;

	if ((r = cmp_u64(metric__get(mb, s->mode), metric__get(ma, s->mode))))
		return r;
	if ((r = cmp_u64(mb->nr_entries, ma->nr_entries)))
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

/* Adds a context's pid, tid, cpu and node to the sets. */
static void ctx__add_sets(const struct ctx *x, struct u32set *pids, struct u32set *tids, struct u32set *cpus,
			  struct u32set *nodes)
{
	u32set__add(pids, x->pid);
	u32set__add(tids, x->tid);
	if (x->cpu != (uint32_t)-1)
		u32set__add(cpus, x->cpu);
	if (x->node >= 0)
		u32set__add(nodes, (uint32_t)x->node);
}

/* The weighted loads of a, or its weighted HITM loads. */
static uint32_t acc__weighted_cnt(const struct c2c *c, const struct acc *a, bool hitm)
{
	uint32_t n = a->ext ? (hitm ? c->exts[a->ext - 1].hitm_cnt : c->exts[a->ext - 1].load_cnt) : 0;

	for (unsigned int k = 0; k < (a->nr_ids & ~CTX_HEAP); k++) {
		const struct dec *d = &c->decs[a->ids[k]];

		if ((d->flags & F_WEIGHT) && d->load && (d->hitm || !hitm))
			n += a->cnt[k];
	}
	return n;
}

static uint32_t acc__hitm_cnt(const struct c2c *c, const struct acc *a)
{
	return acc__weighted_cnt(c, a, true);
}

/* Adds the counters and latency of a into st and lat. */
static void acc__apply(const struct c2c *c, const struct acc *a, struct c2c_stats *st, struct c2c_lat *lat)
{
	if (a->ext) {
		const struct acc_ext *x = &c->exts[a->ext - 1];

		c2c_stats__add(st, &x->full);
		lat->load_cnt += x->load_cnt;
	}
	for (unsigned int k = 0; k < (a->nr_ids & ~CTX_HEAP); k++) {
		const struct dec *d = &c->decs[a->ids[k]];

		stats__apply(st, d->one_idx, d->nr_one, &d->one, a->cnt[k]);
		if ((d->flags & F_WEIGHT) && d->load)
			lat->load_cnt += a->cnt[k];
	}
	lat->hitm_cnt += acc__hitm_cnt(c, a);
	lat->load_sum += a->load_sum;
	lat->hitm_sum += a->hitm_sum;
}

static void metric__add(struct line_metric *m, const struct c2c_stats *st, uint32_t times)
{
	m->lcl_hitm += st->lcl_hitm * times;
	m->rmt_hitm += st->rmt_hitm * times;
	m->tot_hitm += st->tot_hitm * times;
	m->st_hitm += st->st_hitm * times;
	m->tot_peer += st->tot_peer * times;
	m->nr_entries += st->nr_entries * times;
}

#define METRIC_AHEAD 16         /* accumulators whose line's metrics are requested ahead */

/* After adding: the metrics of every line, and how many accumulators each
 * has, in one pass; the lines made so far are emptied, to be built again
 * when a view holds them. */
static void build_metrics(struct c2c *c)
{
	c2c_free_built(c, NULL);
	free(c->metrics);
	c->metrics = xcalloc(c->nr_lines ? c->nr_lines : 1, sizeof(*c->metrics));
	for (size_t i = 0; i < c->nr_accs; i++) {
		const struct acc *a = acc__get(c, i);
		struct line_metric *m = &c->metrics[a->line];

		/* the lines of the accumulators lie anywhere */
		if (i + METRIC_AHEAD < c->nr_accs)
			__builtin_prefetch(&c->metrics[acc__get(c, i + METRIC_AHEAD)->line], 1);
		m->nr_accs++;
		if (a->ext)
			metric__add(m, &c->exts[a->ext - 1].full, 1);
		for (unsigned int k = 0; k < (a->nr_ids & ~CTX_HEAP); k++)
			metric__add(m, &c->decs[a->ids[k]].one, a->cnt[k]);
	}
	xgrow((void **)&c->lines, &c->alloc_lines, c->nr_lines ? c->nr_lines : 1, sizeof(*c->lines));
	for (size_t i = c->nr_made; i < c->nr_lines; i++)
		c->lines[i] = NULL;
	c->nr_made = c->nr_lines;
	c->dirty = false;
}

static inline bool in_view__has(const uint64_t *in_view, size_t line)
{
	return in_view[line / 64] >> (line % 64) & 1;
}

/* Accumulators by the place of their first sample: those a replay saw
 * (c2c__replay), then the others in order of making. */
static uint64_t first_key(const struct c2c *c, uint32_t i)
{
	uint64_t v;

	return u64map__get(&c->firsts, i, &v) ? v : UINT64_MAX;
}

static int first_cmp(const void *pa, const void *pb, void *arg)
{
	const struct c2c *c = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	int r = cmp_u64(first_key(c, a), first_key(c, b));

	return r ? r : cmp_u64(a, b);
}

/* The accumulators of the lines in the view (in_view: a bit per line), in
 * order of making (a counting sort): a view of the contended lines lists a
 * small part of them, and the rest is not touched but for its line. Their
 * HITM latency sums go to the view's. */
static void group_view(struct c2c *c, const uint64_t *in_view)
{
	size_t total = 0;

	c->view_hitm_sum = c->view_hitm_cnt = 0;
	/* the weighted loads of lines never shown are in no accumulator */
	c->load_lat_sum = c->lazy_load_sum;
	c->load_lat_cnt = c->lazy_load_cnt;
	free(c->line_start);
	free(c->line_accs);
	c->line_start = xcalloc(c->nr_lines + 1, sizeof(*c->line_start));
	for (size_t i = 0; i < c->nr_lines; i++) {
		c->line_start[i] = (uint32_t)total;
		if (in_view__has(in_view, i))
			total += c->metrics[i].nr_accs;
	}
	c->line_start[c->nr_lines] = (uint32_t)total;
	c->line_accs = xmalloc((total ? total : 1) * sizeof(*c->line_accs));
	/* line_start[line] is the fill cursor until the shift below */
	for (size_t i = 0; i < c->nr_accs; i++) {
		const struct acc *a = acc__get(c, i);

		if (a->load_sum) {
			c->load_lat_sum += a->load_sum;
			c->load_lat_cnt += acc__weighted_cnt(c, a, false);
		}
		if (!total || !in_view__has(in_view, a->line))
			continue;
		c->line_accs[c->line_start[a->line]++] = (uint32_t)i;
		c->view_hitm_sum += a->hitm_sum;
		c->view_hitm_cnt += acc__hitm_cnt(c, a);
	}
	/* each cursor ended where the next line starts (lines outside the
	 * view are empty: theirs never moved, and equal it too) */
	for (size_t i = c->nr_lines; i > 0; i--)
		c->line_start[i] = c->line_start[i - 1];
	c->line_start[0] = 0;
	/* lines whose start a replay counted: rows in their first samples'
	 * order */
	if (c->firsts.nr && total)
		for (size_t i = 0; i < c->nr_lines; i++) {
			uint32_t *v = c->line_accs + c->line_start[i], n = c->line_start[i + 1] - c->line_start[i];

			if (n > 1 && line_lazy(c, i)->firsts)
				qsort_r(v, n, sizeof(*v), first_cmp, c);
		}
}

static struct c2c_line *line__make(struct c2c *c, size_t i)
{
	struct c2c_line *l = c->lines[i];

	if (!l) {
		if (!c->nr_line_chunks || c->chunk_used == c->line_chunk_cap[c->nr_line_chunks - 1]) {
			/* no more than the lines left to make: a small
			 * input's are one small allocation */
			size_t n = c->nr_lines - c->nr_line_structs, alloc = c->alloc_line_chunks;

			n = n < LINE_CHUNK ? n : LINE_CHUNK;
			xgrow((void **)&c->line_chunks, &c->alloc_line_chunks, c->nr_line_chunks + 1,
			      sizeof(*c->line_chunks));
			xgrow((void **)&c->line_chunk_cap, &alloc, c->nr_line_chunks + 1, sizeof(*c->line_chunk_cap));
			c->line_chunks[c->nr_line_chunks] = xbig_calloc(n * sizeof(struct c2c_line), c->nr_line_chunks > 0);
			c->line_chunk_cap[c->nr_line_chunks++] = n;
			c->chunk_used = 0;
		}
		c->nr_line_structs++;
		l = &c->line_chunks[c->nr_line_chunks - 1][c->chunk_used++];
		l->key = line_id(c, i)->key;
		l->addr = line_id(c, i)->addr;
		l->first_pid = c->lid_cold[i / LID_CHUNK][i % LID_CHUNK].pid;
		l->first_time = c->lid_cold[i / LID_CHUNK][i % LID_CHUNK].time;
		l->data_map = c->lid_cold[i / LID_CHUNK][i % LID_CHUNK].data_map;
		l->owner = c;
		l->idx = (uint32_t)i;
		c->lines[i] = l;
	}
	l->object = line_id(c, i)->object;
	l->nr_rows = c->line_start[i + 1] - c->line_start[i];
	return l;
}

/* The accumulators of a line's rows lie anywhere among all of them: each
 * is requested from memory ROW_AHEAD rows before it is read (with its cold
 * part when the rows are built). */
#define ROW_AHEAD 8

/* always inlined: GCC drops calls to a helper whose only effect is a
 * prefetch (it counts as none) */
static inline __attribute__((always_inline)) void request_acc(const struct c2c *c, uint32_t k, uint32_t end,
								 bool cold)
{
	uint32_t i;

	if (k >= end)
		return;
	i = c->line_accs[k];
	__builtin_prefetch(acc__get(c, i));
	if (cold)
		__builtin_prefetch(&c->cold[i / COLD_CHUNK][i % COLD_CHUNK]);
}

const struct c2c_counts *c2c_line__counts(const struct c2c_line *cl)
{
	/* a cache: the line is never defined const, only this view of it */
	struct c2c_line *l = (struct c2c_line *)cl;
	struct c2c *c = l->owner;
	struct u32set more = { 0 };
	uint64_t bits = 0;

	if (l->counts)
		return l->counts;
	note_built(c, l, sizeof(*l->counts));
	l->counts = xcalloc(1, sizeof(*l->counts));
	for (uint32_t k = c->line_start[l->idx]; k < c->line_start[l->idx] + ROW_AHEAD; k++)
		request_acc(c, k, c->line_start[l->idx + 1], false);
	/* the rows of a line share most of their contexts: each distinct
	 * one goes into the sets once */
	for (uint32_t k = c->line_start[l->idx]; k < c->line_start[l->idx + 1]; k++) {
		const struct acc *a = acc__get(c, c->line_accs[k]);

		request_acc(c, k + ROW_AHEAD, c->line_start[l->idx + 1], false);
		acc__apply(c, a, &l->counts->stats, &l->counts->lat);
		if (!(a->nr_ids & CTX_HEAP)) {
			bits |= a->ctx;
			continue;
		}
		for (uint32_t j = 0; j < c->exts[a->ext - 1].nr_ctx; j++)
			u32set__add(&more, c->exts[a->ext - 1].ctx[j]);
	}
	for (; bits; bits &= bits - 1) {
		uint32_t j = (uint32_t)__builtin_ctzll(bits);

		if (more.nr)
			u32set__add(&more, j);
		else
			ctx__add_sets(&c->ctxs[j], &l->counts->pids, &l->counts->tids, &l->counts->cpus,
				      &l->counts->nodes);
	}
	for (uint32_t j = 0; j < more.nr; j++)
		ctx__add_sets(&c->ctxs[u32set__data(&more)[j]], &l->counts->pids, &l->counts->tids,
			      &l->counts->cpus, &l->counts->nodes);
	u32set__exit(&more);
	return l->counts;
}

uint64_t c2c_line__metric(const struct c2c_line *l, enum c2c_display mode)
{
	return metric__get(&l->owner->metrics[l->idx], mode);
}

void c2c__view_hitm(const struct c2c *c, uint64_t *sum, uint64_t *cnt)
{
	*sum = c->view_hitm_sum;
	*cnt = c->view_hitm_cnt;
}

void c2c__load_latency(const struct c2c *c, uint64_t *sum, uint64_t *cnt)
{
	*sum = c->load_lat_sum;
	*cnt = c->load_lat_cnt;
}

const struct c2c_row *c2c_line__rows(const struct c2c_line *cl)
{
	/* a cache: the line is never defined const, only this view of it */
	struct c2c_line *l = (struct c2c_line *)cl;
	struct c2c *c = l->owner;

	if (l->built || !l->nr_rows)
		return l->built;
	note_built(c, l, l->nr_rows * sizeof(*l->built));
	l->built = xcalloc(l->nr_rows, sizeof(*l->built));
	for (uint32_t k = c->line_start[l->idx]; k < c->line_start[l->idx] + ROW_AHEAD; k++)
		request_acc(c, k, c->line_start[l->idx + 1], true);
	for (uint32_t k = c->line_start[l->idx], n = 0; k < c->line_start[l->idx + 1]; k++, n++) {
		uint32_t i = c->line_accs[k];
		const struct acc *a = acc__get(c, i);
		const struct acc_cold *cold = &c->cold[i / COLD_CHUNK][i % COLD_CHUNK];
		struct c2c_row *row = &l->built[n];
		uint32_t buf[CTX_BITS], nr;
		const uint32_t *ctx = acc__ctx(c, a, buf, &nr);

		request_acc(c, k + ROW_AHEAD, c->line_start[l->idx + 1], true);

		row->offset = a->offset;
		row->iaddr = a->iaddr;
		row->cpumode = a->cpumode;
		row->code_object = c->codes[cold->code].object;
		row->code_map = c->codes[cold->code].map;
		row->first_pid = cold->pid;
		row->first_time = cold->time;
		row->tag = acc__tag(c, i);
		acc__apply(c, a, &row->stats, &row->lat);
		for (uint32_t j = 0; j < nr; j++)
			ctx__add_sets(&c->ctxs[ctx[j]], &row->pids, &row->tids, &row->cpus, &row->nodes);
	}
	if (l->nr_rows > 1)
		qsort_r(l->built, l->nr_rows, sizeof(*l->built), row_cmp, &c->mode);
	return l->built;
}

size_t c2c__sort(struct c2c *c, enum c2c_display mode, bool show_all,
		 const struct c2c_line *const **linesp)
{
	struct sort_arg arg = { c, mode };
	uint64_t *in_view;
	size_t n = 0;

	c2c_flush(c);
	c2c_catch_up(c, show_all || mode == C2C_DISPLAY_ALL);
	if (c->dirty) {
		build_metrics(c);
		/* the lookups of adding take a tenth of the memory: made again
		 * if adding goes on */
		htab__exit(&c->line_idx);
		htab__exit(&c->acc_idx);
		c->unindexed = true;
	}
	/* rows are in the mode's order: built again when asked for */
	c2c_free_built(c, NULL);
	c->mode = mode;
	in_view = xcalloc(c->nr_lines / 64 + 1, sizeof(*in_view));
	for (size_t i = 0; i < c->nr_lines; i++)
		if (show_all || metric__get(&c->metrics[i], mode))
			in_view[i / 64] |= 1ULL << (i % 64);
	group_view(c, in_view);
	free(c->view);
	c->view = xcalloc(c->nr_lines ? c->nr_lines : 1, sizeof(*c->view));
	for (size_t i = 0; i < c->nr_lines; i++)
		if (in_view__has(in_view, i))
			c->view[n++] = line__make(c, i);
	free(in_view);
	if (n > 1)
		qsort_r(c->view, n, sizeof(*c->view), line_cmp, &arg);
	*linesp = (const struct c2c_line *const *)c->view;
	return n;
}

static const char *const display_names[] = {
	[C2C_DISPLAY_TOT] = "tot",
	[C2C_DISPLAY_LCL] = "lcl",
	[C2C_DISPLAY_RMT] = "rmt",
	[C2C_DISPLAY_PEER] = "peer",
	[C2C_DISPLAY_ALL] = "all",
};

const char *c2c_display__name(enum c2c_display mode)
{
	return mode < ARRAY_SIZE(display_names) ? display_names[mode] : "?";
}

int c2c_display__parse(const char *s, enum c2c_display *mode)
{
	for (size_t i = 0; i < ARRAY_SIZE(display_names); i++) {
		if (!strcmp(s, display_names[i])) {
			*mode = i;
			return 0;
		}
	}
	return -EINVAL;
}
