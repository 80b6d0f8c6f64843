#!/usr/bin/env bash
# Export the commits of the "make tree" worktree back to kernel-patches/
# with git format-patch and rewrite kernel-patches/series.  The output is
# stable (zero commit ids, fixed abbreviation, no version signature), so a
# refresh without changes leaves "git diff" empty.  The cover letter,
# 0000-cover-letter.patch, is regenerated too; its subject and text are
# written in that file and kept (scripts/cover-letter.py).
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

# The cover letter, as "git format-patch --cover-letter --base" writes it,
# keeping the subject and text of the one it replaces.  Its base-commit is
# the baseline commit as baseline.sh makes it on a fresh machine (fixed
# identity and date, so the id depends only on the tarball).
base=$(baseline_message "$(source_version)" |
	baseline_git -C "$DEVTREE" commit-tree -F - "$("${dgit[@]}" rev-parse 'baseline^{tree}')")
"${dgit[@]}" format-patch -q --zero-commit --no-signature -N --no-renames \
	--cover-letter --base=baseline -o "$tmp/cover" baseline..HEAD
python3 "$TOP/scripts/cover-letter.py" "$tmp/cover/0000-cover-letter.patch" \
	"$PATCHES/0000-cover-letter.patch" "$base" "$("${dgit[@]}" log -1 --format=%aD)" \
	>"$tmp/0000-cover-letter.patch"

mkdir -p "$PATCHES"
rm -f "$PATCHES"/*.patch
[ -s "$tmp/series" ] && cp "$tmp"/*.patch "$PATCHES"/
cp "$tmp/series" "$PATCHES/series"
cgit update-ref refs/dmatopics/exported "$("${dgit[@]}" rev-parse HEAD)"
note "exported $(wc -l <"$PATCHES/series") patch(es) to kernel-patches/"
