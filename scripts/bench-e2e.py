#!/usr/bin/env python3
"""The merge rate of real I/O, from the e2e boots of make bench.

Reads BENCH/ARCH-e2e.log (the series' allocator) and BENCH/ARCH-e2e-2004.log
(the 2004 allocator of kernel-patches/experiments/), the "# bench: level
L: pieces P entries E merged M" lines of scripts/e2e/odirect.c, and
appends to OUT/bench.md a table beside the 2004 figures; draws
OUT/merge-rate.svg (merge rate against fragmentation level, one line per
arch and allocator) with gnuplot.

usage: bench-e2e.py BENCH OUT ARCH...
"""
import os
import re
import subprocess
import sys

LINE = re.compile(r'# bench: level (\d+): pieces (\d+) entries (\d+) '
                  r'merged (\d+)')
# wli's figures, 2004: before and after the allocator change
PAPER = [('2004, before', '-', '~32,000', '-', '40', '~0.1%'),
         ('2004, after', '-', '43,520', '19,513', '24,007', '55.2%')]
KINDS = [('e2e', 'ascending (series)'), ('e2e-2004', 'top down (2004)')]


def read(path):
    rows = []
    try:
        text = open(path, errors='replace').read()
    except OSError:
        return None
    for m in LINE.finditer(text):
        rows.append(tuple(int(x) for x in m.groups()))
    return rows


def main():
    bench, out, arches = sys.argv[1], sys.argv[2], sys.argv[3:]
    lines = ['', '## Merge rate of O_DIRECT I/O through virtio-blk', '',
             'Regenerate: `make bench` (levels: `BENCH_LEVELS=`). Level: '
             'percent of filled memory kept allocated while the I/O runs '
             '(0: freshly booted). Pieces: pages submitted; entries: '
             'scatterlist entries of the disk\'s requests.', '',
             '| arch | allocator | level | pieces | entries | merged | '
             'merge rate |', '|---|---|---|---|---|---|---|']
    for p in PAPER:
        lines.append('| ' + ' | '.join(('2004 paper',) + p) + ' |')
    series = []
    for arch in arches:
        for kind, label in KINDS:
            rows = read(os.path.join(bench, f'{arch}-{kind}.log'))
            if rows is None:
                lines.append(f'| {arch} | {label} | not run | | | | |')
                continue
            data = []
            for level, pieces, entries, merged in rows:
                rate = 100.0 * merged / pieces if pieces else 0.0
                lines.append(f'| {arch} | {label} | {level} | {pieces} | '
                             f'{entries} | {merged} | {rate:.1f}% |')
                data.append((level, rate))
            if data:
                series.append((f'{arch}, {label}', data))
    with open(os.path.join(out, 'bench.md'), 'a') as f:
        f.write('\n'.join(lines) + '\n')
    print('\n'.join(lines))
    if not series:
        print('error: no e2e bench figures to draw', file=sys.stderr)
        return 1
    dat = os.path.join(out, 'merge-rate.dat')
    with open(dat, 'w') as f:
        for title, data in series:
            f.write(f'# {title}\n')
            for level, rate in data:
                f.write(f'{level} {rate:.2f}\n')
            f.write('\n\n')
    plot = ', '.join(f"'{dat}' index {i} with linespoints title '{t}'"
                     for i, (t, _) in enumerate(series))
    script = f"""set terminal svg size 800,480 dynamic
set output '{os.path.join(out, 'merge-rate.svg')}'
set title 'Scatterlist merge rate of O_DIRECT I/O against fragmentation'
set xlabel 'fragmentation level (% of filled memory kept allocated)'
set ylabel 'merged pieces (%)'
set yrange [0:100]
set key outside below
set grid
plot {plot}, 55.2 with lines dashtype 2 title '2004, after the fix (55%)'
"""
    subprocess.run(['gnuplot'], input=script, text=True, check=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
