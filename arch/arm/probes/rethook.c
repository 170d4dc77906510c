// SPDX-License-Identifier: GPL-2.0-only
/*
 * Return hooks (rethook) for kretprobes and fprobe exit handlers.
 *
 * Only kernels whose traced functions are hooked in front of their
 * prologue (ARM_FTRACE_PATCHABLE_ENTRY) have them: there, fprobe sees
 * the return address in lr as a kprobe on the first instruction does.
 * After the prologue of a -pg kernel it has been saved on the stack.
 */

#include <linux/kprobes.h>
#include <linux/rethook.h>

#include "rethook.h"

/* @regs is on the stack of arch_rethook_trampoline */
unsigned long __used arch_rethook_trampoline_callback(struct pt_regs *regs)
{
	return rethook_trampoline_handler(regs, regs->ARM_sp);
}

NOKPROBE_SYMBOL(arch_rethook_trampoline_callback);

/*
 * On entry to a function the stack pointer is the one it returns with,
 * and different for each call still running on a task's stack: it tells
 * the hooked calls apart (rethook_node::frame) without a frame pointer.
 */
void arch_rethook_prepare(struct rethook_node *rh, struct pt_regs *regs,
			  bool mcount)
{
	rh->ret_addr = regs->ARM_lr;
	rh->frame = regs->ARM_sp;
	regs->ARM_lr = (unsigned long)arch_rethook_trampoline;
}

NOKPROBE_SYMBOL(arch_rethook_prepare);
