// SPDX-License-Identifier: GPL-2.0
/*
 * A CU's line table decoded here rather than by libdw; see dwline.h.
 *
 * Format: DWARF 5 section 6.2 (and 2-4 for the older headers). Where a
 * choice is libdw's rather than the standard's, it is libdw's, so that the
 * names do not change with the decoder: rows sorted by address with an
 * end_sequence row first among rows at one address and program order
 * otherwise; the highest row taken as the end of a sequence; file 0 of a
 * DWARF 4 table is "???"; a relative file name is joined to its directory
 * with one '/', directory 0 of DWARF 2-4 being the CU's comp_dir; and the
 * same tables refused (a line or column that does not fit, a header whose
 * length disagrees with its contents). One exception: an extended opcode's
 * length is the ULEB128 the standard says; libdw 0.188 reads one byte, which
 * differs only for operations of 128 bytes or more.
 */
#include <dwarf.h>
#include <errno.h>
#include <gelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "names/dwline.h"
#include "util/util.h"

#define END_BIT 0x80000000u
#define MAX_FORMS 256

struct dwline_row {
	uint64_t addr;
	int32_t line;
	uint32_t file_end;      /* file index (at most INT32_MAX) | END_BIT for an end_sequence row */
};

#define INDEX_STEP 64
#define MAX_RESERVE ((size_t)4 << 20)   /* rows */

struct dwline {
	struct dwline_row *rows;        /* xbig_calloc: one row takes a byte of program at least */
	size_t nr_rows, alloc_rows;
	uint64_t *index;                /* address of every INDEX_STEP-th row: a lookup touches a
					 * few cache lines rather than a binary search's 20 */
	char **files;           /* owned, NULL where the table has a hole */
	size_t nr_files, alloc_files;
};

struct cur {
	const uint8_t *p, *end;
	bool be, bad;
};

static uint64_t fixed(struct cur *c, unsigned int n)
{
	uint64_t v = 0;

	if ((size_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	for (unsigned int i = 0; i < n; i++)
		v |= (uint64_t)c->p[c->be ? n - 1 - i : i] << (8 * i);
	c->p += n;
	return v;
}

/*
 * LEB128 as libdw reads it: at most 10 bytes (9 signed); a number cut short
 * by the end or longer than that reads as the largest value. Reading at the
 * end is an error.
 */
static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;

	if (c->p >= c->end) {
		c->bad = true;
		return 0;
	}
	for (unsigned int i = 0; i < 10 && c->p < c->end; i++) {
		uint8_t b = *c->p++;

		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			return v;
	}
	return UINT64_MAX;
}

static int64_t sleb(struct cur *c)
{
	uint64_t v = 0;

	if (c->p >= c->end) {
		c->bad = true;
		return 0;
	}
	for (unsigned int i = 0; i < 9 && c->p < c->end; i++) {
		uint8_t b = *c->p++;

		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			if (b & 0x40)
				v |= -((uint64_t)1 << (7 * (i + 1)));
			return (int64_t)v;
		}
	}
	return INT64_MAX;
}

static const char *cstr(struct cur *c)
{
	const uint8_t *z = c->p < c->end ? memchr(c->p, 0, (size_t)(c->end - c->p)) : NULL;
	const char *s = (const char *)c->p;

	if (!z) {
		c->bad = true;
		c->p = c->end;
		return NULL;
	}
	c->p = z + 1;
	return s;
}

static const char *str_at(const uint8_t *sec, size_t size, uint64_t off)
{
	if (!sec || off >= size || !memchr(sec + off, 0, size - off))
		return NULL;
	return (const char *)sec + off;
}

/* One attribute value of a DWARF 5 directory or file entry: *s for a
 * string form, *u for a constant form. 0, -EINVAL, or -EOPNOTSUPP for a form
 * that needs more than the line sections (strx: .debug_str_offsets). */
static int form_value(struct cur *c, const struct dwline_sections *sec, unsigned int form,
		      unsigned int offset_size, const char **s, uint64_t *u)
{
	*s = NULL;
	*u = 0;
	switch (form) {
	case DW_FORM_string:
		*s = cstr(c);
		break;
	case DW_FORM_strp:
	case DW_FORM_line_strp: {
		uint64_t off = fixed(c, offset_size);

		if (c->bad)
			return -EINVAL;
		*s = form == DW_FORM_strp ? str_at(sec->str, sec->str_size, off)
				       : str_at(sec->line_str, sec->line_str_size, off);
		if (!*s)
			return -EINVAL;
		break;
	}
	case DW_FORM_data1: *u = fixed(c, 1); break;
	case DW_FORM_data2: *u = fixed(c, 2); break;
	case DW_FORM_data4: *u = fixed(c, 4); break;
	case DW_FORM_data8: *u = fixed(c, 8); break;
	case DW_FORM_flag: fixed(c, 1); break;
	case DW_FORM_sec_offset: fixed(c, offset_size); break;
	case DW_FORM_udata: *u = uleb(c); break;
	case DW_FORM_sdata: *u = (uint64_t)sleb(c); break;
	case DW_FORM_data16: fixed(c, 8); fixed(c, 8); break;
	case DW_FORM_block:
	case DW_FORM_block1:
	case DW_FORM_block2:
	case DW_FORM_block4: {
		unsigned int width = form == DW_FORM_block1 ? 1 : form == DW_FORM_block2 ? 2 : 4;
		uint64_t n = form == DW_FORM_block ? uleb(c) : fixed(c, width);

		if (c->bad || n > (uint64_t)(c->end - c->p))
			return -EINVAL;
		c->p += n;
		break;
	}
	default:
		return -EOPNOTSUPP;
	}
	return c->bad ? -EINVAL : 0;
}

static void add_file(struct dwline *t, size_t idx, const char *dir, const char *name)
{
	if (idx >= t->nr_files) {
		xgrow((void **)&t->files, &t->alloc_files, idx + 1, sizeof(*t->files));
		memset(t->files + t->nr_files, 0, (idx + 1 - t->nr_files) * sizeof(*t->files));
		t->nr_files = idx + 1;
	}
	free(t->files[idx]);
	t->files[idx] = name[0] == '/' || !dir ? xstrdup(name) : xasprintf("%s/%s", dir, name);
}

/* DWARF 5 entry formats: (content type, form) pairs. */
struct formats {
	unsigned int n, type[MAX_FORMS], form[MAX_FORMS];
};

/* The head of a DWARF 5 directory or file list: its entry formats and its
 * count. need_dir: file entries, which must say their directory. */
static int read_list_head(struct cur *c, struct formats *f, bool need_dir, uint64_t *n)
{
	bool path = false, dir = false;

	f->n = (unsigned int)fixed(c, 1);
	for (unsigned int i = 0; i < f->n; i++) {
		f->type[i] = (unsigned int)uleb(c);
		f->form[i] = (unsigned int)uleb(c);
		path |= f->type[i] == DW_LNCT_path;
		dir |= f->type[i] == DW_LNCT_directory_index;
	}
	if (c->bad || (f->n && (!path || (need_dir && !dir))))
		return -EINVAL;
	*n = uleb(c);
	/* every entry takes at least a byte per form: a count beyond that lies */
	if (c->bad || (!f->n && *n) || (f->n && *n > (uint64_t)(c->end - c->p) / f->n))
		return -EINVAL;
	return 0;
}

/* A DWARF 5 directory or file entry: its path and directory index. */
static int read_entry(struct cur *c, const struct dwline_sections *sec, const struct formats *f,
		      unsigned int offset_size, const char **path, uint64_t *dir)
{
	bool have_dir = false;
	uint64_t idx = 0;

	*path = NULL;
	for (unsigned int i = 0; i < f->n; i++) {
		const char *s;
		uint64_t u;
		int ret = form_value(c, sec, f->form[i], offset_size, &s, &u);

		if (ret)
			return ret;
		if (f->type[i] == DW_LNCT_path) {
			if (!s)
				return -EINVAL;
			*path = s;
		} else if (f->type[i] == DW_LNCT_directory_index && dir) {
			if (s)
				return -EINVAL;
			idx = u;
			have_dir = true;
		}
	}
	if (!*path || (dir && !have_dir))
		return -EINVAL;
	if (dir)
		*dir = idx;
	return 0;
}

struct header {
	unsigned int version, offset_size;
	uint8_t min_inst, max_ops, default_stmt, line_range, opcode_base;
	int8_t line_base;
	const uint8_t *opcode_lengths;      /* [opcode - 1] */
	const char **dirs;
	size_t nr_dirs;
};

static int read_dirs_v4(struct cur *c, struct header *h, const char *comp_dir)
{
	struct cur scan = *c;
	size_t n = 1;

	while (scan.p < scan.end && *scan.p) {
		cstr(&scan);
		n++;
	}
	if (scan.bad || scan.p >= scan.end)
		return -EINVAL;
	h->dirs = xcalloc(n, sizeof(*h->dirs));
	h->nr_dirs = n;
	h->dirs[0] = comp_dir;
	for (size_t i = 1; i < n; i++)
		h->dirs[i] = cstr(c);
	c->p++;     /* the empty string that ends the list */
	return 0;
}

static int read_files_v4(struct cur *c, struct dwline *t, const struct header *h)
{
	size_t idx = 1;

	while (c->p < c->end && *c->p) {
		const char *name = cstr(c);
		uint64_t dir = uleb(c);

		uleb(c);        /* modification time */
		uleb(c);        /* length */
		if (c->bad)
			return -EINVAL;
		if (dir >= h->nr_dirs)
			return -EINVAL;
		add_file(t, idx++, h->dirs[dir], name);
	}
	if (c->p >= c->end)
		return -EINVAL;
	c->p++;
	return 0;
}

static int read_dirs_v5(struct cur *c, const struct dwline_sections *sec, struct header *h)
{
	struct formats f;
	uint64_t n;
	int ret = read_list_head(c, &f, false, &n);

	if (ret)
		return ret;
	h->dirs = xcalloc(n ? n : 1, sizeof(*h->dirs));
	h->nr_dirs = n;
	for (size_t i = 0; i < n; i++) {
		ret = read_entry(c, sec, &f, h->offset_size, &h->dirs[i], NULL);
		if (ret)
			return ret;
	}
	return 0;
}

static int read_files_v5(struct cur *c, const struct dwline_sections *sec, struct dwline *t,
			 const struct header *h)
{
	struct formats f;
	uint64_t n;
	int ret = read_list_head(c, &f, true, &n);

	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++) {
		const char *path;
		uint64_t dir = 0;

		ret = read_entry(c, sec, &f, h->offset_size, &path, &dir);
		if (ret)
			return ret;
		if (dir >= h->nr_dirs)
			return -EINVAL;
		add_file(t, i, h->dirs[dir], path);
	}
	return 0;
}

/* The state machine registers that reach a row or are checked like libdw does. */
struct state {
	uint64_t addr;
	uint32_t op_index, file, isa, discriminator;
	int64_t line;
	uint64_t column;
};

static void state_reset(struct state *s)
{
	*s = (struct state){ .file = 1, .line = 1 };
}

static int emit(struct dwline *t, const struct header *h, const struct state *s, bool end)
{
	/* what libdw's Dwarf_Line cannot hold makes it refuse the table (an
	 * is_stmt default other than 0 or 1 never toggles to one that fits) */
	if (h->default_stmt > 1 || s->line < INT_MIN || s->line > INT_MAX || s->column > USHRT_MAX ||
	    s->op_index > 255 || s->isa > 255 || s->discriminator >= (1u << 24))
		return -EINVAL;
	if (t->nr_rows == t->alloc_rows) {
		struct dwline_row *more = xbig_calloc(2 * t->alloc_rows * sizeof(*more), true);

		memcpy(more, t->rows, t->nr_rows * sizeof(*more));
		xbig_free(t->rows, t->alloc_rows * sizeof(*more));
		t->rows = more;
		t->alloc_rows *= 2;
	}
	t->rows[t->nr_rows++] = (struct dwline_row){
		s->addr, (int32_t)s->line, (s->file > INT32_MAX ? INT32_MAX : s->file) | (end ? END_BIT : 0) };
	return 0;
}

static void advance(struct state *s, const struct header *h, uint32_t ops)
{
	/* unsigned int arithmetic, as libdw's */
	uint32_t total = s->op_index + ops;

	s->addr += (uint32_t)(h->min_inst * (total / h->max_ops));
	s->op_index = total % h->max_ops;
}

/* An extended opcode (after its 0): its row, or its state change. */
static int extended(struct cur *c, struct dwline *t, const struct header *h, unsigned int address_size,
		    struct state *s)
{
	uint64_t len = uleb(c);
	const uint8_t *next;
	int ret = 0;

	if (c->bad || !len || len > (uint64_t)(c->end - c->p))
		return -EINVAL;
	next = c->p + len;
	switch (*c->p++) {
	case DW_LNE_end_sequence:
		ret = emit(t, h, s, true);
		state_reset(s);
		break;
	case DW_LNE_set_address:
		if ((size_t)(next - c->p) < address_size)
			return -EINVAL;
		s->addr = fixed(c, address_size);
		s->op_index = 0;
		break;
	case DW_LNE_define_file: {
		struct cur in = { c->p, next, c->be, false };
		const char *name = cstr(&in);
		uint64_t dir = uleb(&in);

		if (in.bad || dir >= h->nr_dirs)
			return -EINVAL;
		add_file(t, t->nr_files, h->dirs[dir], name);
		break;
	}
	case DW_LNE_set_discriminator: {
		struct cur in = { c->p, next, c->be, false };

		s->discriminator = (uint32_t)uleb(&in);
		if (in.bad)
			return -EINVAL;
		break;
	}
	default:
		break;
	}
	c->p = next;
	return ret;
}

/* A standard opcode (op, 1 to DW_LNS_set_isa): its row, or its state change. */
static int standard(struct cur *c, struct dwline *t, const struct header *h, unsigned int op, struct state *s)
{
	static const uint8_t nargs[] = { 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	int ret = 0;

	if (h->opcode_lengths[op - 1] != nargs[op])
		return -EINVAL;
	switch (op) {
	case DW_LNS_copy:
		ret = emit(t, h, s, false);
		s->discriminator = 0;
		break;
	case DW_LNS_advance_pc:
		advance(s, h, (uint32_t)uleb(c));
		break;
	case DW_LNS_advance_line:
		s->line += (int32_t)sleb(c);
		break;
	case DW_LNS_set_file:
		s->file = (uint32_t)uleb(c);
		break;
	case DW_LNS_set_column:
		s->column = (uint32_t)uleb(c);
		break;
	case DW_LNS_const_add_pc:
		if (!h->line_range)
			return -EINVAL;
		advance(s, h, (255u - h->opcode_base) / h->line_range);
		break;
	case DW_LNS_fixed_advance_pc:
		s->addr += fixed(c, 2);
		s->op_index = 0;
		break;
	case DW_LNS_set_isa:
		s->isa = (uint32_t)uleb(c);
		break;
	default:        /* stmt, basic block, prologue, epilogue: no row field */
		break;
	}
	return c->bad ? -EINVAL : ret;
}

static int run(struct cur *c, struct dwline *t, const struct header *h, unsigned int address_size)
{
	struct state s;
	int ret = 0;

	state_reset(&s);
	while (c->p < c->end && !ret) {
		unsigned int op = *c->p++;

		if (op >= h->opcode_base) {
			unsigned int adj = op - h->opcode_base;

			if (!h->line_range)
				return -EINVAL;
			s.line += h->line_base + (int)(adj % h->line_range);
			advance(&s, h, adj / h->line_range);
			ret = emit(t, h, &s, false);
			s.discriminator = 0;
		} else if (op == 0) {
			ret = extended(c, t, h, address_size, &s);
		} else if (op <= DW_LNS_set_isa) {
			ret = standard(c, t, h, op, &s);
		} else {
			/* an opcode newer than this decoder: skip its arguments */
			for (unsigned int n = h->opcode_lengths[op - 1]; n; n--)
				uleb(c);
			if (c->bad)
				return -EINVAL;
		}
	}
	return ret;
}

static bool row_before(const struct dwline_row *a, const struct dwline_row *b)
{
	if (a->addr != b->addr)
		return a->addr < b->addr;
	return (a->file_end & END_BIT) && !(b->file_end & END_BIT);
}

/* Stable: rows of equal rank stay in program order (libdw's tie-break). */
static void sort_rows(struct dwline *t)
{
	struct dwline_row *a = t->rows, *tmp;
	size_t n = t->nr_rows, i;

	for (i = 1; i < n && !row_before(&a[i], &a[i - 1]); i++)
		;
	if (i >= n)
		return;
	tmp = xmalloc(n * sizeof(*tmp));
	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t l = lo, r = mid, k = lo;

			while (l < mid && r < hi)
				tmp[k++] = row_before(&a[r], &a[l]) ? a[r++] : a[l++];
			while (l < mid)
				tmp[k++] = a[l++];
			while (r < hi)
				tmp[k++] = a[r++];
		}
		memcpy(a, tmp, n * sizeof(*a));
	}
	free(tmp);
}

static int decode(struct dwline *t, const struct dwline_sections *sec, uint64_t offset,
		  const char *comp_dir, unsigned int address_size, struct header *h)
{
	struct cur c = { sec->line, sec->line + sec->line_size, sec->big_endian, false };
	const uint8_t *header_end;
	uint64_t unit_len, header_len;
	int ret;

	if (!sec->line || offset >= sec->line_size)
		return -EINVAL;
	c.p += offset;
	unit_len = fixed(&c, 4);
	h->offset_size = 4;
	if (unit_len == 0xffffffff) {
		unit_len = fixed(&c, 8);
		h->offset_size = 8;
	}
	if (c.bad || unit_len > (uint64_t)(c.end - c.p))
		return -EINVAL;
	c.end = c.p + unit_len;
	h->version = (unsigned int)fixed(&c, 2);
	if (h->version < 2 || h->version > 5)
		return -EINVAL;
	if (h->version >= 5) {
		unsigned int asize = (unsigned int)fixed(&c, 1), seg = (unsigned int)fixed(&c, 1);

		if (asize != address_size || seg)
			return -EINVAL;
	}
	header_len = fixed(&c, h->offset_size);
	if (c.bad || header_len > (uint64_t)(c.end - c.p))
		return -EINVAL;
	header_end = c.p + header_len;
	h->min_inst = (uint8_t)fixed(&c, 1);
	h->max_ops = h->version >= 4 ? (uint8_t)fixed(&c, 1) : 1;
	h->default_stmt = (uint8_t)fixed(&c, 1);
	h->line_base = (int8_t)fixed(&c, 1);
	h->line_range = (uint8_t)fixed(&c, 1);
	h->opcode_base = (uint8_t)fixed(&c, 1);
	if (c.bad || !h->max_ops || !h->opcode_base || (size_t)(c.end - c.p) < h->opcode_base - 1u)
		return -EINVAL;
	h->opcode_lengths = c.p;
	c.p += h->opcode_base - 1;
	if (address_size != 4 && address_size != 8)
		return -EOPNOTSUPP;
	/* file 0 before DWARF 5 does not exist: libdw answers "???" */
	add_file(t, 0, NULL, "???");
	if (h->version < 5)
		ret = read_dirs_v4(&c, h, comp_dir) ?: read_files_v4(&c, t, h);
	else
		ret = read_dirs_v5(&c, sec, h) ?: read_files_v5(&c, sec, t, h);
	if (ret)
		return ret;
	/* libdw 0.188 reads 4 more header bytes as a .debug_str offset of
	 * NVIDIA's extensions (CUBIN files) */
	if (c.p + 4 == header_end)
		c.p += 4;
	if (c.p != header_end)
		return -EINVAL;
	/* every row costs an opcode byte at least: the program's size bounds
	 * the rows (up to a 64 MiB reservation; more is rare enough to copy),
	 * and pages past the last row used are never touched */
	t->alloc_rows = (size_t)(c.end - c.p) < MAX_RESERVE ? (size_t)(c.end - c.p) : MAX_RESERVE;
	if (!t->alloc_rows)
		t->alloc_rows = 1;
	t->rows = xbig_calloc(t->alloc_rows * sizeof(*t->rows), true);
	ret = run(&c, t, h, address_size);
	if (ret)
		return ret;
	sort_rows(t);
	if (t->nr_rows)
		t->rows[t->nr_rows - 1].file_end |= END_BIT;
	t->index = xmalloc((t->nr_rows / INDEX_STEP + 1) * sizeof(*t->index));
	for (size_t i = 0; i < t->nr_rows; i += INDEX_STEP)
		t->index[i / INDEX_STEP] = t->rows[i].addr;
	return 0;
}

int dwline__sections(Elf *elf, struct dwline_sections *s)
{
	GElf_Ehdr ehdr;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	memset(s, 0, sizeof(*s));
	if (!elf || !gelf_getehdr(elf, &ehdr) || elf_getshdrstrndx(elf, &shstrndx))
		return -ENOENT;
	s->big_endian = ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
		const char *name = sh ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;
		const uint8_t **p;
		size_t *size;
		Elf_Data *d;

		if (!name || sh->sh_type == SHT_NOBITS || (sh->sh_flags & SHF_COMPRESSED))
			continue;
		if (!strcmp(name, ".debug_line"))
			p = &s->line, size = &s->line_size;
		else if (!strcmp(name, ".debug_line_str"))
			p = &s->line_str, size = &s->line_str_size;
		else if (!strcmp(name, ".debug_str"))
			p = &s->str, size = &s->str_size;
		else
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf) {
			*p = d->d_buf;
			*size = d->d_size;
		}
	}
	return s->line ? 0 : -ENOENT;
}

int dwline__cu_offset(Dwarf_Die *cu, uint64_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (!dwarf_attr(cu, DW_AT_stmt_list, &a) || dwarf_formudata(&a, &w))
		return -ENOENT;
	*off = w;
	return 0;
}

int dwline__new_cu(struct dwline **tp, const struct dwline_sections *s, Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	Dwarf_Half version;
	uint8_t unit_type, asize, osize;
	uint64_t off;

	*tp = NULL;
	if (dwline__cu_offset(cu, &off))
		return -ENOENT;
	if (dwarf_cu_info(cu->cu, &version, &unit_type, NULL, NULL, NULL, &asize, &osize) ||
	    (unit_type != DW_UT_compile && unit_type != DW_UT_partial))
		return -EOPNOTSUPP;
	return dwline__new(tp, s, off, dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a)), asize);
}

int dwline__new(struct dwline **tp, const struct dwline_sections *s, uint64_t offset,
		const char *comp_dir, unsigned int address_size)
{
	struct dwline *t = xcalloc(1, sizeof(*t));
	struct header h = { 0 };
	int ret = decode(t, s, offset, comp_dir, address_size, &h);

	free(h.dirs);
	if (ret) {
		dwline__delete(t);
		*tp = NULL;
		return ret;
	}
	*tp = t;
	return 0;
}

void dwline__delete(struct dwline *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_files; i++)
		free(t->files[i]);
	free(t->files);
	xbig_free(t->rows, t->alloc_rows * sizeof(*t->rows));
	free(t->index);
	free(t);
}

int dwline__find(const struct dwline *t, uint64_t addr, const char **file, int *line)
{
	size_t blocks = t->nr_rows ? (t->nr_rows - 1) / INDEX_STEP + 1 : 0;
	size_t b = upper_bound_u64(t->index, blocks, sizeof(*t->index), addr), i, n;
	const struct dwline_row *r;

	if (!b)
		return -ENOENT;
	/* the answer is in block b - 1: the next block starts above addr */
	i = (b - 1) * INDEX_STEP;
	n = t->nr_rows - i < INDEX_STEP ? t->nr_rows - i : INDEX_STEP;
	i += upper_bound_u64(t->rows + i, n, sizeof(*t->rows), addr);
	r = &t->rows[i - 1];
	if (r->file_end & END_BIT)
		return -ENOENT;
	*file = dwline__file(t, r->file_end);
	*line = r->line;
	return 0;
}

const char *dwline__file(const struct dwline *t, uint64_t idx)
{
	return idx < t->nr_files ? t->files[idx] : NULL;
}

size_t dwline__nr_rows(const struct dwline *t)
{
	return t->nr_rows;
}

size_t dwline__nr_files(const struct dwline *t)
{
	return t->nr_files;
}
