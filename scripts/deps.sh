#!/bin/sh
# Install what the lab needs from Debian's packages; quick when all is there.
set -eu

pkgs="linux-source-6.12 build-essential flex bison bc libelf-dev libssl-dev
      python3 git xz-utils cpio rsync ccache qemu-system-x86 busybox-static
      iproute2 dbench trace-cmd linux-perf gnuplot-nox python3-ply python3-git iputils-ping"

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "deps: installing:$missing"
if ! command -v apt-get >/dev/null 2>&1; then
	echo "deps: no apt-get here; install these Debian 12 packages by hand:$missing" >&2
	exit 1
fi
if [ "$(id -u)" != 0 ]; then
	echo "deps: need root to install:$missing; run 'sudo make deps' (or as root)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# The package lists are usually fresh (the set-up's first line updates
# them): refresh them only when the install cannot find or fetch what it
# needs, which saves a second update (16 s on a bare machine).
# shellcheck disable=SC2086
if ! apt-get install -y -qq --no-install-recommends $missing 2>/dev/null; then
	echo "deps: updating the package lists"
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing
fi
