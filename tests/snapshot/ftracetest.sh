#!/bin/sh
# In the guest: the tree's own ftracetest cases for snapshots and snapshot
# triggers, from the lab tree, with KTAP output.  Arguments name cases
# (e.g. 00basic/snapshot); none runs them all.  The logs go to the run
# directory, which `lab run` keeps when a case fails.
cd "$(dirname "$0")/../../build/linux/tools/testing/selftests/ftrace" || exit 1
[ $# -gt 0 ] || set -- 00basic/snapshot 00basic/snapshot1 trigger/trigger-snapshot \
	trigger/trigger-trace-marker-snapshot \
	trigger/inter-event/trigger-snapshot-action-hist \
	00basic/snapshot_history trigger/trigger-snapshot-burst \
	00basic/snapshot_latency
cases=
for c in "$@"; do
	[ -f "test.d/$c.tc" ] || { echo "ftracetest.sh: no case test.d/$c.tc" >&2; exit 2; }
	cases="$cases test.d/$c.tc"
done
# shellcheck disable=SC2086
exec ./ftracetest -K -l "${LAB_OUT:-/tmp}/ftracetest-logs" $cases
