#!/bin/sh
# In the guest: what recording events costs, at default settings (depth 1,
# no snapshot).  bench/event-rate.sh RUNS LOOPS: RUNS rounds of perf bench
# sched pipe -l LOOPS with nothing enabled ("off") and with every sched
# event recording into the top-level buffer ("sched"); one "MODE usecs/op
# events" line per run.
set -eu
runs=$1 loops=$2
t=/sys/kernel/tracing
echo 0 > $t/events/enable
i=0
while [ "$i" -lt "$runs" ]; do
	for mode in off sched; do
		echo > $t/trace
		[ "$mode" = sched ] && echo 1 > $t/events/sched/enable
		us=$(perf bench sched pipe -l "$loops" | awk '/usecs\/op/ { print $1 }')
		echo 0 > $t/events/sched/enable
		n=$(awk '/entries-in-buffer/ { split($3, a, "/"); print a[2] }' $t/trace)
		echo "$mode $us $n"
	done
	i=$((i + 1))
done
