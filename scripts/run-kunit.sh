#!/usr/bin/env bash
# Build baseline + series for one arch and run its KUnit suites in QEMU with
# the tree's own kunit.py.  Results: results/ARCH.json (kunit.py --json),
# results/ARCH.log (raw console log), results/ARCH.version.
#
# usage: scripts/run-kunit.sh ARCH [FILTER]
. "$(dirname "$0")/common.sh"

arch=${1:?usage: run-kunit.sh ARCH [FILTER]}
filter=${2:-}
check_arch "$arch"

"$TOP/scripts/deps.sh" "$arch"
"$TOP/scripts/apply.sh"

case "$arch" in
x86_64) cross= ; timeout=${KUNIT_TIMEOUT:-120} ;;
arm) cross=arm-linux-gnueabihf- ; timeout=${KUNIT_TIMEOUT:-300} ;;
esac

build=$CACHE/build/$arch
mkdir -p "$build" "$RESULTS"
rm -f "$RESULTS/$arch.json" "$RESULTS/$arch.log" "$build/test.log"

ver=$(source_version)
{
	echo "linux-source-6.1 $ver"
	echo "series $(cgit rev-parse HEAD) ($(series_files | wc -l) patches)"
} >"$RESULTS/$arch.version"
note "linux-source-6.1 $ver, arch $arch, build dir $build"

args=(run --build_dir "$build"
      --kunitconfig "${KUNITCONFIG:-$TOP/kunitconfig}"
      --qemu_config "$TOP/arch-qemu-configs/$arch.py"
      --jobs "$(nproc)" --timeout "$timeout"
      --json="$RESULTS/$arch.json")
[ -n "$cross" ] && args+=(--cross_compile "$cross")
if [ "${CCACHE:-1}" = 1 ] && command -v ccache >/dev/null; then
	export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
	args+=(--make_options "CC=ccache ${cross}gcc"
	       --make_options "HOSTCC=ccache gcc")
fi
[ -n "$filter" ] && args+=("$filter")

rc=0
(cd "$SRC" && python3 tools/testing/kunit/kunit.py "${args[@]}") || rc=$?
[ -f "$build/test.log" ] && cp "$build/test.log" "$RESULTS/$arch.log"
exit $rc
