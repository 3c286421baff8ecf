// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the JSON, pprof, HTML and patch writers (into
 * /dev/null; the HTML's time lines read the file again) over the report of
 * an in-memory file, loaded as fuzz_report loads it.
 */
#include "fuzz_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report *r = fuzz_load(data, size);
	char err[512];
	size_t changes;

	if (!r)
		return 0;
	report__fprintf_json(r, fuzz_null());
	report__write_pprof(r, "/dev/null", err, sizeof(err));
	report__write_html(r, "/dev/null", err, sizeof(err));
	report__write_patch(r, fuzz_null(), &changes);
	report__delete(r);
	return 0;
}
