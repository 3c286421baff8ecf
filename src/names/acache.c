// SPDX-License-Identifier: GPL-2.0
/* Answers by address (symbols_int.h: struct acache), for the objects'
 * caches and the names cache. */
#include <stdlib.h>
#include <string.h>
#include "names/symbols_int.h"
#include "util/util.h"

void acache__init(struct acache *c, size_t val_size)
{
	*c = (struct acache){ .val_size = val_size };
}

void acache__exit(struct acache *c)
{
	htab__exit(&c->idx);
	free(c->keys);
	free(c->vals);
	c->keys = NULL;
	c->vals = NULL;
}

static uint32_t acache__find(const struct acache *c, uint64_t key, size_t *pos)
{
	uint32_t hash = (uint32_t)hash64(key), i;

	*pos = htab__start(&c->idx, hash);
	while ((i = htab__next(&c->idx, hash, pos)) != HTAB_NONE)
		if (c->keys[i].key == key)
			return i;
	return HTAB_NONE;
}

/* The answer cached under key: copied to val, its result to *rc. */
bool acache__get(const struct acache *c, uint64_t key, void *val, int *rc)
{
	size_t pos;
	uint32_t i = acache__find(c, key, &pos);

	if (i == HTAB_NONE)
		return false;
	memcpy(val, c->vals + (size_t)i * c->val_size, c->val_size);
	*rc = c->keys[i].rc;
	return true;
}

/* key must not be cached yet */
void acache__put(struct acache *c, uint64_t key, int rc, const void *val)
{
	xgrow((void **)&c->keys, &c->alloc_keys, c->nr + 1, sizeof(*c->keys));
	xgrow((void **)&c->vals, &c->alloc_vals, c->nr + 1, c->val_size);
	c->keys[c->nr] = (struct acache_key){ key, rc };
	memcpy(c->vals + c->nr * c->val_size, val, c->val_size);
	htab__add(&c->idx, (uint32_t)hash64(key), (uint32_t)c->nr++);
}

void acache__put_new(struct acache *c, uint64_t key, int rc, const void *val)
{
	size_t pos;

	if (acache__find(c, key, &pos) == HTAB_NONE)
		acache__put(c, key, rc, val);
}
