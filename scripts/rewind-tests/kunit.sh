#!/bin/sh
# Guest script: run the ring buffer KUnit suites (modules
# ring_buffer_rewind_kunit and ring_buffer_guarded_kunit) and the kprobes
# one (test_kprobes: kprobes, kretprobes on rethook, stack traces through
# its trampoline) and fail unless every suite passes and the kernel log
# holds no warning, BUG or KASAN report.
#   scripts/workbench run CONFIG [--smp N] --out DIR scripts/rewind-tests/kunit.sh
# The stress suite runs for STRESS_SECONDS (default 10); set it with
#   --append 'ring_buffer_rewind_kunit.stress_seconds=N'
# The KTAP output is left in /out/kunit-dmesg.txt (make check counts
# its test cases).
mkdir -p /out
dmesg -c > /dev/null
st=0
mods="ring_buffer_rewind_kunit ring_buffer_guarded_kunit"
suites="ring_buffer_rewind ring_buffer_rewind_stress ring_buffer_guarded"
# The kprobes suite where the config builds it (patched, not debug)
if find /lib/modules/ -name 'test_kprobes.ko*' | grep -q .; then
	mods="$mods test_kprobes"
	suites="$suites kprobes_test"
fi
for mod in $mods; do
	modprobe $mod || { echo "modprobe $mod failed"; st=1; }
done
dmesg > /out/kunit-dmesg.txt
cat /out/kunit-dmesg.txt
for suite in $suites; do
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
