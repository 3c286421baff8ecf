// SPDX-License-Identifier: GPL-2.0
/*
 * Thread-local variables of a shared library (tests/unit/test_symbols.c,
 * test_dtype_dso), built -O2 -g -shared -fPIC at test time: general dynamic (an
 * exported variable) and local dynamic (a static one), both through
 * __tls_get_addr on x86-64, through TLS descriptors on aarch64.
 */
struct node {
	long val;
	struct node *next;
	int tag;
};

__thread struct node gd_node;
static __thread struct node ld_node[2];

void __attribute__((noinline)) dt_gd(void)
{
	gd_node.tag = 5;
}

long __attribute__((noinline)) dt_ld(int i)
{
	ld_node[1].val += i;
	return ld_node[0].tag;
}
