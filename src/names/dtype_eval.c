// SPDX-License-Identifier: GPL-2.0
/*
 * Data types (dtype.c), what the per-instruction-set steppers
 * (dtype_x86.c, dtype_a64.c) ask of the function being followed: the DIEs
 * it met, its stack slots, what a memory operand points into (a global, a
 * thread-local, a local of the frame, a member through a typed register)
 * and what a load from there holds, what a call returns and which calls do
 * not return. Below the flow (dtype.c), which calls the steppers.
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

/* ---- DWARF ---- */

uint32_t dt_die_intern(struct dt *c, Dwarf_Die *d)
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
bool dt_peel(Dwarf_Die *t, Dwarf_Die *out)
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
bool dt_pointee(Dwarf_Die *type, Dwarf_Die *to, bool *is_void)
{
	Dwarf_Die p;
	int tag;

	if (!dt_peel(type, &p))
		return false;
	tag = dwarf_tag(&p);
	if (tag != DW_TAG_pointer_type && tag != DW_TAG_reference_type && tag != DW_TAG_rvalue_reference_type)
		return false;
	*is_void = !die_type(&p, to);
	return true;
}

/* What a function returns in %rax: its pointee (*val false) or a value's
 * type (*val true); 0 when void or unknown. */
uint32_t dt_ret_type(struct dt *c, Dwarf_Die *fn, bool *val)
{
	Dwarf_Die type, to;
	bool is_void;

	*val = false;
	if (!die_type(fn, &type))
		return 0;
	if (!dt_pointee(&type, &to, &is_void)) {
		*val = true;
		return dt_die_intern(c, &type);
	}
	return is_void ? 0 : dt_die_intern(c, &to);
}

int dt_call_site_cmp(const void *a, const void *b)
{
	const struct call_site *x = a, *y = b;

	return x->ret < y->ret ? -1 : x->ret > y->ret;
}

/* ---- states ---- */

const struct rst dt_none;

bool dt_rst_eq(const struct rst *a, const struct rst *b)
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
		*r = (struct rst){ .kind = R_PTR, .src = TYPE_VARIABLE, .type = dt_die_intern(c, &type),
				   .var = dt_die_intern(c, &o->got_ext[i].decl) };
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
		return (struct ref){ .src = TYPE_VARIABLE, .idx = idx, .type = dt_die_intern(c, &type),
				     .var = dt_die_intern(c, (Dwarf_Die *)&v->die), .off = off - (int64_t)v->addr };
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
			return (struct ref){ .src = TYPE_TRACKED, .idx = idx, .type = dt_die_intern(c, &o->tcb_type),
					     .off = tpoff };
		return (struct ref){ .reason = DT_TCB };
	}
	if (!o->has_thread_type || dwarf_aggregate_size(&o->thread_type, &size))
		return (struct ref){ .reason = DT_TCB };
	if (c->arch->machine == EM_AARCH64)
		tpoff += (int64_t)size;     /* struct pthread ends at the thread pointer */
	if (tpoff < 0 || (uint64_t)tpoff >= size)
		return (struct ref){ .reason = DT_TCB };
	return (struct ref){ .src = TYPE_TRACKED, .idx = idx, .type = dt_die_intern(c, &o->thread_type), .off = tpoff };
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
	return (struct ref){ .src = TYPE_VARIABLE, .idx = idx, .type = dt_die_intern(c, &type),
			     .var = dt_die_intern(c, (Dwarf_Die *)&v->die), .off = (int64_t)(vaddr - v->addr) };
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
	if (!dt_pointee(&leaf, &to, &is_void))
		return (struct rst){ .kind = R_VAL, .src = TYPE_TRACKED, .type = dt_die_intern(c, &leaf) };
	return (struct rst){ .kind = R_PTR, .src = TYPE_TRACKED, .type = is_void ? 0 : dt_die_intern(c, &to) };
}

/* ---- calls ---- */

uint32_t dt_call_ret(struct dt *c, uint64_t target, uint64_t ret, bool *val)
{
	const struct subp *sp = target ? subp_lookup(c->o, target) : NULL;
	size_t lo = 0, hi = c->nr_calls;

	uint32_t t;

	/* a void * from the callee's DWARF: what its result was stored
	 * into may say more (dt_infer) */
	if (sp && sp->lo == target && ((t = dt_ret_type(c, (Dwarf_Die *)&sp->die, val)) || *val))
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
bool dt_infer_calls(struct dt *c)
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
	qsort(c->calls, c->nr_calls, sizeof(*c->calls), dt_call_site_cmp);
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
