// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict on a line, and the advice that follows from it: one function
 * that --stdio, --json and the browser all print.
 *
 * A line's rows are grouped into units: the struct member (or array
 * element) an offset falls in when DWARF names it, the heap object when the
 * line holds several, else the byte offset. Per unit: loads, stores, HITM,
 * the threads that wrote it (rows with stores) and those that read it (rows
 * with loads; a row is one instruction, which loads or stores).
 *
 *   true sharing   a unit written by one thread and touched by another: the
 *                  threads share the data itself (a lock, a counter)
 *   false sharing  a written unit and another unit whose threads are
 *                  disjoint: the line is shared, the data is not
 *   mixed          both
 *   no sharing     one thread, nothing written, or nothing of the above
 *   no contention sampled
 *                  one of the first three by its access pattern, but no
 *                  HITM (or peer) load was sampled on the line: nothing
 *                  bounces that the samples saw, so no advice to pad; the
 *                  pattern is said in the why
 *
 * Software events (no loads or stores, only accesses) give no verdict.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "names/names.h"
#include "report/coalesce.h"
#include "report/report_int.h"
#include "report/verdict.h"
#include "util/htab.h"
#include "util/util.h"

static const char *const verdict_words[] = {
	[VERDICT_NONE] = "no sharing", [VERDICT_FALSE] = "false sharing", [VERDICT_TRUE] = "true sharing",
	[VERDICT_MIXED] = "mixed", [VERDICT_UNKNOWN] = "unknown", [VERDICT_QUIET] = "no contention sampled",
	[VERDICT_SLIGHT] = "negligible contention", [VERDICT_UNSAMPLED] = "writer not sampled",
};

bool verdict__is_finding(enum verdict_kind k)
{
	return k == VERDICT_FALSE || k == VERDICT_TRUE || k == VERDICT_MIXED;
}

const char *verdict__word(enum verdict_kind k)
{
	return k < ARRAY_SIZE(verdict_words) ? verdict_words[k] : "?";
}

/* The unit offset falls in: [start, start + size) of the line, and its name.
 * A member or array element when the type is known (a variable's, or the
 * instruction's for heap memory: an allocation holding an array of structs
 * or scalars is elements, whatever its size), else the bytes: of the heap
 * object under the row (each allocation its own), or of the line. */
static void unit_of(const struct report *r, const struct c2c_line *l, const struct c2c_row *row,
		    struct verdict_unit *u)
{
	struct row_names nm;
	const struct data_loc *d = &nm.data;
	struct heap_ref h;
	char func[128], src[128];
	const char *bracket;

	u->start = row->offset;
	u->size = 1;
	u->obj = report__row_heap(r, l, row, &h) ? h.obj : NULL;
	report__row_names(r, l, row, &nm);
	if (nm.data_ok && d->member[0] && d->member_size && d->member_off <= row->offset &&
	    (!u->obj || d->type_source >= TYPE_VARIABLE)) {
		u->start = row->offset - d->member_off;
		u->size = d->member_size;
		if (u->size > r->line_size - u->start)
			u->size = r->line_size - u->start;
		/* the member, not the byte inside it */
		nm.data.member_off = 0;
		names__data_scnprintf(d, u->name, sizeof(u->name));
		u->typed = true;
		u->sync = d->sync;
		bracket = strchr(u->name, '[');
		u->elem = bracket ? (uint32_t)(bracket - u->name) : 0;
		return;
	}
	if (u->obj) {
		report__heap_site(r, h.obj, SITE_UNKNOWN_ADDRESS, func, sizeof(func), src, sizeof(src));
		/* untyped: its bytes (the row's first; an access of several
		 * bytes starts there) */
		if (h.offset || h.obj->size > 16)
			scnprintf(u->name, sizeof(u->name), "byte %" PRIu64 " of the %" PRIu64 " B object from %s",
				  h.offset, h.obj->size, func);
		else
			scnprintf(u->name, sizeof(u->name), "the %" PRIu64 " B object from %s", h.obj->size, func);
		return;
	}
	scnprintf(u->name, sizeof(u->name), "offset %#x", row->offset);
}

static struct verdict_unit *unit_find(struct line_verdict *v, const struct verdict_unit *u)
{
	for (size_t i = 0; i < v->nr_units; i++)
		if (v->units[i].start == u->start && v->units[i].obj == u->obj && !strcmp(v->units[i].name, u->name))
			return &v->units[i];
	xgrow((void **)&v->units, &v->alloc_units, v->nr_units + 1, sizeof(*v->units));
	v->units[v->nr_units] = *u;
	return &v->units[v->nr_units++];
}

static bool sets_meet(const struct u32set *a, const struct u32set *b)
{
	for (uint32_t i = 0; i < a->nr; i++)
		if (u32set__has(b, u32set__data(a)[i]))
			return true;
	return false;
}

static void unit_threads(const struct verdict_unit *u, struct u32set *all)
{
	u32set__merge(all, &u->writers);
	u32set__merge(all, &u->readers);
}

static size_t tid_list(const struct u32set *s, char *buf, size_t size)
{
	size_t n = scnprintf(buf, size, "%s", s->nr == 1 ? "tid " : "tids ");

	for (uint32_t i = 0; i < s->nr && i < 4; i++)
		n += scnprintf(buf + n, size - n, "%s%u", i ? ", " : "", u32set__data(s)[i]);
	if (s->nr > 4)
		n += scnprintf(buf + n, size - n, " and %u more", s->nr - 4);
	return n;
}

/* Two objects that did not live at the same time (the later one allocated
 * after the earlier was freed, at the same address or beside it) never
 * shared the line. */
static bool successive(const struct verdict_unit *a, const struct verdict_unit *b)
{
	return a->obj && b->obj && !heap_obj__coexist(a->obj, b->obj);
}

/* The written unit and the disjoint one with the most HITM between them. */
static bool false_pair(const struct line_verdict *v, size_t *pa, size_t *pb, bool *succ)
{
	uint64_t best = 0;
	bool found = false;

	for (size_t a = 0; a < v->nr_units; a++) {
		struct u32set ta = { 0 };

		if (!v->units[a].writers.nr)
			continue;
		unit_threads(&v->units[a], &ta);
		for (size_t b = 0; b < v->nr_units; b++) {
			struct u32set tb = { 0 };
			uint64_t w = (uint64_t)v->units[a].hitm + v->units[b].hitm + 1;

			if (b == a)
				continue;
			unit_threads(&v->units[b], &tb);
			/* objects one after the other: the line passed from one
			 * to the next, a handover */
			if (!tb.nr || sets_meet(&ta, &tb))
				;
			else if (successive(&v->units[a], &v->units[b]))
				*succ = true;
			else if (!found || w > best) {
				*pa = a;
				*pb = b;
				best = w;
				found = true;
			}
			u32set__exit(&tb);
		}
		u32set__exit(&ta);
	}
	return found;
}

/* Where a heap unit's object was allocated: "slots.c:79", else its function. */
static void unit_site(const struct report *r, const struct verdict_unit *u, char *buf, size_t size)
{
	char func[128], src[128];

	report__heap_site(r, u->obj, SITE_UNKNOWN_ADDRESS, func, sizeof(func), src, sizeof(src));
	scnprintf(buf, size, "%s", src[0] ? src : func);
}

/* Elements of one array: the same prefix before "[", in one object (or
 * both in no heap object: a global or static array). */
static bool same_array(const struct verdict_unit *a, const struct verdict_unit *b)
{
	return a->elem && a->elem == b->elem && !strncmp(a->name, b->name, a->elem) &&
	       (a->obj ? b->obj && a->obj->id == b->obj->id : !b->obj);
}

static void advise_array(const struct report *r, struct line_verdict *v, const struct verdict_unit *ua,
			 const struct verdict_unit *ub, const char *ta, const char *tb)
{
	uint32_t ls = r->line_size;
	const char *close = strchr(ua->name + ua->elem, ']');
	bool scalar = close && !close[1];
	char site[160], how[320];
	int n = (int)ua->elem;

	if (scalar)
		scnprintf(how, sizeof(how), "give each element its own line (an array of struct { %.*s v; } "
			  "aligned to %u)", n, ua->name, ls);
	else if (ua->obj)
		scnprintf(how, sizeof(how), "pad %.*s to %u bytes (alignas(%u) on the type)", n, ua->name, ls, ls);
	else
		scnprintf(how, sizeof(how), "pad each element of %.*s to %u bytes (alignas(%u) on its type)", n,
			  ua->name, ls, ls);
	if (!ua->obj) {
		scnprintf(v->advice, sizeof(v->advice), "%s (written by %s) and %s (%s) are elements of one array "
			  "and share a line: %s", ua->name, ta, ub->name, tb, how);
		return;
	}
	unit_site(r, ua, site, sizeof(site));
	scnprintf(v->advice, sizeof(v->advice), "%s (written by %s) and %s (%s) are elements of one array "
		  "(the %" PRIu64 " B object from %s) and share a line: %s, and allocate the array %u-byte aligned "
		  "(aligned_alloc(%u, size rounded up to %u))", ua->name, ta, ub->name, tb, ua->obj->size, site, how,
		  ls, ls, ls);
}

/* Two objects that share a line: named whole, as allocated. */
static void advise_objects(const struct report *r, struct line_verdict *v, const struct verdict_unit *ua,
			   const struct verdict_unit *ub, const char *ta, const char *tb)
{
	uint32_t ls = r->line_size;
	char fa[128], fb[128], src[128];

	report__heap_site(r, ua->obj, SITE_UNKNOWN_ADDRESS, fa, sizeof(fa), src, sizeof(src));
	report__heap_site(r, ub->obj, SITE_UNKNOWN_ADDRESS, fb, sizeof(fb), src, sizeof(src));
	if (ua->obj->size == ub->obj->size && !strcmp(fa, fb))
		scnprintf(v->advice, sizeof(v->advice), "two %" PRIu64 " B objects from %s, written by %s and %s, "
			  "share a line: allocate them %u-byte aligned (aligned_alloc(%u, size)) or round the type up "
			  "to %u bytes", ua->obj->size, fa, ta, tb, ls, ls, ls);
	else
		scnprintf(v->advice, sizeof(v->advice), "the %" PRIu64 " B object from %s (written by %s) and the %"
			  PRIu64 " B object from %s (%s) share a line: allocate them %u-byte aligned (aligned_alloc(%u, "
			  "size)) or round their types up to %u bytes", ua->obj->size, fa, ta, ub->obj->size, fb, tb, ls,
			  ls, ls);
}

/* What the layout fix leaves of the line's contention (struct
 * line_verdict), said after the advice. */
static void predict(struct line_verdict *v, uint64_t contended)
{
	size_t n = strlen(v->advice);

	v->predicted = true;
	v->contended = contended;
	v->left = 0;
	for (size_t i = 0; i < v->nr_units; i++) {
		struct u32set all = { 0 };

		unit_threads(&v->units[i], &all);
		if (v->units[i].writers.nr && all.nr >= 2)
			v->left += v->units[i].hitm;
		u32set__exit(&all);
	}
	if (v->left > contended)
		v->left = contended;
	if (n)
		scnprintf(v->advice + n, sizeof(v->advice) - n, "; predicted: the fix leaves %" PRIu64 " of the line's "
			  "%" PRIu64 " contended accesses%s", v->left, contended,
			  v->left ? " (on bytes threads share)" : "");
}

static void advise_false(const struct report *r, struct line_verdict *v, size_t a, size_t b)
{
	const struct verdict_unit *ua = &v->units[a], *ub = &v->units[b];
	uint32_t ls = r->line_size, cost;
	char ta[96], tb[96], sa[160];
	const struct verdict_unit *later = ub->start > ua->start ? ub : ua;
	struct u32set sb = { 0 };

	unit_threads(ub, &sb);
	tid_list(&ua->writers, ta, sizeof(ta));
	tid_list(ub->writers.nr ? &ub->writers : &sb, tb, sizeof(tb));
	/* moving the later one to the next line costs the bytes up to it */
	cost = later->start < ls ? ls - later->start : 0;
	if (same_array(ua, ub)) {
		advise_array(r, v, ua, ub, ta, tb);
	} else if (ua->obj && ub->obj && ua->obj->id != ub->obj->id) {
		advise_objects(r, v, ua, ub, ta, tb);
	} else if (later->obj && !later->typed) {
		/* bytes of one heap object, its type unknown: per-thread
		 * parts of it, most often */
		unit_site(r, ua->obj ? ua : ub, sa, sizeof(sa));
		scnprintf(v->advice, sizeof(v->advice), "%s (written by %s) and %s (%s) share a line: give each "
			  "thread's part of the object its own line (pad each part to %u bytes) and allocate it "
			  "%u-byte aligned at %s (aligned_alloc(%u, size rounded up to %u))", ua->name, ta, ub->name,
			  tb, ls, ls, sa, ls, ls);
	} else if (ua->obj || ub->obj) {
		/* members of one heap object: a member's alignment holds
		 * only in an aligned allocation */
		unit_site(r, ua->obj ? ua : ub, sa, sizeof(sa));
		scnprintf(v->advice, sizeof(v->advice), "%s (written by %s) and %s (%s) share a line: align %s to %u "
			  "(alignas(%u) on it) and allocate the object %u-byte aligned at %s (aligned_alloc(%u, size "
			  "rounded up to %u)); costs %u bytes", ua->name, ta, ub->name, tb, later->name, ls, ls, ls, sa,
			  ls, ls, cost);
	} else if (later->typed) {
		scnprintf(v->advice, sizeof(v->advice), "%s (written by %s) and %s (%s) share a line: align %s to %u "
			  "(alignas(%u)) or move it to its own line; costs %u bytes", ua->name, ta, ub->name, tb,
			  later->name, ls, ls, cost);
	} else {
		/* no names: the offsets, and what to do with whatever is there */
		scnprintf(v->advice, sizeof(v->advice), "%s (written by %s) and %s (%s) share a line: give the data "
			  "at %s its own line (alignas(%u) on it, or padding before it); costs %u bytes", ua->name, ta,
			  ub->name, tb, later->name, ls, cost);
	}
	u32set__exit(&sb);
}

static void advise_true(struct line_verdict *v, size_t t)
{
	const struct verdict_unit *u = &v->units[t];
	struct u32set all = { 0 };
	char tids[96];
	size_t n = strlen(v->advice);

	unit_threads(u, &all);
	tid_list(&all, tids, sizeof(tids));
	if (u->sync)
		scnprintf(v->advice + n, sizeof(v->advice) - n, "%s%s is a lock or other synchronization object %u "
			  "threads use (%s): each use moves its line; hold it for less, synchronize less often (batch "
			  "the work per thread), or split it (one per part of the data it guards)", n ? "; " : "", u->name, all.nr, tids);
	else
		scnprintf(v->advice + n, sizeof(v->advice) - n, "%s%s is %s by %u threads (%s): the data itself is shared; "
		  "give each thread its own copy (per-thread counters summed when read), batch the updates, or "
		  "split the lock", n ? "; " : "", u->name, !u->readers.nr ? "written" :
		  u->writers.nr == 1 && !u32set__has(&u->readers, u32set__data(&u->writers)[0]) ? "written by one, read" :
		  "written and read", all.nr, tids);
	u32set__exit(&all);
}

/* Contended accesses: HITM loads and stores, and peer loads where the
 * recording has them (AMD IBS). */
static uint64_t contended(const struct c2c_stats *st)
{
	return (uint64_t)st->tot_hitm + st->st_hitm + st->lcl_peer + st->rmt_peer;
}

/* A true-sharing unit beside false sharing counts when it has at least
 * 1/MINOR_TRUE of the line's contention. */
#define MINOR_TRUE 20

/* A finding whose contention is too little to cost: under
 * VERDICT_SLIGHT_SHARE of the recording's, or VERDICT_SLIGHT_RATE per
 * million accesses. Then v says so, and what the pattern was. */
static bool slight(const struct report *r, const struct c2c_line *l, struct line_verdict *v)
{
	uint64_t n = contended(&c2c_line__counts(l)->stats);
	uint64_t rec_all = c2c_stats__metric(report__totals(r), C2C_DISPLAY_TOT) + report__totals(r)->tot_peer;
	/* (the contended samples' period: report__gain_setup's, at load) */
	double rate = (double)n * r->hitm_period * 1e6 / report__accesses(r);
	char pattern[sizeof(v->why)], amount[96];

	if ((double)n < VERDICT_SLIGHT_SHARE * (double)rec_all)
		scnprintf(amount, sizeof(amount), "%" PRIu64 " contended accesses of the recording's %" PRIu64
			  " (under %g%%)", n, rec_all, VERDICT_SLIGHT_SHARE * 100);
	else if (rate < VERDICT_SLIGHT_RATE)
		scnprintf(amount, sizeof(amount), "%" PRIu64 " contended access%s, %.2g per million of the "
			  "recording's accesses (under %g)", n, n == 1 ? "" : "es", rate, VERDICT_SLIGHT_RATE);
	else
		return false;
	scnprintf(pattern, sizeof(pattern), "%s", v->why);
	scnprintf(v->why, sizeof(v->why), "%s; the access pattern: %s (%s)", amount, verdict__word(v->kind), pattern);
	v->kind = VERDICT_SLIGHT;
	return true;
}

/* A thread's samples in a unit make under 1/MINOR_SHARE of the unit's, and
 * no row it shares with other threads touches the unit: it does not count
 * among the unit's writers and readers. What each (unit, thread) holds,
 * from one walk of the line's rows. */
#define MINOR_SHARE 50

struct unit_tid {
	uint64_t mine;          /* the thread's own rows' loads and stores in the unit */
	bool shared;            /* a row of several threads touches it */
};

static struct unit_tid *unit_tid(struct u64map *m, struct unit_tid **v, size_t *nr, size_t *alloc, size_t unit,
				 uint32_t tid)
{
	uint64_t key = (uint64_t)unit << 32 | tid, i;

	if (!u64map__get(m, key, &i)) {
		xgrow((void **)v, alloc, *nr + 1, sizeof(**v));
		(*v)[*nr] = (struct unit_tid){ 0 };
		u64map__put(m, key, *nr);
		i = (*nr)++;
	}
	return &(*v)[i];
}

/* The last end of u's writers; false when one has not ended (no EXIT). */
static bool writers_end(const struct report *r, const struct verdict_unit *u, uint64_t *end)
{
	*end = 0;
	for (uint32_t i = 0; i < u->writers.nr; i++) {
		uint64_t t;

		if (!u64map__get(&r->thread_end, u32set__data(&u->writers)[i], &t))
			return false;
		if (t > *end)
			*end = t;
	}
	return u->writers.nr > 0;
}

/* A thread that only read unit u after all its writers ended (main
 * reading the results after the joins) shares nothing with them: it leaves
 * u's readers. Each of its rows there must be its alone and start later. */
static bool drop_late_readers(const struct report *r, const struct c2c_line *l, const size_t *row_unit, size_t ui,
			      struct verdict_unit *u)
{
	struct u32set keep = { 0 };
	uint64_t end;
	bool dropped = false;

	if (!u->readers.nr || !writers_end(r, u, &end))
		return false;
	for (uint32_t k = 0; k < u->readers.nr; k++) {
		uint32_t tid = u32set__data(&u->readers)[k];
		bool late = !u32set__has(&u->writers, tid);

		for (size_t i = 0; late && i < l->nr_rows; i++) {
			const struct c2c_row *row = &c2c_line__rows(l)[i];

			if (row_unit[i] == ui && u32set__has(&row->tids, tid) &&
			    (row->tids.nr > 1 || row->first_time <= end))
				late = false;
		}
		if (late)
			dropped = true;
		else
			u32set__add(&keep, tid);
	}
	if (!dropped) {
		u32set__exit(&keep);
		return false;
	}
	u32set__exit(&u->readers);
	u->readers = keep;
	return true;
}

/* What the line's totals decide, needing no units (no loads or stores
 * sampled, one thread, no store): true when they did. */
static bool totals_verdict(const struct c2c_line *l, struct line_verdict *v)
{
	const struct c2c_counts *n = c2c_line__counts(l);

	if (!n->stats.load && !n->stats.store) {
		v->kind = VERDICT_UNKNOWN;
		scnprintf(v->why, sizeof(v->why), "no loads or stores sampled (software events): who writes is unknown");
		return true;
	}
	if (n->tids.nr <= 1) {
		uint64_t c = contended(&n->stats);

		if (c) {
			v->kind = VERDICT_UNSAMPLED;
			scnprintf(v->why, sizeof(v->why), "one thread sampled; its %" PRIu64 " contended access%s took "
				  "the line from a writer that was not sampled (another thread, process or the kernel)",
				  c, c == 1 ? "" : "es");
			return true;
		}
		scnprintf(v->why, sizeof(v->why), "one thread touches this line");
		return true;
	}
	if (!n->stats.store) {
		if (n->stats.tot_hitm) {
			v->kind = VERDICT_UNSAMPLED;
			scnprintf(v->why, sizeof(v->why), "%u threads read it, no store sampled: its %u HITM loads took "
				  "the line from a writer that was not sampled", n->tids.nr, n->stats.tot_hitm);
			return true;
		}
		scnprintf(v->why, sizeof(v->why), "%u threads, no store sampled", n->tids.nr);
		return true;
	}
	return false;
}

/* Who writes and reads each unit (row_unit: each row's): not a thread
 * whose own rows there hold under MINOR_SHARE of its samples (a thread that
 * reads every counter once at the end does not make each of them shared).
 * Whether such a thread was left out (a handover). */
static bool unit_threads_of(const struct c2c_line *l, const size_t *row_unit, struct line_verdict *v)
{
	struct u64map m = { 0 };
	struct unit_tid *ut = NULL;
	size_t nr_ut = 0, alloc_ut = 0;
	bool handover = false;

	for (size_t i = 0; i < l->nr_rows; i++) {
		const struct c2c_row *row = &c2c_line__rows(l)[i];

		for (uint32_t t = 0; t < row->tids.nr; t++) {
			struct unit_tid *x = unit_tid(&m, &ut, &nr_ut, &alloc_ut, row_unit[i],
						      u32set__data(&row->tids)[t]);

			if (row->tids.nr > 1)
				x->shared = true;
			else
				x->mine += (uint64_t)row->stats.load + row->stats.store;
		}
	}
	for (size_t i = 0; i < l->nr_rows; i++) {
		const struct c2c_row *row = &c2c_line__rows(l)[i];
		struct verdict_unit *u = &v->units[row_unit[i]];

		for (uint32_t t = 0; t < row->tids.nr; t++) {
			uint32_t tid = u32set__data(&row->tids)[t];
			const struct unit_tid *x = unit_tid(&m, &ut, &nr_ut, &alloc_ut, row_unit[i], tid);

			if (row->tids.nr == 1 && !x->shared && x->mine * MINOR_SHARE < (uint64_t)u->loads + u->stores) {
				handover = true;
				continue;
			}
			if (row->stats.store)
				u32set__add(&u->writers, tid);
			if (row->stats.load)
				u32set__add(&u->readers, tid);
		}
	}
	u64map__exit(&m);
	free(ut);
	return handover;
}

/* The line's rows into units, with their threads: whether a thread was
 * left out as a handover. */
static bool units_of(const struct report *r, const struct c2c_line *l, struct line_verdict *v)
{
	size_t *row_unit = xmalloc((l->nr_rows ? l->nr_rows : 1) * sizeof(*row_unit));
	bool handover;

	for (size_t i = 0; i < l->nr_rows; i++) {
		const struct c2c_row *row = &c2c_line__rows(l)[i];
		struct verdict_unit key = { 0 }, *u;

		unit_of(r, l, row, &key);
		u = unit_find(v, &key);
		row_unit[i] = (size_t)(u - v->units);
		u->loads += row->stats.load;
		u->stores += row->stats.store;
		u->hitm += contended(&row->stats);
	}
	handover = unit_threads_of(l, row_unit, v);
	for (size_t i = 0; i < v->nr_units; i++)
		handover |= drop_late_readers(r, l, row_unit, i, &v->units[i]);
	free(row_unit);
	return handover;
}

/* The written unit two threads or more share with the most contention:
 * its index, SIZE_MAX none; *w its contention. */
static size_t best_true_unit(const struct line_verdict *v, uint64_t *w)
{
	size_t best = SIZE_MAX;

	*w = 0;
	for (size_t i = 0; i < v->nr_units; i++) {
		struct u32set all = { 0 };

		unit_threads(&v->units[i], &all);
		if (v->units[i].writers.nr && all.nr >= 2 && (best == SIZE_MAX || v->units[i].hitm >= *w)) {
			best = i;
			*w = v->units[i].hitm;
		}
		u32set__exit(&all);
	}
	return best;
}

/* Why, for v's kind; without a finding, the kind the contention makes it. */
static void why_of(const struct c2c_line *l, struct line_verdict *v, bool handover)
{
	const struct c2c_counts *n = c2c_line__counts(l);
	uint64_t c = contended(&n->stats);

	switch (v->kind) {
	case VERDICT_FALSE:
		scnprintf(v->why, sizeof(v->why), "%u threads write and read different parts of the line", n->tids.nr);
		break;
	case VERDICT_TRUE:
		scnprintf(v->why, sizeof(v->why), "%u threads touch the same written bytes", n->tids.nr);
		break;
	case VERDICT_MIXED:
		scnprintf(v->why, sizeof(v->why), "some bytes are shared by their threads, others only share the line");
		break;
	default:
		if (!c) {
			scnprintf(v->why, sizeof(v->why), "%u threads, each written part touched by its writer only",
				  n->tids.nr);
		} else if (handover) {
			v->kind = VERDICT_SLIGHT;
			scnprintf(v->why, sizeof(v->why), "%" PRIu64 " contended access%s of a handover, not sharing: "
				  "threads that touch the data once, read it after its writers ended (a join), or use "
				  "objects one after the other at one address", c, c == 1 ? "" : "es");
		} else {
			v->kind = VERDICT_UNSAMPLED;
			scnprintf(v->why, sizeof(v->why), "%u threads, each written part touched by its writer only: "
				  "the %" PRIu64 " contended accesses come from a writer that was not sampled",
				  n->tids.nr, c);
		}
		break;
	}
}

void report__verdict(const struct report *r, const struct c2c_line *l, struct line_verdict *v)
{
	uint64_t contention, best_true_w;
	size_t best_true, fa = 0, fb = 0;
	bool is_false, handover;

	memset(v, 0, sizeof(*v));
	if (totals_verdict(l, v))
		return;
	contention = contended(&c2c_line__counts(l)->stats);
	handover = units_of(r, l, v);
	best_true = best_true_unit(v, &best_true_w);
	is_false = false_pair(v, &fa, &fb, &handover);
	/* beside false sharing, bytes shared by their threads with a sliver of
	 * the line's contention (a barrier the threads passed once) do not make
	 * it mixed */
	if (is_false && best_true != SIZE_MAX && best_true_w * MINOR_TRUE < contention)
		best_true = SIZE_MAX;
	v->kind = is_false && best_true != SIZE_MAX ? VERDICT_MIXED : is_false ? VERDICT_FALSE :
		  best_true != SIZE_MAX ? VERDICT_TRUE : VERDICT_NONE;
	why_of(l, v, handover);
	if (verdict__is_finding(v->kind) && !contention) {
		/* a pattern is not contention: say what was seen, advise nothing */
		char pattern[sizeof(v->why)];

		scnprintf(pattern, sizeof(pattern), "%s", v->why);
		scnprintf(v->why, sizeof(v->why), "no HITM among its %u loads sampled; the access pattern: %s (%s)",
			  c2c_line__counts(l)->stats.load, verdict__word(v->kind), pattern);
		v->kind = VERDICT_QUIET;
		return;
	}
	if (verdict__is_finding(v->kind) && slight(r, l, v))
		return;
	if (is_false)
		advise_false(r, v, fa, fb);
	if (best_true != SIZE_MAX)
		advise_true(v, best_true);
	if (is_false)
		predict(v, contention);
}

void line_verdict__exit(struct line_verdict *v)
{
	for (size_t i = 0; i < v->nr_units; i++) {
		u32set__exit(&v->units[i].writers);
		u32set__exit(&v->units[i].readers);
	}
	free(v->units);
	memset(v, 0, sizeof(*v));
}

/* ---- the gain model ----
 * A HITM load costs its latency; had the line not bounced it would have
 * cost about what the recording's other loads did. Per line:
 *   cycles = max(0, sum of its HITM loads' latencies - their count * base)
 *            * HITM period
 * base: the mean latency of the recording's other weighted loads (their
 * latency sum less the HITM loads', over their count less the HITM ones);
 * HITM period: events per contended sample. share: cycles over all sampled
 * load latency, the HITM loads' times the HITM period and the others'
 * times the other samples' period (an emulated recording samples every
 * HITM and one other access in 4001: one mean period for both made a
 * line's share hundreds of times too large). Only loads' weights count: a
 * store's weight (Intel store latency, emulated recordings) is the time it
 * took to retire, not a latency a load paid, and mixing them in made the
 * base exceed the HITM loads' own latency. An upper bound: a fixed layout
 * still pays for true sharing, and out-of-order cores hide part of any
 * latency. */

double report__accesses(const struct report *r)
{
	double acc = 0;

	for (size_t i = 0; i < r->nr_events; i++)
		if (r->events[i].has_data_src)
			acc += (double)r->events[i].period_sum;
	return acc > 0 ? acc : (double)r->nr_samples;
}

void report__gain_setup(struct report *r)
{
	uint64_t lsum = 0, lcnt = 0, hsum = 0, hcnt = 0;

	c2c__load_latency(r->c2c, &lsum, &lcnt);
	c2c__view_hitm(r->c2c, &hsum, &hcnt);
	r->total_cycles = lsum > hsum ? (double)(lsum - hsum) * r->other_period + (double)hsum * r->hitm_period :
		(double)lsum * r->mean_period;
	r->base_latency = lcnt > hcnt && lsum > hsum ? (double)(lsum - hsum) / (double)(lcnt - hcnt) : 0;
	free(r->by_gain);
	r->by_gain = NULL;
	if (r->opts.sort_gain)
		report__sort_gain(r);
}

void report__gain(const struct report *r, const struct c2c_line *l, struct line_gain *g)
{
	const struct c2c_lat *lat;
	double over, c;

	memset(g, 0, sizeof(*g));
	/* without latencies nothing is built (the browser asks every line) */
	if (!(r->total_cycles > 0) || !isfinite(r->total_cycles))
		return;
	lat = &c2c_line__counts(l)->lat;
	over = (double)lat->hitm_sum - (double)lat->hitm_cnt * r->base_latency;
	if (!lat->hitm_cnt)
		return;
	g->known = true;
	/* a recording may claim absurd periods: saturate, never overflow */
	c = over > 0 ? over * r->hitm_period : 0;
	g->cycles = !(c + 0.5 < 18446744073709549568.0) ? UINT64_MAX : (uint64_t)(c + 0.5);
	g->share = c / r->total_cycles;
	if (!(g->share >= 0))
		g->share = 0;
	if (g->share > 1)
		g->share = 1;
}

struct gain_key {
	uint64_t cycles;
	size_t idx;             /* the mode's rank: ties keep it */
};

static int gain_cmp(const void *pa, const void *pb)
{
	const struct gain_key *a = pa, *b = pb;

	if (a->cycles != b->cycles)
		return a->cycles > b->cycles ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

void report__sort_gain(struct report *r)
{
	struct gain_key *k = xmalloc((r->nr_lines ? r->nr_lines : 1) * sizeof(*k));

	for (size_t i = 0; i < r->nr_lines; i++) {
		struct line_gain g;

		report__gain(r, r->lines[i], &g);
		k[i] = (struct gain_key){ g.cycles, i };
		report__trim(r, NULL);
	}
	qsort(k, r->nr_lines, sizeof(*k), gain_cmp);
	r->by_gain = xmalloc((r->nr_lines ? r->nr_lines : 1) * sizeof(*r->by_gain));
	for (size_t i = 0; i < r->nr_lines; i++)
		r->by_gain[i] = r->lines[k[i].idx];
	free(k);
	r->lines = (const struct c2c_line *const *)r->by_gain;
}

size_t report__fail_lines(const struct report *r, unsigned int kinds, double min_share,
			  void (*fn)(void *ctx, const struct fail_line *l), void *ctx)
{
	uint64_t total = 0;
	size_t hits = 0;

	for (size_t i = 0; i < r->nr_lines; i++)
		total += report__share_line(r, r->lines[i]);
	for (size_t i = 0; i < r->nr_lines; i++) {
		const struct c2c_line *l = r->lines[i];
		double share = total ? 100.0 * (double)report__share_line(r, l) / (double)total : 0;
		struct line_verdict v;
		char name[256];

		if (share < min_share)
			continue;
		report__verdict(r, l, &v);
		if (v.kind < 32 && (kinds & (1u << v.kind))) {
			report__line_name(r, l, name, sizeof(name));
			fn(ctx, &(struct fail_line){ .rank = i, .addr = l->addr, .name = name, .kind = v.kind,
						     .share = share, .what = v.advice[0] ? v.advice : v.why });
			hits++;
		}
		line_verdict__exit(&v);
		report__trim(r, NULL);
	}
	return hits;
}
