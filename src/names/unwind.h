/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unwinding --call-graph dwarf samples (src/names/unwind.c): libdwfl's
 * unwinder over each sample's user registers and stack copy, one Dwfl per
 * process with modules found through the recording's mappings and the
 * symbolizer's object files.
 */
#ifndef C2CSCAN_UNWIND_H
#define C2CSCAN_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include "maps/maps.h"
#include "names/symbols.h"
#include "perfdata/perf_data.h"

struct unwinder;

struct unwind_stats {
	uint64_t samples;         /* asked for */
	uint64_t unwound;         /* got at least one caller */
	uint64_t no_regs;         /* no registers, or no pc/sp among them (or an arch we do not unwind) */
	uint64_t no_stack;        /* registers but an empty stack copy */
	uint64_t no_module;       /* the pc is in no object we could open */
	uint64_t fast;            /* unwound from the cached rules */
	uint64_t checked, check_mismatches; /* C2CSCAN_UNWIND_CHECK: fast answers compared */
};

/* arch: the recording's (pd_info.arch): x86_64 and aarch64 are unwound. */
struct unwinder *unwinder__new(struct symbols *syms, const char *arch);
void unwinder__delete(struct unwinder *u);

/* The user frames of sample s (pid s->pid, its mappings at time), innermost
 * first: ips[0] is the sample's pc, the others return addresses. At most
 * max. 0 when s has no usable registers; 1 when only the pc is known. */
size_t unwinder__user(struct unwinder *u, const struct maps *maps, const struct pd_sample *s, uint64_t time,
		      uint64_t *ips, size_t max);
const struct unwind_stats *unwinder__stats(const struct unwinder *u);

#endif
