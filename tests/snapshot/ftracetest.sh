#!/bin/sh
# In the guest: the tree's own ftracetest cases for snapshots, snapshot
# triggers and the latency tracers, from the lab tree, with KTAP output.
# Arguments name cases (e.g. 00basic/snapshot); none runs them all.
# "--latency" first: the latency tracer cases only, unless cases follow
# (the ftracetest-depth4 suite runs them with FTRACETEST_SNAPSHOT_DEPTH=4);
# "--snapshot" first: every case but those.
# The logs go to the run directory, which `lab run` keeps when a case fails.
top=$(cd "$(dirname "$0")/../.." && pwd)
latency="preemptirq/irqsoff_tracer tracer/wakeup tracer/wakeup_rt"
snapshot="00basic/snapshot 00basic/snapshot1 trigger/trigger-snapshot
	trigger/trigger-trace-marker-snapshot
	trigger/inter-event/trigger-snapshot-action-hist
	00basic/snapshot_history 00basic/snapshot_dropped trigger/trigger-snapshot-burst
	00basic/snapshot_latency"
case "${1:-}" in
--latency) shift; [ $# -gt 0 ] || set -- $latency ;;
--snapshot) shift; [ $# -gt 0 ] || set -- $snapshot ;;
esac
# shellcheck disable=SC2086
[ $# -gt 0 ] || set -- $snapshot $latency
cd "$top/build/linux/tools/testing/selftests/ftrace" || exit 1
cases=
for c in "$@"; do
	[ -f "test.d/$c.tc" ] || { echo "ftracetest.sh: no case test.d/$c.tc" >&2; exit 2; }
	cases="$cases test.d/$c.tc"
done

# The lab kernels have no /lib/modules tree: "modprobe NAME ARGS" of the
# test modules that scripts/kernel.sh builds becomes busybox insmod.
mods=$top/build/modules/$(uname -r | sed 's/.*-//')
bin=$(mktemp -d)
cat > "$bin/modprobe" <<EOS
#!/bin/sh
ko=\$(ls "$mods"/*/"\$1.ko" 2>/dev/null | head -n 1)
[ -n "\$ko" ] || { echo "modprobe: \$1: no such lab module in $mods" >&2; exit 1; }
shift
exec busybox insmod "\$ko" "\$@"
EOS
printf '#!/bin/sh\nexec busybox rmmod "$@"\n' > "$bin/rmmod"
chmod +x "$bin/modprobe" "$bin/rmmod"
PATH=$bin:$PATH
# shellcheck disable=SC2086
exec ./ftracetest -K -l "${LAB_OUT:-/tmp}/ftracetest-logs" $cases
