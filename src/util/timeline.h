/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A timeline: values valid over address ranges for time intervals
 * [t_begin, t_end), in one address space. The maps of a process are one
 * (src/maps/maps.c); heap objects will be another.
 *
 * Two phases. Building, in time order: timeline__map() puts a value over
 * [start, end) from a time on, ending (and cutting, through the owner's cut
 * function) whatever it overlapped; the live values are kept in a treap by
 * start address and can be walked in address order (timeline_iter).
 * timeline__finalize() then drops the building state and builds a centered
 * interval tree: at any instant the live ranges are disjoint, so the entries
 * are disjoint rectangles in the (address, time) plane, and the entries of
 * one tree node (all containing its center) are disjoint in time: one binary
 * search by t_begin finds a node's only candidate. A query visits O(log n)
 * nodes; memory is O(entries).
 *
 * Never prints. The values are the owner's; the timeline keeps pointers.
 */
#ifndef C2CSCAN_TIMELINE_H
#define C2CSCAN_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TIMELINE_INF UINT64_MAX

/* One value over its lifetime; read-only for users, valid while the
 * timeline lives (pointers from lookups stay valid after finalize). */
struct tl_entry {
	uint64_t start, end;
	uint64_t t_begin, t_end;
	const void *val;
};

/* The part [start, end) of val, when a later value cuts it: the same val
 * when it still covers exactly that, else a new one the owner keeps. */
typedef const void *(*timeline_cut_fn)(void *ctx, const void *val, uint64_t start, uint64_t end);

struct timeline;

struct timeline *timeline__new(timeline_cut_fn cut, void *ctx);
void timeline__delete(struct timeline *t);

/* Building. val over [start, end) from time on: the values it overlaps end
 * at time, the parts of them outside [start, end) go on as cut values.
 * Returns the number of entries added (at most 3). */
size_t timeline__map(struct timeline *t, uint64_t start, uint64_t end, uint64_t time, const void *val);
/* The live entry holding addr (building phase), or NULL. */
const struct tl_entry *timeline__live_find(const struct timeline *t, uint64_t addr);
/* The live entry holding addr, else the one of lowest start above it
 * (building phase), or NULL. */
const struct tl_entry *timeline__live_next(const struct timeline *t, uint64_t addr);
/* Every live value ends at time. */
void timeline__end_all(struct timeline *t, uint64_t time);

/* The live values in address order (building phase). */
struct timeline_iter {
	const struct timeline *t;
	uint32_t *stack, cur;
	size_t nr, alloc;
	uint32_t inl[64];
};
void timeline_iter__init(struct timeline_iter *it, const struct timeline *t);
const struct tl_entry *timeline_iter__next(struct timeline_iter *it);
void timeline_iter__exit(struct timeline_iter *it);

/* Ends building: no more map/end_all/iterators; lookups may start. */
void timeline__finalize(struct timeline *t);

/* The entry holding addr at time, or NULL (after finalize). */
const struct tl_entry *timeline__find(const struct timeline *t, uint64_t addr, uint64_t time);
/* Entries: while building, all made so far; after finalize, those that were
 * ever live (an entry replaced at the instant it began is dropped). */
size_t timeline__nr_entries(const struct timeline *t);

#endif
