// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation stacks (record --alloc with -g or --call-graph): the shim, or
 * report for the allocator probes' samples, follows each allocation with
 * PD_ALLOC_FRAMES events holding the callers above its site. Here each
 * allocation's site moves past the allocator wrappers (operator new,
 * xmalloc, g_malloc, strdup, and --alloc-wrapper's) to the first frame
 * outside them, its whole stack is kept (interned: a program has few
 * distinct allocation stacks) for JSON, and the FRAMES events leave the
 * list, so that the heap (maps/heap.c) sees allocations and frees only.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "names/names.h"
#include "report/callchain.h"
#include "report/report_int.h"
#include "util/htab.h"
#include "util/util.h"

#define ALLOC_STACK_MAX 64      /* frames: the site and the callers above it */

/* Functions that only pass an allocation on: the object belongs to their
 * caller. Demangled C++ names match without their parameters. */
static const char *const default_wrappers[] = {
	"operator new", "operator new[]", "xmalloc", "xcalloc", "xrealloc", "xzalloc", "xmemdup",
	"xstrdup", "xstrndup", "g_malloc", "g_malloc0", "g_realloc", "g_try_malloc", "g_try_malloc0",
	"g_malloc_n", "g_malloc0_n", "g_realloc_n", "g_memdup", "g_memdup2", "g_strdup", "g_strndup",
	"strdup", "strndup", "__strdup", "__strndup", "asprintf", "vasprintf", "__vasprintf_internal",
};

/* name is pattern: equal, or equal up to '(' (C++ parameters), or pattern
 * ends with '*' and is a prefix. */
static bool name_matches(const char *name, const char *pat)
{
	size_t n = strlen(pat);

	if (n && pat[n - 1] == '*')
		return !strncmp(name, pat, n - 1);
	return !strncmp(name, pat, n) && (!name[n] || name[n] == '(');
}

static bool is_wrapper(const struct report *r, const char *func)
{
	for (size_t i = 0; i < ARRAY_SIZE(default_wrappers); i++)
		if (name_matches(func, default_wrappers[i]))
			return true;
	for (int i = 0; i < r->opts.nr_alloc_wrappers; i++)
		if (name_matches(func, r->opts.alloc_wrappers[i]))
			return true;
	return false;
}

/* The first frame outside the wrappers (frames are return addresses: named
 * at the call, address - 1). A frame no function names is the caller when
 * it lies in mapped code (a static function without a symbol: its address
 * is the site, not the wrapper's); else it ends the walk at the last named
 * one (a frame-pointer chain through code without frame pointers continues
 * with garbage). */
static uint64_t first_outside(struct report *r, uint32_t pid, uint64_t time, const uint64_t *f, uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++) {
		struct code_loc loc;

		if (!names__code(r->names, r->maps, pid, f[i] - 1, time, &loc) || !loc.func) {
			const struct map_desc *m = maps__find(r->maps, pid, f[i] - 1, time);

			return m && (!m->v2 || (m->prot & PROT_EXEC)) ? f[i] : f[i ? i - 1 : 0];
		}
		/* an inlined wrapper leaves the call where it was inlined */
		if (!is_wrapper(r, loc.func))
			return f[i];
		r->alloc_wrapped++;
	}
	return f[nr - 1];
}

/* The allocations the reader holds are not ours to change: a copy. */
static void own_events(struct report *r)
{
	const struct pd_alloc *in = r->allocs;

	if (in == &r->alloc)
		return;
	r->alloc.ev = xmalloc((in->nr ? in->nr : 1) * sizeof(*r->alloc.ev));
	memcpy(r->alloc.ev, in->ev, in->nr * sizeof(*r->alloc.ev));
	r->alloc.nr = in->nr;
	r->allocs = &r->alloc;
}

struct pending_stack {
	uint64_t alloc;         /* index of the allocation (kept events) */
	uint32_t nr;
	uint64_t f[ALLOC_STACK_MAX];
};

static void finish_stack(struct report *r, struct pending_stack *p)
{
	struct pd_alloc_event *e = &r->alloc.ev[p->alloc];

	if (p->nr > 1) {
		e->reserved = stack_tab__intern(r->alloc_stacks, e->pid, e->time, p->f, p->nr) + 1;
		e->site = first_outside(r, e->pid, e->time, p->f, p->nr);
	}
	p->nr = 0;
}

static void name_alloc_stacks(struct report *r)
{
	size_t n = stack_tab__nr(r->alloc_stacks);
	const char *frames[ALLOC_STACK_MAX];

	r->alloc_stack_at = xcalloc(n + 1, sizeof(*r->alloc_stack_at));
	for (size_t i = 0; i < n; i++) {
		uint32_t nr = stack_tab__names(r, r->alloc_stacks, (uint32_t)i, true, frames, ALLOC_STACK_MAX);

		xgrow((void **)&r->alloc_stack_names, &r->alloc_stack_alloc, r->alloc_stack_at[i] + nr + 1,
		      sizeof(*r->alloc_stack_names));
		memcpy(r->alloc_stack_names + r->alloc_stack_at[i], frames, nr * sizeof(*frames));
		r->alloc_stack_at[i + 1] = r->alloc_stack_at[i] + nr;
	}
}

void report__alloc_stacks(struct report *r)
{
	struct pending_stack *pend = NULL;
	size_t nr_pend = 0, alloc_pend = 0;
	struct u64map by_tid = { 0 };
	uint64_t kept = 0, idx;
	bool any = false;

	for (uint64_t i = 0; i < r->allocs->nr && !any; i++)
		any = r->allocs->ev[i].kind == PD_ALLOC_FRAMES;
	if (!any)
		return;
	own_events(r);
	r->alloc_stacks = stack_tab__new();
	for (uint64_t i = 0; i < r->alloc.nr; i++) {
		struct pd_alloc_event e = r->alloc.ev[i];
		uint64_t key = (uint64_t)e.pid << 32 | e.tid;
		struct pending_stack *p;

		if (e.kind != PD_ALLOC_FRAMES) {
			e.reserved = 0;
			r->alloc.ev[kept] = e;
			if (e.kind == PD_ALLOC_ALLOC) {
				if (u64map__get(&by_tid, key, &idx)) {
					finish_stack(r, &pend[idx]);
				} else {
					xgrow((void **)&pend, &alloc_pend, nr_pend + 1, sizeof(*pend));
					idx = nr_pend++;
					u64map__put(&by_tid, key, idx);
				}
				pend[idx].alloc = kept;
				pend[idx].f[0] = e.site;
				pend[idx].nr = 1;
			}
			kept++;
			continue;
		}
		/* callers of this thread's last allocation; none pending: stray */
		if (!u64map__get(&by_tid, key, &idx) || !pend[idx].nr || !e.fn || e.fn > PD_ALLOC_FRAMES_MAX) {
			r->alloc_stray_frames++;
			continue;
		}
		p = &pend[idx];
		for (uint16_t k = 0; k < e.fn && p->nr < ALLOC_STACK_MAX; k++)
			p->f[p->nr++] = pd_alloc__frame(&e, k);
	}
	for (size_t i = 0; i < nr_pend; i++)
		if (pend[i].nr)
			finish_stack(r, &pend[i]);
	r->alloc.nr = kept;
	u64map__exit(&by_tid);
	free(pend);
	name_alloc_stacks(r);
}

uint32_t report__alloc_stack(const struct report *r, uint32_t stack, const char *const **frames)
{
	*frames = NULL;
	if (!stack || !r->alloc_stacks || stack > stack_tab__nr(r->alloc_stacks))
		return 0;
	*frames = r->alloc_stack_names + r->alloc_stack_at[stack - 1];
	return (uint32_t)(r->alloc_stack_at[stack] - r->alloc_stack_at[stack - 1]);
}
