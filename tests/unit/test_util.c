// SPDX-License-Identifier: GPL-2.0
/* The shared pieces at the bottom: the hash table and the u64 map (util/htab.h),
 * the relay (util/relay.h), huge chunks faulted in ahead. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include "test.h"
#include "util/htab.h"
#include "util/relay.h"
#include "util/timeline.h"
#include "util/util.h"

/* An owner of its own entries, as c2c.c and the others are. */
struct owner {
	struct htab t;
	uint64_t *keys;
	size_t nr, alloc;
	uint32_t (*hash)(uint64_t);
};

static uint32_t good_hash(uint64_t k)
{
	return (uint32_t)hash64(k);
}

static uint32_t bad_hash(uint64_t k)
{
	return (uint32_t)(k % 3);       /* long probe chains, equal hashes */
}

/* Index of key; added when absent (*added). */
static uint32_t owner__findnew(struct owner *o, uint64_t key, bool *added)
{
	uint32_t h = o->hash(key), i;
	size_t pos = htab__start(&o->t, h);

	*added = false;
	while ((i = htab__next(&o->t, h, &pos)) != HTAB_NONE)
		if (o->keys[i] == key)
			return i;
	xgrow((void **)&o->keys, &o->alloc, o->nr + 1, sizeof(*o->keys));
	o->keys[o->nr] = key;
	htab__insert(&o->t, pos, h, (uint32_t)o->nr);
	*added = true;
	return (uint32_t)o->nr++;
}

static void test_owner(uint32_t (*hash)(uint64_t), size_t cap, unsigned int load, bool big, size_t n)
{
	struct owner o = { .hash = hash };
	bool added, ok = true;

	if (cap || load || big)
		htab__init(&o.t, cap, load, big);
	/* keys 0, 7, 14, ... added in a scrambled order, each asked twice */
	for (size_t k = 0; k < n; k++) {
		uint64_t key = (k * 2654435761u % n) * 7;
		uint32_t i = owner__findnew(&o, key, &added);

		ok &= added && o.keys[i] == key;
		ok &= owner__findnew(&o, key, &added) == i && !added;
	}
	CHECK(ok);
	CHECK_EQ_U64(o.nr, n);
	CHECK_EQ_U64(o.t.nr, n);
	CHECK(o.t.cap >= 16 && !(o.t.cap & (o.t.cap - 1)));
	CHECK(o.t.nr * 100 <= o.t.cap * (load ? load : 50));
	/* every key found at its own index after all the growing */
	ok = true;
	for (size_t i = 0; i < n; i++)
		ok &= owner__findnew(&o, o.keys[i], &added) == i && !added;
	CHECK(ok);
	/* absent keys are not found */
	ok = true;
	for (size_t k = 0; k < 100; k++) {
		uint32_t h = hash(k * 7 + 3), i;
		size_t pos = htab__start(&o.t, h);

		while ((i = htab__next(&o.t, h, &pos)) != HTAB_NONE)
			ok &= o.keys[i] != k * 7 + 3;
	}
	CHECK(ok);
	htab__exit(&o.t);
	free(o.keys);
}

static void test_empty(void)
{
	struct htab t = { 0 };
	size_t pos = htab__start(&t, 42);

	CHECK(htab__next(&t, 42, &pos) == HTAB_NONE);
	CHECK(htab__slot_addr(&t, 42) == NULL);
	htab__insert(&t, pos, 42, 0);   /* a zeroed table takes an insert */
	pos = htab__start(&t, 42);
	CHECK_EQ_U64(htab__next(&t, 42, &pos), 0);
	CHECK(htab__next(&t, 42, &pos) == HTAB_NONE);
	htab__exit(&t);
	htab__exit(&t);                 /* twice: harmless */
}

static void test_u64map(void)
{
	struct u64map m = { 0 };
	uint64_t v = 0;

	CHECK(!u64map__get(&m, 1, &v));
	for (uint64_t k = 0; k < 5000; k++)
		u64map__put(&m, k << 40 | k, k + 1);
	u64map__put(&m, 17ull << 40 | 17, 99);     /* replaces */
	CHECK_EQ_U64(m.nr, 5000);
	CHECK(u64map__get(&m, 17ull << 40 | 17, &v) && v == 99);
	CHECK(u64map__get(&m, 4999ull << 40 | 4999, &v) && v == 5000);
	CHECK(u64map__get(&m, 0, &v) && v == 1);
	CHECK(!u64map__get(&m, 5000ull << 40 | 5000, &v));
	CHECK(!u64map__get(&m, 17, &v));
	u64map__exit(&m);
	CHECK(!u64map__get(&m, 0, &v));
}

/* Values are strings; a cut one says which part it is. */
struct cuts {
	char buf[16][32];
	int nr;
};

static const void *cut_str(void *ctx, const void *val, uint64_t start, uint64_t end)
{
	struct cuts *c = ctx;

	snprintf(c->buf[c->nr], sizeof(c->buf[0]), "%s[%llu,%llu)", (const char *)val,
		 (unsigned long long)start, (unsigned long long)end);
	return c->buf[c->nr++];
}

static const char *at(const struct timeline *t, uint64_t addr, uint64_t time)
{
	const struct tl_entry *e = timeline__find(t, addr, time);

	return e ? e->val : "-";
}

static void test_timeline(void)
{
	struct cuts c = { .nr = 0 };
	struct timeline *t = timeline__new(cut_str, &c);
	struct timeline_iter it;
	const struct tl_entry *e;
	const char *order[8];
	int n = 0;

	CHECK_EQ_U64(timeline__map(t, 100, 200, 10, "a"), 1);
	CHECK_EQ_U64(timeline__map(t, 300, 400, 11, "b"), 1);
	/* c inside a: a is cut in two */
	CHECK_EQ_U64(timeline__map(t, 120, 130, 20, "c"), 3);
	/* d over the end of b's range and past it */
	CHECK_EQ_U64(timeline__map(t, 350, 500, 30, "d"), 2);
	timeline_iter__init(&it, t);
	while ((e = timeline_iter__next(&it)) && n < 8)
		order[n++] = e->val;
	timeline_iter__exit(&it);
	CHECK_EQ_U64(n, 5);
	if (n == 5) {
		CHECK_STR(order[0], "a[100,120)");
		CHECK_STR(order[1], "c");
		CHECK_STR(order[2], "a[130,200)");
		CHECK_STR(order[3], "b[300,350)");
		CHECK_STR(order[4], "d");
	}
	timeline__end_all(t, 40);
	timeline__map(t, 100, 110, 40, "e");    /* replaced at the instant it began: never live */
	timeline__map(t, 100, 110, 40, "f");
	timeline__finalize(t);
	CHECK_STR(at(t, 125, 5), "-");          /* before anything */
	CHECK_STR(at(t, 125, 10), "a");
	CHECK_STR(at(t, 125, 19), "a");
	CHECK_STR(at(t, 125, 20), "c");
	CHECK_STR(at(t, 119, 25), "a[100,120)");
	CHECK_STR(at(t, 130, 25), "a[130,200)");
	CHECK_STR(at(t, 360, 29), "b");
	CHECK_STR(at(t, 360, 30), "d");
	CHECK_STR(at(t, 349, 30), "b[300,350)");
	CHECK_STR(at(t, 450, 39), "d");
	CHECK_STR(at(t, 450, 40), "-");         /* ended */
	CHECK_STR(at(t, 105, 40), "f");
	CHECK_STR(at(t, 105, 1000), "f");
	CHECK_STR(at(t, 200, 25), "-");         /* end is exclusive */
	CHECK_EQ_U64(timeline__nr_entries(t), 8);       /* a, b, c, d, f, three cut parts; e dropped */
	timeline__delete(t);

	/* many disjoint ranges remapped over time: every lookup finds its value */
	{
		static const char *v[2] = { "even", "odd" };
		bool ok = true;

		t = timeline__new(cut_str, &c);
		for (uint64_t round = 0; round < 2; round++)
			for (uint64_t i = 0; i < 3000; i++)
				timeline__map(t, i * 16, i * 16 + 16, round * 100 + 1, v[(i + round) & 1]);
		timeline__finalize(t);
		for (uint64_t i = 0; i < 3000; i++) {
			ok &= !strcmp(at(t, i * 16 + 5, 50), v[i & 1]);
			ok &= !strcmp(at(t, i * 16 + 15, 150), v[(i + 1) & 1]);
		}
		CHECK(ok);
		timeline__delete(t);
	}
}

struct seen {
	uint64_t next, sum, batches;
	bool in_order;
};

static void consume(void *arg, void *items, size_t nr)
{
	struct seen *s = arg;
	const uint64_t *v = items;

	s->batches++;
	for (size_t i = 0; i < nr; i++) {
		s->in_order &= v[i] == s->next;
		s->next = v[i] + 1;
		s->sum += v[i];
	}
}

/* Every item once, in order, threaded or not; any count, the empty one too. */
static void test_relay(void)
{
	static const uint64_t counts[] = { 0, 1, 511, 512, 513, 4096, 1000003 };

	for (int threads = 0; threads < 2; threads++) {
		if (threads)
			unsetenv("C2CSCAN_NO_THREADS");
		else
			setenv("C2CSCAN_NO_THREADS", "1", 1);
		for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
			struct seen s = { .in_order = true };
			struct relay *rl = relay__new(sizeof(uint64_t), consume, &s);
			if (threads)
				CHECK(relay__threaded(rl) || sysconf(_SC_NPROCESSORS_ONLN) < 2);
			else
				CHECK(!relay__threaded(rl));
			for (uint64_t i = 0; i < counts[k]; i++) {
				*(uint64_t *)relay__slot(rl) = i;
				relay__push(rl);
			}
			relay__finish(rl);
			CHECK(s.in_order);
			CHECK_EQ_U64(s.next, counts[k]);
			CHECK_EQ_U64(s.sum, counts[k] ? counts[k] * (counts[k] - 1) / 2 : 0);
		}
	}
	unsetenv("C2CSCAN_NO_THREADS");
}

/* A side that waits is woken once half the ring is ready: phases of a slow
 * consumer (the producer fills the ring and waits) and of a slow producer
 * (the consumer empties it and waits) lose no item and no wake-up (a lost
 * one hangs: relay_alarm ends the test). */
static _Atomic unsigned int slow_consumer;

static void consume_slowly(void *arg, void *items, size_t nr)
{
	if (slow_consumer)
		usleep(slow_consumer);
	consume(arg, items, nr);
}

static void relay_alarm(int sig)
{
	static const char msg[] = "test_util: the relay hung (a lost wake-up)\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

static void test_relay_waits(void)
{
	struct seen s = { .in_order = true };
	struct relay *rl = relay__new(sizeof(uint64_t), consume_slowly, &s);
	const uint64_t n = 200000;

	for (uint64_t i = 0; i < n; i++) {
		/* every 20k items the slow side changes */
		bool consumer_phase = i / 20000 % 2 == 0;

		slow_consumer = consumer_phase ? 300 : 0;
		if (!consumer_phase && i % 700 == 0)
			usleep(300);
		*(uint64_t *)relay__slot(rl) = i;
		relay__push(rl);
	}
	relay__finish(rl);
	CHECK(s.in_order);
	CHECK_EQ_U64(s.next, n);
	CHECK_EQ_U64(s.sum, n * (n - 1) / 2);
}

/* The consumer's idle work (relay__set_idle) while the producer hands
 * over its last batch and finishes: the consumer looks again before it
 * waits (it waited, and relay__finish joined it for ever: a report hung so
 * in make check). The producer finishes while the consumer is inside its
 * idle function, which returns nothing done. */
static _Atomic int in_idle;

static bool idle_slowly(void *arg)
{
	(void)arg;
	in_idle = 1;
	usleep(20000);
	in_idle = 2;
	return false;
}

static void test_relay_idle(void)
{
	for (int last = 0; last < 2; last++) {
		struct seen s = { .in_order = true };
		struct relay *rl = relay__new(sizeof(uint64_t), consume, &s);
		/* past the batches consumed inline: the consumer's thread runs */
		const uint64_t n = 6 * 512;

		relay__set_idle(rl, idle_slowly, NULL);
		in_idle = 0;
		for (uint64_t i = 0; i < n; i++) {
			*(uint64_t *)relay__slot(rl) = i;
			relay__push(rl);
		}
		/* the ring emptied, the consumer in its idle work */
		while (relay__threaded(rl) && in_idle != 1)
			usleep(100);
		/* then the end alone, or a last batch and the end */
		for (uint64_t i = n; last && i < n + 100; i++) {
			*(uint64_t *)relay__slot(rl) = i;
			relay__push(rl);
		}
		relay__finish(rl);
		CHECK(s.in_order);
		CHECK_EQ_U64(s.next, last ? n + 100 : n);
	}
}

/* str_scnprint, hex_scnprint and fixed_scnprint write what snprintf writes: values near
 * every rounding tie, exact ties, tiny, large, negative, -0, not numbers,
 * every precision, and cut buffers. */
static void test_number_formats(void)
{
	static const double fixed[] = { 0, 0.25, 0.15, 0.05, 0.35, 2.675, 1.005, 99.95, 99.949999, 99.950001,
					100, 12.5, 0.125, 0.375, 1e-9, 123456.789, 999999.5, 1e8, 3e9, 1e300,
					-0.0, -1.25, 33.333333333333336, 66.66666666666667, 0.5, 1.5, 2.5 };
	uint64_t st = 88172645463325252ULL;
	char a[64], b[64];

	for (int i = 0; i < 200000; i++) {
		double x;
		int d = i % 4;
		size_t cut = i % 7 == 0 ? (size_t)(i / 7 % 9) : sizeof(a);

		if ((size_t)i < sizeof(fixed) / sizeof(fixed[0]) * 4)
			x = fixed[i / 4];
		else {
			st ^= st << 13, st ^= st >> 7, st ^= st << 17;
			/* percentages of counts, as the report makes them, and
			 * values a hair off a half */
			x = i % 3 ? 100.0 * (double)(st % 1000) / (double)(1 + (st >> 20) % 5000)
				  : (double)(st % 100000) / 1000.0 + 0.0005 * ((st >> 40) % 3);
		}
		snprintf(b, cut, "%.*f", d, x);
		CHECK_EQ_U64(fixed_scnprint(a, cut, x, d), cut ? strlen(b) : 0);
		if (cut)
			CHECK_STR(a, b);
		snprintf(b, cut, "%#" PRIx64, st >> (i % 64));
		CHECK_EQ_U64(hex_scnprint(a, cut, st >> (i % 64)), cut ? strlen(b) : 0);
		if (cut)
			CHECK_STR(a, b);
	}
	for (size_t cut = 0; cut < 12; cut++) {
		snprintf(b, cut, "%s", "[unknown]");
		CHECK_EQ_U64(str_scnprint(a, cut, "[unknown]"), cut ? strlen(b) : 0);
		if (cut)
			CHECK_STR(a, b);
	}
	snprintf(b, sizeof(b), "%.1f", 0.0 / 0.0);
	fixed_scnprint(a, sizeof(a), 0.0 / 0.0, 1);
	CHECK_STR(a, b);
	hex_scnprint(a, sizeof(a), 0);
	CHECK_STR(a, "0");
}

/* si_scnprint: exact under 10000, then three digits and a unit */
static void test_si(void)
{
	static const struct { uint64_t v; const char *want; } cases[] = {
		{ 0, "0" }, { 9999, "9999" }, { 10000, "10.0 k" }, { 12345, "12.3 k" }, { 999499, "999 k" },
		{ 999500, "1.00 M" }, { 211768473, "212 M" }, { 3839143158ULL, "3.84 G" },
		{ UINT64_MAX, "18.4 E" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		si_scnprint(buf, sizeof(buf), cases[i].v);
		CHECK_STR(buf, cases[i].want);
	}
	si_scnprint(buf, 4, 3839143158ULL);
	CHECK_STR(buf, "3.8");
}

int main(void)
{
	/* a wake-up the relay loses hangs it: fail instead */
	signal(SIGALRM, relay_alarm);
	alarm(60);
	test_relay();
	test_relay_waits();
	test_relay_idle();
	alarm(0);
	test_timeline();
	test_empty();
	test_owner(good_hash, 0, 0, false, 10000);
	test_owner(bad_hash, 0, 0, false, 600);
	test_owner(good_hash, 1000, 75, true, 100000);
	test_owner(good_hash, 3, 90, false, 5000);
	test_owner(bad_hash, 16, 90, false, 300);
	test_u64map();
	test_number_formats();
	test_si();
	return test_done("test_util");
}
