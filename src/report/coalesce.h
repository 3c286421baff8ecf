/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report --stdio -c: rows regrouped by tid, pid, code address or object
 * (coalesce.c), and the trimming of the lines' rows between lines.
 */
#ifndef C2CSCAN_REPORT_COALESCE_H
#define C2CSCAN_REPORT_COALESCE_H

#include "report/report.h"

/* Frees the counts and rows (c2c_line__counts, c2c_line__rows) of the
 * view's lines but keep's, once they are many: between lines of a listing,
 * between keys. */
void report__trim(const struct report *r, const struct c2c_line *keep);

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

#endif
