/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Callers (callchain.c) and allocation stacks (allocstack.c) of the
 * report's rows and heap objects.
 */
#ifndef C2CSCAN_REPORT_CALLCHAIN_H
#define C2CSCAN_REPORT_CALLCHAIN_H

#include "report/report.h"

/* Callers of a row of the view, by identical stacks, innermost frame
 * first (report -g; callchain.c). */
struct report_chain {
	uint64_t samples;
	uint32_t nr_frames;
	const char *const *frames;  /* function names ("f (file.c:3)" with --full-symbols) */
};
/* The stacks of row of line l, most samples first, in *out (valid while
 * the report is); *samples: the row's samples that had a stack. 0 when none
 * (or call graphs are off). */
size_t report__row_chains(const struct report *r, const struct c2c_line *l, const struct c2c_row *row,
			  const struct report_chain **out, uint64_t *samples);
/* "touch <- helper <- via_beta <- main" (cut at size). */
size_t report_chain__scnprintf(const struct report_chain *ch, char *buf, size_t size);
/* The recording's memory events have stacks (callchains or stack copies). */
bool report__has_stacks(const struct report *r);
/* A heap object's allocation stack (heap_obj.stack; record --alloc -g):
 * function names from its site outwards, the wrappers included; 0 none. */
uint32_t report__alloc_stack(const struct report *r, uint32_t stack, const char *const **frames);
/* Call graphs are shown: the recording has stacks and they are not off. */
bool report__call_graph(const struct report *r);
struct report_cg_stats {
	uint64_t with_stack, without_stack; /* samples of events with stacks */
	uint64_t clipped;           /* stacks cut at 64 frames */
	uint64_t distinct;          /* distinct named stacks */
	uint64_t unwind_samples, unwound, unwind_no_module, unwind_no_regs;
	uint64_t unwind_fast;       /* unwound from cached CFI rules (the others by libdwfl) */
	uint64_t unwind_checked, unwind_mismatches; /* C2CSCAN_UNWIND_CHECK */
};
void report__callchain_stats(const struct report *r, struct report_cg_stats *st);

#endif
