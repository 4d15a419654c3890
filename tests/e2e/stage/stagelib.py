# SPDX-License-Identifier: MIT
"""What the stage suites (stage_world, stage_git, stage_workloads) share:
the assertion, the subprocess call, the tree snapshot, the case table run
once per rung, and main(): a launcher config outside /tmp, the rung probe
(skip where the rung cannot run, unless CONFINE_MUST_WORK=1), then, as
root, the same table again as a created user from staged copies
(tests/helpers/as_user.py), its cases folded in. TAP (tests/helpers/tap.py):
one line per case, a skip with its reason.

    sys.exit(stagelib.main(__file__, CASES, user_prefix="cfstg",
                           prefix="cf-stage-", tools=("git",)))

argv of a suite: CONFINE LANDLOCK_RUN RUNNER [--no-nonroot]."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "helpers"))
from as_user import run_as_created_user  # noqa: E402
from outside_tmp import launcher_outside_tmp  # noqa: E402
from tap import Skip, Tap  # noqa: E402,F401 (Skip: a case raises it)

SKIP = 77

def check(cond, what, detail=""):
    if not cond:
        raise AssertionError("%s %s" % (what, detail))


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, **kw)


def snapshot(top):
    """Every entry below top: type, permission bits, bytes or link target."""
    out = {}
    for root, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(dirs + files):
            p = os.path.join(root, name)
            rel = os.path.relpath(p, top)
            st = os.lstat(p)
            if os.path.islink(p):
                out[rel] = ("l", os.readlink(p))
            elif os.path.isdir(p):
                out[rel] = ("d", oct(st.st_mode & 0o7777))
            else:
                with open(p, "rb") as f:
                    out[rel] = ("f", oct(st.st_mode & 0o7777), f.read().hex())
    return out


def run_table(tap, cases, confine, runner, prefix, base_mode=None):
    user = "root" if os.getuid() == 0 else "uid %d" % os.getuid()
    for case in cases:
        base = tempfile.mkdtemp(prefix=prefix)
        if base_mode is not None:
            os.chmod(base, base_mode)
        label = "%s %s %s" % (runner, user, case.__name__)
        try:
            tap.guard(label, lambda: (case(confine, runner, base), tap.ok(label)))
        finally:
            subprocess.run(["chmod", "-R", "u+rwX", base], capture_output=True)
            shutil.rmtree(base, ignore_errors=True)


def main(script, cases, user_prefix, prefix, tools=(), base_mode=None):
    args = [a for a in sys.argv[1:] if a != "--no-nonroot"]
    confine, launcher, runner = args[0], args[1], args[2]
    tap = Tap()
    for tool in tools:
        if not shutil.which(tool):
            return tap.skip_all("%s is not installed" % tool)
    config_dir = tempfile.mkdtemp(prefix=prefix + "config-")
    try:
        config = os.path.join(config_dir, "launcher.json")
        with open(config, "w") as f:
            json.dump({"landlockLauncher": launcher_outside_tmp(launcher)}, f)
        os.environ["CONFINE_CONFIG"] = config
        probe = run([confine, "wrap", "--runner", runner, "--", "true"])
        if probe.returncode != 0:
            return tap.skip_all("runner %s unavailable here: %s" % (runner, probe.stdout.strip()))
        run_table(tap, cases, confine, runner, prefix, base_mode)
    finally:
        shutil.rmtree(config_dir, ignore_errors=True)
    if os.getuid() == 0 and "--no-nonroot" not in sys.argv:
        tap.user_half(user_prefix, script, args, args[:2], keep_env=("CONFINE_MUST_WORK",))
    return tap.done()
