#!/bin/sh
# Guest side of the thresh-coverage benchmark (Table 1 of the paper; see
# RESULTS.md and run.py in this directory).  Run by run.py through
# "workbench run patched --icount", which sets these shell variables and
# then sources this file:
#
#   WL          workload: lssed (ITER x "ls /bin | sed s/a/z/g") or
#               findsys (ITER x "find /sys")
#   ITER        rounds of the workload per run
#   THRESHOLDS  tracing_thresh values in us ("100 1000")
#   MODES       threshold modes to run at each threshold ("exits pad tree lazy")
#   BUF_KB      buffer_size_kb of every run; big enough that a run does
#               not wrap it (overrun 0), so the buffer holds everything
#               the mode wrote
#
# Every run resets the buffer, runs the workload with tracing on and
# writes one "run key=value ..." line to /out/result.txt with the guest
# time of the workload and the counters of per_cpu/cpu0/stats.  The
# threshold modes also leave their trace text in /out/trace-MODE-THRESH.txt
# (funcgraph-tail on), which run.py parses.
#
# tracefs is mounted at /tracing and unmounted from /sys, so that the
# find /sys workload does not walk the tracing files.
set -u
WL=${WL:-lssed}
ITER=${ITER:-10}
THRESHOLDS=${THRESHOLDS:-"100 1000"}
MODES=${MODES:-"exits pad tree lazy"}
BUF_KB=${BUF_KB:-131072}
OUT=/out
RES=$OUT/result.txt
mkdir -p $OUT
: > $RES

umount /sys/kernel/debug/tracing 2>/dev/null
umount /sys/kernel/debug 2>/dev/null
umount /sys/kernel/tracing 2>/dev/null
T=/tracing
mkdir -p $T
mount -t tracefs nodev $T || exit 1
if grep -q ' /sys/kernel/tracing \| /sys/kernel/debug ' /proc/mounts; then
	echo "tracefs or debugfs still under /sys" >&2
	exit 1
fi
S=$T/per_cpu/cpu0/stats

now() { # seconds, from the tracing clock
	awk '/^now ts:/ { print $3 }' $S
}

stat_of() { # "key" of per_cpu/cpu0/stats; 0 when the kernel has no such line
	awk -v k="$1" 'index($0, k ":") == 1 { sub(/^[^:]*: */, ""); v = $1 }
		END { print (v == "" ? 0 : v) }' $S
}

has_stat() { # key
	grep -q "^$1:" $S && echo 1 || echo 0
}

workload() {
	i=0
	while [ $i -lt $ITER ]; do
		case $WL in
		lssed)	ls /bin | sed s/a/z/g > /dev/null ;;
		findsys) find /sys > /dev/null 2>&1 ;;
		*)	echo "unknown workload $WL" >&2; exit 1 ;;
		esac
		i=$((i + 1))
	done
}

setopt() { # name 0|1
	echo $2 > $T/options/$1 || exit 1
}

# run MODE THRESH
#   MODE: nop, profile (function profiler), graph (plain function_graph),
#   exits (tracing_thresh only), pad (thresh-tree + thresh-pad),
#   tree (thresh-tree: rewind), lazy (thresh-lazy: entries written late)
run() {
	mode=$1 thresh=$2
	echo 0 > $T/tracing_on
	echo nop > $T/current_tracer
	echo 0 > $T/function_profile_enabled
	echo 0 > $T/tracing_thresh
	setopt funcgraph-thresh-tree 0
	setopt funcgraph-thresh-pad 0
	[ -f $T/options/funcgraph-thresh-lazy ] &&
		setopt funcgraph-thresh-lazy 0
	setopt funcgraph-tail 1
	case $mode in
	exits)	echo $thresh > $T/tracing_thresh ;;
	pad)	echo $thresh > $T/tracing_thresh
		setopt funcgraph-thresh-tree 1
		setopt funcgraph-thresh-pad 1 ;;
	tree)	echo $thresh > $T/tracing_thresh
		setopt funcgraph-thresh-tree 1 ;;
	lazy)	[ -f $T/options/funcgraph-thresh-lazy ] || return 0
		echo $thresh > $T/tracing_thresh
		setopt funcgraph-thresh-lazy 1 ;;
	esac
	case $mode in
	nop|profile) ;;
	*) echo function_graph > $T/current_tracer || exit 1 ;;
	esac
	echo > $T/trace
	sync
	echo 1 > $T/tracing_on
	[ $mode = profile ] && echo 1 > $T/function_profile_enabled
	t0=`now`
	workload
	t1=`now`
	echo 0 > $T/tracing_on
	echo 0 > $T/function_profile_enabled
	line="run mode=$mode thresh=$thresh t0=$t0 t1=$t1"
	if [ $mode = profile ]; then
		hits=`cat $T/trace_stat/function* |
			awk '$2 ~ /^[0-9]+$/ { n += $2 } END { printf "%d", n }'`
		line="$line hits=$hits"
	else
		for k in entries overrun 'commit overrun' bytes 'dropped events' \
			 'rewound events' 'padded events' 'rewinds refused'; do
			line="$line `echo $k | tr ' ' _`=`stat_of "$k"`"
		done
		case $mode in
		exits|pad|tree|lazy) cat $T/trace > $OUT/trace-$mode-$thresh.txt ;;
		esac
	fi
	echo "$line" | tee -a $RES
}

echo "kernel=`uname -r`" >> $RES
echo "build=`uname -v | tr ' ' _`" >> $RES
echo "workload=$WL" >> $RES
echo "iterations=$ITER" >> $RES
echo $BUF_KB > $T/buffer_size_kb || exit 1
echo "buffer_kb=`cat $T/per_cpu/cpu0/buffer_size_kb`" >> $RES
echo "cpus=`ls -d $T/per_cpu/cpu* | wc -l`" >> $RES
echo "has_padded_events=`has_stat 'padded events'`" >> $RES

# Warm the dentry and inode caches with no tracer
workload
run nop 0
run profile 0
run graph 0
for th in $THRESHOLDS; do
	for mode in $MODES; do
		run $mode $th
	done
done
echo nop > $T/current_tracer
echo 0 > $T/tracing_thresh
exit 0
