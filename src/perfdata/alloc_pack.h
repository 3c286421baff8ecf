/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocation events packed: the form the preload shim writes them in and the
 * C2CSCAN_ALLOC feature (version 3) carries, about 6-8 bytes an event where
 * struct pd_alloc_event takes 48. Header-only: the shim includes it and
 * nothing else of the project.
 *
 * A block: struct pd_alloc_block (little-endian), then its events. An event:
 * a varint of kind | fn << 2, then the four words (time, addr, size, site;
 * a PD_ALLOC_FRAMES event's four frames) each as the zigzag varint of its
 * difference from the same word of the block's previous event of the same
 * kind, or for time and addr of an allocation or a free, of the previous
 * allocation or free (0 before the first). pid and tid are the block's;
 * reserved is 0. kind is taken modulo 4.
 */
#ifndef C2CSCAN_ALLOC_PACK_H
#define C2CSCAN_ALLOC_PACK_H

#include <stddef.h>
#include <stdint.h>
#include "perfdata/perf_data.h"

#define PD_ALLOC_BLOCK_MAGIC 0x4b504143u        /* "CAPK" */
#define PD_ALLOC_PACKED_MAX 43                  /* an event's bytes at most: 3 + 4 * 10 */
#define PD_ALLOC_PACKED_MIN 5                   /* and at least */
#define PD_ALLOC_BLOCK_MAX (1u << 20)           /* a block's event bytes at most */

struct pd_alloc_block {
	uint32_t magic;
	uint32_t bytes;                 /* of the events that follow */
	uint32_t nr;                    /* events */
	uint32_t pid, tid;
};

/* The previous events' words: zeroed at each block's start. */
struct pd_alloc_packer {
	uint64_t prev[4][4];            /* [kind][word] */
};

/* The word of the previous event the word-th word of an event of kind is
 * told as a difference from. */
static inline uint64_t *pd_alloc__prev(struct pd_alloc_packer *k, uint16_t kind, int word)
{
	kind &= 3;
	return &k->prev[(kind == PD_ALLOC_ALLOC || kind == PD_ALLOC_FREE) && word < 2 ? 0 : kind][word];
}

static inline uint8_t *pd_alloc__put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* One event at p; returns the end of what it wrote (at most
 * PD_ALLOC_PACKED_MAX bytes). */
static inline uint8_t *pd_alloc__pack(uint8_t *p, struct pd_alloc_packer *k, uint16_t kind, uint16_t fn,
				      const uint64_t w[4])
{
	p = pd_alloc__put_varint(p, (uint64_t)(kind & 3) | (uint64_t)fn << 2);
	for (int i = 0; i < 4; i++) {
		uint64_t *prev = pd_alloc__prev(k, kind, i), d = w[i] - *prev;

		/* zigzag: small differences either way are small numbers */
		p = pd_alloc__put_varint(p, d << 1 ^ (uint64_t)((int64_t)d >> 63));
		*prev = w[i];
	}
	return p;
}

#endif
