# SPDX-License-Identifier: MIT
"""The natural ladder falls through a rung this call's policy refuses
(issue 27, doc/SPEC.md 17): a workspace that holds the bwrap on PATH
(`-w /usr` holds /usr/bin/bwrap) refuses bwrap for that call, and
`confine run`/`bash` then confine on the next rung (the sealed in-memory
launcher lies nowhere the command may write) instead of refusing the run.
`wrap` hands out an on-disk argv; it still refuses where every rung's
runner lies inside, and names why. The control: the same workspace with
`--runner bwrap` is refused, naming the runner's place.

Usage: ladder_place.py CONFINE"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def main():
    confine = sys.argv[1]
    bwrap = shutil.which("bwrap")
    must_work = os.environ.get("CONFINE_MUST_WORK") == "1"
    if not bwrap:
        print("no bwrap here")
        return 1 if must_work else SKIP
    # outside /tmp (bwrap's private /tmp) and trusted: ours, 0755 all the way
    parent = os.path.join(os.environ.get("HOME") or "/", ".cache", "confine-tests")
    os.makedirs(parent, exist_ok=True)
    ws = os.path.realpath(tempfile.mkdtemp(prefix="ladder-place.", dir=parent))
    try:
        os.chmod(ws, 0o755)
        os.mkdir(os.path.join(ws, "bin"))
        shutil.copy2(bwrap, os.path.join(ws, "bin", "bwrap"))
        env = dict(os.environ, PATH=os.path.join(ws, "bin") + ":" + os.environ.get("PATH", ""))
        common = ["-m", "workspace-write", "-w", ws]
        pinned = subprocess.run([confine, "run", "--runner", "bwrap"] + common + ["--", "true"],
                                env=env, capture_output=True, text=True, cwd=ws)
        if pinned.returncode != 125 or "lies inside the workspace" not in pinned.stderr:
            print("FAIL control: --runner bwrap with bwrap inside the workspace: %d %s"
                  % (pinned.returncode, pinned.stderr))
            return 1
        done = subprocess.run([confine, "bash", "--json"] + common +
                              ["-c", "touch inside && touch %s/outside; true" % parent],
                              env=env, capture_output=True, text=True, cwd=ws)
        out = json.loads(done.stdout)
        if out.get("error") is not None:
            print("FAIL: the ladder refused instead of falling through: %s" % out["error"])
            return 1
        if out["sandbox"]["runner"] == "bwrap":
            print("FAIL: ran on the bwrap inside the workspace: %s" % out["sandbox"])
            return 1
        if not os.path.exists(os.path.join(ws, "inside")):
            print("FAIL: the workspace write did not land: %s" % out)
            return 1
        if os.path.exists(os.path.join(parent, "outside")):
            os.unlink(os.path.join(parent, "outside"))
            print("FAIL: a write outside the workspace landed: %s" % out["sandbox"])
            return 1
        print("ok bash falls through to %s (%s), the write outside refused"
              % (out["sandbox"]["runner"], out["sandbox"]["enforcement"]))
        run = subprocess.run([confine, "run"] + common + ["--", "sh", "-c", "echo ran"],
                             env=env, capture_output=True, text=True, cwd=ws)
        if run.returncode != 0 or run.stdout != "ran\n":
            print("FAIL: confine run did not fall through: %d %s" % (run.returncode, run.stderr))
            return 1
        print("ok run falls through")
        return 0
    finally:
        shutil.rmtree(ws, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
