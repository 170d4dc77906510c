# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `workbench demo-boot` (make demo-boot): a boot traced
# from start_kernel() to /init on the root disk guest, for the call
# counts, boot holds and per-initcall delay and console rows of `ftd
# boot`.  The host boots it with `workbench run --root-disk` and the
# command line of Documentation/trace/fgraph-boot.rst ("Boot holds on a
# root disk boot"), then runs ftd boot on what this copies to /out:
#
#   cmdline.txt          /proc/cmdline
#   mounts.txt           /proc/mounts (the root is /dev/root, ext2)
#   fgraph_boot_trace.txt  the early boot records, where the kernel has them
#   fgraph_boot_stat.txt   trace_stat/fgraph_boot, the call counts of boot,
#                        where the kernel has it
#   boot-trace.txt       the main buffer, with absolute times, CPU and task
#                        columns (the scheduler events in it for the holds)
#   dmesg.txt            the kernel log (initcall_debug's lines)
#   buffer-stats.txt     per_cpu/cpuN/stats of the main buffer, each under
#                        a "==> per_cpu/cpuN/stats <==" line: its
#                        "overrun:" and "dropped events:" counts prove
#                        whether a full buffer lost the start or the end
#                        (ftd boot --buffer-stats buffer-stats.txt)

set -e
cd /sys/kernel/tracing
# Stop first, so that the trace ends where the boot did.
echo 0 > tracing_on
cat /proc/cmdline > /out/cmdline.txt
cat /proc/mounts > /out/mounts.txt
if [ -r fgraph_boot_trace ]; then
	cat fgraph_boot_trace > /out/fgraph_boot_trace.txt
fi
# The counts appear once a work item has merged them, shortly after boot
i=0
while [ ! -r trace_stat/fgraph_boot ] && [ -r fgraph_boot_trace ] &&
	[ $i -lt 10 ]; do
	sleep 1
	i=$((i + 1))
done
if [ -r trace_stat/fgraph_boot ]; then
	cat trace_stat/fgraph_boot > /out/fgraph_boot_stat.txt
fi
echo 1 > options/funcgraph-abstime
echo 1 > options/funcgraph-cpu
echo 1 > options/funcgraph-proc
cat trace > /out/boot-trace.txt
for f in per_cpu/cpu*/stats; do
	echo "==> $f <=="
	cat "$f"
done > /out/buffer-stats.txt
dmesg > /out/dmesg.txt
echo "boot-holds: root $(awk '$2 == "/" { print $1, $3 }' /proc/mounts)," \
	"$(grep -vc '^#' /out/boot-trace.txt) trace lines," \
	"$(grep -c 'initcall .* returned' /out/dmesg.txt || true) initcalls" \
	"in the log"
