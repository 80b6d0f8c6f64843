#!/usr/bin/env bash
# make kunit: build and run one arch, then check its results against the
# plan (restricted to FILTER) and scan its console log for splats.
#
# usage: scripts/runs/kunit.sh ARCH [FILTER]
. "$(dirname "$0")/../common.sh"

arch=${1:-x86_64}
filter=${2:-}
check_arch "$arch"
# An interrupt reaches run-kunit.sh too, which says so and exits 130.
trap 'exit 130' INT TERM
rc=0
"$TOP/scripts/runs/run-kunit.sh" "$arch" "$filter" || rc=$?
# Interrupted: stop here, there is nothing of this run to check.
[ $rc -eq 130 ] && exit 130
"$TOP/scripts/results/check-results.py" --arch "$arch" --filter "$filter" \
	--absent-options "$(absent_symbols)" || rc=1
[ $rc -eq 0 ] || exit 1
