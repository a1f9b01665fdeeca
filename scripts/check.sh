#!/bin/sh
# make check and make check-full: build the kernels the suites need, and
# only those, then run them.
#   scripts/check.sh [--full] [SUITE[:GLOB]...]
# ACCEL and JSON come from make's variables.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

kernels=$(./lab check --kernels "$@") || exit 2
for k in $kernels; do
	case "$k" in
	stock) scripts/tree.sh stock && scripts/kernel.sh stock ;;
	lab | debug) scripts/kernel.sh "$k" ;;
	*) echo "check: unknown kernel $k" >&2; exit 2 ;;
	esac
done
exec ./lab check ${ACCEL:+--accel "$ACCEL"} ${JSON:+--json "$JSON"} "$@"
