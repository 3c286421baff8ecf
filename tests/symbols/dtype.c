// SPDX-License-Identifier: GPL-2.0
/*
 * Forms the data-type tracker must follow (tests/unit/test_symbols.c,
 * test_dtype), built -O2 -g and -O0 -g at test time. Each function's
 * accesses have one expected type and member.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

struct node {
	long val;
	struct node *next;
	int tag;
};

struct pair {
	struct node a, b;
};

__thread struct node tls_node;

struct node *__attribute__((noinline)) dt_make(struct node *pool, int i)
{
	return &pool[i & 3];
}

/* a parameter in a register (DW_OP_reg5) */
void __attribute__((noinline)) dt_param(struct node *n)
{
	n->tag = 7;
}

/* a pointer member loaded, then dereferenced (tracked) */
long __attribute__((noinline)) dt_next(const struct node *n)
{
	return n->next->val;
}

/* a nested member through a pointer */
void __attribute__((noinline)) dt_nested(struct pair *p)
{
	p->b.tag = 1;
}

/* a call's return type types %rax */
void __attribute__((noinline)) dt_ret(struct node *pool)
{
	dt_make(pool, 2)->tag = 3;
}

/* a thread-local variable (%fs:offset) */
void __attribute__((noinline)) dt_tls(void)
{
	tls_node.val = 5;
}

/* a local struct in the frame */
long __attribute__((noinline)) dt_local(long v)
{
	volatile struct pair local;

	local.b.val = v;
	return local.b.val;
}

struct big {
	long a, b, c;
	int tag;
};

/* a struct returned in memory: built at the address %rdi brings */
struct big __attribute__((noinline)) dt_sret(long v)
{
	return (struct big){ .a = v, .c = v * 2, .tag = 3 };
}

/* noipa: its callers assume it clobbers every caller-saved register */
int __attribute__((noipa)) dt_opt(int i)
{
	return i % 11;
}

/* locals spilled to the frame, their first stores (the initialisations)
 * before the location ranges DWARF gives them */
int __attribute__((noinline)) dt_early(int n)
{
	int a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0, flag = 0;

	for (int i = 0; i < n; i++) {
		switch (dt_opt(i)) {
		case 1: a++; break;
		case 2: b++; break;
		case 3: c++; break;
		case 4: d++; break;
		case 5: e++; break;
		case 6: f++; break;
		case 7: g++; break;
		case 8: h++; break;
		case 9: flag = 1; break;
		}
	}
	return a * b + c * d + e * f + g * h + flag;
}

/* calls through the PLT: the callee's declaration, which the call site
 * names (DW_TAG_call_site), types %rax */
int __attribute__((noinline)) dt_plt(const time_t *t)
{
	return localtime(t)->tm_hour;
}

int __attribute__((noinline)) dt_errno(void)
{
	return errno;
}

struct ring {
	int head;
	long slot[8];
};

struct item {
	long key;
	int v;
};

struct table {
	int nr;
	struct item *items;
};

/* a pointer walking an array member (the paths into the loop disagree
 * on the offset: the element is unknown, the member is not) */
long __attribute__((noinline)) dt_walk(struct ring *r, int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += r->slot[i];
	return s;
}

/* an index scaled by a shift plus a pointer member (add mem, reg) */
int __attribute__((noinline)) dt_addmem(struct table *t, long i)
{
	return t->items[i].v;
}

/* a pointer walking a local array in the frame */
long __attribute__((noinline)) dt_fwalk(int n)
{
	long a[8], s = 0;

	for (int i = 0; i < 8; i++)
		a[i] = (long)i * n;
	__asm__ volatile("" : : "r"(a) : "memory");
	for (int i = 0; i < n && i < 8; i++)
		s += a[i];
	return s;
}

struct pt {
	long x, y;
};

struct poly {
	int nr;
	struct pt *pts;
};

/* an allocation (void *) stored into a typed pointer member, then used */
void __attribute__((noinline)) dt_store(struct poly *p, int n)
{
	p->pts = malloc((size_t)n * sizeof(*p->pts));
	p->pts[0].y = 1;
}

int main(void)
{
	struct node pool[4] = { { 0 } };
	struct pair p = { { 0 } };

	pool[0].next = &pool[1];
	dt_param(&pool[0]);
	dt_nested(&p);
	dt_ret(pool);
	dt_tls();
	return (int)(dt_next(&pool[0]) + dt_local(2) + dt_sret(4).tag) + dt_early(20) + dt_plt(&(time_t){ 0 }) +
	       dt_errno() + (int)dt_walk(&(struct ring){ 0 }, 3) +
	       dt_addmem(&(struct table){ 1, &(struct item){ 0 } }, 0) + (int)dt_fwalk(3) +
	       (dt_store(&(struct poly){ 0 }, 1), 0);
}
