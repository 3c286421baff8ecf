/* SPDX-License-Identifier: GPL-2.0 */
#ifndef C2CSCAN_DWLINE_H
#define C2CSCAN_DWLINE_H
/*
 * One compilation unit's line table (.debug_line, DWARF 2 to 5), decoded
 * into a flat array sorted by address.
 *
 * libdw's dwarf_getsrclines allocates a node per row and sorts pointers to
 * them: on one large CU (a unity build, an LTO partition, a generated file:
 * hundreds of thousands of rows) that is tens of megabytes and most of a
 * report's naming time. This decoder gives libdw's answers (same row for an
 * address, same file names) from 16 bytes per row and one pass. The caller
 * falls back to libdw for what this does not decode (split DWARF, string
 * forms that point into other files, compressed sections).
 */
#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The sections a line table refers to, as they are in memory (uncompressed).
 * The table does not keep pointers into them. */
struct dwline_sections {
	const uint8_t *line, *line_str, *str;
	size_t line_size, line_str_size, str_size;
	bool big_endian;
};

struct dwline;

/* The line sections of elf (the file that holds a module's DWARF, after
 * libdw opened it: libdw decompresses SHF_COMPRESSED sections in place;
 * GNU .zdebug ones are left to libdw). 0, or -ENOENT without .debug_line. */
int dwline__sections(Elf *elf, struct dwline_sections *s);

/* The .debug_line offset of a CU DIE's table (DW_AT_stmt_list), the key
 * under which a caller caches it. 0 or -ENOENT. */
int dwline__cu_offset(Dwarf_Die *cu, uint64_t *off);

/* dwline__new for a CU DIE: its table, comp_dir and address size.
 * -EOPNOTSUPP for split DWARF and type units (libdw pairs those with their
 * skeletons). */
int dwline__new_cu(struct dwline **tp, const struct dwline_sections *s, Dwarf_Die *cu);

/*
 * Decodes the line table at offset in .debug_line. comp_dir: the CU's
 * DW_AT_comp_dir (directory 0 before DWARF 5), may be NULL. address_size:
 * the CU's. Returns 0, -EINVAL for a table libdw would refuse as well,
 * -EOPNOTSUPP for one that needs what this decoder does not read.
 */
int dwline__new(struct dwline **tp, const struct dwline_sections *s, uint64_t offset,
		const char *comp_dir, unsigned int address_size);
void dwline__delete(struct dwline *t);

/* The row covering addr (the last row at or below it, unless that one ends
 * a sequence): 0 with *file (NULL for a file index the table lacks) and
 * *line, or -ENOENT. */
int dwline__find(const struct dwline *t, uint64_t addr, const char **file, int *line);

/* File idx of the table (DW_AT_decl_file / DW_AT_call_file numbering), or NULL. */
const char *dwline__file(const struct dwline *t, uint64_t idx);

size_t dwline__nr_rows(const struct dwline *t);
size_t dwline__nr_files(const struct dwline *t);

#endif
