# The lab's entry points.  `make help` lists them.
.PHONY: help deps tree apply export stock upstream kernel-lab kernel-stock kernel-upstream kernel-debug kernels \
	selftests check check-full checkpatch ftracetest demo stress matrix boot-each mutants clean distclean

SHELL := /bin/sh
TREE := build/linux

help:
	@echo "targets:"
	@echo "  make deps          install the Debian packages the lab needs (root)"
	@echo "  make demo          build, boot and run the main demo (RUNS, DURATION, ACCEL)"
	@echo "  make check         the quick tier: the lab kernel, every feature (SUITES, ACCEL, JSON)"
	@echo "  make check-full    the full tier (CI): + stock and debug kernels, stress, matrix, ..."
	@echo "  make kernels       build the lab (base + patches/) and stock kernels"
	@echo "  make kernel-lab    build the lab kernel only; kernel-stock the stock one"
	@echo "  make kernel-upstream  build base + the upstream-bound topics (no v3.9-repro)"
	@echo "  make kernel-debug  build the debug kernel: lab + lockdep, KASAN, UBSAN, ..."
	@echo "  make selftests     build the kselftest binaries the suites run"
	@echo "  make checkpatch    checkpatch --strict on every patch of patches/"
	@echo "  make ftracetest    the whole ftracetest suite on lab and stock, compared (FRESH)"
	@echo "  make tree          unpack Debian's linux-source-6.12 into $(TREE), apply patches/"
	@echo "  make apply         re-apply patches/ onto a fresh base in $(TREE)"
	@echo "  make export        write $(TREE) base..HEAD back into patches/"
	@echo "  make stress        the debug kernel under everything at once (DURATION, default 600 s)"
	@echo "  make matrix        build every commit under the config matrix (scripts/config-matrix.sh)"
	@echo "  make boot-each     build and boot every upstream-bound commit (scripts/boot-each.sh; ~2 min each)"
	@echo "  make mutants       break the kernel one line at a time (tests/mutants/mutants.txt);"
	@echo "                     fails unless the suites kill every mutant (MUTANTS=glob)"
	@echo "  make clean         remove run directories and check logs; distclean all of build/"
	@echo "variables:"
	@echo "  RUNS=3             demo: runs per case"
	@echo "  DURATION=10        demo: seconds per tbench run; stress: seconds of stress"
	@echo "  ACCEL=auto         demo, check: auto (KVM when usable, else TCG), kvm or tcg"
	@echo "  SUITES=...         check: the suites to run, SUITE or SUITE:GLOB (default: the"
	@echo "                     quick tier); only the kernels they need are built"
	@echo "  JSON=FILE          check: also write a KernelCI KCIDB report"
	@echo "  FUNCS=wakeup       stress: what the function tracers trace (wakeup or all)"
	@echo "  FRESH=1            ftracetest: rerun both kernels instead of reusing logs"
	@echo "  KERNEL=upstream    ftracetest: the kernel held to stock (default lab); DEPTH=4"
	@echo "  ALL=1              scripts/config-matrix.sh: every commit, not HEAD only"
	@echo "suites (./lab check --list shows their tests):"
	@./lab check --help | sed -n '/^suites:/,/^$$/p' | sed '1d;/^$$/d'
	@echo "the lab: ./lab run -- CMD, ./lab shell, ./lab check (./lab --help)"

deps:
	@scripts/deps.sh
	@scripts/qemu.sh || echo "deps: QEMU 10 could not be fetched; the lab uses the system's QEMU" >&2

tree: deps
	@scripts/tree.sh init
	@scripts/tree.sh version

apply: tree
	@scripts/tree.sh apply

export:
	@scripts/tree.sh export

stock: tree
	@scripts/tree.sh stock

kernel-lab: tree
	@scripts/kernel.sh lab

kernel-stock: stock
	@scripts/kernel.sh stock

upstream: tree
	@scripts/tree.sh upstream

kernel-upstream: upstream
	@scripts/kernel.sh upstream

kernel-debug: tree
	@scripts/kernel.sh debug

kernels: kernel-lab kernel-stock

selftests: tree
	@scripts/selftests.sh

# Only the kernels the suites need (./lab check --kernels) are built.
# scripts/check.sh installs, unpacks and builds what they need itself,
# overlapping those steps.
check:
	@ACCEL=$(ACCEL) JSON=$(JSON) scripts/check.sh $(SUITES)

check-full:
	@ACCEL=$(ACCEL) JSON=$(JSON) scripts/check.sh --full

# The debug kernel under everything at once (tests/stress/stress.sh).
# make check-full runs it for 60 s.
stress: kernel-debug selftests
	@./lab run --kernel debug --tcg single --topology 2x2 --timeout $$(( $(STRESS_DURATION) + 900 )) -- \
		tests/stress/stress.sh $(STRESS_DURATION) $(FUNCS)

# Every commit of the series under the config matrix (make check-full: HEAD).
matrix: tree
	@ALL=1 scripts/config-matrix.sh

boot-each: tree selftests
	@scripts/boot-each.sh

# Longer, steadier runs: make demo RUNS=5 DURATION=30
RUNS ?= 3
DURATION ?= 10
# make stress DURATION=...: seconds of stress (default 600); FUNCS=all:
# the function tracers trace every function, not the wake-up path.
FUNCS ?= wakeup
STRESS_DURATION = $(if $(filter command line,$(origin DURATION)),$(DURATION),600)
demo: kernels
	@demo/demo.py --runs $(RUNS) --duration $(DURATION) $(if $(ACCEL),--accel $(ACCEL))

# Too slow for CI (a rebuild and a suite run per mutant): run it for each
# kernel issue.  MUTANTS='sis_*' runs only those.
mutants: kernel-lab kernel-stock kernel-upstream selftests
	@scripts/mutants.py $(MUTANTS)

clean:
	rm -rf build/runs build/check

distclean:
	rm -rf build

checkpatch: tree
	@tests/series/checkpatch.sh

# KERNEL=upstream compares the upstream kernel with stock; DEPTH=4 runs
# it at snapshot_depth 4.
ftracetest: kernel-stock $(if $(KERNEL),kernel-$(KERNEL),kernel-lab)
	@scripts/ftracetest-compare.py $(if $(FRESH),--fresh) $(if $(KERNEL),--kernel $(KERNEL)) \
		$(if $(DEPTH),--depth $(DEPTH))
