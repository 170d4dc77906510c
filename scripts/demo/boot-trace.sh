# SPDX-License-Identifier: GPL-2.0
#
# Guest side of a boot trace: run with a kernel command line that starts
# function_graph at boot, e.g.
#
#   scripts/workbench run patched --no-build --out out/boot \
#     --append 'ftrace=function_graph tracing_thresh=100
#               trace_options=funcgraph-thresh-tree,nooverwrite
#               trace_buf_size=8M' scripts/demo/boot-trace.sh
#
# It stops tracing, then copies the main buffer with absolute times, CPU
# and task columns to /out/boot-trace.txt, each CPU's buffer counts
# (per_cpu/cpuN/stats) to /out/buffer-stats.txt, and the early-boot file
# to /out/fgraph_boot_trace.txt when the kernel has one, for `ftd boot`:
#
#   tools/tracing/ftd/ftd boot out/boot/boot-trace.txt \
#     out/boot/fgraph_boot_trace.txt --svg boot.svg \
#     --buffer-stats out/boot/buffer-stats.txt
#
# trace_event=initcall:initcall_level,initcall:initcall_start on the
# command line gives ftd the initcall levels and names; --icount makes
# the guest's times independent of the host's load.

set -e
cd /sys/kernel/tracing
echo 0 > tracing_on
echo 1 > options/funcgraph-abstime
echo 1 > options/funcgraph-cpu
echo 1 > options/funcgraph-proc
cat /proc/cmdline > /out/cmdline.txt
cat trace > /out/boot-trace.txt
# whether a full buffer overwrote the start ("overrun:") or, with
# nooverwrite, dropped the end ("dropped events:")
for f in per_cpu/cpu*/stats; do
	echo "==> $f <=="
	cat "$f"
done > /out/buffer-stats.txt
# the early-boot records (start_kernel() to ftrace_init()), where the
# kernel has them (Documentation/trace/fgraph-boot.rst)
if [ -r fgraph_boot_trace ]; then
	cat fgraph_boot_trace > /out/fgraph_boot_trace.txt
fi
dmesg > /out/dmesg.txt
echo "boot-trace: $(grep -vc '^#' /out/boot-trace.txt) trace lines"
