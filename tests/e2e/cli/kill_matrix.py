#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The kill matrix (issue 30, doc/SPEC.md 15 "Nothing left behind"): the
process that owns a run -- the confine command, a Python harness using the
package in-process, the Node package's process (which spawns confine) --
is SIGKILLed at the start, mid-run and during cleanup, ROUNDS times each,
on one Linux rung; once the next run has started (and ended), nothing of
the killed run is left: no temp directory under the runs' TMPDIR, no
cgroup of a dead owner, no process of the run.

A staged row (`--stage DIR`, the confine command and the Python owner):
the owner is SIGKILLed mid-run (the marker in the stage's upper layer);
the real workspace must be byte-identical, nothing of the run left (temp
directory, cgroup, process, a mount of DIR on the host) once the next run
has started, and DIR readable by `confine stage diff` (exactly the run's
changes) and removed by `confine stage discard`.

The kill points are driven by markers, not sleeps, and randomized around
them:
- start: when the run's temp directory appears under the private TMPDIR
  base (the library's first act on the Landlock rung; the bwrap rung makes
  none, so there the first byte... of nothing: a random 0-40 ms after the
  spawn instead), or at once;
- mid-run: when the command has made its marker file in the workspace;
- cleanup: when the command, having filled its temp area with 400 files
  (on the Landlock rung the host's temp directory: its removal is the
  cleanup), made its "done" marker and exited: 0-15 ms later.
The confine owner is also killed mid-run ROUNDS times with a next run that
lifts the pids limit (`--max-pids unlimited`: it makes no cgroup of its
own), which must sweep the dead run's cgroup all the same.

A run's TMPDIR is a base of this test's own (never the host's /tmp, whose
confine-tmp.* directories belong to other sessions); the cgroups counted
are those named after the killed owners. The unconfined control: the same
SIGKILL of a plain `sh` owner leaves its `sleep` running (an orphan),
which is what the launcher's lifeline and the sweep are for.

Usage: kill_matrix.py CONFINE LAUNCHER RUNNER [--rounds N] [--no-nonroot]
ROUNDS: --rounds, else CONFINE_KILL_ROUNDS, else 3 (`make check`); `make
check-kill` runs the whole matrix, 20 rounds. One TAP line per check.
Needs CONFINE_LIBRARY (the Python owner) and node (the Node owner; the
Node owner is skipped, and said so, without node). Exit 77 (skip) when
RUNNER does not work here, unless CONFINE_MUST_WORK=1.
"""
import glob
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "helpers"))
from as_user import run_as_created_user  # noqa: E402
from outside_tmp import launcher_outside_tmp  # noqa: E402
from tap import Tap  # noqa: E402

TAP = Tap()

class PythonOwner:
    """A Python harness: a process with the package imported that calls
    confine.run (the library in-process), forked from this one so each
    round does not pay the import (seconds on a loaded machine)."""
    confine = None

    def __init__(self, runner, ws, argv, stage=None):
        if PythonOwner.confine is None:
            sys.path.insert(0, os.path.join(PACKAGES, "python"))
            import confine  # noqa: E402
            PythonOwner.confine = confine
        confine = PythonOwner.confine
        kw = {}
        run_kw = {"stage": stage} if stage else {}
        if os.environ.get("CONFINE_TEST_LAUNCHER"):
            # a staged copy: a build's under /tmp is not trusted (doc/SPEC.md 14)
            kw["landlock_launcher"] = launcher_outside_tmp(os.environ["CONFINE_TEST_LAUNCHER"])
        provider = confine.Provider(runner=runner, **kw)
        read, write = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        self.pid = os.fork()
        if self.pid == 0:
            try:
                os.close(read)
                null = os.open(os.devnull, os.O_RDWR)
                os.dup2(null, 1)
                os.dup2(write, 2)
                confine.run(argv, mode="workspace-write", workspace=ws, provider=provider,
                            limits={"pids": 64}, timeout=60, **run_kw)
                os._exit(0)
            except BaseException as e:  # noqa: BLE001 - the child reports and ends
                os.write(2, repr(e).encode())
                os._exit(1)
        os.close(write)
        self.stderr = os.fdopen(read, "rb")
        self.returncode = None

    def poll(self):
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def send_signal(self, sig):
        if self.returncode is None:
            os.kill(self.pid, sig)

    def wait(self):
        if self.returncode is None:
            self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        return self.returncode


NODE_OWNER = r"""
const confine = require(process.argv[1]);
const [runner, ws, ...argv] = process.argv.slice(2);
confine.run(argv, { mode: 'workspace-write', workspace: ws, runner, limits: { pids: 64 },
                    timeout: 60000 }).then(() => process.exit(0), (e) => {
  console.error(String(e)); process.exit(1);
});
"""


def check(ok, what, detail=""):
    TAP.check(ok, what, detail)


def command(stage, ws, tag):
    """The confined command: it marks the workspace when it is mid-run, or
    fills its temp area and marks "done" just before it exits."""
    ready = os.path.join(ws, "ready." + tag)
    done = os.path.join(ws, "done." + tag)
    if stage == "cleanup":
        script = ('i=0; while [ $i -lt 400 ]; do : > "${TMPDIR:-/tmp}/f$i"; i=$((i+1)); done; '
                  ': > "$1"; exit 0')
        return ["/bin/sh", "-c", script, "sh", done], done
    # The sleep's length is the run's tag: pgrep finds it and nothing else.
    script = ': > "$1"; exec sleep "$2"'
    return ["/bin/sh", "-c", script, "sh", ready, "97.%s" % tag], ready


# Where the owners' packages are: the checkout's, or (the user's half) the
# copies root staged for it (stage_packages).
PACKAGES = os.path.join(ROOT, "bindings")


def owner_argv(kind, confine, runner, ws, argv):
    if kind == "cli":
        return [confine, "run", "--runner", runner, "-m", "workspace-write", "-w", ws,
                "--max-pids", "64", "--"] + argv
    return ["node", "-e", NODE_OWNER, os.path.join(PACKAGES, "node"), runner, ws] + argv


def stage_packages():
    """Copies of the two packages and the library for the user's half,
    root-owned, readable by all, outside the checkout and /tmp (as
    tests/helpers/as_user.py stages the binaries)."""
    stage = tempfile.mkdtemp(prefix="confine-pkgs.",
                             dir=os.environ.get("CONFINE_TEST_STAGE_PARENT", "/var/lib"))
    shutil.copytree(os.path.join(ROOT, "bindings", "python", "confine"),
                    os.path.join(stage, "python", "confine"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.in"))
    shutil.copytree(os.path.join(ROOT, "bindings", "node"), os.path.join(stage, "node"),
                    ignore=shutil.ignore_patterns("node_modules", "test", "*.in"))
    if os.environ.get("CONFINE_LIBRARY"):
        shutil.copyfile(os.path.realpath(os.environ["CONFINE_LIBRARY"]),
                        os.path.join(stage, "libconfine.so"))
    for d, dirs, files in os.walk(stage):
        os.chmod(d, 0o755)
        for f in files:
            os.chmod(os.path.join(d, f), 0o644)
    return stage


def wait_for(predicate, limit=30.0):
    """Spins until predicate() holds (a marker), at most `limit` seconds."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.0005)
    return False


def spin(ms):
    end = time.monotonic() + ms / 1000.0
    while time.monotonic() < end:
        pass


def cgroups_of(pids):
    found = []
    for pid in pids:
        for pattern in ("/sys/fs/cgroup/*/confine-run.%d.*", "/sys/fs/cgroup/confine-run.%d.*",
                        "/sys/fs/cgroup/*/*/confine-run.%d.*",
                        "/sys/fs/cgroup/*/*/*/confine-run.%d.*",
                        "/sys/fs/cgroup/*/*/*/*/confine-run.%d.*"):
            found += glob.glob(pattern % pid)
    return found


def cgroups_busy(pids):
    """Whether a cgroup of these owners' runs still holds a process."""
    for path in cgroups_of(pids):
        try:
            with open(os.path.join(path, "cgroup.procs")) as f:
                if f.read().strip():
                    return True
        except OSError:
            pass
    return False


def children_of(pid):
    """The pids below `pid` (the Node owner's confine), read from /proc."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                out.append(int(d))
        except (OSError, IndexError, ValueError):
            pass
    return out


def processes_tagged(tag):
    """The processes whose argv holds the run's tag (its sleep's length):
    read from /proc here (pgrep takes a third of a second on a busy host)."""
    want = ("97.%s" % tag).encode()
    found = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/cmdline" % d, "rb") as f:
                    if want in f.read().split(b"\0"):
                        found.append(int(d))
            except OSError:
                pass
    return found


def one_kill(kind, stage, confine, runner, ws, base, env, n, lifted=False):
    tag = "%d%03d" % (os.getpid() % 100000, n)
    argv, marker = command(stage, ws, tag)
    if kind == "python":
        p = PythonOwner(runner, ws, argv)
    else:
        p = subprocess.Popen(owner_argv(kind, confine, runner, ws, argv), env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    owners = [p.pid]
    if stage == "start":
        if runner == "landlock" and random.random() < 0.7:
            wait_for(lambda: glob.glob(os.path.join(base, "confine-tmp.*")), 10.0)
        else:
            spin(random.uniform(0, 40))
    elif not wait_for(lambda: os.path.exists(marker) or p.poll() is not None):
        check(False, "%s %s %s round %d: the marker came" % (runner, kind, stage, n))
    else:
        if stage == "cleanup":
            spin(random.uniform(0, 15))
        if p.poll() is not None:
            check(p.returncode == 0, "%s %s %s round %d: the run itself worked" % (
                runner, kind, stage, n), p.stderr.read().decode(errors="replace")[-300:])
    if kind == "node":
        owners += children_of(p.pid)
    p.send_signal(signal.SIGKILL)
    p.wait()
    p.stderr.close()
    # The killed run's own processes end with its lifeline, the launcher
    # among them (its keeper waits for the command's tree first, which
    # takes a moment): the sweep below takes what is dead, so it runs once
    # they have ended. Waited for by their state, never for a time.
    # (The bound only ends a hang: on a loaded host the keeper's wait took
    # more than 10 s, and the sweep then rightly kept what was alive.)
    wait_for(lambda: not processes_tagged(tag) and not cgroups_busy(owners), 120.0)
    # The next run, with the same TMPDIR base: it sweeps what is dead.
    # Lifted: the next run makes no cgroup of its own (--max-pids
    # unlimited, no memory limit) and sweeps all the same (issue 30).
    pids = "unlimited" if lifted else "64"
    if lifted:
        stage += " (next run with pids lifted)"
    nxt = subprocess.run([confine, "run", "--runner", runner, "-w", ws, "--max-pids", pids,
                          "--", "true"], env=env, capture_output=True, text=True, timeout=120)
    check(nxt.returncode == 0, "%s %s %s round %d: the next run works" % (runner, kind, stage, n),
          nxt.stderr[-300:])
    # The killed run's processes go with its lifeline (the launcher's
    # channel, or the Node owner's confine's parent-death signal): the
    # kernel delivers it; wait for it, never for a time.
    wait_for(lambda: not processes_tagged(tag) and
             not [o for o in owners if os.path.exists("/proc/%d" % o) and o != p.pid],
             120.0)
    left = {
        "temp": glob.glob(os.path.join(base, "confine-tmp.*")),
        "cgroup": cgroups_of(owners),
        "process": processes_tagged(tag),
    }
    for what, found in left.items():
        check(not found, "%s %s %s round %d: no %s left" % (runner, kind, stage, n, what), found)
    for path in (marker,):
        if os.path.exists(path):
            os.unlink(path)


def tree_bytes(top):
    """Every entry under top: its type, mode and bytes (or link target)."""
    out = {}
    for d, dirs, files in os.walk(top):
        for name in dirs + files:
            path = os.path.join(d, name)
            st = os.lstat(path)
            if os.path.islink(path):
                out[path] = ("link", os.readlink(path))
            elif os.path.isdir(path):
                out[path] = ("dir", st.st_mode)
            else:
                with open(path, "rb") as f:
                    out[path] = ("file", st.st_mode, f.read())
    return out


def mounts_of(path):
    with open("/proc/self/mountinfo") as f:
        return [line for line in f if path in line]


def one_staged_kill(kind, confine, runner, tmp, base, env, n):
    """A `--stage DIR` run's owner SIGKILLed mid-run (doc/SPEC.md 15, 21):
    the real workspace is byte-identical, nothing of the run survives or is
    left once the next run has started, and the stage, left for the
    harness, is readable by `stage diff` and removable by `stage discard`."""
    what = "%s %s staged mid round %d" % (runner, kind, n)
    tag = "%d%03d" % (os.getpid() % 100000, n)
    ws = os.path.join(tmp, "sws.%d" % n)
    stage = os.path.join(tmp, "stage.%d" % n)
    os.mkdir(ws)
    for name, text in (("keep.txt", b"keep\n"), ("mod.txt", b"one\n"), ("gone.txt", b"bye\n")):
        with open(os.path.join(ws, name), "wb") as f:
            f.write(text)
    before = tree_bytes(ws)
    script = ('echo more >> mod.txt; rm gone.txt; echo new > new.txt; : > "$1"; '
              'exec sleep "$2"')
    argv = ["/bin/sh", "-c", 'cd "$0" && ' + script, ws, "ready." + tag, "97.%s" % tag]
    # The command's writes land in the stage's upper layer, not the tree:
    # that is where its marker shows.
    marker = os.path.join(stage, "roots", "0", "upper", "ready." + tag)
    if kind == "python":
        p = PythonOwner(runner, ws, argv, stage=stage)
    else:
        p = subprocess.Popen([confine, "run", "--runner", runner, "-m", "workspace-write",
                              "-w", ws, "--max-pids", "64", "--stage", stage, "--"] + argv,
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    owners = [p.pid]
    if not wait_for(lambda: os.path.exists(marker) or p.poll() is not None):
        check(False, "%s: the marker came" % what)
    if p.poll() is not None:
        check(False, "%s: the run was alive when killed" % what,
              p.stderr.read().decode(errors="replace")[-300:])
    p.send_signal(signal.SIGKILL)
    p.wait()
    p.stderr.close()
    wait_for(lambda: not processes_tagged(tag) and not cgroups_busy(owners), 120.0)
    check(tree_bytes(ws) == before, "%s: the real workspace is byte-identical" % what)
    nxt = subprocess.run([confine, "run", "--runner", runner, "-w", ws, "--max-pids", "64",
                          "--", "true"], env=env, capture_output=True, text=True, timeout=120)
    check(nxt.returncode == 0, "%s: the next run works" % what, nxt.stderr[-300:])
    wait_for(lambda: not processes_tagged(tag), 120.0)
    left = {
        "temp": glob.glob(os.path.join(base, "confine-tmp.*")),
        "cgroup": cgroups_of(owners),
        "process": processes_tagged(tag),
        # The overlay and the tmpfs over DIR were the run's mount
        # namespace's: none reaches the host's.
        "mount": mounts_of(stage),
    }
    for thing, found in left.items():
        check(not found, "%s: no %s left" % (what, thing), found)
    d = subprocess.run([confine, "stage", "diff", stage, "--json"], env=env,
                       capture_output=True, text=True, timeout=120)
    try:
        got = {(c["path"], c["change"]) for c in json.loads(d.stdout)["changes"]}
    except (ValueError, KeyError, TypeError):
        got = None
    want = {("mod.txt", "modified"), ("gone.txt", "deleted"), ("new.txt", "added"),
            ("ready." + tag, "added")}
    check(d.returncode == 0 and got == want, "%s: the stage is readable by stage diff" % what,
          (d.returncode, d.stderr[-300:], sorted(got or ())))
    r = subprocess.run([confine, "stage", "discard", stage], env=env,
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0 and not os.path.exists(stage),
          "%s: the stage is removed by stage discard" % what, r.stderr[-300:])
    check(tree_bytes(ws) == before, "%s: the workspace is still as it was" % what)
    shutil.rmtree(ws, ignore_errors=True)


def control(ws):
    """Unconfined: a SIGKILLed owner leaves its command running."""
    tag = "%d999" % (os.getpid() % 100000)
    argv, marker = command("mid", ws, tag)
    p = subprocess.Popen(["/bin/sh", "-c", '"$@" & wait', "sh"] + argv)
    wait_for(lambda: os.path.exists(marker))
    p.send_signal(signal.SIGKILL)
    p.wait()
    time.sleep(0.1)
    orphans = processes_tagged(tag)
    check(bool(orphans), "control: a SIGKILLed unconfined owner leaves its command running",
          orphans)
    for pid in orphans:
        os.kill(pid, signal.SIGKILL)
    os.unlink(marker)


def option(name):
    """The value after --NAME in argv, or None."""
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else None


def main():
    global PACKAGES
    valued = [option(o) for o in ("--rounds", "--packages")]
    args = [a for a in sys.argv[1:] if not a.startswith("--") and a not in valued]
    rounds = int(option("--rounds") or os.environ.get("CONFINE_KILL_ROUNDS") or 3)
    if option("--packages"):
        PACKAGES = option("--packages")
        os.environ["CONFINE_LIBRARY"] = os.path.join(PACKAGES, "libconfine.so")
        os.environ["CONFINE_TEST_LAUNCHER"] = args[1]
    confine, runner = args[0], args[2]
    probe = subprocess.run([confine, "run", "--runner", runner, "--", "true"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return TAP.skip_all("runner %s unavailable here: %s" % (runner, probe.stderr.strip()))
    kinds = ["cli", "python", "node"]
    if os.environ.get("CONFINE_TEST_OWNERS"):
        kinds = os.environ["CONFINE_TEST_OWNERS"].split(",")
    if not shutil.which("node"):
        TAP.skip("%s node owner: every stage" % runner, "node is not installed")
        kinds.remove("node")
    tmp = tempfile.mkdtemp(prefix="cf-kill-", dir=os.environ.get("HOME"))
    try:
        ws = os.path.join(tmp, "ws")
        base = os.path.join(tmp, "tmpbase")
        os.mkdir(ws)
        os.mkdir(base, 0o700)
        env = dict(os.environ, TMPDIR=base, CONFINE_BIN=os.path.abspath(confine))
        # The Python owner is forked from here: its runs see this one's.
        os.environ["TMPDIR"] = base
        control(ws)
        n = 0
        for kind in kinds:
            for stage in ("start", "mid", "cleanup"):
                for _ in range(rounds):
                    n += 1
                    one_kill(kind, stage, confine, runner, ws, base, env, n)
        # The next run lifts the pids limit, so makes no cgroup: the dead
        # run's cgroup goes all the same.
        for _ in range(rounds):
            n += 1
            one_kill("cli", "mid", confine, runner, ws, base, env, n, lifted=True)
        # A staged run's owner killed mid-run: the stage stays, the tree is
        # untouched.
        for kind in [k for k in kinds if k in ("cli", "python")]:
            for _ in range(rounds):
                n += 1
                one_staged_kill(kind, confine, runner, tmp, base, env, n)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if os.getuid() == 0 and "--no-nonroot" not in sys.argv:
        packages = stage_packages()
        try:
            r = run_as_created_user("cfkill", __file__,
                                    args + ["--rounds", str(rounds), "--packages", packages],
                                    args[:2],
                                    keep_env=("CONFINE_MUST_WORK", "CONFINE_CONFIG",
                                              "CONFINE_TEST_OWNERS"),
                                    timeout=1200, relay=TAP.relay("user"))
        finally:
            shutil.rmtree(packages, ignore_errors=True)
        if r == 77:
            TAP.skip("the created user's half", "no useradd/runuser here")
        else:
            check(r == 0, "the created user's half ended well", "status %d" % r)
    return TAP.done()


if __name__ == "__main__":
    sys.exit(main())
