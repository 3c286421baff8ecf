// SPDX-License-Identifier: GPL-2.0
/*
 * Data names: what a data address is called. The object's DWARF variables
 * by address and the member path inside their type (nested structs, arrays,
 * unions, bitfields), else the ELF data symbol; kernel data from vmlinux or
 * kallsyms; anonymous memory by its kind ([heap], [stack], //anon).
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
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "names/symbols_int.h"
/* ---- data ---- */

static bool var_tls_op(uint8_t atom)
{
	return atom == DW_OP_form_tls_address || atom == DW_OP_GNU_push_tls_address;
}

/* An address operator: DW_OP_addr, or DWARF 5's index into .debug_addr
 * (Clang 14's default, and split DWARF's GNU form). */
static bool is_addr_op(uint8_t atom)
{
	return atom == DW_OP_addr || atom == DW_OP_addrx || atom == DW_OP_GNU_addr_index;
}

/* The value an operator pushes: its operand, or for the indexed forms
 * (DW_OP_addrx, DW_OP_constx and their GNU names) the .debug_addr entry. */
static int loc_operand(Dwarf_Attribute *loc, Dwarf_Op *op, Dwarf_Word *out)
{
	Dwarf_Attribute a;
	Dwarf_Addr addr;

	switch (op->atom) {
	case DW_OP_addrx:
	case DW_OP_GNU_addr_index:
	case DW_OP_constx:
	case DW_OP_GNU_const_index:
		if (dwarf_getlocation_attr(loc, op, &a) || dwarf_formaddr(&a, &addr))
			return -1;
		*out = addr;
		return 0;
	default:
		*out = op->number;
		return 0;
	}
}

/* Variables DWARF gives no location: a thread-local one may be found in
 * the symbol table (gcc before 13 writes no TLS location on aarch64). */
struct unplaced {
	struct var *v;
	size_t nr, alloc;
};

/* A CU-level struct pthread or tcbhead_t defined (sized), the first seen. */
static void thread_type_of(struct obj *o, Dwarf_Die *die, int tag)
{
	const char *name = dwarf_diename(die);
	Dwarf_Die type;
	Dwarf_Word size;

	if (!name)
		return;
	if (tag == DW_TAG_structure_type && !o->has_thread_type && !strcmp(name, "pthread") &&
	    !dwarf_hasattr(die, DW_AT_declaration) && !dwarf_aggregate_size(die, &size) && size) {
		o->thread_type = *die;
		o->has_thread_type = true;
	} else if (tag == DW_TAG_typedef && !o->has_tcb_type && !strcmp(name, "tcbhead_t") &&
		   die_type(die, &type) && !dwarf_aggregate_size(&type, &size) && size) {
		o->tcb_type = *die;
		o->has_tcb_type = true;
	}
}

/* The size of a variable's type, 0 when unknown. */
static Dwarf_Word var_size(Dwarf_Die *var)
{
	Dwarf_Die type;
	Dwarf_Word size;

	return die_type(var, &type) && !dwarf_aggregate_size(&type, &size) ? size : 0;
}

static void vars_scan(struct obj *o, Dwarf_Die *parent, Dwarf_Addr bias, int depth, struct unplaced *un)
{
	Dwarf_Die child;

	if (depth > 32 || dwarf_child(parent, &child))
		return;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Attribute a;
		Dwarf_Op *ops;
		size_t nops;
		Dwarf_Word at;

		if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
		    tag == DW_TAG_namespace || tag == DW_TAG_module) {
			vars_scan(o, &child, bias, depth + 1, un);
			continue;
		}
		if (depth == 0 && (tag == DW_TAG_structure_type || tag == DW_TAG_typedef)) {
			thread_type_of(o, &child, tag);
			continue;
		}
		/* the type's size only of those kept: most variables are a
		 * function's locals, in registers or the frame */
		if (tag != DW_TAG_variable)
			continue;
		if (!dwarf_attr(&child, DW_AT_location, &a)) {
			const char *name = depth ? NULL : dwarf_diename(&child);

			if (name && dwarf_hasattr(&child, DW_AT_declaration)) {
				got_ext_decl(o, &child, name);
			} else if (name) {
				xgrow((void **)&un->v, &un->alloc, un->nr + 1, sizeof(*un->v));
				un->v[un->nr++] = (struct var){ 0, var_size(&child), child };
			}
			continue;
		}
		if (dwarf_getlocation(&a, &ops, &nops))
			continue;
		if (nops == 1 && is_addr_op(ops[0].atom) && !loc_operand(&a, &ops[0], &at)) {
			xgrow((void **)&o->vars, &o->alloc_vars, o->nr_vars + 1, sizeof(*o->vars));
			o->vars[o->nr_vars++] = (struct var){ at + bias, var_size(&child), child };
		} else if (nops == 2 && !is_addr_op(ops[0].atom) && var_tls_op(ops[1].atom) &&
			   !loc_operand(&a, &ops[0], &at)) {
			/* an offset in the object's TLS block (const, then the TLS operator) */
			xgrow((void **)&o->tls_vars, &o->alloc_tls_vars, o->nr_tls_vars + 1, sizeof(*o->tls_vars));
			o->tls_vars[o->nr_tls_vars++] = (struct var){ at, var_size(&child), child };
		}
	} while (!dwarf_siblingof(&child, &child));
}

static int var_name_cmp(const void *a, const void *b)
{
	return strcmp(dwarf_diename((Dwarf_Die *)&((const struct var *)a)->die),
		      dwarf_diename((Dwarf_Die *)&((const struct var *)b)->die));
}

static int name_var_cmp(const void *key, const void *v)
{
	return strcmp(key, dwarf_diename((Dwarf_Die *)&((const struct var *)v)->die));
}

/* The module's thread-local symbols (STT_TLS: st_value, which libdwfl
 * leaves as the file has it, is the offset in the TLS block) named like an
 * unplaced variable; un sorted by name. */
static void tls_symbols(struct obj *o, struct unplaced *un)
{
	int n = dwfl_module_getsymtab(o->mod);

	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(o->mod, i, &sym, &addr, NULL, NULL, NULL);
		struct var *v;

		if (!name || GELF_ST_TYPE(sym.st_info) != STT_TLS ||
		    !(v = bsearch(name, un->v, un->nr, sizeof(*un->v), name_var_cmp)) || v->addr)
			continue;
		v->addr = 1;    /* placed once */
		xgrow((void **)&o->tls_vars, &o->alloc_tls_vars, o->nr_tls_vars + 1, sizeof(*o->tls_vars));
		o->tls_vars[o->nr_tls_vars++] = (struct var){ sym.st_value, v->size ? v->size : sym.st_size, v->die };
	}
}

/* Every variable with a fixed address, once per object, on the first data
 * question: DWARF has no address index for data (aranges cover code). */
void vars_build(struct obj *o)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	struct unplaced un = { .nr = 0 };

	o->vars_built = true;
	if (namecache__vars(o))
		return;
	obj_relocs(o);  /* the .got slots declarations are matched to */
	while ((cu = dwfl_module_nextcu(o->mod, cu, &bias)))
		vars_scan(o, cu, bias, 0, &un);
	if (un.nr) {
		qsort(un.v, un.nr, sizeof(*un.v), var_name_cmp);
		tls_symbols(o, &un);
		free(un.v);
	}
	if (o->nr_vars)
		qsort(o->vars, o->nr_vars, sizeof(*o->vars), cmp_u64_key);
	if (o->nr_tls_vars)
		qsort(o->tls_vars, o->nr_tls_vars, sizeof(*o->tls_vars), cmp_u64_key);
}

const struct var *var_find(const struct obj *o, uint64_t vaddr)
{
	size_t lo = upper_bound_u64(o->vars, o->nr_vars, sizeof(*o->vars), vaddr);

	/* the nearest start below; a sized variable must cover the address */
	while (lo-- > 0) {
		const struct var *v = &o->vars[lo];

		if (vaddr - v->addr < v->size)
			return v;
		if (v->size)
			return NULL;
	}
	return NULL;
}

static void member_append(struct data_loc *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void member_append(struct data_loc *out, const char *fmt, ...)
{
	size_t len = strlen(out->member);
	va_list ap;

	if (len >= sizeof(out->member) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(out->member + len, sizeof(out->member) - len, fmt, ap);
	va_end(ap);
}

static bool udata_attr(Dwarf_Die *die, unsigned int name, Dwarf_Word *v)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, name, &a) && !dwarf_formudata(&a, v);
}

/* Byte range of a struct/union member; false for static members. */
static bool member_range(Dwarf_Die *m, uint64_t *loc, uint64_t *size)
{
	Dwarf_Attribute a;
	Dwarf_Word v, bits;
	Dwarf_Die type;

	if (dwarf_hasattr(m, DW_AT_declaration) || dwarf_hasattr(m, DW_AT_external))
		return false;
	*loc = 0;
	if (dwarf_attr(m, DW_AT_data_member_location, &a)) {
		Dwarf_Op *ops;
		size_t nops;

		if (!dwarf_formudata(&a, &v))
			*loc = v;
		else if (!dwarf_getlocation(&a, &ops, &nops) && nops == 1 &&
			 ops[0].atom == DW_OP_plus_uconst)
			*loc = ops[0].number;
		else
			return false;
	}
	if (udata_attr(m, DW_AT_bit_size, &bits)) {
		if (udata_attr(m, DW_AT_data_bit_offset, &v)) {
			*loc = v / 8;
			*size = (v % 8 + bits + 7) / 8;
			return true;
		}
		if (udata_attr(m, DW_AT_byte_size, &v)) {
			*size = v;
			return true;
		}
	}
	if (!die_type(m, &type))
		return false;
	if (!dwarf_aggregate_size(&type, &v)) {
		*size = v;
		return true;
	}
	/* a flexible array member runs to the end of whatever was allocated */
	if (!dwarf_peel_type(&type, &type) && dwarf_tag(&type) == DW_TAG_array_type) {
		*size = UINT64_MAX - *loc;
		return true;
	}
	return false;
}

/* A lock or synchronization type of the C library (pthread_mutex_t,
 * sem_t, mtx_t, GCC's __gthread_mutex_t under std::mutex): named as a
 * whole, its insides (.__data.__lock, .__size[0]) are the library's. */
static bool sync_type(Dwarf_Die *type)
{
	static const char *const names[] = {
		"pthread_mutex_t", "pthread_rwlock_t", "pthread_cond_t", "pthread_barrier_t",
		"pthread_spinlock_t", "pthread_once_t", "sem_t", "mtx_t", "cnd_t", "once_flag",
		"__gthread_mutex_t", "__gthread_recursive_mutex_t", "__gthread_cond_t",
	};
	Dwarf_Die t = *type;
	const char *nm;

	for (int i = 0; i < 4 && (dwarf_tag(&t) == DW_TAG_const_type || dwarf_tag(&t) == DW_TAG_volatile_type); i++)
		if (!die_type(&t, &t))
			return false;
	if (dwarf_tag(&t) != DW_TAG_typedef || !(nm = dwarf_diename(&t)))
		return false;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(nm, names[i]))
			return true;
	return false;
}

/* C++'s atomic types (std::atomic<T>, its base, std::atomic_flag): a
 * value named as a whole, their one member (_M_i) is the library's. */
static bool atomic_type(Dwarf_Die *peeled)
{
	int tag = dwarf_tag(peeled);
	const char *nm = dwarf_diename(peeled);

	if ((tag != DW_TAG_structure_type && tag != DW_TAG_class_type) || !nm)
		return false;
	return !strncmp(nm, "atomic<", 7) || !strncmp(nm, "__atomic_base<", 14) || !strcmp(nm, "atomic_flag") ||
	       !strcmp(nm, "__atomic_flag_base") || !strncmp(nm, "__atomic_float<", 15);
}

/* The member of struct (class, union) peeled that holds *off: its name
 * appended to out, *off made relative to it, *type its type; the innermost
 * named member noted in at. false: none does (padding, or one we cannot
 * place). */
static bool walk_member(Dwarf_Die *peeled, int tag, uint64_t *off, struct data_loc *out, struct walk_at *at,
			bool *element, Dwarf_Die *type)
{
	Dwarf_Die child;

	if (dwarf_child(peeled, &child))
		return false;
	do {
		int ct = dwarf_tag(&child);
		uint64_t loc, msz;
		const char *nm;

		if ((ct != DW_TAG_member && ct != DW_TAG_inheritance) || !member_range(&child, &loc, &msz))
			continue;
		if (*off < loc || *off - loc >= msz)
			continue;
		nm = ct == DW_TAG_member ? dwarf_diename(&child) : NULL;
		if (nm)
			member_append(out, ".%s", nm);
		if (nm && tag != DW_TAG_union_type) {
			at->has_member = true;
			at->member = child;
			at->parent = *peeled;
			at->in_array = *element;
		}
		*element = false;
		*off -= loc;
		return die_type(&child, type);
	} while (!dwarf_siblingof(&child, &child));
	return false;
}

/* The element of array peeled that holds *off: its indexes appended to
 * out, *off made relative to it, *type its type. 1 found, 0 the array is
 * the leaf (no element size), -1 past its bounds. */
static int walk_element(Dwarf_Die *peeled, uint64_t *off, struct data_loc *out, Dwarf_Die *type)
{
	uint64_t counts[MAX_DIMS], stride[MAX_DIMS], esz;
	Dwarf_Die elem, child;
	int nd = 0;

	if (!die_type(peeled, &elem) || dwarf_aggregate_size(&elem, &esz) || !esz)
		return 0;
	if (!dwarf_child(peeled, &child)) {
		do {
			Dwarf_Word v, lo = 0;

			if (dwarf_tag(&child) != DW_TAG_subrange_type || nd == MAX_DIMS)
				continue;
			udata_attr(&child, DW_AT_lower_bound, &lo);
			if (udata_attr(&child, DW_AT_count, &v))
				counts[nd] = v;
			else if (udata_attr(&child, DW_AT_upper_bound, &v) && v + 1 > lo)
				counts[nd] = v + 1 - lo;
			else
				counts[nd] = 0;     /* unknown: only the first dimension */
			nd++;
		} while (!dwarf_siblingof(&child, &child));
	}
	if (!nd)
		counts[nd++] = 0;
	stride[nd - 1] = esz;
	for (int d = nd - 2; d >= 0; d--) {
		if (!counts[d + 1])
			return -1;
		stride[d] = stride[d + 1] * counts[d + 1];
	}
	for (int d = 0; d < nd; d++) {
		uint64_t idx = *off / stride[d];

		if (counts[d] && idx >= counts[d])
			return -1;
		member_append(out, "[%" PRIu64 "]", idx);
		*off -= idx * stride[d];
	}
	*type = elem;
	return 1;
}

/*
 * Walk type down to the member or element holding byte off, appending
 * ".name" and "[i]" to out->member. Unions take the first member that
 * covers the offset; anonymous members add no name; a lock of the C
 * library is a leaf (sync_type), and so is a C++ atomic (atomic_type).
 * at: the leaf type, and the innermost named member of a struct on the
 * way (with its struct, and whether that struct is an array's element).
 */
bool type_walk_at(Dwarf_Die *type_in, uint64_t off, struct data_loc *out, struct walk_at *at)
{
	Dwarf_Die type = *type_in;
	Dwarf_Word size = 0;
	bool element = false;

	at->has_member = false;

	for (int depth = 0; depth < MAX_TYPE_DEPTH; depth++) {
		Dwarf_Die peeled;
		int tag, r;

		if (dwarf_peel_type(&type, &peeled))
			break;
		if (dwarf_aggregate_size(&peeled, &size))
			size = 0;
		if (sync_type(&type)) {
			out->sync = true;
			break;
		}
		if (atomic_type(&peeled))
			break;
		tag = dwarf_tag(&peeled);
		if (tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type) {
			if (!walk_member(&peeled, tag, &off, out, at, &element, &type)) {
				/* padding, or a member we cannot place */
				if (off)
					member_append(out, "+%#" PRIx64, off);
				out->member_size = 0;
				out->member_off = 0;
				return false;
			}
			continue;
		}
		if (tag == DW_TAG_array_type) {
			r = walk_element(&peeled, &off, out, &type);
			if (r < 0)
				return false;
			if (!r)
				break;
			element = true;
			continue;
		}
		break;          /* a scalar, pointer or enum: the leaf */
	}
	out->member_size = size > UINT32_MAX ? 0 : (uint32_t)size;
	out->member_off = (uint32_t)off;
	at->leaf = type;
	return true;
}

bool type_walk(Dwarf_Die *type_in, uint64_t off, struct data_loc *out, Dwarf_Die *leaf)
{
	struct walk_at at;

	if (!type_walk_at(type_in, off, out, &at))
		return false;
	if (leaf)
		*leaf = at.leaf;
	return true;
}

/* A type as the source names it: a typedef by its name, "struct x",
 * "union x", "enum x", a base type by its name, "T[N]" for arrays. */
void type_name(Dwarf_Die *type, char *buf, size_t size)
{
	Dwarf_Die t = *type, elem;
	Dwarf_Word n;

	/* const and volatile say nothing of the layout */
	for (int i = 0; i < 4; i++) {
		int tag = dwarf_tag(&t);

		if ((tag != DW_TAG_const_type && tag != DW_TAG_volatile_type) || !die_type(&t, &t))
			break;
	}
	switch (dwarf_tag(&t)) {
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
		snprintf(buf, size, "struct %s", dwarf_diename(&t) ? dwarf_diename(&t) : "(anonymous)");
		return;
	case DW_TAG_union_type:
		snprintf(buf, size, "union %s", dwarf_diename(&t) ? dwarf_diename(&t) : "(anonymous)");
		return;
	case DW_TAG_enumeration_type:
		snprintf(buf, size, "enum %s", dwarf_diename(&t) ? dwarf_diename(&t) : "(anonymous)");
		return;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type: {
		char inner[48] = "void";

		if (die_type(&t, &elem))
			type_name(&elem, inner, sizeof(inner));
		snprintf(buf, size, "%s %c", inner, dwarf_tag(&t) == DW_TAG_pointer_type ? '*' : '&');
		return;
	}
	case DW_TAG_array_type:
		if (die_type(&t, &elem)) {
			char inner[48];
			Dwarf_Die sub;

			type_name(&elem, inner, sizeof(inner));
			if (!dwarf_child(&t, &sub) && (udata_attr(&sub, DW_AT_count, &n) ||
						      (udata_attr(&sub, DW_AT_upper_bound, &n) && ++n)))
				snprintf(buf, size, "%s[%" PRIu64 "]", inner, (uint64_t)n);
			else
				snprintf(buf, size, "%s[]", inner);
			return;
		}
		break;
	default:
		if (dwarf_diename(&t)) {
			snprintf(buf, size, "%s", dwarf_diename(&t));
			return;
		}
	}
	buf[0] = '\0';
}

static int obj__data(struct obj *o, uint64_t vaddr, struct data_loc *out)
{
	uint64_t off = 0;
	const struct esym *e;
	const struct var *v;

	e = esym_find(o, vaddr, true, &off);
	if (e && e->type != STT_TLS && (off < e->size || (!e->size && !off))) {
		out->sym = obj__demangle(o, e->name);
		out->sym_off = off;
		out->sym_size = e->size;
		out->type_source = TYPE_SYMBOL;
	}
	if (!o->vars_built)
		vars_build(o);
	v = var_find(o, vaddr);
	if (v) {
		const char *vn = dwarf_diename((Dwarf_Die *)&v->die);
		Dwarf_Die type;

		if (!out->sym) {
			out->sym = vn;
			out->sym_off = vaddr - v->addr;
			out->sym_size = v->size;
		}
		if (vn) {
			snprintf(out->member, sizeof(out->member), "%s", vn);
			if (die_type((Dwarf_Die *)&v->die, &type)) {
				out->type_source = TYPE_VARIABLE;
				type_name(&type, out->type, sizeof(out->type));
				type_walk(&type, vaddr - v->addr, out, NULL);
			}
		}
	}
	return out->sym ? 0 : -ENOENT;
}

/* obj__data through the object's cache (user objects and vmlinux alike). */
static int obj__data_cached(struct symbols *s, struct obj *o, uint64_t vaddr, struct data_loc *out)
{
	int rc;

	if (acache__get(&o->data, vaddr, out, &rc)) {
		s->stats.data_hits++;
		return rc;
	}
	rc = obj__data(o, vaddr, out);
	out->kernel = o->kernel;
	acache__put(&o->data, vaddr, rc, out);
	return rc;
}

static const char *anon_kind(const struct map_desc *map)
{
	if (!map->name || !map->name[0])
		return "//anon";
	return map->name;
}

static int data_in_obj(struct symbols *s, const struct map_desc *fmap, uint64_t addr,
		       bool beyond_file, struct data_loc *out)
{
	struct obj *o;
	uint64_t vaddr;
	int rc = obj__at(s, fmap, addr, beyond_file, &o, &vaddr);

	if (!rc)
		rc = obj__data_cached(s, o, vaddr, out);
	if (!rc && out->sym)
		out->object = fmap->name;
	return rc;
}

static int kernel_data(struct symbols *s, const struct map_desc *map, uint64_t addr,
		       struct data_loc *out)
{
	const struct ksym *k;

	out->kernel = true;
	if (s->vmlinux) {
		struct obj *o = vmlinux_get(s, map);
		uint64_t vaddr = addr - o->kaslr;

		if (o->state != OBJ_OK)
			return obj_err(o);
		return obj__data_cached(s, o, vaddr, out);
	}
	if (!s->ksyms_loaded)
		ksyms_load(s);
	ksyms_check(s, map);
	if (!s->ksyms_usable)
		return -ENOENT;
	k = ksym_find(s, addr);
	if (!k)
		return -ENOENT;
	out->sym = k->name;
	out->sym_off = addr - k->addr;
	return 0;
}

/* The file mapping whose data segment the anonymous map continues (the
 * .bss past its last file page: prev ends where map starts), else NULL. */
static const struct map_desc *bss_owner(const struct map_desc *map, const struct map_desc *prev)
{
	return prev && prev->end == map->start && !map_is_anon(prev) && map_desc__unnamed_anon(map) ? prev : NULL;
}

/* cu's compilation directory ("" none) and language (0 none). */
static void cu_origin(Dwarf_Die *cu, char *dir, size_t size, int *lang)
{
	const char *d = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &(Dwarf_Attribute){ 0 }));
	Dwarf_Word l;

	snprintf(dir, size, "%s", d ? d : "");
	*lang = udata_attr(cu, DW_AT_language, &l) ? (int)l : 0;
}

/* die's declaration: file and line (0 when DWARF says nothing) */
static void decl_of(Dwarf_Die *die, char *file, size_t size, int *line)
{
	const char *f = dwarf_decl_file(die);

	snprintf(file, size, "%s", f ? f : "");
	if (dwarf_decl_line(die, line))
		*line = 0;
}

int symbols__data_decl(struct symbols *s, const struct map_desc *map, const struct map_desc *prev,
		       uint64_t addr, struct data_decl *out)
{
	const struct map_desc *m = map;
	const struct var *v;
	struct data_loc loc = { 0 };
	struct walk_at at;
	Dwarf_Die cu, type;
	struct obj *o;
	uint64_t vaddr;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!map || addr >= KERNEL_HALF)
		return -ENOENT;
	if (map_is_anon(map) && !(m = bss_owner(map, prev)))
		return -ENOENT;
	rc = obj__at(s, m, addr, true, &o, &vaddr);
	if (rc)
		return rc;
	if (!o->vars_built)
		vars_build(o);
	v = var_find(o, vaddr);
	if (!v || !dwarf_diename((Dwarf_Die *)&v->die))
		return -ENOENT;
	snprintf(out->var, sizeof(out->var), "%s", dwarf_diename((Dwarf_Die *)&v->die));
	if (dwarf_diecu((Dwarf_Die *)&v->die, &cu, NULL, NULL))
		cu_origin(&cu, out->comp_dir, sizeof(out->comp_dir), &out->lang);
	if (!die_type((Dwarf_Die *)&v->die, &type))
		return 0;
	/* its result unused: past every member (padding), the walk keeps the
	 * member of the outer struct it found on the way */
	type_walk_at(&type, vaddr - v->addr, &loc, &at);
	if (!at.has_member)
		return 0;
	snprintf(out->member, sizeof(out->member), "%s", dwarf_diename(&at.member));
	decl_of(&at.member, out->member_file, sizeof(out->member_file), &out->member_line);
	type_name(&at.parent, out->type, sizeof(out->type));
	decl_of(&at.parent, out->type_file, sizeof(out->type_file), &out->type_line);
	out->in_array = at.in_array;
	return 0;
}

/* In cu's top-level declarations, the one of type: a struct, union or
 * class by "struct TAG" (or its tag), a typedef by name (the type it
 * names, when that is a struct: its declaration), into *out. */
static bool type_die(Dwarf_Die *cu, const char *type, Dwarf_Die *out)
{
	const char *tag = strchr(type, ' ') ? strchr(type, ' ') + 1 : type;
	Dwarf_Die die;

	if (dwarf_child(cu, &die))
		return false;
	do {
		const char *name = dwarf_diename(&die);
		int t = dwarf_tag(&die);

		if (!name)
			continue;
		if ((t == DW_TAG_structure_type || t == DW_TAG_class_type || t == DW_TAG_union_type) &&
		    !strcmp(name, tag) && !dwarf_hasattr(&die, DW_AT_declaration)) {
			*out = die;
			return true;
		}
		if (t == DW_TAG_typedef && !strcmp(name, type)) {
			if (!die_type(&die, out) || dwarf_diename(out))
				*out = die;
			return true;
		}
	} while (!dwarf_siblingof(&die, &die));
	return false;
}

/* The declaration of type in cu, and of its member named member. */
static void type_decl(Dwarf_Die *cu, const char *type, const char *member, struct code_decl *out)
{
	Dwarf_Die t, m;

	if (!type_die(cu, type, &t))
		return;
	decl_of(&t, out->type_file, sizeof(out->type_file), &out->type_line);
	if (!member || !*member || dwarf_tag(&t) == DW_TAG_typedef || dwarf_child(&t, &m))
		return;
	do {
		const char *name = dwarf_diename(&m);

		if (dwarf_tag(&m) == DW_TAG_member && name && !strcmp(name, member)) {
			decl_of(&m, out->member_file, sizeof(out->member_file), &out->member_line);
			return;
		}
	} while (!dwarf_siblingof(&m, &m));
}

int symbols__code_decl(struct symbols *s, const struct map_desc *map, uint64_t addr, const char *type,
		       const char *member, struct code_decl *out)
{
	struct code_loc c;
	Dwarf_Addr bias;
	Dwarf_Die *cu;
	struct obj *o;
	uint64_t vaddr;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!map || map_is_anon(map) || addr >= KERNEL_HALF)
		return -ENOENT;
	rc = symbols__code(s, map, 0, addr, 0, &c);
	if (rc || !c.file || !c.line)
		return rc ? rc : -ENOENT;
	rc = obj__at(s, map, addr, false, &o, &vaddr);
	if (rc)
		return rc;
	snprintf(out->file, sizeof(out->file), "%s", c.file);
	out->line = c.line;
	cu = o->mod ? dwfl_module_addrdie(o->mod, vaddr, &bias) : NULL;
	if (!cu)
		return -ENOENT;
	cu_origin(cu, out->comp_dir, sizeof(out->comp_dir), &out->lang);
	if (type && *type)
		type_decl(cu, type, member, out);
	return 0;
}

int symbols__data(struct symbols *s, const struct map_desc *map, const struct map_desc *prev,
		  uint32_t pid, uint64_t addr, struct data_loc *out)
{
	int rc;

	memset(out, 0, sizeof(*out));
	s->stats.data_lookups++;
	if (pid == KERNEL_PID || addr >= KERNEL_HALF)
		return kernel_data(s, map, addr, out);
	if (!map)
		return -ENOENT;
	if (map_is_anon(map)) {
		if (bss_owner(map, prev) && !data_in_obj(s, prev, addr, true, out))
			return 0;
		memset(out, 0, sizeof(*out));
		out->kind = anon_kind(map);
		return 0;
	}
	/* .bss in the last file page: past the segment's file bytes, inside
	 * its memory size (obj__vaddr tries the file bytes first) */
	rc = data_in_obj(s, map, addr, true, out);
	if (rc == -ENOEXEC || rc == -ENOENT || rc == -ERANGE) {
		/* a mapped data file, or no symbol: say which file */
		out->kind = map->name;
		return 0;
	}
	if (rc == -ESTALE)
		out->kind = map->name;
	return rc;
}

