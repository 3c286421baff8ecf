/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A function whose typed pointer is described only by DW_OP_entry_value
 * (tests/unit/test_symbols.c, test_dentry), with the DWARF written by hand:
 * gcc writes such a location where it knows a variable equals what a
 * register held on entry but not where it is now (glibc's start_thread:
 * struct pthread *pd = arg, spilled after a setjmp). In C:
 *
 *	struct ctx { long a; long b; };
 *	long dt_entry(void *arg) { struct ctx *c = arg; ext(); return c->b; }
 *
 * arg (void *) is in %rdi at the first instruction; c's only location is
 * DW_OP_GNU_entry_value(DW_OP_reg5) DW_OP_stack_value. And a call that
 * does not return (DW_AT_noreturn), with code after it that a branch
 * reaches:
 *
 *	long dt_noret(struct ctx **pp, int ok)
 *	{ struct ctx *c = *pp; if (!ok) dt_stop(); return c->b; }
 *
 * x86-64 only.
 */
	.text
	.globl dt_entry
	.type dt_entry, @function
dt_entry:
	push %rbx
	mov %rdi, %rbx
	call dt_entry_ext
	mov 8(%rbx), %rax
	pop %rbx
	ret
	.size dt_entry, .-dt_entry
dt_entry_end:
	.globl dt_entry_ext
	.type dt_entry_ext, @function
dt_entry_ext:
	ret
	.size dt_entry_ext, .-dt_entry_ext

	.globl dt_noret
	.type dt_noret, @function
dt_noret:
	mov (%rdi), %rax
	test %esi, %esi
	jne 1f
	call dt_stop
1:	mov 8(%rax), %rax
	ret
	.size dt_noret, .-dt_noret
dt_noret_end:
	.type dt_stop, @function
dt_stop:
	ud2
	.size dt_stop, .-dt_stop
dt_stop_end:

	.section .debug_abbrev,"",@progbits
abbrev:
	.uleb128 1; .uleb128 0x11; .byte 1             /* compile_unit, children */
	.uleb128 0x25; .uleb128 0x08                   /* producer: string */
	.uleb128 0x13; .uleb128 0x0b                   /* language: data1 */
	.uleb128 0x11; .uleb128 0x01                   /* low_pc: addr */
	.uleb128 0x12; .uleb128 0x07                   /* high_pc: data8 (length) */
	.byte 0, 0
	.uleb128 2; .uleb128 0x24; .byte 0             /* base_type */
	.uleb128 0x03; .uleb128 0x08                   /* name */
	.uleb128 0x0b; .uleb128 0x0b                   /* byte_size */
	.uleb128 0x3e; .uleb128 0x0b                   /* encoding */
	.byte 0, 0
	.uleb128 3; .uleb128 0x13; .byte 1             /* structure_type, children */
	.uleb128 0x03; .uleb128 0x08
	.uleb128 0x0b; .uleb128 0x0b
	.byte 0, 0
	.uleb128 4; .uleb128 0x0d; .byte 0             /* member */
	.uleb128 0x03; .uleb128 0x08
	.uleb128 0x49; .uleb128 0x13                   /* type: ref4 */
	.uleb128 0x38; .uleb128 0x0b                   /* data_member_location: data1 */
	.byte 0, 0
	.uleb128 5; .uleb128 0x0f; .byte 0             /* pointer_type to a type */
	.uleb128 0x0b; .uleb128 0x0b
	.uleb128 0x49; .uleb128 0x13
	.byte 0, 0
	.uleb128 6; .uleb128 0x0f; .byte 0             /* pointer_type: void * */
	.uleb128 0x0b; .uleb128 0x0b
	.byte 0, 0
	.uleb128 7; .uleb128 0x2e; .byte 1             /* subprogram, children */
	.uleb128 0x03; .uleb128 0x08
	.uleb128 0x3f; .uleb128 0x19                   /* external: flag_present */
	.uleb128 0x49; .uleb128 0x13
	.uleb128 0x11; .uleb128 0x01
	.uleb128 0x12; .uleb128 0x07
	.byte 0, 0
	.uleb128 8; .uleb128 0x05; .byte 0             /* formal_parameter */
	.uleb128 0x03; .uleb128 0x08
	.uleb128 0x49; .uleb128 0x13
	.uleb128 0x02; .uleb128 0x18                   /* location: exprloc */
	.byte 0, 0
	.uleb128 9; .uleb128 0x34; .byte 0             /* variable */
	.uleb128 0x03; .uleb128 0x08
	.uleb128 0x49; .uleb128 0x13
	.uleb128 0x02; .uleb128 0x18
	.byte 0, 0
	.uleb128 10; .uleb128 0x2e; .byte 0            /* subprogram that does not return */
	.uleb128 0x03; .uleb128 0x08
	.uleb128 0x11; .uleb128 0x01
	.uleb128 0x12; .uleb128 0x07
	.uleb128 0x87; .uleb128 0x19                   /* noreturn: flag_present */
	.byte 0, 0
	.byte 0

	.section .debug_info,"",@progbits
cu:
	.long cu_end - cu_version
cu_version:
	.value 4
	.long abbrev
	.byte 8
	.uleb128 1
	.asciz "hand-written DWARF (c2cscan tests)"
	.byte 0x0c                                     /* DW_LANG_C99 */
	.quad dt_entry
	.quad dt_stop_end - dt_entry
t_long:
	.uleb128 2
	.asciz "long int"
	.byte 8, 5                                     /* DW_ATE_signed */
t_ctx:
	.uleb128 3
	.asciz "ctx"
	.byte 16
	.uleb128 4
	.asciz "a"
	.long t_long - cu
	.byte 0
	.uleb128 4
	.asciz "b"
	.long t_long - cu
	.byte 8
	.byte 0
t_ctxp:
	.uleb128 5
	.byte 8
	.long t_ctx - cu
t_voidp:
	.uleb128 6
	.byte 8
	.uleb128 7
	.asciz "dt_entry"
	.long t_long - cu
	.quad dt_entry
	.quad dt_entry_end - dt_entry
	.uleb128 8
	.asciz "arg"
	.long t_voidp - cu
	.uleb128 1; .byte 0x55                         /* DW_OP_reg5 */
	.uleb128 9
	.asciz "c"
	.long t_ctxp - cu
	.uleb128 4; .byte 0xf3, 1, 0x55, 0x9f          /* GNU_entry_value(reg5) stack_value */
	.byte 0
t_ctxpp:
	.uleb128 5
	.byte 8
	.long t_ctxp - cu
	.uleb128 7
	.asciz "dt_noret"
	.long t_long - cu
	.quad dt_noret
	.quad dt_noret_end - dt_noret
	.uleb128 8
	.asciz "pp"
	.long t_ctxpp - cu
	.uleb128 1; .byte 0x55                         /* DW_OP_reg5 */
	.byte 0
	.uleb128 10
	.asciz "dt_stop"
	.quad dt_stop
	.quad dt_stop_end - dt_stop
	.byte 0
cu_end:
	.section .note.GNU-stack,"",@progbits
