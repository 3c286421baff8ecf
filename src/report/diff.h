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


/* The views of both must be in one display mode (report__set_mode). */
void report_diff__build(const struct report *before, const struct report *after, struct report_diff *d);
void report_diff__exit(struct report_diff *d);
size_t report_diff__fprintf_stdio(const struct report_diff *d, FILE *fp);
size_t report_diff__fprintf_json(const struct report_diff *d, FILE *fp);


int report_diff__write_html(const struct report_diff *d, const char *path, char *err, size_t errsize);

#endif
