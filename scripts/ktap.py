"""KTAP console logs read with kunit.py's own parser from the kernel tree."""
import contextlib
import io
import os
import sys

CACHE = os.environ.get('CACHE') or os.path.join(
    os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'),
    'dmatopics')
# KUNIT_TOOLS: another tree's tools/testing/kunit (the harness self-test).
sys.path.insert(0, os.environ.get('KUNIT_TOOLS') or
                os.path.join(CACHE, 'linux', 'tools', 'testing', 'kunit'))
import kunit_parser  # noqa: E402  (kunit.py's parser, from the tree)
import kunit_printer  # noqa: E402


def parse(log):
    """The top-level test of a console log, parsed quietly."""
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
