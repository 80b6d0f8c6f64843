#!/usr/bin/env bash
# Build baseline + series for one arch and run its KUnit suites in QEMU with
# the tree's own kunit.py.  Results: results/ARCH.json (kunit.py --json),
# results/ARCH.log (raw console log), results/ARCH.ktap (the KTAP alone),
# results/ARCH.junit.xml, results/ARCH.version, and
# results/ARCH.status: "ran" once the guest ran, else "not run: REASON"
# (written first, before anything else, so that results of an earlier run
# are never read as this run's).  An interrupt (SIGINT, SIGTERM) stops the
# run at once with "interrupted" and exit status 130.  KUNIT_BUILD_DIR
# replaces the build directory ($CACHE/build/ARCH), KUNITCONFIG the
# kunitconfig (for "make bench", which adds the benchmark suite).
#
# usage: scripts/runs/run-kunit.sh ARCH [FILTER]
. "$(dirname "$0")/../common.sh"

arch=${1:?usage: run-kunit.sh ARCH [FILTER]}
filter=${2:-}
check_arch "$arch"

mkdir -p "$RESULTS"
status=$RESULTS/$arch.status
rm -f "$RESULTS/$arch".{json,log,version,ktap,junit.xml}
echo "not run: the run stopped before the kernel was built" >"$status"
interrupted() {
	trap '' INT TERM
	echo "not run: interrupted" >"$status"
	echo "interrupted: the $arch run stopped; the next run repairs the cache" >&2
	exit 130
}
trap interrupted INT TERM
fail() {	# fail REASON: not run, for REASON
	echo "not run: $1" >"$status"
	die "$arch: $1"
}

"$TOP/scripts/trees/deps.sh" "$arch" || fail "installing the packages failed"
# Held shared until the run ends: nobody changes the tree under the build.
lock shared
"$TOP/scripts/trees/apply.sh" || fail "the series does not apply (see above)"
# Only the options the tree defines (with TOPICS, of the topics applied).
KUNITCONFIG=$(topics_kunitconfig "${KUNITCONFIG:-$TOP/kunitconfig}")
export KUNITCONFIG

case "$arch" in
x86_64) timeout=${KUNIT_TIMEOUT:-120} ;;
arm*) timeout=${KUNIT_TIMEOUT:-300} ;;
esac

build=${KUNIT_BUILD_DIR:-$CACHE/build/$arch}
mkdir -p "$build"
rm -f "$build/test.log"

ver=$(source_version)
{
	echo "$PACKAGE $ver"
	echo "series $(cat "$CACHE/linux.state") ($(series_files | wc -l) patches)"
} >"$RESULTS/$arch.version"
note "$PACKAGE $ver, arch $arch, build dir $build"

our_kunit_args "$arch" "$build"
# Nothing changed since the last build in $build: boot it as it is.
key=$(build_key "$arch" "${KUNITCONFIG:-$TOP/kunitconfig}" \
	"$TOP/arch-qemu-configs/$arch.py" "$TOP/arch-qemu-configs/checkers.config" \
	"$TOP/arch-qemu-configs/e2e.config")
if built_from "$build" "$key"; then
	note "$arch: $build is built from this series and configuration; not running make"
	args=(exec "${KARGS[@]}")
else
	mark_built "$build" ""
	args=(run --jobs "$(nproc)" "${KARGS[@]}")
fi
args+=(--timeout "$timeout" --json="$RESULTS/$arch.json")
[ -n "$filter" ] && args+=("$filter")

rc=0
# scripts/runs/kunit-path/: no stty error from kunit.py without a terminal,
# and QEMU under TCG only (7.3's kunit.py asks for KVM first; 6.12's does not).
(cd "$SRC" && PATH=$TOP/scripts/runs/kunit-path:$PATH \
	${KUNIT_PY:-python3 tools/testing/kunit/kunit.py} "${args[@]}") || rc=$?
# kunit.py booted what it built: the build finished.
[ "${args[0]}" = run ] && [ -f "$build/test.log" ] && mark_built "$build" "$key"
if [ -f "$build/test.log" ]; then
	cp "$build/test.log" "$RESULTS/$arch.log"
	echo ran >"$status"
	# results/ARCH.ktap and results/ARCH.junit.xml for CI dashboards
	/usr/bin/python3 "$TOP/scripts/results/export-results.py" "$arch" ||
		echo "error: $arch: could not write the KTAP and JUnit files" >&2
else
	rm -f "$RESULTS/$arch.json"
	fail "the kernel did not build or did not start (kunit.py exit $rc, see above)"
fi
exit $rc
