// SPDX-License-Identifier: GPL-2.0
/*
 * Data types: what the memory operand of a sampled instruction points at.
 *
 * The instruction's operand (capstone) names a base register, an index, a
 * displacement. Which object the base register points to comes from the
 * function's DWARF and code, worked out once per function range and cached
 * per instruction:
 *
 *  - variables and parameters whose location at an address is a register
 *    (DW_OP_regN, or DW_OP_bregN k; DW_OP_stack_value: the register holds
 *    the value minus k) type that register there (a void * one does not
 *    untype a register holding a typed pointer); pointers located by
 *    DW_OP_entry_value(DW_OP_regN) type register N at the entry;
 *  - between those places, a forward data flow over the decoded
 *    instructions (every branch inside the range followed, states met at
 *    joins: a register keeps a type only where every path agrees) carries
 *    the types through moves, lea, constant adds, loads of pointer members,
 *    spills to the stack and back, sums of an index and a loaded pointer,
 *    untyped pointers stored into typed ones (an allocation's result: the
 *    call is then typed, and the flow runs again for the accesses before
 *    the store), and
 *    drops them at calls (caller-saved registers; the callee's return type,
 *    from its DWARF or its call site's for calls through the PLT, types
 *    %rax) and at any other write; pointers the paths disagree on inside
 *    one type or the frame walk an array there (element unknown);
 *  - the stack pointer and the frame pointer are tracked as offsets from
 *    the CFA (seeded from the CFI at the range's start), so an access
 *    through them finds the local variable the frame base (DW_OP_fbreg) or
 *    a register (DW_OP_bregN) locates there;
 *  - %rip-relative and absolute operands, and what aarch64's adrp and add
 *    build, are globals (DW_OP_addr); a load from a .got slot gives the
 *    address it holds (of something the object defines); %fs
 *    operands (and registers loaded from %fs:0) thread-local variables of
 *    an executable (the TLS block's offset from the thread pointer), what
 *    __tls_get_addr returns for a tls_index GOT pair a shared library's
 *    (general and local dynamic: the pair's DTPOFF is the block offset);
 *    at and above x86-64's thread pointer (below aarch64's) glibc's
 *    struct pthread, where the object's DWARF defines it (the C library);
 *  - a load from a .got slot of another object's variable gives a pointer
 *    to the type this object's DWARF declares it with.
 *
 * Code assembled from hand-written assembly (its CU's language) has no
 * types: what fails there is DT_ASM; reads of .got slots themselves,
 * DT_GOT.
 *
 * x86-64 (dtype_x86.c) and aarch64 (dtype_a64.c) are followed; those
 * files turn one instruction into a change of state (dtype_int.h), the
 * rest is theirs in common. Other instruction sets: DT_ARCH.
 */
#include <capstone.h>
#include <dwarf.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "names/dtype_int.h"


const char *type_source__name(enum type_source t)
{
	static const char *const n[] = { NULL, "symbol", "variable", "tracked", "heap" };

	return (unsigned)t < sizeof(n) / sizeof(n[0]) ? n[t] : NULL;
}

const char *dtype_reason__name(enum dtype_reason r)
{
	static const char *const n[DT_NR] = {
		[DT_OK] = "typed",
		[DT_NO_CODE] = "no code bytes or undecodable",
		[DT_NO_MEM] = "no memory operand",
		[DT_NO_DWARF] = "no DWARF subprogram",
		[DT_ARCH] = "architecture not tracked",
		[DT_UNTYPED_REG] = "base register of unknown type",
		[DT_NO_POINTEE] = "pointer to void or incomplete type",
		[DT_STACK_SLOT] = "stack slot without a variable",
		[DT_NO_GLOBAL] = "fixed address without a DWARF variable",
		[DT_TLS] = "thread-local access not resolved",
		[DT_ABSOLUTE] = "no base register",
		[DT_TCB] = "thread control block or descriptor, no type for it in the DWARF (stack protector canary)",
		[DT_ASM] = "hand-written assembly (no types in its DWARF)",
		[DT_GOT] = ".got slot (the linker's, no source type)",
	};

	return (unsigned)r < DT_NR ? n[r] : "?";
}

/* ---- DWARF ---- */

static uint32_t die_intern(struct dt *c, Dwarf_Die *d)
{
	uint64_t off = dwarf_dieoffset(d), idx;
	Dwarf_Word size;

	if (u64map__get(&c->die_idx, off, &idx))
		return (uint32_t)idx;
	xgrow((void **)&c->dies, &c->alloc_dies, c->nr_dies + 1, sizeof(*c->dies));
	xgrow((void **)&c->sizes, &c->alloc_sizes, c->nr_dies + 1, sizeof(*c->sizes));
	c->dies[c->nr_dies] = *d;
	if (dwarf_aggregate_size(d, &size))
		size = 0;
	c->sizes[c->nr_dies] = size;
	u64map__put(&c->die_idx, off, c->nr_dies);
	return (uint32_t)c->nr_dies++;
}

/* typedefs, const, volatile and restrict peeled off */
static bool peel(Dwarf_Die *t, Dwarf_Die *out)
{
	*out = *t;
	for (int i = 0; i < MAX_TYPE_DEPTH; i++) {
		int tag = dwarf_tag(out);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type)
			return true;
		if (!die_type(out, out))
			return false;
	}
	return false;
}

/* The type type points to (pointers and references), in *to; false when
 * type is not a pointer; *to stays unset for void. */
static bool pointee(Dwarf_Die *type, Dwarf_Die *to, bool *is_void)
{
	Dwarf_Die p;
	int tag;

	if (!peel(type, &p))
		return false;
	tag = dwarf_tag(&p);
	if (tag != DW_TAG_pointer_type && tag != DW_TAG_reference_type && tag != DW_TAG_rvalue_reference_type)
		return false;
	*is_void = !die_type(&p, to);
	return true;
}

static void loc_add(struct dt *c, const struct loc *l, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return;
	xgrow((void **)&c->locs, &c->alloc_locs, c->nr_locs + 1, sizeof(*c->locs));
	c->locs[c->nr_locs] = *l;
	c->locs[c->nr_locs].lo = lo;
	c->locs[c->nr_locs].hi = hi;
	c->nr_locs++;
}

/* dwop_breg for a register the tracker follows */
static bool op_breg(const Dwarf_Op *op, uint8_t *reg, int64_t *off)
{
	uint64_t r;

	if (!dwop_breg(op, &r, off) || r >= NR_REGS)
		return false;
	*reg = (uint8_t)r;
	return true;
}

/* A location expression in the forms the tracker follows. */
static bool loc_form(const Dwarf_Op *ops, size_t n, struct loc *l)
{
	if (n == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		l->kind = L_REG;
		l->reg = (uint8_t)(ops[0].atom - DW_OP_reg0);
		return true;
	}
	if (n == 1 && ops[0].atom == DW_OP_regx && ops[0].number < NR_REGS) {
		l->kind = L_REG;
		l->reg = (uint8_t)ops[0].number;
		return true;
	}
	if (n == 2 && op_breg(&ops[0], &l->reg, &l->off) && ops[1].atom == DW_OP_stack_value) {
		l->kind = L_REGVAL;
		return true;
	}
	if (n == 1 && ops[0].atom == DW_OP_fbreg) {
		l->kind = L_FB;
		l->off = (int64_t)ops[0].number;
		return true;
	}
	if (n == 1 && op_breg(&ops[0], &l->reg, &l->off)) {
		l->kind = L_MEM;
		return true;
	}
	return false;
}

struct ranges {
	uint64_t lo[MAX_RANGES], hi[MAX_RANGES];
	int n;
};

/* DW_OP_entry_value(DW_OP_regN) [DW_OP_plus_uconst k] DW_OP_stack_value:
 * the variable is what register *reg held on entry, plus *k. */
static bool entry_value(Dwarf_Attribute *a, const Dwarf_Op *ops, size_t n, uint8_t *reg, int64_t *k)
{
	Dwarf_Attribute sub;
	Dwarf_Op *sops;
	size_t ns;
	int64_t off = 0;

	if ((n != 2 && n != 3) || (ops[0].atom != DW_OP_entry_value && ops[0].atom != DW_OP_GNU_entry_value) ||
	    ops[n - 1].atom != DW_OP_stack_value || (n == 3 && ops[1].atom != DW_OP_plus_uconst))
		return false;
	if (dwarf_getlocation_attr(a, &ops[0], &sub) || dwarf_getlocation(&sub, &sops, &ns) || ns != 1)
		return false;
	if (sops[0].atom >= DW_OP_reg0 && sops[0].atom <= DW_OP_reg31)
		*reg = (uint8_t)(sops[0].atom - DW_OP_reg0);
	else if (!op_breg(&sops[0], reg, &off) || off)
		return false;
	*k = n == 3 ? (int64_t)ops[1].number : 0;
	return *reg < NR_REGS;
}

static void var_locs(struct dt *c, Dwarf_Die *var, const struct ranges *scope)
{
	Dwarf_Attribute a;
	Dwarf_Addr base, start, end;
	Dwarf_Op *ops;
	size_t nops;
	ptrdiff_t off = 0;
	Dwarf_Die type, to;
	struct loc l = { .var = 0 };
	Dwarf_Word size = 0;
	bool is_void = true;

	if (!dwarf_attr_integrate(var, DW_AT_location, &a) || !die_type(var, &type))
		return;
	l.var = die_intern(c, var);
	l.type = die_intern(c, &type);
	l.ptr = pointee(&type, &to, &is_void);
	if (l.ptr && !is_void)
		l.pointee = die_intern(c, &to);
	if (!dwarf_aggregate_size(&type, &size))
		l.size = size;
	while ((off = dwarf_getlocations(&a, off, &base, &start, &end, &ops, &nops)) > 0) {
		uint8_t reg;
		int64_t k;

		/* a pointer that was a register's on entry: the register's
		 * type there, where nothing else gives one (the first one
		 * found: outer scopes come first) */
		if (l.pointee && entry_value(&a, ops, nops, &reg, &k)) {
			if (reg < c->arch->nr_regs && !c->entry_type[reg]) {
				c->entry_type[reg] = l.pointee;
				c->entry_off[reg] = -k;
			}
			continue;
		}
		if (!loc_form(ops, nops, &l) || l.reg >= c->arch->nr_regs)
			continue;
		if (start == 0 && end == (Dwarf_Addr)-1) {
			/* one expression for the whole scope */
			for (int i = 0; i < scope->n; i++)
				loc_add(c, &l, scope->lo[i] + c->bias, scope->hi[i] + c->bias);
			continue;
		}
		loc_add(c, &l, start + c->bias, end + c->bias);
	}
}

static void scope_ranges(Dwarf_Die *d, struct ranges *r)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	r->n = 0;
	while (r->n < MAX_RANGES && (off = dwarf_ranges(d, off, &base, &lo, &hi)) > 0) {
		if (hi > lo) {
			r->lo[r->n] = lo;
			r->hi[r->n++] = hi;
		}
	}
}

/* What a function returns in %rax: its pointee (*val false) or a value's
 * type (*val true); 0 when void or unknown. */
static uint32_t ret_type(struct dt *c, Dwarf_Die *fn, bool *val)
{
	Dwarf_Die type, to;
	bool is_void;

	*val = false;
	if (!die_type(fn, &type))
		return 0;
	if (!pointee(&type, &to, &is_void)) {
		*val = true;
		return die_intern(c, &type);
	}
	return is_void ? 0 : die_intern(c, &to);
}

static void call_site(struct dt *c, Dwarf_Die *cs)
{
	Dwarf_Attribute a;
	Dwarf_Addr ret;
	Dwarf_Die fn;
	uint32_t type;
	bool val;

	if ((!dwarf_attr(cs, DW_AT_call_return_pc, &a) && !dwarf_attr(cs, DW_AT_low_pc, &a)) ||
	    dwarf_formaddr(&a, &ret))
		return;
	if ((!dwarf_attr(cs, DW_AT_call_origin, &a) && !dwarf_attr(cs, DW_AT_abstract_origin, &a)) ||
	    !dwarf_formref_die(&a, &fn))
		return;
	if (dwarf_hasattr_integrate(&fn, DW_AT_noreturn)) {
		xgrow((void **)&c->noret, &c->alloc_noret, c->nr_noret + 1, sizeof(*c->noret));
		c->noret[c->nr_noret++] = ret + c->bias;
	}
	if (!(type = ret_type(c, &fn, &val)))
		return;
	xgrow((void **)&c->calls, &c->alloc_calls, c->nr_calls + 1, sizeof(*c->calls));
	c->calls[c->nr_calls++] = (struct call_site){ .ret = ret + c->bias, .type = type, .val = val };
}

static int call_site_cmp(const void *a, const void *b)
{
	const struct call_site *x = a, *y = b;

	return x->ret < y->ret ? -1 : x->ret > y->ret;
}

/* Every variable and parameter of the subprogram, its lexical blocks and
 * inlined instances, inner scopes after outer ones (they win). */
static void scope_scan(struct dt *c, Dwarf_Die *parent, const struct ranges *r, int depth)
{
	Dwarf_Die child;

	if (depth > 32 || dwarf_child(parent, &child))
		return;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_variable || tag == DW_TAG_formal_parameter)
			var_locs(c, &child, r);
		else if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site)
			call_site(c, &child);
	} while (!dwarf_siblingof(&child, &child));
	if (dwarf_child(parent, &child))
		return;
	do {
		int tag = dwarf_tag(&child);
		struct ranges inner;

		if (tag != DW_TAG_lexical_block && tag != DW_TAG_inlined_subroutine)
			continue;
		scope_ranges(&child, &inner);
		if (inner.n)
			scope_scan(c, &child, &inner, depth + 1);
	} while (!dwarf_siblingof(&child, &child));
}

static void frame_base(struct dt *c, Dwarf_Die *subp)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	c->fb_kind = FB_NONE;
	if (!dwarf_attr_integrate(subp, DW_AT_frame_base, &a) || dwarf_getlocation(&a, &ops, &n) || n != 1)
		return;
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		c->fb_kind = FB_CFA;
	} else if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		c->fb_kind = FB_REG;
		c->fb_reg = (uint8_t)(ops[0].atom - DW_OP_reg0);
		c->fb_off = 0;
	} else if (op_breg(&ops[0], &c->fb_reg, &c->fb_off)) {
		c->fb_kind = FB_REG;
	}
	if (c->fb_kind == FB_REG && c->fb_reg >= NR_REGS)
		c->fb_kind = FB_NONE;
}

/* ---- states ---- */

const struct rst dt_none;

static bool rst_eq(const struct rst *a, const struct rst *b)
{
	return a->kind == b->kind && a->src == b->src && a->idx == b->idx && a->inner == b->inner &&
	       a->type == b->type && a->var == b->var && a->off == b->off && a->from == b->from;
}

struct slot *dt_slot_find(struct tst *t, int64_t at)
{
	for (uint8_t i = 0; i < t->nr_slots; i++)
		if (t->slot[i].at == at)
			return &t->slot[i];
	return NULL;
}

void dt_slot_set(struct tst *t, int64_t at, const struct rst *r)
{
	struct slot *sl = dt_slot_find(t, at);

	if (!sl && r->kind == R_NONE)
		return;
	if (!sl) {
		if (t->nr_slots == NR_SLOTS)
			memmove(&t->slot[0], &t->slot[1], sizeof(t->slot[0]) * --t->nr_slots);
		sl = &t->slot[t->nr_slots++];
		sl->at = at;
	}
	sl->r = *r;
}

/* The same place or value but for how it was found (src, var, from). */
static bool same_place(const struct rst *a, const struct rst *b)
{
	return a->kind == b->kind && (a->kind == R_PTR || a->kind == R_VAL) && a->type == b->type &&
	       a->off == b->off && a->idx == b->idx && a->inner == b->inner;
}

/* Pointers to one type whose offsets differ by whole elements (a loop
 * walking an array): one pointer to an unknown element. */
static bool same_array(const struct dt *c, const struct rst *a, const struct rst *b)
{
	uint64_t size = c->sizes[a->type];

	return a->kind == R_PTR && b->kind == R_PTR && a->type && a->type == b->type && a->var == b->var &&
	       !a->inner && !b->inner && size && (uint64_t)(a->off > b->off ? a->off - b->off : b->off - a->off) % size == 0;
}

/* Pointers to one type at offsets inside it that differ (a loop walking
 * an array member, the accesses' displacements say which): the first
 * offset, moved by an unknown amount inside the type. */
static bool same_member_array(const struct dt *c, const struct rst *a, const struct rst *b)
{
	uint64_t size = c->sizes[a->type];

	return a->kind == R_PTR && b->kind == R_PTR && a->type && a->type == b->type && a->var == b->var &&
	       (!a->idx || a->inner) && (!b->idx || b->inner) && size && a->off >= 0 && b->off >= 0 &&
	       (uint64_t)a->off < size && (uint64_t)b->off < size;
}

/* Meet src into dst: what every path agrees on. True when dst changed. */
static bool meet(const struct dt *c, struct tst *dst, const struct tst *src)
{
	bool changed = false;
	uint8_t k = 0;

	if (!dst->seen) {
		*dst = *src;
		dst->seen = true;
		return true;
	}
	for (int i = 0; i < c->arch->nr_regs; i++) {
		if ((dst->reg[i].kind == R_NONE && !dst->reg[i].from) || rst_eq(&dst->reg[i], &src->reg[i]))
			continue;
		if (same_place(&dst->reg[i], &src->reg[i])) {
			/* one pointer or value reached two ways (a variable
			 * on one path, a load on the other): the type stays,
			 * what told it goes where they differ */
			struct rst m = dst->reg[i];

			m.src = m.src == src->reg[i].src ? m.src : TYPE_TRACKED;
			m.var = m.var == src->reg[i].var ? m.var : 0;
			m.from = m.from == src->reg[i].from ? m.from : 0;
			if (!rst_eq(&m, &dst->reg[i])) {
				dst->reg[i] = m;
				changed = true;
			}
			continue;
		}
		if (same_array(c, &dst->reg[i], &src->reg[i])) {
			uint64_t size = c->sizes[dst->reg[i].type];

			if (!dst->reg[i].idx || dst->reg[i].src != TYPE_TRACKED ||
			    dst->reg[i].off != (int64_t)((uint64_t)dst->reg[i].off % size)) {
				dst->reg[i].idx = true;
				dst->reg[i].src = TYPE_TRACKED;
				dst->reg[i].off = dst->reg[i].off >= 0 ? (int64_t)((uint64_t)dst->reg[i].off % size) : 0;
				changed = true;
			}
			continue;
		}
		if (same_member_array(c, &dst->reg[i], &src->reg[i])) {
			/* set once: the walk cannot move it on */
			if (!dst->reg[i].inner) {
				dst->reg[i].idx = dst->reg[i].inner = true;
				dst->reg[i].src = TYPE_TRACKED;
				dst->reg[i].off = dst->reg[i].off < src->reg[i].off ? dst->reg[i].off : src->reg[i].off;
				changed = true;
			}
			continue;
		}
		if (i != c->arch->sp && (dst->reg[i].kind == R_FRAME || dst->reg[i].kind == R_FRAMEX) &&
		    (src->reg[i].kind == R_FRAME || src->reg[i].kind == R_FRAMEX)) {
			/* a pointer walking the frame (a local array): into
			 * the variable at the first offset, element unknown;
			 * set once, so that the walk cannot move it on */
			if (dst->reg[i].kind == R_FRAME) {
				dst->reg[i].kind = R_FRAMEX;
				dst->reg[i].off = dst->reg[i].off < src->reg[i].off ? dst->reg[i].off : src->reg[i].off;
				changed = true;
			}
			continue;
		}
		dst->reg[i] = dt_none;
		changed = true;
	}
	for (uint8_t i = 0; i < dst->nr_slots; i++) {
		struct slot *o = dt_slot_find((struct tst *)src, dst->slot[i].at);

		if (o && rst_eq(&o->r, &dst->slot[i].r))
			dst->slot[k++] = dst->slot[i];
		else
			changed = true;
	}
	dst->nr_slots = k;
	return changed;
}

/* The register the CFA is computed from at vaddr (the CFI), as a frame
 * state: that register is CFA - offset. */
static void cfi_seed(struct dt *c, uint64_t vaddr, struct tst *t)
{
	Dwarf_Frame *f;
	Dwarf_Op *ops;
	size_t n;
	uint8_t reg;
	int64_t off;

	memset(t, 0, sizeof(*t));
	t->seen = true;
	if (!c->cfi || dwarf_cfi_addrframe(c->cfi, vaddr - c->cfi_bias, &f))
		return;
	if (!dwarf_frame_cfa(f, &ops, &n) && n == 1 && op_breg(&ops[0], &reg, &off) && reg < NR_REGS)
		t->reg[reg] = (struct rst){ .kind = R_FRAME, .off = -off };
	free(f);
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int loc_lo_cmp(const void *a, const void *b, void *arg)
{
	const struct loc *locs = arg;
	uint64_t x = locs[*(const uint32_t *)a].lo, y = locs[*(const uint32_t *)b].lo;

	return x < y ? -1 : x > y;
}

/* For each instruction, the register locations covering it (in scope
 * order: inner scopes last), by one sweep over the locations sorted by
 * start: apply_locs runs for every visit of every instruction. */
static void gens_build(struct dt *c)
{
	uint32_t *order = xmalloc((c->nr_locs + 1) * sizeof(*order)), *active = xmalloc((c->nr_locs + 1) * sizeof(*active));
	size_t nr = 0, na = 0, next = 0, alloc = 0;

	for (size_t k = 0; k < c->nr_locs; k++)
		if (c->locs[k].kind == L_REG || c->locs[k].kind == L_REGVAL)
			order[nr++] = (uint32_t)k;
	qsort_r(order, nr, sizeof(*order), loc_lo_cmp, c->locs);
	c->gen_off = xmalloc((c->n + 1) * sizeof(*c->gen_off));
	c->gen = NULL;
	c->nr_gen = 0;
	for (size_t i = 0; i < c->n; i++) {
		uint64_t a = c->ins[i].address;
		size_t k = 0;
		bool added = false;

		for (size_t j = 0; j < na; j++)
			if (c->locs[active[j]].hi > a)
				active[k++] = active[j];
		na = k;
		while (next < nr && c->locs[order[next]].lo <= a) {
			if (c->locs[order[next]].hi > a) {
				active[na++] = order[next];
				added = true;
			}
			next++;
		}
		if (added)
			qsort(active, na, sizeof(*active), u32_cmp);
		c->gen_off[i] = c->nr_gen;
		if (na) {
			xgrow((void **)&c->gen, &alloc, c->nr_gen + na, sizeof(*c->gen));
			memcpy(c->gen + c->nr_gen, active, na * sizeof(*active));
			c->nr_gen += na;
		}
	}
	c->gen_off[c->n] = c->nr_gen;
	free(order);
	free(active);
}

/* Registers the variables' locations type at instruction i. */
static void apply_locs(const struct dt *c, size_t i, struct tst *t)
{
	for (size_t g = c->gen_off[i]; g < c->gen_off[i + 1]; g++) {
		const struct loc *l = &c->locs[c->gen[g]];
		struct rst *r;

		r = &t->reg[l->reg];
		/* gcc's ranges run over the lea and call of __tls_get_addr
		 * (aarch64: adrp, ldr, add and call of a TLS descriptor) as
		 * one: the tls_index or descriptor, and the module address
		 * on its way there, stay */
		if (r->kind == R_TLSGD || r->kind == R_ADDR)
			continue;
		if (!l->ptr) {
			if (l->kind == L_REG)
				*r = (struct rst){ .kind = R_VAL, .src = TYPE_VARIABLE, .type = l->type };
			else if (r->kind == R_PTR)
				*r = dt_none;
			continue;
		}
		/* a void * variable says less than the typed pointer the
		 * register already holds (the register is not written here:
		 * the same address): a callback's void *arg where the range of
		 * its cast, struct ctx *c = arg, ended an instruction early */
		if (!l->pointee && r->kind == R_PTR && r->type && l->kind == L_REG)
			continue;
		*r = (struct rst){ .kind = R_PTR, .src = TYPE_VARIABLE, .type = l->pointee,
				   .off = l->kind == L_REGVAL ? -l->off : 0 };
	}
}


bool dt_got_load(struct dt *c, uint64_t vaddr, uint8_t size, struct rst *r)
{
	struct obj *o = c->o;
	int64_t tlsoff;
	uint64_t target, i;
	Dwarf_Die type;

	if (dt_tls_slot(o, &o->tls_got, vaddr, &tlsoff)) {
		*r = (struct rst){ .kind = R_TLSOFF, .off = tlsoff };
		return true;
	}
	if (size != 8)
		return false;
	if (obj_got_slot(o, vaddr, &target)) {
		*r = (struct rst){ .kind = R_ADDR, .off = (int64_t)target };
		return true;
	}
	/* another object's variable, declared here */
	if (!o->vars_built)
		vars_build(o);
	if (u64map__get(&o->got_ext_idx, vaddr, &i) && o->got_ext[i].has_decl &&
	    die_type(&o->got_ext[i].decl, &type)) {
		*r = (struct rst){ .kind = R_PTR, .src = TYPE_VARIABLE, .type = die_intern(c, &type),
				   .var = die_intern(c, &o->got_ext[i].decl) };
		return true;
	}
	return false;
}

/* The TLS variable holding byte off of the object's TLS block. */
static struct ref tls_block_ref(struct dt *c, int64_t off, bool idx)
{
	struct obj *o = c->o;

	if (!o->vars_built)
		vars_build(o);
	for (size_t i = 0; i < o->nr_tls_vars; i++) {
		const struct var *v = &o->tls_vars[i];
		Dwarf_Die type;

		if (off < (int64_t)v->addr || (uint64_t)(off - (int64_t)v->addr) >= (v->size ? v->size : 1) ||
		    !die_type((Dwarf_Die *)&v->die, &type))
			continue;
		return (struct ref){ .src = TYPE_VARIABLE, .idx = idx, .type = die_intern(c, &type),
				     .var = die_intern(c, (Dwarf_Die *)&v->die), .off = off - (int64_t)v->addr };
	}
	return (struct ref){ .reason = DT_TLS };
}

/*
 * What the thread pointer points at, at offset tpoff, not a TLS variable:
 * on x86-64 (variant II) glibc's struct pthread starts there (its header,
 * tcbhead_t, holds the stack protector's canary at 0x28); on aarch64
 * (variant I) the 16-byte tcbhead_t is at it and struct pthread just below.
 * Typed where the object's DWARF defines them (the C library's), else the
 * TCB is the reason.
 */
static struct ref tcb_ref(struct dt *c, int64_t tpoff, bool idx)
{
	struct obj *o = c->o;
	Dwarf_Word size;

	if (!o->vars_built)
		vars_build(o);
	if (c->arch->machine == EM_AARCH64 && tpoff >= 0) {
		if (o->has_tcb_type && !dwarf_aggregate_size(&o->tcb_type, &size) && (uint64_t)tpoff < size)
			return (struct ref){ .src = TYPE_TRACKED, .idx = idx, .type = die_intern(c, &o->tcb_type),
					     .off = tpoff };
		return (struct ref){ .reason = DT_TCB };
	}
	if (!o->has_thread_type || dwarf_aggregate_size(&o->thread_type, &size))
		return (struct ref){ .reason = DT_TCB };
	if (c->arch->machine == EM_AARCH64)
		tpoff += (int64_t)size;     /* struct pthread ends at the thread pointer */
	if (tpoff < 0 || (uint64_t)tpoff >= size)
		return (struct ref){ .reason = DT_TCB };
	return (struct ref){ .src = TYPE_TRACKED, .idx = idx, .type = die_intern(c, &o->thread_type), .off = tpoff };
}

/* The TLS variable at thread pointer offset tpoff (an executable's). */
static struct ref tls_ref(struct dt *c, int64_t tpoff, bool idx)
{
	struct obj *o = c->o;

	/* aarch64 (variant I): below the thread pointer is the thread's
	 * descriptor (glibc's struct pthread), at it the 16-byte TCB */
	if (c->arch->machine == EM_AARCH64 ? tpoff < 16 : tpoff >= 0)
		return tcb_ref(c, tpoff, idx);
	obj_relocs(o);
	if (o->tls_state < 0 || o->tls_base == INT64_MIN)
		return (struct ref){ .reason = DT_TLS };
	return tls_block_ref(c, tpoff - o->tls_base, idx);
}

/* The TLS block offset the GOT entry at vaddr stands for: a slot holding
 * a variable's thread pointer offset (tls_got, initial exec) or a
 * tls_index pair for __tls_get_addr (tls_gd, general and local dynamic). */
bool dt_tls_slot(struct obj *o, const struct u64map *which, uint64_t vaddr, int64_t *off)
{
	uint64_t v;

	obj_relocs(o);
	if (o->tls_state < 0 || !u64map__get(which, vaddr, &v))
		return false;
	*off = (int64_t)v;
	return true;
}

static struct ref global_ref(struct dt *c, uint64_t vaddr, bool idx)
{
	const struct var *v;
	Dwarf_Die type;

	if (!c->o->vars_built)
		vars_build(c->o);       /* the first global asked for: every CU's, once */
	v = var_find(c->o, vaddr);

	/* vars_build read the .got's place (obj_relocs) */
	if (!v || !die_type((Dwarf_Die *)&v->die, &type))
		return (struct ref){ .reason = vaddr >= c->o->got_lo && vaddr < c->o->got_hi ? DT_GOT : DT_NO_GLOBAL };
	return (struct ref){ .src = TYPE_VARIABLE, .idx = idx, .type = die_intern(c, &type),
			     .var = die_intern(c, (Dwarf_Die *)&v->die), .off = (int64_t)(vaddr - v->addr) };
}

/* The stack variable at CFA offset at, in scope at vaddr. */
/* Where variable location l puts its storage at an instruction in state t,
 * as a CFA offset; false when it is not in the frame (or not known). */
static bool frame_start(const struct dt *c, const struct loc *l, const struct tst *t, int64_t *start)
{
	if (l->kind == L_FB && c->fb_kind == FB_CFA)
		*start = l->off;
	else if (l->kind == L_FB && c->fb_kind == FB_REG && t->reg[c->fb_reg].kind == R_FRAME)
		*start = t->reg[c->fb_reg].off + c->fb_off + l->off;
	else if (l->kind == L_MEM && t->reg[l->reg].kind == R_FRAME)
		*start = t->reg[l->reg].off + l->off;
	else
		return false;
	return true;
}

static uint64_t distance(uint64_t vaddr, const struct loc *l)
{
	return vaddr < l->lo ? l->lo - vaddr : vaddr - l->hi + 1;
}

static struct ref stack_ref(struct dt *c, uint64_t vaddr, const struct tst *t, int64_t at, bool idx)
{
	const struct loc *best = NULL, *near = NULL;
	int64_t best_start = 0, near_start = 0;
	uint64_t near_d = UINT64_MAX;

	for (size_t k = 0; k < c->nr_locs; k++) {
		const struct loc *l = &c->locs[k];
		int64_t start;

		if (!frame_start(c, l, t, &start) || at < start || (uint64_t)(at - start) >= (l->size ? l->size : 1))
			continue;
		if (vaddr >= l->lo && vaddr < l->hi) {
			best = l;       /* inner scopes come later */
			best_start = start;
		} else if (distance(vaddr, l) < near_d) {
			/* the slot of a variable whose range starts after its
			 * first store (an initialisation) or ends before a
			 * last read: the nearest such range names it */
			near = l;
			near_start = start;
			near_d = distance(vaddr, l);
		}
	}
	if (!best) {
		const struct slot *sl = dt_slot_find((struct tst *)t, at);

		/* the nearest variable, unless what was stored there says
		 * it is something else (a slot reused) */
		if (near && !(sl && sl->r.kind == R_PTR && !near->ptr) &&
		    !(sl && sl->r.kind == R_VAL && (near->ptr || c->sizes[sl->r.type] != near->size))) {
			best = near;
			best_start = near_start;
		} else if (sl && sl->r.kind == R_VAL) {
			/* a spill slot: the type of the register stored there */
			return (struct ref){ .src = TYPE_TRACKED, .type = sl->r.type };
		} else if (sl && sl->r.kind == R_PTR && sl->r.type) {
			return (struct ref){ .src = TYPE_TRACKED, .type = sl->r.type, .ptr = true };
		} else {
			return (struct ref){ .reason = DT_STACK_SLOT };
		}
	}
	return (struct ref){ .src = TYPE_VARIABLE, .idx = idx, .type = best->type, .var = best->var,
			     .off = at - best_start };
}

struct ref dt_eval(struct dt *c, uint64_t vaddr, const struct mem *m, const struct tst *t)
{
	bool idx = m->index >= 0;
	const struct rst *r;

	if (m->seg == 1) {
		/* at and above the thread pointer: the TCB, not a variable */
		if (m->base < 0 && m->index < 0 && m->disp >= 0)
			return tcb_ref(c, m->disp, idx);
		if (m->base < 0)
			return tls_ref(c, m->disp, idx);
		if (m->base < NR_REGS && t->reg[m->base].kind == R_TLSOFF)
			return tls_block_ref(c, t->reg[m->base].off + m->disp, idx);
		return (struct ref){ .reason = DT_TLS };
	}
	if (m->base >= 0 && m->base == c->arch->pc)
		return global_ref(c, m->next + (uint64_t)m->disp, idx);
	if (m->base < 0)
		return m->index >= 0 || m->disp ? global_ref(c, (uint64_t)m->disp, idx)
						: (struct ref){ .reason = DT_ABSOLUTE };
	r = &t->reg[m->base];
	if (m->index >= 0 && m->index < NR_REGS && m->scale <= 1) {
		/* the thread pointer plus a variable's offset (aarch64
		 * initial exec: ldr w0, [x1, x0]) */
		const struct rst *x = &t->reg[m->index];

		if (r->kind == R_TP && x->kind == R_TLSOFF)
			return tls_block_ref(c, x->off + r->off + m->disp, false);
		if (r->kind == R_TLSOFF && x->kind == R_TP)
			return tls_block_ref(c, r->off + x->off + m->disp, false);
	}
	/* base and index are interchangeable at scale 1: the pointer is the one typed */
	if (r->kind != R_PTR && m->index >= 0 && m->index < NR_REGS && m->scale == 1 &&
	    t->reg[m->index].kind == R_PTR)
		r = &t->reg[m->index];
	switch (r->kind) {
	case R_PTR:
		if (!r->type)
			return (struct ref){ .reason = DT_NO_POINTEE };
		return (struct ref){ .src = r->src, .idx = idx || r->idx, .inner = r->inner, .type = r->type, .var = r->var,
				     .off = r->off + m->disp };
	case R_FRAME:
		return stack_ref(c, vaddr, t, r->off + m->disp, idx);
	case R_FRAMEX: {
		struct ref f = stack_ref(c, vaddr, t, r->off + m->disp, true);

		/* an element before the one the walk starts at (a loop
		 * counting from 1): the array the walk is in */
		if (f.reason == DT_STACK_SLOT && m->disp < 0)
			f = stack_ref(c, vaddr, t, r->off, true);
		return f;
	}
	case R_TP:
		return tls_ref(c, r->off + m->disp, idx);
	case R_TLS:
		return tls_block_ref(c, r->off + m->disp, idx);
	case R_ADDR:
		return global_ref(c, (uint64_t)(r->off + m->disp), idx);
	default:
		return (struct ref){ .reason = DT_UNTYPED_REG };
	}
}

/* Is ref, a member of the thread descriptor, glibc's pointer to the
 * descriptor itself (x86-64's THREAD_SELF: header.self at %fs:0x10)? */
static bool thread_self(const struct dt *c, const struct ref *f, const char *member)
{
	size_t len = strlen(member);

	return c->arch->machine == EM_X86_64 && c->o->has_thread_type && !f->ptr &&
	       dwarf_dieoffset(&c->dies[f->type]) == dwarf_dieoffset(&c->o->thread_type) && len >= 4 &&
	       !strcmp(member + len - 4, "self") && (len == 4 || member[len - 5] == '.');
}

/* What a pointer-sized load through ref gives: a pointer's pointee. */
struct rst dt_load_of(struct dt *c, const struct ref *f)
{
	struct data_loc tmp;
	Dwarf_Die leaf, to;
	Dwarf_Word size;
	bool is_void;
	int64_t off = f->off;

	if (f->reason || (f->idx && off < 0))
		return dt_none;
	if (!dwarf_aggregate_size(&c->dies[f->type], &size) && size && (off < 0 || (uint64_t)off >= size)) {
		if (off < 0)
			return dt_none;
		off %= (int64_t)size;
	}
	memset(&tmp, 0, sizeof(tmp));
	if (f->ptr) {
		/* a pointer out of a spill slot */
		if (off)
			return dt_none;
		return (struct rst){ .kind = R_PTR, .src = TYPE_TRACKED, .type = f->type };
	}
	if (!type_walk(&c->dies[f->type], (uint64_t)off, &tmp, &leaf) || tmp.member_off)
		return dt_none;
	if (thread_self(c, f, tmp.member))
		return (struct rst){ .kind = R_TP };
	if (!pointee(&leaf, &to, &is_void))
		return (struct rst){ .kind = R_VAL, .src = TYPE_TRACKED, .type = die_intern(c, &leaf) };
	return (struct rst){ .kind = R_PTR, .src = TYPE_TRACKED, .type = is_void ? 0 : die_intern(c, &to) };
}

/* ---- calls ---- */

uint32_t dt_call_ret(struct dt *c, uint64_t target, uint64_t ret, bool *val)
{
	const struct subp *sp = target ? subp_lookup(c->o, target) : NULL;
	size_t lo = 0, hi = c->nr_calls;

	uint32_t t;

	/* a void * from the callee's DWARF: what its result was stored
	 * into may say more (dt_infer) */
	if (sp && sp->lo == target && ((t = ret_type(c, (Dwarf_Die *)&sp->die, val)) || *val))
		return t;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->calls[mid].ret < ret)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == c->nr_calls || c->calls[lo].ret != ret)
		return 0;
	*val = c->calls[lo].val;
	return c->calls[lo].type;
}

struct rst dt_call_result(const struct dt *c, const cs_insn *in, uint32_t ret, bool val)
{
	if (ret)
		return (struct rst){ .kind = val ? R_VAL : R_PTR, .src = TYPE_TRACKED, .type = ret };
	return (struct rst){ .kind = R_NONE, .from = (uint32_t)(in - c->ins) + 1 };
}

void dt_infer(struct dt *c, const struct rst *r, uint32_t type)
{
	const cs_insn *call;

	if (!r->from || r->from > c->n || c->infer_done)
		return;
	call = &c->ins[r->from - 1];
	for (size_t i = 0; i < c->nr_infer; i++)
		if (c->infer[i].ret == call->address + call->size)
			return;
	xgrow((void **)&c->infer, &c->alloc_infer, c->nr_infer + 1, sizeof(*c->infer));
	c->infer[c->nr_infer++] = (struct call_site){ .ret = call->address + call->size, .type = type };
}

/* The calls dt_infer typed, where nothing named their type before:
 * true when the flow is to run again. */
static bool infer_calls(struct dt *c)
{
	size_t before = c->nr_calls;

	c->infer_done = true;
	for (size_t i = 0; i < c->nr_infer; i++) {
		bool val;

		if (dt_call_ret(c, 0, c->infer[i].ret, &val))
			continue;
		xgrow((void **)&c->calls, &c->alloc_calls, c->nr_calls + 1, sizeof(*c->calls));
		c->calls[c->nr_calls++] = c->infer[i];
	}
	if (c->nr_calls == before)
		return false;
	qsort(c->calls, c->nr_calls, sizeof(*c->calls), call_site_cmp);
	return true;
}

bool dt_noreturn(const struct dt *c, size_t i, uint64_t target)
{
	const struct subp *sp = target ? subp_lookup(c->o, target) : NULL;
	uint64_t ret = c->ins[i].address + c->ins[i].size;
	size_t k;

	if (sp && sp->lo == target)
		return dwarf_hasattr_integrate((Dwarf_Die *)&sp->die, DW_AT_noreturn);
	k = upper_bound_u64(c->noret, c->nr_noret, sizeof(*c->noret), ret);
	return k && c->noret[k - 1] == ret;
}

/* ---- the data flow over one range ---- */

size_t dt_insn_at(const struct dt *c, uint64_t a)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->ins[mid].address < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->n && c->ins[lo].address == a ? lo : SIZE_MAX;
}

/* Basic blocks: the range's start, branch targets and what follows a
 * branch lead one; the data flow keeps one state per block. */
static void blocks_build(struct dt *c)
{
	bool *leader = xcalloc(c->n + 1, sizeof(*leader));

	leader[0] = true;
	for (size_t i = 0; i < c->n; i++) {
		size_t f, tg;
		bool ind;

		c->arch->succs(c, i, &f, &tg, &ind);
		if (tg != SIZE_MAX)
			leader[tg] = true;
		if (f != i + 1 || tg != SIZE_MAX || ind)
			leader[i + 1] = true;
	}
	c->blk_of = xmalloc(c->n * sizeof(*c->blk_of));
	c->bstart = xmalloc((c->n + 1) * sizeof(*c->bstart));
	c->nb = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (leader[i])
			c->bstart[c->nb++] = (uint32_t)i;
		c->blk_of[i] = (uint32_t)(c->nb - 1);
	}
	c->bstart[c->nb] = (uint32_t)c->n;
	free(leader);
}

/* A function returning a struct in memory (SysV x86-64: one larger than
 * 16 bytes) is given the address to build it at in %rdi. */
static uint32_t sret_type(struct dt *c, Dwarf_Die *subp)
{
	Dwarf_Die t, peeled;
	Dwarf_Word size;
	Dwarf_Addr entry;
	int tag;

	if (!die_type(subp, &t) || dwarf_peel_type(&t, &peeled))
		return 0;
	tag = dwarf_tag(&peeled);
	if ((tag != DW_TAG_structure_type && tag != DW_TAG_union_type && tag != DW_TAG_class_type) ||
	    dwarf_aggregate_size(&peeled, &size) || size <= 16)
		return 0;
	/* only the range the function is entered at */
	if (dwarf_entrypc(subp, &entry) || entry + c->bias != c->lo)
		return 0;
	return die_intern(c, &t);
}

static void flow(struct dt *c)
{
	size_t *work = xmalloc(c->nb * sizeof(*work)), nw = 0, seed = 0;
	bool *queued = xcalloc(c->nb, sizeof(*queued));
	struct tst cur;

	cfi_seed(c, c->lo, &c->in[0]);
	/* a location at the entry (a typed parameter) comes after these */
	for (int r = 0; c->lo == c->entry && r < c->arch->nr_regs; r++)
		if (c->entry_type[r] && r != c->arch->sp)
			c->in[0].reg[r] = (struct rst){ .kind = R_PTR, .src = TYPE_VARIABLE, .type = c->entry_type[r],
							 .off = c->entry_off[r] };
	if (c->sret)
		c->in[0].reg[c->arch->sret] = (struct rst){ .kind = R_PTR, .src = TYPE_TRACKED, .type = c->sret };
	work[nw++] = 0;
	queued[0] = true;
	for (;;) {
		while (nw) {
			size_t b = work[--nw], last = c->bstart[b + 1] - 1, next[2];
			bool ind;

			queued[b] = false;
			cur = c->in[b];
			for (size_t i = c->bstart[b]; i <= last; i++) {
				apply_locs(c, i, &cur);
				c->arch->step(c, &c->ins[i], &cur);
			}
			c->arch->succs(c, last, &next[0], &next[1], &ind);
			for (int k = 0; k < 2; k++) {
				size_t nb = next[k] == SIZE_MAX ? SIZE_MAX : c->blk_of[next[k]];

				if (nb != SIZE_MAX && meet(c, &c->in[nb], &cur) && !queued[nb]) {
					work[nw++] = nb;
					queued[nb] = true;
				}
			}
		}
		/* code reached only through a jump table or not at all: its
		 * frame from the CFI, registers unknown (not the padding after
		 * a ret: its CFI is the epilogue's, and it falls into code
		 * the branches reach) */
		while (seed < c->nb && (c->in[seed].seen || c->arch->pad(&c->ins[c->bstart[seed]])))
			seed++;
		if (seed == c->nb)
			break;
		cfi_seed(c, c->ins[c->bstart[seed]].address, &c->in[seed]);
		work[nw++] = seed;
		queued[seed] = true;
	}
	free(work);
	free(queued);
}

static void res_of(const struct dt *c, const struct ref *f, struct dtype_res *r)
{
	memset(r, 0, sizeof(*r));
	r->reason = f->reason;
	if (f->reason)
		return;
	r->source = f->src;
	r->indexed = f->idx;
	r->inner = f->inner;
	r->off = f->off;
	r->ptr = f->ptr;
	r->type = c->dies[f->type];
	r->var = f->var ? dwarf_diename(&c->dies[f->var]) : NULL;
}

/* Where a function is entered: its entry_pc or low_pc, else the start
 * of its first range (a function split into hot and cold parts). */
static bool entry_pc(Dwarf_Die *fn, Dwarf_Addr *entry)
{
	Dwarf_Addr base, hi;

	return !dwarf_entrypc(fn, entry) || dwarf_ranges(fn, 0, &base, entry, &hi) > 0;
}

/* Type every instruction of the range [lo, hi) of subprogram sp. */
static void range_type(struct symbols *s, struct obj *o, const struct subp *sp, csh h,
		       const struct dt_arch *arch)
{
	struct dt c = { .arch = arch, .s = s, .o = o, .h = h, .bias = sp->bias, .lo = sp->lo, .hi = sp->hi };
	const uint8_t *code = NULL;
	size_t avail = code_span(o, sp->lo, &code);
	struct ranges whole = { .n = 1 };
	bool is_asm = dwarf_srclang((Dwarf_Die *)&sp->cu) == DW_LANG_Mips_Assembler;
	Dwarf_Addr entry;
	Dwarf_Die dummy;

	memset(&dummy, 0, sizeof(dummy));
	xgrow((void **)&c.dies, &c.alloc_dies, 1, sizeof(*c.dies));
	xgrow((void **)&c.sizes, &c.alloc_sizes, 1, sizeof(*c.sizes));
	c.dies[0] = dummy;                  /* index 0: none */
	c.sizes[c.nr_dies++] = 0;
	if (avail > sp->hi - sp->lo)
		avail = sp->hi - sp->lo;
	c.n = avail && sp->hi - sp->lo <= MAX_INSNS * 15 ? cs_disasm(h, code, avail, sp->lo, 0, &c.ins) : 0;
	if (c.n > MAX_INSNS) {
		cs_free(c.ins, c.n);
		c.n = 0;
	}
	if (!c.n) {
		struct dtype_res r = { .reason = DT_NO_CODE };

		acache__put(&o->dtypes, sp->lo, -ENOENT, &r);
		return;
	}
	c.cfi = dwfl_module_eh_cfi(o->mod, &c.cfi_bias);
	if (!c.cfi)
		c.cfi = dwfl_module_dwarf_cfi(o->mod, &c.cfi_bias);
	frame_base(&c, (Dwarf_Die *)&sp->die);
	c.entry = entry_pc((Dwarf_Die *)&sp->die, &entry) ? entry + sp->bias : 0;
	c.sret = sret_type(&c, (Dwarf_Die *)&sp->die);
	whole.lo[0] = sp->lo - sp->bias;
	whole.hi[0] = sp->hi - sp->bias;
	scope_scan(&c, (Dwarf_Die *)&sp->die, &whole, 0);
	if (c.nr_calls)
		qsort(c.calls, c.nr_calls, sizeof(*c.calls), call_site_cmp);
	if (c.nr_noret)
		qsort(c.noret, c.nr_noret, sizeof(*c.noret), cmp_u64_key);
	gens_build(&c);
	blocks_build(&c);
	c.in = xcalloc(c.nb, sizeof(*c.in));
	flow(&c);
	if (infer_calls(&c)) {
		memset(c.in, 0, c.nb * sizeof(*c.in));
		flow(&c);
	}
	for (size_t b = 0; b < c.nb; b++) {
		struct tst t = c.in[b];

		for (size_t i = c.bstart[b]; i < c.bstart[b + 1]; i++) {
			struct mem m;
			int has = c.arch->mem(&c.ins[i], &m);
			struct dtype_res r = { .reason = has ? DT_UNTYPED_REG : DT_NO_MEM };
			int rc = -ENOENT;

			if (t.seen)
				apply_locs(&c, i, &t);
			if (t.seen && has > 0) {
				struct ref f = dt_eval(&c, c.ins[i].address, &m, &t);

				if (f.reason == DT_STACK_SLOT)
					f = c.arch->spill(&c, &c.ins[i], &t, &f);
				res_of(&c, &f, &r);
				r.scale = m.index >= 0 ? m.scale : 0;
				rc = f.reason ? -ENOENT : 0;
			}
			/* assembly has no variables to type a register: only
			 * its fixed addresses and the thread pointer's are named */
			if (is_asm && (r.reason == DT_UNTYPED_REG || r.reason == DT_STACK_SLOT ||
				       r.reason == DT_NO_POINTEE || r.reason == DT_ABSOLUTE || r.reason == DT_NO_GLOBAL))
				r.reason = DT_ASM;
			if (t.seen)
				c.arch->step(&c, &c.ins[i], &t);
			if (!acache__get(&o->dtypes, c.ins[i].address, &(struct dtype_res){ 0 }, &(int){ 0 }))
				acache__put(&o->dtypes, c.ins[i].address, rc, &r); /* an earlier range may overlap */
		}
	}
	free(c.in);
	free(c.blk_of);
	free(c.bstart);
	free(c.gen_off);
	free(c.gen);
	free(c.locs);
	free(c.calls);
	free(c.noret);
	free(c.infer);
	free(c.dies);
	free(c.sizes);
	u64map__exit(&c.die_idx);
	cs_free(c.ins, c.n);
}

static const struct dt_arch *arch_of(struct obj *o)
{
	switch (obj_machine(o)) {
	case EM_X86_64:
		return &dt_x86;
	case EM_AARCH64:
		return &dt_a64;
	default:
		return NULL;
	}
}

/* The cached answer for vaddr, typing its function's range on the first
 * question. */
static int dtype_get(struct symbols *s, struct obj *o, uint64_t vaddr, struct dtype_res *r)
{
	const struct dt_arch *arch = arch_of(o);
	const struct subp *sp;
	csh *h;
	int rc;

	if (acache__get(&o->dtypes, vaddr, r, &rc))
		return rc;
	memset(r, 0, sizeof(*r));
	if (!arch) {
		r->reason = DT_ARCH;
	} else if (!cs_handle(s, arch->machine, &h)) {
		r->reason = DT_NO_CODE;
	} else if (!(sp = subp_lookup(o, vaddr))) {
		r->reason = DT_NO_DWARF;
	} else {
		range_type(s, o, sp, *h, arch);
		if (acache__get(&o->dtypes, vaddr, r, &rc))
			return rc;
		/* not on an instruction boundary (the decoder stopped early) */
		r->reason = dwarf_srclang((Dwarf_Die *)&sp->cu) == DW_LANG_Mips_Assembler ? DT_ASM : DT_NO_CODE;
	}
	acache__put(&o->dtypes, vaddr, -ENOENT, r);
	return -ENOENT;
}

/* ---- naming ---- */

static void append(struct data_loc *d, const char *fmt, uint64_t v)
{
	size_t len = strlen(d->member);

	if (len < sizeof(d->member) - 1)
		snprintf(d->member + len, sizeof(d->member) - len, fmt, v);
}

/* The element [?] of an indexed access inside the type: the last "[n]" of
 * the path becomes "[?]". */
static void unknown_element(struct data_loc *d, size_t from)
{
	char *last = NULL, *p = d->member + from, *e;

	while ((p = strchr(p, '[')))
		last = p++;
	if (!last || !(e = strchr(last, ']')))
		return;
	memmove(last + 2, e, strlen(e) + 1);
	last[1] = '?';
}

/* Whether an access at off into a mapping of msize bytes, no allocation
 * recorded, is inside one object of tsize at its start: an mmap'ed struct
 * (the mapping may be longer: the kernel merges a new anonymous mapping
 * with the one above it). Not an array of the type over the mapping: malloc
 * serves large blocks by mmap 16 bytes in, and arenas hold many objects;
 * with record --alloc those are heap objects, named from their own start. */
static bool fills_mapping(uint64_t tsize, uint64_t msize, uint64_t off)
{
	return tsize <= msize && off < tsize;
}

/* Type and member path of result r for data address data. */
static void res_name(const struct dtype_res *r, uint64_t data, uint64_t obj_start, uint64_t obj_size,
		     struct data_loc *out)
{
	/* no allocation was recorded: a whole mapping is the object only
	 * when one of the type fills it (DTYPE_WHOLE_MAPPING) */
	bool whole = obj_size & DTYPE_WHOLE_MAPPING;

	obj_size &= ~DTYPE_WHOLE_MAPPING;
	Dwarf_Die type = r->type;
	Dwarf_Word size = 0;
	bool sized = !dwarf_aggregate_size(&type, &size) && size;
	int64_t off = r->off;
	size_t from;

	type_name(&type, out->type, sizeof(out->type));
	out->type_source = r->source;
	out->member[0] = '\0';
	if (r->ptr) {
		/* a pointer to type (a spilled register): no member in it */
		size_t len = strlen(out->type);

		snprintf(out->type + len, sizeof(out->type) - len, " *");
		out->var_led = false;
		out->aggregate = false;
		return;
	}
	out->var_led = r->var;
	{
		Dwarf_Die p;
		int tag = peel(&type, &p) ? dwarf_tag(&p) : 0;

		out->aggregate = tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type;
	}
	if (r->var)
		snprintf(out->member, sizeof(out->member), "%s", r->var);
	from = strlen(out->member);
	if (r->indexed && !r->var && obj_size && sized && data >= obj_start && data - obj_start < obj_size &&
	    (!whole || fills_mapping(size, obj_size, data - obj_start)) && off >= 0 && data - obj_start >= (uint64_t)off &&
	    (!r->scale || (data - obj_start - (uint64_t)off) % r->scale == 0)) {
		/* the heap object's start is element 0: the exact element */
		off = (int64_t)(data - obj_start);
		out->type_source = TYPE_HEAP;
	} else if (r->indexed) {
		/* an index register stepping inside the type (an array
		 * member), else whole elements of it */
		struct data_loc inner;

		memset(&inner, 0, sizeof(inner));
		if (((r->scale && sized && r->scale < size) || r->inner) && off >= 0 &&
		    type_walk(&type, (uint64_t)off, &inner, NULL) && strchr(inner.member, '[')) {
			type_walk(&type, (uint64_t)off, out, NULL);
			unknown_element(out, from);
		} else if (r->inner) {
			/* walking inside the type, not at an array member:
			 * which member is not known */
		} else if (sized && !r->var && off >= 0) {
			append(out, "[?]", 0);
			type_walk(&type, (uint64_t)off % size, out, NULL);
		} else if (off >= 0) {
			type_walk(&type, (uint64_t)off, out, NULL);
			unknown_element(out, from);
		}
		if (!r->var && out->member[0] == '.')
			memmove(out->member, out->member + 1, strlen(out->member));
		return;
	}
	if (off < 0)
		return;
	if (sized && (uint64_t)off >= size && !r->var) {
		append(out, "[%" PRIu64 "]", (uint64_t)off / size);
		off = (int64_t)((uint64_t)off % size);
	}
	type_walk(&type, (uint64_t)off, out, NULL);
	if (!r->var && out->member[0] == '.')
		memmove(out->member, out->member + 1, strlen(out->member));
}

int symbols__access_type(struct symbols *s, const struct map_desc *map, uint64_t addr, uint64_t data,
			 uint64_t obj_start, uint64_t obj_size, struct data_loc *out, enum dtype_reason *reason)
{
	struct dtype_res r;
	struct obj *o;
	uint64_t vaddr;
	int rc;

	if (reason)
		*reason = DT_NO_CODE;
	if (!map || map_is_anon(map) || map->name[0] == '[')
		return -ENOENT;
	rc = obj__at(s, map, addr, false, &o, &vaddr);
	if (rc)
		return rc;
	rc = dtype_get(s, o, vaddr, &r);
	if (reason)
		*reason = (enum dtype_reason)r.reason;
	if (rc)
		return rc;
	res_name(&r, data, obj_start, obj_size, out);
	return 0;
}

int symbols__type_all(struct symbols *s, const char *path, uint64_t counts[DT_NR],
		      void (*cb)(void *arg, uint64_t vaddr, enum dtype_reason r, const struct data_loc *d),
		      void *arg)
{
	struct map_desc map = { .name = (char *)path, .start = 0, .end = UINT64_MAX };
	struct obj *o = obj__get(s, &map);
	GElf_Addr bias;
	Elf *elf;
	Elf_Scn *scn = NULL;
	const struct dt_arch *arch;
	csh *h;
	int rc = o ? obj_err(o) : -ENOENT;

	if (rc)
		return rc;
	arch = arch_of(o);
	elf = dwfl_module_getelf(o->mod, &bias);
	if (!elf || !arch || !cs_handle(s, arch->machine, &h))
		return -ENOEXEC;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const uint8_t *code;
		size_t avail;
		cs_insn *in;
		uint64_t a;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		avail = code_span(o, sh.sh_addr, &code);
		in = cs_malloc(*h);
		a = sh.sh_addr;
		while (avail) {
			const uint8_t *p = code;
			size_t left = avail;
			uint64_t at = a;
			struct dtype_res r;
			struct data_loc d;

			if (!cs_disasm_iter(*h, &p, &left, &at, in)) {
				code++, avail--, a++;
				continue;
			}
			code = p, avail = left, a = at;
			if (!arch->counted(in))
				continue;
			memset(&d, 0, sizeof(d));
			rc = dtype_get(s, o, in->address, &r);
			if (!rc)
				res_name(&r, 0, 0, 0, &d);
			counts[r.reason]++;
			if (cb)
				cb(arg, in->address, (enum dtype_reason)r.reason, &d);
		}
		cs_free(in, 1);
	}
	return 0;
}
