/* SPDX-License-Identifier: GPL-2.0 */
/* Small shared helpers: checked allocation, a u32 set, string interning, hashing. */
#ifndef C2CSCAN_UTIL_H
#define C2CSCAN_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Allocation failure is fatal: a message and exit(1) (sizes passed here are
 * always bounded by the caller first; see the limits in reader.h). */
void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Grow *p (array of elem bytes) so that index need-1 fits; doubles. */
void xgrow(void **p, size_t *alloc, size_t need, size_t elem);

/* Large zeroed tables (aggregation chunks, hash slots): anonymous memory
 * aligned to 2 MiB and, with huge, offered to transparent huge pages, so
 * that filling hundreds of MB costs a fault per 2 MiB rather than per 4 KiB
 * (without, pages come one by one as touched: small inputs stay small).
 * Free with xbig_free(p, size) of the same size. */
void *xbig_calloc(size_t size, bool huge);
void xbig_free(void *p, size_t size);

/* Up to len bytes of fd at off (short reads and EINTR retried): how many
 * were read, fewer at the end of the file or on an error. */
size_t pread_full(int fd, void *buf, size_t len, uint64_t off);

/* Whether work should go to a second thread: the machine has a second CPU
 * and C2CSCAN_NO_THREADS is not set (the results are the same either way). */
bool threads_wanted(void);

/* memset(p, 0, n) through libc: gcc expands a constant-size memset of a few
 * hundred bytes inline as `rep stosq`, whose start-up cost was most of the
 * per-record work of the reader and of the report's per-sample step. */
void zero_mem(void *p, size_t n);

/* Sorted set of u32 (pids, tids, cpus, nodes); embedded by value in every
 * line and row, so the first two values live inline (most rows are touched
 * by one or two threads) and only larger sets allocate. Read the values with
 * u32set__data(); the set may move with its owner. */
#define U32SET_INLINE 2
struct u32set {
	uint32_t nr, alloc;     /* alloc == 0: values in inl[] */
	union {
		uint32_t inl[U32SET_INLINE];
		uint32_t *heap;
	};
};
static inline const uint32_t *u32set__data(const struct u32set *s)
{
	return s->alloc ? s->heap : s->inl;
}
void u32set__add(struct u32set *s, uint32_t x);
bool u32set__has(const struct u32set *s, uint32_t x);
void u32set__merge(struct u32set *dst, const struct u32set *src);
void u32set__exit(struct u32set *s);

/* A growable byte buffer (zeroed: empty). */
struct bbuf {
	uint8_t *p;
	size_t len, alloc;
};

/* Appends n bytes from src. */
void bbuf__put(struct bbuf *b, const void *src, size_t n);
/* Frees the bytes; b is empty again. */
void bbuf__free(struct bbuf *b);

/* String interning: equal strings get one pointer and one id (from 1). */
struct strtab;
struct strtab *strtab__new(void);
void strtab__delete(struct strtab *t);
const char *strtab__intern(struct strtab *t, const char *s, uint64_t *idp);
const char *strtab__str(const struct strtab *t, uint64_t id);

/* Mapping names (MMAP records, /proc/PID/maps): paths on the kernel's
 * pseudo file systems (/proc, /sys, /dev), which are never read as objects;
 * and the length of a name without the " (deleted)" the kernel appends to
 * unlinked files (len if there is none). */
bool path_is_pseudo_fs(const char *path);
size_t name_len_undeleted(const char *name, size_t len);

/* How much of s a row of room characters holds, cut after a whole word
 * (mid-word only when one word is longer than the row). */
size_t text_row(const char *s, size_t room);

/* snprintf that returns what it stored (<= size - 1; 0 when size is 0),
 * not what it would have liked to. */
size_t scnprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* n bytes as 2n lowercase hex digits and a NUL (buf holds 2n + 1). */
void hex_encode(char *buf, const uint8_t *p, size_t n);

/* v in decimal, as snprintf("%" PRIu64) writes it (cut to size - 1). */
size_t u64_scnprint(char *buf, size_t size, uint64_t v);
/* s as scnprintf("%s") writes it: cut to size - 1, NUL-terminated. */
size_t str_scnprint(char *buf, size_t size, const char *s);
/* v as snprintf("%#" PRIx64) writes it ("0" for 0), cut to size - 1. */
size_t hex_scnprint(char *buf, size_t size, uint64_t v);
/* x with decimals digits after the point, as snprintf("%.*f") writes it
 * (the report's percentages: a tenth of the cost; snprintf itself where
 * the rounding is too close to call, or x is negative or large). */
size_t fixed_scnprint(char *buf, size_t size, double x, int decimals);
/* A large count as people read it: "475", "12.3 k", "1.22 G" (three
 * digits from 10000 on; JSON keeps the exact number). */
size_t si_scnprint(char *buf, size_t size, uint64_t v);

/* Mixes x (the splitmix64 finalizer); inline: tables hash per sample. */
static inline uint64_t hash64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);

/*
 * Arrays of structs whose first member is a uint64_t key (an address, a
 * time): cmp_u64_key orders them for qsort, upper_bound_u64 returns how many
 * leading elements of the sorted array have key <= k (the one before that
 * index is the last starting at or below k).
 */
int cmp_u64_key(const void *a, const void *b);
size_t upper_bound_u64(const void *base, size_t nmemb, size_t size, uint64_t k);

#endif
