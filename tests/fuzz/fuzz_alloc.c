// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the C2CSCAN_ALLOC feature's codec (perfdata/alloc.c),
 * the packed blocks the preload shim writes (perfdata/alloc_pack.h).
 * First byte odd: the rest is blocks as they come (from a damaged file),
 *   their event count in the second and third bytes: the decoder must take
 *   them whole or refuse them, and what it takes must encode and decode to
 *   itself.
 * First byte even: the rest is events' fields (a run of threads and
 *   processes, any words), encoded here: the decoder must give back
 *   exactly those events.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "perfdata/alloc.h"
#include "perfdata/alloc_pack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
	if (!cond)
		abort();
}

/* ev (nr) through the feature and back: the same events. */
static void round_trip(const struct pd_alloc_event *ev, uint64_t nr)
{
	struct pd_alloc out;
	char why[128];
	size_t len;
	uint8_t *p = pd_alloc__encode(ev, nr, NULL, 0, nr / 3, &len);

	check(p != NULL);
	check(pd_alloc__decode(p, len, &out, why, sizeof(why)) == 0);
	check(out.nr == nr && out.dropped == nr / 3);
	for (uint64_t i = 0; i < nr; i++) {
		struct pd_alloc_event e = ev[i];

		e.kind &= 3;    /* what a file can say */
		e.reserved = 0;
		check(!memcmp(&out.ev[i], &e, sizeof(e)));
	}
	pd_alloc__exit(&out);
	free(p);
}

static void raw(const uint8_t *data, size_t size)
{
	struct pd_alloc out;
	char why[128];
	size_t len;
	uint64_t nr = size >= 3 ? (uint64_t)data[1] | (uint64_t)data[2] << 8 : 0;
	uint8_t *p = size >= 3 ? pd_alloc__encode_packed(data + 3, size - 3, nr, NULL, 0, 0, &len) : NULL;

	if (!p)
		return;
	if (!pd_alloc__decode(p, len, &out, why, sizeof(why))) {
		check(out.nr == nr);
		round_trip(out.ev, out.nr);
	} else {
		check(out.ev == NULL && out.nr == 0);
	}
	pd_alloc__exit(&out);
	free(p);
}

/* An event's fields: a byte (kind, and whether the thread or process
 * changes), then its four words, 8 bytes each. */
static void fields(const uint8_t *data, size_t size)
{
	size_t n = size / 33, i;
	struct pd_alloc_event *ev = calloc(n ? n : 1, sizeof(*ev));
	uint32_t pid = 1, tid = 1;

	check(ev != NULL);
	for (i = 0; i < n; i++) {
		const uint8_t *f = data + i * 33;
		uint64_t w[4];

		memcpy(w, f + 1, sizeof(w));
		if (f[0] & 0x10)
			tid++;
		if (f[0] & 0x20)
			pid++;
		ev[i] = (struct pd_alloc_event){ .time = w[0], .addr = w[1], .size = w[2], .site = w[3],
			.pid = pid, .tid = tid, .kind = f[0] & 3, .fn = (uint16_t)(f[0] >> 6 | w[0] << 2) };
	}
	round_trip(ev, n);
	free(ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		raw(data, size);
	else
		fields(data + 1, size - 1);
	return 0;
}
