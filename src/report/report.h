/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report pipeline: reader -> maps timeline (pass 1) -> key and aggregate
 * every sample (pass 2) -> the sorted model that stdio, json and the TUI
 * render. struct report owns the reader, the maps and the c2c model; the
 * renderers of this stage read its fields (report_int.h), the others its
 * accessors.
 */
#ifndef C2CSCAN_REPORT_H
#define C2CSCAN_REPORT_H

#include <stdio.h>
#include "perfdata/reader.h"
#include "maps/maps.h"
#include "hitm/c2c.h"
#include "maps/heap.h"
#include "names/names.h"

/* How the rows of a line are grouped: per (offset, code address), the
 * model's own; per offset; per (offset, pid); per (offset, tid). */
enum report_coalesce { COALESCE_IADDR, COALESCE_OFFSET, COALESCE_PID, COALESCE_TID, COALESCE__NR };

/* -c/--coalesce fields (perf c2c's): what tells --stdio's offset rows apart
 * besides the offset. */
enum { CO_TID = 1, CO_PID = 2, CO_IADDR = 4, CO_DSO = 8 };

enum report_out { REPORT_OUT_AUTO, REPORT_OUT_STDIO, REPORT_OUT_JSON, REPORT_OUT_TUI, REPORT_OUT_NONE };

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
	enum report_out out;
	unsigned max_lines;         /* --stdio: detail tables for this many lines; 0 = all */
	bool max_lines_set;         /* --lines given; else all, or 50 in mode all */
	bool stats_only;            /* --stats: --stdio without the tables */
	bool full_symbols;          /* --full-symbols: whole source paths in --stdio */
	enum report_call_graph call_graph; /* -g, --no-call-graph */
	bool node_info;             /* -N: --stdio's offsets with their nodes and cpus */
	bool sort_gain;             /* --sort gain: lines by estimated gain, not by the mode's metric */
	unsigned int fail_on;       /* --fail-on: verdict kinds (1 << enum verdict_kind), 0 none */
	double fail_share;          /* --fail-share: percent of the mode's metric, at least */
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
};

struct report;                  /* opaque outside src/report/ (report_int.h) */

/* What the renderers outside this stage read. */
size_t report__nr_lines(const struct report *r);
/* The sorted view for the display mode (and --show-all): valid until the
 * next report__set_mode. */
const struct c2c_line *const *report__lines(const struct report *r);
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

/* 0, or < 0 with a one-line reason in err (without the file name). */
int report__load(struct report **rp, const struct report_opts *opts, char *err, size_t errsize);
/* Same, over an open reader, which the report takes ownership of (also on
 * failure). For in-memory input (tests, fuzzing). */
int report__load_reader(struct report **rp, struct pd_reader *rd, const struct report_opts *opts,
			char *err, size_t errsize);
void report__delete(struct report *r);
/* Re-sort for another display mode (TUI 'd'). */
void report__set_mode(struct report *r, enum c2c_display mode);

/*
 * The rows of one line grouped by another key than the code address: a
 * model of that line alone, made by re-reading the file (one pass, about
 * the time of the report's second pass). Its rows' iaddr holds the pid
 * (COALESCE_PID), the tid (COALESCE_TID) or 0 (COALESCE_OFFSET), and it has
 * no code names; its line has the counters of the same line in r->c2c.
 * Sort it (c2c__sort) before use; the caller deletes it. Returns 0; or
 * -EINVAL for COALESCE_IADDR (use the report's own rows), the error of the
 * rewind, with *out NULL; or the stream's error, with *out the model of
 * what was read before it (as the report itself, see report__partial).
 */
int report__regroup(struct report *r, enum report_coalesce by, const struct cl_key *line, struct c2c **out);

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

/* The heap object under a row (its offset in line l, at its first
 * sample's time), and the byte of it: false when none is known (no --alloc,
 * not heap memory). */
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

/* Callers of a row of the view, by identical stacks, innermost frame
 * first (report -g; callchain.c). */
struct report_chain {
	uint64_t samples;
	uint32_t nr_frames;
	const char *const *frames;  /* function names ("f (file.c:3)" with --full-symbols) */
};
/* The stacks of row of line l, most samples first, in *out (valid while
 * the report is); *samples: the row's samples that had a stack. 0 when none
 * (or call graphs are off). */
size_t report__row_chains(const struct report *r, const struct c2c_line *l, const struct c2c_row *row,
			  const struct report_chain **out, uint64_t *samples);
/* "touch <- helper <- via_beta <- main" (cut at size). */
size_t report_chain__scnprintf(const struct report_chain *ch, char *buf, size_t size);
/* The recording's memory events have stacks (callchains or stack copies). */
bool report__has_stacks(const struct report *r);
/* A heap object's allocation stack (heap_obj.stack; record --alloc -g):
 * function names from its site outwards, the wrappers included; 0 none. */
uint32_t report__alloc_stack(const struct report *r, uint32_t stack, const char *const **frames);
/* Call graphs are shown: the recording has stacks and they are not off. */
bool report__call_graph(const struct report *r);
struct report_cg_stats {
	uint64_t with_stack, without_stack; /* samples of events with stacks */
	uint64_t clipped;           /* stacks cut at 64 frames */
	uint64_t distinct;          /* distinct named stacks */
	uint64_t unwind_samples, unwound, unwind_no_module, unwind_no_regs;
	uint64_t unwind_fast;       /* unwound from cached CFI rules (the others by libdwfl) */
	uint64_t unwind_checked, unwind_mismatches; /* C2CSCAN_UNWIND_CHECK */
};
void report__callchain_stats(const struct report *r, struct report_cg_stats *st);
/* The verdict on a line (verdict.c): one function for stdio, JSON and the
 * browser. Units: members (DWARF), heap objects, else byte offsets. */
enum verdict_kind {
	VERDICT_NONE, VERDICT_FALSE, VERDICT_TRUE, VERDICT_MIXED, VERDICT_UNKNOWN, VERDICT_QUIET, VERDICT_SLIGHT,
};
/* A verdict that is a finding (false, true sharing or mixed): what the
 * renderers stress. VERDICT_QUIET: threads share the line but no HITM was
 * sampled on it, so there is no contention to fix. VERDICT_SLIGHT: some
 * was, under VERDICT_SLIGHT_SHARE of the recording's (an emulated
 * recording sees every HITM: a result read once at the end is one). */
#define VERDICT_SLIGHT_SHARE 0.0001
bool verdict__is_finding(enum verdict_kind k);
/* report --fail-on: the lines of the view whose verdict is in kinds (a bit
 * per enum verdict_kind) and whose share of the mode's metric is at least
 * min_share percent, one line each on fp; how many. */
size_t report__fail_lines(const struct report *r, unsigned int kinds, double min_share, FILE *fp);

struct verdict_unit {
	uint32_t start, size;       /* bytes of the line */
	char name[160];             /* "counters.produced", "offset 0x8", "the 24 B object from f (tid 3)" */
	bool heap;                  /* a heap object (record --alloc), allocated by obj_tid */
	uint32_t obj_tid;
	uint32_t loads, stores, hitm; /* hitm: HITM and peer loads */
	struct u32set writers, readers;
};

struct line_verdict {
	enum verdict_kind kind;
	char why[256];              /* one clause: what was seen */
	char advice[1024];          /* what to change, in the units' names; "" when nothing */
	struct verdict_unit *units; /* in the order their rows come (by offset) */
	size_t nr_units, alloc_units;
};

/* "false sharing", "true sharing", "mixed", "no sharing", "unknown". */
const char *verdict__word(enum verdict_kind k);
int report__verdict(const struct report *r, const struct c2c_line *l, struct line_verdict *v);
void line_verdict__exit(struct line_verdict *v);

/* The layout of a line (layout.c): runs of bytes by what holds them, in
 * offset order, with who touched them. */
enum layout_kind {
	LAYOUT_NONE,                /* no object known covers these bytes */
	LAYOUT_MEMBER,              /* a member or element (DWARF) */
	LAYOUT_PADDING,             /* inside a variable, outside its members: padding, holes */
	LAYOUT_SYMBOL,              /* a variable without type information */
	LAYOUT_HEAP,                /* a heap object (record --alloc) */
};

struct layout_entry {
	enum layout_kind kind;
	char type[64];              /* the variable's type ("struct counters"), "heap", "" */
	char member[160];           /* "counters.produced", "counters" (its padding), a heap object */
	uint32_t offset, size;      /* bytes of the line */
	uint32_t loads, stores, hitm;   /* hitm: HITM loads and stores */
	struct u32set writers, readers;
};

/* The line's bytes by what holds them: every line of two threads or more,
 * and a line of one thread whose bytes have names; 0 entries (and NULL)
 * otherwise. Free with layout__free. */
size_t report__layout(const struct report *r, const struct c2c_line *l, struct layout_entry **out);
void layout__free(struct layout_entry *e, size_t nr);
/* "member", "padding", "symbol", "heap", "none" */
const char *layout__kind_name(enum layout_kind k);

/* "tid,pid,iaddr,dso" (any, at least one) into CO_* bits: 0, or -1. */
int report__coalesce_parse(const char *s, unsigned int *mask);

/* What fixing a line could save (verdict.c; the model is in the man page):
 * its HITM loads' latency beyond the recording's other loads, in cycles,
 * scaled by the mean sampling period, and its share of all sampled load
 * latency. known is false without load latencies (weights). */
struct line_gain {
	bool known;
	uint64_t cycles;
	double share;
};
void report__gain(const struct report *r, const struct c2c_line *l, struct line_gain *g);

/* c2cscan diff (diff.c): lines of two recordings matched by name. */
struct diff_entry {
	char name[192];
	bool in_before, in_after;   /* listed in that recording's view */
	struct c2c_stats before, after; /* summed over the lines of the name */
};

struct report_diff {
	const struct report *before, *after;
	enum c2c_display mode;      /* the one both views use */
	struct diff_entry *e;       /* by the mode's metric before, then after */
	size_t nr, alloc;
	size_t renamed;             /* entries matched by "via FUNCTION" across objects renamed */
	/* why lines may not match, in words, or "": the recordings' events
	 * differ (memory events against page faults), or no name is common */
	char why[512];
};

/* Frees the counts and rows (c2c_line__counts, c2c_line__rows) of the
 * view's lines but keep's, once they are many: between lines of a listing,
 * between keys. */
void report__trim(const struct report *r, const struct c2c_line *keep);

/* "counters", "make_conn (heap)", "//anon via touch": what line l
 * holds, without its address. */
size_t report__line_name(const struct report *r, const struct c2c_line *l, char *buf, size_t size);
/* The views of both must be in one display mode (report__set_mode). */
void report_diff__build(const struct report *before, const struct report *after, struct report_diff *d);
void report_diff__exit(struct report_diff *d);
size_t report_diff__fprintf_stdio(const struct report_diff *d, FILE *fp);
size_t report_diff__fprintf_json(const struct report_diff *d, FILE *fp);

size_t report__fprintf_stdio(const struct report *r, FILE *fp);
size_t report__fprintf_json(const struct report *r, FILE *fp);
/* The view as a pprof profile (profile.proto, gzipped) in path (pprof.c);
 * 0, or -1 with a sentence in err. */
int report__write_pprof(const struct report *r, const char *path, char *err, size_t errsize);
/* The view as one self-contained HTML page in path (html.c; a pass over
 * the samples for the time lines); 0, or -1 with a sentence in err. */
int report__write_html(struct report *r, const char *path, char *err, size_t errsize);
int report_diff__write_html(const struct report_diff *d, const char *path, char *err, size_t errsize);

#endif
