#!/bin/sh
# Configure and build one kernel: scripts/kernel.sh lab|stock|upstream|debug
#   lab    from build/linux (base + patches/)
#   stock  from build/stock (base)
#   upstream  from build/upstream (base + the sched and the tracing topics,
#          without v3.9-repro)
#   debug  from build/linux, plus config/debug.config (lockdep, KASAN, ...)
#   each   from build/each/src, the commit scripts/boot-each.sh is at
# All use config/lab.config merged onto tinyconfig, ccache and a persistent
# O= directory inside the source tree (build/linux/.out, build/stock/.out,
# build/upstream/.out, build/linux/.out-debug).
# Kbuild then names sources relative to O= (srctree is ".."), so the two
# kernels share their ccache hits.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
name=${1:-}
frags=$top/config/lab.config
case "$name" in
lab) src=$top/build/linux out=$top/build/linux/.out ;;
stock) src=$top/build/stock out=$top/build/stock/.out ;;
upstream) src=$top/build/upstream out=$top/build/upstream/.out ;;
each) src=$top/build/each/src out=$top/build/each/src/.out ;;
debug) src=$top/build/linux out=$top/build/linux/.out-debug
	frags="$frags $top/config/debug.config" ;;
*) echo "usage: scripts/kernel.sh lab|stock|upstream|debug|each" >&2; exit 2 ;;
esac
[ -f "$src/Makefile" ] || { echo "kernel: $src missing: run 'make tree'" >&2; exit 1; }

jobs=${JOBS:-$(nproc)}
mkdir -p "$out"

# Fixed build metadata keeps ccache hits real and images comparable.
export KBUILD_BUILD_TIMESTAMP="2013-02-20"
export KBUILD_BUILD_USER=lab KBUILD_BUILD_HOST=lab
export CCACHE_BASEDIR="$top/build" CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros
# Depend mode: a miss runs the compiler only, not the preprocessor first.
# A cold build of mm/ took 91 s in ccache's default mode, 60 s in depend
# mode and 64 s without ccache (docs/measurements.md); hits still come
# from the sources' and headers' contents, which is what the stock build
# after the lab one shares.
export CCACHE_DEPEND=1
export LOCALVERSION="-$name"
kmake() { make -C "$src" O="$out" ARCH=x86_64 CC="$top/scripts/ccache-cc" "$@"; }

echo "kernel: configuring $name (tinyconfig +$(for f in $frags; do printf ' config/%s' "${f##*/}"; done))"
# tinyconfig's own olddefconfig pass cannot be merged with ours: a
# fragment that turns SLUB_TINY off (the debug kernel's) would then find
# SLAB_MERGE_DEFAULT set to n by allnoconfig instead of its default.
kmake -s -j"$jobs" tinyconfig >/dev/null
# shellcheck disable=SC2086
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $frags >/dev/null
kmake -s -j"$jobs" olddefconfig >/dev/null

# merge_config.sh only warns about options Kconfig dropped; we fail.
# shellcheck disable=SC2086
missing=$(cat $frags | grep -E '^(# )?CONFIG_[A-Z0-9_]+[= ]' | while IFS= read -r want; do
	opt=$(echo "$want" | sed -E 's/^(# )?(CONFIG_[A-Z0-9_]+).*/\2/')
	have=$(grep -E "^(# )?$opt[= ]" "$out/.config" || echo "$opt absent")
	case "$want" in
	"# "*) case "$have" in "$opt="*) echo "  $want (have: $have)" ;; esac ;;
	*) [ "$want" = "$have" ] || echo "  $want (have: $have)" ;;
	esac
done)
if [ -n "$missing" ]; then
	echo "kernel: the config fragments ask for options the final .config lacks:" >&2
	echo "$missing" >&2
	exit 1
fi

echo "kernel: building $name in ${out#$top/} ($jobs jobs, ccache)"
start=$(date +%s)
# The test modules built outside the tree, into build/modules/$name/:
# the lab suite's splat module (lockdep reports LKDTM cannot provoke) and
# the article suite's regmap KUnit module, the history suite's module
# with a trace event, the tree's preemptirq_delay_test for ftracetest,
# and sis_test's probe on the bare placement tracepoint.
# One make run for the image and the in-tree modules (Module.symvers, for
# modpost), then the four outside modules side by side.
kmake -j"$jobs" bzImage modules
pids=
# tests/sched/sis_tp (a probe on sched_sis_decision_tp) only where the
# tracepoint is: not on stock.
mods="tests/lab/splat tests/article/regmap tests/snapshot/modevent tests/snapshot/preemptirq"
! grep -q sched_sis_decision_tp "$src/include/trace/events/sched.h" ||
	mods="$mods tests/sched/sis_tp"
for m in $mods; do
	mod=$top/build/modules/$name/${m##*/}
	rm -rf "$mod" && mkdir -p "$mod" && cp "$top/$m"/* "$mod"/
	[ "$m" != tests/snapshot/preemptirq ] ||
		cp "$src/kernel/trace/preemptirq_delay_test.c" "$mod"/
	kmake -s M="$mod" modules &
	pids="$pids $!"
done
failed=0
for p in $pids; do wait "$p" || failed=1; done
[ "$failed" = 0 ] || { echo "kernel: an outside test module of $name failed to build (above)" >&2; exit 1; }
# The image boots what vmlinux holds: the same "Linux version" line, build
# number included (scripts/ccache-cc says how a stale piggy.o broke that).
want=$(strings -a "$out/vmlinux" | grep '^Linux version ' | sort -u)
got=$("$src/scripts/extract-vmlinux" "$out/arch/x86/boot/bzImage" | strings -a |
	grep '^Linux version ' | sort -u)
if [ "$want" != "$got" ]; then
	echo "kernel: $name: the bzImage holds another kernel than vmlinux:" >&2
	echo "  vmlinux: $want" >&2
	echo "  bzImage: $got" >&2
	exit 1
fi
echo "kernel: $name built in $(( $(date +%s) - start ))s: $(cat "$out/include/config/kernel.release") ($(git -C "$src" describe --always --tags 2>/dev/null))"
