#!/usr/bin/python3
"""Write results/ARCH.ktap and results/ARCH.junit.xml from results/ARCH.log.

ARCH.ktap is the KTAP stream alone, without the boot messages around it,
as kunit.py's parser extracts it (readable by "kunit.py parse").
ARCH.junit.xml has one testcase per case and one per parameter of a
parameterised case, with the skip reason and the failing case's log.
kunit.py 6.1 prints the parameters of a skipped case as plain "ok" with no
SKIP (its --json calls them passed): here they are skipped, with the
case's reason.  Written with Debian's python3-junit.xml, hence
/usr/bin/python3.

usage: export-results.py ARCH...
"""
import os
import sys

from junit_xml import TestCase, TestSuite, to_xml_report_string

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import kunit_parser, parse, scan_ktap  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.environ.get('RESULTS') or os.path.join(TOP, 'results')


def junit_case(classname, name, status, reason, log):
    S = kunit_parser.TestStatus
    tc = TestCase(name, classname=classname)
    if status == S.SKIPPED:
        tc.add_skipped_info(reason or 'skipped')
    elif status == S.FAILURE:
        tc.add_failure_info('failed', '\n'.join(log))
    elif status != S.SUCCESS:
        tc.add_error_info(status.name.lower(), '\n'.join(log))
    return tc


def export(arch):
    with open(os.path.join(RESULTS, f'{arch}.log'), errors='replace') as f:
        log = f.read()
    lines = kunit_parser.extract_tap_lines(log.splitlines())
    ktap = []
    while lines:
        ktap.append(lines.pop())
    with open(os.path.join(RESULTS, f'{arch}.ktap'), 'w') as f:
        f.write('\n'.join(ktap) + '\n')

    S = kunit_parser.TestStatus
    reasons, _, _ = scan_ktap(log)
    suites = []
    for suite in parse(log).subtests:
        cases = []
        for case in suite.subtests:
            reason = reasons.get((suite.name, case.name), '')
            cls = f'{arch}.{suite.name}'
            cases.append(junit_case(cls, case.name, case.status, reason,
                                    case.log))
            for param in case.subtests:
                st = S.SKIPPED if case.status == S.SKIPPED else param.status
                cases.append(junit_case(f'{cls}.{case.name}', param.name,
                                        st, reason, param.log))
        suites.append(TestSuite(f'{arch}.{suite.name}', cases))
    with open(os.path.join(RESULTS, f'{arch}.junit.xml'), 'w') as f:
        f.write(to_xml_report_string(suites))


for a in sys.argv[1:]:
    export(a)
