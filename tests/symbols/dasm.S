/* SPDX-License-Identifier: GPL-2.0 */
/* A function written in assembly (tests/symbols/dthread.c): its DWARF has
 * a subprogram, no types. */
	.text
	.globl dt_asm
	.type dt_asm, @function
dt_asm:
#ifdef __x86_64__
	mov (%rdi), %rax
	add 8(%rdi), %rax
	ret
#else
	ldr x1, [x0]
	ldr x0, [x0, #8]
	add x0, x0, x1
	ret
#endif
	.size dt_asm, .-dt_asm
	.section .note.GNU-stack,"",@progbits
