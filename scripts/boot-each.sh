#!/bin/sh
# Build and boot every commit of the upstream-bound series (base + sched +
# tracing, no v3.9-repro) under the lab config: the proof that the series
# bisects at run time, where the bisect suite only builds each commit.
#
#   scripts/boot-each.sh [FIRST [LAST]]    commits FIRST..LAST, counted from 1
#
# One worktree (build/each/src, at each commit in turn) and one O=
# directory in it, built by scripts/kernel.sh each (ccache).  Each commit's
# image boots the tracing suites' guest (4 CPUs, single-threaded TCG) and
# runs the seed's snapshot table (tests/snapshot/seed.sh), then the
# history suite where the kernel has snapshot_depth.  A commit passes when
# it builds, boots with no splat and no timeout, and the seed's table
# passes but for not_allocated_else_is_einval (3.9's EINVAL, which is the
# v3.9-repro series').  The history suite's counts are printed, and judged
# only at the last commit of the series, where every case must pass: a case
# can fail earlier when it tests a later patch.
# Prints KTAP, one test per commit; logs in build/each/.  JUDGE_ONLY=1
# judges the logs of an earlier run again, without building or booting.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
tree=$top/build/linux
wt=$top/build/each/src
logs=$top/build/each
die() { echo "boot-each: $*" >&2; exit 2; }

"$top/scripts/tree.sh" upstream >/dev/null || die "scripts/tree.sh upstream failed"
last_commit=$(git -C "$top/build/upstream" rev-parse HEAD) || die "no build/upstream"
commits=$(git -C "$tree" rev-list --reverse "base..$last_commit")
total=$(echo "$commits" | wc -l)
first=${1:-1} last=${2:-$total}
[ "$first" -ge 1 ] && [ "$last" -le "$total" ] && [ "$first" -le "$last" ] ||
	die "commits $first..$last: the series has 1..$total"
[ -x "$top/build/selftests/snapshot_history" ] || die "no build/selftests: run 'make selftests'"
mkdir -p "$logs"
[ -d "$wt" ] || git -C "$tree" worktree add -q --detach "$wt" base || die "cannot make $wt"

echo "KTAP version 1"
echo "# boot-each: commits $first..$last of $total (base..$(git -C "$tree" log -1 --format=%h "$last_commit"))"
echo "1..$((last - first + 1))"
n=0 pass=0 fail=0 i=0
for c in $commits; do
	i=$((i + 1))
	[ "$i" -lt "$first" ] || [ "$i" -gt "$last" ] && continue
	n=$((n + 1))
	subject=$(git -C "$tree" log -1 --format=%s "$c")
	name=$(printf '%02d_%s' "$i" "$(echo "$subject" | tr -c 'A-Za-z0-9\n' '_' | cut -c1-50)")
	log=$logs/$i.log
	if [ "${JUDGE_ONLY:-0}" = 1 ]; then
		[ -f "$log" ] || { echo "# $subject: no log"; echo "not ok $n $name"; fail=$((fail + 1)); continue; }
		built=?
		# The guest's exit: saved, or lab's "...; exit N" line (runs before it was saved)
		rc=$(cat "$log.rc" 2>/dev/null || sed -n 's/^lab: .*; exit \([0-9]*\)\..*/\1/p' "$log" | head -n 1)
		rc=${rc:-0}
	else
		git -C "$wt" checkout -q --detach "$c" || die "checkout $c"
		start=$(date +%s)
		if ! "$top/scripts/kernel.sh" each > "$log.build" 2>&1; then
			echo "# $subject: does not build (build/each/$i.log.build)"
			echo "not ok $n $name"
			fail=$((fail + 1))
			continue
		fi
		built=$(( $(date +%s) - start ))
		"$top/lab" run --tcg single --smp 4 --append rcupdate.rcu_expedited=1 --timeout 900 \
			--kernel "$wt/.out/arch/x86/boot/bzImage" -- sh -c \
			"tests/snapshot/seed.sh; if [ -e /sys/kernel/tracing/snapshot_depth ]; then build/selftests/snapshot_history; fi; exit 0" \
			> "$log" 2>&1
		rc=$?
		echo $rc > "$log.rc"
	fi
	# The seed's results come first, up to its "# Totals:" line; the history suite's after
	seed=$(sed '/^# Totals:/q' "$log")
	seed_bad=$(echo "$seed" | grep -E '^not ok [0-9]+ ' | grep -v ' not_allocated_else_is_einval$' |
		sed 's/^not ok [0-9]* //' | tr '\n' ' ')
	seed_ok=$(echo "$seed" | grep -cE '^ok [0-9]+ ')
	# seed.sh prints the first "# Totals:" line, the history suite the second
	hist=$(sed -n 's/^# Totals: \(.*\)$/\1/p' "$log" | sed -n 2p)
	why=
	[ "$rc" -eq 0 ] || why="the guest exited $rc (splat, panic or timeout: build/each/$i.log)"
	[ -z "$seed_bad" ] || why="${why:+$why; }seed's table failed: $seed_bad"
	if [ "$i" -eq "$total" ] && ! echo "$hist" | grep -q 'fail:0 '; then
		why="${why:+$why; }the history suite fails at the series' last commit: $hist"
	fi
	echo "# $subject: built in ${built}s; seed ok $seed_ok; history ${hist:-not in this kernel}"
	if [ -z "$why" ]; then
		echo "ok $n $name"
		pass=$((pass + 1))
	else
		echo "# $why"
		echo "not ok $n $name"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
