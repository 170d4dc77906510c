# SPDX-License-Identifier: GPL-2.0
#
# The example of the paper's section 3, run in the workbench guest: trace
# with function_graph, keep calls of at least 1000 us, with absolute
# timestamps and task names, over ten runs of `ls /bin | sed s/a/z/g`.
# The trace goes to /out/trace.txt; each CPU's buffer counts
# (per_cpu/cpuN/stats: "overrun:" says whether the buffer overwrote the
# start of the trace) to /out/buffer-stats.txt.

set -e
cd /sys/kernel/tracing

echo 0 > tracing_on
echo function_graph > current_tracer
echo 1408 > buffer_size_kb
echo 1 > options/funcgraph-abstime
echo 1 > options/funcgraph-proc
# The structure-keeping mode, where the kernel has it (topic 05-thresh-tree);
# without it tracing_thresh gives upstream's exits-only output.
if [ -e options/funcgraph-thresh-tree ]; then
	echo 1 > options/funcgraph-thresh-tree
	echo "demo: funcgraph-thresh-tree on" > /out/mode.txt
else
	echo "demo: no funcgraph-thresh-tree in this kernel: exits-only output" \
		> /out/mode.txt
fi
echo 1000 > tracing_thresh
echo > trace
echo 1 > tracing_on

i=0
while [ $i -lt 10 ]; do
	ls /bin | sed s/a/z/g > /dev/null
	i=$((i + 1))
done

echo 0 > tracing_on
cat trace > /out/trace.txt
for f in per_cpu/cpu*/stats; do
	echo "==> $f <=="
	cat "$f"
done > /out/buffer-stats.txt
cat /out/mode.txt
echo "demo: $(grep -vc '^#' /out/trace.txt) trace lines"
