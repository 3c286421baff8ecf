// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data writer, file mode (PERFILE2), little-endian, laid out the way
 * perf 6.x writes it so that `perf script`, `perf report` and `perf c2c
 * report` read our files without warnings:
 *
 *   header (104) | attr ids | attrs | data ... | feature table | payloads
 *
 * The ids and attrs go before the data when they are known at the first
 * record (always, for `record` and mkperf); attrs added later go after the
 * feature payloads. perf finds features at data.offset + data.size, so
 * nothing may sit between the data and the feature table.
 *
 * Feature payload layouts follow tools/perf/util/header.c (write_* and
 * process_* functions) as of perf 6.1; the facts that matter are noted
 * where they are used.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/util.h"
#include "perfdata/writer.h"

#ifndef PERF_RECORD_MISC_BUILD_ID_SIZE
#define PERF_RECORD_MISC_BUILD_ID_SIZE (1U << 15)
#endif

#define PD_MAGIC 0x32454c4946524550ULL /* "PERFILE2" read as a little-endian u64 */
#define PD_HEADER_SIZE 104
#define PD_ATTR_SIZE ((uint32_t)sizeof(struct perf_event_attr))
#define PD_FILE_ATTR_SIZE (PD_ATTR_SIZE + 16) /* attr + perf_file_section of its ids */
#define PD_BUF_SIZE (1u << 20)
#define PD_NAME_ALIGN 64                      /* header.c NAME_ALIGN for feature strings */

struct wattr {
	struct perf_event_attr attr;
	char *name;
	uint64_t *ids;
	size_t nr_ids;
};

struct pd_writer {
	int fd;
	int err;                /* sticky error of a failed data write */
	bool started;           /* the data offset is fixed */
	bool finished;
	uint64_t data_offset;
	uint64_t data_size;     /* bytes of complete records known to be on disk */
	uint64_t attrs_offset;  /* attrs section as last written */
	uint64_t attrs_size;
	size_t attrs_written;   /* attrs covered by that section */
	uint8_t *buf;           /* complete records not yet written */
	size_t buf_len;
	bool buf_unchecked;     /* buf holds bytes that are not records */

	struct wattr *attrs;
	size_t nr_attrs, alloc_attrs;

	char *str[PD_FEAT_CPUID + 1];   /* string features, by feature number */
	bool has_nrcpus;
	uint32_t cpus_avail, cpus_online;
	char **argv;
	uint32_t argc;
	bool has_cmdline;
	uint32_t cacheline;
	uint32_t topo_nr;
	int32_t *topo_node, *topo_core, *topo_socket;
	bool has_total_mem;
	uint64_t total_mem_kb;
	struct wbid {
		uint16_t misc;
		int32_t pid;
		uint8_t size;
		uint8_t id[20];
		char *name;
	} *bids;                /* BUILD_ID entries */
	size_t nr_bids, alloc_bids;
	uint8_t *alloc;         /* C2CSCAN_ALLOC payload, owned */
	size_t alloc_len;
	/* C2CSCAN_INDEX: offset and records skipped before, per record
	 * listed; dropped (ix_off) by a record it cannot list */
	uint64_t *ix;
	size_t ix_nr, ix_alloc;
	uint64_t ix_skipped;
	bool ix_off;
};

/* ---- low-level output ---------------------------------------------------- */

/* Writes all of buf at off. *done gets the bytes that made it. */
static int pwrite_all(int fd, const void *buf, size_t len, uint64_t off, size_t *done)
{
	const uint8_t *p = buf;
	size_t n = 0;

	while (n < len) {
		ssize_t r = pwrite(fd, p + n, len - n, (off_t)(off + n));

		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (done)
				*done = n;
			return -errno;
		}
		if (r == 0) {
			if (done)
				*done = n;
			return -EIO;
		}
		n += (size_t)r;
	}
	if (done)
		*done = n;
	return 0;
}

/* Features and the attrs table are built in a struct bbuf (util.h). */
static void bb_zero(struct bbuf *b, size_t n)
{
	xgrow((void **)&b->p, &b->alloc, b->len + n, 1);
	memset(b->p + b->len, 0, n);
	b->len += n;
}

static void bb_u32(struct bbuf *b, uint32_t v)
{
	bbuf__put(b, &v, sizeof(v));
}

static void bb_u64(struct bbuf *b, uint64_t v)
{
	bbuf__put(b, &v, sizeof(v));
}

/* header.c do_write_string: u32 len (NUL included, rounded up to 64), bytes, NUL padding */
static void bb_str(struct bbuf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t padded = (n + PD_NAME_ALIGN - 1) / PD_NAME_ALIGN * PD_NAME_ALIGN;

	bb_u32(b, (uint32_t)padded);
	bbuf__put(b, s, n - 1);
	bb_zero(b, padded - (n - 1));
}

/* ---- header, attrs ------------------------------------------------------- */

static uint32_t nr_cpus_avail(const struct pd_writer *w)
{
	return w->has_nrcpus ? w->cpus_avail : w->topo_nr;
}

static bool feature_on(const struct pd_writer *w, int f)
{
	switch (f) {
	case PD_FEAT_HOSTNAME: case PD_FEAT_OSRELEASE: case PD_FEAT_VERSION:
	case PD_FEAT_ARCH: case PD_FEAT_CPUDESC: case PD_FEAT_CPUID:
		return w->str[f] != NULL;
	case PD_FEAT_NRCPUS:
		return nr_cpus_avail(w) > 0;
	case PD_FEAT_TOTAL_MEM:
		return w->has_total_mem;
	case PD_FEAT_CMDLINE:
		return w->has_cmdline;
	case PD_FEAT_EVENT_DESC:
		return w->nr_attrs > 0;
	case PD_FEAT_CPU_TOPOLOGY: case PD_FEAT_NUMA_TOPOLOGY: case PD_FEAT_MEM_TOPOLOGY:
		return w->topo_nr > 0 && nr_cpus_avail(w) > 0;
	case PD_FEAT_CACHE:
		return w->cacheline > 0;
	case PD_FEAT_BUILD_ID:
		return w->nr_bids > 0;
	case PD_FEAT_C2CSCAN_ALLOC:
		return w->alloc_len > 0;
	case PD_FEAT_C2CSCAN_INDEX:
		return !w->ix_off && !w->err;
	default:
		return false;
	}
}

static int write_header(struct pd_writer *w)
{
	uint64_t h[PD_HEADER_SIZE / 8];
	uint64_t bits[4] = { 0 };
	int f;

	memset(h, 0, sizeof(h));
	h[0] = PD_MAGIC;
	h[1] = PD_HEADER_SIZE;
	h[2] = PD_FILE_ATTR_SIZE;
	h[3] = w->attrs_offset;
	h[4] = w->attrs_size;
	h[5] = w->data_offset;
	/* A file that was never finished says data size 0, as perf's do:
	 * readers then read records up to EOF. */
	h[6] = w->finished ? w->data_size : 0;
	/* h[7], h[8]: event_types section, unused since perf 2.6.3x */
	if (w->finished)
		for (f = 0; f < PD_FEAT_MAX; f++)
			if (feature_on(w, f))
				bits[f / 64] |= 1ULL << (f % 64);
	memcpy(&h[9], bits, sizeof(bits));
	return pwrite_all(w->fd, h, sizeof(h), 0, NULL);
}

static void put_attr(struct bbuf *b, const struct perf_event_attr *a)
{
	struct perf_event_attr tmp = *a;

	/* perf checks attr.size against the file's attr size */
	tmp.size = PD_ATTR_SIZE;
	bbuf__put(b, &tmp, sizeof(tmp));
}

/* Writes ids of attrs [0, nr_attrs) then the attrs table at off; returns the end. */
static int write_attrs(struct pd_writer *w, uint64_t off, uint64_t *end)
{
	struct bbuf b = { 0 };
	uint64_t ids_off = off, tab_off;
	size_t i;
	int err;

	for (i = 0; i < w->nr_attrs; i++)
		bbuf__put(&b, w->attrs[i].ids, w->attrs[i].nr_ids * sizeof(uint64_t));
	tab_off = off + b.len;
	for (i = 0; i < w->nr_attrs; i++) {
		const struct wattr *a = &w->attrs[i];

		put_attr(&b, &a->attr);
		bb_u64(&b, a->nr_ids ? ids_off : 0);
		bb_u64(&b, a->nr_ids * sizeof(uint64_t));
		ids_off += a->nr_ids * sizeof(uint64_t);
	}
	err = pwrite_all(w->fd, b.p, b.len, off, NULL);
	if (!err) {
		w->attrs_offset = tab_off;
		w->attrs_size = (uint64_t)w->nr_attrs * PD_FILE_ATTR_SIZE;
		w->attrs_written = w->nr_attrs;
		*end = off + b.len;
	}
	bbuf__free(&b);
	return err;
}

/* Fix where the data starts: after the attrs known now. */
static int start_data(struct pd_writer *w)
{
	uint64_t end = PD_HEADER_SIZE;
	int err;

	if (w->started)
		return 0;
	if (w->nr_attrs) {
		err = write_attrs(w, PD_HEADER_SIZE, &end);
		if (err)
			return err;
	}
	w->data_offset = end;
	w->started = true;
	return write_header(w);
}

/* ---- public: open, attrs, records ----------------------------------------- */

int pd_writer__open(struct pd_writer **wp, const char *path)
{
	struct pd_writer *w;
	int err;

	*wp = NULL;
	w = xcalloc(1, sizeof(*w));
	/* 0600 like perf record: recordings reveal addresses and command lines */
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (w->fd < 0) {
		err = -errno;
		free(w);
		return err;
	}
	w->buf = xmalloc(PD_BUF_SIZE);
	err = write_header(w);
	if (err) {
		pd_writer__delete(w);
		return err;
	}
	*wp = w;
	return 0;
}

int pd_writer__add_attr(struct pd_writer *w, const struct perf_event_attr *attr,
			const char *name, const uint64_t *ids, size_t nr_ids)
{
	struct wattr *a;

	if (w->finished)
		return -EINVAL;
	if (nr_ids > (1u << 24) || (nr_ids && !ids))
		return -EINVAL;
	xgrow((void **)&w->attrs, &w->alloc_attrs, w->nr_attrs + 1, sizeof(*w->attrs));
	a = &w->attrs[w->nr_attrs++];
	memset(a, 0, sizeof(*a));
	/* a caller's attr may be a shorter (older) struct: trust its size */
	memcpy(&a->attr, attr, attr->size && attr->size < sizeof(a->attr) ? attr->size : sizeof(a->attr));
	a->attr.size = PD_ATTR_SIZE;
	a->name = name ? xstrdup(name) : NULL;
	a->nr_ids = nr_ids;
	a->ids = xmalloc(nr_ids ? nr_ids * sizeof(uint64_t) : 1);
	if (nr_ids)
		memcpy(a->ids, ids, nr_ids * sizeof(uint64_t));
	return 0;
}

int pd_writer__add_attr_id(struct pd_writer *w, size_t idx, uint64_t id)
{
	struct wattr *a;

	if (w->finished || idx >= w->nr_attrs)
		return -EINVAL;
	a = &w->attrs[idx];
	if (a->nr_ids >= (1u << 24))
		return -E2BIG;
	a->ids = xrealloc(a->ids, a->nr_ids + 1, sizeof(*a->ids));
	a->ids[a->nr_ids++] = id;
	w->attrs_written = 0;   /* written again by pd_writer__finish */
	return 0;
}

/* Bytes at the start of buf (len) that form complete records. */
static size_t complete_prefix(const uint8_t *buf, size_t len, size_t limit)
{
	size_t off = 0;

	while (off + sizeof(struct perf_event_header) <= limit) {
		struct perf_event_header h;

		memcpy(&h, buf + off, sizeof(h));
		if (h.size < sizeof(h) || off + h.size > len || off + h.size > limit)
			break;
		off += h.size;
	}
	return off;
}

static int flush(struct pd_writer *w)
{
	size_t done = 0;
	int err;

	if (!w->buf_len)
		return 0;
	err = pwrite_all(w->fd, w->buf, w->buf_len, w->data_offset + w->data_size, &done);
	if (!err) {
		w->data_size += w->buf_len;
	} else {
		/* Keep what is on disk up to the last whole record: finish
		 * puts the features there, over any torn tail. */
		w->data_size += w->buf_unchecked ? done : complete_prefix(w->buf, w->buf_len, done);
		w->err = err;
	}
	w->buf_len = 0;
	w->buf_unchecked = false;
	return err;
}

static int append(struct pd_writer *w, const void *rec, size_t size, bool checked)
{
	int err;

	if (w->finished)
		return -EINVAL;
	if (w->err)
		return w->err;
	err = start_data(w);
	if (err)
		return w->err = err;
	while (size) {
		size_t n;

		if (w->buf_len == PD_BUF_SIZE) {
			err = flush(w);
			if (err)
				return err;
		}
		if (checked && w->buf_len + size > PD_BUF_SIZE) {
			/* records never straddle a flush: keeps torn-write recovery simple */
			err = flush(w);
			if (err)
				return err;
		}
		n = PD_BUF_SIZE - w->buf_len;
		if (n > size)
			n = size;
		memcpy(w->buf + w->buf_len, rec, n);
		w->buf_len += n;
		if (!checked)
			w->buf_unchecked = true;
		rec = (const uint8_t *)rec + n;
		size -= n;
	}
	return 0;
}

/* The index's view of a record about to go at the end of the data. */
static void index_record(struct pd_writer *w, uint32_t type)
{
	if (w->ix_off)
		return;
	switch (type) {
	case PERF_RECORD_SAMPLE:
		w->ix_skipped++;
		return;
	case PD_REC_AUXTRACE:
	case PD_REC_HEADER_TRACING_DATA:
	case PD_REC_COMPRESSED:
	case PD_REC_COMPRESSED2:
		w->ix_off = true;
		return;
	default:
		break;
	}
	if (w->ix_nr == PD_INDEX_MAX) {
		w->ix_off = true;
		return;
	}
	xgrow((void **)&w->ix, &w->ix_alloc, 2 * (w->ix_nr + 1), sizeof(*w->ix));
	w->ix[2 * w->ix_nr] = pd_writer__data_size(w);
	w->ix[2 * w->ix_nr + 1] = w->ix_skipped;
	w->ix_nr++;
	w->ix_skipped = 0;
}

int pd_writer__write(struct pd_writer *w, const void *rec, size_t size)
{
	struct perf_event_header h;

	if (size < sizeof(h) || size % 8 || size > UINT16_MAX)
		return -EINVAL;
	memcpy(&h, rec, sizeof(h));
	if (h.size != size)
		return -EINVAL;
	/* a write that fails leaves w->err, and a file with it no index */
	index_record(w, h.type);
	return append(w, rec, size, true);
}

int pd_writer__write_unchecked(struct pd_writer *w, const void *buf, size_t size)
{
	w->ix_off = true;
	return append(w, buf, size, false);
}

int pd_writer__flush(struct pd_writer *w)
{
	if (w->finished)
		return -EINVAL;
	if (w->err)
		return w->err;
	return flush(w);
}

uint64_t pd_writer__data_size(const struct pd_writer *w)
{
	return w->data_size + w->buf_len;
}

/* ---- features -------------------------------------------------------------- */

int pd_writer__set_string(struct pd_writer *w, int feat, const char *s)
{
	switch (feat) {
	case PD_FEAT_HOSTNAME: case PD_FEAT_OSRELEASE: case PD_FEAT_VERSION:
	case PD_FEAT_ARCH: case PD_FEAT_CPUDESC: case PD_FEAT_CPUID:
		break;
	default:
		return -EINVAL;
	}
	free(w->str[feat]);
	w->str[feat] = s ? xstrdup(s) : NULL;
	return 0;
}

int pd_writer__set_nrcpus(struct pd_writer *w, uint32_t avail, uint32_t online)
{
	if (!avail || online > avail)
		return -EINVAL;
	w->has_nrcpus = true;
	w->cpus_avail = avail;
	w->cpus_online = online;
	return 0;
}

int pd_writer__set_cmdline(struct pd_writer *w, int argc, const char *const *argv)
{
	int i;

	if (argc < 0 || (argc && !argv))
		return -EINVAL;
	for (i = 0; i < (int)w->argc; i++)
		free(w->argv[i]);
	free(w->argv);
	w->argv = xcalloc((size_t)argc + 1, sizeof(char *));
	for (i = 0; i < argc; i++)
		w->argv[i] = xstrdup(argv[i] ? argv[i] : "");
	w->argc = (uint32_t)argc;
	w->has_cmdline = true;
	return 0;
}

int pd_writer__set_cacheline(struct pd_writer *w, uint32_t line_size)
{
	w->cacheline = line_size;
	return 0;
}

int pd_writer__set_topology(struct pd_writer *w, uint32_t nr_cpus, const int32_t *cpu_node,
			    const int32_t *cpu_core, const int32_t *cpu_socket)
{
	uint32_t i;

	if (!nr_cpus || nr_cpus > 1u << 20)
		return -EINVAL;
	free(w->topo_node);
	free(w->topo_core);
	free(w->topo_socket);
	w->topo_nr = nr_cpus;
	w->topo_node = xcalloc(nr_cpus, sizeof(int32_t));
	w->topo_core = xcalloc(nr_cpus, sizeof(int32_t));
	w->topo_socket = xcalloc(nr_cpus, sizeof(int32_t));
	for (i = 0; i < nr_cpus; i++) {
		w->topo_node[i] = cpu_node ? cpu_node[i] : 0;
		w->topo_core[i] = cpu_core ? cpu_core[i] : (int32_t)i;
		/* without socket ids, a node is the best guess for a socket */
		w->topo_socket[i] = cpu_socket ? cpu_socket[i] :
				    (w->topo_node[i] >= 0 ? w->topo_node[i] : 0);
	}
	return 0;
}

int pd_writer__add_build_id(struct pd_writer *w, uint16_t misc, int32_t pid, const uint8_t *id,
			    size_t size, const char *name)
{
	struct wbid *e;

	if (w->finished)
		return -EINVAL;
	/* the entry's size is a u16: keep the name well inside it */
	if (!size || size > 20 || !name || !*name || strlen(name) > 4096)
		return -EINVAL;
	xgrow((void **)&w->bids, &w->alloc_bids, w->nr_bids + 1, sizeof(*w->bids));
	e = &w->bids[w->nr_bids++];
	memset(e, 0, sizeof(*e));
	e->misc = misc;
	e->pid = pid;
	e->size = size;
	memcpy(e->id, id, size);
	e->name = xstrdup(name);
	return 0;
}

int pd_writer__set_alloc(struct pd_writer *w, uint8_t *payload, size_t len)
{
	free(w->alloc);
	w->alloc = payload;
	w->alloc_len = len;
	return 0;
}

int pd_writer__set_total_mem(struct pd_writer *w, uint64_t kb)
{
	w->has_total_mem = true;
	w->total_mem_kb = kb;
	return 0;
}

/* "0-3,8,10-11" from a sorted list. */
static char *cpu_list_str(const uint32_t *cpus, size_t n)
{
	size_t alloc = n * 24 + 1, len = 0, i = 0;
	char *s = xmalloc(alloc);

	s[0] = '\0';
	while (i < n) {
		size_t j = i;

		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		if (j == i)
			len += (size_t)snprintf(s + len, alloc - len, "%s%u", len ? "," : "", cpus[i]);
		else
			len += (size_t)snprintf(s + len, alloc - len, "%s%u-%u", len ? "," : "",
						cpus[i], cpus[j]);
		i = j + 1;
	}
	return s;
}

/* cpus c in [0, nr) with key(c) == k, as a cpu list string */
static char *cpus_where(uint32_t nr, const int32_t *key1, int32_t k1, const int32_t *key2, int32_t k2)
{
	uint32_t *v = xmalloc(nr * sizeof(uint32_t));
	size_t n = 0;
	uint32_t c;
	char *s;

	for (c = 0; c < nr; c++)
		if (key1[c] == k1 && (!key2 || key2[c] == k2))
			v[n++] = c;
	s = cpu_list_str(v, n);
	free(v);
	return s;
}

/* Sibling lists as perf writes them: one string per distinct group, in
 * order of first appearance. */
static void put_groups(struct bbuf *b, uint32_t nr, const int32_t *key1, const int32_t *key2)
{
	struct bbuf strs = { 0 };
	uint32_t c, d, count = 0;

	for (c = 0; c < nr; c++) {
		bool seen = false;
		char *s;

		for (d = 0; d < c && !seen; d++)
			seen = key1[d] == key1[c] && (!key2 || key2[d] == key2[c]);
		if (seen)
			continue;
		s = cpus_where(nr, key1, key1[c], key2, key2 ? key2[c] : 0);
		bb_str(&strs, s);
		free(s);
		count++;
	}
	bb_u32(b, count);
	if (strs.len)
		bbuf__put(b, strs.p, strs.len);
	bbuf__free(&strs);
}

/*
 * CPU_TOPOLOGY (header.c write_cpu_topology): core siblings, thread
 * siblings, then core_id and socket_id per cpu for nr_cpus_avail cpus (perf
 * reads that count from NRCPUS, so both must agree), then die siblings and a
 * die_id per cpu. perf rejects a socket_id above nr_cpus_avail.
 */
static void feat_cpu_topology(struct pd_writer *w, struct bbuf *b, uint32_t nr)
{
	int32_t *core = xcalloc(nr, sizeof(int32_t));
	int32_t *sock = xcalloc(nr, sizeof(int32_t));
	uint32_t c;

	for (c = 0; c < nr; c++) {
		core[c] = c < w->topo_nr ? w->topo_core[c] : (int32_t)c;
		sock[c] = c < w->topo_nr ? w->topo_socket[c] : 0;
		if (sock[c] < 0 || (uint32_t)sock[c] > nr)
			sock[c] = 0;
	}
	put_groups(b, nr, sock, NULL);          /* core siblings = cpus of a socket */
	put_groups(b, nr, sock, core);          /* thread siblings = cpus of a core */
	for (c = 0; c < nr; c++) {
		bb_u32(b, (uint32_t)core[c]);
		bb_u32(b, (uint32_t)sock[c]);
	}
	put_groups(b, nr, sock, NULL);          /* one die per socket */
	for (c = 0; c < nr; c++)
		bb_u32(b, 0);
	free(core);
	free(sock);
}

/* Sorted distinct NUMA node ids of cpus [0, nr); returns the count. */
static uint32_t node_ids(const struct pd_writer *w, uint32_t nr, int32_t *node, int32_t *ids)
{
	uint32_t c, i, n = 0;

	for (c = 0; c < nr; c++)
		node[c] = c < w->topo_nr ? w->topo_node[c] : -1;
	for (c = 0; c < nr; c++) {
		bool seen = false;

		if (node[c] < 0)
			continue;
		for (i = 0; i < n && !seen; i++)
			seen = ids[i] == node[c];
		if (!seen)
			ids[n++] = node[c];
	}
	for (i = 1; i < n; i++) {
		int32_t v = ids[i];
		uint32_t j = i;

		for (; j > 0 && ids[j - 1] > v; j--)
			ids[j] = ids[j - 1];
		ids[j] = v;
	}
	return n;
}

/* NUMA_TOPOLOGY: u32 nr; per node u32 id, u64 mem_total, u64 mem_free, cpu list. */
static void feat_numa(struct pd_writer *w, struct bbuf *b, uint32_t nr)
{
	int32_t *node = xcalloc(nr, sizeof(int32_t));
	int32_t *ids = xcalloc(nr + 1, sizeof(int32_t));
	uint32_t i, n = node_ids(w, nr, node, ids);

	bb_u32(b, n);
	for (i = 0; i < n; i++) {
		char *s = cpus_where(nr, node, ids[i], NULL, 0);

		bb_u32(b, (uint32_t)ids[i]);
		bb_u64(b, w->has_total_mem ? w->total_mem_kb / n : 0);
		bb_u64(b, 0);
		bb_str(b, s);
		free(s);
	}
	free(node);
	free(ids);
}

/*
 * MEM_TOPOLOGY (header.c write_mem_topology): u64 version 1, u64 block size,
 * u64 nr; per node u64 node, u64 nr of bits, then the bitmap as u64 size +
 * words. perf c2c report refuses a file without it ("No memory nodes").
 * Memory is split evenly between the nodes, in 128 MiB blocks.
 */
static void feat_mem_topology(struct pd_writer *w, struct bbuf *b, uint32_t nr)
{
	const uint64_t bsize = 128ULL << 20;
	int32_t *node = xcalloc(nr, sizeof(int32_t));
	int32_t *ids = xcalloc(nr + 1, sizeof(int32_t));
	uint32_t i, n = node_ids(w, nr, node, ids);
	uint64_t per = 1, bits, k;

	if (w->has_total_mem && n && w->total_mem_kb * 1024 / n / bsize > 1)
		per = w->total_mem_kb * 1024 / n / bsize;
	if (per > 1u << 16)
		per = 1u << 16;
	bits = per * n;
	bb_u64(b, 1);
	bb_u64(b, bsize);
	bb_u64(b, n);
	for (i = 0; i < n; i++) {
		bb_u64(b, (uint64_t)ids[i]);
		bb_u64(b, bits);
		bb_u64(b, bits);
		for (k = 0; k < (bits + 63) / 64; k++) {
			uint64_t word = 0, bit;

			for (bit = 0; bit < 64; bit++) {
				uint64_t blk = k * 64 + bit;

				if (blk >= i * per && blk < (i + 1) * per)
					word |= 1ULL << bit;
			}
			bb_u64(b, word);
		}
	}
	free(node);
	free(ids);
}

/* EVENT_DESC: u32 nr, u32 attr size, per attr: attr, u32 nr_ids, name, ids. */
static void feat_event_desc(struct pd_writer *w, struct bbuf *b)
{
	size_t i;

	bb_u32(b, (uint32_t)w->nr_attrs);
	bb_u32(b, PD_ATTR_SIZE);
	for (i = 0; i < w->nr_attrs; i++) {
		const struct wattr *a = &w->attrs[i];
		char name[64];

		put_attr(b, &a->attr);
		bb_u32(b, (uint32_t)a->nr_ids);
		if (a->name) {
			bb_str(b, a->name);
		} else {
			/* perf names events by index from this list: never leave one out */
			snprintf(name, sizeof(name), "type%u/config=0x%llx/", a->attr.type,
				 (unsigned long long)a->attr.config);
			bb_str(b, name);
		}
		bbuf__put(b, a->ids, a->nr_ids * sizeof(uint64_t));
	}
}

/* CACHE version 1 (perf 6.1 refuses version 2): one L1 data entry, which is
 * where readers take the cacheline size from. */
static void feat_cache(struct pd_writer *w, struct bbuf *b)
{
	bb_u32(b, 1);
	bb_u32(b, 1);
	bb_u32(b, 1);                   /* level */
	bb_u32(b, w->cacheline);        /* line_size */
	bb_u32(b, 64);                  /* sets */
	bb_u32(b, 8);                   /* ways */
	bb_str(b, "Data");
	bb_str(b, "32K");
	bb_str(b, "0");
}

/*
 * BUILD_ID: perf's write_buildid() layout, one entry per object: an 8-byte
 * header (type 0, misc = cpumode | PERF_RECORD_MISC_BUILD_ID_SIZE, size of
 * the entry), pid (s32; perf writes its machine's pid, -1 on the host),
 * 20 bytes of id, its used size, 3 reserved, then the NUL-terminated name
 * padded to NAME_ALIGN.
 */
static void feat_build_id(struct pd_writer *w, struct bbuf *b)
{
	for (size_t i = 0; i < w->nr_bids; i++) {
		const struct wbid *e = &w->bids[i];
		size_t len = strlen(e->name) + 1;
		size_t padded = (len + PD_NAME_ALIGN - 1) / PD_NAME_ALIGN * PD_NAME_ALIGN;
		uint8_t misc_size[4] = { 0 };
		uint16_t misc = e->misc | PERF_RECORD_MISC_BUILD_ID_SIZE;

		bb_u32(b, 0);
		bbuf__put(b, &misc, 2);
		bbuf__put(b, &(uint16_t){ (uint16_t)(36 + padded) }, 2);
		bb_u32(b, (uint32_t)e->pid);
		bbuf__put(b, e->id, 20);
		misc_size[0] = e->size;
		bbuf__put(b, misc_size, 4);
		bbuf__put(b, e->name, len);
		bb_zero(b, padded - len);
	}
}

static void build_feature(struct pd_writer *w, int f, struct bbuf *b, uint32_t nr_cpus)
{
	uint32_t i;

	switch (f) {
	case PD_FEAT_HOSTNAME: case PD_FEAT_OSRELEASE: case PD_FEAT_VERSION:
	case PD_FEAT_ARCH: case PD_FEAT_CPUDESC: case PD_FEAT_CPUID:
		bb_str(b, w->str[f]);
		break;
	case PD_FEAT_NRCPUS:
		bb_u32(b, nr_cpus);
		bb_u32(b, w->has_nrcpus ? w->cpus_online : nr_cpus);
		break;
	case PD_FEAT_TOTAL_MEM:
		bb_u64(b, w->total_mem_kb);
		break;
	case PD_FEAT_CMDLINE:
		bb_u32(b, w->argc);
		for (i = 0; i < w->argc; i++)
			bb_str(b, w->argv[i]);
		break;
	case PD_FEAT_EVENT_DESC:
		feat_event_desc(w, b);
		break;
	case PD_FEAT_CPU_TOPOLOGY:
		feat_cpu_topology(w, b, nr_cpus);
		break;
	case PD_FEAT_NUMA_TOPOLOGY:
		feat_numa(w, b, nr_cpus);
		break;
	case PD_FEAT_CACHE:
		feat_cache(w, b);
		break;
	case PD_FEAT_BUILD_ID:
		feat_build_id(w, b);
		break;
	case PD_FEAT_MEM_TOPOLOGY:
		feat_mem_topology(w, b, nr_cpus);
		break;
	case PD_FEAT_C2CSCAN_ALLOC:
		bbuf__put(b, w->alloc, w->alloc_len);
		break;
	case PD_FEAT_C2CSCAN_INDEX:
		bb_u32(b, PD_INDEX_MAGIC);
		bb_u32(b, 1);
		bb_u64(b, w->data_size);
		bb_u64(b, w->ix_nr);
		bb_u64(b, w->ix_skipped);
		for (i = 0; i < 2 * w->ix_nr; i++)
			bb_u64(b, w->ix[i]);
		break;
	}
}

int pd_writer__finish(struct pd_writer *w)
{
	struct bbuf tab = { 0 }, pay = { 0 };
	uint64_t feat_off, end, bits[4];
	uint32_t nr_cpus;
	int err = 0, e, f, nr_feat = 0;

	if (w->finished)
		return -EINVAL;
	if (!w->err)
		err = flush(w);
	e = start_data(w);
	if (e)
		return err ? err : e;

	/* write_header sets the feature bits only once finished */
	w->finished = true;
	nr_cpus = nr_cpus_avail(w);
	memset(bits, 0, sizeof(bits));
	for (f = 0; f < PD_FEAT_MAX; f++) {
		if (feature_on(w, f)) {
			bits[f / 64] |= 1ULL << (f % 64);
			nr_feat++;
		}
	}

	feat_off = w->data_offset + w->data_size;
	end = feat_off + (uint64_t)nr_feat * 16;
	for (f = 0; f < PD_FEAT_MAX; f++) {
		size_t before = pay.len;

		if (!(bits[f / 64] & (1ULL << (f % 64))))
			continue;
		build_feature(w, f, &pay, nr_cpus);
		bb_u64(&tab, end + before);
		bb_u64(&tab, pay.len - before);
	}
	e = pwrite_all(w->fd, tab.p, tab.len, feat_off, NULL);
	if (!e && pay.len)
		e = pwrite_all(w->fd, pay.p, pay.len, end, NULL);
	end += pay.len;
	bbuf__free(&tab);
	bbuf__free(&pay);
	if (!e && w->attrs_written != w->nr_attrs)
		e = write_attrs(w, end, &end);
	if (!e)
		e = write_header(w);
	if (!e && ftruncate(w->fd, (off_t)end))
		e = -errno;
	return err ? err : e;
}

void pd_writer__delete(struct pd_writer *w)
{
	size_t i;
	int f;

	if (!w)
		return;
	if (!w->finished && !w->err && w->started)
		flush(w);
	if (w->fd >= 0)
		close(w->fd);
	for (i = 0; i < w->nr_attrs; i++) {
		free(w->attrs[i].name);
		free(w->attrs[i].ids);
	}
	free(w->attrs);
	free(w->alloc);
	free(w->ix);
	for (f = 0; f <= PD_FEAT_CPUID; f++)
		free(w->str[f]);
	for (i = 0; i < w->argc; i++)
		free(w->argv[i]);
	free(w->argv);
	free(w->topo_node);
	free(w->topo_core);
	free(w->topo_socket);
	for (i = 0; i < w->nr_bids; i++)
		free(w->bids[i].name);
	free(w->bids);
	free(w->buf);
	free(w);
}
