#!/bin/sh
# Guest script: capture the example output of Documentation/trace/ftrace.rst
# ("Duration filtering that keeps the call structure"): the paper's
# ls | sed loop traced with tracing_thresh=1000, exits only and then with
# funcgraph-thresh-tree.  Writes /out/exits.txt, /out/tree.txt and the
# per-CPU stats of the second run.
T=/sys/kernel/tracing
mkdir -p /out
cd $T || exit 1
run() { # tree
	echo 0 > tracing_on
	echo nop > current_tracer
	echo 1000 > tracing_thresh
	echo $1 > options/funcgraph-thresh-tree
	echo function_graph > current_tracer
	echo > trace
	echo 1 > tracing_on
	for i in 1 2 3 4 5 6 7 8 9 10; do ls /bin | sed s/a/z/g > /dev/null; done
	echo 0 > tracing_on
}
echo 1 > options/funcgraph-abstime
echo 1 > options/funcgraph-proc
run 0
cat trace > /out/exits.txt
run 1
cat trace > /out/tree.txt
cat per_cpu/cpu*/stats > /out/stats.txt
head -40 /out/tree.txt
grep -E 'rewound|refused' /out/stats.txt
