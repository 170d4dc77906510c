#!/bin/sh
# Guest script: stack traces from a kretprobe handler when the function
# graph tracer hooks the same calls (checked 2026-11-26 on patched):
#   scripts/workbench run patched --no-build --quiet --out DIR \
#       scripts/repro/graph-kretprobe-stack.sh
# A call hooked by both returns to return_to_handler and to
# arch_rethook_trampoline, in the order the two hooks ran; whichever
# order, the unwinder must undo both and go on to vfs_read's caller.
# Each of DIR/trace-kretprobe-first.txt and DIR/trace-graph-first.txt
# should hold "<stack trace>" blocks ending "=> ksys_read" with no
# "=> return_to_handler" line.  Reads go through dd: busybox cat uses
# sendfile() and never calls vfs_read().
mkdir -p /out
cd /sys/kernel/tracing || exit 1
echo vfs_read > set_ftrace_filter

kretprobe_on() {
	echo 'r:myret vfs_read' > kprobe_events
	echo stacktrace > events/kprobes/myret/trigger
	echo 1 > events/kprobes/myret/enable
}

read_some() {
	dd if=/proc/version of=/dev/null 2>/dev/null
	dd if=/proc/cmdline of=/dev/null 2>/dev/null
}

all_off() {
	echo 0 > tracing_on
	echo nop > current_tracer
	echo 0 > events/kprobes/myret/enable
	echo '!stacktrace' > events/kprobes/myret/trigger
	echo > kprobe_events
	echo > trace
	echo 1 > tracing_on
}

kretprobe_on
echo function_graph > current_tracer
read_some
cat trace > /out/trace-kretprobe-first.txt
all_off

echo function_graph > current_tracer
kretprobe_on
read_some
cat trace > /out/trace-graph-first.txt
all_off

st=0
for f in /out/trace-kretprobe-first.txt /out/trace-graph-first.txt; do
	grep -q '=> ksys_read' "$f" || { echo "FAIL: no ksys_read in $f"; st=1; }
	if grep -q '=> return_to_handler' "$f"; then
		echo "FAIL: return_to_handler left in $f"
		st=1
	fi
done
exit $st
