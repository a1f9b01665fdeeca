#!/bin/sh
# In the guest: tools/snapshot-recorder saves each snapshot as it is
# taken, woken by poll(). Three file writes and one event trigger, each
# tagged by a trace_marker line. The second and third are taken while the
# recorder is stopped (SIGSTOP), so it must catch them up from the history.
# Prints KTAP, with the tree's kselftest/ktap_helpers.sh.
T=/sys/kernel/tracing
top=$(cd "$(dirname "$0")/../.." && pwd)
# The repository, build/linux included, is at the same path in the guest.
. "$top/build/linux/tools/testing/selftests/kselftest/ktap_helpers.sh" || exit 2
rec=$top/tools/snapshot-recorder
dir=/tmp/recorder
log=/tmp/recorder.log
check() { # name test-function
	ktap_test_result "$1" "$2"
}
# start_recorder args: in the background, logging to $log, and armed
start_recorder() {
	rm -rf $dir
	"$rec" "$@" $dir > $log 2>&1 &
	pid=$!
	wait_log 'armed on ' || echo "# the recorder did not arm in 60 s"
}
# wait_log pattern: until the recorder's log has a line matching it (60 s
# at most), or the recorder has exited
wait_log() {
	i=0
	while ! grep -q "$1" $log; do
		i=$((i + 1))
		[ $i -le 600 ] && kill -0 $pid 2>/dev/null || return 1
		sleep 0.1
	done
}

ktap_print_header
ktap_set_plan 6
echo 4 > $T/snapshot_depth
echo 1 > $T/snapshot
start_recorder -n 4 -t 30
echo "rec-mark-1" > $T/trace_marker
echo 1 > $T/snapshot
wait_log '^snapshot #' || echo "# the recorder did not save the first snapshot in 60 s"
kill -STOP $pid
for i in 2 3; do
	echo "rec-mark-$i" > $T/trace_marker
	echo 1 > $T/snapshot
done
kill -CONT $pid
# A trigger takes the fourth: one fork, one snapshot, nothing skipped.
echo "rec-mark-4" > $T/trace_marker
echo "snapshot:1 if parent_pid == $$" > $T/events/sched/sched_process_fork/trigger
/bin/true
wait $pid
status=$?
sed 's/^/# /' $log

t1() { [ "$status" = 0 ] && [ "$(ls $dir | wc -l)" = 4 ]; }
check recorder_saved_four_snapshots t1
t2() {
	for i in 1 2 3 4; do
		[ "$(grep -l "rec-mark-$i\$" $dir/* | wc -l)" = 1 ] || return 1
	done
}
check each_snapshot_holds_its_own_marker t2
t3() { [ "$(grep -c ' by file on CPU ' $log)" = 3 ]; }
check three_were_taken_by_the_file t3
t4() { grep -q 'rec-mark-4' "$(grep -l ' by trigger on CPU ' $dir/*)"; }
check the_fourth_was_taken_by_the_trigger t4
# The one taken first while stopped is only in snapshots/1 on wake-up.
t5() { grep -q "rec-mark-2\$" $dir/* && grep -q '(from snapshots/1)$' $log; }
check snapshots_taken_while_stopped_are_caught_up t5
echo '!snapshot' > $T/events/sched/sched_process_fork/trigger

# Depth 2, three snapshots while stopped: the first of them is gone.
echo 2 > $T/snapshot_depth
start_recorder -n 2 -t 30
kill -STOP $pid
for i in 5 6 7; do
	echo "rec-mark-$i" > $T/trace_marker
	echo 1 > $T/snapshot
done
kill -CONT $pid
wait $pid
status=$?
sed 's/^/# /' $log
t6() {
	[ "$status" = 0 ] && [ "$(ls $dir | wc -l)" = 2 ] &&
		grep -q 'missed 1 snapshot(s) .*snapshot_depth 2' $log &&
		! grep -q "rec-mark-5\$" $dir/*
}
check says_which_snapshots_left_the_history t6

echo 0 > $T/snapshot
echo 1 > $T/snapshot_depth
ktap_finished
