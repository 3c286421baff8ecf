/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Arm Statistical Profiling Extension (SPE) traces, as the AUXTRACE records
 * of a perf.data file carry them (spe.c): the packets (headers, address,
 * counter, context, operation type, events, data source, timestamp;
 * padding, end), the records they make (a record ends at its timestamp or
 * end packet), a record's data_src in perf's encoding (Neoverse data
 * sources, else the generic mapping from the events) and the generic
 * timer's counts in the recording's clock (TIME_CONV). Every length is
 * checked: a bad packet is counted and skipped a byte at a time, as perf's
 * decoder does, never read past the buffer.
 */
#ifndef C2CSCAN_PERFDATA_SPE_H
#define C2CSCAN_PERFDATA_SPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "perfdata/perf_data.h"

enum pd_spe_pkt {
	SPE_PKT_BAD, SPE_PKT_PAD, SPE_PKT_END, SPE_PKT_TIMESTAMP, SPE_PKT_ADDRESS, SPE_PKT_COUNTER,
	SPE_PKT_CONTEXT, SPE_PKT_OP_TYPE, SPE_PKT_EVENTS, SPE_PKT_DATA_SOURCE,
};

/* Address packet indices, counter packet indices, op type classes */
enum { SPE_ADDR_PC = 0, SPE_ADDR_BRANCH = 1, SPE_ADDR_DATA_VIRT = 2, SPE_ADDR_DATA_PHYS = 3 };
enum { SPE_CNT_TOTAL_LAT = 0, SPE_CNT_ISSUE_LAT = 1, SPE_CNT_XLAT = 2 };
enum { SPE_OP_OTHER = 0, SPE_OP_LDST = 1, SPE_OP_BRANCH = 2 };

/* Events packet bits */
enum {
	SPE_EV_EXCEPTION = 0, SPE_EV_RETIRED = 1, SPE_EV_L1D_ACCESS = 2, SPE_EV_L1D_REFILL = 3,
	SPE_EV_TLB_ACCESS = 4, SPE_EV_TLB_WALK = 5, SPE_EV_NOT_TAKEN = 6, SPE_EV_MISPRED = 7,
	SPE_EV_LLC_ACCESS = 8, SPE_EV_LLC_MISS = 9, SPE_EV_REMOTE_ACCESS = 10,
};

/* Neoverse data sources (the data source packet's payload) */
enum {
	SPE_NV_L1D = 0x0, SPE_NV_L2 = 0x8, SPE_NV_PEER_CORE = 0x9, SPE_NV_LOCAL_CLUSTER = 0xa,
	SPE_NV_SYS_CACHE = 0xb, SPE_NV_PEER_CLUSTER = 0xc, SPE_NV_REMOTE = 0xd, SPE_NV_DRAM = 0xe,
};

struct pd_spe_packet {
	enum pd_spe_pkt type;
	uint8_t index;          /* address, counter: its index; context: EL; op type: class */
	uint64_t payload;
};

/* One packet at buf: its length (> 0), or -1 when it is cut by the end of
 * the buffer, -2 when the header is not one. */
int pd_spe_packet(const uint8_t *buf, size_t len, struct pd_spe_packet *p);

/* Operation flags of a record */
enum { SPE_REC_LD = 1, SPE_REC_ST = 2, SPE_REC_OTHER = 4, SPE_REC_BRANCH = 8 };

struct pd_spe_record {
	uint64_t ip, branch_target, vaddr, paddr;
	uint64_t timestamp;     /* generic timer counts, 0 none */
	uint64_t context;       /* CONTEXTIDR: the tid; UINT64_MAX none */
	uint64_t events;        /* the events packet's bits */
	uint32_t op;            /* SPE_REC_* */
	uint32_t latency;       /* total latency, cycles */
	uint16_t source;
	bool has_source;
};

struct pd_spe_stats {
	uint64_t records;       /* records made */
	uint64_t cut;           /* of them, ended by a bad packet rather than their timestamp or end */
	uint64_t bad;           /* bytes skipped: bad headers, packets cut by a buffer's end */
};

/* One queue's records (an AUX buffer of a CPU or a thread): a record may
 * begin in one of the queue's buffers and end in the next. */
struct pd_spe_decoder {
	struct pd_spe_record rec;
	bool started;
};

void pd_spe_decoder__init(struct pd_spe_decoder *d);
/* The next record of buf (len bytes) from *pos on: 1 with *out filled
 * (ended by its timestamp or end packet, or by a bad packet: what was read
 * of it), 0 at the end of the buffer (a record begun stays in d). */
int pd_spe_decoder__next(struct pd_spe_decoder *d, const uint8_t *buf, size_t len, size_t *pos,
			 struct pd_spe_record *out, struct pd_spe_stats *st);

/* MIDR (the CPUID feature's string, "0x00000000410fd0c0") of a Neoverse
 * core whose data source packets perf decodes (N1, N2, V1). */
bool pd_spe_neoverse(uint64_t midr);
/* rec's data_src in perf's encoding, as perf synthesizes memory samples;
 * 0 when it is not a load or a store. */
uint64_t pd_spe_data_src(const struct pd_spe_record *rec, bool neoverse);

/* Generic timer counts in the recording's clock (perf's tsc_to_perf_time). */
uint64_t pd_time_conv__perf_time(const struct pd_time_conv *tc, uint64_t cyc);

#endif
