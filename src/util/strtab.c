// SPDX-License-Identifier: GPL-2.0
/* Interned strings (util.h's strtab): owned copies, one per distinct
 * string, found through htab.h; ids index strs[] from 1. */
#include <stdlib.h>
#include <string.h>
#include "util/htab.h"
#include "util/util.h"

struct strtab {
	char **strs;            /* [0] unused */
	size_t nr, alloc;
	struct htab idx;        /* entry i is id i + 1 */
};

struct strtab *strtab__new(void)
{
	struct strtab *t = xcalloc(1, sizeof(*t));

	t->nr = 1;
	t->alloc = 16;
	t->strs = xcalloc(t->alloc, sizeof(*t->strs));
	htab__init(&t->idx, 64, 50, false);
	return t;
}

void strtab__delete(struct strtab *t)
{
	if (!t)
		return;
	for (size_t i = 1; i < t->nr; i++)
		free(t->strs[i]);
	free(t->strs);
	htab__exit(&t->idx);
	free(t);
}

const char *strtab__intern(struct strtab *t, const char *s, uint64_t *idp)
{
	uint32_t hash = (uint32_t)hash_bytes(s, strlen(s), 0), i;
	size_t pos = htab__start(&t->idx, hash);

	while ((i = htab__next(&t->idx, hash, &pos)) != HTAB_NONE) {
		if (!strcmp(t->strs[i + 1], s)) {
			if (idp)
				*idp = i + 1;
			return t->strs[i + 1];
		}
	}
	xgrow((void **)&t->strs, &t->alloc, t->nr + 1, sizeof(*t->strs));
	t->strs[t->nr] = xstrdup(s);
	htab__insert(&t->idx, pos, hash, (uint32_t)(t->nr - 1));
	if (idp)
		*idp = t->nr;
	return t->strs[t->nr++];
}

const char *strtab__str(const struct strtab *t, uint64_t id)
{
	return id && id < t->nr ? t->strs[id] : NULL;
}

