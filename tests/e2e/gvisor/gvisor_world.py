#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""World effects of `confine run --runner gvisor` (doc/SPEC.md 22): the run's
policy as a bundle under runsc, each fact with its control (the same probe
run unconfined on the host, so a probe that cannot see the effect fails the
control):

- workspace-write: a write in the workspace lands; one outside it (a
  directory on the host's disk) is absent;
- denyRead: the file is not read (inside the workspace and a directory out);
- network off: a loopback listener this test runs on the host is not reached
  (network on, under gVisor too: reached);
- env: the filter's secret-named variable is absent, a plain one present;
- --max-pids 12: at most 12 tasks at once (control: 40 forks unconfined,
  and under gVisor without the limit);
- the outcome: runner "gvisor", the command's exit code, a missing program
  is SPAWN_FAILED 127 (not a runner failure), a command that prints the
  helper's own failure line and exits 125 is still the command's exit;
- the rung's private directory is gone after the run; SIGKILL of confine,
  or of the helper, while the command writes ends the sandbox (the
  helper's reaper): no helper, runsc or directory is left and no write
  lands after (control: the writes grow while the run lives); a run
  directory whose helper is gone is swept by the next run;
- as root only: a runsc that fails before making the sandbox (a stand-in on
  PATH that exits 128) is a runner failure, SANDBOX_UNAVAILABLE, naming it;
- the caller's streams on files: their inodes are untouched (runsc as root
  fchowns the streams it hands the sandbox; the helper gives it pipes), and
  the data flows both ways;
- a missing `.git/commondir` (issue 21.3): the spawner's stand-in (".")
  is bound read-only, so the command cannot plant one naming a directory
  of hooks it wrote (control: the same plant unconfined runs the hook on
  the next commit); the stand-in is gone after the run, the report holds
  the default protection, and the existing `.git/hooks` stays read-only;
- a write to the workspace's parent (outside the grants; not /tmp, the
  run's private tmpfs) renders and reports as on the bwrap rung: the same
  `[sandbox: ...]`/`[denied: write PATH (mode)]` lines in `confine bash
  --json`'s rendering, the same `denied` and `denials` (control: the
  write lands unconfined);
- --require-full refuses (setid is not held), nothing runs;
- refusals name the rung: a stage, a missing runsc (SANDBOX_UNAVAILABLE,
  "on the pinned gVisor rung", never the ladder's "Install bubblewrap"),
  an allowlist (INVALID_POLICY naming --allow-host); nothing runs;
- the natural ladder never picks gvisor: `confine probe` without --runner;
- the same as a created user (tests/helpers/as_user.py): runsc --rootless.

Usage: gvisor_world.py CONFINE LANDLOCK_RUN CONFINE_GVISOR
Exit 77 (skip) when runsc is not installed, unless CONFINE_MUST_WORK=1.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "helpers"))
from as_user import run_as_created_user  # noqa: E402
from tap import Tap  # noqa: E402
from outside_tmp import launcher_outside_tmp  # noqa: E402

TAP = Tap()
SECRET = "s3cr3t-gvisor-value"


def check(name, ok, detail=""):
    TAP.check(ok, name, detail)


PROBE = r"""
import os, socket, sys, time
ws, outside, denied_in, denied_out, port, forks = sys.argv[1:7]
def attempt(f):
    try:
        return f()
    except OSError as e:
        return "error:" + (os.strerror(e.errno) if e.errno else str(e))
def write(path):
    with open(path, "w") as f:
        f.write("x")
    return "wrote"
def read(path):
    with open(path) as f:
        return "read:" + f.read().strip()
def connect():
    s = socket.create_connection(("127.0.0.1", int(port)), timeout=3)
    s.close()
    return "connected"
def fork_many():
    pids = []
    try:
        for _ in range(int(forks)):
            pid = os.fork()
            if pid == 0:
                time.sleep(2)
                os._exit(0)
            pids.append(pid)
    except OSError:
        pass
    for pid in pids:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    return str(len(pids))
print("ws_write=" + attempt(lambda: write(os.path.join(ws, "landed"))))
print("outside_write=" + attempt(lambda: write(outside)))
print("denied_in=" + attempt(lambda: read(denied_in)))
print("denied_out=" + attempt(lambda: read(denied_out)))
print("connect=" + attempt(connect))
print("secret=" + os.environ.get("CONFINE_TEST_API_TOKEN", "absent"))
print("plain=" + os.environ.get("CONFINE_TEST_PLAIN", "absent"))
print("forked=" + fork_many())
sys.stdout.flush()
"""


def facts(text):
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


class Listener:
    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.close()


def outcome(stderr):
    """The --json outcome: the last line of stderr."""
    lines = [line for line in stderr.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else {}


def base_dir():
    if os.geteuid() == 0:
        return "/run/confine-gvisor"
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and xdg.startswith("/"):
        return os.path.join(xdg, "confine-gvisor")
    return "/tmp/confine-gvisor-%d" % os.geteuid()


def _all_runs():
    try:
        names = [n for n in os.listdir(base_dir()) if n.startswith("run-")]
    except FileNotFoundError:
        return []
    return sorted(names)


def _descends(pid):
    """pid is this test's descendant (a helper of one of its runs)."""
    me = os.getpid()
    while pid > 1:
        if pid == me:
            return True
        try:
            with open("/proc/%d/stat" % pid) as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
    return False


FOREIGN = set()  # runs on the host when this test began: another test's


def runs_left():
    """This test's runs' directories (run-PID-...): the base is the host's,
    shared with any other gvisor run on the machine, so a directory counts
    when its helper descends from this test, or is dead and was not there
    when the test began."""
    mine = []
    for n in _all_runs():
        try:
            pid = int(n.split("-")[1])
        except (IndexError, ValueError):
            continue
        alive = os.path.exists("/proc/%d" % pid)
        if (alive and _descends(pid)) or (not alive and n not in FOREIGN):
            mine.append(n)
    return mine


def dead_pid():
    """A pid no process has (for a stale run directory's name)."""
    for pid in range(4000000, 3000000, -1):
        if not os.path.exists("/proc/%d" % pid):
            return pid
    raise RuntimeError("no free pid")


def main():
    if len(sys.argv) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    confine, launcher, helper = sys.argv[1:4]
    user_half = sys.argv[4:] == ["--no-nonroot"]
    if not shutil.which("runsc"):
        return TAP.skip_all("runsc is not installed")
    half(confine, launcher, helper, user_half)
    if not user_half and os.geteuid() == 0:
        TAP.note("as a created user: runsc --rootless")
        status = run_as_created_user("cfgv", __file__, [confine, launcher, helper],
                                     [confine, launcher, helper], relay=TAP.relay("user"))
        if status == 77:
            TAP.skip("the created user's half", "no useradd/runuser here")
        else:
            TAP.check(status == 0, "the created user's half ended well", "status %d" % status)
    return TAP.done()


def half(confine, launcher, helper, user_half):
    python = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else \
        os.path.realpath(sys.executable)
    FOREIGN.update(_all_runs())
    base = tempfile.mkdtemp(prefix="confine-gvisor-", dir="/var/tmp")
    os.chmod(base, 0o755)
    env = dict(os.environ, CONFINE_TEST_API_TOKEN=SECRET, CONFINE_TEST_PLAIN="plain")
    # The helper is found beside the launcher the provider runs: name the
    # launcher (the staged one for the user half; the build tree's as root).
    config = os.path.join(base, "config.json")
    with open(config, "w") as f:
        # a build's under /tmp is not trusted (doc/SPEC.md 14): a staged
        # copy, the helper beside it
        json.dump({"landlockLauncher": os.path.realpath(
            launcher_outside_tmp(launcher, beside=(helper,)))}, f)
    env["CONFINE_CONFIG"] = config
    try:
        ws = os.path.join(base, "ws")
        os.makedirs(ws)
        probe = os.path.join(base, "probe.py")
        with open(probe, "w") as f:
            f.write(PROBE)
        denied_in = os.path.join(ws, "secret.txt")
        private = os.path.join(base, "private")
        os.makedirs(private)
        denied_out = os.path.join(private, "key")
        for path in (denied_in, denied_out):
            with open(path, "w") as f:
                f.write(SECRET)
        outside = os.path.join(base, "outside")
        listener = Listener()
        args = [python, probe, ws, outside, denied_in, denied_out, str(listener.port), "40"]

        host = facts(subprocess.run(args, env=env, capture_output=True, text=True,
                                    cwd=ws).stdout)
        check("control: a write outside lands unconfined",
              host.get("outside_write") == "wrote" and os.path.exists(outside), str(host))
        check("control: denyRead files are readable unconfined",
              host.get("denied_in") == "read:" + SECRET and
              host.get("denied_out") == "read:" + SECRET, str(host))
        check("control: the loopback listener is reached unconfined",
              host.get("connect") == "connected", str(host))
        check("control: the secret is in the caller's environment",
              host.get("secret") == SECRET, str(host))
        check("control: 40 forks unconfined", host.get("forked") == "40", str(host))
        for path in (outside, os.path.join(ws, "landed")):
            os.remove(path)

        policy = ["run", "--json", "--runner", "gvisor", "-m", "workspace-write", "-w", ws,
                  "--deny-read", denied_in, "--deny-read", private]

        def run(extra, command=None, **kw):
            return subprocess.run([confine] + policy + extra + ["--"] + (command or args),
                                  env=kw.get("env", env), capture_output=True, text=True,
                                  cwd=ws, timeout=180)

        r = run(["--network", "off", "--max-pids", "12"])
        got, out = facts(r.stdout), outcome(r.stderr)
        detail = "%s rc=%d stderr: %s" % (got, r.returncode, r.stderr[-1500:])
        check("the run is the gvisor rung's", out.get("sandbox", {}).get("runner") == "gvisor",
              detail)
        check("a write in the workspace lands", got.get("ws_write") == "wrote" and
              os.path.exists(os.path.join(ws, "landed")), detail)
        check("a write outside the workspace is absent",
              got.get("outside_write", "").startswith("error:") and not os.path.exists(outside),
              detail)
        check("a denyRead file in the workspace is not read",
              got.get("denied_in", "").startswith("error:") or
              (got.get("denied_in") is not None and SECRET not in got["denied_in"]), detail)
        check("a denyRead directory outside is not read",
              got.get("denied_out") is not None and SECRET not in got["denied_out"], detail)
        check("network off: the host's loopback listener is not reached",
              got.get("connect", "").startswith("error:"), detail)
        check("the filter's secret is absent", got.get("secret") == "absent", detail)
        check("a plain variable is present", got.get("plain") == "plain", detail)
        check("--max-pids 12 holds: fewer than 12 forks",
              got.get("forked", "").isdigit() and 0 < int(got["forked"]) < 12, detail)
        clauses = {c["clause"]: c for c in out.get("sandbox", {}).get("clauses", [])}
        check("the report: limits.pids held by gVisor's kernel",
              clauses.get("limits.pids", {}).get("status") == "enforced" and
              clauses["limits.pids"].get("layers") == ["gvisor"], str(clauses.get("limits.pids")))
        check("the report: setid is not held (no supervisor under gVisor)",
              clauses.get("setid", {}).get("status") == "unenforced", str(clauses.get("setid")))
        check("the rung's private directory is gone after the run", runs_left() == [],
              str(runs_left()))
        os.remove(os.path.join(ws, "landed"))

        r = run(["--network", "on"])
        got = facts(r.stdout)
        check("control: network on under gVisor reaches the listener",
              got.get("connect") == "connected", str(got) + r.stderr[-800:])
        check("control: 40 forks under gVisor without --max-pids", got.get("forked") == "40",
              str(got))

        # The caller's streams on files (runsc as root fchowns what it
        # hands the sandbox: helper-stdio.c gives it pipes instead): the
        # files' inodes stay as they were, and the data flows both ways.
        # Control: the same files read and written unconfined keep their
        # ctime too, so a change would be the rung's.
        streams = {}
        for name, text in (("stdin", "in-line\n" * 5000), ("stdout", ""), ("stderr", "")):
            streams[name] = os.path.join(base, "stream-" + name)
            with open(streams[name], "w") as f:
                f.write(text)

        def stream_ids():
            return {k: (os.stat(v).st_ctime_ns, os.stat(v).st_uid, os.stat(v).st_mode)
                    for k, v in streams.items()}

        def with_streams(argv):
            with open(streams["stdin"]) as i, open(streams["stdout"], "a") as o, \
                    open(streams["stderr"], "a") as e:
                return subprocess.run(argv, stdin=i, stdout=o, stderr=e, env=env, cwd=ws,
                                      timeout=180).returncode
        shell = "wc -l; echo to-out; echo to-err >&2"
        before = stream_ids()
        time.sleep(0.05)
        with_streams(["sh", "-c", shell])
        check("control: the streams' files keep their inode data unconfined",
              stream_ids()["stdin"] == before["stdin"], str(stream_ids()))
        before = stream_ids()
        time.sleep(0.05)
        rc = with_streams([confine] + policy + ["--", "sh", "-c", shell])
        with open(streams["stdout"]) as f:
            out_text = f.read()
        with open(streams["stderr"]) as f:
            err_text = f.read()
        check("the caller's stdin file is not touched by the rung (ctime, owner, mode)",
              stream_ids()["stdin"] == before["stdin"], "%s %s" % (before, stream_ids()))
        check("streams on files flow both ways under gVisor",
              rc == 0 and out_text.count("5000\nto-out\n") == 2 and
              err_text.count("to-err") == 2, "%d %r %r" % (rc, out_text, err_text[-400:]))

        r = run([], ["sh", "-c", "exit 7"])
        check("the command's exit code is the outcome's",
              r.returncode == 7 and outcome(r.stderr).get("exitCode") == 7, r.stderr[-800:])
        r = run([], ["sh", "-c", "echo 'confine-gvisor: not the helper' >&2; exit 125"])
        out = outcome(r.stderr)
        check("a command that prints the helper's line and exits 125 is the command's exit",
              r.returncode == 125 and out.get("exitCode") == 125 and
              not out.get("sandbox", {}).get("runnerFailed"), r.stderr[-800:])
        r = run([], [os.path.join(base, "no-such-program")])
        out = outcome(r.stderr)
        check("a missing program is SPAWN_FAILED 127, not a runner failure",
              r.returncode == 127 and out.get("error", {}).get("code") == "SPAWN_FAILED",
              "%d %s" % (r.returncode, r.stderr[-800:]))

        git_commondir(confine, env, base)
        denied_write(confine, env, base, ws)

        marker = os.path.join(ws, "ran")
        r = run(["--require-full"], ["touch", marker])
        check("--require-full refuses the rung (setid is not held), nothing runs",
              r.returncode == 125 and "requireFull" in r.stderr and "setid" in r.stderr and
              not os.path.exists(marker), "%d %s" % (r.returncode, r.stderr[-800:]))

        # A staged run (doc/SPEC.md 21) is refused here: the launcher that
        # mounts the overlay does not run under gVisor. Nothing runs (the
        # write that lands unconfined-by-a-stage above does not), no stage
        # is left behind.
        stage_dir = os.path.join(base, "stage")
        r = run(["--stage", stage_dir], ["sh", "-c", "echo staged > '%s'" % marker])
        err = outcome(r.stderr).get("error") or {}
        check("a staged run is refused on gVisor with the stage clause's reason, nothing runs",
              r.returncode == 125 and err.get("code") == "SANDBOX_UNAVAILABLE" and
              "stage: gVisor cannot stage the run (this rung has no launcher to mount the "
              "overlay" in (err.get("runnerFailure") or err.get("message") or "") and
              not os.path.exists(marker) and not os.path.exists(stage_dir),
              "%d %s" % (r.returncode, r.stderr[-1200:]))
        check("the stage refusal names the pinned rung, not the ladder's install advice",
              "on the pinned gVisor rung (\"gvisor\"), which cannot stage the run" in
              (err.get("message") or "") and "Install bubblewrap" not in (err.get("message") or ""),
              err.get("message") or r.stderr[-800:])

        # A pinned gVisor without runsc (a runner path that has none): the refusal
        # names the rung and what is missing, never "Install bubblewrap".
        r = run([], [shutil.which("touch") or "/usr/bin/touch", marker],
                env=dict(env, CONFINE_RUNNER_PATH="/nonexistent-confine-gvisor"))
        err = outcome(r.stderr).get("error") or {}
        check("no runsc: SANDBOX_UNAVAILABLE naming the pinned rung and the missing runsc, "
              "nothing runs",
              r.returncode == 125 and err.get("code") == "SANDBOX_UNAVAILABLE" and
              "on the pinned gVisor rung (\"gvisor\"), which cannot run here" in
              (err.get("message") or "") and
              err.get("runnerFailure") == "runsc (gVisor) is not installed: no trusted runsc on the runner path"
              and "Install bubblewrap" not in (err.get("message") or "") and
              not os.path.exists(marker), "%d %s" % (r.returncode, r.stderr[-1200:]))
        # The same for an argv handed out (`wrap` probes the pin itself):
        # the control is the same wrap with runsc on the runner path.
        wrap_words = [confine, "wrap", "--runner", "gvisor", "-m", "read-only", "-w", ws, "--",
                      "true"]
        control = subprocess.run(wrap_words, env=env, capture_output=True, text=True, cwd=ws,
                                 timeout=180)
        r = subprocess.run(wrap_words, capture_output=True, text=True, cwd=ws, timeout=180,
                           env=dict(env, CONFINE_RUNNER_PATH="/nonexistent-confine-gvisor"))
        try:
            err = json.loads(r.stdout).get("error") or {}
        except ValueError:
            err = {}
        check("control: wrap --runner gvisor hands out an argv where runsc is",
              control.returncode == 0 and '"argv"' in control.stdout,
              "%d %s" % (control.returncode, control.stdout[-600:] + control.stderr[-600:]))
        check("no runsc: wrap's refusal names the pinned rung, never the ladder's install advice",
              r.returncode == 125 and err.get("code") == "SANDBOX_UNAVAILABLE" and
              "on the pinned gVisor rung (\"gvisor\"), which cannot run here" in
              (err.get("message") or "") and "Install bubblewrap" not in (err.get("message") or ""),
              "%d %s %s" % (r.returncode, r.stdout[-800:], r.stderr[-400:]))

        # An allowlist: refused (its proxy does not run in the sandbox),
        # naming the clause and the rung; nothing runs.
        r = run(["--allow-host", "example.org"], ["touch", marker])
        err = outcome(r.stderr).get("error") or {}
        check("an allowlist is INVALID_POLICY naming --allow-host and the gVisor rung, nothing runs",
              r.returncode == 125 and err.get("code") == "INVALID_POLICY" and
              "the network allowlist (--allow-host" in (err.get("message") or "") and
              "on the gVisor rung" in (err.get("message") or "") and not os.path.exists(marker),
              "%d %s" % (r.returncode, r.stderr[-1200:]))

        # Killed: confine, or the helper itself, with SIGKILL while the
        # command writes. The helper dies with confine; its reaper (a
        # session of its own) ends the sandbox, runsc and the directory
        # (helper-reaper.c). Control: the ticks grow while the run lives.
        tick = os.path.join(ws, "tick")
        writer = ["sh", "-c", "while :; do echo t >> %s; sleep 0.2; done" % tick]

        def ticks():
            try:
                with open(tick) as f:
                    return len(f.read().splitlines())
            except OSError:
                return 0

        def wait_for(pred, bound=60):
            # The bound only proves the end; the check is the state.
            for _ in range(int(bound / 0.1)):
                if pred():
                    return True
                time.sleep(0.1)
            return pred()

        for victim in ("confine", "the helper"):
            if os.path.exists(tick):
                os.remove(tick)
            p = subprocess.Popen([confine] + policy + ["--"] + writer, env=env, cwd=ws,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=True)
            wait_for(lambda: ticks() >= 3)
            left = runs_left()
            helper_pid = int(left[0].split("-")[1]) if left else None
            grew = ticks()
            time.sleep(0.6)
            check("control: the command writes while the run lives (%s)" % victim,
                  ticks() > grew >= 3, "%d -> %d" % (grew, ticks()))
            os.kill(p.pid if victim == "confine" else (helper_pid or p.pid), signal.SIGKILL)
            p.wait(timeout=60)

            def no_process():
                return not subprocess.run(["pgrep", "-f", "run-%d-" % (helper_pid or 0)],
                                          capture_output=True, text=True).stdout.split()
            ended = wait_for(no_process)
            after = ticks()
            time.sleep(0.6)
            check("SIGKILL of %s ends the sandbox: no helper or runsc left, no write after"
                  % victim, helper_pid is not None and ended and ticks() == after,
                  "helper %s ticks %d -> %d" % (helper_pid, after, ticks()))
            if victim == "confine":
                # Nobody but the reaper is left to clean up.
                check("SIGKILL of confine: the reaper removes the run directory",
                      wait_for(lambda: not runs_left()), str(runs_left()))
            else:
                # confine, still alive, ends its run's processes (the reaper
                # among them, as root in the run's cgroup): the directory
                # is the next run's sweep's.
                run([], ["true"])
                check("SIGKILL of the helper: its directory is gone by the next run",
                      not runs_left(), str(runs_left()))

        # The sweep: a run directory whose helper is gone (a reaper that
        # was killed too) is removed by the next run.
        stale = os.path.join(base_dir(), "run-%d-stale0" % dead_pid())
        os.makedirs(os.path.join(stale, "state"))
        run([], ["true"])
        check("the next run sweeps a dead helper's directory", not os.path.exists(stale),
              str(runs_left()))

        if not user_half:
            # A runsc that fails before making the sandbox: a stand-in on a
            # trusted PATH (root-owned, outside /tmp).
            fake = tempfile.mkdtemp(prefix="confine-gvisor-fake-", dir="/var/lib")
            try:
                os.chmod(fake, 0o755)
                with open(os.path.join(fake, "runsc"), "w") as f:
                    f.write("#!/bin/sh\necho 'stand-in runsc refuses' >&2\nexit 128\n")
                os.chmod(os.path.join(fake, "runsc"), 0o755)
                fenv = dict(env, CONFINE_RUNNER_PATH=fake + ":/usr/local/bin:/usr/bin:/bin")
                r = run([], ["touch", marker], env=fenv)
                out = outcome(r.stderr)
                err = out.get("error") or {}
                check("a runsc that fails before the sandbox is a runner failure",
                      r.returncode == 125 and err.get("code") == "SANDBOX_UNAVAILABLE" and
                      "confine-gvisor: runsc failed before starting the command" in
                      (err.get("runnerFailure") or "") and not os.path.exists(marker),
                      "%d %s" % (r.returncode, r.stderr[-1200:]))
            finally:
                shutil.rmtree(fake, ignore_errors=True)

        probe_out = subprocess.run([confine, "probe", "--json"], env=env, capture_output=True,
                                   text=True)
        try:
            verdict = json.loads(probe_out.stdout)
        except ValueError:
            verdict = {}
        check("the natural ladder never picks gvisor",
              verdict.get("runner") in ("bwrap", "landlock", None) and
              verdict.get("runner") != "gvisor", probe_out.stdout[-500:])
    finally:
        shutil.rmtree(base, ignore_errors=True)


def denied_write(confine, env, base, ws):
    """A write outside the grants (the workspace's parent: /tmp is the
    run's private tmpfs, so a write there is no denial) reads alike on both
    rungs: the same markers in the rendering, the same denial in the
    outcome's JSON. Control: the same write unconfined lands."""
    target = os.path.join(base, "denied-write")
    line = "echo x > '%s'" % target
    r = subprocess.run([shutil.which("bash") or "sh", "-c", line], env=env, cwd=ws,
                       capture_output=True, text=True)
    check("control: the write to the workspace's parent lands unconfined",
          r.returncode == 0 and os.path.exists(target), r.stderr[-400:])
    if os.path.exists(target):
        os.remove(target)

    def confined(runner):
        # `confine bash --json`: the outcome with the rendering a model sees.
        r = subprocess.run([confine, "bash", "--json", "--runner", runner, "-m",
                            "workspace-write", "-w", ws, "-c", line], env=env, cwd=ws,
                           capture_output=True, text=True, timeout=180)
        try:
            out = json.loads(r.stdout)
        except ValueError:
            out = {}
        sandbox = out.get("sandbox") or {}
        # The file markers (3 and 4 of SPEC 9); gVisor's own "not enforced"
        # line (setid) is the rung's and not compared.
        marks = [m for m in (out.get("rendering") or "").splitlines()
                 if m.startswith("[sandbox: file access denied") or m.startswith("[denied:")]
        return (r, out, sandbox, marks, os.path.exists(target))

    g_r, g_out, g_box, g_marks, g_landed = confined("gvisor")
    g_detail = "rc=%d marks=%s denials=%s out: %s stderr: %s" % (
        g_r.returncode, g_marks, g_box.get("denials"), g_r.stdout[-1200:], g_r.stderr[-600:])
    check("a write to the workspace's parent is absent under gVisor",
          g_box.get("runner") == "gvisor" and g_r.returncode != 0 and not g_landed, g_detail)
    want = "[denied: write %s (mode)]" % target
    check("gVisor: the rendering marks the denied write",
          g_marks == ["[sandbox: file access denied under workspace-write mode]", want],
          g_detail)
    check("gVisor: the outcome lists the denial {write, path, mode}",
          g_box.get("denied") is True and
          {"op": "write", "path": target, "clause": "mode"} in (g_box.get("denials") or []),
          g_detail)
    b_r, b_out, b_box, b_marks, b_landed = confined("bwrap")
    if b_box.get("runner") != "bwrap" or b_out.get("error"):
        TAP.skip("the denied write against the bwrap rung",
                 "bwrap does not run here: %s" % (b_r.stderr[-300:],))
        return
    b_detail = "bwrap rc=%d marks=%s denials=%s; %s" % (
        b_r.returncode, b_marks, b_box.get("denials"), g_detail)
    check("control: the bwrap rung refuses the same write", not b_landed and b_box.get("denied"),
          b_detail)
    check("the denial markers in the rendering are the bwrap rung's", g_marks == b_marks,
          b_detail)
    check("the outcome's denial (denied, denials) is the bwrap rung's",
          g_box.get("denied") == b_box.get("denied") and
          g_box.get("denials") == b_box.get("denials") and
          g_r.returncode == b_r.returncode, b_detail)


# The plant of tests/escape/cases.txt's git21-commondir: a common directory
# of the command's own, hooks and all, named by a new .git/commondir.
PLANT = r"""
mkdir -p .evil/hooks .evil/objects .evil/refs
cp .git/config .evil/config
printf '#!/bin/sh\ntouch "%s"\n' "$1" > .evil/hooks/pre-commit
chmod +x .evil/hooks/pre-commit
echo "seen=$(cat .git/commondir 2>/dev/null || echo missing)"
echo "$PWD/.evil" > .git/commondir && echo commondir=written || echo commondir=refused
touch .git/hooks/planted && echo hooks=written || echo hooks=refused
"""


def git_commondir(confine, env, base):
    git = shutil.which("git")
    if not git:
        TAP.skip("the commondir plant", "git is not installed")
        return

    def repo(name):
        path = os.path.join(base, name)
        os.makedirs(path)
        subprocess.run([git, "-C", path, "init", "-q"], check=True, env=env)
        commit(path, "base")
        return path

    def commit(path, message):
        subprocess.run([git, "-C", path, "-c", "user.name=t", "-c", "user.email=t@example.org",
                        "commit", "-q", "--allow-empty", "-m", message],
                       env=env, capture_output=True)

    control, confined = repo("git-control"), repo("git-confined")
    hooked = {p: os.path.join(base, os.path.basename(p) + ".hooked") for p in (control, confined)}
    r = subprocess.run(["sh", "-c", PLANT, "plant", hooked[control]], cwd=control, env=env,
                       capture_output=True, text=True)
    commit(control, "later")
    check("control: the commondir plant unconfined runs the planted hook on the next commit",
          "commondir=written" in r.stdout and os.path.exists(hooked[control]),
          r.stdout + r.stderr[-400:])
    r = subprocess.run([confine, "run", "--json", "--runner", "gvisor", "-m", "workspace-write",
                        "-w", confined, "--", "sh", "-c", PLANT, "plant", hooked[confined]],
                       cwd=confined, env=env, capture_output=True, text=True, timeout=180)
    got = facts(r.stdout)
    detail = "%s rc=%d stderr: %s" % (got, r.returncode, r.stderr[-1500:])
    check("a missing .git/commondir is a read-only stand-in (\".\") under gVisor",
          got.get("seen") == "." and got.get("commondir") == "refused", detail)
    check("an existing .git/hooks stays read-only beside the stand-in",
          got.get("hooks") == "refused" and
          not os.path.exists(os.path.join(confined, ".git", "hooks", "planted")), detail)
    check("the stand-in is gone from the host after the run (no mount point left by runsc)",
          not os.path.lexists(os.path.join(confined, ".git", "commondir")), detail)
    commit(confined, "later")
    check("the commondir plant under gVisor runs no hook on the next commit",
          not os.path.exists(hooked[confined]), detail)
    held = [c for c in outcome(r.stderr).get("sandbox", {}).get("clauses", [])
            if c.get("clause") == "defaultProtections" and
            (c.get("subject") or "").endswith("/.git/commondir")]
    check("the report holds .git/commondir (a stand-in for the run)",
          len(held) == 1 and held[0].get("status") == "enforced", str(held) + detail)


if __name__ == "__main__":
    sys.exit(main())
