#!/usr/bin/env bash
# Build and run the suites at every position of the series, so that each
# patch is checked to build, boot and pass on top of the ones before it
# ("make check-series", slow: one incremental build per patch).  Only the
# suites that exist at a position run there: a position before the first
# suite passes when it builds and boots.  A position fails on a build
# error, a failed or crashed case ("not ok") or a kunit.py timeout; the
# plan and the splat scan are "make check"'s job on the whole series.
#
# The kunitconfig is cut down at each position to the symbols that exist
# there.
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
	# Only the kunitconfig symbols that exist at this position.
	PATCHES=$work/p$k "$TOP/scripts/apply.sh" 2>/dev/null
	while read -r line; do
		sym=$(expr "$line" : 'CONFIG_\([A-Za-z0-9_]*\)=') ||
			{ echo "$line"; continue; }
		git -C "$SRC" grep -q -E "^(menu)?config $sym\$" -- '*Kconfig*' &&
			echo "$line"
	done <"$TOP/kunitconfig" >"$work/kunitconfig$k"
	ok=1
	PATCHES=$work/p$k RESULTS=$work/r$k KUNITCONFIG=$work/kunitconfig$k \
		"$TOP/scripts/run-kunit.sh" "$arch" >"$work/r$k.out" 2>&1 ||
		grep -q 'Ran 0 tests' "$work/r$k.out" || ok=0
	[ -f "$work/r$k/$arch.log" ] || ok=0
	grep -Eq '^\s*not ok|terminating on signal' "$work/r$k/$arch.log" \
		2>/dev/null && ok=0
	if [ $ok = 1 ]; then
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
