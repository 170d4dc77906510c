#!/bin/sh
# Guest script: run the ring_buffer_rewind KUnit suites (module
# ring_buffer_rewind_kunit) and fail unless both pass and the kernel log
# holds no warning, BUG or KASAN report.
#   scripts/workbench run CONFIG [--smp N] --out DIR scripts/rewind-tests/kunit.sh
# The stress suite runs for STRESS_SECONDS (default 10); set it with
#   --append 'ring_buffer_rewind_kunit.stress_seconds=N'
mkdir -p /out
dmesg -c > /dev/null
modprobe ring_buffer_rewind_kunit || { echo "modprobe failed"; exit 1; }
dmesg > /out/kunit-dmesg.txt
cat /out/kunit-dmesg.txt
st=0
for suite in ring_buffer_rewind ring_buffer_rewind_stress; do
	if grep -q "^[[:space:]]*ok [0-9]* $suite\$" /out/kunit-dmesg.txt; then
		echo "PASS: $suite"
	else
		echo "FAIL: $suite"
		st=1
	fi
done
if grep -q 'not ok' /out/kunit-dmesg.txt; then
	echo "FAIL: failed test cases:"
	grep 'not ok' /out/kunit-dmesg.txt
	st=1
fi
if grep -E -q 'WARNING:|BUG:|KASAN|lockdep|possible recursive|circular locking' \
	/out/kunit-dmesg.txt; then
	echo "FAIL: kernel reports in the log"
	st=1
fi
grep -E 'task cycles|rewinds since|checks:' /out/kunit-dmesg.txt
exit $st
