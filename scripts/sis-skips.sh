#!/bin/sh
# In the guest (./lab run --kernel lab -- scripts/sis-skips.sh [POLICY] [LOOPS]):
# how many of a ping-pong pair's wake-ups reach select_idle_sibling().
# perf bench sched pipe runs LOOPS round trips between two tasks; every
# wake-up of either fires sched_wakeup, and those that are placed fire
# sched_select_idle_sibling too.  The others skip placement: the wakee was
# still queued on its CPU (about to sleep, or a delayed dequeue), and
# try_to_wake_up() only marked it running again (ttwu_runnable()).
set -eu
policy=${1:-3.8}
loops=${2:-20000}
t=/sys/kernel/tracing
inst=$t/instances/sis_skips.$$
old=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/debug/sched/sis_policy)
mkdir "$inst"
trap 'echo 0 > "$inst/tracing_on"; rmdir "$inst"; echo "$old" > /sys/kernel/debug/sched/sis_policy' EXIT
echo "$policy" > /sys/kernel/debug/sched/sis_policy
echo 8192 > "$inst/buffer_size_kb"
for e in sched_wakeup sched_select_idle_sibling; do
	echo 'comm == "sched-pipe"' > "$inst/events/sched/$e/filter"
	echo 1 > "$inst/events/sched/$e/enable"
done
perf bench sched pipe -l "$loops" | grep -E "Total time|usecs/op" | sed 's/^ */# /'
echo 0 > "$inst/tracing_on"
wakeups=$(grep -c " sched_wakeup: " "$inst/trace" || true)
placed=$(grep -c " sched_select_idle_sibling: " "$inst/trace" || true)
moved=$(grep " sched_select_idle_sibling: " "$inst/trace" | awk '{ for (i = 1; i <= NF; i++) { if ($i ~ /^prev_cpu=/) p = substr($i, 10); if ($i ~ /^dest_cpu=/) d = substr($i, 10) } if (p != d) n++ } END { print n + 0 }')
lost=$(grep -o "LOST [0-9]* EVENTS" "$inst/trace" | awk '{ n += $2 } END { print n + 0 }')
echo "policy $policy: $wakeups wake-ups, $placed placed by select_idle_sibling() ($moved to another CPU), $((wakeups - placed)) skipped placement; $lost events lost"
