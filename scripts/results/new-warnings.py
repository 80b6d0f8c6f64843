#!/usr/bin/env python3
"""Warnings of a W=1 C=2 build that the baseline build did not have.

usage: new-warnings.py BASELINE.out SERIES.out

A warning is "file: message" (line and column dropped, so that a line
moved by the series is still the same warning); each one the series
build prints more often than the baseline build is printed in full.
"""
import collections
import re
import sys

# The file relative to the tree, whichever tree or build directory
# prefixed it.
WARN = re.compile(r'^(?:\S*?/)?((?:arch|block|certs|crypto|drivers|fs|include'
                  r'|init|io_uring|ipc|kernel|lib|mm|net|samples|scripts'
                  r'|security|sound|usr|virt)/[^:\s]+):\d+:(?:\d+:)? '
                  r'(warning|error): (.*)$')


def warnings(path):
    found = collections.defaultdict(list)
    for line in open(path, errors='replace'):
        m = WARN.match(line.strip())
        if m:
            found[(m.group(1), m.group(2), m.group(3))].append(line.rstrip())
    return found


base, new = warnings(sys.argv[1]), warnings(sys.argv[2])
for key, lines in sorted(new.items()):
    for line in lines[len(base.get(key, [])):]:
        print(line)
