// SPDX-License-Identifier: GPL-2.0
/*
 * Aggregation.
 *
 * While adding, every sample goes to one accumulator per (line key, offset,
 * code address), found through a single hash table; the lines themselves
 * only hold their identity. A line's counters, latency sums and sets are
 * the sum of its accumulators, so a sample touches one hash slot and one
 * accumulator instead of a line, its row and both of their indexes.
 *
 * A view (c2c__sort) ranks lines by per-line metrics summed once, and
 * makes a small struct c2c_line per line it holds; the counts and rows of
 * a line are summed from its accumulators (listed per line for the lines of
 * the view) only when a renderer asks, and c2c__trim frees them again: a
 * browser showing every one of 100k lines holds the 20 on screen, not 600k
 * rows.
 *
 * An accumulator does not increment 35 counters per sample either: decoding
 * is a pure function of (data_src, has address, mapped), real streams use a
 * few dozen distinct data_src values and a row sees a handful, so each
 * distinct decode is kept once (struct dec) and an accumulator counts its
 * samples per decode; building the counts multiplies out. Whether the sample carried
 * a weight is part of the decode too, so the latency counts are the counts
 * of the weighted load decodes and only the sums live in the accumulator.
 *
 * Nor does it keep four sets: a sample's (pid, tid, cpu, node) is interned
 * once into a context id (a recording has few distinct ones), the
 * accumulator keeps the set of its context ids, and the pid, tid, cpu and
 * node sets of rows and lines are unfolded from them when built. An
 * accumulator is two cache lines: identity (compared on lookup), counts.
 *
 * A uniform stream over 100k lines misses the caches on nearly every
 * sample, so samples wait in a short queue: the hash slots, then the
 * accumulators of the queued samples (or, for new ones, the line slots) are
 * requested from memory together, then counted in arrival order.
 *
 * With a replay (c2c__set_replay: the report reads its file again), rows
 * are made for the lines a view can show only: a line is followed, its
 * samples counted into rows, from its first contended sample on; until
 * then adding stops at its line (and notes where its first sample was).
 * Most lines of a large recording never contend: 580k rows of the 2M-sample
 * bench file became 6k, and its report's memory 81 -> 27 MB. c2c__sort has
 * the samples before each followed line's first contended one counted
 * (reading the file again up to the last of them), or every line's for a
 * view of every line, so that every view equals what counting every sample
 * as it came makes.
 *
 * Memory grows with distinct lines, rows, contexts and decodes (capped),
 * never with samples. Accumulators live in 2 MiB chunks offered to huge
 * pages: page faults, not arithmetic, dominated filling 100 MB of them.
 */
#include "hitm/c2c_int.h"

struct c2c *c2c__new(uint32_t line_size)
{
	struct c2c *c = xcalloc(1, sizeof(*c));

	c->line_size = line_size;
	c->budget = C2C_BUILT_BUDGET;
	htab__init(&c->line_idx, 256, 50, true);
	htab__init(&c->acc_idx, 1024, 75, true);
	htab__init(&c->dec_idx, 64, 50, false);
	htab__init(&c->ctx_idx, 64, 50, false);
	htab__init(&c->code_idx, 64, 50, false);
	return c;
}

static void sets__exit(struct u32set *pids, struct u32set *tids, struct u32set *cpus, struct u32set *nodes)
{
	u32set__exit(pids);
	u32set__exit(tids);
	u32set__exit(cpus);
	u32set__exit(nodes);
}

static void counts__exit(struct c2c_counts *k)
{
	sets__exit(&k->pids, &k->tids, &k->cpus, &k->nodes);
}

/* What the counts and rows of l take. */
static size_t line__built_size(const struct c2c_line *l)
{
	return (l->counts ? sizeof(*l->counts) : 0) + (l->built ? l->nr_rows * sizeof(*l->built) : 0);
}

static void line__free_built(struct c2c_line *l)
{
	for (size_t i = 0; i < l->nr_rows && l->built; i++)
		sets__exit(&l->built[i].pids, &l->built[i].tids, &l->built[i].cpus, &l->built[i].nodes);
	free(l->built);
	l->built = NULL;
	if (l->counts)
		counts__exit(l->counts);
	free(l->counts);
	l->counts = NULL;
}

/* Frees the counts and rows of every line but keep. */
void c2c_free_built(struct c2c *c, const struct c2c_line *keep)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nr_built; i++) {
		if (c->built[i] == keep)
			c->built[n++] = c->built[i];
		else
			line__free_built(c->built[i]);
	}
	c->nr_built = n;
	c->built_bytes = n ? line__built_size(keep) : 0;
}

void c2c__trim(struct c2c *c, const struct c2c_line *keep)
{
	if (c && c->built_bytes > c->budget)
		c2c_free_built(c, keep);
}

void c2c__set_budget(struct c2c *c, size_t bytes)
{
	c->budget = bytes;
}

#define CHUNK_FIRST 64            /* entries of a first chunk at first */
#define CHUNK_SMALL (64u << 10) /* bytes a first chunk grows to before it is whole */

void chunks__room(struct chunks *ch, void ***v, size_t per, size_t size)
{
	size_t n;

	if (ch->nr == 1 && ch->cap < per) {
		/* in the heap while small; then whole, mapped as the later
		 * chunks are (a large first chunk in the heap made the 2M-sample
		 * bench file's report 10-15% slower) */
		n = ch->cap * 2 < per && ch->cap * 2 * size <= CHUNK_SMALL ? ch->cap * 2 : per;
		if (n < per) {
			(*v)[0] = xrealloc((*v)[0], n, size);
			memset((char *)(*v)[0] + ch->cap * size, 0, (n - ch->cap) * size);
		} else {
			void *whole = xbig_calloc(per * size, false);

			memcpy(whole, (*v)[0], ch->cap * size);
			free((*v)[0]);
			(*v)[0] = whole;
		}
		ch->cap = n;
		return;
	}
	xgrow((void **)v, &ch->alloc, ch->nr + 1, sizeof(**v));
	if (!ch->nr) {
		n = CHUNK_FIRST < per ? CHUNK_FIRST : per;
		(*v)[0] = n < per ? xcalloc(n, size) : xbig_calloc(per * size, false);
	} else {
		n = per;
		(*v)[ch->nr] = xbig_calloc(per * size, true);
	}
	ch->nr++;
	ch->cap += n;
}

void chunks__free(struct chunks *ch, void **v, size_t per, size_t size)
{
	for (size_t i = 0; i < ch->nr; i++) {
		if (i || ch->cap >= per)
			xbig_free(v[i], per * size);
		else
			free(v[i]);
	}
}

void c2c__delete(struct c2c *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr_exts; i++)
		free(c->exts[i].ctx);
	free(c->exts);
	chunks__free(&c->acc_ch, (void **)c->chunks, ACC_CHUNK, sizeof(struct acc));
	for (size_t i = 0; i < c->nr_made; i++)
		if (c->lines[i])
			line__free_built(c->lines[i]);
	free(c->metrics);
	free(c->line_start);
	free(c->line_accs);
	free(c->built);
	for (size_t i = 0; i < c->nr_line_chunks; i++)
		xbig_free(c->line_chunks[i], c->line_chunk_cap[i] * sizeof(struct c2c_line));
	free(c->line_chunks);
	free(c->line_chunk_cap);
	chunks__free(&c->lid_ch, (void **)c->lid_chunks, LID_CHUNK, sizeof(struct line_id));
	chunks__free(&c->lid_cold_ch, (void **)c->lid_cold, LID_CHUNK, sizeof(struct line_cold));
	chunks__free(&c->lazy_ch, (void **)c->lazy, LID_CHUNK, sizeof(struct line_lazy));
	free(c->lid_chunks);
	free(c->lid_cold);
	free(c->lazy);
	free(c->chunks);
	for (size_t i = 0; i < c->cold_ch.nr && c->tags; i++)
		free(c->tags[i]);
	u64map__exit(&c->firsts);
	chunks__free(&c->cold_ch, (void **)c->cold, COLD_CHUNK, sizeof(struct acc_cold));
	free(c->tags);
	free(c->cold);
	free(c->codes);
	htab__exit(&c->code_idx);
	htab__exit(&c->acc_idx);
	free(c->lines);
	htab__exit(&c->line_idx);
	free(c->decs);
	htab__exit(&c->dec_idx);
	free(c->ctxs);
	htab__exit(&c->ctx_idx);
	free(c->view);
	free(c);
}

void c2c__set_peer_contention(struct c2c *c, bool on)
{
	c->peer_contention = on;
}

uint32_t c2c__line_size(const struct c2c *c)
{
	return c->line_size;
}

/* ---- decodes ---------------------------------------------------------- */

/* The increments of st as a list of counter offsets (one per unit), so
 * that counting a sample adds a few ones instead of the whole struct. */
static uint8_t idx_list(const struct c2c_stats *st, uint8_t *off)
{
	unsigned int n = 0;

	_Static_assert(sizeof(struct c2c_stats) <= 256, "counter offsets fit in a byte");
	for (size_t i = 0; i < c2c_nr_stat_fields; i++)
		for (uint32_t k = 0; k < c2c_stats__get(st, i); k++) {
			if (n == DELTA_MAX)
				return DELTA_SLOW;
			off[n++] = (uint8_t)c2c_stat_fields[i].off;
		}
	return (uint8_t)n;
}

static void dec__compute(struct dec *d, uint64_t data_src, uint8_t flags, uint64_t addr, bool mapped, bool peer)
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
		/* a software event's address is the one touched, 0 included
		 * (a write through a NULL pointer faults there): its own
		 * unmapped line. A memory event's 0 is "no address" (IBS
		 * without a valid linear address), as perf counts it */
		d->keep = true;
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
	/* a store HITM is contention as a HITM load is: its weight counts in
	 * the latency sums with theirs (the gain, HitmLat) */
	d->load = d->one.load || d->one.st_hitm;
	d->hitm = d->one.tot_hitm || d->one.st_hitm || (peer && d->one.tot_peer);
	/* what makes a line's metric in one of the modes but 'all' */
	d->contends = d->one.tot_hitm || d->one.lcl_hitm || d->one.rmt_hitm || d->one.st_hitm || d->one.tot_peer;
	d->nr_tot = idx_list(&d->tot, d->tot_idx);
	d->nr_one = idx_list(&d->one, d->one_idx);
}

static uint32_t dec_hash(uint64_t data_src, uint8_t flags)
{
	return (uint32_t)hash64(data_src ^ ((uint64_t)flags << 58));
}

static uint8_t sample_flags(const struct c2c_sample *s)
{
	return (s->addr ? F_ADDR : 0) | (s->mapped ? F_MAPPED : 0) | (s->no_datasrc ? F_ACCESS : 0) |
	       (s->weight ? F_WEIGHT : 0);
}

/* Index of the decode of s in the registry, DEC_NONE when it is full. */
static uint16_t dec__get(struct c2c *c, const struct c2c_sample *s)
{
	uint8_t flags = sample_flags(s);
	uint64_t data_src = s->no_datasrc ? 0 : s->data_src;
	struct dec_hit *hit = &c->dec_cache[((data_src ^ flags) * 0x9e3779b97f4a7c15ULL) >> (64 - DEC_CACHE_BITS)];
	uint32_t hash, i;
	size_t pos;

	if (hit->idx && hit->data_src == data_src && hit->flags == flags)
		return (uint16_t)(hit->idx - 1);
	hash = dec_hash(data_src, flags);
	pos = htab__start(&c->dec_idx, hash);
	while ((i = htab__next(&c->dec_idx, hash, &pos)) != HTAB_NONE)
		if (c->decs[i].data_src == data_src && c->decs[i].flags == flags)
			goto found;
	if (c->nr_decs == DEC_MAX)
		return DEC_NONE;
	/* all at once: a decode never moves while another thread counts
	 * with it (c2c__resolve) */
	if (!c->decs)
		c->decs = xcalloc(DEC_MAX, sizeof(*c->decs));
	dec__compute(&c->decs[c->nr_decs], data_src, flags, s->addr, s->mapped, c->peer_contention);
	i = (uint32_t)c->nr_decs++;
	htab__insert(&c->dec_idx, pos, hash, i);
found:
	*hit = (struct dec_hit){ data_src, flags, (uint16_t)(i + 1) };
	return (uint16_t)i;
}

const struct c2c_stats *c2c__totals(const struct c2c *cc)
{
	/* a cache: the object is never defined const, only this view of it */
	struct c2c *c = (struct c2c *)cc;

	for (size_t i = 0; i < c->nr_decs; i++) {
		if (c->dec_count[i]) {
			stats__apply(&c->totals, c->decs[i].tot_idx, c->decs[i].nr_tot, &c->decs[i].tot,
				     c->dec_count[i]);
			c->dec_count[i] = 0;
		}
	}
	return &c->totals;
}

/* ---- contexts --------------------------------------------------------- */

static uint32_t ctx_hash(uint32_t pid, uint32_t tid, uint32_t cpu, int32_t node)
{
	return (uint32_t)hash64(((uint64_t)pid << 32 | tid) ^ hash64((uint64_t)cpu << 32 | (uint32_t)node));
}

static uint32_t ctx__get(struct c2c *c, const struct c2c_sample *s)
{
	struct ctx_hit *hit = &c->ctx_cache[s->tid % CTX_CACHE];
	const struct ctx *x;
	uint32_t hash, i;
	size_t pos;

	if (hit->idx) {
		x = &c->ctxs[hit->idx - 1];
		if (x->tid == s->tid && x->pid == s->pid && x->cpu == s->cpu && x->node == s->node)
			return hit->idx - 1;
	}
	hash = ctx_hash(s->pid, s->tid, s->cpu, s->node);
	pos = htab__start(&c->ctx_idx, hash);
	while ((i = htab__next(&c->ctx_idx, hash, &pos)) != HTAB_NONE) {
		x = &c->ctxs[i];
		if (x->tid == s->tid && x->pid == s->pid && x->cpu == s->cpu && x->node == s->node) {
			hit->idx = i + 1;
			return i;
		}
	}
	xgrow((void **)&c->ctxs, &c->alloc_ctxs, c->nr_ctxs + 1, sizeof(*c->ctxs));
	c->ctxs[c->nr_ctxs] = (struct ctx){ s->pid, s->tid, s->cpu, s->node };
	htab__insert(&c->ctx_idx, pos, hash, (uint32_t)c->nr_ctxs);
	hit->idx = (uint32_t)++c->nr_ctxs;
	return hit->idx - 1;
}

/* ---- lines ------------------------------------------------------------ */

static uint32_t line__findnew(struct c2c *c, const struct c2c_sample *s, uint32_t hash)
{
	size_t pos = htab__start(&c->line_idx, hash);
	struct line_id *id;
	uint32_t i;

	while ((i = htab__next(&c->line_idx, hash, &pos)) != HTAB_NONE) {
		id = line_id(c, i);
		if (cl_key__equal(&id->key, &s->key)) {
			/* a line's object is the first one known among its samples */
			if (!id->object)
				id->object = s->object;
			return i;
		}
	}
	if (c->nr_lines == c->lid_ch.cap)
		chunks__room(&c->lid_ch, (void ***)&c->lid_chunks, LID_CHUNK, sizeof(struct line_id));
	if (c->nr_lines == c->lid_cold_ch.cap)
		chunks__room(&c->lid_cold_ch, (void ***)&c->lid_cold, LID_CHUNK, sizeof(struct line_cold));
	id = line_id(c, c->nr_lines);
	id->key = s->key;
	id->addr = s->addr & ~(uint64_t)(c->line_size - 1);
	c->lid_cold[c->nr_lines / LID_CHUNK][c->nr_lines % LID_CHUNK] =
		(struct line_cold){ .time = s->time, .data_map = s->data_map, .pid = s->pid };
	id->object = s->object;
	if (c->nr_lines == c->lazy_ch.cap)
		chunks__room(&c->lazy_ch, (void ***)&c->lazy, LID_CHUNK, sizeof(struct line_lazy));
	*line_lazy(c, c->nr_lines) = (struct line_lazy){ .hi = c->replay ? LAZY_UNTIL_SHOWN : 0 };
	htab__insert(&c->line_idx, pos, hash, (uint32_t)c->nr_lines);
	return (uint32_t)c->nr_lines++;
}

/* ---- accumulators ----------------------------------------------------- */

/* Of an accumulator's identity: adding looks it up by it, reindex files it
 * under it (a tag of 0 leaves the hash as it was without tags). */
static uint32_t acc_hash(uint32_t line, uint64_t ip, uint32_t offset, uint32_t tag)
{
	ip ^= (uint64_t)tag << 47;
	return (uint32_t)hash64(((uint64_t)line << 16 | offset) ^ (ip * 0x9e3779b97f4a7c15ULL));
}

static uint32_t code_hash(const char *object, const struct map_desc *map)
{
	return (uint32_t)hash64((uintptr_t)object ^ hash64((uintptr_t)map));
}

static uint32_t code__get(struct c2c *c, const char *object, const struct map_desc *map)
{
	const struct code *x;
	uint32_t hash, i;
	size_t pos;

	if (c->last_code) {
		x = &c->codes[c->last_code - 1];
		if (x->object == object && x->map == map)
			return c->last_code - 1;
	}
	hash = code_hash(object, map);
	pos = htab__start(&c->code_idx, hash);
	while ((i = htab__next(&c->code_idx, hash, &pos)) != HTAB_NONE) {
		x = &c->codes[i];
		if (x->object == object && x->map == map) {
			c->last_code = i + 1;
			return i;
		}
	}
	xgrow((void **)&c->codes, &c->alloc_codes, c->nr_codes + 1, sizeof(*c->codes));
	c->codes[c->nr_codes] = (struct code){ object, map };
	htab__insert(&c->code_idx, pos, hash, (uint32_t)c->nr_codes);
	c->last_code = (uint32_t)++c->nr_codes;
	return c->last_code - 1;
}

/* s is the first sample of accumulator i. */
static void acc__first(struct c2c *c, size_t i, const struct c2c_sample *s)
{
	acc__get(c, i)->cpumode = s->cpumode;
	c->cold[i / COLD_CHUNK][i % COLD_CHUNK] = (struct acc_cold){
		.time = s->time, .pid = s->pid, .code = code__get(c, s->code_object, s->code_map) };
}

/* The index of s's accumulator in line (hash: acc_hash's), made if new. */
static uint32_t acc__findnew(struct c2c *c, const struct c2c_sample *s, uint32_t line, uint32_t hash)
{
	uint32_t offset = s->addr & (c->line_size - 1);
	size_t pos = htab__start(&c->acc_idx, hash);
	struct acc *a;
	uint32_t i;

	while ((i = htab__next(&c->acc_idx, hash, &pos)) != HTAB_NONE) {
		a = acc__get(c, i);
		/* untagged, s has no tag either (c2c__add starts tags first) */
		if (a->iaddr == s->ip && a->line == line && a->offset == offset && acc__tag(c, i) == s->tag)
			return i;
	}
	if (c->nr_accs == c->acc_ch.cap)
		chunks__room(&c->acc_ch, (void ***)&c->chunks, ACC_CHUNK, sizeof(struct acc));
	if (c->nr_accs == c->cold_ch.cap) {
		size_t nr = c->cold_ch.nr;

		chunks__room(&c->cold_ch, (void ***)&c->cold, COLD_CHUNK, sizeof(struct acc_cold));
		/* tags come in whole chunks from the first */
		if (c->tagged && c->cold_ch.nr > nr) {
			xgrow((void **)&c->tags, &c->alloc_tags, c->cold_ch.nr, sizeof(*c->tags));
			c->tags[nr] = xcalloc(COLD_CHUNK, sizeof(**c->tags));
		}
	}
	a = acc__get(c, c->nr_accs);
	a->line = line;
	a->offset = (uint16_t)offset;
	a->iaddr = s->ip;
	acc__first(c, c->nr_accs, s);
	if (c->tagged)
		c->tags[c->nr_accs / COLD_CHUNK][c->nr_accs % COLD_CHUNK] = s->tag;
	htab__insert(&c->acc_idx, pos, hash, (uint32_t)c->nr_accs);
	return (uint32_t)c->nr_accs++;
}

static struct acc_ext *acc__ext(struct c2c *c, struct acc *a)
{
	if (!a->ext) {
		xgrow((void **)&c->exts, &c->alloc_exts, c->nr_exts + 1, sizeof(*c->exts));
		memset(&c->exts[c->nr_exts], 0, sizeof(*c->exts));
		a->ext = (uint32_t)++c->nr_exts;
	}
	return &c->exts[a->ext - 1];
}

/*
 * The set of context ids of an accumulator. A recording has few contexts
 * and ids are given in order of appearance, so the set is a bitmap of the
 * first CTX_BITS ids, inside the accumulator whatever the number of threads
 * touching the row; the first id beyond moves it to a sorted array.
 */
static void acc__add_ctx(struct c2c *c, struct acc *a, uint32_t id)
{
	uint32_t nr, lo = 0, hi;
	struct acc_ext *x;

	if (!(a->nr_ids & CTX_HEAP)) {
		if (id < CTX_BITS) {
			a->ctx |= 1ULL << id;
			return;
		}
		x = acc__ext(c, a);
		nr = (uint32_t)__builtin_popcountll(a->ctx);
		x->alloc_ctx = 2 * nr + 2;
		x->ctx = xmalloc(x->alloc_ctx * sizeof(*x->ctx));
		for (uint32_t i = 0, k = 0; i < CTX_BITS; i++)
			if (a->ctx >> i & 1)
				x->ctx[k++] = i;
		x->nr_ctx = nr;
		a->nr_ids |= CTX_HEAP;
	} else {
		x = &c->exts[a->ext - 1];
	}
	nr = x->nr_ctx;
	for (hi = nr; lo < hi;) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (x->ctx[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < nr && x->ctx[lo] == id)
		return;
	if (nr == x->alloc_ctx) {
		x->alloc_ctx *= 2;
		x->ctx = xrealloc(x->ctx, x->alloc_ctx, sizeof(*x->ctx));
	}
	memmove(x->ctx + lo + 1, x->ctx + lo, (nr - lo) * sizeof(*x->ctx));
	x->ctx[lo] = id;
	x->nr_ctx++;
}

static void acc__count(struct c2c *c, struct acc *a, uint16_t id, const struct dec *d,
		       const struct c2c_sample *s, uint32_t ctx)
{
	unsigned int i, nr = a->nr_ids & ~CTX_HEAP;

	for (i = 0; i < nr && a->ids[i] != id; i++)
		;
	if (i < nr) {
		a->cnt[i]++;
	} else if (i < ACC_IDS && id != DEC_NONE) {
		a->ids[i] = (uint8_t)id;
		a->cnt[i] = 1;
		a->nr_ids++;
	} else {
		struct acc_ext *x = acc__ext(c, a);

		c2c_stats__add(&x->full, &d->one);
		if (s->weight && d->load) {
			x->load_cnt++;
			x->hitm_cnt += d->hitm;
		}
	}
	if (s->weight && d->load) {
		a->load_sum += s->weight;
		if (d->hitm)
			a->hitm_sum += s->weight;
	}
	acc__add_ctx(c, a, ctx);
}

/*
 * The pipelines. A uniform stream misses the caches at every step of a
 * lookup (line slot, line key, accumulator slot, accumulator), and each
 * step needs the one before, so each step is requested STEP samples before
 * the next one reads it: c2c__resolve does so for the lines of a batch,
 * c2c__add for the accumulators through its queue. Lines are resolved (and
 * made) in sample order, accumulators made and counted in sample order.
 */
static void reindex(struct c2c *c);

static uint32_t line_hash(const struct c2c_sample *s)
{
	return s->key_hash ? s->key_hash : (uint32_t)cl_key__hash(&s->key);
}

static void step_line_key(const struct c2c *c, uint32_t hash)
{
	size_t pos = htab__start(&c->line_idx, hash);
	uint32_t i = htab__next(&c->line_idx, hash, &pos);

	if (i != HTAB_NONE)
		__builtin_prefetch(line_id(c, i));
}

/* s's decode and, when it is counted into a line, its line (its context
 * is c2c__add's: that thread has less to do). */
static void resolve(struct c2c *c, struct c2c_sample *s)
{
	struct dec one;
	bool keep;

	s->resolved = true;
	s->dec = dec__get(c, s);
	s->line = 0;
	if (s->dec != DEC_NONE) {
		/* a replay's samples are in the totals already */
		c->dec_count[s->dec] += !c->replaying;
		keep = c->decs[s->dec].keep;
	} else {
		/* more distinct data sources than the registry keeps (a
		 * hostile file): c2c__add decodes this one on its own */
		dec__compute(&one, s->no_datasrc ? 0 : s->data_src, sample_flags(s), s->addr, s->mapped, c->peer_contention);
		keep = one.keep;
	}
	if (keep) {
		s->line = line__findnew(c, s, line_hash(s)) + 1;
		__builtin_prefetch(line_lazy(c, s->line - 1));
	}
}

void c2c__resolve(struct c2c *c, struct c2c_sample *s, size_t nr)
{
	if (c->unindexed)
		reindex(c);
	for (size_t i = 0; i < nr + 2 * RSTEP; i++) {
		if (i < nr)
			__builtin_prefetch(htab__slot_addr(&c->line_idx, line_hash(&s[i])));
		if (i >= RSTEP && i - RSTEP < nr)
			step_line_key(c, line_hash(&s[i - RSTEP]));
		if (i >= 2 * RSTEP)
			resolve(c, &s[i - 2 * RSTEP]);
	}
}

static void step_acc(const struct c2c *c, const struct pending *q)
{
	size_t pos = htab__start(&c->acc_idx, q->hash);
	uint32_t i = htab__next(&c->acc_idx, q->hash, &pos);

	if (i != HTAB_NONE)
		__builtin_prefetch(acc__get(c, i), 1);
}

static void replay_first(struct c2c *c, const struct c2c_sample *s, uint32_t i, uint64_t seq);

static void count(struct c2c *c, const struct pending *q)
{
	uint32_t i = acc__findnew(c, &q->s, q->s.line - 1, q->hash);

	if (c->replaying)
		replay_first(c, &q->s, i, q->seq);
	acc__count(c, acc__get(c, i), q->s.dec, &c->decs[q->s.dec], &q->s, q->s.ctx);
}

/* Count every queued sample, in order. */
void c2c_flush(struct c2c *c)
{
	while (c->q_out < c->q_in)
		count(c, &c->queue[c->q_out++ % QUEUE]);
}

static void advance(struct c2c *c)
{
	uint64_t n = c->q_in - c->q_out;

	if (n > STEP)
		step_acc(c, &c->queue[(c->q_in - 1 - STEP) % QUEUE]);
	if (n == QUEUE)
		count(c, &c->queue[c->q_out++ % QUEUE]);
}

/* The first tagged sample: tags from now on, 0 for the accumulators made
 * before (the queue is flushed first: its samples had no tags either). */
static void start_tags(struct c2c *c)
{
	c2c_flush(c);
	c->alloc_tags = c->cold_ch.nr ? c->cold_ch.nr : 1;
	c->tags = xcalloc(c->alloc_tags, sizeof(*c->tags));
	for (size_t i = 0; i < c->cold_ch.nr; i++)
		c->tags[i] = xcalloc(COLD_CHUNK, sizeof(**c->tags));
	c->tagged = true;
}

/* Adding again after a view dropped the indexes: they are made again. */
static void reindex(struct c2c *c)
{
	htab__init(&c->line_idx, c->nr_lines * 2, 50, true);
	for (size_t i = 0; i < c->nr_lines; i++)
		htab__add(&c->line_idx, (uint32_t)cl_key__hash(&line_id(c, i)->key), (uint32_t)i);
	htab__init(&c->acc_idx, c->nr_accs * 4 / 3, 75, true);
	for (size_t i = 0; i < c->nr_accs; i++) {
		const struct acc *a = acc__get(c, i);

		htab__add(&c->acc_idx, acc_hash(a->line, a->iaddr, a->offset, acc__tag(c, i)), (uint32_t)i);
	}
	c->unindexed = false;
}

/* Queues q (its sample in q->s, the seq-th added, of a line): its context
 * and accumulator hash made, the accumulator's slot requested. */
static void enqueue(struct c2c *c, struct pending *q, uint64_t seq)
{
	const struct c2c_sample *s = &q->s;

	q->s.ctx = ctx__get(c, s);
	q->hash = acc_hash(s->line - 1, s->ip, s->addr & (c->line_size - 1), s->tag);
	q->seq = seq;
	__builtin_prefetch(htab__slot_addr(&c->acc_idx, q->hash));
	c->q_in++;
	advance(c);
}

/* With a replay: whether s, the seq-th sample added, of a line, goes
 * into its row now. A line is followed from its first contended sample
 * (or one of a decode outside the registry) on; the samples before are
 * left for c2c__sort to count, if a view shows the line. */
static bool follow(struct c2c *c, const struct c2c_sample *s, uint64_t seq)
{
	struct line_lazy *z = line_lazy(c, s->line - 1);
	const struct dec *d = s->dec == DEC_NONE ? NULL : &c->decs[s->dec];

	if (z->hi != LAZY_UNTIL_SHOWN)
		return true;
	if (!d || d->contends) {
		z->hi = seq;
		c->pending |= z->lo != 0;
		return true;
	}
	if (!z->lo)
		z->lo = seq + 1;
	if (s->weight && d->load) {
		c->lazy_load_sum += s->weight;
		c->lazy_load_cnt++;
	}
	return false;
}

/* A store sample into its line's writes (every one, before a replay's
 * following decides whether it goes into a row). */
static void note_write(struct c2c *c, const struct c2c_sample *s)
{
	struct c2c_writes *w = &line_lazy(c, s->line - 1)->w;
	uint16_t off = (uint16_t)(s->addr & (c->line_size - 1));
	uint32_t tid = s->tid ? s->tid : UINT32_MAX;     /* 0: no writer yet */

	if (!w->tid)
		*w = (struct c2c_writes){ .tid = tid, .lo = off, .hi = off };
	else
		w->several |= w->tid != tid;
	w->lo = off < w->lo ? off : w->lo;
	w->hi = off > w->hi ? off : w->hi;
	w->time = s->time;
	w->stores++;
}

int c2c__add(struct c2c *c, const struct c2c_sample *s)
{
	uint64_t seq = c->seq++;
	struct pending *q;
	struct dec one;

	if (c->unindexed)
		reindex(c);
	c->dirty = true;
	if (s->tag && !c->tagged)
		start_tags(c);
	q = &c->queue[c->q_in % QUEUE];
	if (!s->resolved) {
		q->s = *s;
		resolve(c, &q->s);
		s = &q->s;
	}
	if (s->line && !s->no_datasrc && datasrc__is_store(s->data_src))
		note_write(c, s);
	if (c->replay && s->line && !follow(c, s, seq))
		return 0;
	if (s != &q->s)
		q->s = *s;
	s = &q->s;
	if (s->dec == DEC_NONE) {
		q->s.ctx = ctx__get(c, s);
		c2c_flush(c);
		dec__compute(&one, s->no_datasrc ? 0 : s->data_src, sample_flags(s), s->addr, s->mapped, c->peer_contention);
		c2c_stats__add(&c->totals, &one.tot);
		if (s->line) {
			q->hash = acc_hash(s->line - 1, s->ip, s->addr & (c->line_size - 1), s->tag);
			acc__count(c, acc__get(c, acc__findnew(c, s, s->line - 1, q->hash)), DEC_NONE, &one, s, s->ctx);
		}
		return 0;
	}
	if (s->line)
		enqueue(c, q, seq);
	return 0;
}

size_t c2c__nr_lines(const struct c2c *c)
{
	/* queued samples may make lines: count them first (the object is
	 * never defined const; only this view of it is) */
	if (c->q_in != c->q_out)
		c2c_flush((struct c2c *)c);
	return c->nr_lines;
}

void c2c__set_replay(struct c2c *c, c2c_replay_fn fn, void *arg)
{
	c->replay = fn;
	c->replay_arg = arg;
}

/*
 * Accumulator i of a line a replay counts the start of, and s, the seq-th
 * sample, in it. A line followed since z->hi (not one followed from now on,
 * whose accumulators are all made by the replay, in order): its rows go in
 * the order of their first samples, this replay's first (the ones made
 * before have a first sample from z->hi on, after this one).
 */
static void replay_first(struct c2c *c, const struct c2c_sample *s, uint32_t i, uint64_t seq)
{
	uint64_t first;

	if (line_lazy(c, s->line - 1)->hi == c->seq || u64map__get(&c->firsts, i, &first))
		return;
	if (i < c->r_accs)
		acc__first(c, i, s);
	u64map__put(&c->firsts, i, seq);
}

/* One sample of a replay, resolved: counted when its line waits for it
 * (one of a decode outside the registry never does: its line was followed
 * from it on). */
static void replay_one(struct c2c *c, struct c2c_sample *s)
{
	uint64_t seq = c->rseq++;
	const struct line_lazy *z;
	const struct dec *d;
	struct pending *q;

	if (!s->line || s->dec == DEC_NONE)
		return;
	z = line_lazy(c, s->line - 1);
	if (!z->lo || z->hi == LAZY_UNTIL_SHOWN || seq < z->lo - 1 || seq >= z->hi)
		return;
	if (s->tag && !c->tagged)
		start_tags(c);
	d = &c->decs[s->dec];
	if (s->weight && d->load) {
		c->lazy_load_sum -= s->weight;
		c->lazy_load_cnt--;
	}
	q = &c->queue[c->q_in % QUEUE];
	q->s = *s;
	enqueue(c, q, seq);
}

void c2c__replay(struct c2c *c, struct c2c_sample *s, size_t nr)
{
	c2c__resolve(c, s, nr);
	for (size_t i = 0; i < nr; i++)
		replay_one(c, &s[i]);
}

void c2c__replay_range(const struct c2c *c, uint64_t *lo, uint64_t *hi)
{
	*lo = c->r_lo;
	*hi = c->r_hi;
}

void c2c_catch_up(struct c2c *c, bool all)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	if (!c->replay || (!c->pending && !all))
		return;
	for (size_t i = 0; i < c->nr_lines; i++) {
		struct line_lazy *z = line_lazy(c, i);

		if (!z->lo)
			continue;
		if (z->hi == LAZY_UNTIL_SHOWN) {
			if (!all)
				continue;
			z->hi = c->seq;
		}
		lo = z->lo - 1 < lo ? z->lo - 1 : lo;
		hi = z->hi > hi ? z->hi : hi;
	}
	c->pending = false;
	if (lo >= hi)
		return;
	if (c->unindexed)
		reindex(c);
	c->r_lo = lo;
	c->r_hi = hi;
	c->rseq = lo;
	c->r_accs = c->nr_accs;
	c->replaying = true;
	/* one that fails leaves rows short: its caller says so */
	c->replay(c->replay_arg, c);
	c2c_flush(c);
	c->replaying = false;
	for (size_t i = 0; i < c->nr_lines; i++) {
		struct line_lazy *z = line_lazy(c, i);

		if (z->hi != LAZY_UNTIL_SHOWN && z->lo) {
			z->firsts |= z->hi != c->seq;
			z->lo = 0;
		}
	}
	c->dirty = true;
}

/* A line of c2c__written to sort: its space's hash (the key but its
 * address), its address in the space. */
struct written_ord {
	uint64_t space, line;
	uint32_t idx;
};

static int written_cmp(const void *pa, const void *pb)
{
	const struct written_ord *a = pa, *b = pb;

	if (a->space != b->space)
		return a->space < b->space ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

size_t c2c__written(struct c2c *c, uint32_t min_stores, struct c2c_written **out)
{
	struct written_ord *ord = NULL;
	size_t n = 0, alloc = 0;

	*out = NULL;
	for (size_t i = 0; i < c->nr_lines; i++) {
		const struct c2c_writes *w = &line_lazy(c, i)->w;
		struct cl_key k;

		if (!w->tid || w->several || w->stores < min_stores)
			continue;
		xgrow((void **)&ord, &alloc, n + 1, sizeof(*ord));
		k = line_id(c, i)->key;
		ord[n] = (struct written_ord){ .line = k.line, .idx = (uint32_t)i };
		k.line = 0;
		ord[n++].space = cl_key__hash(&k);
	}
	if (!n)
		return 0;
	qsort(ord, n, sizeof(*ord), written_cmp);
	*out = xcalloc(n, sizeof(**out));
	for (size_t k = 0; k < n; k++) {
		size_t i = ord[k].idx;
		const struct line_cold *cold = &c->lid_cold[i / LID_CHUNK][i % LID_CHUNK];

		(*out)[k] = (struct c2c_written){ .key = line_id(c, i)->key, .addr = line_id(c, i)->addr,
						  .pid = cold->pid, .data_map = cold->data_map,
						  .w = line_lazy(c, i)->w };
	}
	free(ord);
	return n;
}
