#!/bin/sh
# In the guest: tools/snapshot-recorder saves each snapshot as it is
# taken, woken by poll(): three file writes and one event trigger, each
# tagged by a trace_marker line. Prints KTAP.
T=/sys/kernel/tracing
rec=$(dirname "$0")/../../tools/snapshot-recorder
dir=/tmp/recorder
n=0 fails=0
check() { # name test-function
	n=$((n + 1))
	if "$2"; then echo "ok $n $1"; else echo "not ok $n $1"; fails=$((fails + 1)); fi
}

echo "KTAP version 1"
echo "1..4"
echo 4 > $T/snapshot_depth
echo 1 > $T/snapshot
rm -rf $dir
"$rec" -n 4 -t 30 $dir > /tmp/recorder.log 2>&1 &
pid=$!
sleep 2
for i in 1 2 3; do
	echo "rec-mark-$i" > $T/trace_marker
	echo 1 > $T/snapshot
	sleep 1
done
echo "rec-mark-4" > $T/trace_marker
echo "snapshot:1 if parent_pid == $$" > $T/events/sched/sched_process_fork/trigger
sleep 1
/bin/true
wait $pid
status=$?
sed 's/^/# /' /tmp/recorder.log

t1() { [ "$status" = 0 ] && [ "$(ls $dir | wc -l)" = 4 ]; }
check recorder_saved_four_snapshots t1
t2() {
	for i in 1 2 3 4; do
		[ "$(grep -l "rec-mark-$i\$" $dir/* | wc -l)" = 1 ] || return 1
	done
}
check each_snapshot_holds_its_own_marker t2
t3() { [ "$(grep -c ' by file on CPU ' /tmp/recorder.log)" = 3 ]; }
check three_were_taken_by_the_file t3
t4() { grep -q 'rec-mark-4' "$(grep -l ' by trigger on CPU ' $dir/*)"; }
check the_fourth_was_taken_by_the_trigger t4

echo '!snapshot' > $T/events/sched/sched_process_fork/trigger
echo 0 > $T/snapshot
echo 1 > $T/snapshot_depth
[ $fails = 0 ]
