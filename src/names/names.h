/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names for what the renderers print (the code of a row, the data at an
 * offset of a line), asked for lazily: nothing is opened until a renderer
 * asks, and src/names/symbols.c caches every answer per (object, address), so
 * a report names only the rows it prints.
 *
 * The report owns one struct names (report.c creates it, pass 1 feeds it
 * the JIT dump mmaps; the recording's build-ids come from its BUILD_ID
 * feature); renderers ask through report__row_names(), which passes the
 * report's maps.
 */
#ifndef C2CSCAN_NAMES_H
#define C2CSCAN_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "names/symbols.h"

struct pd_info;
struct pd_mmap;

struct names_opts {
	bool disabled;            /* --no-symbols: every name is empty */
	const char *symfs;        /* --symfs */
	const char *vmlinux;      /* -k / --vmlinux */
	bool no_debuginfod;
	const char *kallsyms;     /* NULL: /proc/kallsyms when the recording's kernel release is
				   * this machine's (a KASLR offset check follows in symbols.c) */
	const char *perf_map_dir; /* NULL: /tmp */
};

struct names;

struct names *names__new(const struct names_opts *o, const struct pd_info *info);
void names__delete(struct names *n);
/* Pass 1 shows every mmap: remember the jit-PID.dump ones. */
void names__note_mmap(struct names *n, const struct pd_mmap *m);

struct row_names {
	bool code_ok, data_ok;
	struct code_loc code;
	struct data_loc data;
};

/* What names are asked of: code at addr in pid (its mapping map, at time;
 * kernel: the kernel's code), data at addr in pid (the mapping that holds
 * it, at time; kernel: a kernel address). The report makes them from its
 * lines and rows (report/model.c). */
struct names_code_ref {
	uint32_t pid;
	bool kernel;
	bool call_access;       /* at a call, the access is the callee's through its first argument
				 * (an emulated recording's atomics and locks) */
	const struct map_desc *map;
	uint64_t addr, time;
};

struct names_data_ref {
	uint32_t pid;
	bool kernel;
	const struct map_desc *map;
	uint64_t addr, time;
};

/* The code at c and the data at d (maps: the report's, for the mapping
 * below a data mapping). Data without a DWARF variable gets the type its
 * instruction's operand points at (symbols__access_type; obj_start/
 * obj_size: the heap object there, 0 none). Empty (code_ok/data_ok false)
 * when nothing is known or names are disabled. */
void names__row(struct names *n, const struct maps *maps, const struct names_code_ref *c,
		const struct names_data_ref *d, uint64_t obj_start, uint64_t obj_size, struct row_names *out);
/* The data at d. */
bool names__data(struct names *n, const struct maps *maps, const struct names_data_ref *d, struct data_loc *out);
/* Where the data at d is declared (symbols__data_decl): a variable of an
 * object's DWARF, not the heap or the stack. */
bool names__data_decl(struct names *n, const struct maps *maps, const struct names_data_ref *d,
		      struct data_decl *out);
/* Where the code at addr in pid (at time) is written, and type's (and its
 * member's) declaration in its compilation unit (symbols__code_decl). */
bool names__code_decl(struct names *n, const struct maps *maps, uint32_t pid, uint64_t addr, uint64_t time,
		      const char *type, const char *member, struct code_decl *out);
/* The memory access of the instruction at c (capstone; names/insn.c),
 * decoded once per object and address. */
bool names__insn(struct names *n, const struct names_code_ref *c, struct insn_access *out);
/* Code at addr in pid at time (a heap object's allocation site). */
bool names__code(struct names *n, const struct maps *maps, uint32_t pid, uint64_t addr, uint64_t time,
		 struct code_loc *out);
struct pd_sample;
struct unwind_stats;

struct stack_stats {
	uint64_t clipped;         /* stacks cut at the frame limit */
};

/* The call stack of sample s, innermost first, at most max addresses in
 * ips: its callchain without the context markers (-g), then for a
 * --call-graph dwarf sample its user stack unwound from the registers and
 * the stack copy (names/unwind.h). The first address of each part is where
 * the sample was; the others are return addresses. */
size_t names__stack(struct names *n, const struct maps *maps, const struct pd_sample *s, uint64_t time,
		    uint64_t *ips, size_t max, struct stack_stats *st);
/* What unwinding did so far (NULL when nothing was unwound). */
const struct unwind_stats *names__unwind_stats(const struct names *n);
/* Build-id mismatches and the like, for the report's warnings. */
size_t names__nr_warnings(const struct names *n);
const char *names__warning(const struct names *n, size_t i);

/* "worker+0x1c", or "inl_fn (inlined in worker)"; "" when unknown. */
size_t names__code_scnprintf(const struct code_loc *c, char *buf, size_t size);
/* "counter.c:42" (base name; full path with full); "" when unknown. */
size_t names__source_scnprintf(const struct code_loc *c, bool full, char *buf, size_t size);
/* d names a member of a typed object (a struct, union or class, or a
 * variable), which says more than the heap object around it. */
bool names__data_typed(const struct data_loc *d);
/* "counters.b", "counters+0x8", "struct conn.st.bytes" (typed through the
 * instruction), "st.hits" (a stack or TLS variable), "[heap]"; "" when
 * unknown. */
size_t names__data_scnprintf(const struct data_loc *d, char *buf, size_t size);

#endif
