// SPDX-License-Identifier: GPL-2.0
/*
 * The instruction an emulated sample stands for (emuip.h). A TSan build
 * calls __tsan_read8(p) and then loads from p: the hook's return address
 * is the instruction after the call, usually that load, but the compiler
 * may place others between (the value to store computed after the call, a
 * register moved). The runtime sends the code around the return address
 * with a thread's first sample of it; here capstone walks from the return
 * address to the first instruction that loads (or stores) that many bytes
 * through memory other than the stack, within the call's basic block. A
 * hook that is the access itself (an atomic, a range) stands for its call
 * instruction. Nothing found: the return address, as before.
 */
#include <capstone.h>
#include <stdlib.h>
#include <string.h>
#include "perfdata/perf_data.h"
#include "record/emuip.h"
#include "util/htab.h"
#include "util/util.h"

#define MAX_INSNS 8     /* instructions looked at after the call */

struct emu_ip {
	csh cs;
	bool cs_ok;
	struct u64map tids;             /* tid -> its index in rets */
	struct u64map *rets;            /* per thread: return address -> the access's address */
	size_t nr_rets, alloc_rets;
};

struct emu_ip *emu_ip__new(void)
{
	struct emu_ip *x = xcalloc(1, sizeof(*x));

#if defined(__x86_64__)
	x->cs_ok = cs_open(CS_ARCH_X86, CS_MODE_64, &x->cs) == CS_ERR_OK;
#elif defined(__aarch64__)
	x->cs_ok = cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &x->cs) == CS_ERR_OK;
#endif
	if (x->cs_ok)
		cs_option(x->cs, CS_OPT_DETAIL, CS_OPT_ON);
	return x;
}

void emu_ip__delete(struct emu_ip *x)
{
	if (!x)
		return;
	if (x->cs_ok)
		cs_close(&x->cs);
	for (size_t i = 0; i < x->nr_rets; i++)
		u64map__exit(&x->rets[i]);
	free(x->rets);
	u64map__exit(&x->tids);
	free(x);
}

/* The thread's map of return addresses, made when make. */
static struct u64map *thread_rets(struct emu_ip *x, uint32_t tid, bool make)
{
	uint64_t i;

	if (u64map__get(&x->tids, tid, &i))
		return &x->rets[i];
	if (!make)
		return NULL;
	xgrow((void **)&x->rets, &x->alloc_rets, x->nr_rets + 1, sizeof(*x->rets));
	memset(&x->rets[x->nr_rets], 0, sizeof(*x->rets));
	u64map__put(&x->tids, tid, x->nr_rets);
	return &x->rets[x->nr_rets++];
}

#if defined(__x86_64__)
/* A load (or store) of size bytes through memory that is not the stack's
 * (a spill or a reload of a local), nor lea's address. */
static bool is_access(const cs_insn *in, uint32_t size, bool store)
{
	const cs_x86 *d = &in->detail->x86;

	if (in->id == X86_INS_LEA || in->id == X86_INS_NOP)
		return false;
	for (uint8_t i = 0; i < d->op_count; i++) {
		const cs_x86_op *op = &d->operands[i];

		if (op->type != X86_OP_MEM)
			continue;
		if (op->mem.base == X86_REG_RSP || (op->mem.base == X86_REG_RBP && op->mem.disp < 0))
			return false;
		return op->size == size && (op->access & (store ? CS_AC_WRITE : CS_AC_READ));
	}
	return false;
}

/* The call instruction that returns to ret: a direct call (5 bytes) or
 * one through the GOT (6); else ret. */
static uint64_t call_before(const uint8_t *before, uint32_t nb, uint64_t ret)
{
	if (nb >= 5 && before[nb - 5] == 0xe8)
		return ret - 5;
	if (nb >= 6 && before[nb - 6] == 0xff && before[nb - 5] == 0x15)
		return ret - 6;
	return ret;
}
#elif defined(__aarch64__)
/* A load or store of size bytes (ldr/str and their sized and unscaled
 * forms) not through sp. */
static bool is_access(const cs_insn *in, uint32_t size, bool store)
{
	const cs_arm64 *d = &in->detail->arm64;
	const char *m = in->mnemonic;
	uint32_t bytes = 0;

	if ((m[0] != 'l' || m[1] != 'd') && (m[0] != 's' || m[1] != 't'))
		return false;
	if ((m[0] == 's') != store || d->op_count < 2 || d->operands[d->op_count - 1].type != ARM64_OP_MEM ||
	    d->operands[d->op_count - 1].mem.base == ARM64_REG_SP)
		return false;
	if (strchr(m, 'b'))
		bytes = 1;
	else if (strchr(m + 2, 'h'))
		bytes = 2;
	else if (strstr(m, "sw"))
		bytes = 4;
	else if (d->operands[0].type == ARM64_OP_REG)
		bytes = d->operands[0].reg >= ARM64_REG_W0 && d->operands[0].reg <= ARM64_REG_W30 ? 4 : 8;
	return bytes == size;
}

/* bl: 4 bytes before the return address */
static uint64_t call_before(const uint8_t *before, uint32_t nb, uint64_t ret)
{
	(void)before;
	return nb >= 4 ? ret - 4 : ret;
}
#else
static bool is_access(const cs_insn *in, uint32_t size, bool store)
{
	(void)in, (void)size, (void)store;
	return false;
}

static uint64_t call_before(const uint8_t *before, uint32_t nb, uint64_t ret)
{
	(void)before, (void)nb;
	return ret;
}
#endif

/* The first access of size bytes (a store or a load) after ret, within
 * its basic block and MAX_INSNS instructions; else ret. */
static uint64_t find(struct emu_ip *x, const uint8_t *code, uint32_t na, uint64_t ret, uint32_t size, bool store)
{
	cs_insn *in = x->cs_ok ? cs_malloc(x->cs) : NULL;
	const uint8_t *p = code;
	size_t left = na;
	uint64_t at = ret, found = ret;

	for (int k = 0; in && k < MAX_INSNS && cs_disasm_iter(x->cs, &p, &left, &at, in); k++) {
		if (cs_insn_group(x->cs, in, CS_GRP_JUMP) || cs_insn_group(x->cs, in, CS_GRP_CALL) ||
		    cs_insn_group(x->cs, in, CS_GRP_RET) || cs_insn_group(x->cs, in, CS_GRP_INT))
			break;
		if (is_access(in, size, store)) {
			found = in->address;
			break;
		}
	}
	if (in)
		cs_free(in, 1);
	return found;
}

uint64_t emu_ip__of(struct emu_ip *x, const struct pd_emu_sample *e, const uint8_t *code)
{
	const struct u64map *m;
	uint64_t ip = e->ret;

	if (e->size == PD_EMU_AT_RET)
		return e->ret;
	if (code && (e->code_before || e->code_after)) {
		if (x->cs_ok)
			ip = !e->size ? call_before(code, e->code_before, e->ret) :
			     find(x, code + e->code_before, e->code_after, e->ret, e->size, e->store);
		u64map__put(thread_rets(x, e->tid, true), e->ret, ip);
		return ip;
	}
	m = thread_rets(x, e->tid, false);
	if (m)
		u64map__get(m, e->ret, &ip);
	return ip;
}
