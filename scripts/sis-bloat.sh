#!/bin/sh
# What the select_idle_sibling() instrumentation costs the wake-up path
# under a distribution's config, not only the matrix's tinyconfig:
#   scripts/sis-bloat.sh [CONFIG]
# CONFIG (plain or .xz) defaults to Debian's amd64 config (package
# linux-config-6.12), which has CONFIG_JUMP_LABEL, SCHED_CLUSTER,
# FAIR_GROUP_SCHED and -O2.  Builds kernel/sched/fair.o
# at base, at the end of patches/sched (the upstream-bound series) and at
# HEAD of build/linux, in a worktree of its own (build/sis-bloat/), then
# prints bloat-o-meter against base and runs scripts/check-sis-key.py on
# the last two.  (bloat-o-meter's __UNIQUE_ID___addressable lines, symbols
# renumbered by the change, are left out.)
# VARIANT=FILE.patch also builds the end of patches/sched with FILE applied
# (an alternative design, such as review point M1's one exit with a local
# reason), and compares it with base too.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=$top/build/linux
cfg=${1:-/usr/src/linux-config-6.12/config.amd64_none_amd64.xz}
dir=$top/build/sis-bloat
wt=$dir/src
out=$dir/out

die() { echo "sis-bloat: $*" >&2; exit 1; }
[ -f "$cfg" ] || die "no config $cfg: apt-get install linux-config-6.12, or name one"
git -C "$tree" rev-parse -q --verify refs/tags/base >/dev/null || die "no build/linux: run 'make tree'"
# The end of patches/sched: the commit whose subject is its last patch's.
last=$(grep -v "^#" "$top/patches/sched/series" | tail -1)
subject=$(awk '/^Subject:/ { s = $0; while ((getline l) > 0 && l ~ /^ /) s = s l; print s; exit }' \
	"$top/patches/sched/$last" | sed 's/^Subject: \[PATCH[^]]*\] //')
sched=$(git -C "$tree" log --format='%H %s' base..HEAD | grep -F " $subject" | head -1 | cut -d' ' -f1)
[ -n "$sched" ] || die "no commit of build/linux is patches/sched/$last: 'make apply' first"
head=$(git -C "$tree" rev-parse HEAD)

# A worktree for the three builds only: left behind, it would be a second
# copy of the series that patches/ does not follow.
rm -rf "$wt"
git -C "$tree" worktree prune
git -C "$tree" worktree add -q --detach "$wt" base
trap 'git -C "$tree" worktree remove --force "$wt"' EXIT
mkdir -p "$out"
case "$cfg" in
*.xz) xz -dc "$cfg" > "$out/.config" ;;
*) cp "$cfg" "$out/.config" ;;
esac
kmake() { make -s -C "$wt" O="$out" ARCH=x86_64 CC="ccache gcc" "$@"; }
"$wt/scripts/config" --file "$out/.config" -e JUMP_LABEL
export CCACHE_BASEDIR="$top/build" CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros

for rev in base "$sched" "$head" ${VARIANT:+variant}; do
	if [ "$rev" = variant ]; then
		name=variant
		git -C "$wt" checkout -q --detach "$sched"
		git -C "$wt" apply "$VARIANT"
	else
		name=$(git -C "$tree" rev-parse --short "$rev")
		git -C "$wt" checkout -q --detach "$rev"
	fi
	kmake olddefconfig >/dev/null
	echo "sis-bloat: kernel/sched/fair.o at $name ($( [ "$rev" = variant ] && echo "$VARIANT" ||
		git -C "$tree" log -1 --format=%s "$rev"))"
	kmake -j"$(nproc)" kernel/sched/fair.o >/dev/null
	cp "$out/kernel/sched/fair.o" "$out/fair.$name.o"
	[ "$rev" = base ] && base_o=$out/fair.$name.o && continue
	echo "--- bloat-o-meter, base against $name:"
	"$wt/scripts/bloat-o-meter" "$base_o" "$out/fair.$name.o" |
		grep -v -e "^Total" -e "^__UNIQUE_ID___addressable"
	echo "--- scripts/check-sis-key.py at $name:"
	"$top/scripts/check-sis-key.py" "$out/fair.$name.o" || [ "$rev" = variant ]
done
