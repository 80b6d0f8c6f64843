#!/usr/bin/env bash
# make bench: benchmarks, reported and never asserted, in results/bench.md.
#
# The merge rate of real I/O: the e2e boot (scripts/e2e.sh) at the
# fragmentation levels BENCH_LEVELS, measured with a hist trigger on the
# block_rq_map_sg tracepoint, on the series' kernel and on the same kernel
# with the 2004 allocator of kernel-patches/experiments/ (BENCH_2004=0
# leaves it out, BENCH_SERIES=0 runs only it): a table beside the 2004
# figures and results/merge-rate.svg (gnuplot).
#
# What the disabled sg_table_from_pages tracepoint costs: the boot-time
# benchmark of kernel-patches/bench/0001 (ns per sg_alloc_table_from_pages()
# of a 2 MiB buffer) on the series' kernel and on the same kernel without
# the tracepoint call (kernel-patches/bench/0002), each booted BENCH_BOOTS
# times (default 3), alternating; the figures as ranges over the boots.
#
# The variant kernels are built in a worktree of their own,
# $CACHE/experiment, into $CACHE/build/VARIANT-ARCH; none is ever part of
# the series.
#
# usage: scripts/bench.sh [ARCH...]
. "$(dirname "$0")/common.sh"

[ $# -gt 0 ] || set -- $SUPPORTED_ARCHES
bench=$RESULTS/bench
mkdir -p "$bench"
rc=0
levels=${BENCH_LEVELS:-0,25,50,75,90,95,99}
boots=${BENCH_BOOTS:-3}
mkdir -p "$CACHE"
benchconfig=$CACHE/bench.kunitconfig
{ cat "$TOP/kunitconfig"; echo CONFIG_SG_TABLE_BENCH=y; } >"$benchconfig"

# The kernel of the series with PATCH... on top, for ARCH, in
# $CACHE/build/NAME-ARCH.  A patch that does not apply is named.
# usage: variant_build NAME ARCH PATCH...
variant_build() {
	local name=$1 arch=$2 exp=$CACHE/experiment commit p
	shift 2
	commit=$("$TOP/scripts/apply.sh" --commit)
	lock exclusive
	if ! git -C "$exp" rev-parse --git-dir >/dev/null 2>&1; then
		rm -rf "$exp"
		cgit worktree prune
		cgit worktree add -q --detach "$exp" "$commit"
	fi
	local egit=(git -C "$exp" -c user.name=dmatopics
		    -c user.email=dmatopics@localhost -c advice.detachedHead=false)
	"${egit[@]}" am --abort >/dev/null 2>&1 || true
	"${egit[@]}" checkout -q -f --detach "$commit"
	for p in "$@"; do
		if ! "${egit[@]}" am -q "$p"; then
			"${egit[@]}" am --abort >/dev/null 2>&1 || true
			lock shared
			echo "error: $p does not apply to baseline + series" >&2
			return 1
		fi
	done
	lock shared
	# A new build directory starts as a copy of a close one (SEED, else
	# the one of make kunit): kbuild then rebuilds what differs.
	local seed=${SEED:-$CACHE/build/$arch}
	[ -d "$CACHE/build/$name-$arch" ] || [ ! -d "$seed" ] ||
		seed_build "$seed" "$CACHE/build/$name-$arch"
	KUNITCONFIG=$benchconfig our_kunit_args "$arch" "$CACHE/build/$name-$arch"
	(cd "$exp" && PATH=$TOP/scripts/tty:$PATH \
		python3 tools/testing/kunit/kunit.py build --jobs "$(nproc)" "${KARGS[@]}")
}

# Boot the variant NAME of ARCH with the e2e init at LEVELS, as E2E_NAME.
# usage: boot NAME ARCH LEVELS E2E_NAME
boot() {
	# Each level fills and frees most of memory: more time than one
	# level of make check's boot gets.
	RESULTS=$bench E2E_BUILD=0 E2E_BUILD_DIR=$CACHE/build/$1-$2 \
		E2E_TIMEOUT=${BENCH_TIMEOUT:-900} \
		E2E_NAME=$4 "$TOP/scripts/e2e.sh" "$2" "$3"
}

"$TOP/scripts/deps.sh" bench "$@"
for arch in "$@"; do
	check_arch "$arch"
	if [ "${BENCH_SERIES:-1}" = 1 ]; then
		rm -f "$bench/$arch"-e2e.* "$bench/$arch"-cost-*
		if variant_build bench "$arch" "$PATCHES/bench/0001-"*.patch &&
			SEED=$CACHE/build/bench-$arch \
			variant_build notp "$arch" "$PATCHES/bench/0001-"*.patch \
				"$PATCHES/bench/0002-"*.patch; then
			boot bench "$arch" "$levels" "$arch-e2e" || rc=1
			for i in $(seq "$boots"); do
				boot bench "$arch" 0 "$arch-cost-tracepoint-$i" || rc=1
				boot notp "$arch" 0 "$arch-cost-none-$i" || rc=1
			done
		else
			echo "error: $arch: the benchmark kernels did not build" >&2
			rc=1
		fi
	fi
	[ "${BENCH_2004:-1}" = 1 ] || continue
	rm -f "$bench/$arch"-e2e-2004.*
	# With the boot-time measurement too: the same configuration.
	if SEED=$CACHE/build/bench-$arch variant_build 2004 "$arch" \
		"$PATCHES/bench/0001-"*.patch "$PATCHES"/experiments/*.patch; then
		boot 2004 "$arch" "$levels" "$arch-e2e-2004" || rc=1
	else
		echo "error: $arch: the 2004-allocator kernel did not build" >&2
		rc=1
	fi
done

python3 - "$bench" "$RESULTS/bench.md" "$@" <<'PY'
import glob, re, sys
bench, out, arches = sys.argv[1], sys.argv[2], sys.argv[3:]
line = re.compile(r'sg_table_bench: bench: pages=(\d+) nents=(\d+) ns_per_table=(\d+)')
text = ['# Benchmarks', '',
        '## What the disabled sg_table_from_pages tracepoint costs', '',
        'ns per sg_alloc_table_from_pages() of a 2 MiB buffer of pages '
        'allocated one at a time, best of 16 rounds of 32 tables in each '
        'boot; the range over the boots.  Kernels of our configuration '
        '(KASAN, lockdep) under TCG: compare the two rows of an arch, '
        'not the figures with hardware.  Regenerate: `make bench` '
        '(boots: `BENCH_BOOTS=`).', '',
        '| arch | kernel | boots | pages | entries | ns per table |',
        '|---|---|---|---|---|---|']
for arch in arches:
    for kind, label in (('tracepoint', 'series (tracepoint disabled)'),
                        ('none', 'without the tracepoint call')):
        ns, shape = [], ''
        for log in sorted(glob.glob(f'{bench}/{arch}-cost-{kind}-*.log')):
            m = line.search(open(log, errors='replace').read())
            if m:
                ns.append(int(m.group(3)))
                shape = f'{m.group(1)} | {m.group(2)}'
        if ns:
            text.append(f'| {arch} | {label} | {len(ns)} | {shape} | '
                        f'{min(ns)}-{max(ns)} |')
        else:
            text.append(f'| {arch} | {label} | 0 | | | not run |')
open(out, 'w').write('\n'.join(text) + '\n')
print('\n'.join(text))
PY
/usr/bin/python3 "$TOP/scripts/bench-e2e.py" "$bench" "$RESULTS" "$@" || rc=1
echo "written: $RESULTS/bench.md, $RESULTS/merge-rate.svg (logs in $bench/)"
exit $rc
