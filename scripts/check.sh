#!/bin/sh
# make check and make check-full: install what is missing, build the
# kernels the suites need, and only those, then run them.
#   scripts/check.sh [--full] [SUITE[:GLOB]...]
# ACCEL and JSON come from make's variables.
#
# On a bare machine the set-up runs mostly on one core, so its steps
# overlap where they can: the packages only the guests need install while
# the tree unpacks and the kernel builds, and the selftests build next to
# the kernel.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

scripts/deps.sh build
mkdir -p build
scripts/deps.sh run --background build/deps-run.log
scripts/tree.sh init
scripts/tree.sh version

kernels=$(./lab check --kernels "$@") || exit 2
scripts/selftests.sh &
selftests=$!
for k in $kernels; do
	case "$k" in
	stock) scripts/tree.sh stock && scripts/kernel.sh stock ;;
	upstream) scripts/tree.sh upstream && scripts/kernel.sh upstream ;;
	lab | debug) scripts/kernel.sh "$k" ;;
	*) echo "check: unknown kernel $k" >&2; exit 2 ;;
	esac
done
wait "$selftests" || { echo "check: the selftests failed to build (above)" >&2; exit 1; }

# The background install: wait for its status, then say what went wrong.
i=0
while [ ! -f build/deps-run.log.rc ] && [ $i -lt 1800 ]; do sleep 1; i=$((i + 1)); done
if [ "$(cat build/deps-run.log.rc 2>/dev/null)" != 0 ]; then
	cat build/deps-run.log >&2
	echo "check: installing the guests' packages failed (above; 'make deps' to retry)" >&2
	exit 1
fi
scripts/qemu.sh || echo "check: QEMU 10 could not be fetched; the lab uses the system's QEMU" >&2
exec ./lab check ${ACCEL:+--accel "$ACCEL"} ${JSON:+--json "$JSON"} "$@"
