/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report's renderings into files: stdio.c, json.c, pprof.c, html.c.
 */
#ifndef C2CSCAN_REPORT_OUTPUT_H
#define C2CSCAN_REPORT_OUTPUT_H

#include "report/report.h"

/* The rows of the lines --stdio details, regrouped by -c's fields (the
 * report's options; nothing without -c): before report__fprintf_stdio.
 * The other renderings keep the model's rows. */
void report__coalesce_rows(struct report *r);
size_t report__fprintf_stdio(const struct report *r, FILE *fp);
size_t report__fprintf_json(const struct report *r, FILE *fp);
/* The view as a pprof profile (profile.proto, gzipped) in path (pprof.c);
 * 0, or -errno. */
int report__write_pprof(struct report *r, const char *path);
/* The view as one self-contained HTML page in path (html.c; a pass over
 * the samples for the time lines); 0, or -errno. */
int report__write_html(struct report *r, const char *path);

/* report --patch (patch.c): a unified diff that gives the data of every
 * line judged false sharing its own line, in the program's sources, on
 * fp; what cannot be patched in "# c2cscan: " lines before it. 0 or
 * -errno; *nr_changes: the changes written. */
int report__write_patch(struct report *r, FILE *fp, size_t *nr_changes);

#endif
