/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libdw as the oracle for src/names/dwline.c: random line tables (every DWARF
 * version, DWARF64, both byte orders, sequences out of order, rows at one
 * address, odd opcode bases, unknown opcodes, DWARF 5 entry formats), wrapped
 * with a compilation unit into an ELF image in memory, read by libdw and by
 * dwline; every answer must agree. Used by tests/unit/test_dwline.c (seeded)
 * and tests/fuzz/fuzz_dwline.c (the fuzzer's bytes drive the choices).
 */
#ifndef C2CSCAN_DWLINE_ORACLE_H
#define C2CSCAN_DWLINE_ORACLE_H

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names/dwline.h"

struct lt_buf {
	uint8_t *p;
	size_t n, cap;
	bool be;
};

static void lb_put(struct lt_buf *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void lb_u(struct lt_buf *b, uint64_t v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		uint8_t c = (uint8_t)(v >> (8 * (b->be ? n - 1 - i : i)));

		lb_put(b, &c, 1);
	}
}

static void lb_set_u(struct lt_buf *b, size_t at, uint64_t v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		b->p[at + i] = (uint8_t)(v >> (8 * (b->be ? n - 1 - i : i)));
}

static void lb_uleb(struct lt_buf *b, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;

		v >>= 7;
		if (v)
			c |= 0x80;
		lb_put(b, &c, 1);
	} while (v);
}

static void lb_sleb(struct lt_buf *b, int64_t v)
{
	for (;;) {
		uint8_t c = v & 0x7f;

		v >>= 7;
		if ((v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40))) {
			lb_put(b, &c, 1);
			return;
		}
		c |= 0x80;
		lb_put(b, &c, 1);
	}
}

static void lb_str(struct lt_buf *b, const char *s)
{
	lb_put(b, s, strlen(s) + 1);
}

/* Choices: from the fuzzer's bytes while they last, then a PRNG. */
struct lt_src {
	const uint8_t *p;
	size_t n;
	uint64_t x;
};

static uint32_t lt_rand(struct lt_src *s, uint32_t bound)
{
	uint32_t v;

	if (!bound)
		return 0;
	if (s->n) {
		v = *s->p++;
		s->n--;
		if (bound > 256 && s->n) {
			v |= (uint32_t)*s->p++ << 8;
			s->n--;
		}
	} else {
		s->x ^= s->x << 13;
		s->x ^= s->x >> 7;
		s->x ^= s->x << 17;
		v = (uint32_t)(s->x >> 16);
	}
	return v % bound;
}

/* One generated CU: its sections and what the CU DIE says. */
struct lt_unit {
	struct lt_buf line, line_str, str;
	unsigned int version, address_size;
	bool be;
	const char *comp_dir;
	unsigned int opcode_base;
};

static void lt_unit_free(struct lt_unit *u)
{
	free(u->line.p);
	free(u->line_str.p);
	free(u->str.p);
	memset(u, 0, sizeof(*u));
}

static const char *const lt_names[] = { "a.c", "/abs/b.h", "sub/c.c", "d.h", "" };
static const char *const lt_dirs[] = { "/work", "inc", "/usr/include", "rel/dir" };

/* A string in one of DWARF 5's forms. */
static void lt_form_str(struct lt_unit *u, struct lt_buf *b, unsigned int form, unsigned int osize,
			const char *s)
{
	if (form == DW_FORM_string) {
		lb_str(b, s);
	} else if (form == DW_FORM_line_strp) {
		lb_u(b, u->line_str.n, osize);
		lb_str(&u->line_str, s);
	} else {
		lb_u(b, u->str.n, osize);
		lb_str(&u->str, s);
	}
}

static void lt_form_uint(struct lt_buf *b, unsigned int form, uint64_t v)
{
	switch (form) {
	case DW_FORM_data1: lb_u(b, v, 1); break;
	case DW_FORM_data2: lb_u(b, v, 2); break;
	case DW_FORM_data4: lb_u(b, v, 4); break;
	case DW_FORM_data8: lb_u(b, v, 8); break;
	default: lb_uleb(b, v); break;
	}
}

/* Directory or file entries in DWARF 5 form. */
static void lt_entries_v5(struct lt_src *r, struct lt_unit *u, struct lt_buf *b, unsigned int osize,
			  bool files, unsigned int count, unsigned int ndirs)
{
	static const unsigned int str_forms[] = { DW_FORM_string, DW_FORM_line_strp, DW_FORM_strp };
	static const unsigned int idx_forms[] = { DW_FORM_udata, DW_FORM_data1, DW_FORM_data2 };
	unsigned int sform = str_forms[lt_rand(r, 3)], iform = idx_forms[lt_rand(r, 3)];
	bool md5 = files && lt_rand(r, 3) == 0, stamp = lt_rand(r, 4) == 0;
	unsigned int stamp_form = lt_rand(r, 2) ? DW_FORM_udata : DW_FORM_block;

	/* formats: path first or after the index */
	lb_u(b, 1 + (files ? 1 : 0) + md5 + stamp, 1);
	if (files) {
		lb_uleb(b, DW_LNCT_directory_index);
		lb_uleb(b, iform);
	}
	lb_uleb(b, DW_LNCT_path);
	lb_uleb(b, sform);
	if (md5) {
		lb_uleb(b, DW_LNCT_MD5);
		lb_uleb(b, DW_FORM_data16);
	}
	if (stamp) {
		lb_uleb(b, DW_LNCT_timestamp);
		lb_uleb(b, stamp_form);
	}
	lb_uleb(b, count);
	for (unsigned int i = 0; i < count; i++) {
		const char *name = files ? lt_names[lt_rand(r, 5)] : lt_dirs[lt_rand(r, 4)];

		if (files)
			lt_form_uint(b, iform, lt_rand(r, 16) ? lt_rand(r, ndirs ? ndirs : 1) : ndirs + 1);
		lt_form_str(u, b, sform, osize, name);
		if (md5)
			for (int k = 0; k < 16; k++)
				lb_u(b, lt_rand(r, 256), 1);
		if (stamp) {
			/* a number or a block of a few bytes: both must be skipped */
			unsigned int n = lt_rand(r, 4);

			lb_uleb(b, stamp_form == DW_FORM_udata ? lt_rand(r, 100000) : n);
			for (unsigned int k = 0; stamp_form == DW_FORM_block && k < n; k++)
				lb_u(b, lt_rand(r, 256), 1);
		}
	}
}

/* A line program of random operations. */
static void lt_program(struct lt_src *r, struct lt_unit *u, struct lt_buf *b, unsigned int nfiles)
{
	unsigned int nops = lt_rand(r, 160);
	uint64_t base = lt_rand(r, 4) ? 0x1000 : 0xffffffffffff0000ULL;

	for (unsigned int i = 0; i < nops; i++) {
		unsigned int k = lt_rand(r, 100), ob = u->opcode_base;

		if (k < 40) {                   /* special opcode */
			lb_u(b, ob + lt_rand(r, 256 - ob), 1);
		} else if (k < 48) {            /* set_address: sequences overlap and go backwards */
			lb_u(b, 0, 1);
			lb_uleb(b, 1 + u->address_size);
			lb_u(b, DW_LNE_set_address, 1);
			lb_u(b, base + lt_rand(r, 64) * 16, u->address_size);
		} else if (k < 55) {
			lb_u(b, 0, 1);
			lb_uleb(b, 1);
			lb_u(b, DW_LNE_end_sequence, 1);
		} else if (k < 58 && ob > 4) {
			lb_u(b, 0, 1);
			lb_uleb(b, 2);
			lb_u(b, DW_LNE_set_discriminator, 1);
			lb_uleb(b, lt_rand(r, 100));
		} else if (k < 60 && u->version < 5) {
			const char *name = lt_names[lt_rand(r, 5)];
			struct lt_buf tmp = { 0 };

			lb_str(&tmp, name);
			lb_uleb(&tmp, lt_rand(r, 3));
			lb_uleb(&tmp, 0);
			lb_uleb(&tmp, 0);
			lb_u(b, 0, 1);
			lb_uleb(b, 1 + tmp.n);
			lb_u(b, DW_LNE_define_file, 1);
			lb_put(b, tmp.p, tmp.n);
			free(tmp.p);
		} else if (k < 62) {            /* an extended opcode nobody knows (0x90, 0x91: NVIDIA's) */
			unsigned int n = lt_rand(r, 6);

			lb_u(b, 0, 1);
			lb_uleb(b, 1 + n);
			lb_u(b, 0xa0 + lt_rand(r, 0x40), 1);
			for (unsigned int j = 0; j < n; j++)
				lb_u(b, lt_rand(r, 256), 1);
		} else {
			unsigned int op = 1 + lt_rand(r, ob > 1 ? ob - 1 : 1);

			if (op >= ob)
				op = ob;        /* opcode_base 1: no standard opcodes */
			lb_u(b, op, 1);
			switch (op) {
			case DW_LNS_advance_pc: lb_uleb(b, lt_rand(r, 40)); break;
			case DW_LNS_advance_line:
				lb_sleb(b, lt_rand(r, 200) ? (int64_t)lt_rand(r, 40) - 20
							  : (int64_t)lt_rand(r, 2) * 0x100000000LL - 0x7fffffffLL);
				break;
			case DW_LNS_set_file: lb_uleb(b, lt_rand(r, nfiles + 2)); break;
			case DW_LNS_set_column: lb_uleb(b, lt_rand(r, 200) ? lt_rand(r, 100) : 70000); break;
			case DW_LNS_fixed_advance_pc: lb_u(b, lt_rand(r, 300), 2); break;
			case DW_LNS_set_isa: lb_uleb(b, lt_rand(r, 200) ? lt_rand(r, 4) : 300); break;
			default:
				/* unknown standard opcodes take ULEB arguments (their lengths) */
				if (op > DW_LNS_set_isa && op < ob)
					for (unsigned int j = 0; j < 2; j++)
						lb_uleb(b, lt_rand(r, 1000));
				break;
			}
		}
	}
	if (lt_rand(r, 4)) {
		lb_u(b, 0, 1);
		lb_uleb(b, 1);
		lb_u(b, DW_LNE_end_sequence, 1);
	}
}

/* A whole random line table in u->line at offset 0. */
static void lt_generate(struct lt_src *r, struct lt_unit *u)
{
	static const uint8_t std_lengths[] = { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	static const unsigned int bases[] = { 13, 13, 13, 10, 14, 1, 5 };
	struct lt_buf *b = &u->line;
	bool dwarf64 = lt_rand(r, 8) == 0;
	unsigned int osize = dwarf64 ? 8 : 4, ndirs, nfiles = 0;
	size_t len_at, hlen_at, hstart;

	u->be = lt_rand(r, 8) == 0;
	u->line.be = u->line_str.be = u->str.be = u->be;
	u->version = 2 + lt_rand(r, 4);
	u->address_size = lt_rand(r, 6) ? 8 : 4;
	u->comp_dir = lt_rand(r, 5) ? "/comp/dir" : NULL;
	u->opcode_base = bases[lt_rand(r, 7)];
	if (dwarf64)
		lb_u(b, 0xffffffff, 4);
	len_at = b->n;
	lb_u(b, 0, osize);
	lb_u(b, u->version, 2);
	if (u->version >= 5) {
		lb_u(b, u->address_size, 1);
		lb_u(b, 0, 1);
	}
	hlen_at = b->n;
	lb_u(b, 0, osize);
	hstart = b->n;
	lb_u(b, 1 + lt_rand(r, 2) * 3, 1);                     /* minimum_instruction_length */
	if (u->version >= 4)
		lb_u(b, lt_rand(r, 6) ? 1 : 3, 1);              /* maximum_operations_per_instruction */
	lb_u(b, lt_rand(r, 20) ? lt_rand(r, 2) : 2, 1);         /* default_is_stmt */
	lb_u(b, (uint8_t)(int8_t)-(int)lt_rand(r, 6), 1);       /* line_base */
	lb_u(b, lt_rand(r, 30) ? 1 + lt_rand(r, 16) : 0, 1);   /* line_range */
	lb_u(b, u->opcode_base, 1);
	for (unsigned int op = 1; op < u->opcode_base; op++)
		lb_u(b, op <= 12 ? std_lengths[op - 1] : 2, 1);
	ndirs = lt_rand(r, 4);
	if (u->version < 5) {
		for (unsigned int i = 0; i < ndirs; i++)
			lb_str(b, lt_dirs[lt_rand(r, 4)]);
		lb_u(b, 0, 1);
		nfiles = lt_rand(r, 5);
		for (unsigned int i = 0; i < nfiles; i++) {
			lb_str(b, lt_names[lt_rand(r, 4)]);
			lb_uleb(b, lt_rand(r, 16) ? lt_rand(r, ndirs + 1) : ndirs + 2);
			lb_uleb(b, lt_rand(r, 1000));
			lb_uleb(b, lt_rand(r, 1000));
		}
		lb_u(b, 0, 1);
	} else {
		ndirs++;
		lt_entries_v5(r, u, b, osize, false, ndirs, ndirs);
		nfiles = lt_rand(r, 5);
		lt_entries_v5(r, u, b, osize, true, nfiles, ndirs);
	}
	lb_set_u(b, hlen_at, b->n - hstart + (lt_rand(r, 40) ? 0 : 1), osize);
	lt_program(r, u, b, nfiles);
	lb_set_u(b, len_at, b->n - len_at - osize, osize);
}

/* The unit wrapped in an ELF image: .debug_abbrev, .debug_info (one CU
 * DIE: DW_AT_stmt_list 0, DW_AT_comp_dir), .debug_line, .debug_line_str,
 * .debug_str. */
static struct lt_buf lt_elf(const struct lt_unit *u)
{
	struct lt_buf img = { .be = u->be }, abbrev = { .be = u->be }, info = { .be = u->be },
		      shstr = { .be = u->be };
	const struct lt_buf *secs[6];
	const char *names[] = { ".shstrtab", ".debug_abbrev", ".debug_info", ".debug_line",
				".debug_line_str", ".debug_str" };
	size_t off[6], name_off[6];

	lb_uleb(&abbrev, 1);
	lb_uleb(&abbrev, DW_TAG_compile_unit);
	lb_u(&abbrev, DW_CHILDREN_no, 1);
	lb_uleb(&abbrev, DW_AT_stmt_list);
	lb_uleb(&abbrev, u->version >= 4 ? DW_FORM_sec_offset : DW_FORM_data4);
	if (u->comp_dir) {
		lb_uleb(&abbrev, DW_AT_comp_dir);
		lb_uleb(&abbrev, DW_FORM_string);
	}
	lb_uleb(&abbrev, 0);
	lb_uleb(&abbrev, 0);
	lb_uleb(&abbrev, 0);

	lb_u(&info, 0, 4);
	lb_u(&info, u->version, 2);
	if (u->version >= 5) {
		lb_u(&info, DW_UT_compile, 1);
		lb_u(&info, u->address_size, 1);
		lb_u(&info, 0, 4);
	} else {
		lb_u(&info, 0, 4);
		lb_u(&info, u->address_size, 1);
	}
	lb_uleb(&info, 1);
	lb_u(&info, 0, 4);
	if (u->comp_dir)
		lb_str(&info, u->comp_dir);
	lb_set_u(&info, 0, info.n - 4, 4);

	lb_u(&shstr, 0, 1);
	for (int i = 0; i < 6; i++) {
		name_off[i] = shstr.n;
		lb_str(&shstr, names[i]);
	}
	secs[0] = &shstr;
	secs[1] = &abbrev;
	secs[2] = &info;
	secs[3] = &u->line;
	secs[4] = &u->line_str;
	secs[5] = &u->str;

	/* ELF64 header; sections follow it, then the section header table */
	lb_put(&img, "\177ELF", 4);
	lb_u(&img, ELFCLASS64, 1);
	lb_u(&img, u->be ? ELFDATA2MSB : ELFDATA2LSB, 1);
	lb_u(&img, EV_CURRENT, 1);
	for (int i = 7; i < EI_NIDENT; i++)
		lb_u(&img, 0, 1);
	lb_u(&img, ET_EXEC, 2);
	lb_u(&img, u->be ? EM_PPC64 : EM_X86_64, 2);
	lb_u(&img, EV_CURRENT, 4);
	lb_u(&img, 0, 8);                       /* e_entry */
	lb_u(&img, 0, 8);                       /* e_phoff */
	lb_u(&img, 0, 8);                       /* e_shoff: below */
	lb_u(&img, 0, 4);                       /* e_flags */
	lb_u(&img, 64, 2);
	lb_u(&img, 0, 2);
	lb_u(&img, 0, 2);
	lb_u(&img, 64, 2);
	lb_u(&img, 7, 2);                       /* null + 6 */
	lb_u(&img, 1, 2);                       /* .shstrtab */
	for (int i = 0; i < 6; i++) {
		off[i] = img.n;
		if (secs[i]->n)
			lb_put(&img, secs[i]->p, secs[i]->n);
	}
	while (img.n % 8)
		lb_u(&img, 0, 1);
	lb_set_u(&img, 40, img.n, 8);
	for (int i = 0; i < 64; i++)
		lb_u(&img, 0, 1);
	for (int i = 0; i < 6; i++) {
		lb_u(&img, name_off[i], 4);
		lb_u(&img, i ? SHT_PROGBITS : SHT_STRTAB, 4);
		lb_u(&img, 0, 8);
		lb_u(&img, 0, 8);
		lb_u(&img, off[i], 8);
		lb_u(&img, secs[i]->n, 8);
		lb_u(&img, 0, 4);
		lb_u(&img, 0, 4);
		lb_u(&img, 1, 8);
		lb_u(&img, 0, 8);
	}
	free(abbrev.p);
	free(info.p);
	free(shstr.p);
	return img;
}

struct lt_result {
	int ours, libdw;        /* dwline__new's return, dwarf_getsrclines' */
	unsigned long queries, mismatches;
};

static bool lt_same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static void lt_mismatch(struct lt_result *res, const char *what, uint64_t addr, const char *a,
			const char *b)
{
	if (res->mismatches++ < 5)
		fprintf(stderr, "dwline vs libdw: %s at %#llx: \"%s\" vs \"%s\"\n", what,
			(unsigned long long)addr, a ? a : "(null)", b ? b : "(null)");
}

static void lt_query(struct lt_result *res, Dwarf_Die *cu, const struct dwline *t, uint64_t a)
{
	Dwarf_Line *l = dwarf_getsrc_die(cu, a);
	const char *ofile = NULL;
	int oline = 0, lline = 0;
	int rc = dwline__find(t, a, &ofile, &oline);
	char x[32], y[32];

	res->queries++;
	if (!l || rc) {
		if (!l != !!rc)
			lt_mismatch(res, "row", a, l ? "libdw row" : NULL, rc ? NULL : "dwline row");
		return;
	}
	dwarf_lineno(l, &lline);
	if (lline != oline) {
		snprintf(x, sizeof(x), "%d", oline);
		snprintf(y, sizeof(y), "%d", lline);
		lt_mismatch(res, "line", a, x, y);
	}
	if (!lt_same_str(ofile, dwarf_linesrc(l, NULL, NULL)))
		lt_mismatch(res, "file", a, ofile, dwarf_linesrc(l, NULL, NULL));
}

/* The same table of cu asked of both: the number of rows, every row's
 * address and its neighbours, every file (and two past the last). */
static void lt_compare_cu(struct lt_result *res, Dwarf_Die *cu, const struct dwline *t)
{
	Dwarf_Lines *lines;
	Dwarf_Files *files;
	size_t nlines, nfiles;

	if (dwarf_getsrclines(cu, &lines, &nlines)) {
		lt_mismatch(res, "only dwline reads the table", 0, NULL, dwarf_errmsg(-1));
		return;
	}
	if (dwline__nr_rows(t) != nlines)
		lt_mismatch(res, "number of rows", nlines, NULL, NULL);
	for (size_t i = 0; i < nlines; i++) {
		Dwarf_Addr a;

		if (dwarf_lineaddr(dwarf_onesrcline(lines, i), &a))
			continue;
		lt_query(res, cu, t, a - 1);
		lt_query(res, cu, t, a);
		lt_query(res, cu, t, a + 1);
	}
	if (!dwarf_getsrcfiles(cu, &files, &nfiles)) {
		if (nfiles != dwline__nr_files(t))
			lt_mismatch(res, "number of files", nfiles, NULL, NULL);
		for (size_t i = 0; i < nfiles + 2; i++)
			if (!lt_same_str(dwline__file(t, i), dwarf_filesrc(files, i, NULL, NULL)))
				lt_mismatch(res, "file name", i, dwline__file(t, i),
					    dwarf_filesrc(files, i, NULL, NULL));
	}
}

/* Reads the unit with libdw and with dwline and compares every answer. */
static struct lt_result lt_compare(const struct lt_unit *u, const struct lt_src *extra)
{
	struct lt_result res = { 0 };
	struct lt_buf img = lt_elf(u);
	struct dwline_sections sec = { u->line.p, u->line_str.p, u->str.p, u->line.n, u->line_str.n,
				       u->str.n, u->be };
	struct dwline *t = NULL;
	Dwarf_Lines *lines;
	size_t nlines, hsize;
	Dwarf_Off next;
	Dwarf_Die cu;
	Dwarf *dw;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)img.p, img.n);
	dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	if (!dw || dwarf_nextcu(dw, 0, &next, &hsize, NULL, NULL, NULL) || !dwarf_offdie(dw, hsize, &cu)) {
		fprintf(stderr, "dwline oracle: libdw cannot read the generated ELF: %s\n", dwarf_errmsg(-1));
		res.libdw = res.ours = -1;
		res.mismatches++;
		goto out;
	}
	res.libdw = dwarf_getsrclines(&cu, &lines, &nlines);
	res.ours = dwline__new(&t, &sec, 0, u->comp_dir, u->address_size);
	if (res.ours == -EOPNOTSUPP)
		goto out;
	if ((res.libdw == 0) != (res.ours == 0)) {
		lt_mismatch(&res, res.ours ? "only libdw reads the table" : "only dwline reads the table",
			    0, NULL, dwarf_errmsg(-1));
		goto out;
	}
	if (res.ours)
		goto out;
	lt_compare_cu(&res, &cu, t);
	if (extra) {
		struct lt_src r = *extra;

		for (int i = 0; i < 8; i++)
			lt_query(&res, &cu, t, 0x1000 + lt_rand(&r, 2048));
	}
out:
	dwline__delete(t);
	if (dw)
		dwarf_end(dw);
	if (elf)
		elf_end(elf);
	free(img.p);
	return res;
}

#endif
