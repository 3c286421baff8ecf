// SPDX-License-Identifier: GPL-2.0
/* C++ allocations for record --alloc (tests/cli/alloc.sh): operator new,
 * new[], aligned new, each from its own function, touched page by page at
 * byte k * 4096 + 8 as heapobj.c does. */
#include <cstddef>
#include <cstdio>
#include <new>

#define PG 4096
#define SZ (64 * PG)

struct alignas(64) big {
	char b[SZ];
};

static void *volatile keep[4];

__attribute__((noinline)) void touch(char *p, int pages)
{
	for (int k = 1; k < pages; k++)
		p[(size_t)k * PG + 8] = 1;
}

/* C++ names: the report shows them demangled */
namespace heap {
__attribute__((noinline)) char *make_new_array() { return new char[SZ]; }
__attribute__((noinline)) big *make_new_object() { return new big; }
__attribute__((noinline)) big *make_new_aligned() { return new (std::align_val_t(4096)) big; }
}

int main()
{
	char *a = heap::make_new_array();
	big *b = heap::make_new_object(), *c = heap::make_new_aligned();

	touch(a, 8);
	touch(b->b, 8);
	touch(c->b, 8);
	keep[0] = a;
	keep[1] = b;
	keep[2] = c;
	std::printf("obj heap::make_new_array() operator_new[] %d 8\n", SZ);
	std::printf("obj heap::make_new_object() operator_new %d 8\n", SZ);
	std::printf("obj heap::make_new_aligned() operator_new %d 8\n", SZ);
	delete[] a;
	delete b;
	::operator delete(c, std::align_val_t(4096));
	return 0;
}
