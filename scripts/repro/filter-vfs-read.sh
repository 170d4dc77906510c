#!/bin/sh
# Guest script reproducing a hang found on 2026-11-26 (open, not fixed):
#   timeout 300 scripts/workbench run patched --no-build --quiet scripts/repro/filter-vfs-read.sh
# On patched, benchfg and benchfg-fentry, and on the unpatched base
# (benchfg-stock), -smp 2, the guest stops after
# printing "enabled: vfs_read (1)": the function tracer (or function_graph)
# with set_ftrace_filter naming one function that the shell calls all the
# time.  The same script with every function traced, or with a filter on a
# function nothing calls (vfs_readv), runs to the end.  This script hung
# in all four boots (one per config); a variant that first traced every
# function and then set the filter did not.  So it is not this series'
# doing: the base 6.12.117 on QEMU 7.2 TCG, or the guest.  Not tried yet:
# -smp 1, other functions, a kernel newer than the base.
T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
echo vfs_read > $T/set_ftrace_filter
echo function > $T/current_tracer
echo "enabled: $(cat $T/enabled_functions)"
cat /proc/version > /dev/null
echo "lines: $(grep -vc '^#' $T/trace)"
echo nop > $T/current_tracer
echo "reached the end"
