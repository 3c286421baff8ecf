/* SPDX-License-Identifier: GPL-2.0 */
/*
 * c2cscan diff (diff.c): two recordings' lines matched by name, and
 * their stdio, JSON and HTML renderings.
 */
#ifndef C2CSCAN_REPORT_DIFF_H
#define C2CSCAN_REPORT_DIFF_H

#include "report/report.h"

/* c2cscan diff (diff.c): lines of two recordings matched by name. */
struct diff_entry {
	char name[192];
	bool in_before, in_after;   /* listed in that recording's view */
	struct c2c_stats before, after; /* summed over the lines of the name */
	int verdict_before, verdict_after; /* enum verdict_kind of the name's top line, -1 none */
	double rate_before, rate_after; /* the mode's metric per million accesses */
	/* the before lines' advice predicted what their fix leaves (struct
	 * line_verdict): of the contended accesses, and per million accesses
	 * of the before recording, to compare with rate_after */
	bool predicted;
	uint64_t predicted_left;
	double predicted_rate;
};

/* What a name's line did between the recordings. */
enum diff_status { DIFF_SAME, DIFF_BETTER, DIFF_WORSE, DIFF_GONE, DIFF_NEW, DIFF_VERDICT };
const char *diff_status__word(enum diff_status s);
enum diff_status diff_entry__status(const struct diff_entry *e);
/* The change of e's rate in percent; false when there is none to give
 * (gone, new, or nothing before). */
bool diff_entry__change(const struct diff_entry *e, double *pct);

struct report_diff {
	const struct report *before, *after;
	enum c2c_display mode;      /* the one both views use */
	struct diff_entry *e;       /* by the mode's metric before, then after */
	size_t nr, alloc;
	size_t renamed;             /* entries matched by "via FUNCTION" across objects renamed */
	/* rates compare runs of different lengths: the accesses each
	 * recording's memory samples stand for (their periods summed; the
	 * samples when the events carry no data source) */
	double acc_before, acc_after;
	struct diff_entry total;    /* every line of each view, summed ("all lines") */
	size_t nr_before, nr_after; /* names listed in each */
	size_t findings_before, findings_after; /* names whose verdict is a finding (sharing) */
	bool all_gone;              /* findings before, none after: the fix worked */
	/* why lines may not match, in words, or "": the recordings' events
	 * differ (memory events against page faults), or no name is common */
	char why[512];
};


/* The views of both must be in one display mode (report__set_mode). */
void report_diff__build(const struct report *before, const struct report *after, struct report_diff *d);
void report_diff__exit(struct report_diff *d);
size_t report_diff__fprintf_stdio(const struct report_diff *d, FILE *fp);
size_t report_diff__fprintf_json(const struct report_diff *d, FILE *fp);


int report_diff__write_html(const struct report_diff *d, const char *path);

#endif
