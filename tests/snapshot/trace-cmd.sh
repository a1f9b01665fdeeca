#!/bin/sh
# In the guest: Debian's trace-cmd drives the snapshot file unchanged.
# Prints KTAP.
T=/sys/kernel/tracing
n=0 fails=0
check() { # name test-function
	n=$((n + 1))
	if "$2"; then echo "ok $n $1"; else echo "not ok $n $1"; fails=$((fails + 1)); fi
}
freed() { grep -q 'Snapshot is freed' $T/snapshot; }

echo "KTAP version 1"
echo "1..5"
echo 0 > $T/snapshot
echo > $T/trace
echo 1 > $T/tracing_on

t1() { echo tc-before > $T/trace_marker; trace-cmd snapshot -s >/dev/null && grep -q tc-before $T/snapshot; }
check snapshot_s_takes_a_snapshot t1
t2() { trace-cmd snapshot 2>/dev/null | grep -q tc-before; }
check snapshot_displays_it t2
t3() { trace-cmd snapshot -r >/dev/null && ! grep -q tc-before $T/snapshot && ! freed; }
check snapshot_r_clears_it t3
t4() {
	echo tc-cpu > $T/trace_marker
	cpu=$(grep -o '\[[0-9]*\]' $T/trace | tail -n 1 | tr -d '[]')
	cpu=$(expr "$cpu" + 0)
	[ -n "$cpu" ] && trace-cmd snapshot -s -c "$cpu" >/dev/null &&
		grep -q tc-cpu $T/per_cpu/cpu$cpu/snapshot
}
check snapshot_c_swaps_one_cpu t4
t5() { trace-cmd snapshot -f >/dev/null && freed; }
check snapshot_f_frees_it t5
[ "$fails" = 0 ]
