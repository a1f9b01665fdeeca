#!/bin/sh
# On the host: compile the objects of the drivers the 3.9 article names
# that 6.12 still has and x86_64 can build (config/drivers.config), from
# the tree of the kernel under test, in its own O= directory with ccache.
# Prints KTAP: one case per driver, ok when Kconfig kept the driver's
# options and make, run for its objects alone, exited 0 and built every
# one of them in this run (they are removed first: an object left by an
# earlier build proves nothing).
#   tests/article/drivers.sh [lab|stock|debug]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
case "${1:-lab}" in
stock) src=$top/build/stock ;;
*) src=$top/build/linux ;;
esac
out=$src/.out-drivers
. "$top/build/linux/tools/testing/selftests/kselftest/ktap_helpers.sh" || exit 2

# name|the options Kconfig must keep|objects (relative to the tree)
drivers="cypress_ps2_touchpad|CONFIG_MOUSE_PS2 CONFIG_MOUSE_PS2_CYPRESS|drivers/input/mouse/cypress_ps2.o
cypress_apa_i2c_trackpad|CONFIG_MOUSE_CYAPA|drivers/input/mouse/cyapa.o drivers/input/mouse/cyapa_gen3.o drivers/input/mouse/cyapa_gen5.o drivers/input/mouse/cyapa_gen6.o
maxim_max6697_family|CONFIG_SENSORS_MAX6697|drivers/hwmon/max6697.o
ti_ina209|CONFIG_SENSORS_INA209|drivers/hwmon/ina209.o
ti_lp8755|CONFIG_REGULATOR_LP8755|drivers/regulator/lp8755.o
goldfish_x86_platform|CONFIG_X86_GOLDFISH CONFIG_GOLDFISH CONFIG_GOLDFISH_PIPE|drivers/platform/goldfish/goldfish_pipe.o
sgi_uv3|CONFIG_X86_UV|arch/x86/kernel/apic/x2apic_uv_x.o arch/x86/platform/uv/uv_nmi.o"

ktap_print_header
ktap_set_plan "$(echo "$drivers" | wc -l)"
[ -f "$src/Makefile" ] || ktap_exit_fail_msg "$src missing: run 'make tree stock'"

export KBUILD_BUILD_TIMESTAMP="2013-02-20" KBUILD_BUILD_USER=lab KBUILD_BUILD_HOST=lab
export CCACHE_BASEDIR="$top/build" CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros
kmake() { make -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" -j"$(nproc)" "$@" < /dev/null; }
mkdir -p "$out"
start=$(date +%s)
log=$out/build.log
{
	kmake -s tinyconfig &&
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
		"$top/config/lab.config" "$top/config/drivers.config" &&
	kmake -s olddefconfig
} > "$log" 2>&1 || ktap_exit_fail_msg "configuring failed: $log"
# Every option of drivers.config that Kconfig dropped (removed, or its
# dependencies gone); a driver whose own options are among them fails.
missing=$(grep -E '^CONFIG_[A-Z0-9_]+=y' "$top/config/drivers.config" | while read -r want; do
	grep -qx "$want" "$out/.config" || echo "${want%=y}"
done)
[ -z "$missing" ] || echo "# not in the final .config: $(echo $missing)"
while IFS='|' read -r name configs files; do
	dropped='' bad='' status=0
	for c in $configs; do
		grep -qx "$c=y" "$out/.config" || dropped="$dropped $c"
	done
	for o in $files; do
		rm -f "$out/$o"
	done
	if [ -z "$dropped" ]; then
		echo "== $name: make $files" >> "$log"
		# shellcheck disable=SC2086
		kmake $files >> "$log" 2>&1 || status=$?
	fi
	for o in $files; do
		[ -s "$out/$o" ] || bad="$bad $o"
	done
	if [ -z "$dropped$bad" ] && [ "$status" = 0 ]; then
		ktap_test_pass "$name"
	else
		[ -z "$dropped" ] || echo "# $name: Kconfig dropped$dropped, so it was not built"
		[ "$status" = 0 ] || echo "# $name: make exited $status (log: ${log#"$top"/})"
		[ -n "$dropped" ] || [ -z "$bad" ] || echo "# $name: not built:$bad"
		ktap_test_fail "$name"
	fi
done <<EOF
$drivers
EOF
echo "# compiled in $(( $(date +%s) - start )) s from $(git -C "$src" describe --always --tags 2>/dev/null); log: ${log#$top/}"
ktap_finished
