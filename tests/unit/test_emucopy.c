// SPDX-License-Identifier: GPL-2.0
/*
 * The emulation runtime's own zeroing and copying (src/record/emu/copy.h)
 * against memset and memmove: every length up to 80, every alignment of
 * either end, copies that overlap forwards and backwards.
 */
#include <string.h>
#include "record/emu/copy.h"
#include "test.h"

#define AREA 256

static void fill(unsigned char *a, unsigned int seed)
{
	for (int i = 0; i < AREA; i++)
		a[i] = (unsigned char)(seed * 31u + (unsigned int)i * 7u + 1u);
}

int main(void)
{
	unsigned char got[AREA], want[AREA];
	unsigned int bad = 0;

	for (size_t n = 0; n <= 80; n++) {
		for (size_t d = 0; d < 24; d++) {
			for (size_t s = 0; s < 24; s++) {
				/* within one area: overlapping whenever |d - s| < n */
				fill(got, (unsigned int)(n + d + s));
				fill(want, (unsigned int)(n + d + s));
				emu_copy(got + 64 + d, got + 64 + s, n);
				memmove(want + 64 + d, want + 64 + s, n);
				bad += memcmp(got, want, AREA) != 0;
			}
			fill(got, (unsigned int)n);
			fill(want, (unsigned int)n);
			emu_zero(got + d, n);
			memset(want + d, 0, n);
			bad += memcmp(got, want, AREA) != 0;
		}
	}
	CHECK_EQ_U64(bad, 0);
	return test_done("test_emucopy");
}
