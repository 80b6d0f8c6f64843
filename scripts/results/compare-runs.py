#!/usr/bin/env python3
"""Compare a KUnit run on baseline + series with the same run on the baseline.

usage: compare-runs.py --config NAME --arch ARCH BASE.tsv NEW.log SYMBOLS DOTCONFIG

BASE.tsv is a baseline file (scripts/results/kunit_baseline.py: the expected
results, case -> status); NEW.log is read with kunit.py's parser from the
kernel tree.
Nothing that passed on the baseline may fail, crash or disappear, and no
case new in the series may fail.  SYMBOLS (space-separated) are the
Kconfig symbols the series adds; the note says which of them DOTCONFIG
has on, and so which of our suites ran and which are absent because an
option they depend on is off.  Prints one results/configs.tsv line:
config arch built booted passed warnings cases note.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import parse_cases, status_counts  # noqa: E402
import kunit_baseline  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--config', required=True)
    ap.add_argument('--arch', required=True)
    ap.add_argument('base')
    ap.add_argument('new')
    ap.add_argument('symbols')
    ap.add_argument('dotconfig')
    a = ap.parse_args()

    try:
        base, _ = kunit_baseline.read(a.base)
    except kunit_baseline.BadBaseline as e:
        sys.exit(f'error: {e}')
    new, crashed = parse_cases(open(a.new, errors='replace').read())
    problems = []
    for key, st in sorted(base.items()):
        if st != 'SUCCESS':
            continue
        got = new.get(key)
        if got != 'SUCCESS':
            problems.append(f'{".".join(key)} passed on the baseline, '
                            f'{(got or "missing").lower()} with the series')
    for key, st in sorted(new.items()):
        if key not in base and st not in ('SUCCESS', 'SKIPPED'):
            problems.append(f'{".".join(key)} (new) {st.lower()}')
    if crashed:
        problems.append('the run crashed or timed out')

    config = open(a.dotconfig).read() if os.path.exists(a.dotconfig) else ''
    on, off = [], []
    for sym in a.symbols.split():
        if re.search(rf'^CONFIG_{sym}=[ym]$', config, re.M):
            on.append(sym)
        else:
            off.append(sym)
    ours = sorted({s for s, _ in new} - {s for s, _ in base})
    counts = status_counts(new)
    note = (f'{len(new)} cases ({len(base)} on the baseline); '
            f'new suites: {", ".join(ours) or "none"}; '
            f'on: {" ".join(on) or "none"}; '
            f'off (a dependency not met, or not a test: default n): {" ".join(off) or "none"}')
    if problems:
        note = '; '.join(problems[:5]) + \
            (f' (+{len(problems) - 5} more)' if len(problems) > 5 else '') + \
            '. ' + note
    print('\t'.join([a.config, a.arch, 'yes', 'yes' if new else 'no',
                     'no' if problems or not new else 'yes', '-',
                     '/'.join(map(str, counts)), note]))


if __name__ == '__main__':
    main()
