// SPDX-License-Identifier: GPL-2.0
/* The C2CSCAN_ALLOC feature, both ways (alloc.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "perfdata/alloc.h"
#include "util/util.h"

#define HEAD 28                         /* magic, version, events, compressed bytes, names */

static const char *const fn_names[PD_ALLOC_FN__NR] = {
	[PD_ALLOC_FN_MALLOC] = "malloc", [PD_ALLOC_FN_CALLOC] = "calloc", [PD_ALLOC_FN_REALLOC] = "realloc",
	[PD_ALLOC_FN_REALLOCARRAY] = "reallocarray", [PD_ALLOC_FN_ALIGNED_ALLOC] = "aligned_alloc",
	[PD_ALLOC_FN_MEMALIGN] = "memalign", [PD_ALLOC_FN_POSIX_MEMALIGN] = "posix_memalign",
	[PD_ALLOC_FN_VALLOC] = "valloc", [PD_ALLOC_FN_PVALLOC] = "pvalloc", [PD_ALLOC_FN_NEW] = "operator new",
	[PD_ALLOC_FN_NEW_ARRAY] = "operator new[]", [PD_ALLOC_FN_FREE] = "free",
	[PD_ALLOC_FN_DELETE] = "operator delete", [PD_ALLOC_FN_DELETE_ARRAY] = "operator delete[]",
};

int pd_alloc__fn_id(const char *name)
{
	for (int i = 0; i < PD_ALLOC_FN__NR; i++)
		if (!strcmp(fn_names[i], name))
			return i;
	return -1;
}

const char *pd_alloc__fn_name(const struct pd_alloc *a, uint16_t fn)
{
	if (fn < PD_ALLOC_FN__NR)
		return fn_names[fn];
	if (fn >= PD_ALLOC_FN_USER && a && fn - PD_ALLOC_FN_USER < (int)a->nr_names)
		return a->names[fn - PD_ALLOC_FN_USER];
	return "?";
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

uint8_t *pd_alloc__encode(const struct pd_alloc_event *ev, uint64_t nr, const char *const *names,
			  uint32_t nr_names, size_t *len)
{
	size_t raw = nr * sizeof(*ev), names_len = 0, bound = ZSTD_compressBound(raw), off, z;
	uint8_t *p;

	for (uint32_t i = 0; i < nr_names; i++)
		names_len += 4 + strlen(names[i]);
	p = xmalloc(HEAD + names_len + bound);
	off = HEAD;
	for (uint32_t i = 0; i < nr_names; i++) {
		size_t l = strlen(names[i]);

		put32(p + off, (uint32_t)l);
		memcpy(p + off + 4, names[i], l);
		off += 4 + l;
	}
	/* level 1: the events compress ~10x already, and record's end is
	 * waited for */
	z = ZSTD_compress(p + off, bound, ev, raw, 1);
	if (ZSTD_isError(z)) {
		free(p);
		return NULL;
	}
	put32(p, PD_ALLOC_MAGIC);
	put32(p + 4, 1);
	put64(p + 8, nr);
	put64(p + 16, z);
	put32(p + 24, nr_names);
	*len = off + z;
	return p;
}

static int fail(struct pd_alloc *out, char *why, size_t size, const char *reason)
{
	pd_alloc__exit(out);
	snprintf(why, size, "%s", reason);
	return -EINVAL;
}

int pd_alloc__decode(const uint8_t *p, size_t len, struct pd_alloc *out, char *why, size_t whysize)
{
	uint64_t nr, zlen;
	unsigned long long content;
	size_t off = HEAD, got;

	memset(out, 0, sizeof(*out));
	if (len < HEAD || get32(p) != PD_ALLOC_MAGIC)
		return fail(out, why, whysize, "not an allocation section");
	if (get32(p + 4) != 1)
		return fail(out, why, whysize, "allocation section of an unknown version");
	nr = get64(p + 8);
	zlen = get64(p + 16);
	out->nr_names = get32(p + 24);
	if (nr > PD_MAX_ALLOC_EVENTS || out->nr_names > PD_MAX_ALLOC_NAMES) {
		out->nr_names = 0;
		return fail(out, why, whysize, "allocation section too large");
	}
	out->names = xcalloc(out->nr_names ? out->nr_names : 1, sizeof(*out->names));
	for (uint32_t i = 0; i < out->nr_names; i++) {
		uint32_t l;

		if (len - off < 4 || (l = get32(p + off)) > len - off - 4 || l > 4096)
			return fail(out, why, whysize, "allocation section: a name runs past its end");
		out->names[i] = xmalloc(l + 1);
		memcpy(out->names[i], p + off + 4, l);
		out->names[i][l] = '\0';
		off += 4 + l;
	}
	if (zlen != len - off)
		return fail(out, why, whysize, "allocation section: compressed size does not match");
	content = ZSTD_getFrameContentSize(p + off, zlen);
	if (content != nr * sizeof(*out->ev))
		return fail(out, why, whysize, "allocation section: event count does not match the data");
	out->ev = xmalloc(nr ? nr * sizeof(*out->ev) : 1);
	got = ZSTD_decompress(out->ev, nr * sizeof(*out->ev), p + off, zlen);
	if (ZSTD_isError(got) || got != nr * sizeof(*out->ev))
		return fail(out, why, whysize, "allocation section: the events do not decompress");
	out->nr = nr;
	return 0;
}

void pd_alloc__exit(struct pd_alloc *a)
{
	for (uint32_t i = 0; a->names && i < a->nr_names; i++)
		free(a->names[i]);
	free(a->names);
	free(a->ev);
	memset(a, 0, sizeof(*a));
}
