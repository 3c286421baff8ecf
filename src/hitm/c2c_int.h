/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The aggregation's own structures (c2c.c counts into them, c2c_view.c
 * ranks and builds lines from them), for src/hitm/ only.
 */
#ifndef C2CSCAN_HITM_C2C_INT_H
#define C2CSCAN_HITM_C2C_INT_H

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
	bool contends;          /* counts in some display mode but 'all': its line is shown */
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
	uint64_t seq;           /* its place among the samples added (a replay's order) */
};

/* With a replay (c2c__set_replay), what of a line's samples is not in
 * accumulators yet: those of [lo - 1, hi) in the order of adding (lo 0:
 * none). A line is followed (its samples counted) from the first that
 * contends on; before, hi is LAZY_UNTIL_SHOWN. */
#define LAZY_UNTIL_SHOWN UINT64_MAX
struct line_lazy {
	uint64_t lo, hi;
	struct c2c_writes w;    /* its stores (every line, a replay or not): in the entry follow()
				 * reads, prefetched when the sample is resolved */
	bool firsts;            /* a replay counted its start: its rows are ordered by c->firsts */
};

/* An array in chunks of a fixed number of entries (entry i is in chunk
 * i / per): see chunks__room. */
struct chunks {
	size_t nr, alloc;       /* chunks */
	size_t cap;             /* entries there is room for */
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
	size_t nr_built, alloc_built, built_bytes, budget;  /* budget: c2c__trim's */
	enum c2c_display mode;          /* of the view: the order of rows */
	struct c2c_line **line_chunks;  /* no more each than lines were left to make */
	size_t *line_chunk_cap;
	size_t nr_line_chunks, alloc_line_chunks, chunk_used, nr_line_structs;
	struct line_id **lid_chunks;    /* LID_CHUNK each: line_id(c, i) */
	struct chunks lid_ch;
	struct line_cold **lid_cold;    /* LID_CHUNK each: the first sample of each line */
	struct chunks lid_cold_ch;
	struct line_lazy **lazy;        /* LID_CHUNK each: what each line has not counted (a replay's),
					 * its stores */
	struct chunks lazy_ch;
	struct htab line_idx;           /* cl_key -> line */

	struct acc **chunks;            /* ACC_CHUNK each */
	struct chunks acc_ch;
	struct acc_cold **cold;         /* COLD_CHUNK each: the first sample of each accumulator */
	struct chunks cold_ch;
	uint32_t **tags;                /* beside cold, once c->tagged: each accumulator's tag */
	size_t alloc_tags;
	struct code *codes;
	size_t nr_codes, alloc_codes;
	struct htab code_idx;           /* (object, map) -> codes */
	uint32_t last_code;             /* index + 1 of the last one asked for */
	size_t nr_accs;
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
	bool peer_contention;   /* peer loads are the contended ones (c2c__set_peer_contention) */
	/* Rows of the lines that may be shown only (c2c__set_replay): */
	c2c_replay_fn replay;
	void *replay_arg;
	uint64_t seq;                   /* samples added */
	uint64_t rseq, r_lo, r_hi;      /* a replay's: samples seen, the range it counts */
	size_t r_accs;                  /* accumulators made before it */
	struct u64map firsts;           /* accumulator -> place of its first sample, in lines a
					 * replay counted the start of (c2c__replay) */
	bool pending;                   /* a followed line has samples before it to count */
	bool replaying;                 /* in c2c_catch_up's replay */
	uint64_t lazy_load_sum, lazy_load_cnt;  /* weighted loads in no accumulator */
	uint64_t load_lat_sum, load_lat_cnt;    /* weighted loads of every accumulator (group_view) */
};

/* Line identities in chunks of 2 MiB: they never move, so growing copies
 * and clears nothing twice. */
#define LID_CHUNK ((2u << 20) / sizeof(struct line_id))

static inline struct line_id *line_id(const struct c2c *c, size_t i)
{
	return &c->lid_chunks[i / LID_CHUNK][i % LID_CHUNK];
}

static inline struct line_lazy *line_lazy(const struct c2c *c, size_t i)
{
	return &c->lazy[i / LID_CHUNK][i % LID_CHUNK];
}

static inline struct acc *acc__get(const struct c2c *c, size_t i)
{
	return &c->chunks[i / ACC_CHUNK][i % ACC_CHUNK];
}

/* Accumulator i's tag (0 before the first tagged sample). */
static inline uint32_t acc__tag(const struct c2c *c, size_t i)
{
	return c->tagged ? c->tags[i / COLD_CHUNK][i % COLD_CHUNK] : 0;
}

static inline void stats__apply(struct c2c_stats *st, const uint8_t *idx, uint8_t nr, const struct c2c_stats *full,
			 uint32_t times)
{
	if (nr == DELTA_SLOW) {
		c2c_stats__add_times(st, full, times);
		return;
	}
	for (unsigned int i = 0; i < nr; i++)
		*(uint32_t *)((char *)st + idx[i]) += times;
}

/* Room for entry ch->cap of an array in chunks of `per` entries of `size`
 * bytes (*v: the chunks). The first chunk starts small and doubles until
 * whole, moving as it grows (nothing keeps a pointer into it while
 * entries are added); the later ones are whole from the start, offered to
 * huge pages, and never move. A small input maps and unmaps no memory. */
void chunks__room(struct chunks *ch, void ***v, size_t per, size_t size);
void chunks__free(struct chunks *ch, void **v, size_t per, size_t size);

/* Frees the counts and rows built for the lines but keep (c2c.c). */
void c2c_free_built(struct c2c *c, const struct c2c_line *keep);
/* With a replay: counts the samples of the lines followed that are in no
 * row yet, and with all every line's (c2c.c). */
void c2c_catch_up(struct c2c *c, bool all);
/* Counts the samples still in c2c__add's pipeline (c2c.c). */
void c2c_flush(struct c2c *c);

#endif
