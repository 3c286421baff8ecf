// SPDX-License-Identifier: GPL-2.0
/* data_src decoding: one row per counter class, values built the way Intel
 * PEBS, AMD IBS and Arm SPE report them, and the counters perf c2c derives. */
#include <stddef.h>
#include "hitm/datasrc.h"
#include "test.h"

#define OP(x) ((uint64_t)(x))
#define LVL(x) ((uint64_t)(x) << 5)
#define SNOOP(x) ((uint64_t)(x) << 19)
#define LOCK(x) ((uint64_t)(x) << 24)
#define LVLNUM(x) ((uint64_t)(x) << 33)
#define REMOTE(x) ((uint64_t)(x) << 37)
#define SNOOPX(x) ((uint64_t)(x) << 38)
#define BLK(x) ((uint64_t)(x) << 40)
#define HOPS(x) ((uint64_t)(x) << 43)

enum { LOAD = 2, STORE = 4, OPNA = 1 };
enum { NA = 1, HIT = 2, MISS = 4, L1 = 8, LFB = 16, L2 = 32, L3 = 64, LOC_RAM = 128, REM_RAM1 = 256,
       REM_CCE1 = 1024, IO = 4096, UNC = 8192 };
enum { S_NONE = 2, S_HIT = 4, S_MISS = 8, S_HITM = 16 };

struct row {
	const char *what;
	uint64_t ds;
	uint64_t addr;
	bool mapped;
	bool keep;
	size_t field;           /* offsetof the counter that must be 1 */
	size_t field2;          /* a second one, or (size_t)-1 */
};

#define F(x) offsetof(struct c2c_stats, x)
#define NONE ((size_t)-1)

static const struct row rows[] = {
	{ "L1 hit", OP(LOAD) | LVL(HIT | L1) | SNOOP(S_NONE), 0x1000, true, true, F(ld_l1hit), NONE },
	{ "LFB hit", OP(LOAD) | LVL(HIT | LFB) | SNOOP(S_NONE), 0x1000, true, true, F(ld_fbhit), NONE },
	{ "L2 hit", OP(LOAD) | LVL(HIT | L2) | SNOOP(S_NONE), 0x1000, true, true, F(ld_l2hit), NONE },
	{ "LLC hit", OP(LOAD) | LVL(HIT | L3) | SNOOP(S_NONE), 0x1000, true, true, F(ld_llchit), NONE },
	{ "local HITM", OP(LOAD) | LVL(HIT | L3) | SNOOP(S_HITM), 0x1000, true, true, F(lcl_hitm), F(tot_hitm) },
	{ "remote HITM", OP(LOAD) | LVL(HIT | REM_CCE1) | SNOOP(S_HITM), 0x1000, true, true, F(rmt_hitm), F(tot_hitm) },
	{ "AMD same-node HITM", OP(LOAD) | LVL(HIT | REM_CCE1) | SNOOP(S_HITM) | REMOTE(1) | HOPS(1), 0x1000, true, true,
	  F(rmt_hitm_same_node), F(rmt_hitm) },
	{ "remote HIT", OP(LOAD) | LVL(HIT | REM_CCE1) | SNOOP(S_HIT), 0x1000, true, true, F(rmt_hit), NONE },
	{ "local DRAM", OP(LOAD) | LVL(HIT | LOC_RAM) | SNOOP(S_MISS), 0x1000, true, true, F(lcl_dram), F(ld_excl) },
	{ "local DRAM shared", OP(LOAD) | LVL(HIT | LOC_RAM) | SNOOP(S_HIT), 0x1000, true, true, F(lcl_dram), F(ld_shared) },
	{ "remote DRAM", OP(LOAD) | LVL(HIT | REM_RAM1) | SNOOP(S_MISS), 0x1000, true, true, F(rmt_dram), F(ld_excl) },
	{ "local peer (L2)", OP(LOAD) | LVL(HIT | L2) | SNOOPX(2), 0x1000, true, true, F(lcl_peer), F(tot_peer) },
	{ "remote peer", OP(LOAD) | LVL(HIT | REM_CCE1) | SNOOPX(2), 0x1000, true, true, F(rmt_peer), F(rmt_hit) },
	{ "uncached", OP(LOAD) | LVL(HIT | UNC), 0x1000, true, true, F(ld_uncache), NONE },
	{ "IO", OP(LOAD) | LVL(HIT | IO), 0x1000, true, true, F(ld_io), NONE },
	{ "load miss", OP(LOAD) | LVL(MISS | L3), 0x1000, true, true, F(ld_miss), NONE },
	{ "load no address", OP(LOAD) | LVL(HIT | L1), 0, true, false, F(ld_noadrs), NONE },
	{ "locked", OP(LOAD) | LVL(HIT | L1) | LOCK(2), 0x1000, true, true, F(locks), F(ld_l1hit) },
	{ "blocked data", OP(LOAD) | LVL(HIT | L1) | BLK(2), 0x1000, true, true, F(blk_data), NONE },
	{ "blocked addr", OP(LOAD) | LVL(HIT | L1) | BLK(4), 0x1000, true, true, F(blk_addr), NONE },
	{ "store L1 hit", OP(STORE) | LVL(HIT | L1), 0x1000, true, true, F(st_l1hit), F(store) },
	{ "store L1 miss", OP(STORE) | LVL(MISS | L1), 0x1000, true, true, F(st_l1miss), F(store) },
	{ "store N/A", OP(STORE) | LVL(NA), 0x1000, true, true, F(st_na), F(store) },
	{ "store uncached", OP(STORE) | LVL(HIT | UNC), 0x1000, true, true, F(st_uncache), NONE },
	{ "store no address", OP(STORE) | LVL(HIT | L1), 0, true, false, F(st_noadrs), NONE },
	{ "unparsable (op N/A)", OP(OPNA), 0x1000, true, false, F(noparse), NONE },
	{ "unparsable (0)", 0, 0x1000, true, false, F(noparse), NONE },
	{ "no map", OP(LOAD) | LVL(HIT | L1), 0x1000, false, false, F(nomap), F(ld_l1hit) },
};

static uint32_t get(const struct c2c_stats *st, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)st + off, sizeof(v));
	return v;
}

int main(void)
{
	char buf[256];
	struct datasrc d;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct c2c_stats st = { 0 };
		uint32_t total = 0;
		bool keep = c2c_stats__decode(&st, r->ds, r->addr, r->mapped);

		if (keep != r->keep || get(&st, r->field) != 1 || (r->field2 != NONE && get(&st, r->field2) != 1))
			fprintf(stderr, "row '%s'\n", r->what);
		CHECK(keep == r->keep);
		CHECK_EQ_U64(get(&st, r->field), 1);
		if (r->field2 != NONE)
			CHECK_EQ_U64(get(&st, r->field2), 1);
		CHECK_EQ_U64(st.nr_entries, 1);
		/* a HITM is never also an LLC hit; a remote HITM is an LLC miss */
		if (st.tot_hitm)
			CHECK_EQ_U64(st.ld_llchit, 0);
		CHECK_EQ_U64(st.ld_llcmiss, st.lcl_dram + st.rmt_dram + st.rmt_hitm + st.rmt_hit);
		for (size_t off = 0; off < sizeof(st); off += 4)
			total += get(&st, off);
		CHECK(total >= 2);
	}
	/* Skylake: remote bit without hops counts as remote DRAM and remote
	 * HITM at once (perf's double count, documented) */
	{
		struct c2c_stats st = { 0 };

		c2c_stats__decode(&st, OP(LOAD) | LVL(HIT) | SNOOP(S_HITM) | REMOTE(1), 0x1000, true);
		CHECK_EQ_U64(st.rmt_hitm, 1);
		CHECK_EQ_U64(st.rmt_dram, 1);
	}
	CHECK(datasrc__is_na(0));
	CHECK(datasrc__is_na(OP(OPNA) | LVL(NA)));
	CHECK(!datasrc__is_na(OP(LOAD) | LVL(HIT | L1)));
	datasrc__decode(OP(LOAD) | LVL(HIT | L3) | SNOOP(S_HITM) | LVLNUM(3) | REMOTE(1) | SNOOPX(2) | BLK(4) | HOPS(2), &d);
	CHECK_EQ_U64(d.op, LOAD);
	CHECK_EQ_U64(d.lvl, HIT | L3);
	CHECK_EQ_U64(d.snoop, S_HITM);
	CHECK_EQ_U64(d.lvl_num, 3);
	CHECK_EQ_U64(d.remote, 1);
	CHECK_EQ_U64(d.snoopx, 2);
	CHECK_EQ_U64(d.blk, 4);
	CHECK_EQ_U64(d.hops, 2);
	datasrc__scnprintf(buf, sizeof(buf), OP(LOAD) | LVL(HIT | L3) | SNOOP(S_HITM));
	CHECK_STR(buf, "LOAD|LVL HIT or L3|LVLNUM 0|SNP HitM|LCK N/A|BLK N/A|HOPS 0");
	CHECK(datasrc__scnprintf(buf, 8, ~0ULL) == 7);
	{
		struct c2c_stats a = { .load = 2, .tot_hitm = 1 }, b = { .load = 3, .access = 4 };

		c2c_stats__add(&a, &b);
		CHECK_EQ_U64(a.load, 5);
		CHECK_EQ_U64(a.access, 4);
		CHECK_EQ_U64(a.tot_hitm, 1);
	}
	return test_done("test_datasrc");
}
