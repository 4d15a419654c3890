#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bubblewrap's argument bound (doc/SPEC.md 14, "bwrap's argument bound"),
as root and as a user this test creates.

bwrap 0.8 exits "Exceeded maximum number of arguments 9000" past 9000
arguments; each nested git repository costs the layered argv 130 tokens.
- A workspace with 120 nested repositories: `confine run` on the pinned
  bwrap rung and on the ladder is refused before anything runs, exit 125,
  with the exact text naming the bound and the count (never bwrap's own
  exit, never the Landlock rung without a word); the command's write to a
  nested .git/config did not happen. Control: the same write unconfined
  lands.
- A workspace with 20 nested repositories: the bwrap rung runs, and the
  command's writes to the nested .git dirs (config, hooks) are refused on
  disk while an ordinary write lands. Control: the same writes unconfined
  land.
- The same workspace under each soft RLIMIT_NOFILE from 248 to 263: each
  placeholder holds a descriptor for the run, so the run is refused naming
  the limit (exit 125, nothing ran), not a bare "Too many open files" and
  not "another process holds it" (a look that found no descriptor left
  once read as another run's hold).

Usage: bwrap_args.py CONFINE LAUNCHER [--no-nonroot]
TAP (tests/helpers/tap.py); a skip of the whole when bwrap does not work
here, unless CONFINE_MUST_WORK=1.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "helpers"))
from outside_tmp import launcher_outside_tmp  # noqa: E402
from tap import Tap  # noqa: E402

TAP = Tap()
REFUSAL = re.compile(
    r'^confine: the policy cannot be held on the bubblewrap rung \("bwrap"\): bubblewrap '
    r'refuses more than 9000 arguments and this run needs (\d+) \((\d+) read-only binds of '
    r'protected paths and placeholders, (\d+) writable binds and pins, (\d+) identity '
    r'checks\); unprotect entries \(--unprotect\), narrow the workspace, or pin --runner '
    r'landlock \(nothing was run\)$', re.M)
WRITE = ("echo planted >> r7/.git/config; mkdir -p r7/.git/hooks; "
         "echo planted > r7/.git/hooks/post-checkout; echo ok > plain.txt")


def make_ws(base, name, n):
    ws = os.path.join(base, name)
    os.makedirs(ws)
    subprocess.run(["git", "init", "-q", ws], check=True)
    for i in range(n):
        subprocess.run(["git", "init", "-q", os.path.join(ws, "r%d" % i)], check=True)
    return ws


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return None


class World:
    def __init__(self, confine, launcher):
        self.confine = confine
        home = os.environ.get("HOME") or "/tmp"
        root = os.path.join(home, ".cache", "confine-tests")
        os.makedirs(root, exist_ok=True)
        self.base = os.path.realpath(tempfile.mkdtemp(prefix="bwrap-args.", dir=root))
        self.config = os.path.join(self.base, "config.json")
        with open(self.config, "w") as f:
            json.dump({"landlockLauncher": launcher_outside_tmp(launcher)}, f)

    def run(self, ws, pin, command):
        opts = ["--runner", pin] if pin else []
        return subprocess.run([self.confine, "run", "--config", self.config] + opts
                              + ["-m", "workspace-write", "-w", ws, "--", "sh", "-c", command],
                              capture_output=True, text=True, cwd=ws, timeout=600)


def unconfined_control(ws):
    """The write the confined command tries lands without confine."""
    subprocess.run(["sh", "-c", WRITE], cwd=ws, check=True)
    ok = (read(os.path.join(ws, "r7/.git/config")) or "").endswith("planted\n") and \
        read(os.path.join(ws, "r7/.git/hooks/post-checkout")) == "planted\n"
    return ok


def refused_past_bound(w):
    ws = make_ws(w.base, "big", 120)
    config_before = read(os.path.join(ws, "r7/.git/config"))
    for pin in ("bwrap", None):
        done = w.run(ws, pin, WRITE)
        where = "pinned bwrap" if pin else "the ladder"
        m = REFUSAL.search(done.stderr)
        TAP.check(done.returncode == 125 and m is not None and int(m.group(1)) > 9000,
                  "120 nested repositories: %s refused, exit 125, bound and count named" % where,
                  "rc %d: %s" % (done.returncode, done.stderr[-800:]))
        TAP.check("Exceeded maximum number of arguments" not in done.stderr and
                  "Install bubblewrap" not in done.stderr,
                  "120 nested repositories: %s: not bwrap's own exit" % where, done.stderr[-400:])
        TAP.check(read(os.path.join(ws, "r7/.git/config")) == config_before and
                  read(os.path.join(ws, "plain.txt")) is None,
                  "120 nested repositories: %s: nothing ran" % where)
    TAP.check(unconfined_control(ws), "120 nested repositories: control: the write lands unconfined")


def held_under_bound(w):
    ws = make_ws(w.base, "twenty", 20)
    config_before = read(os.path.join(ws, "r7/.git/config"))
    done = w.run(ws, "bwrap", WRITE + "; echo done")
    TAP.check(done.returncode != 125 and "done" in done.stdout,
              "20 nested repositories: the bwrap rung runs",
              "rc %d: %s" % (done.returncode, done.stderr[-800:]))
    TAP.check(read(os.path.join(ws, "r7/.git/config")) == config_before,
              "20 nested repositories: a nested .git/config write refused on disk")
    TAP.check(read(os.path.join(ws, "r7/.git/hooks/post-checkout")) is None,
              "20 nested repositories: a nested hook write refused on disk")
    TAP.check(read(os.path.join(ws, "plain.txt")) == "ok\n",
              "20 nested repositories: an ordinary write lands")
    os.unlink(os.path.join(ws, "plain.txt"))
    # Each placeholder holds a descriptor: under a low soft limit, refused by
    # name. Every soft limit in a window of 16 (each offset of the limit
    # against a hold's own transient descriptors), never another run's hold.
    wrong = []
    for limit in range(248, 264):
        done = subprocess.run(["sh", "-c", 'ulimit -n %d && exec "$@"' % limit, "sh", w.confine,
                               "run", "--config", w.config, "--runner", "bwrap", "-m",
                               "workspace-write", "-w", ws, "--", "sh", "-c", WRITE],
                              capture_output=True, text=True, cwd=ws, timeout=600)
        if done.returncode != 125 or re.search(
                r"^confine: cannot make the placeholder \S+ for a protected path: each "
                r"placeholder holds a descriptor for the run and \d+ are held, at the soft "
                r"RLIMIT_NOFILE of %d \(raise it, or unprotect entries; nothing was run\)$"
                % limit, done.stderr, re.M) is None:
            wrong.append("limit %d: rc %d: %s" % (limit, done.returncode, done.stderr[-300:]))
        if read(os.path.join(ws, "r7/.git/config")) != config_before or \
                read(os.path.join(ws, "plain.txt")) is not None:
            wrong.append("limit %d: the command ran" % limit)
            break
    TAP.check(not wrong, "20 nested repositories, RLIMIT_NOFILE 248..263: refused naming the limit",
              "; ".join(wrong[:3]))
    TAP.check(read(os.path.join(ws, "r7/.git/config")) == config_before and
              read(os.path.join(ws, "plain.txt")) is None,
              "20 nested repositories, RLIMIT_NOFILE 248..263: nothing ran")
    TAP.check(unconfined_control(ws), "20 nested repositories: control: the writes land unconfined")


def run_table(confine, launcher):
    """The cases for one caller: None, or why nothing could be tested."""
    w = World(confine, launcher)
    try:
        probe = subprocess.run([confine, "run", "--config", w.config, "--runner", "bwrap",
                                "-m", "read-only", "-w", w.base, "--", "true"],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            return "bwrap is not usable here: %s" % probe.stderr
        TAP.guard("past the bound", refused_past_bound, w)
        TAP.guard("under the bound", held_under_bound, w)
        return None
    finally:
        shutil.rmtree(w.base, ignore_errors=True)


def main():
    return TAP.main_beside_user("cfbwargs", __file__, lambda args: run_table(*args[:2]))


if __name__ == "__main__":
    sys.exit(main())
