// SPDX-License-Identifier: GPL-2.0
/*
 * The browser's offsets screen (tui.c): one line's rows, with its verdict,
 * layout, byte strip and heap objects above them.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include "report/layout.h"
#include "report/verdict.h"
#include "tui/tui_int.h"

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
		tui_to_browser_value(&v, out);
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

/* The advice's rows at most: it wraps rather than lose the fix, what the
 * fix is predicted to leave, and the gain. */
#define ADVICE_LINES 4

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
	tui_put_wrapped(y, cols, verdict__is_finding(v.kind) ? ST_WARN : ST_NORMAL, buf, 2);
	if (v.advice[0]) {
		struct line_gain g;

		report__gain(t->r, l, &g);
		n = (size_t)snprintf(buf, sizeof(buf), " %s", v.advice);
		if (g.known && n < sizeof(buf)) {
			char cyc[32];

			si_scnprint(cyc, sizeof(cyc), g.cycles);
			snprintf(buf + n, sizeof(buf) - n, "; gain up to %s cycles (%.2f%%)", cyc, 100.0 * g.share);
		}
		/* the advice is the fix: it wraps rather than lose its end */
		tui_put_wrapped(y, cols, ST_DIM, buf, ADVICE_LINES);
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
		tui_put_wrapped(y, cols, ST_DIM, buf, 2);
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
	snprintf(buf, sizeof(buf), " W written  r read  X both  a accessed   rows per %s", tui_coal_names[t->coal]);
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
	tui_draw_title(t, buf, line_object(l), cols);
	tui_parts_init(&p, cols);
	mode = report__mode(t->r);
	/* the mode's metric, then the HITM split (after the HITM count when
	 * the metric is another); counters the recording cannot have
	 * (software events) are left out, as in the list's header */
	if (mode == C2C_DISPLAY_ALL)
		tui_parts_add(&p, " samples %u", k->stats.nr_entries);
	else
		tui_parts_add(&p, " %s %" PRIu64, c2c_display__name(mode), c2c_line__metric(l, mode));
	if (all->tot_hitm && (mode == C2C_DISPLAY_ALL || mode == C2C_DISPLAY_PEER))
		tui_parts_add(&p, "  HITM %u", k->stats.tot_hitm);
	if (all->tot_hitm)
		tui_parts_add(&p, " (lcl %u rmt %u)", k->stats.lcl_hitm, k->stats.rmt_hitm);
	if (all->st_hitm)
		tui_parts_add(&p, "  store HITM %u", k->stats.st_hitm);
	if (all->load || all->store) {
		tui_parts_add(&p, "  loads %" PRIu64, report__est(t->r, &k->stats, C2C_STAT_load));
		tui_parts_add(&p, "  stores %" PRIu64, report__est(t->r, &k->stats, C2C_STAT_store));
	}
	tui_parts_add(&p, "  pids %u", k->pids.nr);
	tui_parts_add(&p, "  tids %u", k->tids.nr);
	tui_parts_add(&p, "  cpus %u", k->cpus.nr);
	tui_parts_add(&p, "  nodes %u", k->nodes.nr);
	term__put(1, 0, cols, ST_NORMAL, p.buf);
	/* the rows are named now, not when drawn after this: what naming
	 * finds wrong is in sight on the first screen */
	for (size_t i = 0; i < t->rows_of->nr_rows; i++) {
		struct row_names nm;

		report__row_names(t->r, t->rows_of, &c2c_line__rows(t->rows_of)[i], &nm);
	}
	y += tui_draw_name_warning(t, y, cols);
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
		 t->coal == COALESCE_IADDR ? "" : "rows per ", t->coal == COALESCE_IADDR ? code : tui_coal_names[t->coal],
		 src[0] ? " at " : "", src,
		 t->coal == COALESCE_IADDR && !code[0] && row->code_object ? row->code_object : "", itext);
	term__put(y, 0, cols, ST_DIM, buf);
}

const struct browser_ops tui_line_ops = {
	.nr_entries = line_nr,
	.nr_cols = line_nr_cols,
	.col = line_col,
	.cell = line_cell,
	.value = line_value,
	.match = line_match,
	.draw_top = line_top,
	.draw_detail = line_detail,
};

