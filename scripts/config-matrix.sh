#!/bin/sh
# Build the series under a matrix of configs, and compare its warnings
# with base's.  The successor of bisect-build.sh.
#
#   scripts/config-matrix.sh [CONFIG...]         base, then HEAD (make check)
#   ALL=1 scripts/config-matrix.sh [CONFIG...]   base, then every commit
#   (MATRIX_FROM=COMMIT: base, then every commit after COMMIT)
#
# Each config is config/lab.config merged onto tinyconfig, then the lines
# below for it; the script fails if Kconfig did not take them.
# TRACER_SNAPSHOT selects TRACER_MAX_TRACE, so snapshot-n has neither,
# and hwlat-only has the max-latency buffer (hwlat selects it) without
# snapshots.  Each build
# compiles the directories of every C file that base..HEAD touches (at
# least kernel/sched/ and kernel/trace/), in one scratch worktree
# (build/matrix/src) and a persistent O= directory per config
# (build/matrix/NAME), with ccache.
#
# A warning a commit prints that base does not (file and message, line
# numbers aside) fails it.  jump-label (the lab config has no
# CONFIG_JUMP_LABEL: multi-threaded TCG oopses on the int3 of live text
# patching) also checks, with scripts/check-sis-key.py, that in HEAD's
# fair.o the default select_idle_sibling() policy pays only a patched-out
# jump: every load of the policy sits behind the static key.  For the lab config, HEAD's objects are then
# built again with W=1, and a W=1 warning on a line the series adds fails.
# LINK configs (two by default, three with MATRIX_LINK=1) link a whole
# vmlinux at HEAD.
# Prints KTAP, one test per config (and W=1); logs in build/matrix/.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
tree=$top/build/linux
wt=$top/build/matrix/src
logs=$top/build/matrix
jobs=${JOBS:-$(nproc)}

# name|options, space-separated; "# CONFIG_X is not set" is written X=n.
MATRIX='lab|
schedstats-n|CONFIG_SCHEDSTATS=n
sched-debug-n|CONFIG_SCHED_DEBUG=n
snapshot-n|CONFIG_TRACER_SNAPSHOT=n CONFIG_TRACER_MAX_TRACE=n CONFIG_IRQSOFF_TRACER=n CONFIG_PREEMPT_TRACER=n CONFIG_SCHED_TRACER=n
hwlat-only|CONFIG_TRACER_SNAPSHOT=n CONFIG_TRACER_MAX_TRACE=y CONFIG_HWLAT_TRACER=y CONFIG_IRQSOFF_TRACER=n CONFIG_PREEMPT_TRACER=n CONFIG_SCHED_TRACER=n
ftrace-n|CONFIG_FTRACE=n
smp-n|CONFIG_SMP=n
preempt-rt|CONFIG_PREEMPT_RT=y CONFIG_EXPERT=y
jump-label|CONFIG_JUMP_LABEL=y'

# Linked at HEAD (see "Link" below): tinyconfig, LINK_BASE, then the lines.
LINK_BASE="CONFIG_SMP=y CONFIG_SCHED_SMT=y CONFIG_SCHED_MC=y CONFIG_DEBUG_FS=y
CONFIG_FTRACE=y CONFIG_FUNCTION_TRACER=y CONFIG_DYNAMIC_FTRACE=y
CONFIG_IRQSOFF_TRACER=y CONFIG_SCHED_TRACER=y CONFIG_HWLAT_TRACER=y
CONFIG_TRACER_SNAPSHOT=y CONFIG_TRACER_SNAPSHOT_PER_CPU_SWAP=y
CONFIG_HIST_TRIGGERS=y CONFIG_SCHEDSTATS=y CONFIG_SCHED_DEBUG=y"
LINK='link-snapshot-n|CONFIG_TRACER_SNAPSHOT=n CONFIG_TRACER_MAX_TRACE=n CONFIG_IRQSOFF_TRACER=n CONFIG_SCHED_TRACER=n CONFIG_HWLAT_TRACER=n
link-smp-n|CONFIG_SMP=n
link-ftrace-n|CONFIG_FTRACE=n'

die() { echo "config-matrix: $*" >&2; exit 2; }
git -C "$tree" rev-parse -q --verify base >/dev/null || die "no build/linux: run 'make tree'"
# MATRIX_REV=COMMIT checks another series (of the same repository) than HEAD.
head=$(git -C "$tree" rev-parse "${MATRIX_REV:-HEAD}") || die "no commit ${MATRIX_REV:-HEAD}"
mkdir -p "$logs"
[ -e "$wt/.git" ] || git -C "$tree" worktree add -q --detach "$wt" base || die "cannot add $wt"

names=$(echo "$MATRIX" | cut -d'|' -f1)
# Each link config costs a cold tinyconfig build (link-smp-n: 322 s on 2
# cores): by default the two where the series' #ifdefs could leave a call
# undefined; MATRIX_LINK=1 adds link-ftrace-n.
link_names="link-snapshot-n link-smp-n"
[ "${MATRIX_LINK:-0}" = 1 ] && link_names=$(echo "$LINK" | cut -d'|' -f1)
all_links=$(echo "$LINK" | cut -d'|' -f1)
if [ $# -gt 0 ]; then
	sel= lsel=
	for n in "$@"; do
		if echo "$all_links" | grep -qx "$n"; then
			lsel="$lsel $n"
		elif echo "$names" | grep -qx "$n"; then
			sel="$sel $n"
		else
			die "unknown config '$n'; known: $(echo $names $all_links)"
		fi
	done
	names=$sel link_names=$lsel
fi

export KBUILD_BUILD_TIMESTAMP=2013-02-20 KBUILD_BUILD_USER=lab KBUILD_BUILD_HOST=lab
export CCACHE_BASEDIR="$top/build" CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros
kmake() { make -C "$wt" O="$out" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" "$@"; }

# The directories of the C files base..HEAD touches; kernel/sched and
# kernel/trace always, since their headers are changed too.
targets=$( { echo kernel/sched/; echo kernel/trace/
	git -C "$tree" diff --name-only base "$head" | grep -E '^(kernel|mm|fs|net|drivers|lib|arch)/.*\.c$' |
		sed 's|/[^/]*$|/|'; } | sort -u)

configure() {	# $1: options, $2: the fragment they go on (default: the lab's)
	kmake -s tinyconfig >/dev/null 2>&1 || return 1
	frag=$out/matrix.config
	cp "${2:-$top/config/lab.config}" "$frag"
	for o in $1; do
		case "$o" in
		*=n) echo "# ${o%=n} is not set" ;;
		*) echo "$o" ;;
		esac
	done >> "$frag"
	"$wt/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag" >/dev/null 2>&1 &&
		kmake -s olddefconfig >/dev/null 2>&1 || return 1
	for o in $1; do
		case "$o" in
		*=n) ! grep -q "^${o%=n}=" "$out/.config" ;;
		*) grep -qx "$o" "$out/.config" ;;
		esac || { echo "Kconfig did not take $o"; return 1; }
	done
}

# Warnings of one build, line and column numbers taken out, sorted.
warnings() { grep -E '(warning|error):' "$1" | sed -E 's/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/' | sort -u; }

build_at() {	# $1: commit, $2: log; builds $targets in $out at $1
	git -C "$wt" checkout -q --detach "$1" || return 1
	# shellcheck disable=SC2086
	kmake -j"$jobs" $targets > "$2" 2>&1
}

report() {	# $1: number, $2: name, $3: why it failed (empty: passed), $4: note
	if [ -z "$3" ]; then
		echo "ok $1 $2${4:+ # $4}"
	else
		echo "# $3"
		echo "not ok $1 $2"
		failed=$((failed + 1))
	fi
}

echo "KTAP version 1"
echo "1..$(( $(echo $names $link_names | wc -w) + 1 ))"
n=0 failed=0
for name in $names; do
	n=$((n + 1))
	opts=$(echo "$MATRIX" | grep "^$name|" | cut -d'|' -f2)
	out=$logs/$name
	mkdir -p "$out"
	start=$(date +%s)
	why=
	git -C "$wt" checkout -q --detach base
	if ! msg=$(configure "$opts"); then
		why="config: ${msg:-Kconfig failed}"
	elif ! build_at base "$out/base.log"; then
		why="base does not build (build/matrix/$name/base.log)"
	else
		warnings "$out/base.log" > "$out/base.warnings"
		[ -f "$out/kernel/sched/fair.o" ] && cp "$out/kernel/sched/fair.o" "$out/fair.base.o"
		if [ "${ALL:-0}" = 1 ]; then
			commits=$(git -C "$tree" rev-list --reverse "${MATRIX_FROM:-base}..$head")
		else
			commits=$head
		fi
		for c in $commits; do
			sub=$(git -C "$tree" log --format='%h %s' -1 "$c")
			log=$out/$(git -C "$tree" rev-parse --short "$c").log
			if ! build_at "$c" "$log"; then
				grep -E 'error' "$log" | head -5 | sed 's/^/# /'
				why="$sub does not build (build/matrix/$name/${log##*/})"
				break
			fi
			# A rebuild prints only what it recompiled; compare against
			# base's warnings for those files.
			new=$(warnings "$log" | comm -13 "$out/base.warnings" -)
			if [ -n "$new" ]; then
				echo "$new" | sed 's/^/# new warning: /'
				why="$sub adds warnings"
				break
			fi
		done
		if [ -z "$why" ] && [ "$name" = jump-label ]; then
			"$top/scripts/check-sis-key.py" "$out/kernel/sched/fair.o" > "$out/sis-key.log" ||
				why="the default select_idle_sibling() path is not just the static key"
			sed 's/^/# /' "$out/sis-key.log"
			# What the wake-up path grew by (issue budget: 64 bytes for
			# select_task_rq_fair and select_idle_sibling together).
			"$wt/scripts/bloat-o-meter" "$out/fair.base.o" "$out/kernel/sched/fair.o" \
				> "$out/bloat.log" 2>&1 &&
				grep -E 'select_task_rq_fair|select_idle|^add/remove|^Total' "$out/bloat.log" |
				sed 's/^/# bloat-o-meter: /'
		fi
	fi
	report $n "build $name" "${why:+$name: $why}" "$(( $(date +%s) - start ))s"
done

# Link: the builds above compile the series' directories but link
# nothing, so a call that one config leaves undefined, or a header change
# that breaks a user outside kernel/sched and kernel/trace, would pass.
# Each LINK config links a whole vmlinux at HEAD: tinyconfig plus the
# tracers, snapshots and scheduler options the series touches (not the
# lab's drivers, which the series does not touch), then its own lines.
for name in $link_names; do
	n=$((n + 1))
	opts=$(echo "$LINK" | grep "^$name|" | cut -d'|' -f2)
	out=$logs/$name
	mkdir -p "$out"
	start=$(date +%s)
	why=
	echo "$LINK_BASE" | tr ' ' '\n' > "$out/link.config"
	if ! git -C "$wt" checkout -q --detach "$head"; then
		why="$name: cannot check out HEAD"
	elif ! msg=$(configure "$opts" "$out/link.config"); then
		why="$name: config: ${msg:-Kconfig failed}"
	elif ! kmake -j"$jobs" vmlinux > "$out/link.log" 2>&1; then
		grep -E 'error|undefined' "$out/link.log" | head -5 | sed 's/^/# /'
		why="$name: HEAD does not link (build/matrix/$name/link.log)"
	fi
	report $n "link $name" "$why" "$(( $(date +%s) - start ))s"
done

# W=1 on the lines the series adds, lab config, at HEAD.
n=$((n + 1))
out=$logs/w1
mkdir -p "$out"
why=
git -C "$wt" checkout -q --detach base
# Touch what the series changes, so that its objects are compiled (or
# their warnings replayed by ccache) even when they are up to date.
if ! configure "" >/dev/null || ! git -C "$wt" checkout -q --detach "$head" ||
   ! (cd "$wt" && git diff --name-only base "$head" -- '*.c' '*.h' | xargs -r touch) ||
   ! kmake -j"$jobs" W=1 $targets > "$out/w1.log" 2>&1; then
	why="the lab config does not build at HEAD with W=1 (build/matrix/w1/w1.log)"
else
	# file:line of every added line
	git -C "$tree" diff -U0 base "$head" -- '*.c' '*.h' | awk '
		/^\+\+\+ b\// { f = substr($2, 3) }
		/^@@/ { split($3, a, ","); s = substr(a[1], 2); c = (a[2] == "") ? 1 : a[2]
			for (i = 0; i < c; i++) print f ":" s + i }' | sort -u > "$out/added"
	# Kbuild names sources $wt/... or ../src/... (srctree relative to O=).
	grep -E '^[^ ]+:[0-9]+:[0-9]+: warning:' "$out/w1.log" | sed "s|^$wt/||; s|^\.\./src/||" |
		while IFS=: read -r f l rest; do
			grep -qx "$f:$l" "$out/added" && echo "$f:$l:$rest"
		done > "$out/new"
	if [ -s "$out/new" ]; then
		sed 's/^/# W=1: /' "$out/new"
		why="W=1 warns on lines the series adds"
	fi
fi
report $n "W=1 clean on added lines" "$why"
echo "# config-matrix: $((n - failed)) of $n clean"
[ "$failed" = 0 ]
