/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What fuzz_report and fuzz_outputs share: an in-memory file loaded as a
 * report that names from what the input carries only. No object, debug
 * info, kallsyms or perf map of this machine is read (each run opened and
 * indexed the real binaries the seeds map, and memory grew with what they
 * held), nor the build-id cache (~/.debug, where record keeps copies of the
 * objects of this machine's recordings): naming real objects is the unit
 * tests' (test_symbols, on binaries built for them) and fuzz_dwline's.
 */
#ifndef C2CSCAN_FUZZ_LOAD_H
#define C2CSCAN_FUZZ_LOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "report/output.h"
#include "report/report.h"

/* The report of data, or NULL when the input is refused. */
static struct report *fuzz_load(const uint8_t *data, size_t size)
{
	static bool ready;
	struct report_opts o = { .input = "fuzz", .show_all = true, .patch_latent = true,
				 .names = { .symfs = "/nonexistent-symfs", .no_debuginfod = true,
					    .kallsyms = "/nonexistent-kallsyms", .perf_map_dir = "/nonexistent-maps" } };
	struct pd_reader *rd;
	struct report *r;

	if (!ready) {
		setenv("HOME", "/nonexistent-home", 1);
		ready = true;
	}
	if (pd_reader__open_mem(&rd, data, size, "fuzz", NULL) < 0)
		return NULL;
	if (report__load_reader(&r, rd, &o, NULL) < 0)
		return NULL;
	return r;
}

/* /dev/null, opened once. */
static FILE *fuzz_null(void)
{
	static FILE *null;

	if (!null)
		null = fopen("/dev/null", "w");
	return null;
}

#endif
