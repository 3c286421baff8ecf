/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pd_reader__next_fixed against pd_reader__next (test_reader, fuzz_reader):
 * two readers over the same bytes, one asking for runs of fixed-layout
 * samples and for events when there are none, the other for events only.
 * Both must yield the same samples, with the same ordinals, the same other
 * records, the same counters and the same error.
 */
#ifndef C2CSCAN_FIXED_ORACLE_H
#define C2CSCAN_FIXED_ORACLE_H

#include <stdint.h>
#include <string.h>
#include "perfdata/reader.h"

static inline bool fixed_oracle_same(const struct pd_sample_core *x, const struct pd_sample_core *y)
{
	return x->seq == y->seq && x->ip == y->ip && x->addr == y->addr && x->time == y->time &&
	       x->period == y->period && x->weight == y->weight && x->data_src == y->data_src &&
	       x->pid == y->pid && x->tid == y->tid && x->cpu == y->cpu && x->attr_idx == y->attr_idx &&
	       x->cpumode == y->cpumode;
}

/* a: events only; b: runs of at most steps[i] samples (cycling through
 * steps, each >= 1). The samples b gave as runs, or -1 at the first
 * difference. */
static inline long fixed_oracle(struct pd_reader *a, struct pd_reader *b, const uint8_t *steps, size_t nr_steps)
{
	struct pd_sample_core run[256], ca;
	struct pd_event ea, eb;
	long fixed = 0;
	int ra, rb;

	for (size_t k = 0;; k++) {
		size_t n = pd_reader__next_fixed(b, run, steps[k % nr_steps] ? steps[k % nr_steps] : 1);

		for (size_t i = 0; i < n; i++) {
			if (pd_reader__next(a, &ea) != 1 || ea.kind != PD_SAMPLE)
				return -1;
			pd_sample_core__of(&ca, &ea);
			if (!fixed_oracle_same(&ca, &run[i]))
				return -1;
		}
		fixed += (long)n;
		if (n)
			continue;
		ra = pd_reader__next(a, &ea);
		rb = pd_reader__next(b, &eb);
		if (ra != rb)
			return -1;
		if (ra <= 0)
			break;
		if (ea.kind != eb.kind || ea.seq != eb.seq || ea.offset != eb.offset || ea.size != eb.size ||
		    ea.attr_idx != eb.attr_idx)
			return -1;
		if (ea.kind == PD_SAMPLE) {
			struct pd_sample_core cb;

			pd_sample_core__of(&ca, &ea);
			pd_sample_core__of(&cb, &eb);
			if (!fixed_oracle_same(&ca, &cb))
				return -1;
		}
	}
	if (memcmp(pd_reader__stats(a), pd_reader__stats(b), sizeof(struct pd_reader_stats)) ||
	    strcmp(pd_reader__strerror(a), pd_reader__strerror(b)))
		return -1;
	return fixed;
}

#endif
