// SPDX-License-Identifier: GPL-2.0
/*
 * record --emulate's runtime (part of libc2cscan-emu.so): jumps written over
 * functions' first instructions. A Clang build's ThreadSanitizer hooks and
 * allocator are in its executable, where no preloaded definition can take
 * their place: they jump to the runtime's (emu_jumps__redirect). Preloaded
 * by hand, without record, the runtime's own exported functions jump to
 * the next definitions, so that the program runs as a plain
 * ThreadSanitizer build (emu_jumps__forward).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "record/emu/emu.h"

/*
 * Clang links its ThreadSanitizer runtime into the executable (statically,
 * its entry points exported): the program calls its own __tsan_read4
 * directly, and no preloaded definition can take its place. So each of
 * the executable's hooks that we define gets a jump to ours written over
 * its first instructions, before main (its __tsan_init has run from
 * .preinit_array: its interceptors keep working). Returns how many were
 * redirected; a hook too short to patch or a text that cannot be made
 * writable is said once, and stays the runtime's.
 */
#if defined(__x86_64__)
#define JUMP_LEN 13             /* movabs $to, %r11; jmp *%r11 */
#elif defined(__aarch64__)
#define JUMP_LEN 16             /* ldr x16, #8; br x16; .quad to */
#else
#define JUMP_LEN 0
#endif

/* A jump to to written over the start of the function at from (its
 * symbol sym, for its size): 0, -ENOSPC when the function is shorter than
 * the jump, else the negative errno of making its text writable. */
static int jump(void *from, const ElfW(Sym) *sym, void *to)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t at = (uintptr_t)from, page = at & ~(uintptr_t)(pg - 1);
	uint8_t code[16];

	if (!JUMP_LEN || !sym || sym->st_size < JUMP_LEN)
		return -ENOSPC;
#if defined(__x86_64__)
	code[0] = 0x49;
	code[1] = 0xbb;
	memcpy(code + 2, &to, 8);
	code[10] = 0x41;
	code[11] = 0xff;
	code[12] = 0xe3;
#elif defined(__aarch64__)
	memcpy(code, (const uint32_t[]){ 0x58000050, 0xd61f0200 }, 8);
	memcpy(code + 8, &to, 8);
#endif
	if (mprotect((void *)page, at + JUMP_LEN - page, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -errno;
	memcpy(from, code, JUMP_LEN);
	__builtin___clear_cache((char *)from, (char *)from + JUMP_LEN);
	mprotect((void *)page, at + JUMP_LEN - page, PROT_READ | PROT_EXEC);
	return 0;
}

void *emu_exe_sym(void *prog, const void *exe, const char *name)
{
	void *s = dlsym(prog, name);
	struct link_map *in = NULL;
	Dl_info info;

	return s && dladdr1(s, &info, (void **)&in, RTLD_DL_LINKMAP) && in == exe ? s : NULL;
}

/* Whether the executable's (exe) definition of name can take a jump: its
 * own (never the C library's mmap, nor a libtsan behind this library when
 * it was not preloaded), long enough. *at: it, NULL when the executable
 * does not define name; *sym: its symbol. */
static bool patchable(void *prog, const struct link_map *exe, const char *name, void **at, const ElfW(Sym) **sym)
{
	Dl_info info;

	*sym = NULL;
	*at = emu_exe_sym(prog, exe, name);
	return *at && dladdr1(*at, &info, (void **)sym, RTLD_DL_SYMENT) && *sym && (*sym)->st_size >= JUMP_LEN;
}

/* The first definition of name past the executable (exe) in the
 * program's scope: record --alloc's shim when it is preloaded (it passes
 * calls on to the next, this runtime's), else this runtime's own (fn). */
static void *first_past(const struct link_map *exe, const char *name, void *fn)
{
	struct link_map *own = NULL;
	Dl_info own_info;

	if (!dladdr1(fn, &own_info, (void **)&own, RTLD_DL_LINKMAP))
		return fn;
	for (const struct link_map *l = exe->l_next; l && l != own; l = l->l_next) {
		void *h = l->l_name && *l->l_name ? emu_loaded(l->l_name) : NULL;
		void *s = h ? dlsym(h, name) : NULL;
		struct link_map *in = NULL;
		Dl_info di;

		emu_release(h);
		if (s && dladdr1(s, &di, (void **)&in, RTLD_DL_LINKMAP) && in == l)
			return s;
	}
	return fn;      /* this runtime's own */
}

/* The executable's allocator to the production heap's (heap.c): all of
 * its functions this runtime defines, or none (a block of one allocator
 * freed by the other would crash). */
static int patch_heap(void *prog, const struct link_map *exe)
{
	const ElfW(Sym) *sym;
	void *at, *to[64];
	int done = 0;

	if (emu_heap_nfns > sizeof(to) / sizeof(to[0]))
		return 0;

	/* (one the executable defines but too short to patch: none) */
	for (size_t i = 0; i < emu_heap_nfns; i++)
		if (!patchable(prog, exe, emu_heap_fns[i].name, &at, &sym) && at && sym)
			return 0;
	if (!emu_heap__program(prog, exe))
		return 0;
	/* the targets first (looking them up allocates), then the jumps: the
	 * functions that take memory back first (this runtime's take either
	 * allocator's blocks), those that give it out last */
	for (size_t i = 0; i < emu_heap_nfns; i++)
		to[i] = first_past(exe, emu_heap_fns[i].name, emu_heap_fns[i].fn);
	for (int gives = 0; gives < 2; gives++) {
		for (size_t i = 0; i < emu_heap_nfns; i++) {
			const char *n = emu_heap_fns[i].name;
			bool takes = !strcmp(n, "free") || !strncmp(n, "_Zd", 3) || !strncmp(n, "realloc", 7) ||
				     !strcmp(n, "malloc_usable_size");

			if (takes == !gives && patchable(prog, exe, n, &at, &sym) && !jump(at, sym, to[i]))
				done++;
		}
	}
	return done;
}

int emu_jumps__redirect(void)
{
	int done = 0, shorter = 0, failed = 0, err = 0;

	/* the program's scope, the executable first (RTLD_DEFAULT would
	 * search this library first: it is linked -Bsymbolic) */
	void *prog = emu_loaded(NULL);
	struct link_map *main_map = NULL;

	if (!prog)
		return 0;
	if (dlinfo(prog, RTLD_DI_LINKMAP, &main_map) || !main_map) {
		emu_release(prog);
		return 0;
	}
	for (size_t i = 0; JUMP_LEN && i < emu_nhooks; i++) {
		const ElfW(Sym) *sym;
		void *theirs;
		int r;

		if (dlsym(prog, emu_hooks[i].name) == emu_hooks[i].fn)
			continue;       /* ours binds (GCC: libtsan is a library) */
		if (!patchable(prog, main_map, emu_hooks[i].name, &theirs, &sym)) {
			shorter += theirs && sym;
			continue;
		}
		r = jump(theirs, sym, emu_hooks[i].fn);
		if (r)
			failed++, err = -r;
		else
			done++;
	}
	if (shorter + failed)
		fprintf(stderr, "c2cscan emu: %d of the program's ThreadSanitizer hooks could not be redirected "
			"(%d too short to patch, %d in text not made writable%s%s): what they see is not modelled\n",
			shorter + failed, shorter, failed, err ? ": " : "", err ? strerror(err) : "");
	if (done && !failed)
		patch_heap(prog, main_map);
	emu_release(prog);
	return done;
}

/* The number of symbols of a GNU hash table (the highest a bucket or its
 * chain reaches, + 1). */
static uint32_t gnu_hash_symbols(const uint32_t *h)
{
	uint32_t nbuckets = h[0], first = h[1], bloom = h[2], top = 0;
	const uint32_t *buckets = (const uint32_t *)((const ElfW(Addr) *)(h + 4) + bloom);
	const uint32_t *chain = buckets + nbuckets;

	for (uint32_t i = 0; i < nbuckets; i++)
		if (buckets[i] > top)
			top = buckets[i];
	if (top < first)
		return first;
	while (!(chain[top - first] & 1))
		top++;
	return top + 1;
}

/* Not run by record, preloaded by hand: every function this library
 * exports (ThreadSanitizer's hooks, the lock, thread and heap functions,
 * mmap) jumps to the next definition (a GCC build's libtsan.so, the C
 * library), so that ThreadSanitizer sees every access and reports as it
 * would without us, its stacks free of our frames. */
void emu_jumps__forward(void)
{
	const ElfW(Sym) *syms = NULL;
	const uint32_t *gnu_hash = NULL;
	const char *strs = NULL;
	struct link_map *own = NULL;
	Dl_info info;

	if (!dladdr1((void *)emu_jumps__forward, &info, (void **)&own, RTLD_DL_LINKMAP) || !own)
		return;
	for (const ElfW(Dyn) *d = own->l_ld; d->d_tag != DT_NULL; d++) {
		/* (the C library relocates these in place, but not everywhere) */
		uintptr_t at = d->d_un.d_ptr < own->l_addr ? own->l_addr + d->d_un.d_ptr : d->d_un.d_ptr;

		if (d->d_tag == DT_SYMTAB)
			syms = (const void *)at;
		else if (d->d_tag == DT_STRTAB)
			strs = (const void *)at;
		else if (d->d_tag == DT_GNU_HASH)
			gnu_hash = (const void *)at;
	}
	if (!syms || !strs || !gnu_hash)
		return;
	for (uint32_t i = 1, n = gnu_hash_symbols(gnu_hash); i < n; i++) {
		const ElfW(Sym) *sym = &syms[i];
		void *ours = (void *)(own->l_addr + sym->st_value), *next;

		if (sym->st_shndx == SHN_UNDEF || ELF64_ST_TYPE(sym->st_info) != STT_FUNC ||
		    ELF64_ST_BIND(sym->st_info) == STB_LOCAL || ours == (void *)emu_jumps__forward)
			continue;
		next = dlsym(RTLD_NEXT, strs + sym->st_name);
		if (next && next != ours)
			jump(ours, sym, next);
	}
}
