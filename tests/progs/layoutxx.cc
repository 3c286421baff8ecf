// SPDX-License-Identifier: GPL-2.0
/*
 * layout.c's question for C++ (tests/cli/emulate-heap.sh): new[] of
 * per-thread structs of 24, 40, 64 and 96 bytes after a few unrelated
 * objects, an over-aligned new, a std::string and a std::vector; prints
 * each address modulo 64. Built bare and with -fsanitize=thread: under
 * record --emulate the numbers must be the bare build's.
 */
#include <cstdio>
#include <string>
#include <vector>

struct s24 { long a, b; int c; };
struct s40 { long a, b, c, d; int e; };
struct s64 { long v[8]; };
struct s96 { long v[12]; };
struct alignas(64) line { long v; };

static unsigned long m64(const void *p)
{
	return (unsigned long)p % 64;
}

int main()
{
	std::string *name = new std::string("a name long enough to be on the heap");
	std::vector<int> *ids = new std::vector<int>(5, 1);
	s24 *a24 = new s24[4];
	s40 *a40 = new s40[4];
	s64 *a64 = new s64[4];
	s96 *a96 = new s96[4];
	line *l = new line;

	std::printf("name %lu ids %lu s24 %lu s40 %lu s64 %lu s96 %lu line %lu\n", m64(name->data()),
		    m64(ids->data()), m64(a24), m64(a40), m64(a64), m64(a96), m64(l));
	delete l;
	delete[] a96;
	delete[] a64;
	delete[] a40;
	delete[] a24;
	delete ids;
	delete name;
	return 0;
}
