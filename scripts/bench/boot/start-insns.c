// SPDX-License-Identifier: GPL-2.0
/*
 * QEMU TCG plugin of the boot benchmark (run.py): how many guest
 * instructions ran from the reset of the machine until the first
 * instruction at a given address (start_kernel) ran.
 *
 * Under -icount shift=0,sleep=off one instruction is one nanosecond of
 * virtual time, and nothing before start_kernel() waits (QEMU's boot
 * code, the zImage decompressor and head.S on ARM, head.S on arm64,
 * run with interrupts off and never idle), so the count is also the
 * guest time at which start_kernel() began: that of the architecture
 * counter, CNTVCT, which counts virtual time (62.5 MHz on QEMU 7.2's
 * virt machine).
 *
 * Usage: qemu-system-arm ... -icount shift=0,sleep=off \
 *            -plugin ./start-insns.so,addr=0xc0a00a3c,out=FILE
 *
 * The same plugin counts for qemu-system-aarch64 (addr= a 64-bit
 * address, such as 0xffff800080510a30): it only compares the virtual
 * address of each instruction, and start_kernel() runs with the MMU on,
 * at its address in System.map (on a kernel that KASLR does not move).
 *
 * FILE gets "insns N" when the address is first reached.  Counting is
 * per translation block, inline, and the block holding the address is
 * counted up to that instruction.
 *
 * The plugin API's declarations are in ../qemu-plugin-api.h.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../qemu-plugin-api.h"

static uint64_t insns;		/* whole blocks, added as each one starts */
static uint64_t target;
static bool reached;
static char *out_path;

/* UDATA: how many instructions of its block come after the target. */
static void target_exec(unsigned int vcpu, void *udata)
{
	FILE *f;

	if (reached)
		return;
	reached = true;
	f = fopen(out_path, "w");
	if (!f) {
		perror(out_path);
		return;
	}
	fprintf(f, "insns %llu\n",
		(unsigned long long)(insns - (uintptr_t)udata));
	fclose(f);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	if (reached)
		return;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &insns, n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_vaddr(insn) == target)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, target_exec,
				QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)(n - i));
	}
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
			       const struct qemu_info_t *info,
			       int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (strncmp(argv[i], "out=", 4) == 0)
			out_path = argv[i] + 4;
		else if (strncmp(argv[i], "addr=", 5) == 0)
			target = strtoull(argv[i] + 5, NULL, 0);
	}
	if (!out_path || !target) {
		fprintf(stderr, "start-insns: needs addr=ADDRESS,out=FILE\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	return 0;
}
