#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One value, one code, at the CLI flag and the config file (issue 27,
doc/SPEC.md 10 and 16): a file that is not a configuration is
INVALID_CONFIG naming the file; a well-formed value the policy refuses is
INVALID_POLICY, from the file and from the flag alike; exit 125 and
nothing runs. One row per value.

Usage: door_codes.py CONFINE
"""
import json
import os
import subprocess
import sys
import tempfile

# (config key JSON, the same value as flags or None, the code)
CASES = [
    ('{"mode": "bogus"}', ["-m", "bogus"], "INVALID_POLICY"),
    ('{"network": "maybe"}', ["--network", "maybe"], "INVALID_POLICY"),
    ('{"network": {"allow": ["http://x.org"]}}', ["--allow-host", "http://x.org"],
     "INVALID_POLICY"),
    ('{"network": {"deny": ["1.2.3.4"]}, "mode": "workspace-write"}',
     ["--deny-host", "1.2.3.4", "--network", "off"], "INVALID_POLICY"),
    ('{"env": {"inherit": "some"}}', ["--env-inherit", "some"], "INVALID_POLICY"),
    ('{"env": {"exclude": ["["]}}', ["--env-exclude", "["], "INVALID_POLICY"),
    ('{"env": {"include": ["A{B,C}"]}}', ["--env-include", "A{B,C}"], "INVALID_POLICY"),
    # (a writable root that does not exist is skipped and said: main's rule)
    ('{"writableRoots": ["/"], "mode": "workspace-write"}',
     ["-m", "workspace-write", "--writable", "/"], "INVALID_POLICY"),
    ('{"denyRead": ["/"]}', ["--deny-read", "/"], "INVALID_POLICY"),
    ('{"mode": "danger-full-access", "network": "off"}',
     ["-m", "danger-full-access", "--network", "off"], "INVALID_POLICY"),
    # the file's own faults
    ('{"mdoe": "read-only"}', None, "INVALID_CONFIG"),
    ('{"mode": 1}', None, "INVALID_CONFIG"),
    ('{"network": {"allow": "x.org"}}', None, "INVALID_CONFIG"),
    ('{"mode": ', None, "INVALID_CONFIG"),
]


def code_of(argv, cwd):
    done = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=60,
                          env=dict(os.environ, CONFINE_CONFIG=""))
    try:
        return done.returncode, json.loads(done.stdout)["error"]["code"], done.stderr
    except (ValueError, KeyError, TypeError):
        return done.returncode, None, done.stdout + done.stderr


def main():
    confine = sys.argv[1]
    failures = 0
    with tempfile.TemporaryDirectory() as base:
        ws = os.path.join(base, "ws")
        os.mkdir(ws)
        for i, (text, flags, want) in enumerate(CASES):
            path = os.path.join(base, "c%d.json" % i)
            with open(path, "w") as f:
                f.write(text)
            doors = [("config " + text, ["--config", path])]
            if flags:
                doors.append(("flags " + " ".join(flags), flags))
            for name, extra in doors:
                rc, code, detail = code_of([confine, "wrap", "-w", ws] + extra + ["--", "true"],
                                           base)
                ok = rc == 125 and code == want
                if ok and extra[0] == "--config" and path not in detail:
                    ok = False  # the message names the file
                print("%s: %s -> %s %s" % ("ok" if ok else "FAIL", name, rc, code))
                if not ok:
                    print("   ", detail.strip())
                    failures += 1
        # a FIFO with no writer is not a configuration, and does not hang
        fifo = os.path.join(base, "fifo.json")
        os.mkfifo(fifo)
        rc, code, detail = code_of([confine, "wrap", "-w", ws, "--config", fifo, "--", "true"],
                                   base)
        ok = rc == 125 and code == "INVALID_CONFIG" and "not a regular file" in detail
        print("%s: a FIFO as --config -> %s %s" % ("ok" if ok else "FAIL", rc, code))
        failures += 0 if ok else 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
