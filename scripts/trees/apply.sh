#!/usr/bin/env bash
# Bring the build tree $CACHE/linux to exactly baseline + the topic series
# of kernel-patches/ (kernel-patches/TREE/topics names them, in order).
#
# The series is applied with "git am" in a scratch worktree ($CACHE/apply)
# and the result is remembered under refs/dmatopics/series/<hash of series>.
# The build tree is then checked out at that commit, so git rewrites only the
# files whose content differs and make rebuilds only what the series changed.
# A patch that does not apply is named, and the build tree is left at the
# baseline, never half-applied.  Applying in the scratch worktree takes a
# lock of its own ($CACHE/apply.lock), never the lock of the build tree:
# a stage that builds for a long time under the shared lock does not
# keep another from applying.  The build tree is changed under the
# exclusive lock of the cache, only when it is not already at the series;
# the script returns holding it shared, with the tree at baseline +
# series, so that the caller builds what it asked for.
# $CACHE/linux.state records a finished checkout: an interrupted one is
# redone by the next run.
#
# usage: scripts/trees/apply.sh            update the build tree
#        scripts/trees/apply.sh --commit   only print the commit of baseline + series
. "$(dirname "$0")/../common.sh"

series_files >/dev/null	# a series naming a missing file stops here
lock shared
"$TOP/scripts/trees/baseline.sh"

key=$(series_key)
ref=refs/dmatopics/series/$key
state=$CACHE/linux.state

apply_series() {
	# (Re)create the scratch worktree if it is missing or broken.
	if ! git -C "$APPLY" rev-parse --git-dir >/dev/null 2>&1; then
		rm -rf "$APPLY"
		cgit worktree prune
		cgit worktree add -q --detach "$APPLY" baseline
	fi
	local agit=(git -C "$APPLY" -c user.name=dmatopics
		    -c user.email=dmatopics@localhost -c advice.detachedHead=false
		    -c gc.auto=0)
	"${agit[@]}" am --abort >/dev/null 2>&1 || true
	"${agit[@]}" checkout -q -f --detach baseline
	"${agit[@]}" clean -ffdxq

	local f out n=0 done=()
	while read -r f; do
		n=$((n + 1))
		if ! out=$("${agit[@]}" am -q --keep-cr --committer-date-is-author-date "$f" 2>&1); then
			"${agit[@]}" am --abort >/dev/null 2>&1 || true
			"${agit[@]}" checkout -q -f --detach baseline
			# The build tree was never touched: it is as it was.
			echo "$out" | grep '^error:' | sed 's/^/    git am: /' >&2
			local why
			why=$(conflicting_topics "$f" "$out" "${done[@]}")
			die "patch $n of the series, $(patch_name "$f"),
does not apply to baseline + the $((n - 1)) patch(es) before it (git's
'error:' lines above name the failing file).${why:+
$why}
Nothing was applied: the build tree $SRC was not touched."
		fi
		done+=("$f")
	done < <(series_files)
	cgit update-ref "$ref" "$("${agit[@]}" rev-parse HEAD)"
	note "applied $n patch(es): $(cgit rev-parse --short "$ref")"
	used

	# Keep only the few series used last (the commits' dates are their
	# patches', so the refs' dates say nothing of that), never this one.
	local old
	ls -t "$CACHE/series-used" | tail -n +9 | while read -r old; do
		[ "$old" = "$key" ] && continue
		cgit update-ref -d "refs/dmatopics/series/$old" 2>/dev/null || true
		rm -f "$CACHE/series-used/$old"
	done
}

# This series was used now: the newest few are kept.
used() {
	mkdir -p "$CACHE/series-used"
	touch "$CACHE/series-used/$key"
}

# When a patch does not apply to a file that a patch of another topic,
# applied before it, changes too: which, so that the error names the two
# topics that conflict.  usage: conflicting_topics PATCH GIT_OUTPUT APPLIED...
conflicting_topics() {
	local f=$1 out=$2 file p topic by=
	shift 2
	topic=$(dirname "$(patch_name "$f")")
	file=$(echo "$out" | sed -n -E 's/^error: (patch failed: )?([^: ]+):.*/\2/p' | head -n 1)
	[ -n "$file" ] || return 0
	for p in "$@"; do
		[ "$(dirname "$(patch_name "$p")")" != "$topic" ] || continue
		grep -q "^diff --git a/$file b/" "$p" && by="$by $(patch_name "$p")"
	done
	[ -z "$by" ] ||
		echo "Topic $topic conflicts with a topic applied before it: $file is also changed by$by.
Base one topic on the other (and say so in its cover letter), or change the order in $PNAME/topics."
}

have_ref() {
	cgit rev-parse -q --verify "$ref^{commit}" >/dev/null
}

if ! have_ref; then
	lock_apply
	if ! have_ref; then
		apply_series
	fi
	unlock_apply
fi
used

if [ "${1:-}" = --commit ]; then
	cgit rev-parse "$ref"
	exit 0
fi

# Is the build tree already exactly there?  Then go on under the shared
# lock; if not, change it under the exclusive one (lock_to_change).
want=$(cgit rev-parse "$ref")
at_series() {
	[ "$(cat "$state" 2>/dev/null)" = "$want" ]
}
if lock_to_change at_series; then
	rm -f "$state"
	# Only files that differ are rewritten; -f repairs an interrupted
	# checkout.
	cgit checkout -q -f --detach "$want"
	cgit reset -q --hard
	cgit clean -ffdxq
	echo "$want" >"$state"
	lock shared
fi
note "build tree at baseline + series ($(cgit rev-parse --short "$want")), $PACKAGE $(source_version)"
