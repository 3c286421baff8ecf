// SPDX-License-Identifier: GPL-2.0
/*
 * Skimming: a side-band pass over a large file (samples skipped) walks the
 * latter part of the data section on another thread while the reader walks
 * the first. Walking is reading every byte (a record's size says where the
 * next one starts), so two threads share the copying.
 *
 * The skimming thread finds a record boundary from an offset on (the first
 * 8-byte aligned offset from which SKIM_CHAIN records in a row have headers
 * that make sense), then walks from it to the end of the data, listing each
 * record that is not a sample with the number of samples before it. When
 * the reader's own walk reaches that boundary exactly, it takes the list:
 * it reads the listed records only, in order, and adds the samples between
 * them to its ordinals, so the pass yields the same events with the same
 * ordinals as a walk of every record. Anything unusual (a header that makes
 * no sense, records with trailing data, compressed records, the reader
 * stepping over the boundary, a list too long) drops the skim and the
 * reader walks on alone: a skim saves time and never changes what is read.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>
#include "perfdata/reader_int.h"
#include "util/util.h"

#define SKIM_MIN_DATA (8u << 20)        /* smaller data sections are walked by one thread */
#define SKIM_CHAIN 32                   /* headers in a row that make a boundary believable */
#define SKIM_SEARCH (1u << 20)          /* bytes searched for a boundary */
#define SKIM_MAX_RECS (1u << 20)        /* records listed at most (16 MiB) */
#define SKIM_WIN (1u << 20)
#define SKIM_MIN_GAP 65536u             /* bytes per listed record at the least: the reader reads
					 * records closer than its largest one as a walk would */
#define SKIM_SEARCH_READS 16            /* window fills the search may take (a hostile file's chains
					 * could make each candidate refill it) */

struct skim_rec {
	uint64_t off;
	uint64_t samples;               /* samples between the record listed before (or start) and this one */
};

struct skim {
	/* set before the thread starts; it reads them only */
	int fd;
	uint64_t from, end;
	bool sparse_only;               /* give up on a list denser than SKIM_MIN_GAP */
	pthread_t thread;
	atomic_bool stop;               /* the reader no longer wants the result */
	/* the thread's result, read once joined */
	bool ok;
	uint64_t start;                 /* the boundary it walked from */
	struct skim_rec *recs;
	size_t nr, alloc;
	uint64_t tail;                  /* samples after the last record listed */
	/* the reader's side */
	bool joined;
	size_t next;
	/* the thread's window on the file */
	uint8_t *win;
	uint64_t win_off, win_len;
	unsigned int reads;             /* window fills so far */
};

/* The 8 header bytes at off (off + 8 <= s->end), or NULL when they cannot
 * be read (or the reader said stop). */
static const uint8_t *skim_hdr(struct skim *s, uint64_t off)
{
	size_t got;

	if (off >= s->win_off && off + 8 <= s->win_off + s->win_len)
		return s->win + (off - s->win_off);
	if (atomic_load_explicit(&s->stop, memory_order_relaxed))
		return NULL;
	got = pread_full(s->fd, s->win, s->end - off < SKIM_WIN ? s->end - off : SKIM_WIN, off);
	s->reads++;
	if (got < 8)
		return NULL;
	s->win_off = off;
	s->win_len = got;
	return s->win;
}

/* A record type some perf could write: the kernel's, or perf's own. */
static bool plausible_type(uint32_t type)
{
	return (type >= 1 && type < 32) || (type >= PD_REC_HEADER_ATTR && type < 128);
}

/* Whether SKIM_CHAIN headers in a row from off make sense (or lead exactly
 * to the end of the data). */
static bool believable(struct skim *s, uint64_t off)
{
	for (unsigned int k = 0; k < SKIM_CHAIN && off != s->end; k++) {
		const uint8_t *h;
		uint32_t size;

		if (s->end - off < 8 || !(h = skim_hdr(s, off)))
			return false;
		size = ld16(h + 6);
		if (!plausible_type(ld32(h)) || size < 8 || size % 8 || size > s->end - off)
			return false;
		off += size;
	}
	return true;
}

static bool skim_list(struct skim *s, uint64_t off, uint64_t samples)
{
	if (s->nr == SKIM_MAX_RECS)
		return false;
	xgrow((void **)&s->recs, &s->alloc, s->nr + 1, sizeof(*s->recs));
	s->recs[s->nr++] = (struct skim_rec){ off, samples };
	return true;
}

static void *skim_main(void *arg)
{
	struct skim *s = arg;
	uint64_t off = s->from, samples = 0;

	while (off < s->from + SKIM_SEARCH && off < s->end && s->reads <= SKIM_SEARCH_READS && !believable(s, off))
		off += 8;
	if (off >= s->from + SKIM_SEARCH || off >= s->end || s->reads > SKIM_SEARCH_READS)
		return NULL;
	s->start = off;
	while (off < s->end) {
		const uint8_t *h;
		uint32_t type, size;

		/* what the reader would refuse or read specially: it will */
		if (s->end - off < 8 || !(h = skim_hdr(s, off)))
			return NULL;
		type = ld32(h);
		size = ld16(h + 6);
		if (size < 8 || size > s->end - off)
			return NULL;
		if (type == PERF_RECORD_SAMPLE) {
			samples++;
		} else {
			if (type == PD_REC_AUXTRACE || type == PD_REC_HEADER_TRACING_DATA || type == PD_REC_COMPRESSED ||
			    type == PD_REC_COMPRESSED2 || !skim_list(s, off, samples))
				return NULL;
			if (s->sparse_only && s->nr >= 64 && s->nr * SKIM_MIN_GAP > off - s->start)
				return NULL;
			samples = 0;
		}
		off += size;
	}
	s->tail = samples;
	s->ok = true;
	return NULL;
}

/* The file's own list (C2CSCAN_INDEX), when it describes this data: a
 * skim already walked, from the first record on. The walk of a later pass
 * checks it (reader.c, index_check); a wrong one is the caller's to undo
 * (pd_reader__index_unconfirmed). */
static bool skim_from_index(struct pd_reader *r)
{
	struct skim *s;

	if (!r->index || r->truncated || r->index_size != r->data_end - r->data_start)
		return false;
	s = xcalloc(1, sizeof(*s));
	s->recs = xmalloc((r->index_nr ? r->index_nr : 1) * sizeof(*s->recs));
	for (size_t i = 0; i < r->index_nr; i++)
		s->recs[i] = (struct skim_rec){ r->data_start + r->index[2 * i], r->index[2 * i + 1] };
	s->nr = s->alloc = r->index_nr;
	s->tail = r->index_tail;
	s->start = r->data_start;
	s->end = r->data_end;
	s->joined = s->ok = true;
	r->skim = s;
	r->skim_at = s->start;
	r->index_taken = true;
	return true;
}

void pd_reader__skim_ahead(struct pd_reader *r, uint64_t from)
{
	struct skim *s;
	uint64_t size = r->data_end - r->data_start;

	if (r->skim || !r->skip_samples || !r->have_fd || r->pipe || r->unterminated || r->pos != r->data_start ||
	    reader_inflating(r) || r->err_code)
		return;
	if (!from && (skim_from_index(r) || size < SKIM_MIN_DATA || !threads_wanted()))
		return;
	/* the reader decodes the side-band records of its part, the skim
	 * only lists those of its own: the reader takes the smaller part
	 * (on the 2M-sample bench file, halves took 25-32 ms and 18-24 ms) */
	s = xcalloc(1, sizeof(*s));
	s->sparse_only = !from;
	if (!from)
		from = r->data_start + size / 7 * 3;
	from = r->data_start + ((from - r->data_start + 7) & ~(uint64_t)7);
	if (from <= r->data_start || from >= r->data_end) {
		free(s);
		return;
	}
	s->fd = r->fd;
	s->from = from;
	s->end = r->data_end;
	s->win = xmalloc(SKIM_WIN);
	if (pthread_create(&s->thread, NULL, skim_main, s)) {
		free(s->win);
		free(s);
		return;
	}
	r->skim = s;
	r->skim_at = from;
}

void reader_skim_end(struct pd_reader *r)
{
	struct skim *s = r->skim;

	if (!s)
		return;
	if (!s->joined) {
		atomic_store_explicit(&s->stop, true, memory_order_relaxed);
		pthread_join(s->thread, NULL);
	}
	free(s->recs);
	free(s->win);
	free(s);
	r->skim = NULL;
	r->skim_at = UINT64_MAX;
}

/*
 * The walk reached r->skim_at (r->pos >= it): wait for the skim there,
 * take it when the walk stands on its boundary, drop it when the walk
 * stepped over it; once taken, go to the next record listed (or the end).
 */
void reader_skim_step(struct pd_reader *r)
{
	struct skim *s = r->skim;

	if (!reader_skim_taken(r)) {
		if (!s->joined) {
			pthread_join(s->thread, NULL);
			s->joined = true;
			free(s->win);
			s->win = NULL;
			if (!s->ok) {
				reader_skim_end(r);
				return;
			}
			r->skim_at = s->start;
			if (r->pos < s->start)
				return;
		}
		if (r->pos != s->start || reader_inflating(r)) {
			reader_skim_end(r);
			return;
		}
		r->skim_at = 0;
		r->skims_taken++;
		r->ix_walk = false;     /* this pass cannot check the index */
	}
	if (s->next < s->nr) {
		r->seq += s->recs[s->next].samples;
		r->pos = s->recs[s->next++].off;
		return;
	}
	r->seq += s->tail;
	r->pos = s->end;
	reader_skim_end(r);
}

uint64_t reader_skim_read_len(const struct pd_reader *r, uint64_t off, uint64_t win, uint64_t max_record)
{
	const struct skim *s = r->skim;
	uint64_t last = off;

	for (size_t i = s->next; i < s->nr && s->recs[i].off - off < win; i++)
		last = s->recs[i].off;
	return last - off + max_record;
}

bool pd_reader__skimmed(const struct pd_reader *r)
{
	return r->skims_taken > 0;
}
