// SPDX-License-Identifier: GPL-2.0
/*
 * Data types (dtype.c) said as names: what a sampled access's operand
 * points into, as "struct counter.hits" or "buf[]", from the answer the
 * flow gave for its instruction and the data address sampled; and the
 * coverage of a whole object (symbols__type_all, bench-types).
 */
#include <capstone.h>
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "names/dtype_int.h"

static void append(struct data_loc *d, const char *fmt, uint64_t v)
{
	size_t len = strlen(d->member);

	if (len < sizeof(d->member) - 1)
		snprintf(d->member + len, sizeof(d->member) - len, fmt, v);
}

/* The element [?] of an indexed access inside the type: the last "[n]" of
 * the path becomes "[?]". */
static void unknown_element(struct data_loc *d, size_t from)
{
	char *last = NULL, *p = d->member + from, *e;

	while ((p = strchr(p, '[')))
		last = p++;
	if (!last || !(e = strchr(last, ']')))
		return;
	memmove(last + 2, e, strlen(e) + 1);
	last[1] = '?';
}

/* Whether an access at off into a mapping of msize bytes, no allocation
 * recorded, is inside one object of tsize at its start: an mmap'ed struct
 * (the mapping may be longer: the kernel merges a new anonymous mapping
 * with the one above it). Not an array of the type over the mapping: malloc
 * serves large blocks by mmap 16 bytes in, and arenas hold many objects;
 * with record --alloc those are heap objects, named from their own start. */
static bool fills_mapping(uint64_t tsize, uint64_t msize, uint64_t off)
{
	return tsize <= msize && off < tsize;
}

/* The heap object [obj_start, + obj_size) is an array of elements of tsize
 * and data is at offset off of one of them: the object holds two or more
 * whole elements and data's place in it agrees with the instruction's
 * offset inside the type. (A struct inside a larger allocated struct
 * fails the test unless it happens to sit at a multiple of its own size.) */
static bool in_array(uint64_t tsize, uint64_t data, uint64_t obj_start, uint64_t obj_size, bool whole, uint64_t off)
{
	return !whole && obj_size >= 2 * tsize && obj_size % tsize == 0 && data >= obj_start &&
	       data - obj_start < obj_size && off < tsize && (data - obj_start) % tsize == off;
}

/* Type and member path of result r for data address data. */
static void res_name(const struct dtype_res *r, uint64_t data, uint64_t obj_start, uint64_t obj_size,
		     struct data_loc *out)
{
	/* no allocation was recorded: a whole mapping is the object only
	 * when one of the type fills it (DTYPE_WHOLE_MAPPING) */
	bool whole = obj_size & DTYPE_WHOLE_MAPPING;

	obj_size &= ~DTYPE_WHOLE_MAPPING;
	Dwarf_Die type = r->type;
	Dwarf_Word size = 0;
	bool sized = !dwarf_aggregate_size(&type, &size) && size;
	int64_t off = r->off;
	size_t from;

	type_name(&type, out->type, sizeof(out->type));
	out->type_source = r->source;
	out->member[0] = '\0';
	if (r->ptr) {
		/* a pointer to type (a spilled register): no member in it */
		size_t len = strlen(out->type);

		snprintf(out->type + len, sizeof(out->type) - len, " *");
		out->var_led = false;
		out->aggregate = false;
		return;
	}
	out->var_led = r->var;
	{
		Dwarf_Die p;
		int tag = dt_peel(&type, &p) ? dwarf_tag(&p) : 0;

		out->aggregate = tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type;
	}
	if (r->var)
		snprintf(out->member, sizeof(out->member), "%s", r->var);
	from = strlen(out->member);
	if (r->indexed && !r->var && obj_size && sized && data >= obj_start && data - obj_start < obj_size &&
	    (!whole || fills_mapping(size, obj_size, data - obj_start)) && off >= 0 && data - obj_start >= (uint64_t)off &&
	    (!r->scale || (data - obj_start - (uint64_t)off) % r->scale == 0)) {
		/* the heap object's start is element 0: the exact element */
		off = (int64_t)(data - obj_start);
		out->type_source = TYPE_HEAP;
	} else if (r->indexed) {
		/* an index register stepping inside the type (an array
		 * member), else whole elements of it */
		struct data_loc inner;

		memset(&inner, 0, sizeof(inner));
		if (((r->scale && sized && r->scale < size) || r->inner) && off >= 0 &&
		    type_walk(&type, (uint64_t)off, &inner, NULL) && strchr(inner.member, '[')) {
			type_walk(&type, (uint64_t)off, out, NULL);
			unknown_element(out, from);
		} else if (r->inner) {
			/* walking inside the type, not at an array member:
			 * which member is not known */
		} else if (sized && !r->var && off >= 0) {
			append(out, "[?]", 0);
			type_walk(&type, (uint64_t)off % size, out, NULL);
		} else if (off >= 0) {
			type_walk(&type, (uint64_t)off, out, NULL);
			unknown_element(out, from);
		}
		if (!r->var && out->member[0] == '.')
			memmove(out->member, out->member + 1, strlen(out->member));
		return;
	}
	if (off < 0)
		return;
	if (!r->indexed && !r->var && sized && in_array(size, data, obj_start, obj_size, whole, (uint64_t)off)) {
		/* a pointer to one element of a heap array of the type (a
		 * thread's own slot): the object's start is element 0 */
		off = (int64_t)(data - obj_start);
		out->type_source = TYPE_HEAP;
	}
	if (sized && !r->var && ((uint64_t)off >= size || (out->type_source == TYPE_HEAP && obj_size >= 2 * size))) {
		append(out, "[%" PRIu64 "]", (uint64_t)off / size);
		off = (int64_t)((uint64_t)off % size);
	}
	type_walk(&type, (uint64_t)off, out, NULL);
	if (!r->var && out->member[0] == '.')
		memmove(out->member, out->member + 1, strlen(out->member));
}

static int access_type(struct symbols *s, const struct map_desc *map, uint64_t addr, uint64_t key_bit, uint64_t data,
		       uint64_t obj_start, uint64_t obj_size, struct data_loc *out, enum dtype_reason *reason)
{
	struct dtype_res r;
	struct obj *o;
	uint64_t vaddr;
	int rc;

	if (reason)
		*reason = DT_NO_CODE;
	if (!map || map_is_anon(map) || map->name[0] == '[')
		return -ENOENT;
	rc = obj__at(s, map, addr, false, &o, &vaddr);
	if (rc)
		return rc;
	rc = dt_get(s, o, vaddr | key_bit, &r);
	if (reason)
		*reason = (enum dtype_reason)r.reason;
	if (rc)
		return rc;
	res_name(&r, data, obj_start, obj_size, out);
	return 0;
}

int symbols__access_type(struct symbols *s, const struct map_desc *map, uint64_t addr, uint64_t data,
			 uint64_t obj_start, uint64_t obj_size, struct data_loc *out, enum dtype_reason *reason)
{
	return access_type(s, map, addr, 0, data, obj_start, obj_size, out, reason);
}

int symbols__call_arg_type(struct symbols *s, const struct map_desc *map, uint64_t addr, uint64_t data,
			   uint64_t obj_start, uint64_t obj_size, struct data_loc *out)
{
	return access_type(s, map, addr, DT_ARG_KEY, data, obj_start, obj_size, out, NULL);
}

int symbols__type_all(struct symbols *s, const char *path, uint64_t counts[DT_NR],
		      void (*cb)(void *arg, uint64_t vaddr, enum dtype_reason r, const struct data_loc *d),
		      void *arg)
{
	struct map_desc map = { .name = (char *)path, .start = 0, .end = UINT64_MAX };
	struct obj *o = obj__get(s, &map);
	GElf_Addr bias;
	Elf *elf;
	Elf_Scn *scn = NULL;
	const struct dt_arch *arch;
	csh *h;
	int rc = o ? obj_err(o) : -ENOENT;

	if (rc)
		return rc;
	arch = dt_arch_of(o);
	elf = dwfl_module_getelf(o->mod, &bias);
	if (!elf || !arch || !cs_handle(s, arch->machine, &h))
		return -ENOEXEC;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const uint8_t *code;
		size_t avail;
		cs_insn *in;
		uint64_t a;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		avail = code_span(o, sh.sh_addr, &code);
		in = cs_malloc(*h);
		a = sh.sh_addr;
		while (avail) {
			const uint8_t *p = code;
			size_t left = avail;
			uint64_t at = a;
			struct dtype_res r;
			struct data_loc d;

			if (!cs_disasm_iter(*h, &p, &left, &at, in)) {
				code++, avail--, a++;
				continue;
			}
			code = p, avail = left, a = at;
			if (!arch->counted(in))
				continue;
			memset(&d, 0, sizeof(d));
			rc = dt_get(s, o, in->address, &r);
			if (!rc)
				res_name(&r, 0, 0, 0, &d);
			counts[r.reason]++;
			if (cb)
				cb(arg, in->address, (enum dtype_reason)r.reason, &d);
		}
		cs_free(in, 1);
	}
	return 0;
}
