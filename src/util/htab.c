// SPDX-License-Identifier: GPL-2.0
/* The one hash table (htab.h) and the u64 map on it. */
#include <stdlib.h>
#include <string.h>
#include "util/htab.h"
#include "util/util.h"

#define HTAB_MIN 16

static struct htab_slot *slots__alloc(const struct htab *h, size_t cap)
{
	return h->big ? xbig_calloc(cap * sizeof(struct htab_slot), true)
		      : xcalloc(cap, sizeof(struct htab_slot));
}

static void slots__free(const struct htab *h, struct htab_slot *s, size_t cap)
{
	if (h->big)
		xbig_free(s, cap * sizeof(*s));
	else
		free(s);
}

void htab__init(struct htab *h, size_t cap, unsigned int max_load, bool big)
{
	size_t n = HTAB_MIN;

	while (n < cap)
		n *= 2;
	*h = (struct htab){ .max_load = (uint8_t)(max_load < 50 ? 50 : max_load > 90 ? 90 : max_load),
			    .big = big };
	h->slots = slots__alloc(h, n);
	h->cap = n;
}

void htab__exit(struct htab *h)
{
	if (h->slots)
		slots__free(h, h->slots, h->cap);
	h->slots = NULL;
	h->cap = h->nr = 0;
}

static void place(struct htab_slot *slots, size_t cap, struct htab_slot s)
{
	size_t i = s.hash & (cap - 1);

	while (slots[i].idx)
		i = (i + 1) & (cap - 1);
	slots[i] = s;
}

static void grow(struct htab *h)
{
	size_t cap = h->cap ? h->cap * 2 : HTAB_MIN;
	struct htab_slot *slots;

	if (!h->max_load)
		h->max_load = 50;
	slots = slots__alloc(h, cap);
	for (size_t i = 0; i < h->cap; i++)
		if (h->slots[i].idx)
			place(slots, cap, h->slots[i]);
	if (h->slots)
		slots__free(h, h->slots, h->cap);
	h->slots = slots;
	h->cap = cap;
}

void htab__insert(struct htab *h, size_t pos, uint32_t hash, uint32_t idx)
{
	if (!h->cap) {
		htab__add(h, hash, idx);
		return;
	}
	h->slots[pos] = (struct htab_slot){ hash, idx + 1 };
	if (++h->nr * 100 > h->cap * h->max_load)
		grow(h);
}

void htab__add(struct htab *h, uint32_t hash, uint32_t idx)
{
	if (!h->cap)
		grow(h);
	place(h->slots, h->cap, (struct htab_slot){ hash, idx + 1 });
	if (++h->nr * 100 > h->cap * h->max_load)
		grow(h);
}

void u64map__put(struct u64map *m, uint64_t key, uint64_t val)
{
	uint32_t hash = u64map__hash(key);
	size_t pos;
	uint32_t i = u64map__find(m, key, hash, &pos);

	if (i != HTAB_NONE) {
		m->ents[i].val = val;
		return;
	}
	xgrow((void **)&m->ents, &m->alloc, m->nr + 1, sizeof(*m->ents));
	m->ents[m->nr] = (struct u64map_ent){ key, val };
	htab__insert(&m->h, pos, hash, (uint32_t)m->nr++);
}

void u64map__exit(struct u64map *m)
{
	htab__exit(&m->h);
	free(m->ents);
	memset(m, 0, sizeof(*m));
}
