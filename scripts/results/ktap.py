"""KTAP console logs read with kunit.py's own parser from the kernel tree."""
import contextlib
import io
import os
import re
import sys

# The cache of the tree, as scripts/common.sh finds it: CACHE as a
# script of that tree exported it, else the root and, for a tree other
# than 6.1, the root's sibling ROOT-TREE.
TREE = os.environ.get('TREE') or '7.3'  # scripts/common.sh's DEFAULT_TREE
if os.environ.get('DMATOPICS_TREE') == TREE and os.environ.get('CACHE'):
    CACHE = os.environ['CACHE']
else:
    CACHE = (os.environ.get('DMATOPICS_CACHE_ROOT') if
             os.environ.get('DMATOPICS_TREE') else None) or \
        os.environ.get('CACHE') or os.path.join(
            os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'),
            'dmatopics')
    if TREE != '6.1':
        CACHE += '-' + TREE
# KUNIT_TOOLS: another tree's tools/testing/kunit (the harness self-test).
sys.path.insert(0, os.environ.get('KUNIT_TOOLS') or
                os.path.join(CACHE, 'linux', 'tools', 'testing', 'kunit'))
import kunit_parser  # noqa: E402  (kunit.py's parser, from the tree)
import kunit_printer  # noqa: E402


def parse(log):
    """The top-level test of a console log, parsed quietly.  The parser
    of 6.1 and 6.12 prints to kunit_printer.stdout; later ones take the
    printer as an argument (kunit_printer.null_printer prints nothing)."""
    if hasattr(kunit_printer, 'null_printer'):
        return kunit_parser.parse_run_tests(log.splitlines(),
                                            kunit_printer.null_printer)
    kunit_printer.stdout._output = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()):
        return kunit_parser.parse_run_tests(log.splitlines())


def parse_cases(log):
    """({(suite, case): status name}, whether anything crashed)."""
    S = kunit_parser.TestStatus
    top = parse(log)
    cases, crashed = {}, top.status == S.TEST_CRASHED
    for s in top.subtests:
        for c in s.subtests:
            cases[(s.name, c.name)] = c.status.name
            crashed |= c.status == S.TEST_CRASHED
    return cases, crashed


# A kernel splat on the console: any of these fails a run.
SPLAT = re.compile(
    r'(BUG:|WARNING:|Oops|KASAN:|UBSAN:|Kernel panic'
    r'|possible circular locking dependency|possible recursive locking'
    r'|inconsistent lock state|suspicious RCU usage|rcu: INFO: .*detected stall'
    r'|INFO: task .* blocked for more than)')


def status_counts(cases):
    """[passed, failed, skipped] of parse_cases()'s cases; failed counts
    every status that is neither a pass nor a skip."""
    passed = sum(st == 'SUCCESS' for st in cases.values())
    skipped = sum(st == 'SKIPPED' for st in cases.values())
    return [passed, len(cases) - passed - skipped, skipped]


RESULT = re.compile(r'^(\s*)(not ok|ok) \d+ (?:- )?(.*?)(?: # SKIP ?(.*))?$')
SUBTEST = re.compile(r'^(\s*)# Subtest: (\S+)')


def scan_ktap(log):
    """One pass over the console log, following the suites' KTAP lines.

    Returns (reasons, owner, last): the skip reason of each skipped case
    (kunit.py's parser keeps only the status), for each line the (suite,
    case) that was running when it was printed (a case prints its result
    line when it ends, so a line belongs to the next case result of its
    suite), and the last suite that started.
    """
    reasons, owner, pending, suite = {}, [], [], None
    params = []	# the skip reasons of the running case's parameters
    for n, raw in enumerate(log.splitlines()):
        owner.append(None)
        m = SUBTEST.search(raw)
        if m and len(m.group(1)) == 4:
            pending, suite, params = [], m.group(2), []
            continue
        pending.append(n)
        m = RESULT.search(raw)
        if m and len(m.group(1)) == 8 and suite:
            params.append(m.group(4))
        if m and len(m.group(1)) == 4 and suite:
            for p in pending:
                owner[p] = (suite, m.group(3))
            pending = []
            if m.group(4) is not None:
                why = m.group(4).strip()
                # 6.12's KUnit gives a parameterised case whose every
                # parameter skipped no reason of its own: the reason is
                # its parameters', when they all give the same one
                if not why and params and params[0] and \
                        all(r == params[0] for r in params):
                    why = params[0].strip()
                reasons[(suite, m.group(3))] = why
            params = []
    return reasons, owner, suite
