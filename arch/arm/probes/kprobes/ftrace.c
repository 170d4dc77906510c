// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kprobes on the ftrace site of a function (KPROBES_ON_FTRACE)
 *
 * With ARM_FTRACE_PATCHABLE_ENTRY a traced function starts with the
 * ftrace site, so a kprobe on its first instruction is taken through
 * ftrace_regs_caller instead of an undefined-instruction breakpoint.
 */

#include <linux/ftrace.h>
#include <linux/kprobes.h>

void __kprobes kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *ops,
				     struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	struct kprobe_ctlblk *kcb;
	unsigned long resume;
	struct kprobe *p;
	int bit;

	if (unlikely(kprobe_ftrace_disabled))
		return;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;

	p = get_kprobe((kprobe_opcode_t *)ip);
	if (unlikely(!p) || kprobe_disabled(p))
		goto out;
	/*
	 * A task that stopped between the two instructions of the site
	 * may still come through ftrace_caller, which has no pt_regs: the
	 * probe misses that call, as it misses a nested one.
	 */
	if (unlikely(!regs) || kprobe_running()) {
		kprobes_inc_nmissed_count(p);
		goto out;
	}

	/*
	 * The handlers see the registers a breakpoint on the site would
	 * give them: pc on the site, then, for the post handler, on the
	 * instruction after it, where the function goes on.  A pre
	 * handler that returns non-zero has set pc itself, and
	 * ftrace_regs_caller goes there instead.
	 */
	resume = instruction_pointer(regs);
	kcb = get_kprobe_ctlblk();
	__this_cpu_write(current_kprobe, p);
	kcb->kprobe_status = KPROBE_HIT_ACTIVE;
	instruction_pointer_set(regs, ip);
	if (!p->pre_handler || !p->pre_handler(p, regs)) {
		instruction_pointer_set(regs, resume);
		if (unlikely(p->post_handler)) {
			kcb->kprobe_status = KPROBE_HIT_SSDONE;
			p->post_handler(p, regs, 0);
		}
	}
	__this_cpu_write(current_kprobe, NULL);
out:
	ftrace_test_recursion_unlock(bit);
}

int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	/* Nothing is single-stepped: ftrace runs the probed site */
	p->ainsn.insn = NULL;
	return 0;
}
