// SPDX-License-Identifier: GPL-2.0
/* Aggregation: lines by key, rows by (offset, iaddr), display modes,
 * show_all, latency means, sets, consistency of totals/lines/rows with
 * c2c_stats__decode, stable order; and the add rate (printed, not asserted). */
#include <stdlib.h>
#include <time.h>
#include "hitm/c2c.h"
#include "util/relay.h"
#include "test.h"

#define LOAD_L1 (0x2ULL | (0x0aULL << 5) | (0x2ULL << 19))
#define LCL_HITM (0x2ULL | (0x42ULL << 5) | (0x10ULL << 19))
#define RMT_HITM (0x2ULL | (0x402ULL << 5) | (0x10ULL << 19))
#define LCL_PEER (0x2ULL | (0x22ULL << 5) | (0x2ULL << 38))
#define ST_L1HIT (0x4ULL | (0x0aULL << 5))
#define ST_L1MISS (0x4ULL | (0x0cULL << 5))
#define SKL_RMT_HITM (0x2ULL | (0x02ULL << 5) | (0x10ULL << 19) | (1ULL << 37)) /* remote bit, no hops */
#define NR_COUNTERS c2c_nr_stat_fields

static struct c2c_sample priv(uint32_t pid, uint32_t tid, uint64_t addr, uint64_t ip, uint64_t ds, uint64_t w)
{
	struct c2c_sample s = { .data_src = ds, .addr = addr, .ip = ip, .weight = w, .pid = pid, .tid = tid,
				.cpu = tid % 4, .node = 0, .cpumode = 2, .mapped = true, .object = "[heap]" };

	s.key.kind = CL_PRIVATE;
	s.key.pid = pid;
	s.key.line = addr & ~63ULL;
	return s;
}

static uint32_t counter(const struct c2c_stats *st, size_t i)
{
	return c2c_stats__get(st, i);
}

static bool stats_eq(const struct c2c_stats *a, const struct c2c_stats *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* s into two models counting as it comes and a third behind a relay. */
static void add_to_all(struct c2c *x, struct c2c *y, struct relay *rl, const struct c2c_sample *s)
{
	c2c__add(x, s);
	c2c__add(y, s);
	*(struct c2c_sample *)relay__slot(rl) = *s;
	relay__push(rl);
}

/* The brief's false-sharing picture and the basic ranking. */
static void test_basic(void)
{
	struct c2c *c = c2c__new(64);
	const struct c2c_line *const *lines;
	struct c2c_sample s;
	size_t n;

	/* thread 11 writes offset 0, thread 12 offset 8, both load the
	 * other's field with HITM */
	for (int i = 0; i < 3; i++) {
		s = priv(10, 11, 0x1000, 0x400100, ST_L1MISS, 0);
		c2c__add(c, &s);
		s = priv(10, 12, 0x1008, 0x400200, ST_L1HIT, 0);
		c2c__add(c, &s);
		s = priv(10, 11, 0x1008, 0x400110, LCL_HITM, 100);
		c2c__add(c, &s);
		s = priv(10, 12, 0x1000, 0x400210, RMT_HITM, 300);
		c2c__add(c, &s);
	}
	/* another line: loads only (not contended) */
	s = priv(10, 11, 0x2000, 0x400300, LOAD_L1, 5);
	c2c__add(c, &s);
	/* same vaddr, other process: another line (private keys) */
	s = priv(20, 21, 0x1000, 0x400100, LCL_HITM, 50);
	c2c__add(c, &s);
	/* peer-only line */
	s = priv(30, 31, 0x3000, 0x400400, LCL_PEER, 40);
	c2c__add(c, &s);
	/* a sample perf rejects (no address) counts in totals only */
	s = priv(10, 11, 0, 0x400500, LOAD_L1, 0);
	c2c__add(c, &s);

	CHECK_EQ_U64(c2c__line_size(c), 64);
	CHECK_EQ_U64(c2c__nr_lines(c), 4);
	CHECK_EQ_U64(c2c__totals(c)->nr_entries, 16);
	CHECK_EQ_U64(c2c__totals(c)->tot_hitm, 7);
	CHECK_EQ_U64(c2c__totals(c)->ld_noadrs, 1);

	n = c2c__sort(c, C2C_DISPLAY_TOT, false, &lines);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(lines[0]->key.pid, 10);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->stats.tot_hitm, 6);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->stats.lcl_hitm, 3);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->stats.rmt_hitm, 3);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->stats.store, 6);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->tids.nr, 2);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->pids.nr, 1);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->cpus.nr, 2);     /* tid % 4: cpus 3 and 0 */
	CHECK_EQ_U64(c2c_line__counts(lines[0])->nodes.nr, 1);
	CHECK_EQ_U64(lines[0]->addr, 0x1000);
	CHECK_EQ_U64(lines[0]->first_pid, 10);
	CHECK_STR(lines[0]->object, "[heap]");
	/* rows: (0, rmt hitm load), (0, st), (8, lcl hitm load), (8, st) */
	CHECK_EQ_U64(lines[0]->nr_rows, 4);
	CHECK_EQ_U64(c2c_line__rows(lines[0])[0].offset, 0);
	CHECK_EQ_U64(c2c_line__rows(lines[0])[0].stats.rmt_hitm, 3);      /* metric first within an offset */
	CHECK_EQ_U64(c2c_line__rows(lines[0])[0].iaddr, 0x400210);
	CHECK_EQ_U64(c2c_line__rows(lines[0])[1].offset, 0);
	CHECK_EQ_U64(c2c_line__rows(lines[0])[1].stats.st_l1miss, 3);
	CHECK_EQ_U64(c2c_line__rows(lines[0])[2].offset, 8);
	CHECK_EQ_U64(c2c_line__rows(lines[0])[2].iaddr, 0x400110);
	CHECK_EQ_U64(c2c_line__rows(lines[0])[3].stats.st_l1hit, 3);
	CHECK_EQ_U64(c2c_line__rows(lines[0])[3].tids.nr, 1);
	CHECK_EQ_U64(u32set__data(&c2c_line__rows(lines[0])[3].tids)[0], 12);
	/* latency: HITM loads 3 x 100 + 3 x 300; loads the same (stores have none) */
	CHECK_EQ_U64(c2c_line__counts(lines[0])->lat.hitm_cnt, 6);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->lat.hitm_sum, 3 * 100 + 3 * 300);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->lat.load_cnt, 6);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->lat.load_sum, 1200);
	CHECK_EQ_U64(c2c_line__rows(lines[0])[0].lat.hitm_sum, 900);
	CHECK_EQ_U64(c2c_line__rows(lines[0])[0].lat.hitm_cnt, 3);
	CHECK_EQ_U64(lines[1]->key.pid, 20);

	n = c2c__sort(c, C2C_DISPLAY_RMT, false, &lines);
	CHECK_EQ_U64(n, 1);
	n = c2c__sort(c, C2C_DISPLAY_LCL, false, &lines);
	CHECK_EQ_U64(n, 2);
	/* lcl: pid 10 has 3, pid 20 has 1 */
	CHECK_EQ_U64(lines[0]->key.pid, 10);
	n = c2c__sort(c, C2C_DISPLAY_PEER, false, &lines);
	CHECK_EQ_U64(n, 1);
	CHECK_EQ_U64(lines[0]->key.pid, 30);
	n = c2c__sort(c, C2C_DISPLAY_ALL, false, &lines);
	CHECK_EQ_U64(n, 4);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->stats.nr_entries, 12);
	n = c2c__sort(c, C2C_DISPLAY_TOT, true, &lines);
	CHECK_EQ_U64(n, 4);
	/* show_all: the metric-0 lines follow, by accesses then key */
	CHECK_EQ_U64(c2c_line__counts(lines[0])->stats.tot_hitm, 6);
	CHECK_EQ_U64(c2c_line__counts(lines[1])->stats.tot_hitm, 1);
	CHECK_EQ_U64(c2c_line__counts(lines[2])->stats.tot_hitm, 0);
	CHECK_EQ_U64(c2c_line__counts(lines[3])->stats.tot_hitm, 0);
	CHECK(lines[2]->key.pid < lines[3]->key.pid);

	/* adding after a sort (rows moved) still finds the existing rows */
	s = priv(10, 11, 0x1008, 0x400110, LCL_HITM, 100);
	c2c__add(c, &s);
	n = c2c__sort(c, C2C_DISPLAY_TOT, false, &lines);
	CHECK_EQ_U64(lines[0]->nr_rows, 4);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->stats.lcl_hitm, 4);

	/* software events: accesses of unknown kind, ranked by 'all' */
	s = priv(40, 41, 0x5000, 0x400600, 0, 0);
	s.no_datasrc = true;
	c2c__add(c, &s);
	n = c2c__sort(c, C2C_DISPLAY_ALL, false, &lines);
	CHECK_EQ_U64(n, 5);
	CHECK_EQ_U64(c2c__totals(c)->access, 1);
	/* a data address with an N/A data source (page faults with -d): the
	 * totals count it unparsable like perf, the line as an access */
	s = priv(40, 41, 0x5000, 0x400600, 0x1, 0);
	c2c__add(c, &s);
	CHECK_EQ_U64(c2c__totals(c)->noparse, 1);
	CHECK_EQ_U64(c2c__totals(c)->access, 2);
	n = c2c__sort(c, C2C_DISPLAY_ALL, false, &lines);
	CHECK_EQ_U64(n, 5);
	for (size_t i = 0; i < n; i++)
		if (lines[i]->key.pid == 40)
			CHECK_EQ_U64(c2c_line__counts(lines[i])->stats.access, 2);
	c2c__delete(c);
	c2c__delete(NULL);
}

/* Two threads writing different offsets of one line: one line, two rows
 * (stores only, so it ranks in 'all', not in the HITM modes). */
static void test_false_sharing_stores(void)
{
	struct c2c *c = c2c__new(64);
	const struct c2c_line *const *lines;
	struct c2c_sample s;
	size_t n;

	for (int i = 0; i < 100; i++) {
		s = priv(7, 8, 0x601040, 0x401000, ST_L1MISS, 0);
		c2c__add(c, &s);
		s = priv(7, 9, 0x601048, 0x401000, ST_L1MISS, 0);
		c2c__add(c, &s);
	}
	CHECK_EQ_U64(c2c__nr_lines(c), 1);
	CHECK_EQ_U64(c2c__sort(c, C2C_DISPLAY_TOT, false, &lines), 0);
	n = c2c__sort(c, C2C_DISPLAY_ALL, false, &lines);
	CHECK_EQ_U64(n, 1);
	CHECK_EQ_U64(lines[0]->addr, 0x601040);
	CHECK_EQ_U64(lines[0]->nr_rows, 2);
	CHECK_EQ_U64(c2c_line__rows(lines[0])[0].offset, 0);
	CHECK_EQ_U64(c2c_line__rows(lines[0])[1].offset, 8);
	CHECK_EQ_U64(u32set__data(&c2c_line__rows(lines[0])[0].tids)[0], 8);
	CHECK_EQ_U64(u32set__data(&c2c_line__rows(lines[0])[1].tids)[0], 9);
	CHECK_EQ_U64(c2c_line__rows(lines[0])[0].stats.st_l1miss, 100);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->tids.nr, 2);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->lat.load_cnt, 0);
	c2c__delete(c);
}

/* --double-cl: the caller passes 2L; offsets run to 127. */
static void test_double_cl(void)
{
	struct c2c *c = c2c__new(128);
	const struct c2c_line *const *lines;
	struct c2c_sample s;

	s = priv(1, 1, 0x10070, 0x400000, LCL_HITM, 0);
	s.key.line = 0x10000;
	c2c__add(c, &s);
	s = priv(1, 2, 0x10008, 0x400004, LCL_HITM, 0);
	s.key.line = 0x10000;
	c2c__add(c, &s);
	CHECK_EQ_U64(c2c__sort(c, C2C_DISPLAY_TOT, false, &lines), 1);
	CHECK_EQ_U64(lines[0]->addr, 0x10000);
	CHECK_EQ_U64(lines[0]->nr_rows, 2);
	CHECK_EQ_U64(c2c_line__rows(lines[0])[0].offset, 0x08);
	CHECK_EQ_U64(c2c_line__rows(lines[0])[1].offset, 0x70);
	c2c__delete(c);
}

/* cpu (u32)-1 and node -1 (unknown) stay out of the sets; sets merge. */
static void test_sets(void)
{
	struct c2c *c = c2c__new(64);
	const struct c2c_line *const *lines;
	struct c2c_sample s;

	for (uint32_t t = 0; t < 10; t++) {
		s = priv(100 + t % 3, 200 + t, 0x9000, 0x400000, LCL_HITM, 0);
		s.cpu = t < 5 ? t : (uint32_t)-1;
		s.node = t < 5 ? (int32_t)(t & 1) : -1;
		c2c__add(c, &s);
	}
	CHECK_EQ_U64(c2c__sort(c, C2C_DISPLAY_TOT, false, &lines), 3); /* private keys: 3 pids */
	for (int i = 0; i < 3; i++)
		CHECK_EQ_U64(c2c_line__counts(lines[i])->pids.nr, 1);
	/* the same with a shared key: one line */
	c2c__delete(c);
	c = c2c__new(64);
	for (uint32_t t = 0; t < 10; t++) {
		s = priv(100 + t % 3, 200 + t, 0x9000, 0x400000, LCL_HITM, 0);
		s.key.kind = CL_SHARED;
		s.key.pid = 0;
		s.key.ino = 42;
		s.cpu = t < 5 ? t : (uint32_t)-1;
		s.node = t < 5 ? (int32_t)(t & 1) : -1;
		c2c__add(c, &s);
	}
	CHECK_EQ_U64(c2c__sort(c, C2C_DISPLAY_TOT, false, &lines), 1);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->pids.nr, 3);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->tids.nr, 10);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->cpus.nr, 5);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->nodes.nr, 2);
	CHECK_EQ_U64(c2c_line__rows(lines[0])[0].tids.nr, 10);
	CHECK_EQ_U64(lines[0]->first_pid, 100);
	for (uint32_t i = 1; i < c2c_line__counts(lines[0])->tids.nr; i++)
		CHECK(u32set__data(&c2c_line__counts(lines[0])->tids)[i - 1] < u32set__data(&c2c_line__counts(lines[0])->tids)[i]);
	c2c__delete(c);
}

static bool set_eq(const struct u32set *a, const struct u32set *b);

/* A line's sets are the union of its rows' sets, whether a row keeps its
 * contexts in its bitmap (ids below 64) or in a list (beyond). */
static void test_ctx_union(void)
{
	struct c2c *c = c2c__new(64);
	const struct c2c_line *const *lines;
	const struct c2c_counts *k;
	struct u32set pids = { 0 }, tids = { 0 }, cpus = { 0 }, nodes = { 0 };
	uint64_t seed = 99;

	for (int i = 0; i < 3000; i++) {
		/* row 1 first: tids 500-539, one context each (a bitmap of
		 * ids 0-39); row 0: tids 0-99 on two cpus (a list); row 2:
		 * tids 300-309, interned last (a list of ids >= 64) */
		uint32_t row = i < 1000 ? 1 : i < 2000 ? 0 : 2;
		uint32_t tid = row == 0 ? i % 100 : row == 1 ? 500 + i % 40 : 300 + i % 10;
		struct c2c_sample s = priv(1 + tid % 7, tid, 0x9000 + row * 8, 0x400000 + row * 4, LCL_HITM, 0);

		s.cpu = row == 1 || test_rand(&seed) % 2 ? tid % 9 : (uint32_t)-1;
		s.node = (int32_t)(tid % 3) - 1;
		c2c__add(c, &s);
	}
	CHECK_EQ_U64(c2c__sort(c, C2C_DISPLAY_TOT, false, &lines), 7);
	for (size_t l = 0; l < 7; l++) {
		k = c2c_line__counts(lines[l]);
		for (size_t r = 0; r < lines[l]->nr_rows; r++) {
			const struct c2c_row *row = &c2c_line__rows(lines[l])[r];

			u32set__merge(&pids, &row->pids);
			u32set__merge(&tids, &row->tids);
			u32set__merge(&cpus, &row->cpus);
			u32set__merge(&nodes, &row->nodes);
		}
		CHECK(set_eq(&k->pids, &pids) && set_eq(&k->tids, &tids) && set_eq(&k->cpus, &cpus) &&
		      set_eq(&k->nodes, &nodes));
		CHECK(k->tids.nr >= 15);
		u32set__exit(&pids);
		u32set__exit(&tids);
		u32set__exit(&cpus);
		u32set__exit(&nodes);
		pids = tids = cpus = nodes = (struct u32set){ 0 };
	}
	c2c__delete(c);
}

/*
 * Random samples with random data sources: totals equal the sum of
 * c2c_stats__decode over all samples (the decode cache changes nothing,
 * double counts included), the lines hold exactly the samples perf keeps
 * plus the unmapped ones, and every line is the sum of its rows.
 */
static void test_consistency(void)
{
	struct c2c *c = c2c__new(64);
	const struct c2c_line *const *lines;
	struct c2c_stats want = { 0 }, in_lines = { 0 }, sum = { 0 };
	uint64_t seed = 12345;
	uint32_t accesses = 0;
	size_t n;

	for (int i = 0; i < 100000; i++) {
		/* a few hundred distinct values so the cache both hits and
		 * evicts; a quarter fully random */
		uint64_t ds = test_rand(&seed) & 3 ? (test_rand(&seed) % 400) * 0x9e3779b97f4a7c15ULL : test_rand(&seed);
		uint64_t addr = test_rand(&seed) % 8 ? 0x1000 + (test_rand(&seed) % 64) * 8 : 0;
		struct c2c_sample s = priv(1 + test_rand(&seed) % 2, 5, addr, 0x400000 + (test_rand(&seed) % 3) * 4,
					   ds & ((1ULL << 51) - 1), test_rand(&seed) % 500);
		struct c2c_stats one = { 0 };
		bool keep;

		s.mapped = test_rand(&seed) % 4;
		s.key.unmapped = !s.mapped;
		keep = c2c_stats__decode(&one, s.data_src, s.addr, s.mapped);
		c2c_stats__add(&want, &one);
		if (keep || one.nomap)
			c2c_stats__add(&in_lines, &one);
		else if (s.addr && datasrc__is_na(s.data_src))
			accesses++;
		c2c__add(c, &s);
	}
	/* totals: decode's, plus 'access' for N/A sources with an address */
	sum = *c2c__totals(c);
	sum.access = 0;
	CHECK(stats_eq(&sum, &want));
	CHECK_EQ_U64(c2c__totals(c)->ld_llcmiss, want.lcl_dram + want.rmt_dram + want.rmt_hitm + want.rmt_hit);

	/* a view's HITM latency sums are those of its lines */
	for (int all = 0; all < 2; all++) {
		uint64_t hsum = 0, hcnt = 0, vsum, vcnt;

		n = c2c__sort(c, all ? C2C_DISPLAY_ALL : C2C_DISPLAY_TOT, all, &lines);
		for (size_t i = 0; i < n; i++) {
			hsum += c2c_line__counts(lines[i])->lat.hitm_sum;
			hcnt += c2c_line__counts(lines[i])->lat.hitm_cnt;
			c2c__trim(c, NULL);
		}
		c2c__view_hitm(c, &vsum, &vcnt);
		CHECK(hcnt > 100 && n > 10);
		CHECK_EQ_U64(vsum, hsum);
		CHECK_EQ_U64(vcnt, hcnt);
	}
	n = c2c__sort(c, C2C_DISPLAY_ALL, true, &lines);
	CHECK_EQ_U64(n, c2c__nr_lines(c));
	memset(&sum, 0, sizeof(sum));
	for (size_t i = 0; i < n; i++) {
		struct c2c_stats rows = { 0 };
		struct c2c_lat lat = { 0 };

		c2c_stats__add(&sum, &c2c_line__counts(lines[i])->stats);
		for (size_t r = 0; r < lines[i]->nr_rows; r++) {
			c2c_stats__add(&rows, &c2c_line__rows(lines[i])[r].stats);
			lat.hitm_sum += c2c_line__rows(lines[i])[r].lat.hitm_sum;
			lat.load_cnt += c2c_line__rows(lines[i])[r].lat.load_cnt;
			if (r)
				CHECK(c2c_line__rows(lines[i])[r - 1].offset <= c2c_line__rows(lines[i])[r].offset);
		}
		CHECK(stats_eq(&rows, &c2c_line__counts(lines[i])->stats));
		CHECK_EQ_U64(lat.hitm_sum, c2c_line__counts(lines[i])->lat.hitm_sum);
		CHECK_EQ_U64(lat.load_cnt, c2c_line__counts(lines[i])->lat.load_cnt);
		if (i)
			CHECK(c2c_line__counts(lines[i - 1])->stats.nr_entries >= c2c_line__counts(lines[i])->stats.nr_entries);
	}
	/* lines also hold N/A-source accesses (as nr_entries + access) */
	CHECK_EQ_U64(sum.access, accesses);
	CHECK_EQ_U64(c2c__totals(c)->access, accesses);
	sum.nr_entries -= sum.access;
	sum.access = 0;
	CHECK(stats_eq(&sum, &in_lines));
	for (size_t i = 0; i < NR_COUNTERS; i++)
		if (counter(&sum, i) != counter(&in_lines, i))
			fprintf(stderr, "consistency: counter #%zu lines %u, want %u\n", i, counter(&sum, i),
				counter(&in_lines, i));
	c2c__delete(c);
}

/* Each view lists the accumulators of its own lines only: switching
 * between a view of a few contended lines and one of every line (and back)
 * gives each line the counts and rows a fresh aggregation gives it. */
static void check_view(struct c2c *c, struct c2c *fresh, enum c2c_display mode, bool all)
{
	const struct c2c_line *const *lines, *const *want;
	size_t n = c2c__sort(c, mode, all, &lines), nw = c2c__sort(fresh, mode, all, &want);

	CHECK_EQ_U64(n, nw);
	for (size_t i = 0; i < n && i < nw; i++) {
		CHECK(cl_key__equal(&lines[i]->key, &want[i]->key));
		CHECK_EQ_U64(lines[i]->nr_rows, want[i]->nr_rows);
		CHECK(stats_eq(&c2c_line__counts(lines[i])->stats, &c2c_line__counts(want[i])->stats));
		for (size_t r = 0; r < lines[i]->nr_rows && r < want[i]->nr_rows; r++) {
			CHECK_EQ_U64(c2c_line__rows(lines[i])[r].iaddr, c2c_line__rows(want[i])[r].iaddr);
			CHECK(stats_eq(&c2c_line__rows(lines[i])[r].stats, &c2c_line__rows(want[i])[r].stats));
		}
		c2c__trim(c, NULL);
		c2c__trim(fresh, NULL);
	}
}

/* 20k samples over 3000 lines, one in 50 a HITM: the same ones each call. */
static struct c2c *view_samples(void)
{
	uint64_t seed = 777;
	struct c2c *c = c2c__new(64);

	for (int i = 0; i < 20000; i++) {
		uint64_t line = test_rand(&seed) % 3000, ds = test_rand(&seed) % 50 ? ST_L1MISS : test_rand(&seed) % 2 ? LCL_HITM
												  : SKL_RMT_HITM;
		struct c2c_sample s = priv(1 + line % 3, 10 + test_rand(&seed) % 4, 0x100000 + line * 64 + test_rand(&seed) % 8 * 8,
					   0x400000 + test_rand(&seed) % 5 * 4, ds, 0);

		c2c__add(c, &s);
	}
	return c;
}

static void test_view_switch(void)
{
	const enum c2c_display modes[] = { C2C_DISPLAY_TOT, C2C_DISPLAY_ALL, C2C_DISPLAY_RMT, C2C_DISPLAY_TOT };
	struct c2c *c = view_samples();

	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct c2c *fresh = view_samples();

		check_view(c, fresh, modes[m], m == 1);
		c2c__delete(fresh);
	}
	c2c__delete(c);
}

/* perf's double count survives aggregation: one Skylake remote HITM is a
 * remote DRAM load too, and two LLC misses. */
static void test_double_count(void)
{
	struct c2c *c = c2c__new(64);
	const struct c2c_line *const *lines;
	struct c2c_sample s = priv(1, 1, 0x4000, 0x400000, SKL_RMT_HITM, 0);

	c2c__add(c, &s);
	c2c__add(c, &s);
	CHECK_EQ_U64(c2c__sort(c, C2C_DISPLAY_RMT, false, &lines), 1);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->stats.rmt_hitm, 2);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->stats.rmt_dram, 2);
	CHECK_EQ_U64(c2c_line__counts(lines[0])->stats.ld_llcmiss, 4);
	CHECK_EQ_U64(c2c_line__rows(lines[0])[0].stats.ld_llcmiss, 4);
	CHECK_EQ_U64(c2c__totals(c)->ld_llcmiss, 4);
	c2c__delete(c);
}

/* The order does not depend on insertion order (ties broken by key). */
static void test_stable_order(void)
{
	struct c2c *a = c2c__new(64), *b = c2c__new(64);
	const struct c2c_line *const *la, *const *lb;
	struct c2c_sample s;
	size_t na, nb;

	for (int i = 0; i < 500; i++) {
		int j = 499 - i;

		s = priv(1 + i % 5, 1, 0x100000 + (uint64_t)(i / 5) * 64, 0x400000, i % 3 ? LCL_HITM : RMT_HITM, 0);
		c2c__add(a, &s);
		s = priv(1 + j % 5, 1, 0x100000 + (uint64_t)(j / 5) * 64, 0x400000, j % 3 ? LCL_HITM : RMT_HITM, 0);
		c2c__add(b, &s);
	}
	na = c2c__sort(a, C2C_DISPLAY_TOT, false, &la);
	nb = c2c__sort(b, C2C_DISPLAY_TOT, false, &lb);
	CHECK_EQ_U64(na, 500);
	CHECK_EQ_U64(nb, 500);
	for (size_t i = 0; i < na && i < nb; i++)
		if (!cl_key__equal(&la[i]->key, &lb[i]->key)) {
			CHECK(!"order differs with insertion order");
			break;
		}
	/* rmt mode: only the i % 3 == 0 lines */
	CHECK_EQ_U64(c2c__sort(a, C2C_DISPLAY_RMT, false, &la), 167);
	c2c__delete(a);
	c2c__delete(b);
}

/* The first chunk of lines, line identities, accumulators and their cold
 * parts starts small and grows until whole, moving; the later chunks are
 * whole: what each line and row keeps of its first sample survives the
 * moves and the change to whole chunks (past LID_CHUNK lines, ACC_CHUNK
 * and COLD_CHUNK accumulators), and lines made by a second view after more
 * samples come (a line chunk no larger than the lines left) are right too. */
static void test_chunks(void)
{
	const uint32_t NL = 40000, ROWS = 4;    /* 160k accumulators */
	struct c2c *c = c2c__new(64);
	const struct c2c_line *const *lines;
	uint64_t sum = 0;
	size_t n;
	bool ok = true;

	for (uint32_t i = 0; i < 3; i++) {
		struct c2c_sample s = priv(7, 1, 0x100000 + (uint64_t)i * 64, 0x500000, LCL_HITM, 0);

		s.time = i;
		c2c__add(c, &s);
	}
	CHECK_EQ_U64(c2c__sort(c, C2C_DISPLAY_ALL, false, &lines), 3);
	for (uint32_t k = 0; k < ROWS; k++)
		for (uint32_t i = 0; i < NL; i++) {
			struct c2c_sample s = priv(1 + i % 5, 1, 0x200000 + (uint64_t)i * 64 + k * 8, 0x400000 + k * 4,
						   LCL_HITM, 0);

			s.time = 1000 + (uint64_t)k * NL + i;
			c2c__add(c, &s);
		}
	n = c2c__sort(c, C2C_DISPLAY_ALL, false, &lines);
	CHECK_EQ_U64(n, NL + 3);
	for (size_t i = 0; i < n; i++) {
		const struct c2c_line *l = lines[i];
		const struct c2c_row *rows = c2c_line__rows(l);

		sum += c2c_line__counts(l)->stats.nr_entries;
		if (l->key.line < 0x200000) {
			ok &= l->first_time == (l->key.line - 0x100000) / 64 && l->first_pid == 7 && l->nr_rows == 1;
			continue;
		}
		uint32_t line = (uint32_t)((l->key.line - 0x200000) / 64);

		ok &= l->first_time == 1000 + line && l->first_pid == 1 + line % 5 && l->nr_rows == ROWS;
		for (uint32_t r = 0; r < l->nr_rows; r++) {
			uint32_t k = (uint32_t)(rows[r].iaddr - 0x400000) / 4;

			ok &= rows[r].offset == k * 8 && rows[r].first_time == 1000 + (uint64_t)k * NL + line &&
			      rows[r].first_pid == 1 + line % 5;
		}
		c2c__trim(c, NULL);
	}
	CHECK(ok);
	CHECK_EQ_U64(sum, (uint64_t)NL * ROWS + 3);
	c2c__delete(c);
}

/*
 * Many rows (60k lines of 4, each row in one to three tags: heap objects),
 * in a random order, with views taken between (the indexes dropped and
 * made again, tagged rows among them), some samples of more data sources
 * than the registry keeps: each row's count, first sample and tag, and
 * the rows' order of making, against counts kept here.
 */
static void test_many_rows(void)
{
	enum { NL = 60000, ROWS = 4, TAGS = 3, N = 600000 };
	static uint32_t cnt[NL][ROWS][TAGS];
	static uint64_t first[NL][ROWS][TAGS];
	struct c2c *c = c2c__new(64);
	const struct c2c_line *const *lines;
	uint64_t seed = 99, total = 0;
	size_t n, nr_lines = 0;
	bool ok = true;

	for (uint32_t i = 0; i < N; i++) {
		uint64_t r = test_rand(&seed);
		uint32_t line = (uint32_t)(r % NL), k = (uint32_t)(r >> 20) % ROWS, tag = (uint32_t)(r >> 24) % TAGS;
		struct c2c_sample s = priv(1 + line % 5, 1 + (uint32_t)(r >> 28) % 8, 0x200000 + (uint64_t)line * 64 + k * 8,
					   0x400000 + k * 4, LCL_HITM, 0);

		if (i % 1000 == 999)
			s.data_src = 0x2ULL | ((uint64_t)(i / 1000 % 400) << 5) | (0x10ULL << 19);
		/* tags from a third of the way on: the rows made before have tag 0 */
		s.tag = i < N / 3 ? 0 : tag;
		s.time = i;
		if (!cnt[line][k][s.tag]++)
			first[line][k][s.tag] = i;
		c2c__add(c, &s);
		if (i == N / 6 || i == N / 2)
			c2c__sort(c, C2C_DISPLAY_TOT, false, &lines);
	}
	for (uint32_t line = 0; line < NL; line++)
		for (uint32_t k = 0; k < ROWS; k++)
			if (cnt[line][k][0] + cnt[line][k][1] + cnt[line][k][2]) {
				nr_lines++;
				break;
			}
	n = c2c__sort(c, C2C_DISPLAY_ALL, false, &lines);
	CHECK_EQ_U64(n, nr_lines);
	for (size_t i = 0; i < n; i++) {
		const struct c2c_line *l = lines[i];
		const struct c2c_row *rows = c2c_line__rows(l);
		uint32_t line = (uint32_t)((l->key.line - 0x200000) / 64), want = 0;

		for (uint32_t k = 0; k < ROWS; k++)
			for (uint32_t t = 0; t < TAGS; t++)
				want += cnt[line][k][t] != 0;
		ok &= l->nr_rows == want;
		for (uint32_t r = 0; r < l->nr_rows; r++) {
			uint32_t k = (uint32_t)(rows[r].iaddr - 0x400000) / 4, t = rows[r].tag;

			total += rows[r].stats.nr_entries;
			if (k >= ROWS || t >= TAGS) {
				ok = false;
				continue;
			}
			ok &= rows[r].offset == k * 8 && rows[r].stats.nr_entries == cnt[line][k][t] &&
			      rows[r].first_time == first[line][k][t];
			/* rows the sort finds equal stay in the order they were made */
			if (r && rows[r - 1].offset == rows[r].offset &&
			    rows[r - 1].stats.nr_entries == rows[r].stats.nr_entries)
				ok &= rows[r - 1].first_time < rows[r].first_time;
		}
		c2c__trim(c, NULL);
	}
	CHECK(ok);
	CHECK_EQ_U64(total, N);
	c2c__delete(c);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static bool set_eq(const struct u32set *a, const struct u32set *b)
{
	return a->nr == b->nr && !memcmp(u32set__data(a), u32set__data(b), a->nr * sizeof(uint32_t));
}

static bool line_eq(const struct c2c_line *a, const struct c2c_line *b)
{
	const struct c2c_counts *ka = c2c_line__counts(a), *kb = c2c_line__counts(b);

	if (!cl_key__equal(&a->key, &b->key) || a->addr != b->addr || a->first_pid != b->first_pid ||
	    a->object != b->object || !stats_eq(&ka->stats, &kb->stats) || memcmp(&ka->lat, &kb->lat, sizeof(ka->lat)) ||
	    !set_eq(&ka->pids, &kb->pids) || !set_eq(&ka->tids, &kb->tids) || !set_eq(&ka->cpus, &kb->cpus) ||
	    !set_eq(&ka->nodes, &kb->nodes) || a->nr_rows != b->nr_rows)
		return false;
	for (size_t i = 0; i < a->nr_rows; i++) {
		const struct c2c_row *x = &c2c_line__rows(a)[i], *y = &c2c_line__rows(b)[i];

		if (x->offset != y->offset || x->iaddr != y->iaddr || x->cpumode != y->cpumode ||
		    x->code_object != y->code_object || memcmp(&x->lat, &y->lat, sizeof(x->lat)) ||
		    !stats_eq(&x->stats, &y->stats) || !set_eq(&x->pids, &y->pids) || !set_eq(&x->tids, &y->tids) ||
		    !set_eq(&x->cpus, &y->cpus) || !set_eq(&x->nodes, &y->nodes))
			return false;
	}
	return true;
}

/* as the report counts: lines found per batch, then the samples added */
static void relay_add(void *arg, void *items, size_t nr)
{
	c2c__resolve(arg, items, nr);
	for (size_t i = 0; i < nr; i++)
		c2c__add(arg, (const struct c2c_sample *)items + i);
}

/*
 * The same samples added at once, or in three parts with sorts in other
 * modes in between (the TUI's 'd'), or resolved in batches before they are
 * added on another thread (pass 2's relay), give the same model. The samples go
 * through every representation of an accumulator: more decodes than it
 * keeps inline (and more data sources than the registry keeps), more
 * contexts than its bitmap holds, weights zero and not, unknown cpus and
 * nodes, objects known only from a later sample of a line.
 */
static void test_incremental(void)
{
	static const uint64_t srcs[] = { LOAD_L1, LCL_HITM, RMT_HITM, LCL_PEER, ST_L1HIT, ST_L1MISS, SKL_RMT_HITM };
	static const char *const objs[] = { NULL, "[heap]", "/lib/x.so" };
	struct c2c *a = c2c__new(64), *b = c2c__new(64), *c = c2c__new(64);
	struct relay *rl = relay__new(sizeof(struct c2c_sample), relay_add, c);
	const struct c2c_line *const *la, *const *lb, *const *lc;
	uint64_t seed = 7;
	size_t na, nb;
	const int N = 60000;
	static bool tid_seen[50][300];

	for (int i = 0; i < N; i++) {
		uint64_t r = test_rand(&seed);
		uint32_t line = r % 50, tid = (r >> 8) % 300;
		struct c2c_sample s = priv(1 + line % 3, tid, 0x100000 + line * 64 + (r >> 20) % 2 * 8,
					   0x400000 + (r >> 24) % 2 * 4, srcs[(r >> 28) % 7], (r >> 32) % 3 * 50);

		if ((r >> 40) % 50 == 0)
			s.data_src = 0x2ULL | ((uint64_t)(i % 400) << 5) | (0x10ULL << 19); /* many distinct */
		s.cpu = (r >> 44) % 5 == 0 ? (uint32_t)-1 : (uint32_t)((r >> 48) % 96);
		s.node = s.cpu == (uint32_t)-1 ? -1 : (int32_t)(s.cpu / 48);
		s.object = objs[i < 1000 ? 0 : (r >> 52) % 3];
		tid_seen[line][tid] = true;
		add_to_all(b, a, rl, &s);
		if (i == N / 3) {
			c2c__sort(a, C2C_DISPLAY_TOT, false, &la);
			c2c__sort(a, C2C_DISPLAY_ALL, true, &la);
		} else if (i == 2 * N / 3) {
			c2c__sort(a, C2C_DISPLAY_RMT, false, &la);
		}
	}
	relay__finish(rl);
	CHECK(stats_eq(c2c__totals(a), c2c__totals(b)));
	CHECK(stats_eq(c2c__totals(c), c2c__totals(b)));
	for (int mode = C2C_DISPLAY_TOT; mode <= C2C_DISPLAY_ALL; mode++) {
		for (int all = 0; all < 2; all++) {
			size_t nc;

			na = c2c__sort(a, mode, all, &la);
			nb = c2c__sort(b, mode, all, &lb);
			nc = c2c__sort(c, mode, all, &lc);
			CHECK_EQ_U64(na, nb);
			CHECK_EQ_U64(nc, nb);
			for (size_t i = 0; i < na && i < nb; i++)
				if (!line_eq(la[i], lb[i])) {
					CHECK(!"incremental and one-shot models differ");
					break;
				}
			for (size_t i = 0; i < nc && i < nb; i++)
				if (!line_eq(lc[i], lb[i])) {
					CHECK(!"resolved ahead and one-shot models differ");
					break;
				}
		}
	}
	/* every line's tid set is exactly the tids its samples had */
	na = c2c__sort(a, C2C_DISPLAY_ALL, true, &la);
	CHECK_EQ_U64(na, 50);
	for (size_t i = 0; i < na; i++) {
		uint32_t line = (uint32_t)((la[i]->key.line - 0x100000) / 64), want = 0;

		for (uint32_t t = 0; t < 300; t++)
			want += tid_seen[line % 50][t];
		CHECK_EQ_U64(c2c_line__counts(la[i])->tids.nr, want);
		CHECK(want > 250);
		CHECK(c2c_line__counts(la[i])->cpus.nr > 64 && c2c_line__counts(la[i])->cpus.nr <= 96);
		CHECK_EQ_U64(c2c_line__counts(la[i])->nodes.nr, 2);
		/* its first samples had no object, later ones had */
		CHECK(la[i]->object != NULL);
	}
	c2c__delete(a);
	c2c__delete(b);
	c2c__delete(c);
}

/* A replay: the same samples again, as a report reads its file again. */
struct feed {
	const struct c2c_sample *s;
	size_t nr;
	unsigned int calls;
	size_t fed;             /* samples the last call gave */
};

static void feed_again(void *arg, struct c2c *c)
{
	struct feed *f = arg;
	uint64_t lo, hi;

	f->calls++;
	c2c__replay_range(c, &lo, &hi);
	f->fed = 0;
	/* in batches of up to 100, in a copy (c2c__replay changes them) */
	for (uint64_t i = lo; i < hi && i < f->nr;) {
		struct c2c_sample b[100];
		size_t n = 0;

		while (n < 100 && i < hi && i < f->nr)
			b[n++] = f->s[i++];
		c2c__replay(c, b, n);
		f->fed = i;
	}
}

static bool rows_first_eq(const struct c2c_line *a, const struct c2c_line *b)
{
	for (size_t i = 0; i < a->nr_rows && i < b->nr_rows; i++) {
		const struct c2c_row *x = &c2c_line__rows(a)[i], *y = &c2c_line__rows(b)[i];

		if (x->tag != y->tag || x->first_time != y->first_time || x->first_pid != y->first_pid ||
		    x->code_map != y->code_map)
			return false;
	}
	return true;
}

/*
 * Rows for the lines a view shows (c2c__set_replay): lines whose contention
 * starts at their first sample, late, or never (or with a decode past the
 * registry's); rows made before and after
 * a line's first contended sample, with tags from the middle on (rows that
 * differ only by their tag keep the order of their first samples), sorts
 * while adding; added at once or resolved in batches on another thread.
 * Every view of every mode, with and without every line, equals that of a
 * model that counts every sample into its row as it comes, and a view of
 * the contended lines reads the samples again no further than the last
 * line's start of contention.
 */
static void test_lazy_rows(void)
{
	static const uint64_t calm[] = { LOAD_L1, ST_L1HIT, ST_L1MISS }, hot[] = { LCL_HITM, RMT_HITM, LCL_PEER };
	enum { NL = 400, N = 50000 };
	static struct c2c_sample all[N];
	static uint32_t start[NL], hot_seen[NL];
	static uint64_t decs[1000];
	size_t nr_decs = 0, k;
	struct c2c *eager = c2c__new(64), *lazy = c2c__new(64), *rel = c2c__new(64);
	struct feed fl = { all, 0, 0, 0 }, fr = { all, 0, 0, 0 };
	struct relay *rl = relay__new(sizeof(struct c2c_sample), relay_add, rel);
	const struct c2c_line *const *le, *const *ll, *const *lr;
	uint64_t seed = 4242, last_start = 0;
	bool same = true;

	for (uint32_t i = 0; i < NL; i++)
		start[i] = i % 4 == 0 ? 0 : i % 4 == 1 ? UINT32_MAX : (uint32_t)(test_rand(&seed) % (N / 2));
	c2c__set_replay(lazy, feed_again, &fl);
	c2c__set_replay(rel, feed_again, &fr);
	for (uint32_t i = 0; i < N; i++) {
		uint64_t r = test_rand(&seed);
		uint32_t line = (uint32_t)(r % NL);
		bool contends = i >= start[line] && (r >> 12) % 3 == 0;
		struct c2c_sample s = priv(1 + line % 3, 1 + (uint32_t)(r >> 16) % 90, 0x300000 + (uint64_t)line * 64 +
					   (r >> 24) % 4 * 8, 0x400000 + (r >> 28) % 3 * 4,
					   contends ? hot[(r >> 32) % 3] : calm[(r >> 32) % 3], (r >> 36) % 4 * 40);

		/* past the registry's 255 decodes: decoded per sample, and
		 * their lines followed from them on */
		if (i % 97 == 0 && i < N / 2) {
			s.data_src = 0x2ULL | ((uint64_t)(i / 97 % 600) << 5) | (0x10ULL << 19);
			contends = true;        /* a HITM */
		}
		s.time = i;
		s.tag = i < N / 2 ? 0 : (uint32_t)(r >> 40) % 3;
		s.cpu = (uint32_t)(r >> 44) % 8;
		s.code_map = (const struct map_desc *)(uintptr_t)(0x1000 + (r >> 48) % 2 * 8);
		/* the last line to be followed: at its first contended sample,
		 * or its first with a decode outside the registry (the 256th
		 * distinct (data source, weighted) on) */
		for (k = 0; k < nr_decs && decs[k] != (s.data_src << 1 | (s.weight != 0)); k++)
			;
		if (k == nr_decs)
			decs[nr_decs++] = s.data_src << 1 | (s.weight != 0);
		if ((contends || k >= 255) && !hot_seen[line]++)
			last_start = i;
		all[i] = s;
		fl.nr = fr.nr = i + 1;
		add_to_all(eager, lazy, rl, &s);
		if (i == N / 3) {
			c2c__sort(lazy, C2C_DISPLAY_TOT, false, &ll);
			c2c__sort(eager, C2C_DISPLAY_TOT, false, &le);
		}
	}
	relay__finish(rl);
	CHECK(stats_eq(c2c__totals(lazy), c2c__totals(eager)));
	CHECK(stats_eq(c2c__totals(rel), c2c__totals(eager)));
	/* the view of contended lines: read again up to their last start only */
	fl.calls = 0;
	c2c__sort(lazy, C2C_DISPLAY_TOT, false, &ll);
	CHECK_EQ_U64(fl.calls, 1);
	CHECK(last_start > N / 3 && last_start < 2 * N / 3);
	CHECK(fl.fed > 0 && fl.fed <= last_start + 1);
	for (int mode = C2C_DISPLAY_TOT; mode <= C2C_DISPLAY_ALL; mode++) {
		for (int show = 0; show < 2; show++) {
			size_t ne = c2c__sort(eager, mode, show, &le), nl = c2c__sort(lazy, mode, show, &ll),
			       nr = c2c__sort(rel, mode, show, &lr);
			uint64_t s1, c1, s2, c2, s3, c3;

			CHECK_EQ_U64(nl, ne);
			CHECK_EQ_U64(nr, ne);
			for (size_t i = 0; i < ne && i < nl && i < nr; i++) {
				same &= line_eq(ll[i], le[i]) && rows_first_eq(ll[i], le[i]);
				same &= line_eq(lr[i], le[i]) && rows_first_eq(lr[i], le[i]);
				c2c__trim(eager, NULL);
				c2c__trim(lazy, NULL);
				c2c__trim(rel, NULL);
			}
			c2c__view_hitm(eager, &s1, &c1);
			c2c__view_hitm(lazy, &s2, &c2);
			c2c__view_hitm(rel, &s3, &c3);
			CHECK(s1 == s2 && c1 == c2 && s1 == s3 && c1 == c3);
			c2c__load_latency(eager, &s1, &c1);
			c2c__load_latency(lazy, &s2, &c2);
			c2c__load_latency(rel, &s3, &c3);
			CHECK(s1 == s2 && c1 == c2 && s1 == s3 && c1 == c3 && c1 > 0);
		}
	}
	CHECK(same);
	/* every line is counted now: no more replays */
	fl.calls = 0;
	c2c__sort(lazy, C2C_DISPLAY_ALL, true, &ll);
	CHECK_EQ_U64(fl.calls, 0);
	c2c__delete(eager);
	c2c__delete(lazy);
	c2c__delete(rel);
}

/* Counts and rows are built when asked for; c2c__trim frees them once they
 * pass the budget, but the kept line's, and they come back the same. */
static void test_trim(void)
{
	const uint32_t NL = 20000;      /* ~20k counts and 40k rows: past the budget */
	struct c2c *c = c2c__new(64);
	const struct c2c_line *const *lines;
	const struct c2c_counts *k0;
	const struct c2c_row *r0;
	uint32_t *entries = xcalloc(NL, sizeof(*entries)), *row_tid = xcalloc(NL, sizeof(*row_tid));
	uint64_t sum = 0;
	size_t n;

	for (uint32_t i = 0; i < 4 * NL; i++) {
		struct c2c_sample s = priv(1, 10 + i % 7, 0x100000 + (uint64_t)(i % NL) * 64 + (i / NL) % 2 * 8,
					   0x400000 + (i / NL) % 2 * 4, i % 3 ? LCL_HITM : ST_L1MISS, 100);

		c2c__add(c, &s);
	}
	n = c2c__sort(c, C2C_DISPLAY_ALL, true, &lines);
	CHECK_EQ_U64(n, NL);
	k0 = c2c_line__counts(lines[0]);
	r0 = c2c_line__rows(lines[0]);
	for (size_t i = 0; i < n; i++) {
		const struct c2c_counts *k = c2c_line__counts(lines[i]);

		entries[i] = k->stats.nr_entries;
		row_tid[i] = u32set__data(&c2c_line__rows(lines[i])[lines[i]->nr_rows - 1].tids)[0];
		sum += k->stats.nr_entries;
		CHECK_EQ_U64(c2c_line__metric(lines[i], C2C_DISPLAY_ALL), k->stats.nr_entries);
		CHECK_EQ_U64(c2c_line__metric(lines[i], C2C_DISPLAY_TOT), k->stats.tot_hitm);
	}
	CHECK_EQ_U64(sum, c2c__totals(c)->nr_entries);
	c2c__trim(c, lines[0]);
	/* the kept line's are where they were */
	CHECK(c2c_line__counts(lines[0]) == k0);
	CHECK(c2c_line__rows(lines[0]) == r0);
	for (size_t i = 0; i < n; i++) {
		CHECK_EQ_U64(c2c_line__counts(lines[i])->stats.nr_entries, entries[i]);
		CHECK_EQ_U64(u32set__data(&c2c_line__rows(lines[i])[lines[i]->nr_rows - 1].tids)[0], row_tid[i]);
		c2c__trim(c, NULL);
	}
	free(entries);
	free(row_tid);
	c2c__delete(c);
}

/*
 * Rate, printed only (machines differ). "hot": samples concentrate on a few
 * thousand lines with a handful of rows each, as in a real contention
 * profile. "wide": 100k lines touched uniformly at random with up to 32
 * code addresses each (~250k rows): nearly every add misses the caches.
 */
static void rate(const char *what, uint32_t nr_lines, uint32_t nr_ips, uint32_t nr_offsets)
{
	const int N = 2000000;
	struct c2c *c = c2c__new(64);
	uint64_t seed = 99, rows = 0;
	const struct c2c_line *const *lines;
	double t0, secs;

	t0 = now();
	for (int i = 0; i < N; i++) {
		uint64_t r = test_rand(&seed);
		uint64_t line = r % nr_lines, k = (r >> 32) & 15;
		uint64_t off = (line + (r >> 40) % nr_offsets) % 8;
		struct c2c_sample s = priv(10 + line % 4, 100 + k, 0x100000 + line * 64 + off * 8,
					   0x400000 + (line * 7 + (r >> 48) % nr_ips) * 4,
					   k < 2 ? LCL_HITM : k < 3 ? ST_L1MISS : k < 4 ? ST_L1HIT : LOAD_L1, 100 + k);

		c2c__add(c, &s);
	}
	secs = now() - t0;
	c2c__sort(c, C2C_DISPLAY_ALL, true, &lines);
	for (size_t i = 0; i < c2c__nr_lines(c); i++)
		rows += lines[i]->nr_rows;
	printf("c2c__add %s: %.1f M samples/s (%zu lines, %llu rows)\n", what, N / secs / 1e6, c2c__nr_lines(c),
	       (unsigned long long)rows);
	CHECK_EQ_U64(c2c__totals(c)->nr_entries, N);
	c2c__delete(c);
}

int main(void)
{
	test_basic();
	test_false_sharing_stores();
	test_double_cl();
	test_sets();
	test_ctx_union();
	test_trim();
	test_chunks();
	test_many_rows();
	test_consistency();
	test_view_switch();
	test_double_count();
	test_stable_order();
	test_incremental();
	test_lazy_rows();
	rate("hot (2k lines, <= 4 rows each)", 2000, 2, 2);
	rate("wide (100k lines, uniform, <= 8 rows each)", 100000, 4, 2);
	rate("worst (100k lines, uniform, ~19 rows each)", 100000, 32, 8);
	return test_done("test_c2c");
}
