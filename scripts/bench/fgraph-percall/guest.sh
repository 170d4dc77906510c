#!/bin/sh
# Guest side of the per-call cost benchmark.  Run by run.py through
# "workbench run CONFIG --icount"; the wrapper sets TARGETS (where the
# traced function lives: "core" for the sample built into the kernel,
# "module" for the copy in /in/ftrace-call-cost-mod.ko), STATES (the
# tracer states to measure, in order) and CALLS (traced calls per state),
# then sources this file.  For each target and state, tracefs is set up,
# the benchmark times CALLS calls of its traced function, and the state
# is torn down again.  Results go to /out/result.txt as
# "percall TARGET STATE <the benchmark's result line>".

CALLS=${CALLS:-20000}
TARGETS=${TARGETS:-core}
T=/sys/kernel/tracing
out=/out/result.txt
mkdir -p /out
: > $out
echo "kernel $(uname -r)" >> $out

for target in $TARGETS; do
	case $target in
	core)
		[ -d /sys/module/ftrace_call_cost ] || {
			echo "the kernel has no built-in ftrace_call_cost" >&2
			exit 1
		} ;;
	module)
		insmod /in/ftrace-call-cost-mod.ko || exit 1 ;;
	*)
		echo "unknown target $target" >&2
		exit 1 ;;
	esac
done
cat /proc/kallsyms > /out/kallsyms

fail() {
	echo "state $1: $2" >&2
	exit 1
}

# set STATE: put tracefs in STATE (everything starts from nop)
set_state() {
	case $1 in
	nop)	;;
	function)
		echo function > $T/current_tracer ;;
	function-off)	# the function tracer with the ring buffer off
		echo 0 > $T/tracing_on
		echo function > $T/current_tracer ;;
	graph)
		echo function_graph > $T/current_tracer ;;
	graph-off)	# function_graph with the ring buffer off
		echo 0 > $T/tracing_on
		echo function_graph > $T/current_tracer ;;
	graph-skip)	# the graph entry runs but rejects the call
		echo schedule > $T/set_graph_function
		echo function_graph > $T/current_tracer ;;
	retval)
		echo 1 > $T/options/funcgraph-retval || return 1
		echo function_graph > $T/current_tracer ;;
	thresh)	# 100 us: the benchmark's calls are all shorter
		echo 100 > $T/tracing_thresh
		echo function_graph > $T/current_tracer ;;
	thresh-tree)
		echo 1 > $T/options/funcgraph-thresh-tree || return 1
		echo 100 > $T/tracing_thresh
		echo function_graph > $T/current_tracer ;;
	thresh-tree-reader)	# thresh-tree, a trace_pipe reader waiting
		echo 1 > $T/options/funcgraph-thresh-tree || return 1
		echo 100 > $T/tracing_thresh
		echo function_graph > $T/current_tracer
		# Started after the tracer, which cannot change while
		# trace_pipe is open; the sleep lets it block in the read
		cat $T/trace_pipe > /dev/null &
		reader=$!
		sleep 1 ;;
	thresh-lazy)	# entries written when a call they enclose is slow
		echo 1 > $T/options/funcgraph-thresh-lazy || return 1
		echo 100 > $T/tracing_thresh
		echo function_graph > $T/current_tracer ;;
	*)	return 1 ;;
	esac
}

reset_state() {
	if [ -n "$reader" ]; then
		kill $reader
		wait $reader
		reader=
	fi
	echo nop > $T/current_tracer
	echo 0 > $T/tracing_thresh
	echo > $T/set_graph_function
	[ -f $T/options/funcgraph-retval ] &&
		echo 0 > $T/options/funcgraph-retval
	[ -f $T/options/funcgraph-thresh-tree ] &&
		echo 0 > $T/options/funcgraph-thresh-tree
	[ -f $T/options/funcgraph-thresh-lazy ] &&
		echo 0 > $T/options/funcgraph-thresh-lazy
	echo 1 > $T/tracing_on
	echo > $T/trace
}

for target in $TARGETS; do
	if [ $target = core ]; then
		P=/sys/module/ftrace_call_cost/parameters/run
	else
		P=/sys/module/ftrace_call_cost_mod/parameters/run
	fi
	for state in $STATES; do
		set_state $state || fail $state "not supported by this kernel"
		echo $CALLS > $P || fail $state "the benchmark failed"
		echo "percall $target $state $(cat $P)" >> $out
		reset_state
	done
done
