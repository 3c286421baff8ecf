/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names for addresses: code (function+offset, file:line, the innermost
 * inlined frame and its call site) and data (ELF symbol, the struct member
 * or array element at the offset, or what kind of memory it is), with
 * elfutils (libdwfl/libdw/libelf), plus JIT code from /tmp/perf-PID.map and
 * jit-PID.dump.
 *
 * Lazy: nothing is opened until an address of an object is asked for; each
 * object (file name + recorded build-id) is opened once, and every answer is
 * cached per (object, ELF address), so asking for the same row twice, or for
 * one library's address from many processes, costs one hash lookup.
 *
 * Lifetimes: every string in a code_loc / data_loc (except data_loc.member,
 * which is inline) points into memory owned by the struct symbols -- symbol
 * and string tables of the Elf, libdw's line and DIE strings, the JIT index,
 * the kallsyms table -- and stays valid until symbols__delete(), which is
 * where dwfl_end() happens.
 *
 * Never prints; returns 0 or a negative errno. Problems a user should hear
 * about (a file whose build-id differs from the recording's) are collected
 * as warnings, once per object. Not thread-safe: one struct symbols per
 * thread, or a lock around the calls.
 *
 * Process-wide side effects in symbols__new(): with no_debuginfod it unsets
 * DEBUGINFOD_URLS (libdw reads it at every lookup), otherwise it sets
 * DEBUGINFOD_TIMEOUT to 5 s when unset, so a slow server cannot hang a report.
 */
#ifndef C2CSCAN_SYMBOLS_H
#define C2CSCAN_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "maps/maps.h"

struct symbols;

struct symbols_opts {
	const char *symfs;        /* root prepended to every object path (report on another machine) */
	const char *vmlinux;      /* kernel image with symbols (-k); else kallsyms */
	const char *kallsyms;     /* default /proc/kallsyms (symfs/proc/kallsyms with symfs: not used) */
	const char *debuginfo_path; /* elfutils syntax ("+:.debug:/usr/lib/debug"); NULL: the default,
				     * or "+:.debug:SYMFS/usr/lib/debug" with symfs */
	const char *perf_map_dir; /* where perf-PID.map files are; default "/tmp" */
	bool no_debuginfod;
};

/* Answer for a code address. */
struct code_loc {
	const char *func;         /* ELF symbol (the physical function), or the JIT name */
	uint64_t func_off;
	const char *file;         /* source of the instruction (inside the inlined body if inlined) */
	int line;
	const char *inl_func;     /* innermost inlined function, NULL when not inlined */
	const char *inl_caller;   /* the function it was inlined into (innermost caller) */
	const char *caller_file;  /* call site of inl_func */
	int caller_line;
	bool jit;
	bool kernel;
};

/* Answer for a data address. */
struct data_loc {
	const char *sym;          /* ELF symbol (or DWARF variable) covering the address */
	uint64_t sym_off;
	uint64_t sym_size;
	char member[128];         /* "counters.b", "args[3].SX", "" when the type is unknown */
	char type[64];            /* the variable's type as written: "struct counters", "stats_t", "" */
	uint32_t member_size;     /* size of the innermost member or element, 0 when unknown */
	uint32_t member_off;      /* offset of the address inside that member */
	const char *kind;         /* "[heap]", "[stack]", "//anon", shm or file name: when no symbol */
	const char *object;       /* the file whose symbols name it (the executable for .bss past
				   * its file pages, mapped anonymous), NULL when none does */
	bool kernel;
	uint8_t type_source;      /* enum type_source: how type and member were found */
	bool var_led;             /* member starts with a variable's name (no sym: stack, TLS) */
	bool aggregate;           /* type is a struct, union or class (typedefs seen through) */
	bool sync;                /* the member is a lock of the C library (pthread_mutex_t, sem_t, ...) */
};

/* How a data_loc's type was found: the DWARF variable at the address or
 * under the instruction's operand (globals, stack, TLS); an ELF symbol only
 * (no type); the instruction's base register typed by tracking the
 * function's code from its start; tracking plus the heap object's start
 * (the element of an array indexed by a register). */
enum type_source { TYPE_NONE, TYPE_SYMBOL, TYPE_VARIABLE, TYPE_TRACKED, TYPE_HEAP };
const char *type_source__name(enum type_source t);

/* Why an instruction's access has no type (symbols__access_type). */
enum dtype_reason {
	DT_OK,
	DT_NO_CODE,             /* no code bytes, or the decoder failed */
	DT_NO_MEM,              /* no memory operand */
	DT_NO_DWARF,            /* no subprogram covers the address */
	DT_ARCH,                /* an architecture the tracker does not follow */
	DT_UNTYPED_REG,         /* the base register's type is unknown */
	DT_NO_POINTEE,          /* a pointer to void or to an incomplete type */
	DT_STACK_SLOT,          /* a stack address no variable covers (spills, saved registers) */
	DT_NO_GLOBAL,           /* a fixed address no DWARF variable covers */
	DT_TLS,                 /* a thread-local access not resolved */
	DT_ABSOLUTE,            /* no base register */
	DT_TCB,                 /* the thread pointer's TCB or struct pthread, where the object's DWARF has no such type */
	DT_ASM,                 /* code assembled from hand-written assembly: its DWARF has no types */
	DT_GOT,                 /* a .got slot (the linker's: no variable, no type in the source) */
	DT_NR
};
const char *dtype_reason__name(enum dtype_reason r);

struct symbols *symbols__new(const struct symbols_opts *o);
void symbols__delete(struct symbols *s);

/*
 * The mapping map (from maps__find) holds addr in process pid at time (ns,
 * perf clock; 0 when unknown). map may be NULL (unmapped, or JIT code only
 * known from the JIT files). pid (u32)-1, or an address in the kernel half,
 * is the kernel. Returns 0 when something was named, -ENOENT when nothing
 * covers the address, -ESTALE when the object on disk is not the one
 * recorded (see the warnings), another negative errno otherwise.
 */
int symbols__code(struct symbols *s, const struct map_desc *map, uint32_t pid, uint64_t addr,
		  uint64_t time, struct code_loc *out);

/*
 * prev: when map is anonymous, the mapping that ends where map starts (the
 * .bss past the last file page of the data segment is an anonymous mapping
 * right after it: maps__find(m, pid, map->start - 1, time)); may be NULL.
 * Returns 0 when a symbol or a kind was found.
 */
int symbols__data(struct symbols *s, const struct map_desc *map, const struct map_desc *prev,
		  uint32_t pid, uint64_t addr, struct data_loc *out);

/* Where the data at addr is declared in the program's sources (report
 * --patch): the variable that holds it and, inside its type, the innermost
 * struct member that holds it and that member's struct. Paths as the DWARF
 * gives them (absolute, or relative to comp_dir). */
struct data_decl {
	char var[128];                  /* the variable's name */
	char member[128];               /* the innermost member holding addr, "" none */
	char member_file[512];
	int member_line;
	char type[128];                 /* the member's struct ("struct counters"), "" none */
	char type_file[512];
	int type_line;
	bool in_array;                  /* the struct is an element of an array */
	char comp_dir[512];             /* the compilation directory of its CU */
	int lang;                       /* DW_AT_language of the CU */
};
int symbols__data_decl(struct symbols *s, const struct map_desc *map, const struct map_desc *prev,
		       uint64_t addr, struct data_decl *out);
/* Where code and a type are written, for a patch (report --patch's heap
 * allocation sites and the element types they allocate). */
struct code_decl {
	char file[512];                 /* the code's source file, as DWARF names it */
	int line;
	char comp_dir[512];             /* the compilation directory of its CU */
	int lang;                       /* DW_AT_language of the CU */
	char type_file[512];            /* where type is declared in that CU */
	int type_line;                  /* 0: not found */
	char member_file[512];          /* where member is declared in type */
	int member_line;                /* 0: not found */
};
/* The code at addr of map; type (a struct's "struct slot", a typedef's
 * name, NULL none): its declaration in the code's CU, and its member
 * member's (NULL none). */
int symbols__code_decl(struct symbols *s, const struct map_desc *map, uint64_t addr, const char *type,
		       const char *member, struct code_decl *out);

/* Index the JIT_CODE_LOAD / MOVE / DEBUG_INFO records of a jit-PID.dump for
 * pid (the report calls this for MMAP records naming jit-PID.dump). Returns
 * the number of code loads indexed, or a negative errno. */
/* The file opened for map's object (symfs, build-id cache: as naming finds
 * it) and the load bias (runtime - link address) of the segment holding
 * addr: what an unwinder reports as the module. -ENOENT for anonymous and
 * special mappings, or when the object is missing, stale or not ELF. */
int symbols__object_file(struct symbols *s, const struct map_desc *map, uint64_t addr, const char **path,
			  uint64_t *bias);
/* The memory access of the instruction at a code address (insn.c). */
struct insn_access {
	bool valid;               /* decoded */
	bool mem;                 /* it has a memory operand (lea has none) */
	bool load, store;         /* both: a read-modify-write (add to memory, lock xadd) */
	uint8_t size;             /* bytes accessed, 0 unknown */
	char base[8], index[8];   /* register names, "" none */
	uint8_t scale;
	int64_t disp;
	char text[200];           /* "addq $1, 0x2f8f(%rip)" (AT&T on x86-64) */
};
int symbols__insn(struct symbols *s, const struct map_desc *map, uint64_t addr, struct insn_access *out);
/* The same from code bytes (machine: EM_X86_64, EM_AARCH64): 0, or < 0. */
int symbols__insn_bytes(struct symbols *s, int machine, const uint8_t *buf, size_t n, uint64_t vaddr,
			struct insn_access *out);
int symbols__add_jitdump(struct symbols *s, uint32_t pid, const char *path);

/* In obj_size: the object is a whole anonymous mapping and no allocation
 * was recorded; its start is the base when the type fits in it. */
#define DTYPE_WHOLE_MAPPING (1ULL << 63)
/*
 * The type of what the instruction at addr (in code mapping map) accessed
 * at data address data (0: unknown), from its memory operand and the
 * function's DWARF (dtype.c): out->type, out->member (the member path; led
 * by the variable's name for stack, TLS and global variables) and
 * out->type_source. obj_start/obj_size: the heap object holding data (0:
 * none), which gives an indexed element its index. Returns 0, or a negative
 * errno with *reason (may be NULL) saying why.
 */
int symbols__access_type(struct symbols *s, const struct map_desc *map, uint64_t addr, uint64_t data,
			 uint64_t obj_start, uint64_t obj_size, struct data_loc *out, enum dtype_reason *reason);
/* As symbols__access_type, for a direct call at addr whose callee
 * accesses data through its first argument (an emulated sample there: an
 * atomic's hook, a lock): what that pointer points at. -ENOENT when addr
 * is not such a call or the pointer has no type. */
int symbols__call_arg_type(struct symbols *s, const struct map_desc *map, uint64_t addr, uint64_t data,
			   uint64_t obj_start, uint64_t obj_size, struct data_loc *out);
/* Every instruction with a memory operand in object file path (link
 * addresses), typed: counts by reason (dtype_reason), for the coverage
 * benchmark. cb (may be NULL) sees each one. */
int symbols__type_all(struct symbols *s, const char *path, uint64_t counts[DT_NR],
		      void (*cb)(void *arg, uint64_t vaddr, enum dtype_reason r, const struct data_loc *d),
		      void *arg);

/* Build-id of an object from the recording's HEADER_BUILD_ID table, used
 * when its mappings carry none (MMAP v1, MMAP2 inode form). */
void symbols__set_build_id(struct symbols *s, const char *name, const uint8_t *id, size_t size);

/* Warnings so far ("FILE on disk has build-id X, recording has Y: not naming
 * it"), oldest first; valid until symbols__delete(). */
size_t symbols__nr_warnings(const struct symbols *s);
const char *symbols__warning(const struct symbols *s, size_t i);

/* Cache counters, for the benchmark and tests. */
struct symbols_stats {
	uint64_t objects_opened, code_lookups, code_hits, data_lookups, data_hits;
};
void symbols__stats(const struct symbols *s, struct symbols_stats *st);

#endif
