#!/usr/bin/env bash
# Build and run the suites at every position of the series, so that each
# patch is checked to build and pass on top of the ones before it
# ("make check-series", slow: one incremental build per patch).  Only the
# suites that exist at a position run there; the plan is not checked, but
# any failure, crash or kernel splat is (an expected splat aside).
#
# usage: scripts/check-series.sh [ARCH]
. "$(dirname "$0")/common.sh"

arch=${1:-x86_64}
check_arch "$arch"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mapfile -t all < <(series_files)
rc=0
for ((k = 1; k <= ${#all[@]}; k++)); do
	mkdir -p "$work/p$k"
	: >"$work/p$k/series"
	for f in "${all[@]:0:k}"; do
		cp "$f" "$work/p$k/"
		basename "$f" >>"$work/p$k/series"
	done
	name=$(basename "${all[k - 1]}")
	if PATCHES=$work/p$k RESULTS=$work/r$k \
	   "$TOP/scripts/run-kunit.sh" "$arch" >"$work/r$k.out" 2>&1 &&
	   ! grep -Eq '^\s*not ok' "$work/r$k/$arch.log"; then
		echo "series: ok      $k $name"
	else
		echo "series: FAILED  $k $name (log: $RESULTS/series-$arch-$k.out)"
		mkdir -p "$RESULTS"
		cp "$work/r$k.out" "$RESULTS/series-$arch-$k.out"
		rc=1
	fi
done
# Leave the build tree and directory at the whole series again.
"$TOP/scripts/apply.sh" >/dev/null
exit $rc
