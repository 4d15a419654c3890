#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A harness in another language spawns `confine wrap` output as-is.

Asks `confine wrap` for the confined argv, spawns it the way the contract
says (new session, no descriptor above 2, the workspace root as cwd), and
checks the effects on disk: under workspace-write a write inside the
workspace lands and a write to a sibling directory is denied; under
read-only even the workspace is not writable. It also classifies the
denied run with the wrap's own denialSignatures.

Then what the launcher in the argv adds for such a harness (both Linux
rungs run it; on bwrap it is layered inside, doc/SPEC.md 14), each with an
unconfined control: a read-only stdin file reopened for writing through
/proc/self/fd/0 (limit 3), a pathname socket of a daemon outside (limit 2);
the runner-failure rules telling bwrap's failure and the launcher's from
the command's own exit 1 and 125 (doc/SPEC.md 6); and, through
CONFINE_TEST_SECCOMP_DENY (tests/helpers/seccomp-deny.c), a host without
Landlock (bwrap alone confines the files, `layers` and `unenforced` say
so) and a host whose seccomp filters refuse the supervisor's listener
(`layers` lacks it, the run is partial, requireFull refuses, and the
launcher's notice is not a runner failure).

Usage: spawn_wrap.py CONFINE LAUNCHER [RUNNER]
TAP (tests/helpers/tap.py), one line per case; limit 12 (known open) a TODO;
a skip of the whole when no runner works here, unless CONFINE_MUST_WORK=1.
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
from outside_tmp import launcher_outside_tmp  # noqa: E402
from tap import Tap  # noqa: E402

TAP = Tap()


def wrap(confine, config, args, prefix=()):
    done = subprocess.run(list(prefix) + [confine, "wrap", "--config", config] + args,
                          capture_output=True, text=True)
    # One JSON object on stdout in every case: the wrap or {"error": ...}.
    lines = done.stdout.splitlines()
    assert len(lines) == 1, "wrap printed %r (stderr %r)" % (done.stdout, done.stderr)
    wrapped = json.loads(lines[0])
    if done.returncode == 125 and wrapped.get("error", {}).get("code") == "SANDBOX_UNAVAILABLE":
        return None
    if done.returncode != 0:
        raise AssertionError("confine wrap failed (%d): %s" % (done.returncode, wrapped))
    return wrapped


def spawn(wrapped, stdin=subprocess.DEVNULL, prefix=()):
    env = dict(wrapped["env"])  # an object, NAME to VALUE (doc/SPEC.md 10)
    return subprocess.run(list(prefix) + wrapped["argv"], cwd=wrapped["policy"]["workspaceRoot"],
                          start_new_session=True, close_fds=True, env=env,
                          stdin=stdin, capture_output=True, text=True)


def denied(wrapped, done):
    err = done.stderr.lower()
    return done.returncode != 0 and any(sig.lower() in err
                                        for sig in wrapped["denialSignatures"])


def runner_failure(wrapped, done):
    """doc/SPEC.md 8 over the wrap's rules: the matched line, or None."""
    if done.returncode <= 0:
        return None
    lines = done.stderr.replace("\r\n", "\n").split("\n")
    for rule in wrapped["runnerFailureRules"]:
        codes = rule.get("allowedExitCodes")
        if codes and done.returncode not in codes:
            continue
        info = {line.lower() for line in rule.get("informationalLines", [])}
        for line in lines:
            if line.lower() in info:
                continue
            for sig in rule["fatalSignatures"]:
                if sig.strip() and line.lower().startswith(sig.lower()):
                    return line
    return None


def layered_checks(confine, config, runner, base, work, outside):
    """What the launcher adds for a harness that spawns the argv itself."""
    pin = ["--runner", runner]
    # limit 3: a read-only stdin file reopened for writing through the
    # magic link (bwrap's read-only bind does not cover it; the launcher's
    # Landlock checks the path). Control: unconfined, the reopen writes.
    victim = os.path.join(outside, "stdin.txt")
    reopen = ["sh", "-c", "echo pwn > /proc/self/fd/0"]
    for mode in ("read-only", "workspace-write"):
        with open(victim, "w") as f:
            f.write("victim\n")
        w = wrap(confine, config, pin + ["-m", mode, "-w", work, "--"] + reopen)
        with open(victim) as f:
            done = spawn(w, stdin=f)
        with open(victim) as f:
            assert f.read() == "victim\n", "%s: /proc/self/fd/0 reopened for writing" % mode
        assert denied(w, done), done.stderr
    with open(victim) as f:
        subprocess.run(reopen, stdin=f, check=True)
    with open(victim) as f:
        assert f.read() == "pwn\n", "control: the reopen did not write unconfined"

    # limit 2: a daemon's pathname socket outside the grants (it would act
    # for the command). Control: unconfined, the daemon hears it.
    sock_path = os.path.join(outside, "daemon.sock")
    heard = []
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(sock_path)
    server.listen(4)
    server.settimeout(0.2)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            heard.append(conn.recv(64))
            conn.close()
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    client = [sys.executable, "-c",
              "import socket, sys\n"
              "s = socket.socket(socket.AF_UNIX)\n"
              "s.connect(sys.argv[1])\n"
              "s.send(b'pwn')\n", sock_path]
    try:
        w = wrap(confine, config, pin + ["-m", "workspace-write", "-w", work, "--"] + client)
        done = spawn(w)
        assert done.returncode != 0 and "Permission denied" in done.stderr, done.stderr
        assert not heard, "the daemon heard a confined command: %r" % heard
        subprocess.run(client, check=True)
        for _ in range(50):
            if heard:
                break
            threading.Event().wait(0.05)
        assert heard == [b"pwn"], "control: the daemon did not hear an unconfined client"
    finally:
        stop.set()
        thread.join()
        server.close()

    # The rules (doc/SPEC.md 6): the runners' own failures, and the
    # command's exit 1 and 125, which are the command's.
    w = wrap(confine, config, pin + ["-w", work, "--", "true"])
    assert "seccomp" in w["layers"], w
    assert ("supervisor" in w["layers"]) == ("metadata" not in w["unenforced"]), w
    # past the launcher's bound the policy is refused at wrap, never cut
    # (doc/SPEC.md 15, "Bounds"); the launcher's own failure, read by the
    # rules: a writable grant gone between wrap and the spawn
    sockets = []
    for i in range(257):
        sockets += ["--allow-unix-socket", "/run/confine-test-%d.sock" % i]
    done = subprocess.run([confine, "wrap", "--config", config] + pin + ["-w", work] + sockets
                          + ["--", "true"], capture_output=True, text=True)
    refused = json.loads(done.stdout)["error"]
    assert done.returncode == 125 and refused["code"] == "INVALID_POLICY" and \
        "257 entries, more than the 256" in refused["message"], done.stdout
    if runner == "landlock":
        gone = os.path.join(base, "gone-landlock")
        os.mkdir(gone)
        w = wrap(confine, config, pin + ["-m", "workspace-write", "-w", work,
                                         "--writable", gone, "--", "true"])
        os.rmdir(gone)
        done = spawn(w)
        assert done.returncode == 125, (done.returncode, done.stderr)
        assert runner_failure(w, done) == \
            "landlock-run: cannot open rule path: %s: No such file or directory" % gone, \
            done.stderr
    for code in (1, 125):
        w = wrap(confine, config, pin + ["-w", work, "--", "sh", "-c", "exit %d" % code])
        done = spawn(w)
        assert done.returncode == code and runner_failure(w, done) is None, done
    if runner == "bwrap":
        gone = os.path.join(base, "gone")
        os.mkdir(gone)
        w = wrap(confine, config, pin + ["-m", "workspace-write", "-w", work,
                                         "--writable", gone, "--", "true"])
        os.rmdir(gone)
        done = spawn(w)
        detail = runner_failure(w, done)
        assert done.returncode == 1 and detail and detail.startswith("bwrap: "), done
    TAP.ok("%s: limits 2 and 3 closed for the spawned argv (controls escaped), "
           "the rules tell runner from command" % runner)
    # Still open (SECURITY.md, limit 12): a command that prints a runner's
    # prefix at the start of a line and exits with its status reads as that
    # runner's failure to a harness that has only stderr. Known open: TODO
    # (meson fails it once it passes, so the table is updated then).
    w = wrap(confine, config, pin + ["-w", work, "--", "sh", "-c",
                                     "echo 'landlock-run: faked' >&2; exit 125"])
    TAP.todo(runner_failure(w, spawn(w)) != "landlock-run: faked",
             "%s: limit 12: a command faking the launcher's failure line is told from it"
             % runner, "known open, SECURITY.md limit 12: a harness with only stderr cannot")


def other_host_checks(confine, config, runner, work, outside, deny):
    """A host without Landlock, and one that refuses the supervisor."""
    pin = ["--runner", runner]
    # No Landlock: bwrap alone confines the files (--best-effort: the
    # launcher still applies seccomp and the supervisor); the Landlock rung
    # cannot run at all.
    no_landlock = [deny, "--no-landlock", "--"]
    inside = os.path.join(work, "nl-inside")
    outside_file = os.path.join(outside, "nl-outside")
    script = "echo in > '%s'; echo out > '%s'; grep -c '^Seccomp:.*2' /proc/self/status" % (
        inside, outside_file)
    w = wrap(confine, config, pin + ["-m", "workspace-write", "-w", work, "--", "sh", "-c",
                                     script], prefix=no_landlock)
    if runner == "landlock":
        assert w is None, "the Landlock rung confined without Landlock: %r" % w
    else:
        # layers: what holds the clauses and the launcher's own words
        # (doc/SPEC.md 10, 15): no landlock here
        assert {"seccomp", "supervisor"} <= set(w["layers"]) and \
            "landlock" not in w["layers"], w["layers"]
        # an unenforced clause (abstract sockets, below) makes it partial
        assert w["enforcement"] == "partial", w
        # bwrap shares the host's network namespace: abstract sockets are
        # only the Landlock scope's to refuse
        assert "abstract-unix-sockets" in w["unenforced"], w["unenforced"]
        done = spawn(w, prefix=no_landlock)
        with open(inside) as f:
            assert f.read() == "in\n", done.stderr
        assert not os.path.exists(outside_file), "bwrap alone let a write outside land"
        assert done.stdout.strip() == "1", "no seccomp filter of the launcher: %r" % done.stdout
        w = wrap(confine, config, pin + ["-m", "workspace-write", "-w", work, "--network", "off",
                                         "--", "true"], prefix=no_landlock)
        assert "abstract-unix-sockets" not in w["unenforced"], w["unenforced"]

    # No listener (another supervisor's filter): the launcher runs without
    # its supervisor, says so on stderr, and the run is partial.
    no_listener = [deny, "--no-listener", "--"]
    w = wrap(confine, config, pin + ["-w", work, "--", "sh", "-c", "exit 125"],
             prefix=no_listener)
    assert "supervisor" not in w["layers"] and "seccomp" in w["layers"], w["layers"]
    # without the supervisor: socket connects are not decided; metadata
    # outside the grants too on Landlock (bwrap's read-only mounts hold it)
    assert "unix-sockets" in w["unenforced"], w["unenforced"]
    assert ("metadata" in w["unenforced"]) == (runner == "landlock"), w["unenforced"]
    assert w["enforcement"] == "partial", w
    done = spawn(w, prefix=no_listener)
    assert "landlock-run: no supervisor (nested-listener): " in done.stderr, done.stderr
    assert done.returncode == 125 and runner_failure(w, done) is None, done
    done = subprocess.run(no_listener + [confine, "wrap", "--config", config] + pin +
                          ["--require-full", "-w", work, "--", "true"],
                          capture_output=True, text=True)
    error = json.loads(done.stdout)["error"]
    assert done.returncode == 125 and error["code"] == "SANDBOX_UNAVAILABLE", done
    assert error["runnerFailure"].startswith("requireFull: ") and \
        "nested-listener" in error["runnerFailure"], error
    TAP.ok("%s: a host without Landlock and one refusing the supervisor's listener "
           "read as predicted" % runner)


def main():
    confine, launcher = sys.argv[1], sys.argv[2]
    pin = sys.argv[3:4]
    must_work = os.environ.get("CONFINE_MUST_WORK") == "1"
    home = os.environ.get("HOME") or "/tmp"
    launcher = launcher_outside_tmp(launcher)
    root = os.path.join(home, ".cache", "confine-tests")
    os.makedirs(root, exist_ok=True)
    base = tempfile.mkdtemp(prefix="spawn-wrap.", dir=root)
    try:
        work = os.path.join(base, "ws")
        outside = os.path.join(base, "outside")
        os.mkdir(work)
        os.mkdir(outside)
        config = os.path.join(base, "config.json")
        with open(config, "w") as f:
            json.dump({"landlockLauncher": launcher}, f)
        runner = ["--runner", pin[0]] if pin else []

        inside_file = os.path.join(work, "inside")
        outside_file = os.path.join(outside, "outside")
        script = "echo in > '%s'; echo out > '%s'" % (inside_file, outside_file)
        wrapped = wrap(confine, config, runner + ["-m", "workspace-write", "-w", work,
                                                  "--", "sh", "-c", script])
        if wrapped is None:
            return TAP.skip_all("no sandbox backend is usable here")
        runner_name = wrapped["runner"]

        def workspace_write():
            assert wrapped["argv"][-3:] == ["sh", "-c", script], wrapped["argv"]
            if pin:
                assert wrapped["runner"] == pin[0], wrapped["runner"]
            done = spawn(wrapped)
            with open(inside_file) as f:
                assert f.read() == "in\n", "the write inside the workspace did not land"
            assert not os.path.exists(outside_file), "the write outside the workspace landed"
            assert denied(wrapped, done), \
                "exit %d, stderr %r: not a denial in this runner's dialect %r" % (
                    done.returncode, done.stderr, wrapped["denialSignatures"])
            TAP.ok("%s: a spawned workspace-write argv writes inside, is denied outside"
                   % runner_name)
        TAP.guard("%s: a spawned workspace-write argv" % runner_name, workspace_write)

        def read_only():
            ro_file = os.path.join(work, "read-only")
            w = wrap(confine, config, runner + ["-m", "read-only", "-w", work,
                                                "--", "sh", "-c", "echo x > read-only"])
            done = spawn(w)
            assert not os.path.exists(ro_file), "a read-only write landed"
            assert denied(w, done), done.stderr
            TAP.ok("%s: a spawned read-only argv's write is denied, in its dialect" % runner_name)
        TAP.guard("%s: a spawned read-only argv" % runner_name, read_only)

        if runner_name in ("bwrap", "landlock"):
            TAP.guard("%s: limits 2 and 3 for the spawned argv" % runner_name, layered_checks,
                      confine, config, runner_name, base, work, outside)
            deny = os.environ.get("CONFINE_TEST_SECCOMP_DENY")
            what = "%s: a host without Landlock and one refusing the supervisor's listener" \
                % runner_name
            if deny:
                TAP.guard(what, other_host_checks, confine, config, runner_name, work, outside,
                          deny)
            elif must_work:
                TAP.check(False, what, "CONFINE_TEST_SECCOMP_DENY is not set (CONFINE_MUST_WORK=1)")
            else:
                TAP.skip(what, "CONFINE_TEST_SECCOMP_DENY is not set")
        return TAP.done()
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
