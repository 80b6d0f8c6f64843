#!/usr/bin/env python3
"""The merge rate of real I/O, from the e2e boots of make bench.

Reads BENCH/ARCH-e2e-N.log (the series' allocator, boot N) and
BENCH/ARCH-e2e-2004-N.log (the 2004 allocator of kernel-patches/TREE/experiments/),
the "# bench: level L: disk D: requests R pages P entries E merged M" lines
of scripts/runs/e2e/odirect.c (pages from block_rq_issue bytes, entries from
the return values of __blk_rq_map_sg()), and appends to OUT/bench.md a
table of ranges over the boots of the virtio disk, vda, beside the 2004
figures; draws OUT/merge-rate.svg (merge rate against fragmentation level,
lowest to highest boot, one line per arch and allocator) with gnuplot.

Then the AHCI disk, sda, of the same boots and of the IOMMU boots
(BENCH/ARCH-e2e-iommu-N.log, BENCH/ARCH-e2e-2004-iommu-N.log): the merge
rate of its scatterlists and that of the segments dma_map_sg() gave the
device ("dma_map_sg calls C entries E segments S"), without and behind the
IOMMU, in a second table and OUT/merge-rate-iommu.svg.  An IOMMU boot
counts only if its init proved the disk translated ("disk sda: behind the
IOMMU"); a kernel without the dma:dma_map_sg tracepoint is "not measured".

usage: bench-e2e.py BENCH OUT ARCH...
(the tree, which names the kernel's own order, from $DMATOPICS_TREE)
"""
import glob
import os
import re
import statistics
import subprocess
import sys

LINE = re.compile(r'# bench: level (\d+): (?:disk (\w+): )?requests (\d+) '
                  r'pages (\d+) entries (\d+) merged (\d+)')
DMA = re.compile(r'# bench: level (\d+): disk (\w+): dma_map_sg calls (\d+) '
                 r'entries (\d+) segments (\d+)')
BEHIND = re.compile(r'# bench: disk (\w+): behind the IOMMU')
NO_EVENT = '# bench: no dma:dma_map_sg event in this kernel'
AHCI = 'sda'
# The arches with the AHCI disk, and the IOMMU of those that have one
AHCI_ARCHES = ('x86_64', 'arm', 'arm64')
IOMMU = {'x86_64': 'intel-iommu (q35)', 'arm64': 'SMMUv3 (virt)'}
FRAMES = re.compile(r'# bench: level (\d+): frames ascending (\d+) '
                    r'descending (\d+) apart (\d+)')
BOOT = re.compile(r'-(\d+)\.log$')
# wli's figures, 2004: before and after the allocator change
PAPER = [('2004, before', '-', '-', '~32,040', '~32,000', '~0.1% (40 merged)'),
         ('2004, after', '-', '-', '43,520', '19,513', '55.2%')]
TREE = os.environ.get('DMATOPICS_TREE', '7.3')
KINDS = [('e2e', f'{TREE} order (ascending)'),
         ('e2e-2004', '2004 order (top down, experiments/)')]


def logs_of(bench, arch, kind):
    logs = [p for p in glob.glob(os.path.join(bench, f'{arch}-{kind}-*.log'))
            if re.fullmatch(rf'{re.escape(arch)}-{kind}-\d+\.log',
                            os.path.basename(p))]
    return sorted(logs, key=lambda p: int(BOOT.search(p).group(1)))


def read(bench, arch, kind, disk='vda'):
    """{level: [(pages, entries), ...]}, one pair per boot, and
    {level: [(ascending, descending, apart), ...]}, the order of the
    buffers' frames per boot; or None."""
    logs = logs_of(bench, arch, kind)
    if not logs:
        return None
    levels, frames = {}, {}
    for log in logs:
        text = open(log, errors='replace').read()
        for m in LINE.finditer(text):
            if (m.group(2) or 'vda') != disk:
                continue
            level, pages, entries = (int(m.group(i)) for i in (1, 4, 5))
            # odirect.c prints only counts that hold; be sure anyway.
            if 0 < entries <= pages:
                levels.setdefault(level, []).append((pages, entries))
        for m in FRAMES.finditer(text):
            level, asc, desc, apart = (int(x) for x in m.groups())
            if asc + desc + apart:
                frames.setdefault(level, []).append((asc, desc, apart))
    return levels, frames


def read_dma(bench, arch, kind, iommu):
    """The AHCI disk's figures: {level: [(pages, entries, segments), ...]},
    one per boot (segments None where the kernel has no dma:dma_map_sg),
    the number of logs, and the boots left out: IOMMU boots whose init
    did not prove the disk translated."""
    logs = logs_of(bench, arch, kind)
    levels, unproven = {}, 0
    for log in logs:
        text = open(log, errors='replace').read()
        if iommu and not any(m.group(1) == AHCI
                             for m in BEHIND.finditer(text)):
            unproven += 1
            continue
        segs = {}
        for m in DMA.finditer(text):
            if m.group(2) == AHCI:
                segs[int(m.group(1))] = int(m.group(5))
        for m in LINE.finditer(text):
            if m.group(2) != AHCI:
                continue
            level, pages, entries = (int(m.group(i)) for i in (1, 4, 5))
            if 0 < entries <= pages and (level in segs or NO_EVENT in text):
                levels.setdefault(level, []).append(
                    (pages, entries, segs.get(level)))
    return levels, len(logs), unproven


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
    dma_lines, unproven = dma_table(bench, arches, out)
    lines += dma_lines
    with open(os.path.join(out, 'bench.md'), 'a') as f:
        f.write('\n'.join(lines) + '\n')
    print('\n'.join(lines))
    if not series:
        print('error: no e2e bench figures to draw', file=sys.stderr)
        return 1
    plot(series, out, 'merge-rate',
         'Scatterlist merge rate of O_DIRECT I/O against fragmentation',
         ", 55.2 with lines dashtype 2 title '2004, after the fix (55%)'")
    for name in unproven:
        print(f'error: {name}: the AHCI disk was not proven behind the '
              f'IOMMU (see the log): left out of the table', file=sys.stderr)
    return 1 if unproven else 0


def rate(pages, n):
    return 100.0 * (pages - n) / pages if pages else 0.0


def dma_table(bench, arches, out):
    """The AHCI rows, and their plot; the lines of the table, and the
    IOMMU boots left out (ARCH-KIND-iommu)."""
    lines = ['', '## Merge rate through AHCI, without and behind an IOMMU',
             '', 'The same boots\' second disk, on AHCI, whose driver maps '
             'each request with dma_map_sg(), counted with the '
             'dma:dma_map_sg tracepoint (hist:keys=device:vals=full_nents,'
             'full_ents): entries, what __blk_rq_map_sg() built (the '
             'scatterlist merge rate); segments, what dma_map_sg() returned '
             'for them, which the device is given (the device\'s merge '
             'rate, (transfer - segments) / transfer). Then as many boots '
             'again with the IOMMU in front of the disk, each of which '
             'proved it translated (IOMMU group, and DMA addresses that are '
             'not physical ones). 32-bit ARM has no IOMMU boot: Linux drives '
             'none of QEMU\'s IOMMU models there.', '',
             '| arch | allocator | IOMMU | level | boots | transfer (pages) '
             '| entries | scatterlist merge rate | segments | device merge '
             'rate |', '|---|---|---|---|---|---|---|---|---|---|']
    series, left_out = [], []
    for arch in arches:
        if arch not in AHCI_ARCHES:
            continue
        # Every level the arch's boots measured: a level that no boot of
        # one kernel and IOMMU gave figures for is listed as such.
        every = set()
        for kind, _ in KINDS:
            for k in (kind, kind + '-iommu'):
                for log in logs_of(bench, arch, k):
                    text = open(log, errors='replace').read()
                    every |= {int(m.group(1)) for m in LINE.finditer(text)}
        for kind, label in KINDS:
            for iommu in (False, True) if arch in IOMMU else (False,):
                name = IOMMU[arch] if iommu else 'none'
                k = kind + ('-iommu' if iommu else '')
                levels, logs, unproven = read_dma(bench, arch, k, iommu)
                row = f'| {arch} | {label} | {name} |'
                if not logs:
                    lines.append(f'{row} not run | | | | | | |')
                    continue
                if unproven:
                    left_out.append(f'{arch}-{k}')
                    lines.append(f'{row} {unproven} of {logs} boots not '
                                 f'proven behind the IOMMU (see {arch}-{k}-'
                                 f'N.log): left out | | | | | | |')
                if not levels:
                    lines.append(f'{row} no figures (see {arch}-{k}-N.log) '
                                 f'| | | | | | |')
                    continue
                data = []
                for level in sorted(every | set(levels)):
                    runs = levels.get(level)
                    if not runs:
                        lines.append(f'{row} {level} | 0 | no figures in any '
                                     f'boot (see {arch}-{k}-N.log) | | | | |')
                        continue
                    sg = [rate(p, e) for p, e, _ in runs]
                    if any(s is None for _, _, s in runs):
                        segs, dev = 'not measured', 'not measured'
                    else:
                        rates = [rate(p, s) for p, _, s in runs]
                        segs = span([s for _, _, s in runs], str)
                        dev = span(rates, lambda r: f'{r:.1f}%')
                        data.append((level, statistics.median(rates),
                                     min(rates), max(rates)))
                    lines.append(
                        f'{row} {level} | {len(runs)} | '
                        f'{span([p for p, _, _ in runs], str)} | '
                        f'{span([e for _, e, _ in runs], str)} | '
                        f'{span(sg, lambda r: f"{r:.1f}%")} | {segs} | '
                        f'{dev} |')
                if data:
                    series.append((f'{arch}, {label}, IOMMU {name}', data))
    if series:
        plot(series, out, 'merge-rate-iommu',
             'Merge rate the device sees (dma_map_sg), AHCI, against '
             'fragmentation', '')
    return lines, left_out


def plot(series, out, name, title, extra):
    dat = os.path.join(out, f'{name}.dat')
    with open(dat, 'w') as f:
        for t, data in series:
            f.write(f'# {t}: level, median, lowest and highest rate\n')
            for level, med, lo, hi in data:
                f.write(f'{level} {med:.2f} {lo:.2f} {hi:.2f}\n')
            f.write('\n\n')
    lines = ', '.join(f"'{dat}' index {i} using 1:2:3:4 with yerrorlines "
                     f"title '{t}'" for i, (t, _) in enumerate(series))
    script = f"""set terminal svg size 800,480 dynamic noenhanced
set output '{os.path.join(out, name + '.svg')}'
set title '{title}'
set xlabel 'fragmentation level (% of filled memory kept allocated)'
set ylabel 'pages merged (%, median and range over the boots)'
set yrange [0:100]
set key outside below
set grid
plot {lines}{extra}
"""
    subprocess.run(['gnuplot'], input=script, text=True, check=True)


if __name__ == '__main__':
    sys.exit(main())
