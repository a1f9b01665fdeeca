#!/bin/sh
# Build every commit of base..lab on its own, in a scratch worktree
# (build/bisect), to keep the series bisectable.  Same config as the lab.
# Each commit builds the directories its C files live in (FULL=1: the
# whole bzImage, which under TCG-sized machines takes minutes a commit).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tree=$top/build/linux
wt=$top/build/bisect
[ -e "$wt/.git" ] || git -C "$tree" worktree add -q --detach "$wt" base
targets() {
	if [ "${FULL:-0}" = 1 ]; then
		echo bzImage
		return
	fi
	git -C "$tree" show --name-only --format= "$1" | grep -E '^(kernel|mm|fs|net|drivers|arch)/.*\.c$' |
		sed 's|/[^/]*$|/|' | sort -u
}
for c in $(git -C "$tree" rev-list --reverse base..lab); do
	git -C "$wt" checkout -q "$c"
	echo "bisect-build: $(git -C "$wt" log --oneline -1)"
	if [ -z "$(targets "$c")" ]; then
		echo "bisect-build:   no kernel C files: nothing to build"
		continue
	fi
	cp "$tree/.out/.config" "$wt/.config.lab"
	mkdir -p "$wt/.out"
	cp "$wt/.config.lab" "$wt/.out/.config"
	make -s -C "$wt" O="$wt/.out" ARCH=x86_64 CC="ccache gcc" olddefconfig
	KBUILD_BUILD_TIMESTAMP=2013-02-20 CCACHE_BASEDIR="$top/build" CCACHE_NOHASHDIR=1 \
		make -s -C "$wt" O="$wt/.out" ARCH=x86_64 CC="ccache gcc" -j"$(nproc)" $(targets "$c") ||
		{ echo "bisect-build: $c does not build" >&2; exit 1; }
done
echo "bisect-build: every commit builds"
