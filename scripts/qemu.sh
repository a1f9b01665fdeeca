#!/bin/sh
# QEMU 10 from Debian's bookworm-backports, unpacked under build/qemu/:
# multi-threaded TCG before QEMU 10 can run a stale translation of code
# the kernel has just patched ("Oops: int3" after a tracer switch, seen on
# bookworm's QEMU 7.2), and lablib/guest.py uses this QEMU when it is
# there.  Neither the system's apt sources nor its packages change: apt
# gets a sources list, lists and cache of its own under build/qemu/apt,
# and the packages are unpacked with dpkg -x, not installed.  The shared
# libraries are bookworm's, which QEMU 7.2 (make deps) has installed.
#   scripts/qemu.sh          fetch and unpack, unless already there
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/build/qemu
bin=$dir/root/usr/bin/qemu-system-x86_64
pkgs="qemu-system-x86 qemu-system-common qemu-system-data"

if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q 'version 1[0-9]\.'; then
	exit 0
fi
command -v apt-get >/dev/null 2>&1 || { echo "qemu: no apt-get here; the lab uses the system's QEMU" >&2; exit 1; }
apt=$dir/apt
rm -rf "$dir/root" "$apt/debs"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
	"http://deb.debian.org/debian bookworm-backports main" > "$apt/sources.list"
opts="-o Dir::Etc::SourceList=$apt/sources.list -o Dir::Etc::SourceParts=/dev/null
      -o Dir::State::Lists=$apt/lists -o Dir::Cache=$apt/cache
      -o APT::Sandbox::User=root"
echo "qemu: fetching QEMU 10 ($pkgs) from bookworm-backports into build/qemu"
# shellcheck disable=SC2086
apt-get -qq $opts update
# shellcheck disable=SC2086
(cd "$apt/debs" && apt-get -qq $opts download $(for p in $pkgs; do echo "$p/bookworm-backports"; done))
mkdir -p "$dir/root.tmp"
for deb in "$apt/debs"/*.deb; do dpkg -x "$deb" "$dir/root.tmp"; done
missing=$(ldd "$dir/root.tmp/usr/bin/qemu-system-x86_64" | grep 'not found' || true)
if [ -n "$missing" ]; then
	rm -rf "$dir/root.tmp"
	echo "qemu: QEMU 10 lacks libraries here:" >&2
	echo "$missing" >&2
	exit 1
fi
mv "$dir/root.tmp" "$dir/root"
rm -rf "$apt/debs" "$apt/cache"
echo "qemu: $("$bin" --version | head -n 1)"
