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
n=$(grep -vc "^#" "$top/patches/sched/series")
sched=$(git -C "$tree" rev-list --reverse base..HEAD | sed -n "${n}p")
[ -n "$sched" ] || die "build/linux has fewer commits than patches/sched"
head=$(git -C "$tree" rev-parse HEAD)

if [ ! -e "$wt/.git" ]; then
	rm -rf "$wt"
	git -C "$tree" worktree prune
	git -C "$tree" worktree add -q --detach "$wt" base
fi
mkdir -p "$out"
case "$cfg" in
*.xz) xz -dc "$cfg" > "$out/.config" ;;
*) cp "$cfg" "$out/.config" ;;
esac
kmake() { make -s -C "$wt" O="$out" ARCH=x86_64 CC="ccache gcc" "$@"; }
"$wt/scripts/config" --file "$out/.config" -e JUMP_LABEL
export CCACHE_BASEDIR="$top/build" CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros

for rev in base "$sched" "$head"; do
	name=$(git -C "$tree" rev-parse --short "$rev")
	git -C "$wt" checkout -q --detach "$rev"
	kmake olddefconfig >/dev/null
	echo "sis-bloat: kernel/sched/fair.o at $name ($(git -C "$tree" log -1 --format=%s "$rev"))"
	kmake -j"$(nproc)" kernel/sched/fair.o >/dev/null
	cp "$out/kernel/sched/fair.o" "$out/fair.$name.o"
	[ "$rev" = base ] && base_o=$out/fair.$name.o && continue
	echo "--- bloat-o-meter, base against $name:"
	"$wt/scripts/bloat-o-meter" "$base_o" "$out/fair.$name.o" |
		grep -v -e "^Total" -e "^__UNIQUE_ID___addressable"
	echo "--- scripts/check-sis-key.py at $name:"
	"$top/scripts/check-sis-key.py" "$out/fair.$name.o"
done
