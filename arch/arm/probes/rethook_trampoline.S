/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The address a function hooked by rethook returns to.
 */

#include <linux/linkage.h>
#include <asm/assembler.h>
#include <asm/asm-offsets.h>
#include <asm/unwind.h>

/*
 * The hooked function comes here with its return value in r0-r1 and
 * the stack pointer it was entered with.  Save the registers as a
 * pt_regs below it, let rethook run the exit handlers, restore r0-r11,
 * which a handler may have changed, and return to the caller.  ip and
 * lr are free at a return.  ARM_pc holds this trampoline until rethook
 * puts the real return address there: either way the unwinder finds
 * the caller.
 */
	.section .kprobes.text, "ax"	@ not to be probed itself
ENTRY(arch_rethook_trampoline)
UNWIND(.fnstart)
UNWIND(.pad	#(PT_REGS_SIZE - S_PC - 4))
UNWIND(.save	{lr, pc})
UNWIND(.pad	#S_LR)
	sub	sp, sp, #PT_REGS_SIZE
	stmia	sp, {r0-r12}
	add	r0, sp, #PT_REGS_SIZE
	str	r0, [sp, #S_SP]
	str	lr, [sp, #S_LR]
	badr	r1, arch_rethook_trampoline
	str	r1, [sp, #S_PC]
	mrs	r1, cpsr
 THUMB(	orr	r1, r1, #PSR_T_BIT	)	@ which MRS does not show
	str	r1, [sp, #S_PSR]
	mov	r0, sp
	bl	arch_rethook_trampoline_callback
	mov	lr, r0
	ldmia	sp, {r0-r11}
	add	sp, sp, #PT_REGS_SIZE
	ret	lr
UNWIND(.fnend)
ENDPROC(arch_rethook_trampoline)
