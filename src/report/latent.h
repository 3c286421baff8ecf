/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latent false sharing (latent.c): data two threads write that sits on two
 * lines today but within a line's length of each other (another start of
 * the data, another allocator offset or binary layout puts them on one
 * line), or on the two lines of one 2-line block (128-byte lines on POWER
 * and Apple cores; Intel's adjacent-line prefetcher fetches such a pair
 * together). Found from every line's stores (c2c__written), shown in a
 * view or not: today such lines do not contend.
 */
#ifndef C2CSCAN_REPORT_LATENT_H
#define C2CSCAN_REPORT_LATENT_H

#include "report/report.h"

struct latent {
	uint32_t pid;
	uint64_t addr_a, addr_b;        /* the stores nearest the boundary: a's highest in its line,
					 * b's lowest in the next */
	uint64_t time_a, time_b;        /* of the last store there (naming heap objects) */
	uint32_t tid_a, tid_b;          /* the one thread that stores to each line */
	uint64_t stores_a, stores_b;    /* store samples of each line */
	uint32_t apart;                 /* addr_b - addr_a */
	bool near;                      /* apart < the line size: one line at another start */
	bool pair;                      /* the two lines are one block of two lines */
	const struct map_desc *map_a, *map_b;
	bool kernel;
};

/* Store samples each line needs: a thread's store or two in a sampled
 * recording says where it wrote once, not where it writes. */
#define REPORT_LATENT_MIN_STORES 5
/* At most this many are kept: the near ones first, the nearest first,
 * then the most stores. */
#define REPORT_LATENT_MAX 256

/* The latent pairs of r, near ones first, nearest first, then by the
 * fewer stores of the two, descending; *out valid for r's life. */
size_t report__latent(const struct report *r, const struct latent **out);
/* What l's stores at side b (false: a) hit, in words: "stats.rx", "byte 8
 * of the 24 B object from make_slots", else the address. */
size_t latent__name(const struct report *r, const struct latent *l, bool b, char *buf, size_t size);
/* The sentence saying l: "stats.rx (tid 12) and stats.tx (tid 13) are 8
 * bytes apart across a line boundary: they share a line at 56 of the 64
 * starts a line can give their data (...), and on 128-byte lines". */
size_t latent__scnprintf(const struct report *r, const struct latent *l, char *buf, size_t size);

/* latent.c, for report.c: the pairs found once the samples are counted. */
void report__find_latent(struct report *r);

#endif
