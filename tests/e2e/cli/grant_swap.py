# SPDX-License-Identifier: MIT
"""A writable root swapped for a symlink after validation grants nothing
(doc/SPEC.md 7; red team, round 4): the launcher opens each grant without
following links, so a `wrap` argv whose root became a link to another
directory before it was spawned fails closed, on each Linux rung, and
nothing lands in the link's target. The control: unconfined, a write
through the link lands there.

As root, the same cases run again as a user made for them, from staged
copies that user can read (tests/helpers/as_user.py).

Usage: grant_swap.py CONFINE LAUNCHER [--no-nonroot]"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "helpers"))
from outside_tmp import launcher_outside_tmp  # noqa: E402
from as_user import run_as_created_user  # noqa: E402

SKIP = 77


def main():
    args = [a for a in sys.argv[1:] if a != "--no-nonroot"]
    status = cases(args[0], args[1])
    if os.getuid() == 0 and "--no-nonroot" not in sys.argv:
        user = run_as_created_user("cfswap", __file__, args, args[:2])
        if user == SKIP and os.environ.get("CONFINE_MUST_WORK") != "1":
            print("# the non-root half was skipped")
        elif user != 0:
            print("FAIL the non-root half (%d)" % user)
            status = 1
    return status


def cases(confine, launcher):
    parent = os.path.join(os.environ.get("HOME") or "/", ".cache", "confine-tests")
    os.makedirs(parent, exist_ok=True)
    base = os.path.realpath(tempfile.mkdtemp(prefix="grant-swap.", dir=parent))
    failed = 0
    try:
        config = os.path.join(base, "config.json")
        with open(config, "w") as f:
            json.dump({"landlockLauncher": launcher_outside_tmp(launcher)}, f)
        ws, victim = os.path.join(base, "ws"), os.path.join(base, "victim")
        os.mkdir(ws)
        os.mkdir(victim)
        root = os.path.join(base, "root")
        os.mkdir(root)
        os.rmdir(root)
        os.symlink(victim, root)
        subprocess.run(["sh", "-c", "touch '%s/control'" % root], check=True)
        if not os.path.exists(os.path.join(victim, "control")):
            print("FAIL control: a write through the link did not land")
            return 1
        os.unlink(os.path.join(victim, "control"))
        os.unlink(root)
        ran = 0
        for runner in ("bwrap", "landlock"):
            os.mkdir(root)
            mark = os.path.join(victim, "wrote-" + runner)
            done = subprocess.run([confine, "wrap", "--config", config, "--runner", runner,
                                   "-m", "workspace-write", "-w", ws, "--writable", root, "--",
                                   "sh", "-c", "touch '%s/wrote-%s'" % (root, runner)],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                print("# %s: wrap unavailable here: %s" % (runner, done.stdout.strip()))
                os.rmdir(root)
                continue
            wrapped = json.loads(done.stdout)
            os.rmdir(root)
            os.symlink(victim, root)  # after validation, before the spawn
            run = subprocess.run(wrapped["argv"], env=wrapped["env"], cwd=ws,
                                 capture_output=True, text=True)
            os.unlink(root)
            ran += 1
            if os.path.exists(mark):
                print("FAIL %s: the grant followed the swapped link: %s" % (runner, run.stderr))
                failed = 1
            elif run.returncode == 0:
                print("FAIL %s: the run went on after the swap: %s" % (runner, run.stderr))
                failed = 1
            else:
                print("ok %s: a root swapped for a link fails closed (%d: %s)"
                      % (runner, run.returncode, run.stderr.strip().splitlines()[-1:]))
        if ran == 0:
            print("no rung ran")
            return 1 if os.environ.get("CONFINE_MUST_WORK") == "1" else SKIP
        return failed
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
