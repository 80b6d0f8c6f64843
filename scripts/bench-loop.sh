#!/usr/bin/env bash
# Measure the edit-build-run loop: wall time of "build + run" per arch for
#   cold           empty build directory, no ccache
#   cold+ccache    empty build directory, the warm compiler cache of
#                  earlier runs ($CACHE/ccache)
#   unchanged      rerun with nothing changed
#   one patch      rerun after one patch changed (a comment line in the
#                  last patch that adds a file, edited in a scratch copy of
#                  kernel-patches/; the repository is not touched)
# The table goes to stdout and results/bench-loop.md.  A benchmark, not a
# test: nothing is asserted.  Cold runs throw the build directory away.
#
# usage: scripts/bench-loop.sh [ARCH...]
. "$(dirname "$0")/common.sh"

[ $# -gt 0 ] || set -- $SUPPORTED_ARCHES
mkdir -p "$RESULTS"
out=$RESULTS/bench-loop.md
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

timed() {	# timed LABEL ARCH [env...]: seconds of one run-kunit.sh
	local label=$1 arch=$2 t0 t1
	shift 2
	t0=$(date +%s.%N)
	env "$@" "$TOP/scripts/run-kunit.sh" "$arch" >"$scratch/$arch-$label.log" 2>&1 ||
		echo "warning: $arch $label run failed, see $scratch/$arch-$label.log" >&2
	t1=$(date +%s.%N)
	printf '%.0f' "$(echo "$t1 - $t0" | bc)"
}

# A copy of the series whose last new-file patch has one comment changed.
cp -r "$PATCHES" "$scratch/patches"
victim=$(grep -l '^new file mode' "$scratch"/patches/*.patch | tail -n 1)
[ -n "$victim" ] || die "no patch adds a file; nothing to change"
sed -i '0,/^+ \* /s//+ * (bench-loop edit) /' "$victim"

{
	echo "| arch | cold, no ccache | cold, warm ccache | unchanged | one patch changed |"
	echo "|---|---|---|---|---|"
} >"$out"
for arch in "$@"; do
	check_arch "$arch"
	note "$arch: cold (no build dir, no ccache)"
	rm -rf "$CACHE/build/$arch"
	nocc=$(timed cold-no-ccache "$arch" CCACHE=0)
	note "$arch: cold with the warm ccache"
	rm -rf "$CACHE/build/$arch"
	warm=$(timed cold-ccache "$arch")
	note "$arch: unchanged"
	same=$(timed unchanged "$arch")
	note "$arch: one patch changed ($(basename "$victim"))"
	one=$(timed one-patch "$arch" PATCHES="$scratch/patches")
	# Leave the build tree and directory at the real series again.
	timed restore "$arch" >/dev/null
	echo "| $arch | ${nocc}s | ${warm}s | ${same}s | ${one}s |" >>"$out"
done
cat "$out"
