#!/usr/bin/env python3
"""Make the cover letter of a topic series from a freshly generated one.

usage: cover-letter.py NEW [OLD] [BASE] [DATE] [--plan PLAN --topic-paths
                       "PATH..."] [--maintainers FILE] [--recipients FILE]

NEW is "git format-patch --cover-letter --base" output, with its
"*** SUBJECT HERE ***" and "*** BLURB HERE ***" placeholders.  The
subject and the text before the shortlog are taken from OLD (the
kernel-patches/TREE/TOPIC/0000-cover-letter.patch being replaced) when it
exists; BASE, if given, replaces the commit id on the "base-commit:"
line, and DATE the Date header (format-patch writes the current time;
the last patch's date keeps a refresh without changes from changing the
file).

With --plan and --topic-paths, the text ends with the topic's test plan:
the rows of PLAN (kunit/plan) whose section names a file under one of
the topic's paths.  With --maintainers, the output of
"scripts/get_maintainer.pl --roles" on the topic's patches, the letter
gets To: (the M: entries) and Cc: (reviewers and lists) headers.  With
--recipients, a topic's kernel-patches/TREE/TOPIC/recipients adds those that
get_maintainer.pl cannot know of, one "To: WHO" or "Cc: WHO" line each,
"#" starting a comment (the reason); nobody is named twice, and To wins.
Both are made anew on every refresh.  The result goes to stdout.
"""
import argparse
import os
import re
import sys

PLAN_HEAD = 'Test plan (the KUnit cases of this series, and where they run):'


def read_text(path):
    with open(path) as f:
        return f.read()


def read_lines(path):
    return read_text(path).splitlines(True)


def parts(text):
    """(subject, blurb) of a cover letter: the Subject header, unfolded,
    without its "[PATCH...]" prefix, and the text between the headers and
    the shortlog ("Author (N):"), without a test plan made earlier."""
    head, _, body = text.partition('\n\n')
    m = re.search(r'^Subject: (?:\[[^]]*\] )?(.*(?:\n[ \t].*)*)', head, re.M)
    subject = re.sub(r'\n[ \t]+', ' ', m.group(1)) if m else None
    m = re.search(r'^\S.* \(\d+\):$', body, re.M)
    blurb = body[:m.start()].rstrip('\n') if m else None
    if blurb and PLAN_HEAD in blurb:
        blurb = blurb[:blurb.index(PLAN_HEAD)].rstrip('\n')
    return subject, blurb


def test_plan(plan, paths):
    """The rows of the plan sections ("# FILE (...)" comments) whose file
    lies under one of PATHS.  A section ends at a blank line, so that the
    sections of other tests (the end-to-end boot) belong to no topic."""
    rows, mine, head = [], False, []
    # Another tree's rows (kunit/plan-TREE, beside the plan) replace the
    # plan's rows of the same cases
    extra = {}
    tree = os.environ.get('TREE', '7.3')
    other = os.path.join(os.path.dirname(plan), f'plan-{tree}')
    # and its bare section headings ("# FILE (CONFIG_X)") those of the
    # same option, or of CONFIG_Y with "# FILE (CONFIG_X) in place of
    # CONFIG_Y": where the tree keeps the file, under which option
    heads = {}
    if tree != '6.1' and os.path.exists(other):
        for line in read_lines(other):
            if line.strip() and not line.startswith('#'):
                extra[line.split()[0]] = line.rstrip('\n')
            m = re.match(r'^(# \S+ \((CONFIG_\w+)\))'
                         r'(?: in place of (CONFIG_\w+))?\.?$', line.rstrip('\n'))
            if m:
                heads[m.group(3) or m.group(2)] = m.group(1)
    for line in read_lines(plan):
        line = line.rstrip('\n')
        if line.split() and line.split()[0] in extra:
            line = extra[line.split()[0]]
        if not line:
            mine = False	# a section ends at a blank line
            continue
        m = re.match(r'^# \S+ \((CONFIG_\w+)', line)
        if m and m.group(1) in heads:
            line = heads[m.group(1)]
        m = re.match(r'^# (\S+) \(', line)
        if m:
            mine = any(m.group(1).startswith(p) for p in paths)
            # the heading goes out with the section's first case
            head = ['', '  ' + line[2:]] if mine else []
            continue
        if mine and line and not line.startswith('#'):
            case, _, where = line.partition(' ')
            if where.split() == ['none']:
                continue	# not a case of this tree
            rows += head
            head = []
            rows.append(f'    {case}: {" ".join(where.split())}')
    return rows


def recipients(path):
    """(To, Cc) from get_maintainer.pl --roles output."""
    to, cc = [], []
    for line in read_lines(path):
        # The person ends at the first " (" after the address: a name may
        # hold parentheses ("Joerg Roedel (AMD)" <joro@...>), and so may a
        # role, "maintainer:MEDIA INPUT INFRASTRUCTURE (V4L/DVB)".
        m = re.match(r'^(.*?@\S*)\s+\((.*)\)\s*$', line)
        if not m:
            continue
        who, role = m.groups()
        # M: entries are "maintainer", "supporter" or "odd fixer" after
        # the section's status; R: entries and lists go to Cc.
        to_them = role.startswith(('maintainer', 'supporter', 'odd fixer'))
        (to if to_them else cc).append(who)
    return to, cc


def added_recipients(path):
    """(To, Cc) of a recipients file: "To: WHO" and "Cc: WHO" lines."""
    to, cc = [], []
    for n, line in enumerate(read_lines(path), 1):
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        m = re.match(r'^(To|Cc):\s*(\S.*)$', line)
        if not m:
            sys.exit(f'{path}:{n}: expected "To: WHO" or "Cc: WHO"')
        (to if m.group(1) == 'To' else cc).append(m.group(2))
    return to, cc


def merge(to, cc, more_to, more_cc):
    """To and Cc with the added people, each named once, To first."""
    def address(who):
        m = re.search(r'<([^>]+)>', who)
        return (m.group(1) if m else who).lower()
    out_to, out_cc, seen = [], [], set()
    for who, where in [(w, out_to) for w in to + more_to] + \
            [(w, out_cc) for w in cc + more_cc]:
        if address(who) not in seen:
            seen.add(address(who))
            where.append(who)
    return out_to, out_cc


def header(name, people):
    return f'{name}: ' + ',\n    '.join(people) + '\n' if people else ''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('new')
    ap.add_argument('old', nargs='?')
    ap.add_argument('base', nargs='?')
    ap.add_argument('date', nargs='?')
    ap.add_argument('--plan')
    ap.add_argument('--topic-paths', default='')
    ap.add_argument('--maintainers')
    ap.add_argument('--recipients')
    a = ap.parse_args()
    new = read_text(a.new)
    subject = blurb = None
    if a.old:
        try:
            subject, blurb = parts(read_text(a.old))
        except FileNotFoundError:
            pass
    if subject:
        new = new.replace('*** SUBJECT HERE ***', subject, 1)
    if a.plan and a.topic_paths.split():
        rows = test_plan(a.plan, a.topic_paths.split())
        if rows:
            blurb = (blurb or '*** BLURB HERE ***') + '\n\n' + PLAN_HEAD + \
                '\n'.join(rows)
    if blurb:
        new = new.replace('*** BLURB HERE ***', blurb, 1)
    if a.base:
        new = re.sub(r'^base-commit: \S+$', 'base-commit: ' + a.base,
                     new, count=1, flags=re.M)
    if a.date:
        new = re.sub(r'^Date: .*$', 'Date: ' + a.date, new, count=1,
                     flags=re.M)
    if a.maintainers or a.recipients:
        to, cc = recipients(a.maintainers) if a.maintainers else ([], [])
        if a.recipients:
            to, cc = merge(to, cc, *added_recipients(a.recipients))
        head, sep, body = new.partition('\n\n')
        head = re.sub(r'^(To|Cc): .*(\n[ \t].*)*\n?', '', head + '\n',
                      flags=re.M).rstrip('\n')
        new = head + '\n' + (header('To', to) + header('Cc', cc)).rstrip('\n') \
            + sep + body if (to or cc) else head + sep + body
    sys.stdout.write(new)


if __name__ == '__main__':
    main()
