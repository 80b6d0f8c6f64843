#!/usr/bin/env bash
# make bench: run the benchmark suites (KUnit suites named *_bench) on each
# arch and collect the "bench:" KTAP diagnostic lines they print into one
# table, results/bench.md.  Then the merge rate of real I/O: the e2e boot
# (scripts/e2e.sh) at the fragmentation levels BENCH_LEVELS, on the
# series' kernel and on the same kernel with the experiment patches of
# kernel-patches/experiments/ (the 2004 allocator, built in a worktree of
# its own, $CACHE/experiment, never part of the series; BENCH_2004=0 leaves
# it out), into results/bench.md beside the 2004 figures and
# results/merge-rate.svg (gnuplot).  The figures are reported, never
# asserted.
#
# usage: scripts/bench.sh [ARCH...]
. "$(dirname "$0")/common.sh"

[ $# -gt 0 ] || set -- $SUPPORTED_ARCHES
filter=${BENCH_FILTER:-*_bench}
bench=$RESULTS/bench
mkdir -p "$bench"
rc=0
levels=${BENCH_LEVELS:-0,25,50,75,90,95,99}

# The kernel of the series with the experiment patches on top, for ARCH,
# in $CACHE/build/exp-ARCH.  A patch that does not apply is named.
experiment_build() {
	local arch=$1 exp=$CACHE/experiment commit p
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
	for p in "$PATCHES"/experiments/*.patch; do
		if ! "${egit[@]}" am -q "$p"; then
			"${egit[@]}" am --abort >/dev/null 2>&1 || true
			lock shared
			echo "error: experiment patch $p does not apply to baseline + series" >&2
			return 1
		fi
	done
	lock shared
	our_kunit_args "$arch" "$CACHE/build/exp-$arch"
	(cd "$exp" && PATH=$TOP/scripts/tty:$PATH \
		python3 tools/testing/kunit/kunit.py build --jobs "$(nproc)" "${KARGS[@]}")
}

"$TOP/scripts/deps.sh" bench "$@"
# The benchmark suite is not part of KUNIT_ALL_TESTS nor of make check:
# it is built here, into a build directory of its own.
mkdir -p "$CACHE"
benchconfig=$CACHE/bench.kunitconfig
{ cat "$TOP/kunitconfig"; echo CONFIG_SG_MERGE_BENCH_KUNIT=y; } >"$benchconfig"
for arch in "$@"; do
	check_arch "$arch"
	# Keep the bench run's results apart from make kunit / make check.
	RESULTS=$bench KUNITCONFIG=$benchconfig KUNIT_BUILD_DIR=$CACHE/build/bench-$arch \
		"$TOP/scripts/run-kunit.sh" "$arch" "$filter" || rc=1
	RESULTS=$bench E2E_NAME=$arch-e2e "$TOP/scripts/e2e.sh" "$arch" "$levels" || rc=1
	[ "${BENCH_2004:-1}" = 1 ] || continue
	if experiment_build "$arch"; then
		RESULTS=$bench E2E_BUILD=0 E2E_BUILD_DIR=$CACHE/build/exp-$arch \
			E2E_NAME=$arch-e2e-2004 "$TOP/scripts/e2e.sh" "$arch" "$levels" || rc=1
	else
		echo "error: $arch: the 2004-allocator kernel did not build" >&2
		rc=1
	fi
done

python3 - "$bench" "$RESULTS/bench.md" "$@" <<'PY'
import re, sys
bench, out, arches = sys.argv[1], sys.argv[2], sys.argv[3:]
line = re.compile(r'# (\S+): bench: (.*)$')
rows = []
for arch in arches:
    try:
        log = open(f'{bench}/{arch}.log', errors='replace').read()
    except OSError:
        continue
    for m in map(line.search, log.splitlines()):
        if m:
            fields = dict(kv.split('=', 1) for kv in m.group(2).split())
            rows.append((arch, m.group(1), fields))
keys = []
for _, _, f in rows:
    keys += [k for k in f if k not in keys]
text = ['| arch | case | ' + ' | '.join(keys) + ' |',
        '|---|---|' + '---|' * len(keys)]
for arch, case, f in rows:
    text.append(f'| {arch} | {case} | ' +
                ' | '.join(f.get(k, '') for k in keys) + ' |')
if not rows:
    text.append('(no "bench:" lines in the logs)')
open(out, 'w').write('# Benchmarks\n\n' + '\n'.join(text) + '\n')
print('\n'.join(text))
PY
/usr/bin/python3 "$TOP/scripts/bench-e2e.py" "$bench" "$RESULTS" "$@" || rc=1
echo "written: $RESULTS/bench.md, $RESULTS/merge-rate.svg (logs in $bench/)"
exit $rc
