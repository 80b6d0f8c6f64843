#!/usr/bin/env python3
"""Judge one run of the KCSAN stage (scripts/runs/kcsan.sh): results/RUN.log.

Prints "yes|no<TAB>passed/failed/skipped<TAB>note" and appends each KCSAN
report of the log to results/kcsan-reports.tsv.

The cases: with --plan ARCH, every case of the plan's ARCH column ran and
passed or skipped with the plan's reason (ARCH-e2e: the e2e_ suites);
with --all-pass GLOB, every case of the suites GLOB matches passed.
Any splat but KCSAN's fails the run, as does a crash.

A KCSAN report names the functions of its two accesses ("data-race in
A / B"; one for a race of unknown origin).  It is in code the series
changes if one of them is: a function of a C file the series (or the RFC
on top of it) adds, or one its diff against the baseline changes or
defines (--diff: git diff -U0).  Not seen so: a function inlined from a
header the series changes, and a static function of another file that
has the name of one the series changes (taken as the series').  Such a
report fails the run.  Any other is in untouched code: with --baseline
LOG, pre-existing if the baseline boot reported the same pair of
functions, else "not on the baseline"; neither fails the run.

With --fill-baseline (make merge-results, where the baseline boot ran
in a CI job of its own, "kcsan-base"), the reports of results/
kcsan-reports.tsv marked "no baseline run" are compared with those of
the baseline boot's rows in the same file, and counted again in the
notes of results/kcsan.tsv; it fails if there are such reports and
kcsan.tsv has no baseline boot.

usage: kcsan-judge.py --run RUN --vmlinux PATH --diff FILE
       [--baseline LOG | --no-baseline] [--plan ARCH | --all-pass GLOB]
       kcsan-judge.py --fill-baseline
"""
import argparse
import fnmatch
import importlib.util
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.environ.get('RESULTS') or os.path.join(TOP, 'results')
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import SPLAT, parse_cases, scan_ktap, status_counts  # noqa: E402

HEADER = re.compile(r'BUG: KCSAN: (.*?) in (\S+)(?: \[\S+\])?'
                    r'(?: / (\S+)(?: \[\S+\])?)?\s*$')
# A symbol with the suffixes the compiler adds to a copy of a function.
SUFFIX = re.compile(r'\.(isra|constprop|part|cold|lto_priv)\.?\d*')
# A function definition at the start of a line: "static int name(...".
DEFINITION = re.compile(r'^[A-Za-z_][\w \t\*]*?\b(\w+)\([^;]*$')


def reports(log):
    """[(kind, [function, ...], line number)] of the KCSAN reports."""
    found = []
    for n, line in enumerate(log.splitlines(), 1):
        m = HEADER.search(line)
        if m:
            funcs = [f.split('+')[0] for f in m.group(2, 3) if f]
            found.append((m.group(1), [SUFFIX.sub('', f) for f in funcs], n))
    return found


def series_functions(bd, diff):
    """{function: file} of the code the series changes, from the diff of
    the tree against the baseline (git diff -U0): every function of a C
    file it adds (nm on the object the build made of it), and in a file
    it changes, the functions its hunks lie in (the hunk headers) and
    those it defines."""
    funcs, path, new = {}, None, False
    for line in diff.splitlines():
        if line.startswith('--- '):
            new = line == '--- /dev/null'
        elif line.startswith('+++ '):
            path = line[6:] if line.startswith('+++ b/') else None
            if path and new and path.endswith('.c'):
                obj = os.path.join(bd, path[:-2] + '.o')
                if os.path.exists(obj):
                    out = subprocess.run(['nm', '--defined-only', obj],
                                         text=True, capture_output=True)
                    for w in (x.split() for x in out.stdout.splitlines()):
                        if len(w) == 3 and w[1] in 'tTwW':
                            funcs.setdefault(SUFFIX.sub('', w[2]), path)
        elif not path or not path.endswith('.c') or new:
            continue
        elif line.startswith('@@'):
            m = re.search(r'@@ .*? @@.*?(\w+)\s*\(', line)
            if m:
                funcs.setdefault(m.group(1), path)
        elif line.startswith('+'):
            m = DEFINITION.match(line[1:])
            if m:
                funcs.setdefault(m.group(1), path)
    return funcs


def load_plan():
    spec = importlib.util.spec_from_file_location(
        'check_results', os.path.join(TOP, 'scripts', 'results', 'check-results.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.tree_plan()


def judge_cases(log, cases, args):
    problems = []
    if args.plan:
        arch = args.plan.split('-')[0]
        e2e = args.plan.endswith('-e2e')
        reasons, _, _ = scan_ktap(log)
        plan = load_plan()
        for (suite, case), expect in sorted(plan.items()):
            if arch not in expect or suite.startswith('e2e_') != e2e:
                continue
            st = cases.get((suite, case))
            want = expect[arch]
            name = f'{suite}.{case}'
            if st is None:
                problems.append(f'{name} did not run')
            elif want is None and st != 'SUCCESS':
                problems.append(f'{name} {st.lower()}')
            elif want is not None and (st != 'SKIPPED' or
                                       reasons.get((suite, case)) != want):
                problems.append(f'{name} {st.lower()}, the plan says it '
                                f'skips ("{want}")')
        for suite, case in cases:
            if (suite, case) not in plan:
                problems.append(f'{suite}.{case} ran but is not in kunit/plan')
    if args.all_pass:
        if not any(fnmatch.fnmatch(s, args.all_pass) for s, _ in cases):
            problems.append(f'suite {args.all_pass} did not run')
        problems += [f'{s}.{c} {st.lower()}' for (s, c), st in
                     sorted(cases.items()) if st != 'SUCCESS']
    return problems


BASE_RUN = 'base-kcsan-e2e'


def fill_baseline():
    """Compare the reports of the runs judged without the baseline boot
    with that boot's reports in the same results/kcsan-reports.tsv, and
    count them again in those runs' notes in results/kcsan.tsv.  Returns
    an error if such reports are there but the baseline boot is not."""
    path = os.path.join(RESULTS, 'kcsan.tsv')
    with open(path) as f:
        lines = [r.rstrip('\n').split('\t') for r in f]
    booted = any(r[0] == BASE_RUN and r[3:4] == ['yes'] for r in lines[1:])
    tsv = os.path.join(RESULTS, 'kcsan-reports.tsv')
    head, rows = 'run line kind functions where baseline'.split(), []
    if os.path.exists(tsv):
        with open(tsv) as f:
            head, *rows = [r.rstrip('\n').split('\t') for r in f]
    if not booted:
        if any(r[5] == 'no baseline run' for r in rows):
            return ('KCSAN reports judged without the baseline boot, and '
                    'no baseline boot (kcsan-base) among the results merged')
        return None
    pair = lambda r: tuple(sorted(r[3].split(' / ')))  # noqa: E731
    before = {pair(r) for r in rows if r[0] == BASE_RUN}
    for r in rows:
        if r[5] == 'no baseline run':
            r[5] = 'same pair on the baseline' if pair(r) in before \
                else 'not on the baseline'
    if rows:
        with open(tsv, 'w') as f:
            f.writelines('\t'.join(r) + '\n' for r in [head] + rows)
    # The notes: a run's row is named as scripts/runs/kcsan.sh records it
    # (kcsan, kcsan-e2e: the runs ARCH-kcsan, ARCH-kcsan-e2e; an RFC's
    # row is its run's name).
    untouched = re.compile(r'(\d+) in untouched code \(no baseline boot '
                           r'in this run\)')
    for r in lines[1:]:
        # (the baseline boot's own note is judged without a baseline)
        if len(r) < 8 or r[0] == BASE_RUN or not untouched.search(r[7]):
            continue
        run = r[0] if r[0].startswith('rfc-') else f'{r[1]}-{r[0]}'
        mine = [x for x in rows if x[0] == run and x[4] == 'untouched code']
        pre = sum(x[5] == 'same pair on the baseline' for x in mine)
        r[7] = untouched.sub(
            f'{pre} pre-existing (same pair on the baseline), '
            f'{len(mine) - pre} in untouched code not on the baseline', r[7])
    with open(path, 'w') as f:
        f.writelines('\t'.join(r) + '\n' for r in lines)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--fill-baseline', action='store_true')
    ap.add_argument('--run')
    ap.add_argument('--vmlinux')
    ap.add_argument('--diff',
                    help='git diff -U0 of the tree against the baseline')
    ap.add_argument('--baseline')
    ap.add_argument('--no-baseline', action='store_true')
    ap.add_argument('--plan')
    ap.add_argument('--all-pass')
    args = ap.parse_args()
    if args.fill_baseline:
        error = fill_baseline()
        if error:
            sys.exit(f'error: {error}')
        return
    if not (args.run and args.vmlinux and args.diff):
        ap.error('--run, --vmlinux and --diff are required')

    log = open(os.path.join(RESULTS, f'{args.run}.log'),
               errors='replace').read()
    cases, crashed = parse_cases(log)
    # A case cut off by a crash has no name: the crash names it.
    cases = {k: st for k, st in cases.items() if k[1]}
    problems = ['the run crashed or timed out'] if crashed else []
    for n, line in enumerate(log.splitlines(), 1):
        if SPLAT.search(line) and 'BUG: KCSAN:' not in line:
            problems.append(f'splat at {args.run}.log:{n}: {line.strip()[:80]}')
            break
    problems += judge_cases(log, cases, args)

    with open(args.diff, errors='replace') as f:
        ours = series_functions(os.path.dirname(args.vmlinux), f.read())
    before = set()
    if args.baseline and not args.no_baseline and os.path.exists(args.baseline):
        before = {tuple(sorted(f)) for _, f, _ in
                  reports(open(args.baseline, errors='replace').read())}
    found = reports(log)
    in_series = pre = 0
    tsv = os.path.join(RESULTS, 'kcsan-reports.tsv')
    new = not os.path.exists(tsv)
    with open(tsv, 'a') as f:
        if new:
            f.write('run\tline\tkind\tfunctions\twhere\tbaseline\n')
        for kind, funcs, n in found:
            files = sorted({ours[fn] for fn in funcs if fn in ours})
            if files:
                in_series += 1
                where = 'series: ' + ' '.join(files)
                problems.append(f'KCSAN {kind} in {" / ".join(funcs)} '
                                f'({" ".join(files)}), {args.run}.log:{n}')
            else:
                where = 'untouched code'
            if args.no_baseline:
                seen = '-'
            elif not os.path.exists(args.baseline or ''):
                seen = 'no baseline run'
            else:
                seen = 'same pair on the baseline' \
                    if tuple(sorted(funcs)) in before else 'not on the baseline'
                if not files and tuple(sorted(funcs)) in before:
                    pre += 1
            f.write(f'{args.run}\t{n}\t{kind}\t{" / ".join(funcs)}\t'
                    f'{where}\t{seen}\n')

    counts = status_counts(cases)
    have_base = not args.no_baseline and os.path.exists(args.baseline or '')
    race = (f'{len(found)} KCSAN reports: {in_series} in code the series '
            f'changes, ' + (
                f'{pre} pre-existing (same pair on the baseline), '
                f'{len(found) - in_series - pre} in untouched code not on '
                f'the baseline' if have_base else
                f'{len(found) - in_series} in untouched code (no baseline '
                f'boot in this run)') if found else 'no KCSAN report')
    note = '; '.join([race] + problems[:4]) if problems else \
        f'{len(cases)} cases as planned, {race}'
    print('\t'.join(['no' if problems or not cases else 'yes',
                     '/'.join(map(str, counts)), note]))


if __name__ == '__main__':
    main()
