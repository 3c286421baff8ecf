// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the JSON, pprof, HTML and patch writers (into
 * /dev/null; the HTML's time lines read the file again; the patch with its
 * latent pairs) over the report of an in-memory file, loaded as
 * fuzz_report loads it.
 */
#include "fuzz_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report *r = fuzz_load(data, size);
	size_t changes;

	if (!r)
		return 0;
	report__fprintf_json(r, fuzz_null());
	report__write_pprof(r, "/dev/null");
	report__write_html(r, "/dev/null");
	report__write_patch(r, fuzz_null(), &changes);
	report__delete(r);
	return 0;
}
