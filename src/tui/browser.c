// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "tui/browser.h"
#include "tui/term.h"

#define MIN_ROWS 8
#define MIN_COLS 30

void browser__init(struct browser *b, const struct browser_ops *ops, void *priv)
{
	zero_mem(b, sizeof(*b));
	b->ops = ops;
	b->priv = priv;
	b->sort_col = -1;
	b->rows_shown = 1;
	browser__reset(b);
}

void browser__exit(struct browser *b)
{
	free(b->order);
	b->order = NULL;
	b->nr = b->alloc = 0;
}

struct sort_key {
	struct browser_value v;
	size_t idx;
};

/* By value; cells without a number last, whatever the direction; ties in
 * the natural order. */
static int key_cmp(const struct sort_key *a, const struct sort_key *b, bool desc)
{
	const struct browser_value *x = &a->v, *y = &b->v;
	int c = 0;

	if ((x->kind == BV_NONE) != (y->kind == BV_NONE))
		return x->kind == BV_NONE ? 1 : -1;
	if (x->kind == BV_UINT && y->kind == BV_UINT)
		c = x->u < y->u ? -1 : x->u > y->u;
	else if (x->kind != BV_NONE) {
		double dx = x->kind == BV_REAL ? x->d : (double)x->u;
		double dy = y->kind == BV_REAL ? y->d : (double)y->u;

		c = dx < dy ? -1 : dx > dy;
	}
	if (c)
		return desc ? -c : c;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int cmp_desc(const void *pa, const void *pb)
{
	return key_cmp(pa, pb, true);
}

static int cmp_asc(const void *pa, const void *pb)
{
	return key_cmp(pa, pb, false);
}

static void sort_order(struct browser *b)
{
	struct browser_col col = b->ops->col(b->priv, b->sort_col);
	struct sort_key *k = xmalloc((b->nr ? b->nr : 1) * sizeof(*k));

	for (size_t i = 0; i < b->nr; i++) {
		k[i].v = (struct browser_value){ .kind = BV_NONE };
		if (b->ops->value)
			b->ops->value(b->priv, b->order[i], b->sort_col, &k[i].v);
		k[i].idx = b->order[i];
	}
	qsort(k, b->nr, sizeof(*k), col.sort == SORT_ASC ? cmp_asc : cmp_desc);
	for (size_t i = 0; i < b->nr; i++)
		b->order[i] = k[i].idx;
	free(k);
}

void browser__reset(struct browser *b)
{
	size_t n = b->ops->nr_entries(b->priv);

	if (n > b->alloc) {
		b->order = xrealloc(b->order, n, sizeof(*b->order));
		b->alloc = n;
	}
	b->nr = 0;
	for (size_t i = 0; i < n; i++)
		if (!b->filter[0] || b->ops->match(b->priv, i, b->filter))
			b->order[b->nr++] = i;
	if (b->sort_col >= 0 && (size_t)b->sort_col >= b->ops->nr_cols(b->priv))
		b->sort_col = -1;
	if (b->sort_col >= 0)
		sort_order(b);
	if (b->cursor >= b->nr)
		b->cursor = b->nr ? b->nr - 1 : 0;
	if (b->top > b->cursor)
		b->top = b->cursor;
	if (b->hscroll < b->fixed_cols)
		b->hscroll = b->fixed_cols;
}

bool browser__seek(struct browser *b, size_t entry)
{
	for (size_t i = 0; i < b->nr; i++) {
		if (b->order[i] == entry) {
			b->cursor = i;
			return true;
		}
	}
	return false;
}

bool browser__current(const struct browser *b, size_t *entry)
{
	if (b->cursor >= b->nr)
		return false;
	*entry = b->order[b->cursor];
	return true;
}

void browser__message(struct browser *b, const char *msg)
{
	snprintf(b->message, sizeof(b->message), "%s", msg);
}

void browser__flash(const char *msg)
{
	int y = term__rows() - 1;

	term__fill(y, 0, term__cols(), ST_STATUS);
	term__put(y, 0, term__cols(), ST_STATUS, msg);
	term__refresh();
}

const char *browser__sort_name(const struct browser *b, char *buf, size_t size)
{
	if (b->sort_col < 0)
		return NULL;
	snprintf(buf, size, "%s", b->ops->col(b->priv, b->sort_col).name);
	return buf;
}

/* ---- drawing ---- */

/* Columns shown: the fixed ones, then from hscroll while they fit; the
 * last shown one, if left aligned, takes the rest of the line. */
struct layout {
	size_t idx[64];
	int x[64], w[64];
	size_t n;
	size_t last_col;        /* the last column shown */
};

static void lay_out(struct browser *b, int cols, struct layout *lo)
{
	size_t nc = b->ops->nr_cols(b->priv);
	int x = 0;

	lo->n = 0;
	lo->last_col = 0;
	for (size_t c = 0; c < nc && lo->n < 64; c++) {
		struct browser_col col;
		int w;

		if (c >= b->fixed_cols && c < b->hscroll)
			continue;
		col = b->ops->col(b->priv, c);
		w = col.width < 0 ? -col.width : col.width;
		if (x + w > cols) {
			/* a left-aligned text column may be cut; a number may not */
			if (col.width > 0 || cols - x < 6)
				break;
			w = cols - x;
		}
		lo->idx[lo->n] = c;
		lo->x[lo->n] = x;
		lo->w[lo->n] = w;
		lo->n++;
		lo->last_col = c;
		x += w + 1;
	}
	if (lo->n) {
		size_t l = lo->n - 1;

		if (b->ops->col(b->priv, lo->idx[l]).width < 0 && lo->x[l] + lo->w[l] < cols)
			lo->w[l] = cols - lo->x[l];
	}
}

int browser__put_cut(int y, int x, int w, enum tui_style st, const char *s, bool keep_end)
{
	const char *tail = s + strlen(s);

	if (term__width(s) <= w || w < 2)
		return term__put(y, x, w, st, s);
	if (!keep_end) {
		/* cut, and say so in the last cell */
		term__put(y, x, w - 1, st, s);
		return 1 + term__put(y, x + w - 1, 1, st, term__ellipsis());
	}
	while (tail > s && term__width(tail) < w - 1)
		tail--;
	while ((*tail & 0xc0) == 0x80)
		tail++;
	term__put(y, x, 1, st, term__ellipsis());
	return 1 + term__put(y, x + 1, w - 1, st, tail);
}

int browser__put_path(int y, int x, int w, enum tui_style st, const char *s)
{
	/* a path's end names the file, so its start goes */
	return browser__put_cut(y, x, w, st, s, s[0] == '/');
}

static void put_cell(int y, int x, int w, int width, enum tui_style st, const char *s)
{
	int tw = term__width(s);

	if (width > 0 && tw <= w) {
		term__put(y, x + w - tw, tw, st, s);
		return;
	}
	browser__put_path(y, x, w, st, s);
}

static void draw_status(struct browser *b, int y, int cols)
{
	char right[256], sort[64];
	int rw;

	term__fill(y, 0, cols, ST_STATUS);
	if (b->prompting) {
		char p[200];

		snprintf(p, sizeof(p), "Search (symbol, object, address): %s_", b->prompt);
		term__put(y, 0, cols, ST_STATUS, p);
		return;
	}
	if (b->message[0]) {
		term__put(y, 0, cols, ST_STATUS, b->message);
		b->message[0] = '\0';
		return;
	}
	snprintf(right, sizeof(right), " %zu/%zu%s%s%s%s ", b->nr ? b->cursor + 1 : 0, b->nr,
		 browser__sort_name(b, sort, sizeof(sort)) ? "  sort:" : "", b->sort_col >= 0 ? sort : "",
		 b->filter[0] ? "  /" : "", b->filter);
	rw = term__width(right);
	term__put(y, 0, cols - rw > 0 ? cols - rw : 0, ST_STATUS, b->keys ? b->keys : "");
	if (rw < cols)
		term__put(y, cols - rw, rw, ST_STATUS, right);
}

void browser__draw(struct browser *b)
{
	int rows = term__rows(), cols = term__cols();
	struct layout lo;
	int ytop, yhead, nrows, dr;
	char buf[512];

	term__clear();
	if (rows < MIN_ROWS || cols < MIN_COLS) {
		snprintf(buf, sizeof(buf), "too small: %dx%d (need %dx%d)", cols, rows, MIN_COLS, MIN_ROWS);
		term__put(0, 0, cols, ST_WARN, buf);
		term__refresh();
		return;
	}
	ytop = b->ops->draw_top(b->priv, cols);
	if (ytop > rows - 5)
		ytop = rows - 5;
	yhead = ytop;
	/* the detail of the entry under the cursor, above the status line */
	dr = 1;
	if (b->nr && b->ops->detail_rows && b->cursor < b->nr) {
		dr = b->ops->detail_rows(b->priv, b->order[b->cursor], cols);
		dr = dr < 1 ? 1 : dr > (rows - yhead - 3) / 3 ? ((rows - yhead - 3) / 3 > 1 ? (rows - yhead - 3) / 3 : 1) : dr;
	}
	nrows = rows - yhead - 2 - dr;
	b->rows_shown = nrows;
	if (b->cursor < b->top)
		b->top = b->cursor;
	if (b->cursor >= b->top + nrows)
		b->top = b->cursor - nrows + 1;

	lay_out(b, cols, &lo);
	b->last_shown = lo.last_col;
	term__fill(yhead, 0, cols, ST_HEADER);
	for (size_t i = 0; i < lo.n; i++) {
		struct browser_col col = b->ops->col(b->priv, lo.idx[i]);

		put_cell(yhead, lo.x[i], lo.w[i], col.width,
			 (int)lo.idx[i] == b->sort_col ? ST_MARK : ST_HEADER, col.name);
	}
	if (b->hscroll > b->fixed_cols || lo.last_col + 1 < b->ops->nr_cols(b->priv)) {
		/* there are more columns: say which way */
		snprintf(buf, sizeof(buf), "%s%s", b->hscroll > b->fixed_cols ? "<" : " ",
			 lo.last_col + 1 < b->ops->nr_cols(b->priv) ? ">" : " ");
		term__put(yhead, cols - 2, 2, ST_HEADER, buf);
	}
	for (int i = 0; i < nrows && b->top + i < b->nr; i++) {
		size_t e = b->order[b->top + i];
		bool sel = b->top + i == b->cursor;
		enum tui_style st = sel ? ST_SELECTED : ST_NORMAL;
		int y = yhead + 1 + i;

		if (sel)
			term__fill(y, 0, cols, ST_SELECTED);
		for (size_t k = 0; k < lo.n; k++) {
			struct browser_col col = b->ops->col(b->priv, lo.idx[k]);

			b->ops->cell(b->priv, e, lo.idx[k], buf, sizeof(buf));
			put_cell(y, lo.x[k], lo.w[k], col.width, st, buf);
		}
	}
	if (!b->nr) {
		if (b->filter[0])
			snprintf(buf, sizeof(buf), "nothing matches '%s' (Esc clears the search)", b->filter);
		else
			snprintf(buf, sizeof(buf), "%s", b->empty[0] ? b->empty : "nothing to show");
		term__put(yhead + 1, 1, cols - 1, ST_DIM, buf);
	} else {
		b->ops->draw_detail(b->priv, b->order[b->cursor], rows - 1 - dr, cols);
	}
	draw_status(b, rows - 1, cols);
	term__refresh();
}

/* ---- keys ---- */

static void move_cursor(struct browser *b, long delta)
{
	long c = (long)b->cursor + delta;

	if (!b->nr)
		return;
	if (c < 0)
		c = 0;
	if ((size_t)c >= b->nr)
		c = b->nr - 1;
	b->cursor = c;
}

static void next_sort(struct browser *b)
{
	size_t nc = b->ops->nr_cols(b->priv);

	for (size_t c = b->sort_col + 1; c < nc; c++) {
		if (b->ops->col(b->priv, c).sort != SORT_NONE) {
			b->sort_col = c;
			browser__reset(b);
			return;
		}
	}
	b->sort_col = -1;
	browser__reset(b);
}

static bool prompt_key(struct browser *b, int key)
{
	size_t n = strlen(b->prompt);

	switch (key) {
	case K_ENTER:
		b->prompting = false;
		snprintf(b->filter, sizeof(b->filter), "%s", b->prompt);
		b->cursor = b->top = 0;
		browser__reset(b);
		break;
	case K_ESC:
		b->prompting = false;
		break;
	case K_BACKSPACE:
		if (n)
			b->prompt[n - 1] = '\0';
		break;
	default:
		if (key >= 0x20 && key < 0x7f && n + 1 < sizeof(b->prompt)) {
			b->prompt[n] = key;
			b->prompt[n + 1] = '\0';
		}
		break;
	}
	return true;
}

bool browser__key(struct browser *b, int key)
{
	int page = b->rows_shown > 1 ? b->rows_shown - 1 : 1;

	if (b->prompting && key != K_RESIZE && key != K_QUIT_SIGNAL && key != K_SCRIPT_END)
		return prompt_key(b, key);
	switch (key) {
	case K_UP: case 'k':
		move_cursor(b, -1);
		return true;
	case K_DOWN: case 'j':
		move_cursor(b, 1);
		return true;
	case K_WHEEL_UP:
		move_cursor(b, -3);
		return true;
	case K_WHEEL_DOWN:
		move_cursor(b, 3);
		return true;
	case K_PGUP:
		move_cursor(b, -page);
		if (b->top > (size_t)page)
			b->top -= page;
		else
			b->top = 0;
		return true;
	case K_PGDN:
		move_cursor(b, page);
		b->top += page;
		if (b->top > b->cursor)
			b->top = b->cursor;
		return true;
	case K_HOME:
		b->cursor = b->top = 0;
		return true;
	case K_END:
		move_cursor(b, (long)b->nr);
		return true;
	case 's':
		next_sort(b);
		return true;
	case 'S':
		b->sort_col = -1;
		browser__reset(b);
		return true;
	case '>':
		if (b->last_shown + 1 < b->ops->nr_cols(b->priv))
			b->hscroll++;
		return true;
	case '<':
		if (b->hscroll > b->fixed_cols)
			b->hscroll--;
		return true;
	case '/':
		if (!b->ops->match)
			return false;
		b->prompting = true;
		snprintf(b->prompt, sizeof(b->prompt), "%s", b->filter);
		return true;
	case K_ESC:
		if (!b->filter[0])
			return false;
		b->filter[0] = '\0';
		browser__reset(b);
		return true;
	default:
		return false;
	}
}
