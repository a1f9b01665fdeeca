#!/bin/sh
# Build the in-guest test programs from the lab tree into build/selftests/.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/build/linux/tools/testing/selftests
out=$top/build/selftests
mkdir -p "$out"
# The series' sched selftest, through the tree's kselftest Makefile (so
# that patch 0005's Makefile hunk is what builds it).
# sis_cow_test (upstream-bound) and sis_test (the 3.9 reproduction).
stale=
for f in sis_test.c sis_cow_test.c sis_llc.h Makefile; do
	[ -f "$src/sched/$f" ] && [ "$src/sched/$f" -nt "$out/sis_test" ] && stale=1
done
if [ ! -x "$out/sis_test" ] || [ ! -x "$out/sis_cow_test" ] || [ -n "$stale" ]; then
	echo "selftests: building sis_test, sis_cow_test (make -C tools/testing/selftests TARGETS=sched)"
	make -s -C "$src" TARGETS=sched O="$out/kselftest-build" >/dev/null
	cp "$out/kselftest-build/kselftest/sched/sis_test" "$out/sis_test"
	cp "$out/kselftest-build/kselftest/sched/sis_cow_test" "$out/sis_cow_test"
	touch "$out/sis_test"
fi
# Project tests that use the tree's kselftest harness.
if [ ! -x "$out/llc_gates" ] || [ "$top/tests/sched/llc_gates.c" -nt "$out/llc_gates" ] ||
   [ "$src/sched/sis_llc.h" -nt "$out/llc_gates" ]; then
	echo "selftests: building llc_gates"
	gcc -O2 -Wall -Wno-unused-function -I"$src" -o "$out/llc_gates" "$top/tests/sched/llc_gates.c"
fi
# sis_tprobe checks sched_sis_decision_tp's reason values against the
# upstream-bound series' enum sis_reason: include/linux/sched/sis.h as
# patches/sched creates it (the lab tree's has the 3.8/3.9 idle_group too).
sis_h=$out/sis_upstream.h
for p in "$top"/patches/sched/0*.patch; do
	awk '/^\+\+\+ b\/include\/linux\/sched\/sis.h$/ { on = 1; next }
	     /^diff --git / { on = 0 }
	     on && /^\+/ { print substr($0, 2) }' "$p"
done > "$sis_h.new"
grep -q "NR_SIS_REASONS" "$sis_h.new" || { echo "selftests: no enum sis_reason in patches/sched" >&2; exit 1; }
cmp -s "$sis_h.new" "$sis_h" && rm "$sis_h.new" || mv "$sis_h.new" "$sis_h"
if [ ! -x "$out/sis_tprobe" ] || [ "$top/tests/sched/sis_tprobe.c" -nt "$out/sis_tprobe" ] ||
   [ "$src/sched/sis_llc.h" -nt "$out/sis_tprobe" ] || [ "$sis_h" -nt "$out/sis_tprobe" ]; then
	echo "selftests: building sis_tprobe"
	gcc -O2 -Wall -Wno-unused-function -I"$src" -I"$src/sched" -include "$sis_h" \
		-o "$out/sis_tprobe" "$top/tests/sched/sis_tprobe.c"
fi
if [ ! -x "$out/snapshot_history" ] || [ "$top/tests/snapshot/history.c" -nt "$out/snapshot_history" ] ||
   [ "$top/tests/snapshot/task_state.h" -nt "$out/snapshot_history" ] ||
   [ "$top/tests/snapshot/tracefs_write.h" -nt "$out/snapshot_history" ]; then
	echo "selftests: building snapshot_history"
	gcc -O2 -Wall -I"$src" -o "$out/snapshot_history" "$top/tests/snapshot/history.c"
fi
if [ ! -x "$out/snapshot_lifetime" ] || [ "$top/tests/snapshot/lifetime.c" -nt "$out/snapshot_lifetime" ] ||
   [ "$top/tests/snapshot/task_state.h" -nt "$out/snapshot_lifetime" ] ||
   [ "$top/tests/snapshot/tracefs_write.h" -nt "$out/snapshot_lifetime" ]; then
	echo "selftests: building snapshot_lifetime"
	gcc -O2 -Wall -I"$src" -o "$out/snapshot_lifetime" "$top/tests/snapshot/lifetime.c"
fi
if [ ! -x "$out/snapshot_latency" ] || [ "$top/tests/snapshot/latency.c" -nt "$out/snapshot_latency" ] ||
   [ "$top/tests/snapshot/tracefs_write.h" -nt "$out/snapshot_latency" ]; then
	echo "selftests: building snapshot_latency"
	gcc -O2 -Wall -I"$src" -o "$out/snapshot_latency" "$top/tests/snapshot/latency.c"
fi
if [ ! -x "$out/badinput_sched" ] || [ "$top/tests/badinput/sched.c" -nt "$out/badinput_sched" ]; then
	echo "selftests: building badinput_sched"
	gcc -O2 -Wall -I"$src" -o "$out/badinput_sched" "$top/tests/badinput/sched.c" -lpthread
fi
if [ ! -x "$out/badinput_snapshot" ] || [ "$top/tests/badinput/snapshot.c" -nt "$out/badinput_snapshot" ] ||
   [ "$top/tests/snapshot/tracefs_write.h" -nt "$out/badinput_snapshot" ]; then
	echo "selftests: building badinput_snapshot"
	gcc -O2 -Wall -I"$src" -o "$out/badinput_snapshot" "$top/tests/badinput/snapshot.c"
fi
