/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A generic scrolling table: a cursor over entries, columns that scroll
 * sideways past the fixed ones, sorting by a column, a filter typed after
 * '/'. Each screen (lines, offsets, help) supplies small ops; the browser
 * owns only the order of the entries (filtered, sorted), never their data,
 * so scrolling never asks the model for more than the visible rows.
 *
 * Layout, top to bottom: the screen's top lines (ops->draw_top), the column
 * header, the entries, one detail line about the entry under the cursor
 * (ops->draw_detail), the status line.
 */
#ifndef C2CSCAN_TUI_BROWSER_H
#define C2CSCAN_TUI_BROWSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tui/term.h"

enum browser_sort { SORT_NONE, SORT_DESC, SORT_ASC };

/* A cell's value for sorting: a number, compared exactly, or none (text:
 * sorts last). */
struct browser_value {
	enum { BV_NONE, BV_UINT, BV_REAL } kind;
	uint64_t u;
	double d;
};

struct browser_col {
	const char *name;
	int width;              /* cells; negative: left aligned */
	enum browser_sort sort; /* how 's' sorts by it (ops->value) */
};

struct browser_ops {
	size_t (*nr_entries)(void *priv);
	size_t (*nr_cols)(void *priv);
	struct browser_col (*col)(void *priv, size_t c);
	void (*cell)(void *priv, size_t entry, size_t c, char *buf, size_t size);
	/* The value 's' sorts by (left BV_NONE for text); NULL: none sorts. */
	void (*value)(void *priv, size_t entry, size_t c, struct browser_value *out);
	/* The filter: does entry contain text (case-insensitive)? NULL: no '/'. */
	bool (*match)(void *priv, size_t entry, const char *text);
	/* Draws the top area from line 0; returns the lines it used. */
	int (*draw_top)(void *priv, int cols);
	/* Draws the detail of entry (valid, under the cursor) on line y. */
	void (*draw_detail)(void *priv, size_t entry, int y, int cols);
	/* optional: the rows draw_detail takes for entry (1 when NULL), at
	 * most a third of the screen */
	int (*detail_rows)(void *priv, size_t entry, int cols);
};

struct browser {
	const struct browser_ops *ops;
	void *priv;
	size_t fixed_cols;      /* columns that never scroll sideways */
	const char *keys;       /* the status line's key summary */
	char empty[512];        /* why there is nothing to show (the owner's words), or "" */
	size_t *order;          /* entries shown, in display order */
	size_t nr, alloc;
	size_t cursor, top;     /* positions in order */
	size_t hscroll;         /* first scrollable column shown */
	int sort_col;           /* -1: natural order */
	char filter[128];
	bool prompting;         /* reading a filter after '/' */
	char prompt[128];
	char message[256];      /* shown once in the status line */
	int rows_shown;         /* entries on screen at the last draw */
	size_t last_shown;      /* the last column on screen at the last draw */
};

void browser__init(struct browser *b, const struct browser_ops *ops, void *priv);
void browser__exit(struct browser *b);
/* The entries changed (another display mode, coalescing): rebuild the order
 * keeping filter and sort; the cursor stays at its position (clamped). */
void browser__reset(struct browser *b);
/* Puts the cursor on entry (if shown); false if it is filtered out. */
bool browser__seek(struct browser *b, size_t entry);
/* The entry under the cursor; false when there is none. */
bool browser__current(const struct browser *b, size_t *entry);
void browser__draw(struct browser *b);
/* Handles navigation, 's', '<' '>', '/' and the prompt; true if it used key. */
bool browser__key(struct browser *b, int key);
void browser__message(struct browser *b, const char *msg);
/* Shows msg on the status line now, before a slow step (nothing else is
 * redrawn: the entries may be changing). */
void browser__flash(const char *msg);
/* Draws s in w cells at (y, x), cut when it is wider: a path (s starts
 * with '/') loses its start ("\u2026/server/libjvm.so"), other text its end
 * ("bench_wor\u2026"); returns the cells used. */
int browser__put_path(int y, int x, int w, enum tui_style st, const char *s);
/* The same, the start cut when keep_end, else the end. */
int browser__put_cut(int y, int x, int w, enum tui_style st, const char *s, bool keep_end);
/* The sort column's name, or NULL for the natural order. */
const char *browser__sort_name(const struct browser *b, char *buf, size_t size);

#endif
