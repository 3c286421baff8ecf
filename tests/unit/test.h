/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal unit-test harness: CHECK() records failures, test_done() exits 1 if any. */
#ifndef C2CSCAN_TEST_H
#define C2CSCAN_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failures, test_checks;

#define CHECK(cond)                                                                     \
	do {                                                                            \
		test_checks++;                                                          \
		if (!(cond)) {                                                          \
			test_failures++;                                                \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                       \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                              \
	do {                                                                            \
		unsigned long long _a = (unsigned long long)(a), _b = (unsigned long long)(b); \
		test_checks++;                                                          \
		if (_a != _b) {                                                         \
			test_failures++;                                                \
			fprintf(stderr, "%s:%d: %s == %s failed: %llu != %llu (0x%llx != 0x%llx)\n", \
				__FILE__, __LINE__, #a, #b, _a, _b, _a, _b);              \
		}                                                                       \
	} while (0)

#define CHECK_STR(a, b)                                                                 \
	do {                                                                            \
		const char *_a = (a), *_b = (b);                                        \
		test_checks++;                                                          \
		if (!_a || !_b || strcmp(_a, _b)) {                                     \
			test_failures++;                                                \
			fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n",     \
				__FILE__, __LINE__, #a, #b, _a ? _a : "(null)", _b ? _b : "(null)"); \
		}                                                                       \
	} while (0)

static inline int test_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, test_checks, test_failures);
	return test_failures ? 1 : 0;
}

/* xorshift64: the tests' generator of reproducible inputs (*s: its
 * state, never 0). */
static inline uint64_t test_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A byte buffer the tests build inputs in (perf.data streams, jitdump
 * files): appended to, grown as needed; p is freed by the test. */
struct test_buf {
	uint8_t *p;
	size_t len, cap;
};

/* n bytes of d, or n zero bytes when d is NULL. */
static inline void test_put(struct test_buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	if (d)
		memcpy(b->p + b->len, d, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
}

static inline void test_put32(struct test_buf *b, uint32_t v)
{
	test_put(b, &v, 4);
}

static inline void test_put64(struct test_buf *b, uint64_t v)
{
	test_put(b, &v, 8);
}

#endif
