// SPDX-License-Identifier: GPL-2.0
/*
 * Code names (symbols.h's symbols__code): the function, inlined frames and
 * source line of a code address in an object (DWARF subprograms scanned
 * once per object, ELF symbols where there is no DWARF, demangled), in the
 * kernel (kallsyms, vmlinux) and in JIT code (jit.c).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "names/symbols_int.h"

/* ---- code ---- */

/* The line table of a CU, decoded by dwline.c; NULL: libdw answers (no
 * line sections, split units, forms dwline does not read). */
static struct dwline *cu_lines(struct obj *o, Dwarf_Die *cu)
{
	struct dwline *t = NULL;
	Dwarf_Addr bias;
	uint64_t off;
	int rc;

	if (!o->lsec_state)
		o->lsec_state = dwline__sections(dwarf_getelf(dwfl_module_getdwarf(o->mod, &bias)),
						 &o->lsec) ? -1 : 1;
	if (o->lsec_state < 0 || dwline__cu_offset(cu, &off))
		return NULL;
	if (acache__get(&o->lines, off, &t, &rc))
		return t;
	dwline__new_cu(&t, &o->lsec, cu);
	acache__put(&o->lines, off, 0, &t);
	return t;
}

static const char *call_file(struct obj *o, Dwarf_Die *cu, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Files *files;
	Dwarf_Word idx;
	size_t nfiles;
	struct dwline *t;

	if (!dwarf_attr(die, DW_AT_call_file, &a) || dwarf_formudata(&a, &idx))
		return NULL;
	t = cu_lines(o, cu);
	if (t)
		return dwline__file(t, idx);
	if (dwarf_getsrcfiles(cu, &files, &nfiles) || idx >= nfiles)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

static void subps_scan(struct obj *o, Dwarf_Die *cu, Dwarf_Die *parent, Dwarf_Addr bias, int depth)
{
	Dwarf_Die child;

	if (depth > 16 || dwarf_child(parent, &child))
		return;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;

		/* definitions live at the top, in namespaces and (C++) in classes */
		if (tag == DW_TAG_namespace || tag == DW_TAG_module || tag == DW_TAG_class_type ||
		    tag == DW_TAG_structure_type || tag == DW_TAG_union_type) {
			subps_scan(o, cu, &child, bias, depth + 1);
			continue;
		}
		if (tag != DW_TAG_subprogram)
			continue;
		while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
			if (hi <= lo)
				continue;
			xgrow((void **)&o->subps, &o->alloc_subps, o->nr_subps + 1, sizeof(*o->subps));
			o->subps[o->nr_subps++] = (struct subp){ lo + bias, hi + bias, bias, child, *cu };
		}
	} while (!dwarf_siblingof(&child, &child));
}

/* Every subprogram's code ranges, once per object, on the first code
 * question: dwarf_getscopes would walk a whole CU for every address. */
static void subps_build(struct obj *o)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;

	o->subps_built = true;
	o->nr_subps = 0;        /* CUs scanned one by one are scanned again */
	while ((cu = dwfl_module_nextcu(o->mod, cu, &bias)))
		subps_scan(o, cu, cu, bias, 0);
	if (o->nr_subps)
		qsort(o->subps, o->nr_subps, sizeof(*o->subps), cmp_u64_key);
}

static const struct subp *subp_find(const struct obj *o, uint64_t vaddr)
{
	size_t i = upper_bound_u64(o->subps, o->nr_subps, sizeof(*o->subps), vaddr);

	return i && vaddr < o->subps[i - 1].hi ? &o->subps[i - 1] : NULL;
}

/* Does the object's DWARF have address ranges (.debug_aranges)? */
static bool has_aranges(struct obj *o)
{
	Dwarf_Addr bias;
	Dwarf *dw;
	Dwarf_Aranges *ar;
	size_t n = 0;

	if (!o->aranges_known) {
		o->aranges_known = true;
		dw = dwfl_module_getdwarf(o->mod, &bias);
		o->aranges = dw && !dwarf_getaranges(dw, &ar, &n) && n > 0;
	}
	return o->aranges;
}

/* The subprograms of the CU holding vaddr (found by the address ranges),
 * scanned once: a large library's (libc's debug file) CUs are mostly never
 * asked for. Without address ranges, every CU, once. */
const struct subp *subp_lookup(struct obj *o, uint64_t vaddr)
{
	const struct subp *sp = subp_find(o, vaddr);
	Dwarf_Addr bias;
	Dwarf_Die *cu;
	uint64_t off;
	size_t before;

	if (sp || o->subps_built)
		return sp;
	if (!has_aranges(o)) {
		subps_build(o);
		return subp_find(o, vaddr);
	}
	/* code no CU covers (assembly, the PLT) has no subprogram */
	cu = dwfl_module_addrdie(o->mod, vaddr, &bias);
	if (!cu)
		return NULL;
	off = dwarf_dieoffset(cu);
	if (u64map__get(&o->subps_cus, off, &off))
		return NULL;
	u64map__put(&o->subps_cus, dwarf_dieoffset(cu), 1);
	before = o->nr_subps;
	subps_scan(o, cu, cu, bias, 0);
	if (o->nr_subps == before)
		return NULL;
	qsort(o->subps, o->nr_subps, sizeof(*o->subps), cmp_u64_key);
	return subp_find(o, vaddr);
}

#define MAX_INLINE_DEPTH 64

/*
 * The innermost scope that is a function: the subprogram covering the
 * address, then, walking down its tree through the lexical blocks and
 * inlined instances that contain the address, the deepest inlined instance:
 * its name, its call site, and the function it was inlined into (the next
 * inlined instance up, or the subprogram).
 */
static void code_inlines(struct obj *o, uint64_t vaddr, struct code_loc *out)
{
	const struct subp *sp;
	Dwarf_Die path[MAX_INLINE_DEPTH], cu;
	Dwarf_Attribute a;
	Dwarf_Word line;
	int depth = 0, inl = -1, caller = 0;
	Dwarf_Addr pc;

	sp = subp_lookup(o, vaddr);
	if (!sp)
		return;
	pc = vaddr - sp->bias;
	cu = sp->cu;
	path[0] = sp->die;
	for (;;) {
		Dwarf_Die child;
		bool deeper = false;

		if (depth + 1 == MAX_INLINE_DEPTH || dwarf_child(&path[depth], &child))
			break;
		do {
			int tag = dwarf_tag(&child);

			if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) &&
			    dwarf_haspc(&child, pc) > 0) {
				path[++depth] = child;
				if (tag == DW_TAG_inlined_subroutine) {
					caller = inl;
					inl = depth;
				}
				deeper = true;
				break;
			}
		} while (!dwarf_siblingof(&child, &child));
		if (!deeper)
			break;
	}
	if (!out->func)
		out->func = dwarf_diename(&path[0]);
	if (inl < 0)
		return;
	out->inl_func = dwarf_diename(&path[inl]);
	out->caller_file = call_file(o, &cu, &path[inl]);
	if (dwarf_attr(&path[inl], DW_AT_call_line, &a) && !dwarf_formudata(&a, &line))
		out->caller_line = (int)line;
	out->inl_caller = dwarf_diename(&path[caller > 0 ? caller : 0]);
}

static int esym_cmp(const void *a, const void *b)
{
	const struct esym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (int)x->rank - (int)y->rank;
}

/* libstdc++'s demangler (the C++ ABI's, callable from C) */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

const char *obj__demangle(struct obj *o, const char *name)
{
	const char *kept;
	char *d;
	int status = -1;

	if (!name || name[0] != '_' || name[1] != 'Z')
		return name;
	d = __cxa_demangle(name, NULL, NULL, &status);
	if (status || !d) {
		free(d);
		return name;
	}
	if (!o->demangled)
		o->demangled = strtab__new();
	kept = strtab__intern(o->demangled, d, NULL);
	free(d);
	return kept;
}

static void esyms_build(struct obj *o)
{
	int n = dwfl_module_getsymtab(o->mod);

	o->esyms_built = true;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(o->mod, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);

		if (!name || !name[0] || shndx == SHN_UNDEF || type == STT_SECTION || type == STT_FILE)
			continue;
		xgrow((void **)&o->esyms, &o->alloc_esyms, o->nr_esyms + 1, sizeof(*o->esyms));
		o->esyms[o->nr_esyms++] = (struct esym){ addr, sym.st_size, name, (uint8_t)type,
							 bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0 };
	}
	if (o->nr_esyms)
		qsort(o->esyms, o->nr_esyms, sizeof(*o->esyms), esym_cmp);
}

#define ESYM_WALK 64

/*
 * The symbol of a wanted kind covering vaddr: the nearest one at or below
 * it whose size covers it (at one address, the global one first), else,
 * for code, the nearest sizeless one; *off is vaddr's offset in it.
 */
const struct esym *esym_find(struct obj *o, uint64_t vaddr, bool data, uint64_t *off)
{
	size_t i;

	if (!o->esyms_built)
		esyms_build(o);
	i = upper_bound_u64(o->esyms, o->nr_esyms, sizeof(*o->esyms), vaddr);
	for (size_t k = 0; i > 0 && k < ESYM_WALK; i--, k++) {
		const struct esym *e = &o->esyms[i - 1];
		bool is_data = e->type == STT_OBJECT || e->type == STT_COMMON || e->type == STT_TLS;

		if (e->type != STT_NOTYPE && is_data != data)
			continue;
		/* sizeless data symbols are the linker's markers (__bss_start,
		 * _edata, _end, __TMC_END__), not objects: they would name the
		 * first bytes of whatever follows them */
		if (data && !e->size)
			continue;
		if (vaddr - e->addr < e->size || (!e->size && k == 0)) {
			*off = vaddr - e->addr;
			return e;
		}
	}
	return NULL;
}

/* Source file and line of a module address: dwfl_module_getsrc's answer. */
static void obj__line(struct obj *o, uint64_t vaddr, struct code_loc *out)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(o->mod, vaddr, &bias);
	struct dwline *t = cu ? cu_lines(o, cu) : NULL;
	Dwfl_Line *line;
	int lineno = 0;

	if (t) {
		if (!dwline__find(t, vaddr - bias, &out->file, &lineno))
			out->line = lineno;
		return;
	}
	line = dwfl_module_getsrc(o->mod, vaddr);
	if (line) {
		out->file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
		out->line = lineno;
	}
}

static int obj__code(struct obj *o, uint64_t vaddr, struct code_loc *out)
{
	const struct esym *e;
	uint64_t off = 0;

	e = esym_find(o, vaddr, false, &off);
	if (e && e->type != STT_TLS) {
		out->func = obj__demangle(o, e->name);
		out->func_off = off;
	}
	obj__line(o, vaddr, out);
	code_inlines(o, vaddr, out);
	return out->func || out->file ? 0 : -ENOENT;
}

/* obj__code through the object's cache (user objects and vmlinux alike). */
static int obj__code_cached(struct symbols *s, struct obj *o, uint64_t vaddr, struct code_loc *out)
{
	int rc;

	if (acache__get(&o->code, vaddr, out, &rc)) {
		s->stats.code_hits++;
		return rc;
	}
	rc = obj__code(o, vaddr, out);
	out->kernel = o->kernel;
	acache__put(&o->code, vaddr, rc, out);
	return rc;
}

/* ---- kernel ---- */

void ksyms_load(struct symbols *s)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0, alloc = 0;
	bool nonzero = false;

	s->ksyms_loaded = true;
	f = fopen(s->kallsyms, "re");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		char name[512], mod[128] = "", type;
		unsigned long long addr;
		int n = sscanf(line, "%llx %c %511s [%127[^]]]", &addr, &type, name, mod);

		if (n < 3)
			continue;
		if (addr)
			nonzero = true;
		if (n == 4) {
			size_t l = strlen(name);

			snprintf(name + l, sizeof(name) - l, " [%s]", mod);
		}
		xgrow((void **)&s->ksyms, &alloc, s->nr_ksyms + 1, sizeof(*s->ksyms));
		s->ksyms[s->nr_ksyms].addr = addr;
		s->ksyms[s->nr_ksyms].name = strtab__intern(s->strs, name, NULL);
		s->nr_ksyms++;
	}
	free(line);
	fclose(f);
	/* kptr_restrict shows every address as 0 */
	if (!nonzero) {
		if (s->nr_ksyms)
			sym_warn(s, "%s hides addresses (kptr_restrict): kernel addresses not named",
			     s->kallsyms);
		s->nr_ksyms = 0;
		return;
	}
	qsort(s->ksyms, s->nr_ksyms, sizeof(*s->ksyms), cmp_u64_key);
	s->ksyms_usable = true;
}

void ksyms_check(struct symbols *s, const struct map_desc *map)
{
	const char *ref = kmap_ref_symbol(map);

	if (!ref || s->ksyms_checked || !s->ksyms_usable)
		return;
	s->ksyms_checked = true;
	for (size_t i = 0; i < s->nr_ksyms; i++) {
		if (strcmp(s->ksyms[i].name, ref))
			continue;
		if (s->ksyms[i].addr != map->pgoff) {
			sym_warn(s, "%s does not match the recording (%s at %#" PRIx64 ", recorded %#" PRIx64
			     "): kernel addresses not named", s->kallsyms, ref, s->ksyms[i].addr,
			     map->pgoff);
			s->ksyms_usable = false;
		}
		return;
	}
}

const struct ksym *ksym_find(const struct symbols *s, uint64_t addr)
{
	size_t i = upper_bound_u64(s->ksyms, s->nr_ksyms, sizeof(*s->ksyms), addr);

	return i ? &s->ksyms[i - 1] : NULL;
}

static int kernel_code(struct symbols *s, const struct map_desc *map, uint64_t addr,
		       struct code_loc *out)
{
	const struct ksym *k;
	int rc;

	if (s->vmlinux) {
		struct obj *o = vmlinux_get(s, map);
		uint64_t vaddr = addr - o->kaslr;

		if (o->state != OBJ_OK)
			return obj_err(o);
		return obj__code_cached(s, o, vaddr, out);
	}
	if (!s->ksyms_loaded)
		ksyms_load(s);
	ksyms_check(s, map);
	if (!s->ksyms_usable)
		return -ENOENT;
	if (acache__get(&s->kcode, addr, out, &rc)) {
		s->stats.code_hits++;
		return rc;
	}
	k = ksym_find(s, addr);
	out->kernel = true;
	if (k) {
		out->func = k->name;
		out->func_off = addr - k->addr;
	}
	rc = k ? 0 : -ENOENT;
	acache__put(&s->kcode, addr, rc, out);
	return rc;
}

/* ---- JIT ---- */

/* Memory without an ELF file behind it, where JIT code lives. */
bool map_is_anon(const struct map_desc *map)
{
	const char *n = map->name ? map->name : "";

	return !n[0] || n[0] != '/' || !strncmp(n, "//anon", 6) || !strncmp(n, "/anon_hugepage", 14) ||
	       !strncmp(n, "/memfd:", 7) || !strncmp(n, "/dev/zero", 9);
}

static int jit_code(struct symbols *s, uint32_t pid, uint64_t addr, uint64_t time,
		    struct code_loc *out)
{
	struct jit_sym js;

	if (!u32set__has(&s->perf_map_tried, pid)) {
		char *path = xasprintf("%s/perf-%u.map", s->perf_map_dir, pid);

		u32set__add(&s->perf_map_tried, pid);
		jit_index__add_perf_map(s->jit, pid, path);
		free(path);
	}
	if (jit_index__find(s->jit, pid, addr, time, &js))
		return -ENOENT;
	out->func = js.name;
	out->func_off = addr - js.start;
	out->file = js.file;
	out->line = js.line;
	out->jit = true;
	return 0;
}

int symbols__add_jitdump(struct symbols *s, uint32_t pid, const char *path)
{
	return jit_index__add_jitdump(s->jit, pid, path);
}

int obj__at(struct symbols *s, const struct map_desc *map, uint64_t addr, bool beyond_file, struct obj **op,
	    uint64_t *vaddr)
{
	struct obj *o = obj__get(s, map);

	*op = o;
	return o->state != OBJ_OK ? obj_err(o) : obj__vaddr(o, map, addr, beyond_file, vaddr);
}

int symbols__object_file(struct symbols *s, const struct map_desc *map, uint64_t addr, const char **path,
			  uint64_t *bias)
{
	struct obj *o;
	uint64_t vaddr;
	int rc;

	if (!map || map_is_anon(map) || map->name[0] == '[')
		return -ENOENT;
	rc = obj__at(s, map, addr, false, &o, &vaddr);
	if (rc)
		return rc;
	*path = o->path;
	*bias = addr - vaddr;
	return 0;
}

int symbols__code(struct symbols *s, const struct map_desc *map, uint32_t pid, uint64_t addr,
		  uint64_t time, struct code_loc *out)
{
	struct obj *o;
	uint64_t vaddr;
	int rc;

	memset(out, 0, sizeof(*out));
	s->stats.code_lookups++;
	if (pid == KERNEL_PID || addr >= KERNEL_HALF)
		return kernel_code(s, map, addr, out);
	/* JIT code first by (pid, addr, time): later anon mmaps must not hide it */
	if ((!map || map_is_anon(map)) && !jit_code(s, pid, addr, time, out))
		return 0;
	if (!map || map_is_anon(map))
		return -ENOENT;
	rc = obj__at(s, map, addr, false, &o, &vaddr);
	return rc ? rc : obj__code_cached(s, o, vaddr, out);
}

