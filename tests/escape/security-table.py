#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""security-table.py: doc/SECURITY.md's results tables, from the escape tables.

    security-table.py write DOC [--report TSV]... [--daemons-report TSV]...
    security-table.py check DOC

Each results table of DOC sits between two markers naming its case table
and path:

    <!-- BEGIN generated: security-table cases.txt run -->
    ...
    <!-- END generated: security-table -->

A cell is what the case's row expects on that rung and mode (run-escape.sh
reads the same words the same way: `blocked`, `works`, `refused`,
`**open**` for a known-open limit, `escapes` for an unconfined self-test,
`skip`, and `-` where the row does not run that mode). `meson test escape`
fails whenever a run disagrees with a row, so the expectations are what a
passing run measured.

write rewrites every block: a header with the date, the commit and the
host (kernel, bwrap, Landlock ABI), then the table. With --report (the
escape suite's --report file, e.g. build/tests/e2e/escape/
escape-results.tsv) it first checks that run against the rows -- a result
that contradicts its row refuses the write -- and adds the run's counts to
the header. check (a test in `make check`) fails when any block's table
differs from the rows, naming the first cells that differ.
"""
import argparse
import ctypes
import datetime
import os
import platform
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BEGIN = re.compile(r'^<!-- BEGIN generated: security-table (\S+) (run|wrap) -->$')
END = '<!-- END generated: security-table -->'
CELL = {'blocked': 'blocked', 'works': 'works', 'refused': 'refused', 'open': '**open**',
        'escapes': 'escapes', 'skip': 'skip'}
# What a passing run records for each expectation (run-escape.sh).
RUN_RESULT = {'blocked': 'PASS', 'works': 'PASS', 'refused': 'PASS', 'escapes': 'PASS',
              'open': 'KNOWN-OPEN', 'skip': 'SKIP'}
MODES = {'ro': 'read-only', 'ww': 'workspace-write', 'dfa': 'danger-full-access'}


def read_cases(path):
    """The rows of a case table: (id, mode words, expectation spec, note)."""
    rows = []
    with open(path, encoding='utf-8') as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line or line.startswith('#') or line.startswith('@reason '):
                continue
            fields = line.split(' :: ')
            if len(fields) < 7:
                sys.exit(f'{path}:{lineno}: expected 7 fields separated by " :: "')
            modes = fields[1].split(' ')[0].split('+')
            rows.append((fields[0], modes, fields[2], fields[-1]))
    return rows


def expect_for(spec, *rungs):
    """run-escape.sh's expect_for: the first WORD@RUNG override, else the word."""
    items = spec.split(',')
    for rung in rungs:
        for item in items:
            if item.endswith('@' + rung):
                return item[:-len(rung) - 1]
    for item in items:
        if '@' not in item:
            return item
    return ''


def columns(path):
    p = 'wrap-' if path == 'wrap' else ''
    return [(f'{p}bwrap', 'ro'), (f'{p}bwrap', 'ww'), (f'{p}landlock', 'ro'),
            (f'{p}landlock', 'ww'), (f'{p}none', 'dfa')]


def lookup(rung):
    """The rungs expect_for tries for a result rung, in run-escape.sh's order."""
    if rung.startswith('wrap-'):
        return (rung, 'wrap', rung[len('wrap-'):])
    return (rung,)


def expectation(row, rung, mode):
    case_id, modes, spec, _ = row
    if mode not in modes:
        return None
    if (mode == 'dfa') != rung.endswith('none'):
        return None
    return expect_for(spec, *lookup(rung))


def table(rows, path):
    p = 'wrap-' if path == 'wrap' else ''
    out = [f'| case | {p}bwrap ro | {p}bwrap ww | {p}landlock ro | {p}landlock ww '
           '| unconfined (self-test) | what it tries |',
           '|---|---|---|---|---|---|---|']
    for row in rows:
        cells = []
        for rung, mode in columns(path):
            e = expectation(row, rung, mode)
            cells.append('-' if e is None else CELL.get(e, f'**{e}?**'))
        note = row[3].replace('|', '\\|')
        out.append(f'| `{row[0]}` | ' + ' | '.join(cells) + f' | {note} |')
    return out


def read_report(path):
    results = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            fields = line.rstrip('\n').split('\t')
            if len(fields) >= 6:
                results.append(fields)
    return results


def check_run(rows, results, label):
    """A run's results against the rows: (problems, counts per user and path)."""
    by_id = {r[0]: r for r in rows}
    problems, counts = [], {}
    mode_word = {v: k for k, v in MODES.items()}
    for case_id, rung, mode, result, detail, user in (r[:6] for r in results):
        key = (user or 'root', 'wrap' if rung.startswith('wrap-') else 'run')
        c = counts.setdefault(key, {'PASS': 0, 'KNOWN-OPEN': 0, 'SKIP': 0, 'FAIL': 0})
        c[result if result in c else 'FAIL'] += 1
        row = by_id.get(case_id)
        if row is None:
            problems.append(f'{label}: {case_id} is not in the table')
            continue
        e = expectation(row, rung, mode_word.get(mode, mode))
        want = RUN_RESULT.get(e or '', '?')
        # A case may skip itself where it cannot run (its setup says why).
        if result != want and result != 'SKIP':
            problems.append(f'{label}: {case_id} {rung} {mode} {user}: the run says {result}, '
                            f'the row expects {e} ({detail[:120]})')
    return problems, counts


def git(*args):
    try:
        return subprocess.run(['git', '-C', HERE, *args], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return 'unknown'


def landlock_abi():
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        # landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)
        abi = libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
        return str(abi) if abi > 0 else 'none'
    except (OSError, AttributeError):
        return 'unknown'


def bwrap_version():
    try:
        return subprocess.run(['bwrap', '--version'], capture_output=True, text=True,
                              check=True).stdout.strip().replace('bubblewrap ', '')
    except (OSError, subprocess.CalledProcessError):
        return 'absent'


def header(table_name, path, run_counts):
    commit = git('rev-parse', '--short=12', 'HEAD')
    if git('status', '--porcelain', '--untracked-files=no'):
        commit += ' (with uncommitted changes)'
    lines = [f'Generated by `make security-table` on {datetime.date.today().isoformat()} '
             f'from commit {commit} on {platform.node()} ({platform.system()} '
             f'{platform.release()}, bwrap {bwrap_version()}, Landlock ABI {landlock_abi()}): '
             f'the expectations of `tests/escape/{table_name}` on the {path} path, as root. '
             '`blocked`: nothing outside the grants changed; `works`: a must-work case did '
             'its job; `refused`: confine refused before running anything; `**open**`: a '
             'known limit above, the escape still lands; `escapes`: the unconfined '
             'self-test sees the escape; `skip`: not meaningful there; `-`: the row does '
             'not run that mode. `meson test escape` fails when a run disagrees with a '
             'cell; `tests/escape/security-table.py check` (in `make check`) fails when '
             'this table disagrees with the rows.']
    if run_counts:
        parts = []
        for (user, p), c in sorted(run_counts.items()):
            if p != path:
                continue
            parts.append(f'{user}: {c["PASS"]} passed, {c["KNOWN-OPEN"]} known-open, '
                         f'{c["SKIP"]} skipped, {c["FAIL"]} failed')
        if parts:
            lines.append('')
            lines.append('Checked against the run in the report given to it (' + '; '.join(parts)
                         + '); a case that skips itself there (a root-only case for the user, '
                         'a tool that is missing) reads `skip` in that run only.')
    return lines


def blocks(text):
    """(start, end, table name, path) of each generated block, by line index."""
    lines = text.split('\n')
    found, i = [], 0
    while i < len(lines):
        m = BEGIN.match(lines[i])
        if m:
            for j in range(i + 1, len(lines)):
                if lines[j] == END:
                    found.append((i, j, m.group(1), m.group(2)))
                    i = j
                    break
            else:
                sys.exit(f'line {i + 1}: {lines[i]} has no {END}')
        i += 1
    return lines, found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('command', choices=['write', 'check'])
    ap.add_argument('doc')
    ap.add_argument('--report', action='append', default=[],
                    help='a run-escape.sh --report file of cases.txt')
    ap.add_argument('--daemons-report', action='append', default=[],
                    help='a run-escape.sh --report file of cases-daemons.txt')
    args = ap.parse_args()
    with open(args.doc, encoding='utf-8') as f:
        text = f.read()
    lines, found = blocks(text)
    if not found:
        sys.exit(f'{args.doc}: no generated security-table block')
    rows = {}
    for _, _, name, _ in found:
        if name not in rows:
            rows[name] = read_cases(os.path.join(HERE, name))

    if args.command == 'check':
        bad = 0
        for start, end, name, path in found:
            want = table(rows[name], path)
            have = [line for line in lines[start + 1:end] if line.startswith('|')]
            if have != want:
                bad += 1
                print(f'{args.doc}:{start + 1}: the {name} table ({path} path) disagrees '
                      'with the rows; rerun `make security-table`:')
                shown = 0
                for k in range(max(len(have), len(want))):
                    h = have[k] if k < len(have) else '(missing)'
                    w = want[k] if k < len(want) else '(none)'
                    if h != w and shown < 5:
                        print(f'  doc:   {h[:160]}\n  rows:  {w[:160]}')
                        shown += 1
        if bad:
            return 1
        print(f'{args.doc}: {len(found)} results tables agree with the escape tables')
        return 0

    run_counts = {}
    reports = [('cases.txt', r) for r in args.report] + \
              [('cases-daemons.txt', r) for r in args.daemons_report]
    for name, report in reports:
        table_rows = rows.get(name) or read_cases(os.path.join(HERE, name))
        problems, counts = check_run(table_rows, read_report(report), report)
        if problems:
            print('\n'.join(problems[:20]), file=sys.stderr)
            print(f'security-table: {report} disagrees with {name}: not written', file=sys.stderr)
            return 1
        # One table's run may come in several reports (meson splits it by
        # path, user and alone cases): their counts add up.
        total = run_counts.setdefault(name, {})
        for key, c in counts.items():
            t = total.setdefault(key, dict.fromkeys(c, 0))
            for k, v in c.items():
                t[k] += v
    out, last = [], 0
    for start, end, name, path in found:
        out += lines[last:start + 1]
        out += header(name, path, run_counts.get(name)) + [''] + table(rows[name], path)
        out.append(lines[end])
        last = end + 1
    out += lines[last:]
    with open(args.doc, 'w', encoding='utf-8') as f:
        f.write('\n'.join(out))
    print(f'{args.doc}: {len(found)} results tables written')
    return 0


if __name__ == '__main__':
    sys.exit(main())
