// SPDX-License-Identifier: GPL-2.0
/*
 * Callers per row (report -g), gathered in pass 2 beside the counting when
 * the file has stacks (callchains, or user stack copies to unwind):
 * a sample's stack (names__stack) is interned by (pid, addresses), and the
 * identity of the row it lands in (line key, offset, code address, heap
 * object: c2c's row identity) counts the raw stacks. Memory follows the
 * distinct (row, stack) pairs, never the samples; no pass is added, and a
 * new display mode finds the same rows by identity.
 *
 * After pass 2 each distinct raw stack is named once, frame by frame, and a
 * row's raw stacks with the same names merge: two processes of one
 * program, or two addresses of one function, are one caller. The hot path
 * of the report (c2c.c) never sees a stack.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "names/names.h"
#include "names/unwind.h"
#include "report/callchain.h"
#include "report/columns.h"
#include "report/report_int.h"
#include "util/htab.h"
#include "util/util.h"

#define CG_MAX_FRAMES 64        /* per stack, as named (an inlined call adds one) */

/* Stacks interned by (pid, addresses); the time is its first user's (its
 * mappings then). */
struct raw_stack {
	uint32_t pid, nr;
	uint64_t time;
	size_t first;           /* into ips */
};

struct stack_tab {
	struct raw_stack *raw;
	size_t nr_raw, alloc_raw;
	struct htab idx;
	uint64_t *ips;
	size_t nr_ips, alloc_ips;
};

struct named_stack {
	size_t first;           /* into cg->frames */
	uint32_t nr;
};

struct cg_count {
	uint32_t id;            /* raw stack, then named stack */
	uint64_t samples;
};

struct cg_row {                 /* a row identity, as c2c.c keys rows */
	struct cl_key key;
	uint64_t ip;
	uint32_t offset, tag;
	struct cg_count *c;
	size_t alloc;
	uint32_t nr;
	uint64_t samples;
	struct report_chain *chains; /* by samples, after naming */
};

struct report_cg {
	struct stack_tab *raw;
	uint32_t *raw_named;            /* raw stack -> named stack */
	struct named_stack *named;
	size_t nr_named, alloc_named;
	struct htab named_idx;
	const char **frames;
	size_t nr_frames, alloc_frames;
	struct htab row_idx;            /* rows by identity */
	struct cg_row *rows;
	size_t nr_rows, alloc_rows;
	struct stack_stats st;
	uint64_t with_stack, without_stack;
};

static void cg__free(struct report_cg *cg)
{
	if (!cg)
		return;
	for (size_t i = 0; i < cg->nr_rows; i++) {
		free(cg->rows[i].c);
		free(cg->rows[i].chains);
	}
	free(cg->rows);
	htab__exit(&cg->row_idx);
	htab__exit(&cg->named_idx);
	stack_tab__delete(cg->raw);
	free(cg->raw_named);
	free(cg->named);
	free(cg->frames);
	free(cg);
}

void report__callchains_free(struct report *r)
{
	cg__free(r->cg);
	r->cg = NULL;
}

struct stack_tab *stack_tab__new(void)
{
	return xcalloc(1, sizeof(struct stack_tab));
}

void stack_tab__delete(struct stack_tab *t)
{
	if (!t)
		return;
	htab__exit(&t->idx);
	free(t->raw);
	free(t->ips);
	free(t);
}

uint32_t stack_tab__intern(struct stack_tab *t, uint32_t pid, uint64_t time, const uint64_t *ips, uint32_t nr)
{
	uint32_t hash = (uint32_t)hash_bytes(ips, nr * sizeof(*ips), pid), i;
	size_t pos = htab__start(&t->idx, hash);
	struct raw_stack *rs;

	while ((i = htab__next(&t->idx, hash, &pos)) != HTAB_NONE) {
		rs = &t->raw[i];
		if (rs->pid == pid && rs->nr == nr && !memcmp(t->ips + rs->first, ips, nr * sizeof(*ips)))
			return i;
	}
	xgrow((void **)&t->ips, &t->alloc_ips, t->nr_ips + nr, sizeof(*t->ips));
	memcpy(t->ips + t->nr_ips, ips, nr * sizeof(*ips));
	xgrow((void **)&t->raw, &t->alloc_raw, t->nr_raw + 1, sizeof(*t->raw));
	t->raw[t->nr_raw] = (struct raw_stack){ pid, nr, time, t->nr_ips };
	t->nr_ips += nr;
	htab__insert(&t->idx, pos, hash, (uint32_t)t->nr_raw);
	return (uint32_t)t->nr_raw++;
}

size_t stack_tab__nr(const struct stack_tab *t)
{
	return t ? t->nr_raw : 0;
}

static void row_count(struct cg_row *row, uint32_t id, uint64_t samples)
{
	row->samples += samples;
	for (uint32_t i = 0; i < row->nr; i++) {
		if (row->c[i].id == id) {
			row->c[i].samples += samples;
			return;
		}
	}
	xgrow((void **)&row->c, &row->alloc, row->nr + 1, sizeof(*row->c));
	row->c[row->nr++] = (struct cg_count){ id, samples };
}

static uint32_t row_hash(const struct cl_key *k, uint32_t offset, uint64_t ip, uint32_t tag)
{
	return (uint32_t)(cl_key__hash(k) ^ hash64(ip ^ ((uint64_t)offset << 48) ^ ((uint64_t)tag << 20)));
}

/* The rows entry of an identity; NULL when absent and not to be made. */
static struct cg_row *cg_row(struct report_cg *cg, const struct cl_key *k, uint32_t offset, uint64_t ip,
			     uint32_t tag, bool make)
{
	uint32_t hash = row_hash(k, offset, ip, tag), i;
	size_t pos = htab__start(&cg->row_idx, hash);
	struct cg_row *row;

	while ((i = htab__next(&cg->row_idx, hash, &pos)) != HTAB_NONE) {
		row = &cg->rows[i];
		if (row->ip == ip && row->offset == offset && row->tag == tag && cl_key__equal(&row->key, k))
			return row;
	}
	if (!make)
		return NULL;
	xgrow((void **)&cg->rows, &cg->alloc_rows, cg->nr_rows + 1, sizeof(*cg->rows));
	cg->rows[cg->nr_rows] = (struct cg_row){ .key = *k, .ip = ip, .offset = offset, .tag = tag };
	htab__insert(&cg->row_idx, pos, hash, (uint32_t)cg->nr_rows);
	return &cg->rows[cg->nr_rows++];
}

void report__callchains_sample(struct report *r, const struct pd_event *ev, const struct c2c_sample *cs)
{
	struct report_cg *cg = r->cg;
	const struct pd_sample *s = &ev->u.sample;
	uint64_t ips[CG_MAX_FRAMES];
	size_t nr;

	if (!cg)
		return;
	nr = names__stack(r->names, r->maps, s, cs->time, ips, CG_MAX_FRAMES, &cg->st);
	if (!nr) {
		cg->without_stack++;
		return;
	}
	cg->with_stack++;
	row_count(cg_row(cg, &cs->key, (uint32_t)(cs->addr & (r->line_size - 1)), cs->ip, cs->tag, true),
		  stack_tab__intern(cg->raw, s->pid, cs->time, ips, (uint32_t)nr), 1);
}

/* Names of frame i of stack rs: "func", "func (file.c:12)" with
 * --full-symbols, the inlined function first when there is one and room
 * for two; an unknown
 * address as "0x7f.. (libfoo.so)". ret: every frame is a return address
 * (else the first is where the sample was). */
static void frame_names(struct report *r, const struct stack_tab *t, const struct raw_stack *rs, uint32_t i,
			bool ret, const char **out, uint32_t room, int *nr)
{
	uint64_t addr = t->ips[rs->first + i], look = i || ret ? addr - 1 : addr;
	uint32_t pid = addr >= maps__kernel_start(r->maps) ? KERNEL_PID : rs->pid;
	struct code_loc loc;
	char buf[512], src[256];

	*nr = 0;
	if (!addr) {
		/* a null frame: nothing to name (its addr - 1 is the kernel's
		 * last byte, whose symbol it is not) */
		out[(*nr)++] = "[unknown]";
		return;
	}
	if (names__code(r->names, r->maps, pid, look, rs->time, &loc) && loc.func) {
		if (loc.inl_func && room > 1) {
			src[0] = '\0';
			if (r->opts.full_symbols)
				names__source_scnprintf(&loc, true, src, sizeof(src));
			scnprintf(buf, sizeof(buf), src[0] ? "%s (%s)" : "%s", loc.inl_func, src);
			out[(*nr)++] = strtab__intern(report__strs(r), buf, NULL);
		}
		src[0] = '\0';
		if (r->opts.full_symbols && !loc.inl_func)
			names__source_scnprintf(&loc, true, src, sizeof(src));
		else if (r->opts.full_symbols && loc.caller_file && loc.caller_line > 0)
			scnprintf(src, sizeof(src), "%s:%d", loc.caller_file, loc.caller_line);
		scnprintf(buf, sizeof(buf), src[0] ? "%s (%s)" : "%s", loc.func, src);
	} else {
		const struct map_desc *m = maps__find(r->maps, pid, look, rs->time);

		scnprintf(buf, sizeof(buf), m ? "%#" PRIx64 " (%s)" : "%#" PRIx64, addr,
			  m ? object_base_name(m->name) : "");
	}
	out[(*nr)++] = strtab__intern(report__strs(r), buf, NULL);
}

static uint32_t named_intern(struct report_cg *cg, const char **frames, uint32_t nr)
{
	uint32_t hash = (uint32_t)hash_bytes(frames, nr * sizeof(*frames), 3), i;
	size_t pos = htab__start(&cg->named_idx, hash);

	while ((i = htab__next(&cg->named_idx, hash, &pos)) != HTAB_NONE)
		if (cg->named[i].nr == nr && !memcmp(cg->frames + cg->named[i].first, frames, nr * sizeof(*frames)))
			return i;
	xgrow((void **)&cg->frames, &cg->alloc_frames, cg->nr_frames + nr, sizeof(*cg->frames));
	memcpy(cg->frames + cg->nr_frames, frames, nr * sizeof(*frames));
	xgrow((void **)&cg->named, &cg->alloc_named, cg->nr_named + 1, sizeof(*cg->named));
	cg->named[cg->nr_named] = (struct named_stack){ cg->nr_frames, nr };
	cg->nr_frames += nr;
	htab__insert(&cg->named_idx, pos, hash, (uint32_t)cg->nr_named);
	return (uint32_t)cg->nr_named++;
}

uint32_t stack_tab__names(struct report *r, const struct stack_tab *t, uint32_t id, bool ret, const char **out,
			  uint32_t max)
{
	const struct raw_stack *rs = &t->raw[id];
	uint32_t nr = 0;

	for (uint32_t f = 0; f < rs->nr && nr < max; f++) {
		int got;

		frame_names(r, t, rs, f, ret, out + nr, max - nr, &got);
		nr += (uint32_t)got;
	}
	return nr;
}

static void name_stacks(struct report *r)
{
	struct report_cg *cg = r->cg;
	const char *frames[CG_MAX_FRAMES];

	cg->raw_named = xcalloc(cg->raw->nr_raw ? cg->raw->nr_raw : 1, sizeof(*cg->raw_named));
	for (size_t i = 0; i < cg->raw->nr_raw; i++) {
		uint32_t nr = stack_tab__names(r, cg->raw, (uint32_t)i, false, frames, CG_MAX_FRAMES);

		cg->raw_named[i] = named_intern(cg, frames, nr);
	}
}

static int count_cmp(const void *pa, const void *pb)
{
	const struct cg_count *a = pa, *b = pb;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* A row's raw stacks into named ones, merged, most samples first. */
static void row_finish(struct report_cg *cg, struct cg_row *row)
{
	struct cg_row merged = { 0 };

	for (uint32_t i = 0; i < row->nr; i++)
		row_count(&merged, cg->raw_named[row->c[i].id], row->c[i].samples);
	free(row->c);
	row->c = merged.c;
	row->nr = merged.nr;
	row->alloc = merged.alloc;
	qsort(row->c, row->nr, sizeof(*row->c), count_cmp);
	row->chains = xcalloc(row->nr ? row->nr : 1, sizeof(*row->chains));
	for (uint32_t i = 0; i < row->nr; i++) {
		const struct named_stack *ns = &cg->named[row->c[i].id];

		row->chains[i] = (struct report_chain){ row->c[i].samples, ns->nr, cg->frames + ns->first };
	}
}

bool report__has_stacks(const struct report *r)
{
	for (size_t i = 0; i < r->nr_events; i++)
		if (r->events[i].has_addr && r->events[i].has_stack)
			return true;
	return false;
}

void report__callchains_start(struct report *r)
{
	report__callchains_free(r);
	if (r->opts.call_graph == REPORT_CG_OFF || !report__has_stacks(r))
		return;
	r->cg = xcalloc(1, sizeof(*r->cg));
	r->cg->raw = stack_tab__new();
}

void report__callchains_finish(struct report *r)
{
	if (!r->cg)
		return;
	name_stacks(r);
	for (size_t i = 0; i < r->cg->nr_rows; i++)
		row_finish(r->cg, &r->cg->rows[i]);
}

size_t report__row_chains(const struct report *r, const struct c2c_line *l, const struct c2c_row *row,
			  const struct report_chain **out, uint64_t *samples)
{
	const struct cg_row *cr = r->cg ? cg_row(r->cg, &l->key, row->offset, row->iaddr, row->tag, false) : NULL;

	*out = cr ? cr->chains : NULL;
	*samples = cr ? cr->samples : 0;
	return cr ? cr->nr : 0;
}

size_t report_chain__scnprintf(const struct report_chain *ch, char *buf, size_t size)
{
	size_t n = size ? scnprintf(buf, size, "%s", "") : 0;

	for (uint32_t f = 0; f < ch->nr_frames && n + 1 < size; f++)
		n += scnprintf(buf + n, size - n, "%s%s", f ? " <- " : "", ch->frames[f]);
	return n;
}

bool report__call_graph(const struct report *r)
{
	return r->cg != NULL;
}

void report__callchain_stats(const struct report *r, struct report_cg_stats *st)
{
	const struct unwind_stats *u = names__unwind_stats(r->names);

	*st = (struct report_cg_stats){ 0 };
	if (!r->cg)
		return;
	st->with_stack = r->cg->with_stack;
	st->without_stack = r->cg->without_stack;
	st->clipped = r->cg->st.clipped;
	st->distinct = r->cg->nr_named;
	if (u) {
		st->unwind_samples = u->samples;
		st->unwound = u->unwound;
		st->unwind_no_module = u->no_module;
		st->unwind_no_regs = u->no_regs + u->no_stack;
		st->unwind_fast = u->fast;
		st->unwind_checked = u->checked;
		st->unwind_mismatches = u->check_mismatches;
	}
}
