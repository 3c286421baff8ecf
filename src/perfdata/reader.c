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
 * one buffer with a single streaming zstd context, a part at a time (128 KiB
 * ready, whatever a record expands to: up to 64 MiB): a zstd frame may
 * continue in the next compressed record and so may a perf record, so what
 * is left of a partial record stays at the front of the buffer and the next
 * part's output is appended to it. Records that come out of that buffer
 * report the file offset of the compressed record they came from.
 *
 * This file: the input, the file header, the record loop (with
 * decompression) and the accessors; attrs.c keeps the attrs and their ids,
 * features.c parses the feature sections and HEADER_FEATURE records,
 * records.c decodes one record.
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

#include "perfdata/alloc.h"
#include "perfdata/reader_int.h"
#include "util/util.h"
int reader_fail(struct pd_reader *r, struct pd_error e)
{
	r->error = e;
	pd_error__str(&e, r->err, sizeof(r->err));
	return pd_error__code(&e);
}

/* A stream error: remembered, so later next() calls return it again. */
int reader_stream_fail(struct pd_reader *r, struct pd_error e)
{
	r->err_code = reader_fail(r, e);
	return r->err_code;
}

/* ---- input ------------------------------------------------------------ */

/* Copies a non-seekable stdin into an unlinked temporary file. */
static int spool_fd(int in, int *outp)
{
	char tmpl[] = "/tmp/c2cscan-XXXXXX";
	size_t bufsize = 1 << 16;
	char *buf;
	int out, err = 0;

	out = open("/tmp", O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0) {
		out = mkostemp(tmpl, O_CLOEXEC);
		if (out < 0)
			return -errno;
		unlink(tmpl);
	}
	buf = xmalloc(bufsize);
	for (;;) {
		ssize_t n = read(in, buf, bufsize), w;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : 0;
			break;
		}
		for (ssize_t off = 0; off < n && !err; off += w > 0 ? w : 0) {
			w = write(out, buf + off, n - off);
			if (w < 0 && errno != EINTR)
				err = -errno;
		}
		if (err)
			break;
	}
	free(buf);
	if (err) {
		close(out);
		return err;
	}
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
		return reader_fail(r, (struct pd_error){ .kind = PD_ERR_OPEN, .errnum = errno });
	if (fstat(fd, &st) < 0) {
		ret = reader_fail(r, (struct pd_error){ .kind = PD_ERR_STAT, .errnum = errno });
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = reader_fail(r, (struct pd_error){ .kind = PD_ERR_DIRECTORY });
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		int tmp = -1;

		ret = spool_fd(fd, &tmp);
		if (ret < 0) {
			reader_fail(r, (struct pd_error){ .kind = PD_ERR_SPOOL, .errnum = -ret });
			goto out;
		}
		if (!is_stdin)
			close(fd);
		fd = tmp;
		is_stdin = false;
		if (fstat(fd, &st) < 0) {
			ret = reader_fail(r, (struct pd_error){ .kind = PD_ERR_SPOOL_STAT, .errnum = errno });
			goto out;
		}
	}
	if (st.st_size == 0) {
		ret = reader_fail(r, (struct pd_error){ .kind = PD_ERR_EMPTY });
		goto out;
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		ret = reader_fail(r, (struct pd_error){ .kind = PD_ERR_TOO_LARGE });
		goto out;
	}
	r->map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		ret = reader_fail(r, (struct pd_error){ .kind = PD_ERR_MAP, .errnum = errno });
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
		return reader_fail(r, (struct pd_error){ .kind = PD_ERR_TOO_MANY_ATTRS, .n = { nr, PD_MAX_ATTRS } });
	for (uint64_t i = 0; i < nr; i++) {
		const uint8_t *p = r->base + off + i * attr_size;
		uint64_t asz = attr_size - 16;
		uint64_t ids_off = ld64(p + asz), ids_size = ld64(p + asz + 8);
		uint64_t nr_ids = ids_size / 8;

		if (ids_size && !range_ok(r, ids_off, ids_size))
			return reader_fail(r, (struct pd_error){ .kind = PD_ERR_IDS_OUTSIDE,
								 .n = { i, ids_off, ids_size, r->len } });
		if (nr_ids > PD_MAX_IDS || r->total_ids + nr_ids > PD_MAX_IDS)
			return reader_fail(r, (struct pd_error){ .kind = PD_ERR_TOO_MANY_IDS, .n = { PD_MAX_IDS } });
		reader_add_attr(r, p, (uint32_t)asz, nr_ids ? r->base + ids_off : NULL, nr_ids, (uint32_t)asz);
		/* --call-graph dwarf: kilobytes of stack a sample, which no pass
		 * but the unwinding reads. From the mapping, the pages of those
		 * bytes are mapped, never copied (the window copies every byte);
		 * release_consumed keeps RSS bounded the same. */
		if (r->attrs[r->nr_attrs - 1]->a.attr.sample_type & PERF_SAMPLE_STACK_USER && r->have_fd) {
			close(r->fd);
			r->have_fd = false;
		}
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
		if (!range_ok(r, off, size))
			continue;
		/* the allocation events of a long run exceed what any other
		 * section holds: theirs is mapped, decoded as it streams */
		if (size > (feat == PD_FEAT_C2CSCAN_ALLOC ? PD_MAX_ALLOC_SECTION : PD_MAX_FEATURE_SIZE)) {
			if (feat == PD_FEAT_C2CSCAN_ALLOC)
				snprintf(r->info.alloc_error, sizeof(r->info.alloc_error), "a section of %" PRIu64
					 " MB, over the %llu MB this reader takes", size >> 20, PD_MAX_ALLOC_SECTION >> 20);
			continue;
		}
		reader_parse_feature(r, feat, r->base + off, size);
	}
}

static int parse_header(struct pd_reader *r)
{
	uint64_t magic, hsize;

	if (r->len == 0)
		return reader_fail(r, (struct pd_error){ .kind = PD_ERR_EMPTY });
	if (r->len < 8)
		return reader_fail(r, (struct pd_error){ .kind = PD_ERR_SHORT, .n = { r->len } });
	magic = ld64(r->base);
	if (magic == PD_MAGIC2_SWAP)
		return reader_fail(r, (struct pd_error){ .kind = PD_ERR_BIG_ENDIAN });
	if (magic == PD_MAGIC1)
		return reader_fail(r, (struct pd_error){ .kind = PD_ERR_V1 });
	if (magic != PD_MAGIC2)
		return reader_fail(r, (struct pd_error){ .kind = PD_ERR_MAGIC, .n = { magic } });
	if (r->len < 16)
		return reader_fail(r, (struct pd_error){ .kind = PD_ERR_SHORT, .n = { r->len } });
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
		return reader_fail(r, (struct pd_error){ .kind = PD_ERR_HEADER_SIZE,
							 .n = { hsize, FILE_HEADER_SIZE, PIPE_HEADER_SIZE } });
	if (r->len < hsize)
		return reader_fail(r, (struct pd_error){ .kind = PD_ERR_HEADER_PAST_END, .n = { hsize, r->len } });
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
			return reader_fail(r, (struct pd_error){ .kind = PD_ERR_ATTR_SMALL,
								 .n = { attr_size, PERF_ATTR_SIZE_VER0 + 16 } });
		if (attr_size > 4096)
			return reader_fail(r, (struct pd_error){ .kind = PD_ERR_ATTR_LARGE, .n = { attr_size } });
		if (!range_ok(r, attrs_off, attrs_size))
			return reader_fail(r, (struct pd_error){ .kind = PD_ERR_ATTRS_OUTSIDE,
								 .n = { attrs_off, attrs_size, r->len } });
		if (attrs_size / attr_size > PD_MAX_ATTRS)
			return reader_fail(r, (struct pd_error){ .kind = PD_ERR_TOO_MANY_ATTRS,
								 .n = { attrs_size / attr_size, PD_MAX_ATTRS } });
		if (attrs_size < attr_size)
			return reader_fail(r, (struct pd_error){ .kind = PD_ERR_NO_ATTRS });
		if (data_off < hsize || data_off > r->len)
			return reader_fail(r, (struct pd_error){ .kind = PD_ERR_DATA_OUTSIDE,
								 .n = { data_off, data_size, r->len } });
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

/* A pass's read-ahead ends with it (its filler, the relay's thread, was
 * joined); the window was in its buffers. */
static void ahead_end(struct pd_reader *r)
{
	if (!r->ahead)
		return;
	ahead__delete(r->ahead);
	__atomic_store_n(&r->ahead, NULL, __ATOMIC_RELEASE);
	r->win_len = 0;
	r->wbuf = r->win;
}

static void rewind_state(struct pd_reader *r)
{
	ahead_end(r);
	reader_aux_rewind(r);
	reader_skim_end(r);
	r->skim_at = UINT64_MAX;
	r->pos = r->data_start;
	r->err_code = 0;
	r->error = (struct pd_error){ .kind = PD_ERR_NONE };
	r->err[0] = '\0';
	r->stream_attrs_seen = 0;
	r->dlen = r->dpos = 0;
	r->zmore = false;
	if (r->zctx)
		ZSTD_DCtx_reset(r->zctx, ZSTD_reset_session_only);
	memset(&r->stats, 0, sizeof(r->stats));
	r->seq = 0;
	r->released = 0;
	r->ix_walk = r->index && !r->pipe;
	r->ix_next = 0;
	r->ix_ord = r->index_nr ? r->index[1] : 0;
}

/* A walk checks the file's index (C2CSCAN_INDEX) record by record: the
 * record of type at off, ordinal r->seq, is listed if and only if it is
 * the next one listed, where it says, with the records between. */
static void index_check(struct pd_reader *r, uint32_t type, uint64_t off)
{
	size_t k = r->ix_next;

	if (type == PERF_RECORD_SAMPLE)
		return;
	if (k >= r->index_nr || r->index[2 * k] != off - r->data_start || r->seq != r->ix_ord) {
		r->ix_bad = true;
		r->ix_walk = false;
		return;
	}
	r->ix_next = ++k;
	r->ix_ord += 1 + (k < r->index_nr ? r->index[2 * k + 1] : 0);
}

/* The walk reached the end of the data: every record listed was met, and
 * as many records followed the last as the index says. */
static void index_end(struct pd_reader *r)
{
	if (r->ix_next == r->index_nr && r->seq == r->ix_ord + r->index_tail)
		r->ix_checked = true;
	else
		r->ix_bad = true;
	r->ix_walk = false;
}

static int finish_open(struct pd_reader *r, struct pd_reader **rp, struct pd_error *err)
{
	int ret = parse_header(r);

	if (ret < 0) {
		if (err)
			*err = r->error;
		pd_reader__delete(r);
		return ret;
	}
	if (r->names_stale)
		reader_apply_desc_names(r);
	rewind_state(r);
	*rp = r;
	return 0;
}

int pd_reader__open(struct pd_reader **rp, const char *path, struct pd_error *err)
{
	struct pd_reader *r = xcalloc(1, sizeof(*r));
	int ret;

	*rp = NULL;
	r->path = xstrdup(path);
	ret = map_input(r, path);
	if (ret < 0) {
		if (err)
			*err = r->error;
		pd_reader__delete(r);
		return ret;
	}
	return finish_open(r, rp, err);
}

int pd_reader__open_mem(struct pd_reader **rp, const void *buf, size_t len,
			const char *name, struct pd_error *err)
{
	struct pd_reader *r = xcalloc(1, sizeof(*r));

	*rp = NULL;
	r->path = xstrdup(name ? name : "<memory>");
	r->base = buf;
	r->len = buf ? len : 0;
	return finish_open(r, rp, err);
}

void pd_reader__delete(struct pd_reader *r)
{
	struct pd_info *in;

	if (!r)
		return;
	reader_skim_end(r);
	reader_aux_free(r);
	in = &r->info;
	for (size_t i = 0; i < r->nr_attrs; i++) {
		free(r->attrs[i]->a.name);
		free(r->attrs[i]->a.ids);
		free(r->attrs[i]);
	}
	free(r->attrs);
	u64map__exit(&r->ids);
	reader_free_descs(r->descs, r->nr_descs);
	if (r->map)
		munmap(r->map, r->map_len);
	ahead_end(r);
	if (r->have_fd)
		close(r->fd);
	free(r->win);
	ZSTD_freeDCtx(r->zctx);
	free(r->dbuf);
	free(r->scratch);
	free(r->index);
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
	if (in->alloc)
		pd_alloc__exit(in->alloc);
	free(in->alloc);
	free(in->cpu_node);
	free(in->cpu_core);
	free(in->cpu_socket);
	free(r->path);
	free(r);
}

/* Decompressed bytes kept ready: every record (a u16 size) fits. */
#define INFLATE_AHEAD (128u << 10)

/*
 * Inflates more of the compressed record being read, until at least need
 * bytes are ready in the buffer or the record is all out. The bytes not yet
 * taken move to the front first, so the buffer holds what is ready and
 * little more, whatever the record expands to (only a record that needs
 * more, an AUXTRACE payload inside compressed data, makes it larger).
 */
static int inflate_more(struct pd_reader *r, size_t need)
{
	size_t left = r->dlen - r->dpos;

	if (r->dpos) {
		memmove(r->dbuf, r->dbuf + r->dpos, left);
		r->dpos = 0;
		r->dlen = left;
	}
	while (r->zmore && r->dlen < need) {
		ZSTD_inBuffer in = { r->zsrc, r->zlen, r->zpos };
		ZSTD_outBuffer out;
		size_t ret;

		if (r->dcap - r->dlen < (64u << 10) || r->dcap < need) {
			size_t ncap = r->dcap ? r->dcap * 2 : (128u << 10);

			while (ncap < need)
				ncap *= 2;
			r->dbuf = xrealloc(r->dbuf, ncap, 1);
			r->dcap = ncap;
		}
		out.dst = r->dbuf + r->dlen;
		out.size = r->dcap - r->dlen;
		out.pos = 0;
		ret = ZSTD_decompressStream(r->zctx, &out, &in);
		r->zpos = in.pos;
		if (ZSTD_isError(ret))
			return reader_stream_fail(r, (struct pd_error){ .kind = PD_ERR_ZSTD, .at = r->douter,
									.name = ZSTD_getErrorName(ret) });
		r->dlen += out.pos;
		r->zproduced += out.pos;
		r->stats.decompressed_bytes += out.pos;
		/* a zstd bomb costs time, not memory, now: still bounded */
		if (r->zproduced > PD_MAX_DECOMP_CHUNK)
			return reader_stream_fail(r, (struct pd_error){ .kind = PD_ERR_ZSTD_EXPANDS, .at = r->douter,
									.n = { PD_MAX_DECOMP_CHUNK >> 20 } });
		/* all out once all input is taken and zstd had room to flush */
		if (in.pos == in.size && out.pos < out.size)
			r->zmore = false;
	}
	return 0;
}

/* A compressed record at file offset off: its data (src, srclen) is read
 * from here on, a part at a time (inflate_more), after what is left of the
 * records before it (a record may continue from one compressed record
 * into the next, and so may a zstd frame). */
static int decompress(struct pd_reader *r, const uint8_t *src, size_t srclen, uint64_t off)
{
	if (!r->zctx) {
		r->zctx = ZSTD_createDCtx();
		if (!r->zctx)
			return reader_stream_fail(r, (struct pd_error){ .kind = PD_ERR_ZSTD_CONTEXT });
		ZSTD_DCtx_setParameter(r->zctx, ZSTD_d_windowLogMax, PD_ZSTD_WINDOW_LOG_MAX);
	}
	r->zsrc = src;
	r->zlen = srclen;
	r->zpos = 0;
	r->zproduced = 0;
	r->zmore = true;
	r->douter = off;
	r->stats.compressed_chunks++;
	return inflate_more(r, r->dlen - r->dpos + INFLATE_AHEAD);
}

/*
 * Pages of the mapped file already read count in the process's RSS until
 * the kernel reclaims them; hand them back as we go so that memory does not
 * grow with the size of the input (the page cache keeps them for the second
 * pass).
 */
#define RELEASE_CHUNK (32u << 20)

static void release_upto(struct pd_reader *r, uint64_t upto)
{
	if (r->map && upto > r->released) {
		madvise((uint8_t *)r->map + r->released, upto - r->released, MADV_DONTNEED);
		r->released = upto;
	}
}

static void release_consumed(struct pd_reader *r)
{
	if (r->pos >= r->released + RELEASE_CHUNK)
		release_upto(r, r->pos & ~(uint64_t)(RELEASE_CHUNK - 1));
}

/*
 * AUXTRACE and TRACING_DATA records are followed by a payload that their
 * size does not count; *extra is its length once checked against the left
 * bytes of the record's buffer (the record included).
 */
static bool trailing_len(const uint8_t *rec, uint32_t size, uint64_t *extra)
{
	if (ld32(rec) == PD_REC_AUXTRACE) {
		if (size < 16)
			return false;
		*extra = ld64(rec + 8);
	} else {
		if (size < 12)
			return false;
		*extra = ((uint64_t)ld32(rec + 8) + 7) & ~7ULL;
	}
	return true;
}

static int trailing_data(struct pd_reader *r, const uint8_t *rec, uint32_t size, uint64_t left,
			 uint64_t off, bool inner, uint64_t *extra)
{
	if (!trailing_len(rec, size, extra))
		return reader_stream_fail(r, (struct pd_error){ .kind = PD_ERR_TRAILER_SMALL, .inner = inner, .at = off,
								.n = { size }, .name = ld32(rec) == PD_REC_AUXTRACE ?
								"AUXTRACE" : "TRACING_DATA" });
	if (*extra > left - size)
		return reader_stream_fail(r, (struct pd_error){ .kind = PD_ERR_TRAILER_PAST_END, .inner = inner, .at = off,
								.n = { *extra } });
	return 0;
}

#define WIN_SIZE (1u << 20)
#define WIN_MAX_RECORD 65536    /* a record's size is a u16 */
#define AHEAD_MIN (8u << 20)    /* data left for a pass over samples to read ahead */
/* its windows: the 2M-sample report took 180 ms with 1 MiB ones,
 * 176-178 with 512 KiB, 179 with 256 KiB (190 reading without) */
#define AHEAD_WIN (512u << 10)

/*
 * The bytes at file offset off, at least min(left, WIN_MAX_RECORD) of them
 * (the caller checked that they are inside the file): from the window,
 * refilled from off when they are not all in it.
 */
static const uint8_t *data_at(struct pd_reader *r, uint64_t off, uint64_t left)
{
	uint64_t need = left < WIN_MAX_RECORD ? left : WIN_MAX_RECORD, want, got;

	if (!r->have_fd)
		return r->base + off;
	if (off >= r->win_off && off + need <= r->win_off + r->win_len)
		return r->wbuf + (off - r->win_off);
	if (!r->ahead && r->ahead_wanted && !r->skip_samples && r->data_end - off >= AHEAD_MIN)
		__atomic_store_n(&r->ahead, ahead__new(r->fd, r->len, AHEAD_WIN, 2 * WIN_MAX_RECORD), __ATOMIC_RELEASE);
	if (r->ahead) {
		const uint8_t *p = ahead__at(r->ahead, off, need, &r->win_off, &r->win_len);

		if (p) {
			r->wbuf = p - (off - r->win_off);
			return p;
		}
	}
	if (!r->win)
		r->win = xmalloc(WIN_SIZE + WIN_MAX_RECORD);
	r->wbuf = r->win;
	/* a skim's records: those close together, not the samples between
	 * far-apart ones */
	want = reader_skim_taken(r) ? reader_skim_read_len(r, off, WIN_MAX_RECORD, WIN_MAX_RECORD)
				    : WIN_SIZE + WIN_MAX_RECORD;
	want = r->len - off < want ? r->len - off : want;
	got = pread_full(r->fd, r->win, want, off);
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

/* next_record's steps: read the next record where this one left off */
#define NEXT_AGAIN 1000

/* A record with trailing data (AUXTRACE, HEADER_TRACING_DATA) at rec,
 * left bytes to the end of where it is (at off, for messages; inner: in a
 * compressed record's contents), its payload at payload: skipped, an AUX buffer kept for
 * decoding; *taken: the bytes it and its payload take. */
static int trailing_record(struct pd_reader *r, const uint8_t *rec, uint32_t size, uint64_t left, uint64_t off,
			   bool inner, const uint8_t *payload, uint64_t *taken)
{
	uint64_t extra = 0;
	int ret = trailing_data(r, rec, size, left, off, inner, &extra);

	if (ret < 0)
		return ret;
	if (ld32(rec) == PD_REC_AUXTRACE)
		reader_aux_buffer(r, rec, payload, extra);
	*taken = size + extra;
	return 0;
}

/* The next record of the decompressed buffer: 1 an event, 0 none whole
 * there (read the file on), NEXT_AGAIN, or an error. */
static int next_decompressed(struct pd_reader *r, struct pd_event *ev)
{
	const uint8_t *rec;
	uint64_t left = r->dlen - r->dpos, taken, extra;
	uint32_t type, size;
	int ret;

	/* a whole record ready whenever there is more to inflate */
	if (r->zmore && left < WIN_MAX_RECORD) {
		ret = inflate_more(r, INFLATE_AHEAD);
		if (ret < 0)
			return ret;
		left = r->dlen - r->dpos;
	}
	if (left < 8)
		return 0;
	rec = r->dbuf + r->dpos;
	size = ld16(rec + 6);
	if (size < 8)
		return reader_stream_fail(r, (struct pd_error){ .kind = PD_ERR_REC_SMALL, .inner = true, .at = r->douter,
								.n = { size } });
	if (size > left)
		return 0;       /* it continues in the next compressed chunk */
	type = ld32(rec);
	/* perf never compresses these, but a file can */
	if (type == PD_REC_AUXTRACE || type == PD_REC_HEADER_TRACING_DATA) {
		/* its payload whole, when more is to come */
		if (r->zmore && trailing_len(rec, size, &extra) && extra > left - size) {
			if (size + extra > PD_MAX_DECOMP_CHUNK)
				return reader_stream_fail(r, (struct pd_error){ .kind = PD_ERR_TRAILER_TOO_BIG, .inner = true,
										.at = r->douter, .n = { extra } });
			ret = inflate_more(r, size + extra);
			return ret < 0 ? ret : NEXT_AGAIN;
		}
		ret = trailing_record(r, rec, size, left, r->douter, true, rec + size, &taken);
		if (ret < 0)
			return ret;
		r->dpos += taken;
		return NEXT_AGAIN;
	}
	r->dpos += size;
	ret = reader_decode(r, ev, rec, size, r->douter);
	return ret ? ret : NEXT_AGAIN;
}

/* The end of the data section: the end of a pass (0), or the file or its
 * compressed data cut short. */
static int data_end(struct pd_reader *r)
{
	/* the last pages read go too, or the next pass would map them on top */
	release_upto(r, r->map_len);
	if (r->ix_walk && !r->truncated)
		index_end(r);
	if (r->truncated)
		return reader_stream_fail(r, (struct pd_error){ .kind = PD_ERR_TRUNCATED,
								.n = { r->len, r->info.data_size, r->data_start } });
	if (r->dlen > r->dpos)
		return reader_stream_fail(r, (struct pd_error){ .kind = PD_ERR_ZSTD_LEFTOVER, .n = { r->dlen - r->dpos } });
	return 0;
}

/* A COMPRESSED or COMPRESSED2 record at off: into the decompressed buffer. */
static int compressed_record(struct pd_reader *r, const uint8_t *rec, uint32_t size, uint64_t off)
{
	const uint8_t *src = rec + 8;
	uint64_t n = size - 8;

	if (ld32(rec) == PD_REC_COMPRESSED2) {
		if (size < 16)
			return reader_stream_fail(r, (struct pd_error){ .kind = PD_ERR_COMPRESSED_SMALL, .at = off,
									.n = { size } });
		n = ld64(rec + 8);
		src = rec + 16;
		if (n > size - 16u)
			return reader_stream_fail(r, (struct pd_error){ .kind = PD_ERR_COMPRESSED_PAST, .at = off,
									.n = { n, size } });
	}
	r->pos += size;
	return decompress(r, src, n, off);
}

static int next_record(struct pd_reader *r, struct pd_event *ev)
{
	for (;;) {
		const uint8_t *rec;
		uint64_t left, off, taken;
		uint32_t type, size;
		int ret;

		if (r->err_code)
			return r->err_code;
		/* the samples of an AUX buffer being decoded first */
		if (reader_aux_pending(r) && reader_aux_next(r, ev))
			return 1;
		/* then records left in the decompressed buffer */
		ret = next_decompressed(r, ev);
		if (ret == NEXT_AGAIN)
			continue;
		if (ret)
			return ret;

		off = r->pos;
		if (off >= r->skim_at && r->skim) {
			reader_skim_step(r);
			off = r->pos;
		}
		if (off >= r->data_end)
			return data_end(r);
		left = r->data_end - off;
		if (left < 8)
			return reader_stream_fail(r, (struct pd_error){ .kind = PD_ERR_REC_LEFT, .at = off, .n = { left } });
		rec = data_at(r, off, left);
		type = ld32(rec);
		size = ld16(rec + 6);
		if (size < 8)
			return reader_stream_fail(r, (struct pd_error){ .kind = PD_ERR_REC_SMALL, .at = off, .n = { size } });
		if (size > left)
			return reader_stream_fail(r, (struct pd_error){ .kind = PD_ERR_REC_PAST_END, .at = off,
									.n = { size, left } });
		if (r->ix_walk)
			index_check(r, type, off);
		if (type == PD_REC_AUXTRACE || type == PD_REC_HEADER_TRACING_DATA) {
			/* the payload through the mapping: it can be larger
			 * than the window */
			ret = trailing_record(r, rec, size, left, off, false, r->base + off + size, &taken);
			if (ret < 0)
				return ret;
			r->pos += taken;
			continue;
		}
		if (type == PD_REC_COMPRESSED || type == PD_REC_COMPRESSED2) {
			ret = compressed_record(r, rec, size, off);
			if (ret < 0)
				return ret;
			continue;
		}
		r->pos += size;
		release_consumed(r);
		if (type == PERF_RECORD_SAMPLE && r->skip_samples) {
			r->seq++;
			continue;
		}
		ret = reader_decode(r, ev, rec, size, off);
		if (ret)
			return ret;
	}
}

size_t pd_reader__next_fixed(struct pd_reader *r, struct pd_sample_core *out, size_t max)
{
	uint64_t off = r->pos, end = r->data_end, start_end, base = 0;
	const uint8_t *p = r->base;
	size_t n;

	/* what next_record does first (compressed records, the skim's
	 * boundary, refilling the window, errors, the end) is left to it */
	if (r->err_code || r->skip_samples || reader_inflating(r) || reader_aux_pending(r))
		return 0;
	if (r->have_fd) {
		if (off < r->win_off || off - r->win_off >= r->win_len)
			return 0;
		p = r->wbuf;
		base = r->win_off;
		end = r->win_off + r->win_len < end ? r->win_off + r->win_len : end;
	}
	start_end = r->skim && r->skim_at < end ? r->skim_at : end;
	n = reader_fixed_run(r, p, base, &off, start_end, end, out, max);
	r->pos = off;
	release_consumed(r);
	return n;
}

int pd_reader__next(struct pd_reader *r, struct pd_event *ev)
{
	int ret = next_record(r, ev);

	if (ret <= 0 && r->names_stale)
		reader_apply_desc_names(r);
	return ret;
}

void pd_reader__skip_samples(struct pd_reader *r, bool skip)
{
	/* a skim lists no samples: the walk goes on alone from here */
	if (!skip)
		reader_skim_end(r);
	r->skip_samples = skip;
}

int pd_reader__rewind(struct pd_reader *r)
{
	r->build_ids_done = true;
	rewind_state(r);
	return 0;
}

void pd_reader__drop_index(struct pd_reader *r)
{
	free(r->index);
	r->index = NULL;
	r->index_nr = 0;
	r->index_taken = r->ix_walk = false;
}

bool pd_reader__index_unconfirmed(const struct pd_reader *r)
{
	return r->index_taken && (r->ix_bad || !r->ix_checked);
}

void pd_reader__read_ahead(struct pd_reader *r, bool on)
{
	r->ahead_wanted = on;
	if (!on)
		ahead_end(r);
}

bool pd_reader__fill_ahead(struct pd_reader *r)
{
	struct ahead *a = __atomic_load_n(&r->ahead, __ATOMIC_ACQUIRE);

	return a && ahead__fill_one(a);
}

void pd_reader__set_stats(struct pd_reader *r, const struct pd_reader_stats *s)
{
	r->stats = *s;
}

const struct pd_error *pd_reader__error(const struct pd_reader *r)
{
	return &r->error;
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
