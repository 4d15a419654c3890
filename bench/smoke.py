#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""smoke.py PATTERN -- COMMAND...: a bench script's smoke run in make check.

Runs COMMAND (a bench script with a tiny round count), passes its output
through, and fails unless it exits 0 and prints a line matching PATTERN
(its ratios). It judges no figure: benchmarks measure speed, tests check
mechanisms (doc/BENCHMARKS.md); this only keeps every bench script from
going stale.
"""
import re
import subprocess
import sys


def main():
    if len(sys.argv) < 4 or sys.argv[2] != '--':
        print('usage: smoke.py PATTERN -- COMMAND...', file=sys.stderr)
        return 2
    pattern = re.compile(sys.argv[1], re.MULTILINE)
    proc = subprocess.run(sys.argv[3:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, check=False)
    sys.stdout.write(proc.stdout)
    if proc.returncode != 0:
        print(f'smoke: {sys.argv[3]} exited {proc.returncode}')
        return 1
    if not pattern.search(proc.stdout):
        print(f'smoke: no line matching {sys.argv[1]!r} in its output')
        return 1
    print(f'smoke: ran, and printed its ratios ({len(pattern.findall(proc.stdout))} matching lines)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
