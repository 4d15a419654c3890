#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test-counts.py BUILD: what the last `meson test -C BUILD` run counted.

Meson's own summary counts tests; a TAP test (the escape, supervisor and
bad-input drivers) is one of them however many cases it ran. This reads
BUILD/meson-logs/testlog.json and the tests' protocols (meson introspect)
and prints, after meson's summary:

  - the cases: every TAP line of every TAP test (passed, failed, known-open
    -- TAP TODO, meson's expected fail --, skipped), plus one per
    exit-code test;
  - the meson suites' wall time (first start to last end) and the slowest
    tests with their timeouts, so a timeout a loaded machine could reach
    shows before it is reached.

It writes the one-line summary to BUILD/meson-logs/counts.txt too
(scripts/check-all.sh repeats it under the legs). It judges nothing: its
exit status is 0 unless it cannot read the log; meson's own status is the
verdict.
"""
import json
import os
import re
import subprocess
import sys

TAP_TEST = re.compile(r'((?:not )?ok)\s*(?:[0-9]+\s*)?([^#]*)'
                      r'(?:\s*#\s*([Ss][Kk][Ii][Pp]\S*|[Tt][Oo][Dd][Oo])\b\s*(.*))?$')


def tap_counts(stdout):
    counts = {'passed': 0, 'failed': 0, 'known-open': 0, 'skipped': 0}
    for line in stdout.splitlines():
        m = TAP_TEST.match(line.rstrip())
        if not m:
            continue
        ok = m.group(1) == 'ok'
        directive = (m.group(3) or '').upper()
        if directive.startswith('SKIP') and ok:
            counts['skipped'] += 1
        elif directive == 'TODO':
            # not ok + TODO: a known-open case; ok + TODO: it passed
            # unexpectedly, which meson fails.
            counts['known-open' if not ok else 'failed'] += 1
        else:
            counts['passed' if ok else 'failed'] += 1
    return counts


def main():
    if len(sys.argv) != 2:
        print('usage: test-counts.py BUILD', file=sys.stderr)
        return 2
    build = sys.argv[1]
    log = os.path.join(build, 'meson-logs', 'testlog.json')
    try:
        with open(log, encoding='utf-8') as f:
            results = [json.loads(line) for line in f if line.strip()]
    except OSError as e:
        print(f'test-counts: cannot read {log}: {e}', file=sys.stderr)
        return 1
    protocols, timeouts = {}, {}
    try:
        tests = json.loads(subprocess.run(['meson', 'introspect', build, '--tests'],
                                          capture_output=True, check=True, text=True).stdout)
        for t in tests:
            protocols[t['name']] = t['protocol']
            timeouts[t['name']] = t['timeout']
    except (OSError, subprocess.CalledProcessError, ValueError):
        pass

    total = {'passed': 0, 'failed': 0, 'known-open': 0, 'skipped': 0}
    per_tap = []
    for r in results:
        short = r['name'].split(' / ', 1)[-1]
        if protocols.get(short) == 'tap':
            c = tap_counts(r.get('stdout') or '')
            # A TAP test that failed as a whole (a crash, a timeout, a bad
            # exit) counts as one failure more than its lines say.
            if r['result'] in ('FAIL', 'ERROR', 'TIMEOUT', 'INTERRUPT') and c['failed'] == 0:
                c['failed'] += 1
            per_tap.append((short, r['result'], c))
        else:
            c = {'passed': 0, 'failed': 0, 'known-open': 0, 'skipped': 0}
            key = {'OK': 'passed', 'SKIP': 'skipped', 'EXPECTEDFAIL': 'known-open'}.get(r['result'], 'failed')
            c[key] = 1
        for k in total:
            total[k] += c[k]

    if not results:
        print('test-counts: the log holds no test', file=sys.stderr)
        return 1
    start = min(r['starttime'] for r in results)
    end = max(r['starttime'] + r['duration'] for r in results)
    print()
    print(f'meson suites: {len(results)} tests, {len(per_tap)} of them case tables (TAP)')
    for name, result, c in per_tap:
        print(f'  {name:<40} {result:<7} {c["passed"]} passed, {c["failed"]} failed, '
              f'{c["known-open"]} known-open, {c["skipped"]} skipped')
    line = (f'cases: {total["passed"]} passed, {total["failed"]} failed, '
            f'{total["known-open"]} known-open, {total["skipped"]} skipped; '
            f'meson suites {end - start:.0f} s')
    print(line)
    print('slowest tests (duration / timeout):')
    for r in sorted(results, key=lambda r: -r['duration'])[:8]:
        short = r['name'].split(' / ', 1)[-1]
        t = timeouts.get(short)
        share = f' ({100 * r["duration"] / t:.0f}% of it)' if t else ''
        print(f'  {short:<40} {r["duration"]:7.1f} s / {t if t else "none"} s{share}')
    try:
        with open(os.path.join(build, 'meson-logs', 'counts.txt'), 'w', encoding='utf-8') as f:
            f.write(line + '\n')
    except OSError:
        pass
    return 0


if __name__ == '__main__':
    sys.exit(main())
