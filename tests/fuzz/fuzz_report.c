// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the report pipeline on an in-memory file -- header,
 * attrs, features, pipe mode, records, compressed records, the maps
 * timeline, keying, aggregation, verdicts, and the text renderer in the
 * input's own display mode and in mode 'all' (every line) when that is
 * another. The JSON, pprof
 * and HTML writers are fuzz_outputs': together they made each run three
 * times slower.
 */
#include "fuzz_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report *r = fuzz_load(data, size);

	if (!r)
		return 0;
	report__fprintf_stdio(r, fuzz_null());
	/* a recording of page faults (most seeds' descendants) is in mode
	 * 'all' already: rendering it again took a fifth of each run */
	if (report__mode(r) != C2C_DISPLAY_ALL) {
		report__set_mode(r, C2C_DISPLAY_ALL);
		report__fprintf_stdio(r, fuzz_null());
	}
	report__delete(r);
	return 0;
}
