/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reader's state, for src/perfdata/reader.c (input, header, the record
 * loop), features.c (the feature sections and HEADER_FEATURE records) and
 * records.c (one record into a struct pd_event) only.
 */
#ifndef C2CSCAN_READER_INT_H
#define C2CSCAN_READER_INT_H

#include <string.h>
#include <zstd.h>
#include "perfdata/reader.h"
#include "util/htab.h"


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

/* Where the fields of a sample sit when its attr's sample_type has only
 * fields of a fixed size (records.c: fixed_sample); found on first use. */
enum sample_field {
	SF_IDENTIFIER, SF_IP, SF_TID, SF_TIME, SF_ADDR, SF_ID, SF_STREAM_ID, SF_CPU, SF_PERIOD, SF_WEIGHT,
	SF_DATA_SRC, SF_TRANSACTION, SF_PHYS_ADDR, SF_CGROUP, SF_DATA_PAGE_SIZE, SF_CODE_PAGE_SIZE, SF__NR
};

struct sample_layout {
	bool checked;           /* the fields below are known */
	bool fixed;             /* every field has a fixed size */
	bool weight_struct;     /* SF_WEIGHT is PERF_SAMPLE_WEIGHT_STRUCT */
	uint32_t size;          /* bytes of them after the record header */
	int16_t off[SF__NR];    /* offset after the header, -1: not sampled */
};

struct rattr {
	struct pd_attr a;       /* first: pd_reader__attr() hands out &ra->a */
	enum name_prio name_prio;
	struct sample_layout layout;
};

#define ID_CACHE 64

struct desc_name {              /* EVENT_DESC entry kept to name late attrs */
	char *name;
	uint64_t *ids;
	size_t nr_ids;
};

struct pd_reader {
	char *path;
	struct pd_error error;          /* the last error */
	char err[512];                  /* it worded */
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
	const uint8_t *wbuf;            /* the window's bytes: win's, or ahead's */
	bool ahead_wanted;              /* pd_reader__read_ahead */
	struct ahead *ahead;            /* the windows of a pass over samples (ahead.c); atomic */
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
	/* the attrs of the ids asked lately, by the id's low bits: a stream
	 * interleaves the ids of every event on every cpu (id 0: empty) */
	struct id_hit {
		uint64_t id;
		int32_t idx;
	} id_cache[ID_CACHE];

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
	/* what is left of it to inflate: it is inflated a little at a time,
	 * so that the buffer stays small whatever it expands to */
	const uint8_t *zsrc;
	size_t zlen, zpos;
	size_t zproduced;               /* its bytes inflated so far */
	bool zmore;                     /* zstd may have more of it to give */

	/* aligned copy of a callchain that sits at an unaligned address */
	uint64_t *scratch;
	size_t scratch_cap;
	uint64_t regs[64];              /* aligned copy of unaligned REGS_USER values */

	struct pd_info info;
	struct pd_reader_stats stats;
	uint64_t seq;

	/* skim.c: the latter part of a side-band pass, walked on another
	 * thread; reader_skim_step runs once the walk reaches skim_at
	 * (UINT64_MAX: no skim; 0: taken, every step jumps) */
	struct skim *skim;
	uint64_t skim_at;
	unsigned int skims_taken;
	/* C2CSCAN_INDEX (perf_data.h): offset from the data's start and
	 * records skipped before, per record listed; NULL when the file has
	 * none that makes sense (or pd_reader__drop_index dropped it) */
	uint64_t *index;
	size_t index_nr;
	uint64_t index_tail, index_size;
	bool index_taken;               /* a side-band pass read only what it lists */
	/* a pass that walks every record checks it: the next record listed,
	 * and the ordinal it must have; ix_walk false once the pass skipped
	 * some (a skim), ix_checked when a walk reached the end */
	size_t ix_next;
	uint64_t ix_ord;
	bool ix_walk, ix_bad, ix_checked;

	/* auxtrace.c: AUX traces (Arm SPE) decoded into samples, NULL none */
	struct aux_state *aux;
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

/* reader.c */
/* e kept (pd_reader__error) and worded (pd_reader__strerror): its code. */
int reader_fail(struct pd_reader *r, struct pd_error e);
/* The same, sticky: every later next() returns it. */
int reader_stream_fail(struct pd_reader *r, struct pd_error e);
int32_t reader_attr_index(const struct u64map *m, uint64_t id);
/* Where the id cache keeps id. */
static inline struct id_hit *reader_id_slot(struct pd_reader *r, uint64_t id)
{
	return &r->id_cache[(id ^ id >> 6) % ID_CACHE];
}
/* id belongs to attr idx from now on (the cache forgets what it knew). */
void reader_put_id(struct pd_reader *r, uint64_t id, uint64_t idx);
void reader_set_name(struct rattr *ra, const char *name, enum name_prio prio);
void reader_apply_desc_names(struct pd_reader *r);
void reader_setup_layout(struct pd_reader *r);
/* Takes a copy of min(size, sizeof) bytes of the attr; ids are copied too. */
struct rattr *reader_add_attr(struct pd_reader *r, const uint8_t *p, uint32_t size, const uint8_t *ids,
			      size_t nr_ids, uint32_t file_attr_size);
/* ahead.c: windows of stride bytes (and slack more each) of a file of
 * end bytes; ahead__at gives the bytes [off, off + need) in one (its place:
 * *win_off, *win_len), read ahead by ahead__fill_one on another thread or
 * here, or NULL when a read was short. */
struct ahead *ahead__new(int fd, uint64_t end, size_t stride, size_t slack);
const uint8_t *ahead__at(struct ahead *a, uint64_t off, uint64_t need, uint64_t *win_off, uint64_t *win_len);
bool ahead__fill_one(struct ahead *a);
void ahead__delete(struct ahead *a);

/* skim.c */
void reader_skim_step(struct pd_reader *r);
/* Ends the skim, if any (waits for its thread). */
void reader_skim_end(struct pd_reader *r);
/* Whether records are read from a skim's list (the walk jumps). */
static inline bool reader_skim_taken(const struct pd_reader *r)
{
	return r->skim_at == 0;
}
/* Bytes to read at off, the listed record the walk stands on: through the
 * last listed record starting within win bytes of it (the bytes between
 * come along, the records after are not read), plus max_record. */
uint64_t reader_skim_read_len(const struct pd_reader *r, uint64_t off, uint64_t win, uint64_t max_record);
/* features.c */
void reader_parse_feature(struct pd_reader *r, unsigned int feat, const uint8_t *p, size_t len);
bool reader_feat_present(const struct pd_reader *r, uint64_t feat);
size_t reader_add_build_id(struct pd_reader *r, const uint8_t *p, size_t len);
void reader_free_descs(struct desc_name *d, size_t n);
/* records.c */
int reader_decode(struct pd_reader *r, struct pd_event *ev, const uint8_t *rec, uint32_t size, uint64_t off);
/* Fixed-layout samples in a row from file offset *off (p holds the bytes
 * from file offset base), those starting before start_end and ending by
 * end, into out (max); *off moves past them. It stops at any record
 * reader_decode would treat otherwise. */
size_t reader_fixed_run(struct pd_reader *r, const uint8_t *p, uint64_t base, uint64_t *off, uint64_t start_end,
			uint64_t end, struct pd_sample_core *out, size_t max);

/* auxtrace.c: AUXTRACE_INFO and TIME_CONV records into info (false: too
 * short); an AUX record's flags counted; an AUXTRACE record's buffer
 * (data, len bytes after the record rec) to decode; the samples it makes,
 * one a call (1, or 0 when it has no more); whether a buffer is being
 * decoded; a thread's process, from the side-band; rewind and free. */
bool reader_aux_info(struct pd_reader *r, const uint8_t *rec, uint32_t size);
bool reader_time_conv(struct pd_reader *r, const uint8_t *rec, uint32_t size);
void reader_aux_record(struct pd_reader *r, uint64_t flags);
void reader_aux_buffer(struct pd_reader *r, const uint8_t *rec, const uint8_t *data, uint64_t len);
int reader_aux_next(struct pd_reader *r, struct pd_event *ev);
bool reader_aux_pending(const struct pd_reader *r);
void reader_aux_note_thread(struct pd_reader *r, uint32_t pid, uint32_t tid);
/* From time on, cpu runs (pid, tid) (a context switch record). */
void reader_aux_note_switch(struct pd_reader *r, uint32_t cpu, uint64_t time, uint32_t pid, uint32_t tid);
void reader_aux_rewind(struct pd_reader *r);
void reader_aux_free(struct pd_reader *r);

/* Whether decompressed records are pending (in the buffer, or still to
 * inflate): the walk over the file's own records waits for them. */
static inline bool reader_inflating(const struct pd_reader *r)
{
	return r->dlen != r->dpos || r->zmore;
}

#endif
