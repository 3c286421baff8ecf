// SPDX-License-Identifier: GPL-2.0
/*
 * An object's relocations, read once (obj_relocs): its TLS block's place
 * and the GOT slots the dynamic linker fills (thread pointer offsets,
 * tls_index pairs, TLS descriptors, addresses of what the object defines
 * and, by name, of what other objects define, for the declarations that
 * type them: got_ext_decl). Used by the data types (dtype.c: a load from a
 * .got slot) and the variables (datanames.c: the declarations matched to
 * another object's slots); apart from both, so that neither needs the
 * other for it.
 */
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "names/symbols_int.h"
#include "util/htab.h"
#include "util/util.h"

/* The 8 bytes the file holds at vaddr (a GOT slot the linker filled). */
static bool file_word(Elf *elf, uint64_t vaddr, uint64_t *v)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || vaddr < sh.sh_addr ||
		    vaddr - sh.sh_addr >= sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < 8 || vaddr - sh.sh_addr > d->d_size - 8)
			return false;
		memcpy(v, (const uint8_t *)d->d_buf + (vaddr - sh.sh_addr), 8);
		return true;
	}
	return false;
}

enum tls_rel { TR_NONE, TR_TPOFF, TR_DTPOFF, TR_DTPMOD, TR_DESC, TR_ADDR };

static enum tls_rel tls_rel(int machine, uint64_t type)
{
	if (machine == EM_X86_64)
		return type == R_X86_64_TPOFF64 ? TR_TPOFF : type == R_X86_64_DTPOFF64 ? TR_DTPOFF
			: type == R_X86_64_DTPMOD64 ? TR_DTPMOD
			: type == R_X86_64_GLOB_DAT || type == R_X86_64_RELATIVE || type == R_X86_64_64 ? TR_ADDR
			: TR_NONE;
	if (machine == EM_AARCH64)
		return type == R_AARCH64_TLS_TPREL ? TR_TPOFF : type == R_AARCH64_TLS_DTPREL ? TR_DTPOFF
			: type == R_AARCH64_TLS_DTPMOD ? TR_DTPMOD : type == R_AARCH64_TLSDESC ? TR_DESC
			: type == R_AARCH64_GLOB_DAT || type == R_AARCH64_RELATIVE || type == R_AARCH64_ABS64 ? TR_ADDR
			: TR_NONE;
	return TR_NONE;
}

static int got_ext_cmp(const void *a, const void *b)
{
	return strcmp(((const struct got_ext *)a)->name, ((const struct got_ext *)b)->name);
}

static int name_got_ext_cmp(const void *key, const void *e)
{
	return strcmp(key, ((const struct got_ext *)e)->name);
}

void got_ext_decl(struct obj *o, Dwarf_Die *die, const char *name)
{
	struct got_ext *e = o->nr_got_ext ? bsearch(name, o->got_ext, o->nr_got_ext, sizeof(*o->got_ext),
						    name_got_ext_cmp) : NULL;
	Dwarf_Die type;

	if (!e || e->has_decl || !die_type(die, &type))
		return;
	/* every slot of the name (a name has one GOT slot, but a file can
	 * say otherwise): bsearch found one of them */
	while (e > o->got_ext && !strcmp(e[-1].name, name))
		e--;
	for (; e < o->got_ext + o->nr_got_ext && !strcmp(e->name, name); e++) {
		e->decl = *die;
		e->has_decl = true;
	}
}

/* The object's TLS block: where an executable's sits from the thread
 * pointer, the GOT slots the dynamic linker fills with a variable's
 * thread pointer offset (initial exec: R_X86_64_TPOFF64,
 * R_AARCH64_TLS_TPREL), and the GOT entries a call turns into a
 * variable's place (general and local dynamic): x86-64's tls_index pairs
 * for __tls_get_addr (R_X86_64_DTPMOD64, the offset from the
 * R_X86_64_DTPOFF64 beside it or the linker's constant), aarch64's TLS
 * descriptors (R_AARCH64_TLSDESC), by slot address. Also the .got slots
 * holding the address of something the object defines (got), and those
 * of what other objects define (got_ext). Read once: later calls return. */
/* Where o's static TLS block sits from the thread pointer (o->tls_base,
 * INT64_MIN unknown; o->tls_state), from its PT_TLS and whether it is the
 * executable. */
static void tls_layout(struct obj *o, Elf *elf, const GElf_Ehdr *eh)
{
	GElf_Phdr tls = { 0 };
	size_t nph = 0;
	bool exec = eh->e_type == ET_EXEC;

	if (elf_getphdrnum(elf, &nph))
		nph = 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_INTERP)
			exec = true;
		if (ph.p_type == PT_TLS)
			tls = ph;
	}
	o->got_exec = eh->e_type == ET_EXEC;
	if (tls.p_type != PT_TLS || tls.p_memsz > (1ULL << 40))
		o->tls_state = -1;
	else
		o->tls_state = 1;
	if (o->tls_state < 0)
		o->tls_base = INT64_MIN;
	else if (exec && eh->e_machine == EM_AARCH64)
		/* variant I: the block follows the 16-byte TCB, aligned */
		o->tls_base = (int64_t)((16 + (tls.p_align > 1 ? tls.p_align - 1 : 0)) &
					~(tls.p_align > 1 ? tls.p_align - 1 : 0));
	else if (exec)
		/* variant II (x86-64): the block ends at the thread pointer */
		o->tls_base = -(int64_t)((tls.p_memsz + (tls.p_align > 1 ? tls.p_align - 1 : 0)) &
					 ~(tls.p_align > 1 ? tls.p_align - 1 : 0));
	else
		o->tls_base = INT64_MIN;
}

/* One RELA section's TLS and address relocations into o's maps (and
 * dtpoff, dtpmod: a general-dynamic pair's halves). */
static void rela_section(struct obj *o, Elf *elf, const GElf_Ehdr *eh, const GElf_Shdr *sh, Elf_Data *d,
			 struct u64map *dtpoff, struct u64map *dtpmod)
{
	struct u64map *to[] = { [TR_NONE] = NULL, [TR_TPOFF] = &o->tls_got, [TR_DTPOFF] = dtpoff,
				[TR_DTPMOD] = dtpmod, [TR_DESC] = &o->tls_gd, [TR_ADDR] = &o->got };
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr symsh = { 0 };
	Elf_Data *syms = NULL;

	if (symscn && gelf_getshdr(symscn, &symsh))
		syms = elf_getdata(symscn, NULL);
	for (size_t i = 0; i < sh->sh_size / sh->sh_entsize; i++) {
		GElf_Rela rel;
		GElf_Sym sym = { 0 };
		enum tls_rel kind;
		size_t si;

		if (!gelf_getrela(d, (int)i, &rel) || !(kind = tls_rel(eh->e_machine, GELF_R_TYPE(rel.r_info))))
			continue;
		si = GELF_R_SYM(rel.r_info);
		if (si && (!syms || !gelf_getsym(syms, (int)si, &sym)))
			continue;
		/* an address slot of what another object defines: by name,
		 * for the declaration that gives its type */
		if (kind == TR_ADDR && si && sym.st_shndx == SHN_UNDEF) {
			const char *sname = elf_strptr(elf, symsh.sh_link, sym.st_name);

			if (sname && *sname) {
				xgrow((void **)&o->got_ext, &o->alloc_got_ext, o->nr_got_ext + 1, sizeof(*o->got_ext));
				o->got_ext[o->nr_got_ext++] = (struct got_ext){ .name = sname, .slot = rel.r_offset };
			}
			continue;
		}
		u64map__put(to[kind], rel.r_offset, sym.st_value + (uint64_t)rel.r_addend);
	}
}

void obj_relocs(struct obj *o)
{
	struct u64map dtpoff = { .nr = 0 }, dtpmod = { .nr = 0 };
	GElf_Addr bias;
	Elf *elf;
	size_t nph = 0;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;

	if (o->tls_state)
		return;
	o->tls_state = -1;
	elf = dwfl_module_getelf(o->mod, &bias);
	if (!elf || elf_getphdrnum(elf, &nph) || !gelf_getehdr(elf, &eh))
		return;
	tls_layout(o, elf, &eh);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t shstr;
		const char *name;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS && !elf_getshdrstrndx(elf, &shstr) &&
		    (name = elf_strptr(elf, shstr, sh.sh_name)) && !strcmp(name, ".got")) {
			o->got_lo = sh.sh_addr;
			o->got_hi = sh.sh_addr + sh.sh_size;
		}
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA && sh.sh_entsize && (d = elf_getdata(scn, NULL)))
			rela_section(o, elf, &eh, &sh, d, &dtpoff, &dtpmod);
	}
	if (o->nr_got_ext) {
		qsort(o->got_ext, o->nr_got_ext, sizeof(*o->got_ext), got_ext_cmp);
		for (size_t i = 0; i < o->nr_got_ext; i++)
			u64map__put(&o->got_ext_idx, o->got_ext[i].slot, i);
	}
	for (size_t i = 0; i < dtpmod.nr; i++) {
		uint64_t k = dtpmod.ents[i].key, v;

		if (k + 8 > k && (u64map__get(&dtpoff, k + 8, &v) || file_word(elf, k + 8, &v)))
			u64map__put(&o->tls_gd, k, v);
	}
	u64map__exit(&dtpoff);
	u64map__exit(&dtpmod);
}

/* What the .got slot at vaddr holds when it is the address of something
 * the object defines: from its relocation, or in an executable without
 * one, the linker's constant. */
bool obj_got_slot(struct obj *o, uint64_t vaddr, uint64_t *target)
{
	GElf_Addr bias;
	Elf *elf;

	obj_relocs(o);
	if (vaddr < o->got_lo || vaddr >= o->got_hi || vaddr & 7)
		return false;
	if (u64map__get(&o->got, vaddr, target))
		return true;
	elf = o->got_exec ? dwfl_module_getelf(o->mod, &bias) : NULL;
	return elf && file_word(elf, vaddr, target) && *target;
}
