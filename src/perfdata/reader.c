// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data reader: file mode (PERFILE2) and pipe mode, little-endian only.
 *
 * The whole input is mapped read-only (a file with mmap, stdin spooled to an
 * unlinked temporary file first, or a caller buffer) and records are decoded
 * in place: no allocation per record. Every length read from the input is
 * checked against the bytes left before it is used.
 *
 * Compressed records (PERF_RECORD_COMPRESSED/COMPRESSED2) are expanded into
 * one growing buffer with a single streaming zstd context: a zstd frame may
 * continue in the next compressed record and so may a perf record, so what
 * is left of a partial record stays at the front of the buffer and the next
 * chunk's output is appended to it. Records that come out of that buffer
 * report the file offset of the compressed record they came from.
 *
 * Feature sections (file mode) and HEADER_FEATURE records (pipe mode) share
 * one parser; a feature whose lengths are inconsistent is ignored, never
 * fatal.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "perfdata/reader.h"
#include "util/htab.h"
#include "util/util.h"

#define PD_MAGIC2      0x32454c4946524550ULL     /* "PERFILE2" little-endian */
#define PD_MAGIC2_SWAP 0x50455246494c4532ULL     /* "PERFILE2" written big-endian */
#define PD_MAGIC1      0x454c494646524550ULL     /* "PERFFILE", perf.data v1 */

#define FILE_HEADER_SIZE    104 /* magic, size, attr_size, 3 sections, features */
#define FILE_HEADER_SIZE_V0 72  /* PERFILE2 before the feature bitmap */
#define PIPE_HEADER_SIZE    16

/* A compressed record expanding past this is refused: zstd bombs. */
#define PD_MAX_DECOMP_CHUNK (64u << 20)
/* zstd window limit: perf compresses with small windows (level 1..22 on
 * chunks of the ring buffer size); 32 MiB leaves a wide margin. */
#define PD_ZSTD_WINDOW_LOG_MAX 25

#ifndef PERF_SAMPLE_WEIGHT_STRUCT
#define PERF_SAMPLE_WEIGHT_STRUCT (1U << 24)
#endif
#ifndef PERF_SAMPLE_CODE_PAGE_SIZE
#define PERF_SAMPLE_CODE_PAGE_SIZE (1U << 23)
#endif
#ifndef PERF_SAMPLE_DATA_PAGE_SIZE
#define PERF_SAMPLE_DATA_PAGE_SIZE (1U << 22)
#endif
#ifndef PERF_SAMPLE_CGROUP
#define PERF_SAMPLE_CGROUP (1U << 21)
#endif
#ifndef PERF_SAMPLE_AUX
#define PERF_SAMPLE_AUX (1U << 20)
#endif
#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1U << 4)
#endif
#define PD_BRANCH_HW_INDEX (1ULL << 17)
#define PD_BRANCH_COUNTERS (1ULL << 19)

/* perf's EVENT_UPDATE record: the NAME kind carries an event name. */
#define PD_EVENT_UPDATE_NAME 2

enum name_prio { NAME_SYNTH, NAME_UPDATE, NAME_DESC };

struct rattr {
	struct pd_attr a;       /* first: pd_reader__attr() hands out &ra->a */
	enum name_prio name_prio;
};

struct desc_name {              /* EVENT_DESC entry kept to name late attrs */
	char *name;
	uint64_t *ids;
	size_t nr_ids;
};

struct pd_reader {
	char *path;
	char err[512];
	int err_code;                   /* sticky stream error, 0 = none */

	/* input: base[0..len) */
	const uint8_t *base;
	size_t len;
	void *map;                      /* owned mapping, NULL for open_mem */
	size_t map_len;
	uint64_t released;              /* map[0..released) handed back (MADV_DONTNEED) */
	bool truncated;                 /* the data section runs past the end of the file */
	/* The data section is read through a window filled with pread: a
	 * copy from the page cache costs a third of faulting the mapping's
	 * pages in, and the process's RSS stays the window's size. The
	 * mapping serves the header, attrs and features, and the records
	 * when a read fails. */
	int fd;                         /* valid when have_fd */
	bool have_fd;
	uint8_t *win;
	uint64_t win_off, win_len;
	bool skip_samples;

	bool pipe;
	uint64_t data_start, data_end, pos;
	bool unterminated;

	/* attrs; stable pointers because pipe mode appends while reading */
	struct rattr **attrs;
	size_t nr_attrs, alloc_attrs;
	size_t nr_header_attrs;         /* attrs from the file header */
	size_t stream_attrs_seen;       /* HEADER_ATTR records seen this pass */
	size_t total_ids;
	struct u64map ids;           /* sample id -> attr index */

	struct desc_name *descs;
	size_t nr_descs;
	/* attrs or ids came in since the EVENT_DESC names were applied: they
	 * are applied once per pass, not per record, as a stream of ID_INDEX
	 * records would otherwise cost records x desc ids */
	bool names_stale;
	size_t alloc_build_ids;
	bool build_ids_done;    /* pipe mode: HEADER_BUILD_ID records read in pass 1 */

	/* sample layout, from the first attr (perf requires it to be common) */
	bool layout_ready;
	int sample_id_off;              /* byte offset of the id in a sample, -1 none */
	bool sid_all;                   /* non-sample records carry a trailer */
	int sid_id_from_end;            /* trailer: bytes from the end to the id, 0 none */

	/* compressed records */
	ZSTD_DCtx *zctx;
	uint8_t *dbuf;
	size_t dcap, dlen, dpos;
	uint64_t douter;                /* file offset of the compressed record */

	/* aligned copy of a callchain that sits at an unaligned address */
	uint64_t *scratch;
	size_t scratch_cap;

	struct pd_info info;
	struct pd_reader_stats stats;
	uint64_t seq;
};

static inline uint64_t ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint16_t ld16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static __attribute__((format(printf, 3, 4))) int set_err(struct pd_reader *r, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	return code;
}

/* A stream error: remembered, so later next() calls return it again. */
static __attribute__((format(printf, 2, 3))) int stream_fail(struct pd_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	r->err_code = -EINVAL;
	return -EINVAL;
}

/* ---- id -> attr index ------------------------------------------------- */

static int32_t id_map__get(const struct u64map *m, uint64_t id)
{
	uint64_t idx;

	return u64map__get(m, id, &idx) ? (int32_t)idx : -1;
}

/* ---- attr names ------------------------------------------------------- */

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses",
	"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles",
};

static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};

static const char *const cache_names[] = {
	"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node",
};

static const char *const cache_ops[] = { "load", "store", "prefetch" };

static char *synth_name(const struct perf_event_attr *a)
{
	char buf[96];
	/* hybrid systems put the PMU type in config[63:32] of HW events */
	uint64_t low = a->config & 0xffffffffULL;

	switch (a->type) {
	case PERF_TYPE_HARDWARE:
		if (low < ARRAY_SIZE(hw_names))
			return xstrdup(hw_names[low]);
		snprintf(buf, sizeof(buf), "hw/0x%llx/", (unsigned long long)a->config);
		break;
	case PERF_TYPE_SOFTWARE:
		if (a->config < ARRAY_SIZE(sw_names))
			return xstrdup(sw_names[a->config]);
		snprintf(buf, sizeof(buf), "sw/0x%llx/", (unsigned long long)a->config);
		break;
	case PERF_TYPE_HW_CACHE: {
		unsigned int c = low & 0xff, op = (low >> 8) & 0xff, res = (low >> 16) & 0xff;

		if (c < ARRAY_SIZE(cache_names) && op < ARRAY_SIZE(cache_ops) && res <= 1) {
			snprintf(buf, sizeof(buf), "%s-%s%s", cache_names[c], cache_ops[op],
				 res ? "-misses" : "s");
			break;
		}
		snprintf(buf, sizeof(buf), "hw-cache/0x%llx/", (unsigned long long)a->config);
		break;
	}
	case PERF_TYPE_RAW:
		snprintf(buf, sizeof(buf), "cpu/raw 0x%llx/", (unsigned long long)a->config);
		break;
	case PERF_TYPE_TRACEPOINT:
		snprintf(buf, sizeof(buf), "tracepoint %llu", (unsigned long long)a->config);
		break;
	case PERF_TYPE_BREAKPOINT:
		snprintf(buf, sizeof(buf), "mem:0x%llx", (unsigned long long)a->bp_addr);
		break;
	default:
		snprintf(buf, sizeof(buf), "pmu %u/0x%llx/", a->type, (unsigned long long)a->config);
		break;
	}
	return xstrdup(buf);
}

static void set_name(struct rattr *ra, const char *name, enum name_prio prio)
{
	if (!name || !*name || ra->name_prio > prio)
		return;
	free(ra->a.name);
	ra->a.name = xstrdup(name);
	ra->name_prio = prio;
}

/* EVENT_DESC names: by id where the ids are known, else by position. */
static void apply_desc_names(struct pd_reader *r)
{
	for (size_t i = 0; i < r->nr_descs; i++) {
		const struct desc_name *d = &r->descs[i];
		int32_t idx = -1;

		for (size_t k = 0; k < d->nr_ids && idx < 0; k++)
			idx = id_map__get(&r->ids, d->ids[k]);
		if (idx < 0 && i < r->nr_attrs)
			idx = (int32_t)i;
		if (idx >= 0 && (size_t)idx < r->nr_attrs)
			set_name(r->attrs[idx], d->name, NAME_DESC);
	}
	r->names_stale = false;
}

/* ---- attrs ------------------------------------------------------------ */

static uint32_t sid_size_of(const struct perf_event_attr *a)
{
	uint64_t t = a->sample_type;
	uint32_t n = 0;

	if (!a->sample_id_all)
		return 0;
	n += (t & PERF_SAMPLE_TID) ? 8 : 0;
	n += (t & PERF_SAMPLE_TIME) ? 8 : 0;
	n += (t & PERF_SAMPLE_ID) ? 8 : 0;
	n += (t & PERF_SAMPLE_STREAM_ID) ? 8 : 0;
	n += (t & PERF_SAMPLE_CPU) ? 8 : 0;
	n += (t & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
	return n;
}

static void setup_layout(struct pd_reader *r)
{
	const struct perf_event_attr *a = &r->attrs[0]->a.attr;
	uint64_t t = a->sample_type;

	r->sample_id_off = -1;
	if (t & PERF_SAMPLE_IDENTIFIER) {
		r->sample_id_off = 0;
	} else if (t & PERF_SAMPLE_ID) {
		int n = 0;

		n += !!(t & PERF_SAMPLE_IP);
		n += !!(t & PERF_SAMPLE_TID);
		n += !!(t & PERF_SAMPLE_TIME);
		n += !!(t & PERF_SAMPLE_ADDR);
		r->sample_id_off = n * 8;
	}
	r->sid_all = a->sample_id_all;
	r->sid_id_from_end = 0;
	if (r->sid_all) {
		if (t & PERF_SAMPLE_IDENTIFIER)
			r->sid_id_from_end = 8;
		else if (t & PERF_SAMPLE_ID)
			r->sid_id_from_end = 8 * (1 + !!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_CPU));
	}
	r->layout_ready = true;
}

/* Takes a copy of min(size, sizeof) bytes of the attr; ids are copied too. */
static struct rattr *add_attr(struct pd_reader *r, const uint8_t *p, uint32_t size,
			      const uint8_t *ids, size_t nr_ids, uint32_t file_attr_size)
{
	struct rattr *ra = xcalloc(1, sizeof(*ra));
	size_t idx = r->nr_attrs;

	memcpy(&ra->a.attr, p, size < sizeof(ra->a.attr) ? size : sizeof(ra->a.attr));
	ra->a.file_attr_size = file_attr_size;
	ra->a.sample_id_size = sid_size_of(&ra->a.attr);
	if (nr_ids) {
		ra->a.ids = xmalloc(nr_ids * sizeof(uint64_t));
		memcpy(ra->a.ids, ids, nr_ids * sizeof(uint64_t));
		ra->a.nr_ids = nr_ids;
		for (size_t i = 0; i < nr_ids; i++)
			u64map__put(&r->ids, ra->a.ids[i], idx);
		r->total_ids += nr_ids;
	}
	ra->a.name = synth_name(&ra->a.attr);
	ra->name_prio = NAME_SYNTH;
	xgrow((void **)&r->attrs, &r->alloc_attrs, idx + 1, sizeof(*r->attrs));
	r->attrs[idx] = ra;
	r->nr_attrs++;
	if (idx == 0)
		setup_layout(r);
	r->names_stale = true;
	return ra;
}

/* ---- features --------------------------------------------------------- */

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
static size_t add_build_id(struct pd_reader *r, const uint8_t *p, size_t len)
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

	while (len && (n = add_build_id(r, p, len)) != 0) {
		p += n;
		len -= n;
	}
}

static void free_descs(struct desc_name *d, size_t n)
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
			free_descs(d, nr);
			return;
		}
		d[i].nr_ids = nr_ids;
		if (nr_ids) {
			d[i].ids = xmalloc(nr_ids * sizeof(uint64_t));
			memcpy(d[i].ids, ids, nr_ids * sizeof(uint64_t));
		}
	}
	free_descs(r->descs, r->nr_descs);
	r->descs = d;
	r->nr_descs = nr;
	apply_desc_names(r);
}

static void parse_feature(struct pd_reader *r, unsigned int feat, const uint8_t *p, size_t len)
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
	default:
		break;
	}
}

static bool feat_present(const struct pd_reader *r, uint64_t feat)
{
	return feat < PD_FEAT_MAX && (r->info.feat_bits[feat / 64] >> (feat % 64)) & 1;
}

/* ---- input ------------------------------------------------------------ */

/* Copies a non-seekable stdin into an unlinked temporary file. */
static int spool_fd(int in, int *outp)
{
	char tmpl[] = "/tmp/c2cscan-XXXXXX";
	size_t bufsize = 1 << 16;
	char *buf;
	int out;

	out = open("/tmp", O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0) {
		out = mkostemp(tmpl, O_CLOEXEC);
		if (out < 0)
			return -errno;
		unlink(tmpl);
	}
	buf = xmalloc(bufsize);
	for (;;) {
		ssize_t n = read(in, buf, bufsize);

		if (n == 0)
			break;
		if (n < 0) {
			int err = -errno;

			if (errno == EINTR)
				continue;
			free(buf);
			close(out);
			return err;
		}
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, n - off);

			if (w < 0) {
				int err = -errno;

				if (errno == EINTR)
					continue;
				free(buf);
				close(out);
				return err;
			}
			off += w;
		}
	}
	free(buf);
	*outp = out;
	return 0;
}

static int map_input(struct pd_reader *r, const char *path)
{
	bool is_stdin = !strcmp(path, "-");
	int fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	int ret;

	if (fd < 0)
		return set_err(r, -errno, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) < 0) {
		ret = set_err(r, -errno, "cannot stat: %s", strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = set_err(r, -EISDIR, "is a directory, not a perf.data file");
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		int tmp = -1;

		ret = spool_fd(fd, &tmp);
		if (ret < 0) {
			set_err(r, ret, "cannot copy the input to a temporary file: %s", strerror(-ret));
			goto out;
		}
		if (!is_stdin)
			close(fd);
		fd = tmp;
		is_stdin = false;
		if (fstat(fd, &st) < 0) {
			ret = set_err(r, -errno, "cannot stat the temporary file: %s", strerror(errno));
			goto out;
		}
	}
	if (st.st_size == 0) {
		ret = set_err(r, -EINVAL, "the file is empty");
		goto out;
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		ret = set_err(r, -EFBIG, "the file is too large to map");
		goto out;
	}
	r->map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		ret = set_err(r, -errno, "cannot map the file: %s", strerror(errno));
		goto out;
	}
	r->map_len = st.st_size;
	madvise(r->map, r->map_len, MADV_SEQUENTIAL);
	r->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	r->have_fd = r->fd >= 0;
	r->base = r->map;
	r->len = r->map_len;
	ret = 0;
out:
	if (!is_stdin)
		close(fd);
	return ret;
}

/* ---- header ----------------------------------------------------------- */

static bool range_ok(const struct pd_reader *r, uint64_t off, uint64_t size)
{
	return off <= r->len && size <= r->len - off;
}

static int read_file_attrs(struct pd_reader *r, uint64_t attr_size, uint64_t off, uint64_t size)
{
	uint64_t nr = size / attr_size;

	if (nr > PD_MAX_ATTRS)
		return set_err(r, -EINVAL, "%" PRIu64 " attrs exceed the limit of %d", nr, PD_MAX_ATTRS);
	for (uint64_t i = 0; i < nr; i++) {
		const uint8_t *p = r->base + off + i * attr_size;
		uint64_t asz = attr_size - 16;
		uint64_t ids_off = ld64(p + asz), ids_size = ld64(p + asz + 8);
		uint64_t nr_ids = ids_size / 8;

		if (ids_size && !range_ok(r, ids_off, ids_size))
			return set_err(r, -EINVAL,
				       "the ids of attr %" PRIu64 " (offset %" PRIu64 ", size %" PRIu64
				       ") lie outside the file (%zu bytes)", i, ids_off, ids_size, r->len);
		if (nr_ids > PD_MAX_IDS || r->total_ids + nr_ids > PD_MAX_IDS)
			return set_err(r, -EINVAL, "more than %u event ids", PD_MAX_IDS);
		add_attr(r, p, (uint32_t)asz, nr_ids ? r->base + ids_off : NULL, nr_ids, (uint32_t)asz);
	}
	r->nr_header_attrs = r->nr_attrs;
	return 0;
}

static void read_file_features(struct pd_reader *r, const uint64_t bits[4])
{
	uint64_t table = r->info.data_offset + r->info.data_size;
	size_t k = 0;

	for (unsigned int feat = 0; feat < 256; feat++) {
		const uint8_t *sec;
		uint64_t off, size;

		if (!((bits[feat / 64] >> (feat % 64)) & 1))
			continue;
		if (!range_ok(r, table + 16 * k, 16))
			return; /* table cut short: keep what was read */
		sec = r->base + table + 16 * k;
		k++;
		off = ld64(sec);
		size = ld64(sec + 8);
		/* bit set even when its section lies: others still count */
		r->info.feat_bits[feat / 64] |= 1ULL << (feat % 64);
		if (!range_ok(r, off, size) || size > PD_MAX_FEATURE_SIZE)
			continue;
		parse_feature(r, feat, r->base + off, size);
	}
}

static int parse_header(struct pd_reader *r)
{
	uint64_t magic, hsize;

	if (r->len == 0)
		return set_err(r, -EINVAL, "the file is empty");
	if (r->len < 8)
		return set_err(r, -EINVAL, "the file is too short for a perf.data header (%zu bytes)", r->len);
	magic = ld64(r->base);
	if (magic == PD_MAGIC2_SWAP)
		return set_err(r, -EINVAL, "big-endian perf.data is not supported");
	if (magic == PD_MAGIC1)
		return set_err(r, -EINVAL, "old perf.data v1 format (magic PERFFILE) is not supported");
	if (magic != PD_MAGIC2)
		return set_err(r, -EINVAL, "not a perf.data file (bad magic 0x%016" PRIx64 ")", magic);
	if (r->len < 16)
		return set_err(r, -EINVAL, "the file is too short for a perf.data header (%zu bytes)", r->len);
	hsize = ld64(r->base + 8);
	r->info.header_size = hsize;

	if (hsize == PIPE_HEADER_SIZE) {
		r->pipe = r->info.pipe = true;
		r->data_start = PIPE_HEADER_SIZE;
		r->data_end = r->len;
		r->info.data_offset = r->data_start;
		r->info.data_size = r->len - r->data_start;
		return 0;
	}
	if (hsize != FILE_HEADER_SIZE && hsize != FILE_HEADER_SIZE_V0)
		return set_err(r, -EINVAL, "header size %" PRIu64 " is neither a file (%d) nor a pipe (%d) header",
			       hsize, FILE_HEADER_SIZE, PIPE_HEADER_SIZE);
	if (r->len < hsize)
		return set_err(r, -EINVAL, "the header (%" PRIu64 " bytes) goes past the end of the file (%zu bytes)",
			       hsize, r->len);
	{
		const uint8_t *h = r->base;
		uint64_t attr_size = ld64(h + 16);
		uint64_t attrs_off = ld64(h + 24), attrs_size = ld64(h + 32);
		uint64_t data_off = ld64(h + 40), data_size = ld64(h + 48);
		uint64_t bits[4] = { 0 };
		int ret;

		if (hsize == FILE_HEADER_SIZE)
			memcpy(bits, h + 72, sizeof(bits));
		if (attr_size < PERF_ATTR_SIZE_VER0 + 16)
			return set_err(r, -EINVAL, "attr size %" PRIu64 " is too small (at least %d)",
				       attr_size, PERF_ATTR_SIZE_VER0 + 16);
		if (attr_size > 4096)
			return set_err(r, -EINVAL, "attr size %" PRIu64 " is too large", attr_size);
		if (!range_ok(r, attrs_off, attrs_size))
			return set_err(r, -EINVAL,
				       "the attr section (offset %" PRIu64 ", size %" PRIu64
				       ") lies outside the file (%zu bytes)", attrs_off, attrs_size, r->len);
		if (attrs_size / attr_size > PD_MAX_ATTRS)
			return set_err(r, -EINVAL, "%" PRIu64 " attrs exceed the limit of %d",
				       attrs_size / attr_size, PD_MAX_ATTRS);
		if (attrs_size < attr_size)
			return set_err(r, -EINVAL, "the file has no event attrs");
		if (data_off < hsize || data_off > r->len)
			return set_err(r, -EINVAL,
				       "the data section (offset %" PRIu64 ", size %" PRIu64
				       ") lies outside the file (%zu bytes)", data_off, data_size, r->len);
		r->data_start = data_off;
		r->data_end = data_off + data_size;
		if (!range_ok(r, data_off, data_size)) {
			/* a truncated copy: read the records that are there,
			 * then say where the file ended */
			r->truncated = true;
			r->data_end = r->len;
		}
		r->info.data_offset = data_off;
		r->info.data_size = data_size;
		if (!data_size) {
			/* perf was killed before it wrote the sizes: the
			 * records run to the end of the file, no features */
			r->unterminated = true;
			r->data_end = r->len;
		}
		ret = read_file_attrs(r, attr_size, attrs_off, attrs_size);
		if (ret < 0)
			return ret;
		if (!r->unterminated && !r->truncated)
			read_file_features(r, bits);
	}
	return 0;
}

static void rewind_state(struct pd_reader *r)
{
	r->pos = r->data_start;
	r->err_code = 0;
	r->err[0] = '\0';
	r->stream_attrs_seen = 0;
	r->dlen = r->dpos = 0;
	if (r->zctx)
		ZSTD_DCtx_reset(r->zctx, ZSTD_reset_session_only);
	memset(&r->stats, 0, sizeof(r->stats));
	r->seq = 0;
	r->released = 0;
}

static int finish_open(struct pd_reader *r, struct pd_reader **rp, char *errbuf, size_t errsize)
{
	int ret = parse_header(r);

	if (ret < 0) {
		if (errbuf && errsize)
			snprintf(errbuf, errsize, "%s", r->err);
		pd_reader__delete(r);
		return ret;
	}
	if (r->names_stale)
		apply_desc_names(r);
	rewind_state(r);
	*rp = r;
	return 0;
}

int pd_reader__open(struct pd_reader **rp, const char *path, char *errbuf, size_t errsize)
{
	struct pd_reader *r = xcalloc(1, sizeof(*r));
	int ret;

	*rp = NULL;
	r->path = xstrdup(path);
	ret = map_input(r, path);
	if (ret < 0) {
		if (errbuf && errsize)
			snprintf(errbuf, errsize, "%s", r->err);
		pd_reader__delete(r);
		return ret;
	}
	return finish_open(r, rp, errbuf, errsize);
}

int pd_reader__open_mem(struct pd_reader **rp, const void *buf, size_t len,
			const char *name, char *errbuf, size_t errsize)
{
	struct pd_reader *r = xcalloc(1, sizeof(*r));

	*rp = NULL;
	r->path = xstrdup(name ? name : "<memory>");
	r->base = buf;
	r->len = buf ? len : 0;
	return finish_open(r, rp, errbuf, errsize);
}

void pd_reader__delete(struct pd_reader *r)
{
	struct pd_info *in;

	if (!r)
		return;
	in = &r->info;
	for (size_t i = 0; i < r->nr_attrs; i++) {
		free(r->attrs[i]->a.name);
		free(r->attrs[i]->a.ids);
		free(r->attrs[i]);
	}
	free(r->attrs);
	u64map__exit(&r->ids);
	free_descs(r->descs, r->nr_descs);
	if (r->map)
		munmap(r->map, r->map_len);
	if (r->have_fd)
		close(r->fd);
	free(r->win);
	ZSTD_freeDCtx(r->zctx);
	free(r->dbuf);
	free(r->scratch);
	free(in->hostname);
	free(in->osrelease);
	free(in->arch);
	free(in->cpudesc);
	free(in->cpuid);
	free(in->version);
	for (uint32_t i = 0; i < in->nr_cmdline; i++)
		free(in->cmdline[i]);
	free(in->cmdline);
	for (uint32_t i = 0; i < in->nr_build_ids; i++)
		free(in->build_ids[i].name);
	free(in->build_ids);
	free(in->cpu_node);
	free(in->cpu_core);
	free(in->cpu_socket);
	free(r->path);
	free(r);
}

/* ---- records ---------------------------------------------------------- */

static int attr_of_id(const struct pd_reader *r, uint64_t id)
{
	int32_t idx;

	/* perf gives id 0 (synthesized records with a zeroed trailer) to the
	 * first event */
	if (!id)
		return 0;
	idx = id_map__get(&r->ids, id);
	if (idx < 0 || (size_t)idx >= r->nr_attrs)
		return -1;
	return idx;
}

/* sample_id_all trailer of a kernel non-sample record; fixed = bytes of the
 * record before any variable part, so the trailer cannot overlap it. */
static void parse_trailer(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size,
			  uint32_t fixed)
{
	const struct pd_attr *a;
	const uint8_t *p;
	uint64_t t;

	if (!r->nr_attrs)
		return;
	if (r->nr_attrs == 1) {
		ev->attr_idx = 0;
	} else if (r->sid_id_from_end && size >= fixed + (uint32_t)r->sid_id_from_end) {
		ev->attr_idx = attr_of_id(r, ld64(rec + size - r->sid_id_from_end));
		if (ev->attr_idx < 0)
			r->stats.unknown_ids++;
	} else {
		ev->attr_idx = r->sid_id_from_end ? -1 : 0;
	}
	a = &r->attrs[ev->attr_idx >= 0 ? ev->attr_idx : 0]->a;
	if (!a->sample_id_size || size < fixed + a->sample_id_size)
		return;
	p = rec + size - a->sample_id_size;
	t = a->attr.sample_type;
	if (t & PERF_SAMPLE_TID) {
		ev->sid.pid = ld32(p);
		ev->sid.tid = ld32(p + 4);
		p += 8;
	}
	if (t & PERF_SAMPLE_TIME) {
		ev->sid.time = ld64(p);
		p += 8;
	}
	if (t & PERF_SAMPLE_ID) {
		ev->sid.id = ld64(p);
		p += 8;
	}
	if (t & PERF_SAMPLE_STREAM_ID) {
		ev->sid.stream_id = ld64(p);
		p += 8;
	}
	if (t & PERF_SAMPLE_CPU) {
		ev->sid.cpu = ld32(p);
		p += 8;
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		ev->sid.id = ld64(p);
	ev->has_sid = true;
}

/* Bytes before the trailer, or -1 when the trailer does not fit. */
static int64_t body_end(const struct pd_reader *r, const struct pd_event *ev, uint32_t size, uint32_t fixed)
{
	uint32_t tsz = 0;

	if (r->nr_attrs)
		tsz = r->attrs[ev->attr_idx >= 0 ? ev->attr_idx : 0]->a.sample_id_size;
	if (size < fixed + tsz)
		return -1;
	return size - tsz;
}

/* A NUL-terminated string at rec[off..end), or NULL. */
static const char *str_in(const uint8_t *rec, uint32_t off, int64_t end)
{
	if (end <= (int64_t)off)
		return NULL;
	if (!memchr(rec + off, '\0', end - off))
		return NULL;
	return (const char *)rec + off;
}

struct scur {
	const uint8_t *p, *end;
};

static inline bool s_u64(struct scur *c, uint64_t *v)
{
	if (c->end - c->p < 8)
		return false;
	*v = ld64(c->p);
	c->p += 8;
	return true;
}

static inline bool s_skip(struct scur *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n)
		return false;
	c->p += n;
	return true;
}

static const uint64_t *aligned_u64s(struct pd_reader *r, const uint8_t *p, uint64_t nr)
{
	if (!((uintptr_t)p & 7) || !nr)
		return (const uint64_t *)(const void *)p;
	if (nr > r->scratch_cap) {
		free(r->scratch);
		/* records are at most 64 KiB: this stays small */
		r->scratch_cap = nr < 8192 ? 8192 : nr;
		r->scratch = xmalloc(r->scratch_cap * sizeof(uint64_t));
	}
	memcpy(r->scratch, p, nr * 8);
	return r->scratch;
}

/* Decodes every sample_type field in the kernel's order; false when the
 * record is shorter than its sample_type needs. */
/* The attr of a sample: by its id when several attrs need telling apart. */
static bool sample_attr(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size)
{
	if (!r->nr_attrs)
		return false;
	if (r->nr_attrs == 1 || r->sample_id_off < 0) {
		ev->attr_idx = 0;
		return true;
	}
	if (size < 8 + (uint32_t)r->sample_id_off + 8)
		return false;
	ev->attr_idx = attr_of_id(r, ld64(rec + 8 + r->sample_id_off));
	if (ev->attr_idx < 0)
		r->stats.unknown_ids++;
	return true;
}

/* PERF_SAMPLE_READ: skipped, its size from the read_format. */
static bool skip_read(struct scur *c, uint64_t rf)
{
	uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	uint64_t hdr = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t nr;

	if (!(rf & PERF_FORMAT_GROUP))
		return s_skip(c, (per + hdr) * 8);
	if (!s_u64(c, &nr) || !s_skip(c, hdr * 8))
		return false;
	return nr <= (uint64_t)(c->end - c->p) / (per * 8) && s_skip(c, nr * per * 8);
}

static bool take_callchain(struct pd_reader *r, struct scur *c, struct pd_sample *s)
{
	uint64_t nr;

	if (!s_u64(c, &nr) || nr > (uint64_t)(c->end - c->p) / 8)
		return false;
	s->callchain_nr = nr;
	s->callchain = aligned_u64s(r, c->p, nr);
	c->p += nr * 8;
	return true;
}

static bool take_raw(struct scur *c, struct pd_sample *s)
{
	uint32_t rsz;
	uint64_t adv;

	if (c->end - c->p < 4)
		return false;
	rsz = ld32(c->p);
	/* the kernel pads u32 + data to 8 bytes and counts the pad in size */
	adv = (4ULL + rsz + 7) & ~7ULL;
	if (adv > (uint64_t)(c->end - c->p))
		return false;
	s->raw_size = rsz;
	s->raw = c->p + 4;
	c->p += adv;
	return true;
}

static bool skip_branch_stack(struct scur *c, uint64_t branch_sample_type)
{
	uint64_t nr, per = branch_sample_type & PD_BRANCH_COUNTERS ? 4 : 3;

	if (!s_u64(c, &nr))
		return false;
	if (branch_sample_type & PD_BRANCH_HW_INDEX && !s_skip(c, 8))
		return false;
	if (nr > (uint64_t)(c->end - c->p) / (per * 8))
		return false;
	c->p += nr * per * 8;
	return true;
}

/* REGS_USER, REGS_INTR: an abi word, then the mask's registers unless abi is 0. */
static bool skip_regs(struct scur *c, uint64_t mask)
{
	uint64_t abi;

	if (!s_u64(c, &abi))
		return false;
	return !abi || s_skip(c, 8ULL * __builtin_popcountll(mask));
}

/* STACK_USER: size, the copy, and the dynamic size when the copy is not empty. */
static bool skip_stack_user(struct scur *c)
{
	uint64_t sz;

	if (!s_u64(c, &sz) || !s_skip(c, sz))
		return false;
	return !sz || s_skip(c, 8);
}

static bool take_weight(struct scur *c, uint64_t t, struct pd_sample *s)
{
	uint64_t v;

	if (t & PERF_SAMPLE_WEIGHT_STRUCT) {
		if (!s_u64(c, &v))
			return false;
		s->weight = (uint32_t)v;
		s->ins_lat = (uint16_t)(v >> 32);
		s->weight3 = (uint16_t)(v >> 48);
		return true;
	}
	return !(t & PERF_SAMPLE_WEIGHT) || s_u64(c, &s->weight);
}

/* The fields of a sample, in the order sample_type lays them out
 * (perf_event_open(2), "overflow" records). */
static bool parse_sample(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size)
{
	struct pd_sample *s = &ev->u.sample;
	const struct perf_event_attr *a;
	struct scur c = { rec + 8, rec + size };
	uint64_t t, v;

	if (!sample_attr(r, ev, rec, size))
		return false;
	a = &r->attrs[ev->attr_idx >= 0 ? ev->attr_idx : 0]->a.attr;
	t = a->sample_type;

	if (t & PERF_SAMPLE_IDENTIFIER && !s_u64(&c, &s->id))
		return false;
	if (t & PERF_SAMPLE_IP && !s_u64(&c, &s->ip))
		return false;
	if (t & PERF_SAMPLE_TID) {
		if (!s_u64(&c, &v))
			return false;
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)(v >> 32);
	}
	if (t & PERF_SAMPLE_TIME && !s_u64(&c, &s->time))
		return false;
	if (t & PERF_SAMPLE_ADDR && !s_u64(&c, &s->addr))
		return false;
	if (t & PERF_SAMPLE_ID && !s_u64(&c, &s->id))
		return false;
	if (t & PERF_SAMPLE_STREAM_ID && !s_u64(&c, &s->stream_id))
		return false;
	if (t & PERF_SAMPLE_CPU) {
		if (!s_u64(&c, &v))
			return false;
		s->cpu = (uint32_t)v;
	}
	if (t & PERF_SAMPLE_PERIOD && !s_u64(&c, &s->period))
		return false;
	if (t & PERF_SAMPLE_READ && !skip_read(&c, a->read_format))
		return false;
	if (t & PERF_SAMPLE_CALLCHAIN && !take_callchain(r, &c, s))
		return false;
	if (t & PERF_SAMPLE_RAW && !take_raw(&c, s))
		return false;
	if (t & PERF_SAMPLE_BRANCH_STACK && !skip_branch_stack(&c, a->branch_sample_type))
		return false;
	if (t & PERF_SAMPLE_REGS_USER && !skip_regs(&c, a->sample_regs_user))
		return false;
	if (t & PERF_SAMPLE_STACK_USER && !skip_stack_user(&c))
		return false;
	if (!take_weight(&c, t, s))
		return false;
	if (t & PERF_SAMPLE_DATA_SRC && !s_u64(&c, &s->data_src))
		return false;
	if (t & PERF_SAMPLE_TRANSACTION && !s_u64(&c, &s->transaction))
		return false;
	if (t & PERF_SAMPLE_REGS_INTR && !skip_regs(&c, a->sample_regs_intr))
		return false;
	if (t & PERF_SAMPLE_PHYS_ADDR && !s_u64(&c, &s->phys_addr))
		return false;
	if (t & PERF_SAMPLE_CGROUP && !s_u64(&c, &s->cgroup))
		return false;
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE && !s_u64(&c, &s->data_page_size))
		return false;
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE && !s_u64(&c, &s->code_page_size))
		return false;
	if (t & PERF_SAMPLE_AUX && (!s_u64(&c, &s->aux_size) || !s_skip(&c, s->aux_size)))
		return false;

	ev->has_sid = true;
	ev->sid.pid = s->pid;
	ev->sid.tid = s->tid;
	ev->sid.time = s->time;
	ev->sid.id = s->id;
	ev->sid.stream_id = s->stream_id;
	ev->sid.cpu = s->cpu;
	return true;
}

static void handle_attr_record(struct pd_reader *r, const uint8_t *rec, uint32_t size)
{
	uint32_t asz;
	uint64_t nr_ids;

	/* already known from an earlier pass over the same stream */
	if (r->nr_header_attrs + r->stream_attrs_seen++ < r->nr_attrs)
		return;
	if (size < 8 + PERF_ATTR_SIZE_VER0 || r->nr_attrs >= PD_MAX_ATTRS) {
		r->stats.bad_records++;
		return;
	}
	asz = ld32(rec + 8 + 4);
	if (!asz)
		asz = PERF_ATTR_SIZE_VER0;
	if (asz < PERF_ATTR_SIZE_VER0 || asz > size - 8) {
		r->stats.bad_records++;
		return;
	}
	nr_ids = (size - 8 - asz) / 8;
	if (r->total_ids + nr_ids > PD_MAX_IDS) {
		r->stats.bad_records++;
		return;
	}
	add_attr(r, rec + 8, asz, rec + 8 + asz, nr_ids, asz);
}

static void handle_id_index(struct pd_reader *r, const uint8_t *rec, uint32_t size)
{
	uint64_t nr;

	if (size < 16) {
		r->stats.bad_records++;
		return;
	}
	nr = ld64(rec + 8);
	/* entries: id, idx, cpu, tid; newer perf appends more after them */
	if (nr > (size - 16) / 32) {
		r->stats.bad_records++;
		return;
	}
	for (uint64_t i = 0; i < nr; i++) {
		const uint8_t *e = rec + 16 + i * 32;
		uint64_t idx = ld64(e + 8);

		if (idx < PD_MAX_ATTRS && id_map__get(&r->ids, ld64(e)) < 0 && r->ids.nr < PD_MAX_IDS)
			u64map__put(&r->ids, ld64(e), idx);
	}
	r->names_stale = nr > 0;
}

static void handle_event_update(struct pd_reader *r, const uint8_t *rec, uint32_t size)
{
	const char *name;
	int idx;

	if (size < 24 || ld64(rec + 8) != PD_EVENT_UPDATE_NAME)
		return;
	name = str_in(rec, 24, size);
	idx = attr_of_id(r, ld64(rec + 16));
	if (name && idx >= 0 && (size_t)idx < r->nr_attrs)
		set_name(r->attrs[idx], name, NAME_UPDATE);
}

/* One complete record at rec (size checked >= 8 and within its buffer).
 * 1 = ev filled, 0 = consumed or skipped, < 0 = fatal. */
static bool decode_mmap(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size)
{
	struct pd_mmap *m = &ev->u.mmap;
	uint32_t fixed = ev->type == PERF_RECORD_MMAP ? 40 : 72;

	if (size < fixed)
		return false;
	parse_trailer(r, ev, rec, size, fixed);
	m->filename = str_in(rec, fixed, body_end(r, ev, size, fixed));
	if (!m->filename)
		return false;
	m->pid = ld32(rec + 8);
	m->tid = ld32(rec + 12);
	m->start = ld64(rec + 16);
	m->len = ld64(rec + 24);
	m->pgoff = ld64(rec + 32);
	m->data = ev->misc & PERF_RECORD_MISC_MMAP_DATA;
	if (ev->type == PERF_RECORD_MMAP2) {
		m->v2 = true;
		if (ev->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			uint8_t n = rec[40];

			m->build_id_form = true;
			m->build_id_size = n > 20 ? 20 : n;
			memcpy(m->build_id, rec + 44, m->build_id_size);
		} else {
			m->maj = ld32(rec + 40);
			m->min = ld32(rec + 44);
			m->ino = ld64(rec + 48);
			m->ino_generation = ld64(rec + 56);
		}
		m->prot = ld32(rec + 64);
		m->flags = ld32(rec + 68);
	}
	ev->kind = PD_MMAP;
	return true;
}

static bool decode_comm(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size)
{
	struct pd_comm *cm = &ev->u.comm;

	if (size < 16)
		return false;
	parse_trailer(r, ev, rec, size, 16);
	cm->comm = str_in(rec, 16, body_end(r, ev, size, 16));
	if (!cm->comm)
		return false;
	cm->pid = ld32(rec + 8);
	cm->tid = ld32(rec + 12);
	cm->exec = ev->misc & PERF_RECORD_MISC_COMM_EXEC;
	ev->kind = PD_COMM;
	return true;
}

static bool decode_fork(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size)
{
	struct pd_fork *f = &ev->u.fork;

	if (size < 32)
		return false;
	parse_trailer(r, ev, rec, size, 32);
	f->pid = ld32(rec + 8);
	f->ppid = ld32(rec + 12);
	f->tid = ld32(rec + 16);
	f->ptid = ld32(rec + 20);
	f->time = ld64(rec + 24);
	ev->kind = ev->type == PERF_RECORD_FORK ? PD_FORK : PD_EXIT;
	return true;
}

/* LOST, LOST_SAMPLES, THROTTLE, UNTHROTTLE */
static bool decode_loss(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size)
{
	uint32_t fixed = ev->type == PERF_RECORD_LOST ? 24 : ev->type == PERF_RECORD_LOST_SAMPLES ? 16 : 32;

	if (size < fixed)
		return false;
	parse_trailer(r, ev, rec, size, fixed);
	switch (ev->type) {
	case PERF_RECORD_LOST:
		ev->u.lost.id = ld64(rec + 8);
		ev->u.lost.lost = ld64(rec + 16);
		ev->kind = PD_LOST;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		ev->u.lost.id = 0;
		ev->u.lost.lost = ld64(rec + 8);
		ev->kind = PD_LOST_SAMPLES;
		break;
	default:
		ev->u.throttle.time = ld64(rec + 8);
		ev->u.throttle.id = ld64(rec + 16);
		ev->u.throttle.stream_id = ld64(rec + 24);
		ev->kind = ev->type == PERF_RECORD_THROTTLE ? PD_THROTTLE : PD_UNTHROTTLE;
	}
	return true;
}

/* The records perf writes into the stream about the stream (pipe mode's
 * header, and what both modes carry): read into the reader's state, never
 * yielded. False when type is not one of them. */
static bool absorb_stream_header(struct pd_reader *r, uint32_t type, const uint8_t *rec, uint32_t size)
{
	switch (type) {
	case PD_REC_HEADER_ATTR:
		handle_attr_record(r, rec, size);
		return true;
	case PD_REC_HEADER_FEATURE:
		if (size < 16) {
			r->stats.bad_records++;
			return true;
		}
		/* a feature seen in an earlier pass is already in info */
		if (!feat_present(r, ld64(rec + 8)) && ld64(rec + 8) < PD_FEAT_MAX)
			parse_feature(r, (unsigned int)ld64(rec + 8), rec + 16, size - 16);
		return true;
	case PD_REC_ID_INDEX:
		handle_id_index(r, rec, size);
		return true;
	case PD_REC_EVENT_UPDATE:
		handle_event_update(r, rec, size);
		return true;
	case PD_REC_HEADER_BUILD_ID:
		/* pipe mode; read in the first pass only */
		if (!r->build_ids_done)
			add_build_id(r, rec, size);
		return true;
	case PD_REC_HEADER_EVENT_TYPE:
	case PD_REC_HEADER_TRACING_DATA:
	case PD_REC_AUXTRACE:
		return true;
	default:
		return false;
	}
}

/* One record into ev: 1 = yield it, 0 = consumed or skipped (counted). */
static int decode(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size, uint64_t off)
{
	uint32_t type = ld32(rec);
	uint16_t misc = ld16(rec + 4);
	bool ok = true;

	zero_mem(ev, sizeof(*ev));
	/* every record takes a number, yielded or not, so that the numbers
	 * agree between a pass that skips samples and one that does not */
	ev->seq = r->seq++;
	ev->type = type;
	ev->misc = misc;
	ev->cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	ev->size = size;
	ev->offset = off;
	ev->attr_idx = -1;

	switch (type) {
	case PERF_RECORD_SAMPLE:
		ok = parse_sample(r, ev, rec, size);
		ev->kind = PD_SAMPLE;
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		ok = decode_mmap(r, ev, rec, size);
		break;
	case PERF_RECORD_COMM:
		ok = decode_comm(r, ev, rec, size);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		ok = decode_fork(r, ev, rec, size);
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		ok = decode_loss(r, ev, rec, size);
		break;
	case PD_REC_FINISHED_ROUND:
		ev->kind = PD_FINISHED_ROUND;
		break;
	case PD_REC_FINISHED_INIT:
		ev->kind = PD_FINISHED_INIT;
		break;
	default:
		if (absorb_stream_header(r, type, rec, size))
			return 0;
		/* kernel records carry the trailer; perf's own (>= 64) do not */
		if (type < PD_REC_HEADER_ATTR)
			parse_trailer(r, ev, rec, size, 8);
		ev->kind = PD_OTHER;
		r->stats.other_types++;
		break;
	}
	if (!ok) {
		r->stats.bad_records++;
		return 0;
	}
	r->stats.records++;
	r->stats.by_kind[ev->kind]++;
	return 1;
}

/* Expands one compressed chunk after what is left of a partial record. */
static int decompress(struct pd_reader *r, const uint8_t *src, size_t srclen, uint64_t off)
{
	size_t left = r->dlen - r->dpos, produced = 0;
	ZSTD_inBuffer in = { src, srclen, 0 };

	if (!r->zctx) {
		r->zctx = ZSTD_createDCtx();
		if (!r->zctx)
			return stream_fail(r, "cannot create a zstd decompression context");
		ZSTD_DCtx_setParameter(r->zctx, ZSTD_d_windowLogMax, PD_ZSTD_WINDOW_LOG_MAX);
	}
	if (r->dpos) {
		memmove(r->dbuf, r->dbuf + r->dpos, left);
		r->dpos = 0;
		r->dlen = left;
	}
	for (;;) {
		ZSTD_outBuffer out;
		size_t ret;

		/* growth stops once a chunk produced its limit: zstd bombs */
		if (r->dcap - r->dlen < (64u << 10)) {
			size_t ncap = r->dcap ? r->dcap * 2 : (1u << 20);

			r->dbuf = xrealloc(r->dbuf, ncap, 1);
			r->dcap = ncap;
		}
		out.dst = r->dbuf + r->dlen;
		out.size = r->dcap - r->dlen;
		out.pos = 0;
		ret = ZSTD_decompressStream(r->zctx, &out, &in);
		if (ZSTD_isError(ret))
			return stream_fail(r, "compressed record at offset %" PRIu64 ": not valid zstd data (%s)",
					   off, ZSTD_getErrorName(ret));
		r->dlen += out.pos;
		produced += out.pos;
		if (produced > PD_MAX_DECOMP_CHUNK)
			return stream_fail(r, "compressed record at offset %" PRIu64
					   ": expands to more than %u MiB", off, PD_MAX_DECOMP_CHUNK >> 20);
		/* done when all input is taken and zstd had room to flush */
		if (in.pos == in.size && out.pos < out.size)
			break;
	}
	r->douter = off;
	r->stats.compressed_chunks++;
	r->stats.decompressed_bytes += produced;
	return 0;
}

/*
 * Pages of the mapped file already read count in the process's RSS until
 * the kernel reclaims them; hand them back as we go so that memory does not
 * grow with the size of the input (the page cache keeps them for the second
 * pass).
 */
#define RELEASE_CHUNK (32u << 20)

static void release_consumed(struct pd_reader *r)
{
	uint64_t upto;

	if (!r->map || r->pos < r->released + RELEASE_CHUNK)
		return;
	upto = r->pos & ~(uint64_t)(RELEASE_CHUNK - 1);
	madvise((uint8_t *)r->map + r->released, upto - r->released, MADV_DONTNEED);
	r->released = upto;
}

/*
 * AUXTRACE and TRACING_DATA records are followed by a payload that their
 * size does not count; *extra is its length once checked against the left
 * bytes of the record's buffer (the record included).
 */
static int trailing_data(struct pd_reader *r, const uint8_t *rec, uint32_t size, uint64_t left,
			 uint64_t off, const char *where, uint64_t *extra)
{
	if (ld32(rec) == PD_REC_AUXTRACE) {
		if (size < 16)
			return stream_fail(r, "record %sat offset %" PRIu64 ": AUXTRACE record of size %u is too short",
					   where, off, size);
		*extra = ld64(rec + 8);
	} else {
		if (size < 12)
			return stream_fail(r, "record %sat offset %" PRIu64
					   ": TRACING_DATA record of size %u is too short", where, off, size);
		*extra = ((uint64_t)ld32(rec + 8) + 7) & ~7ULL;
	}
	if (*extra > left - size)
		return stream_fail(r, "record %sat offset %" PRIu64 ": its %" PRIu64
				   " bytes of trailing data go past the end of the data", where, off, *extra);
	return 0;
}

#define WIN_SIZE (1u << 20)
#define WIN_MAX_RECORD 65536    /* a record's size is a u16 */

/*
 * The bytes at file offset off, at least min(left, WIN_MAX_RECORD) of them
 * (the caller checked that they are inside the file): from the window,
 * refilled from off when they are not all in it.
 */
static const uint8_t *data_at(struct pd_reader *r, uint64_t off, uint64_t left)
{
	uint64_t need = left < WIN_MAX_RECORD ? left : WIN_MAX_RECORD, want, got = 0;

	if (!r->have_fd)
		return r->base + off;
	if (off >= r->win_off && off + need <= r->win_off + r->win_len)
		return r->win + (off - r->win_off);
	if (!r->win)
		r->win = xmalloc(WIN_SIZE + WIN_MAX_RECORD);
	want = r->len - off < WIN_SIZE + WIN_MAX_RECORD ? r->len - off : WIN_SIZE + WIN_MAX_RECORD;
	while (got < want) {
		ssize_t n = pread(r->fd, r->win + got, want - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	if (got < need) {
		/* the file changed under us, or an I/O error: the mapping
		 * says what it can (or faults, as any mapping would) */
		r->win_len = 0;
		return r->base + off;
	}
	r->win_off = off;
	r->win_len = got;
	return r->win;
}

static int next_record(struct pd_reader *r, struct pd_event *ev)
{
	for (;;) {
		const uint8_t *rec;
		uint64_t left, off;
		uint32_t type, size;
		int ret;

		if (r->err_code)
			return r->err_code;

		/* records left in the decompressed buffer first */
		left = r->dlen - r->dpos;
		if (left >= 8) {
			rec = r->dbuf + r->dpos;
			size = ld16(rec + 6);
			if (size < 8)
				return stream_fail(r, "record inside the compressed record at offset %" PRIu64
						   ": size %u is smaller than a record header", r->douter, size);
			if (size <= left) {
				type = ld32(rec);
				/* perf never compresses these, but a file can */
				if (type == PD_REC_AUXTRACE || type == PD_REC_HEADER_TRACING_DATA) {
					uint64_t extra;

					ret = trailing_data(r, rec, size, left, r->douter,
							    "inside the compressed record ", &extra);
					if (ret < 0)
						return ret;
					r->dpos += size + extra;
					continue;
				}
				r->dpos += size;
				ret = decode(r, ev, rec, size, r->douter);
				if (ret)
					return ret;
				continue;
			}
			/* a record continues in the next compressed chunk */
		}

		off = r->pos;
		if (off >= r->data_end) {
			if (r->truncated)
				return stream_fail(r, "the file is truncated: it ends at %" PRIu64
						   " bytes, inside the data section (%" PRIu64 " bytes from offset %"
						   PRIu64 ")", (uint64_t)r->len, r->info.data_size, r->data_start);
			if (r->dlen > r->dpos)
				return stream_fail(r, "the compressed data ends inside a record (%" PRIu64
						   " bytes left over)", (uint64_t)(r->dlen - r->dpos));
			return 0;
		}
		left = r->data_end - off;
		if (left < 8)
			return stream_fail(r, "record at offset %" PRIu64 ": only %" PRIu64
					   " bytes left, less than a record header", off, left);
		rec = data_at(r, off, left);
		type = ld32(rec);
		size = ld16(rec + 6);
		if (size < 8)
			return stream_fail(r, "record at offset %" PRIu64 ": size %u is smaller than a record header",
					   off, size);
		if (size > left)
			return stream_fail(r, "record at offset %" PRIu64 ": size %u goes past the end of the data (%"
					   PRIu64 " bytes left)", off, size, left);

		switch (type) {
		case PD_REC_AUXTRACE:
		case PD_REC_HEADER_TRACING_DATA: {
			uint64_t extra;

			ret = trailing_data(r, rec, size, left, off, "", &extra);
			if (ret < 0)
				return ret;
			r->pos += size + extra;
			continue;
		}
		case PD_REC_COMPRESSED:
		case PD_REC_COMPRESSED2: {
			const uint8_t *src = rec + 8;
			uint64_t n = size - 8;

			if (type == PD_REC_COMPRESSED2) {
				if (size < 16)
					return stream_fail(r, "record at offset %" PRIu64
							   ": COMPRESSED2 record of size %u is too short", off, size);
				n = ld64(rec + 8);
				src = rec + 16;
				if (n > size - 16u)
					return stream_fail(r, "record at offset %" PRIu64 ": compressed size %" PRIu64
							   " goes past the record (%u bytes)", off, n, size);
			}
			r->pos += size;
			ret = decompress(r, src, n, off);
			if (ret < 0)
				return ret;
			continue;
		}
		default:
			break;
		}
		r->pos += size;
		release_consumed(r);
		if (type == PERF_RECORD_SAMPLE && r->skip_samples) {
			r->seq++;
			continue;
		}
		ret = decode(r, ev, rec, size, off);
		if (ret)
			return ret;
	}
}

int pd_reader__next(struct pd_reader *r, struct pd_event *ev)
{
	int ret = next_record(r, ev);

	if (ret <= 0 && r->names_stale)
		apply_desc_names(r);
	return ret;
}

void pd_reader__skip_samples(struct pd_reader *r, bool skip)
{
	r->skip_samples = skip;
}

int pd_reader__rewind(struct pd_reader *r)
{
	r->build_ids_done = true;
	rewind_state(r);
	return 0;
}

const char *pd_reader__strerror(const struct pd_reader *r)
{
	return r->err[0] ? r->err : "no error";
}

const char *pd_reader__path(const struct pd_reader *r)
{
	return r->path;
}

const struct pd_info *pd_reader__info(const struct pd_reader *r)
{
	return &r->info;
}

const struct pd_reader_stats *pd_reader__stats(const struct pd_reader *r)
{
	return &r->stats;
}

size_t pd_reader__nr_attrs(const struct pd_reader *r)
{
	return r->nr_attrs;
}

const struct pd_attr *pd_reader__attr(const struct pd_reader *r, size_t idx)
{
	return idx < r->nr_attrs ? &r->attrs[idx]->a : NULL;
}

bool pd_reader__unterminated(const struct pd_reader *r)
{
	return r->unterminated;
}
