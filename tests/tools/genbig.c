// SPDX-License-Identifier: GPL-2.0
/*
 * genbig: writes a large synthetic memory-sampling recording for
 * scripts/bench-report: N samples (default 2M) from 16 threads in 4
 * processes over ~100k distinct lines (private heap, one MAP_SHARED segment
 * mapped at a different address in each process, a private library .data),
 * with mmap churn (regions remapped as time goes on).
 *
 *   genbig OUT.data [samples] [lines] [allocs]
 *
 * allocs: that many allocation events (record --alloc's section), most of
 * them random caller frames, which compress poorly: a section over the size
 * other sections are held to.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "perfdata/alloc.h"
#include "perfdata/writer.h"

#define NPROC 4
#define NTHR 4
#define NCPU 16

/* data_src fields (include/uapi/linux/perf_event.h) */
#define OP(x) ((uint64_t)(x))
#define LVL(x) ((uint64_t)(x) << 5)
#define SNOOP(x) ((uint64_t)(x) << 19)
enum { OP_LOAD = 2, OP_STORE = 4 };
enum { LVL_HIT = 2, LVL_MISS = 4, LVL_L1 = 8, LVL_LFB = 16, LVL_L2 = 32, LVL_L3 = 64, LVL_LOC_RAM = 128,
       LVL_REM_CCE1 = 1024 };
enum { SNOOP_NONE = 2, SNOOP_HIT = 4, SNOOP_MISS = 8, SNOOP_HITM = 16 };

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void emit(struct pd_writer *w, const void *buf, ssize_t n)
{
	if (n < 0 || pd_writer__write(w, buf, n) < 0) {
		fprintf(stderr, "genbig: write failed\n");
		exit(1);
	}
}

/* A count argument: digits only (strtoull takes "-1" and "--help" as
 * numbers or zero). */
static uint64_t count_arg(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-') {
		fprintf(stderr, "genbig: %s: a count, not '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static const char usage[] = "usage: genbig OUT.data [samples] [lines] [allocs]\n"
			    "  a synthetic memory-sampling recording for scripts/bench-report (default 2000000\n"
			    "  samples over 100000 lines, no allocation events)\n";

int main(int argc, char **argv)
{
	struct perf_event_attr attr[2];
	struct pd_writer *w;
	uint64_t nsamples = argc > 2 ? count_arg(argv[2], "samples") : 2000000;
	uint64_t nlines = argc > 3 ? count_arg(argv[3], "lines") : 100000;
	uint64_t nallocs = argc > 4 ? count_arg(argv[4], "allocs") : 0;
	uint64_t ids[2][NCPU];
	uint64_t t = 1000000;
	uint64_t heap[NPROC], shm[NPROC], lib[NPROC];
	uint64_t lines_per_region = nlines / (NPROC * 2 + 1) + 1;
	uint64_t region = (lines_per_region * 64 + 0xfff) & ~0xfffULL;
	static const uint64_t srcs[] = {
		OP(OP_LOAD) | LVL(LVL_HIT | LVL_L1) | SNOOP(SNOOP_NONE),
		OP(OP_LOAD) | LVL(LVL_HIT | LVL_L1) | SNOOP(SNOOP_NONE),
		OP(OP_LOAD) | LVL(LVL_HIT | LVL_LFB) | SNOOP(SNOOP_NONE),
		OP(OP_LOAD) | LVL(LVL_HIT | LVL_L2) | SNOOP(SNOOP_NONE),
		OP(OP_LOAD) | LVL(LVL_HIT | LVL_L3) | SNOOP(SNOOP_NONE),
		OP(OP_LOAD) | LVL(LVL_HIT | LVL_L3) | SNOOP(SNOOP_HITM),
		OP(OP_LOAD) | LVL(LVL_HIT | LVL_REM_CCE1) | SNOOP(SNOOP_HITM),
		OP(OP_LOAD) | LVL(LVL_HIT | LVL_LOC_RAM) | SNOOP(SNOOP_MISS),
	};
	static const uint64_t st_srcs[] = {
		OP(OP_STORE) | LVL(LVL_HIT | LVL_L1),
		OP(OP_STORE) | LVL(LVL_MISS | LVL_L1),
	};
	char buf[512];
	int err;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc < 2 || argc > 5 || argv[1][0] == '-') {
		fputs(usage, stderr);
		return 2;
	}
	if (!nlines) {
		fprintf(stderr, "genbig: lines: at least 1\n");
		return 2;
	}
	err = pd_writer__open(&w, argv[1]);
	if (err < 0) {
		fprintf(stderr, "genbig: %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	memset(attr, 0, sizeof(attr));
	for (int a = 0; a < 2; a++) {
		attr[a].type = PERF_TYPE_RAW;
		attr[a].size = sizeof(attr[a]);
		attr[a].config = a ? 0x82d0 : 0x1cd;
		attr[a].config1 = a ? 0 : 30;
		attr[a].sample_period = 4000;
		attr[a].sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				      PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT |
				      PERF_SAMPLE_DATA_SRC;
		attr[a].precise_ip = 2;
		attr[a].sample_id_all = 1;
		attr[a].mmap = attr[a].mmap2 = attr[a].comm = attr[a].task = attr[a].mmap_data = !a;
		for (int c = 0; c < NCPU; c++)
			ids[a][c] = 100 + a * NCPU + c;
		pd_writer__add_attr(w, &attr[a], a ? "cpu/mem-stores/P" : "cpu/mem-loads,ldlat=30/P", ids[a], NCPU);
	}
	pd_writer__set_string(w, PD_FEAT_HOSTNAME, "genbig");
	pd_writer__set_string(w, PD_FEAT_ARCH, "x86_64");
	pd_writer__set_string(w, PD_FEAT_CPUID, "GenuineIntel-6-55-4");
	pd_writer__set_nrcpus(w, NCPU, NCPU);
	pd_writer__set_cacheline(w, 64);
	{
		/* perf c2c refuses files without NUMA topology */
		int32_t node[NCPU];

		for (int c = 0; c < NCPU; c++)
			node[c] = c / (NCPU / 2);
		pd_writer__set_topology(w, NCPU, node, NULL, NULL);
	}

	for (int p = 0; p < NPROC; p++) {
		uint32_t pid = 1000 + p * 10;
		struct pd_sample_id sid = { .pid = pid, .tid = pid, .time = t++, .id = ids[0][0] };
		struct pd_comm c = { .pid = pid, .tid = pid, .exec = true, .comm = "bench" };
		struct pd_mmap m = { .pid = pid, .tid = pid, .v2 = true, .prot = PROT_READ | PROT_WRITE };

		emit(w, buf, pd_fmt_comm(buf, sizeof(buf), &attr[0], &c, &sid));
		heap[p] = 0x55550000000ULL + p * 0x10000000ULL;
		shm[p] = 0x7f0000000000ULL + p * 0x100000000ULL;
		lib[p] = 0x7f8000000000ULL;
		m.start = 0x400000; m.len = 0x100000; m.pgoff = 0; m.maj = 8; m.min = 1; m.ino = 77;
		m.prot = PROT_READ | PROT_EXEC; m.flags = MAP_PRIVATE; m.filename = "/usr/bin/bench";
		emit(w, buf, pd_fmt_mmap(buf, sizeof(buf), &attr[0], 0, &m, &sid));
		m.prot = PROT_READ | PROT_WRITE;
		m.start = heap[p]; m.len = region; m.maj = m.min = 0; m.ino = 0; m.flags = MAP_PRIVATE | MAP_ANONYMOUS;
		m.filename = "[heap]";
		emit(w, buf, pd_fmt_mmap(buf, sizeof(buf), &attr[0], PERF_RECORD_MISC_MMAP_DATA, &m, &sid));
		m.start = shm[p]; m.len = region; m.maj = 0; m.min = 5; m.ino = 4242; m.flags = MAP_SHARED;
		m.filename = "/dev/shm/bench";
		emit(w, buf, pd_fmt_mmap(buf, sizeof(buf), &attr[0], PERF_RECORD_MISC_MMAP_DATA, &m, &sid));
		m.start = lib[p]; m.len = region; m.maj = 8; m.min = 1; m.ino = 99; m.flags = MAP_PRIVATE;
		m.filename = "/usr/lib/libbench.so";
		emit(w, buf, pd_fmt_mmap(buf, sizeof(buf), &attr[0], PERF_RECORD_MISC_MMAP_DATA, &m, &sid));
		for (int th = 1; th < NTHR; th++) {
			struct pd_fork f = { .pid = pid, .ppid = pid, .tid = pid + th, .ptid = pid, .time = t };

			sid.tid = pid + th;
			sid.time = t++;
			emit(w, buf, pd_fmt_fork(buf, sizeof(buf), &attr[0], PERF_RECORD_FORK, &f, &sid));
		}
	}

	for (uint64_t i = 0; i < nsamples; i++) {
		uint64_t r = rnd();
		int p = r % NPROC, th = (r >> 8) % NTHR, kind = (r >> 16) % 3, st = (r >> 20) % 4 == 0;

		/* 1% of the lines are hot (contended); code touches each line
		 * from a couple of places at a couple of offsets, as real code
		 * does, so rows stay few per line */
		bool hot = (r >> 56) % 4 == 0;
		uint64_t line = hot ? (r >> 24) % (lines_per_region / 100 + 1) : (r >> 24) % lines_per_region;
		uint64_t base = kind == 0 ? heap[p] : kind == 1 ? shm[p] : lib[p];
		uint32_t pid = 1000 + p * 10;
		struct pd_sample s = {
			.ip = 0x401000 + (line * 7 % 4096) * 16 + st * 4 + ((r >> 40) & 1) * 8,
			.pid = pid, .tid = pid + th, .time = t++, .cpu = (p * NTHR + th) % NCPU,
			.addr = base + line * 64 + (line % 4) * 8 + ((r >> 50) & 1) * 8, .period = 4000,
		};

		s.id = ids[st][s.cpu];
		s.data_src = st ? st_srcs[(r >> 44) % 2] : srcs[hot ? 4 + (r >> 44) % 3 : (r >> 44) % 5];
		s.weight = st ? 0 : 30 + (r >> 32) % 300;
		emit(w, buf, pd_fmt_sample(buf, sizeof(buf), &attr[st], PERF_RECORD_MISC_USER, &s));

		/* churn: every 50k samples one process's heap is unmapped and
		 * mapped again (a new mapping over the same range, as malloc
		 * trimming and growing an arena does) */
		if (i % 50000 == 49999) {
			struct pd_sample_id sid = { .pid = pid, .tid = pid, .time = t++, .id = ids[0][0] };
			struct pd_mmap m = { .pid = pid, .tid = pid, .v2 = true, .prot = PROT_READ | PROT_WRITE,
					     .flags = MAP_PRIVATE | MAP_ANONYMOUS, .len = region, .filename = "//anon" };

			m.start = heap[p];
			emit(w, buf, pd_fmt_mmap(buf, sizeof(buf), &attr[0], PERF_RECORD_MISC_MMAP_DATA, &m, &sid));
		}
		if (i % 100000 == 99999)
			emit(w, buf, pd_fmt_finished_round(buf, sizeof(buf)));
	}
	if (nallocs && nallocs <= PD_MAX_ALLOC_EVENTS) {
		struct pd_alloc_event *ev = calloc(nallocs, sizeof(*ev));
		uint8_t *p;
		size_t len;

		/* one object in 64 (a line's worth apart, no overlaps); the
		 * rest caller frames of random content, as incompressible as
		 * real ones and cheap to replay */
		for (uint64_t i = 0; ev && i < nallocs; i++)
			ev[i] = i % 64 ? (struct pd_alloc_event){ .time = rnd(), .addr = rnd(), .size = rnd(),
								  .site = rnd(), .pid = (uint32_t)rnd(),
								  .tid = (uint32_t)rnd(), .kind = PD_ALLOC_FRAMES,
								  .fn = 1 + rnd() % 4 }
				       : (struct pd_alloc_event){ .time = 1000 + i, .addr = heap[0] + i % region,
								  .size = 64, .site = 0x401000 + i, .pid = 1000,
								  .tid = 1000, .kind = PD_ALLOC_ALLOC,
								  .fn = PD_ALLOC_FN_MALLOC };
		p = ev ? pd_alloc__encode(ev, nallocs, NULL, 0, 0, &len) : NULL;
		if (p)
			pd_writer__set_alloc(w, p, len);
		free(ev);
	}
	err = pd_writer__finish(w);
	pd_writer__delete(w);
	if (err < 0) {
		fprintf(stderr, "genbig: %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	return 0;
}
