// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 for the data-type tracker (dtype_int.h): moves, lea, adds, pushes
 * and pops, calls, %fs and %rip-relative operands.
 */
#include <elf.h>
#include "names/dtype_int.h"

#define DW_RDI 5
#define DW_RBP 6
#define DW_RSP 7
#define DW_RIP 16

/* ---- x86-64 registers ---- */

static int x86_dw(unsigned int r)
{
	switch (r) {
	case X86_REG_RAX: case X86_REG_EAX: case X86_REG_AX: case X86_REG_AL: case X86_REG_AH: return 0;
	case X86_REG_RDX: case X86_REG_EDX: case X86_REG_DX: case X86_REG_DL: case X86_REG_DH: return 1;
	case X86_REG_RCX: case X86_REG_ECX: case X86_REG_CX: case X86_REG_CL: case X86_REG_CH: return 2;
	case X86_REG_RBX: case X86_REG_EBX: case X86_REG_BX: case X86_REG_BL: case X86_REG_BH: return 3;
	case X86_REG_RSI: case X86_REG_ESI: case X86_REG_SI: case X86_REG_SIL: return 4;
	case X86_REG_RDI: case X86_REG_EDI: case X86_REG_DI: case X86_REG_DIL: return 5;
	case X86_REG_RBP: case X86_REG_EBP: case X86_REG_BP: case X86_REG_BPL: return 6;
	case X86_REG_RSP: case X86_REG_ESP: case X86_REG_SP: case X86_REG_SPL: return 7;
	case X86_REG_R8: case X86_REG_R8D: case X86_REG_R8W: case X86_REG_R8B: return 8;
	case X86_REG_R9: case X86_REG_R9D: case X86_REG_R9W: case X86_REG_R9B: return 9;
	case X86_REG_R10: case X86_REG_R10D: case X86_REG_R10W: case X86_REG_R10B: return 10;
	case X86_REG_R11: case X86_REG_R11D: case X86_REG_R11W: case X86_REG_R11B: return 11;
	case X86_REG_R12: case X86_REG_R12D: case X86_REG_R12W: case X86_REG_R12B: return 12;
	case X86_REG_R13: case X86_REG_R13D: case X86_REG_R13W: case X86_REG_R13B: return 13;
	case X86_REG_R14: case X86_REG_R14D: case X86_REG_R14W: case X86_REG_R14B: return 14;
	case X86_REG_R15: case X86_REG_R15D: case X86_REG_R15W: case X86_REG_R15B: return 15;
	case X86_REG_RIP: return DW_RIP;
	default: return -1;
	}
}

static bool x86_is64(unsigned int r)
{
	switch (r) {
	case X86_REG_RAX: case X86_REG_RDX: case X86_REG_RCX: case X86_REG_RBX: case X86_REG_RSI:
	case X86_REG_RDI: case X86_REG_RBP: case X86_REG_RSP: case X86_REG_R8: case X86_REG_R9:
	case X86_REG_R10: case X86_REG_R11: case X86_REG_R12: case X86_REG_R13: case X86_REG_R14:
	case X86_REG_R15:
		return true;
	default:
		return false;
	}
}

/* ---- the transfer ---- */

static bool mem_of(const cs_insn *in, const cs_x86_op *op, struct mem *m)
{
	if (op->type != X86_OP_MEM)
		return false;
	m->seg = op->mem.segment == X86_REG_FS ? 1 : op->mem.segment == X86_REG_GS ? 2 : 0;
	m->base = op->mem.base ? x86_dw(op->mem.base) : -1;
	m->index = op->mem.index ? x86_dw(op->mem.index) : -1;
	m->scale = (uint8_t)op->mem.scale;
	m->disp = op->mem.disp;
	m->size = op->size;
	m->next = in->address + in->size;
	return !(op->mem.base && m->base < 0) && !(op->mem.index && m->index < 0);
}

static void clobber_written(struct dt *c, const cs_insn *in, struct tst *t)
{
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;

	if (cs_regs_access(c->h, in, rd, &nrd, wr, &nwr))
		return;
	for (uint8_t i = 0; i < nwr; i++) {
		int r = x86_dw(wr[i]);

		if (r >= 0 && r < NR_REGS)
			t->reg[r] = dt_none;
	}
}

/* the operands that a mov-like instruction reads and writes */
static void src_dst(const cs_x86 *x, const cs_x86_op **src, const cs_x86_op **dst)
{
	*src = *dst = NULL;
	for (uint8_t i = 0; i < x->op_count; i++) {
		if (x->operands[i].access & CS_AC_WRITE)
			*dst = &x->operands[i];
		else
			*src = &x->operands[i];
	}
}

/* What a call returns in %rax (dt_call_ret): a direct call's target
 * names the callee. */
static uint32_t call_ret(struct dt *c, const cs_insn *in, bool *val)
{
	const cs_x86 *x = &in->detail->x86;
	uint64_t target = x->op_count == 1 && x->operands[0].type == X86_OP_IMM ? (uint64_t)x->operands[0].imm : 0;

	return dt_call_ret(c, target, in->address + in->size, val);
}

/* A move: a register takes what its source holds (a register, a frame slot, a
 * .got slot, a loaded pointer member); a pointer stored to the frame is kept
 * there, an untyped one stored into a typed pointer gets its type. */
static bool x86_mov(struct dt *c, const cs_insn *in, struct tst *t, const cs_x86_op *src, const cs_x86_op *dst)
{
	struct mem m;
	int d;

	if (!dst || !src)
		return false;
	if (dst->type == X86_OP_REG) {
		bool wide = x86_is64(dst->reg), full = wide || dst->size == 4;

		d = x86_dw(dst->reg);
		if (d < 0 || d >= NR_REGS)
			return true;
		if (!full) {
			t->reg[d] = dt_none;     /* a byte or word: the rest stays */
			return true;
		}
		if (src->type == X86_OP_REG) {
			int sr = x86_dw(src->reg);
			const struct rst *r = sr >= 0 && sr < NR_REGS ? &t->reg[sr] : &dt_none;

			t->reg[d] = (wide && x86_is64(src->reg)) || r->kind == R_VAL ? *r : dt_none;
			return true;
		}
		if (src->type == X86_OP_MEM && mem_of(in, src, &m)) {
			struct slot *sl;
			struct ref f;
			struct rst r;

			if (m.seg == 1 && m.base < 0 && m.index < 0 && !m.disp && wide) {
				t->reg[d] = (struct rst){ .kind = R_TP };
				return true;
			}
			if (m.seg == 0 && m.base == DW_RIP && m.index < 0 && wide &&
			    dt_got_load(c, m.next + (uint64_t)m.disp, m.size, &t->reg[d]))
				return true;
			if (m.seg == 0 && m.base >= 0 && m.index < 0 && t->reg[m.base].kind == R_FRAME &&
			    (sl = dt_slot_find(t, t->reg[m.base].off + m.disp))) {
				t->reg[d] = sl->r.kind == R_VAL || wide ? sl->r : dt_none;
				return true;
			}
			f = dt_eval(c, in->address, &m, t);
			r = dt_load_of(c, &f);
			t->reg[d] = r.kind == R_VAL || (wide && m.size == 8) ? r : dt_none;
			return true;
		}
		t->reg[d] = dt_none;
		return true;
	}
	if (dst->type == X86_OP_MEM && src->type == X86_OP_REG && x86_is64(src->reg) && mem_of(in, dst, &m) &&
	    m.size == 8 && (d = x86_dw(src->reg)) >= 0 && d < NR_REGS &&
	    (t->reg[d].kind == R_NONE || (t->reg[d].kind == R_PTR && !t->reg[d].type))) {
		/* an untyped pointer stored into a typed pointer (the
		 * result of an allocation): the register is one */
		struct ref f = dt_eval(c, in->address, &m, t);
		struct rst r = dt_load_of(c, &f);

		if (r.kind == R_PTR && r.type) {
			dt_infer(c, &t->reg[d], r.type);
			t->reg[d] = r;
		}
	}
	if (dst->type == X86_OP_MEM && mem_of(in, dst, &m) && m.seg == 0 && m.base >= 0 && m.index < 0 &&
	    t->reg[m.base].kind == R_FRAME) {
		int sr = src->type == X86_OP_REG ? x86_dw(src->reg) : -1;
		const struct rst *r = sr >= 0 && sr < NR_REGS ? &t->reg[sr] : &dt_none;

		dt_slot_set(t, t->reg[m.base].off + m.disp,
			 r->kind == R_VAL || (r->kind != R_NONE && m.size == 8) ? r : &dt_none);
	}
	return true;
}

/* lea: a computed address (a frame or TLS offset, a tls_index pair, a
 * member of what the base points to). */
static bool x86_lea(struct dt *c, const cs_insn *in, struct tst *t, const cs_x86_op *src, const cs_x86_op *dst)
{
	struct mem m;
	int d;

	if (!dst || !src || dst->type != X86_OP_REG || (d = x86_dw(dst->reg)) < 0 || d >= NR_REGS)
		return false;
	if (!mem_of(in, src, &m) || m.seg || (!x86_is64(dst->reg) && dst->size != 4)) {
		t->reg[d] = dt_none;
		return true;
	}
	if (m.base == DW_RIP && m.index < 0 && x86_is64(dst->reg)) {
		int64_t tlsoff;

		if (dt_tls_slot(c->o, &c->o->tls_gd, m.next + (uint64_t)m.disp, &tlsoff)) {
			t->reg[d] = (struct rst){ .kind = R_TLSGD, .off = tlsoff };
			return true;
		}
	}
	if (!x86_is64(dst->reg)) {
		/* 32-bit arithmetic on a value keeps its type */
		t->reg[d] = m.base >= 0 && m.base < NR_REGS && m.index < 0 && t->reg[m.base].kind == R_VAL
				    ? t->reg[m.base] : dt_none;
		return true;
	}
	if (m.base >= 0 && m.base < NR_REGS && m.index < 0 &&
	    (t->reg[m.base].kind == R_FRAME || t->reg[m.base].kind == R_FRAMEX || t->reg[m.base].kind == R_TP ||
	     t->reg[m.base].kind == R_TLS || t->reg[m.base].kind == R_ADDR)) {
		struct rst r = t->reg[m.base];

		r.off += m.disp;
		t->reg[d] = r;
		return true;
	}
	if (m.base >= 0 && m.base < NR_REGS && m.index < 0 && t->reg[m.base].kind == R_VAL) {
		t->reg[d] = t->reg[m.base];     /* arithmetic on a value: its type */
		return true;
	}
	{
		struct ref f = dt_eval(c, in->address, &m, t);

		t->reg[d] = f.reason ? dt_none
				     : (struct rst){ .kind = R_PTR, .src = f.src, .idx = f.idx, .inner = f.inner,
						     .type = f.type, .var = f.var, .off = f.off };
	}
	return true;
}

/* add and sub: offsets moved by constants, the thread pointer plus a TLS
 * offset, a pointer plus an index. */
static bool x86_add_sub(struct dt *c, const cs_insn *in, struct tst *t, const cs_x86_op *src, const cs_x86_op *dst)
{
	struct mem m;
	int d;
	struct rst *r;
	const struct rst *sr;
	int64_t tlsoff;

	if (!dst || !src || dst->type != X86_OP_REG || (d = x86_dw(dst->reg)) < 0 || d >= NR_REGS)
		return false;
	r = &t->reg[d];
	if (!x86_is64(dst->reg)) {
		if (r->kind != R_VAL || dst->size != 4)
			*r = dt_none;
		return true;
	}
	if (src->type == X86_OP_IMM) {
		if (r->kind == R_PTR || r->kind == R_FRAME || r->kind == R_FRAMEX || r->kind == R_TP ||
		    r->kind == R_TLS || r->kind == R_TLSOFF || r->kind == R_ADDR)
			r->off += in->id == X86_INS_ADD ? src->imm : -src->imm;
		return true;
	}
	sr = src->type == X86_OP_REG && x86_dw(src->reg) >= 0 && x86_dw(src->reg) < NR_REGS
		     ? &t->reg[x86_dw(src->reg)] : &dt_none;
	if (in->id == X86_INS_ADD && src->type == X86_OP_MEM && r->kind == R_TP && mem_of(in, src, &m) &&
	    m.base == DW_RIP && m.index < 0 && dt_tls_slot(c->o, &c->o->tls_got, m.next + (uint64_t)m.disp, &tlsoff)) {
		/* the thread pointer plus a variable's offset from the GOT */
		*r = (struct rst){ .kind = R_TLS, .off = tlsoff };
		return true;
	}
	if (in->id == X86_INS_ADD && ((r->kind == R_TP && sr->kind == R_TLSOFF) ||
				      (r->kind == R_TLSOFF && sr->kind == R_TP))) {
		*r = (struct rst){ .kind = R_TLS, .off = r->kind == R_TLSOFF ? r->off : sr->off };
		return true;
	}
	if (in->id == X86_INS_ADD && src->type == X86_OP_MEM && (r->kind == R_NONE || r->kind == R_VAL) &&
	    mem_of(in, src, &m) && m.size == 8) {
		/* an index plus a pointer loaded from memory:
		 * &base[i], base a pointer member */
		struct ref f = dt_eval(c, in->address, &m, t);
		struct rst p = dt_load_of(c, &f);

		*r = p.kind == R_PTR ? p : dt_none;
		r->idx = p.kind == R_PTR;
		return true;
	}
	if (r->kind == R_PTR && sr->kind != R_PTR && src->type == X86_OP_REG) {
		r->idx = true;          /* a pointer moved by an index */
		r->inner = false;
	} else if (in->id == X86_INS_ADD && (r->kind == R_NONE || r->kind == R_VAL) && sr->kind == R_PTR) {
		*r = *sr;
		r->idx = true;
	} else {
		*r = dt_none;
	}
	return true;
}

/* and: a pointer aligned down (an inlined memset's start). */
static bool x86_and(struct dt *c, const cs_insn *in, struct tst *t, const cs_x86_op *src, const cs_x86_op *dst)
{
	int d;

	/* a pointer aligned down (an inlined memset's start): the
	 * object and the frame are aligned to 16 */
	if (dst && src && dst->type == X86_OP_REG && src->type == X86_OP_IMM && x86_is64(dst->reg) &&
	    (src->imm == -8 || src->imm == -16) && (d = x86_dw(dst->reg)) >= 0 && d < NR_REGS && d != DW_RSP &&
	    ((t->reg[d].kind == R_PTR && t->reg[d].off >= 0) || t->reg[d].kind == R_FRAME ||
	     t->reg[d].kind == R_FRAMEX)) {
		t->reg[d].off &= src->imm;
		return true;
	}
	return false;
}

/* push: a register spilled to the frame. */
static bool x86_push(struct dt *c, const cs_insn *in, struct tst *t, const cs_x86_op *src, const cs_x86_op *dst)
{
	const cs_x86 *x = &in->detail->x86;
	struct rst *rsp = &t->reg[DW_RSP];
	int d;

	if (rsp->kind != R_FRAME)
		return false;
	rsp->off -= 8;
	d = x->op_count && x->operands[0].type == X86_OP_REG ? x86_dw(x->operands[0].reg) : -1;
	dt_slot_set(t, rsp->off, d >= 0 && d < NR_REGS ? &t->reg[d] : &dt_none);
	return true;
}

/* pop: a register restored from the frame. */
static bool x86_pop(struct dt *c, const cs_insn *in, struct tst *t, const cs_x86_op *src, const cs_x86_op *dst)
{
	const cs_x86 *x = &in->detail->x86;
	struct rst *rsp = &t->reg[DW_RSP];
	int d;

	if (rsp->kind != R_FRAME)
		return false;
	d = x->op_count && x->operands[0].type == X86_OP_REG ? x86_dw(x->operands[0].reg) : -1;
	if (d >= 0 && d < NR_REGS) {
		struct slot *sl = dt_slot_find(t, rsp->off);

		t->reg[d] = sl ? sl->r : dt_none;
	}
	rsp->off += 8;
	return true;
}

/* leave: the frame pointer's frame unwound. */
static bool x86_leave(struct dt *c, const cs_insn *in, struct tst *t, const cs_x86_op *src, const cs_x86_op *dst)
{
	struct rst *rsp = &t->reg[DW_RSP];

	if (t->reg[DW_RBP].kind == R_FRAME) {
		struct slot *sl = dt_slot_find(t, t->reg[DW_RBP].off);

		*rsp = t->reg[DW_RBP];
		rsp->off += 8;
		t->reg[DW_RBP] = sl ? sl->r : dt_none;
		return true;
	}
	return false;
}

/* call: the caller-saved registers lost, %rax the callee's result. */
static bool x86_call(struct dt *c, const cs_insn *in, struct tst *t, const cs_x86_op *src, const cs_x86_op *dst)
{
	static const int saved_not[] = { 0, 1, 2, 4, 5, 8, 9, 10, 11 };
	bool val = false;
	uint32_t ret = call_ret(c, in, &val);
	struct rst arg = t->reg[DW_RDI];

	for (size_t i = 0; i < sizeof(saved_not) / sizeof(saved_not[0]); i++)
		t->reg[saved_not[i]] = dt_none;
	if (arg.kind == R_TLSGD) {
		/* __tls_get_addr (the only taker of a tls_index):
		 * the address of that byte of the block */
		t->reg[0] = (struct rst){ .kind = R_TLS, .off = arg.off };
		return true;
	}
	t->reg[0] = dt_call_result(c, in, ret, val);
	return true;
}

/* One instruction's effect on the tracked state: a handler per family
 * (true: handled), else every register it writes loses its type. */
static void x86_step(struct dt *c, const cs_insn *in, struct tst *t)
{
	const cs_x86_op *src, *dst;
	bool done;

	src_dst(&in->detail->x86, &src, &dst);
	switch (in->id) {
	case X86_INS_MOV:
	case X86_INS_MOVZX:
	case X86_INS_MOVSX:
	case X86_INS_MOVSXD:
		done = x86_mov(c, in, t, src, dst);
		break;
	case X86_INS_LEA:
		done = x86_lea(c, in, t, src, dst);
		break;
	case X86_INS_ADD:
	case X86_INS_SUB:
		done = x86_add_sub(c, in, t, src, dst);
		break;
	case X86_INS_AND:
		done = x86_and(c, in, t, src, dst);
		break;
	case X86_INS_PUSH:
		done = x86_push(c, in, t, src, dst);
		break;
	case X86_INS_POP:
		done = x86_pop(c, in, t, src, dst);
		break;
	case X86_INS_LEAVE:
		done = x86_leave(c, in, t, src, dst);
		break;
	case X86_INS_CALL:
		done = x86_call(c, in, t, src, dst);
		break;
	default:
		done = false;
		break;
	}
	if (!done)
		clobber_written(c, in, t);
}

static void x86_succs(const struct dt *c, size_t i, size_t *fall, size_t *target, bool *indirect)
{
	const cs_insn *in = &c->ins[i];
	const cs_x86 *x = &in->detail->x86;
	bool jump = cs_insn_group(c->h, in, CS_GRP_JUMP);

	*fall = i + 1 < c->n ? i + 1 : SIZE_MAX;
	*target = SIZE_MAX;
	*indirect = false;
	if (in->id == X86_INS_RET || in->id == X86_INS_UD2 || in->id == X86_INS_HLT)
		*fall = SIZE_MAX;
	if (in->id == X86_INS_CALL &&
	    dt_noreturn(c, i, x->op_count == 1 && x->operands[0].type == X86_OP_IMM ? (uint64_t)x->operands[0].imm : 0))
		*fall = SIZE_MAX;
	if (!jump)
		return;
	if (in->id == X86_INS_JMP)
		*fall = SIZE_MAX;
	if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM)
		*target = dt_insn_at(c, (uint64_t)x->operands[0].imm);
	else
		*indirect = in->id == X86_INS_JMP;
}

/* The memory operand of in, if any (not lea, not the stack's own
 * push/pop/call/ret). */
static const cs_x86_op *mem_operand(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	if (in->id == X86_INS_LEA || in->id == X86_INS_NOP)
		return NULL;
	for (uint8_t i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM)
			return &x->operands[i];
	return NULL;
}

static struct ref x86_spill(const struct dt *c, const cs_insn *in, const struct tst *t, const struct ref *f)
{
	const cs_x86_op *src, *dst;
	const struct rst *r;
	int sr;

	src_dst(&in->detail->x86, &src, &dst);
	if (in->id != X86_INS_MOV || !src || src->type != X86_OP_REG || (sr = x86_dw(src->reg)) < 0 || sr >= NR_REGS)
		return *f;
	r = &t->reg[sr];
	if (r->kind == R_VAL)
		return (struct ref){ .src = TYPE_TRACKED, .type = r->type };
	if (r->kind == R_PTR && r->type && x86_is64(src->reg))
		return (struct ref){ .src = TYPE_TRACKED, .type = r->type, .ptr = true };
	return *f;
}

static int x86_mem(const cs_insn *in, struct mem *m)
{
	const cs_x86_op *op = mem_operand(in);

	if (!op)
		return 0;
	return mem_of(in, op, m) ? 1 : -1;
}

static bool x86_pad(const cs_insn *in)
{
	return in->id == X86_INS_NOP || in->id == X86_INS_INT3;
}

/* stack pushes and pops excluded */
static bool x86_counted(const cs_insn *in)
{
	return mem_operand(in) && in->id != X86_INS_PUSH && in->id != X86_INS_POP;
}

static int x86_call_arg(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	return in->id == X86_INS_CALL && x->op_count == 1 && x->operands[0].type == X86_OP_IMM ? DW_RDI : -1;
}

const struct dt_arch dt_x86 = {
	.machine = EM_X86_64,
	.nr_regs = 17,
	.sp = DW_RSP,
	.pc = DW_RIP,
	.sret = DW_RDI,
	.mem = x86_mem,
	.step = x86_step,
	.succs = x86_succs,
	.spill = x86_spill,
	.pad = x86_pad,
	.counted = x86_counted,
	.call_arg = x86_call_arg,
};
