#!/bin/sh
# In the guest: check that it sees one socket of CORES cores with THREADS
# threads each, SMT siblings paired, and one LLC over the whole package.
# Usage: topology.sh CORES THREADS   (prints KTAP, with the tree's
# kselftest/ktap_helpers.sh)
cores=$1 threads=$2
last=$((cores * threads - 1))
cpu=/sys/devices/system/cpu
top=$(cd "$(dirname "$0")/../.." && pwd)
# The repository, build/linux included, is at the same path in the guest.
. "$top/build/linux/tools/testing/selftests/kselftest/ktap_helpers.sh" || exit 2

check() { # name expected actual
	if [ "$2" = "$3" ]; then
		ktap_test_pass "$1"
	else
		echo "# $1: expected '$2', got '$3'"
		ktap_test_fail "$1"
	fi
}

ktap_print_header
ktap_set_plan 4
check online_cpus "0-$last" "$(cat $cpu/online)"
siblings=0
[ "$threads" -gt 1 ] && siblings="0-$((threads - 1))"
check cpu0_smt_siblings "$siblings" "$(cat $cpu/cpu0/topology/thread_siblings_list)"
check one_package "0-$last" "$(cat $cpu/cpu$last/topology/package_cpus_list)"
# The LLC is the highest cache level; it is shared by the whole package.
llc=$(ls -d $cpu/cpu$last/cache/index* | tail -n 1)
check llc_shared_by_package "0-$last" "$(cat "$llc/shared_cpu_list")"
ktap_finished
