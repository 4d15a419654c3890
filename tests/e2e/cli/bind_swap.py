# SPDX-License-Identifier: MIT
"""What bwrap binds is what was granted (doc/SPEC.md 14; red team F3).

bwrap follows symbolic links in a bind's source and target. A `wrap` argv
for a workspace under /tmp binds it onto bwrap's private /tmp, where the
target is created afresh: if a component of the workspace's path (a middle
one, the last one) or of a writable root's is swapped for a link to another
directory after `wrap` and before the spawn, bwrap binds the link's target
writable at the granted path, and the launcher inside granted that mount.
The library now records the identity (st_dev, st_ino) of every path bwrap
binds from the host (`--identity DEV:INO:PATH`), and the launcher compares
the mount it finds there before anything is granted: a swap fails closed
(exit 125, `landlock-run: a granted path is not what it was when the argv
was made: PATH`) and nothing lands in the link's target.

Each swap has its unconfined control: plain bwrap with the same `--bind`
writes into the link's target. Also: nothing swapped still runs (no false
refusal), a workspace given through a link at `wrap` time (the library
resolves it) still runs, and the Landlock rung's argv holds on the same
swaps. As root, the same cases run again as a user made for them, from
staged copies (tests/helpers/as_user.py). Deterministic: no timing.

Usage: bind_swap.py CONFINE LAUNCHER [--no-nonroot]"""
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
MESSAGE = "landlock-run: a granted path is not what it was when the argv was made: "


def main():
    args = [a for a in sys.argv[1:] if a != "--no-nonroot"]
    why = cases(args[0], args[1])
    if why:
        return TAP.skip_all(why)
    if os.getuid() == 0 and "--no-nonroot" not in sys.argv:
        TAP.user_half("cfbswap", __file__, args, args[:2], keep_env=("CONFINE_MUST_WORK",))
    return TAP.done()


def swap_for_link(path, target):
    """`path` moved aside and replaced by a relative link to `target`."""
    os.rename(path, path + ".real")
    os.symlink(os.path.relpath(target, os.path.dirname(path)), path)


# name, the component swapped (relative to the case's directory), its
# link's target, the granted path the command writes into, extra wrap args
SWAPS = [
    ("middle component", "a", "victim", "a/ws", []),
    ("last component", "a/ws", "victim/ws", "a/ws", []),
    ("writable root's parent", "x", "victim", "x/root", ["--writable", "x/root"]),
]


def layout(d):
    for sub in ("a/ws", "x/root", "victim/ws", "victim/root"):
        os.makedirs(os.path.join(d, sub))


def victim_files(d):
    out = []
    for sub in ("ws", "root"):
        out += [sub + "/" + n for n in os.listdir(os.path.join(d, "victim", sub))]
    return out


def wrap(confine, config, runner, d, ws, extra, target):
    argv = [confine, "wrap", "--config", config, "--runner", runner, "-m", "workspace-write",
            "-w", ws]
    for a in extra:
        argv.append(os.path.join(d, a) if not a.startswith("-") else a)
    argv += ["--", "sh", "-c", "echo x > '%s/f'" % target]
    return subprocess.run(argv, capture_output=True, text=True)


def cases(confine, launcher):
    base = os.path.realpath(tempfile.mkdtemp(prefix="bind-swap.", dir="/tmp"))
    parent = os.path.join(os.environ.get("HOME") or "/", ".cache", "confine-tests")
    os.makedirs(parent, exist_ok=True)
    confdir = os.path.realpath(tempfile.mkdtemp(prefix="bind-swap.", dir=parent))
    bwrap = shutil.which("bwrap")
    n = 0

    def fresh():
        nonlocal n
        n += 1
        d = os.path.join(base, str(n))
        layout(d)
        return d

    try:
        config = os.path.join(confdir, "config.json")
        with open(config, "w") as f:
            json.dump({"landlockLauncher": launcher_outside_tmp(launcher)}, f)
        if not bwrap:
            return "no bwrap here"
        # The controls: plain bwrap with the same --bind, after the same swap.
        for name, comp, target, granted, _ in SWAPS:
            d = fresh()
            path = os.path.join(d, granted)
            swap_for_link(os.path.join(d, comp), os.path.join(d, target))
            subprocess.run([bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--tmpfs", "/tmp",
                            "--bind", path, path, "--", "sh", "-c", "echo x > '%s/f'" % path],
                           capture_output=True, text=True)
            if not victim_files(d):
                TAP.check(False, "control %s: plain bwrap's bind did not follow the link" % name)
            else:
                TAP.ok("control %s: plain bwrap writes into the link's target %s"
                      % (name, victim_files(d)))
        ran = 0
        for runner in ("bwrap", "landlock"):
            # nothing swapped: no false refusal
            d = fresh()
            done = wrap(confine, config, runner, d, os.path.join(d, "a/ws"), [],
                        os.path.join(d, "a/ws"))
            if done.returncode != 0:
                TAP.skip("%s: its cases" % runner, "wrap unavailable here: " + done.stdout.strip())
                continue
            ran += 1
            w = json.loads(done.stdout)
            run = subprocess.run(w["argv"], env=w["env"], cwd="/", capture_output=True, text=True)
            if run.returncode != 0 or not os.path.exists(os.path.join(d, "a/ws/f")):
                TAP.check(False, "%s nothing swapped: refused (%d: %s)"
                      % (runner, run.returncode, run.stderr.strip()))
            else:
                TAP.ok("%s nothing swapped: runs and writes its workspace" % runner)
            # a workspace given through a link at wrap time: resolved, runs
            # (the link itself lives in the host's /tmp, which bwrap's
            # private /tmp hides: the command names the resolved path)
            d = fresh()
            os.symlink("a/ws", os.path.join(d, "link"))
            done = wrap(confine, config, runner, d, os.path.join(d, "link"), [],
                        os.path.join(d, "a/ws"))
            w = json.loads(done.stdout) if done.returncode == 0 else None
            run = w and subprocess.run(w["argv"], env=w["env"], cwd="/", capture_output=True,
                                       text=True)
            if not run or run.returncode != 0 or not os.path.exists(os.path.join(d, "a/ws/f")):
                TAP.check(False, "%s workspace through a link at wrap time: %s %s"
                      % (runner, done.stdout.strip(), run and run.stderr.strip()))
            else:
                TAP.ok("%s workspace through a link at wrap time: runs" % runner)
            for name, comp, target, granted, extra in SWAPS:
                d = fresh()
                path = os.path.join(d, granted)
                done = wrap(confine, config, runner, d, os.path.join(d, "a/ws"), extra, path)
                if done.returncode != 0:
                    TAP.check(False, "%s %s: wrap refused: %s" % (runner, name, done.stdout.strip()))
                    continue
                w = json.loads(done.stdout)
                swap_for_link(os.path.join(d, comp), os.path.join(d, target))
                run = subprocess.run(w["argv"], env=w["env"], cwd="/", capture_output=True,
                                     text=True)
                err = run.stderr.strip()
                if victim_files(d):
                    TAP.check(False, "%s %s: the write landed outside: %s (%s)"
                          % (runner, name, victim_files(d), err))
                elif run.returncode != 125:
                    TAP.check(False, "%s %s: did not fail closed (%d: %s)"
                          % (runner, name, run.returncode, err))
                elif runner == "bwrap" and MESSAGE + path not in err:
                    TAP.check(False, "%s %s: not the identity refusal: %s" % (runner, name, err))
                else:
                    TAP.ok("%s %s swapped for a link: fails closed, nothing outside (%s)"
                          % (runner, name, err.splitlines()[-1:]))
        if ran == 0:
            if os.environ.get("CONFINE_MUST_WORK") == "1":
                TAP.check(False, "a rung ran (CONFINE_MUST_WORK=1)", "wrap unavailable for both")
                return None
            return "no rung ran (wrap unavailable for both)"
        return None
    finally:
        shutil.rmtree(base, ignore_errors=True)
        shutil.rmtree(confdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
