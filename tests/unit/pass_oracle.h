/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One reader's pass against another's over the same file (test_reader,
 * fuzz_reader): a side-band pass that a skim or the file's index shortened
 * against a plain walk, or two whole passes. Both must meet the same
 * records (kind, offset, ordinal, size, attr, a COMM's name, a sample's
 * ip), end the same way and with the same error.
 */
#ifndef C2CSCAN_PASS_ORACLE_H
#define C2CSCAN_PASS_ORACLE_H

#include <stdbool.h>
#include <string.h>
#include "perfdata/reader.h"

/* Two readers of path; false (none open) when it does not open. */
static inline bool pass_oracle_open(const char *path, struct pd_reader **a, struct pd_reader **b)
{

	if (pd_reader__open(a, path, NULL) < 0)
		return false;
	if (pd_reader__open(b, path, NULL) < 0) {
		pd_reader__delete(*a);
		return false;
	}
	return true;
}

/* Reads a and b to the end of their pass or to their first difference;
 * *ra, *rb: their last answers. */
static inline bool pass_oracle_same(struct pd_reader *a, struct pd_reader *b, int *ra, int *rb)
{
	struct pd_event ea, eb;

	for (;;) {
		*ra = pd_reader__next(a, &ea);
		*rb = pd_reader__next(b, &eb);
		if (*ra != *rb || *ra <= 0)
			break;
		if (ea.kind != eb.kind || ea.offset != eb.offset || ea.seq != eb.seq || ea.size != eb.size ||
		    ea.attr_idx != eb.attr_idx || (ea.kind == PD_COMM && strcmp(ea.u.comm.comm, eb.u.comm.comm)) ||
		    (ea.kind == PD_SAMPLE && ea.u.sample.ip != eb.u.sample.ip))
			return false;
	}
	return *ra == *rb && !strcmp(pd_reader__strerror(a), pd_reader__strerror(b));
}

#endif
