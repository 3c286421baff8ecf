// SPDX-License-Identifier: GPL-2.0
/*
 * data_src decoding: one row per counter class with every counter the row
 * must produce (all others must stay 0), values built the way Intel PEBS,
 * AMD IBS, Power and Arm report them; the data_src values of the real AMD
 * Zen 4 recording against perf 6.8's own totals; invariants over random
 * values; the printed form.
 */
#include <stddef.h>
#include <stdlib.h>
#include "hitm/datasrc.h"
#include "test.h"

#define OP(x) ((uint64_t)(x))
#define LVL(x) ((uint64_t)(x) << 5)
#define SNOOP(x) ((uint64_t)(x) << 19)
#define LOCK(x) ((uint64_t)(x) << 24)
#define TLB(x) ((uint64_t)(x) << 26)
#define LVLNUM(x) ((uint64_t)(x) << 33)
#define REMOTE(x) ((uint64_t)(x) << 37)
#define SNOOPX(x) ((uint64_t)(x) << 38)
#define BLK(x) ((uint64_t)(x) << 40)
#define HOPS(x) ((uint64_t)(x) << 43)
#define REGION(x) ((uint64_t)(x) << 46)

enum { OPNA = 1, LOAD = 2, STORE = 4, PFETCH = 8, EXEC = 16 };
enum { NA = 1, HIT = 2, MISS = 4, L1 = 8, LFB = 16, L2 = 32, L3 = 64, LOC_RAM = 128, REM_RAM1 = 256,
       REM_RAM2 = 512, REM_CCE1 = 1024, REM_CCE2 = 2048, IO = 4096, UNC = 8192 };
enum { S_NA = 1, S_NONE = 2, S_HIT = 4, S_MISS = 8, S_HITM = 16 };
enum { X_FWD = 1, X_PEER = 2 };
enum { N_L1 = 1, N_L2 = 2, N_L3 = 3, N_ANY = 11, N_LFB = 12, N_RAM = 13, N_NA = 15 };

#define A 0x7f0000001000ULL     /* some data address */
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

struct row {
	const char *what;
	uint64_t ds;
	uint64_t addr;
	bool mapped;
	bool keep;
	struct c2c_stats want;  /* nr_entries is implied (1) */
};

static const struct row rows[] = {
	/* loads, by level */
	{ "L1 hit", OP(LOAD) | LVL(HIT | L1) | SNOOP(S_NONE), A, true, true,
	  { .load = 1, .ld_l1hit = 1 } },
	{ "fill buffer hit", OP(LOAD) | LVL(HIT | LFB) | SNOOP(S_NONE), A, true, true,
	  { .load = 1, .ld_fbhit = 1 } },
	{ "L2 hit", OP(LOAD) | LVL(HIT | L2) | SNOOP(S_NONE), A, true, true,
	  { .load = 1, .ld_l2hit = 1 } },
	{ "LLC hit", OP(LOAD) | LVL(HIT | L3) | SNOOP(S_NONE) | LVLNUM(N_L3), A, true, true,
	  { .load = 1, .ld_llchit = 1 } },
	{ "uncached", OP(LOAD) | LVL(HIT | UNC), A, true, true,
	  { .load = 1, .ld_uncache = 1 } },
	{ "I/O", OP(LOAD) | LVL(HIT | IO), A, true, true,
	  { .load = 1, .ld_io = 1 } },
	{ "load miss", OP(LOAD) | LVL(MISS | L3), A, true, true,
	  { .load = 1, .ld_miss = 1 } },
	/* HITM */
	{ "local HITM (Intel LLC snoop)", OP(LOAD) | LVL(HIT | L3) | SNOOP(S_HITM), A, true, true,
	  { .load = 1, .lcl_hitm = 1, .tot_hitm = 1 } },
	{ "local HITM in another core's L2 (perf 6.16+)", OP(LOAD) | LVL(HIT | L2) | SNOOP(S_HITM), A, true, true,
	  { .load = 1, .lcl_hitm = 1, .tot_hitm = 1 } },
	{ "remote HITM (REM_CCE1)", OP(LOAD) | LVL(HIT | REM_CCE1) | SNOOP(S_HITM), A, true, true,
	  { .load = 1, .rmt_hitm = 1, .tot_hitm = 1, .ld_llcmiss = 1 } },
	{ "remote HITM (REM_CCE2)", OP(LOAD) | LVL(HIT | REM_CCE2) | SNOOP(S_HITM), A, true, true,
	  { .load = 1, .rmt_hitm = 1, .tot_hitm = 1, .ld_llcmiss = 1 } },
	{ "remote HITM without the HIT bit", OP(LOAD) | LVL(REM_CCE1) | SNOOP(S_HITM), A, true, true,
	  { .load = 1, .rmt_hitm = 1, .tot_hitm = 1, .ld_llcmiss = 1 } },
	{ "AMD Zen 4 'remote' HITM: same node", OP(LOAD) | LVL(HIT | REM_CCE1) | SNOOP(S_HITM) | LVLNUM(N_ANY) |
	  REMOTE(1) | HOPS(1), A, true, true,
	  { .load = 1, .rmt_hitm = 1, .tot_hitm = 1, .ld_llcmiss = 1, .rmt_hitm_same_node = 1 } },
	{ "hops without the remote bit: not 'same node'", OP(LOAD) | LVL(HIT | REM_CCE1) | SNOOP(S_HITM) | HOPS(1),
	  A, true, true,
	  { .load = 1, .rmt_hitm = 1, .tot_hitm = 1, .ld_llcmiss = 1 } },
	{ "remote HITM, other socket (hops 3)", OP(LOAD) | LVL(HIT | REM_CCE2) | SNOOP(S_HITM) | LVLNUM(N_ANY) |
	  REMOTE(1) | HOPS(3), A, true, true,
	  { .load = 1, .rmt_hitm = 1, .tot_hitm = 1, .ld_llcmiss = 1 } },
	{ "remote bit, hops 1, no REM_* level: local", OP(LOAD) | LVL(HIT | L3) | SNOOP(S_HITM) | REMOTE(1) | HOPS(1),
	  A, true, true,
	  { .load = 1, .lcl_hitm = 1, .tot_hitm = 1 } },
	/* Skylake: unknown remote level = remote bit, no hops: remote DRAM
	 * and remote HITM at once (perf's double count) */
	{ "Skylake remote HITM (double count)", OP(LOAD) | LVL(HIT) | SNOOP(S_HITM) | REMOTE(1), A, true, true,
	  { .load = 1, .rmt_hitm = 1, .tot_hitm = 1, .rmt_dram = 1, .ld_excl = 1, .ld_llcmiss = 2 } },
	{ "Skylake remote HIT (double count)", OP(LOAD) | LVL(HIT) | SNOOP(S_HIT) | REMOTE(1), A, true, true,
	  { .load = 1, .rmt_hit = 1, .rmt_dram = 1, .ld_shared = 1, .ld_llcmiss = 2 } },
	{ "remote HIT", OP(LOAD) | LVL(HIT | REM_CCE1) | SNOOP(S_HIT), A, true, true,
	  { .load = 1, .rmt_hit = 1, .ld_llcmiss = 1 } },
	{ "remote cache, snoop N/A: nothing", OP(LOAD) | LVL(HIT | REM_CCE1) | SNOOP(S_NA) | LVLNUM(N_ANY) |
	  REMOTE(1) | HOPS(1), A, true, true,
	  { .load = 1 } },
	/* DRAM and MESI */
	{ "local DRAM exclusive", OP(LOAD) | LVL(HIT | LOC_RAM) | SNOOP(S_MISS), A, true, true,
	  { .load = 1, .lcl_dram = 1, .ld_excl = 1, .ld_llcmiss = 1 } },
	{ "local DRAM shared", OP(LOAD) | LVL(HIT | LOC_RAM) | SNOOP(S_HIT), A, true, true,
	  { .load = 1, .lcl_dram = 1, .ld_shared = 1, .ld_llcmiss = 1 } },
	{ "remote DRAM (1 hop)", OP(LOAD) | LVL(HIT | REM_RAM1) | SNOOP(S_MISS), A, true, true,
	  { .load = 1, .rmt_dram = 1, .ld_excl = 1, .ld_llcmiss = 1 } },
	{ "remote DRAM (2 hops) shared", OP(LOAD) | LVL(HIT | REM_RAM2) | SNOOP(S_HIT), A, true, true,
	  { .load = 1, .rmt_dram = 1, .ld_shared = 1, .ld_llcmiss = 1 } },
	{ "DRAM by level number only: not counted (perf uses the level bits)",
	  OP(LOAD) | LVL(NA) | LVLNUM(N_RAM), A, true, true,
	  { .load = 1 } },
	/* peers */
	{ "local peer (L2)", OP(LOAD) | LVL(HIT | L2) | SNOOPX(X_PEER), A, true, true,
	  { .load = 1, .ld_l2hit = 1, .lcl_peer = 1, .tot_peer = 1 } },
	{ "local peer (LLC)", OP(LOAD) | LVL(HIT | L3) | SNOOPX(X_PEER), A, true, true,
	  { .load = 1, .ld_llchit = 1, .lcl_peer = 1, .tot_peer = 1 } },
	{ "remote peer", OP(LOAD) | LVL(HIT | REM_CCE1) | SNOOPX(X_PEER), A, true, true,
	  { .load = 1, .rmt_hit = 1, .rmt_peer = 1, .tot_peer = 1, .ld_llcmiss = 1 } },
	{ "snoop forward: nothing extra", OP(LOAD) | LVL(HIT | L3) | SNOOPX(X_FWD), A, true, true,
	  { .load = 1, .ld_llchit = 1 } },
	/* lock, block */
	{ "locked load", OP(LOAD) | LVL(HIT | L1) | LOCK(2), A, true, true,
	  { .load = 1, .ld_l1hit = 1, .locks = 1 } },
	{ "blocked by data", OP(LOAD) | LVL(HIT | L1) | BLK(2), A, true, true,
	  { .load = 1, .ld_l1hit = 1, .blk_data = 1 } },
	{ "blocked by address", OP(LOAD) | LVL(HIT | L1) | BLK(4), A, true, true,
	  { .load = 1, .ld_l1hit = 1, .blk_addr = 1 } },
	/* stores */
	{ "store L1 hit", OP(STORE) | LVL(HIT | L1), A, true, true,
	  { .store = 1, .st_l1hit = 1 } },
	{ "store L1 miss", OP(STORE) | LVL(MISS | L1), A, true, true,
	  { .store = 1, .st_l1miss = 1 } },
	{ "store level N/A", OP(STORE) | LVL(NA), A, true, true,
	  { .store = 1, .st_na = 1 } },
	{ "store uncached", OP(STORE) | LVL(HIT | UNC), A, true, true,
	  { .store = 1, .st_uncache = 1 } },
	{ "store L2 hit: no store counter", OP(STORE) | LVL(HIT | L2), A, true, true,
	  { .store = 1 } },
	{ "locked store", OP(STORE) | LVL(HIT | L1) | LOCK(2), A, true, true,
	  { .store = 1, .st_l1hit = 1, .locks = 1 } },
	/* rejected */
	{ "load without address", OP(LOAD) | LVL(HIT | L1), 0, true, false,
	  { .load = 1, .ld_noadrs = 1 } },
	{ "store without address", OP(STORE) | LVL(HIT | L1), 0, true, false,
	  { .store = 1, .st_noadrs = 1 } },
	{ "op N/A: unparsable", OP(OPNA) | LVL(NA) | SNOOP(S_NA) | LOCK(1) | TLB(1) | LVLNUM(N_NA), A, true, false,
	  { .noparse = 1 } },
	{ "zero: unparsable", 0, A, true, false,
	  { .noparse = 1 } },
	{ "prefetch: unparsable", OP(PFETCH) | LVL(HIT | L1), A, true, false,
	  { .noparse = 1 } },
	{ "unparsable still counts the lock bit", OP(EXEC) | LOCK(2), A, true, false,
	  { .noparse = 1, .locks = 1 } },
	{ "no map (load)", OP(LOAD) | LVL(HIT | L1), A, false, false,
	  { .load = 1, .ld_l1hit = 1, .nomap = 1 } },
	{ "no map (store)", OP(STORE) | LVL(HIT | L1), A, false, false,
	  { .store = 1, .st_l1hit = 1, .nomap = 1 } },
	{ "no address wins over no map", OP(LOAD) | LVL(HIT | L1), 0, false, false,
	  { .load = 1, .ld_noadrs = 1 } },
};

#define NR_COUNTERS c2c_nr_stat_fields

static uint32_t counter(const struct c2c_stats *st, size_t i)
{
	return c2c_stats__get(st, i);
}

static int check_stats(const char *what, const struct c2c_stats *got, const struct c2c_stats *want)
{
	int bad = 0;

	for (size_t i = 0; i < NR_COUNTERS; i++) {
		test_checks++;
		if (counter(got, i) != counter(want, i)) {
			fprintf(stderr, "%s: counter #%zu (offset %zu) is %u, want %u\n", what, i,
				(size_t)c2c_stat_fields[i].off, counter(got, i), counter(want, i));
			test_failures++;
			bad++;
		}
	}
	return bad;
}

/* The distinct data_src values of ../shared/realdata/amd-zen4-ibs-c2c-ring.data
 * (perf c2c record on an AMD EPYC 9254, perf 6.8.12) with their sample
 * counts, and how many of them had no data address. */
static const struct {
	uint64_t ds;
	uint32_t n, no_addr;
} amd[] = {
	{ 0x0000001e05080021ULL, 20291, 20291 }, /* non-memory op: N/A */
	{ 0x0000000229080142ULL, 5018, 0 },      /* load L1 hit */
	{ 0x0000001e29080024ULL, 79, 0 },        /* store, level N/A */
	{ 0x0000000429080444ULL, 365, 0 },       /* store L2 hit */
	{ 0x0000000229080144ULL, 379, 0 },       /* store L1 hit */
	{ 0x0000083629808042ULL, 3, 0 },         /* load, remote core same node, HitM */
	{ 0x0000000205080144ULL, 254, 254 },     /* store L1 hit, no address */
	{ 0x0000000205080142ULL, 1047, 1047 },   /* load L1 hit, no address */
	{ 0x0000000429080442ULL, 4, 0 },         /* load L2 hit */
	{ 0x0000001a29081042ULL, 2, 0 },         /* load local RAM */
	{ 0x0000083629088042ULL, 4, 0 },         /* load, remote core same node, snoop N/A */
	{ 0x0000001e49080024ULL, 1, 0 },         /* store, level N/A, TLB L2 hit */
};

/* perf 6.8's "Trace Event Information" for that file
 * (amd-zen4-ibs-c2c-ring.perf-6.8-c2c-report.txt). "No Page Map Rejects"
 * (53) depends on address resolution, not on data_src: not checked here. */
static void test_amd_zen4(void)
{
	struct c2c_stats st = { 0 };

	for (size_t i = 0; i < ARRAY_LEN(amd); i++)
		for (uint32_t k = 0; k < amd[i].n; k++)
			c2c_stats__decode(&st, amd[i].ds, k < amd[i].no_addr ? 0 : A, true);
	CHECK_EQ_U64(st.nr_entries, 27447);         /* Total records */
	CHECK_EQ_U64(st.locks, 0);                  /* Locked Load/Store Operations */
	CHECK_EQ_U64(st.load, 6078);                /* Load Operations */
	CHECK_EQ_U64(st.ld_uncache, 0);             /* Loads - uncacheable */
	CHECK_EQ_U64(st.ld_io, 0);                  /* Loads - IO */
	CHECK_EQ_U64(st.ld_miss, 0);                /* Loads - Miss */
	CHECK_EQ_U64(st.ld_noadrs, 1047);           /* Loads - no mapping */
	CHECK_EQ_U64(st.ld_fbhit, 0);               /* Load Fill Buffer Hit */
	CHECK_EQ_U64(st.ld_l1hit, 5018);            /* Load L1D hit */
	CHECK_EQ_U64(st.ld_l2hit, 4);               /* Load L2D hit */
	CHECK_EQ_U64(st.ld_llchit + st.lcl_hitm, 0); /* Load LLC hit (perf adds lcl_hitm) */
	CHECK_EQ_U64(st.lcl_hitm, 0);               /* Load Local HITM */
	CHECK_EQ_U64(st.rmt_hitm, 3);               /* Load Remote HITM */
	CHECK_EQ_U64(st.rmt_hit, 0);                /* Load Remote HIT */
	CHECK_EQ_U64(st.lcl_dram, 2);               /* Load Local DRAM */
	CHECK_EQ_U64(st.rmt_dram, 0);               /* Load Remote DRAM */
	CHECK_EQ_U64(st.ld_excl, 2);                /* Load MESI State Exclusive */
	CHECK_EQ_U64(st.ld_shared, 0);              /* Load MESI State Shared */
	CHECK_EQ_U64(st.ld_llcmiss, 5);             /* Load LLC Misses */
	CHECK_EQ_U64(st.blk_data, 0);               /* Load access blocked by data */
	CHECK_EQ_U64(st.blk_addr, 0);               /* Load access blocked by address */
	CHECK_EQ_U64(st.lcl_peer, 0);               /* Load HIT Local Peer */
	CHECK_EQ_U64(st.rmt_peer, 0);               /* Load HIT Remote Peer */
	CHECK_EQ_U64(st.store, 1078);               /* Store Operations */
	CHECK_EQ_U64(st.st_uncache, 0);             /* Store - uncacheable */
	CHECK_EQ_U64(st.st_noadrs, 254);            /* Store - no mapping */
	CHECK_EQ_U64(st.st_l1hit, 379);             /* Store L1D Hit */
	CHECK_EQ_U64(st.st_l1miss, 0);              /* Store L1D Miss */
	CHECK_EQ_U64(st.st_na, 80);                 /* Store No available memory level */
	CHECK_EQ_U64(st.noparse, 20291);            /* Unable to parse data source */
	/* ours: all three "remote" HITMs were another core of the same node */
	CHECK_EQ_U64(st.rmt_hitm_same_node, 3);
	CHECK_EQ_U64(st.nomap, 0);
}

/* Invariants perf's counting keeps for any value, even nonsense ones. */
static void test_random(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < 200000; i++) {
		uint64_t ds = test_rand(&seed) & ((1ULL << 51) - 1);
		uint64_t addr = test_rand(&seed) & 1 ? A : 0;
		bool mapped = test_rand(&seed) & 1;
		struct c2c_stats st = { 0 }, twice = { 0 };
		struct datasrc d;
		bool keep = c2c_stats__decode(&st, ds, addr, mapped);

		datasrc__decode(ds, &d);
		if (st.tot_hitm != st.lcl_hitm + st.rmt_hitm || st.tot_peer != st.lcl_peer + st.rmt_peer ||
		    st.ld_llcmiss != st.lcl_dram + st.rmt_dram + st.rmt_hitm + st.rmt_hit ||
		    st.nr_entries != 1 || st.load + st.store + st.noparse != 1 ||
		    keep != (addr && mapped && (d.op & (LOAD | STORE))) ||
		    st.nomap != (addr && !mapped && (d.op & (LOAD | STORE))) ||
		    st.rmt_hitm_same_node > st.rmt_hitm) {
			fprintf(stderr, "invariant broken for data_src %#llx addr %d mapped %d\n",
				(unsigned long long)ds, !!addr, mapped);
			test_failures++;
			break;
		}
		/* decoding adds: twice into one struct = 2 x once */
		c2c_stats__decode(&twice, ds, addr, mapped);
		c2c_stats__decode(&twice, ds, addr, mapped);
		for (size_t k = 0; k < NR_COUNTERS; k++)
			if (counter(&twice, k) != 2 * counter(&st, k)) {
				fprintf(stderr, "not additive for %#llx\n", (unsigned long long)ds);
				test_failures++;
				i = 1 << 30;
				break;
			}
	}
	test_checks++;
}

static void test_print(void)
{
	static const struct {
		uint64_t ds;
		const char *want;
	} p[] = {
		{ OP(LOAD) | LVL(HIT | L3) | SNOOP(S_HITM) | LOCK(0) | TLB(2 | 8 | 16),
		  "LOAD|LVL L3 hit|SNP HitM|TLB L1 or L2 hit|LCK No|BLK N/A" },
		{ 0x0000083629808042ULL, /* AMD Zen 4 "remote" HITM */
		  "LOAD|LVL Remote core, same node Any cache hit|SNP HitM|TLB L1 hit|LCK N/A|BLK N/A" },
		{ 0x0000001e05080021ULL, /* AMD non-memory op */
		  "N/A|LVL N/A|SNP N/A|TLB N/A|LCK N/A|BLK N/A" },
		{ OP(STORE) | LVL(MISS | L1) | LOCK(2) | TLB(4 | 32),
		  "STORE|LVL L1 miss|SNP N/A|TLB Walker miss|LCK Yes|BLK N/A" },
		{ OP(LOAD) | LVL(HIT | L3 | LOC_RAM) | SNOOP(S_HIT | S_MISS) | SNOOPX(X_PEER) | BLK(2 | 4),
		  "LOAD|LVL L3 or Local RAM hit|SNP Hit or Miss or Peer|TLB N/A|LCK No|BLK Data or Addr" },
		{ OP(LOAD) | LVL(HIT) | LVLNUM(N_RAM) | REMOTE(1) | HOPS(2) | REGION(7),
		  "LOAD|LVL Remote node, same socket RAM hit|SNP N/A|TLB N/A|LCK No|BLK N/A|Region MMIO" },
		{ OP(0) | LVLNUM(7), "No|LVL L0|SNP N/A|TLB N/A|LCK No|BLK N/A" },
	};
	char buf[256];

	for (size_t i = 0; i < ARRAY_LEN(p); i++) {
		size_t n = datasrc__scnprintf(buf, sizeof(buf), p[i].ds);

		CHECK_STR(buf, p[i].want);
		CHECK_EQ_U64(n, strlen(p[i].want));
	}
	/* truncation: every size stores a terminated prefix and says how long */
	for (size_t i = 0; i < ARRAY_LEN(p); i++) {
		size_t full = strlen(p[i].want);

		for (size_t size = 1; size <= full + 2; size++) {
			char small[256];
			size_t n;

			memset(small, 'x', sizeof(small));
			n = datasrc__scnprintf(small, size, p[i].ds);
			if (n != (full < size ? full : size - 1) || small[n] != '\0' ||
			    strncmp(small, p[i].want, n) || small[size] != 'x') {
				fprintf(stderr, "truncation at %zu of '%s' wrong\n", size, p[i].want);
				test_failures++;
			}
			test_checks++;
		}
	}
	CHECK_EQ_U64(datasrc__scnprintf(buf, 0, ~0ULL), 0);
	/* every value prints without overflowing the documented buffer */
	for (uint64_t v = 1, s = 7; v; v <<= 1) {
		size_t n = datasrc__scnprintf(buf, sizeof(buf), v | (test_rand(&s) & ((1ULL << 51) - 1)));

		CHECK(n < sizeof(buf) && strlen(buf) == n);
	}
}

int main(void)
{
	struct datasrc d;

	for (size_t i = 0; i < ARRAY_LEN(rows); i++) {
		const struct row *r = &rows[i];
		struct c2c_stats st = { 0 }, want = r->want;
		bool keep = c2c_stats__decode(&st, r->ds, r->addr, r->mapped);

		want.nr_entries = 1;
		if (keep != r->keep)
			fprintf(stderr, "%s: keep %d\n", r->what, keep);
		CHECK(keep == r->keep);
		check_stats(r->what, &st, &want);
	}
	test_amd_zen4();
	test_random();
	test_print();

	CHECK(datasrc__is_na(0));
	CHECK(datasrc__is_na(OP(OPNA) | LVL(NA)));
	CHECK(!datasrc__is_na(OP(LOAD) | LVL(HIT | L1)));
	CHECK(!datasrc__is_na(OP(STORE)));
	/* field layout of include/uapi/linux/perf_event.h */
	datasrc__decode(OP(LOAD) | LVL(HIT | L3) | SNOOP(S_HITM) | LOCK(2) | TLB(0x7f) | LVLNUM(3) | REMOTE(1) |
			SNOOPX(2) | BLK(4) | HOPS(2) | REGION(0x1f), &d);
	CHECK_EQ_U64(d.op, LOAD);
	CHECK_EQ_U64(d.lvl, HIT | L3);
	CHECK_EQ_U64(d.snoop, S_HITM);
	CHECK_EQ_U64(d.lock, 2);
	CHECK_EQ_U64(d.dtlb, 0x7f);
	CHECK_EQ_U64(d.lvl_num, 3);
	CHECK_EQ_U64(d.remote, 1);
	CHECK_EQ_U64(d.snoopx, 2);
	CHECK_EQ_U64(d.blk, 4);
	CHECK_EQ_U64(d.hops, 2);
	CHECK_EQ_U64(d.region, 0x1f);
	datasrc__decode(~0ULL, &d);
	CHECK_EQ_U64(d.op, 0x1f);
	CHECK_EQ_U64(d.lvl, 0x3fff);
	CHECK_EQ_U64(d.hops, 7);
	{
		struct c2c_stats a = { .load = 2, .tot_hitm = 1 }, b = { .load = 3, .access = 4 };

		/* the list names every member once, at its own offset */
		CHECK_EQ_U64(c2c_nr_stat_fields * sizeof(uint32_t), sizeof(struct c2c_stats));
		for (size_t i = 0; i < c2c_nr_stat_fields; i++) {
			struct c2c_stats one = { 0 };

			*(uint32_t *)((char *)&one + c2c_stat_fields[i].off) = 7;
			CHECK_EQ_U64(c2c_stats__get(&one, i), 7);
			for (size_t j = 0; j < i; j++)
				CHECK(c2c_stat_fields[j].off != c2c_stat_fields[i].off &&
				      strcmp(c2c_stat_fields[j].name, c2c_stat_fields[i].name));
		}
		CHECK_STR(c2c_stat_fields[0].name, "samples");
		c2c_stats__add(&a, &b);
		CHECK_EQ_U64(a.load, 5);
		CHECK_EQ_U64(a.access, 4);
		CHECK_EQ_U64(a.tot_hitm, 1);
		c2c_stats__add_times(&a, &b, 3);
		CHECK_EQ_U64(a.load, 14);
		CHECK_EQ_U64(a.access, 16);
		CHECK_EQ_U64(a.tot_hitm, 1);
	}
	return test_done("test_datasrc");
}
