#!/bin/sh
# Guest side of the function graph overhead benchmark (Table 2 of the
# paper).  Run by run.py through "workbench run CONFIG --icount"; the
# wrapper sets STATE (notrace, nop, function, graph, retval, thresh,
# thresh-tree),
# RUNS (timed rounds), ITER (iterations of "find /sys" per round; the
# paper's loop has 10) and COUNT (1: count the calls with the function
# profiler), then sources this file.  Results go to /out/result.txt as
# "key value" lines.

STATE=${STATE:-nop}
RUNS=${RUNS:-3}
ITER=${ITER:-10}
COUNT=${COUNT:-0}
out=/out/result.txt
mkdir -p /out
: > $out

# The workload walks /sys: keep tracefs and debugfs out of it (their
# thousands of event files would be walked too), and mount tracefs at
# /tracing instead, as the paper had debugfs at /debug.
umount /sys/kernel/debug/tracing 2>/dev/null
umount /sys/kernel/debug 2>/dev/null
umount /sys/kernel/tracing 2>/dev/null
T=/tracing
mkdir -p $T
mount -t tracefs nodev $T 2>/dev/null

workload() { # iterations
	for i in $(seq 1 $1); do
		echo $i
		find /sys >/dev/null
	done >/dev/null
}

now() { # guest time in ns; under -icount one ns is one instruction
	# (busybox date has no %N; the hrtimer list prints ktime in ns)
	sed -n 's/^now at \([0-9]*\) nsecs$/\1/p' /proc/timer_list
}

echo "state $STATE" >> $out
echo "kernel $(uname -r)" >> $out
echo "iterations $ITER" >> $out
echo "mounts $(grep -c ' /sys' /proc/mounts)" >> $out

# Warm the dentry and inode caches with the tracer off
workload 10

case $STATE in
notrace)
	if [ -d $T/options ]; then
		echo "STATE=notrace on a tracing kernel" >&2
		exit 1
	fi
	;;
nop)
	echo nop > $T/current_tracer
	;;
function)
	echo function > $T/current_tracer
	;;
graph|retval|thresh|thresh-tree)
	if [ $STATE = retval ]; then
		echo 1 > $T/options/funcgraph-retval || exit 1
	fi
	if [ $STATE = thresh ] || [ $STATE = thresh-tree ]; then
		echo 100 > $T/tracing_thresh || exit 1
	fi
	if [ $STATE = thresh-tree ]; then
		echo 1 > $T/options/funcgraph-thresh-tree || exit 1
	fi
	echo function_graph > $T/current_tracer
	;;
*)
	echo "unknown STATE $STATE" >&2
	exit 1
	;;
esac

events_written() { # events the ring buffer took since the tracer was set
	cat $T/per_cpu/cpu*/stats 2>/dev/null |
		awk '/^(entries|overrun):/ { s += $2 } END { printf "%d", s }'
}

events_rewound() { # entries of short calls taken back (thresh-tree)
	cat $T/per_cpu/cpu*/stats 2>/dev/null |
		awk '/^(rewound|padded) events:/ { s += $3 } END { printf "%d", s }'
}

for r in $(seq 1 $RUNS); do
	e0=$(events_written)
	r0=$(events_rewound)
	t0=$(now)
	workload $ITER
	t1=$(now)
	e1=$(events_written)
	r1=$(events_rewound)
	echo "elapsed_ns $((t1 - t0))" >> $out
	echo "events_written $((e1 - e0))" >> $out
	echo "events_rewound $((r1 - r0))" >> $out
done

if [ -d $T/options ]; then
	# Entries the tracer wrote (all CPUs): written/kept in the buffer
	echo "trace_entries $(head -n 5 $T/trace | grep -o 'entries-written: [0-9]*/[0-9]*' | sed 's/.*: //')" >> $out
	echo nop > $T/current_tracer
	echo 0 > $T/tracing_thresh 2>/dev/null
fi

# Count the function calls of one iteration with the function profiler,
# in a separate round: the profiler costs time of its own (as much as the
# graph tracer: it counts in the graph entry hook).
if [ $COUNT = 1 ] && [ -f $T/function_profile_enabled ]; then
	echo 0 > $T/function_profile_enabled
	echo 1 > $T/function_profile_enabled
	workload 1
	echo 0 > $T/function_profile_enabled
	calls=0
	for f in $T/trace_stat/function*; do
		n=$(awk 'NR > 2 { s += $2 } END { printf "%d", s }' $f)
		calls=$((calls + n))
	done
	echo "calls_per_iteration $calls" >> $out
fi
exit 0
