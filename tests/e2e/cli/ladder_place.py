# SPDX-License-Identifier: MIT
"""A rung this call's policy refuses is not skipped for the next one
(doc/SPEC.md 17): a workspace that holds the bwrap on PATH (`-w /usr`
holds /usr/bin/bwrap) makes `confine run`/`bash` refuse the call, naming
the runner's place. Falling through to the Landlock rung was tried this
round and broken by the red team: the run, confined on Landlock, may then
write the workspace, so it replaced the bwrap every later run executes
(unconfined, as the caller). The test plants exactly that and proves the
planted runner never runs.

As root, the same cases run again as a user made for them, from staged
copies that user can read (tests/helpers/as_user.py).

Usage: ladder_place.py CONFINE [--no-nonroot]"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "helpers"))
from tap import Tap  # noqa: E402

TAP = Tap()
USER = "root" if os.getuid() == 0 else "uid %d" % os.getuid()


def main():
    args = [a for a in sys.argv[1:] if a != "--no-nonroot"]
    if not shutil.which("bwrap"):
        return TAP.skip_all("no bwrap here")
    TAP.guard("%s: the planted runners" % USER, cases, args[0])
    if os.getuid() == 0 and "--no-nonroot" not in sys.argv:
        # the same cases as a user made for it, from staged copies
        TAP.user_half("cfplace", __file__, args, args[:1], keep_env=("CONFINE_MUST_WORK",))
    return TAP.done()


def cases(confine):
    bwrap = shutil.which("bwrap")
    # outside /tmp (bwrap's private /tmp) and trusted: ours, 0755 all the way
    parent = os.path.join(os.environ.get("HOME") or "/", ".cache", "confine-tests")
    os.makedirs(parent, exist_ok=True)
    base = os.path.realpath(tempfile.mkdtemp(prefix="ladder-place.", dir=parent))
    try:
        os.chmod(base, 0o755)
        ws = os.path.join(base, "bin")
        other = os.path.join(base, "other")
        os.mkdir(ws)
        os.mkdir(other)
        shutil.copy2(bwrap, os.path.join(ws, "bwrap"))
        mark = os.path.join(base, "PLANTED")
        # Runners are searched on CONFINE_RUNNER_PATH (never PATH: R4-F9,
        # below): one that names the workspace first.
        env = dict(os.environ, CONFINE_RUNNER_PATH=ws + ":/usr/local/bin:/usr/bin:/bin")
        plant = ("printf '#!/bin/sh\\ntouch %s\\nexec %s \"$@\"\\n' > b.new && chmod 755 b.new "
                 "&& mv b.new bwrap" % (mark, bwrap))
        # the control: unconfined, the plant replaces the runner
        control_ws = os.path.join(base, "control")
        os.mkdir(control_ws)
        shutil.copy2(bwrap, os.path.join(control_ws, "bwrap"))
        subprocess.run(["sh", "-c", plant], cwd=control_ws, check=True)
        subprocess.run([os.path.join(control_ws, "bwrap"), "--version"], capture_output=True)
        if not TAP.check(os.path.exists(mark),
                         "%s control: unconfined, the plant replaces the runner" % USER):
            return
        os.unlink(mark)
        what = "%s: a runner inside the workspace is refused, never fallen through (bash, run)" % USER
        for how in (["bash", "--json", "-m", "workspace-write", "-w", ws, "-c", plant],
                    ["run", "-m", "workspace-write", "-w", ws, "--", "sh", "-c", plant]):
            done = subprocess.run([confine] + how, env=env, capture_output=True, text=True,
                                  cwd=ws)
            text = done.stdout + done.stderr
            if how[0] == "bash":
                out = json.loads(done.stdout)
                refused = (out.get("error") or {}).get("code") == "SANDBOX_UNAVAILABLE"
            else:
                refused = done.returncode == 125
            if not refused or "lies inside the workspace" not in text:
                TAP.check(False, what, "%s ran with its runner inside the workspace: %s"
                          % (how[0], text))
                return
        # the next, ordinary run must not execute a replaced runner
        subprocess.run([confine, "run", "-m", "workspace-write", "-w", other, "--", "true"],
                       env=env, capture_output=True, cwd=other)
        TAP.check(not os.path.exists(mark), what, "a planted runner ran")
        # R4-F9: a writable root on the caller's PATH (.venv/bin,
        # node_modules/.bin) where an earlier run planted bwrap: the next
        # runs, read-only and in another workspace, never execute it.
        # Runners come from CONFINE_RUNNER_PATH or the system's directories.
        subprocess.run(["sh", "-c", plant], cwd=ws, check=True)
        path_env = dict(os.environ, PATH=ws + ":" + os.environ.get("PATH", "/usr/bin:/bin"))
        path_env.pop("CONFINE_RUNNER_PATH", None)
        what = "%s R4-F9: a bwrap planted on PATH is never executed (read-only, another workspace)" % USER
        for how in (["run", "-m", "read-only", "-w", ws, "--", "true"],
                    ["run", "-m", "workspace-write", "-w", other, "--", "true"],
                    ["bash", "-m", "workspace-write", "-w", other, "-c", "true"]):
            done = subprocess.run([confine] + how, env=path_env, capture_output=True, text=True,
                                  cwd=other)
            if os.path.exists(mark):
                TAP.check(False, what, "%s %s executed the bwrap planted on PATH" % (how[0], how[2]))
                return
            if done.returncode != 0:
                TAP.check(False, what, "%s %s did not run: %s" % (how[0], how[2], done.stderr[-400:]))
                return
        # control: the plant is there and runs when executed
        subprocess.run([os.path.join(ws, "bwrap"), "--version"], capture_output=True)
        TAP.check(os.path.exists(mark), "%s R4-F9 control: the planted bwrap runs when executed"
                  % USER)
        TAP.ok(what)  # every run above was checked and returned on a failure
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
