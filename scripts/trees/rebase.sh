#!/usr/bin/env bash
# make rebase VERSION=V: move the series of TREE to linux-source-TREE V.
#
#   1. the series is applied to V's tree with "git am -3" (three-way, with
#      the blobs of the current baseline + series at hand); a patch that
#      does not apply is named with the files that conflict, and nothing
#      is changed;
#   2. the patches are exported again (make refresh) from the result;
#   3. the baseline files kunit/baseline/V/ are made (make baseline);
#   4. make check runs on V, with the configurations it ran before they
#      moved to make check-full: our suites and e2e boots on x86_64 and
#      arm, kunit.py's default run on UML and x86_64 against the baseline
#      files of step 3, modules and W=1 + sparse on x86_64.
# Only when all of that is green is its linux-source.pin set to V and the
# cache for V put in place of the old one (kept as $CACHE.VERSION: remove
# it yourself).  Otherwise kernel-patches/TREE/ and its linux-source.pin are as
# they were, and the pinned version is installed again.
#
# The work is done in a cache of its own, $CACHE.rebase (the compiler
# cache is shared).  kernel-patches/ must hold no uncommitted change, and
# the "make tree" tree nothing that "make refresh" has not exported.
#
# usage: scripts/trees/rebase.sh VERSION
. "$(dirname "$0")/../common.sh"

new=${1:-}
[ -n "$new" ] || die "usage: $(rebase_cmd) VERSION=V (apt-cache madison $PACKAGE lists the versions)"
[ -z "${TOPICS:-}" ] || die "make rebase moves every topic series: unset TOPICS"
old=$(pinned_version)
[ "$new" != "$old" ] || die "the series is already pinned to $PACKAGE $new"
dirty=$(git -C "$TOP" status --porcelain -- "$PNAME" kunit)
[ -z "$dirty" ] ||
	die "$PNAME/ (its linux-source.pin among them) or kunit/ have uncommitted changes: commit them first"
if git -C "$DEVTREE" rev-parse --git-dir >/dev/null 2>&1; then
	dirty=$(git -C "$DEVTREE" status --porcelain --ignored)
	[ -z "$dirty" ] || die "$DEVTREE has uncommitted changes: commit and export them (make refresh) first"
	[ "$(git -C "$DEVTREE" rev-parse HEAD)" = "$(cgit rev-parse -q --verify refs/dmatopics/exported || true)" ] ||
		die "$DEVTREE holds commits that 'make refresh' has not exported: export them first"
fi
NEWCACHE=$CACHE.rebase
[ ! -e "$CACHE.$old" ] || die "$CACHE.$old exists (a cache kept by an earlier rebase): remove it first"
[ ! -e "$NEWCACHE" ] || die "$NEWCACHE exists (the work of an earlier make rebase): remove it first"

[ "$(id -u)" = 0 ] || die "make rebase installs $PACKAGE $new: run it as root"
apt_source_add "$new" "the version asked for"
apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null || die "apt-get update failed"
have=$(apt-cache madison $PACKAGE | awk '{ print $3 }')
echo "$have" | grep -qxF -- "$new" ||
	die "$PACKAGE $new is not in the archive; it has: $(echo $have)"

# The commit of baseline + series on the current version, when that
# version is at hand: its objects let "git am -3" merge where the context
# moved.  Without it the patches are applied with their own context.
oldcommit=
if [ "$(source_version)" = "$old" ]; then
	oldcommit=$("$TOP/scripts/trees/apply.sh" --commit) || oldcommit=
fi
[ -n "$oldcommit" ] ||
	note "$PACKAGE $old is not installed: the series is applied to $new without its old tree (no three-way merge)"
oldrepo=$SRC

finished=
restore() {	# put the package and the repository back as they were
	# (to the end: a second interrupt does not stop it half-way)
	trap - EXIT
	trap '' INT TERM
	[ -z "$finished" ] || return 0
	if [ "$(source_version)" != "$old" ]; then
		LINUX_SOURCE_VERSION=$old "$TOP/scripts/trees/deps.sh" x86_64 >&2 || true
	fi
	git -C "$TOP" checkout -q -- "$PNAME" kunit || true
	git -C "$TOP" clean -fdq -- "$PNAME" kunit/baseline || true
	echo "make rebase changed nothing: $PNAME/ and its linux-source.pin are as they were;
installed now: $PACKAGE $(source_version); the work is in $NEWCACHE (remove it when done)." >&2
}
fail() {
	echo "error: $1" >&2
	exit 1
}
trap restore EXIT
trap 'exit 130' INT TERM

export LINUX_SOURCE_VERSION=$new CCACHE_DIR=$CACHE/ccache
"$TOP/scripts/trees/deps.sh" || fail "installing $PACKAGE $new failed"
CACHE=$NEWCACHE "$TOP/scripts/trees/baseline.sh" || fail "unpacking $new failed"
ngit=(git -C "$NEWCACHE/linux" -c user.name=dmatopics -c user.email=dmatopics@localhost)
if [ -n "$oldcommit" ]; then
	"${ngit[@]}" fetch -q "$oldrepo" "$oldcommit" || fail "the old series commit could not be read from $oldrepo"
fi
"${ngit[@]}" worktree add -q -B dev "$NEWCACHE/tree" baseline || fail "no worktree in $NEWCACHE/tree"
tgit=(git -C "$NEWCACHE/tree" -c user.name=dmatopics -c user.email=dmatopics@localhost)
n=0
mapfile -t patches < <(series_files)
for f in "${patches[@]}"; do
	n=$((n + 1))
	if ! out=$("${tgit[@]}" am -q -3 --keep-cr "$f" 2>&1); then
		files=$("${tgit[@]}" diff --name-only --diff-filter=U | tr '\n' ' ')
		"${tgit[@]}" am --abort >/dev/null 2>&1 || true
		echo "$out" | sed 's/^/    git am -3: /' >&2
		fail "patch $n, $(patch_name "$f"), does not apply to $PACKAGE $new${files:+: conflicts in $files}"
	fi
done
note "the $n patch(es) apply to $PACKAGE $new"
"${ngit[@]}" update-ref refs/dmatopics/exported "$("${tgit[@]}" rev-parse HEAD)"
CACHE=$NEWCACHE "$TOP/scripts/trees/refresh.sh" || fail "exporting the rebased series failed"
CACHE=$NEWCACHE "$TOP/scripts/trees/make-baseline.sh" || fail "the baseline runs on $new failed"
CACHE=$NEWCACHE TIER=check "$TOP/scripts/runs/check.sh" x86_64 arm host um configs-x86_64 ||
	fail "make check failed on $PACKAGE $new"

sed -i "s/^$old\$/$new/" "$PIN"
[ "$(LINUX_SOURCE_VERSION= pinned_version)" = "$new" ] || fail "$PNAME/linux-source.pin could not be updated"
# The new cache takes the place of the old one, under the old one's
# exclusive lock: no run uses it while it moves.
lock exclusive
finished=1
mv -T "$CACHE" "$CACHE.$old"
mv -T "$NEWCACHE" "$CACHE"
mv -T "$CACHE.$old/ccache" "$CACHE/ccache" 2>/dev/null || true
wts=()
for w in tree apply base; do [ -e "$CACHE/$w/.git" ] && wts+=("$CACHE/$w"); done
[ ${#wts[@]} -eq 0 ] || git -C "$CACHE/linux" worktree repair "${wts[@]}" ||
	note "git worktree repair failed: remove $CACHE/apply and $CACHE/base (made anew) and run make tree"
note "$PNAME/linux-source.pin: $old -> $new; $PNAME/ and kunit/baseline/$new/ are rewritten: review and commit them"
note "the cache of $old is kept in $CACHE.$old: remove it when you no longer need it"
