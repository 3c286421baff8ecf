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
 * The counters, listed once: X(member, JSON name, perf c2c's label in its
 * "Trace Event Information", NULL for ours). The list makes struct
 * c2c_stats, the JSON field names (in this order), the labels --stdio
 * prints (in perf's order: stdio.c), c2c_stats__add and
 * c2c_stats__add_times. Members follow perf's struct c2c_stats; 32 bits: a
 * file would need > 4G samples (hundreds of GB) to wrap one.
 * rmt_hitm_same_node: of rmt_hitm, hops = 1, another core of the same node
 * (AMD). access: samples without a data source (software events). st_hitm:
 * stores whose snoop says HITM (they took the line from another core's
 * modified copy; emulated recordings have them, perf c2c does not count
 * them), also counted in st_l1miss.
 */
#define C2C_STATS_FIELDS(X)                                                                         \
	X(nr_entries, "samples", "Total records") X(load, "loads", "Load Operations")                \
	X(store, "stores", "Store Operations") X(lcl_hitm, "lcl_hitm", "Load Local HITM")            \
	X(rmt_hitm, "rmt_hitm", "Load Remote HITM") X(tot_hitm, "tot_hitm", NULL)                     \
	X(lcl_peer, "lcl_peer", "Load HIT Local Peer") X(rmt_peer, "rmt_peer", "Load HIT Remote Peer") \
	X(tot_peer, "tot_peer", NULL) X(ld_fbhit, "ld_fbhit", "Load Fill Buffer Hit")                \
	X(ld_l1hit, "ld_l1hit", "Load L1D hit") X(ld_l2hit, "ld_l2hit", "Load L2D hit")              \
	X(ld_llchit, "ld_llchit", "Load LLC hit") X(lcl_dram, "lcl_dram", "Load Local DRAM")         \
	X(rmt_dram, "rmt_dram", "Load Remote DRAM") X(rmt_hit, "rmt_hit", "Load Remote HIT")         \
	X(ld_uncache, "ld_uncache", "Loads - uncacheable") X(ld_io, "ld_io", "Loads - IO")            \
	X(ld_miss, "ld_miss", "Loads - Miss") X(ld_noadrs, "ld_noadrs", "Loads - no mapping")         \
	X(ld_excl, "ld_excl", "Load MESI State Exclusive")                                           \
	X(ld_shared, "ld_shared", "Load MESI State Shared")                                          \
	X(ld_llcmiss, "ld_llcmiss", "Load LLC Misses") X(st_l1hit, "st_l1hit", "Store L1D Hit")      \
	X(st_l1miss, "st_l1miss", "Store L1D Miss") X(st_hitm, "st_hitm", "Store HITM")              \
	X(st_na, "st_na", "Store No available memory level")                                         \
	X(st_uncache, "st_uncache", "Store - uncacheable") X(st_noadrs, "st_noadrs", "Store - no mapping") \
	X(locks, "locks", "Locked Load/Store Operations")                                            \
	X(blk_data, "blk_data", "Load access blocked by data")                                       \
	X(blk_addr, "blk_addr", "Load access blocked by address")                                    \
	X(nomap, "nomap", "No Page Map Rejects") X(noparse, "noparse", "Unable to parse data source") \
	X(rmt_hitm_same_node, "rmt_hitm_same_node", NULL) X(access, "access", NULL)

struct c2c_stats {
#define C2C_STATS_MEMBER(member, name, label) uint32_t member;
	C2C_STATS_FIELDS(C2C_STATS_MEMBER)
#undef C2C_STATS_MEMBER
};

/* The counters by position in the list: JSON name, perf's label (NULL for
 * ours) and offset in the struct. */
struct c2c_stat_field {
	const char *name;
	const char *label;
	uint16_t off;
};
/* A counter's position in the list: C2C_STAT_load, ... */
enum c2c_stat {
#define C2C_STATS_INDEX(member, name, label) C2C_STAT_##member,
	C2C_STATS_FIELDS(C2C_STATS_INDEX)
#undef C2C_STATS_INDEX
	C2C_STAT__NR
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
/* True when the value is a HITM, a store HITM or a peer-cache hit: what
 * c2c_stats__decode counts in tot_hitm, st_hitm and the peers. */
bool datasrc__contended(uint64_t val);
/* True when the value says nothing (op N/A or 0: cycles events, IBS non-memory ops). */
bool datasrc__is_na(uint64_t val);
/* True when the value's operation is a store (mem_op, bits 0-4). */
static inline bool datasrc__is_store(uint64_t val)
{
	return (val & 0x1f) & 0x04;
}

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
