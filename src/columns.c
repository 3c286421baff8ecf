// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "columns.h"
#include "util.h"

const char *line_object(const struct c2c_line *l)
{
	if (l->object && *l->object)
		return l->object;
	if (l->key.kind == CL_KERNEL)
		return "[kernel]";
	return "[unknown]";
}

uint64_t lat_mean(uint64_t sum, uint32_t cnt)
{
	return cnt ? (sum + cnt / 2) / cnt : 0;
}

#define U32FMT(fn, expr)                                                                          \
	static void fn(const struct report *r, const struct c2c_line *l, uint64_t total, char *buf, \
		       size_t size)                                                               \
	{                                                                                         \
		snprintf(buf, size, "%" PRIu64, (uint64_t)(expr));                                \
	}

U32FMT(col_tot_hitm, l->stats.tot_hitm)
U32FMT(col_lcl_hitm, l->stats.lcl_hitm)
U32FMT(col_rmt_hitm, l->stats.rmt_hitm)
U32FMT(col_lcl_peer, l->stats.lcl_peer)
U32FMT(col_rmt_peer, l->stats.rmt_peer)
U32FMT(col_access, l->stats.nr_entries)
U32FMT(col_loads, l->stats.load)
U32FMT(col_stores, l->stats.store)
U32FMT(col_st_l1miss, l->stats.st_l1miss)
U32FMT(col_hitm_lat, lat_mean(l->lat.hitm_sum, l->lat.hitm_cnt))
U32FMT(col_pids, l->pids.nr)
U32FMT(col_tids, l->tids.nr)
U32FMT(col_cpus, l->cpus.nr)
U32FMT(col_nodes, l->nodes.nr)

static void col_share(const struct report *r, const struct c2c_line *l, uint64_t total, char *buf,
		      size_t size)
{
	uint64_t m = c2c_stats__metric(&l->stats, r->mode);

	snprintf(buf, size, "%.2f%%", total ? 100.0 * m / total : 0.0);
}

static void col_addr(const struct report *r, const struct c2c_line *l, uint64_t total, char *buf,
		     size_t size)
{
	snprintf(buf, size, "%#" PRIx64, l->addr);
}

static void col_key(const struct report *r, const struct c2c_line *l, uint64_t total, char *buf,
		    size_t size)
{
	cl_key__scnprintf(&l->key, r->maps, buf, size);
}

static void col_object(const struct report *r, const struct c2c_line *l, uint64_t total, char *buf,
		       size_t size)
{
	snprintf(buf, size, "%s", line_object(l));
}

/* The widths add up to <= 160 columns with the index; Object goes last
 * because it is the one that may be long. */
#define COL_HEAD { "Address", -18, col_addr }, { "Key", -22, col_key }, { "Share", 7, col_share }
#define COL_TAIL                                                                              \
	{ "Loads", 7, col_loads }, { "Stores", 7, col_stores }, { "StL1Miss", 8, col_st_l1miss }, \
	{ "HitmLat", 7, col_hitm_lat }, { "Pids", 4, col_pids }, { "Tids", 4, col_tids },        \
	{ "Cpus", 4, col_cpus }, { "Nodes", 5, col_nodes }, { "Object", -24, col_object }

static const struct line_column hitm_cols[] = {
	COL_HEAD, { "TotHitm", 7, col_tot_hitm }, { "LclHitm", 7, col_lcl_hitm },
	{ "RmtHitm", 7, col_rmt_hitm }, COL_TAIL,
};

static const struct line_column peer_cols[] = {
	COL_HEAD, { "LclPeer", 7, col_lcl_peer }, { "RmtPeer", 7, col_rmt_peer },
	{ "TotHitm", 7, col_tot_hitm }, COL_TAIL,
};

static const struct line_column all_cols[] = {
	COL_HEAD, { "Access", 7, col_access }, { "TotHitm", 7, col_tot_hitm }, { "RmtHitm", 7, col_rmt_hitm },
	COL_TAIL,
};

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
	static void fn(const struct report *r, const struct c2c_line *l, const struct c2c_row *row, \
		       char *buf, size_t size)                                                 \
	{                                                                                      \
		snprintf(buf, size, "%" PRIu64, (uint64_t)(expr));                             \
	}

ROWFMT(row_lcl_hitm, row->stats.lcl_hitm)
ROWFMT(row_tot_hitm, row->stats.tot_hitm)
ROWFMT(row_rmt_hitm, row->stats.rmt_hitm)
ROWFMT(row_lcl_peer, row->stats.lcl_peer)
ROWFMT(row_rmt_peer, row->stats.rmt_peer)
ROWFMT(row_access, row->stats.nr_entries)
ROWFMT(row_loads, row->stats.load)
ROWFMT(row_stores, row->stats.store)
ROWFMT(row_st_l1hit, row->stats.st_l1hit)
ROWFMT(row_st_l1miss, row->stats.st_l1miss)
ROWFMT(row_hitm_lat, lat_mean(row->lat.hitm_sum, row->lat.hitm_cnt))
ROWFMT(row_load_lat, lat_mean(row->lat.load_sum, row->lat.load_cnt))
ROWFMT(row_pids, row->pids.nr)
ROWFMT(row_tids, row->tids.nr)
ROWFMT(row_cpus, row->cpus.nr)

static void row_offset(const struct report *r, const struct c2c_line *l, const struct c2c_row *row,
		       char *buf, size_t size)
{
	snprintf(buf, size, "%#x", row->offset);
}

static void row_iaddr(const struct report *r, const struct c2c_line *l, const struct c2c_row *row,
		      char *buf, size_t size)
{
	snprintf(buf, size, "%#" PRIx64, row->iaddr);
}

static void row_share(const struct report *r, const struct c2c_line *l, const struct c2c_row *row,
		      char *buf, size_t size)
{
	uint64_t m = c2c_stats__metric(&row->stats, r->mode);
	uint64_t total = c2c_stats__metric(&l->stats, r->mode);

	snprintf(buf, size, "%.1f%%", total ? 100.0 * m / total : 0.0);
}

/* The first thread ids that fit the column, then "+N" for the rest. */
static void row_tid_list(const struct report *r, const struct c2c_line *l, const struct c2c_row *row,
			 char *buf, size_t size)
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
			return;
		}
		memcpy(buf + n, one, len + 1);
		n += len;
	}
}

static void row_code_object(const struct report *r, const struct c2c_line *l, const struct c2c_row *row,
			    char *buf, size_t size)
{
	snprintf(buf, size, "%s", row->code_object ? row->code_object :
			  row->cpumode == PERF_RECORD_MISC_KERNEL ? "[kernel]" : "[unknown]");
}

#define ROW_HEAD { "Offset", -6, row_offset }, { "Code address", -18, row_iaddr }, { "Share", 6, row_share }
#define ROW_TAIL                                                                                   \
	{ "Loads", 7, row_loads }, { "Stores", 7, row_stores }, { "StL1Hit", 7, row_st_l1hit },      \
	{ "StL1Miss", 8, row_st_l1miss }, { "HitmLat", 7, row_hitm_lat }, { "LoadLat", 7, row_load_lat }, \
	{ "Pids", 4, row_pids }, { "Tids", 4, row_tids }, { "Cpus", 4, row_cpus },                   \
	{ "Threads", -16, row_tid_list }, { "Code object", -20, row_code_object }

static const struct row_column hitm_rows[] = {
	ROW_HEAD, { "LclHitm", 7, row_lcl_hitm }, { "RmtHitm", 7, row_rmt_hitm }, ROW_TAIL,
};

static const struct row_column peer_rows[] = {
	ROW_HEAD, { "LclPeer", 7, row_lcl_peer }, { "RmtPeer", 7, row_rmt_peer }, ROW_TAIL,
};

static const struct row_column all_rows[] = {
	ROW_HEAD, { "Access", 7, row_access }, { "TotHitm", 7, row_tot_hitm }, ROW_TAIL,
};

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
