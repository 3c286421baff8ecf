// SPDX-License-Identifier: GPL-2.0
/* Aggregation: lines by key, rows by (offset, iaddr), display modes,
 * show_all, latency means, sets; and the add rate (printed, not asserted). */
#include <stdlib.h>
#include <time.h>
#include "hitm/c2c.h"
#include "test.h"

#define LOAD_L1 (0x2ULL | (0x0aULL << 5) | (0x2ULL << 19))
#define LCL_HITM (0x2ULL | (0x42ULL << 5) | (0x10ULL << 19))
#define RMT_HITM (0x2ULL | (0x402ULL << 5) | (0x10ULL << 19))
#define LCL_PEER (0x2ULL | (0x22ULL << 5) | (0x2ULL << 38))
#define ST_L1HIT (0x4ULL | (0x0aULL << 5))
#define ST_L1MISS (0x4ULL | (0x0cULL << 5))

static struct c2c_sample priv(uint32_t pid, uint32_t tid, uint64_t addr, uint64_t ip, uint64_t ds, uint64_t w)
{
	struct c2c_sample s = { .data_src = ds, .addr = addr, .ip = ip, .weight = w, .pid = pid, .tid = tid,
				.cpu = tid % 4, .node = 0, .cpumode = 2, .mapped = true, .object = "[heap]" };

	s.key.kind = CL_PRIVATE;
	s.key.pid = pid;
	s.key.line = addr & ~63ULL;
	return s;
}

int main(void)
{
	struct c2c *c = c2c__new(64);
	const struct c2c_line *const *lines;
	struct c2c_sample s;
	size_t n;

	/* false sharing: thread 11 writes offset 0, thread 12 offset 8, both
	 * load the other's field with HITM */
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

	CHECK_EQ_U64(c2c__nr_lines(c), 4);
	CHECK_EQ_U64(c2c__totals(c)->nr_entries, 16);
	CHECK_EQ_U64(c2c__totals(c)->tot_hitm, 7);
	CHECK_EQ_U64(c2c__totals(c)->ld_noadrs, 1);

	n = c2c__sort(c, C2C_DISPLAY_TOT, false, &lines);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(lines[0]->key.pid, 10);
	CHECK_EQ_U64(lines[0]->stats.tot_hitm, 6);
	CHECK_EQ_U64(lines[0]->stats.lcl_hitm, 3);
	CHECK_EQ_U64(lines[0]->stats.rmt_hitm, 3);
	CHECK_EQ_U64(lines[0]->stats.store, 6);
	CHECK_EQ_U64(lines[0]->tids.nr, 2);
	CHECK_EQ_U64(lines[0]->pids.nr, 1);
	CHECK_EQ_U64(lines[0]->addr, 0x1000);
	/* rows: (0, st), (0, rmt hitm load), (8, st), (8, lcl hitm load) */
	CHECK_EQ_U64(lines[0]->nr_rows, 4);
	CHECK_EQ_U64(lines[0]->rows[0].offset, 0);
	CHECK_EQ_U64(lines[0]->rows[0].stats.rmt_hitm, 3);      /* metric first within an offset */
	CHECK_EQ_U64(lines[0]->rows[1].offset, 0);
	CHECK_EQ_U64(lines[0]->rows[1].stats.st_l1miss, 3);
	CHECK_EQ_U64(lines[0]->rows[2].offset, 8);
	CHECK_EQ_U64(lines[0]->rows[2].iaddr, 0x400110);
	CHECK_EQ_U64(lines[0]->rows[3].stats.st_l1hit, 3);
	CHECK_EQ_U64(lines[0]->lat.hitm_cnt, 6);
	CHECK_EQ_U64(lines[0]->lat.hitm_sum, 3 * 100 + 3 * 300);
	CHECK_EQ_U64(lines[0]->rows[0].lat.hitm_sum, 900);
	CHECK_EQ_U64(lines[1]->key.pid, 20);

	n = c2c__sort(c, C2C_DISPLAY_RMT, false, &lines);
	CHECK_EQ_U64(n, 1);
	n = c2c__sort(c, C2C_DISPLAY_LCL, false, &lines);
	CHECK_EQ_U64(n, 2);
	n = c2c__sort(c, C2C_DISPLAY_PEER, false, &lines);
	CHECK_EQ_U64(n, 1);
	CHECK_EQ_U64(lines[0]->key.pid, 30);
	n = c2c__sort(c, C2C_DISPLAY_ALL, false, &lines);
	CHECK_EQ_U64(n, 4);
	CHECK_EQ_U64(lines[0]->stats.nr_entries, 12);
	n = c2c__sort(c, C2C_DISPLAY_TOT, true, &lines);
	CHECK_EQ_U64(n, 4);

	/* adding after a sort (rows moved) still finds the existing rows */
	s = priv(10, 11, 0x1008, 0x400110, LCL_HITM, 100);
	c2c__add(c, &s);
	n = c2c__sort(c, C2C_DISPLAY_TOT, false, &lines);
	CHECK_EQ_U64(lines[0]->nr_rows, 4);
	CHECK_EQ_U64(lines[0]->stats.lcl_hitm, 4);

	/* software events: accesses of unknown kind, ranked by 'all' */
	s = priv(40, 41, 0x5000, 0x400600, 0, 0);
	s.no_datasrc = true;
	c2c__add(c, &s);
	n = c2c__sort(c, C2C_DISPLAY_ALL, false, &lines);
	CHECK_EQ_U64(n, 5);
	CHECK_EQ_U64(c2c__totals(c)->access, 1);
	c2c__delete(c);

	/* rate: 2M adds over 100k lines */
	{
		struct timespec t0, t1;
		const int N = 2000000;
		double secs;

		c = c2c__new(64);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (int i = 0; i < N; i++) {
			uint64_t line = (uint64_t)(i * 2654435761u) % 100000;

			s = priv(10 + i % 4, 100 + i % 16, 0x100000 + line * 64 + (i % 8) * 8, 0x400000 + (i % 32) * 4,
				 i % 7 ? LOAD_L1 : LCL_HITM, 100);
			c2c__add(c, &s);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
		printf("c2c__add: %.1f M samples/s (%zu lines)\n", N / secs / 1e6, c2c__nr_lines(c));
		CHECK_EQ_U64(c2c__totals(c)->nr_entries, N);
		c2c__delete(c);
	}
	return test_done("test_c2c");
}
