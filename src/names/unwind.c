// SPDX-License-Identifier: GPL-2.0
/*
 * User stacks of --call-graph dwarf samples, unwound by libdwfl's unwinder
 * over the sample's own copies: its user registers (PERF_SAMPLE_REGS_USER)
 * and the bytes above its stack pointer (PERF_SAMPLE_STACK_USER).
 *
 * One Dwfl per process, attached once (dwfl_attach_state) with callbacks
 * that answer for "the current sample": its registers as the initial frame,
 * its stack copy as the only readable memory. Modules are reported lazily
 * at their load bias: the one holding the sample's pc before unwinding, and
 * when a frame lands in a file mapping not reported yet the walk stops,
 * that module is reported and the walk starts again (a few times at most a
 * process: its executable and libraries). libdwfl keeps each module's CFI,
 * so a process's later samples unwind from cached tables.
 *
 * Everything is bounded: UNWIND_RETRIES restarts, the caller's frame limit,
 * reads only inside the copy the kernel filled (dyn_size).
 */
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "names/symbols_int.h"
#include "names/unwind.h"
#include "util/htab.h"
#include "util/util.h"

#define UNWIND_RETRIES 8
#define RULE_REGS 33            /* DWARF registers followed: x86_64 0..16, aarch64 0..31 */
#define MAX_RULES (1u << 20)    /* cached frame rules per process */

enum rule_kind { R_SAME, R_UNDEF, R_OFFSET, R_VAL_OFFSET };

struct reg_rule {
	uint8_t kind;           /* enum rule_kind */
	uint8_t reg;
	int64_t off;            /* from the CFA */
};

/* What the CFI says at one pc, reduced to the forms the fast path follows
 * (CFA = register + offset; registers same, undefined, saved at or equal
 * to CFA + offset); ok false: anything else, left to libdwfl. Registers
 * that keep their value are not listed; the undefined ones are a mask. */
struct frame_rule {
	bool ok, ra_undef;
	uint8_t cfa_reg, ra_reg, nr;
	int64_t cfa_off;
	uint64_t undef;
	struct reg_rule r[RULE_REGS];   /* R_OFFSET, R_VAL_OFFSET: nr of them */
};

enum unwind_arch { ARCH_NONE, ARCH_X86_64, ARCH_AARCH64 };

struct uproc {
	uint32_t pid;
	Dwfl *dwfl;
	bool attached;
	struct u64map rule_idx;         /* adjusted pc -> rules */
	struct frame_rule *rules;
	size_t nr_rules, alloc_rules;
};

struct unwinder {
	struct symbols *syms;
	enum unwind_arch arch;
	Dwfl_Callbacks cb;
	char *debuginfo_path;
	struct uproc *procs;
	size_t nr_procs, alloc_procs;
	struct u64map by_pid;
	struct unwind_stats st;
	/* the sample being unwound */
	const struct pd_sample *cur;
	const struct maps *maps;
	uint64_t time, sp;
	uint64_t *ips;
	size_t nr, max;
	uint64_t missing;         /* a frame's pc in a module not reported yet, 0 none */
	struct uproc *proc;
	unsigned int nregs;       /* DWARF registers the fast path follows */
	bool check;               /* C2CSCAN_UNWIND_CHECK: every fast result against libdwfl's */
};

/* No separate debug files: the unwinder needs .eh_frame, which is in the
 * object itself, and a lookup per module would cost more than it brings. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	(void)mod;
	(void)userdata;
	(void)modname;
	(void)base;
	(void)file_name;
	(void)debuglink_file;
	(void)debuglink_crc;
	(void)debuginfo_file_name;
	return -1;
}

struct unwinder *unwinder__new(struct symbols *syms, const char *arch)
{
	struct unwinder *u = xcalloc(1, sizeof(*u));

	u->syms = syms;
	if (arch && !strcmp(arch, "x86_64"))
		u->arch = ARCH_X86_64;
	else if (arch && !strcmp(arch, "aarch64"))
		u->arch = ARCH_AARCH64;
	u->cb.find_elf = dwfl_build_id_find_elf;
	u->cb.find_debuginfo = no_debuginfo;
	u->cb.section_address = dwfl_offline_section_address;
	u->debuginfo_path = xstrdup("");
	u->cb.debuginfo_path = &u->debuginfo_path;
	u->nregs = u->arch == ARCH_X86_64 ? 17 : 32;
	u->check = getenv("C2CSCAN_UNWIND_CHECK") != NULL;
	return u;
}

void unwinder__delete(struct unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nr_procs; i++) {
		if (u->procs[i].dwfl)
			dwfl_end(u->procs[i].dwfl);
		u64map__exit(&u->procs[i].rule_idx);
		free(u->procs[i].rules);
	}
	free(u->procs);
	u64map__exit(&u->by_pid);
	free(u->debuginfo_path);
	free(u);
}

const struct unwind_stats *unwinder__stats(const struct unwinder *u)
{
	return &u->st;
}

/* ---- the callbacks: one thread, the current sample ---- */

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)arg;
	(void)thread_argp;
	return 0;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct unwinder *u = arg;

	(void)dwfl;
	*thread_argp = u;
	return u->cur && (uint32_t)tid == u->cur->tid;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwinder *u = arg;
	const struct pd_sample *s = u->cur;

	(void)dwfl;
	if (addr < u->sp || addr - u->sp > s->stack_dyn_size || s->stack_dyn_size - (addr - u->sp) < 8)
		return false;
	memcpy(result, s->stack + (addr - u->sp), 8);
	return true;
}

/* perf's register numbers of the DWARF registers 0.. of the arch, and of
 * the pc and sp. */
static const uint8_t x86_64_regs[] = { 0 /* AX */, 3 /* DX */, 2 /* CX */, 1 /* BX */, 4 /* SI */,
				      5 /* DI */, 6 /* BP */, 7 /* SP */, 16, 17, 18, 19, 20, 21, 22, 23 };

static bool arch_pc_sp(const struct unwinder *u, const struct pd_sample *s, uint64_t *pc, uint64_t *sp)
{
	if (u->arch == ARCH_X86_64)
		return pd_sample__reg(s, 8, pc) && pd_sample__reg(s, 7, sp);
	if (u->arch == ARCH_AARCH64)
		return pd_sample__reg(s, 32, pc) && pd_sample__reg(s, 31, sp);
	return false;
}

/* The sample's registers by DWARF number (0..u->nregs - 1; x86_64's 16 is
 * the pc), and which of them it has as a bit mask. */
static uint64_t dwarf_regs(const struct unwinder *u, const struct pd_sample *s, uint64_t *regs)
{
	uint64_t by_bit[64], valid = 0;

	for (unsigned int bit = 0, i = 0; bit < 64; bit++)
		if (s->regs_mask >> bit & 1)
			by_bit[bit] = s->regs[i++];
	for (unsigned int i = 0; i < u->nregs; i++) {
		unsigned int bit = u->arch == ARCH_X86_64 ? (i < 16 ? x86_64_regs[i] : 8) : i;

		if (s->regs_mask >> bit & 1) {
			regs[i] = by_bit[bit];
			valid |= 1ULL << i;
		}
	}
	return valid;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwinder *u = arg;
	const struct pd_sample *s = u->cur;
	uint64_t pc, sp, regs[RULE_REGS], valid = dwarf_regs(u, s, regs);

	if (!arch_pc_sp(u, s, &pc, &sp))
		return false;
	for (unsigned int i = 0; i < u->nregs; i++) {
		Dwarf_Word w = regs[i];

		/* the pc goes in as the pc */
		if (!(valid >> i & 1) || (u->arch == ARCH_X86_64 && i == 16))
			continue;
		if (!dwfl_thread_state_registers(thread, (int)i, 1, &w))
			return false;
	}
	dwfl_thread_state_register_pc(thread, pc);
	return true;
}

static const Dwfl_Thread_Callbacks thread_cb = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* ---- processes and their modules ---- */

/* The process pid is at time: after an exec another program has the pid,
 * with its own modules (maps__aspace tells them apart). */
static struct uproc *proc_get(struct unwinder *u, const struct maps *maps, uint32_t pid, uint64_t time)
{
	uint64_t key = (uint64_t)maps__aspace(maps, pid, time) << 32 | pid, idx;

	if (u64map__get(&u->by_pid, key, &idx))
		return &u->procs[idx];
	xgrow((void **)&u->procs, &u->alloc_procs, u->nr_procs + 1, sizeof(*u->procs));
	u->procs[u->nr_procs] = (struct uproc){ .pid = pid, .dwfl = dwfl_begin(&u->cb) };
	u64map__put(&u->by_pid, key, u->nr_procs);
	return &u->procs[u->nr_procs++];
}

/* Reports the object mapped at addr; true when a module now covers addr. */
static bool report_module(struct unwinder *u, struct uproc *p, uint64_t addr)
{
	const struct map_desc *map = maps__find(u->maps, p->pid, addr, u->time);
	const char *path;
	uint64_t bias;
	Dwfl_Module *mod;

	if (!map || !(map->prot & PROT_EXEC) ||
	    symbols__object_file(u->syms, map, addr, &path, &bias))
		return false;
	dwfl_report_begin_add(p->dwfl);
	mod = dwfl_report_elf(p->dwfl, map->name, path, -1, bias, true);
	dwfl_report_end(p->dwfl, NULL, NULL);
	return mod && dwfl_addrmodule(p->dwfl, addr) != NULL;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (u->nr && !dwfl_addrmodule(u->proc->dwfl, pc - !activation)) {
		/* a caller in a file not reported yet: report it and walk again */
		const struct map_desc *map = maps__find(u->maps, u->proc->pid, pc - 1, u->time);

		if (map && map->prot & PROT_EXEC && !map_is_anon(map)) {
			u->missing = pc - 1;
			return DWARF_CB_ABORT;
		}
	}
	u->ips[u->nr++] = pc;
	return u->nr < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* libdwfl's unwinder: a walk that meets a caller in a file not reported
 * yet stops, reports it and walks again. */
static size_t slow_unwind(struct unwinder *u, struct uproc *p, const struct pd_sample *s, uint64_t pc)
{
	int tries = 0;

	do {
		u->nr = 0;
		u->missing = 0;
		dwfl_getthread_frames(p->dwfl, (pid_t)s->tid, frame_cb, u);
	} while (u->missing && ++tries < UNWIND_RETRIES && report_module(u, p, u->missing));
	if (!u->nr)
		u->ips[u->nr++] = pc;
	return u->nr;
}

/* ---- the fast path: CFI rules cached per pc ---- */

/* [call_frame_cfa] [plus_uconst N | consts N, plus] [stack_value]:
 * CFA + N at (R_OFFSET) or as the value (R_VAL_OFFSET). */
static bool cfa_plus(const Dwarf_Op *ops, size_t nops, struct reg_rule *rr)
{
	size_t i = 1;

	if (!nops || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	rr->off = 0;
	if (i < nops && ops[i].atom == DW_OP_plus_uconst) {
		rr->off = (int64_t)ops[i].number;
		i++;
	} else if (i + 1 < nops && ops[i].atom == DW_OP_consts && ops[i + 1].atom == DW_OP_plus) {
		rr->off = (int64_t)ops[i].number;
		i += 2;
	}
	rr->kind = R_OFFSET;
	if (i < nops && ops[i].atom == DW_OP_stack_value) {
		rr->kind = R_VAL_OFFSET;
		i++;
	}
	return i == nops;
}

static void rule_read(const struct unwinder *u, Dwarf_Frame *f, struct frame_rule *fr)
{
	Dwarf_Op *ops, mem[3];
	size_t nops;
	uint64_t cfa_reg;
	bool signal;
	int ra = dwarf_frame_info(f, NULL, NULL, &signal);

	if (ra < 0 || (unsigned int)ra >= u->nregs || signal)
		return;
	fr->ra_reg = (uint8_t)ra;
	if (dwarf_frame_cfa(f, &ops, &nops) || nops != 1 || !dwop_breg(&ops[0], &cfa_reg, &fr->cfa_off) ||
	    cfa_reg >= u->nregs)
		return;
	fr->cfa_reg = (uint8_t)cfa_reg;
	for (unsigned int r = 0; r < u->nregs; r++) {
		struct reg_rule rr = { .reg = (uint8_t)r };

		if (dwarf_frame_register(f, (int)r, mem, &ops, &nops))
			return;
		if (!nops && ops)
			fr->undef |= 1ULL << r;
		else if (nops && !cfa_plus(ops, nops, &rr))
			return;
		else if (nops)
			fr->r[fr->nr++] = rr;
	}
	fr->ra_undef = fr->undef >> fr->ra_reg & 1;
	fr->ok = true;
}

/* The rule at adjusted pc, read from the CFI (its module reported on the
 * first question) and cached; NULL when the cache is full or no object
 * holds pc. libdwfl's order: .eh_frame, then .debug_frame. */
static __attribute__((noinline)) const struct frame_rule *rule_new(struct unwinder *u, struct uproc *p, uint64_t pc)
{
	struct frame_rule fr = { .ok = false };
	Dwfl_Module *mod;

	if (p->nr_rules >= MAX_RULES || (!dwfl_addrmodule(p->dwfl, pc) && !report_module(u, p, pc)))
		return NULL;
	mod = dwfl_addrmodule(p->dwfl, pc);
	for (int k = 0; mod && k < 2 && !fr.ok; k++) {
		Dwarf_Addr bias;
		Dwarf_CFI *cfi = k ? dwfl_module_dwarf_cfi(mod, &bias) : dwfl_module_eh_cfi(mod, &bias);
		Dwarf_Frame *f;

		if (cfi && !dwarf_cfi_addrframe(cfi, pc - bias, &f)) {
			rule_read(u, f, &fr);
			free(f);
			break;
		}
	}
	xgrow((void **)&p->rules, &p->alloc_rules, p->nr_rules + 1, sizeof(*p->rules));
	p->rules[p->nr_rules] = fr;
	u64map__put(&p->rule_idx, pc, p->nr_rules);
	return &p->rules[p->nr_rules++];
}

static inline const struct frame_rule *rule_get(struct unwinder *u, struct uproc *p, uint64_t pc)
{
	uint64_t idx;

	return u64map__get(&p->rule_idx, pc, &idx) ? &p->rules[idx] : rule_new(u, p, pc);
}

static bool stack_word(const struct unwinder *u, uint64_t addr, uint64_t *v)
{
	Dwarf_Word w;

	if (!memory_read(NULL, addr, &w, (void *)u))
		return false;
	*v = w;
	return true;
}

/*
 * The frames libdwfl would find, from the cached rules: -1 whenever a step
 * leaves the simple forms (an expression, a signal frame, no CFI, a read
 * outside the stack copy, a module not reported), and libdwfl unwinds the
 * sample instead. C2CSCAN_UNWIND_CHECK compares every answer with libdwfl's.
 */
static int fast_unwind(struct unwinder *u, struct uproc *p, const struct pd_sample *s, uint64_t pc, uint64_t *ips,
		       size_t max)
{
	uint64_t a[RULE_REGS], b[RULE_REGS], *regs = a, *next = b, *t, valid = dwarf_regs(u, s, a), nvalid;
	bool activation = true;
	size_t n = 0;

	for (;;) {
		uint64_t adj = pc - !activation, cfa;
		const struct frame_rule *fr;

		ips[n++] = pc;
		if (n == max)
			return (int)n;
		fr = rule_get(u, p, adj);
		if (!fr || !fr->ok || !(valid >> fr->cfa_reg & 1))
			return -1;
		cfa = regs[fr->cfa_reg] + (uint64_t)fr->cfa_off;
		memcpy(next, regs, u->nregs * sizeof(*next));
		nvalid = valid & ~fr->undef;
		for (unsigned int k = 0; k < fr->nr; k++) {
			const struct reg_rule *rr = &fr->r[k];

			if (rr->kind == R_VAL_OFFSET)
				next[rr->reg] = cfa + (uint64_t)rr->off;
			else if (!stack_word(u, cfa + (uint64_t)rr->off, &next[rr->reg]))
				return -1;
			nvalid |= 1ULL << rr->reg;
		}
		if (fr->ra_undef)
			return (int)n;          /* the outermost frame */
		if (!(nvalid >> fr->ra_reg & 1) || !next[fr->ra_reg])
			return -1;
		pc = next[fr->ra_reg];
		t = regs;
		regs = next;
		next = t;
		valid = nvalid;
		activation = false;
	}
}

size_t unwinder__user(struct unwinder *u, const struct maps *maps, const struct pd_sample *s, uint64_t time,
		      uint64_t *ips, size_t max)
{
	struct uproc *p;
	uint64_t pc;
	size_t nr;
	int fast;

	u->st.samples++;
	if (!max)
		return 0;
	if (u->arch == ARCH_NONE || !s->regs_abi || !arch_pc_sp(u, s, &pc, &u->sp)) {
		u->st.no_regs++;
		return 0;
	}
	if (!s->stack_dyn_size) {
		u->st.no_stack++;
		ips[0] = pc;
		return 1;
	}
	p = proc_get(u, maps, s->pid, time);
	if (!p->dwfl) {
		u->st.no_module++;
		ips[0] = pc;
		return 1;
	}
	u->maps = maps;
	u->time = time;
	u->cur = s;
	u->proc = p;
	u->ips = ips;
	u->max = max;
	if (!p->dwfl || (!dwfl_addrmodule(p->dwfl, pc) && !report_module(u, p, pc))) {
		u->st.no_module++;
		ips[0] = pc;
		return 1;
	}
	if (!p->attached) {
		/* the machine comes from the first module's ELF */
		if (!dwfl_attach_state(p->dwfl, NULL, (pid_t)s->pid, &thread_cb, u)) {
			u->st.no_module++;
			ips[0] = pc;
			return 1;
		}
		p->attached = true;
	}
	fast = fast_unwind(u, p, s, pc, ips, max);
	if (fast > 0 && !u->check) {
		u->st.fast++;
		nr = (size_t)fast;
	} else {
		uint64_t mine[256];

		if (fast > (int)ARRAY_SIZE(mine))
			fast = -1;
		if (fast > 0)
			memcpy(mine, ips, (size_t)fast * sizeof(*ips));
		nr = slow_unwind(u, p, s, pc);
		if (fast > 0) {
			u->st.fast++;
			u->st.checked++;
			if ((size_t)fast != nr || memcmp(mine, ips, nr * sizeof(*ips)))
				u->st.check_mismatches++;
		}
	}
	u->cur = NULL;
	u->st.unwound += nr > 1;
	return nr;
}
