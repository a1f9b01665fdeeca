#!/bin/sh
# Host suite: every patch in patches/series passes checkpatch --strict.
# Debian's python3 first: spdxcheck.py needs python3-ply and python3-git.
# Prints KTAP.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top/patches" || exit 1
# Every patch of every topic series; cover letters have no diff to check.
set -- $("$top/scripts/topics.py" list)
echo "KTAP version 1"
echo "1..$#"
n=0 fails=0
for p in "$@"; do
	n=$((n + 1))
	if out=$(cd "$top/build/linux" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict -q \
		--no-summary "$top/patches/$p" 2>&1) && [ -z "$out" ]; then
		echo "ok $n checkpatch $p"
	else
		echo "$out" | sed 's/^/# /'
		echo "not ok $n checkpatch $p"
		fails=$((fails + 1))
	fi
done
[ "$fails" = 0 ]
