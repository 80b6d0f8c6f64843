#!/usr/bin/env bash
# make bench: run the benchmark suites (KUnit suites named *_bench) on each
# arch and collect the "bench:" KTAP diagnostic lines they print into one
# table, results/bench.md.  The figures are reported, never asserted.
#
# usage: scripts/bench.sh [ARCH...]
. "$(dirname "$0")/common.sh"

[ $# -gt 0 ] || set -- $SUPPORTED_ARCHES
filter=${BENCH_FILTER:-*_bench}
bench=$RESULTS/bench
mkdir -p "$bench"
rc=0
for arch in "$@"; do
	check_arch "$arch"
	# Keep the bench run's results apart from make kunit / make check.
	RESULTS=$bench "$TOP/scripts/run-kunit.sh" "$arch" "$filter" || rc=1
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
echo "written: $RESULTS/bench.md (logs in $bench/)"
exit $rc
