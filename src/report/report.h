/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report pipeline: reader -> maps timeline (pass 1) -> key and aggregate
 * every sample (pass 2) -> the sorted model that stdio, json, html, pprof
 * and the TUI render. struct report owns the reader, the maps and the c2c
 * model; the files of this stage read its fields (report_int.h), the
 * others these accessors (model.c). The other modules' headers:
 * callchain.h, coalesce.h, layout.h, verdict.h, diff.h, output.h.
 */
#ifndef C2CSCAN_REPORT_H
#define C2CSCAN_REPORT_H

#include <stdio.h>
#include "hitm/c2c.h"
#include "maps/heap.h"
#include "maps/maps.h"
#include "names/names.h"
#include "perfdata/reader.h"

/* How the rows of a line are grouped: per (offset, code address), the
 * model's own; per offset; per (offset, pid); per (offset, tid). */
enum report_coalesce { COALESCE_IADDR, COALESCE_OFFSET, COALESCE_PID, COALESCE_TID, COALESCE__NR };

/* -c/--coalesce fields (perf c2c's): what tells --stdio's offset rows apart
 * besides the offset. */
enum { CO_TID = 1, CO_PID = 2, CO_IADDR = 4, CO_DSO = 8 };

enum report_call_graph {
	REPORT_CG_AUTO,             /* callers when the file has stacks */
	REPORT_CG_ON,               /* -g: the same, and a warning when it has none */
	REPORT_CG_OFF,              /* --no-call-graph */
};

struct report_opts {
	const char *input;          /* "-" = stdin */
	enum c2c_display mode;
	bool mode_set;              /* -d given; else chosen from the data */
	bool show_all;
	bool double_cl;
	uint32_t cl_size;           /* --cacheline-size; 0 = file's, else 64 */
	unsigned max_lines;         /* --stdio: detail tables for this many lines; 0 = all */
	bool max_lines_set;         /* --lines given; else all, or 50 in mode all */
	bool stats_only;            /* --stats: --stdio without the tables */
	bool full_symbols;          /* --full-symbols: whole source paths in --stdio */
	enum report_call_graph call_graph; /* -g, --no-call-graph */
	bool node_info;             /* -N: --stdio's offsets with their nodes and cpus */
	bool sort_gain;             /* --sort gain: lines by estimated gain, not by the mode's metric */
	unsigned int fail_on;       /* --fail-on: verdict kinds (1 << enum verdict_kind), 0 none */
	double fail_share;          /* --fail-share: percent of the mode's metric, at least */
	bool patch_latent;          /* --patch-latent: --patch separates latent pairs too */
#define REPORT_FAIL_SHARE 1.0       /* its default: under it, a read after a join or one HITM */
	unsigned int coalesce;      /* -c: CO_* fields of --stdio's offset rows; 0: offset and code address */
	const char *alloc_wrappers[16]; /* --alloc-wrapper: more allocator wrappers */
	int nr_alloc_wrappers;
	struct names_opts names;    /* symbols: --no-symbols, --symfs, -k, --no-debuginfod */
};

/* Per attr (event) sample counts. */
struct report_event {
	char *name;             /* owned */
	uint64_t samples;
	bool has_addr, has_data_src, has_weight;
	bool has_stack;         /* callchains or user stack copies */
	uint64_t period_sum;    /* of its samples: events a sample stands for */
	uint64_t contended, contended_period; /* its HITM, store HITM and peer samples, and
				 * their periods (an emulated recording samples these at a
				 * rate of their own) */
};

struct report;                  /* opaque outside src/report/ (report_int.h) */

/* What the renderers outside this stage read. */
size_t report__nr_lines(const struct report *r);
/* The sorted view for the display mode (and --show-all): valid until the
 * next report__set_mode. */
const struct c2c_line *const *report__lines(const struct report *r);
/* The accesses r's memory samples stand for: their periods summed (an
 * emulated recording samples HITMs and other accesses at two rates, so
 * samples alone do not compare); its samples when no event has a data
 * source (page faults). */
double report__accesses(const struct report *r);
/* Counter i of st (a line's, a row's) as the tables show it: its samples,
 * or in an emulated recording, which samples contended accesses and the
 * others at two rates, for loads, stores, store L1 hits and misses and
 * all samples (the Access column) the accesses they stand for (each
 * sample counts its period; HITM counts stay the model's, other counters
 * samples). */
uint64_t report__est(const struct report *r, const struct c2c_stats *st, enum c2c_stat i);
/* What a Share column divides: the view's metric of line l (of row
 * counters st), except in the all mode of an emulated recording, the
 * accesses its samples stand for (report__est of the samples). */
uint64_t report__share_line(const struct report *r, const struct c2c_line *l);
uint64_t report__share_row(const struct report *r, const struct c2c_stats *st);
enum c2c_display report__mode(const struct report *r);
uint32_t report__line_size(const struct report *r);
const struct maps *report__maps(const struct report *r);
const struct pd_info *report__info(const struct report *r);
const char *report__path(const struct report *r);
const struct c2c_stats *report__totals(const struct report *r);
size_t report__nr_events(const struct report *r);
const struct report_event *report__event(const struct report *r, size_t i);
/* The stream stopped on an error: what was read is reported; why. */
bool report__partial(const struct report *r);
const char *report__partial_reason(const struct report *r);

/* Why no report could be made of a file, as a value (the CLI words it). */
enum report_err {
	REPORT_ERR_NONE,
	REPORT_ERR_FILE,                /* the reader's: file */
	REPORT_ERR_MAPS,                /* the first pass (maps, side-band) failed: errnum */
	REPORT_ERR_LINE_SIZE,           /* line_size is not a power of two in 8..4096 */
	REPORT_ERR_REREAD,              /* the second pass failed: errnum */
};
struct report_error {
	enum report_err kind;
	int errnum;
	unsigned int line_size;
	struct pd_error file;
};

/* 0, or < 0 and what went wrong in *err (when not NULL). */
int report__load(struct report **rp, const struct report_opts *opts, struct report_error *err);
/* Same, over an open reader, which the report takes ownership of (also on
 * failure). For in-memory input (tests, fuzzing). */
int report__load_reader(struct report **rp, struct pd_reader *rd, const struct report_opts *opts,
			struct report_error *err);
void report__delete(struct report *r);
/* Re-sort for another display mode (TUI 'd'). */
void report__set_mode(struct report *r, enum c2c_display mode);

/* What a recording without memory events can show (software events such as
 * page faults: where each page was first touched, not contention), or NULL
 * when some event has a data source. */
const char *report__notice(const struct report *r);
/* Every event with data addresses is a software one (page faults). */
bool report__software_only(const struct report *r);
/* The same in under 60 columns (a narrow screen's status line), or NULL. */
const char *report__notice_brief(const struct report *r);
/* A message when there is nothing to rank (no samples, no memory data), else NULL. */
const char *report__empty_reason(const struct report *r, char *buf, size_t size);

/* Names of what a renderer prints (names/names.h): the code of row and the
 * data at its offset in line l; the data at byte offset of line l; warnings
 * (build-id mismatches and the like). */
void report__row_names(const struct report *r, const struct c2c_line *l, const struct c2c_row *row,
		       struct row_names *out);
bool report__data_name(const struct report *r, const struct c2c_line *l, uint32_t offset,
		       struct data_loc *out);
size_t report__nr_name_warnings(const struct report *r);
const char *report__name_warning(const struct report *r, size_t i);

/* The memory access of row's instruction (names__insn). */
bool report__row_insn(const struct report *r, const struct c2c_row *row, struct insn_access *out);

struct heap_ref {
	const struct heap_obj *obj;
	uint64_t offset;
	bool allocator;         /* the allocator's bookkeeping in the freed obj (free, malloc) */
};
/* A row's tag with this bit: the allocator's code touched the freed object
 * (the tag's object), not the program. */
#define HEAP_TAG_ALLOCATOR (1u << 31)
/* "freed ", "allocator's own bytes of freed " or "": what a row's bytes are. */
const char *report__heap_state(const struct heap_ref *h);
/* The heap object under a row (its offset in line l, at its first
 * sample's time), and the byte of it: false when none is known (no --alloc,
 * not heap memory). */
bool report__row_heap(const struct report *r, const struct c2c_line *l, const struct c2c_row *row,
		      struct heap_ref *out);
/* The allocation site of o: its function and "file:line" (""), the function
 * unknown written as "" or as the site's address. */
enum heap_site_unknown { SITE_UNKNOWN_EMPTY, SITE_UNKNOWN_ADDRESS };
void report__heap_site(const struct report *r, const struct heap_obj *o, enum heap_site_unknown unknown,
		       char *func, size_t fsize, char *src, size_t ssize);
/* "malloc", "operator new[]", ... */
const char *report__alloc_fn(const struct report *r, uint16_t fn);
/* "make_counter+0x8 (48 B)", "freed make_counter+0x8 (48 B)"; 0 when none. */
size_t report__heap_scnprintf(const struct report *r, const struct heap_ref *h, char *buf, size_t size);
/* The distinct heap objects under l's rows (rows at the same object add
 * their samples), most sampled first; how many, at most max. */
struct line_heap_obj {
	const struct heap_obj *obj;
	uint64_t samples;
};
size_t report__line_heap(const struct report *r, const struct c2c_line *l, struct line_heap_obj *out, size_t max);
/* The heap: its counters, NULL when the recording has no allocations. */
const struct heap_stats *report__heap_stats(const struct report *r);

/* "counters", "make_conn (heap)", "//anon via touch": what line l
 * holds, without its address. */
size_t report__line_name(const struct report *r, const struct c2c_line *l, char *buf, size_t size);

#endif
