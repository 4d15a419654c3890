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
from tap import Tap  # noqa: E402

TAP = Tap()


def main():
    args = [a for a in sys.argv[1:] if a != "--no-nonroot"]
    TAP.guard("the swapped grants", cases, args[0], args[1])
    if os.getuid() == 0 and "--no-nonroot" not in sys.argv:
        # the same cases as a user made for it, from staged copies
        TAP.user_half("cfswap", __file__, args, args[:2], keep_env=("CONFINE_MUST_WORK",))
    return TAP.done()


def cases(confine, launcher):
    parent = os.path.join(os.environ.get("HOME") or "/", ".cache", "confine-tests")
    os.makedirs(parent, exist_ok=True)
    base = os.path.realpath(tempfile.mkdtemp(prefix="grant-swap.", dir=parent))
    user = "root" if os.getuid() == 0 else "uid %d" % os.getuid()
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
        if not TAP.check(os.path.exists(os.path.join(victim, "control")),
                         "%s control: a write through the link lands unconfined" % user):
            return
        os.unlink(os.path.join(victim, "control"))
        os.unlink(root)
        for runner in ("bwrap", "landlock"):
            os.mkdir(root)
            mark = os.path.join(victim, "wrote-" + runner)
            done = subprocess.run([confine, "wrap", "--config", config, "--runner", runner,
                                   "-m", "workspace-write", "-w", ws, "--writable", root, "--",
                                   "sh", "-c", "touch '%s/wrote-%s'" % (root, runner)],
                                  capture_output=True, text=True)
            what = "%s %s: a root swapped for a link fails closed" % (runner, user)
            if done.returncode != 0:
                why = "wrap unavailable here: %s" % done.stdout.strip()
                if os.environ.get("CONFINE_MUST_WORK") == "1":
                    TAP.check(False, what, why + " (CONFINE_MUST_WORK=1)")
                else:
                    TAP.skip(what, why)
                os.rmdir(root)
                continue
            wrapped = json.loads(done.stdout)
            os.rmdir(root)
            os.symlink(victim, root)  # after validation, before the spawn
            run = subprocess.run(wrapped["argv"], env=wrapped["env"], cwd=ws,
                                 capture_output=True, text=True)
            os.unlink(root)
            if os.path.exists(mark):
                TAP.check(False, what, "the grant followed the swapped link: " + run.stderr)
            else:
                TAP.check(run.returncode != 0, what, "the run went on after the swap: " + run.stderr)
                TAP.note("%s: exit %d: %s" % (runner, run.returncode,
                                              run.stderr.strip().splitlines()[-1:]))
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
