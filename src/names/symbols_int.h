/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The symbolizer's objects, for src/names/symbols.c (objects, code names,
 * kernel, JIT) and datanames.c (variables and member paths) only.
 *
 * Lifetimes: every Dwarf_Die and string the caches keep points into the
 * object's Dwfl, so obj__delete() ends the Dwfl last.
 */
#ifndef C2CSCAN_SYMBOLS_INT_H
#define C2CSCAN_SYMBOLS_INT_H

#include <capstone.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include "names/dwline.h"
#include "names/jit.h"
#include "names/symbols.h"
#include "util/htab.h"
#include "util/util.h"


#define KERNEL_HALF (1ULL << 63)
#define MAX_TYPE_DEPTH 16
#define MAX_DIMS 8

/* ---- address caches ----
 * Answers by address: keys and results in a dense array, the values (a few
 * thousand 70-byte answers) in another, indexed by util/htab.h. */

struct acache_key {
	uint64_t key;
	int32_t rc;
};

struct acache {
	struct htab idx;
	struct acache_key *keys;
	uint8_t *vals;
	size_t val_size, nr, alloc_keys, alloc_vals;
};

/* What an instruction's memory operand points at (dtype.c), cached per
 * (object, address): the object's type and the byte of it, before any
 * index register. */
struct dtype_res {
	int8_t reason;          /* enum dtype_reason: DT_OK, or why nothing was found */
	uint8_t source;         /* enum type_source */
	bool indexed;           /* an index register (or a pointer moved by one) adds an unknown offset */
	bool ptr;               /* the object is a pointer to type (a spilled register) */
	bool inner;             /* indexed inside type (an array member), not whole elements of it */
	uint8_t scale;
	int64_t off;            /* byte offset into type */
	Dwarf_Die type;         /* the accessed object's type */
	const char *var;        /* the variable whose storage it is (stack, TLS, global), or NULL */
};

/* ---- objects ---- */

enum obj_state { OBJ_OK, OBJ_MISSING, OBJ_STALE, OBJ_NOT_ELF };

struct seg {
	uint64_t offset, vaddr, filesz, memsz;
	uint32_t flags;
};

/* A global or static variable of the object's DWARF, by address. */
/* var, subp, esym and ksym arrays are sorted by their first member (util.h) */
struct esym {
	uint64_t addr, size;    /* module addresses */
	const char *name;       /* the Elf's string table */
	uint8_t type, rank;     /* STT_*; binding: local 0, weak 1, global 2 */
};

struct var {
	uint64_t addr, size;
	Dwarf_Die die;          /* points into the module's Dwarf: valid until dwfl_end() */
};

struct subp {
	uint64_t lo, hi;        /* module addresses, [lo, hi) */
	Dwarf_Addr bias;        /* module address - DWARF address */
	Dwarf_Die die;
	Dwarf_Die cu;
};

struct obj {
	const char *name;       /* interned */
	uint8_t build_id[20];
	uint8_t build_id_size;
	enum obj_state state;
	bool kernel;
	char *path;             /* file actually opened */
	Dwfl *dwfl;             /* owns every string the caches point to */
	Dwfl_Module *mod;
	struct seg *segs;
	size_t nr_segs;
	uint64_t kaslr;         /* vmlinux: runtime address - link address */
	bool kaslr_known;
	struct acache code, data;
	struct var *vars;
	size_t nr_vars, alloc_vars;
	struct var *tls_vars;   /* thread-local variables: addr is the offset in the TLS block */
	size_t nr_tls_vars, alloc_tls_vars;
	bool vars_built;
	/* glibc's thread descriptor (struct pthread) and aarch64's TCB
	 * (tcbhead_t), where the object's DWARF defines them (the C
	 * library's own): what the thread pointer points at */
	Dwarf_Die thread_type, tcb_type;
	bool has_thread_type, has_tcb_type;
	struct esym *esyms;     /* the ELF symbol table, sorted: libdwfl's address lookup is linear */
	size_t nr_esyms, alloc_esyms;
	bool esyms_built;
	struct subp *subps;     /* code ranges of subprograms, sorted (code_inlines) */
	size_t nr_subps, alloc_subps;
	bool subps_built;       /* every CU scanned */
	bool aranges_known, aranges; /* its DWARF has .debug_aranges */
	struct u64map subps_cus; /* CUs scanned (by DIE offset), when scanned one by one */
	/* line tables by .debug_line offset: struct dwline *, NULL where libdw
	 * answers instead; lsec points into the module's Dwarf sections */
	struct acache lines;
	struct dwline_sections lsec;
	int lsec_state;         /* 0 not looked for, 1 usable, -1 not (libdw answers) */
	struct strtab *demangled; /* C++ symbol names demangled on first use (obj__demangle) */
	struct acache insns;    /* decoded instructions (insn.c) by address */
	struct acache dtypes;   /* what each instruction's memory operand points at (dtype.c) */
	int tls_state;          /* 0 not read, 1 a TLS block, -1 none (relocs.c: obj_relocs) */
	int64_t tls_base;       /* thread pointer offset of the TLS block (executables), else INT64_MIN */
	struct u64map tls_got;  /* GOT slot -> TLS block offset (initial exec) */
	struct u64map tls_gd;   /* tls_index GOT pair or TLS descriptor -> TLS block offset */
	struct u64map got;      /* .got slot -> the address it holds, of something the object defines */
	/* .got slots of what other objects define (GLOB_DAT of an undefined
	 * symbol), sorted by name; decl: the variable's declaration in this
	 * object's DWARF (vars_build), which gives its type */
	struct got_ext {
		const char *name;
		uint64_t slot;
		Dwarf_Die decl;
		bool has_decl;
	} *got_ext;
	size_t nr_got_ext, alloc_got_ext;
	struct u64map got_ext_idx; /* slot -> index in got_ext */
	uint64_t got_lo, got_hi; /* the .got section */
	bool got_exec;          /* ET_EXEC: slots without a relocation hold their final address */
	/* the names cache (namecache.c): its file, read once */
	uint8_t *nc;
	size_t nc_len;
	int nc_state;           /* 0 not read, 1 it answers for this object, -1 not */
	bool nc_vars;           /* the variables came from it */
	bool nc_types_read;     /* its answers are in dtypes */
	size_t nc_types;        /* dtypes entries once they were */
};

struct ksym {
	uint64_t addr;
	const char *name;
};

struct bid_ent {
	const char *name;       /* interned */
	uint8_t id[20];
	uint8_t size;
};

struct symbols {
	char *symfs, *vmlinux, *kallsyms, *perf_map_dir;
	char *debuginfo_path;
	Dwfl_Callbacks cb;      /* libdwfl keeps a pointer to it: lives as long as the dwfls */
	struct strtab *strs;
	struct obj **objs;
	size_t nr_objs, alloc_objs;
	struct htab obj_idx;    /* (name, build-id) -> objs */
	struct obj *vmlinux_obj;
	struct ksym *ksyms;
	size_t nr_ksyms;
	bool ksyms_loaded, ksyms_usable, ksyms_checked;
	struct acache kcode;    /* kallsyms answers by address */
	struct jit_index *jit;
	struct u32set perf_map_tried;
	struct bid_ent *bids;
	size_t nr_bids, alloc_bids;
	char **warnings;
	size_t nr_warnings, alloc_warnings;
	struct symbols_stats stats;
	csh cs[2];              /* capstone: x86-64, aarch64 (insn.c) */
	int cs_open[2];         /* 0 not tried, 1 failed, 2 open */
};

/* DW_OP_bregN / DW_OP_bregx: the register's DWARF number and the offset
 * (CFA rules, locations, frame bases). */
static inline bool dwop_breg(const Dwarf_Op *op, uint64_t *reg, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
		return true;
	}
	if (op->atom == DW_OP_bregx) {
		*reg = op->number;
		*off = (int64_t)op->number2;
		return true;
	}
	return false;
}

void acache__init(struct acache *c, size_t val_size);
void acache__exit(struct acache *c);
/* The answer cached under key: copied to val, its result to *rc. */
bool acache__get(const struct acache *c, uint64_t key, void *val, int *rc);
/* key must not be cached yet */
void acache__put(struct acache *c, uint64_t key, int rc, const void *val);
/* The same unless key has an answer already: the first one stays (the
 * names cache's answers, ranges of code that overlap). */
void acache__put_new(struct acache *c, uint64_t key, int rc, const void *val);

/* symbols.c */
/* name as the source wrote it: a C++ (Itanium ABI) symbol demangled, kept
 * for the object's life; other names as they are. */
const char *obj__demangle(struct obj *o, const char *name);
void sym_warn(struct symbols *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The object behind a file mapping, opened on first use. */
struct obj *obj__get(struct symbols *s, const struct map_desc *map);
int obj_err(const struct obj *o);
/* The object behind file mapping map, opened (*op), and addr's link
 * address in it (beyond_file: as obj__vaddr): 0, or obj_err's or
 * obj__vaddr's error. */
int obj__at(struct symbols *s, const struct map_desc *map, uint64_t addr, bool beyond_file, struct obj **op,
	    uint64_t *vaddr);
int obj__vaddr(const struct obj *o, const struct map_desc *map, uint64_t addr, bool beyond_file,
	       uint64_t *vaddr);
/* The kernel's image (vmlinux, --vmlinux), opened on first use. */
struct obj *vmlinux_get(struct symbols *s, const struct map_desc *map);
/* The symbol a kernel map record is relative to (KASLR), or NULL. */
const char *kmap_ref_symbol(const struct map_desc *map);

/* code.c: ELF symbols, kallsyms, DWARF subprograms by address */
const struct esym *esym_find(struct obj *o, uint64_t vaddr, bool data, uint64_t *off);
void ksyms_load(struct symbols *s);
void ksyms_check(struct symbols *s, const struct map_desc *map);
const struct ksym *ksym_find(const struct symbols *s, uint64_t addr);
bool map_is_anon(const struct map_desc *map);
const struct subp *subp_lookup(struct obj *o, uint64_t vaddr);

/* The type a DIE's DW_AT_type names (through abstract origins) */
static inline bool die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, type);
}
/* relocs.c: the object's TLS layout and .got slots from its relocations, once */
void obj_relocs(struct obj *o);

/* namecache.c: what naming an object cost most, kept in the build-id
 * cache for the next report of it. The variables (vars_build's tables)
 * from the cache: false when it has none for o. */
bool namecache__vars(struct obj *o);
/* The cached answers of o's instructions into o->dtypes (once). */
void namecache__dtypes(struct symbols *s, struct obj *o);
/* Writes what o learned, when it learned more than its cache held. */
void namecache__save(struct obj *o);
/* What the .got slot at vaddr holds when it is the address of something
 * the object defines. */
bool obj_got_slot(struct obj *o, uint64_t vaddr, uint64_t *target);
/* relocs.c: a CU-level declaration of a variable named name (vars_build):
 * the type of the variable a .got slot of another object's holds */
void got_ext_decl(struct obj *o, Dwarf_Die *die, const char *name);
/* every variable with a fixed address (vars) or a TLS offset (tls_vars) */
void vars_build(struct obj *o);
const struct var *var_find(const struct obj *o, uint64_t vaddr);
/* Walk type down to byte off, appending the member path to out->member;
 * the innermost member's type in *leaf (may be NULL). False when off falls
 * in padding or outside the type. */
bool type_walk(Dwarf_Die *type, uint64_t off, struct data_loc *out, Dwarf_Die *leaf);
/* Where type_walk_at ended: the leaf type, and the innermost named member
 * of a struct on the way (report --patch aligns it, or its struct when
 * that is an array's element). */
struct walk_at {
	Dwarf_Die leaf;
	bool has_member, in_array;
	Dwarf_Die member, parent;   /* the member and its struct */
};
bool type_walk_at(Dwarf_Die *type, uint64_t off, struct data_loc *out, struct walk_at *at);
void type_name(Dwarf_Die *type, char *buf, size_t size);

/* insn.c */
/* The executable section bytes holding link address vaddr: a pointer to
 * them and how many follow (0: none). */
size_t code_span(struct obj *o, uint64_t vaddr, const uint8_t **p);
/* The bytes an aarch64 load or store moves (a pair: both registers),
 * from its mnemonic and registers: aarch64 leaves the size to them. */
uint8_t a64_access_size(const cs_insn *in);
/* The capstone handle for machine (EM_X86_64, EM_AARCH64), opened once. */
bool cs_handle(struct symbols *s, int machine, csh **hp);
int obj_machine(struct obj *o);

#endif
