#!/bin/sh
# Guest script for a kept call whose entry was missing under
# funcgraph-thresh-tree (found and fixed 2026-12-02 on patched-arm64):
#   timeout 900 scripts/workbench run patched-arm64 --no-build --quiet \
#       --out /tmp/lost scripts/repro/thresh-tree-lost-entry.sh
#
# fgraph-thresh-tree.tc failed on patched-arm64 in 2 of 2 runs of its
# part without a reader (one CPU, tracing_thresh 100): 1 and 2
# "unmatched closing brackets".  The trace showed why, in an interrupt
# that came some 25 calls deep:
#   hrtimer_interrupt() {
#     ! 132.496 us  } /* __hrtimer_run_queues */
#   ! 432.896 us  } /* hrtimer_interrupt */
# The return of a call slower than the threshold was kept, while its
# entry had never been written: the entry handler found no room on the
# shadow stack for the call's rewind mark (fgraph_reserve_data()), wrote
# no entry, and still asked for the return, which the plain threshold
# path then wrote.  The shadow stack is a page: 512 longs on 64-bit,
# 1,024 on 32-bit ARM, and each call's mark with its header takes 13
# longs on 64-bit (from struct ring_buffer_rewind_mark), so ARM32 never
# got that deep.  Such a call is now left out, as fgraph leaves out calls
# too deep for a frame.  Before the fix, this script found 6 unmatched
# brackets in 3 of 5 runs; after it, 0 in 5 of 5.
#
# Each run's trace and stats go to /out; the script exits non-zero when
# a closing bracket does not close the last open call of its task at
# its depth, and prints those lines.
T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
cd $T || exit 1

echo 4096 > buffer_size_kb
echo function_graph > current_tracer
grep -m1 -E '^(__arm64_|__x64_)?sys_getdents64$' available_filter_functions \
	> set_graph_function
for o in funcgraph-tail funcgraph-proc funcgraph-cpu funcgraph-duration \
	 funcgraph-overhead funcgraph-irqs context-info; do
	echo 1 > options/$o
done
echo 100 > tracing_thresh
echo 1 > options/funcgraph-thresh-tree

bad=0
for run in 1 2 3 4 5; do
	echo 0 > tracing_on
	echo > trace
	echo 1 > tracing_on
	taskset 1 find /sys/kernel/mm /sys/devices/system > /dev/null 2>&1
	echo 0 > tracing_on
	cat trace > /out/trace$run.txt
	cat per_cpu/cpu0/stats > /out/stats$run.txt
	# Per task (the field before the first "|"), a stack of open calls
	# with their indentation; a "} /* f */" must close the top one
	n=$(awk -F'|' '
		NF >= 3 && $1 !~ /^#/ {
			task = $1; sub(/^ *[0-9]+\) */, "", task)
			f = $NF; match(f, /^ */); d = RLENGTH
			sub(/^ */, "", f); sub(/ *$/, "", f)
			if (f ~ /\(\) \{$/) {
				n = sp[task] + 1; sp[task] = n
				name[task, n] = substr(f, 1, length(f) - 4)
				depth[task, n] = d
			} else if (f ~ /^\} \/\* .* \*\/$/) {
				g = substr(f, 6, length(f) - 8)
				n = sp[task]
				if (n && name[task, n] == g && depth[task, n] == d) {
					sp[task] = n - 1
				} else {
					print "run '$run' line " NR ": " $0 > "/dev/stderr"
					bad++
				}
			}
		}
		END { print bad + 0 }' /out/trace$run.txt)
	echo "run $run: $n unmatched closing bracket(s); $(grep -E '^(rewound|padded|rewinds)' /out/stats$run.txt | tr '\n' ' ')"
	[ "$n" -eq 0 ] || bad=1
done
exit $bad
