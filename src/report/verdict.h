/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a line's sharing is, what to change and what it could save
 * (verdict.c), and report --fail-on.
 */
#ifndef C2CSCAN_REPORT_VERDICT_H
#define C2CSCAN_REPORT_VERDICT_H

#include "report/report.h"

/* The verdict on a line (verdict.c): one function for stdio, JSON and the
 * browser. Units: members (DWARF), heap objects, else byte offsets. */
enum verdict_kind {
	VERDICT_NONE, VERDICT_FALSE, VERDICT_TRUE, VERDICT_MIXED, VERDICT_UNKNOWN, VERDICT_QUIET, VERDICT_SLIGHT,
	VERDICT_UNSAMPLED,
};
/* A verdict that is a finding (false, true sharing or mixed): what the
 * renderers stress. VERDICT_QUIET: threads share the line but no HITM was
 * sampled on it, so there is no contention to fix. VERDICT_SLIGHT: some
 * was, under VERDICT_SLIGHT_SHARE of the recording's (an emulated
 * recording sees every HITM: a result read once at the end is one). */
#define VERDICT_SLIGHT_SHARE 0.0001
/* ... or under VERDICT_SLIGHT_RATE contended accesses per million of the
 * recording's accesses (the samples' periods: a fixed program's barrier or
 * result handover is most of what contention is left, yet rare). */
#define VERDICT_SLIGHT_RATE 1.0
/* VERDICT_UNSAMPLED: HITM on a line whose sampled threads do not explain
 * it (one thread, or no store sampled): the writer is code that was not
 * sampled (another process, the kernel, a store the sampling missed).
 * "No sharing" never comes with contention: a line with HITM gets this, a
 * handover (readers after their writers ended) VERDICT_SLIGHT. */
bool verdict__is_finding(enum verdict_kind k);
/* A line report --fail-on fails on. */
struct fail_line {
	size_t rank;                    /* its place in the view */
	uint64_t addr;
	const char *name;               /* report__line_name's */
	enum verdict_kind kind;
	double share;                   /* percent of the mode's metric */
	const char *what;               /* the advice, else why */
};
/* The lines of the view whose verdict is in kinds (a bit per enum
 * verdict_kind) and whose share of the mode's metric is at least min_share
 * percent, each to fn (its strings live for the call); how many. */
size_t report__fail_lines(const struct report *r, unsigned int kinds, double min_share,
			  void (*fn)(void *ctx, const struct fail_line *l), void *ctx);

struct verdict_unit {
	uint32_t start, size;       /* bytes of the line */
	char name[160];             /* "counters.produced", "struct slot[1].hits", "offset 0x8",
				     * "the 24 B object from f", "byte 8 of the 24 B object from f" */
	const struct heap_obj *obj; /* the heap object it is in (record --alloc), NULL none: an
				     * instance (an address reused is another) */
	bool typed;                 /* a member or element of a known type, not bytes */
	bool sync;                  /* a lock of the C library (pthread_mutex_t, sem_t, ...) */
	uint32_t elem;              /* the name's first "[": an array element ("struct slot"), else 0 */
	uint32_t loads, stores, hitm; /* hitm: HITM and peer loads */
	struct u32set writers, readers;
};

struct line_verdict {
	enum verdict_kind kind;
	char why[256];              /* one clause: what was seen */
	char advice[1024];          /* what to change, in the units' names; "" when nothing */
	struct verdict_unit *units; /* in the order their rows come (by offset) */
	size_t nr_units, alloc_units;
	/* false sharing or mixed: the contended accesses the layout fix is
	 * predicted to leave (those on units two threads or more use, one of
	 * them writing: a unit of one thread gets its own line), of
	 * `contended` the line has; predicted false otherwise */
	bool predicted;
	uint64_t left, contended;
};

/* "false sharing", "true sharing", "mixed", "no sharing", "unknown". */
const char *verdict__word(enum verdict_kind k);
void report__verdict(const struct report *r, const struct c2c_line *l, struct line_verdict *v);
void line_verdict__exit(struct line_verdict *v);


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

#endif
