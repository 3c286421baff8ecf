// SPDX-License-Identifier: GPL-2.0
/*
 * Reader tests: hand-built perf.data buffers (file and pipe mode, every
 * sample_type field, hostile sizes, zstd chunks) and the real recordings in
 * ../shared/realdata, whose expected numbers come from perf 6.1
 * (`perf report -D`, `perf script`, `perf evlist -v`) where it reads them and
 * from the README next to the files where it does not.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include "perfdata/reader.h"
#include "perfdata/writer.h"
#include "test.h"
#include "fixed_oracle.h"
#include "pass_oracle.h"

#define RD "../shared/realdata/"
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* ---- buffer builder --------------------------------------------------- */

static void put_hdr(struct test_buf *b, uint32_t type, uint16_t misc, uint16_t size)
{
	test_put32(b, type);
	test_put(b, &misc, 2);
	test_put(b, &size, 2);
}

static void set16(struct test_buf *b, size_t off, uint16_t v)
{
	memcpy(b->p + off, &v, 2);
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

/* perf string: u32 padded length, bytes, NUL padding to 8 */
static void put_str(struct test_buf *b, const char *s)
{
	uint32_t n = (strlen(s) + 1 + 7) & ~7u;

	test_put32(b, n);
	test_put(b, s, strlen(s));
	test_put(b, NULL, n - strlen(s));
}

struct feat {
	unsigned int id;
	struct test_buf data;
};

struct file_spec {
	const struct perf_event_attr *attrs;
	size_t nr_attrs;
	uint32_t attr_size;             /* bytes of attr written; 0 = 128 */
	const uint64_t *ids[4];
	size_t nr_ids[4];               /* attrs past the 4th have no ids */
	const struct test_buf *data;
	bool data_size_zero;
	struct feat *feats;
	size_t nr_feats;
};

static struct test_buf make_file(const struct file_spec *fs)
{
	struct test_buf b = { 0 };
	uint32_t asz = fs->attr_size ? fs->attr_size : 128;
	uint64_t attrs_off = 104, ids_off, data_off, feat_off, bits[4] = { 0 };

	ids_off = attrs_off + fs->nr_attrs * (asz + 16);
	data_off = ids_off;
	for (size_t i = 0; i < fs->nr_attrs && i < 4; i++)
		data_off += fs->nr_ids[i] * 8;
	feat_off = data_off + fs->data->len;
	for (size_t i = 0; i < fs->nr_feats; i++)
		bits[fs->feats[i].id / 64] |= 1ULL << (fs->feats[i].id % 64);

	test_put(&b, "PERFILE2", 8);
	test_put64(&b, 104);
	test_put64(&b, asz + 16);
	test_put64(&b, attrs_off);
	test_put64(&b, fs->nr_attrs * (asz + 16));
	test_put64(&b, data_off);
	test_put64(&b, fs->data_size_zero ? 0 : fs->data->len);
	test_put64(&b, 0);
	test_put64(&b, 0);
	test_put(&b, bits, 32);
	for (size_t i = 0, o = ids_off; i < fs->nr_attrs; i++) {
		struct perf_event_attr a = fs->attrs[i];
		size_t nr = i < 4 ? fs->nr_ids[i] : 0;

		a.size = asz;
		test_put(&b, &a, asz < sizeof(a) ? asz : sizeof(a));
		if (asz > sizeof(a))
			test_put(&b, NULL, asz - sizeof(a));
		test_put64(&b, nr ? o : 0);
		test_put64(&b, nr * 8);
		o += nr * 8;
	}
	for (size_t i = 0; i < fs->nr_attrs && i < 4; i++)
		test_put(&b, fs->ids[i], fs->nr_ids[i] * 8);
	test_put(&b, fs->data->p, fs->data->len);
	/* features are sorted by id by the callers */
	{
		uint64_t o = feat_off + fs->nr_feats * 16;

		for (size_t i = 0; i < fs->nr_feats; i++) {
			test_put64(&b, o);
			test_put64(&b, fs->feats[i].data.len);
			o += fs->feats[i].data.len;
		}
		for (size_t i = 0; i < fs->nr_feats; i++)
			test_put(&b, fs->feats[i].data.p, fs->feats[i].data.len);
	}
	return b;
}

static struct perf_event_attr attr_of(uint32_t type, uint64_t config, uint64_t sample_type, bool sid_all)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = type;
	a.config = config;
	a.sample_type = sample_type;
	a.sample_id_all = sid_all;
	return a;
}

/* COMM record with the trailer TID|TIME (16 bytes) when sid */
static void put_comm(struct test_buf *b, uint32_t pid, const char *comm, bool sid, uint64_t time)
{
	size_t n = (strlen(comm) + 1 + 7) & ~7u;

	put_hdr(b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, 16 + n + (sid ? 16 : 0));
	test_put32(b, pid);
	test_put32(b, pid);
	test_put(b, comm, strlen(comm));
	test_put(b, NULL, n - strlen(comm));
	if (sid) {
		test_put32(b, pid);
		test_put32(b, pid);
		test_put64(b, time);
	}
}

static int open_buf(struct pd_reader **r, const struct test_buf *b, char *err, size_t errsize)
{
	struct pd_error e;
	int ret = pd_reader__open_mem(r, b->p, b->len, "test", &e);

	if (ret < 0)
		pd_error__str(&e, err, errsize);
	return ret;
}

/* Counts records by kind until the end or an error; returns next()'s last value. */
static int drain(struct pd_reader *r, uint64_t *nr)
{
	struct pd_event ev;
	int ret;

	*nr = 0;
	while ((ret = pd_reader__next(r, &ev)) > 0)
		(*nr)++;
	return ret;
}

/* ---- samples of fixed-size fields (read from their offsets) ----------- */

/* What the reader must give for a sample of fields v[] (kernel order)
 * under sample_type t, checked field by field against its event. */
static void check_fixed(const struct pd_event *ev, uint64_t t, uint64_t rf, const uint64_t *v, int attr)
{
	const struct pd_sample *s = &ev->u.sample;
	uint64_t id = 0, tid = 0, w = 0;
	unsigned int k = 0;
	uint64_t f[32] = { 0 };
	static const uint64_t bits[] = {
		PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR,
		PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD, PERF_SAMPLE_READ,
		PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, PERF_SAMPLE_DATA_SRC, PERF_SAMPLE_TRANSACTION,
		PERF_SAMPLE_PHYS_ADDR, PERF_SAMPLE_CGROUP, PERF_SAMPLE_DATA_PAGE_SIZE, PERF_SAMPLE_CODE_PAGE_SIZE,
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(bits); i++) {
		if (!(t & bits[i]))
			continue;
		if (bits[i] == PERF_SAMPLE_READ) {
			k += 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST) +
			     !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
			continue;
		}
		f[i] = v[k++];
	}
	id = t & PERF_SAMPLE_ID ? f[5] : f[0];
	tid = f[2];
	w = f[10];
	CHECK(ev->kind == PD_SAMPLE && ev->attr_idx == attr);
	CHECK_EQ_U64(s->id, id);
	CHECK_EQ_U64(s->ip, f[1]);
	CHECK_EQ_U64(s->pid, (uint32_t)tid);
	CHECK_EQ_U64(s->tid, tid >> 32);
	CHECK_EQ_U64(s->time, f[3]);
	CHECK_EQ_U64(s->addr, f[4]);
	CHECK_EQ_U64(s->stream_id, f[6]);
	CHECK_EQ_U64(s->cpu, (uint32_t)f[7]);
	CHECK_EQ_U64(s->period, f[8]);
	if (t & PERF_SAMPLE_WEIGHT_STRUCT) {
		CHECK_EQ_U64(s->weight, (uint32_t)w);
		CHECK_EQ_U64(s->ins_lat, (uint16_t)(w >> 32));
		CHECK_EQ_U64(s->weight3, w >> 48);
	} else {
		CHECK_EQ_U64(s->weight, w);
		CHECK_EQ_U64(s->ins_lat, 0);
		CHECK_EQ_U64(s->weight3, 0);
	}
	CHECK_EQ_U64(s->data_src, f[11]);
	CHECK_EQ_U64(s->transaction, f[12]);
	CHECK_EQ_U64(s->phys_addr, f[13]);
	CHECK_EQ_U64(s->cgroup, f[14]);
	CHECK_EQ_U64(s->data_page_size, f[15]);
	CHECK_EQ_U64(s->code_page_size, f[16]);
	CHECK(!s->callchain_nr && !s->callchain && !s->raw && !s->regs && !s->stack && !s->aux_size);
	CHECK(ev->has_sid && ev->sid.pid == s->pid && ev->sid.tid == s->tid && ev->sid.time == s->time &&
	      ev->sid.id == s->id && ev->sid.stream_id == s->stream_id && ev->sid.cpu == s->cpu);
}

/* pd_reader__next_fixed against pd_reader__next over b, in runs of every
 * length; want: the samples that come as runs (-1: any number). */
static void fixed_runs_same(const struct test_buf *b, long want)
{
	static const uint8_t steps[][4] = { { 1 }, { 2, 1, 3 }, { 64 }, { 255, 5 } };

	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		struct pd_reader *x, *y;
		char err[256];
		long got;

		if (open_buf(&x, b, err, sizeof(err)) || open_buf(&y, b, err, sizeof(err))) {
			CHECK(false);
			return;
		}
		got = fixed_oracle(x, y, steps[i], steps[i][1] ? (steps[i][2] ? 3 : 2) : 1);
		CHECK(got >= 0);
		if (want >= 0)
			CHECK_EQ_U64((uint64_t)got, (uint64_t)want);
		pd_reader__delete(x);
		pd_reader__delete(y);
	}
}

/* Random sample_types of fixed-size fields, two attrs told apart by the
 * IDENTIFIER (or one attr without), each sample checked against the values
 * written; samples cut short are bad records, never half-read samples. */
static void test_fixed_samples(void)
{
	static const uint64_t pool[] = {
		PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR, PERF_SAMPLE_ID,
		PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD, PERF_SAMPLE_READ, PERF_SAMPLE_WEIGHT,
		PERF_SAMPLE_WEIGHT_STRUCT, PERF_SAMPLE_DATA_SRC, PERF_SAMPLE_TRANSACTION, PERF_SAMPLE_PHYS_ADDR,
		PERF_SAMPLE_CGROUP, PERF_SAMPLE_DATA_PAGE_SIZE, PERF_SAMPLE_CODE_PAGE_SIZE,
	};
	uint64_t st = 0x9e3779b97f4a7c15ULL;

	for (int round = 0; round < 300; round++) {
		int nr_attrs = 1 + round % 2;
		struct perf_event_attr a[2];
		uint64_t ids[2][3] = { { 7, 8, 9 }, { 70, 80, 90 } }, v[2][4][24];
		unsigned int nv[2];
		struct test_buf data = { 0 };
		struct file_spec fs = { .attrs = a, .nr_attrs = nr_attrs, .ids = { ids[0], ids[1] },
					.nr_ids = { 3, 3 }, .data = &data };
		struct pd_reader *r;
		struct pd_event ev;
		char err[256];
		struct test_buf b;
		int ret;

		for (int i = 0; i < nr_attrs; i++) {
			uint64_t t = nr_attrs > 1 ? PERF_SAMPLE_IDENTIFIER : 0, rf = test_rand(&st) & 0x1f & ~PERF_FORMAT_GROUP;

			for (unsigned int k = 0; k < ARRAY_SIZE(pool); k++)
				if (test_rand(&st) & 1)
					t |= pool[k];
			a[i] = attr_of(PERF_TYPE_RAW, i, t, false);
			a[i].read_format = rf;
		}
		/* four samples per attr, alternating; the last of each cut short */
		for (int n = 0; n < 4; n++) {
			for (int i = 0; i < nr_attrs; i++) {
				uint64_t t = a[i].sample_type, rf = a[i].read_format;
				unsigned int put, words = (unsigned int)__builtin_popcountll(
					t & ~(PERF_SAMPLE_READ | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT));

				words += !!(t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT));
				if (t & PERF_SAMPLE_READ)
					words += 1 + (unsigned int)__builtin_popcountll(rf & 0x17);
				nv[i] = words;
				for (unsigned int k = 0; k < words; k++)
					v[i][n][k] = test_rand(&st);
				if (nr_attrs > 1)
					v[i][n][0] = ids[i][n % 3];
				/* the last: one word short (none to cut: not written) */
				if (n == 3 && !words)
					continue;
				put = n == 3 ? words - 1 : words;
				put_hdr(&data, PERF_RECORD_SAMPLE, 0, (uint16_t)(8 + 8 * put));
				for (unsigned int k = 0; k < put; k++)
					test_put64(&data, v[i][n][k]);
			}
		}
		b = make_file(&fs);
		CHECK(open_buf(&r, &b, err, sizeof(err)) == 0);
		if (!r)
			return;
		fixed_runs_same(&b, nr_attrs * 3);
		for (int n = 0; n < 3; n++) {
			for (int i = 0; i < nr_attrs; i++) {
				CHECK(pd_reader__next(r, &ev) == 1);
				check_fixed(&ev, a[i].sample_type, a[i].read_format, v[i][n], nr_attrs > 1 ? i : 0);
			}
		}
		while ((ret = pd_reader__next(r, &ev)) > 0)
			CHECK(false); /* a cut sample came out */
		CHECK(ret == 0);
		CHECK_EQ_U64(pd_reader__stats(r)->bad_records,
			     (uint64_t)(nv[0] > 0) + (uint64_t)(nr_attrs > 1 && nv[1] > 0));
		pd_reader__delete(r);
		free(b.p);
		free(data.p);
	}
}

/* ---- header refusals -------------------------------------------------- */

static void expect_open_fail(const void *p, size_t len, const char *needle)
{
	struct pd_reader *r = (void *)1;
	char err[512] = "";
	struct pd_error e = { .kind = PD_ERR_NONE };
	int ret = pd_reader__open_mem(&r, p, len, "x", &e);

	pd_error__str(&e, err, sizeof(err));
	/* the value says the same as its words: a kind, and the code */
	CHECK(e.kind != PD_ERR_NONE && pd_error__code(&e) == ret);

	CHECK(ret < 0);
	CHECK(r == NULL);
	if (!strstr(err, needle))
		fprintf(stderr, "  error \"%s\" lacks \"%s\"\n", err, needle);
	CHECK(strstr(err, needle) != NULL);
}

static void test_refusals(void)
{
	struct perf_event_attr a = attr_of(PERF_TYPE_SOFTWARE, 2, PERF_SAMPLE_IP, false);
	struct test_buf data = { 0 };
	struct file_spec fs = { .attrs = &a, .nr_attrs = 1, .data = &data };
	struct test_buf b;
	uint64_t v;

	put_comm(&data, 1, "init", false, 0);
	b = make_file(&fs);

	expect_open_fail("", 0, "empty");
	expect_open_fail("PERFILE", 7, "too short");
	expect_open_fail("NOTPERF!xxxxxxxx", 16, "bad magic");
	expect_open_fail("PERFFILE\x68\0\0\0\0\0\0\0", 16, "PERFFILE");
	expect_open_fail("2ELIFREP\0\0\0\0\0\0\0\x68", 16, "big-endian perf.data is not supported");
	/* header cut short */
	expect_open_fail(b.p, 60, "past the end of the file");
	/* header size neither 104 nor 16 */
	v = 99;
	memcpy(b.p + 8, &v, 8);
	expect_open_fail(b.p, b.len, "header size 99");
	v = 104;
	memcpy(b.p + 8, &v, 8);
	/* data section past EOF (a truncated copy): opens, reads what is
	 * there, then says the file is truncated */
	v = b.len;
	memcpy(b.p + 48, &v, 8);
	{
		struct pd_reader *r;
		uint64_t nr;

		CHECK(pd_reader__open_mem(&r, b.p, b.len, "x", NULL) == 0);
		CHECK(drain(r, &nr) < 0);
		CHECK(strstr(pd_reader__strerror(r), "truncated") != NULL);
		pd_reader__delete(r);
	}
	/* data section starting past EOF: refused */
	{
		uint64_t data_off;

		memcpy(&data_off, b.p + 40, 8);
		v = b.len + 8;
		memcpy(b.p + 40, &v, 8);
		expect_open_fail(b.p, b.len, "data section");
		memcpy(b.p + 40, &data_off, 8);
	}
	v = data.len;
	memcpy(b.p + 48, &v, 8);
	/* attr section past EOF */
	v = 1 << 20;
	memcpy(b.p + 32, &v, 8);
	expect_open_fail(b.p, b.len, "attr section");
	v = 144;
	memcpy(b.p + 32, &v, 8);
	/* attr size too small, then huge */
	v = 40;
	memcpy(b.p + 16, &v, 8);
	expect_open_fail(b.p, b.len, "attr size 40 is too small");
	v = 1 << 20;
	memcpy(b.p + 16, &v, 8);
	expect_open_fail(b.p, b.len, "too large");
	v = 144;
	memcpy(b.p + 16, &v, 8);
	/* ids section outside the file */
	v = b.len + 8;
	memcpy(b.p + 104 + 128, &v, 8);
	v = 8;
	memcpy(b.p + 104 + 136, &v, 8);
	expect_open_fail(b.p, b.len, "ids of attr 0");
	free(b.p);

	/* more attrs than PD_MAX_ATTRS */
	{
		size_t n = PD_MAX_ATTRS + 1;
		struct perf_event_attr *many = calloc(n, sizeof(*many));
		struct file_spec f2 = { .attrs = many, .nr_attrs = n, .attr_size = 64, .data = &data };

		b = make_file(&f2);
		expect_open_fail(b.p, b.len, "exceed the limit");
		free(b.p);
		free(many);
	}

	/* a missing file: errno sentence */
	{
		struct pd_reader *r;
		struct pd_error e;
		char err[256] = "";

		CHECK(pd_reader__open(&r, "/nonexistent/perf.data", &e) == -ENOENT);
		CHECK(e.kind == PD_ERR_OPEN && e.errnum == ENOENT);
		CHECK_STR(pd_error__str(&e, err, sizeof(err)), "cannot open: No such file or directory");
	}
	free(data.p);
}

/* ---- every sample_type field ----------------------------------------- */

#define ALL_ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |     \
		PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |  \
		PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |        \
		PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |       \
		PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |               \
		PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX)

static void put_full_sample(struct test_buf *b, uint64_t id, uint64_t callchain_nr)
{
	size_t start = b->len;

	put_hdr(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0);
	test_put64(b, id);                   /* IDENTIFIER */
	test_put64(b, 0x401000);             /* IP */
	test_put32(b, 100);                  /* pid */
	test_put32(b, 101);                  /* tid */
	test_put64(b, 5000);                 /* TIME */
	test_put64(b, 0x7f0000001040);       /* ADDR */
	test_put64(b, id);                   /* ID */
	test_put64(b, 77);                   /* STREAM_ID */
	test_put32(b, 3);                    /* cpu */
	test_put32(b, 0);
	test_put64(b, 1234);                 /* PERIOD */
	/* READ: GROUP|ENABLED|RUNNING|ID|LOST, nr 2 */
	test_put64(b, 2);
	test_put64(b, 10);
	test_put64(b, 11);
	for (int i = 0; i < 2; i++) {
		test_put64(b, 100 + i);
		test_put64(b, 200 + i);
		test_put64(b, 0);
	}
	test_put64(b, callchain_nr);         /* CALLCHAIN */
	if (callchain_nr < 100) {
		test_put64(b, 0xaaa);
		test_put64(b, 0xbbb);
		test_put64(b, 0xccc);
	}
	test_put32(b, 12);                   /* RAW: u32 + 12 bytes = 16 */
	test_put(b, "rawrawrawraw", 12);
	test_put64(b, 2);                    /* BRANCH_STACK nr */
	test_put64(b, 9);                    /* hw_idx */
	for (int i = 0; i < 2 * 3; i++)
		test_put64(b, 0xb0 + i);
	test_put64(b, 1);                    /* counters */
	test_put64(b, 2);
	test_put64(b, 2);                    /* REGS_USER abi 64 */
	test_put64(b, 1);
	test_put64(b, 2);
	test_put64(b, 3);
	test_put64(b, 16);                   /* STACK_USER size */
	test_put(b, "0123456789abcdef", 16);
	test_put64(b, 16);                   /* dyn_size */
	test_put64(b, 300 | (7ULL << 32) | (9ULL << 48)); /* WEIGHT_STRUCT */
	test_put64(b, 0x68100142);           /* DATA_SRC */
	test_put64(b, 0x5);                  /* TRANSACTION */
	test_put64(b, 0);                    /* REGS_INTR abi none: no regs */
	test_put64(b, 0x12345000);           /* PHYS_ADDR */
	test_put64(b, 42);                   /* CGROUP */
	test_put64(b, 4096);                 /* DATA_PAGE_SIZE */
	test_put64(b, 2 << 20);              /* CODE_PAGE_SIZE */
	test_put64(b, 8);                    /* AUX */
	test_put64(b, 0xa0a0);
	set16(b, start + 6, b->len - start);
}

static void test_sample_fields(void)
{
	struct perf_event_attr a[2];
	uint64_t ids0[] = { 10, 11 }, ids1[] = { 20 };
	struct test_buf data = { 0 };
	struct file_spec fs = { .attrs = a, .nr_attrs = 2, .ids = { ids0, ids1 }, .nr_ids = { 2, 1 },
				.data = &data };
	struct pd_reader *r;
	struct pd_event ev;
	char err[256];
	struct test_buf b;

	for (int i = 0; i < 2; i++) {
		a[i] = attr_of(PERF_TYPE_RAW, 0x1cd + i, ALL_ST, true);
		a[i].read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID | PERF_FORMAT_LOST;
		a[i].branch_sample_type = (1ULL << 17) | (1ULL << 19);
		a[i].sample_regs_user = 0x7;
		a[i].sample_regs_intr = 0xff;
	}
	put_full_sample(&data, 20, 3);          /* attr 1 */
	put_full_sample(&data, 11, 3);          /* attr 0 */
	put_full_sample(&data, 999, 3);         /* unknown id */
	put_full_sample(&data, 20, 1ULL << 60); /* callchain nr overflow */
	put_full_sample(&data, 20, 3);
	/* shorter than its sample_type: cut after the ADDR */
	put_hdr(&data, PERF_RECORD_SAMPLE, 0, 8 + 40);
	test_put64(&data, 20);
	test_put64(&data, 1);
	test_put64(&data, 2);
	test_put64(&data, 3);
	test_put64(&data, 4);
	/* MMAP2 with a trailer: TID TIME ID STREAM_ID CPU IDENTIFIER = 48 bytes */
	{
		size_t start = data.len;

		put_hdr(&data, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 0);
		test_put32(&data, 100);
		test_put32(&data, 101);
		test_put64(&data, 0x400000);
		test_put64(&data, 0x2000);
		test_put64(&data, 0x1000);
		test_put32(&data, 8);
		test_put32(&data, 1);
		test_put64(&data, 4242);
		test_put64(&data, 7);
		test_put32(&data, 3);        /* PROT_READ|PROT_WRITE */
		test_put32(&data, 1);        /* MAP_SHARED */
		test_put(&data, "/lib/x.so\0\0\0\0\0\0\0", 16);
		test_put32(&data, 100);
		test_put32(&data, 101);
		test_put64(&data, 4000);
		test_put64(&data, 11);
		test_put64(&data, 78);
		test_put32(&data, 5);
		test_put32(&data, 0);
		test_put64(&data, 11);       /* IDENTIFIER: attr 0 */
		set16(&data, start + 6, data.len - start);
	}
	/* MMAP without NUL in its filename before the trailer */
	{
		size_t start = data.len;

		put_hdr(&data, PERF_RECORD_MMAP, 0, 0);
		test_put32(&data, 1);
		test_put32(&data, 1);
		test_put64(&data, 0x1000);
		test_put64(&data, 0x1000);
		test_put64(&data, 0);
		test_put(&data, "abcdefgh", 8);
		for (int i = 0; i < 6; i++)
			test_put64(&data, 0x4141414141414141ULL);
		set16(&data, start + 6, data.len - start);
	}
	b = make_file(&fs);
	CHECK(open_buf(&r, &b, err, sizeof(err)) == 0);
	if (!r)
		return;
	CHECK_EQ_U64(pd_reader__nr_attrs(r), 2);
	CHECK_STR(pd_reader__attr(r, 0)->name, "cpu/raw 0x1cd/");
	CHECK_EQ_U64(pd_reader__attr(r, 0)->sample_id_size, 48);

	CHECK(pd_reader__next(r, &ev) == 1);
	CHECK(ev.kind == PD_SAMPLE);
	CHECK_EQ_U64(ev.attr_idx, 1);
	CHECK_EQ_U64(ev.offset, 104 + 2 * 144 + 24);
	CHECK_EQ_U64(ev.seq, 0);
	CHECK_EQ_U64(ev.cpumode, PERF_RECORD_MISC_USER);
	CHECK_EQ_U64(ev.u.sample.id, 20);
	CHECK_EQ_U64(ev.u.sample.ip, 0x401000);
	CHECK_EQ_U64(ev.u.sample.pid, 100);
	CHECK_EQ_U64(ev.u.sample.tid, 101);
	CHECK_EQ_U64(ev.u.sample.time, 5000);
	CHECK_EQ_U64(ev.u.sample.addr, 0x7f0000001040);
	CHECK_EQ_U64(ev.u.sample.stream_id, 77);
	CHECK_EQ_U64(ev.u.sample.cpu, 3);
	CHECK_EQ_U64(ev.u.sample.period, 1234);
	CHECK_EQ_U64(ev.u.sample.callchain_nr, 3);
	CHECK(ev.u.sample.callchain && ev.u.sample.callchain[2] == 0xccc);
	CHECK_EQ_U64(ev.u.sample.raw_size, 12);
	CHECK(ev.u.sample.raw && !memcmp(ev.u.sample.raw, "rawr", 4));
	CHECK_EQ_U64(ev.u.sample.weight, 300);
	CHECK_EQ_U64(ev.u.sample.ins_lat, 7);
	CHECK_EQ_U64(ev.u.sample.weight3, 9);
	CHECK_EQ_U64(ev.u.sample.data_src, 0x68100142);
	CHECK_EQ_U64(ev.u.sample.transaction, 5);
	CHECK_EQ_U64(ev.u.sample.phys_addr, 0x12345000);
	CHECK_EQ_U64(ev.u.sample.cgroup, 42);
	CHECK_EQ_U64(ev.u.sample.data_page_size, 4096);
	CHECK_EQ_U64(ev.u.sample.code_page_size, 2 << 20);
	CHECK_EQ_U64(ev.u.sample.aux_size, 8);
	CHECK(ev.has_sid && ev.sid.time == 5000 && ev.sid.cpu == 3);

	CHECK(pd_reader__next(r, &ev) == 1);
	CHECK_EQ_U64(ev.attr_idx, 0);
	CHECK(pd_reader__next(r, &ev) == 1);
	CHECK(ev.kind == PD_SAMPLE && ev.attr_idx == -1);
	CHECK_EQ_U64(pd_reader__stats(r)->unknown_ids, 1);
	/* the overflowing callchain is skipped, the next sample read */
	CHECK(pd_reader__next(r, &ev) == 1);
	CHECK(ev.kind == PD_SAMPLE && ev.attr_idx == 1 && ev.u.sample.period == 1234);
	CHECK_EQ_U64(pd_reader__stats(r)->bad_records, 1);
	/* the short sample is skipped too */
	CHECK(pd_reader__next(r, &ev) == 1);
	CHECK(ev.kind == PD_MMAP);
	CHECK_EQ_U64(pd_reader__stats(r)->bad_records, 2);
	CHECK_EQ_U64(ev.attr_idx, 0);
	CHECK(ev.u.mmap.v2 && !ev.u.mmap.build_id_form);
	CHECK_EQ_U64(ev.u.mmap.start, 0x400000);
	CHECK_EQ_U64(ev.u.mmap.len, 0x2000);
	CHECK_EQ_U64(ev.u.mmap.pgoff, 0x1000);
	CHECK_EQ_U64(ev.u.mmap.maj, 8);
	CHECK_EQ_U64(ev.u.mmap.min, 1);
	CHECK_EQ_U64(ev.u.mmap.ino, 4242);
	CHECK_EQ_U64(ev.u.mmap.ino_generation, 7);
	CHECK_EQ_U64(ev.u.mmap.prot, 3);
	CHECK_EQ_U64(ev.u.mmap.flags, 1);
	CHECK_STR(ev.u.mmap.filename, "/lib/x.so");
	CHECK(ev.has_sid);
	CHECK_EQ_U64(ev.sid.pid, 100);
	CHECK_EQ_U64(ev.sid.time, 4000);
	CHECK_EQ_U64(ev.sid.stream_id, 78);
	CHECK_EQ_U64(ev.sid.cpu, 5);
	CHECK_EQ_U64(ev.sid.id, 11);
	/* filename without NUL: bad record, then the end */
	CHECK(pd_reader__next(r, &ev) == 0);
	CHECK_EQ_U64(pd_reader__stats(r)->bad_records, 3);
	CHECK_EQ_U64(pd_reader__stats(r)->by_kind[PD_SAMPLE], 4);
	CHECK_EQ_U64(pd_reader__stats(r)->records, 5);

	/* rewind: same again */
	{
		uint64_t n;

		CHECK(pd_reader__rewind(r) == 0);
		CHECK(drain(r, &n) == 0);
		CHECK_EQ_U64(n, 5);
		CHECK_EQ_U64(pd_reader__stats(r)->bad_records, 3);
	}
	pd_reader__delete(r);

	/* the same data at an odd address: unaligned loads and callchain copy */
	{
		uint8_t *odd = malloc(b.len + 1);

		memcpy(odd + 1, b.p, b.len);
		CHECK(pd_reader__open_mem(&r, odd + 1, b.len, "odd", NULL) == 0);
		CHECK(pd_reader__next(r, &ev) == 1);
		CHECK(ev.u.sample.callchain && !((uintptr_t)ev.u.sample.callchain & 7) &&
		      ev.u.sample.callchain[0] == 0xaaa);
		pd_reader__delete(r);
		free(odd);
	}
	free(b.p);
	free(data.p);
}

/* ---- stream errors ---------------------------------------------------- */

static void stream_error_case(uint16_t bad_size, bool past_eof, const char *needle)
{
	struct perf_event_attr a = attr_of(PERF_TYPE_SOFTWARE, 2, PERF_SAMPLE_IP | PERF_SAMPLE_TID, false);
	struct test_buf data = { 0 };
	struct file_spec fs = { .attrs = &a, .nr_attrs = 1, .data = &data };
	struct pd_reader *r;
	struct pd_event ev;
	char err[256];
	struct test_buf b;

	put_comm(&data, 7, "first", false, 0);
	put_hdr(&data, PERF_RECORD_SAMPLE, 0, past_eof ? 200 : bad_size);
	test_put64(&data, 0x1000);
	test_put64(&data, 7);
	b = make_file(&fs);
	CHECK(open_buf(&r, &b, err, sizeof(err)) == 0);
	CHECK(pd_reader__next(r, &ev) == 1);
	CHECK(ev.kind == PD_COMM && ev.u.comm.exec && !strcmp(ev.u.comm.comm, "first"));
	CHECK(pd_reader__next(r, &ev) < 0);
	CHECK(strstr(pd_reader__strerror(r), "record at offset") != NULL);
	if (!strstr(pd_reader__strerror(r), needle))
		fprintf(stderr, "  error \"%s\" lacks \"%s\"\n", pd_reader__strerror(r), needle);
	CHECK(strstr(pd_reader__strerror(r), needle) != NULL);
	/* sticky */
	CHECK(pd_reader__next(r, &ev) < 0);
	CHECK_EQ_U64(pd_reader__stats(r)->records, 1);
	pd_reader__delete(r);
	free(b.p);
	free(data.p);
}

static void test_stream_errors(void)
{
	stream_error_case(0, false, "size 0");
	stream_error_case(4, false, "size 4");
	stream_error_case(0, true, "past the end");
}

/* data size 0 in the header: read to EOF */
static void test_unterminated(void)
{
	struct perf_event_attr a = attr_of(PERF_TYPE_SOFTWARE, 2, PERF_SAMPLE_IP, false);
	struct test_buf data = { 0 };
	struct file_spec fs = { .attrs = &a, .nr_attrs = 1, .data = &data, .data_size_zero = true };
	struct pd_reader *r;
	char err[256];
	uint64_t n;
	struct test_buf b;

	put_comm(&data, 1, "a", false, 0);
	put_comm(&data, 2, "b", false, 0);
	b = make_file(&fs);
	CHECK(open_buf(&r, &b, err, sizeof(err)) == 0);
	CHECK(pd_reader__unterminated(r));
	CHECK(drain(r, &n) == 0);
	CHECK_EQ_U64(n, 2);
	CHECK_STR(pd_reader__attr(r, 0)->name, "page-faults");
	pd_reader__delete(r);
	free(b.p);
	free(data.p);
}

/* 64-byte attrs (attr.size 0 in the oldest files), no ids, two attrs */
static void test_old_attrs(void)
{
	struct perf_event_attr a[2] = {
		attr_of(PERF_TYPE_HARDWARE, 0, PERF_SAMPLE_IP | PERF_SAMPLE_TID, false),
		attr_of(PERF_TYPE_HW_CACHE, 0 | (0 << 8) | (1 << 16), PERF_SAMPLE_IP | PERF_SAMPLE_TID, false),
	};
	struct test_buf data = { 0 };
	struct file_spec fs = { .attrs = a, .nr_attrs = 2, .attr_size = 64, .data = &data };
	struct pd_reader *r;
	struct pd_event ev;
	char err[256];
	struct test_buf b;

	put_hdr(&data, PERF_RECORD_SAMPLE, 0, 24);
	test_put64(&data, 0x1234);
	test_put32(&data, 5);
	test_put32(&data, 6);
	b = make_file(&fs);
	memset(b.p + 104 + 4, 0, 4); /* attr.size = 0 */
	CHECK(open_buf(&r, &b, err, sizeof(err)) == 0);
	CHECK_EQ_U64(pd_reader__nr_attrs(r), 2);
	CHECK_EQ_U64(pd_reader__attr(r, 0)->file_attr_size, 64);
	CHECK_STR(pd_reader__attr(r, 0)->name, "cycles");
	CHECK_STR(pd_reader__attr(r, 1)->name, "L1-dcache-load-misses");
	CHECK(pd_reader__next(r, &ev) == 1);
	CHECK(ev.kind == PD_SAMPLE && ev.attr_idx == 0 && ev.u.sample.tid == 6 && ev.u.sample.ip == 0x1234);
	pd_reader__delete(r);
	free(b.p);
	free(data.p);
}

/* ---- features --------------------------------------------------------- */

static void test_features(void)
{
	struct perf_event_attr a[2] = {
		attr_of(PERF_TYPE_RAW, 0x1cd, PERF_SAMPLE_IP | PERF_SAMPLE_ID, true),
		attr_of(PERF_TYPE_SOFTWARE, 9, PERF_SAMPLE_IP | PERF_SAMPLE_ID, true),
	};
	uint64_t ids0[] = { 5 }, ids1[] = { 6 };
	struct test_buf data = { 0 };
	struct feat f[8];
	struct file_spec fs = { .attrs = a, .nr_attrs = 2, .ids = { ids0, ids1 }, .nr_ids = { 1, 1 },
				.data = &data, .feats = f, .nr_feats = 0 };
	const struct pd_info *in;
	struct pd_reader *r;
	char err[256];
	struct test_buf b;

	memset(f, 0, sizeof(f));
	put_comm(&data, 1, "x", false, 0);
	f[0].id = PD_FEAT_HOSTNAME;
	put_str(&f[0].data, "host1");
	f[1].id = PD_FEAT_NRCPUS;
	test_put32(&f[1].data, 4);
	test_put32(&f[1].data, 3);
	f[2].id = PD_FEAT_CMDLINE; /* lies: 1000 strings in 8 bytes */
	test_put32(&f[2].data, 1000);
	test_put32(&f[2].data, 0);
	f[3].id = PD_FEAT_EVENT_DESC; /* in reverse order: matched by id */
	test_put32(&f[3].data, 2);
	test_put32(&f[3].data, 64);
	test_put(&f[3].data, NULL, 64);
	test_put32(&f[3].data, 1);
	put_str(&f[3].data, "dummy:u");
	test_put64(&f[3].data, 6);
	test_put(&f[3].data, NULL, 64);
	test_put32(&f[3].data, 1);
	put_str(&f[3].data, "mem-loads");
	test_put64(&f[3].data, 5);
	f[4].id = PD_FEAT_CPU_TOPOLOGY;
	test_put32(&f[4].data, 1);
	put_str(&f[4].data, "0-3");
	test_put32(&f[4].data, 1);
	put_str(&f[4].data, "0-3");
	for (uint32_t i = 0; i < 4; i++) {
		test_put32(&f[4].data, i / 2);
		test_put32(&f[4].data, i / 3);
	}
	f[5].id = PD_FEAT_NUMA_TOPOLOGY;
	test_put32(&f[5].data, 2);
	test_put32(&f[5].data, 0);
	test_put64(&f[5].data, 0);
	test_put64(&f[5].data, 0);
	put_str(&f[5].data, "0,2");
	test_put32(&f[5].data, 1);
	test_put64(&f[5].data, 0);
	test_put64(&f[5].data, 0);
	put_str(&f[5].data, "1,3");
	f[6].id = PD_FEAT_CACHE;
	test_put32(&f[6].data, 1);
	test_put32(&f[6].data, 2);
	{
		const char *types[2] = { "Instruction", "Data" };
		uint32_t lines[2] = { 32, 128 };

		for (int i = 0; i < 2; i++) {
			test_put32(&f[6].data, 1);
			test_put32(&f[6].data, lines[i]);
			test_put32(&f[6].data, 64);
			test_put32(&f[6].data, 8);
			put_str(&f[6].data, types[i]);
			put_str(&f[6].data, "32K");
			put_str(&f[6].data, "0");
		}
	}
	fs.nr_feats = 7;
	b = make_file(&fs);
	CHECK(open_buf(&r, &b, err, sizeof(err)) == 0);
	in = pd_reader__info(r);
	CHECK_STR(in->hostname, "host1");
	CHECK_EQ_U64(in->nr_cpus_avail, 4);
	CHECK_EQ_U64(in->nr_cpus_online, 3);
	CHECK(in->cmdline == NULL);
	CHECK_STR(pd_reader__attr(r, 0)->name, "mem-loads");
	CHECK_STR(pd_reader__attr(r, 1)->name, "dummy:u");
	CHECK(in->cpu_core && in->cpu_core[3] == 1 && in->cpu_socket[3] == 1);
	CHECK_EQ_U64(in->nr_nodes, 2);
	CHECK_EQ_U64(in->nr_cpu_node, 4);
	CHECK(in->cpu_node && in->cpu_node[2] == 0 && in->cpu_node[3] == 1);
	CHECK_EQ_U64(in->cacheline_size, 128);
	CHECK(in->feat_bits[0] & (1ULL << PD_FEAT_CMDLINE));
	pd_reader__delete(r);
	free(b.p);
	for (int i = 0; i < 8; i++)
		free(f[i].data.p);
	free(data.p);
}

/* ---- compressed records ----------------------------------------------- */

/* n samples of IP, TID and TIME (32 bytes each): ip 0x1000 + i, time i. */
static void put_samples(struct test_buf *b, int n)
{
	for (int i = 0; i < n; i++) {
		put_hdr(b, PERF_RECORD_SAMPLE, 0, 32);
		test_put64(b, 0x1000 + i);
		test_put32(b, 1);
		test_put32(b, 1);
		test_put64(b, i);
	}
}

static void test_compressed(bool v2)
{
	struct perf_event_attr a = attr_of(PERF_TYPE_SOFTWARE, 2,
					   PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME, true);
	struct test_buf inner = { 0 }, data = { 0 };
	struct file_spec fs = { .attrs = &a, .nr_attrs = 1, .data = &data };
	size_t cap, clen, cut;
	struct pd_reader *r;
	struct pd_event ev;
	char err[256];
	uint64_t n;
	uint8_t *cbuf;
	struct test_buf b;

	put_samples(&inner, 300);
	cap = ZSTD_compressBound(inner.len);
	cbuf = malloc(cap);
	clen = ZSTD_compress(cbuf, cap, inner.p, inner.len, 1);
	CHECK(!ZSTD_isError(clen));
	/* two chunks cut in the middle of the frame (and of a record) */
	cut = clen / 2;
	put_comm(&data, 1, "pre", true, 0);
	for (int k = 0; k < 2; k++) {
		const uint8_t *src = cbuf + (k ? cut : 0);
		size_t len = k ? clen - cut : cut;
		size_t start = data.len;

		put_hdr(&data, v2 ? PD_REC_COMPRESSED2 : PD_REC_COMPRESSED, 0, 0);
		if (v2)
			test_put64(&data, len);
		test_put(&data, src, len);
		if (v2)
			test_put(&data, NULL, (8 - data.len % 8) % 8);
		set16(&data, start + 6, data.len - start);
	}
	put_comm(&data, 1, "post", true, 0);
	b = make_file(&fs);
	CHECK(open_buf(&r, &b, err, sizeof(err)) == 0);
	CHECK(drain(r, &n) == 0);
	CHECK_EQ_U64(n, 302);
	CHECK_EQ_U64(pd_reader__stats(r)->by_kind[PD_SAMPLE], 300);
	CHECK_EQ_U64(pd_reader__stats(r)->compressed_chunks, 2);
	CHECK_EQ_U64(pd_reader__stats(r)->decompressed_bytes, inner.len);
	/* rewind resets the zstd state */
	pd_reader__rewind(r);
	{
		uint64_t last = 0;
		int ret;

		n = 0;
		while ((ret = pd_reader__next(r, &ev)) > 0) {
			if (ev.kind == PD_SAMPLE) {
				CHECK_EQ_U64(ev.u.sample.time, n);
				last = ev.offset;
				n++;
			}
		}
		CHECK(ret == 0);
		CHECK_EQ_U64(n, 300);
		CHECK(last > 104 + 144);
	}
	pd_reader__delete(r);
	free(b.p);

	/* garbage in a compressed record: a clear error */
	data.len = 0;
	put_comm(&data, 1, "pre", true, 0);
	put_hdr(&data, PD_REC_COMPRESSED, 0, 8 + 32);
	test_put(&data, "this is not zstd data, at all!!!", 32);
	b = make_file(&fs);
	CHECK(open_buf(&r, &b, err, sizeof(err)) == 0);
	CHECK(pd_reader__next(r, &ev) == 1);
	CHECK(pd_reader__next(r, &ev) < 0);
	CHECK(strstr(pd_reader__strerror(r), "not valid zstd data") != NULL);
	pd_reader__delete(r);
	free(b.p);
	free(cbuf);
	free(inner.p);
	free(data.p);
}

/* A compressed record expanding to far more than is inflated at a time:
 * an AUXTRACE record whose payload (512 KiB) must be whole, then 6,000
 * samples (190 KiB) over several parts, the frame flushed into two
 * records in the middle of a sample; every record comes out once, the
 * same after a rewind. */
static void test_compressed_large(void)
{
	struct perf_event_attr a = attr_of(PERF_TYPE_SOFTWARE, 2,
					   PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME, true);
	const size_t payload = 512u << 10;
	struct test_buf inner = { 0 }, data = { 0 };
	struct file_spec fs = { .attrs = &a, .nr_attrs = 1, .data = &data };
	size_t cap, clen, cut;
	struct pd_reader *r;
	char err[256];
	uint64_t n;
	uint8_t *cbuf;
	struct test_buf b;

	put_hdr(&inner, PD_REC_AUXTRACE, 0, 48);
	test_put64(&inner, payload);
	test_put(&inner, NULL, 32);
	test_put(&inner, NULL, payload);
	put_samples(&inner, 6000);
	/* one frame, flushed in the middle of sample 3000: the first record
	 * holds the AUXTRACE payload whole (a payload is never waited for
	 * across compressed records) */
	cap = ZSTD_compressBound(inner.len);
	cbuf = malloc(cap);
	{
		ZSTD_CCtx *z = ZSTD_createCCtx();
		size_t mid = 48 + payload + 3000 * 32 + 16;
		ZSTD_inBuffer in = { inner.p, mid, 0 };
		ZSTD_outBuffer out = { cbuf, cap, 0 };

		while (ZSTD_compressStream2(z, &out, &in, ZSTD_e_flush))
			;
		cut = out.pos;
		in = (ZSTD_inBuffer){ inner.p, inner.len, mid };
		while (ZSTD_compressStream2(z, &out, &in, ZSTD_e_end))
			;
		clen = out.pos;
		ZSTD_freeCCtx(z);
	}
	CHECK(cut < 60000 && clen - cut < 60000);
	for (int k = 0; k < 2; k++) {
		size_t start = data.len;

		put_hdr(&data, PD_REC_COMPRESSED2, 0, 0);
		test_put64(&data, k ? clen - cut : cut);
		test_put(&data, cbuf + (k ? cut : 0), k ? clen - cut : cut);
		test_put(&data, NULL, (8 - data.len % 8) % 8);
		set16(&data, start + 6, data.len - start);
	}
	put_comm(&data, 1, "post", true, 0);
	b = make_file(&fs);
	CHECK(open_buf(&r, &b, err, sizeof(err)) == 0);
	for (int pass = 0; pass < 2; pass++) {
		CHECK(drain(r, &n) == 0);
		CHECK_EQ_U64(pd_reader__stats(r)->by_kind[PD_SAMPLE], 6000);
		CHECK_EQ_U64(pd_reader__stats(r)->aux_buffers, 1);
		CHECK_EQ_U64(pd_reader__stats(r)->aux_bytes, payload);
		CHECK_EQ_U64(pd_reader__stats(r)->decompressed_bytes, inner.len);
		pd_reader__rewind(r);
	}
	pd_reader__delete(r);
	free(b.p);
	free(cbuf);
	free(inner.p);
	free(data.p);
}

/* The peak RSS (VmHWM) in KiB since the last hwm_reset, 0 unknown. */
static long hwm_kib(void)
{
	char line[256];
	long v = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

static bool hwm_reset(void)
{
	int fd = open("/proc/self/clear_refs", O_WRONLY);
	bool ok = fd >= 0 && write(fd, "5", 1) == 1;

	if (fd >= 0)
		close(fd);
	return ok;
}

/* A zstd bomb: one small record of valid records (FINISHED_ROUND) that
 * expands past the per-chunk limit. It is refused, and inflated a part at
 * a time: the reader's memory does not grow with what it expands to. */
static void test_zstd_bomb(void)
{
	struct perf_event_attr a = attr_of(PERF_TYPE_SOFTWARE, 2, PERF_SAMPLE_IP, false);
	const size_t part = 64u << 10, parts = (64u << 20) / (64u << 10) + 1;
	size_t cap = 1u << 20;
	uint8_t *rounds = malloc(part), *cbuf = malloc(cap);
	ZSTD_CCtx *z = ZSTD_createCCtx();
	ZSTD_outBuffer out = { cbuf, cap, 0 };
	struct test_buf data = { 0 };
	struct file_spec fs = { .attrs = &a, .nr_attrs = 1, .data = &data };
	struct pd_reader *r;
	struct pd_event ev;
	char err[256];
	struct test_buf b;
	size_t n = 0;
	long hwm;
	int ret;

	for (size_t i = 0; i < part; i += 8) {
		uint32_t type = PD_REC_FINISHED_ROUND;
		uint16_t misc = 0, size = 8;

		memcpy(rounds + i, &type, 4);
		memcpy(rounds + i + 4, &misc, 2);
		memcpy(rounds + i + 6, &size, 2);
	}
	for (size_t i = 0; i < parts; i++) {
		ZSTD_inBuffer in = { rounds, part, 0 };

		while (in.pos < in.size)
			ZSTD_compressStream2(z, &out, &in, ZSTD_e_continue);
	}
	while (ZSTD_compressStream2(z, &out, &(ZSTD_inBuffer){ NULL, 0, 0 }, ZSTD_e_end))
		;
	if (out.pos > 60000) {
		printf("zstd bomb test skipped: compressed to %zu bytes\n", out.pos);
	} else {
		put_hdr(&data, PD_REC_COMPRESSED, 0, 8 + ((out.pos + 7) & ~7ul));
		test_put(&data, cbuf, out.pos);
		test_put(&data, NULL, ((out.pos + 7) & ~7ul) - out.pos);
		b = make_file(&fs);
		CHECK(open_buf(&r, &b, err, sizeof(err)) == 0);
		hwm = hwm_reset() ? hwm_kib() : 0;
		while ((ret = pd_reader__next(r, &ev)) > 0)
			n++;
		CHECK(ret < 0);
		CHECK(strstr(pd_reader__strerror(r), "expands to more than") != NULL);
		/* the records before the limit were read */
		CHECK(pd_reader__stats(r)->decompressed_bytes > (64u << 20));
		CHECK(n + pd_reader__stats(r)->records > 0);
		if (hwm)
			CHECK(hwm_kib() - hwm < 16 * 1024);
		pd_reader__delete(r);
		free(b.p);
	}
	ZSTD_freeCCtx(z);
	free(rounds);
	free(cbuf);
	free(data.p);
}

/* ---- pipe mode -------------------------------------------------------- */

static struct test_buf make_pipe(void)
{
	struct perf_event_attr a[2] = {
		attr_of(PERF_TYPE_RAW, 0x1cd, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR, true),
		attr_of(PERF_TYPE_SOFTWARE, 9, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR, true),
	};
	struct test_buf b = { 0 };
	size_t start;

	test_put(&b, "PERFILE2", 8);
	test_put64(&b, 16);
	for (int i = 0; i < 2; i++) {
		a[i].size = 136; /* newer than ours: the tail is ignored */
		put_hdr(&b, PD_REC_HEADER_ATTR, 0, 8 + 136 + 16);
		test_put(&b, &a[i], sizeof(a[i]));
		test_put(&b, NULL, 136 - sizeof(a[i]));
		test_put64(&b, 100 + i * 10);
		test_put64(&b, 101 + i * 10);
	}
	/* HEADER_FEATURE: hostname */
	start = b.len;
	put_hdr(&b, PD_REC_HEADER_FEATURE, 0, 0);
	test_put64(&b, PD_FEAT_HOSTNAME);
	put_str(&b, "pipehost");
	set16(&b, start + 6, b.len - start);
	/* ID_INDEX: id 555 -> attr 1 */
	put_hdr(&b, PD_REC_ID_INDEX, 0, 16 + 32);
	test_put64(&b, 1);
	test_put64(&b, 555);
	test_put64(&b, 1);
	test_put64(&b, 0);
	test_put64(&b, 0);
	/* TRACING_DATA with 12 bytes after it (padded to 16) */
	put_hdr(&b, PD_REC_HEADER_TRACING_DATA, 0, 16);
	test_put32(&b, 12);
	test_put32(&b, 0);
	test_put(&b, "tracing-data\0\0\0\0", 16);
	/* AUXTRACE with 24 bytes of aux data not in its size */
	put_hdr(&b, PD_REC_AUXTRACE, 0, 48);
	test_put64(&b, 24);
	test_put(&b, NULL, 32);
	test_put(&b, "AAAAAAAAAAAAAAAAAAAAAAAA", 24);
	/* samples: id 110 -> attr 1, 101 -> attr 0, 555 -> attr 1 (ID_INDEX) */
	for (int i = 0; i < 3; i++) {
		uint64_t id = i == 0 ? 110 : i == 1 ? 101 : 555;

		put_hdr(&b, PERF_RECORD_SAMPLE, 0, 8 + 40);
		test_put64(&b, id);
		test_put64(&b, 0xffffffff81000000ULL);
		test_put32(&b, 9);
		test_put32(&b, 10);
		test_put64(&b, 1000 + i);
		test_put64(&b, 0xdead000);
	}
	/* MMAP2 build-id form, trailer TID TIME IDENTIFIER */
	start = b.len;
	put_hdr(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID, 0);
	test_put32(&b, 9);
	test_put32(&b, 9);
	test_put64(&b, 0x7f0000000000);
	test_put64(&b, 0x1000);
	test_put64(&b, 0);
	{
		uint8_t bid[24] = { 20, 0, 0, 0 };

		for (int i = 0; i < 20; i++)
			bid[4 + i] = 0xa0 + i;
		test_put(&b, bid, 24);
	}
	test_put32(&b, 1);
	test_put32(&b, 2);
	test_put(&b, "/usr/lib/libc.so.6\0\0\0\0\0\0", 24);
	test_put32(&b, 9);
	test_put32(&b, 9);
	test_put64(&b, 999);
	test_put64(&b, 111);
	set16(&b, start + 6, b.len - start);
	/* a record type nobody knows */
	put_hdr(&b, 200, 0, 16);
	test_put64(&b, 0);
	put_hdr(&b, PD_REC_FINISHED_ROUND, 0, 8);
	return b;
}

static void check_pipe_reader(struct pd_reader *r)
{
	struct pd_event ev;

	CHECK(pd_reader__info(r)->pipe);
	CHECK(pd_reader__next(r, &ev) == 1);
	CHECK(ev.kind == PD_SAMPLE && ev.attr_idx == 1);
	CHECK_EQ_U64(pd_reader__nr_attrs(r), 2);
	CHECK_EQ_U64(pd_reader__attr(r, 0)->file_attr_size, 136);
	CHECK_EQ_U64(pd_reader__attr(r, 1)->nr_ids, 2);
	CHECK_STR(pd_reader__attr(r, 1)->name, "dummy");
	CHECK_STR(pd_reader__info(r)->hostname, "pipehost");
	CHECK_EQ_U64(ev.u.sample.addr, 0xdead000);
	CHECK(pd_reader__next(r, &ev) == 1);
	CHECK(ev.kind == PD_SAMPLE && ev.attr_idx == 0 && ev.u.sample.time == 1001);
	CHECK(pd_reader__next(r, &ev) == 1);
	CHECK(ev.kind == PD_SAMPLE && ev.attr_idx == 1);
	CHECK(pd_reader__next(r, &ev) == 1);
	CHECK(ev.kind == PD_MMAP && ev.u.mmap.build_id_form && ev.u.mmap.v2);
	CHECK_EQ_U64(ev.u.mmap.build_id_size, 20);
	CHECK_EQ_U64(ev.u.mmap.build_id[19], 0xa0 + 19);
	CHECK_STR(ev.u.mmap.filename, "/usr/lib/libc.so.6");
	CHECK(ev.has_sid && ev.sid.time == 999 && ev.attr_idx == 1);
	CHECK(pd_reader__next(r, &ev) == 1);
	CHECK(ev.kind == PD_OTHER && ev.type == 200);
	CHECK(pd_reader__next(r, &ev) == 1);
	CHECK(ev.kind == PD_FINISHED_ROUND);
	CHECK(pd_reader__next(r, &ev) == 0);
	CHECK_EQ_U64(pd_reader__stats(r)->other_types, 1);
	CHECK_EQ_U64(pd_reader__stats(r)->bad_records, 0);
}

static void test_pipe(void)
{
	struct test_buf b = make_pipe();
	struct pd_reader *r;
	char err[256];

	CHECK(open_buf(&r, &b, err, sizeof(err)) == 0);
	check_pipe_reader(r);
	/* the second pass sees the attr records again: no duplicates */
	pd_reader__rewind(r);
	check_pipe_reader(r);
	CHECK_EQ_U64(pd_reader__nr_attrs(r), 2);
	pd_reader__delete(r);

	/* the same stream through a pipe on stdin, spooled to a temp file */
	{
		int fds[2], saved = dup(0);
		pid_t pid;

		CHECK(pipe(fds) == 0);
		pid = fork();
		if (pid == 0) {
			close(fds[0]);
			if (write(fds[1], b.p, b.len) != (ssize_t)b.len)
				_exit(1);
			_exit(0);
		}
		close(fds[1]);
		dup2(fds[0], 0);
		close(fds[0]);
		CHECK(pd_reader__open(&r, "-", NULL) == 0);
		dup2(saved, 0);
		close(saved);
		waitpid(pid, NULL, 0);
		if (r) {
			check_pipe_reader(r);
			pd_reader__rewind(r);
			check_pipe_reader(r);
			pd_reader__delete(r);
		}
	}
	free(b.p);
}

/* ---- real recordings -------------------------------------------------- */

struct expect {
	const char *file;
	bool pipe;
	int64_t samples, mmap1, mmap2, comm, fork, exit_, lost_samples, throttle, unthrottle, rounds;
	size_t nr_attrs;
	uint32_t attr_size, nr_cpus, cacheline;
	bool error;             /* ends with an error sentence */
};

/* From `perf report -D` (perf 6.1) unless noted; -1 = not checked. */
static const struct expect expects[] = {
	/* perf 6.1 refuses it (136-byte attrs); README: 27,447 samples,
	 * MMAP v1 only, 48 CPUs, perf 6.8 */
	{ "amd-zen4-ibs-c2c-ring.data", false, 27447, -1, 0, -1, -1, -1, 0, 0, 0, -1, 1, 136, 48, 64, false },
	{ "autofdo-perf-6.8-attr136.data", false, -1, -1, -1, -1, -1, -1, 0, 0, 0, -1, 1, 136, 12, 64, false },
	/* compressed and compressed.pipe are one recording (aarch64), plain and
	 * compressed2 another (x86): perf -D on the pipe file says 8 */
	{ "lpd-sleep.compressed.data", false, 8, 45, 4, 2, 0, 1, 0, 0, 0, -1, 1, 136, 16, 64, false },
	{ "lpd-sleep.compressed.pipe.data", true, 8, 45, 4, 2, 0, 1, 0, 0, 0, -1, 1, 136, 16, 0, false },
	{ "lpd-sleep.compressed2.data", false, 7, 0, 4, 2, 0, 1, 0, 0, 0, -1, 1, 136, 16, 64, false },
	/* perf's stderr was captured after the last record: an error at the end */
	{ "lpd-sleep.compressed2.pipe.data", true, 7, 165, 4, 2, 0, 1, 0, 0, 0, -1, 1, 136, 16, 0, true },
	{ "lpd-sleep.data", false, 7, 0, 4, 2, 0, 1, 0, 0, 0, -1, 1, 136, 16, 64, false },
	{ "quipper-armv7-3.4.data", false, 3893, 1454, 0, 200, 1, 6, 0, 0, 0, -1, 6, 80, 2, 0, false },
	{ "quipper-forkexit-3.8.data", false, 10335, 3877, 0, 488, 254, 510, 0, 0, 0, -1, 1, 96, 4, 0, false },
	{ "quipper-hybrid_topology.data", false, 7, 100, 7, 3, 0, 1, 0, 0, 0, 1, 3, 128, 12, 64, false },
	{ "quipper-i686-3.4.data", false, 703, 1584, 0, 204, 2, 6, 0, 0, 0, -1, 6, 80, 4, 0, false },
	{ "quipper-lost_samples-4.4.data", false, 191, 39, 6, 3, 0, 1, 2, 0, 0, 1, 3, 112, 2, 0, false },
	{ "quipper-numatopology-3.2.data", false, 175, 8631, 0, 1736, 0, 2, 0, 0, 0, -1, 1, 80, 32, 0, false },
	/* perf: "bad event header size" */
	{ "quipper-piped.corrupted.zero_size_sample-3.2.data", true, 0, 468, 0, 100, 0, 0, 0, 0, 0, -1, 1, 80, 0, 0, true },
	{ "quipper-piped.header_features_aligned-6.12.data", true, 9, 0, 4, 2, 0, 1, 0, 0, 0, 1, 1, 136, 12, 0, false },
	{ "quipper-piped.lost_samples-4.4.data", true, 191, 39, 6, 3, 0, 1, 2, 0, 0, 1, 3, 112, 0, 0, false },
	{ "quipper-piped.no_attr_ids-4.14.data", true, 7, 21, 10, 3, 0, 1, 0, 0, 0, 1, 1, 112, 4, 0, false },
	{ "quipper-proc.map.timeout-3.18.data", false, 8, 49, 624, 13, 0, 0, 0, 0, 0, 1, 1, 112, 4, 64, false },
	{ "quipper-remmap-3.2.data", false, 198, 138, 0, 2, 1, 4, 0, 0, 0, -1, 1, 80, 32, 0, false },
	{ "quipper-singleprocess-3.8.data", false, 13, 100, 0, 2, 0, 4, 0, 0, 0, -1, 1, 96, 4, 0, false },
	{ "quipper-throttle-3.8.data", false, 14980, 1653, 0, 230, 2, 4, 0, 68, 64, -1, 2, 96, 4, 0, false },
	{ "skylake-mem-load-latency-systemwide.data", false, 14, 15, 6930, 2959, 2955, 59, 0, 0, 0, 30, 2, 96, 112, 0, false },
	{ "xsnp-hitm-event-no-samples.data", false, 0, 0, 5, 2, 16, 17, 0, 0, 0, 1, 1, 112, 64, 0, false },
};

#define CHECK_CNT(got, want)                            \
	do {                                            \
		if ((want) >= 0)                        \
			CHECK_EQ_U64(got, want);        \
	} while (0)

static void check_real(const struct expect *e)
{
	char path[512], err[512];
	struct pd_reader *r;
	struct pd_event ev;
	int64_t mmap1 = 0, mmap2 = 0;
	const struct pd_reader_stats *st;
	int ret;

	snprintf(path, sizeof(path), RD "%s", e->file);
	if (access(path, R_OK)) {
		printf("skip %s: not present\n", path);
		return;
	}
	ret = pd_reader__open(&r, path, NULL);
	CHECK(ret == 0);
	if (ret) {
		fprintf(stderr, "  %s: %s\n", e->file, err);
		return;
	}
	while ((ret = pd_reader__next(r, &ev)) > 0) {
		if (ev.kind == PD_MMAP) {
			if (ev.u.mmap.v2)
				mmap2++;
			else
				mmap1++;
		}
	}
	st = pd_reader__stats(r);
	if ((ret < 0) != e->error)
		fprintf(stderr, "  %s: ret %d (%s)\n", e->file, ret, pd_reader__strerror(r));
	CHECK((ret < 0) == e->error);
	if (ret < 0)
		CHECK(strlen(pd_reader__strerror(r)) > 10);
	CHECK(pd_reader__info(r)->pipe == e->pipe);
	CHECK_CNT(st->by_kind[PD_SAMPLE], e->samples);
	CHECK_CNT(mmap1, e->mmap1);
	CHECK_CNT(mmap2, e->mmap2);
	CHECK_CNT(st->by_kind[PD_COMM], e->comm);
	CHECK_CNT(st->by_kind[PD_FORK], e->fork);
	CHECK_CNT(st->by_kind[PD_EXIT], e->exit_);
	CHECK_CNT(st->by_kind[PD_LOST_SAMPLES], e->lost_samples);
	CHECK_CNT(st->by_kind[PD_THROTTLE], e->throttle);
	CHECK_CNT(st->by_kind[PD_UNTHROTTLE], e->unthrottle);
	CHECK_CNT(st->by_kind[PD_FINISHED_ROUND], e->rounds);
	CHECK_EQ_U64(st->bad_records, 0);
	CHECK_EQ_U64(st->unknown_ids, 0);
	CHECK_EQ_U64(pd_reader__nr_attrs(r), e->nr_attrs);
	if (pd_reader__nr_attrs(r))
		CHECK_EQ_U64(pd_reader__attr(r, 0)->file_attr_size, e->attr_size);
	CHECK_EQ_U64(pd_reader__info(r)->nr_cpus_avail, e->nr_cpus);
	CHECK_EQ_U64(pd_reader__info(r)->cacheline_size, e->cacheline);

	/* a second pass gives the same */
	{
		uint64_t samples = st->by_kind[PD_SAMPLE], records = st->records, n;

		pd_reader__rewind(r);
		ret = drain(r, &n);
		CHECK((ret < 0) == e->error);
		CHECK_EQ_U64(n, records);
		CHECK_EQ_U64(pd_reader__stats(r)->by_kind[PD_SAMPLE], samples);
	}
	pd_reader__delete(r);
}

static void test_real_files(void)
{
	DIR *d = opendir(RD);
	struct dirent *de;
	int seen = 0;

	if (!d) {
		printf("skip real recordings: %s not found\n", RD);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(expects); i++)
		check_real(&expects[i]);
	/* every *.data there, listed above or not, opens or is refused in
	 * one sentence, and iterates without crashing */
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char path[512], err[512] = "";
		struct pd_reader *r;
		uint64_t recs;

		if (n < 5 || strcmp(de->d_name + n - 5, ".data"))
			continue;
		seen++;
		snprintf(path, sizeof(path), RD "%s", de->d_name);
		if (pd_reader__open(&r, path, NULL) < 0) {
			CHECK(err[0] != '\0');
			continue;
		}
		drain(r, &recs);
		pd_reader__delete(r);
	}
	closedir(d);
	CHECK(seen >= (int)ARRAY_SIZE(expects));
}

/* Facts from perf script on files perf 6.1 reads. */
static void test_real_facts(void)
{
	struct pd_reader *r;
	struct pd_event ev;
	bool found = false, mm = false;

	if (pd_reader__open(&r, RD "skylake-mem-load-latency-systemwide.data", NULL) == 0) {
		const struct pd_attr *a = pd_reader__attr(r, 0);

		CHECK(a->attr.sample_type & PERF_SAMPLE_WEIGHT_STRUCT);
		CHECK_STR(a->name, "MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=64:precise=2:mh:mg:pinned");
		CHECK_STR(pd_reader__attr(r, 1)->name, "dummy:HG");
		CHECK_EQ_U64(pd_reader__info(r)->nr_nodes, 2);
		CHECK_STR(pd_reader__info(r)->hostname, "oxco15.prod.google.com");
		while (pd_reader__next(r, &ev) > 0) {
			/* perf script: 20132/20144 [028] 13166.196585: 55ffba5cda08
			 * 11868100242 ... 225 0 ffffffffa4470d46 */
			if (ev.kind == PD_SAMPLE && ev.u.sample.ip == 0xffffffffa4470d46ULL) {
				found = true;
				CHECK_EQ_U64(ev.attr_idx, 0);
				CHECK_EQ_U64(ev.u.sample.pid, 20132);
				CHECK_EQ_U64(ev.u.sample.tid, 20144);
				CHECK_EQ_U64(ev.u.sample.cpu, 28);
				CHECK_EQ_U64(ev.u.sample.time / 1000, 13166196585ULL);
				CHECK_EQ_U64(ev.u.sample.addr, 0x55ffba5cda08ULL);
				CHECK_EQ_U64(ev.u.sample.data_src, 0x11868100242ULL);
				CHECK_EQ_U64(ev.u.sample.weight, 225);
				CHECK_EQ_U64(ev.u.sample.ins_lat, 0);
			}
			/* PERF_RECORD_MMAP2 1/1: [0x200000(0x4000) @ 0 08:01 529251 0]: r--p /sbin/init.real */
			if (ev.kind == PD_MMAP && !mm && ev.u.mmap.v2) {
				mm = true;
				CHECK_EQ_U64(ev.u.mmap.pid, 1);
				CHECK_EQ_U64(ev.u.mmap.start, 0x200000);
				CHECK_EQ_U64(ev.u.mmap.len, 0x4000);
				CHECK_EQ_U64(ev.u.mmap.maj, 8);
				CHECK_EQ_U64(ev.u.mmap.min, 1);
				CHECK_EQ_U64(ev.u.mmap.ino, 529251);
				CHECK_EQ_U64(ev.u.mmap.prot, 1);
				CHECK_EQ_U64(ev.u.mmap.flags & 3, 2);
				CHECK_STR(ev.u.mmap.filename, "/sbin/init.real");
			}
		}
		CHECK(found && mm);
		pd_reader__delete(r);
	}
	/* perf script -F pid,cpu,ip,period,event: 15499/15499 [000] ... 369377 instructions: 81093007 */
	found = false;
	if (pd_reader__open(&r, RD "quipper-i686-3.4.data", NULL) == 0) {
		while (pd_reader__next(r, &ev) > 0) {
			if (ev.kind == PD_SAMPLE && ev.u.sample.ip == 0x81093007 && ev.u.sample.period == 369377) {
				found = true;
				CHECK_EQ_U64(ev.attr_idx, 1);
				CHECK_EQ_U64(ev.u.sample.pid, 15499);
				CHECK_STR(pd_reader__attr(r, ev.attr_idx)->name, "instructions");
			}
		}
		CHECK(found);
		pd_reader__delete(r);
	}
	/* AMD IBS: perf 6.8 saw 6,078 loads + 1,078 stores + 20,291 N/A = 27,447;
	 * MMAP v1 only; every sample has ADDR and DATA_SRC */
	if (pd_reader__open(&r, RD "amd-zen4-ibs-c2c-ring.data", NULL) == 0) {
		uint64_t ld = 0, stv = 0;

		CHECK_STR(pd_reader__attr(r, 0)->name, "ibs_op//");
		CHECK(pd_reader__attr(r, 0)->attr.sample_type & PERF_SAMPLE_DATA_SRC);
		while (pd_reader__next(r, &ev) > 0) {
			if (ev.kind == PD_SAMPLE) {
				uint64_t op = ev.u.sample.data_src & 0x1f; /* mem_op */

				ld += !!(op & PERF_MEM_OP_LOAD);
				stv += !!(op & PERF_MEM_OP_STORE);
			}
		}
		CHECK_EQ_U64(ld, 6078);
		CHECK_EQ_U64(stv, 1078);
		pd_reader__delete(r);
	}
	/* corrupted pipe: the records before the bad one are yielded */
	if (pd_reader__open(&r, RD "quipper-piped.corrupted.zero_size_sample-3.2.data", NULL) == 0) {
		uint64_t n;

		CHECK(drain(r, &n) < 0);
		CHECK(n > 500);
		CHECK(strstr(pd_reader__strerror(r), "size 0") != NULL);
		pd_reader__delete(r);
	}
}

/* Deterministic byte mutations of a few real files: open or refuse, never
 * crash (ASan/UBSan builds make this meaningful). */
static void test_mutations(void)
{
	static const char *const files[] = {
		"lpd-sleep.compressed.data", "lpd-sleep.compressed2.pipe.data",
		"quipper-piped.header_features_aligned-6.12.data", "quipper-hybrid_topology.data",
	};
	uint64_t x = 88172645463325252ULL;

	for (size_t f = 0; f < ARRAY_SIZE(files); f++) {
		char path[512];
		struct test_buf orig = { 0 };
		uint8_t chunk[4096], *m;
		FILE *fp;
		size_t n;

		snprintf(path, sizeof(path), RD "%s", files[f]);
		fp = fopen(path, "rb");
		if (!fp)
			continue;
		while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
			test_put(&orig, chunk, n);
		fclose(fp);
		m = malloc(orig.len);
		for (int i = 0; i < 300; i++) {
			struct pd_reader *r;
			struct pd_error perr;
			uint64_t recs;

			memcpy(m, orig.p, orig.len);
			for (int k = 0; k < 4; k++) {
				uint64_t y = test_rand(&x);

				m[y % orig.len] = (uint8_t)(y >> 32);
			}
			if (pd_reader__open_mem(&r, m, orig.len - (i % 7 == 0 ? x % orig.len : 0), "m",
						&perr) < 0) {
				CHECK(perr.kind != PD_ERR_NONE);
				continue;
			}
			drain(r, &recs);
			pd_reader__rewind(r);
			drain(r, &recs);
			pd_reader__delete(r);
		}
		free(m);
		free(orig.p);
	}
}

/*
 * A file is read through a window refilled with pread: records that cross
 * the window's end, and a second pass, give what the same bytes give from
 * memory, event by event.
 */
static void test_window(void)
{
	static const char *const files[] = { "amd-zen4-ibs-c2c-ring.data", "skylake-mem-load-latency-systemwide.data",
					      "lpd-sleep.compressed2.data" };

	for (size_t f = 0; f < ARRAY_SIZE(files); f++) {
		char path[512];
		struct pd_reader *a, *b;
		struct pd_event ea, eb;
		uint64_t n = 0;
		size_t len;
		FILE *fp;
		void *buf;
		int ra, rb;

		snprintf(path, sizeof(path), RD "%s", files[f]);
		fp = fopen(path, "rb");
		if (!fp) {
			printf("skip %s: not present\n", path);
			continue;
		}
		fseek(fp, 0, SEEK_END);
		len = (size_t)ftell(fp);
		rewind(fp);
		buf = malloc(len);
		CHECK(fread(buf, 1, len, fp) == len);
		fclose(fp);
		CHECK(pd_reader__open(&a, path, NULL) == 0);
		CHECK(pd_reader__open_mem(&b, buf, len, path, NULL) == 0);
		for (int pass = 0; pass < 2; pass++) {
			if (pass) {
				pd_reader__rewind(a);
				pd_reader__rewind(b);
			}
			for (;;) {
				ra = pd_reader__next(a, &ea);
				rb = pd_reader__next(b, &eb);
				if (ra != rb || ra <= 0)
					break;
				n++;
				if (ea.kind != eb.kind || ea.offset != eb.offset || ea.seq != eb.seq || ea.size != eb.size ||
				    ea.attr_idx != eb.attr_idx)
					break;
				if (ea.kind == PD_SAMPLE &&
				    (ea.u.sample.ip != eb.u.sample.ip || ea.u.sample.addr != eb.u.sample.addr ||
				     ea.u.sample.time != eb.u.sample.time || ea.u.sample.data_src != eb.u.sample.data_src ||
				     ea.u.sample.tid != eb.u.sample.tid || ea.u.sample.callchain_nr != eb.u.sample.callchain_nr))
					break;
				if (ea.kind == PD_MMAP && strcmp(ea.u.mmap.filename, eb.u.mmap.filename))
					break;
			}
			CHECK_EQ_U64(ra, rb);
			CHECK(ra == 0);
		}
		CHECK(n > 30);
		pd_reader__delete(a);
		pd_reader__delete(b);
		free(buf);
	}
}

/* ---- reading ahead: a pass's windows copied by another thread ---- */

struct filler {
	struct pd_reader *r;
	atomic_bool stop;
	unsigned long filled;
};

static void *fill_loop(void *p)
{
	struct filler *f = p;

	while (!atomic_load(&f->stop))
		f->filled += pd_reader__fill_ahead(f->r);
	return NULL;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ULL + (h >> 29);
}

/* A digest of a pass of r, read as the report reads (fixed-layout runs,
 * the rest one by one, which one when being the reader's choice): each
 * sample's ordinal, attr, ip, addr, time and raw data; *n: the samples. */
static uint64_t pass_digest(struct pd_reader *r, uint64_t *n, int *ret)
{
	struct pd_sample_core run[64];
	struct pd_event ev;
	uint64_t h = 0;

	for (;;) {
		size_t nr = pd_reader__next_fixed(r, run, 64);

		for (size_t i = 0; i < nr; i++)
			h = mix(mix(mix(mix(mix(h, run[i].seq), (uint64_t)run[i].attr_idx), run[i].ip), run[i].addr),
				run[i].time);
		*n += nr;
		if (nr)
			continue;
		*ret = pd_reader__next(r, &ev);
		if (*ret <= 0)
			return h;
		if (ev.kind != PD_SAMPLE)
			continue;
		(*n)++;
		h = mix(mix(mix(mix(mix(h, ev.seq), (uint64_t)ev.attr_idx), ev.u.sample.ip), ev.u.sample.addr),
			ev.u.sample.time);
		for (uint32_t k = 0; k + 4 <= ev.u.sample.raw_size; k += 4) {
			uint32_t v;

			memcpy(&v, (const uint8_t *)ev.u.sample.raw + k, 4);
			h = mix(h, v);
		}
	}
}

/*
 * A pass over the samples of a large file reads the same with its windows
 * copied ahead by another thread as without: small fixed-layout samples,
 * and samples of up to 60 KB (raw data) that straddle every window
 * boundary, or all of it in COMPRESSED2 records of up to 64 KiB (zstd); twice (the second pass after a rewind), each time with the
 * filler thread running beside the reader throughout.
 */
static void read_ahead_case(bool compressed)
{
	struct perf_event_attr a[2] = {
		attr_of(PERF_TYPE_RAW, 1, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						  PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC, true),
		attr_of(PERF_TYPE_RAW, 2, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						  PERF_SAMPLE_RAW, true),
	};
	uint64_t ids[2][1] = { { 5 }, { 6 } }, st = 42, total = 0;
	struct test_buf data = { 0 }, b;
	struct file_spec fs = { .attrs = a, .nr_attrs = 2, .ids = { ids[0], ids[1] }, .nr_ids = { 1, 1 },
				.data = &data };
	char path[] = "/tmp/c2cscan-test-ahead-XXXXXX";
	struct pd_reader *ra, *rb;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	for (uint64_t i = 0; i < 200000; i++) {
		size_t start = data.len;
		bool big = i % 400 == 399;

		put_hdr(&data, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0);
		test_put64(&data, big ? 6 : 5);      /* IDENTIFIER */
		test_put64(&data, 0x400000 + i);     /* IP */
		test_put32(&data, 10);               /* pid, tid */
		test_put32(&data, 11);
		test_put64(&data, i);                /* TIME */
		if (big) {
			uint32_t raw = (uint32_t)(4 + test_rand(&st) % 60000) & ~3u, salt = (uint32_t)test_rand(&st);

			test_put32(&data, raw);
			for (uint32_t k = 0; k < raw; k += 4) {
				salt = salt * 1103515245u + 12345u;
				test_put32(&data, salt ^ (uint32_t)k);
			}
			test_put32(&data, 0);        /* 4 + raw is a multiple of 8 */
		} else {
			test_put64(&data, 0x7f0000000000 + i * 64);
			test_put64(&data, 0x2 | (0x42ULL << 5));
		}
		*(uint16_t *)(data.p + start + 6) = (uint16_t)(data.len - start);
	}
	if (compressed) {
		/* as perf record -z writes: COMPRESSED2 records of a zstd
		 * frame each, of whole records (the raw data is random enough not to
		 * shrink much) */
		struct test_buf z = { 0 };
		size_t cap = ZSTD_compressBound(65536) + 64;
		uint8_t *cbuf = malloc(cap);

		for (size_t o = 0; o < data.len;) {
			size_t end = o, clen, start = z.len;

			do
				end += *(uint16_t *)(data.p + end + 6);
			while (end < data.len && end + *(uint16_t *)(data.p + end + 6) - o <= 48000);
			clen = ZSTD_compress(cbuf, cap, data.p + o, end - o, 1);
			CHECK(!ZSTD_isError(clen) && clen < 65000);
			put_hdr(&z, PD_REC_COMPRESSED2, 0, 0);
			test_put64(&z, clen);
			test_put(&z, cbuf, clen);
			test_put(&z, NULL, (8 - z.len % 8) % 8);
			set16(&z, start + 6, z.len - start);
			o = end;
		}
		free(cbuf);
		free(data.p);
		data = z;
	}
	b = make_file(&fs);
	CHECK(write(fd, b.p, b.len) == (ssize_t)b.len);
	close(fd);
	CHECK(data.len > (12u << 20));
	CHECK(pd_reader__open(&ra, path, NULL) == 0);
	CHECK(pd_reader__open(&rb, path, NULL) == 0);
	pd_reader__read_ahead(rb, true);
	for (int pass = 0; pass < 2; pass++) {
		struct filler f = { .r = rb };
		uint64_t ha, hb, na = 0, nb = 0;
		int xa, xb;
		pthread_t th;

		pd_reader__rewind(ra);
		pd_reader__rewind(rb);
		pd_reader__skip_samples(ra, false);
		pd_reader__skip_samples(rb, false);
		atomic_init(&f.stop, false);
		CHECK(pthread_create(&th, NULL, fill_loop, &f) == 0);
		ha = pass_digest(ra, &na, &xa);
		hb = pass_digest(rb, &nb, &xb);
		atomic_store(&f.stop, true);
		pthread_join(th, NULL);
		CHECK(xa == 0 && xb == 0);
		CHECK_EQ_U64(hb, ha);
		CHECK_EQ_U64(nb, na);
		CHECK(f.filled > 0);
		total += nb;
	}
	CHECK_EQ_U64(total, 2 * 200000);
	pd_reader__delete(ra);
	pd_reader__delete(rb);
	unlink(path);
	free(b.p);
	free(data.p);
}

static void test_read_ahead(void)
{
	read_ahead_case(false);
	read_ahead_case(true);
}

/* ---- skimming: the latter part of a side-band pass on another thread - */

enum skim_damage { SKIM_CLEAN, SKIM_ZERO_SIZE, SKIM_SHORT_COMM, SKIM_TRUNCATED };

/*
 * Records of one attr (IP, TID, TIME, RAW; sample_id_all): samples with 4
 * raw bytes that make no header, COMMs, FINISHED_ROUNDs and EXITs among
 * them, and at record fake_at (0: none; a sample) a raw payload of 40 headers of
 * empty FINISHED_ROUND records in a row (a boundary a skim believes). The
 * offset of that payload in the data goes to *fake_off.
 */
static struct test_buf skim_data(unsigned int nr, unsigned int fake_at, size_t *fake_off)
{
	struct test_buf d = { 0 };

	for (unsigned int i = 0; i < nr; i++) {
		if (i % 7 == 3) {
			put_comm(&d, 1000 + i, i % 2 ? "worker" : "main", true, 1000000000ULL + i);
		} else if (i % 13 == 5) {
			put_hdr(&d, PD_REC_FINISHED_ROUND, 0, 8);
		} else if (i % 29 == 11) {
			put_hdr(&d, PERF_RECORD_EXIT, 0, 8 + 24 + 16);
			test_put32(&d, 1000 + i);
			test_put32(&d, 1000);
			test_put32(&d, 1000 + i);
			test_put32(&d, 1000);
			test_put64(&d, 1000000000ULL + i);
			test_put32(&d, 1000 + i);
			test_put32(&d, 1000 + i);
			test_put64(&d, 1000000000ULL + i);
		} else {
			bool fake = fake_at && i == fake_at;
			uint32_t raw = fake ? 4 + 40 * 8 : 4;

			put_hdr(&d, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, (uint16_t)(8 + 24 + 4 + raw));
			test_put64(&d, 0x401000 + i);
			test_put32(&d, 1000 + i % 5);
			test_put32(&d, 1000 + i % 5);
			test_put64(&d, 1000000000ULL + i);
			test_put32(&d, raw);
			if (!fake) {
				test_put32(&d, 0xffffffff);
				continue;
			}
			test_put32(&d, 0xffffffff);
			*fake_off = d.len;
			for (int k = 0; k < 40; k++)
				put_hdr(&d, PD_REC_FINISHED_ROUND, 0, 8);
		}
	}
	return d;
}

/* The side-band pass over path with a skim from data offset from (0: where
 * the reader chooses, if it does), and without: the same events (kind, offset, ordinal, size, names), the same
 * end and error; then a whole pass after a rewind, the same too. Returns
 * whether the skim was taken. */
static bool skim_compare(const char *path, uint64_t from)
{
	struct pd_reader *a, *b;
	bool taken = false, same;
	int ra, rb;

	CHECK(pass_oracle_open(path, &a, &b));
	for (int pass = 0; pass < 2; pass++) {
		pd_reader__skip_samples(a, !pass);
		pd_reader__skip_samples(b, !pass);
		if (!pass)
			pd_reader__skim_ahead(b, from ? pd_reader__info(b)->data_offset + from : 0);
		same = pass_oracle_same(a, b, &ra, &rb);
		if (!same)
			fprintf(stderr, "  skim from %" PRIu64 ", pass %d: %d \"%s\" against %d \"%s\"\n", from, pass, rb,
				pd_reader__strerror(b), ra, pd_reader__strerror(a));
		CHECK(same);
		CHECK_EQ_U64(ra, rb);
		CHECK_STR(pd_reader__strerror(a), pd_reader__strerror(b));
		CHECK_EQ_U64(pd_reader__stats(a)->records, pd_reader__stats(b)->records);
		if (!pass) {
			taken = pd_reader__skimmed(b);
			pd_reader__rewind(a);
			pd_reader__rewind(b);
		}
	}
	pd_reader__delete(a);
	pd_reader__delete(b);
	return taken;
}

/* A rewind, samples asked for again, or a delete before the reader reaches
 * the skim end it: every record is read from there, samples too. */
static void skim_abandoned(const char *path)
{
	struct pd_reader *a, *b;
	struct pd_event ea, eb;
	uint64_t n = 0;
	int ra, rb;

	CHECK(pd_reader__open(&a, path, NULL) == 0);
	CHECK(pd_reader__open(&b, path, NULL) == 0);
	pd_reader__skip_samples(b, true);
	pd_reader__skim_ahead(b, pd_reader__info(b)->data_offset + pd_reader__info(b)->data_size / 2);
	for (int i = 0; i < 3; i++)
		CHECK(pd_reader__next(b, &eb) == 1);
	CHECK(pd_reader__rewind(b) == 0);
	pd_reader__skip_samples(b, false);
	do {
		ra = pd_reader__next(a, &ea);
		rb = pd_reader__next(b, &eb);
		n += ra > 0 && ea.kind == PD_SAMPLE;
	} while (ra == rb && ra > 0 && ea.offset == eb.offset && ea.seq == eb.seq);
	CHECK_EQ_U64(ra, 0);
	CHECK_EQ_U64(rb, 0);
	CHECK(n > 1000);
	CHECK(!pd_reader__skimmed(b));
	/* samples asked for again in the middle of the pass: every one comes */
	CHECK(pd_reader__rewind(a) == 0 && pd_reader__rewind(b) == 0);
	pd_reader__skip_samples(b, true);
	pd_reader__skim_ahead(b, pd_reader__info(b)->data_offset + pd_reader__info(b)->data_size / 2);
	CHECK(pd_reader__next(b, &eb) == 1);
	pd_reader__skip_samples(b, false);
	do {
		ra = pd_reader__next(a, &ea);
	} while (ra > 0 && ea.offset != eb.offset);
	do {
		ra = pd_reader__next(a, &ea);
		rb = pd_reader__next(b, &eb);
	} while (ra == rb && ra > 0 && ea.offset == eb.offset && ea.seq == eb.seq);
	CHECK_EQ_U64(ra, 0);
	CHECK_EQ_U64(rb, 0);
	pd_reader__delete(a);
	/* deleted while the other thread walks */
	pd_reader__rewind(b);
	pd_reader__skip_samples(b, true);
	pd_reader__skim_ahead(b, pd_reader__info(b)->data_offset + 8);
	pd_reader__delete(b);
}

static void skim_case(enum skim_damage damage, unsigned int fake_at)
{
	struct perf_event_attr attr = attr_of(PERF_TYPE_SOFTWARE, 2, PERF_SAMPLE_IP | PERF_SAMPLE_TID |
					      PERF_SAMPLE_TIME | PERF_SAMPLE_RAW, true);
	char path[] = "/tmp/c2cscan-test-skim-XXXXXX";
	struct file_spec fs = { .attrs = &attr, .nr_attrs = 1 };
	size_t fake_off = 0, damaged = 0, nr_from = 0, nr_taken = 0;
	struct test_buf data = skim_data(3000, fake_at, &fake_off), b;
	int fd = mkstemp(path);

	/* the damage sits in the last quarter, where the skim walks */
	for (size_t off = 0; damage != SKIM_CLEAN && off < data.len; off += get16(data.p + off + 6)) {
		uint16_t size = get16(data.p + off + 6);

		if (off < data.len * 3 / 4 || (damage == SKIM_SHORT_COMM && data.p[off] != PERF_RECORD_COMM) ||
		    (damage == SKIM_TRUNCATED && data.p[off] != PERF_RECORD_SAMPLE))
			continue;
		damaged = off;
		if (damage == SKIM_TRUNCATED) {
			/* the file ends inside a sample, after its header */
			damaged = off + 16;
			break;
		}
		if (damage == SKIM_ZERO_SIZE) {
			set16(&data, off + 6, 0);
			break;
		}
		/* a COMM too short for its fields, then a record of what is
		 * left of it: the skim walks on, the reader refuses the COMM */
		set16(&data, off + 6, 16);
		memcpy(data.p + off + 16, &(uint32_t){ PD_REC_FINISHED_ROUND }, 4);
		set16(&data, off + 20, 0);
		set16(&data, off + 22, (uint16_t)(size - 16));
		break;
	}
	CHECK(damage == SKIM_CLEAN || damaged);
	fs.data = &data;
	b = make_file(&fs);
	CHECK(fd >= 0 && write(fd, b.p, damage == SKIM_TRUNCATED ? b.len - data.len + damaged : b.len) > 0);
	close(fd);
	/* from anywhere: inside records, on their boundaries, near the end */
	for (uint64_t from = 8; from < data.len + 64; from += from < 4096 ? 8 : 997, nr_from++)
		nr_taken += skim_compare(path, from);
	if (damage == SKIM_CLEAN)
		skim_abandoned(path);
	if (fake_at) {
		/* the skim believes the fake headers, and the reader steps
		 * over them: dropped, and the pass reads as without */
		CHECK(!skim_compare(path, fake_off - 16));
		CHECK(!skim_compare(path, fake_off));
	}
	/* a clean file's skim is taken nearly wherever it starts; a damaged
	 * one where it starts past the damage (or never) */
	if (damage == SKIM_CLEAN)
		CHECK(nr_taken * 10 >= nr_from * 9);
	if (damage != SKIM_CLEAN && damage != SKIM_SHORT_COMM)
		CHECK(nr_taken * 2 < nr_from);
	if (damage == SKIM_SHORT_COMM)
		CHECK(nr_taken * 2 > nr_from);
	unlink(path);
	free(b.p);
	free(data.p);
}

/* Unasked, the reader skims a data section of 8 MiB or more whose records
 * other than samples lie 64 KiB apart or more, not one where they are close
 * (read one by one, they would cost what the walk costs). */
static void skim_spacing(unsigned int every, bool want)
{
	struct perf_event_attr attr = attr_of(PERF_TYPE_SOFTWARE, 2, PERF_SAMPLE_IP | PERF_SAMPLE_TID |
					      PERF_SAMPLE_TIME | PERF_SAMPLE_RAW, true);
	char path[] = "/tmp/c2cscan-test-skim-XXXXXX";
	struct file_spec fs = { .attrs = &attr, .nr_attrs = 1 };
	struct test_buf data = { 0 }, b;
	int fd = mkstemp(path);

	for (unsigned int i = 0; data.len < (9u << 20); i++) {
		if (i % every == every / 2) {
			put_comm(&data, 1000 + i, "worker", true, 1000000000ULL + i);
			continue;
		}
		put_hdr(&data, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 24 + 8);
		test_put64(&data, 0x401000 + i);
		test_put32(&data, 1000);
		test_put32(&data, 1000);
		test_put64(&data, 1000000000ULL + i);
		test_put32(&data, 4);
		test_put32(&data, 0xffffffff);
	}
	fs.data = &data;
	b = make_file(&fs);
	CHECK(fd >= 0 && write(fd, b.p, b.len) == (ssize_t)b.len);
	close(fd);
	CHECK(skim_compare(path, 0) == want);
	unlink(path);
	free(b.p);
	free(data.p);
}

/*
 * Real files read through the pread window (records across its end: the
 * AMD file is 2.2 MB), twice (a rewind): runs of fixed samples give what
 * events give. The AMD file has only fixed samples.
 */
static void test_fixed_real(void)
{
	static const uint8_t steps[] = { 64, 1, 255, 3, 17 };
	DIR *d = opendir(RD);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[512];
		struct pd_reader *a, *b;
		long got[2];
		uint64_t samples = 0;

		if (!strstr(de->d_name, ".data"))
			continue;
		snprintf(path, sizeof(path), RD "%s", de->d_name);
		if (pd_reader__open(&a, path, NULL))
			continue;
		if (pd_reader__open(&b, path, NULL)) {
			pd_reader__delete(a);
			continue;
		}
		for (int pass = 0; pass < 2; pass++) {
			got[pass] = fixed_oracle(a, b, steps, ARRAY_SIZE(steps));
			if (got[pass] < 0)
				fprintf(stderr, "  %s: runs of fixed samples differ (pass %d)\n", de->d_name, pass);
			CHECK(got[pass] >= 0);
			samples = pd_reader__stats(a)->by_kind[PD_SAMPLE];
			pd_reader__rewind(a);
			pd_reader__rewind(b);
		}
		CHECK_EQ_U64((uint64_t)got[0], (uint64_t)got[1]);
		if (strstr(de->d_name, "amd-zen4"))
			/* but those across the window's end (once per MiB) */
			CHECK((uint64_t)got[0] + 4 >= samples && samples > 1000);
		pd_reader__delete(a);
		pd_reader__delete(b);
	}
	closedir(d);
}

static void test_skim(void)
{
	skim_spacing(3000, true);       /* a COMM per 120 KB */
	skim_spacing(1000, false);      /* per 40 KB */
	skim_spacing(7, false);
	/* real streams: rounds, mmaps, forks, throttles, compressed records,
	 * old attrs, a corrupt file; each from seven places in its data */
	for (size_t i = 0; i < ARRAY_SIZE(expects); i++) {
		char path[512];
		struct pd_reader *r;
		uint64_t size;

		snprintf(path, sizeof(path), RD "%s", expects[i].file);
		if (access(path, R_OK) || pd_reader__open(&r, path, NULL))
			continue;
		size = pd_reader__info(r)->data_size;
		pd_reader__delete(r);
		for (uint64_t k = 1; k < 8 && size > 64; k++)
			skim_compare(path, size * k / 8);
	}
	skim_case(SKIM_CLEAN, 0);
	skim_case(SKIM_CLEAN, 2000);
	skim_case(SKIM_ZERO_SIZE, 0);
	skim_case(SKIM_SHORT_COMM, 0);
	skim_case(SKIM_TRUNCATED, 0);
}

/* Resident kilobytes of the mappings of path in this process (smaps). */
static long mapped_kb(const char *path)
{
	char line[1024];
	unsigned long from, to;
	long kb = 0, v;
	bool in = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* a mapping's first line ("from-to perms ... [path]"), then its fields */
		if (sscanf(line, "%lx-%lx ", &from, &to) == 2)
			in = strstr(line, path) != NULL;
		else if (in && sscanf(line, "Rss: %ld kB", &v) == 1)
			kb += v;
	}
	fclose(f);
	return kb;
}

/*
 * A file with user stacks is read from its mapping (not copied through the
 * window): after a whole pass, none of its data pages stay mapped, the last
 * ones included (they stayed, up to RELEASE_CHUNK of them, and the next
 * pass mapped the file again on top).
 */
static void test_mapped_release(void)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
					.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_STACK_USER,
					.sample_stack_user = 4096 };
	static uint8_t stack[4096];
	char path[] = "/tmp/c2cscan-test-mapped-XXXXXX", rec[8192];
	struct pd_sample s = { .ip = 0x401000, .pid = 1, .tid = 1, .stack = stack, .stack_size = sizeof(stack) };
	struct pd_writer *w;
	struct pd_reader *r;
	struct pd_event ev;
	int fd = mkstemp(path), n = 0;
	long kb;

	CHECK(fd >= 0);
	close(fd);
	CHECK(pd_writer__open(&w, path) == 0);
	CHECK(pd_writer__add_attr(w, &attr, "dummy", NULL, 0) >= 0);
	for (int i = 0; i < 2000; i++) {
		ssize_t len = pd_fmt_sample(rec, sizeof(rec), &attr, PERF_RECORD_MISC_USER, &s);

		CHECK(len > 0 && pd_writer__write(w, rec, (size_t)len) == 0);
	}
	CHECK(pd_writer__finish(w) == 0);
	pd_writer__delete(w);
	CHECK(pd_reader__open(&r, path, NULL) == 0);
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			CHECK(pd_reader__rewind(r) == 0);
		while (pd_reader__next(r, &ev) > 0)
			n += ev.kind == PD_SAMPLE;
		kb = mapped_kb(path);
		CHECK_EQ_U64(kb, 0);
	}
	CHECK_EQ_U64(n, 4000);
	pd_reader__delete(r);
	unlink(path);
}

/* ---- the side-band index (C2CSCAN_INDEX) -------------------------------- */

static uint64_t ld64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void add64_at(uint8_t *p, int64_t d)
{
	uint64_t v = ld64_at(p) + (uint64_t)d;

	memcpy(p, &v, 8);
}

/* The offset of feature f's payload in the file image p (its length in
 * *len), or 0 when the file has none. */
static size_t feature_at(const uint8_t *p, size_t size, unsigned int f, size_t *len)
{
	uint64_t tab = ld64_at(p + 40) + ld64_at(p + 48), k = 0;

	for (unsigned int b = 0; b < 256; b++) {
		if (!((ld64_at(p + 72 + b / 64 * 8) >> (b % 64)) & 1))
			continue;
		if (tab + 16 * k + 16 > size)
			return 0;
		if (b == f) {
			*len = ld64_at(p + tab + 16 * k + 8);
			return ld64_at(p + tab + 16 * k);
		}
		k++;
	}
	return 0;
}

/* A recording through pd_writer: samples, mmaps, comms, forks, exits,
 * throttles and rounds in a random order (unchecked: one write of bytes
 * that are not records, which leaves the file without an index). */
static void index_file(const char *path, unsigned int nr, bool unchecked)
{
	struct perf_event_attr attr = attr_of(PERF_TYPE_SOFTWARE, 2, PERF_SAMPLE_IP | PERF_SAMPLE_TID |
					      PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR, true);
	struct pd_writer *w;
	uint64_t st = 0x1234567, t = 1000;
	uint8_t rec[512];

	CHECK(pd_writer__open(&w, path) == 0);
	CHECK(pd_writer__add_attr(w, &attr, "dummy", NULL, 0) >= 0);
	for (unsigned int i = 0; i < nr; i++) {
		uint64_t x = test_rand(&st);
		uint32_t pid = 100 + x % 7;
		struct pd_sample_id sid = { .pid = pid, .tid = pid, .time = t++ };
		struct pd_sample s = { .ip = 0x401000 + x % 4096, .addr = 0x7f0000000000 + (x >> 20) % 65536,
				       .pid = pid, .tid = pid, .time = t };
		struct pd_mmap m = { .pid = pid, .tid = pid, .v2 = true, .start = 0x7f0000000000 + (x >> 12) % 4096 * 4096,
				     .len = 4096, .prot = 3, .flags = 2, .filename = "//anon" };
		struct pd_comm c = { .pid = pid, .tid = pid, .exec = x & 1, .comm = "indexed" };
		struct pd_fork f = { .pid = pid + 10, .ppid = pid, .tid = pid + 10, .ptid = pid, .time = t };
		struct pd_throttle th = { .time = t, .id = 0, .stream_id = 0 };
		ssize_t n;

		switch ((x >> 40) % 16) {
		case 0: n = pd_fmt_mmap(rec, sizeof(rec), &attr, PERF_RECORD_MISC_MMAP_DATA, &m, &sid); break;
		case 1: n = pd_fmt_comm(rec, sizeof(rec), &attr, &c, &sid); break;
		case 2: n = pd_fmt_fork(rec, sizeof(rec), &attr, (x >> 50) & 1 ? PERF_RECORD_FORK : PERF_RECORD_EXIT,
				       &f, &sid); break;
		case 3: n = pd_fmt_throttle(rec, sizeof(rec), &attr, PERF_RECORD_THROTTLE, &th, &sid); break;
		case 4: n = pd_fmt_finished_round(rec, sizeof(rec)); break;
		default: n = pd_fmt_sample(rec, sizeof(rec), &attr, PERF_RECORD_MISC_USER, &s); break;
		}
		CHECK(n > 0 && pd_writer__write(w, rec, (size_t)n) == 0);
		if (unchecked && i == nr / 2)
			CHECK(pd_writer__write_unchecked(w, (uint64_t[2]){ 0x0010000000000044ULL, 0 }, 16) == 0);
	}
	CHECK(pd_writer__finish(w) == 0);
	pd_writer__delete(w);
}

/* The side-band pass of path with the index, then a walk: whether the walk
 * left the index unconfirmed; the pass's events must be a plain walk's
 * when same. */
static bool index_pass(const char *path, bool same, bool *taken)
{
	struct pd_reader *a, *b;
	struct pd_event eb;
	bool eq, unconfirmed;
	int ra, rb;

	CHECK(pass_oracle_open(path, &a, &b));
	pd_reader__skip_samples(a, true);
	pd_reader__skip_samples(b, true);
	pd_reader__skim_ahead(b, 0);
	eq = pass_oracle_same(a, b, &ra, &rb);
	if (same)
		CHECK(eq);
	*taken = pd_reader__skimmed(b);
	/* what the pass read is not known to be right until a walk ends */
	CHECK(pd_reader__index_unconfirmed(b) == *taken);
	CHECK(pd_reader__rewind(b) == 0);
	pd_reader__skip_samples(b, false);
	while (pd_reader__next(b, &eb) > 0)
		;
	unconfirmed = pd_reader__index_unconfirmed(b);
	/* read again without it: a walk, as a file without an index */
	pd_reader__drop_index(b);
	CHECK(!pd_reader__index_unconfirmed(b));
	CHECK(pd_reader__rewind(a) == 0 && pd_reader__rewind(b) == 0);
	pd_reader__skip_samples(b, true);
	pd_reader__skim_ahead(b, 0);
	CHECK(pass_oracle_same(a, b, &ra, &rb));
	CHECK(!pd_reader__index_unconfirmed(b));
	pd_reader__delete(a);
	pd_reader__delete(b);
	return unconfirmed;
}

enum index_forgery { IX_TRUE, IX_MOVED, IX_SKIPPED, IX_SHIFTED, IX_TAIL, IX_SHORT, IX_SIZE, IX_ORDER, IX_MAGIC };

/*
 * A file of pd_writer's lists its records other than samples: a side-band
 * pass reads them only, with the ordinals of a walk, and a walk confirms
 * the list. A list that lies (a record moved to where a sample is, a count
 * between records or after the last wrong, a record left out) is caught by
 * the walk (a count one too many, one one too few after it: the total is
 * right, the ordinals between are not); one that cannot be true (a size other than the data's, offsets
 * out of order, another magic) is not used at all.
 */
static void test_index(void)
{
	char path[] = "/tmp/c2cscan-test-index-XXXXXX";
	int fd = mkstemp(path);
	size_t len, at, size;
	uint8_t *img;
	FILE *f;
	bool taken;

	CHECK(fd >= 0);
	close(fd);
	index_file(path, 1, false);
	CHECK(!index_pass(path, true, &taken) && taken);
	index_file(path, 20000, true);
	f = fopen(path, "rb");
	img = malloc(4 << 20);
	CHECK(img != NULL);
	size = fread(img, 1, 4 << 20, f);
	fclose(f);
	CHECK(feature_at(img, size, PD_FEAT_C2CSCAN_INDEX, &len) == 0);
	index_file(path, 20000, false);
	f = fopen(path, "rb");
	size = fread(img, 1, 4 << 20, f);
	fclose(f);
	at = feature_at(img, size, PD_FEAT_C2CSCAN_INDEX, &len);
	CHECK(at && len > PD_INDEX_HEAD + 64 && at + len <= size);
	for (int forge = IX_TRUE; forge <= IX_MAGIC && at; forge++) {
		uint8_t *p = malloc(size), *ix;
		uint64_t nr, k, data = ld64_at(img + 40);

		CHECK(p != NULL);
		memcpy(p, img, size);
		ix = p + at;
		nr = ld64_at(ix + 16);
		k = nr / 2;
		CHECK(nr > 100);
		switch (forge) {
		case IX_MOVED: {
			/* record k at the sample just before it (records between
			 * one fewer) */
			uint64_t off = ld64_at(ix + PD_INDEX_HEAD + 16 * (k - 1)), to = ld64_at(ix + PD_INDEX_HEAD + 16 * k), s = off;

			while (s + get16(p + data + s + 6) < to)
				s += get16(p + data + s + 6);
			CHECK(s > off && (uint32_t)ld64_at(p + data + s) == PERF_RECORD_SAMPLE);
			memcpy(ix + PD_INDEX_HEAD + 16 * k, &s, 8);
			break;
		}
		case IX_SKIPPED:
			add64_at(ix + PD_INDEX_HEAD + 16 * k + 8, 1);
			break;
		case IX_SHIFTED:
			while (k + 1 < nr && !ld64_at(ix + PD_INDEX_HEAD + 16 * (k + 1) + 8))
				k++;
			CHECK(k + 1 < nr);
			add64_at(ix + PD_INDEX_HEAD + 16 * k + 8, 1);
			add64_at(ix + PD_INDEX_HEAD + 16 * (k + 1) + 8, -1);
			break;
		case IX_TAIL:
			add64_at(ix + 24, 1);
			break;
		case IX_SHORT:
			add64_at(ix + 16, -1);
			break;
		case IX_SIZE:
			add64_at(ix + 8, 8);
			break;
		case IX_ORDER:
			memcpy(ix + PD_INDEX_HEAD + 16 * k, ix + PD_INDEX_HEAD + 16 * (k - 1), 8);
			break;
		case IX_MAGIC:
			ix[0] ^= 1;
			break;
		default:
			break;
		}
		f = fopen(path, "wb");
		CHECK(f && fwrite(p, 1, size, f) == size);
		fclose(f);
		/* the forged lists mislead the pass that reads them: caught */
		CHECK(index_pass(path, forge == IX_TRUE, &taken) == (forge != IX_TRUE && forge < IX_SIZE));
		CHECK(taken == (forge < IX_SIZE));
		free(p);
	}
	free(img);
	unlink(path);
}

int main(void)
{
	test_refusals();
	test_sample_fields();
	test_fixed_samples();
	test_stream_errors();
	test_unterminated();
	test_old_attrs();
	test_features();
	test_compressed(false);
	test_compressed(true);
	test_compressed_large();
	test_zstd_bomb();
	test_pipe();
	test_real_files();
	test_real_facts();
	test_window();
	test_mapped_release();
	test_skim();
	test_index();
	test_read_ahead();
	test_fixed_real();
	test_mutations();
	return test_done("test_reader");
}
