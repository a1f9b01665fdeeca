#!/bin/sh
# The kernel work trees, both git-ignored under build/:
#   build/linux  Debian's linux-source-6.12, imported and tagged "base",
#                with the topic series of patches/ (patches/series lists
#                them: sched, tracing-fixes, ring-buffer, tracing, v3.9-repro)
#                applied on top as commits (the lab kernel)
#   build/stock  a worktree of "base" (the stock kernel)
#   build/upstream  a worktree of the last upstream-bound commit: base +
#                the sched and the three tracing topics, without v3.9-repro (the
#                upstream kernel, what we would post)
#
# Usage: scripts/tree.sh init|apply|export|stock|upstream|version
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tarball=${LAB_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
tree=$top/build/linux
stock=$top/build/stock
upstream=$top/build/upstream
patches=$top/patches

die() { echo "tree: $*" >&2; exit 1; }

# Commits in the work tree need an identity even on a machine without one.
git_() {
	if git -C "$tree" config user.email >/dev/null 2>&1; then
		git -C "$tree" "$@"
	else
		git -C "$tree" -c user.name=lab -c user.email=lab@localhost "$@"
	fi
}

has_base() { git -C "$tree" rev-parse -q --verify refs/tags/base >/dev/null 2>&1; }

version() {
	pkg=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown)
	kv=$(make -s -C "$tree" kernelversion 2>/dev/null || echo unknown)
	echo "linux-source-6.12 $pkg, kernel $kv, series: $(git -C "$tree" rev-list --count base..HEAD) patches"
}

do_init() {
	if has_base; then
		if [ "$(ids_tree)" != "$(ids_files)" ]; then
			# CI must test patches/, nothing else.
			[ "${CI:-}" != true ] || die "build/linux (base..HEAD) differs from patches/;" \
				"CI tests patches/ only: 'make apply', or 'make export' and commit"
			echo "tree: warning: build/linux (base..HEAD) differs from patches/;" \
				"'make apply' to take patches/, 'make export' to keep the tree" >&2
		fi
		return 0
	fi
	[ -r "$tarball" ] || die "$tarball not found: run 'make deps' (apt-get install linux-source-6.12)"
	echo "tree: unpacking $(basename "$tarball") into build/linux"
	rm -rf "$tree" "$tree.tmp"
	mkdir -p "$tree.tmp"
	tar -xJf "$tarball" -C "$tree.tmp" --strip-components=1
	git -C "$tree.tmp" init -q -b lab
	git -C "$tree.tmp" config core.autocrlf false
	git -C "$tree.tmp" config gc.auto 0
	echo '/.out/' >> "$tree.tmp/.git/info/exclude"
	git -C "$tree.tmp" add -A -f .
	pkg=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown)
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
		git -C "$tree.tmp" -c user.name=lab -c user.email=lab@localhost \
		commit -q -m "Import Debian linux-source-6.12 $pkg"
	git -C "$tree.tmp" tag base
	mv "$tree.tmp" "$tree"
	do_apply
}

# Patch ids of base..HEAD and of patches/, to tell whether the tree holds
# work that patches/ does not.
ids_tree() { git_ log --reverse -p base..HEAD | git patch-id --stable | cut -d' ' -f1 | sort; }
ids_files() {
	[ -f "$patches/series" ] || return 0
	(cd "$patches" && "$top/scripts/topics.py" list | xargs -r cat) | git patch-id --stable | cut -d' ' -f1 | sort
}

do_apply() {
	has_base || die "no work tree: run 'make tree'"
	[ -z "$(git_ status --porcelain --untracked-files=no)" ] ||
		die "build/linux has uncommitted changes; commit or stash them first"
	if [ "${FORCE:-0}" != 1 ] && [ "$(ids_tree)" != "$(ids_files)" ] &&
	   [ "$(git_ rev-list --count base..HEAD)" != 0 ]; then
		die "build/linux has commits that patches/ lacks; 'make export' first, or FORCE=1 to drop them"
	fi
	git_ checkout -q -B lab base
	[ -f "$patches/series" ] || { echo "tree: no patches/series, tree is at base"; return 0; }
	list=$("$top/scripts/topics.py" list) || die "patches/ is not a set of topic series"
	n=0
	for p in $list; do
		[ -f "$patches/$p" ] || die "patches/${p%/*}/series names ${p##*/}, which does not exist"
		n=$((n + 1))
	done
	# One git am for the whole series: one refresh of the index, not one
	# per patch (4 s against 18 s for 39 patches).
	# shellcheck disable=SC2086
	if ! out=$(git_ am -q $(echo "$list" | sed "s|^|$patches/|") 2>&1); then
		k=$(cat "$tree/$(git_ rev-parse --git-path rebase-apply/next)" 2>/dev/null || echo 0)
		git_ am --abort >/dev/null 2>&1 || true
		echo "$out" | grep -E '^(error|Patch failed|fatal)' >&2 || echo "$out" >&2
		p=$(echo "$list" | sed -n "${k}p")
		die "patch ${p:-of patches/} does not apply to build/linux (see the file and hunk above)"
	fi
	echo "tree: applied $n patches onto base"
}

do_export() {
	has_base || die "no work tree: run 'make tree'"
	[ -z "$(git_ status --porcelain --untracked-files=no)" ] ||
		die "build/linux has uncommitted changes; commit them first"
	mkdir -p "$patches"
	"$top/scripts/topics.py" export "$tree"
}

do_stock() {
	has_base || do_init
	if [ ! -d "$stock/.git" ] && [ ! -f "$stock/.git" ]; then
		rm -rf "$stock"
		git_ worktree prune
		git_ worktree add -q --detach "$stock" base
	fi
}

# The upstream kernel's tree follows build/linux: its commit is the last
# one of the upstream-bound topics, counted in patches/.  Checking the
# commit out again touches only the files that differ, so a rebuild after
# an edit stays incremental.
do_upstream() {
	has_base || do_init
	n=$("$top/scripts/topics.py" list | grep -vc '^v3\.9-repro/' || true)
	if [ "$n" = 0 ]; then
		commit=$(git_ rev-parse base)
	else
		commit=$(git_ rev-list --reverse base..HEAD | sed -n "${n}p")
	fi
	[ -n "$commit" ] || die "build/linux has fewer than the $n upstream-bound commits of patches/"
	if [ ! -d "$upstream/.git" ] && [ ! -f "$upstream/.git" ]; then
		rm -rf "$upstream"
		git_ worktree prune
		git_ worktree add -q --detach "$upstream" "$commit"
	elif [ "$(git -C "$upstream" rev-parse HEAD)" != "$commit" ]; then
		git -C "$upstream" checkout -q --detach "$commit"
	fi
	echo "tree: build/upstream at $(git_ log -1 --format='%h %s' "$commit")"
}

case "${1:-}" in
init) do_init ;;
upstream) do_upstream ;;
apply) do_apply ;;
export) do_export ;;
stock) do_stock ;;
version) version ;;
*) die "usage: scripts/tree.sh init|apply|export|stock|upstream|version" ;;
esac
