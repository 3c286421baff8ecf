/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Aggregation of keyed samples into cachelines and, inside each line, rows
 * per (offset, code address). This is the model every renderer reads (stdio,
 * json, tui). It never prints and never includes curses.
 *
 * The line and row structs are exposed read-only so renderers can format
 * them without an accessor per field; only c2c.c writes them.
 */
#ifndef C2CSCAN_C2C_H
#define C2CSCAN_C2C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hitm/datasrc.h"
#include "maps/maps.h"
#include "util/util.h"

struct c2c;

/* One sample, keyed (maps__key) and ready to count. What counting a
 * sample of a line without rows reads (the line's and decode's fields, the
 * tag) sits in its first 128 bytes: the rest, written by the keying thread,
 * stays in that thread's cache unless the line has rows. */
struct c2c_sample {
	uint64_t data_src;
	uint64_t addr;            /* data virtual address */
	uint64_t ip;              /* code address */
	uint64_t weight;          /* load latency (WEIGHT / WEIGHT_STRUCT var1), 0 if none */
	uint32_t pid, tid, cpu;   /* cpu (u32)-1 when the file has none */
	int32_t node;             /* NUMA node of cpu, -1 unknown */
	uint8_t cpumode;
	bool mapped;              /* data and code address resolved to mappings */
	uint32_t key_hash;        /* (uint32_t)cl_key__hash(&key) made by the keying thread, or 0:
				   * c2c__add makes it (whoever changes key after setting it clears it) */
	struct cl_key key;
	bool no_datasrc;          /* the event has no data source (software event):
				   * counted as an access of unknown kind */
	bool resolved;            /* c2c__resolve set dec and line (whoever makes a
				   * sample sets it false) */
	uint16_t dec;             /* c2c's ids of its decode, line (index + 1, 0 when not */
	uint32_t line, ctx;       /* counted into a line) and context (c2c__add's) */
	uint32_t tag;             /* samples of one (line, offset, ip) with other tags make other
				   * rows: the heap object (maps/heap.h) they touched; 0 none */
	uint64_t time;            /* sample time (or file order), for naming later */
	const char *object;       /* data mapping name; must outlive the c2c */
	const char *code_object;  /* code mapping name; must outlive the c2c */
	const struct map_desc *data_map, *code_map; /* NULL when unmapped; outlive the c2c */
};

_Static_assert(offsetof(struct c2c_sample, time) + sizeof(uint64_t) <= 128,
	       "what counting a line without rows reads is in two cache lines");

enum c2c_display {
	C2C_DISPLAY_TOT,          /* local + remote HITM */
	C2C_DISPLAY_LCL,
	C2C_DISPLAY_RMT,
	C2C_DISPLAY_PEER,         /* local + remote peer (no HITM on some CPUs) */
	C2C_DISPLAY_ALL,          /* loads + stores: files without snoop info */
};

/* Latency sums of loads (WEIGHT), for mean latency columns. */
struct c2c_lat {
	uint64_t hitm_sum, load_sum;
	uint32_t hitm_cnt, load_cnt;
};

struct c2c_row {                  /* (offset, iaddr) inside one line */
	uint32_t offset;          /* byte offset inside the line */
	uint64_t iaddr;
	uint8_t cpumode;          /* of the code address */
	const char *code_object;
	const struct map_desc *code_map; /* of the first sample: for naming iaddr */
	uint32_t first_pid;       /* that sample's pid */
	uint64_t first_time;      /* and time */
	uint32_t tag;             /* of its samples (c2c_sample.tag) */
	struct c2c_lat lat;
	struct u32set pids, tids, cpus, nodes;
	struct c2c_stats stats;   /* last: c2c.c fills it only in c2c__sort */
};

/* What a line's samples add up to: c2c_line__counts. */
struct c2c_counts {
	struct c2c_stats stats;
	struct c2c_lat lat;
	struct u32set pids, tids, cpus, nodes;
};

/* A line of a view: its identity here, its counts and rows built when asked
 * for (a view of every line of a large recording would otherwise hold all
 * of them at once). */
struct c2c_line {
	struct cl_key key;
	uint64_t addr;            /* line's virtual address (first sample seen) */
	uint32_t first_pid;       /* pid of that sample (a shared line's address is per process) */
	uint32_t nr_rows;         /* its rows: c2c_line__rows */
	uint64_t first_time;      /* its time */
	const struct map_desc *data_map; /* its data mapping (NULL: unmapped or kernel) */
	const char *object;
	/* private to c2c.c */
	struct c2c *owner;
	struct c2c_counts *counts;      /* once asked for */
	struct c2c_row *built;          /* the rows, once asked for */
	uint32_t idx;                   /* in the owner's lines */
};

/*
 * Rows for the lines a view may show only. Counting a sample into its row
 * is most of adding's cost and memory, and most lines of a large recording
 * never contend: with a replay, a line's samples go into rows from its
 * first contended one (a HITM or a peer load) on, and c2c__sort has the
 * ones before counted, or every line's when it shows every line, by
 * calling fn (when it fails, rows are short: fn says so where it reports).
 * fn gives c2c__replay the samples c2c__add had, the same ones in the
 * same order, from the place c2c__replay_range says (0: the first) to its
 * end, in batches it may change. Before the first c2c__add.
 */
typedef void (*c2c_replay_fn)(void *arg, struct c2c *c);
void c2c__set_replay(struct c2c *c, c2c_replay_fn fn, void *arg);
void c2c__replay(struct c2c *c, struct c2c_sample *s, size_t nr);
/* During fn: the samples it gives, by their place among those added: [*lo, *hi). */
void c2c__replay_range(const struct c2c *c, uint64_t *lo, uint64_t *hi);

/* line_size: a power of two, at most 65536 (offsets are kept in 16 bits). */
struct c2c *c2c__new(uint32_t line_size);
void c2c__delete(struct c2c *c);
uint32_t c2c__line_size(const struct c2c *c);

/* Counts s into the totals; into a line when perf would (see c2c_stats__decode). */
int c2c__add(struct c2c *c, const struct c2c_sample *s);
/*
 * Finds (or makes) the decode and line of nr samples, in order,
 * for c2c__add: the half of adding that a thread making samples can do
 * while another thread adds the samples resolved before. Both may run at
 * once when every sample c2c__add gets was resolved first (and handed over
 * through a lock, as the relay does), before any c2c__sort.
 */
void c2c__resolve(struct c2c *c, struct c2c_sample *s, size_t nr);
const struct c2c_stats *c2c__totals(const struct c2c *c);
size_t c2c__nr_lines(const struct c2c *c);

/* "tot", "lcl", "rmt", "peer", "all"; parse: 0 or -EINVAL. */
const char *c2c_display__name(enum c2c_display mode);
int c2c_display__parse(const char *s, enum c2c_display *mode);
/* What a view ranks by: tot and lcl count store HITMs with the HITM loads
 * (a store that took the line from another core's modified copy; only
 * emulated recordings have them, on one node). */
uint64_t c2c_stats__metric(const struct c2c_stats *st, enum c2c_display mode);

/*
 * Sorted view: the lines the mode counts as contended (metric > 0), or every
 * line with show_all, by metric descending (ties: more accesses, then key).
 * *linesp (and the lines it points to) stays valid until the next
 * c2c__sort, c2c__add or c2c__delete.
 */
size_t c2c__sort(struct c2c *c, enum c2c_display mode, bool show_all,
		 const struct c2c_line *const **linesp);

/*
 * The counters, latency sums and sets of a line of the view, and its
 * l->nr_rows rows sorted by offset, then the view's metric descending, then
 * accesses, then code address: built when first asked for. Valid until the
 * next c2c__sort, c2c__add or c2c__delete, or a c2c__trim that does not
 * keep l.
 */
const struct c2c_counts *c2c_line__counts(const struct c2c_line *l);
/* c2c_stats__metric of its counts, without building them. */
uint64_t c2c_line__metric(const struct c2c_line *l, enum c2c_display mode);
/* The sums of lat.hitm_sum and lat.hitm_cnt over every line of the view,
 * without building their counts (made by c2c__sort). */
void c2c__view_hitm(const struct c2c *c, uint64_t *sum, uint64_t *cnt);
/* Peer loads count as the contended ones in the latency sums (HitmLat, the
 * gain): Arm SPE's, which reports cache-to-cache transfers, never HITM.
 * Before the first c2c__add. */
void c2c__set_peer_contention(struct c2c *c, bool on);
/* The sums of the weights and the count of every weighted load, over every
 * line (stores' weights are not latencies of the loads the gain compares). */
void c2c__load_latency(const struct c2c *c, uint64_t *sum, uint64_t *cnt);
const struct c2c_row *c2c_line__rows(const struct c2c_line *l);

/* What a line's store samples say, every one counted (its line shown or
 * not, rows made or not): who wrote, and the lowest and highest offsets
 * written. The report's latent false sharing reads it. */
struct c2c_writes {
	uint32_t tid;           /* the first writer; 0: no store sampled */
	uint32_t stores;        /* store samples */
	uint16_t lo, hi;        /* offsets of the lowest and highest store */
	bool several;           /* another thread stored too */
	uint64_t time;          /* of the last store */
};
/* A line stores were sampled on, as c2c__written lists it. */
struct c2c_written {
	struct cl_key key;
	uint64_t addr;                  /* as c2c_line's */
	uint32_t pid;
	const struct map_desc *data_map;
	struct c2c_writes w;
};
/* The lines one thread alone stored to, min_stores times or more, ordered
 * so that a line's neighbour in memory (the same space, the next address)
 * comes next: their space (the key but its address), then the address.
 * *out: free() it. */
size_t c2c__written(struct c2c *c, uint32_t min_stores, struct c2c_written **out);

/* Frees the counts and rows built so far, but keep's, once they exceed the
 * budget (C2C_BUILT_BUDGET bytes unless set). Call it where no other
 * pointer to them is held: between lines of a listing, between keys of the
 * browser. A listing that passes over its lines more than once (the text
 * report: the table's widths, the table, the details) builds them once
 * with a budget that holds them. */
#define C2C_BUILT_BUDGET (2u << 20)
void c2c__trim(struct c2c *c, const struct c2c_line *keep);
void c2c__set_budget(struct c2c *c, size_t bytes);

#endif
