#!/usr/bin/env python3
"""Judge the fault stage's boot of one arch (scripts/runs/faults.sh).

Reads results/ARCH-faults.log, the console of the e2e boot with
e2e_faults=SETTINGS (scripts/runs/e2e/faults.c), and prints one line of
results/faults.tsv per setting.  For each setting it writes the KTAP of
the suites loaded under it as results/ARCH-faults-iN.log (N: the
interval; 0, no failures) with its .ktap and .junit.xml.

A setting fails on: a crash or timeout (a module that never finished
loading, or no end of the setting), a kernel splat, kmemleak's reports,
O_DIRECT data read back wrong, a wrong result of the UIO workload
(memory still reachable after the unbind), an error of the init (an attribute the
guest refused, a missing debugfs file), or, with failures, none
injected into a module or into the I/O.  Without failures, every case
must pass or skip.  With them, a case skips when an allocation it needs
fails (it names the allocation); one that fails is listed against the
run without failures, and the cases of those runs count in no total.

usage: faults-judge.py ARCH SETTINGS
"""
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.environ.get('RESULTS') or os.path.join(TOP, 'results')
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import SPLAT, parse_cases, status_counts  # noqa: E402

STAMP = re.compile(r'^\[\s*\d+\.\d+\] ?')
MARK = re.compile(r'# e2e_faults: (.*)$')
TOPLINE = re.compile(r'^(not ok|ok) \d+ (?:- )?(\S+)(.*)$')
# The version and plan lines a module's suites start with (6.12 prints
# them for each module loaded, which kunit.py's parser then takes for a
# test nested in the run)
MODHEAD = re.compile(r'^(K?TAP version \d+|1\.\.\d+)$')


def main():
    arch, settings = sys.argv[1], [int(s) for s in sys.argv[2].split(',')]
    log = open(os.path.join(RESULTS, f'{arch}-faults.log'),
               errors='replace').read().splitlines()
    per = {s: {'lines': [], 'loads': {}, 'io': None, 'uio': None, 'end': None,
               'errors': [], 'leaks': [], 'splats': []} for s in settings}
    cur, module = None, None
    for n, raw in enumerate(log, 1):
        line = STAMP.sub('', raw)
        m = MARK.search(line)
        if m:
            text = m.group(1)
            if (g := re.match(r'setting interval (\d+)$', text)):
                cur = per.get(int(g.group(1)))
            elif (g := re.match(r'load (\S+) interval', text)):
                module = g.group(1)
            elif (g := re.match(r'loaded (\S+) interval \d+: (.*), '
                                r'(\d+) failures injected', text)) and cur:
                cur['loads'][g.group(1)] = (g.group(2), int(g.group(3)))
                module = None
            elif (g := re.match(r'odirect .*, (\d+) chunks wrong, (\d+) '
                                r'failures injected', text)) and cur:
                cur['io'] = (int(g.group(1)), int(g.group(2)))
            elif (g := re.match(r'uio .*, (\d+) wrong, (\d+) failures '
                                r'injected', text)) and cur:
                cur['uio'] = (int(g.group(1)), int(g.group(2)))
            elif (g := re.match(r'setting interval \d+: .*kmemleak (-?\d+)',
                                text)) and cur:
                cur['end'] = int(g.group(1))
            elif text.startswith('kmemleak: ') and cur:
                cur['leaks'].append(text)
            elif text.startswith('error: ') and cur:
                cur['errors'].append(text[7:])
            elif text.startswith('error: '):
                for s in per.values():
                    s['errors'].append(text[7:])
            continue
        if cur is None:
            continue
        if SPLAT.search(line):
            who = f' (loading {module})' if module else ''
            cur['splats'].append(f'{arch}-faults.log:{n}{who}: '
                                 f'{line.strip()[:80]}')
        if module:
            cur['lines'].append(line)

    base_cases = None
    rc = 0
    for s in settings:
        d = per[s]
        name = f'{arch}-faults-i{s}'
        # The suites of the modules loaded, as one KTAP run.
        body, count = [], 0
        for line in d['lines']:
            # Each module's own KTAP header: one header for them all
            if MODHEAD.match(line):
                continue
            m = TOPLINE.match(line)
            if m:
                count += 1
                line = f'{m.group(1)} {count} {m.group(2)}{m.group(3)}'
            body.append(line)
        with open(os.path.join(RESULTS, f'{name}.log'), 'w') as f:
            f.write(f'KTAP version 1\n1..{count}\n' + '\n'.join(body) + '\n')
        with open(os.path.join(RESULTS, f'{name}.status'), 'w') as f:
            f.write('ran\n')
        subprocess.run(['/usr/bin/python3',
                        os.path.join(TOP, 'scripts', 'results', 'export-results.py'),
                        name], check=False)
        cases, crashed = parse_cases(
            open(os.path.join(RESULTS, f'{name}.log')).read())
        counts = status_counts(cases)

        problems = []
        if d['end'] is None:
            problems.append('the boot ended before this setting did '
                            '(crash or timeout)')
        problems += d['splats'][:2]
        problems += [f'init: {e}' for e in d['errors'][:2]]
        if d['end'] not in (None, 0):
            problems.append(f'kmemleak: {d["end"]} unreferenced objects' if
                            d['end'] > 0 else 'kmemleak did not scan')
        if d['io'] and d['io'][0]:
            problems.append(f'O_DIRECT: {d["io"][0]} chunks read back wrong')
        if d['uio'] and d['uio'][0]:
            problems.append(f'UIO: {d["uio"][0]} wrong results')
        injected = [f'{m.split("_kunit")[0]} {k}'
                    for m, (_, k) in d['loads'].items()]
        if d['io']:
            injected.append(f'odirect {d["io"][1]}')
        if d['uio']:
            injected.append(f'uio {d["uio"][1]}')
        if s:
            none = [m for m, (_, k) in d['loads'].items() if not k]
            if d['io'] and not d['io'][1]:
                none.append('odirect')
            if d['uio'] and not d['uio'][1]:
                none.append('uio')
            if none:
                problems.append(f'no failure injected into {", ".join(none)}')
        refused = [f'{m}: {r}' for m, (r, _) in d['loads'].items() if r != '0']
        if s == 0:
            base_cases = cases
            bad = [f'{c[0]}.{c[1]} {st.lower()}' for c, st in
                   sorted(cases.items()) if st not in ('SUCCESS', 'SKIPPED')]
            problems += bad[:3]
            if refused:
                problems.append(f'a module did not load: {refused[0]}')
            if crashed:
                problems.append('a suite crashed')
            cells = '/'.join(map(str, counts))
            note = f'no failures injected; {len(cases)} cases'
        else:
            differ = sorted(c for c, st in cases.items()
                            if base_cases and base_cases.get(c) != st)
            # A case that fails only with failures injected is listed:
            # it should have skipped, naming the allocation (or it gave
            # a wrong result); it does not fail the stage.
            failed = [f'{c[0]}.{c[1]}' for c in differ
                      if cases[c] not in ('SUCCESS', 'SKIPPED')]
            skipped = sum(1 for c in differ if cases[c] == 'SKIPPED')
            cells = '-'
            total = (sum(k for _, k in d['loads'].values()) +
                     sum(d[w][1] for w in ('io', 'uio') if d[w]))
            note = (f'{total} '
                    f'failures injected ({", ".join(injected)}); cases '
                    f'{"/".join(map(str, counts))}: {skipped} skipped and '
                    f'{len(failed)} failed that passed without failures'
                    + (f' ({", ".join(failed[:3])})' if failed else '')
                    + (f'; loads refused: {", ".join(refused)}' if refused else ''))
        ok = 'no' if problems else 'yes'
        if problems:
            rc = 1
            note = '; '.join(problems[:4]) + ' | ' + note
        print('\t'.join([f'faults-i{s}', arch, 'yes', 'yes', ok, '-', cells,
                         note]))
    return rc


if __name__ == '__main__':
    sys.exit(main())
