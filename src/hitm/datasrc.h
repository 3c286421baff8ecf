/* SPDX-License-Identifier: GPL-2.0 */
/*
 * union perf_mem_data_src decoding, in one place, and the counters perf c2c
 * uses (tools/perf/util/mem-events.c c2c_decode_stats) so that numbers can be
 * compared line by line with `perf c2c report`.
 */
#ifndef C2CSCAN_DATASRC_H
#define C2CSCAN_DATASRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Counters; names follow perf's struct c2c_stats. 32 bits: a file would
 * need > 4G samples (hundreds of GB) to wrap one. */
struct c2c_stats {
	uint32_t nr_entries;
	uint32_t locks, blk_data, blk_addr;
	uint32_t load, store;
	uint32_t st_uncache, st_noadrs, st_l1hit, st_l1miss, st_na;
	uint32_t ld_noadrs, ld_uncache, ld_io, ld_miss;
	uint32_t ld_fbhit, ld_l1hit, ld_l2hit, ld_llchit;
	uint32_t lcl_hitm, rmt_hitm, tot_hitm;
	uint32_t lcl_peer, rmt_peer, tot_peer;
	uint32_t rmt_hit, lcl_dram, rmt_dram;
	uint32_t ld_excl, ld_shared, ld_llcmiss;
	uint32_t nomap, noparse;
	uint32_t rmt_hitm_same_node;    /* of rmt_hitm: hops = 1, another core of the same node (AMD) */
	uint32_t access;                /* samples without a data source (software events) */
};

/* Decoded fields of a data_src value (bit layout of the uapi union). */
struct datasrc {
	uint32_t op, lvl, snoop, lock, dtlb, lvl_num, remote, snoopx, blk, hops;
	uint32_t region;          /* mem_region (5 bits at 46, newer kernels) */
};

void datasrc__decode(uint64_t val, struct datasrc *d);
/* Human-readable, the way perf script prints it:
 * "LOAD|LVL L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK N/A" (and
 * "|Region ..." when set). Returns the length stored (scnprintf). */
size_t datasrc__scnprintf(char *buf, size_t size, uint64_t val);
/* True when the value says nothing (op N/A or 0: cycles events, IBS non-memory ops). */
bool datasrc__is_na(uint64_t val);

/*
 * Count one sample into st the way perf c2c does. mapped: the data address
 * (and the code address) resolved to a mapping. Returns true when the sample
 * belongs to a cacheline (perf keeps it in the cacheline table), false for
 * samples perf rejects (no address, unparsable, no map).
 */
bool c2c_stats__decode(struct c2c_stats *st, uint64_t data_src, uint64_t daddr, bool mapped);
void c2c_stats__add(struct c2c_stats *dst, const struct c2c_stats *src);

#endif
