#!/usr/bin/env bash
# make rebase VERSION=V: move the series to linux-source-6.1 V.
#
#   1. the series is applied to V's tree with "git am -3" (three-way, with
#      the blobs of the current baseline + series at hand); a patch that
#      does not apply is named with the files that conflict, and nothing
#      is changed;
#   2. the patches are exported again (make refresh) from the result;
#   3. the baseline files kunit/baseline/V/ are made (make baseline);
#   4. make check runs on V.
# Only when all of that is green is linux-source.pin set to V and the
# cache for V put in place of the old one (kept as $CACHE.VERSION: remove
# it yourself).  Otherwise kernel-patches/ and linux-source.pin are as
# they were, and the pinned version is installed again.
#
# The work is done in a cache of its own, $CACHE.rebase (the compiler
# cache is shared).  kernel-patches/ must hold no uncommitted change, and
# the "make tree" tree nothing that "make refresh" has not exported.
#
# usage: scripts/rebase.sh VERSION
. "$(dirname "$0")/common.sh"

new=${1:-}
[ -n "$new" ] || die "usage: make rebase VERSION=V (apt-cache madison linux-source-6.1 lists the versions)"
old=$(pinned_version)
[ "$new" != "$old" ] || die "the series is already pinned to linux-source-6.1 $new"
[ -z "$(git -C "$TOP" status --porcelain -- kernel-patches linux-source.pin kunit)" ] ||
	die "kernel-patches/, kunit/ or linux-source.pin have uncommitted changes: commit them first"
if git -C "$DEVTREE" rev-parse --git-dir >/dev/null 2>&1 &&
	[ "$(git -C "$DEVTREE" rev-parse HEAD)" != "$(cgit rev-parse -q --verify refs/dmatopics/exported || true)" ]; then
	die "$DEVTREE holds commits that 'make refresh' has not exported: export them first"
fi

[ "$(id -u)" = 0 ] || die "make rebase installs linux-source-6.1 $new: run it as root"
apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null || die "apt-get update failed"
have=$(apt-cache madison linux-source-6.1 | awk '{ print $3 }')
echo "$have" | grep -qxF -- "$new" ||
	die "linux-source-6.1 $new is not in the archive; it has: $(echo $have)"

# The commit of baseline + series on the current version: its objects
# let "git am -3" merge where the context moved.
"$TOP/scripts/deps.sh" x86_64
oldcommit=$("$TOP/scripts/apply.sh" --commit)
oldrepo=$SRC

NEWCACHE=$CACHE.rebase
restore() {	# put the repository and the package back as they were
	git -C "$TOP" checkout -q -- kernel-patches linux-source.pin kunit
	git -C "$TOP" clean -fdq -- kernel-patches kunit/baseline
	LINUX_SOURCE_VERSION=$old "$TOP/scripts/deps.sh" x86_64 || true
}
fail() {
	restore
	die "$1
make rebase changed nothing: kernel-patches/ and linux-source.pin are as they
were, linux-source-6.1 $old is installed again; the work is in $NEWCACHE."
}
trap 'restore; exit 130' INT TERM

export LINUX_SOURCE_VERSION=$new CCACHE_DIR=$CACHE/ccache
LINUX_SOURCE_VERSION=$new "$TOP/scripts/deps.sh" || fail "installing linux-source-6.1 $new failed"
rm -rf "$NEWCACHE"
CACHE=$NEWCACHE "$TOP/scripts/baseline.sh" || fail "unpacking $new failed"
ngit=(git -C "$NEWCACHE/linux" -c user.name=dmatopics -c user.email=dmatopics@localhost)
"${ngit[@]}" fetch -q "$oldrepo" "$oldcommit" || fail "the old series commit could not be read from $oldrepo"
"${ngit[@]}" worktree add -q -B dev "$NEWCACHE/tree" baseline
tgit=(git -C "$NEWCACHE/tree" -c user.name=dmatopics -c user.email=dmatopics@localhost)
n=0
while read -r f; do
	n=$((n + 1))
	if ! out=$("${tgit[@]}" am -q -3 --keep-cr "$f" 2>&1); then
		files=$("${tgit[@]}" diff --name-only --diff-filter=U | tr '\n' ' ')
		"${tgit[@]}" am --abort >/dev/null 2>&1 || true
		echo "$out" | sed 's/^/    git am -3: /' >&2
		fail "patch $n, $(basename "$f"), does not apply to linux-source-6.1 $new${files:+: conflicts in $files}"
	fi
done < <(series_files)
note "the $n patch(es) apply to linux-source-6.1 $new"
"${ngit[@]}" update-ref refs/dmatopics/exported "$("${tgit[@]}" rev-parse HEAD)"
CACHE=$NEWCACHE "$TOP/scripts/refresh.sh" || fail "exporting the rebased series failed"
CACHE=$NEWCACHE "$TOP/scripts/make-baseline.sh" || fail "the baseline runs on $new failed"
CACHE=$NEWCACHE TIER=check "$TOP/scripts/check.sh" || fail "make check failed on linux-source-6.1 $new"

sed -i "s/^$old\$/$new/" "$TOP/linux-source.pin"
[ "$(LINUX_SOURCE_VERSION= pinned_version)" = "$new" ] || fail "linux-source.pin could not be updated"
trap - INT TERM
mv "$CACHE" "$CACHE.$old"
mv "$NEWCACHE" "$CACHE"
mv "$CACHE.$old/ccache" "$CACHE/ccache" 2>/dev/null || true
git -C "$CACHE/linux" worktree repair >/dev/null 2>&1 || true
note "linux-source.pin: $old -> $new; kernel-patches/ and kunit/baseline/$new/ are rewritten: review and commit them"
note "the cache of $old is kept in $CACHE.$old: remove it when you no longer need it"
