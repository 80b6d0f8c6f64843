#!/usr/bin/env bash
# make check: checkpatch, then the KUnit suites on every arch, then the
# results against kunit/plan.  The last line is "N passed, N failed, N
# skipped" over all arches; the exit status is non-zero on any failure.
. "$(dirname "$0")/common.sh"

[ $# -gt 0 ] || set -- $SUPPORTED_ARCHES
"$TOP/scripts/deps.sh" "$@"

rc=0
"$TOP/scripts/checkpatch.sh" || rc=1
for arch in "$@"; do
	note "=== $arch ==="
	"$TOP/scripts/run-kunit.sh" "$arch" || rc=1
done
args=()
for arch in "$@"; do args+=(--arch "$arch"); done
[ $rc -eq 0 ] || echo "error: checkpatch or a kunit.py run failed (see above)"
"$TOP/scripts/check-results.py" "${args[@]}" || rc=1
exit $rc
