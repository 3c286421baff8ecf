// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "report/columns.h"
#include "report/report_int.h"
#include "report/verdict.h"
#include "util/util.h"

size_t nodes__scnprintf(const struct report *r, const struct u32set *nodes, const struct u32set *cpus,
			bool with_cpus, char *buf, size_t size)
{
	const struct pd_info *info = report__info(r);
	size_t n = size ? scnprintf(buf, size, "%s", "") : 0;

	for (uint32_t i = 0; i < nodes->nr && n + 1 < size; i++) {
		int32_t node = (int32_t)u32set__data(nodes)[i];
		bool first = true;

		n += node < 0 ? scnprintf(buf + n, size - n, "%s?", i ? " " : "") :
				scnprintf(buf + n, size - n, "%s%d", i ? " " : "", node);
		if (!with_cpus)
			continue;
		n += scnprintf(buf + n, size - n, "{");
		for (uint32_t k = 0; k < cpus->nr && n + 1 < size; k++) {
			uint32_t cpu = u32set__data(cpus)[k];
			int32_t cn = info->cpu_node && cpu < info->nr_cpu_node ? info->cpu_node[cpu] : -1;

			if (cn != node)
				continue;
			n += scnprintf(buf + n, size - n, "%s%u", first ? "" : ",", cpu);
			first = false;
		}
		n += scnprintf(buf + n, size - n, "}");
	}
	return n;
}

uint64_t lat_mean(uint64_t sum, uint32_t cnt)
{
	return cnt ? (sum + cnt / 2) / cnt : 0;
}

size_t col_value__scnprintf(const struct col_value *v, char *buf, size_t size)
{
	switch (v->type) {
	case COL_COUNT:
		return u64_scnprint(buf, size, v->u);
	case COL_HEX:
		return hex_scnprint(buf, size, v->u);
	case COL_PERCENT: {
		size_t n = fixed_scnprint(buf, size, v->pct, v->decimals);

		if (n + 1 < size) {
			buf[n++] = '%';
			buf[n] = '\0';
		}
		return n;
	}
	default:                /* COL_TEXT: already in buf */
		return size ? strlen(buf) : 0;
	}
}

int col_value__cmp(const struct col_value *a, const struct col_value *b)
{
	bool an = a->type != COL_TEXT, bn = b->type != COL_TEXT;

	if (an != bn)
		return an ? -1 : 1;     /* numbers before text */
	if (!an)
		return 0;
	if (a->type == COL_PERCENT || b->type == COL_PERCENT) {
		double x = a->type == COL_PERCENT ? a->pct : (double)a->u;
		double y = b->type == COL_PERCENT ? b->pct : (double)b->u;

		return x < y ? -1 : x > y;
	}
	return a->u < b->u ? -1 : a->u > b->u;
}

size_t line_column__cell(const struct line_column *c, const struct report *r, const struct c2c_line *l,
			 uint64_t total, char *buf, size_t size)
{
	struct col_value v;

	if (!size)
		return 0;
	buf[0] = '\0';
	v = c->get(r, l, total, buf, size);
	return col_value__scnprintf(&v, buf, size);
}

size_t row_column__cell(const struct row_column *c, const struct report *r, const struct c2c_line *l,
			const struct c2c_row *row, char *buf, size_t size)
{
	struct col_value v;

	if (!size)
		return 0;
	buf[0] = '\0';
	v = c->get(r, l, row, buf, size);
	return col_value__scnprintf(&v, buf, size);
}

static struct col_value count(uint64_t u)
{
	return (struct col_value){ .type = COL_COUNT, .u = u };
}

static struct col_value hex(uint64_t u)
{
	return (struct col_value){ .type = COL_HEX, .u = u };
}

static struct col_value percent(uint64_t part, uint64_t total, int decimals)
{
	return (struct col_value){ .type = COL_PERCENT, .pct = total ? 100.0 * part / total : 0.0,
				   .decimals = (uint8_t)decimals };
}

static const struct col_value text = { .type = COL_TEXT };

#define U32FMT(fn, expr)                                                                          \
	static struct col_value fn(const struct report *r, const struct c2c_line *l, uint64_t total, \
				   char *buf, size_t size)                                       \
	{                                                                                         \
		return count((uint64_t)(expr));                                                   \
	}

U32FMT(col_tot_hitm, c2c_line__counts(l)->stats.tot_hitm)
U32FMT(col_lcl_hitm, c2c_line__counts(l)->stats.lcl_hitm)
U32FMT(col_rmt_hitm, c2c_line__counts(l)->stats.rmt_hitm)
U32FMT(col_st_hitm, c2c_line__counts(l)->stats.st_hitm)
U32FMT(col_lcl_peer, c2c_line__counts(l)->stats.lcl_peer)
U32FMT(col_rmt_peer, c2c_line__counts(l)->stats.rmt_peer)
U32FMT(col_access, report__est(r, &c2c_line__counts(l)->stats, C2C_STAT_nr_entries))
U32FMT(col_loads, report__est(r, &c2c_line__counts(l)->stats, C2C_STAT_load))
U32FMT(col_stores, report__est(r, &c2c_line__counts(l)->stats, C2C_STAT_store))
U32FMT(col_st_l1miss, report__est(r, &c2c_line__counts(l)->stats, C2C_STAT_st_l1miss))
U32FMT(col_hitm_lat, lat_mean(c2c_line__counts(l)->lat.hitm_sum, c2c_line__counts(l)->lat.hitm_cnt))
U32FMT(col_pids, c2c_line__counts(l)->pids.nr)
U32FMT(col_tids, c2c_line__counts(l)->tids.nr)
U32FMT(col_cpus, c2c_line__counts(l)->cpus.nr)
U32FMT(col_nodes, c2c_line__counts(l)->nodes.nr)

static struct col_value col_share(const struct report *r, const struct c2c_line *l, uint64_t total, char *buf,
				  size_t size)
{
	return percent(report__share_line(r, l), total, 2);
}

/* What a fix could save at most (verdict.c), in cycles: what --sort gain
 * orders by. */
static struct col_value col_gain(const struct report *r, const struct c2c_line *l, uint64_t total, char *buf,
				 size_t size)
{
	struct line_gain g;

	report__gain(r, l, &g);
	return count(g.cycles);
}

/* The line's verdict (verdict.c), as its detail says it. */
static struct col_value col_verdict(const struct report *r, const struct c2c_line *l, uint64_t total, char *buf,
				    size_t size)
{
	struct line_verdict v;

	report__verdict(r, l, &v);
	scnprintf(buf, size, "%s", verdict__word(v.kind));
	line_verdict__exit(&v);
	return text;
}

static struct col_value col_addr(const struct report *r, const struct c2c_line *l, uint64_t total, char *buf,
				 size_t size)
{
	return hex(l->addr);
}

static struct col_value col_key(const struct report *r, const struct c2c_line *l, uint64_t total, char *buf,
				size_t size)
{
	cl_key__scnprintf(&l->key, r->maps, buf, size);
	return text;
}

/* The data symbol the line's hottest offset is in, and the object: "counters (prog)". */
static struct col_value col_object(const struct report *r, const struct c2c_line *l, uint64_t total,
				   char *buf, size_t size)
{
	struct data_loc d;

	const struct c2c_row *row = hottest_row(r, l);
	struct heap_ref h;
	char func[128], src[128];

	if (line_data_symbol(r, l, &d)) {
		snprintf(buf, size, "%s (%s)", d.sym, object_base_name(d.object ? d.object : line_object(l)));
	} else if (row && report__row_heap(r, l, row, &h)) {
		/* a heap object: its allocation site */
		report__heap_site(r, h.obj, SITE_UNKNOWN_EMPTY, func, sizeof(func), src, sizeof(src));
		snprintf(buf, size, "%s%s (heap)", report__heap_state(&h), func[0] ? func : "?");
	} else {
		snprintf(buf, size, "%s", line_object(l));
	}
	return text;
}

/* Each column once, with its traits (the tables below compose them): name,
 * width, value, traits, --stdio's spare order, the browser's rank. The
 * widths add up to <= 160 columns with the index; Object goes last because
 * it is the one that may be long. */
#define LC_ADDR { "Address", -18, col_addr, 0, 0, 1 }
#define LC_OBJECT { "Object", -24, col_object, COL_OBJECT, 0, 2 }
#define LC_SHARE { "Share", 7, col_share, 0, 0, 3 }
#define LC_GAIN { "Gain", 10, col_gain, COL_WIDE, 0, 4 }
#define LC_VERDICT { "Verdict", -22, col_verdict, COL_WIDE, 0, 10 }
#define LC_ACCESS { "Access", 7, col_access, COL_GROWS, 0, 5 }
#define LC_TOT_HITM { "TotHitm", 7, col_tot_hitm, COL_MEM, 0, 6 }
#define LC_LCL_HITM { "LclHitm", 7, col_lcl_hitm, COL_MEM, 0, 7 }
#define LC_RMT_HITM { "RmtHitm", 7, col_rmt_hitm, COL_MEM, 0, 8 }
#define LC_ST_HITM { "StHitm", 7, col_st_hitm, COL_MEM, 0, 9 }
#define LC_LCL_PEER { "LclPeer", 7, col_lcl_peer, COL_MEM, 0, 10 }
#define LC_RMT_PEER { "RmtPeer", 7, col_rmt_peer, COL_MEM, 0, 11 }
#define LC_LOADS { "Loads", 7, col_loads, COL_MEM | COL_GROWS, 0, 12 }
#define LC_STORES { "Stores", 7, col_stores, COL_MEM | COL_GROWS, 0, 13 }
#define LC_ST_L1MISS { "StL1Miss", 8, col_st_l1miss, COL_MEM | COL_GROWS, 0, 14 }
#define LC_PIDS { "Pids", 4, col_pids, 0, 5, 15 }
#define LC_TIDS { "Tids", 4, col_tids, 0, 0, 16 }
#define LC_HITM_LAT { "HitmLat", 7, col_hitm_lat, COL_MEM, 4, 17 }
#define LC_CPUS { "Cpus", 4, col_cpus, 0, 3, 18 }
#define LC_NODES { "Nodes", 5, col_nodes, COL_NODES, 0, 19 }
#define LC_KEY { "Key", -22, col_key, COL_KEY, 0, 20 }
#define COL_HEAD LC_ADDR, LC_KEY, LC_SHARE, LC_VERDICT, LC_GAIN
#define COL_TAIL LC_LOADS, LC_STORES, LC_ST_L1MISS, LC_HITM_LAT, LC_PIDS, LC_TIDS, LC_CPUS, LC_NODES, LC_OBJECT

static const struct line_column hitm_cols[] = {
	COL_HEAD, LC_TOT_HITM, LC_LCL_HITM, LC_RMT_HITM, LC_ST_HITM, COL_TAIL,
};

static const struct line_column peer_cols[] = {
	COL_HEAD, LC_LCL_PEER, LC_RMT_PEER, LC_TOT_HITM, COL_TAIL,
};

static const struct line_column all_cols[] = {
	COL_HEAD, LC_ACCESS, LC_TOT_HITM, LC_RMT_HITM, LC_ST_HITM, COL_TAIL,
};

/* Store HITM where the recording has none (every recording but emulated
 * ones). */
bool line_column__hidden_wide(const struct report *r, const struct line_column *c)
{
	return c->get == col_st_hitm && !report__totals(r)->st_hitm;
}

/* --stdio also leaves out Gain without --sort gain, and Verdict (it is
 * under each detailed line). */
bool line_column__hidden(const struct report *r, const struct line_column *c)
{
	return (c->get == col_gain && !r->opts.sort_gain) || c->get == col_verdict || line_column__hidden_wide(r, c);
}

const struct line_column *line_columns(const struct report *r, size_t *nr)
{
	switch (r->mode) {
	case C2C_DISPLAY_PEER:
		*nr = ARRAY_SIZE(peer_cols);
		return peer_cols;
	case C2C_DISPLAY_ALL:
		*nr = ARRAY_SIZE(all_cols);
		return all_cols;
	default:
		*nr = ARRAY_SIZE(hitm_cols);
		return hitm_cols;
	}
}

#define ROWFMT(fn, expr)                                                                       \
	static struct col_value fn(const struct report *r, const struct c2c_line *l,             \
				   const struct c2c_row *row, char *buf, size_t size)           \
	{                                                                                      \
		return count((uint64_t)(expr));                                                \
	}

ROWFMT(row_lcl_hitm, row->stats.lcl_hitm)
ROWFMT(row_tot_hitm, row->stats.tot_hitm)
ROWFMT(row_rmt_hitm, row->stats.rmt_hitm)
ROWFMT(row_st_hitm, row->stats.st_hitm)
ROWFMT(row_lcl_peer, row->stats.lcl_peer)
ROWFMT(row_rmt_peer, row->stats.rmt_peer)
ROWFMT(row_access, report__est(r, &row->stats, C2C_STAT_nr_entries))
ROWFMT(row_loads, report__est(r, &row->stats, C2C_STAT_load))
ROWFMT(row_stores, report__est(r, &row->stats, C2C_STAT_store))
ROWFMT(row_st_l1hit, report__est(r, &row->stats, C2C_STAT_st_l1hit))
ROWFMT(row_st_l1miss, report__est(r, &row->stats, C2C_STAT_st_l1miss))
ROWFMT(row_hitm_lat, lat_mean(row->lat.hitm_sum, row->lat.hitm_cnt))
/* a row of store HITMs only (emulated) has their latency in the sums */
ROWFMT(row_load_lat, row->stats.load ? lat_mean(row->lat.load_sum, row->lat.load_cnt) : 0)
ROWFMT(row_pids, row->pids.nr)
ROWFMT(row_tids, row->tids.nr)
ROWFMT(row_cpus, row->cpus.nr)

static struct col_value row_offset(const struct report *r, const struct c2c_line *l, const struct c2c_row *row,
				   char *buf, size_t size)
{
	return hex(row->offset);
}

static struct col_value row_iaddr(const struct report *r, const struct c2c_line *l, const struct c2c_row *row,
				  char *buf, size_t size)
{
	return hex(row->iaddr);
}

static struct col_value row_share(const struct report *r, const struct c2c_line *l, const struct c2c_row *row,
				  char *buf, size_t size)
{
	return percent(report__share_row(r, &row->stats), report__share_line(r, l), 1);
}

/* The first thread ids that fit the column, then "+N" for the rest. */
static struct col_value row_tid_list(const struct report *r, const struct c2c_line *l,
				     const struct c2c_row *row, char *buf, size_t size)
{
	const size_t width = 16;
	size_t n = 0;

	buf[0] = 0;
	for (uint32_t i = 0; i < row->tids.nr; i++) {
		char one[16], more[16];
		int len = snprintf(one, sizeof(one), "%s%u", i ? "," : "", u32set__data(&row->tids)[i]);
		int mlen = i + 1 < row->tids.nr ? snprintf(more, sizeof(more), ",+%u", row->tids.nr - i - 1) : 0;

		if (n + len + mlen > width || n + len >= size) {
			snprintf(buf + n, size - n, "%s+%u", i ? "," : "", row->tids.nr - i);
			return text;
		}
		memcpy(buf + n, one, len + 1);
		n += len;
	}
	return text;
}

static struct col_value row_data(const struct report *r, const struct c2c_line *l,
				 const struct c2c_row *row, char *buf, size_t size)
{
	struct row_names nm;
	const struct data_loc *d = &nm.data;
	struct heap_ref h;
	bool named;

	report__row_names(r, l, row, &nm);
	named = nm.data_ok;
	buf[0] = '\0';
	/* a variable or symbol names it, or the type its instruction points
	 * at; else the heap object it is in */
	if ((!named || (!d->sym && !names__data_typed(d))) && report__row_heap(r, l, row, &h) &&
	    report__heap_scnprintf(r, &h, buf, size))
		return text;
	if (named)
		names__data_scnprintf(d, buf, size);
	if (!buf[0] && l->key.kind == CL_KERNEL)
		snprintf(buf, size, "[kernel]");
	return text;
}

/* The function (or what it was inlined into); unknown: the address and object. */
static struct col_value row_code(const struct report *r, const struct c2c_line *l,
				 const struct c2c_row *row, char *buf, size_t size)
{
	struct row_names nm;

	report__row_names(r, l, row, &nm);
	if (!nm.code_ok || !names__code_scnprintf(&nm.code, buf, size)) {
		size_t n = hex_scnprint(buf, size, row->iaddr);

		n += str_scnprint(buf + n, size - n, " ");
		str_scnprint(buf + n, size - n, row->code_object ? object_base_name(row->code_object) :
			     row->cpumode == PERF_RECORD_MISC_KERNEL ? "[kernel]" : "[unknown]");
	}
	return text;
}

static struct col_value row_source(const struct report *r, const struct c2c_line *l,
				   const struct c2c_row *row, char *buf, size_t size)
{
	struct row_names nm;

	buf[0] = '\0';
	report__row_names(r, l, row, &nm);
	if (nm.code_ok)
		names__source_scnprintf(&nm.code, r->opts.full_symbols, buf, size);
	return text;
}

static struct col_value row_code_object(const struct report *r, const struct c2c_line *l,
				        const struct c2c_row *row, char *buf, size_t size)
{
	snprintf(buf, size, "%s", row->code_object ? row->code_object :
			  row->cpumode == PERF_RECORD_MISC_KERNEL ? "[kernel]" : "[unknown]");
	return text;
}

/* Each row column once, as the line columns are (with: wide, past
 * --stdio's 160 columns with its indent, for screens that have room). */
#define RC_OFFSET { "Offset", -6, row_offset, false, 0, 0, 1 }
#define RC_DATA { "Data", -16, row_data, false, COL_DATA, 0, 2 }
#define RC_CODE { "Code", -27, row_code, false, COL_CODE, 0, 3 }
#define RC_SHARE { "Share", 6, row_share, false, 0, 0, 4 }
#define RC_ACCESS { "Access", 7, row_access, false, COL_GROWS, 0, 5 }
#define RC_TOT_HITM { "TotHitm", 7, row_tot_hitm, false, COL_MEM, 0, 6 }
#define RC_LCL_HITM { "LclHitm", 7, row_lcl_hitm, false, COL_MEM, 0, 7 }
#define RC_RMT_HITM { "RmtHitm", 7, row_rmt_hitm, false, COL_MEM, 0, 8 }
#define RC_ST_HITM { "StHitm", 7, row_st_hitm, false, COL_MEM, 0, 9 }
#define RC_LCL_PEER { "LclPeer", 7, row_lcl_peer, false, COL_MEM, 0, 10 }
#define RC_RMT_PEER { "RmtPeer", 7, row_rmt_peer, false, COL_MEM, 0, 11 }
#define RC_LOADS { "Loads", 7, row_loads, false, COL_MEM | COL_GROWS, 0, 12 }
#define RC_STORES { "Stores", 7, row_stores, false, COL_MEM | COL_GROWS, 0, 13 }
#define RC_ST_L1HIT { "StL1Hit", 7, row_st_l1hit, false, COL_MEM | COL_GROWS, 2, 14 }
#define RC_ST_L1MISS { "StL1Miss", 8, row_st_l1miss, false, COL_MEM | COL_GROWS, 0, 15 }
#define RC_SOURCE { "Source", -15, row_source, false, COL_CODE, 0, 16 }
#define RC_TIDS { "Tids", 4, row_tids, false, 0, 0, 17 }
#define RC_PIDS { "Pids", 4, row_pids, false, 0, 5, 18 }
#define RC_HITM_LAT { "HitmLat", 7, row_hitm_lat, false, COL_MEM, 4, 19 }
#define RC_LOAD_LAT { "LoadLat", 7, row_load_lat, false, COL_MEM, 1, 20 }
#define RC_CPUS { "Cpus", 4, row_cpus, false, 0, 3, 21 }
#define RC_IADDR { "Code address", -18, row_iaddr, true, COL_CODE, 0, 0 }
#define RC_THREADS { "Threads", -16, row_tid_list, true, 0, 0, 0 }
#define RC_CODE_OBJECT { "Code object", -20, row_code_object, true, COL_CODE, 0, 0 }
#define ROW_HEAD RC_OFFSET, RC_DATA, RC_SHARE
#define ROW_TAIL RC_LOADS, RC_STORES, RC_ST_L1HIT, RC_ST_L1MISS, RC_HITM_LAT, RC_LOAD_LAT, RC_PIDS, RC_TIDS, \
	RC_CPUS, RC_CODE, RC_SOURCE, RC_IADDR, RC_THREADS, RC_CODE_OBJECT

static const struct row_column hitm_rows[] = {
	ROW_HEAD, RC_LCL_HITM, RC_RMT_HITM, RC_ST_HITM, ROW_TAIL,
};

static const struct row_column peer_rows[] = {
	ROW_HEAD, RC_LCL_PEER, RC_RMT_PEER, ROW_TAIL,
};

static const struct row_column all_rows[] = {
	ROW_HEAD, RC_ACCESS, RC_TOT_HITM, RC_ST_HITM, ROW_TAIL,
};

int column__spare_room(unsigned int i)
{
	/* every spare column is a row column of every mode */
	for (size_t k = 0; k < ARRAY_SIZE(hitm_rows); k++)
		if (i && hitm_rows[k].spare == i)
			return (hitm_rows[k].width < 0 ? -hitm_rows[k].width : hitm_rows[k].width) + 1;
	return 0;
}

bool row_column__hidden(const struct report *r, const struct row_column *c)
{
	return c->get == row_st_hitm && !report__totals(r)->st_hitm;
}

const struct row_column *row_columns(const struct report *r, size_t *nr)
{
	switch (r->mode) {
	case C2C_DISPLAY_PEER:
		*nr = ARRAY_SIZE(peer_rows);
		return peer_rows;
	case C2C_DISPLAY_ALL:
		*nr = ARRAY_SIZE(all_rows);
		return all_rows;
	default:
		*nr = ARRAY_SIZE(hitm_rows);
		return hitm_rows;
	}
}
