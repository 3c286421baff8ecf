// SPDX-License-Identifier: GPL-2.0
/*
 * The cacheline browser: four screens over the report model -- the lines,
 * the offsets of one line (with its byte strip), the callers of one offset,
 * the keys -- each a struct browser with its own small ops. Nothing here calls curses (term.c does);
 * the cells come from the column definitions --stdio uses (columns.c).
 *
 * Lifetimes: report__lines() and everything in it are valid until the next
 * c2c__sort (report__set_mode), so a screen keeps the key of the line it
 * shows, never the pointer, across a change of display mode.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/callchain.h"
#include "report/coalesce.h"
#include "report/columns.h"
#include "report/layout.h"
#include "report/report.h"
#include "report/verdict.h"
#include "tui/browser.h"
#include "tui/term.h"
#include "tui/tui.h"
#include "util/util.h"

#define MAX_COLS 40
#define STRIP_MAX 256           /* longest line drawn as a byte strip */

enum screen { SCR_LIST, SCR_LINE, SCR_CALLERS, SCR_HELP };

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
	struct browser list, line, callers, help;
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

static const char *const coal_names[COALESCE__NR] = {
	[COALESCE_IADDR] = "code address", [COALESCE_OFFSET] = "offset",
	[COALESCE_PID] = "pid", [COALESCE_TID] = "tid",
};

/* ---- columns ---- */

static const struct c2c_line *line_at(const struct tui *t, size_t i)
{
	return report__lines(t->r)[i];
}


static struct browser_col nodes_col(const struct tui *t)
{
	return (struct browser_col){ t->node_view > 1 ? "Node{cpus}" : "Nodes", t->node_view > 1 ? -24 : -8,
				     SORT_NONE };
}

static enum browser_sort sort_of(int width, bool first)
{
	return first ? SORT_ASC : width > 0 ? SORT_DESC : SORT_NONE;
}

/* Where a column goes on a narrow screen (columns.c's ranks): what a line
 * holds first, then the mode's counts, then the rest; the less telling
 * ones last, reached by scrolling or a wider terminal. The node view's
 * nodes stand where the Nodes count would, with their cpus after all. */
static unsigned int tcol_place(const struct tui *t, const struct tcol *c)
{
	size_t nr;

	switch (c->kind) {
	case TC_LINE:
		return column__place(line_columns(t->r, &nr)[c->i].rank);
	case TC_ROW:
		return column__place(row_columns(t->r, &nr)[c->i].rank);
	case TC_NODES:
		if (t->node_view == 1) {
			const struct line_column *lc = line_columns(t->r, &nr);

			for (size_t i = 0; i < nr; i++)
				if (lc[i].traits & COL_NODES)
					return column__place(lc[i].rank);
		}
		return column__place(0);
	default:
		return column__place(0);
	}
}

/* Stable order of n columns by place (insertion sort: a few dozen). */
static void sort_cols(const struct tui *t, struct tcol *cols, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct tcol c = cols[i];
		unsigned int r = tcol_place(t, &c);
		size_t j = i;

		while (j > 0 && tcol_place(t, &cols[j - 1]) > r) {
			cols[j] = cols[j - 1];
			j--;
		}
		cols[j] = c;
	}
}

/* Is line column lc a count that is 0 on every listed line? Such columns
 * (HITM on a software-event recording) say nothing: the browser hides them. */
static bool list_col_zero(const struct tui *t, const struct line_column *lc)
{
	const struct c2c_line *const *lines = report__lines(t->r);
	char buf[256];

	for (size_t i = 0; i < report__nr_lines(t->r); i++) {
		struct col_value v = lc->get(t->r, lines[i], t->total, buf, sizeof(buf));

		report__trim(t->r, t->rows_of);
		if (v.type != COL_COUNT || v.u)
			return false;
	}
	return report__nr_lines(t->r) > 0;
}

/* Every listed line has the same key kind and (private) pid: the Key column
 * would repeat one text; the top line says it once instead. */
static bool uniform_keys(const struct tui *t)
{
	const struct c2c_line *const *lines = report__lines(t->r);
	size_t n = report__nr_lines(t->r);

	for (size_t i = 1; i < n; i++)
		if (lines[i]->key.kind != lines[0]->key.kind || lines[i]->key.pid != lines[0]->key.pid ||
		    lines[i]->key.kind == CL_SHARED)
			return false;
	return n > 0 && lines[0]->key.kind != CL_SHARED;
}

static int digits(size_t n)
{
	int d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

/* The node column goes before the last (text) column. */
static void build_list_cols(struct tui *t)
{
	size_t nr, n = 0;
	const struct line_column *lc = line_columns(t->r, &nr);
	size_t lines = report__nr_lines(t->r);
	int w = digits(lines ? lines - 1 : 0);

	t->keys_uniform = uniform_keys(t);
	t->list_cols[n++] = (struct tcol){ TC_INDEX, 0, { "#", w < 3 ? 3 : w, SORT_NONE } };
	for (size_t i = 0; i < nr && n + 2 < MAX_COLS; i++) {
		if (t->node_view && i + 1 == nr)
			t->list_cols[n++] = (struct tcol){ TC_NODES, 0, nodes_col(t) };
		/* the node view's list of nodes takes the place of their count */
		if ((t->keys_uniform && (lc[i].traits & COL_KEY)) || line_column__hidden(t->r, &lc[i]) ||
		    (t->node_view && (lc[i].traits & COL_NODES)) || list_col_zero(t, &lc[i]))
			continue;
		t->list_cols[n++] = (struct tcol){ TC_LINE, i, { lc[i].name, lc[i].width, sort_of(lc[i].width, !i) } };
	}
	sort_cols(t, t->list_cols + 1, n - 1);
	t->nr_list_cols = n;
}

/* Is row column rc a count that is 0 on every row of the shown line? */
static bool row_col_zero(const struct tui *t, const struct row_column *rc)
{
	char buf[256];

	for (size_t i = 0; t->rows_of && i < t->rows_of->nr_rows; i++) {
		struct col_value v = rc->get(t->r, t->rows_of, &c2c_line__rows(t->rows_of)[i], buf, sizeof(buf));

		if (v.type != COL_COUNT || v.u)
			return false;
	}
	return t->rows_of && t->rows_of->nr_rows;
}

static void build_line_cols(struct tui *t)
{
	size_t nr, n = 0;
	const struct row_column *rc = row_columns(t->r, &nr);

	for (size_t i = 0; i < nr && n + 2 < MAX_COLS; i++) {
		if (t->coal != COALESCE_IADDR && (rc[i].traits & COL_CODE))
			continue;
		if (i > 0 && row_col_zero(t, &rc[i]))
			continue;
		t->line_cols[n++] = (struct tcol){ TC_ROW, i, { rc[i].name, rc[i].width, sort_of(rc[i].width, false) } };
		if (i == 0 && (t->coal == COALESCE_PID || t->coal == COALESCE_TID))
			t->line_cols[n++] = (struct tcol){ TC_GROUP, 0,
				{ t->coal == COALESCE_PID ? "Pid" : "Tid", -20, SORT_ASC } };
		if (i == 0 && t->node_view)
			t->line_cols[n++] = (struct tcol){ TC_NODES, 0, nodes_col(t) };
	}
	/* the group and node columns stay where they were put, after Offset */
	if (t->coal == COALESCE_IADDR && !t->node_view)
		sort_cols(t, t->line_cols + 1, n - 1);
	t->nr_line_cols = n;
}

/* ---- the lines screen ---- */

static size_t list_nr(void *priv)
{
	return report__nr_lines(((struct tui *)priv)->r);
}

static size_t list_nr_cols(void *priv)
{
	return ((struct tui *)priv)->nr_list_cols;
}

static struct browser_col list_col(void *priv, size_t c)
{
	return ((struct tui *)priv)->list_cols[c].bc;
}

static void list_cell(void *priv, size_t e, size_t c, char *buf, size_t size)
{
	struct tui *t = priv;
	const struct tcol *tc = &t->list_cols[c];
	const struct c2c_line *l = line_at(t, e);
	size_t nr;

	switch (tc->kind) {
	case TC_INDEX:
		snprintf(buf, size, "%zu", e);
		break;
	case TC_NODES:
		nodes__scnprintf(t->r, &c2c_line__counts(l)->nodes, &c2c_line__counts(l)->cpus, t->node_view > 1, buf, size);
		break;
	default:
		line_column__cell(&line_columns(t->r, &nr)[tc->i], t->r, l, t->total, buf, size);
		/* the list names what a line holds: a file by its name (the
		 * detail line has the path) */
		if ((line_columns(t->r, &nr)[tc->i].traits & COL_OBJECT) && buf[0] == '/')
			memmove(buf, object_base_name(buf), strlen(object_base_name(buf)) + 1);
		break;
	}
}

/* A column value as the browser sorts it. */
static void to_browser_value(const struct col_value *v, struct browser_value *out)
{
	switch (v->type) {
	case COL_COUNT:
	case COL_HEX:
		*out = (struct browser_value){ .kind = BV_UINT, .u = v->u };
		break;
	case COL_PERCENT:
		*out = (struct browser_value){ .kind = BV_REAL, .d = v->pct };
		break;
	default:
		break;
	}
}

static void list_value(void *priv, size_t e, size_t c, struct browser_value *out)
{
	struct tui *t = priv;
	const struct tcol *tc = &t->list_cols[c];
	char buf[512];
	size_t nr;
	struct col_value v;

	/* sorting asks every line: their rows are not kept */
	report__trim(t->r, t->rows_of);
	if (tc->kind == TC_INDEX) {
		*out = (struct browser_value){ .kind = BV_UINT, .u = e };
	} else if (tc->kind == TC_LINE) {
		v = line_columns(t->r, &nr)[tc->i].get(t->r, line_at(t, e), t->total, buf, sizeof(buf));
		to_browser_value(&v, out);
	}
}

static bool list_match(void *priv, size_t e, const char *text)
{
	struct tui *t = priv;
	const struct c2c_line *l = line_at(t, e);
	char buf[512];

	/* a search visits every line: their rows are not kept */
	report__trim(t->r, t->rows_of);
	for (size_t c = 0; c < t->nr_list_cols; c++) {
		list_cell(priv, e, c, buf, sizeof(buf));
		if (strcasestr(buf, text))
			return true;
	}
	if (strcasestr(line_object(l), text))
		return true;
	/* the code and the data of its rows: "worker" finds the lines worker() touches */
	for (size_t i = 0; i < l->nr_rows; i++) {
		struct row_names nm;

		report__row_names(t->r, l, &c2c_line__rows(l)[i], &nm);
		if (nm.code_ok && names__code_scnprintf(&nm.code, buf, sizeof(buf)) && strcasestr(buf, text))
			return true;
		if (nm.data_ok && names__data_scnprintf(&nm.data, buf, sizeof(buf)) && strcasestr(buf, text))
			return true;
	}
	return false;
}

static const char *host_of(const struct report *r)
{
	const struct pd_info *in = report__info(r);

	return in->hostname ? in->hostname : "?";
}

/* Path s at (y, x) in w cells, its start cut when it is wider; left out
 * (0 cells) rather than cut into fewer than 12. */
static int put_path_or_none(int y, int x, int w, enum tui_style st, const char *s)
{
	if (term__width(s) > w && w < 12)
		return 0;
	return browser__put_path(y, x, w, st, s);
}

/* " c2cscan  WHAT  OBJECT   FILE (host)": what the screen shows whole,
 * then the object and the recording's file, paths cut from their start
 * (each left out rather than cut under 12 cells). */
static void draw_title(const struct tui *t, const char *what, const char *object, int cols)
{
	const char *base;
	char buf[512];
	int x, room;

	snprintf(buf, sizeof(buf), " c2cscan  %s", what);
	term__fill(0, 0, cols, ST_TITLE);
	x = term__put(0, 0, cols, ST_TITLE, buf);
	if (object && object[0]) {
		int n = put_path_or_none(0, x + 2, cols - x - 2, ST_TITLE, object);

		x += n ? 2 + n : 0;
	}
	/* the recording's directories go first, then its host: its name
	 * stays longest */
	room = cols - x - 3;
	base = strrchr(report__path(t->r), '/');
	base = base ? base + 1 : report__path(t->r);
	snprintf(buf, sizeof(buf), "%s (%s)", report__path(t->r), host_of(t->r));
	if (room < 12)
		return;
	if (term__width(buf) <= room || 1 + term__width(buf + (base - report__path(t->r))) <= room)
		browser__put_cut(0, x + 3, room, ST_TITLE, buf, true);
	else
		browser__put_cut(0, x + 3, room, ST_TITLE, base, false);
}

/* A header line of parts, each whole or left out: a number cut at the
 * screen's edge reads as another number ("loads 1" for 1499881). Parts
 * come most important first; the first that does not fit ends the line. */
struct parts {
	char buf[512];
	int cols, used;
	bool full;
};

static void parts__init(struct parts *p, int cols)
{
	p->buf[0] = '\0';
	p->cols = cols;
	p->used = 0;
	p->full = false;
}

static void __attribute__((format(printf, 2, 3))) parts__add(struct parts *p, const char *fmt, ...)
{
	char part[256];
	size_t n = strlen(p->buf);
	va_list ap;
	int w;

	if (p->full)
		return;
	va_start(ap, fmt);
	vsnprintf(part, sizeof(part), fmt, ap);
	va_end(ap);
	w = term__width(part);
	if (p->used + w > p->cols || n + strlen(part) >= sizeof(p->buf)) {
		p->full = true;
		return;
	}
	memcpy(p->buf + n, part, strlen(part) + 1);
	p->used += w;
}

/* What naming found wrong (a binary not found, one that changed since the
 * recording), on row y in sight: stdio says it at its end only. Rows used. */
static int draw_name_warning(const struct tui *t, int y, int cols)
{
	size_t nr = report__nr_name_warnings(t->r);
	char buf[1024];

	if (!nr)
		return 0;
	if (nr > 1)
		snprintf(buf, sizeof(buf), " warning (1 of %zu, --stdio lists all): %s", nr, report__name_warning(t->r, 0));
	else
		snprintf(buf, sizeof(buf), " warning: %s", report__name_warning(t->r, 0));
	term__put(y, 0, cols, ST_WARN, buf);
	return 1;
}

static int list_top(void *priv, int cols)
{
	struct tui *t = priv;
	const struct c2c_stats *s = report__totals(t->r);
	struct parts p;
	char key[128];

	draw_title(t, "cachelines", NULL, cols);
	parts__init(&p, cols);
	for (size_t i = 0; i < report__nr_events(t->r); i++)
		parts__add(&p, "%s%s %" PRIu64, i ? ", " : " events: ", report__event(t->r, i)->name,
			   report__event(t->r, i)->samples);
	/* what such a recording cannot show stays in sight, not only in the
	 * first screen's status line */
	if (report__notice_brief(t->r))
		parts__add(&p, ": %s", report__notice_brief(t->r));
	term__put(1, 0, cols, ST_NORMAL, p.buf);
	parts__init(&p, cols);
	parts__add(&p, " display %s: %zu lines", c2c_display__name(report__mode(t->r)), report__nr_lines(t->r));
	if (report__partial(t->r))
		parts__add(&p, "  PARTIAL (see --stdio)");
	if (t->keys_uniform) {
		/* the Key column is gone: its one value, once */
		cl_key__scnprintf(&report__lines(t->r)[0]->key, report__maps(t->r), key, sizeof(key));
		parts__add(&p, ", %s", key);
	}
	/* a recording without HITM or peer says nothing of them */
	if (s->tot_hitm || s->lcl_peer + s->rmt_peer || s->load || s->store) {
		parts__add(&p, "  HITM %u", s->tot_hitm);
		parts__add(&p, " (lcl %u rmt %u)", s->lcl_hitm, s->rmt_hitm);
		if (s->st_hitm)
			parts__add(&p, "  store HITM %u", s->st_hitm);
		parts__add(&p, "  peer %u", s->lcl_peer + s->rmt_peer);
		parts__add(&p, "  loads %u", s->load);
		parts__add(&p, "  stores %u", s->store);
	}
	term__put(2, 0, cols, report__partial(t->r) ? ST_WARN : ST_NORMAL, p.buf);
	return 3 + draw_name_warning(t, 3, cols);
}

static void list_detail(void *priv, size_t e, int y, int cols)
{
	struct tui *t = priv;
	const struct c2c_line *l = line_at(t, e);
	char key[128], data[256] = "", buf[768];
	struct data_loc d;
	int x;

	cl_key__scnprintf(&l->key, report__maps(t->r), key, sizeof(key));
	if (line_data_symbol(t->r, l, &d))
		names__data_scnprintf(&d, data, sizeof(data));
	snprintf(buf, sizeof(buf), " %s  %s%s", key, data, data[0] ? "  in " : "");
	x = term__put(y, 0, cols, ST_DIM, buf);
	/* the object's path loses its start, not its file name */
	put_path_or_none(y, x, cols - x, ST_DIM, line_object(l));
}

static const struct browser_ops list_ops = {
	.nr_entries = list_nr,
	.nr_cols = list_nr_cols,
	.col = list_col,
	.cell = list_cell,
	.value = list_value,
	.match = list_match,
	.draw_top = list_top,
	.draw_detail = list_detail,
};

/* ---- the offsets screen ---- */

static size_t line_nr(void *priv)
{
	struct tui *t = priv;

	return t->rows_of ? t->rows_of->nr_rows : 0;
}

static size_t line_nr_cols(void *priv)
{
	return ((struct tui *)priv)->nr_line_cols;
}

static struct browser_col line_col(void *priv, size_t c)
{
	return ((struct tui *)priv)->line_cols[c].bc;
}

static void line_cell(void *priv, size_t e, size_t c, char *buf, size_t size)
{
	struct tui *t = priv;
	const struct tcol *tc = &t->line_cols[c];
	const struct c2c_row *row = &c2c_line__rows(t->rows_of)[e];
	size_t nr;

	switch (tc->kind) {
	case TC_NODES:
		nodes__scnprintf(t->r, &row->nodes, &row->cpus, t->node_view > 1, buf, size);
		break;
	case TC_GROUP: {
		/* the coalesced model keeps the pid or tid where the code address was */
		uint32_t id = (uint32_t)row->iaddr;
		const char *comm = maps__comm(report__maps(t->r), t->coal == COALESCE_PID ? id : row->first_pid, id,
					      row->first_time);

		snprintf(buf, size, "%u%s%s", id, comm && *comm ? " " : "", comm ? comm : "");
		break;
	}
	default:
		row_column__cell(&row_columns(t->r, &nr)[tc->i], t->r, t->rows_of, row, buf, size);
		break;
	}
}

static void line_value(void *priv, size_t e, size_t c, struct browser_value *out)
{
	struct tui *t = priv;
	const struct tcol *tc = &t->line_cols[c];
	const struct c2c_row *row = &c2c_line__rows(t->rows_of)[e];
	char buf[512];
	size_t nr;
	struct col_value v;

	if (tc->kind == TC_GROUP) {
		/* the coalesced model keeps the pid or tid where the code address was */
		*out = (struct browser_value){ .kind = BV_UINT, .u = (uint32_t)row->iaddr };
	} else if (tc->kind == TC_ROW) {
		v = row_columns(t->r, &nr)[tc->i].get(t->r, t->rows_of, row, buf, sizeof(buf));
		to_browser_value(&v, out);
	}
}

static bool line_match(void *priv, size_t e, const char *text)
{
	struct tui *t = priv;
	char buf[512];

	for (size_t c = 0; c < t->nr_line_cols; c++) {
		line_cell(priv, e, c, buf, sizeof(buf));
		if (strcasestr(buf, text))
			return true;
	}
	return false;
}

/* What the strip knows of each byte of the line. */
struct byte_use {
	uint32_t loads, stores, accesses;
	struct u32set tids;
};

static int strip_bytes_per_block(uint32_t size, int cols)
{
	int bpb = 128;

	while (bpb > 8 && (bpb > (int)size || bpb + 9 > cols))
		bpb /= 2;
	return bpb;
}

static const char *strip_char(const struct byte_use *u, enum tui_style *st)
{
	if (u->stores && u->loads) {
		*st = ST_BOTH;
		return "X";
	}
	if (u->stores) {
		*st = ST_WRITE;
		return "W";
	}
	if (u->loads) {
		*st = ST_READ;
		return "r";
	}
	if (u->accesses) {          /* software events: accessed, kind unknown */
		*st = ST_NORMAL;
		return "a";
	}
	*st = ST_DIM;
	return term__utf8() ? "\u00b7" : ".";
}

/* Whether two offsets, at least one written, are touched by disjoint sets
 * of threads: the signature of false sharing. */
#define ADVICE_LINES 3

/* text from row *y on, its words wrapped at cols (continuations indented
 * three cells), in max_lines rows at most: the last one is cut with an
 * ellipsis when more remains. */
static int wrap_text(int *y, int cols, enum tui_style st, const char *text, int max_lines, bool draw)
{
	char line[1200];
	const char *p = text;
	int rows = 0;

	for (int row = 0; row < max_lines && *p; row++) {
		size_t n = 0;
		int w;

		if (row) {
			memcpy(line, "   ", 3);
			n = 3;
		}
		line[n] = '\0';
		w = term__width(line);
		/* whole words while they fit; a word wider than a row is cut */
		while (*p) {
			const char *end = strchr(p + 1, ' ');
			size_t len = end ? (size_t)(end - p) : strlen(p);

			if (n + len >= sizeof(line))
				break;
			memcpy(line + n, p, len);
			line[n + len] = '\0';
			if (term__width(line) > cols && w > (row ? 3 : 0)) {
				line[n] = '\0';
				break;
			}
			n += len;
			w = term__width(line);
			p += len;
		}
		while (*p == ' ')
			p++;
		rows++;
		if (!draw)
			continue;
		term__put(*y, 0, cols, st, line);
		if (*p && row == max_lines - 1)
			term__put(*y, w + 1 < cols ? w + 1 : cols - 1, 1, st, term__ellipsis());
		(*y)++;
	}
	return rows;
}

static void put_wrapped(int *y, int cols, enum tui_style st, const char *text, int max_lines)
{
	wrap_text(y, cols, st, text, max_lines, true);
}

/* The rows put_wrapped would take. */
static int wrapped_rows(int cols, const char *text, int max_lines)
{
	int y = 0;

	return wrap_text(&y, cols, ST_NORMAL, text, max_lines, false);
}

/* A count of cycles as people read it on a screen: "475", "12.3 k",
 * "1.22 G" (three digits; stdio and JSON keep the exact number). */
static void cycles_scnprintf(uint64_t v, char *buf, size_t size)
{
	static const char unit[] = "kMGTPE";
	double x = (double)v;
	int u = -1;

	if (v < 10000) {
		snprintf(buf, size, "%" PRIu64, v);
		return;
	}
	while (x >= 999.5 && u < 5) {
		x /= 1000;
		u++;
	}
	snprintf(buf, size, x < 9.995 ? "%.2f %c" : x < 99.95 ? "%.1f %c" : "%.0f %c", x, unit[u]);
}

/* The verdict (report__verdict, as --stdio and --json say it), and its
 * advice on the next rows, each wrapped. */
static void draw_verdict(const struct tui *t, const struct c2c_line *l, int *y, int cols)
{
	struct line_verdict v;
	char buf[1200];
	size_t n;

	report__verdict(t->r, l, &v);
	n = (size_t)snprintf(buf, sizeof(buf), " %s: %s", verdict__word(v.kind), v.why);
	for (size_t i = 1; i < n && verdict__is_finding(v.kind) && buf[i] != ':'; i++)
		buf[i] = (char)toupper((unsigned char)buf[i]);
	put_wrapped(y, cols, verdict__is_finding(v.kind) ? ST_WARN : ST_NORMAL, buf, 2);
	if (v.advice[0]) {
		struct line_gain g;

		report__gain(t->r, l, &g);
		n = (size_t)snprintf(buf, sizeof(buf), " %s", v.advice);
		if (g.known && n < sizeof(buf)) {
			char cyc[32];

			cycles_scnprintf(g.cycles, cyc, sizeof(cyc));
			snprintf(buf + n, sizeof(buf) - n, "; gain up to %s cycles (%.2f%%)", cyc, 100.0 * g.share);
		}
		/* the advice is the fix: it wraps rather than lose its end */
		put_wrapped(y, cols, ST_DIM, buf, ADVICE_LINES);
	}
	line_verdict__exit(&v);
}

/* Up to three tids of s after what: " written by 4243,4244 +2". */
static size_t tids_put(char *buf, size_t size, const char *what, const struct u32set *s)
{
	size_t n = 0;

	for (uint32_t k = 0; k < s->nr && k < 3 && n + 1 < size; k++)
		n += (size_t)snprintf(buf + n, size - n, "%s%u", k ? "," : what, u32set__data(s)[k]);
	if (s->nr > 3 && n + 1 < size)
		n += (size_t)snprintf(buf + n, size - n, " +%u", s->nr - 3);
	return n < size ? n : size - 1;
}

/* The layout's touched entries in one line, in words: "layout:
 * counters.produced (bytes 0-7) written by 4243, read by 4243 | ...". */
static void draw_layout(const struct tui *t, const struct c2c_line *l, int *y, int cols)
{
	struct layout_entry *e;
	size_t nr, n = 0;
	char buf[1024];

	nr = report__layout(t->r, l, &e);
	buf[0] = '\0';
	for (size_t i = 0; i < nr && n + 1 < sizeof(buf); i++) {
		if (!e[i].loads && !e[i].stores)
			continue;
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s (byte%s %u%s", n ? " | " : " layout: ",
				      e[i].kind == LAYOUT_NONE ? "no object known" : e[i].member,
				      e[i].size > 1 ? "s" : "", e[i].offset, e[i].size > 1 ? "-" : ")");
		if (e[i].size > 1 && n + 1 < sizeof(buf))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%u)", e[i].offset + e[i].size - 1);
		if (n + 1 < sizeof(buf))
			n += tids_put(buf + n, sizeof(buf) - n, " written by ", &e[i].writers);
		if (n + 1 < sizeof(buf))
			n += tids_put(buf + n, sizeof(buf) - n, e[i].writers.nr ? ", read by " : " read by ",
				      &e[i].readers);
	}
	layout__free(e, nr);
	if (buf[0])
		put_wrapped(y, cols, ST_DIM, buf, 2);
}

static void draw_strip(struct tui *t, const struct c2c_line *l, int *y, int cols)
{
	uint32_t size = report__line_size(t->r), sel = UINT32_MAX;
	struct byte_use *u;
	char buf[512];
	enum tui_style st;
	size_t cur;
	int bpb;

	if (size > STRIP_MAX) {
		snprintf(buf, sizeof(buf), " (a %u-byte line is too long for the byte strip)", size);
		term__put((*y)++, 0, cols, ST_DIM, buf);
		return;
	}
	if (browser__current(&t->line, &cur) && t->rows_of)
		sel = c2c_line__rows(t->rows_of)[cur].offset;
	u = xcalloc(size, sizeof(*u));
	for (size_t i = 0; i < l->nr_rows; i++) {
		const struct c2c_row *row = &c2c_line__rows(l)[i];

		if (row->offset >= size)
			continue;
		u[row->offset].loads += row->stats.load;
		u[row->offset].stores += row->stats.store;
		u[row->offset].accesses += row->stats.nr_entries;
		u32set__merge(&u[row->offset].tids, &row->tids);
	}
	bpb = strip_bytes_per_block(size, cols);
	for (uint32_t base = 0; base < size; base += bpb) {
		int yl = (*y)++, ya = (*y)++, yt = (*y)++, ym = (*y)++;

		term__put(ya, 0, 8, ST_NORMAL, " bytes");
		term__put(yt, 0, 8, ST_NORMAL, " threads");
		for (int i = 0; i < bpb && base + i < size; i++) {
			const struct byte_use *b = &u[base + i];
			const char *c = strip_char(b, &st);

			if (i % 8 == 0) {
				snprintf(buf, sizeof(buf), "0x%02x", base + i);
				term__put(yl, 9 + i, 8, ST_DIM, buf);
			}
			term__put(ya, 9 + i, 1, base + i == sel ? ST_MARK : st, c);
			if (b->tids.nr)
				snprintf(buf, sizeof(buf), "%c", b->tids.nr > 9 ? '+' : '0' + b->tids.nr);
			else
				snprintf(buf, sizeof(buf), "%s", term__utf8() ? "\u00b7" : ".");
			term__put(yt, 9 + i, 1, b->tids.nr ? ST_NORMAL : ST_DIM, buf);
			if (base + i == sel)
				term__put(ym, 9 + i, 1, ST_MARK, "^");
		}
		if (sel >= base && sel < base + bpb) {
			/* say what the caret points at, right of it or left of it */
			int x = 9 + (sel - base);

			snprintf(buf, sizeof(buf), "offset %#x", sel);
			if (x + 2 + term__width(buf) <= cols)
				term__put(ym, x + 2, cols - x - 2, ST_DIM, buf);
			else
				term__put(ym, x - 1 - term__width(buf), term__width(buf), ST_DIM, buf);
		}
	}
	draw_verdict(t, l, y, cols);
	draw_layout(t, l, y, cols);
	snprintf(buf, sizeof(buf), " W written  r read  X both  a accessed   rows per %s", coal_names[t->coal]);
	term__put((*y)++, 0, cols, ST_DIM, buf);
	for (uint32_t o = 0; o < size; o++)
		u32set__exit(&u[o].tids);
	free(u);
}

/* The heap objects under the line's rows (record --alloc), on one line. */
static void draw_heap(const struct tui *t, const struct c2c_line *l, int *y, int cols)
{
	struct line_heap_obj objs[8];
	size_t nr = report__line_heap(t->r, l, objs, ARRAY_SIZE(objs)), n;
	char buf[768], func[128], src[128];

	if (!nr)
		return;
	n = (size_t)snprintf(buf, sizeof(buf), " heap:");
	for (size_t i = 0; i < nr && n < sizeof(buf); i++) {
		const struct heap_obj *o = objs[i].obj;

		report__heap_site(t->r, o, SITE_UNKNOWN_ADDRESS, func, sizeof(func), src, sizeof(src));
		n += scnprintf(buf + n, sizeof(buf) - n, "%s %s%s (%" PRIu64 " B, %s, tid %u)", i ? " |" : "",
			       o->freed ? "freed " : "", func, o->size, report__alloc_fn(t->r, o->fn), o->tid);
	}
	term__put((*y)++, 0, cols, ST_NORMAL, buf);
}

static int line_top(void *priv, int cols)
{
	struct tui *t = priv;
	const struct c2c_line *l = report__lines(t->r)[t->idx];
	const struct c2c_counts *k = c2c_line__counts(l);
	const struct c2c_stats *all = report__totals(t->r);
	enum c2c_display mode;
	char key[128], buf[768];
	struct parts p;
	int y = 2;

	cl_key__scnprintf(&l->key, report__maps(t->r), key, sizeof(key));
	snprintf(buf, sizeof(buf), "line #%zu  %#" PRIx64 "  %s", t->idx, l->addr, key);
	draw_title(t, buf, line_object(l), cols);
	parts__init(&p, cols);
	mode = report__mode(t->r);
	/* the mode's metric, then the HITM split (after the HITM count when
	 * the metric is another); counters the recording cannot have
	 * (software events) are left out, as in the list's header */
	if (mode == C2C_DISPLAY_ALL)
		parts__add(&p, " samples %u", k->stats.nr_entries);
	else
		parts__add(&p, " %s %" PRIu64, c2c_display__name(mode), c2c_line__metric(l, mode));
	if (all->tot_hitm && (mode == C2C_DISPLAY_ALL || mode == C2C_DISPLAY_PEER))
		parts__add(&p, "  HITM %u", k->stats.tot_hitm);
	if (all->tot_hitm)
		parts__add(&p, " (lcl %u rmt %u)", k->stats.lcl_hitm, k->stats.rmt_hitm);
	if (all->st_hitm)
		parts__add(&p, "  store HITM %u", k->stats.st_hitm);
	if (all->load || all->store) {
		parts__add(&p, "  loads %u", k->stats.load);
		parts__add(&p, "  stores %u", k->stats.store);
	}
	parts__add(&p, "  pids %u", k->pids.nr);
	parts__add(&p, "  tids %u", k->tids.nr);
	parts__add(&p, "  cpus %u", k->cpus.nr);
	parts__add(&p, "  nodes %u", k->nodes.nr);
	term__put(1, 0, cols, ST_NORMAL, p.buf);
	/* the rows are named now, not when drawn after this: what naming
	 * finds wrong is in sight on the first screen */
	for (size_t i = 0; i < t->rows_of->nr_rows; i++) {
		struct row_names nm;

		report__row_names(t->r, t->rows_of, &c2c_line__rows(t->rows_of)[i], &nm);
	}
	y += draw_name_warning(t, y, cols);
	draw_strip(t, l, &y, cols);
	draw_heap(t, l, &y, cols);
	return y;
}

static void line_detail(void *priv, size_t e, int y, int cols)
{
	struct tui *t = priv;
	const struct c2c_row *row = &c2c_line__rows(t->rows_of)[e];
	char code[256] = "", src[512] = "", data[256] = "", buf[1600], itext[216] = "";
	struct row_names nm;
	struct insn_access insn;
	const struct data_loc *d = &nm.data;

	report__row_names(t->r, t->rows_of, row, &nm);
	if (t->coal == COALESCE_IADDR && nm.code_ok) {
		names__code_scnprintf(&nm.code, code, sizeof(code));
		names__source_scnprintf(&nm.code, true, src, sizeof(src));
	}
	if (nm.data_ok) {
		size_t n = names__data_scnprintf(d, data, sizeof(data));

		/* "char[8]" is element 8 of a char array: say so, with its size */
		if (d->member_size && n < sizeof(data))
			snprintf(data + n, sizeof(data) - n, " (%u-byte %s)", d->member_size,
				 n && data[n - 1] == ']' ? "element" : "member");
	}
	if (t->coal == COALESCE_IADDR && report__row_insn(t->r, row, &insn))
		snprintf(itext, sizeof(itext), "  [%s]", insn.text);
	snprintf(buf, sizeof(buf), " offset %#x  %s%s%s%s%s%s%s%s", row->offset, data, data[0] ? "  " : "",
		 t->coal == COALESCE_IADDR ? "" : "rows per ", t->coal == COALESCE_IADDR ? code : coal_names[t->coal],
		 src[0] ? " at " : "", src,
		 t->coal == COALESCE_IADDR && !code[0] && row->code_object ? row->code_object : "", itext);
	term__put(y, 0, cols, ST_DIM, buf);
}

static const struct browser_ops line_ops = {
	.nr_entries = line_nr,
	.nr_cols = line_nr_cols,
	.col = line_col,
	.cell = line_cell,
	.value = line_value,
	.match = line_match,
	.draw_top = line_top,
	.draw_detail = line_detail,
};

/* ---- the callers screen ---- */

static size_t callers_nr(void *priv)
{
	return ((struct tui *)priv)->nr_chains;
}

static size_t callers_nr_cols(void *priv)
{
	return 3;
}

static struct browser_col callers_col(void *priv, size_t c)
{
	static const struct browser_col cols[] = {
		{ "Samples", 8, SORT_DESC }, { "Share", 7, SORT_DESC }, { "Stack, innermost first", -400, SORT_NONE },
	};

	return cols[c];
}

static void callers_cell(void *priv, size_t e, size_t c, char *buf, size_t size)
{
	struct tui *t = priv;
	const struct report_chain *ch = &t->chains[e];

	if (c == 0)
		snprintf(buf, size, "%" PRIu64, ch->samples);
	else if (c == 1)
		snprintf(buf, size, "%.1f%%", t->chain_samples ? 100.0 * (double)ch->samples / (double)t->chain_samples : 0);
	else
		report_chain__scnprintf(ch, buf, size);
}

static void callers_value(void *priv, size_t e, size_t c, struct browser_value *out)
{
	struct tui *t = priv;

	if (c < 2)
		*out = (struct browser_value){ .kind = BV_UINT, .u = t->chains[e].samples };
}

static bool callers_match(void *priv, size_t e, const char *text)
{
	struct tui *t = priv;
	char buf[4096];

	report_chain__scnprintf(&t->chains[e], buf, sizeof(buf));
	return strcasestr(buf, text) != NULL;
}

static int callers_top(void *priv, int cols)
{
	struct tui *t = priv;
	struct row_names nm = { 0 };
	char code[256] = "", buf[512];

	report__row_names(t->r, t->rows_of, t->crow, &nm);
	if (nm.code_ok)
		names__code_scnprintf(&nm.code, code, sizeof(code));
	snprintf(buf, sizeof(buf), "callers of line #%zu offset %#x  %s", t->idx, t->crow->offset,
		 code[0] ? code : "");
	draw_title(t, buf, NULL, cols);
	snprintf(buf, sizeof(buf), " %" PRIu64 " sample%s with a stack, %zu distinct stack%s", t->chain_samples,
		 t->chain_samples == 1 ? "" : "s", t->nr_chains, t->nr_chains == 1 ? "" : "s");
	term__put(1, 0, cols, ST_NORMAL, buf);
	return 2;
}

/* The stack under the cursor whole, wrapped: the list cuts it at the
 * screen's edge, where the outer callers were lost. */
#define CALLERS_DETAIL_MAX 8

static int callers_detail_rows(void *priv, size_t e, int cols)
{
	struct tui *t = priv;
	char buf[4096];

	report_chain__scnprintf(&t->chains[e], buf, sizeof(buf));
	return wrapped_rows(cols, buf, CALLERS_DETAIL_MAX);
}

static void callers_detail(void *priv, size_t e, int y, int cols)
{
	struct tui *t = priv;
	char buf[4096];
	int room = term__rows() - 1 - y;

	report_chain__scnprintf(&t->chains[e], buf, sizeof(buf));
	/* the browser may give fewer rows than asked: the last one says so */
	put_wrapped(&y, cols, ST_DIM, buf, room < CALLERS_DETAIL_MAX ? room : CALLERS_DETAIL_MAX);
}

static const struct browser_ops callers_ops = {
	.nr_entries = callers_nr,
	.nr_cols = callers_nr_cols,
	.col = callers_col,
	.cell = callers_cell,
	.value = callers_value,
	.match = callers_match,
	.draw_top = callers_top,
	.draw_detail = callers_detail,
	.detail_rows = callers_detail_rows,
};

/* The row under the cursor's callers; false (and a message) when there are none. */
static bool open_callers(struct tui *t, size_t e)
{
	if (!report__call_graph(t->r) || t->coal != COALESCE_IADDR) {
		browser__message(&t->line, report__call_graph(t->r) ? "callers: rows per code address only (c)" :
				 "no call graphs: record with -g or --call-graph dwarf");
		return false;
	}
	t->crow = &c2c_line__rows(t->rows_of)[e];
	t->nr_chains = report__row_chains(t->r, t->rows_of, t->crow, &t->chains, &t->chain_samples);
	if (!t->nr_chains) {
		browser__message(&t->line, "this row's samples have no stack");
		return false;
	}
	t->callers.filter[0] = '\0';
	t->callers.cursor = t->callers.top = 0;
	browser__reset(&t->callers);
	t->screen = SCR_CALLERS;
	return true;
}

/* ---- the keys screen ---- */

static const struct {
	const char *key, *what;
} help_keys[] = {
	{ "Up Down j k", "move the cursor (the mouse wheel too)" },
	{ "PgUp PgDn", "a page up or down" },
	{ "Home End", "the first or the last entry" },
	{ "Enter Right", "open the line under the cursor: its offsets, byte strip" },
	{ "Enter Right", "on an offset: its callers (recordings with call graphs)" },
	{ "Esc Left q", "back to the lines; q on the lines quits" },
	{ "d", "display mode: tot, lcl, rmt (HITM), peer, all; re-ranks" },
	{ "s", "sort by the next numeric column; past the last: rank" },
	{ "S", "back to rank order" },
	{ "< >", "scroll the columns sideways (the first one stays)" },
	{ "/", "search: keep entries whose symbol, object, address or" },
	{ "", "any cell contains the text (no case); Esc clears it" },
	{ "n", "node view: NUMA nodes, then nodes{cpus}, then off" },
	{ "c", "offsets: rows per code address, offset, pid or tid" },
	{ "", "(pid and tid re-read the file once)" },
	{ "? F1", "this help" },
	{ "Ctrl-C", "quit (the terminal is restored)" },
	{ "", "" },
	{ "byte strip", "W written, r read, X both, a accessed (no data" },
	{ "", "source); below: threads per byte; ^ the cursor's offset" },
};

static size_t help_nr(void *priv)
{
	const struct tui *t = priv;

	return (t->nr_notice_rows ? t->nr_notice_rows + 1 : 0) + ARRAY_SIZE(help_keys);
}

static size_t help_nr_cols(void *priv)
{
	return 2;
}

static struct browser_col help_col(void *priv, size_t c)
{
	return c ? (struct browser_col){ "Action", -60, SORT_NONE } : (struct browser_col){ "Key", -12, SORT_NONE };
}

static void help_cell(void *priv, size_t e, size_t c, char *buf, size_t size)
{
	const struct tui *t = priv;
	size_t lead = t->nr_notice_rows ? t->nr_notice_rows + 1 : 0;

	if (e < lead)
		snprintf(buf, size, "%s", c ? (e < t->nr_notice_rows ? t->notice_rows[e] : "") : e ? "" : "events");
	else
		snprintf(buf, size, "%s", c ? help_keys[e - lead].what : help_keys[e - lead].key);
}

static int help_top(void *priv, int cols)
{
	draw_title(priv, "keys", NULL, cols);
	return 1;
}

static void help_detail(void *priv, size_t e, int y, int cols)
{
	term__put(y, 0, cols, ST_DIM, " man c2cscan-report: every column explained");
}

/* The notice of software events in rows of help's Action column: the
 * events line has it brief, help whole. */
static void notice_rows(struct tui *t)
{
	const char *s = report__notice(t->r);

	t->nr_notice_rows = 0;
	while (s && *s && t->nr_notice_rows < ARRAY_SIZE(t->notice_rows)) {
		size_t len = text_row(s, sizeof(t->notice_rows[0]) - 4);

		snprintf(t->notice_rows[t->nr_notice_rows++], sizeof(t->notice_rows[0]), "%.*s", (int)len, s);
		s += len;
		while (*s == ' ')
			s++;
	}
}

static const struct browser_ops help_ops = {
	.nr_entries = help_nr,
	.nr_cols = help_nr_cols,
	.col = help_col,
	.cell = help_cell,
	.draw_top = help_top,
	.draw_detail = help_detail,
};

/* ---- actions ---- */

static void update_total(struct tui *t)
{
	t->total = 0;
	for (size_t i = 0; i < report__nr_lines(t->r); i++)
		t->total += c2c_line__metric(report__lines(t->r)[i], report__mode(t->r));
}

static bool find_line(const struct c2c_line *const *lines, size_t n, const struct cl_key *key, size_t *idx)
{
	for (size_t i = 0; i < n; i++) {
		if (cl_key__equal(&lines[i]->key, key)) {
			*idx = i;
			return true;
		}
	}
	return false;
}

/* Points rows_of at the shown line in the model of the current grouping,
 * re-reading the file when that line was not regrouped that way yet. */
static bool bind_rows(struct tui *t, struct browser *b)
{
	size_t i;
	int ret;

	t->rows_of = NULL;
	if (t->coal == COALESCE_IADDR) {
		t->rows_of = report__lines(t->r)[t->idx];
		return true;
	}
	if (!t->cmodel || t->cby != t->coal || !cl_key__equal(&t->ckey, &t->key)) {
		c2c__delete(t->cmodel);
		browser__flash("re-reading the file to group the rows...");
		ret = report__regroup(t->r, t->coal, &t->key, &t->cmodel);
		t->ckey = t->key;
		t->cby = t->coal;
		t->clines = NULL;
		if (!t->cmodel) {
			browser__message(b, "cannot re-read the file to group the rows");
			return false;
		}
		t->cpartial = ret < 0;
	}
	if (t->cmode != report__mode(t->r) || !t->clines) {
		t->nr_clines = c2c__sort(t->cmodel, report__mode(t->r), true, &t->clines);
		t->cmode = report__mode(t->r);
	}
	if (!find_line(t->clines, t->nr_clines, &t->key, &i))
		return false;
	t->rows_of = t->clines[i];
	return true;
}

/* Binds the rows, falling back to rows per code address. */
static void bind_rows_or_iaddr(struct tui *t, struct browser *b)
{
	if (!bind_rows(t, b)) {
		t->coal = COALESCE_IADDR;
		bind_rows(t, b);
	}
}

static void open_line(struct tui *t, size_t idx)
{
	t->idx = idx;
	t->key = report__lines(t->r)[idx]->key;
	bind_rows_or_iaddr(t, &t->list);
	build_line_cols(t);
	t->line.filter[0] = '\0';
	t->line.cursor = t->line.top = 0;
	browser__reset(&t->line);
	t->screen = SCR_LINE;
}

/* Why the list of the display mode is empty, in the list's words. */
static void empty_why(struct tui *t)
{
	const struct c2c_stats *tot = report__totals(t->r);
	enum c2c_display m = report__mode(t->r);
	char why[512];

	t->list.empty[0] = '\0';
	if (report__nr_lines(t->r))
		return;
	if (report__empty_reason(t->r, why, sizeof(why)))
		snprintf(t->list.empty, sizeof(t->list.empty), "%s", why);
	else if (report__software_only(t->r) && m != C2C_DISPLAY_ALL)
		snprintf(t->list.empty, sizeof(t->list.empty), "display mode %s ranks by HITM, which software events "
			 "(page faults) do not have: mode all lists their lines (d)", c2c_display__name(m));
	else if (m == C2C_DISPLAY_PEER)
		snprintf(t->list.empty, sizeof(t->list.empty), "no peer load sampled (AMD IBS and Arm SPE record "
			 "them): d cycles the display modes");
	else if (m != C2C_DISPLAY_ALL)
		snprintf(t->list.empty, sizeof(t->list.empty), "no %s HITM sampled in %" PRIu64 " loads: no line is "
			 "contended in this mode; d cycles the display modes (all lists every line)",
			 m == C2C_DISPLAY_LCL ? "local" : m == C2C_DISPLAY_RMT ? "remote" : "", (uint64_t)tot->load);
	else
		snprintf(t->list.empty, sizeof(t->list.empty), "no line in this recording");
}

static void cycle_mode(struct tui *t)
{
	enum c2c_display next = (report__mode(t->r) + 1) % (C2C_DISPLAY_ALL + 1);
	size_t cur, idx;
	struct cl_key key;
	bool had = browser__current(&t->list, &cur);
	char msg[128];

	if (had)
		key = report__lines(t->r)[cur]->key;
	report__set_mode(t->r, next);
	update_total(t);
	build_list_cols(t);
	browser__reset(&t->list);
	empty_why(t);
	if (had && find_line(report__lines(t->r), report__nr_lines(t->r), &key, &idx))
		browser__seek(&t->list, idx);
	snprintf(msg, sizeof(msg), "display mode: %s (%zu lines)", c2c_display__name(next), report__nr_lines(t->r));
	browser__message(&t->list, msg);
	if (t->screen != SCR_LINE)
		return;
	if (!find_line(report__lines(t->r), report__nr_lines(t->r), &t->key, &idx)) {
		snprintf(msg, sizeof(msg), "display mode %s: the line has no %s, back to the lines",
			 c2c_display__name(next), c2c_display__name(next));
		browser__message(&t->list, msg);
		t->screen = SCR_LIST;
		return;
	}
	t->idx = idx;
	bind_rows_or_iaddr(t, &t->line);
	build_line_cols(t);
	browser__reset(&t->line);
	browser__message(&t->line, msg);
}

static void cycle_coalesce(struct tui *t)
{
	struct browser *b = t->screen == SCR_LINE ? &t->line : &t->list;
	char msg[160];

	t->coal = (t->coal + 1) % COALESCE__NR;
	if (t->screen == SCR_LINE) {
		bind_rows_or_iaddr(t, b);
		build_line_cols(t);
		browser__reset(&t->line);
	}
	snprintf(msg, sizeof(msg), "offsets: rows per %s%s", coal_names[t->coal],
		 t->coal != COALESCE_IADDR && t->cmodel && t->cpartial ? " (of the part of the file that reads)" : "");
	browser__message(b, msg);
}

static void cycle_nodes(struct tui *t)
{
	static const char *const what[] = { "node view off", "node view: nodes", "node view: nodes and their cpus" };

	t->node_view = (t->node_view + 1) % 3;
	build_list_cols(t);
	browser__reset(&t->list);
	if (t->screen == SCR_LINE) {
		build_line_cols(t);
		browser__reset(&t->line);
	}
	browser__message(t->screen == SCR_LINE ? &t->line : &t->list, what[t->node_view]);
}

static struct browser *current(struct tui *t)
{
	return t->screen == SCR_LIST ? &t->list : t->screen == SCR_LINE ? &t->line :
	       t->screen == SCR_CALLERS ? &t->callers : &t->help;
}

/* One key; false when the browser should end. */
static bool handle_key(struct tui *t, int key)
{
	struct browser *b = current(t);
	size_t e;

	if (key == K_QUIT_SIGNAL || key == K_SCRIPT_END)
		return false;
	if (key == K_RESIZE)
		return true;
	if (browser__key(b, key))
		return true;
	if (key == '?' || key == K_F1) {
		if (t->screen != SCR_HELP) {
			t->help_from = t->screen;
			t->screen = SCR_HELP;
		}
		return true;
	}
	switch (t->screen) {
	case SCR_HELP:
		if (key == 'q' || key == K_ESC || key == K_LEFT || key == K_ENTER)
			t->screen = t->help_from;
		return true;
	case SCR_LINE:
		if (key == 'q' || key == K_ESC || key == K_LEFT) {
			t->screen = SCR_LIST;
			return true;
		}
		if ((key == K_ENTER || key == K_RIGHT) && browser__current(b, &e)) {
			open_callers(t, e);
			return true;
		}
		break;
	case SCR_CALLERS:
		/* its rows live until the mode changes: nothing else here */
		if (key == 'q' || key == K_ESC || key == K_LEFT)
			t->screen = SCR_LINE;
		return true;
	case SCR_LIST:
		if (key == 'q')
			return false;
		if ((key == K_ENTER || key == K_RIGHT) && browser__current(b, &e)) {
			open_line(t, e);
			return true;
		}
		break;
	}
	switch (key) {
	case 'd':
		cycle_mode(t);
		break;
	case 'c':
		cycle_coalesce(t);
		break;
	case 'n':
		cycle_nodes(t);
		break;
	default:
		break;
	}
	return true;
}

int tui__browse(struct report *r, char *err, size_t errsize)
{
	struct tui t = { .r = r };
	int ret, sig;

	ret = term__init(err, errsize);
	if (ret < 0)
		return ret;
	update_total(&t);
	build_list_cols(&t);
	browser__init(&t.list, &list_ops, &t);
	t.list.fixed_cols = 1;
	t.list.keys = " Enter open  d mode  s sort  / search  n nodes  c group  ? help  q quit";
	browser__init(&t.line, &line_ops, &t);
	t.line.fixed_cols = 1;
	t.line.keys = report__call_graph(r) ? " Esc back  Enter callers  d mode  s sort  / search  c group rows  ? help" :
		      " Esc back  d mode  s sort  / search  c group rows  n nodes  ? help";
	browser__init(&t.callers, &callers_ops, &t);
	t.callers.fixed_cols = 2;
	t.callers.keys = " Esc back  s sort  / search  ? help";
	browser__init(&t.help, &help_ops, &t);
	t.help.keys = " Esc back";
	/* the notice of software events stays on the events line (brief) and
	 * in help: the status line keeps the keys */
	empty_why(&t);
	notice_rows(&t);
	/* the first line's rows named before the first screen: a binary not
	 * found there is said on it (draw_name_warning) */
	if (report__nr_lines(r)) {
		const struct c2c_line *first = report__lines(r)[0];

		for (size_t i = 0; i < first->nr_rows; i++) {
			struct row_names nm;

			report__row_names(r, first, &c2c_line__rows(first)[i], &nm);
		}
	}
	do {
		/* between keys only the shown line's rows are held */
		report__trim(r, t.rows_of);
		browser__draw(current(&t));
	} while (handle_key(&t, term__key()));
	sig = term__signal();
	term__exit();
	browser__exit(&t.list);
	browser__exit(&t.line);
	browser__exit(&t.callers);
	browser__exit(&t.help);
	c2c__delete(t.cmodel);
	return sig ? -EINTR : 0;
}
