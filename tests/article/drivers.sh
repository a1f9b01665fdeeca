#!/bin/sh
# On the host: compile the objects of the drivers the 3.9 article names
# that 6.12 still has and x86_64 can build (config/drivers.config), from
# the tree of the kernel under test, in its own O= directory with ccache.
# Prints KTAP: one case per driver, ok when its objects were built.
#   tests/article/drivers.sh [lab|stock|debug]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
case "${1:-lab}" in
stock) src=$top/build/stock ;;
*) src=$top/build/linux ;;
esac
out=$src/.out-drivers

# name|objects (relative to the tree)
drivers="cypress_ps2_touchpad|drivers/input/mouse/cypress_ps2.o
cypress_apa_i2c_trackpad|drivers/input/mouse/cyapa.o drivers/input/mouse/cyapa_gen3.o drivers/input/mouse/cyapa_gen5.o drivers/input/mouse/cyapa_gen6.o
maxim_max6697_family|drivers/hwmon/max6697.o
ti_ina209|drivers/hwmon/ina209.o
ti_lp8755|drivers/regulator/lp8755.o
goldfish_x86_platform|drivers/platform/goldfish/goldfish_pipe.o
sgi_uv3|arch/x86/kernel/apic/x2apic_uv_x.o arch/x86/platform/uv/uv_nmi.o"

echo "KTAP version 1"
echo "1..$(echo "$drivers" | wc -l)"
[ -f "$src/Makefile" ] || { echo "# $src missing: run 'make tree stock'"; exit 1; }

export KBUILD_BUILD_TIMESTAMP="2013-02-20" KBUILD_BUILD_USER=lab KBUILD_BUILD_HOST=lab
export CCACHE_BASEDIR="$top/build" CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros
kmake() { make -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" -j"$(nproc)" "$@"; }
mkdir -p "$out"
start=$(date +%s)
log=$out/build.log
{
	kmake -s tinyconfig &&
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
		"$top/config/lab.config" "$top/config/drivers.config" &&
	kmake -s olddefconfig
} > "$log" 2>&1 || { echo "# configuring failed: $log"; exit 1; }
# Kconfig may drop a driver (removed, or its dependencies gone): say so.
missing=$(grep -E '^CONFIG_[A-Z0-9_]+=y' "$top/config/drivers.config" | while read -r want; do
	grep -qx "$want" "$out/.config" || echo "$want"
done)
[ -z "$missing" ] || echo "# not in the final .config: $(echo $missing)"
objs=$(echo "$drivers" | cut -d'|' -f2 | tr '\n' ' ')
# shellcheck disable=SC2086
kmake -k $objs >> "$log" 2>&1
echo "# compiled in $(( $(date +%s) - start )) s from $(git -C "$src" describe --always --tags 2>/dev/null); log: ${log#$top/}"
n=0 failed=0
echo "$drivers" | {
	while IFS='|' read -r name files; do
		n=$((n + 1)) bad=""
		for o in $files; do
			[ -s "$out/$o" ] || bad="$bad $o"
		done
		if [ -z "$bad" ]; then
			echo "ok $n $name"
		else
			echo "# not built:$bad"
			echo "not ok $n $name"
			failed=1
		fi
	done
	exit $failed
}
