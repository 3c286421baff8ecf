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
 * rest is theirs in common: what an operand points into and what calls
 * return (dtype_eval.c, below them), the flow over a range (here, above
 * them), the answers said as names (dtype_name.c). Other instruction
 * sets: DT_ARCH.
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
	l.var = dt_die_intern(c, var);
	l.type = dt_die_intern(c, &type);
	l.ptr = dt_pointee(&type, &to, &is_void);
	if (l.ptr && !is_void)
		l.pointee = dt_die_intern(c, &to);
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
	if (!(type = dt_ret_type(c, &fn, &val)))
		return;
	xgrow((void **)&c->calls, &c->alloc_calls, c->nr_calls + 1, sizeof(*c->calls));
	c->calls[c->nr_calls++] = (struct call_site){ .ret = ret + c->bias, .type = type, .val = val };
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
		if ((dst->reg[i].kind == R_NONE && !dst->reg[i].from) || dt_rst_eq(&dst->reg[i], &src->reg[i]))
			continue;
		if (same_place(&dst->reg[i], &src->reg[i])) {
			/* one pointer or value reached two ways (a variable
			 * on one path, a load on the other): the type stays,
			 * what told it goes where they differ */
			struct rst m = dst->reg[i];

			m.src = m.src == src->reg[i].src ? m.src : TYPE_TRACKED;
			m.var = m.var == src->reg[i].var ? m.var : 0;
			m.from = m.from == src->reg[i].from ? m.from : 0;
			if (!dt_rst_eq(&m, &dst->reg[i])) {
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

		if (o && dt_rst_eq(&o->r, &dst->slot[i].r))
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
	return dt_die_intern(c, &t);
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

/* A direct call's first argument, as a pointer the callee accesses
 * through: its answer under the call's address | DT_ARG_KEY. */
static void arg_type(struct dt *c, struct obj *o, size_t i, struct tst *t)
{
	int reg = c->arch->call_arg(&c->ins[i]);
	struct mem m = { .seg = 0, .base = reg, .index = -1, .next = c->ins[i].address + c->ins[i].size };
	struct dtype_res r = { .reason = DT_UNTYPED_REG };
	struct ref f;

	if (reg < 0)
		return;
	f = dt_eval(c, c->ins[i].address, &m, t);
	res_of(c, &f, &r);
	acache__put_new(&o->dtypes, c->ins[i].address | DT_ARG_KEY, f.reason ? -ENOENT : 0, &r);
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

		/* the names cache may have the answer already */
		acache__put_new(&o->dtypes, sp->lo, -ENOENT, &r);
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
		qsort(c.calls, c.nr_calls, sizeof(*c.calls), dt_call_site_cmp);
	if (c.nr_noret)
		qsort(c.noret, c.nr_noret, sizeof(*c.noret), cmp_u64_key);
	gens_build(&c);
	blocks_build(&c);
	c.in = xcalloc(c.nb, sizeof(*c.in));
	flow(&c);
	if (dt_infer_calls(&c)) {
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
				arg_type(&c, o, i, &t);
			if (t.seen)
				c.arch->step(&c, &c.ins[i], &t);
			acache__put_new(&o->dtypes, c.ins[i].address, rc, &r); /* an earlier range may overlap */
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

const struct dt_arch *dt_arch_of(struct obj *o)
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

int dt_get(struct symbols *s, struct obj *o, uint64_t vaddr, struct dtype_res *r)
{
	const struct dt_arch *arch = dt_arch_of(o);
	const struct subp *sp;
	csh *h;
	int rc;

	if (acache__get(&o->dtypes, vaddr, r, &rc))
		return rc;
	if (!o->nc_types_read) {
		namecache__dtypes(s, o);
		if (acache__get(&o->dtypes, vaddr, r, &rc))
			return rc;
	}
	memset(r, 0, sizeof(*r));
	if ((vaddr & DT_ARG_KEY) && acache__get(&o->dtypes, vaddr & ~DT_ARG_KEY, r, &rc)) {
		/* range_type answers a call's argument with its instruction:
		 * an instruction answered without one is not a direct call
		 * (typing its range again would find nothing more) */
		memset(r, 0, sizeof(*r));
		r->reason = DT_NO_MEM;
	} else if (!arch) {
		r->reason = DT_ARCH;
	} else if (!cs_handle(s, arch->machine, &h)) {
		r->reason = DT_NO_CODE;
	} else if (!(sp = subp_lookup(o, vaddr & ~DT_ARG_KEY))) {
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
