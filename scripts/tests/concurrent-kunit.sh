#!/usr/bin/env bash
# Two real "make kunit" runs of different arches started together on one
# cache: both must finish and both must give their own, correct results
# (the lock of the cache lets their builds run side by side).  Slow: it
# builds and boots two kernels; not part of "make check".
#
# usage: scripts/tests/concurrent-kunit.sh [ARCH1 ARCH2]   (x86_64 arm)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
a1=${1:-x86_64} a2=${2:-arm}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for a in "$a1" "$a2"; do
	RESULTS=$tmp/$a make -C "$top" --no-print-directory kunit ARCH="$a" \
		>"$tmp/$a.out" 2>&1 &
	eval "pid_${a//-/_}=$!"
done
rc=0
for a in "$a1" "$a2"; do
	p=pid_${a//-/_}
	if wait "${!p}"; then
		echo "concurrent: $a: $(tail -n 1 "$tmp/$a.out")"
	else
		echo "concurrent: $a FAILED: $(tail -n 1 "$tmp/$a.out")"
		rc=1
	fi
	grep -q '^ran$' "$tmp/$a/$a.status" || { echo "concurrent: $a did not run"; rc=1; }
	grep -h '>>> waiting' "$tmp/$a.out" | sed "s/^/concurrent: $a: /" || true
done
exit $rc
