/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The project's one hash table: open addressing with linear probing over a
 * power-of-two array of slots, each holding 32 bits of an entry's hash and
 * the entry's index (+ 1) in the owner's own dense array. The table never
 * sees keys or values: for each slot whose hash matches, the owner compares
 * its entry. So entries never move when the table grows (growing rehashes
 * from the stored hashes), a probe reads 8 bytes, and the hot paths inline
 * the loop with the owner's comparison.
 *
 *	size_t pos = htab__start(&t, hash);
 *	for (uint32_t i; (i = htab__next(&t, hash, &pos)) != HTAB_NONE;)
 *		if (equal(&ents[i], key))
 *			return i;
 *	i = append_entry(key);
 *	htab__insert(&t, pos, hash, i);  // pos: the empty slot the lookup ended on
 *
 * u64map is the table with entries of its own: a 64-bit key to a 64-bit value.
 */
#ifndef C2CSCAN_HTAB_H
#define C2CSCAN_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/util.h"

#define HTAB_NONE UINT32_MAX

struct htab_slot {
	uint32_t hash;
	uint32_t idx;           /* entry index + 1; 0: empty */
};

struct htab {
	struct htab_slot *slots; /* NULL until the first insert (a zeroed htab is empty) */
	size_t cap, nr;
	uint8_t max_load;       /* percent of cap filled before growing (50 unless set) */
	bool big;               /* slots in huge-page memory (xbig_calloc): large tables */
};

/* cap: the first size (rounded up to a power of two, at least 16); 0 for
 * the default. max_load: 50 to 90 percent, 0 for 50. */
void htab__init(struct htab *h, size_t cap, unsigned int max_load, bool big);
void htab__exit(struct htab *h);

static inline size_t htab__start(const struct htab *h, uint32_t hash)
{
	return h->cap ? hash & (h->cap - 1) : 0;
}

/* Address of the slot a lookup of hash starts at, to prefetch it. */
static inline const void *htab__slot_addr(const struct htab *h, uint32_t hash)
{
	return h->cap ? &h->slots[hash & (h->cap - 1)] : NULL;
}

/* The next entry from *pos on whose hash is hash, or HTAB_NONE when the
 * probe reached an empty slot (*pos is then that slot, for htab__insert). */
static inline uint32_t htab__next(const struct htab *h, uint32_t hash, size_t *pos)
{
	const struct htab_slot *slots = h->slots;
	size_t mask = h->cap - 1, p = *pos;

	if (!slots)
		return HTAB_NONE;
	for (; slots[p].idx; p = (p + 1) & mask) {
		if (slots[p].hash == hash) {
			*pos = (p + 1) & mask;
			return slots[p].idx - 1;
		}
	}
	*pos = p;
	return HTAB_NONE;
}

/* Entry idx under hash at pos, the empty slot that ended a lookup of hash
 * (no insert or growth since). The table may grow: positions are stale after. */
void htab__insert(struct htab *h, size_t pos, uint32_t hash, uint32_t idx);
/* Entry idx under hash, without a lookup before (the owner knows it is new). */
void htab__add(struct htab *h, uint32_t hash, uint32_t idx);

struct u64map_ent {
	uint64_t key, val;
};

struct u64map {                 /* zeroed: empty */
	struct htab h;
	struct u64map_ent *ents;
	size_t nr, alloc;
};

static inline uint32_t u64map__hash(uint64_t key)
{
	return (uint32_t)hash64(key);
}

/* The entry of key, or HTAB_NONE with *pos the empty slot for it. Inline:
 * the reader asks for every sample's id. */
static inline uint32_t u64map__find(const struct u64map *m, uint64_t key, uint32_t hash, size_t *pos)
{
	uint32_t i;

	*pos = htab__start(&m->h, hash);
	while ((i = htab__next(&m->h, hash, pos)) != HTAB_NONE)
		if (m->ents[i].key == key)
			return i;
	return HTAB_NONE;
}

static inline bool u64map__get(const struct u64map *m, uint64_t key, uint64_t *val)
{
	size_t pos;
	uint32_t i = u64map__find(m, key, u64map__hash(key), &pos);

	if (i == HTAB_NONE)
		return false;
	*val = m->ents[i].val;
	return true;
}
/* Sets key's value, adding the key when it is new. */
void u64map__put(struct u64map *m, uint64_t key, uint64_t val);
void u64map__exit(struct u64map *m);

#endif
