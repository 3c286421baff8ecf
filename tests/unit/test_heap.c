// SPDX-License-Identifier: GPL-2.0
/* The heap-object timeline (maps/heap.c) and the C2CSCAN_ALLOC feature's
 * codec (perfdata/alloc.c), on hand-made event streams. */
#include <errno.h>
#include <stdlib.h>
#include "test.h"
#include "maps/heap.h"
#include <zstd.h>
#include "perfdata/alloc.h"
#include "perfdata/alloc_pack.h"
#include "util/util.h"

#define A(t, pid, addr, size, site) { t, addr, size, site, pid, pid, PD_ALLOC_ALLOC, PD_ALLOC_FN_MALLOC, 0 }
#define F(t, pid, addr) { t, addr, 0, 0x99, pid, pid, PD_ALLOC_FREE, PD_ALLOC_FN_FREE, 0 }

static uint64_t site_at(const struct heap *h, uint32_t pid, uint64_t addr, uint64_t t, bool *freed)
{
	const struct heap_obj *o = heap__find(h, pid, addr, t);

	*freed = o && o->freed;
	return o ? o->site : 0;
}

static void test_timeline(void)
{
	/* given out of time order, and two processes at the same addresses */
	struct pd_alloc_event ev[] = {
		A(30, 1, 0x1000, 64, 0xb),         /* reuses a's bytes after its free */
		A(10, 1, 0x1000, 64, 0xa),
		F(20, 1, 0x1000),
		A(10, 2, 0x1000, 32, 0xc),         /* another process, same address */
		F(40, 1, 0x5000),                  /* nothing there */
		F(41, 1, 0x1010),                  /* inside an object, not its start */
		A(42, 1, 0x9000, 0, 0xd),          /* size 0 (malloc(0)): valid */
		F(45, 1, 0x9000),                  /* its free matches it */
		F(46, 1, 0x9000),                  /* a second free does not */
		A(43, 1, 0xa000, 1ULL << 50, 0xe), /* absurd */
		A(44, 1, 0x1020, 16, 0xf),         /* over the live b: b lost a free */
		F(50, 2, 0x1000),
		F(51, 2, 0x1000),                  /* twice */
	};
	struct heap *h = heap__new(ev, ARRAY_SIZE(ev), NULL);
	const struct heap_stats *st = heap__stats(h);
	bool freed;

	CHECK_EQ_U64(st->events, ARRAY_SIZE(ev));
	CHECK_EQ_U64(st->allocs, 5);
	CHECK_EQ_U64(st->frees, 3);
	CHECK_EQ_U64(st->unmatched_frees, 4);
	CHECK_EQ_U64(st->zero_size, 1);
	CHECK_EQ_U64(st->absurd, 1);
	CHECK_EQ_U64(st->overlaps, 1);
	CHECK_EQ_U64(st->processes, 2);
	CHECK_EQ_U64(site_at(h, 1, 0x9000, 43, &freed), 0);         /* a 0-byte object holds no byte */
	CHECK_EQ_U64(site_at(h, 1, 0x1008, 9, &freed), 0);          /* before */
	CHECK_EQ_U64(site_at(h, 1, 0x1008, 10, &freed), 0xa);
	CHECK(!freed);
	CHECK_EQ_U64(site_at(h, 1, 0x103f, 19, &freed), 0xa);
	CHECK_EQ_U64(site_at(h, 1, 0x1040, 15, &freed), 0);         /* past the end */
	CHECK_EQ_U64(site_at(h, 1, 0x1008, 25, &freed), 0xa);       /* freed a */
	CHECK(freed);
	CHECK_EQ_U64(site_at(h, 1, 0x1008, 30, &freed), 0xb);       /* reused */
	CHECK(!freed);
	CHECK_EQ_U64(site_at(h, 1, 0x1024, 44, &freed), 0xf);       /* the overlapping one */
	CHECK_EQ_U64(site_at(h, 1, 0x1030, 44, &freed), 0xb);       /* b's part after it */
	CHECK_EQ_U64(heap__find(h, 1, 0x1030, 44)->addr, 0x1000);   /* offsets from b's start */
	CHECK_EQ_U64(site_at(h, 2, 0x1008, 20, &freed), 0xc);
	CHECK_EQ_U64(site_at(h, 2, 0x1008, 60, &freed), 0xc);
	CHECK(freed);
	CHECK_EQ_U64(site_at(h, 3, 0x1008, 20, &freed), 0);         /* unknown pid */
	/* keys name objects and freed ranges apart */
	{
		const struct heap_obj *a = heap__find(h, 1, 0x1008, 15), *fa = heap__find(h, 1, 0x1008, 25);

		CHECK(a && fa && a->key != fa->key && a->id == fa->id);
		CHECK(heap__obj(h, a->key) == a);
		CHECK(heap__obj(h, 0) == NULL && heap__obj(h, 1000000) == NULL);
	}
	heap__delete(h);
	heap__delete(NULL);
	h = heap__new(NULL, 0, NULL);
	CHECK(heap__find(h, 1, 0x1000, 1) == NULL);
	heap__delete(h);
}

static void test_codec(void)
{
	struct pd_alloc_event ev[300];
	const char *names[] = { "arena_alloc", "arena_free" };
	struct pd_alloc out;
	char why[128];
	size_t len;
	uint8_t *p;

	/* allocations, frees and frames of two threads and two processes, in
	 * runs (a block each), with words far apart and wrapping around */
	for (size_t i = 0; i < ARRAY_SIZE(ev); i++) {
		uint32_t pid = i < 200 ? 7 : 8, tid = pid + (uint32_t)(i / 50 % 2);

		if (i % 3 == 1)
			ev[i] = (struct pd_alloc_event)F(i * 40, pid, 0x1000 + 64 * (i - 1));
		else if (i % 7 == 6)
			pd_alloc__frames(&ev[i], (uint64_t[]){ 0x400000 + i, UINT64_MAX - i, 0, 1ull << 63 }, 4, pid, tid);
		else
			ev[i] = (struct pd_alloc_event)A(i * 40, pid, 0x1000 + 64 * i, 48 + i % 5 * 1000, 0x400000 + i);
		ev[i].tid = tid;
	}
	ev[5].fn = PD_ALLOC_FN_USER + 1;
	p = pd_alloc__encode(ev, ARRAY_SIZE(ev), names, 2, 77, &len);
	CHECK(p != NULL);
	CHECK(len < sizeof(ev) / 4);                    /* it compresses */
	CHECK(pd_alloc__decode(p, len, &out, why, sizeof(why)) == 0);
	CHECK_EQ_U64(out.nr, ARRAY_SIZE(ev));
	CHECK_EQ_U64(out.dropped, 77);
	CHECK(out.nr == ARRAY_SIZE(ev) && !memcmp(out.ev, ev, sizeof(ev)));
	CHECK_STR(pd_alloc__fn_name(&out, ev[5].fn), "arena_free");
	CHECK_STR(pd_alloc__fn_name(&out, PD_ALLOC_FN_NEW_ARRAY), "operator new[]");
	CHECK_STR(pd_alloc__fn_name(&out, PD_ALLOC_FN_USER + 9), "?");
	pd_alloc__exit(&out);
	/* damaged: every cut, a lying count, a bad magic, a huge name */
	for (size_t cut = 0; cut < len; cut += 7) {
		CHECK(pd_alloc__decode(p, cut, &out, why, sizeof(why)) == -EINVAL);
		CHECK(out.ev == NULL && out.names == NULL);
	}
	p[8]++;
	CHECK(pd_alloc__decode(p, len, &out, why, sizeof(why)) == -EINVAL);
	CHECK_STR(why, "allocation section: the events do not decode");
	p[8]--;
	p[10] = 0x10;                                   /* more events than its bytes could hold */
	CHECK(pd_alloc__decode(p, len, &out, why, sizeof(why)) == -EINVAL);
	CHECK_STR(why, "allocation section: event count does not match the data");
	p[10] = 0;
	p[15] = 0x7f;
	CHECK(pd_alloc__decode(p, len, &out, why, sizeof(why)) == -EINVAL);
	p[15] = 0;
	p[0] ^= 1;
	CHECK(pd_alloc__decode(p, len, &out, why, sizeof(why)) == -EINVAL);
	CHECK_STR(why, "not an allocation section");
	p[0] ^= 1;
	p[36] = 0xff;                                   /* first name's length */
	CHECK(pd_alloc__decode(p, len, &out, why, sizeof(why)) == -EINVAL);
	free(p);
}

/* Version 2 (the events as structs), as files of earlier builds hold it. */
static void test_codec_v2(void)
{
	struct pd_alloc_event ev[] = { A(10, 3, 0x1000, 64, 0xa), F(20, 3, 0x1000) };
	uint8_t p[36 + 512];
	struct pd_alloc out;
	char why[128];
	uint32_t v32;
	uint64_t v64;
	size_t z = ZSTD_compress(p + 36, sizeof(p) - 36, ev, sizeof(ev), 1);

	CHECK(!ZSTD_isError(z));
	v32 = PD_ALLOC_MAGIC, memcpy(p, &v32, 4);
	v32 = 2, memcpy(p + 4, &v32, 4);
	v64 = ARRAY_SIZE(ev), memcpy(p + 8, &v64, 8);
	v64 = z, memcpy(p + 16, &v64, 8);
	v32 = 0, memcpy(p + 24, &v32, 4);
	v64 = 5, memcpy(p + 28, &v64, 8);
	CHECK(pd_alloc__decode(p, 36 + z, &out, why, sizeof(why)) == 0);
	CHECK(out.nr == ARRAY_SIZE(ev) && !memcmp(out.ev, ev, sizeof(ev)));
	CHECK_EQ_U64(out.dropped, 5);
	pd_alloc__exit(&out);
}

/* Blocks as the shim writes them: whole ones decode, damaged ones do not. */
static void test_blocks(void)
{
	uint8_t buf[256], *e = buf + sizeof(struct pd_alloc_block), *p;
	struct pd_alloc_block b = { PD_ALLOC_BLOCK_MAGIC, 0, 2, 5, 6 };
	struct pd_alloc_packer k = { { { 0 } } };
	struct pd_alloc out;
	char why[128];
	size_t len, plen;

	e = pd_alloc__pack(e, &k, PD_ALLOC_ALLOC, PD_ALLOC_FN_NEW, (uint64_t[4]){ 100, 0x7000, 24, 0x401000 });
	e = pd_alloc__pack(e, &k, PD_ALLOC_FREE, PD_ALLOC_FN_DELETE, (uint64_t[4]){ 90, 0x7000, 0, 0x401100 });
	b.bytes = (uint32_t)(e - buf - sizeof(b));
	memcpy(buf, &b, sizeof(b));
	plen = (size_t)(e - buf);
	p = pd_alloc__encode_packed(buf, plen, 2, NULL, 0, 0, &len);
	CHECK(pd_alloc__decode(p, len, &out, why, sizeof(why)) == 0);
	CHECK(out.nr == 2 && out.ev[0].pid == 5 && out.ev[1].tid == 6 && out.ev[0].addr == 0x7000 &&
	      out.ev[1].time == 90 && out.ev[1].kind == PD_ALLOC_FREE && out.ev[1].site == 0x401100 &&
	      out.ev[0].size == 24 && out.ev[1].fn == PD_ALLOC_FN_DELETE);
	pd_alloc__exit(&out);
	free(p);
	/* a block claiming more bytes or events than it holds, a bad magic, a
	 * varint running off the block's end */
	for (int bad = 0; bad < 4; bad++) {
		struct pd_alloc_block d = b;
		uint8_t copy[256];

		memcpy(copy, buf, plen);
		if (bad == 0)
			d.bytes++;
		else if (bad == 1)
			d.nr++;
		else if (bad == 2)
			d.magic ^= 1;
		else
			copy[plen - 1] |= 0x80;
		memcpy(copy, &d, sizeof(d));
		p = pd_alloc__encode_packed(copy, plen, 2, NULL, 0, 0, &len);
		CHECK(pd_alloc__decode(p, len, &out, why, sizeof(why)) == -EINVAL);
		CHECK_STR(why, "allocation section: the events do not decode");
		free(p);
	}
}

/* a forked child starts with its parent's live objects, in either pid order */
static void test_fork(void)
{
	struct pd_alloc_event ev[] = {
		A(10, 9, 0x1000, 64, 0xa),
		A(11, 9, 0x2000, 32, 0xb),
		F(12, 9, 0x2000),                  /* freed before the fork: not inherited */
		F(30, 9, 0x1000),                  /* the parent's free, after */
		F(40, 3, 0x1000),                  /* the child's (pid 3 < 9) */
		F(41, 3, 0x2000),                  /* never its object */
	};
	const struct heap_fork forks[] = { { 3, 9, 20 } };
	const struct heap_mmap mmaps[] = { { 9, 0x2000, 0x3000, 13 } };   /* over the freed 0x2000 */
	const struct heap_side side = { forks, ARRAY_SIZE(forks), mmaps, ARRAY_SIZE(mmaps) };
	struct heap *h = heap__new(ev, ARRAY_SIZE(ev), &side);
	const struct heap_stats *st = heap__stats(h);
	bool freed;

	CHECK_EQ_U64(st->frees, 3);
	CHECK_EQ_U64(st->unmatched_frees, 1);
	CHECK_EQ_U64(st->fork_copies, 1);
	CHECK_EQ_U64(site_at(h, 3, 0x1008, 25, &freed), 0xa);      /* inherited */
	CHECK(!freed);
	CHECK_EQ_U64(site_at(h, 3, 0x1008, 35, &freed), 0xa);      /* the parent's free is not the child's */
	CHECK(!freed);
	CHECK_EQ_U64(site_at(h, 3, 0x1008, 45, &freed), 0xa);
	CHECK(freed);
	CHECK_EQ_U64(site_at(h, 3, 0x1008, 15, &freed), 0);        /* before the fork */
	CHECK_EQ_U64(site_at(h, 9, 0x2008, 12, &freed), 0xb);      /* freed */
	CHECK(freed);
	CHECK_EQ_U64(site_at(h, 9, 0x2008, 14, &freed), 0);        /* mapped again: not the freed object's */
	heap__delete(h);
}

/* Allocator probes' event names: what record writes, report reads back;
 * the names are those of files recorded before (perf's EVENT_DESC). */
static void test_probe_names(void)
{
	static const struct {
		const char *name;
		enum pd_probe_role role;
		int size_a, size_b, old_a, free_a;
	} cases[] = {
		{ "c2cscan_alloc:malloc:entry:size=a0", PD_PROBE_ENTRY, 0, -1, -1, -1 },
		{ "c2cscan_alloc:calloc:entry:size=a0*a1", PD_PROBE_ENTRY, 0, 1, -1, -1 },
		{ "c2cscan_alloc:realloc:entry:old=a0,size=a1", PD_PROBE_ENTRY, 1, -1, 0, -1 },
		{ "c2cscan_alloc:reallocarray:entry:old=a0,size=a1*a2", PD_PROBE_ENTRY, 1, 2, 0, -1 },
		{ "c2cscan_alloc:malloc:ret", PD_PROBE_RET, -1, -1, -1, -1 },
		{ "c2cscan_alloc:free:free:free=a0", PD_PROBE_FREE, -1, -1, -1, 0 },
		{ "c2cscan_alloc:arena_alloc:entry:size=a2", PD_PROBE_ENTRY, 2, -1, -1, -1 },
	};
	struct pd_alloc_probe p;
	char buf[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK(pd_alloc_probe__parse(cases[i].name, &p));
		CHECK_EQ_U64(p.role, cases[i].role);
		CHECK_EQ_U64((uint64_t)(int64_t)p.size_a, (uint64_t)(int64_t)cases[i].size_a);
		CHECK_EQ_U64((uint64_t)(int64_t)p.size_b, (uint64_t)(int64_t)cases[i].size_b);
		CHECK_EQ_U64((uint64_t)(int64_t)p.old_a, (uint64_t)(int64_t)cases[i].old_a);
		CHECK_EQ_U64((uint64_t)(int64_t)p.free_a, (uint64_t)(int64_t)cases[i].free_a);
		pd_alloc_probe__name(&p, buf, sizeof(buf));
		CHECK_STR(buf, cases[i].name);
	}
	CHECK(!pd_alloc_probe__parse("page-faults", &p));
	CHECK(!pd_alloc_probe__parse("c2cscan_alloc:malloc", &p));
	CHECK(!pd_alloc_probe__parse("c2cscan_alloc:malloc:bogus", &p));
	/* a name cut at the buffer: no overrun */
	CHECK(pd_alloc_probe__parse(cases[3].name, &p));
	pd_alloc_probe__name(&p, buf, 20);
	CHECK_EQ_U64(strlen(buf), 19);
}

int main(void)
{
	test_timeline();
	test_probe_names();
	test_fork();
	test_codec();
	test_codec_v2();
	test_blocks();
	return test_done("test_heap");
}
