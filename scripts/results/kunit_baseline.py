#!/usr/bin/env python3
"""Expected results of kunit.py's default run on the untouched tree.

A baseline file, kunit/baseline/VERSION/ARCH.tsv, is what kunit.py's own
default run (KUNIT_ALL_TESTS, no fragment of ours) gives on the untouched
linux-source-TREE tree of package VERSION for ARCH, one "suite.case<TAB>
STATUS" line per case (STATUS as kunit.py's parser names it), after a
header that names the package version, the arch, the command and the
date, and before a last line "# end: N cases".  A file whose header names
another version or arch, a malformed line, or a missing or wrong end line
(a truncated or half-written file) is refused with its name and the
reason; it is never read as a baseline.

usage: kunit_baseline.py write LOG FILE --version V --arch A --command C
         (the file is written beside FILE and renamed over it at the end)
       kunit_baseline.py check FILE --version V --arch A
         (exit 0 if FILE is a valid baseline of V and A, else the reason)
       kunit_baseline.py diff OLD NEW  (exit 1 and the differences, if any)
       kunit_baseline.py select DIR --version V --arch A
         (print DIR/V/A.tsv if it is a valid baseline, else exit 1 with
         the reason: no file for V, a file left half-written by an
         interrupted "make baseline", a malformed or truncated file)
"""
import argparse
import datetime
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

LINE = re.compile(r'^([^\t.\s][^\t]*)\.([^\t]+)\t([A-Z_]+)$')
STATUSES = {'SUCCESS', 'FAILURE', 'SKIPPED', 'TEST_CRASHED', 'NO_TESTS',
            'FAILURE_TO_PARSE_TESTS'}


class BadBaseline(Exception):
    pass


def package(version):
    """The Debian package of a version: 6.12.118-1 is linux-source-6.12's."""
    return 'linux-source-' + '.'.join(version.split('.')[:2])


def read(path, version=None, arch=None):
    """({(suite, case): status}, header) of a valid baseline file."""
    try:
        lines = open(path, encoding='utf-8').read().split('\n')
    except (OSError, UnicodeDecodeError) as e:
        raise BadBaseline(f'{path}: cannot be read ({e})')
    if lines and lines[-1] == '':
        lines.pop()
    else:
        raise BadBaseline(f'{path}: truncated (no newline at the end)')
    header, cases = {}, {}
    end = None
    for n, line in enumerate(lines, 1):
        if end is not None:
            raise BadBaseline(f'{path}:{n}: a line after "# end"')
        if line.startswith('# end: '):
            m = re.fullmatch(r'# end: (\d+) cases', line)
            if not m:
                raise BadBaseline(f'{path}:{n}: malformed end line')
            end = int(m.group(1))
            continue
        if line.startswith('# '):
            k, _, v = line[2:].partition(': ')
            header[k] = v
            continue
        m = LINE.match(line)
        if not m or m.group(3) not in STATUSES:
            raise BadBaseline(f'{path}:{n}: malformed line {line[:60]!r}')
        if (m.group(1), m.group(2)) in cases:
            raise BadBaseline(f'{path}:{n}: {m.group(1)}.{m.group(2)} twice')
        cases[(m.group(1), m.group(2))] = m.group(3)
    if end is None:
        raise BadBaseline(f'{path}: truncated (no "# end: N cases" line)')
    if end != len(cases):
        raise BadBaseline(f'{path}: the end line says {end} cases, '
                          f'the file has {len(cases)}')
    for k in ('version', 'arch', 'command', 'date'):
        if k not in header:
            raise BadBaseline(f'{path}: no "# {k}:" line in the header')
    if version is not None and header['version'] != version:
        raise BadBaseline(f'{path}: made on {package(header["version"])} '
                          f'{header["version"]}, the installed one is '
                          f'{version}')
    if arch is not None and header['arch'] != arch:
        raise BadBaseline(f'{path}: made for {header["arch"]}, not {arch}')
    if not cases:
        raise BadBaseline(f'{path}: no case')
    return cases, header


def write(log, path, version, arch, command):
    from ktap import parse_cases
    cases, crashed = parse_cases(open(log, errors='replace').read())
    if not cases:
        sys.exit(f'error: {log}: kunit.py parsed no case; '
                 f'no baseline written')
    if crashed:
        sys.exit(f'error: {log}: the baseline run crashed or timed out; '
                 f'no baseline written')
    date = datetime.datetime.now(datetime.timezone.utc)
    tmp = path + '.tmp'
    os.makedirs(os.path.dirname(path) or '.', exist_ok=True)
    with open(tmp, 'w') as f:
        f.write('# kunit.py\'s default run (KUNIT_ALL_TESTS) on the '
                'untouched tree: case and status\n')
        f.write(f'# version: {version}\n# arch: {arch}\n')
        f.write(f'# command: {command}\n')
        f.write(f'# date: {date.strftime("%Y-%m-%dT%H:%M:%SZ")}\n')
        for (s, c), st in sorted(cases.items()):
            f.write(f'{s}.{c}\t{st}\n')
        f.write(f'# end: {len(cases)} cases\n')
    try:
        read(tmp, version, arch)
    except BadBaseline:
        os.remove(tmp)
        raise
    os.replace(tmp, path)


def select(top, version, arch):
    """The baseline file of VERSION and ARCH under TOP, or BadBaseline."""
    path = os.path.join(top, version, arch + '.tsv')
    if os.path.exists(path + '.tmp'):
        raise BadBaseline(f'{path}.tmp: left half-written by an interrupted '
                          f'"make baseline"; not used')
    if not os.path.exists(path):
        have = sorted(v for v in os.listdir(top)
                      if os.path.exists(os.path.join(top, v, arch + '.tsv'))) \
            if os.path.isdir(top) else []
        raise BadBaseline(
            f'{path}: no baseline file for {package(version)} {version} on '
            f'{arch}' + (f' (there are files for {", ".join(have)} only, '
                         f'never used for another version)' if have else ''))
    read(path, version, arch)
    return path


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    w = sub.add_parser('write')
    w.add_argument('log')
    w.add_argument('file')
    c = sub.add_parser('check')
    c.add_argument('file')
    for p in (w, c):
        p.add_argument('--version', required=True)
        p.add_argument('--arch', required=True)
    w.add_argument('--command', required=True)
    s = sub.add_parser('select')
    s.add_argument('dir')
    s.add_argument('--version', required=True)
    s.add_argument('--arch', required=True)
    d = sub.add_parser('diff')
    d.add_argument('old')
    d.add_argument('new')
    a = ap.parse_args()
    try:
        if a.cmd == 'write':
            write(a.log, a.file, a.version, a.arch, a.command)
        elif a.cmd == 'check':
            read(a.file, a.version, a.arch)
        elif a.cmd == 'select':
            print(select(a.dir, a.version, a.arch))
        else:
            old, oh = read(a.old)
            new, nh = read(a.new)
            diffs = [f'{".".join(k)}: {old.get(k, "absent")} in {a.old}, '
                     f'{new.get(k, "absent")} now'
                     for k in sorted(set(old) | set(new))
                     if old.get(k) != new.get(k)]
            for line in diffs:
                print(line)
            if diffs:
                sys.exit(1)
            print(f'{a.new}: the same {len(new)} cases and statuses as '
                  f'{a.old}')
    except BadBaseline as e:
        sys.exit(f'error: {e}')


if __name__ == '__main__':
    main()
