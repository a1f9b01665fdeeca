#!/bin/sh
# Configure and build one kernel: scripts/kernel.sh lab|stock
#   lab    from build/linux (base + patches/)
#   stock  from build/stock (base)
# Both use config/lab.config merged onto tinyconfig, ccache and a persistent
# O= directory inside the source tree (build/linux/.out, build/stock/.out).
# Kbuild then names sources relative to O= (srctree is ".."), so the two
# kernels share their ccache hits.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
name=${1:-}
case "$name" in
lab) src=$top/build/linux ;;
stock) src=$top/build/stock ;;
*) echo "usage: scripts/kernel.sh lab|stock" >&2; exit 2 ;;
esac
[ -f "$src/Makefile" ] || { echo "kernel: $src missing: run 'make tree'" >&2; exit 1; }

out=$src/.out
frag=$top/config/lab.config
jobs=${JOBS:-$(nproc)}
mkdir -p "$out"

# Fixed build metadata keeps ccache hits real and images comparable.
export KBUILD_BUILD_TIMESTAMP="2013-02-20"
export KBUILD_BUILD_USER=lab KBUILD_BUILD_HOST=lab
export CCACHE_BASEDIR="$top/build" CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros
export LOCALVERSION="-$name"
kmake() { make -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" "$@"; }

echo "kernel: configuring $name (tinyconfig + config/lab.config)"
kmake -s tinyconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag" >/dev/null
kmake -s olddefconfig >/dev/null

# merge_config.sh only warns about options Kconfig dropped; we fail.
missing=$(grep -E '^(# )?CONFIG_[A-Z0-9_]+[= ]' "$frag" | while IFS= read -r want; do
	opt=$(echo "$want" | sed -E 's/^(# )?(CONFIG_[A-Z0-9_]+).*/\2/')
	have=$(grep -E "^(# )?$opt[= ]" "$out/.config" || echo "$opt absent")
	case "$want" in
	"# "*) case "$have" in "$opt="*) echo "  $want (have: $have)" ;; esac ;;
	*) [ "$want" = "$have" ] || echo "  $want (have: $have)" ;;
	esac
done)
if [ -n "$missing" ]; then
	echo "kernel: config/lab.config asks for options the final .config lacks:" >&2
	echo "$missing" >&2
	exit 1
fi

echo "kernel: building $name in ${out#$top/} ($jobs jobs, ccache)"
start=$(date +%s)
kmake -j"$jobs" bzImage
echo "kernel: $name built in $(( $(date +%s) - start ))s: $(cat "$out/include/config/kernel.release") ($(git -C "$src" describe --always --tags 2>/dev/null))"
