// SPDX-License-Identifier: GPL-2.0
/*
 * c2cscan diff: two recordings' lines matched by name, never by address
 * (addresses move between builds and runs). A line's name is what it
 * holds: its data symbol, a heap object's allocation site, else
 * its object and the function that touches it most. Lines of one name are
 * summed: a struct that a fix spread over two lines stays one entry.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report/coalesce.h"
#include "report/columns.h"
#include "report/diff.h"
#include "report/report_int.h"
#include "report/verdict.h"
#include "util/util.h"

static struct diff_entry *entry(struct report_diff *d, const char *name)
{
	for (size_t i = 0; i < d->nr; i++)
		if (!strcmp(d->e[i].name, name))
			return &d->e[i];
	xgrow((void **)&d->e, &d->alloc, d->nr + 1, sizeof(*d->e));
	memset(&d->e[d->nr], 0, sizeof(d->e[d->nr]));
	d->e[d->nr].verdict_before = d->e[d->nr].verdict_after = -1;
	scnprintf(d->e[d->nr].name, sizeof(d->e[d->nr].name), "%s", name);
	return &d->e[d->nr++];
}

static void add_side(struct report_diff *d, const struct report *r, bool after)
{
	char name[sizeof(d->e[0].name)];

	for (size_t i = 0; i < r->nr_lines; i++) {
		struct diff_entry *e;

		report__line_name(r, r->lines[i], name, sizeof(name));
		e = entry(d, name);
		c2c_stats__add(after ? &e->after : &e->before, &c2c_line__counts(r->lines[i])->stats);
		c2c_stats__add(after ? &d->total.after : &d->total.before, &c2c_line__counts(r->lines[i])->stats);
		/* the name's verdict: its first line's, the view's most
		 * contended; what the advice of each before line predicts
		 * (an after line past the first needs no verdict) */
		if (!after || e->verdict_after < 0) {
			struct line_verdict v;

			report__verdict(r, r->lines[i], &v);
			if ((after ? e->verdict_after : e->verdict_before) < 0)
				*(after ? &e->verdict_after : &e->verdict_before) = (int)v.kind;
			if (!after && v.predicted) {
				e->predicted = true;
				e->predicted_left += v.left;
			}
			line_verdict__exit(&v);
		}
		report__trim(r, NULL);
		if (after)
			e->in_after = true;
		else
			e->in_before = true;
	}
}

static double rate(uint64_t v, double acc)
{
	return acc > 0 ? (double)v * 1e6 / acc : 0;
}

static void entry_rates(const struct report_diff *d, struct diff_entry *e)
{
	e->rate_before = rate(c2c_stats__metric(&e->before, d->mode), d->acc_before);
	e->rate_after = rate(c2c_stats__metric(&e->after, d->mode), d->acc_after);
	e->predicted_rate = rate(e->predicted_left, d->acc_before);
}

static const char *const status_words[] = {
	[DIFF_SAME] = "same", [DIFF_BETTER] = "better", [DIFF_WORSE] = "worse", [DIFF_GONE] = "gone",
	[DIFF_NEW] = "new", [DIFF_VERDICT] = "verdict changed",
};

const char *diff_status__word(enum diff_status s)
{
	return s < ARRAY_SIZE(status_words) ? status_words[s] : "?";
}

/* Within this of the rate before, a change is noise (the emulation's runs
 * differ by about as much). */
#define DIFF_SAME_PCT 10.0

bool diff_entry__change(const struct diff_entry *e, double *pct)
{
	if (!e->in_before || !e->in_after || !(e->rate_before > 0))
		return false;
	*pct = 100.0 * (e->rate_after - e->rate_before) / e->rate_before;
	return true;
}

enum diff_status diff_entry__status(const struct diff_entry *e)
{
	double pct;

	if (e->in_before && (!e->in_after || (!(e->rate_after > 0) && e->rate_before > 0)))
		return DIFF_GONE;
	if (!e->in_before)
		return DIFF_NEW;
	if (e->verdict_before >= 0 && e->verdict_after >= 0 && e->verdict_before != e->verdict_after &&
	    (verdict__is_finding(e->verdict_before) || verdict__is_finding(e->verdict_after)))
		return DIFF_VERDICT;
	if (!diff_entry__change(e, &pct) || (pct < DIFF_SAME_PCT && pct > -DIFF_SAME_PCT))
		return DIFF_SAME;
	return pct < 0 ? DIFF_BETTER : DIFF_WORSE;
}

static int entry_cmp(const void *pa, const void *pb, void *arg)
{
	const struct diff_entry *a = pa, *b = pb;
	enum c2c_display mode = *(const enum c2c_display *)arg;
	uint64_t ma = c2c_stats__metric(&a->before, mode), mb = c2c_stats__metric(&b->before, mode);

	if (ma != mb)
		return ma > mb ? -1 : 1;
	ma = c2c_stats__metric(&a->after, mode);
	mb = c2c_stats__metric(&b->after, mode);
	if (ma != mb)
		return ma > mb ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* What names a line within its object, which a renamed object keeps:
 * " via FUNCTION", or "+0xOFFSET" into the file; NULL for other names. */
static const char *via(const char *name)
{
	const char *v = strstr(name, " via "), *p = NULL;

	if (v)
		return v;
	for (const char *q = strstr(name, "+0x"); q; q = strstr(q + 1, "+0x"))
		p = q;
	return p && !strchr(p, ' ') ? p : NULL;
}

/* A line gone whose object is named differently after (a renamed binary:
 * "bench via f" and "bench-fixed via f", "bench+0x3080" and
 * "bench-fixed+0x3080") is the line new there, when exactly one of each
 * has that function or offset: merged as "bench -> bench-fixed via f". */
static void match_renamed(struct report_diff *d)
{
	for (size_t i = 0; i < d->nr; i++) {
		struct diff_entry *g = &d->e[i], *n = NULL;
		const char *f = via(g->name);
		size_t hits = 0, j_hit = 0;
		char name[sizeof(g->name)];

		if (!f || !g->in_before || g->in_after)
			continue;
		for (size_t j = 0; j < d->nr; j++) {
			const char *f2 = via(d->e[j].name);

			if (j != i && f2 && !strcmp(f, f2) && d->e[j].in_after && !d->e[j].in_before) {
				hits++;
				j_hit = j;
			}
		}
		for (size_t j = 0; j < d->nr && hits == 1; j++) {
			const char *f2 = via(d->e[j].name);

			if (j != i && f2 && !strcmp(f, f2) && d->e[j].in_before && !d->e[j].in_after)
				hits++;         /* another gone line of that function: ambiguous */
		}
		if (hits != 1)
			continue;
		n = &d->e[j_hit];
		scnprintf(name, sizeof(name), "%.*s -> %s", (int)(f - g->name), g->name, n->name);
		scnprintf(g->name, sizeof(g->name), "%s", name);
		g->after = n->after;
		g->in_after = true;
		d->renamed++;
		memmove(n, n + 1, (d->nr - j_hit - 1) * sizeof(*n));
		d->nr--;
		if (j_hit < i)
			i--;
	}
}

/* Why lines may not match: different kinds of events, or nothing common. */
static void diff_why(struct report_diff *d)
{
	bool sw_b = report__software_only(d->before), sw_a = report__software_only(d->after);
	size_t both = 0;

	for (size_t i = 0; i < d->nr; i++)
		both += d->e[i].in_before && d->e[i].in_after;
	if (sw_b != sw_a)
		scnprintf(d->why, sizeof(d->why), "the recordings' events differ: %s has %s, %s has %s; their "
			  "counts do not compare (record both with the same events)", "before",
			  sw_b ? "software events (page faults: first touches, no HITM)" : "memory events (HITM)",
			  "after", sw_a ? "software events (page faults: first touches, no HITM)" :
			  "memory events (HITM)");
	else if (d->nr_before && d->nr_after && !both)
		scnprintf(d->why, sizeof(d->why), "no line of one recording has a name in the other: lines are "
			  "matched by data symbol, heap site, or object and function; different programs, or "
			  "objects without symbols at other addresses, do not match");
}

void report_diff__build(const struct report *before, const struct report *after, struct report_diff *d)
{
	memset(d, 0, sizeof(*d));
	d->mode = before->mode;
	d->before = before;
	d->after = after;
	d->total.verdict_before = d->total.verdict_after = -1;
	scnprintf(d->total.name, sizeof(d->total.name), "(all lines)");
	add_side(d, before, false);
	add_side(d, after, true);
	match_renamed(d);
	for (size_t i = 0; i < d->nr; i++) {
		d->nr_before += d->e[i].in_before;
		d->nr_after += d->e[i].in_after;
		d->findings_before += d->e[i].verdict_before >= 0 && verdict__is_finding(d->e[i].verdict_before);
		d->findings_after += d->e[i].verdict_after >= 0 && verdict__is_finding(d->e[i].verdict_after);
	}
	d->total.in_before = d->nr_before > 0;
	d->total.in_after = d->nr_after > 0;
	d->acc_before = report__accesses(before);
	d->acc_after = report__accesses(after);
	for (size_t i = 0; i < d->nr; i++)
		entry_rates(d, &d->e[i]);
	entry_rates(d, &d->total);
	diff_why(d);
	d->all_gone = !d->why[0] && d->findings_before && !d->findings_after;
	qsort_r(d->e, d->nr, sizeof(*d->e), entry_cmp, &d->mode);
}

void report_diff__exit(struct report_diff *d)
{
	free(d->e);
	memset(d, 0, sizeof(*d));
}
