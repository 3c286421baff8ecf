/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The browser's state and what its screens share, for src/tui/ only:
 * screen.c the columns and the drawing every screen uses, line.c the
 * offsets screen, tui.c the other screens, the keys and the loop.
 */
#ifndef C2CSCAN_TUI_INT_H
#define C2CSCAN_TUI_INT_H

#include <stdbool.h>
#include <stddef.h>
#include "report/coalesce.h"
#include "report/columns.h"
#include "report/report.h"
#include "tui/browser.h"
#include "tui/term.h"

#define MAX_COLS 40
#define STRIP_MAX 256           /* longest line drawn as a byte strip */

enum screen { SCR_LIST, SCR_LINE, SCR_CALLERS, SCR_LATENT, SCR_HELP };

/* A TUI column: one of columns.c's, or one of ours. */
enum tcol_kind { TC_INDEX, TC_LINE, TC_ROW, TC_NODES, TC_GROUP };

struct tcol {
	enum tcol_kind kind;
	size_t i;               /* index in line_columns() / row_columns() */
	struct browser_col bc;
};

struct tui {
	struct report *r;
	enum screen screen, help_from;
	struct browser list, line, callers, latent, help;
	struct tcol list_cols[MAX_COLS], line_cols[MAX_COLS];
	size_t nr_list_cols, nr_line_cols;
	uint64_t total;                 /* the mode's metric over the listed lines (Share) */
	/* help: the software events' notice whole, cut at spaces, before the keys */
	char notice_rows[8][64];
	size_t nr_notice_rows;

	/* the offsets screen */
	struct cl_key key;              /* the line shown, by key (see the lifetimes above) */
	size_t idx;                     /* its index in report__lines() */
	const struct c2c_line *rows_of; /* the line whose rows are listed (r->c2c or a coalesced model) */
	enum report_coalesce coal;
	struct c2c *cmodel;             /* the shown line regrouped (report__regroup), owned */
	bool cpartial;                  /* ... from a file that stops early */
	struct cl_key ckey;             /* its line */
	enum report_coalesce cby;       /* its grouping */
	enum c2c_display cmode;         /* the mode it is sorted for */
	const struct c2c_line *const *clines;
	size_t nr_clines;

	int node_view;                  /* 0 off, 1 node ids, 2 nodes and their cpus */
	bool keys_uniform;              /* every listed line has one key kind and pid: no Key column */

	/* the callers screen: the stacks of one row of the offsets screen */
	const struct c2c_row *crow;
	const struct report_chain *chains;
	size_t nr_chains;
	uint64_t chain_samples;
};

/* "code address", "offset", "pid", "tid" (screen.c) */
extern const char *const tui_coal_names[COALESCE__NR];

struct parts {
	char buf[512];
	int cols, used;
	bool full;
};

/* screen.c */
const struct c2c_line *tui_line_at(const struct tui *t, size_t i);
/* The node column goes before the last (text) column. */
void tui_build_list_cols(struct tui *t);
void tui_build_line_cols(struct tui *t);
/* Path s at (y, x) in w cells, its start cut when it is wider; left out
 * (0 cells) rather than cut into fewer than 12. */
int tui_put_path_or_none(int y, int x, int w, enum tui_style st, const char *s);
/* " c2cscan  WHAT  OBJECT   FILE (host)": what the screen shows whole,
 * then the object and the recording's file, paths cut from their start
 * (each left out rather than cut under 12 cells). */
void tui_draw_title(const struct tui *t, const char *what, const char *object, int cols);
void tui_parts_init(struct parts *p, int cols);
void __attribute__((format(printf, 2, 3))) tui_parts_add(struct parts *p, const char *fmt, ...);
/* What naming found wrong (a binary not found, one that changed since the
 * recording), on row y in sight: stdio says it at its end only. Rows used. */
int tui_draw_name_warning(const struct tui *t, int y, int cols);
/* A column value as the browser sorts it. */
void tui_to_browser_value(const struct col_value *v, struct browser_value *out);
void tui_put_wrapped(int *y, int cols, enum tui_style st, const char *text, int max_lines);
/* The rows put_wrapped would take. */
int tui_wrapped_rows(int cols, const char *text, int max_lines);

/* line.c: the offsets screen of one line */
extern const struct browser_ops tui_line_ops;

#endif
