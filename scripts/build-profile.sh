#!/bin/sh
# Where a cold lab kernel build spends its time:
#   scripts/build-profile.sh [FRAGMENT...]     (default: config/lab.config)
# Configures tinyconfig + the fragments in build/profile/.out, from a
# source tree (default build/linux, or SRC=), and builds bzImage and
# modules with no ccache, timing every compiler run.  Prints the wall time
# of each step and the compile time (CPU seconds, summed over both jobs)
# per directory, largest first.  Takes as long as a cold build.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
src=${SRC:-$top/build/linux}
out=$top/build/profile/.out
log=$top/build/profile/cc.log
[ $# -gt 0 ] || set -- "$top/config/lab.config"
for f in "$@"; do
	[ -f "$f" ] || { echo "build-profile: no fragment $f" >&2; exit 2; }
done
[ -f "$src/Makefile" ] || { echo "build-profile: $src missing: run 'make tree'" >&2; exit 1; }

rm -rf "$top/build/profile" && mkdir -p "$out"
cc=$top/build/profile/timecc
cat > "$cc" <<'EOT'
#!/bin/sh
# Run the compiler; log "seconds object" for every -o.
s=$(date +%s%N)
"$@"
rc=$?
o=; prev=
for a in "$@"; do [ "$prev" = -o ] && o=$a; prev=$a; done
[ -z "$o" ] || echo "$(( ($(date +%s%N) - s) / 1000000 )) $o" >> "$PROFILE_LOG"
exit $rc
EOT
chmod +x "$cc"
export PROFILE_LOG=$log KBUILD_BUILD_TIMESTAMP=2013-02-20
export KBUILD_BUILD_USER=lab KBUILD_BUILD_HOST=lab
kmake() { make -C "$src" O="$out" ARCH=x86_64 CC="$cc gcc" HOSTCC="$cc gcc" "$@"; }

step() {
	name=$1; shift
	s=$(date +%s)
	"$@" >/dev/null
	echo "step $name $(( $(date +%s) - s ))s"
}
: > "$log"
step tinyconfig kmake -s tinyconfig
step merge "$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$@"
step olddefconfig kmake -s olddefconfig
step bzImage kmake -s -j"$(nproc)" bzImage
step modules kmake -s -j"$(nproc)" modules

echo "compile time by directory (CPU s; objects):"
awk '{ n = split($2, p, "/"); d = p[1];
       if (n > 2 && (d == "drivers" || d == "arch" || d == "kernel" || d == "net" ||
                     d == "fs" || d == "lib" || d == "scripts" || d == "tools"))
               d = d "/" p[2];
       if (n > 3 && (d == "arch/x86" || d == "drivers/acpi")) d = d "/" p[3];
       t[d] += $1; c[d]++; all += $1 }
     END { for (d in t) printf "%8.1f %5d %s\n", t[d] / 1000, c[d], d;
           printf "%8.1f %5d total\n", all / 1000, NR }' "$log" | sort -rn
