/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Heap objects over time, per process, from the allocation events of
 * record --alloc (perfdata/alloc.h), beside the maps timeline and on the
 * same timeline module: "which object held ADDR in process PID at TIME?"
 *
 * Decisions the events leave open:
 * - Events are replayed per pid in time order (a thread's own order kept on
 *   equal stamps); a realloc is a free and an allocation at one instant.
 * - A free ends its object; its bytes then read as the freed object (a
 *   sample there touched freed memory) until another object covers them.
 * - An allocation over a live object replaces what it covers: a user
 *   allocator's object (--alloc-fn) inside a C library one (its arena) is
 *   the innermost object; between objects of one kind it is a lost free,
 *   counted as an overlap; a free of no live object's start is unmatched;
 *   sizes past 2^47 or wrapping are skipped and counted.
 * - A forked process starts with its parent's objects live at the fork (a
 *   child frees them, writes them: they are named), when the parent is known
 *   (parents are replayed before their children).
 * - A mapping made over a freed range ends it (the range is no longer the
 *   freed object's); live objects stay.
 * - A zero-size allocation (malloc(0), calloc(0, n), realloc(NULL, 0)) is
 *   valid: it is counted among the allocations (and in zero_size) and its
 *   free matches it, but it holds no byte a sample could touch.
 * Never prints.
 */
#ifndef C2CSCAN_HEAP_H
#define C2CSCAN_HEAP_H

#include <stdbool.h>
#include <stdint.h>
#include "perfdata/perf_data.h"

struct heap;

/* One object; lives as long as the struct heap. */
struct heap_obj {
	uint64_t addr, size;
	uint64_t site;          /* return address into the allocating function */
	uint64_t time;          /* of the allocation */
	uint64_t freed_at;      /* of its free; 0 while it was never freed */
	uint32_t pid, tid;      /* that allocated it (a forked child's copy: its parent) */
	uint16_t fn;            /* enum pd_alloc_fn */
	bool freed;             /* this is the object's range after its free */
	uint32_t id;            /* one per allocation (its freed range shares it) */
	uint32_t key;           /* this object or freed range, for heap__obj (never 0) */
	uint32_t stack;         /* the allocation event's reserved word: report's stack id */
};

struct heap_stats {
	uint64_t events, allocs, frees;
	uint64_t unmatched_frees, absurd, overlaps;  /* the events that make no sense */
	uint64_t zero_size;     /* valid allocations of 0 bytes, among allocs */
	uint64_t processes;
	uint64_t fork_copies, fork_copies_dropped;     /* objects children inherited */
};

/* A process made by fork() at time: it starts with the objects its parent
 * had live then (copy-on-write copies, at the same addresses). */
struct heap_fork {
	uint32_t pid, ppid;
	uint64_t time;
};
#define HEAP_MAX_FORKS (1u << 20)
/* Objects copied into forked children at most, in all; past it children
 * start empty (counted in fork_copies_dropped). */
#define HEAP_MAX_FORK_COPIES (1u << 24)

/* A mapping made in pid at time (the recording's MMAP records). */
struct heap_mmap {
	uint32_t pid;
	uint64_t start, end, time;
};
#define HEAP_MAX_MMAPS (1u << 22)

/* What else the recording says of the processes' memory. */
struct heap_side {
	const struct heap_fork *forks;
	size_t nr_forks;
	const struct heap_mmap *mmaps;
	size_t nr_mmaps;
};

struct heap *heap__new(const struct pd_alloc_event *ev, uint64_t nr, const struct heap_side *side);
void heap__delete(struct heap *h);
/* The object (or freed range) holding addr in pid at time, or NULL. */
const struct heap_obj *heap__find(const struct heap *h, uint32_t pid, uint64_t addr, uint64_t time);
/* The object that held addr next, after the one holding it at time (the
 * one that replaced a freed range), or NULL. */
const struct heap_obj *heap__next_at(const struct heap *h, uint32_t pid, uint64_t addr, uint64_t time);
/* a and b were allocated at the same time, one before the other's free
 * (the same allocation, or its freed range, included). */
static inline bool heap_obj__coexist(const struct heap_obj *a, const struct heap_obj *b)
{
	uint64_t end_a = a->freed_at ? a->freed_at : UINT64_MAX, end_b = b->freed_at ? b->freed_at : UINT64_MAX;

	return a->id == b->id || (a->time < end_b && b->time < end_a);
}
/* The object of a key (heap_obj.key), or NULL. */
const struct heap_obj *heap__obj(const struct heap *h, uint32_t key);
const struct heap_stats *heap__stats(const struct heap *h);

#endif
