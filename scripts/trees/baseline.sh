#!/usr/bin/env bash
# Make $CACHE/linux: Debian's linux-source-TREE unpacked into a git repository
# whose first commit (tag "baseline") is the untouched tree.  Idempotent: an
# existing baseline of the installed package version is kept; an interrupted
# unpack is thrown away and redone.
. "$(dirname "$0")/../common.sh"

ver=$(source_version)
have_baseline() {
	[ -d "$SRC/.git" ] && cgit rev-parse -q --verify refs/tags/baseline >/dev/null || return 1
	local have
	have=$(cgit tag -l --format='%(contents:subject)' baseline)
	[ "$have" = "$PACKAGE $ver" ] && return 0
	die "cache $SRC holds '$have' but the installed package is $ver.
Remove the cache to rebuild it (after 'make refresh' if 'make tree' holds work):
  rm -rf $CACHE"
}
lock_to_change have_baseline || exit 0
[ -f "$TARBALL" ] || die "$TARBALL missing (scripts/trees/deps.sh installs $PACKAGE)"

mkdir -p "$CACHE"
tmp=$CACHE/linux.unpacking
rm -rf "$tmp" "$SRC"
mkdir -p "$tmp"
note "unpacking $TARBALL ($ver) into $SRC"
tar -xJf "$TARBALL" -C "$tmp" --strip-components=1
(
	cd "$tmp"
	git init -q -b build
	# No automatic gc: "git gc --auto" detaches into the background
	# with the descriptors it inherited, the cache lock among them, and
	# would hold that lock for minutes after the run that started it.
	git config gc.auto 0
	# The tree ships its own .gitignore files; force-add so the baseline
	# really is the whole tarball.
	git add -f -A .
	baseline_message "$ver" | baseline_git commit -q -F -
	git -c user.name=dmatopics -c user.email=dmatopics@localhost \
		tag -a -m "$PACKAGE $ver" baseline
)
mv "$tmp" "$SRC"
note "baseline: $(cgit rev-parse --short baseline) $PACKAGE $ver"
lock shared
