/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __ARM_PROBES_RETHOOK_H
#define __ARM_PROBES_RETHOOK_H

struct pt_regs;

/* Called by arch_rethook_trampoline */
unsigned long arch_rethook_trampoline_callback(struct pt_regs *regs);

#endif
