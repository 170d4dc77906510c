#!/bin/sh
# Guest side of entry_paths.py: record the irq_disable and irq_enable
# events during ROUNDS rounds of a small file-system workload (page
# faults, system calls, timer interrupts) and leave the trace in
# /out/trace.txt, with the ring buffer's overrun in /out/result.txt.

ROUNDS=${ROUNDS:-1}
T=/sys/kernel/tracing
E=$T/events/preemptirq
mkdir -p /out
if [ ! -d $E/irq_disable ]; then
	echo "unsupported" > /out/result.txt
	exit 0
fi
echo 32768 > $T/buffer_size_kb
echo > $T/trace
echo 1 > $E/irq_disable/enable
echo 1 > $E/irq_enable/enable
i=0
while [ $i -lt "$ROUNDS" ]; do
	find /sys > /dev/null
	ls -lR /proc/self > /dev/null 2>&1
	i=$((i + 1))
done
echo 0 > $E/irq_disable/enable
echo 0 > $E/irq_enable/enable
cat $T/trace > /out/trace.txt
cat $T/per_cpu/cpu*/stats | awk '/^overrun/ { o += $2 } END { print "overrun " o }' > /out/result.txt
