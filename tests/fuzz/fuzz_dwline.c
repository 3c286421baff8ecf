// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: src/names/dwline.c, the line table decoder.
 * First byte even: the bytes drive the random table generator of
 *   tests/unit/dwline_oracle.h and libdw must agree with dwline on which
 *   tables are valid and on every answer (a disagreement aborts).
 * First byte odd: the bytes are a .debug_line section as they come, in
 *   either byte order, with both address sizes: dwline must refuse or decode
 *   them without a fault, a leak, or a hang.
 */
#include <stdint.h>
#include <stdlib.h>

#include "../unit/dwline_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void raw(const uint8_t *data, size_t size, uint8_t mode)
{
	struct dwline_sections sec = { data, data, data, size, size, size, mode & 2 };
	struct dwline *t = NULL;

	if (dwline__new(&t, &sec, 0, mode & 4 ? "/cd" : NULL, mode & 8 ? 4 : 8))
		return;
	for (uint64_t a = 0; a < 0x2000; a += 0x3f) {
		const char *file = NULL;
		int line = 0;

		if (!dwline__find(t, a, &file, &line))
			sink += (uint64_t)line + (file ? (uint8_t)file[0] : 0);
	}
	for (size_t i = 0; i < dwline__nr_files(t) + 1; i++)
		sink += dwline__file(t, i) != NULL;
	dwline__delete(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lt_src r;
	struct lt_unit u = { 0 };
	struct lt_result res;

	if (!size)
		return 0;
	if (data[0] & 1) {
		raw(data + 1, size - 1, data[0]);
		return 0;
	}
	r = (struct lt_src){ data + 1, size - 1, 0x9e3779b97f4a7c15ULL ^ size };
	lt_generate(&r, &u);
	res = lt_compare(&u, &r);
	lt_unit_free(&u);
	if (res.mismatches)
		abort();
	return 0;
}
