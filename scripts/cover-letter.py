#!/usr/bin/env python3
"""Carry the subject and text of the series' cover letter into a freshly
generated one.

usage: cover-letter.py NEW [OLD] [BASE] [DATE]

NEW is "git format-patch --cover-letter --base" output, with its
"*** SUBJECT HERE ***" and "*** BLURB HERE ***" placeholders.  The
subject and the text before the shortlog are taken from OLD (the
kernel-patches/0000-cover-letter.patch being replaced) when it exists;
BASE, if given, replaces the commit id on the "base-commit:" line, and
DATE the Date header (format-patch writes the current time; the last
patch's date keeps a refresh without changes from changing the file).
The result goes to stdout.
"""
import re
import sys


def parts(text):
    """(subject, blurb) of a cover letter: the Subject header, unfolded,
    without its "[PATCH...]" prefix, and the text between the headers and
    the shortlog ("Author (N):")."""
    head, _, body = text.partition('\n\n')
    m = re.search(r'^Subject: (?:\[[^]]*\] )?(.*(?:\n[ \t].*)*)', head, re.M)
    subject = re.sub(r'\n[ \t]+', ' ', m.group(1)) if m else None
    m = re.search(r'^\S.* \(\d+\):$', body, re.M)
    blurb = body[:m.start()].rstrip('\n') if m else None
    return subject, blurb


def main():
    new = open(sys.argv[1]).read()
    if len(sys.argv) > 2:
        try:
            subject, blurb = parts(open(sys.argv[2]).read())
        except FileNotFoundError:
            subject = blurb = None
        if subject:
            new = new.replace('*** SUBJECT HERE ***', subject, 1)
        if blurb:
            new = new.replace('*** BLURB HERE ***', blurb, 1)
    if len(sys.argv) > 3:
        new = re.sub(r'^base-commit: \S+$', 'base-commit: ' + sys.argv[3],
                     new, count=1, flags=re.M)
    if len(sys.argv) > 4:
        new = re.sub(r'^Date: .*$', 'Date: ' + sys.argv[4], new, count=1,
                     flags=re.M)
    sys.stdout.write(new)


if __name__ == '__main__':
    main()
