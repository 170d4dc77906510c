#!/bin/sh
# Guest side of the thresh-coverage benchmark (see RESULTS.md and run.py
# in this directory).  Writes one "key=value ..." line per
# run to /out/results.txt.
#
# tracefs is mounted at /tracing and unmounted from /sys, so that the
# find /sys workload does not walk the tracing files.
set -u
OUT=/out
mkdir -p $OUT
: > $OUT/results.txt

ITER_LSSED=${ITER_LSSED:-20}
ITER_FINDSYS=${ITER_FINDSYS:-1}
THRESHOLDS=${THRESHOLDS:-"100 1000 100000"}
[ -f /in/params ] && . /in/params

umount /sys/kernel/debug 2>/dev/null
umount /sys/kernel/tracing 2>/dev/null
mkdir -p /tracing
mount -t tracefs nodev /tracing || exit 1
T=/tracing
mount | grep -q ' /sys/kernel/tracing ' && { echo "tracefs still under /sys"; exit 1; }

now() {
	awk '/^now ts:/ { print $3 }' $T/per_cpu/cpu0/stats
}

stat_of() { # key
	awk -v k="$1" 'index($0, k ":") == 1 { sub(/^[^:]*: */, ""); print $1 }' $T/per_cpu/cpu0/stats
}

wl_lssed() {
	i=0
	while [ $i -lt $ITER_LSSED ]; do
		ls /bin | sed s/a/z/g > /dev/null
		i=$((i + 1))
	done
}

wl_findsys() {
	i=0
	while [ $i -lt $ITER_FINDSYS ]; do
		find /sys > /dev/null 2>&1
		i=$((i + 1))
	done
}

setopt() { # name 0|1
	echo $2 > $T/options/$1
}

# run WORKLOAD MODE THRESH
#   MODE: nop, graph (plain function_graph), exits, pad, tree, profile
run() {
	wl=$1 mode=$2 thresh=$3
	echo 0 > $T/tracing_on
	echo nop > $T/current_tracer
	echo 0 > $T/function_profile_enabled
	echo 1408 > $T/buffer_size_kb
	echo 0 > $T/tracing_thresh
	setopt funcgraph-thresh-tree 0
	setopt funcgraph-thresh-pad 0
	setopt funcgraph-abstime 1
	case $mode in
	exits)	echo $thresh > $T/tracing_thresh ;;
	pad)	echo $thresh > $T/tracing_thresh
		setopt funcgraph-thresh-tree 1
		setopt funcgraph-thresh-pad 1 ;;
	tree)	echo $thresh > $T/tracing_thresh
		setopt funcgraph-thresh-tree 1 ;;
	esac
	case $mode in
	nop|profile) ;;
	*) echo function_graph > $T/current_tracer ;;
	esac
	echo > $T/trace
	sync
	echo 1 > $T/tracing_on
	[ $mode = profile ] && echo 1 > $T/function_profile_enabled
	t0=`now`
	wl_$wl
	t1=`now`
	echo 0 > $T/tracing_on
	echo 0 > $T/function_profile_enabled
	line="wl=$wl mode=$mode thresh=$thresh t0=$t0 t1=$t1"
	if [ $mode = profile ]; then
		hits=`cat $T/trace_stat/function* | awk '$2 ~ /^[0-9]+$/ { n += $2 } END { print n + 0 }'`
		line="$line hits=$hits"
	elif [ $mode != nop ]; then
		for k in entries overrun bytes; do
			line="$line $k=`stat_of $k`"
		done
		line="$line rewound=`stat_of 'rewound events'` refused=`stat_of 'rewinds refused'`"
		# first and last time stamps, and the calls shown
		info=`awk -F'|' '
			$1 ~ /^ *[0-9]+\.[0-9]+ *$/ && NF >= 3 {
				t = $1 + 0; if (!n++) first = t; last = t
				f = $NF
				if (f ~ /\) \{ *$/ || f ~ /\); *$/) calls++
				else if (f ~ /^ *\}/) ends++
			}
			END { printf "first=%s last=%s lines=%d calls=%d ends=%d", first, last, n, calls, ends }' $T/trace`
		line="$line $info"
		[ -n "${KEEP_TRACE:-}" ] && cp $T/trace $OUT/trace-$wl-$mode-$thresh.txt
	fi
	echo "$line" | tee -a $OUT/results.txt
}

for wl in ${WORKLOADS:-lssed findsys}; do
	run $wl nop 0
	run $wl profile 0
	run $wl graph 0
	for th in $THRESHOLDS; do
		for mode in exits pad tree; do
			run $wl $mode $th
		done
	done
done
echo done
