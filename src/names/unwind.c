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

enum unwind_arch { ARCH_NONE, ARCH_X86_64, ARCH_AARCH64 };

struct uproc {
	uint32_t pid;
	Dwfl *dwfl;
	bool attached;
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
	return u;
}

void unwinder__delete(struct unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nr_procs; i++)
		if (u->procs[i].dwfl)
			dwfl_end(u->procs[i].dwfl);
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

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwinder *u = arg;
	const struct pd_sample *s = u->cur;
	size_t n = u->arch == ARCH_X86_64 ? sizeof(x86_64_regs) : 32;
	uint64_t pc, sp, v;

	if (!arch_pc_sp(u, s, &pc, &sp))
		return false;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Word w;

		if (!pd_sample__reg(s, u->arch == ARCH_X86_64 ? x86_64_regs[i] : (unsigned int)i, &v))
			continue;
		w = v;
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

static struct uproc *proc_get(struct unwinder *u, uint32_t pid)
{
	uint64_t idx;

	if (u64map__get(&u->by_pid, pid, &idx))
		return &u->procs[idx];
	xgrow((void **)&u->procs, &u->alloc_procs, u->nr_procs + 1, sizeof(*u->procs));
	u->procs[u->nr_procs] = (struct uproc){ .pid = pid, .dwfl = dwfl_begin(&u->cb) };
	u64map__put(&u->by_pid, pid, u->nr_procs);
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
	if (!mod) {
		u->st.module_errors++;
		return false;
	}
	u->st.modules++;
	return dwfl_addrmodule(p->dwfl, addr) != NULL;
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

size_t unwinder__user(struct unwinder *u, const struct maps *maps, const struct pd_sample *s, uint64_t time,
		      uint64_t *ips, size_t max)
{
	struct uproc *p;
	uint64_t pc;
	int tries = 0;

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
	p = proc_get(u, s->pid);
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
	if (!dwfl_addrmodule(p->dwfl, pc) && !report_module(u, p, pc)) {
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
	do {
		u->nr = 0;
		u->missing = 0;
		dwfl_getthread_frames(p->dwfl, (pid_t)s->tid, frame_cb, u);
	} while (u->missing && ++tries < UNWIND_RETRIES && report_module(u, p, u->missing));
	u->cur = NULL;
	if (!u->nr)
		ips[u->nr++] = pc;
	u->st.unwound += u->nr > 1;
	u->st.frames += u->nr;
	return u->nr;
}
