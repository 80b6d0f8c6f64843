#!/usr/bin/env bash
# Materialise the patched tree for editing: $CACHE/tree, a git worktree on
# branch "dev" holding baseline + one commit per patch of the series.
# Edit and commit there, then export with "make refresh".
#
# It never throws work away: if the tree holds edits or commits that
# "make refresh" has not exported, it stops and says so.
. "$(dirname "$0")/../common.sh"

[ -z "${TOPICS:-}" ] || die "make tree materialises every topic series (make refresh exports them all): unset TOPICS"
lock shared
commit=$("$TOP/scripts/trees/apply.sh" --commit)
lock exclusive

if git -C "$DEVTREE" rev-parse --git-dir >/dev/null 2>&1; then
	dgit=(git -C "$DEVTREE")
	exported=$("${dgit[@]}" rev-parse -q --verify refs/dmatopics/exported || true)
	if [ -n "$("${dgit[@]}" status --porcelain --ignored)" ]; then
		die "$DEVTREE has uncommitted changes.
Commit them and run 'make refresh', or discard them yourself; nothing was changed."
	fi
	if [ "$("${dgit[@]}" rev-parse HEAD)" != "$exported" ]; then
		die "$DEVTREE has commits that 'make refresh' has not exported.
Run 'make refresh' first (or reset the branch yourself); nothing was changed."
	fi
	if [ "$("${dgit[@]}" rev-parse 'HEAD^{tree}')" = "$(cgit rev-parse "$commit^{tree}")" ]; then
		note "$DEVTREE is already baseline + series"
		exit 0
	fi
	"${dgit[@]}" checkout -q -B dev "$commit"
else
	rm -rf "$DEVTREE"
	cgit worktree prune
	cgit worktree add -q -B dev "$DEVTREE" "$commit"
fi
cgit update-ref refs/dmatopics/exported "$commit"
note "$DEVTREE: baseline + $(cgit rev-list --count baseline.."$commit") patch(es) on branch dev"
note "edit and commit there (one commit per patch), then 'make refresh'"
note "new files need 'git add -f' (Debian's .gitignore ignores everything new)"
