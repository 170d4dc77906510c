#!/bin/sh
# Guest side of the boot benchmark.  Run by run.py through "workbench run
# CONFIG --icount --append ARGS"; the wrapper sets nothing, the boot's
# kernel command line says what to trace.  It stops the main tracer (if
# the command line started one), then writes to /out:
#
#   result.txt  "cntvct FREQ BEFORE AFTER" from /in/cntvct, which wrote
#               "boot-bench: sync" to /dev/kmsg between its two readings
#               of the counter, and "stats" lines of the main buffer
#   kmsg.txt    the printk records with their local_clock() stamps in
#               microseconds ("prio,seq,usec,flags;text", /dev/kmsg)
#   early.txt   /sys/kernel/tracing/fgraph_boot_trace, when there is one
#   main.txt    the main trace buffer with absolute times, when the
#               command line started a tracer
#   events.txt  the trace of the instance "boot", when the command line
#               made one (trace_instance=boot,...): the initcall events,
#               which the main buffer loses when the tracer starts
T=/sys/kernel/tracing
out=/out/result.txt
mkdir -p /out
: > $out
echo 0 > $T/tracing_on
cp /in/cntvct /tmp/cntvct && chmod +x /tmp/cntvct || exit 1
/tmp/cntvct >> $out || exit 1
# /dev/kmsg keeps the microsecond stamps whatever printk.time says; cat
# blocks at its end, so it is stopped once it has read everything.
cat /dev/kmsg > /out/kmsg.txt &
pid=$!
sleep 1
kill $pid
wait $pid 2>/dev/null
grep -q 'boot-bench: sync' /out/kmsg.txt || {
	echo "no sync line in /dev/kmsg" >&2
	exit 1
}
if [ -r $T/fgraph_boot_trace ]; then
	cat $T/fgraph_boot_trace > /out/early.txt
fi
if [ "$(cat $T/current_tracer)" != nop ]; then
	echo 1 > $T/options/funcgraph-abstime
	echo 1 > $T/options/funcgraph-cpu
	echo 1 > $T/options/funcgraph-proc
	cat $T/trace > /out/main.txt
	if [ -d $T/instances/boot ]; then
		echo 1 > $T/instances/boot/options/funcgraph-abstime
		cat $T/instances/boot/trace > /out/events.txt
	fi
	for f in $T/per_cpu/cpu*/stats; do
		sed 's/^/stats /' $f >> $out
	done
fi
echo done >> $out
