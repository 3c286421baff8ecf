// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: src/perfdata/spe.c, the Arm SPE packet and record
 * decoder.
 * First byte odd: the bytes are a queue's trace as it comes, split into
 *   two buffers at the second byte's offset: the decoder must end each
 *   buffer without reading past it, make progress on every call, and give
 *   every record a data_src either way (Neoverse or not), the clock
 *   conversion any parameters.
 * First byte even: the bytes are records' fields, encoded here into
 *   packets as the hardware writes them (in one buffer, or split anywhere
 *   between two): the decoder must give back exactly those records.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "perfdata/spe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void check(int cond)
{
	if (!cond)
		abort();
}

static void raw(const uint8_t *data, size_t size)
{
	struct pd_spe_decoder d;
	struct pd_spe_stats st = { 0 };
	struct pd_spe_record rec;
	struct pd_time_conv tc = { .present = true };
	size_t split = size > 2 ? data[1] % size : 0;
	const uint8_t *part[2] = { data, data + split };
	size_t len[2] = { split, size - split };

	if (size >= 8) {
		tc.shift = data[2] % 70;
		tc.mult = data[3] | (uint64_t)data[4] << 8;
		tc.cap_short = data[5] & 1;
		tc.mask = ((uint64_t)1 << (data[6] % 64)) - 1;
	}
	pd_spe_decoder__init(&d);
	for (int b = 0; b < 2; b++) {
		size_t pos = 0, before;

		for (;;) {
			before = pos;
			if (!pd_spe_decoder__next(&d, part[b], len[b], &pos, &rec, &st))
				break;
			check(pos > before && pos <= len[b]);
			sink += pd_spe_data_src(&rec, true) + pd_spe_data_src(&rec, false);
			sink += pd_time_conv__perf_time(&tc, rec.timestamp);
		}
		check(pos == len[b]);
	}
	sink += pd_spe_neoverse(st.records);
}

struct fields {
	uint64_t ip, vaddr, paddr, ts, ctx, events;
	uint32_t latency;
	uint16_t source;
	uint8_t op;             /* 0 load, 1 store, 2 other, 3 branch */
	bool has_ctx, has_source;
};

static size_t put(uint8_t *b, uint8_t h, uint64_t v, unsigned int n)
{
	b[0] = h;
	for (unsigned int i = 0; i < n; i++)
		b[1 + i] = (uint8_t)(v >> (8 * i));
	return 1 + n;
}

static uint64_t take(const uint8_t **p, size_t *left, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n && *left; i++, (*p)++, (*left)--)
		v |= (uint64_t)**p << (8 * i);
	return v;
}

static void roundtrip(const uint8_t *data, size_t size)
{
	struct fields f[32];
	uint8_t buf[32 * 64];
	size_t nf = 0, n = 0, split, pos;
	const uint8_t *p = data + 1;
	size_t left = size - 1;
	struct pd_spe_decoder d;
	struct pd_spe_stats st = { 0 };
	struct pd_spe_record rec;
	size_t got = 0;

	while (left >= 8 && nf < 32) {
		struct fields *x = &f[nf++];
		uint8_t flags = (uint8_t)take(&p, &left, 1);

		/* user addresses: 48 bits, so that none is taken for the kernel's */
		x->ip = take(&p, &left, 6);
		x->vaddr = take(&p, &left, 6) & 0x00ffffffffffffULL;
		x->paddr = take(&p, &left, 6);
		x->ts = take(&p, &left, 8) | 1;
		x->ctx = take(&p, &left, 4);
		x->events = take(&p, &left, 2);
		x->latency = (uint32_t)take(&p, &left, 2);
		x->source = (uint16_t)take(&p, &left, 1);
		x->op = flags & 3;
		x->has_ctx = flags & 4;
		x->has_source = flags & 8;
		n += put(buf + n, 0xb0, x->ip | 1ULL << 63, 8);
		n += put(buf + n, x->op < 2 ? 0x49 : x->op == 2 ? 0x48 : 0x4a, x->op == 1, 1);
		n += put(buf + n, 0x52, x->events, 2);
		n += put(buf + n, 0x98, x->latency, 2);
		if (x->has_ctx)
			n += put(buf + n, 0x65, x->ctx, 4);
		n += put(buf + n, 0xb2, x->vaddr, 8);
		n += put(buf + n, 0xb3, x->paddr, 8);
		if (x->has_source)
			n += put(buf + n, 0x53, x->source, 2);
		n += put(buf + n, 0x71, x->ts, 8);
	}
	/* split at a packet boundary or anywhere: a record spans the two
	 * buffers; a packet cut is what the raw mode is for, so only packet
	 * boundaries here: the record's first byte or its timestamp's */
	split = nf ? (size_t)data[0] % (n + 1) : 0;
	pos = 0;
	pd_spe_decoder__init(&d);
	{
		/* the boundary at or before split: walk the packets */
		size_t at = 0, last = 0;
		struct pd_spe_packet pk;

		while (at < n && at <= split) {
			int l = pd_spe_packet(buf + at, n - at, &pk);

			check(l > 0);
			last = at;
			at += (size_t)l;
		}
		split = split >= n ? n : last;
	}
	for (int b = 0; b < 2; b++) {
		const uint8_t *bb = b ? buf + split : buf;
		size_t bl = b ? n - split : split;

		pos = 0;
		while (pd_spe_decoder__next(&d, bb, bl, &pos, &rec, &st)) {
			const struct fields *x = &f[got++];

			check(got <= nf);
			check(rec.ip == x->ip && rec.vaddr == x->vaddr && rec.timestamp == x->ts);
			check(rec.paddr == (x->paddr & 0x00ffffffffffffffULL));
			check(rec.latency == x->latency && rec.events == x->events);
			check(rec.context == (x->has_ctx ? x->ctx : UINT64_MAX));
			check(rec.has_source == x->has_source && (!x->has_source || rec.source == x->source));
			check((rec.op & SPE_REC_LD) == (x->op == 0 ? SPE_REC_LD : 0u));
			check((rec.op & SPE_REC_ST) == (x->op == 1 ? SPE_REC_ST : 0u));
			check(!pd_spe_data_src(&rec, true) == (x->op > 1));
		}
	}
	check(got == nf && !st.bad && !st.cut);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		raw(data, size);
	else
		roundtrip(data, size);
	return 0;
}
