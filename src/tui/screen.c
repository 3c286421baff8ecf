// SPDX-License-Identifier: GPL-2.0
/*
 * The browser (tui.c): the columns its lists show (columns.c's, placed by
 * the screen's width, and its own) and the drawing every screen uses:
 * titles, a row of parts that fits, wrapped text, the name warnings.
 */
#include <stdarg.h>
#include "tui/tui_int.h"

const char *const tui_coal_names[COALESCE__NR] = {
	[COALESCE_IADDR] = "code address", [COALESCE_OFFSET] = "offset",
	[COALESCE_PID] = "pid", [COALESCE_TID] = "tid",
};

const struct c2c_line *tui_line_at(const struct tui *t, size_t i)
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
void tui_build_list_cols(struct tui *t)
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
		if ((t->keys_uniform && (lc[i].traits & COL_KEY)) || line_column__hidden_wide(t->r, &lc[i]) ||
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

void tui_build_line_cols(struct tui *t)
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


/* ---- drawing ---- */

static const char *host_of(const struct report *r)
{
	const struct pd_info *in = report__info(r);

	return in->hostname ? in->hostname : "?";
}

/* Path s at (y, x) in w cells, its start cut when it is wider; left out
 * (0 cells) rather than cut into fewer than 12. */
int tui_put_path_or_none(int y, int x, int w, enum tui_style st, const char *s)
{
	if (term__width(s) > w && w < 12)
		return 0;
	return browser__put_path(y, x, w, st, s);
}

/* " c2cscan  WHAT  OBJECT   FILE (host)": what the screen shows whole,
 * then the object and the recording's file, paths cut from their start
 * (each left out rather than cut under 12 cells). */
void tui_draw_title(const struct tui *t, const char *what, const char *object, int cols)
{
	const char *base;
	char buf[512];
	int x, room;

	snprintf(buf, sizeof(buf), " c2cscan  %s", what);
	term__fill(0, 0, cols, ST_TITLE);
	x = term__put(0, 0, cols, ST_TITLE, buf);
	if (object && object[0]) {
		int n = tui_put_path_or_none(0, x + 2, cols - x - 2, ST_TITLE, object);

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

void tui_parts_init(struct parts *p, int cols)
{
	p->buf[0] = '\0';
	p->cols = cols;
	p->used = 0;
	p->full = false;
}

void __attribute__((format(printf, 2, 3))) tui_parts_add(struct parts *p, const char *fmt, ...)
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
int tui_draw_name_warning(const struct tui *t, int y, int cols)
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

/* A column value as the browser sorts it. */
void tui_to_browser_value(const struct col_value *v, struct browser_value *out)
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

void tui_put_wrapped(int *y, int cols, enum tui_style st, const char *text, int max_lines)
{
	wrap_text(y, cols, st, text, max_lines, true);
}

/* The rows put_wrapped would take. */
int tui_wrapped_rows(int cols, const char *text, int max_lines)
{
	int y = 0;

	return wrap_text(&y, cols, ST_NORMAL, text, max_lines, false);
}
