#!/bin/sh
# In the guest: Debian's trace-cmd drives the snapshot file unchanged.
# One documented difference: with no snapshot allocated, "trace-cmd
# snapshot -r" (and -r -s) writes 2, which the seed's state table makes
# EINVAL; the lab kernel follows the seed, stock 6.12 accepts it.
# Prints KTAP, with the tree's kselftest/ktap_helpers.sh.
T=/sys/kernel/tracing
top=$(cd "$(dirname "$0")/../.." && pwd)
# The repository, build/linux included, is at the same path in the guest.
. "$top/build/linux/tools/testing/selftests/kselftest/ktap_helpers.sh" || exit 2
check() { # name test-function
	ktap_test_result "$1" "$2"
}
freed() { grep -q 'Snapshot is freed' $T/snapshot; }

ktap_print_header
ktap_set_plan 7
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
# -r on a freed snapshot: "Invalid argument" on lab (the seed), 0 on stock
reset_freed() { # trace-cmd args
	echo 0 > $T/snapshot
	out=$(trace-cmd snapshot "$@" 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# trace-cmd: /'
	case $(uname -r) in
	*-stock) [ $rc = 0 ] ;;
	*) [ $rc != 0 ] && echo "$out" | grep -q 'Invalid argument' && freed ;;
	esac
}
t6() { reset_freed -r; }
check snapshot_r_when_freed_is_einval_on_lab_and_accepted_on_stock t6
t7() { reset_freed -r -s; }
check snapshot_r_s_when_freed_is_einval_on_lab_and_accepted_on_stock t7
ktap_finished
