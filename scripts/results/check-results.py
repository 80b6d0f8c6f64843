#!/usr/bin/env python3
"""Check KUnit results against the test plan in kunit/plan.

For each arch it reads results/ARCH.log (the raw console log kunit.py
saved) with kunit.py's own parser from the kernel tree, and checks:
  - every planned case of that arch ran and passed, or skipped where the
    plan allows it, with exactly the reason the plan gives;
  - no case ran that the plan does not list;
  - nothing failed, crashed or timed out, and the console shows no kernel
    splat (BUG, WARNING, Oops, KASAN, UBSAN, panic, lockdep, RCU stall).
A variant of an arch (arm-lpae) is checked against that arch's column of
the plan; ARCH-e2e, the end-to-end boot of ARCH (scripts/runs/e2e.sh), against
the rows of its e2e_ suites (results/ARCH-e2e.log).  With --configs it
also reads results/configs.tsv, written by the configuration stage
(scripts/runs/configs.sh), and fails on any
configuration that did not build, boot or pass, or that has new warnings;
--rfc and --stage kcsan|faults read the rows of those stages the same way
(results/rfc.tsv, kcsan.tsv, faults.tsv).
Then it prints a suite x arch table and a configuration x arch table (also
written to results/summary.md) and, last, one line "N passed, N failed,
N skipped" over every KUnit run it read.

usage: check-results.py [--arch ARCH]... [--filter GLOB] [--configs] [--rfc]
       [--stage kcsan|faults]...
"""
import argparse
import fnmatch
import os
import re
import shlex
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.environ.get('RESULTS') or os.path.join(TOP, 'results')
KUNIT_ARCHES = ['x86_64', 'arm', 'arm-lpae', 'arm64']
# ARCH-e2e: the end-to-end boot of ARCH (scripts/runs/e2e.sh), suite e2e_odirect
ARCHES = KUNIT_ARCHES + [f'{a}-e2e' for a in KUNIT_ARCHES]

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import SPLAT, kunit_parser, parse, scan_ktap  # noqa: E402


def parse_plan(path, absent=()):
    """kunit/plan: 'suite.case ARCH... [ARCH:skip="reason"]...'.

    Returns {(suite, case): {arch: None (must pass) or reason (must
    skip)}}.  The rows under a comment whose first option (CONFIG_X) is
    in ABSENT, an option of a topic series this run left out, are not
    expected.
    """
    plan = {}
    section, in_comment = None, False
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.startswith('#'):
                if not in_comment:
                    section = None
                in_comment = True
                m = re.search(r'CONFIG_([A-Za-z0-9_]+)', line)
                if m and section is None:
                    section = m.group(1)
                continue
            in_comment = False
            words = shlex.split(line, comments=True)
            if not words or section in absent:
                continue
            name, rest = words[0], words[1:]
            if '.' not in name or not rest:
                sys.exit(f'{path}:{n}: expected "suite.case ARCH..."')
            suite, case = name.split('.', 1)
            expect = {}
            # "none": the case runs on no arch (a row of kunit/plan-TREE
            # for a case that tree's series does not have)
            for w in ([] if rest == ['none'] else rest):
                arch, _, skip = w.partition(':')
                if arch not in KUNIT_ARCHES or '-' in arch:
                    sys.exit(f'{path}:{n}: unknown arch {arch!r}')
                if skip and not skip.startswith('skip='):
                    sys.exit(f'{path}:{n}: expected {arch}:skip="reason"')
                expect[arch] = skip[len('skip='):] if skip else None
            plan[(suite, case)] = expect
    return plan


def tree_plan(absent=()):
    """kunit/plan, or PLAN; for a tree other than 6.1 (TREE), the rows of
    kunit/plan-TREE replace those of the same cases: what a case does on
    that tree where it differs from 6.1 ("none": the tree has no such
    case)."""
    plan = parse_plan(os.environ.get('PLAN') or
                      os.path.join(TOP, 'kunit', 'plan'), absent)
    tree = os.environ.get('TREE', '7.3')
    extra = os.path.join(TOP, 'kunit', f'plan-{tree}')
    if tree != '6.1' and not os.environ.get('PLAN') and os.path.exists(extra):
        for key, expect in parse_plan(extra, absent).items():
            if key not in plan:
                sys.exit(f'{extra}: {key[0]}.{key[1]} is not in kunit/plan')
            plan[key] = expect
    # "none" (no arch): a run of the case is not planned
    return {key: expect for key, expect in plan.items() if expect}


def plan_arch(arch):
    """The plan column of an arch: a variant (arm-lpae) uses its arch's."""
    return arch.split('-')[0]


def in_run(arch, suite):
    """The e2e boot (ARCH-e2e) runs the e2e_ suites, KUnit the others."""
    return suite.startswith('e2e_') == arch.endswith('-e2e')


def parse_log(log):
    """Suites and cases with kunit.py's verdicts."""
    top = parse(log)
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


def check_splats(arch, log, owner):
    """Kernel splats fail the run: no case may provoke one."""
    errors = []
    for n, raw in enumerate(log.splitlines()):
        if SPLAT.search(raw):
            who = f' (in {".".join(owner[n])})' if owner[n] else ''
            errors.append(f'{arch}: kernel splat at {arch}.log:{n + 1}'
                          f'{who}: {raw.strip()}')
    return errors


def check_arch(arch, plan, flt, table, missing):
    errors = []
    S = kunit_parser.TestStatus
    path = os.path.join(RESULTS, f'{arch}.log')
    status = read_status(arch)
    if status != 'ran' or not os.path.exists(path):
        table.setdefault('(not run)', {})[arch] = status
        count_missing(arch, plan, flt, {}, missing)
        return [f'{arch}: {status}']
    log = open(path, errors='replace').read()

    reasons, owner, last = scan_ktap(log)
    errors = check_splats(arch, log, owner)

    top, cases = parse_log(log)
    # A case cut off by a crash or timeout has no name in kunit.py's parse:
    # the crash or timeout below reports it, and the planned case it was
    # counts as not run.
    unnamed = [k for k in cases if not k[1]]
    for k in unnamed:
        del cases[k]
    last = last or 'none'
    if 'terminating on signal' in log and arch.endswith('-e2e'):
        errors.append(f'{arch}: timeout: the guest did not power off in '
                      f'time (E2E_TIMEOUT=); last suite started: {last}')
    elif 'terminating on signal' in log:
        errors.append(f'{arch}: timeout: kunit.py stopped QEMU before the '
                      f'run ended (--timeout, KUNIT_TIMEOUT=); last suite '
                      f'started: {last}')
    elif not cases and any(plan_arch(arch) in expect and in_run(arch, s)
                           for (s, _), expect in plan.items()):
        # (A run of topic series that have no case for it, TOPICS=, may
        # print an empty KTAP plan.)
        errors.append(f'{arch}: the kernel printed no KTAP results; last '
                      f'suite started: {last}')
    elif unnamed or top.status == S.TEST_CRASHED or any(
            st == S.TEST_CRASHED for st in cases.values()):
        errors.append(f'{arch}: the run crashed; last suite started: {last}')

    for (suite, case), st in sorted(cases.items()):
        row = table.setdefault(suite, {}).setdefault(arch, [0, 0, 0])
        expect = dict(plan.get((suite, case), {}))
        if plan_arch(arch) in expect:
            expect[arch] = expect[plan_arch(arch)]
        name = f'{arch}: {suite}.{case}'
        if (suite, case) not in plan:
            errors.append(f'{name} ran but is not in kunit/plan')
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

    return errors + count_missing(arch, plan, flt, cases, missing)


def count_missing(arch, plan, flt, cases, missing):
    """Planned cases of @arch that did not run: errors, counted as failed."""
    errors = []
    for (suite, case), expect in sorted(plan.items()):
        if plan_arch(arch) in expect and matches(flt, suite, case) and \
                in_run(arch, suite) and (suite, case) not in cases:
            errors.append(f'{arch}: planned {suite}.{case} did not run')
            missing[arch] = missing.get(arch, 0) + 1
    return errors


def read_status(arch):
    """results/ARCH.status: "ran", or why this run did not run the arch."""
    try:
        with open(os.path.join(RESULTS, f'{arch}.status')) as f:
            return f.read().strip() or 'not run: empty status'
    except OSError:
        return f'not run: no results of {arch} (make kunit ARCH={arch})'


def read_configs(path, errors, stage=None):
    """results/configs.tsv rows, with an error for each that failed.

    With STAGE (a name for messages), a file of that stage with the same
    columns (results/rfc.tsv).  Each ends with "# complete" when its
    stage ran to its end.
    """
    rows = []
    if not os.path.exists(path):
        errors.append(f'no {path}: {stage or "the configuration stage"} '
                      'did not run')
        return rows
    with open(path) as f:
        head = f.readline().rstrip('\n').split('\t')
        lines = f.read().splitlines()
        if not lines or lines[-1] != '# complete':
            errors.append(f'{stage or "the configuration stage"} stopped '
                          f'before it finished ({path} is incomplete)')
        for line in lines:
            if line.startswith('#'):
                continue
            row = dict(zip(head, line.split('\t')))
            rows.append(row)
            bad = [k for k in ('built', 'booted', 'passed')
                   if row.get(k) == 'no']
            if row.get('warnings') not in ('-', '0', None):
                bad.append('warnings')
            if bad:
                errors.append(f'configuration {row["config"]} on '
                              f'{row["arch"]}: not {"/".join(bad)}: '
                              f'{row.get("note", "")}')
    return rows


# The stages of make check-full with a results/STAGE.tsv of their own
STAGES = {
    'kcsan': 'the KCSAN stage (scripts/runs/kcsan.sh)',
    'faults': 'the fault stage (scripts/runs/faults.sh)',
}

TIERS = {
    'check': 'make check (the gate: our suites and the end-to-end boot of '
             '7.3 on x86_64 and arm; checkpatch and tools/testing/scatterlist '
             'on each tree)',
    'full': 'make check-full (every arch and configuration)',
}


def combine(trees):
    """One closing line over the runs of several trees, each of which
    left its counts in RESULTS/TREE/totals (main() below): their sums,
    and summary.md with each tree's tables.  A tree without counts
    stopped early: an error."""
    sums, errors, parts = [0, 0, 0], [], ['# KUnit results\n']
    for t in trees:
        d = os.path.join(RESULTS, t)
        try:
            with open(os.path.join(d, 'totals')) as f:
                p, fl, sk, err = (int(x) for x in f.read().split())
        except (OSError, ValueError):
            errors.append(f'tree {t}: no result counts in {d}/totals: '
                          'its run stopped before the plan check')
            continue
        sums = [sums[0] + p, sums[1] + fl, sums[2] + sk]
        if err:
            errors.append(f'tree {t}: its run failed (see above, '
                          f'{d}/summary.md and {d}/stages.tsv)')
        try:
            with open(os.path.join(d, 'summary.md')) as f:
                body = f.read().split('\n', 1)[1]
        except (OSError, IndexError):
            body = '\n(no summary)\n'
        parts.append(f'\n## linux-source-{t}\n{body}')
    with open(os.path.join(RESULTS, 'summary.md'), 'w') as f:
        f.write(''.join(parts))
        if errors:
            f.write('\n## Errors\n\n' + ''.join(f'- {e}\n' for e in errors))
    print()
    for e in errors:
        print(f'error: {e}')
    print(f'trees: {" ".join(trees)} ({RESULTS}/summary.md has the '
          'tables of each)')
    print(f'{sums[0]} passed, {sums[1]} failed, {sums[2]} skipped')
    return 1 if errors else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--arch', action='append', choices=ARCHES)
    ap.add_argument('--arch-list', help='space-separated arches ("" for '
                    'none: only the configurations)')
    ap.add_argument('--filter', default='')
    ap.add_argument('--configs', action='store_true',
                    help='also judge results/configs.tsv')
    ap.add_argument('--rfc', action='store_true',
                    help='also judge results/rfc.tsv (scripts/runs/rfc.sh)')
    ap.add_argument('--stage', action='append', default=[],
                    choices=sorted(STAGES),
                    help='also judge results/STAGE.tsv of a stage of '
                    'make check-full (kcsan, faults)')
    ap.add_argument('--absent-options', default='',
                    help='options of the topic series left out (TOPICS): '
                    'the plan rows of their sections are not expected')
    ap.add_argument('--tier', help='the tier that ran (make check: "check", '
                    'make check-full: "full"), named in summary.md')
    ap.add_argument('--combine', metavar='TREE', nargs='+',
                    help='only the closing line over the runs of these '
                    'trees, from RESULTS/TREE/totals')
    args = ap.parse_args()
    if args.combine:
        return combine(args.combine)
    if args.arch_list is not None:
        arches = args.arch_list.split()
        for a in arches:
            if a not in ARCHES:
                ap.error(f'unknown arch {a!r}')
    else:
        arches = args.arch or ARCHES
    plan = tree_plan(set(args.absent_options.split()))

    table, errors, missing = {}, [], {}
    for arch in arches:
        errors += check_arch(arch, plan, args.filter, table, missing)
    configs = read_configs(os.path.join(RESULTS, 'configs.tsv'), errors) \
        if args.configs else []
    if args.rfc:
        configs += read_configs(os.path.join(RESULTS, 'rfc.tsv'), errors,
                                'the RFC stage (scripts/runs/rfc.sh)')
    for st in args.stage:
        configs += read_configs(os.path.join(RESULTS, f'{st}.tsv'), errors,
                                STAGES[st])

    # (A run of configurations only has no suite table.)
    lines = ['| suite | ' + ' | '.join(arches) + ' |',
             '|---|' + '---|' * len(arches)] if arches else []
    notrun = table.pop('(not run)', {})
    for suite in sorted(table):
        cells = []
        for arch in arches:
            p, f, s = table[suite].get(arch, (0, 0, 0))
            cells.append(f'{p} passed, {f} failed, {s} skipped'
                         if (p, f, s) != (0, 0, 0) else '-')
        lines.append(f'| {suite} | ' + ' | '.join(cells) + ' |')
    if notrun:
        lines.append('| (this run) | ' + ' | '.join(
            notrun.get(a, 'ran') for a in arches) + ' |')
    total = [sum(table[s].get(a, (0, 0, 0))[i] for s in table for a in arches)
             for i in range(3)]
    if configs:
        lines += ['', '| configuration | arch | built | booted | passed '
                  '| new warnings | cases passed/failed/skipped | note |',
                  '|---|---|---|---|---|---|---|---|']
        for r in configs:
            lines.append('| ' + ' | '.join(r.get(k, '') for k in (
                'config', 'arch', 'built', 'booted', 'passed', 'warnings',
                'cases', 'note')) + ' |')
            # A row whose judge failed has no counts; read_configs()
            # has already made it an error
            m = re.fullmatch(r'(\d+)/(\d+)/(\d+)', r.get('cases', ''))
            for i in range(3 if m else 0):
                total[i] += int(m.group(i + 1))
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, 'summary.md'), 'w') as f:
        f.write('# KUnit results\n\n')
        if args.tier:
            f.write(f'Tier: {TIERS.get(args.tier, args.tier)}\n\n')
        f.write(f'Tree: linux-source-{os.environ.get("TREE", "7.3")}\n\n')
        f.write('\n'.join(lines) + '\n')
        f.write(f'\n{total[0]} passed, {total[1]} failed, {total[2]} '
                f'skipped ({", ".join(arches + (["configurations"] if configs else []))})\n')
        if errors:
            f.write('\n## Errors\n\n' + ''.join(f'- {e}\n' for e in errors))

    print()
    print('\n'.join(lines))
    print()
    for e in errors:
        print(f'error: {e}')
    # A planned case that never ran counts as failed.
    failed = total[1] + sum(missing.values())
    print(f'{total[0]} passed, {failed} failed, {total[2]} skipped')
    # The counts alone, for a run over both trees (scripts/runs/check.sh,
    # which sets the last field when one of its stages failed)
    with open(os.path.join(RESULTS, 'totals'), 'w') as f:
        f.write(f'{total[0]} {failed} {total[2]} {1 if errors else 0}\n')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
