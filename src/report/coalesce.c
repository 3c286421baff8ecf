// SPDX-License-Identifier: GPL-2.0
/*
 * report --stdio -c FIELDS (perf c2c's --coalesce): the offsets of the
 * detailed lines with rows per (offset, and any of tid, pid, code address,
 * object) instead of per (offset, code address). One more pass over the
 * file, for the samples of those lines only, into a model of its own
 * (c2c.c): the fields are hashed into the row's code address, and a side
 * table gives each hash its fields back for printing. Heap objects still
 * part rows (their tag is kept).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "report/coalesce.h"
#include "report/report_int.h"
#include "util/htab.h"
#include "util/util.h"

struct co_ident {
	uint64_t hash;
	uint64_t ip;
	uint32_t pid, tid;
	const char *dso;
	const struct map_desc *code_map;
};

struct report_co {
	struct c2c *model;
	const struct c2c_line *const *lines;
	size_t nr_lines;
	struct u64map by_hash;          /* hash -> idents */
	struct co_ident *ids;
	size_t nr_ids, alloc_ids;
};

static uint64_t ident_hash(unsigned int mask, const struct c2c_sample *cs)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;

	if (mask & CO_IADDR)
		h = hash64(h ^ cs->ip);
	if (mask & CO_PID)
		h = hash64(h ^ ((uint64_t)cs->pid << 1 | 1));
	if (mask & CO_TID)
		h = hash64(h ^ ((uint64_t)cs->tid << 2 | 2));
	if (mask & CO_DSO)
		h = hash64(h ^ (uint64_t)(uintptr_t)cs->code_object);
	return h;
}

static void remember(struct report_co *co, uint64_t hash, unsigned int mask, const struct c2c_sample *cs)
{
	uint64_t idx;

	if (u64map__get(&co->by_hash, hash, &idx))
		return;
	xgrow((void **)&co->ids, &co->alloc_ids, co->nr_ids + 1, sizeof(*co->ids));
	co->ids[co->nr_ids] = (struct co_ident){ hash, mask & CO_IADDR ? cs->ip : 0, cs->pid, cs->tid,
		cs->code_object, cs->code_map };
	u64map__put(&co->by_hash, hash, co->nr_ids++);
}

void report__coalesce_free(struct report *r)
{
	if (!r->co)
		return;
	c2c__delete(r->co->model);
	u64map__exit(&r->co->by_hash);
	free(r->co->ids);
	free(r->co);
	r->co = NULL;
}

struct co_pass {
	struct report *r;
	struct report_co *co;
	struct htab keys;               /* the detailed lines, by key hash */
	unsigned int mask;
};

/* A sample of one of the detailed lines into the coalesced model, its row
 * identity the hash of the fields asked. */
static void co_sample(void *arg, struct c2c_sample *cs)
{
	struct co_pass *p = arg;
	uint32_t hash = cs->key_hash, i;
	size_t pos = htab__start(&p->keys, hash);
	bool ours = false;
	uint64_t h;

	while (!ours && (i = htab__next(&p->keys, hash, &pos)) != HTAB_NONE)
		ours = cl_key__equal(&p->r->lines[i]->key, &cs->key);
	if (!ours)
		return;
	h = ident_hash(p->mask, cs);
	remember(p->co, h, p->mask, cs);
	cs->ip = h;
	c2c__add(p->co->model, cs);
}

int report__coalesce(struct report *r, size_t nr_lines)
{
	struct co_pass p = { .r = r, .mask = r->opts.coalesce };
	int ret;

	report__coalesce_free(r);
	if (!p.mask)
		return 0;
	p.co = r->co = xcalloc(1, sizeof(*p.co));
	p.co->model = c2c__new(r->line_size);
	for (size_t i = 0; i < nr_lines && i < r->nr_lines; i++)
		htab__add(&p.keys, (uint32_t)cl_key__hash(&r->lines[i]->key), (uint32_t)i);
	ret = pd_reader__rewind(r->reader);
	if (ret >= 0)
		ret = report__rekey(r, co_sample, &p);
	htab__exit(&p.keys);
	/* every line the samples reached, whatever the mode counts in them */
	p.co->nr_lines = c2c__sort(p.co->model, r->mode, true, &p.co->lines);
	return ret < 0 ? ret : 0;
}

struct regroup_pass {
	const struct cl_key *line;
	enum report_coalesce by;
	struct c2c *c;
};

/* A sample of the line into its regrouped model: the row identity is
 * (offset, iaddr), the grouping goes there. */
static void regroup_sample(void *arg, struct c2c_sample *cs)
{
	struct regroup_pass *p = arg;

	if (!cl_key__equal(&cs->key, p->line))
		return;
	cs->ip = p->by == COALESCE_PID ? cs->pid : p->by == COALESCE_TID ? cs->tid : 0;
	cs->code_map = NULL;
	cs->code_object = NULL;
	c2c__add(p->c, cs);
}

int report__regroup(struct report *r, enum report_coalesce by, const struct cl_key *line, struct c2c **out)
{
	struct regroup_pass p = { .line = line, .by = by };
	int ret;

	*out = NULL;
	if (by == COALESCE_IADDR || by >= COALESCE__NR)
		return -EINVAL;
	ret = pd_reader__rewind(r->reader);
	if (ret < 0)
		return ret;
	p.c = c2c__new(r->line_size);
	ret = report__rekey(r, regroup_sample, &p);
	*out = p.c;
	return ret < 0 ? ret : 0;
}

void report__trim(const struct report *r, const struct c2c_line *keep)
{
	c2c__trim(r->c2c, keep);
	if (r->co)
		c2c__trim(r->co->model, keep);
}

const struct c2c_line *report__coalesced_line(const struct report *r, const struct c2c_line *l)
{
	for (size_t i = 0; r->co && i < r->co->nr_lines; i++)
		if (cl_key__equal(&r->co->lines[i]->key, &l->key))
			return r->co->lines[i];
	return NULL;
}

bool report__coalesced_row(const struct report *r, const struct c2c_row *row, struct c2c_row *shown,
			   uint32_t *pid, uint32_t *tid, const char **dso)
{
	uint64_t idx;
	const struct co_ident *id;

	if (!r->co || !u64map__get(&r->co->by_hash, row->iaddr, &idx))
		return false;
	id = &r->co->ids[idx];
	*shown = *row;
	shown->iaddr = id->ip;
	shown->code_map = id->code_map;
	shown->code_object = id->dso;
	*pid = id->pid;
	*tid = id->tid;
	*dso = id->dso;
	return true;
}

