// SPDX-License-Identifier: GPL-2.0
/*
 * record's AUX ring (record/aux.c) against a simulated buffer: a metadata
 * page and an AUX area in memory, SPE records written into the area as the
 * hardware would (wrapping at its end, and once more than it holds), then
 * drained into a perf.data file with its TIME_CONV and AUXTRACE_INFO:
 * the reader must give back the samples, in order, with the right
 * threads, times (through the clock of the page), addresses and sources.
 * test_aux FILE leaves the file there, for perf to read (tests/cli/spe.sh).
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test.h"
#include "perfdata/reader.h"
#include "perfdata/spe.h"
#include "perfdata/writer.h"
#include "record/aux.h"

#define AREA 4096

static size_t put(uint8_t *area, uint64_t at, uint8_t h, uint64_t v, unsigned int n)
{
	area[at % AREA] = h;
	for (unsigned int i = 0; i < n; i++)
		area[(at + 1 + i) % AREA] = (uint8_t)(v >> (8 * i));
	return 1 + n;
}

/* One load record of thread tid at ip/addr, Neoverse peer core, at ts. */
static uint64_t spe_load(uint8_t *area, uint64_t at, uint32_t tid, uint64_t ip, uint64_t addr, uint64_t ts)
{
	uint64_t start = at;

	at += put(area, at, 0xb0, ip | 1ULL << 63, 8);
	at += put(area, at, 0x49, 0, 1);
	at += put(area, at, 0x52, 1 << 2 | 1 << 3, 2);
	at += put(area, at, 0x98, 99, 2);
	at += put(area, at, 0x65, tid, 4);
	at += put(area, at, 0xb2, addr, 8);
	at += put(area, at, 0x53, SPE_NV_PEER_CORE, 2);
	at += put(area, at, 0x71, ts, 8);
	return at - start;
}

struct got {
	size_t n;
	uint64_t ip[256], time[256];
	uint32_t tid[256];
	uint64_t src[256];
};

static void read_back(const char *path, struct got *g)
{
	struct pd_reader *r;
	struct pd_event ev;

	memset(g, 0, sizeof(*g));
	CHECK(pd_reader__open(&r, path, NULL) == 0);
	if (!r)
		return;
	while (pd_reader__next(r, &ev) > 0) {
		if (ev.kind != PD_SAMPLE || g->n >= 256)
			continue;
		g->ip[g->n] = ev.u.sample.ip;
		g->time[g->n] = ev.u.sample.time;
		g->tid[g->n] = ev.u.sample.tid;
		g->src[g->n++] = ev.u.sample.data_src;
	}
	pd_reader__delete(r);
}

/* out: where to leave the file (tests/cli/spe.sh has perf read it), or NULL */
static void test_ring(const char *out)
{
	struct perf_event_mmap_page *meta = calloc(1, 4096);
	uint8_t *area = calloc(1, AREA);
	struct aux_ring ring = { .meta = meta, .base = area, .size = AREA, .idx = 0, .tid = (uint32_t)-1, .cpu = 2 };
	struct perf_event_attr spe = { .type = 8, .size = sizeof(spe), .sample_period = 1024,
				       .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						      PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
				       .sample_id_all = 1 };
	struct pd_time_conv tc;
	char path[] = "/tmp/test_aux.XXXXXX";
	struct pd_writer *w;
	struct got g;
	uint64_t ids[1] = { 7 }, bytes = 0, head;
	uint8_t buf[128];
	int fd = mkstemp(path);
	size_t rec;

	CHECK(fd >= 0);
	close(fd);
	/* the page's clock: ns = 500 + cycles * 3 / 2 */
	meta->time_shift = 1;
	meta->time_mult = 3;
	meta->time_zero = 500;
	meta->cap_user_time_zero = 1;
	CHECK(pd_writer__open(&w, path) == 0);
	CHECK(pd_writer__add_attr(w, &spe, "arm_spe_0//", ids, 1) == 0);
	/* a Neoverse N1: its data sources are decoded */
	CHECK(pd_writer__set_string(w, PD_FEAT_CPUID, "0x00000000410fd0c0") == 0);
	aux_ring__time_conv(meta, &tc);
	CHECK(pd_writer__write(w, buf, (size_t)pd_fmt_time_conv(buf, sizeof(buf), &tc)) == 0);
	CHECK(pd_writer__write(w, buf, (size_t)pd_fmt_auxtrace_info_spe(buf, sizeof(buf), 8, true)) == 0);

	/* three records from near the end of the area: the second wraps */
	head = AREA - 60;
	meta->aux_tail = head;
	for (int i = 0; i < 3; i++)
		head += spe_load(area, head, 100 + (uint32_t)i, 0x400000 + 4 * (uint64_t)i, 0x1000 + 8 * (uint64_t)i,
				 1000 + (uint64_t)i);
	rec = (size_t)(head - meta->aux_tail) / 3;
	meta->aux_head = head;
	CHECK(aux_ring__drain(&ring, w, &bytes) == 0);
	CHECK_EQ_U64(meta->aux_tail, head);
	CHECK_EQ_U64(bytes, 3 * rec);
	/* nothing new: nothing written */
	CHECK(aux_ring__drain(&ring, w, &bytes) == 0);
	CHECK_EQ_U64(bytes, 3 * rec);
	/* the kernel wrote more than the area holds: the last AREA bytes are
	 * what is there, from a record's start when records fill it evenly */
	for (uint64_t i = 0; i < AREA / rec + 2; i++)
		head += spe_load(area, head, 200, 0x500000, 0x2000, 2000 + i);
	meta->aux_head = head;
	ring.size = AREA;
	CHECK(aux_ring__drain(&ring, w, &bytes) == 0);
	CHECK_EQ_U64(meta->aux_tail, head);
	CHECK(pd_writer__finish(w) == 0);
	pd_writer__delete(w);

	read_back(path, &g);
	CHECK(g.n >= 3);
	for (size_t i = 0; i < 3 && i < g.n; i++) {
		CHECK_EQ_U64(g.ip[i], 0x400000 + 4 * i);
		CHECK_EQ_U64(g.tid[i], 100 + i);
		CHECK_EQ_U64(g.time[i], 500 + (1000 + i) * 3 / 2);
		CHECK_EQ_U64(g.src[i], 0x8400000442ULL);
	}
	/* of the overwritten area: the records after the first, cut one */
	for (size_t i = 3; i < g.n; i++)
		CHECK_EQ_U64(g.tid[i], 200);
	CHECK(g.n >= 3 + AREA / rec - 2);
	if (out)
		CHECK(rename(path, out) == 0);
	else
		unlink(path);
	free(meta);
	free(area);
}

int main(int argc, char **argv)
{
	test_ring(argc > 1 ? argv[1] : NULL);
	return test_done("test_aux");
}
