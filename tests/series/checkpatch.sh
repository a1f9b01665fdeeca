#!/bin/sh
# Host suite: every patch in patches/series passes checkpatch --strict.
# checkpatch's reminder to update MAINTAINERS for a new file
# (FILE_PATH_CHANGES) is replaced by the check it stands for: every file a
# patch adds must have a maintainer in MAINTAINERS (get_maintainer.pl).
# Debian's python3 first: spdxcheck.py needs python3-ply and python3-git.
# UNKNOWN_COMMIT_ID is ignored: the tree has no upstream history, so the
# commit of a Fixes: tag cannot be looked up; the tag's form is still
# checked (GIT_COMMIT_ID).
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
	out=$(cd "$top/build/linux" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict -q \
		--ignore FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID --no-summary "$top/patches/$p" 2>&1)
	for f in $(sed -n '/^new file mode/{x;s|^diff --git a/\([^ ]*\) .*|\1|p;};h' "$top/patches/$p"); do
		(cd "$top/build/linux" && scripts/get_maintainer.pl --no-git --no-git-fallback \
			-f "$f" 2>/dev/null | grep -q '(maintainer:') ||
			out="$out${out:+
}new file $f: no maintainer in MAINTAINERS; add an F: entry"
	done
	if [ -z "$out" ]; then
		echo "ok $n checkpatch $p"
	else
		echo "$out" | sed 's/^/# /'
		echo "not ok $n checkpatch $p"
		fails=$((fails + 1))
	fi
done
[ "$fails" = 0 ]
