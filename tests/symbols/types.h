/* SPDX-License-Identifier: GPL-2.0 */
/* Data types the naming tests name members of (tests/symbols/prog.c and
 * tests/names/names.c): a struct whose fields share one line, and a struct
 * that an array is made of. */
#ifndef C2CSCAN_TEST_TYPES_H
#define C2CSCAN_TEST_TYPES_H

struct counters { int a, b; long c; short d[3]; };      /* fields on one line */

struct arg {
	int SX;
	int SY;
	char tag[8];
};

#endif
