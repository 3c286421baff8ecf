/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf.data reader: file mode (PERFILE2) and pipe mode, any attr size,
 * several attrs (ids), compressed records (zstd), features.
 *
 * The reader never prints. Errors are negative errno-style codes; what is
 * wrong and where is a value, pd_reader__error() (perfdata/error.h), which
 * pd_reader__strerror() words.
 *
 * Two-pass use: the report reads side-band records in a first pass and
 * samples in a second, so the reader can be rewound. Pipe input (path "-" or
 * a pipe-format file on a pipe) is spooled to an unlinked temporary file on
 * open so it can be rewound too.
 */
#ifndef C2CSCAN_READER_H
#define C2CSCAN_READER_H

#include "perfdata/error.h"
#include "perfdata/perf_data.h"

struct pd_reader;

/* Counters of what was read and skipped; the report prints them. */
struct pd_reader_stats {
	uint64_t records;               /* records yielded, all kinds */
	uint64_t by_kind[PD_OTHER + 1];
	uint64_t other_types;           /* PD_OTHER records skipped by size */
	uint64_t bad_records;           /* records too short for their type, skipped */
	uint64_t compressed_chunks;
	uint64_t decompressed_bytes;
	uint64_t unknown_ids;           /* records whose id matches no attr (attr_idx -1) */
	uint64_t stack_dyn_clipped;     /* STACK_USER dynamic sizes beyond the copy, cut to it */
	/* AUX traces (Arm SPE): their buffers, what they held, what was lost */
	uint64_t aux_buffers, aux_bytes;
	uint64_t spe_records;           /* records decoded (every kind of operation) */
	uint64_t spe_samples;           /* of them, loads and stores: memory samples */
	uint64_t spe_cut;               /* records ended by a bad packet (what was read of them) */
	uint64_t spe_bad_bytes;         /* bytes of bad or cut packets, skipped */
	uint64_t aux_truncated;         /* AUX records: the buffer was full, data lost */
	uint64_t aux_partial, aux_collision;
	uint64_t aux_unknown;           /* AUXTRACE records of a trace type not decoded here */
};

/* Limits against hostile files (documented in man/c2cscan-report.1). */
#define PD_MAX_ATTRS        4096
#define PD_MAX_IDS          (1u << 24)
#define PD_MAX_FEATURE_SIZE (64u << 20)
#define PD_MAX_BUILD_IDS    (1u << 16)

/* path "-" reads stdin. On failure *rp is NULL, the return value is a
 * negative code and *err (when not NULL) says what is wrong. */
int pd_reader__open(struct pd_reader **rp, const char *path, struct pd_error *err);
/* In-memory input (tests, fuzzing). The buffer must outlive the reader. */
int pd_reader__open_mem(struct pd_reader **rp, const void *buf, size_t len,
			const char *name, struct pd_error *err);
void pd_reader__delete(struct pd_reader *r);

/* Next record: 1 = *ev filled, 0 = end of data, < 0 = error (stop; what was
 * yielded before stays valid; pd_reader__strerror says what and where). */
int pd_reader__next(struct pd_reader *r, struct pd_event *ev);
/* The samples that come next, up to max, into out, when their fields all
 * have a fixed size: what pd_reader__next would yield of them, with the
 * same ordinals and counters, without the rest of struct pd_event. 0: the
 * next record is something else (or the end, or an error): ask
 * pd_reader__next. */
size_t pd_reader__next_fixed(struct pd_reader *r, struct pd_sample_core *out, size_t max);
/* Pass over samples without decoding or yielding them (a side-band pass). */
void pd_reader__skip_samples(struct pd_reader *r, bool skip);
/* With samples skipped, from the start of a pass over a file: its latter
 * part is walked on another thread meanwhile. The pass reads the same
 * records, with the same ordinals, as without; it ends with the pass (or a
 * rewind, or samples asked for). from 0: the file's index if it has one
 * (below), else when it pays and threads are wanted, for data sections of
 * 8 MiB or more, from three sevenths in, records other than samples 64 KiB
 * apart on average at the least; else (tests) where that thread starts
 * looking for a record, whatever the size and spacing. */
void pd_reader__skim_ahead(struct pd_reader *r, uint64_t from);
/* Whether a skim was taken (tests: the other thread's walk was used). */
bool pd_reader__skimmed(const struct pd_reader *r);
/* A file written by c2cscan lists its records other than samples
 * (C2CSCAN_INDEX): a side-band pass from the start (pd_reader__skim_ahead
 * with from 0) reads only those, and the next pass that walks every record
 * checks the list. Unconfirmed: a pass read the list, and no walk to the
 * end found it true since; what that pass yielded may be wrong (a damaged
 * or forged index): the caller drops it and reads again. */
void pd_reader__drop_index(struct pd_reader *r);
bool pd_reader__index_unconfirmed(const struct pd_reader *r);
/* Back to the first record; stats restart. */
int pd_reader__rewind(struct pd_reader *r);
/* From the next pass over the samples of a large file on, its windows may
 * be copied ahead by another thread calling pd_reader__fill_ahead when it
 * has nothing else to do (the counting thread); each call copies one, if
 * one is wanted (false: none). Safe beside the pass; not beside a rewind,
 * pd_reader__read_ahead or pd_reader__delete. Off: the buffers go. */
void pd_reader__read_ahead(struct pd_reader *r, bool on);
bool pd_reader__fill_ahead(struct pd_reader *r);
/* The stats as a pass left them (after a partial pass that read again). */
void pd_reader__set_stats(struct pd_reader *r, const struct pd_reader_stats *s);

/* The last error (kind PD_ERR_NONE: none), and it in words. */
const struct pd_error *pd_reader__error(const struct pd_reader *r);
const char *pd_reader__strerror(const struct pd_reader *r);
const char *pd_reader__path(const struct pd_reader *r);
const struct pd_info *pd_reader__info(const struct pd_reader *r);
const struct pd_reader_stats *pd_reader__stats(const struct pd_reader *r);
size_t pd_reader__nr_attrs(const struct pd_reader *r);
const struct pd_attr *pd_reader__attr(const struct pd_reader *r, size_t idx);
/* True when data size was 0 in the header (perf killed before it finished
 * the file) and the reader read records up to EOF instead. */
bool pd_reader__unterminated(const struct pd_reader *r);

#endif
