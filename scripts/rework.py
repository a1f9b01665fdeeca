#!/usr/bin/env python3
"""How much of a series undoes itself.

  scripts/rework.py [-v] patches/TOPIC...

The topics are read in the order given, as one series (the tracing
maintainer's three: tracing-fixes ring-buffer tracing).  A removed line
is rework when an earlier patch of the same series added a line with
the same text (whitespace stripped, blank lines and lone braces left
out; each added line matches at most once).  Prints, per
patch, its added and removed lines and the removed lines that undo an
earlier patch of the series, then the total: the share of removed lines
that are rework.  A maintainer wants it low: a series that adds code only
to rewrite it later makes the reviewer read it twice.
"""

import collections
import glob
import os
import sys


def lines(path):
    added, removed = [], []
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("+++ ") or line.startswith("--- "):
                continue
            if line.startswith("+") or line.startswith("-"):
                text = line[1:].strip()
                if text in ("", "{", "}", "};", "*/", "/*", "*"):
                    continue
                (added if line[0] == "+" else removed).append(text)
    return added, removed


def main():
    verbose = "-v" in sys.argv
    dirs = [a for a in sys.argv[1:] if a != "-v"]
    if not dirs:
        sys.exit(__doc__)
    pool = collections.Counter()
    total_rm = total_re = 0
    paths = [p for d in dirs for p in sorted(glob.glob(os.path.join(d, "0*.patch")))]
    for path in paths:
        if os.path.basename(path).startswith("0000-"):
            continue
        added, removed = lines(path)
        undo = []
        for text in removed:
            if pool[text] > 0:
                pool[text] -= 1
                undo.append(text)
        pool.update(added)
        total_rm += len(removed)
        total_re += len(undo)
        name = os.path.join(os.path.basename(os.path.dirname(path)), os.path.basename(path))
        print(f"{name[:60]:<60} +{len(added):<5} -{len(removed):<5} rework {len(undo)}")
        if verbose:
            for text in undo:
                print(f"    {text}")
    share = 100.0 * total_re / total_rm if total_rm else 0.0
    print(f"rework: {total_re} of {total_rm} removed lines undo the series' own ({share:.0f}%)")


if __name__ == "__main__":
    main()
