// SPDX-License-Identifier: GPL-2.0
/* The heap-object timeline (maps/heap.c) and the C2CSCAN_ALLOC feature's
 * codec (perfdata/alloc.c), on hand-made event streams. */
#include <errno.h>
#include <stdlib.h>
#include "test.h"
#include "maps/heap.h"
#include "perfdata/alloc.h"
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

	for (size_t i = 0; i < ARRAY_SIZE(ev); i++)
		ev[i] = (struct pd_alloc_event)A(i, 7, 0x1000 + 64 * i, 48, 0x400000 + i);
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
	CHECK_STR(why, "allocation section: event count does not match the data");
	p[8]--;
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
	return test_done("test_heap");
}
