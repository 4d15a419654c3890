# SPDX-License-Identifier: MIT
"""The non-root half of a Python suite, run by a user made for it, from
copies that user can read: the one way every Python suite does it (the
shell suites use tests/helpers/stage.sh, the same rules).

Why copies: the checkout may be one the user cannot enter (a clone under
/root, mode 0700). A half started by its path there fails with EACCES
before it tries anything. So root copies the script, the helper modules it
imports and the binaries its arguments name into a fresh directory,
root-owned, mode 0755, outside the checkout and outside /tmp (bwrap's
private /tmp would hide it from inside the sandbox; a launcher under /tmp is
rightly not trusted, doc/SPEC.md 14), proves the user can reach every copy,
and fails loudly when it cannot. The layout under the stage mirrors
tests/, so a script's own `sys.path` line finds tests/helpers there too.

    run_as_created_user(prefix, script, argv, binaries)

prefix    the user's name is prefix + pid (short, unique per run)
script    the suite's own file (__file__)
argv      its arguments; any that is one of `binaries` becomes the copy's path
binaries  paths of programs the half runs (confine, landlock-run, ...)
relay     optional: called with each line the half prints (its stdout is
          then a pipe), e.g. tests/helpers/tap.py's Tap.relay("user")

Returns the half's exit status; 77 (skip) only when this host has no
useradd/runuser and CONFINE_MUST_WORK is not 1, else 1. The user, its
processes and the stage are gone when it returns; a user left behind is a
failure."""
import glob
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import threading

SKIP = 77
_HELPERS = os.path.dirname(os.path.abspath(__file__))
_TESTS = os.path.dirname(_HELPERS)


def _copy(src, dst, mode):
    os.makedirs(os.path.dirname(dst), mode=0o755, exist_ok=True)
    shutil.copyfile(src, dst)
    os.chown(dst, 0, 0)
    os.chmod(dst, mode)


def _stage(script, argv, binaries):
    """Copies what the half needs; returns (stage, staged script, argv, paths)."""
    parent = os.environ.get("CONFINE_TEST_STAGE_PARENT", "/var/lib")
    stage = tempfile.mkdtemp(prefix="confine-stage.", dir=parent)
    os.chown(stage, 0, 0)
    os.chmod(stage, 0o755)
    paths = []
    script = os.path.abspath(script)
    rel = os.path.relpath(script, _TESTS)
    if rel.startswith(".."):
        rel = os.path.basename(script)
    # the script, its sibling modules and every helper module it may import
    sources = set(glob.glob(os.path.join(os.path.dirname(script), "*.py")))
    sources |= set(glob.glob(os.path.join(_HELPERS, "*.py")))
    sources.add(script)
    for src in sorted(sources):
        where = os.path.relpath(src, _TESTS)
        if where.startswith(".."):
            where = os.path.basename(src)
        dst = os.path.join(stage, "tests", where)
        _copy(src, dst, 0o644)
        paths.append(dst)
    for root, dirs, _ in os.walk(stage):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o755)
    mapped = {}
    for b in binaries:
        if not b:
            continue
        dst = os.path.join(stage, "bin", os.path.basename(b))
        _copy(os.path.realpath(b), dst, 0o755)
        os.chmod(os.path.dirname(dst), 0o755)
        mapped[b] = dst
        paths.append(dst)
    new_argv = [mapped.get(a, a) for a in argv]
    return stage, os.path.join(stage, "tests", rel), new_argv, paths


def _reachable(name, paths):
    """Every copy readable (and runnable, for a binary) by the user."""
    bad = []
    for p in paths:
        want = "-x" if os.stat(p).st_mode & 0o100 else "-r"
        r = subprocess.run(["runuser", "-u", name, "--", "test", want, p, "-a", "-r", p],
                           cwd="/")
        if r.returncode != 0:
            bad.append(p)
    return bad


def _remove_user(name):
    subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
    subprocess.run(["userdel", "-r", name], capture_output=True)
    try:
        pwd.getpwnam(name)
    except KeyError:
        return True
    return False


def run_as_created_user(prefix, script, argv, binaries, keep_env=("CONFINE_MUST_WORK",),
                        timeout=1800, relay=None, note=None):
    must_work = os.environ.get("CONFINE_MUST_WORK") == "1"
    if note is None:
        def note(text):
            print(text)
            sys.stdout.flush()
    for tool in ("useradd", "userdel", "runuser"):
        if not shutil.which(tool):
            note("# as_user: no %s here: the non-root half cannot run" % tool)
            return 1 if must_work else SKIP
    name = "%s%d" % (prefix, os.getpid())
    subprocess.run(["useradd", "-m", "-d", "/home/" + name, "-s", "/bin/bash", name], check=True)
    stage = None
    try:
        home = pwd.getpwnam(name).pw_dir
        stage, staged_script, staged_argv, paths = _stage(script, argv, binaries)
        bad = _reachable(name, paths)
        if bad:
            note("# as_user: FAIL: %s cannot reach the copies: %s" % (name, " ".join(bad)))
            return 1
        note("# as_user: the non-root half runs as %s from copies in %s" % (name, stage))
        env = {"HOME": home, "USER": name, "LOGNAME": name, "PATH": os.environ.get("PATH", ""),
               "LANG": "C.UTF-8"}
        for k in keep_env:
            if k in os.environ:
                env[k] = os.environ[k]
        # an interpreter that user can run (root's own may live under /root)
        python = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
        cmd = ["runuser", "-u", name, "--", python, staged_script] + staged_argv + ["--no-nonroot"]
        if relay is None:
            return subprocess.run(cmd, env=env, cwd="/", timeout=timeout).returncode
        # The half's stdout, line by line, to relay (tests/helpers/tap.py).
        with subprocess.Popen(cmd, env=env, cwd="/", stdout=subprocess.PIPE, text=True,
                              errors="replace") as p:
            timer = threading.Timer(timeout, p.kill)
            timer.start()
            try:
                for line in p.stdout:
                    relay(line)
            finally:
                timer.cancel()
            return p.wait()
    finally:
        if not _remove_user(name):
            note("# as_user: FAIL: userdel -r %s failed: the user is left on the host" % name)
            sys.exit(1)
        if stage:
            shutil.rmtree(stage, ignore_errors=True)
