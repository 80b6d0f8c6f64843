#!/usr/bin/env bash
# Export the commits of the "make tree" worktree back to kernel-patches/
# with git format-patch and rewrite kernel-patches/series.  The output is
# stable (zero commit ids, fixed abbreviation, no version signature), so a
# refresh without changes leaves "git diff" empty.
. "$(dirname "$0")/common.sh"

lock exclusive
git -C "$DEVTREE" rev-parse --git-dir >/dev/null 2>&1 ||
	die "no tree at $DEVTREE: run 'make tree' first"
dgit=(git -C "$DEVTREE" -c core.abbrev=12 -c diff.algorithm=myers
      -c diff.noprefix=false -c diff.mnemonicprefix=false)
[ -z "$("${dgit[@]}" status --porcelain)" ] ||
	die "$DEVTREE has uncommitted changes: commit them first (one commit per patch)"
# Debian's top-level .gitignore ignores everything ("/*"), so a new file is
# invisible to "git status" until it is added with "git add -f".
ignored=$("${dgit[@]}" status --porcelain --ignored | sed -n 's/^!! //p')
[ -z "$ignored" ] ||
	die "files in $DEVTREE are not committed and git ignores them (Debian's
.gitignore ignores every new file): add them with 'git add -f FILE' and commit,
or remove them:
$ignored"
"${dgit[@]}" merge-base --is-ancestor baseline HEAD ||
	die "$DEVTREE is not based on the baseline"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${dgit[@]}" format-patch -q --zero-commit --no-signature -N --no-renames \
	-o "$tmp" baseline..HEAD
(cd "$tmp" && ls -1 -- *.patch 2>/dev/null || true) >"$tmp/series"

mkdir -p "$PATCHES"
rm -f "$PATCHES"/*.patch
[ -s "$tmp/series" ] && cp "$tmp"/*.patch "$PATCHES"/
cp "$tmp/series" "$PATCHES/series"
cgit update-ref refs/dmatopics/exported "$("${dgit[@]}" rev-parse HEAD)"
note "exported $(wc -l <"$PATCHES/series") patch(es) to kernel-patches/"
