// SPDX-License-Identifier: GPL-2.0-only
/*
 * Make the traced functions of vmlinux call the early boot function graph
 * buffer from start_kernel() on.
 *
 * The compiler leaves two NOPs in front of each traced function's
 * prologue, which ftrace_init() makes "mov x9, lr; nop".  Before that, the
 * buffer can only see the calls of early boot if the NOPs call it: each
 * site becomes
 *
 *	mov	x9, lr
 *	bl	fgraph_boot_caller
 *
 * here, while map_kernel() has the kernel text mapped writable.  Nothing
 * traced runs before start_kernel() (KASAN's kasan_early_init() would,
 * so the buffer is not offered with it).  ftrace_init_nop() accepts this
 * form and turns the call into its NOP.
 */

#include <linux/bits.h>
#include <linux/cpufeature.h>
#include <linux/ftrace.h>
#include <linux/init.h>
#include <linux/pgtable.h>
#include <linux/sizes.h>
#include <linux/types.h>

#include <asm/barrier.h>
#include <asm/byteorder.h>
#include <asm/insn.h>
#include <asm/sections.h>

#include "pi.h"

#define FGRAPH_BOOT_MOV_X9_LR	0xaa1e03e9	/* orr x9, xzr, x30 */
#define FGRAPH_BOOT_BL		0x94000000
#define FGRAPH_BOOT_BL_RANGE	SZ_128M

/*
 * Whether the records are kept: CONFIG_FGRAPH_BOOT_BUFFER_DEFAULT_ON unless
 * the command line has fgraph_boot=on or off, which idreg-override.c
 * turned into a software feature override.  The sites are hooked only
 * then, so that a boot without the records runs them as the compiler left
 * them.
 */
bool __init fgraph_boot_wanted(void)
{
	u64 on = IS_ENABLED(CONFIG_FGRAPH_BOOT_BUFFER_DEFAULT_ON);

	return arm64_apply_feature_override(on << ARM64_SW_FEATURE_OVERRIDE_FGRAPH_BOOT,
					    ARM64_SW_FEATURE_OVERRIDE_FGRAPH_BOOT,
					    4, &arm64_sw_feature_override);
}

static bool __init in_text(u64 addr, u64 va_offset)
{
	return (addr >= (u64)_stext + va_offset &&
		addr < (u64)_etext + va_offset) ||
	       (addr >= (u64)__inittext_begin + va_offset &&
		addr < (u64)__inittext_end + va_offset);
}

/*
 * The first of the site's two NOPs, from its __patchable_function_entries
 * entry (see ftrace_call_adjust()): after the ops literal and a BTI with
 * CALL_OPS, at the entry itself without.
 */
static u32 *__init site_of(u64 entry)
{
	u32 *insn = (u32 *)entry;

	if (IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS)) {
		if (!IS_ALIGNED(entry, sizeof(u64)))
			return NULL;
		insn += 2;
		if (aarch64_insn_is_bti(le32_to_cpu(*insn)))
			insn++;
	}
	return insn;
}

/* Alternatives are not applied yet: clean as patch-scs.c does */
static void __init clean_to_pou(u32 *insn)
{
	if (IS_ENABLED(CONFIG_ARM64_WORKAROUND_CLEAN_CACHE))
		asm volatile("dc civac, %0" :: "r" (insn) : "memory");
	else
		asm volatile("dc cvau, %0" :: "r" (insn) : "memory");
}

/**
 * fgraph_boot_hook_sites - send the traced functions to the boot buffer
 * @va_offset: the kernel's virtual address minus the address it runs at
 *
 * Called by map_kernel() with the kernel text mapped writable at its
 * virtual address, after relocate_kernel() has filled in the entries of
 * __patchable_function_entries.  A site that does not hold the
 * compiler's two NOPs is left for ftrace_init() to report; a site too far
 * for a BL is left as it is and counted.
 */
void __init fgraph_boot_hook_sites(u64 va_offset)
{
	u64 caller = (u64)fgraph_boot_caller + va_offset;
	u32 nop = aarch64_insn_gen_nop();
	unsigned long *loc;

	for (loc = __start_mcount_loc; loc < __stop_mcount_loc; loc++) {
		u32 *site;
		s64 off;

		/* Entries of discarded (weak) functions point nowhere. */
		if (!in_text(*loc, va_offset))
			continue;
		site = site_of(*loc);
		if (!site || !in_text((u64)(site + 1), va_offset))
			continue;
		if (le32_to_cpu(site[0]) != nop || le32_to_cpu(site[1]) != nop)
			continue;
		off = caller - (u64)(site + 1);
		if (off < -FGRAPH_BOOT_BL_RANGE || off >= FGRAPH_BOOT_BL_RANGE) {
			fgraph_boot_out_of_reach++;
			continue;
		}
		site[0] = cpu_to_le32(FGRAPH_BOOT_MOV_X9_LR);
		site[1] = cpu_to_le32(FGRAPH_BOOT_BL | ((off >> 2) & GENMASK(25, 0)));
		clean_to_pou(site);
		clean_to_pou(site + 1);
		fgraph_boot_hooked = true;
	}
	dsb(ish);
	asm volatile("ic ialluis" ::: "memory");
	dsb(ish);
	isb();
}
