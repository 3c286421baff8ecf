// SPDX-License-Identifier: GPL-2.0
/*
 * union perf_mem_data_src, decoded in one place. The counting follows perf
 * c2c (c2c_decode_stats in tools/perf/util/mem-events.c) so that our "Trace
 * Event Information" can be compared with perf's line by line; where its
 * names mislead, man/fragments/datasrc.roff says so.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "hitm/datasrc.h"
#include "util/util.h"

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
enum { TLB_NA = 0x01, TLB_HIT = 0x02, TLB_MISS = 0x04 };
enum { BLK_NA = 0x01, BLK_DATA = 0x02, BLK_ADDR = 0x04 };
enum { LVLNUM_NA = 0x0f };
enum { HOPS_SAME_NODE = 0x01 };

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
	d->region = FIELD(val, 46, 5);
}

bool datasrc__is_na(uint64_t val)
{
	uint32_t op = FIELD(val, 0, 5);

	return !op || (op & OP_NA);
}

/* A bounded appender: never writes past size, always terminates, counts
 * only what it stored (scnprintf semantics). */
struct sbuf {
	char *buf;
	size_t size, len;
};

__attribute__((format(printf, 2, 3)))
static void sbuf__add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->len + 1 >= b->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->buf + b->len, b->size - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	b->len += (size_t)n < b->size - b->len ? (size_t)n : b->size - b->len - 1;
}

/* Names of the set bits of mask (bit i = tab[i]) joined by " or "; returns
 * how many were printed. */
static int sbuf__bits(struct sbuf *b, uint32_t mask, const char *const *tab, size_t n, int printed)
{
	for (size_t i = 0; i < n; i++) {
		if (!(mask & (1u << i)) || !tab[i])
			continue;
		sbuf__add(b, "%s%s", printed++ ? " or " : "", tab[i]);
	}
	return printed;
}

static const char *const lvl_names[] = {
	"N/A", "HIT", "MISS", "L1", "LFB", "L2", "L3", "Local RAM", "Remote RAM (1 hop)",
	"Remote RAM (2 hops)", "Remote Cache (1 hop)", "Remote Cache (2 hops)", "I/O", "Uncached",
};
static const char *const lvlnum_names[16] = {
	[1] = "L1", [2] = "L2", [3] = "L3", [4] = "L4", [5] = "L2 MHB", [6] = "Memory-side Cache",
	[7] = "L0", [8] = "Uncached", [9] = "CXL", [10] = "I/O", [11] = "Any cache", [12] = "LFB",
	[13] = "RAM", [14] = "PMEM", [15] = "N/A",
};
static const char *const hops_names[8] = {
	[1] = "core, same node", [2] = "node, same socket", [3] = "socket, same board", [4] = "board",
};

/* The level the way perf script prints it: the numbered level (with remote
 * and hops) when there is one, else the legacy level bits; then hit/miss. */
static void lvl_print(struct sbuf *b, const struct datasrc *d)
{
	const char *hm = d->lvl & LVL_HIT ? " hit" : d->lvl & LVL_MISS ? " miss" : "";

	if (d->lvl_num && d->lvl_num != LVLNUM_NA) {
		if (d->remote)
			sbuf__add(b, "Remote ");
		if (d->hops) {
			if (hops_names[d->hops])
				sbuf__add(b, "%s ", hops_names[d->hops]);
			else
				sbuf__add(b, "hops %u ", d->hops);
		}
		if (lvlnum_names[d->lvl_num])
			sbuf__add(b, "%s", lvlnum_names[d->lvl_num]);
		else
			sbuf__add(b, "Unknown level %u", d->lvl_num);
		sbuf__add(b, "%s", hm);
		return;
	}
	if (sbuf__bits(b, d->lvl & ~(uint32_t)(LVL_NA | LVL_HIT | LVL_MISS), lvl_names, ARRAY_SIZE(lvl_names), 0))
		sbuf__add(b, "%s", hm);
	else
		sbuf__add(b, "N/A");
}

size_t datasrc__scnprintf(char *buf, size_t size, uint64_t val)
{
	static const char *const snoop_names[] = { "N/A", "None", "Hit", "Miss", "HitM" };
	static const char *const snoopx_names[] = { "Fwd", "Peer" };
	static const char *const tlb_names[] = { "N/A", NULL, NULL, "L1", "L2", "Walker", "Fault" };
	static const char *const blk_names[] = { NULL, "Data", "Addr" };
	static const char *const region_names[16] = {
		"N/A", "Reserved", "Local shared cache", "Local non-shared cache", "Other IO",
		"Other shared cache", "Other non-shared cache", "MMIO", "Mem-0", "Mem-1", "Mem-2",
		"Mem-3", "Mem-4", "Mem-5", "Mem-6", "Mem-7",
	};
	struct sbuf b = { buf, size, 0 };
	struct datasrc d;
	int n;

	if (!size)
		return 0;
	buf[0] = '\0';
	datasrc__decode(val, &d);
	sbuf__add(&b, "%s", d.op & OP_NA ? "N/A" : d.op & OP_LOAD ? "LOAD" : d.op & OP_STORE ? "STORE" :
		  d.op & OP_PFETCH ? "PFETCH" : d.op & OP_EXEC ? "EXEC" : "No");
	sbuf__add(&b, "|LVL ");
	lvl_print(&b, &d);
	sbuf__add(&b, "|SNP ");
	n = sbuf__bits(&b, d.snoop, snoop_names, ARRAY_SIZE(snoop_names), 0);
	if (!sbuf__bits(&b, d.snoopx, snoopx_names, ARRAY_SIZE(snoopx_names), n) && !n)
		sbuf__add(&b, "N/A");
	sbuf__add(&b, "|TLB ");
	if (!sbuf__bits(&b, d.dtlb, tlb_names, ARRAY_SIZE(tlb_names), 0))
		sbuf__add(&b, "N/A");
	if (d.dtlb & TLB_HIT)
		sbuf__add(&b, " hit");
	if (d.dtlb & TLB_MISS)
		sbuf__add(&b, " miss");
	sbuf__add(&b, "|LCK %s", d.lock & LOCK_NA ? "N/A" : d.lock & LOCK_LOCKED ? "Yes" : "No");
	sbuf__add(&b, "|BLK ");
	if (!d.blk || (d.blk & BLK_NA) || !sbuf__bits(&b, d.blk, blk_names, ARRAY_SIZE(blk_names), 0))
		sbuf__add(&b, "N/A");
	if (d.region < ARRAY_SIZE(region_names) && d.region)
		sbuf__add(&b, "|Region %s", region_names[d.region]);
	else if (d.region)
		sbuf__add(&b, "|Region %u", d.region);
	return b.len;
}

static void hitm_inc(uint32_t *which, struct c2c_stats *st)
{
	(*which)++;
	st->tot_hitm++;
}

static void peer_inc(uint32_t *which, struct c2c_stats *st)
{
	(*which)++;
	st->tot_peer++;
}

/*
 * "Remote" by perf's rule: the REM_* level bits, or the remote bit with no
 * hop count (Skylake reports an unknown remote level that way). With a hop
 * count (Power, AMD), remote=1 hops=1 means another core of the *same*
 * node, so the bit alone is not remote; but AMD Zen 4 IBS also sets
 * REM_CCE1 for a line in another CCX of the same node, which perf, and
 * these counters, call "Remote HITM" (rmt_hitm_same_node tells them apart).
 */
static void decode_load(struct c2c_stats *st, const struct datasrc *d)
{
	bool mrem = d->remote && !d->hops;
	uint32_t before = st->lcl_dram + st->rmt_dram + st->rmt_hitm + st->rmt_hit;

	if (d->lvl & LVL_HIT) {
		if (d->lvl & LVL_UNC)
			st->ld_uncache++;
		if (d->lvl & LVL_IO)
			st->ld_io++;
		if (d->lvl & LVL_LFB)
			st->ld_fbhit++;
		if (d->lvl & LVL_L1)
			st->ld_l1hit++;
		/* an L2 HITM (another core's private L2, Arm) is a local HITM
		 * since perf 6.16; perf 6.8 to 6.15 counted it as an L2 hit */
		if (d->lvl & LVL_L2) {
			if (d->snoop & SNOOP_HITM)
				hitm_inc(&st->lcl_hitm, st);
			else
				st->ld_l2hit++;
			if (d->snoopx & SNOOPX_PEER)
				peer_inc(&st->lcl_peer, st);
		}
		if (d->lvl & LVL_L3) {
			if (d->snoop & SNOOP_HITM)
				hitm_inc(&st->lcl_hitm, st);
			else
				st->ld_llchit++;
			if (d->snoopx & SNOOPX_PEER)
				peer_inc(&st->lcl_peer, st);
		}
		/* the MESI state is inferred from the snoop: a snoop hit means
		 * another cache holds the line too */
		if (d->lvl & LVL_LOC_RAM) {
			st->lcl_dram++;
			if (d->snoop & SNOOP_HIT)
				st->ld_shared++;
			else
				st->ld_excl++;
		}
		/* a Skylake remote-bit sample counts here *and* below as a
		 * remote cache access: perf's double count, kept on purpose */
		if ((d->lvl & (LVL_REM_RAM1 | LVL_REM_RAM2)) || mrem) {
			st->rmt_dram++;
			if (d->snoop & SNOOP_HIT)
				st->ld_shared++;
			else
				st->ld_excl++;
		}
	}
	/* perf does not require HIT for a remote cache access */
	if ((d->lvl & (LVL_REM_CCE1 | LVL_REM_CCE2)) || mrem) {
		if (d->snoop & SNOOP_HIT) {
			st->rmt_hit++;
		} else if (d->snoop & SNOOP_HITM) {
			hitm_inc(&st->rmt_hitm, st);
			if (d->remote && d->hops == HOPS_SAME_NODE)
				st->rmt_hitm_same_node++;
		} else if (d->snoopx & SNOOPX_PEER) {
			st->rmt_hit++;
			peer_inc(&st->rmt_peer, st);
		}
	}
	if (d->lvl & LVL_MISS)
		st->ld_miss++;
	/* perf prints lcl_dram + rmt_dram + rmt_hitm + rmt_hit as "LLC
	 * Misses"; counting the same sum per sample keeps it additive */
	st->ld_llcmiss += st->lcl_dram + st->rmt_dram + st->rmt_hitm + st->rmt_hit - before;
}

bool datasrc__contended(uint64_t val)
{
	struct c2c_stats st = { 0 };

	/* neither a HITM nor a peer snoop: the common case, without decoding */
	if (!(FIELD(val, 19, 5) & SNOOP_HITM) && !(FIELD(val, 38, 2) & SNOOPX_PEER))
		return false;
	c2c_stats__decode(&st, val, 1, true);
	return st.tot_hitm || st.st_hitm || st.tot_peer;
}

bool c2c_stats__decode(struct c2c_stats *st, uint64_t data_src, uint64_t daddr, bool mapped)
{
	struct datasrc d;

	datasrc__decode(data_src, &d);
	st->nr_entries++;
	/* lock and block bits count for every sample, even unparsable ones */
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
		decode_load(st, &d);
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
		if (d.snoop & SNOOP_HITM)
			st->st_hitm++;
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

const struct c2c_stat_field c2c_stat_fields[] = {
#define ENTRY(member, name, label) { name, label, offsetof(struct c2c_stats, member) },
	C2C_STATS_FIELDS(ENTRY)
#undef ENTRY
};
const size_t c2c_nr_stat_fields = ARRAY_SIZE(c2c_stat_fields);

void c2c_stats__add(struct c2c_stats *dst, const struct c2c_stats *src)
{
#define ADD(member, name, label) dst->member += src->member;
	C2C_STATS_FIELDS(ADD)
#undef ADD
}

void c2c_stats__add_times(struct c2c_stats *dst, const struct c2c_stats *src, uint32_t times)
{
#define ADD(member, name, label) dst->member += src->member * times;
	C2C_STATS_FIELDS(ADD)
#undef ADD
}
