// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the whole report pipeline on an in-memory file --
 * header, attrs, features, pipe mode, records, compressed records, the maps
 * timeline, keying, aggregation, both text renderers, and the pprof and
 * HTML writers (into /dev/null; the HTML's time lines read the file again).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "report/output.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	/* names from what the input carries only: no object, debug info,
	 * kallsyms or perf map of this machine is read (each run opened and
	 * indexed the real binaries the seeds map, and memory grew with what
	 * they held); naming real objects is the unit tests' (test_symbols,
	 * on binaries built for them) and fuzz_dwline's */
	struct report_opts o = { .input = "fuzz", .out = REPORT_OUT_STDIO, .show_all = true,
				 .names = { .symfs = "/nonexistent-symfs", .no_debuginfod = true,
					    .kallsyms = "/nonexistent-kallsyms", .perf_map_dir = "/nonexistent-maps" } };
	struct pd_reader *rd;
	struct report *r;
	char err[512];

	if (!null) {
		null = fopen("/dev/null", "w");
		/* nor the build-id cache (~/.debug), where record keeps copies
		 * of the objects of this machine's recordings */
		setenv("HOME", "/nonexistent-home", 1);
	}
	if (pd_reader__open_mem(&rd, data, size, "fuzz", err, sizeof(err)) < 0)
		return 0;
	if (report__load_reader(&r, rd, &o, err, sizeof(err)) < 0)
		return 0;
	report__fprintf_stdio(r, null);
	report__fprintf_json(r, null);
	report__write_pprof(r, "/dev/null", err, sizeof(err));
	report__write_html(r, "/dev/null", err, sizeof(err));
	report__set_mode(r, C2C_DISPLAY_ALL);
	report__fprintf_stdio(r, null);
	report__delete(r);
	return 0;
}
