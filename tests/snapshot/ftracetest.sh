#!/bin/sh
# In the guest: the tree's own ftracetest cases for snapshots and snapshot
# triggers, from the lab tree, with KTAP output.
cd "$(dirname "$0")/../../build/linux/tools/testing/selftests/ftrace" || exit 1
exec ./ftracetest -K -l /tmp/ftracetest-logs \
	test.d/00basic/snapshot.tc test.d/00basic/snapshot1.tc \
	test.d/trigger/trigger-snapshot.tc test.d/trigger/trigger-trace-marker-snapshot.tc \
	test.d/trigger/inter-event/trigger-snapshot-action-hist.tc \
	test.d/00basic/snapshot_history.tc test.d/trigger/trigger-snapshot-burst.tc
