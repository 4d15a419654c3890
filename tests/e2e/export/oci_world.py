#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""World effects of `confine export oci` (doc/SPEC.md 20): the bundle run by
an OCI runtime as the runtime's own documentation runs one (`runc run -b
DIR ID`, as root), each fact with its unconfined control (the same probe run
on the host, so a probe that cannot see the effect fails the control):

- workspace-write: a write in the workspace lands; one outside it (a
  sibling directory on the host's disk) is absent; a default-protected
  .git/hooks file cannot be made;
- denyRead: the file's content is not read (inside the workspace and out);
- network off: a loopback listener this test runs on the host is not
  reached (network on: reached);
- env: the filter's secret-named variable is absent, a plain one present;
- seccomp: shmget(2) is refused with EPERM (the launcher's deny-list);
- --max-pids 12: fewer than 12 children can be made (40 unconfined): as
  root the container's pids cgroup, under runsc and rootless RLIMIT_NPROC;
- --require-full: refused with 125, the lost clause named, nothing written;
- runc only: the same facts as a created user (tests/helpers/as_user.py),
  the bundle run rootless (`runc --root STATE --rootless=true run`) in the
  user namespace the export adds for a non-root exporter.

RUNTIME runc: `runc run -b DIR ID`, the runtime's defaults. RUNTIME crun: the
bundle exported with `--runtime crun` (the host's / bound entry by entry),
run with `crun run -b DIR ID`; on a host whose cgroups are a hybrid with
controllers on the cgroup2 mount (crun 1.8 refuses that layout: "cgroups
in hybrid mode not supported"), in a private mount namespace where an
empty tmpfs stands over /sys/fs/cgroup/unified, so crun sees the v1 layout
it supports (the host's own mounts are untouched). RUNTIME runsc: the
bundle exported with `--runtime runsc`, run with `runsc --oci-seccomp
--network=none run -bundle DIR ID` (`--network=host` for the network-on
control): runsc applies linux.seccomp only when told, and keeps a network
stack of its own whatever the bundle's namespaces say.

Usage: oci_world.py CONFINE RUNTIME
TAP (tests/helpers/tap.py), one line per check, the rootless half's folded in;
a skip of the whole when RUNTIME is not installed or this is not root,
unless CONFINE_MUST_WORK=1 and RUNTIME is installed.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "helpers"))
from tap import Tap  # noqa: E402

TAP = Tap()
SECRET = "s3cr3t-export-value"
MUST = os.environ.get("CONFINE_MUST_WORK") == "1"
failures = []


def check(name, ok, detail=""):
    """One TAP case (tests/helpers/tap.py)."""
    TAP.check(ok, name, detail)
    if not ok:
        failures.append(name)


def skip(reason, installed):
    """TAP's skip of the whole, with the reason; a failure under
    CONFINE_MUST_WORK=1 when the runtime is installed."""
    if MUST and installed:
        TAP.check(False, "the bundle can run here (CONFINE_MUST_WORK=1)", reason)
        sys.exit(TAP.done())
    TAP.skip_all(reason)
    sys.exit(0)


# The probe run inside the bundle and, as the control, on the host. One
# line per fact, "name=value".
PROBE = r"""
import ctypes, os, socket, sys
ws, outside, denied_in, denied_out, port = sys.argv[1:6]
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
def shm():
    libc = ctypes.CDLL(None, use_errno=True)
    shmid = libc.shmget(0, 4096, 0o600 | 0o1000)
    if shmid < 0:
        return "error:" + os.strerror(ctypes.get_errno())
    libc.shmctl(shmid, 0, None)
    return "made"
def forks():
    # Children that wait on a pipe, 40 at most: how many could be made.
    r, w = os.pipe()
    pids = []
    for _ in range(40):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            os.close(w)
            os.read(r, 1)
            os._exit(0)
        pids.append(pid)
    os.close(w)
    for pid in pids:
        os.waitpid(pid, 0)
    return str(len(pids))
print("forks=" + forks())
print("ws_write=" + attempt(lambda: write(os.path.join(ws, "landed"))))
print("outside_write=" + attempt(lambda: write(outside)))
print("hook_write=" + attempt(lambda: write(os.path.join(ws, ".git", "hooks", "post-commit"))))
print("denied_in=" + attempt(lambda: read(denied_in)))
print("denied_out=" + attempt(lambda: read(denied_out)))
print("connect=" + attempt(connect))
print("secret=" + os.environ.get("CONFINE_TEST_API_TOKEN", "absent"))
print("plain=" + os.environ.get("CONFINE_TEST_PLAIN", "absent"))
print("shmget=" + attempt(shm))
print("cwd=" + os.getcwd())
"""


def cgroup_layout():
    """The argv prefix crun needs on this host's cgroup layout (above)."""
    try:
        with open("/sys/fs/cgroup/unified/cgroup.controllers") as f:
            hybrid = f.read().strip() != ""
    except OSError:
        hybrid = False
    if not hybrid:
        return []
    return ["unshare", "-m", "--propagation", "private", "sh", "-c",
            'mount -t tmpfs -o mode=0755 confine-test /sys/fs/cgroup/unified && exec "$@"', "sh"]


def facts(text):
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


class Listener:
    """A loopback TCP listener on the host: accepted connections are counted."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.close()


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__)
        return 2
    confine, runtime = sys.argv[1], sys.argv[2]
    user_half = sys.argv[3:] == ["--no-nonroot"]
    installed = shutil.which(runtime) is not None
    if not installed:
        skip(runtime + " is not installed", False)
    if os.geteuid() != 0 and not user_half:
        # a root-only case: skipped with its reason for any other caller, even
        # under CONFINE_MUST_WORK=1 (the host can run it; this caller cannot)
        skip("root only: the bundle is run by " + runtime + " as root, and its rootless "
             "half by a user root creates", False)
    half(confine, runtime, user_half)
    if not user_half and runtime == "runc":
        # rootless, as a user made for it, from staged copies (as_user.py)
        TAP.user_half("cfx", __file__, [confine, runtime], [confine],
                      keep_env=("CONFINE_MUST_WORK",))
    return TAP.done()


def half(confine, runtime, user_half):
    python = os.path.realpath(sys.executable)

    base = tempfile.mkdtemp(prefix="confine-export-", dir="/var/tmp")
    try:
        ws = os.path.join(base, "ws")
        os.makedirs(os.path.join(ws, ".git", "hooks"))
        subprocess.run(["git", "init", "-q", ws], check=True)
        probe = os.path.join(ws, "probe.py")
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
        args = [python, probe, ws, outside, denied_in, denied_out, str(listener.port)]
        env = dict(os.environ, CONFINE_TEST_API_TOKEN=SECRET, CONFINE_TEST_PLAIN="plain")

        # The control: the probe unconfined sees every effect.
        host = facts(subprocess.run(args, env=env, capture_output=True, text=True,
                                    cwd=ws).stdout)
        check("control: a write outside lands unconfined",
              host.get("outside_write") == "wrote" and os.path.exists(outside), str(host))
        check("control: the hook is writable unconfined", host.get("hook_write") == "wrote",
              str(host))
        check("control: denyRead files are readable unconfined",
              host.get("denied_in") == "read:" + SECRET and
              host.get("denied_out") == "read:" + SECRET, str(host))
        check("control: the loopback listener is reached unconfined",
              host.get("connect") == "connected", str(host))
        check("control: the secret is in the caller's environment",
              host.get("secret") == SECRET, str(host))
        check("control: shmget works unconfined", host.get("shmget") == "made", str(host))
        check("control: 40 processes can be made unconfined", host.get("forks") == "40",
              str(host))
        for path in (outside, os.path.join(ws, "landed"),
                     os.path.join(ws, ".git", "hooks", "post-commit")):
            os.remove(path)

        policy = ["-m", "workspace-write", "-w", ws, "--deny-read", denied_in,
                  "--deny-read", private]
        runs = 0

        def export_and_run(extra, name):
            nonlocal runs
            runs += 1
            bundle = os.path.join(base, "bundle-" + name)
            exp = subprocess.run([confine, "export", "oci", "--bundle", bundle, "--json",
                                  "--runtime", runtime] + policy + extra + ["--"] + args,
                                 env=env, capture_output=True, text=True)
            if exp.returncode != 0:
                check("export " + name, False, exp.stdout + exp.stderr)
                return None, None
            report = json.loads(exp.stdout)
            cid = "confine-export-%d-%d" % (os.getpid(), runs)
            if runtime == "runc" and user_half:
                cmd = [runtime, "--root", os.path.join(base, "state"), "--rootless=true", "run",
                       "-b", bundle, cid]
            elif runtime == "runc":
                cmd = [runtime, "run", "-b", bundle, cid]
            elif runtime == "crun":
                cmd = cgroup_layout() + [runtime, "run", "-b", bundle, cid]
            else:
                # What the bundle cannot say to runsc (doc/SPEC.md 20): apply
                # linux.seccomp, and which network stack to give the sandbox.
                net = "none" if "off" in extra else "host"
                cmd = [runtime, "--oci-seccomp", "--network=" + net, "run", "-bundle", bundle,
                       cid]
            run = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                                 text=True, timeout=120)
            subprocess.run((cgroup_layout() if runtime == "crun" else []) + [runtime] +
                           (["--root", os.path.join(base, "state")] if user_half else []) +
                           ["delete", "-f", cid], capture_output=True)
            return facts(run.stdout), (report, run)

        got, extra = export_and_run(["--network", "off", "--max-pids", "12"], "off")
        if got is not None:
            report, run = extra
            detail = str(got) + " stderr: " + run.stderr[-2000:]
            if not got:
                check(runtime + " ran the bundle", False, detail)
            else:
                check("a write in the workspace lands", got.get("ws_write") == "wrote" and
                      os.path.exists(os.path.join(ws, "landed")), detail)
                check("a write outside the workspace is absent",
                      got.get("outside_write", "").startswith("error:") and
                      not os.path.exists(outside), detail)
                check("a default-protected hook cannot be made",
                      got.get("hook_write", "").startswith("error:") and
                      not os.path.exists(os.path.join(ws, ".git", "hooks", "post-commit")),
                      detail)
                check("a denyRead file in the workspace is not read",
                      SECRET not in got.get("denied_in", SECRET), detail)
                check("a denyRead directory outside is not read",
                      SECRET not in got.get("denied_out", SECRET), detail)
                check("network off: the host's loopback listener is not reached",
                      got.get("connect", "").startswith("error:"), detail)
                check("the filter's secret is absent", got.get("secret") == "absent", detail)
                check("a plain variable is present", got.get("plain") == "plain", detail)
                check("the user namespace is there exactly when not root",
                      any(n["type"] == "user" for n in
                          json.load(open(os.path.join(base, "bundle-off", "config.json")))
                          ["linux"]["namespaces"]) == user_half, "")
                check("shmget is refused (the deny-list)",
                      got.get("shmget") == "error:" + os.strerror(1), detail)
                check("the command starts in the workspace", got.get("cwd") == ws, detail)
                check("--max-pids 12 holds (fewer than 12 children besides the probe)",
                      got.get("forks", "").isdigit() and 0 < int(got["forks"]) < 12, detail)
                check("the report says how the process bound holds",
                      any(c["clause"] == "limits.pids" and c["subject"] == "12" and
                          c["status"] == "enforced" for c in report["clauses"]),
                      str(report["clauses"]))
                check("the report says how network off holds",
                      any(c["clause"] == "network" and
                          c["status"] == ("partial" if runtime == "runsc" else "enforced")
                          for c in report["clauses"]), str(report["clauses"]))
                check("the report never says full with the supervisor's clauses lost",
                      report["enforcement"] == "partial", str(report))

        got, extra = export_and_run(["--network", "on"], "on")
        if got is not None:
            check("network on: the loopback listener is reached",
                  got.get("connect") == "connected", str(got) + extra[1].stderr[-2000:])

        bundle = os.path.join(base, "bundle-full")
        exp = subprocess.run([confine, "export", "oci", "--bundle", bundle, "--require-full"] +
                             policy + ["--"] + args, env=env, capture_output=True, text=True)
        check("--require-full refuses an export that loses a clause",
              exp.returncode == 125 and "requireFull" in exp.stderr and
              "unix-sockets" in exp.stderr and not os.path.exists(bundle),
              "%d %s" % (exp.returncode, exp.stderr[-1500:]))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
