#!/bin/sh
# Guest side of the preempt/irq toggle benchmark.  Run by run.py through
# "workbench run CONFIG"; the wrapper sets PAIRS (pairs of each kind per
# CPU) and STATES ("off": the preemptirq events disabled, "on": all of
# them enabled), then sources this file.  The benchmark is the kernel's
# preemptirq_bench (kernel/trace/preemptirq_bench.c), built in or loaded
# from /in/preemptirq_bench.ko.  Results go to /out/result.txt: for each
# state, the benchmark's lines prefixed with "bench STATE ", then
# "events STATE entries E overrun O" (what the ring buffer took in), or
# "unsupported STATE" when the kernel has no preemptirq events.  After the
# "on" run, "mix on EVENT: COUNT" lines count the events left in the
# buffer (the last batches run) and /out/trace-on-tail.txt keeps its end.

PAIRS=${PAIRS:-500000}
STATES=${STATES:-off on}
T=/sys/kernel/tracing
P=/sys/module/preemptirq_bench/parameters/run
E=$T/events/preemptirq
out=/out/result.txt
mkdir -p /out
: > $out
echo "kernel $(uname -r) cpus $(grep -c ^processor /proc/cpuinfo)" >> $out

if [ ! -d /sys/module/preemptirq_bench ]; then
	insmod /in/preemptirq_bench.ko || exit 1
fi

# events STATE: how many events the ring buffers took in, all CPUs
events() {
	cat $T/per_cpu/cpu*/stats | awk -v s=$1 '
		/^entries:/ { e += $2 }
		/^overrun:/ { o += $2 }
		END { print "events " s " entries " e " overrun " o }'
}

for state in $STATES; do
	echo 0 > $T/tracing_on
	echo > $T/trace
	echo 1 > $T/tracing_on
	case $state in
	off)	;;
	on)
		if [ ! -d $E ]; then
			echo "unsupported on" >> $out
			continue
		fi
		echo 1 > $E/enable || exit 1 ;;
	*)
		echo "unknown state $state" >&2
		exit 1 ;;
	esac
	echo $PAIRS > $P || { echo "state $state: the benchmark failed" >&2; exit 1; }
	[ $state = on ] && echo 0 > $E/enable
	sed "s/^/bench $state /" $P >> $out
	events $state >> $out
	if [ $state = on ]; then
		# what the buffer holds at the end (the last batches): which
		# events, and a sample of them, caller and parent included
		awk '/ (irq|preempt)_(disable|enable): / { n[$5]++ }
			END { for (e in n) print "mix on " e " " n[e] }' \
			$T/trace | sort >> $out
		tail -n 40 $T/trace > /out/trace-on-tail.txt
	fi
done
cat $out
