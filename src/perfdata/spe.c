// SPDX-License-Identifier: GPL-2.0
/*
 * Arm SPE packets and records (spe.h). The packet formats are the Arm
 * architecture's (the Statistical Profiling Extension's "profiling data
 * format"); how packets make records, which address is which, and how a
 * record becomes perf's data_src follow what perf's decoder does with real
 * files, so that the samples here are the samples perf synthesizes.
 */
#include <linux/perf_event.h>
#include <string.h>
#include "perfdata/spe.h"

static uint64_t le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* A packet of header h (at hlen bytes from buf) with a payload of the size
 * its bits 5:4 say. */
static int payload(const uint8_t *buf, size_t len, size_t hlen, uint8_t h, struct pd_spe_packet *p)
{
	unsigned int n = 1u << ((h >> 4) & 3);

	if (len < hlen + n)
		return -1;
	p->payload = le(buf + hlen, n);
	return (int)(hlen + n);
}

int pd_spe_packet(const uint8_t *buf, size_t len, struct pd_spe_packet *p)
{
	uint8_t h;
	size_t hlen = 1;
	uint8_t ext = 0;

	memset(p, 0, sizeof(*p));
	if (!len)
		return -1;
	h = buf[0];
	if (h == 0x00) {
		p->type = SPE_PKT_PAD;
		return 1;
	}
	if (h == 0x01) {
		p->type = SPE_PKT_END;
		return 1;
	}
	if (h == 0x71) {
		p->type = SPE_PKT_TIMESTAMP;
		return payload(buf, len, 1, h, p);
	}
	if ((h & 0xcf) == 0x42) {
		p->type = SPE_PKT_EVENTS;
		return payload(buf, len, 1, h, p);
	}
	if ((h & 0xcf) == 0x43) {
		p->type = SPE_PKT_DATA_SOURCE;
		return payload(buf, len, 1, h, p);
	}
	if ((h & 0xfc) == 0x64) {
		p->type = SPE_PKT_CONTEXT;
		p->index = h & 3;
		return payload(buf, len, 1, h, p);
	}
	if ((h & 0xfc) == 0x48) {
		p->type = SPE_PKT_OP_TYPE;
		p->index = h & 3;
		return payload(buf, len, 1, h, p);
	}
	if ((h & 0xfc) == 0x20) {
		/* the extended header: index bits 4:3 here, the rest in byte 1 */
		if (len < 2)
			return -1;
		ext = (uint8_t)((h & 3) << 3);
		h = buf[1];
		hlen = 2;
		if (h == 0x00) {
			/* alignment: padding to a 2^(n+1)-byte boundary */
			p->type = SPE_PKT_PAD;
			p->index = (uint8_t)((buf[0] & 0xf) + 1);
			return 2;
		}
	}
	if ((h & 0xf8) == 0xb0) {
		p->type = SPE_PKT_ADDRESS;
		p->index = (uint8_t)(ext | (h & 7));
		return payload(buf, len, hlen, h, p);
	}
	if ((h & 0xf8) == 0x98) {
		p->type = SPE_PKT_COUNTER;
		p->index = (uint8_t)(ext | (h & 7));
		return payload(buf, len, hlen, h, p);
	}
	return -2;
}

#define ADDR_BITS 0x00ffffffffffffffULL

/* An address packet's address: the instruction and branch addresses of
 * EL1 and EL2 (in Non-secure state) are the kernel's, the top byte set;
 * a data address keeps its tag byte out, a kernel one (bits 55:52 all
 * ones) gets its top byte set. */
static uint64_t address(uint8_t index, uint64_t v)
{
	uint64_t a = v & ADDR_BITS;

	if (index == SPE_ADDR_PC || index == SPE_ADDR_BRANCH) {
		unsigned int el = (unsigned int)(v >> 61) & 3;

		if ((v >> 63) && (el == 1 || el == 2))
			a |= 0xffULL << 56;
	} else if (index == SPE_ADDR_DATA_VIRT) {
		if (((a >> 52) & 0xf) == 0xf)
			a |= 0xffULL << 56;
	}
	return a;
}

static void fresh(struct pd_spe_decoder *d)
{
	memset(&d->rec, 0, sizeof(d->rec));
	d->rec.context = UINT64_MAX;
	d->started = false;
}

void pd_spe_decoder__init(struct pd_spe_decoder *d)
{
	fresh(d);
}

int pd_spe_decoder__next(struct pd_spe_decoder *d, const uint8_t *buf, size_t len, size_t *pos,
			 struct pd_spe_record *out, struct pd_spe_stats *st)
{
	struct pd_spe_record *rec = &d->rec;

	while (*pos < len) {
		struct pd_spe_packet p;
		int n = pd_spe_packet(buf + *pos, len - *pos, &p);

		if (n <= 0) {
			/* a header that is not one, or a packet the buffer
			 * cuts: a byte skipped; what was read of the record
			 * before it is a record (as perf's decoder makes it) */
			st->bad++;
			(*pos)++;
			if (d->started) {
				*out = *rec;
				fresh(d);
				st->records++;
				st->cut++;
				return 1;
			}
			continue;
		}
		if (p.type == SPE_PKT_PAD && p.index) {
			size_t a = (size_t)1 << p.index, to = (*pos + a) & ~(a - 1);

			*pos = to < len ? to : len;
			continue;
		}
		*pos += (size_t)n;
		switch (p.type) {
		case SPE_PKT_PAD:
			continue;
		case SPE_PKT_TIMESTAMP:
			rec->timestamp = p.payload;
			/* fall through */
		case SPE_PKT_END:
			*out = *rec;
			fresh(d);
			st->records++;
			return 1;
		case SPE_PKT_ADDRESS:
			if (p.index == SPE_ADDR_PC)
				rec->ip = address(p.index, p.payload);
			else if (p.index == SPE_ADDR_BRANCH)
				rec->branch_target = address(p.index, p.payload);
			else if (p.index == SPE_ADDR_DATA_VIRT)
				rec->vaddr = address(p.index, p.payload);
			else if (p.index == SPE_ADDR_DATA_PHYS)
				rec->paddr = address(p.index, p.payload);
			break;
		case SPE_PKT_COUNTER:
			if (p.index == SPE_CNT_TOTAL_LAT)
				rec->latency = (uint32_t)p.payload;
			break;
		case SPE_PKT_CONTEXT:
			rec->context = p.payload;
			break;
		case SPE_PKT_OP_TYPE:
			if (p.index == SPE_OP_LDST)
				rec->op |= p.payload & 1 ? SPE_REC_ST : SPE_REC_LD;
			else if (p.index == SPE_OP_BRANCH)
				rec->op |= SPE_REC_BRANCH;
			else
				rec->op |= SPE_REC_OTHER;
			break;
		case SPE_PKT_EVENTS:
			rec->events = p.payload;
			break;
		case SPE_PKT_DATA_SOURCE:
			rec->source = (uint16_t)p.payload;
			rec->has_source = true;
			break;
		default:
			break;
		}
		d->started = true;
	}
	/* the buffer ends: a record begun continues in the queue's next one */
	return 0;
}

/* N1 (0xd0c), N2 (0xd49) and V1 (0xd40) of Arm (0x41), any variant and
 * revision: MIDR bits 31:24 the implementer, 19:16 the architecture, 15:4
 * the part number. */
bool pd_spe_neoverse(uint64_t midr)
{
	static const uint32_t parts[] = { 0xd0c, 0xd49, 0xd40 };
	uint32_t m = (uint32_t)midr & 0xff0ffff0u;

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (m == (0x410f0000u | parts[i] << 4))
			return true;
	return false;
}

#define S(a, s) PERF_MEM_S(a, s)

/* What a Neoverse core's data source says (no level for stores). */
static uint64_t neoverse_source(const struct pd_spe_record *r)
{
	if (r->op & SPE_REC_ST)
		return S(LVL, NA) | S(LVLNUM, NA) | S(SNOOP, NA);
	switch (r->source) {
	case SPE_NV_L1D:
		return S(LVL, L1) | S(LVL, HIT) | S(LVLNUM, L1) | S(SNOOP, NONE);
	case SPE_NV_L2:
		return S(LVL, L2) | S(LVL, HIT) | S(LVLNUM, L2) | S(SNOOP, NONE);
	case SPE_NV_PEER_CORE:
		return S(LVL, L2) | S(LVL, HIT) | S(LVLNUM, L2) | S(SNOOPX, PEER);
	case SPE_NV_LOCAL_CLUSTER:
	case SPE_NV_PEER_CLUSTER:
		return S(LVL, L3) | S(LVL, HIT) | S(LVLNUM, L3) | S(SNOOPX, PEER);
	case SPE_NV_SYS_CACHE:
		return S(LVL, L3) | S(LVL, HIT) | S(LVLNUM, L3) | S(SNOOP, HIT);
	case SPE_NV_REMOTE:
		/* another socket, the level unknown (perf 6.1; later perfs say
		 * REM_CCE1 and any cache) */
		return S(LVL, NA) | S(LVLNUM, NA) | S(REMOTE, REMOTE) | S(SNOOPX, PEER);
	case SPE_NV_DRAM:
		return S(LVL, LOC_RAM) | S(LVL, HIT) | S(LVLNUM, RAM) | S(SNOOP, NONE);
	default:
		return 0;
	}
}

#define EV(r, e) ((r)->events & (1ULL << (e)))

/* Other cores: the level from the cache events alone. */
static uint64_t generic_source(const struct pd_spe_record *r)
{
	uint64_t d = 0;

	if (EV(r, SPE_EV_LLC_ACCESS) || EV(r, SPE_EV_LLC_MISS))
		d = S(LVL, L3) | (EV(r, SPE_EV_LLC_MISS) ? S(LVL, MISS) : S(LVL, HIT));
	else if (EV(r, SPE_EV_L1D_ACCESS) || EV(r, SPE_EV_L1D_REFILL))
		d = S(LVL, L1) | (EV(r, SPE_EV_L1D_REFILL) ? S(LVL, MISS) : S(LVL, HIT));
	/* perf 6.1 (later perfs add REM_CCE1 to the level instead) */
	if (EV(r, SPE_EV_REMOTE_ACCESS))
		d |= S(REMOTE, REMOTE);
	return d;
}

uint64_t pd_spe_data_src(const struct pd_spe_record *r, bool neoverse)
{
	uint64_t d;

	if (r->op & SPE_REC_LD)
		d = S(OP, LOAD);
	else if (r->op & SPE_REC_ST)
		d = S(OP, STORE);
	else
		return 0;
	d |= neoverse ? neoverse_source(r) : generic_source(r);
	if (EV(r, SPE_EV_TLB_ACCESS) || EV(r, SPE_EV_TLB_WALK))
		d |= S(TLB, WK) | (EV(r, SPE_EV_TLB_WALK) ? S(TLB, MISS) : S(TLB, HIT));
	return d;
}

uint64_t pd_time_conv__perf_time(const struct pd_time_conv *tc, uint64_t cyc)
{
	uint64_t quot, rem;

	if (!tc->present || tc->shift > 63)
		return 0;
	if (tc->cap_short)
		cyc = tc->cycles + ((cyc - tc->cycles) & tc->mask);
	quot = cyc >> tc->shift;
	rem = cyc & ((1ULL << tc->shift) - 1);
	return tc->zero + quot * tc->mult + ((rem * tc->mult) >> tc->shift);
}
