/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Column definitions of the cacheline table, shared by --stdio and the TUI so
 * both show the same numbers under the same names.
 */
#ifndef C2CSCAN_COLUMNS_H
#define C2CSCAN_COLUMNS_H

#include <stddef.h>
#include "report/report.h"

struct line_column {
	const char *name;       /* header */
	int width;              /* printed width; negative = left aligned */
	/* Formats the value for line l into buf; total is the mode's metric over
	 * all displayed lines (for percentages). */
	void (*fmt)(const struct report *r, const struct c2c_line *l, uint64_t total, char *buf, size_t size);
};

/* Columns of the line table for r's display mode; *nr set. */
const struct line_column *line_columns(const struct report *r, size_t *nr);

struct row_column {
	const char *name;
	int width;
	void (*fmt)(const struct report *r, const struct c2c_line *l, const struct c2c_row *row,
		    char *buf, size_t size);
	bool wide;              /* past --stdio's 160 columns: only where there is room (TUI) */
};

const struct row_column *row_columns(const struct report *r, size_t *nr);

/* "[heap]", "/usr/lib/libx.so", "[kernel]", "[unknown]" */
const char *line_object(const struct c2c_line *l);
uint64_t lat_mean(uint64_t sum, uint32_t cnt);
/* Data symbol at the offset of l that counts most in the display mode. */
bool line_data_symbol(const struct report *r, const struct c2c_line *l, struct data_loc *out);

#endif
