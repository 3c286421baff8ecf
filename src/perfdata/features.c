// SPDX-License-Identifier: GPL-2.0
/*
 * The feature sections of a perf.data file (file mode) and its
 * HEADER_FEATURE records (pipe mode), one parser for both: hostname,
 * release, CPUs and NUMA topology, caches, command line, event names,
 * build-ids. A feature whose lengths are inconsistent is ignored, never
 * fatal.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perfdata/alloc.h"
#include "perfdata/reader_int.h"
#include "util/util.h"

struct fcur {
	const uint8_t *p;
	size_t left;
	bool bad;
};

static const uint8_t *f_skip(struct fcur *c, uint64_t n)
{
	const uint8_t *p = c->p;

	if (c->bad || c->left < n) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	c->left -= n;
	return p;
}

static uint32_t f_u32(struct fcur *c)
{
	const uint8_t *p = f_skip(c, 4);

	return p ? ld32(p) : 0;
}

static uint64_t f_u64(struct fcur *c)
{
	const uint8_t *p = f_skip(c, 8);

	return p ? ld64(p) : 0;
}

/* perf strings: u32 length (NUL padding included), then the bytes. The
 * result is always NUL-terminated; NULL when the length lies. */
static char *f_str(struct fcur *c)
{
	uint32_t len = f_u32(c);
	const uint8_t *p = f_skip(c, len);

	if (!p)
		return NULL;
	return strndup((const char *)p, strnlen((const char *)p, len));
}

static void f_set_str(char **dst, struct fcur *c)
{
	char *s = f_str(c);

	if (!s)
		return;
	free(*dst);
	*dst = s;
}

/* "0-3,8,10-11" -> node for each cpu; false when malformed. */
#define PD_MAX_CPU 65536
static bool parse_cpu_list(const char *s, int32_t node, int32_t **map, uint32_t *nr)
{
	while (*s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b;

		if (end == s || a >= PD_MAX_CPU)
			return false;
		b = a;
		s = end;
		if (*s == '-') {
			b = strtoul(s + 1, &end, 10);
			if (end == s + 1 || b >= PD_MAX_CPU || b < a)
				return false;
			s = end;
		}
		if (b + 1 > *nr) {
			*map = xrealloc(*map, b + 1, sizeof(**map));
			for (uint32_t i = *nr; i <= b; i++)
				(*map)[i] = -1;
			*nr = (uint32_t)b + 1;
		}
		for (unsigned long i = a; i <= b; i++)
			(*map)[i] = node;
		while (*s == ',' || *s == ' ' || *s == '\n')
			s++;
	}
	return true;
}

static void feat_numa(struct pd_reader *r, struct fcur *c)
{
	uint32_t nr = f_u32(c);
	int32_t *map = NULL;
	uint32_t nr_map = 0;

	if (c->bad || nr > c->left / 24)
		return;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t node = f_u32(c);
		char *cpus;

		f_u64(c); /* mem_total */
		f_u64(c); /* mem_free */
		cpus = f_str(c);
		if (!cpus || c->bad || node > INT32_MAX || !parse_cpu_list(cpus, (int32_t)node, &map, &nr_map)) {
			free(cpus);
			free(map);
			return;
		}
		free(cpus);
	}
	free(r->info.cpu_node);
	r->info.cpu_node = map;
	r->info.nr_cpu_node = nr_map;
	r->info.nr_nodes = nr;
}

static bool skip_strings(struct fcur *c)
{
	uint32_t nr = f_u32(c);

	if (c->bad || nr > c->left / 4)
		return false;
	for (uint32_t i = 0; i < nr && !c->bad; i++)
		f_skip(c, f_u32(c));
	return !c->bad;
}

static void feat_cpu_topology(struct pd_reader *r, struct fcur *c)
{
	uint32_t n = r->info.nr_cpus_avail;
	int32_t *core, *socket;

	if (!skip_strings(c) || !skip_strings(c))
		return;
	/* per-cpu core and socket ids came later (perf 4.x); optional */
	if (!n || n > PD_MAX_CPU || c->left / 8 < n)
		return;
	core = xmalloc(n * sizeof(*core));
	socket = xmalloc(n * sizeof(*socket));
	for (uint32_t i = 0; i < n; i++) {
		core[i] = (int32_t)f_u32(c);
		socket[i] = (int32_t)f_u32(c);
	}
	free(r->info.cpu_core);
	free(r->info.cpu_socket);
	r->info.cpu_core = core;
	r->info.cpu_socket = socket;
}

static void feat_cache(struct pd_reader *r, struct fcur *c)
{
	uint32_t version = f_u32(c), cnt = f_u32(c);
	uint32_t data_l1 = 0, any_l1 = 0;

	if (c->bad || version != 1 || cnt > c->left / 28)
		return;
	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t level = f_u32(c), line = f_u32(c);
		char *type;

		f_u32(c); /* sets */
		f_u32(c); /* ways */
		type = f_str(c);
		free(f_str(c)); /* size */
		free(f_str(c)); /* shared cpu map */
		if (!type || c->bad) {
			free(type);
			return;
		}
		/* a power of two that a cache could plausibly have */
		if (level == 1 && line >= 16 && line <= 4096 && !(line & (line - 1))) {
			if (!data_l1 && !strcmp(type, "Data"))
				data_l1 = line;
			if (!any_l1)
				any_l1 = line;
		}
		free(type);
	}
	if (data_l1 || any_l1)
		r->info.cacheline_size = data_l1 ? data_l1 : any_l1;
}

static void feat_cmdline(struct pd_reader *r, struct fcur *c)
{
	uint32_t nr = f_u32(c);
	char **v;

	if (c->bad || nr > c->left / 4)
		return;
	v = xcalloc(nr + 1, sizeof(*v));
	for (uint32_t i = 0; i < nr; i++) {
		v[i] = f_str(c);
		if (!v[i]) {
			for (uint32_t k = 0; k < i; k++)
				free(v[k]);
			free(v);
			return;
		}
	}
	for (uint32_t i = 0; i < r->info.nr_cmdline; i++)
		free(r->info.cmdline[i]);
	free(r->info.cmdline);
	r->info.cmdline = v;
	r->info.nr_cmdline = nr;
}

/*
 * One build_id_event (BUILD_ID feature entry or pipe-mode record): the
 * 8-byte header, pid (s32), 24 bytes of id (20, then the used size and 3
 * reserved when misc has bit 15), then a NUL-terminated file name padded
 * to the header's size. Returns the entry's size, or 0 when it is damaged.
 */
size_t reader_add_build_id(struct pd_reader *r, const uint8_t *p, size_t len)
{
	struct pd_info *in = &r->info;
	struct pd_build_id *b;
	uint32_t size;
	size_t name_len;

	if (len < 8 + 4 + 24 + 1)
		return 0;
	size = ld16(p + 6);
	if (size < 8 + 4 + 24 + 1 || size > len)
		return 0;
	name_len = strnlen((const char *)p + 36, size - 36);
	if (name_len == size - 36 || !name_len)
		return 0;
	if (in->nr_build_ids >= PD_MAX_BUILD_IDS)
		return size;
	xgrow((void **)&in->build_ids, &r->alloc_build_ids, in->nr_build_ids + 1, sizeof(*in->build_ids));
	b = &in->build_ids[in->nr_build_ids++];
	b->pid = ld32(p + 8);
	b->size = (ld16(p + 4) & (1u << 15)) && p[32] && p[32] <= 20 ? p[32] : 20;
	memcpy(b->id, p + 12, 20);
	b->name = xmalloc(name_len + 1);
	memcpy(b->name, p + 36, name_len);
	b->name[name_len] = '\0';
	return size;
}

static void feat_build_id(struct pd_reader *r, const uint8_t *p, size_t len)
{
	size_t n;

	while (len && (n = reader_add_build_id(r, p, len)) != 0) {
		p += n;
		len -= n;
	}
}

void reader_free_descs(struct desc_name *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(d[i].name);
		free(d[i].ids);
	}
	free(d);
}

static void feat_event_desc(struct pd_reader *r, struct fcur *c)
{
	uint32_t nr = f_u32(c), attr_size = f_u32(c);
	struct desc_name *d;

	if (c->bad || attr_size < PERF_ATTR_SIZE_VER0 || nr > c->left / (attr_size + 8ULL))
		return;
	d = xcalloc(nr ? nr : 1, sizeof(*d));
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nr_ids;
		const uint8_t *ids;

		f_skip(c, attr_size);
		nr_ids = f_u32(c);
		d[i].name = f_str(c);
		ids = f_skip(c, nr_ids * 8ULL);
		if (!d[i].name || !ids || c->bad) {
			reader_free_descs(d, nr);
			return;
		}
		d[i].nr_ids = nr_ids;
		if (nr_ids) {
			d[i].ids = xmalloc(nr_ids * sizeof(uint64_t));
			memcpy(d[i].ids, ids, nr_ids * sizeof(uint64_t));
		}
	}
	reader_free_descs(r->descs, r->nr_descs);
	r->descs = d;
	r->nr_descs = nr;
	reader_apply_desc_names(r);
}

/* Allocation events (record --alloc): a section that does not decode is
 * dropped with its reason; the samples still count. */
static void feat_alloc(struct pd_reader *r, const uint8_t *p, size_t len)
{
	struct pd_alloc *a = xcalloc(1, sizeof(*a));

	if (r->info.alloc || pd_alloc__decode(p, len, a, r->info.alloc_error, sizeof(r->info.alloc_error))) {
		free(a);
		return;
	}
	r->info.alloc = a;
}

/* The side-band index (perf_data.h): kept only when every entry makes
 * sense on its own (offsets increasing, aligned, inside the size it says);
 * whether it matches the data is checked by the reader when used. */
static void feat_index(struct pd_reader *r, struct fcur *c)
{
	uint64_t size, nr, tail, prev = 0;
	uint64_t *v;

	if (f_u32(c) != PD_INDEX_MAGIC || f_u32(c) != 1)
		return;
	size = f_u64(c);
	nr = f_u64(c);
	tail = f_u64(c);
	if (c->bad || r->index || nr > PD_INDEX_MAX || nr > c->left / 16)
		return;
	v = xmalloc((nr ? nr : 1) * 2 * sizeof(*v));
	for (uint64_t i = 0; i < nr; i++) {
		v[2 * i] = f_u64(c);
		v[2 * i + 1] = f_u64(c);
		if (v[2 * i] % 8 || v[2 * i] >= size || (i && v[2 * i] <= prev)) {
			free(v);
			return;
		}
		prev = v[2 * i];
	}
	r->index = v;
	r->index_nr = nr;
	r->index_tail = tail;
	r->index_size = size;
}

void reader_parse_feature(struct pd_reader *r, unsigned int feat, const uint8_t *p, size_t len)
{
	struct fcur c = { p, len, false };
	struct pd_info *in = &r->info;

	if (feat < PD_FEAT_MAX)
		in->feat_bits[feat / 64] |= 1ULL << (feat % 64);
	switch (feat) {
	case PD_FEAT_HOSTNAME:
		f_set_str(&in->hostname, &c);
		break;
	case PD_FEAT_OSRELEASE:
		f_set_str(&in->osrelease, &c);
		break;
	case PD_FEAT_VERSION:
		f_set_str(&in->version, &c);
		break;
	case PD_FEAT_ARCH:
		f_set_str(&in->arch, &c);
		break;
	case PD_FEAT_CPUDESC:
		f_set_str(&in->cpudesc, &c);
		break;
	case PD_FEAT_CPUID:
		f_set_str(&in->cpuid, &c);
		break;
	case PD_FEAT_NRCPUS: {
		uint32_t avail = f_u32(&c), online = f_u32(&c);

		if (!c.bad) {
			in->nr_cpus_avail = avail;
			in->nr_cpus_online = online;
		}
		break;
	}
	case PD_FEAT_TOTAL_MEM: {
		uint64_t kb = f_u64(&c);

		if (!c.bad)
			in->total_mem_kb = kb;
		break;
	}
	case PD_FEAT_CMDLINE:
		feat_cmdline(r, &c);
		break;
	case PD_FEAT_EVENT_DESC:
		feat_event_desc(r, &c);
		break;
	case PD_FEAT_CPU_TOPOLOGY:
		feat_cpu_topology(r, &c);
		break;
	case PD_FEAT_NUMA_TOPOLOGY:
		feat_numa(r, &c);
		break;
	case PD_FEAT_CACHE:
		feat_cache(r, &c);
		break;
	case PD_FEAT_BUILD_ID:
		feat_build_id(r, p, len);
		break;
	case PD_FEAT_C2CSCAN_ALLOC:
		feat_alloc(r, p, len);
		break;
	case PD_FEAT_C2CSCAN_INDEX:
		feat_index(r, &c);
		break;
	default:
		break;
	}
}

bool reader_feat_present(const struct pd_reader *r, uint64_t feat)
{
	return feat < PD_FEAT_MAX && (r->info.feat_bits[feat / 64] >> (feat % 64)) & 1;
}

