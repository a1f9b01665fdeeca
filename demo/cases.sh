#!/bin/sh
# In the guest: run the bouncing-cow cases and leave raw results in
# $LAB_OUT/raw/ for demo/demo.py.  Usage: cases.sh KERNEL RUNS DURATION CASES...
#   a case is a placement policy (3.8, 3.9, modern), "pinned" (modern, the
#   pair pinned to CPUs 2 and 4) or "stock" (a kernel without sis_policy).
# Each run of each case: tbench with 1 client against tbench_srv on
# loopback, then a pipe ping-pong (perf bench sched pipe).  Runs are
# interleaved: run 1 of every case, then run 2, ...
# Pinned, tbench_srv runs on CPU 2 and tbench on CPU 4; perf bench starts
# on CPU 2 and its child, the other end of the pipe, is moved to CPU 4 as
# soon as it exists (perf has no option for it), so both pairs run on two
# CPUs.  The guest's topology and the settings go to $LAB_OUT/raw/setup.
set -u
kernel=$1 runs=$2 duration=$3
shift 3
T=/sys/kernel/tracing
POLICY=/sys/kernel/debug/sched/sis_policy
STATS=/sys/kernel/debug/sched/sis_stats
raw=$LAB_OUT/raw
mkdir -p "$raw"
total=$((runs * $#)) done=0 start=$(date +%s)
loops=$((duration * 1000))

say() { echo "demo[$kernel]: $*" >&2; }

# Trace the pair's context switches; the snapshot at the end of a run
# keeps its last moments while tracing goes on.
# tbench needs alarm(): without CONFIG_POSIX_TIMERS it hangs silently.
if [ -r /proc/config.gz ] && ! zcat /proc/config.gz | grep -q '^CONFIG_POSIX_TIMERS=y'; then
	say "this kernel lacks CONFIG_POSIX_TIMERS: alarm() is ENOSYS and tbench would hang; add it to config/lab.config"
	exit 1
fi

buffer_kb=2048
echo 0 > $T/tracing_on
echo $buffer_kb > $T/buffer_size_kb
{
	echo "cpus $(nproc)"
	echo "threads_per_core $(tr ',-' '\n\n' < /sys/devices/system/cpu/cpu0/topology/thread_siblings_list | wc -l)"
	echo "llc_cpus $(cat /sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list 2>/dev/null || echo -)"
	echo "buffer_size_kb $buffer_kb"
	echo "pipe_loops $loops"
	echo "kernel $(uname -r)"
} > "$raw/setup.$kernel"
echo 'next_comm ~ "tbench*" || prev_comm ~ "tbench*"' > $T/events/sched/sched_switch/filter
echo 1 > $T/events/sched/sched_switch/enable
echo 1 > /proc/sys/kernel/sched_schedstats
cd /tmp || exit 1

run_case() { # case run
	c=$1 r=$2 out=$raw/$1.$2
	srv_cpu= cli_cpu=
	case $c in
	pinned) srv_cpu="taskset -c 2" cli_cpu="taskset -c 4"; policy=modern ;;
	stock) policy= ;;
	*) policy=$c ;;
	esac
	if [ -n "$policy" ]; then
		echo "$policy" > $POLICY || { say "cannot set policy $policy"; return 1; }
	fi
	[ -w $STATS ] && echo 0 > $STATS
	echo > $T/trace
	echo 1 > $T/tracing_on

	$srv_cpu tbench_srv > /dev/null 2>&1 &
	srv=$!
	sleep 1
	$cli_cpu tbench -t "$duration" -c /usr/share/dbench/client.txt 1 127.0.0.1 \
		> "$out.tbench" 2>&1 &
	cli=$!
	# The picture: snapshot the last moments of the run, tracing on.
	# tbench prints a line a second once its client runs; wait for
	# the next-to-last, however long the start took on a loaded host.
	last=$((duration > 2 ? duration - 1 : 1))
	until grep -Eq "execute +$last sec" "$out.tbench" || ! kill -0 $cli 2>/dev/null; do
		sleep 0.2
	done
	echo 1 > $T/snapshot
	ok=1
	if ! timeout $((duration + 60)) sh -c "while kill -0 $cli 2>/dev/null; do sleep 1; done"; then
		say "tbench did not finish within $((duration + 60))s (case $c, run $r)"
		kill -9 $cli
		ok=0
	fi
	wait $cli
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
	echo 0 > $T/tracing_on
	cat $T/snapshot > "$out.snapshot"
	echo 0 > $T/snapshot
	[ -r $STATS ] && cat $STATS > "$out.tbench.sis"

	[ -w $STATS ] && echo 0 > $STATS
	if [ "$c" = pinned ]; then
		pipe_pinned "$out.pipe"
	else
		perf bench sched pipe -l $loops > "$out.pipe" 2>&1
	fi
	[ -r $STATS ] && cat $STATS > "$out.pipe.sis"
	[ "$ok" = 1 ] && grep -q 'Throughput' "$out.tbench"
}

# perf bench sched pipe with its two ends on CPUs 2 and 4.
pipe_pinned() {
	taskset -c 2 perf bench sched pipe -l $loops > "$1" 2>&1 &
	p=$!
	child=
	while [ -z "$child" ] && kill -0 $p 2>/dev/null; do
		child=$(pgrep -P $p)
	done
	[ -n "$child" ] && taskset -p -c 4 "$child" > /dev/null
	wait $p
}

fail=0
for r in $(seq "$runs"); do
	for c in "$@"; do
		done=$((done + 1))
		# A guess before the first case ends; then what cases really took.
		now=$(date +%s)
		per=$((duration * 3))
		[ "$done" -gt 1 ] && per=$(( (now - start) / (done - 1) ))
		left=$(( (total - done + 1) * per ))
		say "run $r/$runs, case $c ($done/$total, about ${left}s left)"
		run_case "$c" "$r" || { say "case $c run $r produced no tbench throughput"; fail=1; }
	done
done
uname -r > "$raw/kernel.$kernel"
exit $fail
