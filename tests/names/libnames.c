// SPDX-License-Identifier: GPL-2.0
/* The shared library of tests/names/names.c: a static array in its .bss. */
#define PAGE 4096

static long lib_table[1024] __attribute__((aligned(PAGE)));

__attribute__((noinline)) void lib_touch(int i)
{
	lib_table[i] = i;                               /* @lib */
}

long lib_peek(int i)
{
	return lib_table[i];
}
