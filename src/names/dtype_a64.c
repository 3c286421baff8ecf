// SPDX-License-Identifier: GPL-2.0
/*
 * aarch64 for the data-type tracker (dtype_int.h).
 *
 * What differs from x86-64: addresses of globals are built in two steps
 * (adrp: the 4 KiB page, then add or a load's offset: the rest; the
 * register holds a module address, R_ADDR, in between); loads and stores
 * move one register or a pair, and may write the base back (pre-index
 * [xN, #k]!, post-index [xN], #k: a pointer walking an array); a 32-bit
 * write (wN) clears the upper half, so only values survive it; the
 * thread pointer is read with mrs tpidr_el0 and an executable's TLS block
 * starts 16 bytes above it (variant I); a shared library's TLS goes
 * through a TLS descriptor, whose call returns the variable's offset from
 * the thread pointer in x0 and keeps every other register. A call
 * clobbers x0-x18 and x30; a struct returned in memory is built at x8.
 *
 * capstone 4 marks the flag-setting compares (cmp, cmn, tst) as writing
 * their first operand; they write no register.
 */
#include <elf.h>
#include <string.h>
#include "names/dtype_int.h"

#define A64_SRET 8              /* x8: the indirect result location */
#define A64_FP 29
#define A64_LR 30
#define A64_SP 31
#define A64_TPIDR_EL0 0xde82    /* mrs system register: op0 3, op1 3, CRn 13, CRm 0, op2 2 */

static int a64_dw(unsigned int r)
{
	if (r >= ARM64_REG_X0 && r <= ARM64_REG_X28)
		return (int)(r - ARM64_REG_X0);
	if (r >= ARM64_REG_W0 && r <= ARM64_REG_W30)
		return (int)(r - ARM64_REG_W0);
	if (r == ARM64_REG_X29)
		return A64_FP;
	if (r == ARM64_REG_X30)
		return A64_LR;
	if (r == ARM64_REG_SP || r == ARM64_REG_WSP)
		return A64_SP;
	return -1;              /* the zero registers, vector registers */
}

static bool a64_is64(unsigned int r)
{
	return (r >= ARM64_REG_X0 && r <= ARM64_REG_X28) || r == ARM64_REG_X29 || r == ARM64_REG_X30 ||
	       r == ARM64_REG_SP;
}

static const struct rst *reg_of(const struct tst *t, const cs_arm64_op *op)
{
	int r = op->type == ARM64_OP_REG ? a64_dw(op->reg) : -1;

	return r >= 0 ? &t->reg[r] : &dt_none;
}

/* offsets that move with an add: pointers and addresses */
static bool movable(uint8_t kind)
{
	return kind == R_PTR || kind == R_FRAME || kind == R_FRAMEX || kind == R_TP || kind == R_TLS ||
	       kind == R_TLSOFF || kind == R_ADDR;
}

static int mem_index(const cs_arm64 *a)
{
	for (uint8_t i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM64_OP_MEM)
			return i;
	return -1;
}

static int a64_mem(const cs_insn *in, struct mem *m)
{
	const cs_arm64 *a = &in->detail->arm64;
	int k = mem_index(a);
	const cs_arm64_op *op;

	memset(m, 0, sizeof(*m));
	m->next = in->address + in->size;
	if (in->id == ARM64_INS_PRFM || in->id == ARM64_INS_PRFUM)
		return 0;
	if (k < 0) {
		/* a literal load: ldr x0, <pc-relative address> */
		if ((in->id == ARM64_INS_LDR || in->id == ARM64_INS_LDRSW) && a->op_count == 2 &&
		    a->operands[1].type == ARM64_OP_IMM) {
			m->base = m->index = -1;
			m->disp = a->operands[1].imm;
			m->size = a64_access_size(in);
			return 1;
		}
		return 0;
	}
	op = &a->operands[k];
	m->base = op->mem.base ? a64_dw(op->mem.base) : -1;
	m->index = op->mem.index ? a64_dw(op->mem.index) : -1;
	m->scale = m->index < 0 ? 0 : op->shift.type == ARM64_SFT_LSL && op->shift.value < 8 ? (uint8_t)(1u << op->shift.value) : 1;
	m->disp = op->mem.disp;
	m->size = a64_access_size(in);
	return m->base < 0 || (op->mem.index && m->index < 0) ? -1 : 1;
}

static bool is_load(unsigned int id)
{
	switch (id) {
	case ARM64_INS_LDR: case ARM64_INS_LDRB: case ARM64_INS_LDRH: case ARM64_INS_LDRSB:
	case ARM64_INS_LDRSH: case ARM64_INS_LDRSW: case ARM64_INS_LDUR: case ARM64_INS_LDURB:
	case ARM64_INS_LDURH: case ARM64_INS_LDURSB: case ARM64_INS_LDURSH: case ARM64_INS_LDURSW:
	case ARM64_INS_LDP: case ARM64_INS_LDPSW: case ARM64_INS_LDNP: case ARM64_INS_LDAR:
	case ARM64_INS_LDARB: case ARM64_INS_LDARH: case ARM64_INS_LDAXR: case ARM64_INS_LDAXRB:
	case ARM64_INS_LDAXRH: case ARM64_INS_LDXR: case ARM64_INS_LDXRB: case ARM64_INS_LDXRH:
	case ARM64_INS_LDTR: case ARM64_INS_LDTRB: case ARM64_INS_LDTRH: case ARM64_INS_LDTRSB:
	case ARM64_INS_LDTRSH: case ARM64_INS_LDTRSW:
		return true;
	default:
		return false;
	}
}

/* stores whose registers before the address are all data (not stxr's status) */
static bool is_store(unsigned int id)
{
	switch (id) {
	case ARM64_INS_STR: case ARM64_INS_STRB: case ARM64_INS_STRH: case ARM64_INS_STUR:
	case ARM64_INS_STURB: case ARM64_INS_STURH: case ARM64_INS_STP: case ARM64_INS_STNP:
	case ARM64_INS_STLR: case ARM64_INS_STLRB: case ARM64_INS_STLRH: case ARM64_INS_STTR:
	case ARM64_INS_STTRB: case ARM64_INS_STTRH:
		return true;
	default:
		return false;
	}
}

/* The bytes one register of a load or store moves. */
static uint8_t reg_size(const struct mem *m, unsigned int nregs)
{
	return nregs > 1 ? (uint8_t)(m->size / nregs) : m->size;
}

/* A pre- or post-index access moves its base register on by the offset
 * (pre: the address's, post: the operand after it). */
static void writeback(const cs_insn *in, const struct mem *m, int k, struct tst *t)
{
	const cs_arm64 *a = &in->detail->arm64;
	int64_t delta = m->disp;
	struct rst *b;

	if (!a->writeback || m->base < 0)
		return;
	if (k + 1 < a->op_count && a->operands[k + 1].type == ARM64_OP_IMM)
		delta = a->operands[k + 1].imm;
	b = &t->reg[m->base];
	if (movable(b->kind))
		b->off += delta;
	else
		*b = dt_none;
}

/* Registers written, for what the cases of a64_step do not follow. */
static void clobber(const cs_insn *in, struct tst *t)
{
	const cs_arm64 *a = &in->detail->arm64;
	struct mem m;
	int k;

	if (in->id == ARM64_INS_CMP || in->id == ARM64_INS_CMN || in->id == ARM64_INS_TST)
		return;
	for (uint8_t i = 0; i < a->op_count; i++) {
		const cs_arm64_op *op = &a->operands[i];
		int r = op->type == ARM64_OP_REG ? a64_dw(op->reg) : -1;

		if (r >= 0 && (op->access & CS_AC_WRITE))
			t->reg[r] = dt_none;
	}
	k = mem_index(a);
	if (k >= 0 && a64_mem(in, &m) > 0)
		writeback(in, &m, k, t);
}

static void a64_load(struct dt *c, const cs_insn *in, struct tst *t)
{
	const cs_arm64 *a = &in->detail->arm64;
	int k = mem_index(a);
	struct rst got[2] = { dt_none, dt_none };
	struct mem m;
	uint8_t size;

	if (k < 1 || k > 2 || a64_mem(in, &m) <= 0) {
		clobber(in, t);
		return;
	}
	size = reg_size(&m, (unsigned int)k);
	for (int i = 0; i < k; i++) {
		const cs_arm64_op *dst = &a->operands[i];
		bool wide = dst->type == ARM64_OP_REG && a64_is64(dst->reg);
		struct mem mi = m;
		const struct rst *b = &t->reg[m.base];
		struct slot *sl;

		mi.disp += i * size;
		mi.size = size;
		/* a GOT slot: TLS initial exec, or a variable's address */
		if (b->kind == R_ADDR && m.index < 0 && wide && size == 8 &&
		    dt_got_load(c, (uint64_t)(b->off + mi.disp), size, &got[i]))
			continue;
		if (b->kind == R_FRAME && m.index < 0 && (sl = dt_slot_find(t, b->off + mi.disp))) {
			got[i] = sl->r.kind == R_VAL || wide ? sl->r : dt_none;
		} else {
			struct ref f = dt_eval(c, in->address, &mi, t);
			struct rst r = dt_load_of(c, &f);

			got[i] = r.kind == R_VAL || (wide && size == 8) ? r : dt_none;
		}
	}
	writeback(in, &m, k, t);
	for (int i = 0; i < k; i++) {
		int d = a64_dw(a->operands[i].reg);

		if (d >= 0)
			t->reg[d] = got[i];
	}
}

static void a64_store(struct dt *c, const cs_insn *in, struct tst *t)
{
	const cs_arm64 *a = &in->detail->arm64;
	int k = mem_index(a);
	struct mem m;
	uint8_t size;

	if (k < 1 || k > 2 || a64_mem(in, &m) <= 0)
		return;
	size = reg_size(&m, (unsigned int)k);
	for (int i = 0; i < k; i++) {
		const cs_arm64_op *src = &a->operands[i];
		int sr = src->type == ARM64_OP_REG ? a64_dw(src->reg) : -1;
		const struct rst *r = sr >= 0 ? &t->reg[sr] : &dt_none;
		const struct rst *b = &t->reg[m.base];
		struct mem mi = m;

		mi.disp += i * size;
		mi.size = size;
		if (sr >= 0 && sr != A64_SP && size == 8 && a64_is64(src->reg) &&
		    (r->kind == R_NONE || (r->kind == R_PTR && !r->type))) {
			/* an untyped pointer stored into a typed pointer (the
			 * result of an allocation): the register is one */
			struct ref f = dt_eval(c, in->address, &mi, t);
			struct rst p = dt_load_of(c, &f);

			if (p.kind == R_PTR && p.type) {
				dt_infer(c, r, p.type);
				t->reg[sr] = p;
			}
		}
		if (b->kind == R_FRAME && m.index < 0)
			dt_slot_set(t, b->off + mi.disp, r->kind == R_VAL || (r->kind != R_NONE && size == 8) ? r : &dt_none);
	}
	writeback(in, &m, k, t);
}

/* add and sub: a pointer or address moved by a constant or an index; the
 * thread pointer plus a variable's offset; 32-bit arithmetic on a value. */
static void a64_add(struct dt *c, const cs_insn *in, struct tst *t, int d, bool wide)
{
	const cs_arm64_op *op = in->detail->arm64.operands;
	const struct rst *r1 = reg_of(t, &op[1]), *r2;
	bool sub = in->id == ARM64_INS_SUB;
	struct rst r = *r1;
	int64_t tlsoff;

	if (!wide) {
		t->reg[d] = r1->kind == R_VAL ? *r1 : dt_none;
		return;
	}
	if (op[2].type == ARM64_OP_IMM) {
		int64_t v = op[2].imm;

		if (op[2].shift.type == ARM64_SFT_LSL && op[2].shift.value < 32)
			v = (int64_t)((uint64_t)v << op[2].shift.value);
		if (movable(r.kind))
			r.off += sub ? -v : v;
		else if (r.kind != R_VAL)
			r = dt_none;
		if (r.kind == R_ADDR && dt_tls_slot(c->o, &c->o->tls_gd, (uint64_t)r.off, &tlsoff))
			r = (struct rst){ .kind = R_TLSGD, .off = tlsoff };  /* a TLS descriptor */
		t->reg[d] = r;
		return;
	}
	r2 = reg_of(t, &op[2]);
	if (!sub && ((r1->kind == R_TP && r2->kind == R_TLSOFF) || (r1->kind == R_TLSOFF && r2->kind == R_TP))) {
		r = (struct rst){ .kind = R_TLS, .off = r1->kind == R_TLSOFF ? r1->off : r2->off };
	} else if (r1->kind == R_PTR && r2->kind != R_PTR) {
		r.idx = true;           /* a pointer moved by an index */
		r.inner = false;
	} else if (!sub && r2->kind == R_PTR && r1->kind != R_PTR && r1->kind != R_FRAME) {
		r = *r2;
		r.idx = true;
	} else if ((r1->kind == R_FRAME || r1->kind == R_FRAMEX) && d != A64_SP && r2->kind != R_PTR) {
		r.kind = R_FRAMEX;      /* into a local array, element unknown */
	} else {
		r = dt_none;
	}
	t->reg[d] = r;
}

static void a64_call(struct dt *c, const cs_insn *in, struct tst *t)
{
	const cs_arm64 *a = &in->detail->arm64;
	struct rst arg = t->reg[0];
	uint64_t target = in->id == ARM64_INS_BL && a->op_count == 1 && a->operands[0].type == ARM64_OP_IMM
				  ? (uint64_t)a->operands[0].imm : 0;
	bool val = false;
	uint32_t ret;

	if (arg.kind == R_TLSGD) {
		/* a TLS descriptor's function: x0 becomes the variable's
		 * offset from the thread pointer, the rest is kept */
		t->reg[0] = (struct rst){ .kind = R_TLSOFF, .off = arg.off };
		t->reg[A64_LR] = dt_none;
		return;
	}
	ret = dt_call_ret(c, target, in->address + in->size, &val);
	for (int r = 0; r <= 18; r++)
		t->reg[r] = dt_none;
	t->reg[A64_LR] = dt_none;
	t->reg[0] = dt_call_result(c, in, ret, val);
}

static void a64_step(struct dt *c, const cs_insn *in, struct tst *t)
{
	const cs_arm64 *a = &in->detail->arm64;
	const cs_arm64_op *op = a->operands;
	int d = a->op_count && op[0].type == ARM64_OP_REG ? a64_dw(op[0].reg) : -1;
	bool wide = d >= 0 && a64_is64(op[0].reg);

	switch (in->id) {
	case ARM64_INS_MOV:
		if (d < 0 || a->op_count != 2)
			break;
		if (op[1].type == ARM64_OP_REG) {
			const struct rst *r = reg_of(t, &op[1]);

			t->reg[d] = (wide && a64_is64(op[1].reg)) || r->kind == R_VAL ? *r : dt_none;
		} else {
			t->reg[d] = dt_none;
		}
		return;
	case ARM64_INS_ADRP:
	case ARM64_INS_ADR:
		if (d < 0 || a->op_count != 2 || op[1].type != ARM64_OP_IMM)
			break;
		t->reg[d] = (struct rst){ .kind = R_ADDR, .off = op[1].imm };
		return;
	case ARM64_INS_ADD:
	case ARM64_INS_SUB:
		if (d < 0 || a->op_count != 3 || op[1].type != ARM64_OP_REG ||
		    (op[2].type != ARM64_OP_IMM && op[2].type != ARM64_OP_REG))
			break;
		a64_add(c, in, t, d, wide);
		return;
	case ARM64_INS_AND:
		/* a pointer aligned down (an inlined memset's start) */
		if (d >= 0 && d != A64_SP && wide && a->op_count == 3 && op[2].type == ARM64_OP_IMM &&
		    (op[2].imm == -8 || op[2].imm == -16) && reg_of(t, &op[1]) == &t->reg[d] &&
		    ((t->reg[d].kind == R_PTR && t->reg[d].off >= 0) || t->reg[d].kind == R_FRAME ||
		     t->reg[d].kind == R_FRAMEX)) {
			t->reg[d].off &= op[2].imm;
			return;
		}
		break;
	case ARM64_INS_MRS:
		if (d >= 0 && a->op_count == 2 && op[1].type == ARM64_OP_REG_MRS && op[1].reg == A64_TPIDR_EL0) {
			t->reg[d] = (struct rst){ .kind = R_TP };
			return;
		}
		break;
	case ARM64_INS_BL:
	case ARM64_INS_BLR:
		a64_call(c, in, t);
		return;
	default:
		if (is_load(in->id)) {
			a64_load(c, in, t);
			return;
		}
		if (is_store(in->id)) {
			a64_store(c, in, t);
			return;
		}
		break;
	}
	clobber(in, t);
}

static void a64_succs(const struct dt *c, size_t i, size_t *fall, size_t *target, bool *indirect)
{
	const cs_insn *in = &c->ins[i];
	const cs_arm64 *a = &in->detail->arm64;
	const cs_arm64_op *last = a->op_count ? &a->operands[a->op_count - 1] : NULL;

	*fall = i + 1 < c->n ? i + 1 : SIZE_MAX;
	*target = SIZE_MAX;
	*indirect = false;
	switch (in->id) {
	case ARM64_INS_RET:
	case ARM64_INS_BRK:
	case ARM64_INS_HLT:
		*fall = SIZE_MAX;
		return;
	case ARM64_INS_BR:
		*fall = SIZE_MAX;
		*indirect = true;
		return;
	case ARM64_INS_B:
		if (a->cc == ARM64_CC_INVALID || a->cc == ARM64_CC_AL || a->cc == ARM64_CC_NV)
			*fall = SIZE_MAX;
		break;
	case ARM64_INS_CBZ:
	case ARM64_INS_CBNZ:
	case ARM64_INS_TBZ:
	case ARM64_INS_TBNZ:
		break;
	case ARM64_INS_BL:
	case ARM64_INS_BLR:
		if (dt_noreturn(c, i, in->id == ARM64_INS_BL && last && last->type == ARM64_OP_IMM ? (uint64_t)last->imm : 0))
			*fall = SIZE_MAX;
		return;
	default:
		return;
	}
	if (last && last->type == ARM64_OP_IMM)
		*target = dt_insn_at(c, (uint64_t)last->imm);
}

static struct ref a64_spill(const struct dt *c, const cs_insn *in, const struct tst *t, const struct ref *f)
{
	const cs_arm64 *a = &in->detail->arm64;
	const struct rst *r;

	(void)c;
	if ((in->id != ARM64_INS_STR && in->id != ARM64_INS_STUR) || a->op_count < 2 ||
	    a->operands[0].type != ARM64_OP_REG)
		return *f;
	r = reg_of(t, &a->operands[0]);
	if (r->kind == R_VAL)
		return (struct ref){ .src = TYPE_TRACKED, .type = r->type };
	if (r->kind == R_PTR && r->type && a64_is64(a->operands[0].reg))
		return (struct ref){ .src = TYPE_TRACKED, .type = r->type, .ptr = true };
	return *f;
}

static bool a64_pad(const cs_insn *in)
{
	return in->id == ARM64_INS_NOP || in->id == ARM64_INS_BRK;
}

/* Saved registers: the callee-saved x19-x30 and d8-d15 */
static bool callee_saved(unsigned int r)
{
	return (r >= ARM64_REG_X19 && r <= ARM64_REG_X28) || r == ARM64_REG_X29 || r == ARM64_REG_X30 ||
	       (r >= ARM64_REG_D8 && r <= ARM64_REG_D15);
}

/* Not counted, as x86's pushes and pops are not: a prologue's or an
 * epilogue's save and restore of callee-saved registers in the frame. */
static bool a64_counted(const cs_insn *in)
{
	const cs_arm64 *a = &in->detail->arm64;
	struct mem m;
	int k = mem_index(a);
	bool saves = k > 0;

	if (!a64_mem(in, &m))
		return false;
	if (k < 0 || (a->operands[k].mem.base != ARM64_REG_SP && a->operands[k].mem.base != ARM64_REG_X29))
		return true;
	for (int i = 0; i < k; i++)
		saves = saves && a->operands[i].type == ARM64_OP_REG && callee_saved(a->operands[i].reg);
	return !saves;
}

static int a64_call_arg(const cs_insn *in)
{
	const cs_arm64 *a = &in->detail->arm64;

	return in->id == ARM64_INS_BL && a->op_count == 1 && a->operands[0].type == ARM64_OP_IMM ? 0 : -1;
}

const struct dt_arch dt_a64 = {
	.machine = EM_AARCH64,
	.nr_regs = 32,
	.sp = A64_SP,
	.pc = -1,
	.sret = A64_SRET,
	.mem = a64_mem,
	.step = a64_step,
	.succs = a64_succs,
	.spill = a64_spill,
	.pad = a64_pad,
	.counted = a64_counted,
	.call_arg = a64_call_arg,
};
