/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The column list of the cacheline table and of a line's rows, shared by
 * --stdio and the TUI so both show the same numbers under the same names.
 * A column yields a typed value (struct col_value).
 */
#ifndef C2CSCAN_COLUMNS_H
#define C2CSCAN_COLUMNS_H

#include <stddef.h>
#include "report/report.h"

/* A cell's value, typed: renderers format it (col_value__scnprintf), the
 * browser sorts by it (col_value__cmp), never by its text. */
enum col_type { COL_COUNT, COL_HEX, COL_PERCENT, COL_TEXT };

struct col_value {
	enum col_type type;
	uint8_t decimals;       /* COL_PERCENT */
	uint64_t u;             /* COL_COUNT, COL_HEX */
	double pct;             /* COL_PERCENT */
};

/* "12", "0x1c0", "12.34%"; COL_TEXT: the text the column wrote to buf. */
size_t col_value__scnprintf(const struct col_value *v, char *buf, size_t size);
/* Order by value; numbers before text, texts equal. */
int col_value__cmp(const struct col_value *a, const struct col_value *b);

/* What renderers need to know of a column besides its values: they ask
 * these, never its name. */
enum col_trait {
	COL_MEM = 1,            /* only memory events fill it: none in an accesses-only recording */
	COL_CODE = 2,           /* names a row's code: nothing when rows are not per code address */
	COL_KEY = 4,            /* the line's key (the browser drops it when all are alike) */
	COL_NODES = 8,          /* the nodes count (the browser's node view lists them instead) */
	COL_OBJECT = 16,        /* a path (the browser's list shows its base name) */
	COL_DATA = 32,          /* the data a row touches (--stdio names it first, cached) */
	COL_WIDE = 64,          /* the browser's list and HTML always; --stdio only when asked (its
				 * 160 columns: Gain with --sort gain, Verdict under each line) */
	COL_GROWS = 128,        /* a count that may outgrow its width (an emulated recording's
				 * accesses): --stdio widens it to its widest cell */
};

struct line_column {
	const char *name;       /* header */
	int width;              /* printed width; negative = left aligned */
	/* The value for line l; a COL_TEXT value is written to buf. total is
	 * the mode's metric over all displayed lines (for percentages). */
	struct col_value (*get)(const struct report *r, const struct c2c_line *l, uint64_t total, char *buf,
				size_t size);
	uint8_t traits;         /* enum col_trait */
	uint8_t spare;          /* --stdio -c/-N drop it for room, in this order (1 first); 0 never */
	uint8_t rank;           /* the browser's order (1 first); 0 after the ranked ones */
};

/* Columns of the line table for r's display mode; *nr set. */
const struct line_column *line_columns(const struct report *r, size_t *nr);

/* "0 1", or with their cpus "0{0,1} 1{2,3}" (-N, the browser's n). */
size_t nodes__scnprintf(const struct report *r, const struct u32set *nodes, const struct u32set *cpus,
			bool with_cpus, char *buf, size_t size);

struct row_column {
	const char *name;
	int width;
	struct col_value (*get)(const struct report *r, const struct c2c_line *l, const struct c2c_row *row,
				char *buf, size_t size);
	bool wide;              /* past --stdio's 160 columns: only where there is room (TUI) */
	uint8_t traits, spare, rank;    /* as line_column's */
};

/* The room (its width and a space) the row column of spare rank i takes. */
int column__spare_room(unsigned int i);
/* The browser's place of a column of rank (0: after every ranked one). */
static inline unsigned int column__place(uint8_t rank)
{
	return rank ? rank : 256;
}

const struct row_column *row_columns(const struct report *r, size_t *nr);
/* A column the recording cannot fill (StHitm outside emulated ones). */
bool row_column__hidden(const struct report *r, const struct row_column *c);

/* The cell text of column c for line l (row row): its value, formatted. */
/* A column the line lists leave out: Gain but with --sort gain (which it
 * shows the value of). */
bool line_column__hidden(const struct report *r, const struct line_column *c);
/* The same for the browser's list and HTML, which show COL_WIDE columns. */
bool line_column__hidden_wide(const struct report *r, const struct line_column *c);
size_t line_column__cell(const struct line_column *c, const struct report *r, const struct c2c_line *l,
			 uint64_t total, char *buf, size_t size);
size_t row_column__cell(const struct row_column *c, const struct report *r, const struct c2c_line *l,
			const struct c2c_row *row, char *buf, size_t size);

/* "[heap]", "/usr/lib/libx.so", "[kernel]", "[unknown]" */
const char *line_object(const struct c2c_line *l);
uint64_t lat_mean(uint64_t sum, uint32_t cnt);
/* Data symbol at the offset of l that counts most in the display mode. */
bool line_data_symbol(const struct report *r, const struct c2c_line *l, struct data_loc *out);
/* An object as the tables name it: "/usr/lib/libc.so.6" -> "libc.so.6",
 * "[kernel.kallsyms]_text" -> "[kernel]", "//anon" as it is. */
const char *object_base_name(const char *path);
/* The row of l with the most of the mode's metric (the first of equals). */
const struct c2c_row *hottest_row(const struct report *r, const struct c2c_line *l);

#endif
