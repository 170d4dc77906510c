# SPDX-License-Identifier: GPL-2.0
#
# Entry points of the project.  Each one installs what it needs first
# (scripts/install-deps) and can run again without harm.
#
#   make demo     the paper's example on the patched kernel, with ftd
#   make check    every test: series, build, guest tests, ftracetest, ftd
#   make series   export the upstream-style series to out/series
#   make bench    (see README: benchmarks of the kernel issues)
#   make clean    remove out/ (builds in .cache/ are kept)
#   make distclean  also remove .cache/ (the base tree and all builds)

WORKBENCH := scripts/workbench

.PHONY: all deps demo check series clean distclean

all: check

deps:
	scripts/install-deps

demo: deps
	$(WORKBENCH) demo

check: deps
	scripts/check

series: deps
	$(WORKBENCH) series --check --out out/series

clean:
	rm -rf out

distclean: clean
	rm -rf .cache
