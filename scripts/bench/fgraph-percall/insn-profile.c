// SPDX-License-Identifier: GPL-2.0
/*
 * QEMU TCG plugin: count the guest instructions executed inside marked
 * windows, per translation block, for a per-function profile.
 *
 * A window opens when the guest executes the reserved hint #0x80 and
 * closes at hint #0x81 (NOPs to the CPU): 0xe320f080 and 0xe320f081 in
 * ARM state, 0xf3af 0x8080 and 0xf3af 0x8081 in Thumb state.  The
 * samples/ftrace/ftrace-call-cost.c benchmark puts them around its
 * traced calls.  At exit the plugin writes one line per translation
 * block that ran inside a window:
 *
 *     <guest address, hex> <instructions in the block> <executions>
 *
 * Map the addresses to symbols with System.map and /proc/kallsyms.
 *
 * Usage: qemu-system-arm ... -icount shift=0,sleep=off \
 *            -plugin ./insn-profile.so,out=profile.txt
 *
 * Accounting is per block: the block holding the opening hint is left
 * out and the one holding the closing hint is counted whole, a few
 * instructions per window.  It relies on one vCPU thread (icount runs
 * TCG single-threaded), so the counters need no atomics.
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

#define MARK_BEGIN	0xe320f080u
#define MARK_END	0xe320f081u
/* The two halfwords of the Thumb encoding, as a little-endian word */
#define MARK_BEGIN_T32	0x8080f3afu
#define MARK_END_T32	0x8081f3afu

/* One per translation: a block translated twice gets two records */
struct block {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t execs;
	struct block *next;
};

static struct block *blocks;
static bool in_window;
static uint64_t windows;
static char *out_path;

static void block_exec(unsigned int vcpu, void *udata)
{
	struct block *b = udata;

	if (in_window)
		b->execs++;
}

static void mark_exec(unsigned int vcpu, void *udata)
{
	in_window = udata != NULL;
	if (in_window)
		windows++;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct block *b = calloc(1, sizeof(*b));

	if (!b)
		abort();
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = n;
	b->next = blocks;
	blocks = b;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, block_exec,
					     QEMU_PLUGIN_CB_NO_REGS, b);

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint32_t word;

		if (qemu_plugin_insn_size(insn) != sizeof(word))
			continue;
		memcpy(&word, qemu_plugin_insn_data(insn), sizeof(word));
		if (word == MARK_BEGIN || word == MARK_BEGIN_T32)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_exec,
				QEMU_PLUGIN_CB_NO_REGS, (void *)1);
		else if (word == MARK_END || word == MARK_END_T32)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_exec,
				QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void write_profile(qemu_plugin_id_t id, void *udata)
{
	FILE *f = fopen(out_path, "w");
	struct block *b;

	if (!f) {
		perror(out_path);
		return;
	}
	fprintf(f, "# windows %llu\n", (unsigned long long)windows);
	for (b = blocks; b; b = b->next)
		if (b->execs)
			fprintf(f, "%llx %llu %llu\n",
				(unsigned long long)b->vaddr,
				(unsigned long long)b->insns,
				(unsigned long long)b->execs);
	fclose(f);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
			       const struct qemu_info_t *info,
			       int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (strncmp(argv[i], "out=", 4) == 0)
			out_path = argv[i] + 4;
	if (!out_path) {
		fprintf(stderr, "insn-profile: missing out=FILE\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, write_profile, NULL);
	return 0;
}
