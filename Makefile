# The lab's entry points.  `make help` lists them.
.PHONY: help deps tree apply export stock kernel-lab kernel-stock kernels \
	selftests check checkpatch ftracetest demo clean distclean

SHELL := /bin/sh
TREE := build/linux

help:
	@echo "make deps          install the Debian packages the lab needs (root)"
	@echo "make demo          build, boot and run the main demo"
	@echo "make check         build and run every test suite in the guest"
	@echo "make kernels       build the lab (base + patches/) and stock kernels"
	@echo "make ftracetest    the whole ftracetest suite on lab and stock, compared"
	@echo "make apply         re-apply patches/ onto a fresh base in $(TREE)"
	@echo "make export        write $(TREE) base..HEAD back into patches/"
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

kernels: kernel-lab kernel-stock

selftests: tree
	@scripts/selftests.sh

check: kernels selftests
	@./lab check

# Longer, steadier runs: make demo RUNS=5 DURATION=30
RUNS ?= 3
DURATION ?= 10
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
