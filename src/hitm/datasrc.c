// SPDX-License-Identifier: GPL-2.0
/*
 * union perf_mem_data_src, decoded in one place. The counting follows perf
 * c2c (tools/perf/util/mem-events.c, c2c_decode_stats, perf 6.x) so that our
 * "Trace Event Information" can be compared with perf's line by line; where
 * its names mislead, the docs (man/c2cscan-report.1) say so.
 */
#include <stdio.h>
#include <string.h>
#include "datasrc.h"

/* Bit layout of the uapi union (little-endian bitfields). */
#define FIELD(v, shift, bits) ((uint32_t)(((v) >> (shift)) & ((1ULL << (bits)) - 1)))

enum {
	OP_NA = 0x01, OP_LOAD = 0x02, OP_STORE = 0x04, OP_PFETCH = 0x08, OP_EXEC = 0x10,
};
enum {
	LVL_NA = 0x01, LVL_HIT = 0x02, LVL_MISS = 0x04, LVL_L1 = 0x08, LVL_LFB = 0x10, LVL_L2 = 0x20,
	LVL_L3 = 0x40, LVL_LOC_RAM = 0x80, LVL_REM_RAM1 = 0x100, LVL_REM_RAM2 = 0x200,
	LVL_REM_CCE1 = 0x400, LVL_REM_CCE2 = 0x800, LVL_IO = 0x1000, LVL_UNC = 0x2000,
};
enum { SNOOP_NA = 0x01, SNOOP_NONE = 0x02, SNOOP_HIT = 0x04, SNOOP_MISS = 0x08, SNOOP_HITM = 0x10 };
enum { SNOOPX_FWD = 0x01, SNOOPX_PEER = 0x02 };
enum { LOCK_NA = 0x01, LOCK_LOCKED = 0x02 };
enum { BLK_NA = 0x01, BLK_DATA = 0x02, BLK_ADDR = 0x04 };

void datasrc__decode(uint64_t val, struct datasrc *d)
{
	d->op = FIELD(val, 0, 5);
	d->lvl = FIELD(val, 5, 14);
	d->snoop = FIELD(val, 19, 5);
	d->lock = FIELD(val, 24, 2);
	d->dtlb = FIELD(val, 26, 7);
	d->lvl_num = FIELD(val, 33, 4);
	d->remote = FIELD(val, 37, 1);
	d->snoopx = FIELD(val, 38, 2);
	d->blk = FIELD(val, 40, 3);
	d->hops = FIELD(val, 43, 3);
}

bool datasrc__is_na(uint64_t val)
{
	uint32_t op = FIELD(val, 0, 5);

	return !op || (op & OP_NA);
}

static size_t names(char *buf, size_t size, uint32_t mask, const char *const *tab, size_t n)
{
	size_t off = 0;

	for (size_t i = 0; i < n && off < size; i++) {
		if (mask & (1u << i)) {
			int w = snprintf(buf + off, size - off, "%s%s", off ? " or " : "", tab[i]);

			if (w < 0)
				break;
			off += (size_t)w;
		}
	}
	if (!off && size)
		off = snprintf(buf, size, "N/A");
	return off < size ? off : size ? size - 1 : 0;
}

size_t datasrc__scnprintf(char *buf, size_t size, uint64_t val)
{
	static const char *const ops[] = { "N/A", "LOAD", "STORE", "PFETCH", "EXEC" };
	static const char *const lvls[] = { "N/A", "HIT", "MISS", "L1", "LFB", "L2", "L3", "Local RAM",
					    "Remote RAM (1 hop)", "Remote RAM (2 hops)", "Remote Cache (1 hop)",
					    "Remote Cache (2 hops)", "I/O", "Uncached" };
	static const char *const snoops[] = { "N/A", "None", "Hit", "Miss", "HitM" };
	static const char *const locks[] = { "N/A", "Yes" };
	static const char *const blks[] = { "N/A", "Data", "Addr" };
	struct datasrc d;
	char op[64], lvl[256], snoop[64], lock[16], blk[32];
	int n;

	datasrc__decode(val, &d);
	names(op, sizeof(op), d.op, ops, 5);
	names(lvl, sizeof(lvl), d.lvl, lvls, 14);
	names(snoop, sizeof(snoop), d.snoop, snoops, 5);
	if (d.snoopx & SNOOPX_PEER)
		strncat(snoop, " Peer", sizeof(snoop) - strlen(snoop) - 1);
	if (d.snoopx & SNOOPX_FWD)
		strncat(snoop, " Fwd", sizeof(snoop) - strlen(snoop) - 1);
	names(lock, sizeof(lock), d.lock, locks, 2);
	names(blk, sizeof(blk), d.blk, blks, 3);
	n = snprintf(buf, size, "%s|LVL %s|LVLNUM %u%s|SNP %s|LCK %s|BLK %s|HOPS %u", op, lvl, d.lvl_num,
		     d.remote ? " remote" : "", snoop, lock, blk, d.hops);
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size ? size - 1 : 0;
}

/*
 * perf's rule for "remote": the REM_* level bits, or the remote bit with no
 * hop count (Skylake reports an unknown remote level that way). With a hop
 * count (Power, AMD), remote=1 hops=0x1 means another core of the *same
 * node*, so it is not remote by that rule; but AMD Zen 4 IBS also sets
 * REM_CCE1 for a line in another CCX of the same node, which perf, and
 * these counters, call "Remote HITM".
 */
bool c2c_stats__decode(struct c2c_stats *st, uint64_t data_src, uint64_t daddr, bool mapped)
{
	struct datasrc d;
	bool mrem;

	datasrc__decode(data_src, &d);
	mrem = d.remote && !d.hops;
	st->nr_entries++;
	if (d.lock & LOCK_LOCKED)
		st->locks++;
	if (d.blk & BLK_DATA)
		st->blk_data++;
	if (d.blk & BLK_ADDR)
		st->blk_addr++;

	if (d.op & OP_LOAD) {
		st->load++;
		if (!daddr) {
			st->ld_noadrs++;
			return false;
		}
		if (d.lvl & LVL_HIT) {
			if (d.lvl & LVL_UNC)
				st->ld_uncache++;
			if (d.lvl & LVL_IO)
				st->ld_io++;
			if (d.lvl & LVL_LFB)
				st->ld_fbhit++;
			if (d.lvl & LVL_L1)
				st->ld_l1hit++;
			if (d.lvl & LVL_L2) {
				st->ld_l2hit++;
				if (d.snoopx & SNOOPX_PEER) {
					st->lcl_peer++;
					st->tot_peer++;
				}
			}
			if (d.lvl & LVL_L3) {
				if (d.snoop & SNOOP_HITM) {
					st->lcl_hitm++;
					st->tot_hitm++;
				} else {
					st->ld_llchit++;
				}
				if (d.snoopx & SNOOPX_PEER) {
					st->lcl_peer++;
					st->tot_peer++;
				}
			}
			if (d.lvl & LVL_LOC_RAM) {
				st->lcl_dram++;
				if (d.snoop & SNOOP_HIT)
					st->ld_shared++;
				else
					st->ld_excl++;
			}
			/* perf counts a remote-bit sample as remote DRAM *and*
			 * (below) as remote cache: the double count the man page
			 * documents */
			if ((d.lvl & (LVL_REM_RAM1 | LVL_REM_RAM2)) || mrem) {
				st->rmt_dram++;
				if (d.snoop & SNOOP_HIT)
					st->ld_shared++;
				else
					st->ld_excl++;
			}
			if ((d.lvl & (LVL_REM_CCE1 | LVL_REM_CCE2)) || mrem) {
				if (d.snoop & SNOOP_HIT) {
					st->rmt_hit++;
				} else if (d.snoop & SNOOP_HITM) {
					st->rmt_hitm++;
					st->tot_hitm++;
					if (d.hops == 1)
						st->rmt_hitm_same_node++;
				} else if (d.snoopx & SNOOPX_PEER) {
					st->rmt_hit++;
					st->rmt_peer++;
					st->tot_peer++;
				}
			}
			if (d.lvl & LVL_MISS)
				st->ld_miss++;
		} else if (d.lvl & LVL_MISS) {
			st->ld_miss++;
		}
		st->ld_llcmiss = st->lcl_dram + st->rmt_dram + st->rmt_hitm + st->rmt_hit;
	} else if (d.op & OP_STORE) {
		st->store++;
		if (!daddr) {
			st->st_noadrs++;
			return false;
		}
		if (d.lvl & LVL_HIT) {
			if (d.lvl & LVL_UNC)
				st->st_uncache++;
			if (d.lvl & LVL_L1)
				st->st_l1hit++;
		}
		if ((d.lvl & LVL_MISS) && (d.lvl & LVL_L1))
			st->st_l1miss++;
		if (d.lvl & LVL_NA)
			st->st_na++;
	} else {
		st->noparse++;
		return false;
	}
	if (!mapped) {
		st->nomap++;
		return false;
	}
	return true;
}

void c2c_stats__add(struct c2c_stats *dst, const struct c2c_stats *src)
{
	/* every member is a uint32_t counter */
	uint32_t *d = (uint32_t *)dst;
	const uint32_t *s = (const uint32_t *)src;

	for (size_t i = 0; i < sizeof(*dst) / sizeof(uint32_t); i++)
		d[i] += s[i];
}
