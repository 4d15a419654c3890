#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A harness in another language spawns `confine wrap` output as-is.

Asks `confine wrap` for the confined argv, spawns it the way the contract
says (new session, no descriptor above 2, the workspace root as cwd), and
checks the effects on disk: under workspace-write a write inside the
workspace lands and a write to a sibling directory is denied; under
read-only even the workspace is not writable. It also classifies the
denied run with the wrap's own denialSignatures.

Usage: spawn_wrap.py CONFINE LAUNCHER [RUNNER]
Exit 77 (skip) when no runner works here, unless CONFINE_MUST_WORK=1.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "helpers"))
from outside_tmp import launcher_outside_tmp  # noqa: E402

SKIP = 77


def wrap(confine, config, args):
    done = subprocess.run([confine, "wrap", "--config", config] + args,
                          capture_output=True, text=True)
    # One JSON object on stdout in every case: the wrap or {"error": ...}.
    lines = done.stdout.splitlines()
    assert len(lines) == 1, "wrap printed %r (stderr %r)" % (done.stdout, done.stderr)
    wrapped = json.loads(lines[0])
    if done.returncode == 125 and wrapped.get("error", {}).get("code") == "SANDBOX_UNAVAILABLE":
        return None
    if done.returncode != 0:
        sys.exit("confine wrap failed (%d): %s" % (done.returncode, wrapped))
    return wrapped


def spawn(wrapped):
    return subprocess.run(wrapped["argv"], cwd=wrapped["policy"]["workspaceRoot"],
                          start_new_session=True, close_fds=True,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True)


def denied(wrapped, done):
    err = done.stderr.lower()
    return done.returncode != 0 and any(sig.lower() in err
                                        for sig in wrapped["denialSignatures"])


def main():
    confine, launcher = sys.argv[1], sys.argv[2]
    pin = sys.argv[3:4]
    must_work = os.environ.get("CONFINE_MUST_WORK") == "1"
    home = os.environ.get("HOME") or "/tmp"
    launcher = launcher_outside_tmp(launcher)
    root = os.path.join(home, ".cache", "confine-tests")
    os.makedirs(root, exist_ok=True)
    base = tempfile.mkdtemp(prefix="spawn-wrap.", dir=root)
    try:
        work = os.path.join(base, "ws")
        outside = os.path.join(base, "outside")
        os.mkdir(work)
        os.mkdir(outside)
        config = os.path.join(base, "config.json")
        with open(config, "w") as f:
            json.dump({"landlockLauncher": launcher}, f)
        runner = ["--runner", pin[0]] if pin else []

        inside_file = os.path.join(work, "inside")
        outside_file = os.path.join(outside, "outside")
        script = "echo in > '%s'; echo out > '%s'" % (inside_file, outside_file)
        wrapped = wrap(confine, config, runner + ["-m", "workspace-write", "-w", work,
                                                  "--", "sh", "-c", script])
        if wrapped is None:
            print("no sandbox backend is usable here")
            return 1 if must_work else SKIP
        assert wrapped["argv"][-3:] == ["sh", "-c", script], wrapped["argv"]
        if pin:
            assert wrapped["runner"] == pin[0], wrapped["runner"]
        done = spawn(wrapped)
        with open(inside_file) as f:
            assert f.read() == "in\n", "the write inside the workspace did not land"
        assert not os.path.exists(outside_file), "the write outside the workspace landed"
        assert denied(wrapped, done), \
            "exit %d, stderr %r: not a denial in this runner's dialect %r" % (
                done.returncode, done.stderr, wrapped["denialSignatures"])

        ro_file = os.path.join(work, "read-only")
        wrapped = wrap(confine, config, runner + ["-m", "read-only", "-w", work,
                                                  "--", "sh", "-c", "echo x > read-only"])
        done = spawn(wrapped)
        assert not os.path.exists(ro_file), "a read-only write landed"
        assert denied(wrapped, done), done.stderr

        print("ok: %s confined a spawn of its wrap output" % wrapped["runner"])
        return 0
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
