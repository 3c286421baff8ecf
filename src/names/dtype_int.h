/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data-type tracker's state, shared by dtype.c (DWARF, the data flow,
 * naming) and the instruction sets it follows: dtype_x86.c and
 * dtype_a64.c each turn one decoded instruction into a change of the
 * register state (step), name the memory operand it reads or writes, and
 * say where control goes next.
 */
#ifndef C2CSCAN_DTYPE_INT_H
#define C2CSCAN_DTYPE_INT_H

#include <capstone.h>
#include "names/symbols_int.h"

#define NR_REGS 32              /* DWARF numbers followed: x86-64 0..16 (rip 16), aarch64 0..31 (sp 31) */
#define NR_SLOTS 8
#define MAX_INSNS 20000         /* a larger range is left untyped */
#define MAX_RANGES 16

enum rkind { R_NONE, R_PTR, R_FRAME, R_TP, R_VAL, R_TLSOFF, R_TLS, R_FRAMEX, R_TLSGD, R_ADDR };

/* A register's content: a pointer into an object of type (die table
 * index, 0: void or unknown) at byte off; an address in the frame, off
 * from the CFA; the thread pointer plus off; a value of type (a scalar
 * loaded from a typed place, a variable); the thread pointer offset of
 * byte off of the object's TLS block (loaded from its GOT: initial exec);
 * the address of that byte; an address in the frame at off or after it
 * (a pointer walking a local array: what the paths meeting disagreed on);
 * the tls_index of byte off of the object's TLS block (general and local
 * dynamic: __tls_get_addr's argument, which returns that byte's address;
 * on aarch64 the TLS descriptor's, whose call returns its thread pointer
 * offset); the module address off (aarch64: what adrp and add build). */
struct rst {
	uint8_t kind;
	uint8_t src;            /* enum type_source */
	bool idx;               /* moved by an unknown amount (an index) */
	bool inner;             /* R_PTR idx: within an array member of type, not by whole elements */
	uint32_t type;
	uint32_t var;           /* die index of the variable whose storage it points into, 0 */
	uint32_t from;          /* untyped: what the call at instruction from - 1 returned (0: not) */
	int64_t off;
};

struct slot {
	int64_t at;             /* CFA offset */
	struct rst r;
};

struct tst {
	bool seen;
	uint8_t nr_slots;
	struct rst reg[NR_REGS];
	struct slot slot[NR_SLOTS];
};

enum lkind { L_REG, L_REGVAL, L_FB, L_MEM };

/* One location of a variable or parameter over [lo, hi) (module addresses). */
struct loc {
	uint64_t lo, hi;
	uint8_t kind, reg;
	int64_t off;
	uint32_t var, type;     /* die indexes: the variable, its type */
	uint32_t pointee;       /* its type is a pointer: to this (0: not, or void) */
	bool ptr;
	uint64_t size;          /* of the variable */
};

enum fbkind { FB_NONE, FB_CFA, FB_REG };

/* A call the DWARF names the callee of (DW_TAG_call_site): what it returns
 * in %rax, for calls call_ret cannot follow (through the PLT, to functions
 * of other objects: __errno_location's int *). */
struct call_site {
	uint64_t ret;           /* module address after the call */
	uint32_t type;          /* die index: the pointee, or the value's type */
	bool val;               /* a value, not a pointer */
};

struct dt {
	const struct dt_arch *arch;
	struct symbols *s;
	struct obj *o;
	csh h;
	Dwarf_Addr bias;        /* module address - DWARF address */
	uint64_t lo, hi;
	cs_insn *ins;
	size_t n;
	struct tst *in;         /* per block: the state at its start */
	struct loc *locs;
	size_t nr_locs, alloc_locs;
	uint32_t *blk_of, *bstart; /* the block of each instruction; each block's first (bstart[nb] = n) */
	size_t nb;
	size_t *gen_off;        /* instruction i's register locations: gen[gen_off[i] .. gen_off[i + 1]) */
	uint32_t *gen;
	size_t nr_gen;
	Dwarf_Die *dies;
	uint64_t *sizes;        /* of each die's type, 0 unknown */
	size_t nr_dies, alloc_dies, alloc_sizes;
	struct u64map die_idx;
	uint8_t fb_kind, fb_reg;
	int64_t fb_off;
	Dwarf_CFI *cfi;
	Dwarf_Addr cfi_bias;
	uint32_t sret;          /* die index of the struct returned in memory at %rdi, 0 */
	/* what each register held on entry, from variables located by
	 * DW_OP_entry_value: a pointer to entry_type[r] (die index, 0 none)
	 * at entry_off[r]; seeds the range that starts at the entry */
	uint32_t entry_type[NR_REGS];
	int64_t entry_off[NR_REGS];
	uint64_t entry;         /* the function's entry (module address), 0 unknown */
	struct call_site *calls; /* sorted by return address */
	size_t nr_calls, alloc_calls;
	uint64_t *noret;        /* return addresses of calls that do not return (call sites), sorted */
	size_t nr_noret, alloc_noret;
	/* calls whose untyped result the flow saw stored into a typed
	 * pointer: their return type, for a second flow (dt_infer) */
	struct call_site *infer;
	size_t nr_infer, alloc_infer;
	bool infer_done;
};
/* ---- evaluating an operand ---- */

struct mem {
	int seg, base, index;   /* DWARF numbers, -1 none; seg: 1 for %fs */
	uint8_t scale, size;
	int64_t disp;
	uint64_t next;          /* address of the next instruction (%rip) */
};

/* An address: what it points into (type, offset), or why unknown. */
struct ref {
	int8_t reason;
	uint8_t src;
	bool idx;
	bool inner;             /* idx inside type (an array member) */
	bool ptr;               /* a pointer to type (a spilled register), not a type */
	uint32_t type, var;
	int64_t off;
};


struct dt_arch {
	int machine;            /* EM_X86_64, EM_AARCH64 */
	uint8_t nr_regs;        /* DWARF registers 0 .. nr_regs - 1 are followed */
	int8_t sp, pc;          /* DWARF numbers: the stack pointer; operands relative to the pc (-1: none) */
	int8_t sret;            /* the register bringing the address of a struct returned in memory */
	/* The memory operand of in as DWARF registers: 1, 0 when in has
	 * none (an address computation, a prefetch, a nop), -1 when one
	 * of its registers is not followed. */
	int (*mem)(const cs_insn *in, struct mem *m);
	/* in's effect on the register and stack slot state t */
	void (*step)(struct dt *c, const cs_insn *in, struct tst *t);
	/* Successors of instruction i: fallthrough (SIZE_MAX none) and a
	 * branch target inside the range (SIZE_MAX none); *indirect for a
	 * jump through a register. */
	void (*succs)(const struct dt *c, size_t i, size_t *fall, size_t *target, bool *indirect);
	/* A register stored to a stack slot no variable covers (a spill):
	 * the register's type, else f. */
	struct ref (*spill)(const struct dt *c, const cs_insn *in, const struct tst *t, const struct ref *f);
	/* padding between functions: never a block's start to seed */
	bool (*pad)(const cs_insn *in);
	/* counted by coverage (symbols__type_all): not the stack's own
	 * pushes and pops, nor saves of callee-saved registers as such */
	bool (*counted)(const cs_insn *in);
	/* A direct call: the register its first argument is in (DWARF
	 * number), else -1. An emulated sample at a call stands for the
	 * access the callee makes there (an atomic's hook, a lock), through
	 * that pointer (dt_get_arg). */
	int (*call_arg)(const cs_insn *in);
};

/* The key of a call's first-argument answer in o->dtypes: the call's
 * address with this bit (no object's address has it). */
#define DT_ARG_KEY (1ULL << 63)

extern const struct dt_arch dt_x86, dt_a64;

/* dtype.c: the answer for the instruction at vaddr (module address), the
 * flow over its function's range run on the first question; 0, or
 * -ENOENT with r->reason. */
int dt_get(struct symbols *s, struct obj *o, uint64_t vaddr, struct dtype_res *r);
/* The steppers for o's instruction set, NULL when not followed. */
const struct dt_arch *dt_arch_of(struct obj *o);

/* dtype_eval.c: what the steppers and the flow ask of the function */
extern const struct rst dt_none;
/* The index of DIE d among c's (added when new). */
uint32_t dt_die_intern(struct dt *c, Dwarf_Die *d);
/* t with typedefs, const, volatile, restrict and _Atomic peeled off. */
bool dt_peel(Dwarf_Die *t, Dwarf_Die *out);
/* The type type points to (pointers and references), in *to; false when
 * type is not a pointer; *to stays unset for void. */
bool dt_pointee(Dwarf_Die *type, Dwarf_Die *to, bool *is_void);
bool dt_rst_eq(const struct rst *a, const struct rst *b);
/* What function fn returns: the pointee's DIE index (*val false), a
 * value's type (*val true), 0 for void or unknown. */
uint32_t dt_ret_type(struct dt *c, Dwarf_Die *fn, bool *val);
/* call_site entries by return address, for qsort */
int dt_call_site_cmp(const void *a, const void *b);
/* The calls dt_infer typed, where nothing named their type before:
 * true when the flow is to run again. */
bool dt_infer_calls(struct dt *c);

struct slot *dt_slot_find(struct tst *t, int64_t at);
void dt_slot_set(struct tst *t, int64_t at, const struct rst *r);
struct ref dt_eval(struct dt *c, uint64_t vaddr, const struct mem *m, const struct tst *t);
struct rst dt_load_of(struct dt *c, const struct ref *f);
bool dt_tls_slot(struct obj *o, const struct u64map *which, uint64_t vaddr, int64_t *off);
/* A size-byte load into a 64-bit register from the GOT slot at vaddr: a
 * TLS variable's thread pointer offset (initial exec: R_TLSOFF), or the
 * address a .got slot holds of something the object defines (R_ADDR), or
 * of another object's variable this one declares (R_PTR to its type). */
bool dt_got_load(struct dt *c, uint64_t vaddr, uint8_t size, struct rst *r);
/* What the call returning to ret returns: a direct call to target (0:
 * not direct) whose DWARF gives its type, else the call site's; the
 * pointee (*val false) or a value's type (*val true), 0 unknown or void. */
uint32_t dt_call_ret(struct dt *c, uint64_t target, uint64_t ret, bool *val);
/* What register r holds after the call at in: the call's result of type
 * ret (a pointee, or with val a value's type), or an untyped result that
 * remembers the call (dt_infer). */
struct rst dt_call_result(const struct dt *c, const cs_insn *in, uint32_t ret, bool val);
/* An untyped register r stored into a pointer to type: when r is a
 * call's result, that call returns such a pointer (its accesses before
 * the store are typed by a second flow). */
void dt_infer(struct dt *c, const struct rst *r, uint32_t type);
size_t dt_insn_at(const struct dt *c, uint64_t a);
/* Does the call at instruction i not return (abort, exit, a failed
 * assertion: DW_AT_noreturn on the callee, found directly or through its
 * call site)? target: a direct call's, else 0. Code after it is not its
 * successor. */
bool dt_noreturn(const struct dt *c, size_t i, uint64_t target);

#endif
