#!/usr/bin/env bash
# make baseline [ARCH=...] [CHECK=1]: the expected results of kunit.py's
# own default run (KUNIT_ALL_TESTS) on the untouched tree, from a real run,
# written to kunit/baseline/VERSION/ARCH.tsv for the installed
# linux-source-TREE VERSION (scripts/results/kunit_baseline.py: case -> status,
# with the command, the date and the version in the file).  The
# configuration stage of make check-full compares the series' run with them,
# and recomputes a baseline (saying so) where there is no valid file of
# the installed version.  CHECK=1 recomputes and shows the differences
# from the files instead of writing them; it exits 1 if there are any.
#
# usage: scripts/trees/make-baseline.sh [ARCH...]    (default: um x86_64 arm)
. "$(dirname "$0")/../common.sh"

[ $# -gt 0 ] || set -- um x86_64 arm
for a in "$@"; do [ "$a" = um ] || check_arch "$a"; done
"$TOP/scripts/trees/deps.sh" "$@"
"$TOP/scripts/trees/baseline.sh"
lock shared
ver=$(source_version)
dir=$TOP/kunit/baseline/$ver
rc=0
for arch in "$@"; do
	file=$dir/$arch.tsv
	if [ "${CHECK:-0}" = 1 ]; then
		new=$CACHE/baseline/$ver/check-$arch.tsv
		baseline_run "$arch" "$new" || { rc=1; continue; }
		python3 "$TOP/scripts/results/kunit_baseline.py" diff "$file" "$new" || rc=1
	else
		baseline_run "$arch" "$file" || { rc=1; continue; }
		note "$arch: wrote ${file#"$TOP"/} ($(grep -c -v '^#' "$file") cases)"
	fi
done
exit $rc
