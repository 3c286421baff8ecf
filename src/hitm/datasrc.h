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

/*
 * The counters, listed once: X(member, JSON name). The list makes struct
 * c2c_stats, the JSON field names (in this order), c2c_stats__add and
 * c2c_stats__add_times. Members follow perf's struct c2c_stats; 32 bits: a
 * file would need > 4G samples (hundreds of GB) to wrap one.
 * rmt_hitm_same_node: of rmt_hitm, hops = 1, another core of the same node
 * (AMD). access: samples without a data source (software events). st_hitm:
 * stores whose snoop says HITM (they took the line from another core's
 * modified copy; emulated recordings have them, perf c2c does not count
 * them), also counted in st_l1miss.
 */
#define C2C_STATS_FIELDS(X)                                                             \
	X(nr_entries, "samples") X(load, "loads") X(store, "stores")                    \
	X(lcl_hitm, "lcl_hitm") X(rmt_hitm, "rmt_hitm") X(tot_hitm, "tot_hitm")         \
	X(lcl_peer, "lcl_peer") X(rmt_peer, "rmt_peer") X(tot_peer, "tot_peer")         \
	X(ld_fbhit, "ld_fbhit") X(ld_l1hit, "ld_l1hit") X(ld_l2hit, "ld_l2hit")         \
	X(ld_llchit, "ld_llchit") X(lcl_dram, "lcl_dram") X(rmt_dram, "rmt_dram")       \
	X(rmt_hit, "rmt_hit") X(ld_uncache, "ld_uncache") X(ld_io, "ld_io")             \
	X(ld_miss, "ld_miss") X(ld_noadrs, "ld_noadrs") X(ld_excl, "ld_excl")           \
	X(ld_shared, "ld_shared") X(ld_llcmiss, "ld_llcmiss") X(st_l1hit, "st_l1hit")   \
	X(st_l1miss, "st_l1miss") X(st_hitm, "st_hitm") X(st_na, "st_na")                \
	X(st_uncache, "st_uncache")                                                     \
	X(st_noadrs, "st_noadrs") X(locks, "locks") X(blk_data, "blk_data")             \
	X(blk_addr, "blk_addr") X(nomap, "nomap") X(noparse, "noparse")                 \
	X(rmt_hitm_same_node, "rmt_hitm_same_node") X(access, "access")

struct c2c_stats {
#define C2C_STATS_MEMBER(member, name) uint32_t member;
	C2C_STATS_FIELDS(C2C_STATS_MEMBER)
#undef C2C_STATS_MEMBER
};

/* The counters by position in the list: JSON name and offset in the struct. */
struct c2c_stat_field {
	const char *name;
	uint16_t off;
};
extern const struct c2c_stat_field c2c_stat_fields[];
extern const size_t c2c_nr_stat_fields;

/* Counter i of the list. */
static inline uint32_t c2c_stats__get(const struct c2c_stats *st, size_t i)
{
	return *(const uint32_t *)((const char *)st + c2c_stat_fields[i].off);
}

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
/* dst += times x src */
void c2c_stats__add_times(struct c2c_stats *dst, const struct c2c_stats *src, uint32_t times);

#endif
