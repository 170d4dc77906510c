# SPDX-License-Identifier: GPL-2.0
#
# Entry points of the project.  Each one installs what it needs first
# (scripts/install-deps) and can run again without harm.
#
#   make demo     the paper's example on the patched kernel, with ftd
#   make demo-boot  a boot from a root disk traced from start_kernel(),
#                 with ftd boot's holds, counts and per-initcall rows
#   make check    every test: series, build, guest tests, ftracetest, ftd,
#                 and on arm64 and x86_64 KUnit, thresh-tree and the toggles
#   make check-arches  all the series' tests of arm64 and x86_64:
#                 KUnit in the guest and through kunit.py, ftracetest or
#                 the project's .tc files, the early boot buffer on
#                 fgboot-arm64
#   make series   export each topic series to out/series/NN-topic/
#   make bench    run the benchmarks (long: about an hour; see README)
#   make matrix   build and test the preempt/irq toggles in each config
#                 that changes their code (long: five kernel builds)
#   make clean    remove out/ (builds in .cache/ are kept)
#   make distclean  also remove .cache/ (the base tree and all builds)

WORKBENCH := scripts/workbench

.PHONY: all deps demo demo-boot check check-arches series bench matrix clean distclean

all: check

deps:
	scripts/install-deps

demo: deps
	$(WORKBENCH) demo

demo-boot: deps
	$(WORKBENCH) demo-boot

# Both install the arm64 and x86_64 compilers and QEMUs besides ARM32's.
check:
	scripts/install-deps --arch arm64 --arch x86_64
	scripts/check

check-arches:
	scripts/install-deps --arch arm64 --arch x86_64
	scripts/check --arches

# Only git, perl and the base source: no compiler, QEMU or guest needed.
series:
	scripts/install-deps --series
	$(WORKBENCH) series --check --out out/series

# The boot benchmark runs on arm64 too, whose compiler and QEMU it installs.
bench: deps
	scripts/install-deps --arch arm64
	scripts/bench/fgraph-overhead/run.py --thresh --keep out/bench/fgraph-overhead
	scripts/bench/fgraph-percall/run.py --profile graph --keep out/bench/fgraph-percall
	scripts/bench/thresh-coverage/run.py --keep out/bench/thresh-coverage
	scripts/bench/preemptirq/run.py --keep out/bench/preemptirq
	scripts/bench/boot/run.py --keep out/bench/boot
	scripts/bench/boot/run.py --arch arm64 --keep out/bench/boot-arm64
	python3 tools/tracing/ftd/bench/bench.py

# The toggles alone (ARM, Thumb-2), and with each of the options that take
# over one of their paths: the irqs-off tracer, the preemption-off tracer,
# lockdep.  make check covers them with both latency tracers (patched).
PREEMPTIRQ_MATRIX := benchpi-toggle pi-toggle-thumb2 pi-toggle-irqsoff \
	pi-toggle-preemptoff pi-toggle-lockdep

matrix: deps
	$(WORKBENCH) matrix $(PREEMPTIRQ_MATRIX) --test 'preemptirq/*' \
		--test 'event/toplevel-enable.tc'

clean:
	rm -rf out

distclean: clean
	rm -rf .cache
