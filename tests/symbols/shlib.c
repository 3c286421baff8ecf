// SPDX-License-Identifier: GPL-2.0
/* Shared library of the symbolizer test program: a static and a function. */
static long lib_counter[4] = { 1, 2, 3, 4 };

long *shlib_static_addr(void);
void *shlib_func_addr(void);
void *shlib_code_addr(void);

long *shlib_static_addr(void)
{
	return &lib_counter[2];
}

__attribute__((noinline)) int shlib_work(int x)
{
	return x * 3 + (int)lib_counter[0];
}

void *shlib_func_addr(void)
{
	return (void *)shlib_work;
}

__attribute__((noinline)) void *shlib_code_addr(void)
{
	return __builtin_return_address(0) ? (void *)((char *)shlib_work + 4) : 0;
}
