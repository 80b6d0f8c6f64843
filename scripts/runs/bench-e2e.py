#!/usr/bin/env python3
"""The merge rate of real I/O, from the e2e boots of make bench.

Reads BENCH/ARCH-e2e-N.log (the series' allocator, boot N) and
BENCH/ARCH-e2e-2004-N.log (the 2004 allocator of kernel-patches/TREE/experiments/),
the "# bench: level L: requests R pages P entries E merged M" lines of
scripts/runs/e2e/odirect.c (pages from block_rq_issue bytes, entries from the
return values of __blk_rq_map_sg()), and appends to OUT/bench.md a table
of ranges over the boots beside the 2004 figures; draws OUT/merge-rate.svg
(merge rate against fragmentation level, lowest to highest boot, one line
per arch and allocator) with gnuplot.

usage: bench-e2e.py BENCH OUT ARCH...
(the tree, which names the kernel's own order, from $DMATOPICS_TREE)
"""
import glob
import os
import re
import statistics
import subprocess
import sys

LINE = re.compile(r'# bench: level (\d+): requests (\d+) pages (\d+) '
                  r'entries (\d+) merged (\d+)')
FRAMES = re.compile(r'# bench: level (\d+): frames ascending (\d+) '
                    r'descending (\d+) apart (\d+)')
BOOT = re.compile(r'-(\d+)\.log$')
# wli's figures, 2004: before and after the allocator change
PAPER = [('2004, before', '-', '-', '~32,040', '~32,000', '~0.1% (40 merged)'),
         ('2004, after', '-', '-', '43,520', '19,513', '55.2%')]
TREE = os.environ.get('DMATOPICS_TREE', '7.3')
KINDS = [('e2e', f'{TREE} order (ascending)'),
         ('e2e-2004', '2004 order (top down, experiments/)')]


def read(bench, arch, kind):
    """{level: [(pages, entries), ...]}, one pair per boot, and
    {level: [(ascending, descending, apart), ...]}, the order of the
    buffers' frames per boot; or None."""
    logs = [p for p in glob.glob(os.path.join(bench, f'{arch}-{kind}-*.log'))
            if re.fullmatch(rf'{re.escape(arch)}-{kind}-\d+\.log',
                            os.path.basename(p))]
    if not logs:
        return None
    levels, frames = {}, {}
    for log in sorted(logs, key=lambda p: int(BOOT.search(p).group(1))):
        text = open(log, errors='replace').read()
        for m in LINE.finditer(text):
            level, _, pages, entries, _ = (int(x) for x in m.groups())
            # odirect.c prints only counts that hold; be sure anyway.
            if 0 < entries <= pages:
                levels.setdefault(level, []).append((pages, entries))
        for m in FRAMES.finditer(text):
            level, asc, desc, apart = (int(x) for x in m.groups())
            if asc + desc + apart:
                frames.setdefault(level, []).append((asc, desc, apart))
    return levels, frames


def shares(runs, i):
    """The range over the boots of the share of kind @i of neighbours."""
    if not runs:
        return '-'
    return span([100.0 * r[i] / sum(r) for r in runs],
                lambda v: f'{v:.0f}%')


def span(values, fmt):
    lo, hi = min(values), max(values)
    return fmt(lo) if fmt(lo) == fmt(hi) else f'{fmt(lo)}-{fmt(hi)}'


def main():
    bench, out, arches = sys.argv[1], sys.argv[2], sys.argv[3:]
    lines = ['# Benchmarks', '',
             '## Merge rate of O_DIRECT I/O through virtio-blk', '',
             'Regenerate: `make bench` (levels: `BENCH_LEVELS=`, boots: '
             '`BENCH_BOOTS=`). Level: percent of filled memory kept '
             'allocated while the I/O runs (0: freshly booted). Transfer '
             '(pages): the size of the I/O, the bytes of the disk\'s '
             'block_rq_issue events over the page size, the same at every '
             'level; entries: the sum of what __blk_rq_map_sg() returned '
             'for them; merge rate: (transfer - entries) / transfer. '
             'Frames: of each two neighbouring pages of the buffers, as '
             'the faulting task, pinned to one CPU, got them '
             '(/proc/self/pagemap), the share whose second frame follows '
             'the first (up), comes right before it (down) or lies apart. '
             'Each figure is the range over the boots.', '',
             '| arch | allocator | level | boots | transfer (pages) | '
             'entries | merge rate | frames up | frames down | '
             'frames apart |', '|---|---|---|---|---|---|---|---|---|---|']
    for p in PAPER:
        lines.append('| ' + ' | '.join(('2004 report',) + p) +
                     ' | - | - | - |')
    series = []
    for arch in arches:
        for kind, label in KINDS:
            found = read(bench, arch, kind)
            if found is None:
                lines.append(f'| {arch} | {label} | not run | | | | | | | |')
                continue
            levels, frames = found
            if not levels:
                lines.append(f'| {arch} | {label} | no figures (see '
                             f'{arch}-{kind}-N.log) | | | | | | | |')
                continue
            data = []
            for level in sorted(levels):
                runs = levels[level]
                rates = [100.0 * (p - e) / p if p else 0.0 for p, e in runs]
                lines.append(
                    f'| {arch} | {label} | {level} | {len(runs)} | '
                    f'{span([p for p, _ in runs], str)} | '
                    f'{span([e for _, e in runs], str)} | '
                    f'{span(rates, lambda r: f"{r:.1f}%")} | '
                    f'{shares(frames.get(level), 0)} | '
                    f'{shares(frames.get(level), 1)} | '
                    f'{shares(frames.get(level), 2)} |')
                data.append((level, statistics.median(rates), min(rates),
                             max(rates)))
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
            f.write(f'# {title}: level, median, lowest and highest rate\n')
            for level, med, lo, hi in data:
                f.write(f'{level} {med:.2f} {lo:.2f} {hi:.2f}\n')
            f.write('\n\n')
    plot = ', '.join(f"'{dat}' index {i} using 1:2:3:4 with yerrorlines "
                     f"title '{t}'" for i, (t, _) in enumerate(series))
    script = f"""set terminal svg size 800,480 dynamic noenhanced
set output '{os.path.join(out, 'merge-rate.svg')}'
set title 'Scatterlist merge rate of O_DIRECT I/O against fragmentation'
set xlabel 'fragmentation level (% of filled memory kept allocated)'
set ylabel 'pages merged (%, median and range over the boots)'
set yrange [0:100]
set key outside below
set grid
plot {plot}, 55.2 with lines dashtype 2 title '2004, after the fix (55%)'
"""
    subprocess.run(['gnuplot'], input=script, text=True, check=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
