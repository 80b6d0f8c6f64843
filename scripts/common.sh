# Shared settings and helpers for the dmatopics scripts.  Sourced, not run.
#
# Cache layout (everything outside the repository, override with CACHE=):
#   $CACHE/linux      git repo: baseline commit (tag "baseline") + applied
#                     series; its work tree is the tree kunit.py builds
#   $CACHE/apply      scratch worktree where "git am" runs, so that the
#                     build tree only ever sees finished results
#   $CACHE/tree       developer worktree made by "make tree" (branch "dev")
#   $CACHE/build/ARCH kunit.py build directories (O=)
#   $CACHE/ccache     compiler cache

set -eu

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dmatopics}
SRC=$CACHE/linux
APPLY=$CACHE/apply
DEVTREE=$CACHE/tree
PATCHES=${PATCHES:-$TOP/kernel-patches}
RESULTS=${RESULTS:-$TOP/results}
TARBALL=/usr/src/linux-source-6.1.tar.xz
SUPPORTED_ARCHES="x86_64 arm"

die() {
	echo "error: $*" >&2
	exit 1
}

note() {
	echo ">>> $*" >&2
}

check_arch() {
	local a
	for a in $SUPPORTED_ARCHES; do
		[ "$1" = "$a" ] && return 0
	done
	die "unknown ARCH '$1'; supported: $SUPPORTED_ARCHES"
}

# git in the cache repo, with a fixed identity so that commits made while
# applying the series do not depend on the user's configuration.
cgit() {
	git -C "$SRC" -c user.name=dmatopics -c user.email=dmatopics@localhost \
		-c advice.detachedHead=false "$@"
}

# The Debian package version of the tree, e.g. "6.1.192-3".
source_version() {
	dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown
}

# Patch files in series order (comments and blank lines skipped).
series_files() {
	[ -f "$PATCHES/series" ] || die "$PATCHES/series is missing"
	local p
	while read -r p; do
		case "$p" in '' | '#'*) continue ;; esac
		[ -f "$PATCHES/$p" ] || die "series lists $p but kernel-patches/$p does not exist"
		echo "$PATCHES/$p"
	done <"$PATCHES/series"
}

# A key naming exactly baseline + series: the hash of the series contents.
series_key() {
	{
		source_version
		series_files | while read -r f; do
			basename "$f"
			cat "$f"
		done
	} | sha1sum | cut -c1-16
}
