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
 * Memory grows with distinct lines, rows, contexts and decodes (capped),
 * never with samples. Accumulators live in 2 MiB chunks offered to huge
 * pages: page faults, not arithmetic, dominated filling 100 MB of them.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "hitm/c2c.h"
#include "util/htab.h"

#define DEC_MAX 255             /* distinct decodes kept (u8 ids); more are decoded per sample */
#define DEC_NONE 0xffff
#define DELTA_MAX 40            /* increments listed per decode (a valid one has < 32) */
#define DELTA_SLOW 0xff
#define ACC_IDS 4               /* distinct decodes counted inline per accumulator */
#define ACC_CHUNK 32768         /* accumulators per chunk: 2 MiB (chunks never move) */
#define COLD_CHUNK 131072       /* their struct acc_cold: 2 MiB */
#define LINE_CHUNK ((2u << 20) / sizeof(struct c2c_line))  /* lines per 2 MiB chunk (users keep pointers) */
/* The pipelines: c2c__resolve requests a sample's line slot, STEP samples
 * later its line key, 2 STEP later resolves its line; c2c__add queues it
 * (its accumulator slot requested), STEP samples later requests the
 * accumulator, QUEUE - 1 later counts it. */
#define QUEUE 32                /* samples in flight (a power of two) */
#define STEP 8
#define RSTEP 24               /* c2c__resolve's: its steps are shorter */
#define CTX_CACHE 64            /* last context per tid slot */
#define DEC_CACHE_BITS 6        /* last decode per data_src slot: 64 slots */
#define CTX_BITS 64             /* context ids below this fit the inline bitmap */
#define CTX_HEAP 0x80           /* nr_ids flag: the contexts are listed in the ext */

enum { F_ADDR = 1, F_MAPPED = 2, F_ACCESS = 4, F_WEIGHT = 8 };

/* One distinct decode and what it does to the totals and to a line. */
struct dec {
	uint64_t data_src;
	uint8_t flags;
	bool keep;              /* counted into a line */
	bool load, hitm;        /* for the latency sums (with F_WEIGHT: counts) */
	uint8_t nr_tot, nr_one; /* DELTA_SLOW: add the whole struct */
	uint8_t tot_idx[DELTA_MAX];     /* byte offsets of the counters to add 1 to */
	uint8_t one_idx[DELTA_MAX];
	struct c2c_stats tot;   /* into the totals */
	struct c2c_stats one;   /* into the line and the row */
};

/* (pid, tid, cpu, node) of samples, interned. */
struct ctx {
	uint32_t pid, tid, cpu;
	int32_t node;
};

struct acc {                    /* one cache line */
	uint64_t iaddr;
	uint32_t line;          /* index in c->lines; with offset and iaddr, the identity */
	uint16_t offset;        /* line sizes are at most 64 KiB */
	uint8_t cpumode;
	uint8_t nr_ids;         /* | CTX_HEAP */
	uint32_t cnt[ACC_IDS];
	uint8_t ids[ACC_IDS];
	uint32_t ext;           /* index + 1 into c->exts, 0 none */
	uint64_t hitm_sum, load_sum;
	uint64_t ctx;           /* bitmap of context ids, until one is >= CTX_BITS */
};

_Static_assert(sizeof(struct acc) == 64, "struct acc is one cache line");

/* What few accumulators need: decodes beyond ids[] or outside the registry,
 * more than ACC_CTX contexts. */
struct acc_ext {
	struct c2c_stats full;
	uint32_t load_cnt, hitm_cnt;    /* weighted loads among full */
	uint32_t *ctx;                  /* sorted, every context, with CTX_HEAP */
	uint32_t nr_ctx, alloc_ctx;
};

/* A line while adding: its identity and what its first samples said, one
 * cache line (the rest of its first sample lies in lid_cold). The struct
 * c2c_line (a few hundred bytes, mostly counters) is made from it in
 * c2c__sort, so adding writes nothing but this. */
struct line_id {
	struct cl_key key;      /* compared on lookup */
	const char *object;
	uint64_t addr;
};

_Static_assert(sizeof(struct line_id) == 64, "struct line_id is one cache line");

/* What the renderers need of a line's and a row's first sample (to name its
 * addresses), written once when it is made, read in c2c__sort. */
struct line_cold {
	uint64_t time;
	const struct map_desc *data_map;
	uint32_t pid;
};

struct acc_cold {
	uint64_t time;
	uint32_t pid;
	uint32_t code;          /* index into c->codes */
};

/* (code object, code mapping) of rows, interned: a recording has few. */
struct code {
	const char *object;
	const struct map_desc *map;
};

/* What a line is ranked by, for every line; the whole struct c2c_line is
 * made only for the lines a view holds. */
struct line_metric {
	uint32_t lcl_hitm, rmt_hitm, tot_hitm, st_hitm, tot_peer, nr_entries;
	uint32_t nr_accs;       /* its accumulators: summed in the same pass */
};

struct pending {
	struct c2c_sample s;    /* resolved */
	uint32_t hash;          /* of its accumulator */
};

struct c2c {
	uint32_t line_size;
	struct c2c_stats totals;

	struct c2c_line **lines;
	size_t nr_lines, alloc_lines;
	size_t nr_made;                 /* struct c2c_line made (in line_chunks) */
	struct line_metric *metrics;    /* [nr_lines], when not dirty */
	uint32_t *line_start;           /* [nr_lines + 1]: the accumulators of each line of the view in
					 * line_accs (other lines: none) */
	uint32_t *line_accs;            /* those of the view's lines, by line, then in order of making */
	struct c2c_line **built;        /* lines whose counts or rows are built */
	size_t nr_built, alloc_built, built_bytes;
	enum c2c_display mode;          /* of the view: the order of rows */
	struct c2c_line **line_chunks;
	size_t nr_line_chunks, alloc_line_chunks, chunk_used;
	struct line_id **lid_chunks;    /* LID_CHUNK each: line_id(c, i) */
	struct line_cold **lid_cold;    /* per chunk: the first sample of each line */
	size_t nr_lid_chunks, alloc_lid_chunks;
	struct htab line_idx;           /* cl_key -> line */

	struct acc **chunks;
	struct acc_cold **cold;         /* COLD_CHUNK each: the first sample of each accumulator */
	size_t nr_cold;
	uint32_t **tags;                /* beside cold, once c->tagged: each accumulator's tag */
	size_t alloc_tags;
	struct code *codes;
	size_t nr_codes, alloc_codes;
	struct htab code_idx;           /* (object, map) -> codes */
	uint32_t last_code;             /* index + 1 of the last one asked for */
	size_t nr_chunks, alloc_chunks, alloc_cold, nr_accs;
	struct htab acc_idx;            /* (line, ip, offset) -> accumulator */
	struct acc_ext *exts;
	size_t nr_exts, alloc_exts;

	struct dec *decs;
	size_t nr_decs;                 /* of DEC_MAX allocated at once */
	/* samples of each decode not yet in the totals (c2c__totals adds
	 * them: counters wrap at 32 bits either way) */
	uint32_t dec_count[DEC_MAX];
	struct htab dec_idx;    /* (data_src, flags) -> decs */
	struct dec_hit {        /* by a few bits of data_src: the last decode seen there */
		uint64_t data_src;
		uint8_t flags;
		uint16_t idx;   /* index + 1, 0 empty */
	} dec_cache[1u << DEC_CACHE_BITS];

	struct ctx *ctxs;
	size_t nr_ctxs, alloc_ctxs;
	struct htab ctx_idx;    /* (pid, tid, cpu, node) -> ctxs */
	struct ctx_hit {        /* by tid: index + 1 of its last context */
		uint32_t idx;
	} ctx_cache[CTX_CACHE];

	struct pending queue[QUEUE];
	uint64_t q_in, q_out;   /* samples queued, counted */

	bool dirty;             /* samples added since the lines were built */
	bool unindexed;         /* line_idx and acc_idx dropped (by c2c__sort) */
	bool tagged;            /* a sample had a tag: compare the accumulators' tags too */
	const struct c2c_line **view;
	uint64_t view_hitm_sum, view_hitm_cnt;  /* over the view's accumulators (group_view) */
	uint64_t load_lat_sum, load_lat_cnt;    /* weighted loads of every accumulator (group_view) */
};

/* Line identities in chunks of 2 MiB: they never move, so growing copies
 * and clears nothing twice. */
#define LID_CHUNK ((2u << 20) / sizeof(struct line_id))

static inline struct line_id *line_id(const struct c2c *c, size_t i)
{
	return &c->lid_chunks[i / LID_CHUNK][i % LID_CHUNK];
}

static inline struct acc *acc__get(const struct c2c *c, size_t i)
{
	return &c->chunks[i / ACC_CHUNK][i % ACC_CHUNK];
}

struct c2c *c2c__new(uint32_t line_size)
{
	struct c2c *c = xcalloc(1, sizeof(*c));

	c->line_size = line_size;
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
static void free_built(struct c2c *c, const struct c2c_line *keep)
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

void c2c__trim(struct c2c *c, const struct c2c_line *keep)
{
	if (c && c->built_bytes > C2C_BUILT_BUDGET)
		free_built(c, keep);
}

void c2c__delete(struct c2c *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr_exts; i++)
		free(c->exts[i].ctx);
	free(c->exts);
	for (size_t i = 0; i < c->nr_chunks; i++) {
		xbig_free(c->chunks[i], ACC_CHUNK * sizeof(struct acc));
	}
	for (size_t i = 0; i < c->nr_made; i++)
		if (c->lines[i])
			line__free_built(c->lines[i]);
	free(c->metrics);
	free(c->line_start);
	free(c->line_accs);
	free(c->built);
	for (size_t i = 0; i < c->nr_line_chunks; i++)
		xbig_free(c->line_chunks[i], LINE_CHUNK * sizeof(struct c2c_line));
	free(c->line_chunks);
	for (size_t i = 0; i < c->nr_lid_chunks; i++) {
		xbig_free(c->lid_chunks[i], LID_CHUNK * sizeof(struct line_id));
		free(c->lid_cold[i]);
	}
	free(c->lid_chunks);
	free(c->lid_cold);
	free(c->chunks);
	for (size_t i = 0; i < c->nr_cold; i++) {
		xbig_free(c->cold[i], COLD_CHUNK * sizeof(struct acc_cold));
		if (c->tags)
			free(c->tags[i]);
	}
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
	d->hitm = d->one.tot_hitm || d->one.st_hitm;
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
	dec__compute(&c->decs[c->nr_decs], data_src, flags, s->addr, s->mapped);
	i = (uint32_t)c->nr_decs++;
	htab__insert(&c->dec_idx, pos, hash, i);
found:
	*hit = (struct dec_hit){ data_src, flags, (uint16_t)(i + 1) };
	return (uint16_t)i;
}

static void stats__apply(struct c2c_stats *st, const uint8_t *idx, uint8_t nr, const struct c2c_stats *full,
			 uint32_t times)
{
	if (nr == DELTA_SLOW) {
		c2c_stats__add_times(st, full, times);
		return;
	}
	for (unsigned int i = 0; i < nr; i++)
		*(uint32_t *)((char *)st + idx[i]) += times;
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
	if (c->nr_lines == c->nr_lid_chunks * LID_CHUNK) {
		size_t alloc = c->alloc_lid_chunks;

		xgrow((void **)&c->lid_chunks, &c->alloc_lid_chunks, c->nr_lid_chunks + 1, sizeof(*c->lid_chunks));
		xgrow((void **)&c->lid_cold, &alloc, c->nr_lid_chunks + 1, sizeof(*c->lid_cold));
		c->lid_cold[c->nr_lid_chunks] = xmalloc(LID_CHUNK * sizeof(**c->lid_cold));
		/* the first chunk grows page by page: most inputs are small */
		c->lid_chunks[c->nr_lid_chunks] = xbig_calloc(LID_CHUNK * sizeof(struct line_id), c->nr_lid_chunks > 0);
		c->nr_lid_chunks++;
	}
	id = line_id(c, c->nr_lines);
	id->key = s->key;
	id->addr = s->addr & ~(uint64_t)(c->line_size - 1);
	c->lid_cold[c->nr_lines / LID_CHUNK][c->nr_lines % LID_CHUNK] =
		(struct line_cold){ .time = s->time, .data_map = s->data_map, .pid = s->pid };
	id->object = s->object;
	htab__insert(&c->line_idx, pos, hash, (uint32_t)c->nr_lines);
	return (uint32_t)c->nr_lines++;
}

/* ---- accumulators ----------------------------------------------------- */

static uint32_t acc_hash(uint32_t line, uint64_t ip, uint32_t offset)
{
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

static struct acc *acc__findnew(struct c2c *c, const struct c2c_sample *s, uint32_t line, uint32_t hash)
{
	uint32_t offset = s->addr & (c->line_size - 1);
	size_t pos = htab__start(&c->acc_idx, hash);
	struct acc *a;
	uint32_t i;

	while ((i = htab__next(&c->acc_idx, hash, &pos)) != HTAB_NONE) {
		a = acc__get(c, i);
		if (a->iaddr == s->ip && a->line == line && a->offset == offset &&
		    (!c->tagged || c->tags[i / COLD_CHUNK][i % COLD_CHUNK] == s->tag))
			return a;
	}
	if (c->nr_accs == (size_t)c->nr_chunks * ACC_CHUNK) {
		xgrow((void **)&c->chunks, &c->alloc_chunks, c->nr_chunks + 1, sizeof(*c->chunks));
		/* the first chunk grows page by page: most inputs are small */
		c->chunks[c->nr_chunks] = xbig_calloc(ACC_CHUNK * sizeof(struct acc), c->nr_chunks > 0);
		c->nr_chunks++;
	}
	if (c->nr_accs == c->nr_cold * COLD_CHUNK) {
		xgrow((void **)&c->cold, &c->alloc_cold, c->nr_cold + 1, sizeof(*c->cold));
		c->cold[c->nr_cold] = xbig_calloc(COLD_CHUNK * sizeof(struct acc_cold), c->nr_cold > 0);
		if (c->tagged) {
			xgrow((void **)&c->tags, &c->alloc_tags, c->nr_cold + 1, sizeof(*c->tags));
			c->tags[c->nr_cold] = xcalloc(COLD_CHUNK, sizeof(**c->tags));
		}
		c->nr_cold++;
	}
	a = acc__get(c, c->nr_accs);
	a->line = line;
	a->offset = (uint16_t)offset;
	a->iaddr = s->ip;
	a->cpumode = s->cpumode;
	c->cold[c->nr_accs / COLD_CHUNK][c->nr_accs % COLD_CHUNK] = (struct acc_cold){
		.time = s->time, .pid = s->pid, .code = code__get(c, s->code_object, s->code_map) };
	if (c->tagged)
		c->tags[c->nr_accs / COLD_CHUNK][c->nr_accs % COLD_CHUNK] = s->tag;
	htab__insert(&c->acc_idx, pos, hash, (uint32_t)c->nr_accs++);
	return a;
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
		c->dec_count[s->dec]++;
		keep = c->decs[s->dec].keep;
	} else {
		/* more distinct data sources than the registry keeps (a
		 * hostile file): c2c__add decodes this one on its own */
		dec__compute(&one, s->no_datasrc ? 0 : s->data_src, sample_flags(s), s->addr, s->mapped);
		keep = one.keep;
	}
	if (keep)
		s->line = line__findnew(c, s, line_hash(s)) + 1;
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

static void count(struct c2c *c, const struct pending *q)
{
	acc__count(c, acc__findnew(c, &q->s, q->s.line - 1, q->hash), q->s.dec, &c->decs[q->s.dec], &q->s,
		   q->s.ctx);
}

/* Count every queued sample, in order. */
static void flush(struct c2c *c)
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
	flush(c);
	c->alloc_tags = c->nr_cold ? c->nr_cold : 1;
	c->tags = xcalloc(c->alloc_tags, sizeof(*c->tags));
	for (size_t i = 0; i < c->nr_cold; i++)
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

		htab__add(&c->acc_idx, acc_hash(a->line, a->iaddr, a->offset), (uint32_t)i);
	}
	c->unindexed = false;
}

int c2c__add(struct c2c *c, const struct c2c_sample *s)
{
	struct pending *q;
	struct dec one;

	if (c->unindexed)
		reindex(c);
	c->dirty = true;
	if (s->tag && !c->tagged)
		start_tags(c);
	q = &c->queue[c->q_in % QUEUE];
	q->s = *s;
	if (!s->resolved)
		resolve(c, &q->s);
	s = &q->s;
	if (s->dec == DEC_NONE) {
		q->s.ctx = ctx__get(c, s);
		flush(c);
		dec__compute(&one, s->no_datasrc ? 0 : s->data_src, sample_flags(s), s->addr, s->mapped);
		c2c_stats__add(&c->totals, &one.tot);
		if (s->line) {
			q->hash = acc_hash(s->line - 1, s->ip ^ (uint64_t)s->tag << 47, s->addr & (c->line_size - 1));
			acc__count(c, acc__findnew(c, s, s->line - 1, q->hash), DEC_NONE, &one, s, s->ctx);
		}
		return 0;
	}
	if (!s->line)
		return 0;
	q->s.ctx = ctx__get(c, s);
	/* a tag of 0 leaves the hash as it was without tags */
	q->hash = acc_hash(s->line - 1, s->ip ^ (uint64_t)s->tag << 47, s->addr & (c->line_size - 1));
	__builtin_prefetch(htab__slot_addr(&c->acc_idx, q->hash));
	c->q_in++;
	advance(c);
	return 0;
}

size_t c2c__nr_lines(const struct c2c *c)
{
	/* queued samples may make lines: count them first (the object is
	 * never defined const; only this view of it is) */
	if (c->q_in != c->q_out)
		flush((struct c2c *)c);
	return c->nr_lines;
}

/* ---- sorted view ------------------------------------------------------ */

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
	free_built(c, NULL);
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

/* The accumulators of the lines in the view (in_view: a bit per line), in
 * order of making (a counting sort): a view of the contended lines lists a
 * small part of them, and the rest is not touched but for its line. Their
 * HITM latency sums go to the view's. */
static void group_view(struct c2c *c, const uint64_t *in_view)
{
	size_t total = 0;

	c->view_hitm_sum = c->view_hitm_cnt = 0;
	c->load_lat_sum = c->load_lat_cnt = 0;
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
}

static struct c2c_line *line__make(struct c2c *c, size_t i)
{
	struct c2c_line *l = c->lines[i];

	if (!l) {
		if (!c->nr_line_chunks || c->chunk_used == LINE_CHUNK) {
			xgrow((void **)&c->line_chunks, &c->alloc_line_chunks, c->nr_line_chunks + 1,
			      sizeof(*c->line_chunks));
			c->line_chunks[c->nr_line_chunks] = xbig_calloc(LINE_CHUNK * sizeof(struct c2c_line),
								  c->nr_line_chunks > 0);
			c->nr_line_chunks++;
			c->chunk_used = 0;
		}
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
		row->tag = c->tagged ? c->tags[i / COLD_CHUNK][i % COLD_CHUNK] : 0;
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

	flush(c);
	if (c->dirty) {
		build_metrics(c);
		/* the lookups of adding take a tenth of the memory: made again
		 * if adding goes on */
		htab__exit(&c->line_idx);
		htab__exit(&c->acc_idx);
		c->unindexed = true;
	}
	/* rows are in the mode's order: built again when asked for */
	free_built(c, NULL);
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
