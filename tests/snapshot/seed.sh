#!/bin/sh
# In the guest: the ftrace snapshot file against the 3.9 seed's
# documentation (c1043fcda1b9): the state table, the per-CPU files, the
# read format, swap-not-copy, parallel readers and latency tracers.
# Prints KTAP, with the tree's kselftest/ktap_helpers.sh; the last cell of
# each row is asserted, not assumed.
T=/sys/kernel/tracing
top=$(cd "$(dirname "$0")/../.." && pwd)
# The repository, build/linux included, is at the same path in the guest.
. "$top/build/linux/tools/testing/selftests/kselftest/ktap_helpers.sh" || exit 2
cd "$T" || exit 1
PLAN=14

check() { # name test-function
	ktap_test_result "$1" "$2"
}
# Write $2 to file $1 and print the error dd reports, or "ok".
wr() {
	err=$(printf '%s' "$2" | dd of="$1" bs=64 2>&1 >/dev/null | sed -n 's/.*: //p' | grep -v 'records\|bytes' | head -n 1)
	echo "${err:-ok}"
}
freed() { grep -q 'Snapshot is freed' snapshot; }
has() { grep -q "$2" "$1"; }
hasnt() { ! grep -q "$2" "$1"; }
mark() { echo "$1" > trace_marker; }
reset() {
	echo nop > current_tracer
	echo 0 > snapshot
	echo > trace
	echo 1 > tracing_on
}

ktap_print_header
ktap_set_plan $PLAN
reset

# Row "not allocated".
t1() { [ "$(wr snapshot 0)" = ok ] && freed; }
check not_allocated_0_does_nothing t1
t2() { [ "$(wr snapshot 2)" = "Invalid argument" ]; }
check not_allocated_else_is_einval t2
check not_allocated_else_leaves_it_unallocated freed
t4() { [ "$(wr snapshot abc)" = "Invalid argument" ] && freed; }
check not_a_number_is_einval t4
t5() { mark before-snapshot; [ "$(wr snapshot 1)" = ok ] && has snapshot before-snapshot; }
check not_allocated_1_allocs_and_swaps t5

# Swap, not copy: what came before is in snapshot, what came after in trace.
t6() {
	mark after-snapshot
	has snapshot before-snapshot && hasnt snapshot after-snapshot &&
		has trace after-snapshot && hasnt trace before-snapshot
}
check swap_not_copy t6
t7() {
	has snapshot '^# tracer: nop' && has snapshot '^# entries-in-buffer/entries-written: ' &&
		has snapshot '^#           TASK-PID'
}
check read_format_header t7

# Row "allocated".
t8() { [ "$(wr snapshot 1)" = ok ] && has snapshot after-snapshot && hasnt snapshot before-snapshot; }
check allocated_1_swaps t8
t9() {
	[ "$(wr snapshot 2)" = ok ] && has snapshot 'Snapshot is allocated' &&
		hasnt snapshot after-snapshot
}
check allocated_else_clears t9
t10() { [ "$(wr snapshot 0)" = ok ] && freed; }
check allocated_0_frees t10

# Per-CPU files keep 6.12's semantics: 0 is EINVAL, else does nothing
# while unallocated.
t11() {
	[ "$(wr per_cpu/cpu0/snapshot 0)" = "Invalid argument" ] &&
		[ "$(wr per_cpu/cpu0/snapshot 2)" = ok ] && freed
}
check per_cpu_0_einval_else_nothing t11

# Parallel readers while events flow.
echo 1 > snapshot
( i=0; while [ $i -lt 400 ]; do echo "flow $i" > trace_marker; i=$((i + 1)); done ) &
w=$!
bad=0
for i in 1 2 3 4 5 6 7 8; do
	cat snapshot > /dev/null 2>/tmp/snap.err & a=$!
	cat trace > /dev/null 2>/tmp/trace.err & b=$!
	wait $a || bad=1
	wait $b || bad=1
	[ -s /tmp/snap.err ] || [ -s /tmp/trace.err ] && bad=1
done
wait $w
t12() { [ "$bad" = 0 ]; }
check parallel_readers_without_errors t12

# Latency tracers own the spare buffer: EBUSY on write and on read.
# The EBUSY does not depend on what they record: without function-trace
# the six tracers take 1 s here, with it 18 s (TCG, 4 CPUs), since each
# then traces every kernel function (as the latency suite does, ftracetest
# runs them with it).
echo 0 > options/function-trace
lat=0 busy=1
for t in irqsoff preemptoff preemptirqsoff wakeup wakeup_rt wakeup_dl; do
	grep -qw "$t" available_tracers || continue
	lat=$((lat + 1))
	echo "$t" > current_tracer
	w=$(wr snapshot 1)
	r=$(cat snapshot 2>&1 >/dev/null | sed -n 's/.*: //p')
	if [ "$w" != "Device or resource busy" ] || [ "$r" != "Device or resource busy" ]; then
		echo "# $t: write '$w', read '$r'"
		busy=0
	fi
done
echo nop > current_tracer
echo 1 > options/function-trace
t13() { [ "$lat" -gt 0 ] && [ "$busy" = 1 ]; }
check latency_tracers_ebusy_on_write_and_read t13
reset
check reset_leaves_no_snapshot freed
ktap_finished
