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
#include <errno.h>
#include <inttypes.h>
#include "report/callchain.h"
#include "report/latent.h"
#include "tui/tui.h"
#include "tui/tui_int.h"

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
	const struct c2c_line *l = tui_line_at(t, e);
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
		v = line_columns(t->r, &nr)[tc->i].get(t->r, tui_line_at(t, e), t->total, buf, sizeof(buf));
		tui_to_browser_value(&v, out);
	}
}

static bool list_match(void *priv, size_t e, const char *text)
{
	struct tui *t = priv;
	const struct c2c_line *l = tui_line_at(t, e);
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

/* A header line of parts, each whole or left out: a number cut at the
 * screen's edge reads as another number ("loads 1" for 1499881). Parts
 * come most important first; the first that does not fit ends the line. */

static int list_top(void *priv, int cols)
{
	struct tui *t = priv;
	const struct c2c_stats *s = report__totals(t->r);
	struct parts p;
	char key[128];

	tui_draw_title(t, "cachelines", NULL, cols);
	tui_parts_init(&p, cols);
	for (size_t i = 0; i < report__nr_events(t->r); i++)
		tui_parts_add(&p, "%s%s %" PRIu64, i ? ", " : " events: ", report__event(t->r, i)->name,
			   report__event(t->r, i)->samples);
	/* what such a recording cannot show stays in sight, not only in the
	 * first screen's status line */
	if (report__notice_brief(t->r))
		tui_parts_add(&p, ": %s", report__notice_brief(t->r));
	term__put(1, 0, cols, ST_NORMAL, p.buf);
	tui_parts_init(&p, cols);
	tui_parts_add(&p, " display %s: %zu lines", c2c_display__name(report__mode(t->r)), report__nr_lines(t->r));
	if (report__partial(t->r))
		tui_parts_add(&p, "  PARTIAL (see --stdio)");
	if (t->keys_uniform) {
		/* the Key column is gone: its one value, once */
		cl_key__scnprintf(&report__lines(t->r)[0]->key, report__maps(t->r), key, sizeof(key));
		tui_parts_add(&p, ", %s", key);
	}
	/* a recording without HITM or peer says nothing of them */
	if (s->tot_hitm || s->lcl_peer + s->rmt_peer || s->load || s->store) {
		tui_parts_add(&p, "  HITM %u", s->tot_hitm);
		tui_parts_add(&p, " (lcl %u rmt %u)", s->lcl_hitm, s->rmt_hitm);
		if (s->st_hitm)
			tui_parts_add(&p, "  store HITM %u", s->st_hitm);
		tui_parts_add(&p, "  peer %u", s->lcl_peer + s->rmt_peer);
		tui_parts_add(&p, "  loads %u", s->load);
		tui_parts_add(&p, "  stores %u", s->store);
	}
	term__put(2, 0, cols, report__partial(t->r) ? ST_WARN : ST_NORMAL, p.buf);
	return 3 + tui_draw_name_warning(t, 3, cols);
}

static void list_detail(void *priv, size_t e, int y, int cols)
{
	struct tui *t = priv;
	const struct c2c_line *l = tui_line_at(t, e);
	char key[128], data[256] = "", buf[768];
	struct data_loc d;
	int x;

	cl_key__scnprintf(&l->key, report__maps(t->r), key, sizeof(key));
	if (line_data_symbol(t->r, l, &d))
		names__data_scnprintf(&d, data, sizeof(data));
	snprintf(buf, sizeof(buf), " %s  %s%s", key, data, data[0] ? "  in " : "");
	x = term__put(y, 0, cols, ST_DIM, buf);
	/* the object's path loses its start, not its file name */
	tui_put_path_or_none(y, x, cols - x, ST_DIM, line_object(l));
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
	tui_draw_title(t, buf, NULL, cols);
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
	return tui_wrapped_rows(cols, buf, CALLERS_DETAIL_MAX);
}

static void callers_detail(void *priv, size_t e, int y, int cols)
{
	struct tui *t = priv;
	char buf[4096];
	int room = term__rows() - 1 - y;

	report_chain__scnprintf(&t->chains[e], buf, sizeof(buf));
	/* the browser may give fewer rows than asked: the last one says so */
	tui_put_wrapped(&y, cols, ST_DIM, buf, room < CALLERS_DETAIL_MAX ? room : CALLERS_DETAIL_MAX);
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

/* ---- the latent screen: latent false sharing (report/latent.h) ---- */

/* Pair e of the report's. */
static const struct latent *latent_at(const struct tui *t, size_t e)
{
	const struct latent *l;

	report__latent(t->r, &l);
	return &l[e];
}

/* The fewer store samples of a pair's two lines: the Stores column. */
static uint64_t latent_stores(const struct latent *l)
{
	return l->stores_a < l->stores_b ? l->stores_a : l->stores_b;
}

static size_t latent_nr(void *priv)
{
	const struct tui *t = priv;
	const struct latent *l;

	return report__latent(t->r, &l);
}

static size_t latent_nr_cols(void *priv)
{
	return 6;
}

static struct browser_col latent_col(void *priv, size_t c)
{
	static const struct browser_col cols[] = {
		{ "Apart", 6, SORT_ASC }, { "First", -32, SORT_NONE }, { "Tid", 8, SORT_ASC },
		{ "Second", -32, SORT_NONE }, { "Tid", 8, SORT_ASC }, { "Stores", 8, SORT_DESC },
	};

	return cols[c];
}

static void latent_cell(void *priv, size_t e, size_t c, char *buf, size_t size)
{
	const struct tui *t = priv;
	const struct latent *l = latent_at(t, e);

	switch (c) {
	case 0:
		snprintf(buf, size, "%u", l->apart);
		break;
	case 1:
	case 3:
		latent__name(t->r, l, c == 3, buf, size);
		break;
	case 2:
	case 4:
		snprintf(buf, size, "%u", c == 2 ? l->tid_a : l->tid_b);
		break;
	default:
		snprintf(buf, size, "%" PRIu64, latent_stores(l));
		break;
	}
}

static void latent_value(void *priv, size_t e, size_t c, struct browser_value *out)
{
	const struct latent *l = latent_at(priv, e);

	if (c == 0 || c == 2 || c == 4 || c == 5)
		*out = (struct browser_value){ .kind = BV_UINT, .u = c == 0 ? l->apart : c == 2 ? l->tid_a :
					       c == 4 ? l->tid_b : latent_stores(l) };
}

static bool latent_match(void *priv, size_t e, const char *text)
{
	const struct tui *t = priv;
	char buf[768];

	latent__scnprintf(t->r, latent_at(t, e), buf, sizeof(buf));
	return strcasestr(buf, text) != NULL;
}

static int latent_top(void *priv, int cols)
{
	tui_draw_title(priv, "latent false sharing: no contention today, each line one thread's", NULL, cols);
	term__put(1, 0, cols, ST_NORMAL, " data of two threads within a line of each other across a line boundary, "
		  "or in one 128-byte block");
	return 2;
}

#define LATENT_DETAIL_MAX 4

static int latent_detail_rows(void *priv, size_t e, int cols)
{
	const struct tui *t = priv;
	char buf[768];

	latent__scnprintf(t->r, latent_at(t, e), buf, sizeof(buf));
	return tui_wrapped_rows(cols, buf, LATENT_DETAIL_MAX);
}

static void latent_detail(void *priv, size_t e, int y, int cols)
{
	const struct tui *t = priv;
	char buf[768];
	int room = term__rows() - 1 - y;

	latent__scnprintf(t->r, latent_at(t, e), buf, sizeof(buf));
	tui_put_wrapped(&y, cols, ST_DIM, buf, room < LATENT_DETAIL_MAX ? room : LATENT_DETAIL_MAX);
}

static const struct browser_ops latent_ops = {
	.nr_entries = latent_nr,
	.nr_cols = latent_nr_cols,
	.col = latent_col,
	.cell = latent_cell,
	.value = latent_value,
	.match = latent_match,
	.draw_top = latent_top,
	.draw_detail = latent_detail,
	.detail_rows = latent_detail_rows,
};

/* The latent screen; false (and a message) when there is nothing to show. */
static bool open_latent(struct tui *t)
{
	if (!latent_nr(t)) {
		browser__message(&t->list, "no latent false sharing: no two adjacent lines of one thread each");
		return false;
	}
	t->screen = SCR_LATENT;
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
	{ "L", "on the lines: latent false sharing (none today)" },
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
	tui_draw_title(priv, "keys", NULL, cols);
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
		t->total += report__share_line(t->r, report__lines(t->r)[i]);
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
	tui_build_line_cols(t);
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
	tui_build_list_cols(t);
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
	tui_build_line_cols(t);
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
		tui_build_line_cols(t);
		browser__reset(&t->line);
	}
	snprintf(msg, sizeof(msg), "offsets: rows per %s%s", tui_coal_names[t->coal],
		 t->coal != COALESCE_IADDR && t->cmodel && t->cpartial ? " (of the part of the file that reads)" : "");
	browser__message(b, msg);
}

static void cycle_nodes(struct tui *t)
{
	static const char *const what[] = { "node view off", "node view: nodes", "node view: nodes and their cpus" };

	t->node_view = (t->node_view + 1) % 3;
	tui_build_list_cols(t);
	browser__reset(&t->list);
	if (t->screen == SCR_LINE) {
		tui_build_line_cols(t);
		browser__reset(&t->line);
	}
	browser__message(t->screen == SCR_LINE ? &t->line : &t->list, what[t->node_view]);
}

static struct browser *current(struct tui *t)
{
	return t->screen == SCR_LIST ? &t->list : t->screen == SCR_LINE ? &t->line :
	       t->screen == SCR_CALLERS ? &t->callers : t->screen == SCR_LATENT ? &t->latent : &t->help;
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
	case SCR_LATENT:
		if (key == 'q' || key == K_ESC || key == K_LEFT)
			t->screen = SCR_LIST;
		return true;
	case SCR_LIST:
		if (key == 'q')
			return false;
		if ((key == K_ENTER || key == K_RIGHT) && browser__current(b, &e)) {
			open_line(t, e);
			return true;
		}
		if (key == 'L') {
			open_latent(t);
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

int tui__browse(struct report *r, struct tui_error *err)
{
	struct tui t = { .r = r };
	int ret, sig;

	ret = term__init(err);
	if (ret < 0)
		return ret;
	update_total(&t);
	tui_build_list_cols(&t);
	browser__init(&t.list, &list_ops, &t);
	t.list.fixed_cols = 1;
	t.list.keys = latent_nr(&t) ? " Enter open  d mode  s sort  / search  n nodes  c group  L latent  ? help  q quit" :
		      " Enter open  d mode  s sort  / search  n nodes  c group  ? help  q quit";
	browser__init(&t.line, &tui_line_ops, &t);
	t.line.fixed_cols = 1;
	t.line.keys = report__call_graph(r) ? " Esc back  Enter callers  d mode  s sort  / search  c group rows  ? help" :
		      " Esc back  d mode  s sort  / search  c group rows  n nodes  ? help";
	browser__init(&t.callers, &callers_ops, &t);
	t.callers.fixed_cols = 2;
	t.callers.keys = " Esc back  s sort  / search  ? help";
	browser__init(&t.latent, &latent_ops, &t);
	t.latent.keys = " Esc back  s sort  / search  ? help";
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
	browser__exit(&t.latent);
	browser__exit(&t.help);
	c2c__delete(t.cmodel);
	return sig ? -EINTR : 0;
}
