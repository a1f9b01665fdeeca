# The lab's entry points.  `make help` lists them.
.PHONY: help deps tree apply export stock kernel-lab kernel-stock kernel-debug kernels \
	selftests check checkpatch ftracetest demo stress matrix clean distclean

SHELL := /bin/sh
TREE := build/linux

help:
	@echo "make deps          install the Debian packages the lab needs (root)"
	@echo "make demo          build, boot and run the main demo"
	@echo "make check         build and run every test suite in the guest"
	@echo "make kernels       build the lab (base + patches/) and stock kernels"
	@echo "make kernel-debug  build the debug kernel: lab + lockdep, KASAN, UBSAN, ..."
	@echo "make ftracetest    the whole ftracetest suite on lab and stock, compared"
	@echo "make apply         re-apply patches/ onto a fresh base in $(TREE)"
	@echo "make export        write $(TREE) base..HEAD back into patches/"
	@echo "make stress        the debug kernel under everything at once, DURATION=600 s"
	@echo "make matrix        build every commit under the config matrix (scripts/config-matrix.sh)"
	@echo "./lab run -- CMD   run CMD in the lab kernel (./lab --help)"

deps:
	@scripts/deps.sh

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

kernel-debug: tree
	@scripts/kernel.sh debug

kernels: kernel-lab kernel-stock

selftests: tree
	@scripts/selftests.sh

check: kernels kernel-debug selftests
	@./lab check

# The debug kernel under everything at once (tests/stress/stress.sh).
# make check runs it for 60 s.
stress: kernel-debug selftests
	@./lab run --kernel debug --tcg single --topology 2x2 --timeout $$(( $(STRESS_DURATION) + 900 )) -- \
		tests/stress/stress.sh $(STRESS_DURATION)

# Every commit of the series under the config matrix (make check: HEAD).
matrix: tree
	@ALL=1 scripts/config-matrix.sh

# Longer, steadier runs: make demo RUNS=5 DURATION=30
RUNS ?= 3
DURATION ?= 10
# make stress DURATION=...: seconds of stress (default 600).
STRESS_DURATION = $(if $(filter command line,$(origin DURATION)),$(DURATION),600)
demo: kernels
	@demo/demo.py --runs $(RUNS) --duration $(DURATION)

clean:
	rm -rf build/runs build/check

distclean:
	rm -rf build

checkpatch: tree
	@tests/series/checkpatch.sh

ftracetest: kernels
	@scripts/ftracetest-compare.py $(if $(FRESH),--fresh)
