#!/usr/bin/env bash
# make bench: benchmarks, reported and never asserted, in results/bench.md.
#
# The merge rate of real I/O: the e2e boot (scripts/runs/e2e.sh) at the
# fragmentation levels BENCH_LEVELS, counted with the kernel's own events
# (hist triggers on block_rq_issue and on a kretprobe event on
# __blk_rq_map_sg), BENCH_BOOTS times (default 3) on the series' kernel
# (the one "make kunit" builds) and on the same kernel with the 2004
# allocator of kernel-patches/TREE/experiments/ (BENCH_2004=0 leaves it out,
# BENCH_SERIES=0 runs only it): a table of ranges over the boots beside
# the 2004 figures, and results/merge-rate.svg (gnuplot).
#
# The 2004 kernel is built in a worktree of its own, $CACHE/experiment,
# into $CACHE/build/2004-ARCH; it is never part of the series.
#
# usage: scripts/runs/bench.sh [ARCH...]
. "$(dirname "$0")/../common.sh"
if [ "${BENCH_2004:-1}" != 0 ] && ! ls "$PATCHES"/experiments/*.patch >/dev/null 2>&1; then
	[ -z "${BENCH_2004:-}" ] ||
		die "BENCH_2004=$BENCH_2004, but there is no $PNAME/experiments/*.patch: no 2004 allocator for this tree"
	note "no $PNAME/experiments/*.patch: no 2004 allocator for $TREE, only the kernel's own order is booted"
	export BENCH_2004=0
fi

[ $# -gt 0 ] || set -- $SUPPORTED_ARCHES
# Each tree's logs apart: a run that boots only one kernel
# (BENCH_SERIES=0, BENCH_2004=0) keeps the other kernel's logs of its tree
# for the table, never those of the other tree.
bench=$RESULTS/bench/$TREE
mkdir -p "$bench"
rc=0
levels=${BENCH_LEVELS:-0,25,50,75,90,95,99}
boots=${BENCH_BOOTS:-3}

# Boot ARCH's kernel with the e2e init at LEVELS, as E2E_NAME: the series'
# kernel of make kunit (BUILD=1 builds it first), or the one in BUILD_DIR.
# usage: boot BUILD ARCH LEVELS E2E_NAME [BUILD_DIR]
boot() {
	# Each level fills and frees most of memory: more time than one
	# level of make check's boot gets.
	RESULTS=$bench E2E_BUILD=$1 E2E_BUILD_DIR=${5:-} \
		E2E_TIMEOUT=${BENCH_TIMEOUT:-900} \
		E2E_NAME=$4 "$TOP/scripts/runs/e2e.sh" "$2" "$3"
}

"$TOP/scripts/trees/deps.sh" bench "$@"
for arch in "$@"; do
	check_arch "$arch"
	# What runs of the tracepoint design left behind.
	rm -f "$bench/$arch"-e2e.* "$bench/$arch"-e2e-2004.* "$bench/$arch"-cost-*
	if [ "${BENCH_SERIES:-1}" = 1 ]; then
		rm -f "$bench/$arch"-e2e-[0-9].* "$bench/$arch"-e2e-[0-9][0-9].*
		# The first boot builds make kunit's kernel if needed; the
		# others boot only a kernel that boot built.
		for i in $(seq "$boots"); do
			if ! boot "$((i == 1))" "$arch" "$levels" "$arch-e2e-$i" &&
				grep -q '^not run' "$bench/$arch-e2e-$i.status"; then
				echo "error: $arch: the series' kernel did not build or boot" >&2
				rc=1
				break
			fi
		done
	fi
	[ "${BENCH_2004:-1}" = 1 ] || continue
	rm -f "$bench/$arch"-e2e-2004-*.*
	# Only the options the tree defines, as for the series' kernel:
	# kunitconfig also names the suites of other trees.
	if KUNITCONFIG=$(topics_kunitconfig "$TOP/kunitconfig") &&
		KUNITCONFIG=$KUNITCONFIG variant_build 2004 "$arch" "$PATCHES"/experiments/*.patch; then
		for i in $(seq "$boots"); do
			boot 0 "$arch" "$levels" "$arch-e2e-2004-$i" \
				"$CACHE/build/2004-$arch" || rc=1
		done
	else
		echo "error: $arch: the 2004-allocator kernel did not build" >&2
		rc=1
	fi
done

rm -f "$RESULTS/bench.md"
/usr/bin/python3 "$TOP/scripts/runs/bench-e2e.py" "$bench" "$RESULTS" "$@" || rc=1
echo "written: $RESULTS/bench.md, $RESULTS/merge-rate.svg (logs in $bench/)"
exit $rc
