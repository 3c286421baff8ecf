// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "util/util.h"

static void oom(size_t n)
{
	fprintf(stderr, "c2cscan: out of memory (allocating %zu bytes)\n", n);
	exit(1);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		oom(SIZE_MAX);
	p = realloc(p, nmemb && size ? nmemb * size : 1);
	if (!p)
		oom(nmemb * size);
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(strlen(fmt));
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

void xgrow(void **p, size_t *alloc, size_t need, size_t elem)
{
	size_t n = *alloc ? *alloc : 8;

	if (need <= *alloc)
		return;
	while (n < need)
		n *= 2;
	*p = xrealloc(*p, n, elem);
	*alloc = n;
}

void bbuf__put(struct bbuf *b, const void *src, size_t n)
{
	if (!n)
		return;
	xgrow((void **)&b->p, &b->alloc, b->len + n, 1);
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

void bbuf__free(struct bbuf *b)
{
	free(b->p);
	*b = (struct bbuf){ 0 };
}

size_t pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}

bool threads_wanted(void)
{
	static long cpus; /* sysconf reads /sys each time */
	long n = __atomic_load_n(&cpus, __ATOMIC_RELAXED);

	if (!n) {
		n = sysconf(_SC_NPROCESSORS_ONLN);
		__atomic_store_n(&cpus, n, __ATOMIC_RELAXED);
	}
	return n > 1 && !getenv("C2CSCAN_NO_THREADS");
}

void zero_mem(void *p, size_t n)
{
	memset(p, 0, n);
}

#define BIG_ALIGN (2u << 20)

static void *big_map(size_t len, bool huge)
{
	uint8_t *p, *a;

	p = mmap(NULL, len + BIG_ALIGN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		oom(len);
	a = (uint8_t *)(((uintptr_t)p + BIG_ALIGN - 1) & ~(uintptr_t)(BIG_ALIGN - 1));
	if (a > p)
		munmap(p, a - p);
	if (a + len < p + len + BIG_ALIGN)
		munmap(a + len, p + len + BIG_ALIGN - (a + len));
	if (huge)
		madvise(a, len, MADV_HUGEPAGE);
	return a;
}

void *xbig_calloc(size_t size, bool huge)
{
	size_t len;

	if (size < BIG_ALIGN / 2)
		return xcalloc(1, size);
	len = (size + BIG_ALIGN - 1) & ~(size_t)(BIG_ALIGN - 1);
	if (len < size || len + BIG_ALIGN < len)
		oom(SIZE_MAX);
	return big_map(len, huge);
}

void xbig_free(void *p, size_t size)
{
	if (!p)
		return;
	if (size < BIG_ALIGN / 2) {
		free(p);
		return;
	}
	munmap(p, (size + BIG_ALIGN - 1) & ~(size_t)(BIG_ALIGN - 1));
}

/* Lower bound without branches on the comparison (sets are searched for
 * every sample; their order is unpredictable to a branch predictor). */
static uint32_t u32set__pos(const uint32_t *v, uint32_t nr, uint32_t x)
{
	const uint32_t *base = v;
	uint32_t n = nr;

	if (!n)
		return 0;
	while (n > 1) {
		uint32_t half = n / 2;

		base = base[half] < x ? base + half : base;
		n -= half;
	}
	return (uint32_t)(base - v) + (*base < x);
}

void u32set__add(struct u32set *s, uint32_t x)
{
	uint32_t *v = s->alloc ? s->heap : s->inl;
	uint32_t pos = u32set__pos(v, s->nr, x);

	if (pos < s->nr && v[pos] == x)
		return;
	if (!s->alloc && s->nr == U32SET_INLINE) {
		uint32_t *heap = xmalloc(8 * sizeof(*heap));

		memcpy(heap, s->inl, sizeof(s->inl));
		s->heap = heap;
		s->alloc = 8;
		v = heap;
	} else if (s->alloc && s->nr == s->alloc) {
		s->alloc *= 2;
		s->heap = xrealloc(s->heap, s->alloc, sizeof(*s->heap));
		v = s->heap;
	}
	memmove(v + pos + 1, v + pos, (s->nr - pos) * sizeof(*v));
	v[pos] = x;
	s->nr++;
}

bool u32set__has(const struct u32set *s, uint32_t x)
{
	const uint32_t *v = u32set__data(s);
	uint32_t pos = u32set__pos(v, s->nr, x);

	return pos < s->nr && v[pos] == x;
}

void u32set__merge(struct u32set *dst, const struct u32set *src)
{
	const uint32_t *v = u32set__data(src);

	for (uint32_t i = 0; i < src->nr; i++)
		u32set__add(dst, v[i]);
}

void u32set__exit(struct u32set *s)
{
	if (s->alloc)
		free(s->heap);
	memset(s, 0, sizeof(*s));
}

bool path_is_pseudo_fs(const char *path)
{
	static const char *const dirs[] = { "/proc/", "/sys/", "/dev/" };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (!strncmp(path, dirs[i], strlen(dirs[i])))
			return true;
	return false;
}

size_t name_len_undeleted(const char *name, size_t len)
{
	static const char suffix[] = " (deleted)";
	size_t n = sizeof(suffix) - 1;

	return len > n && !memcmp(name + len - n, suffix, n) ? len - n : len;
}

/* The n digits of tmp, last first, into buf (size >= 1), cut to size - 1. */
static size_t put_reversed(char *buf, size_t size, const char *tmp, size_t n)
{
	size_t k = n < size - 1 ? n : size - 1;

	for (size_t i = 0; i < k; i++)
		buf[i] = tmp[n - 1 - i];
	buf[k] = '\0';
	return k;
}

size_t u64_scnprint(char *buf, size_t size, uint64_t v)
{
	char tmp[20];
	size_t n = 0;

	if (!size)
		return 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return put_reversed(buf, size, tmp, n);
}

size_t str_scnprint(char *buf, size_t size, const char *s)
{
	size_t n;

	if (!size)
		return 0;
	n = strnlen(s, size - 1);
	memcpy(buf, s, n);
	buf[n] = '\0';
	return n;
}

size_t hex_scnprint(char *buf, size_t size, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[18];
	size_t n = 0;

	if (!size)
		return 0;
	do {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	} while (v);
	if (n > 1 || tmp[0] != '0') {
		tmp[n++] = 'x';
		tmp[n++] = '0';
	}
	return put_reversed(buf, size, tmp, n);
}

size_t fixed_scnprint(char *buf, size_t size, double x, int decimals)
{
	static const double scale[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	char tmp[48];
	double y, whole, frac;
	uint64_t q, unit;
	size_t n;

	if (!size)
		return 0;
	/* y is x * 10^decimals within 1.2e-7 (below 1e9): printf's digits are
	 * those of y's nearest integer unless y sits that close to a half */
	y = decimals >= 0 && decimals <= 6 ? x * scale[decimals] : -1;
	if (!(y >= 0 && y < 1e9) || signbit(x))
		return scnprintf(buf, size, "%.*f", decimals, x);
	whole = floor(y);
	frac = y - whole;
	if (fabs(frac - 0.5) < 1e-6)
		return scnprintf(buf, size, "%.*f", decimals, x);
	q = (uint64_t)whole + (frac > 0.5);
	unit = (uint64_t)scale[decimals];
	n = u64_scnprint(tmp, sizeof(tmp), q / unit);
	if (decimals) {
		tmp[n++] = '.';
		q %= unit;
		for (int i = decimals - 1; i >= 0; i--) {
			tmp[n + (size_t)i] = (char)('0' + q % 10);
			q /= 10;
		}
		n += (size_t)decimals;
	}
	tmp[n] = '\0';
	return str_scnprint(buf, size, tmp);
}

uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *c = p;
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;

	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 0x100000001b3ULL;
	}
	return hash64(h);
}

static uint64_t key_at(const void *p)
{
	uint64_t k;

	memcpy(&k, p, sizeof(k));
	return k;
}

int cmp_u64_key(const void *a, const void *b)
{
	uint64_t x = key_at(a), y = key_at(b);

	return x < y ? -1 : x > y;
}

size_t upper_bound_u64(const void *base, size_t nmemb, size_t size, uint64_t k)
{
	size_t lo = 0, hi = nmemb;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key_at((const char *)base + mid * size) <= k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!size)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

void hex_encode(char *buf, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		buf[2 * i] = digits[p[i] >> 4];
		buf[2 * i + 1] = digits[p[i] & 15];
	}
	buf[2 * n] = '\0';
}

size_t text_row(const char *s, size_t room)
{
	size_t len = strlen(s);

	if (len <= room)
		return len;
	len = room;
	while (len && s[len] != ' ')
		len--;
	return len ? len : room;
}

size_t si_scnprint(char *buf, size_t size, uint64_t v)
{
	static const char unit[] = "kMGTPE";
	double x = (double)v;
	int u = -1;

	if (v < 10000)
		return scnprintf(buf, size, "%" PRIu64, v);
	while (x >= 999.5 && u < 5) {
		x /= 1000;
		u++;
	}
	return scnprintf(buf, size, x < 9.995 ? "%.2f %c" : x < 99.95 ? "%.1f %c" : "%.0f %c", x, unit[u]);
}
