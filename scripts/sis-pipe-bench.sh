#!/bin/sh
# In the guest: what sched_sis_decision_tp costs a ping-pong pair.
#   scripts/sis-pipe-bench.sh RUNS LOOPS MODE...
# Each MODE in turn, RUNS rounds: "none" (nothing attached, the default
# path), "probe" (a tracepoint probe event on sched_sis_decision_tp,
# enabled in an instance of its own, so the traced copy runs).  Prints
# one "MODE usecs/op" line per run of perf bench sched pipe -l LOOPS.
set -eu
runs=$1 loops=$2
shift 2
t=/sys/kernel/tracing
g=sis_bench_$$
cleanup() {
	[ -d "$t/instances/$g" ] && { echo 0 > "$t/instances/$g/events/$g/enable"; rmdir "$t/instances/$g"; }
	grep -q "^t:$g/" "$t/dynamic_events" 2>/dev/null && echo "-:$g/d" >> "$t/dynamic_events"
	return 0
}
trap cleanup EXIT
attach() {
	echo "t:$g/d sched_sis_decision_tp prev=\$arg2:s32 target=\$arg3:s32 dest=\$arg4:s32 reason=\$arg5:u32" >> "$t/dynamic_events"
	mkdir "$t/instances/$g"
	echo 1 > "$t/instances/$g/events/$g/enable"
}
i=0
while [ "$i" -lt "$runs" ]; do
	for mode in "$@"; do
		[ "$mode" = probe ] && attach
		us=$(perf bench sched pipe -l "$loops" | awk '/usecs\/op/ { print $1 }')
		[ "$mode" = probe ] && cleanup
		echo "$mode $us"
	done
	i=$((i + 1))
done
