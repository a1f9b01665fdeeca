#!/bin/sh
# Build the in-guest test programs from the lab tree into build/selftests/.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/build/linux/tools/testing/selftests
out=$top/build/selftests
mkdir -p "$out"
build() { # name source
	if [ ! -x "$out/$1" ] || [ "$src/$2" -nt "$out/$1" ]; then
		echo "selftests: building $1"
		gcc -O2 -Wall -o "$out/$1" "$src/$2"
	fi
}
build sis_test sched/sis_test.c
# Project tests that use the tree's kselftest harness.
if [ ! -x "$out/snapshot_history" ] || [ "$top/tests/snapshot/history.c" -nt "$out/snapshot_history" ]; then
	echo "selftests: building snapshot_history"
	gcc -O2 -Wall -I"$src" -o "$out/snapshot_history" "$top/tests/snapshot/history.c"
fi
if [ ! -x "$out/badinput_sched" ] || [ "$top/tests/badinput/sched.c" -nt "$out/badinput_sched" ]; then
	echo "selftests: building badinput_sched"
	gcc -O2 -Wall -I"$src" -o "$out/badinput_sched" "$top/tests/badinput/sched.c" -lpthread
fi
