#!/bin/sh
# Guest script for what looked like a hang (found 2026-11-26, explained
# the same day):
#   timeout 300 scripts/workbench run benchfg-stock --no-build --quiet \
#       scripts/repro/filter-vfs-read.sh
#
# With the function tracer on and set_ftrace_filter naming vfs_read,
# "grep -c . trace" never ended (patched, benchfg, benchfg-fentry and the
# unpatched base, -smp 1 and 2).  It is not a hang but a feedback loop:
# since 5.10 reading "trace" does not pause tracing (option pause-on-trace,
# off by default), and every read() grep makes of the file is itself a
# traced vfs_read, so the iterator keeps finding new events.  busybox cat
# ends because it copies with sendfile (splice, not vfs_read).  The base
# kernel behaves the same, so nothing in the series is to blame.
#
# This script shows the loop (the reader is still running while the
# buffer grows), then that it ends once tracing stops, and that
# pause-on-trace avoids it.  It exits non-zero if any of that changes.
T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null

entries() { # events written since the buffer was reset, all CPUs
	awk '/^entries:/ { n += $2 } END { print n + 0 }' $T/per_cpu/cpu*/stats
}

echo vfs_read > $T/set_ftrace_filter
echo function > $T/current_tracer
grep -c . $T/trace > /tmp/lines &
reader=$!
before=$(entries)
sleep 3
after=$(entries)
if [ -d /proc/$reader ]; then
	echo "after 3 s the reader still runs; events $before -> $after"
else
	echo "the reader ended on its own: the loop is gone"
	exit 1
fi
echo 0 > $T/tracing_on
wait $reader
echo "with tracing off it ended: $(cat /tmp/lines) lines"

echo nop > $T/current_tracer
echo 1 > $T/tracing_on
echo 1 > $T/options/pause-on-trace
echo function > $T/current_tracer
echo "with pause-on-trace: $(grep -c . $T/trace) lines"
echo nop > $T/current_tracer
echo "reached the end"
