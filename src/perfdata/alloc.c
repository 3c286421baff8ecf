// SPDX-License-Identifier: GPL-2.0
/* The C2CSCAN_ALLOC feature, both ways (alloc.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "perfdata/alloc.h"
#include "perfdata/alloc_pack.h"
#include "util/util.h"

#define HEAD_V1 28                      /* magic, version, events, compressed bytes, names */
#define HEAD 36                         /* and (version 2) the events record dropped */
#define CHUNK (8u << 20)                /* decompressed at a time */

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

uint8_t *pd_alloc__encode_packed(const uint8_t *packed, size_t plen, uint64_t nr, const char *const *names,
				 uint32_t nr_names, uint64_t dropped, size_t *len)
{
	size_t names_len = 0, bound = ZSTD_compressBound(plen), off, z;
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
	/* level 1: packed events compress ~2x more, and record's end is
	 * waited for */
	z = ZSTD_compress(p + off, bound, packed, plen, 1);
	if (ZSTD_isError(z)) {
		free(p);
		return NULL;
	}
	put32(p, PD_ALLOC_MAGIC);
	put32(p + 4, 3);
	put64(p + 8, nr);
	put64(p + 16, z);
	put32(p + 24, nr_names);
	put64(p + 28, dropped);
	*len = off + z;
	return p;
}

/* Closes the block whose header is at head: its events end at end. */
static void block_close(uint8_t *buf, size_t head, size_t end, uint32_t nr)
{
	struct pd_alloc_block b;

	memcpy(&b, buf + head, sizeof(b));
	b.bytes = (uint32_t)(end - head - sizeof(b));
	b.nr = nr;
	memcpy(buf + head, &b, sizeof(b));
}

uint8_t *pd_alloc__encode(const struct pd_alloc_event *ev, uint64_t nr, const char *const *names,
			  uint32_t nr_names, uint64_t dropped, size_t *len)
{
	size_t cap = 0, end = 0, head = 0;
	uint8_t *buf = NULL, *p;
	struct pd_alloc_packer k;
	uint32_t in_block = 0;

	for (uint64_t i = 0; i < nr; i++) {
		const struct pd_alloc_event *e = &ev[i];

		/* a block per run of one thread's events */
		if (!in_block || e->pid != ev[i - 1].pid || e->tid != ev[i - 1].tid ||
		    end - head - sizeof(struct pd_alloc_block) > PD_ALLOC_BLOCK_MAX - PD_ALLOC_PACKED_MAX) {
			struct pd_alloc_block b = { .magic = PD_ALLOC_BLOCK_MAGIC, .pid = e->pid, .tid = e->tid };

			if (in_block)
				block_close(buf, head, end, in_block);
			xgrow((void **)&buf, &cap, end + sizeof(b), 1);
			head = end;
			memcpy(buf + head, &b, sizeof(b));
			end += sizeof(b);
			k = (struct pd_alloc_packer){ { { 0 } } };
			in_block = 0;
		}
		xgrow((void **)&buf, &cap, end + PD_ALLOC_PACKED_MAX, 1);
		end = (size_t)(pd_alloc__pack(buf + end, &k, e->kind, e->fn,
					      (uint64_t[4]){ e->time, e->addr, e->size, e->site }) - buf);
		in_block++;
	}
	if (in_block)
		block_close(buf, head, end, in_block);
	p = pd_alloc__encode_packed(buf, end, nr, names, nr_names, dropped, len);
	free(buf);
	return p;
}

static bool get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;

	for (unsigned int shift = 0; shift < 64 && *p < end; shift += 7) {
		uint8_t c = *(*p)++;

		r |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = r;
			return true;
		}
	}
	return false;
}

/* The events of the blocks at p into ev (room for nr): true when they are
 * exactly nr whole events. */
static bool unpack(const uint8_t *p, size_t len, struct pd_alloc_event *ev, uint64_t nr)
{
	const uint8_t *end = p + len;
	uint64_t n = 0;

	while (p < end) {
		struct pd_alloc_block b;
		const uint8_t *bend;
		struct pd_alloc_packer k = { { { 0 } } };

		if ((size_t)(end - p) < sizeof(b))
			return false;
		memcpy(&b, p, sizeof(b));
		p += sizeof(b);
		if (b.magic != PD_ALLOC_BLOCK_MAGIC || b.bytes > (size_t)(end - p) || !b.nr || b.nr > nr - n)
			return false;
		bend = p + b.bytes;
		for (uint32_t i = 0; i < b.nr; i++) {
			uint64_t tag, d, w[4];

			if (!get_varint(&p, bend, &tag))
				return false;
			for (int j = 0; j < 4; j++) {
				uint64_t *prev = pd_alloc__prev(&k, (uint16_t)tag, j);

				if (!get_varint(&p, bend, &d))
					return false;
				w[j] = *prev += d >> 1 ^ (uint64_t)-(int64_t)(d & 1);
			}
			ev[n++] = (struct pd_alloc_event){ .time = w[0], .addr = w[1], .size = w[2], .site = w[3],
				.pid = b.pid, .tid = b.tid, .kind = (uint16_t)(tag & 3), .fn = (uint16_t)(tag >> 2) };
		}
		if (p != bend)
			return false;
	}
	return n == nr;
}

static int fail(struct pd_alloc *out, char *why, size_t size, const char *reason)
{
	pd_alloc__exit(out);
	snprintf(why, size, "%s", reason);
	return -EINVAL;
}

/* The frame of want bytes into a buffer that grows as it fills: a frame
 * that claims more than it holds costs what it holds, not what it claims. */
static uint8_t *decompress(const uint8_t *z, size_t zlen, size_t want)
{
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	ZSTD_inBuffer in = { z, zlen, 0 };
	uint8_t *buf = NULL;
	size_t cap = 0, got = 0, rc = 1;
	bool ok = dc != NULL;

	while (ok && got < want) {
		ZSTD_outBuffer out;
		size_t before = in.pos;

		if (got == cap) {
			size_t grow = cap ? cap : CHUNK;        /* doubling */

			cap = want - cap < grow ? want : cap + grow;
			buf = xrealloc(buf, cap, 1);
		}
		out = (ZSTD_outBuffer){ buf, cap, got };
		rc = ZSTD_decompressStream(dc, &out, &in);
		/* an error, no progress, or the frame's end short of want */
		ok = !ZSTD_isError(rc) && (out.pos > got || in.pos > before) && (rc || out.pos == want);
		got = out.pos;
	}
	ZSTD_freeDCtx(dc);
	/* an empty frame (no events) is its header, which says so */
	if (!ok || got != want || (want && in.pos != in.size)) {
		free(buf);
		return NULL;
	}
	return buf ? buf : xmalloc(1);
}

int pd_alloc__decode(const uint8_t *p, size_t len, struct pd_alloc *out, char *why, size_t whysize)
{
	uint64_t nr, zlen;
	unsigned long long content;
	uint8_t *packed;
	size_t off;
	uint32_t version;

	memset(out, 0, sizeof(*out));
	if (len < HEAD_V1 || get32(p) != PD_ALLOC_MAGIC)
		return fail(out, why, whysize, "not an allocation section");
	version = get32(p + 4);
	if (version < 1 || version > 3)
		return fail(out, why, whysize, "allocation section of an unknown version");
	off = version == 1 ? HEAD_V1 : HEAD;
	if (len < off)
		return fail(out, why, whysize, "allocation section: its header is cut");
	nr = get64(p + 8);
	zlen = get64(p + 16);
	out->nr_names = get32(p + 24);
	out->dropped = version == 1 ? 0 : get64(p + 28);
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
	if (version < 3) {
		if (content != nr * sizeof(*out->ev))
			return fail(out, why, whysize, "allocation section: event count does not match the data");
		out->ev = (struct pd_alloc_event *)decompress(p + off, zlen, nr * sizeof(*out->ev));
		if (!out->ev)
			return fail(out, why, whysize, "allocation section: the events do not decompress");
		out->nr = nr;
		return 0;
	}
	/* packed: at least PD_ALLOC_PACKED_MIN bytes an event */
	if (content == ZSTD_CONTENTSIZE_UNKNOWN || content == ZSTD_CONTENTSIZE_ERROR ||
	    content < nr * PD_ALLOC_PACKED_MIN || content > nr * (PD_ALLOC_PACKED_MAX + sizeof(struct pd_alloc_block)))
		return fail(out, why, whysize, "allocation section: event count does not match the data");
	packed = decompress(p + off, zlen, content);
	if (!packed)
		return fail(out, why, whysize, "allocation section: the events do not decompress");
	out->ev = xmalloc(nr ? nr * sizeof(*out->ev) : 1);
	if (!unpack(packed, content, out->ev, nr)) {
		free(packed);
		return fail(out, why, whysize, "allocation section: the events do not decode");
	}
	free(packed);
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

static const char *const probe_roles[] = {
	[PD_PROBE_ENTRY] = "entry", [PD_PROBE_RET] = "ret", [PD_PROBE_FREE] = "free",
};

size_t pd_alloc_probe__name(const struct pd_alloc_probe *p, char *buf, size_t size)
{
	size_t n = scnprintf(buf, size, PD_ALLOC_PROBE_PREFIX "%s:%s", p->fn,
			     p->role < ARRAY_SIZE(probe_roles) && probe_roles[p->role] ? probe_roles[p->role] : "");
	char sep = ':';

	if (p->old_a >= 0) {
		n += scnprintf(buf + n, size - n, "%cold=a%d", sep, p->old_a);
		sep = ',';
	}
	if (p->size_a >= 0) {
		n += scnprintf(buf + n, size - n, "%csize=a%d", sep, p->size_a);
		if (p->size_b >= 0)
			n += scnprintf(buf + n, size - n, "*a%d", p->size_b);
		sep = ',';
	}
	if (p->free_a >= 0)
		n += scnprintf(buf + n, size - n, "%cfree=a%d", sep, p->free_a);
	return n;
}

bool pd_alloc_probe__parse(const char *name, struct pd_alloc_probe *p)
{
	const char *fn = name + strlen(PD_ALLOC_PROBE_PREFIX), *role, *args;

	*p = (struct pd_alloc_probe){ .size_a = -1, .size_b = -1, .old_a = -1, .free_a = -1 };
	if (strncmp(name, PD_ALLOC_PROBE_PREFIX, strlen(PD_ALLOC_PROBE_PREFIX)) || !(role = strchr(fn, ':')))
		return false;
	snprintf(p->fn, sizeof(p->fn), "%.*s", (int)(role - fn), fn);
	role++;
	for (size_t i = 0; i < ARRAY_SIZE(probe_roles); i++)
		if (probe_roles[i] && !strncmp(role, probe_roles[i], strlen(probe_roles[i])))
			p->role = (enum pd_probe_role)i;
	args = strchr(role, ':');
	while (args && *args) {
		int a = -1, b = -1;

		args++;
		if (sscanf(args, "size=a%d*a%d", &a, &b) >= 1 && !strncmp(args, "size=", 5)) {
			p->size_a = (int8_t)a;
			p->size_b = (int8_t)b;
		} else if (sscanf(args, "old=a%d", &a) == 1) {
			p->old_a = (int8_t)a;
		} else if (sscanf(args, "free=a%d", &a) == 1) {
			p->free_a = (int8_t)a;
		}
		args = strchr(args, ',');
	}
	return p->role != PD_PROBE_NONE;
}
