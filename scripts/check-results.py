#!/usr/bin/env python3
"""Check KUnit results against the test plan in kunit/plan.

For each arch it reads results/ARCH.log (the raw console log kunit.py
saved) with kunit.py's own parser from the kernel tree, and checks:
  - every planned case of that arch ran and passed, or skipped where the
    plan allows it, with exactly the reason the plan gives;
  - no case ran that the plan does not list;
  - nothing failed, crashed or timed out, and the console shows no kernel
    splat (BUG, WARNING, Oops, KASAN, UBSAN, panic, lockdep).
Then it prints a suite x arch table (also written to results/summary.md)
and, last, one line "N passed, N failed[, N skipped]" over all arches.

usage: check-results.py [--arch ARCH]... [--filter GLOB]
"""
import argparse
import contextlib
import fnmatch
import io
import os
import re
import shlex
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get('CACHE') or os.path.join(
    os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'),
    'dmatopics')
RESULTS = os.environ.get('RESULTS') or os.path.join(TOP, 'results')
ARCHES = ['x86_64', 'arm']

sys.path.insert(0, os.path.join(CACHE, 'linux', 'tools', 'testing', 'kunit'))
import kunit_parser  # noqa: E402  (kunit.py's parser, from the tree)
import kunit_printer  # noqa: E402

SPLAT = re.compile(
    r'(BUG:|WARNING:|Oops|KASAN:|UBSAN:|Kernel panic'
    r'|possible circular locking dependency|possible recursive locking'
    r'|inconsistent lock state|suspicious RCU usage'
    r'|INFO: task .* blocked for more than)')
RESULT = re.compile(r'^(\s*)(not ok|ok) \d+ (?:- )?(.*?)(?: # SKIP ?(.*))?$')
SUBTEST = re.compile(r'^(\s*)# Subtest: (\S+)')


def parse_plan(path):
    """kunit/plan: 'suite.case ARCH... [ARCH:skip="reason"]... [splat="re"]'.

    Returns ({(suite, case): {arch: None (must pass) or reason (must
    skip)}}, {(suite, case): compiled regex of the splat it must provoke}).
    """
    plan, splats = {}, {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            words = shlex.split(line, comments=True)
            if not words:
                continue
            name, rest = words[0], words[1:]
            if '.' not in name or not rest:
                sys.exit(f'{path}:{n}: expected "suite.case ARCH..."')
            suite, case = name.split('.', 1)
            expect = {}
            for w in rest:
                if w.startswith('splat='):
                    splats[(suite, case)] = re.compile(w[len('splat='):])
                    continue
                arch, _, skip = w.partition(':')
                if arch not in ARCHES:
                    sys.exit(f'{path}:{n}: unknown arch {arch!r}')
                if skip and not skip.startswith('skip='):
                    sys.exit(f'{path}:{n}: expected {arch}:skip="reason"')
                expect[arch] = skip[len('skip='):] if skip else None
            plan[(suite, case)] = expect
    return plan, splats


def scan_ktap(log):
    """One pass over the console log, following the suites' KTAP lines.

    Returns (reasons, owner, last): the skip reason of each skipped case
    (kunit.py's parser keeps only the status), for each line the (suite,
    case) that was running when it was printed (a case prints its result
    line when it ends, so a line belongs to the next case result of its
    suite), and the last suite that started.
    """
    reasons, owner, pending, suite = {}, [], [], None
    for n, raw in enumerate(log.splitlines()):
        owner.append(None)
        m = SUBTEST.search(raw)
        if m and len(m.group(1)) == 4:
            pending, suite = [], m.group(2)
            continue
        pending.append(n)
        m = RESULT.search(raw)
        if m and len(m.group(1)) == 4 and suite:
            for p in pending:
                owner[p] = (suite, m.group(3))
            pending = []
            if m.group(4) is not None:
                reasons[(suite, m.group(3))] = m.group(4).strip()
    return reasons, owner, suite


def parse_log(log):
    """Suites and cases with kunit.py's verdicts."""
    kunit_printer.stdout._output = io.StringIO()  # parse quietly
    with contextlib.redirect_stdout(io.StringIO()):
        top = kunit_parser.parse_run_tests(log.splitlines())
    cases = {}
    for s in top.subtests:
        for c in s.subtests:
            cases[(s.name, c.name)] = c.status
    return top, cases


def matches(flt, suite, case):
    if not flt:
        return True
    sglob, _, cglob = flt.partition('.')
    return fnmatch.fnmatchcase(suite, sglob) and \
        (not cglob or fnmatch.fnmatchcase(case, cglob))


def check_splats(arch, log, owner, splats):
    """Kernel splats fail the run, except one a case is planned to provoke."""
    errors, seen = [], set()
    for n, raw in enumerate(log.splitlines()):
        if not SPLAT.search(raw):
            continue
        want = splats.get(owner[n])
        if want and want.search(raw):
            seen.add(owner[n])
            continue
        errors.append(f'{arch}: kernel splat at {arch}.log:{n + 1}: '
                      f'{raw.strip()}')
    return errors, seen


def check_arch(arch, plan, splats, flt, table, missing):
    errors = []
    S = kunit_parser.TestStatus
    path = os.path.join(RESULTS, f'{arch}.log')
    if not os.path.exists(path):
        return [f'{arch}: no console log {path}: the kernel never ran']
    log = open(path, errors='replace').read()

    reasons, owner, last = scan_ktap(log)
    errors, seen_splats = check_splats(arch, log, owner, splats)

    top, cases = parse_log(log)
    last = last or 'none'
    if 'terminating on signal' in log:
        errors.append(f'{arch}: timeout: kunit.py stopped QEMU before the '
                      f'run ended (--timeout, KUNIT_TIMEOUT=); last suite '
                      f'started: {last}')
    elif not cases:
        errors.append(f'{arch}: the kernel printed no KTAP results; last '
                      f'suite started: {last}')
    elif top.status == S.TEST_CRASHED or any(
            st == S.TEST_CRASHED for st in cases.values()):
        errors.append(f'{arch}: the run crashed; last suite started: {last}')

    for (suite, case), st in sorted(cases.items()):
        row = table.setdefault(suite, {}).setdefault(arch, [0, 0, 0])
        expect = plan.get((suite, case), {})
        name = f'{arch}: {suite}.{case}'
        if (suite, case) not in plan:
            errors.append(f'{name} ran but is not in kunit/plan')
        if (suite, case) in splats and (suite, case) not in seen_splats:
            errors.append(f'{name} did not provoke the splat the plan '
                          f'expects ({splats[(suite, case)].pattern})')
        if st == S.SUCCESS:
            row[0] += 1
            if arch in expect and expect[arch] is not None:
                errors.append(f'{name} passed; the plan says it skips here '
                              f'("{expect[arch]}"): update kunit/plan')
            elif expect and arch not in expect:
                errors.append(f'{name} ran; the plan does not list {arch}')
        elif st == S.SKIPPED:
            row[2] += 1
            why = reasons.get((suite, case), '')
            if arch not in expect or expect[arch] is None:
                errors.append(f'{name} skipped ("{why}"); the plan does '
                              f'not allow a skip on {arch}')
            elif why != expect[arch]:
                errors.append(f'{name} skipped with "{why}"; the plan says '
                              f'"{expect[arch]}"')
        else:
            row[1] += 1
            errors.append(f'{name} {st.name.lower()}')

    for (suite, case), expect in sorted(plan.items()):
        if arch in expect and matches(flt, suite, case) and \
                (suite, case) not in cases:
            errors.append(f'{arch}: planned {suite}.{case} did not run')
            missing[arch] = missing.get(arch, 0) + 1
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--arch', action='append', choices=ARCHES)
    ap.add_argument('--filter', default='')
    args = ap.parse_args()
    arches = args.arch or ARCHES
    plan, splats = parse_plan(os.path.join(TOP, 'kunit', 'plan'))

    table, errors, missing = {}, [], {}
    for arch in arches:
        errors += check_arch(arch, plan, splats, args.filter, table, missing)

    lines = ['| suite | ' + ' | '.join(arches) + ' |',
             '|---|' + '---|' * len(arches)]
    for suite in sorted(table):
        cells = []
        for arch in arches:
            p, f, s = table[suite].get(arch, (0, 0, 0))
            cells.append(f'{p} passed, {f} failed, {s} skipped'
                         if (p, f, s) != (0, 0, 0) else '-')
        lines.append(f'| {suite} | ' + ' | '.join(cells) + ' |')
    total = [sum(table[s].get(a, (0, 0, 0))[i] for s in table for a in arches)
             for i in range(3)]
    lines.append('')
    lines.append(f'{total[0]} passed, {total[1]} failed, {total[2]} skipped'
                 f' ({", ".join(arches)})')
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, 'summary.md'), 'w') as f:
        f.write('# KUnit results\n\n' + '\n'.join(lines) + '\n')
        if errors:
            f.write('\n## Errors\n\n' + ''.join(f'- {e}\n' for e in errors))

    print()
    print('\n'.join(lines[:-2]))
    print()
    for e in errors:
        print(f'error: {e}')
    # A planned case that never ran counts as failed.
    failed = total[1] + sum(missing.values())
    print(f'{total[0]} passed, {failed} failed, {total[2]} skipped')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
