#!/bin/sh
# Install what the lab needs from Debian's packages; quick when all is there.
#   scripts/deps.sh [all|build|run] [--background LOG]
# build: what unpacking the tree and building the kernels and the
# selftests need; run: what the guests and the suites need; all: both.
# --background installs in the background, writing apt's output to LOG
# and its exit status to LOG.rc once done; what cannot be installed
# (no apt-get, not root) is still reported before it returns.
set -eu

build="linux-source-6.12 build-essential flex bison bc libelf-dev libssl-dev
       python3 git xz-utils cpio rsync ccache"
run="qemu-system-x86 busybox-static iproute2 dbench trace-cmd linux-perf gnuplot-nox
     python3-ply python3-git iputils-ping"
case "${1:-all}" in
all) pkgs="$build $run" ;;
build) pkgs=$build ;;
run) pkgs=$run ;;
*) echo "usage: scripts/deps.sh [all|build|run] [--background LOG]" >&2; exit 2 ;;
esac
log=
if [ "${2:-}" = --background ]; then
	log=${3:?deps: --background needs a log file}
	rm -f "$log" "$log.rc"
fi

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	[ -z "$log" ] || echo 0 > "$log.rc"
	exit 0
fi

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
install() {
	# shellcheck disable=SC2086
	if ! apt-get install -y -qq --no-install-recommends $missing 2>/dev/null; then
		echo "deps: updating the package lists"
		apt-get update -qq
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $missing
	fi
}
if [ -n "$log" ]; then
	echo "deps: installing in the background (log: $log):$missing"
	(
		rc=0
		install > "$log" 2>&1 || rc=$?
		echo "$rc" > "$log.rc"
	) &
	exit 0
fi
echo "deps: installing:$missing"
install
