#!/bin/sh
# In the guest: the wake-up placement selftests where they cannot judge.
# sis_cow_test (upstream-bound) and sis_test (the 3.9 reproduction) must
# skip, saying why, or pass; never fail.  Each runs in a cpuset of one
# CPU, in a cpuset of two CPUs of one LLC, in an isolated cpuset
# partition (CPUs with no sched domains, which cache/index3 would still
# show as one LLC), with a CPU offline (sis_cow_test judges there), and
# with every CPU busy.  Work
# on another LLC's CPUs must not make them skip (without asymmetric CPU
# capacity, select_idle_sibling() looks at the target's LLC only); work
# on the pair's LLC, on CPUs other than those it starts on, must.  The
# suite boots two sockets (--numa 2), two LLCs: CPUs 0-9 and 10-19.
# sis_test must also put back what a killed run left before anything
# that can skip, and take a state file it cannot read for stale.
# Prints KTAP, with the tree's kselftest/ktap_helpers.sh.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/build/linux/tools/testing/selftests/kselftest/ktap_helpers.sh" || exit 2
sel=$top/build/selftests
cg=/sys/fs/cgroup
log=/tmp/skips.log

# run_in GROUP PROG [ARG...]: PROG's exit status, run in cgroup GROUP (""
# for the root), its output in $log
run_in() {
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$cg/$@" > $log 2>&1
}
# expect NAME STATUS WANT [TEXT]: one result.  The harness exits 0, or 4
# (KSFT_SKIP) in some versions, when no case failed.  WANT is "skip"
# (every case skipped, TEXT in a reason) or "pass" (no case skipped).
expect() {
	name=$1 status=$2 want=$3 text=$4 ok=0
	# A run that printed no result judged nothing.
	if { [ "$status" = 0 ] || [ "$status" = 4 ]; } && ! grep -q '^not ok' $log &&
		grep -q '^ok ' $log; then
		case "$want" in
		skip) ! grep '^ok ' $log | grep -qv ' # SKIP ' &&
			grep '^ok .* # SKIP ' $log | grep -q -- "$text" && ok=1 ;;
		pass) ! grep -q '^ok .* # SKIP' $log && ok=1 ;;
		esac
	fi
	if [ $ok = 0 ]; then
		echo "# $name: exit $status, want $want${text:+ ($text)}; its output:"
		sed 's/^/#   /' $log
	fi
	ktap_test_result "$name" [ $ok = 1 ]
}
# both WHAT WANT [TEXT]: each program in the root cgroup, one result each
both() {
	for prog in sis_cow_test sis_test; do
		run_in "" $sel/$prog; s=$?
		expect "$prog $1" $s "$2" "$3"
	done
}
# spin CPU...: a busy loop pinned to each CPU; their pids in $pids
spin() {
	pids=
	for cpu; do
		taskset -c "$cpu" sh -c 'while :; do :; done' & pids="$pids $!"
	done
}
# cpuset NAME CPUS [PARTITION]: a child cgroup of the root with those CPUs
cpuset() {
	mkdir -p "$cg/$1" && echo "$2" > "$cg/$1/cpuset.cpus" || return 1
	[ -z "$3" ] || echo "$3" > "$cg/$1/cpuset.cpus.partition" || return 1
}

ktap_print_header
ktap_set_plan 18
mkdir -p $cg
mount -t cgroup2 none $cg 2>/dev/null
echo +cpuset > $cg/cgroup.subtree_control ||
	ktap_exit_fail_msg "no cpuset controller (CONFIG_CPUSETS)"
pkg() { cat /sys/devices/system/cpu/cpu$1/topology/physical_package_id; }
[ "$(pkg 0)" = "$(pkg 9)" ] && [ "$(pkg 0)" != "$(pkg 10)" ] ||
	ktap_exit_fail_msg "want two sockets of CPUs 0-9 and 10-19: boot with --numa 2"
# Two cores of one LLC: CPUs 0 and 2 (QEMU numbers threads first).
cpuset one 0 && cpuset two 0,2 && cpuset iso 4-7 isolated ||
	ktap_exit_fail_msg "cannot make the cpusets"
grep -q '^isolated$' $cg/iso/cpuset.cpus.partition ||
	ktap_exit_fail_msg "iso is not an isolated partition: $(cat $cg/iso/cpuset.cpus.partition)"

for prog in sis_cow_test sis_test; do
	run_in one $sel/$prog; s=$?
	if [ $prog = sis_cow_test ]; then
		expect "$prog in a cpuset of one CPU skips" $s skip "share an LLC"
	else
		expect "$prog in a cpuset of one CPU skips" $s skip "cpuset or affinity"
	fi
	# sis_cow_test needs two cores of one LLC; sis_test its whole LLC.
	run_in two $sel/$prog; s=$?
	if [ $prog = sis_cow_test ]; then
		expect "$prog in a cpuset of two cores passes" $s pass
	else
		expect "$prog in a cpuset of two cores skips" $s skip "cpuset or affinity"
	fi
	# CPUs of an isolated partition have no sched domains, whatever
	# cache/index3 says.
	run_in iso $sel/$prog; s=$?
	expect "$prog in an isolated cpuset partition skips" $s skip "sched domains"
done

# A run killed under 3.8 left its state file: the next run puts the
# policy back before anything that can skip, so even a run that skips
# (here in the cpuset of one CPU) undoes it.  No process has pid 999999.
policy=/sys/kernel/debug/sched/sis_policy
if [ -w /run ]; then state=/run/sis_test.state; else mkdir -p -m 0700 /tmp/sis_test; state=/tmp/sis_test/sis_test.state; fi
echo 3.8 > $policy && echo "999999 modern 0" > $state && grep -q '\[3.8\]' $policy ||
	ktap_exit_fail_msg "cannot stage a killed run's state ($state, $policy)"
run_in one $sel/sis_test; s=$?
expect "sis_test after a killed run, in a cpuset of one CPU, skips" $s skip "cpuset or affinity"
grep -q '\[modern\]' $policy && [ ! -e $state ]; s=$?
[ $s = 0 ] || echo "# policy now: $(cat $policy); state file: $(cat $state 2>&1)"
ktap_test_result "sis_test puts a killed run's policy back, though it skips" [ $s = 0 ]
echo modern > $policy
rm -f $state
rmdir $cg/one $cg/two $cg/iso

# A state file that cannot be read (a run killed while it wrote one, in
# the versions that wrote it in place) is stale: removed, not a failure.
: > $state
run_in "" $sel/sis_test -t policy_lists_all_with_active_in_brackets; s=$?
expect "sis_test with an empty state file left passes" $s pass
rm -f $state

# CPU 3 offline, as "nosmt" takes siblings down: the domains leave it out,
# so sis_cow_test judges (and passes); sis_test, whose staged idle-core
# cases need every sibling, skips.
echo 0 > /sys/devices/system/cpu/cpu3/online
run_in "" $sel/sis_cow_test; s=$?
expect "sis_cow_test with CPU 3 offline judges and passes" $s pass
run_in "" $sel/sis_test; s=$?
expect "sis_test with CPU 3 offline skips" $s skip "CPUs 3 are offline"
echo 1 > /sys/devices/system/cpu/cpu3/online

# Every CPU busy for the whole run.
spin $(seq 0 $(($(nproc) - 1)))
both "on a busy machine skips" skip "busy"
kill $pids

# Four CPUs of their LLC busy, none of those the pairs start on: both
# skip.  A gate that summed only the pair's own CPUs would judge here.
spin 6 7 8 9
both "with four other CPUs of its LLC busy skips" skip "LLC busy"
# The same load seen from a cpuset of two cores of that LLC: the gate sums
# the whole LLC, whose idle scan covers the CPUs the cpuset leaves out.
cpuset two 0,2 || ktap_exit_fail_msg "cannot make the cpuset"
run_in two $sel/sis_cow_test; s=$?
expect "sis_cow_test in two cores, four other CPUs of its LLC busy, skips" $s skip "LLC busy"
rmdir $cg/two
kill $pids

# Four CPUs of the other LLC busy: the tests judge in this one.
spin 10 11 12 13
both "with another LLC busy passes" pass
kill $pids
ktap_finished
