#!/usr/bin/env bash
# Export the commits of the "make tree" worktree back to kernel-patches/,
# one topic series per tree (kernel-patches/TREE/topics): each commit goes to
# the topic that owns every file it changes, and each topic is exported
# from its own commits alone, cherry-picked onto the baseline, so that it
# applies to the baseline by itself.  A commit that changes files of two
# topics, or files no topic owns, a topic whose commits come after those
# of a topic listed later, or one that does not apply to the baseline
# alone, is named and nothing is written.
#
# Each topic gets its patches (git format-patch, numbered "[PATCH n/N]"
# as a series is mailed), its series, and its cover letter,
# 0000-cover-letter.patch ("[PATCH 0/N]"), whose subject and text are kept
# from the one it replaces (scripts/checks/cover-letter.py) and which names the
# maintainers and lists (scripts/get_maintainer.pl), the base commit and
# the topic's KUnit cases from kunit/plan.  The output is stable (zero
# commit ids, fixed abbreviation, no version signature), so a refresh
# without changes leaves "git diff" empty.
. "$(dirname "$0")/../common.sh"

[ -z "${TOPICS:-}" ] || die "make refresh exports every topic: unset TOPICS"
lock exclusive
git -C "$DEVTREE" rev-parse --git-dir >/dev/null 2>&1 ||
	die "no tree at $DEVTREE: run 'make tree' first"
dgit=(git -C "$DEVTREE" -c core.abbrev=12 -c diff.algorithm=myers
      -c diff.noprefix=false -c diff.mnemonicprefix=false -c gc.auto=0)
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

mapfile -t topics < <(topic_list)
topic_of() {	# topic_of FILE: the topic that owns FILE, or nothing
	local t p
	for t in "${topics[@]}"; do
		for p in $(topic_paths "$t"); do
			case "$1" in "$p"*) echo "$t"; return ;; esac
		done
	done
}

# Sort the commits into their topics.
declare -A commits
last=0
while read -r c; do
	subject=$("${dgit[@]}" log -1 --format=%s "$c")
	owner=
	while read -r f; do
		t=$(topic_of "$f")
		[ -n "$t" ] || die "commit \"$subject\" changes $f, which no topic of $PNAME/topics owns"
		[ -z "$owner" ] || [ "$owner" = "$t" ] ||
			die "commit \"$subject\" changes files of two topics, $owner and $t ($f): split it"
		owner=$t
	done < <("${dgit[@]}" diff-tree --no-commit-id --name-only -r "$c")
	[ -n "$owner" ] || die "commit \"$subject\" changes no file"
	for i in "${!topics[@]}"; do [ "${topics[i]}" = "$owner" ] && idx=$i; done
	[ "$idx" -ge "$last" ] ||
		die "commit \"$subject\" of topic $owner comes after commits of ${topics[last]}, which $PNAME/topics applies after $owner: reorder the commits (git rebase -i)"
	last=$idx
	commits[$owner]="${commits[$owner]:-} $c"
done < <("${dgit[@]}" rev-list --reverse baseline..HEAD)

tmp=$(mktemp -d)
wt=$tmp/worktree
cleanup() {
	cgit worktree remove --force "$wt" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
cgit worktree add -q --detach "$wt" baseline
wgit=(git -C "$wt" -c user.name=dmatopics -c user.email=dmatopics@localhost
      -c core.abbrev=12 -c diff.algorithm=myers -c diff.noprefix=false
      -c diff.mnemonicprefix=false -c gc.auto=0 -c advice.detachedHead=false)
# The cover letters' base-commit is the baseline commit as baseline.sh
# makes it on a fresh machine (fixed identity and date, so that the id
# depends only on the tarball), for the package version the tree was
# made from (its baseline commit's subject), not the one installed now:
# make rebase installs another one for a while.
version=$("${dgit[@]}" log -1 --format=%s baseline | sed -n "s/^$PACKAGE //p")
[ -n "$version" ] || die "$DEVTREE: the baseline commit does not name its package version"
base=$(baseline_message "$version" |
	baseline_git -C "$DEVTREE" commit-tree -F - "$("${dgit[@]}" rev-parse 'baseline^{tree}')")

for t in "${topics[@]}"; do
	out=$tmp/out/$t
	mkdir -p "$out"
	: >"$out/series"
	if [ -z "${commits[$t]:-}" ]; then
		note "topic $t: no commit (its cover letter is kept)"
		cp "$PATCHES/$t/0000-cover-letter.patch" "$out/" 2>/dev/null || true
		continue
	fi
	"${wgit[@]}" checkout -q -f --detach baseline
	"${wgit[@]}" clean -ffdxq
	# shellcheck disable=SC2086
	"${wgit[@]}" cherry-pick --allow-empty ${commits[$t]} >"$tmp/pick.out" 2>&1 || {
		sed 's/^/    git cherry-pick: /' "$tmp/pick.out" >&2
		"${wgit[@]}" cherry-pick --abort >/dev/null 2>&1 || true
		die "topic $t does not apply to the baseline by itself (above); nothing was written"
	}
	"${wgit[@]}" format-patch -q --zero-commit --no-signature --numbered --no-renames \
		-o "$out" baseline..HEAD
	(cd "$out" && ls -1 -- *.patch) >"$out/series"
	# The cover letter, as "git format-patch --cover-letter --base" writes
	# it, with the subject and text of the one it replaces.
	"${wgit[@]}" -c user.name="$("${wgit[@]}" log -1 --format=%an)" \
		-c user.email="$("${wgit[@]}" log -1 --format=%ae)" \
		format-patch -q --zero-commit --no-signature --numbered --no-renames \
		--cover-letter --base=baseline -o "$tmp/cover/$t" baseline..HEAD
	(cd "$wt" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-tree --roles "$out"/*.patch 2>/dev/null) >"$tmp/maintainers" || true
	# Recipients get_maintainer.pl does not find, with the reason.
	recipients=
	[ ! -f "$PATCHES/$t/recipients" ] || recipients=$PATCHES/$t/recipients
	python3 "$TOP/scripts/checks/cover-letter.py" "$tmp/cover/$t/0000-cover-letter.patch" \
		"$PATCHES/$t/0000-cover-letter.patch" "$base" \
		"$("${wgit[@]}" log -1 --format=%aD)" \
		--plan "$TOP/kunit/plan" --topic-paths "$(topic_paths "$t" | tr '\n' ' ')" \
		--maintainers "$tmp/maintainers" \
		${recipients:+--recipients "$recipients"} >"$out/0000-cover-letter.patch"
done

for t in "${topics[@]}"; do
	mkdir -p "$PATCHES/$t"
	rm -f "$PATCHES/$t"/*.patch
	cp "$tmp/out/$t"/* "$PATCHES/$t/"
done
cgit update-ref refs/dmatopics/exported "$("${dgit[@]}" rev-parse HEAD)"
for t in "${topics[@]}"; do
	note "topic $t: exported $(grep -c . "$PATCHES/$t/series") patch(es) to $PNAME/$t/"
done
