#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A denied read stays denied, and a protected path read-only, or the run
says it did not (issue 21.4, doc/SPEC.md 15), on one Linux rung, as root and
as a user this test creates.

While the confined command waits (a rendezvous over its stdin and stdout,
no sleep), the host saves the denied file the way editors and dotenv tools
do: `echo new > F.tmp && mv F.tmp F`. The command then reads F again. The
report must match what held: when the command read anything but the
denial, the run's `unenforced` lists denyRead and its enforcement is
`partial`; when the run says `full`, the command read nothing, before the
save or after it.

- inside the workspace (`--deny-read ws/.env`, workspace-write): bwrap's
  mask sits on the name's dentry and the save detaches it; Landlock cannot
  carve a read denial out of a write grant. Both report partial.
- outside the writable roots (`~/.npmrc`), both modes: the launcher's
  Landlock layer (both rungs, in-process) keeps the new file unreadable:
  its rules follow inodes, and the file the save put there has none. full.
- the same through a `confine wrap` argv spawned as a harness would: on
  bwrap that is plain bwrap, whose mask the save detaches: the wrap JSON
  says partial, and the command reads the new content.
- an unconfined control shows the save changes what the name reads.
- protectedPaths (workspace-write): the same save over a protected file
  detaches bwrap's read-only mount too, and the command can then write
  the name. The library's run notices (the identity at the name changed)
  and its outcome reports protectedPaths, partial; a wrap argv says
  partial up front. On Landlock protectedPaths is partial anyway.

Usage: host_save.py CONFINE LAUNCHER RUNNER [--no-nonroot]
TAP (tests/helpers/tap.py): one line per case, the user half's folded in.
"""
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "helpers"))
from outside_tmp import launcher_outside_tmp  # noqa: E402
from tap import Tap  # noqa: E402

TAP = Tap()
SECRET = "s3cr3t-before"
SAVED = "s3cr3t-saved-during-the-run"
# Reads F, says it is ready, waits for the host's save, reads F again.
SCRIPT = ('printf "before:%s\\n" "$(cat "$1" 2>/dev/null || echo DENIED)"; echo ready; read go; '
          'printf "after:%s\\n" "$(cat "$1" 2>/dev/null || echo DENIED)"')
# Writes F, says it is ready, waits for the host's save, writes F again.
WRITE_SCRIPT = ('(echo evil-before > "$1") 2>/dev/null && echo before:WROTE || echo before:REFUSED; '
                'echo ready; read go; '
                '(echo evil-after > "$1") 2>/dev/null && echo after:WROTE || echo after:REFUSED')


def check(cond, what, detail=""):
    if not cond:
        raise AssertionError("%s %s" % (what, detail))


def save_like_an_editor(path):
    with open(path + ".tmp", "w") as f:
        f.write(SAVED + "\n")
    os.rename(path + ".tmp", path)


def rendezvous(argv, secret_file, env=None, cwd=None):
    """Runs argv (which runs SCRIPT on secret_file), saves the file while it
    waits; returns (what it read before, after, stderr)."""
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env, cwd=cwd,
                         start_new_session=True)
    try:
        before = p.stdout.readline()
        ready = p.stdout.readline()
        check(ready == "ready\n", "the command did not reach the rendezvous:", (before, ready))
        save_like_an_editor(secret_file)
        p.stdin.write("go\n")
        p.stdin.flush()
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    after = out.splitlines()[0] if out else ""
    return before.strip()[len("before:"):], after.strip()[len("after:"):], err


class World:
    def __init__(self, confine, launcher, runner):
        self.confine = confine
        self.runner = runner
        home = os.environ.get("HOME") or "/tmp"
        root = os.path.join(home, ".cache", "confine-tests")
        os.makedirs(root, exist_ok=True)
        self.base = os.path.realpath(tempfile.mkdtemp(prefix="deny-swap.", dir=root))
        self.ws = os.path.join(self.base, "ws")
        self.home = os.path.join(self.base, "home")
        os.mkdir(self.ws)
        os.mkdir(self.home)
        self.config = os.path.join(self.base, "config.json")
        with open(self.config, "w") as f:
            json.dump({"landlockLauncher": launcher_outside_tmp(launcher)}, f)

    def common(self, mode, flag, path):
        return ["--config", self.config, "--runner", self.runner, "-m", mode, "-w", self.ws,
                flag, path]

    def in_process(self, mode, secret, flag="--deny-read", script=None):
        argv = [self.confine, "run", "--json"] + self.common(mode, flag, secret) + [
            "--", "bash", "-c", script or SCRIPT, "script", secret]
        before, after, err = rendezvous(argv, secret, cwd=self.base)
        outcome = json.loads(err.strip().splitlines()[-1])
        check("sandbox" in outcome, "no outcome:", err)
        return before, after, outcome["sandbox"]["enforcement"], outcome["sandbox"]["unenforced"]

    def wrapped(self, mode, secret, flag="--deny-read", script=None):
        done = subprocess.run([self.confine, "wrap"] + self.common(mode, flag, secret)
                              + ["--", "bash", "-c", script or SCRIPT, "script", secret],
                              capture_output=True, text=True, cwd=self.base)
        check(done.returncode == 0, "wrap failed:", done.stderr)
        w = json.loads(done.stdout)
        env = dict(w["env"])  # the wrap JSON's env is an object (doc/SPEC.md 10)
        before, after, _ = rendezvous(w["argv"], secret, env=env,
                                      cwd=w["policy"]["workspaceRoot"])
        return before, after, w["enforcement"], w["unenforced"]


def judge(label, before, after, enforcement, unenforced, expect_held):
    """The report must never say more than what held."""
    leaked = [x for x in (before, after) if x not in ("DENIED", "")]
    reported = "denyRead" in unenforced and enforcement == "partial"
    check(not leaked or reported, "%s: read %r yet reported %s %s" % (label, leaked, enforcement,
                                                                      unenforced))
    check(reported != expect_held,
          "%s: expected the denial to %s; reported %s %s, read before %r after %r"
          % (label, "hold" if expect_held else "be reported", enforcement, unenforced, before,
             after))
    TAP.ok("%s: before %s, after %s; %s %s" % (label, before, after, enforcement, unenforced))
    return leaked


def run_table(confine, launcher, runner):
    """Runs the cases (TAP); returns None, or why the runner cannot run here."""
    w = World(confine, launcher, runner)
    user = pwd.getpwuid(os.getuid()).pw_name
    try:
        probe = subprocess.run([confine, "run", "--config", w.config, "--runner", runner, "-m",
                                "read-only", "-w", w.base, "--", "true"], capture_output=True,
                               text=True)
        if probe.returncode != 0:
            return "runner %s is not usable here: %s" % (runner, probe.stderr)
        inside = os.path.join(w.ws, ".env")
        outside = os.path.join(w.home, ".npmrc")

        def control():
            # unconfined, the save changes what the name reads
            with open(inside, "w") as f:
                f.write(SECRET + "\n")
            before, after, _ = rendezvous(["bash", "-c", SCRIPT, "script", inside], inside)
            check((before, after) == (SECRET, SAVED), "control:", (before, after))
            TAP.ok("%s %s: control: unconfined, the save changes what the name reads"
                   % (runner, user))
        TAP.guard("%s %s: control" % (runner, user), control)

        def inside_ws():
            # reported partial on both rungs; on bwrap the save detaches the
            # mask and the command reads the new content
            with open(inside, "w") as f:
                f.write(SECRET + "\n")
            leaked = judge("%s %s: workspace-write, denyRead inside the workspace" % (runner, user),
                           *w.in_process("workspace-write", inside), expect_held=False)
            if runner == "bwrap":
                check(leaked == [SAVED], "bwrap: the detached mask was not what the test saw:",
                      leaked)
        TAP.guard("%s %s: workspace-write, denyRead inside the workspace" % (runner, user),
                  inside_ws)

        # Outside the writable roots: the Landlock layer holds it (in-process).
        for mode in ("workspace-write", "read-only"):
            def outside_roots(mode=mode):
                with open(outside, "w") as f:
                    f.write(SECRET + "\n")
                judge("%s %s: %s, denyRead outside the writable roots" % (runner, user, mode),
                      *w.in_process(mode, outside), expect_held=True)
            TAP.guard("%s %s: %s, denyRead outside the writable roots" % (runner, user, mode),
                      outside_roots)

        # An argv for others: layered too (doc/SPEC.md 14), so the launcher's
        # Landlock layer holds it on both rungs.
        def wrapped():
            with open(outside, "w") as f:
                f.write(SECRET + "\n")
            judge("%s %s: wrap argv, denyRead outside the writable roots" % (runner, user),
                  *w.wrapped("workspace-write", outside), expect_held=True)
        TAP.guard("%s %s: wrap argv, denyRead outside the writable roots" % (runner, user),
                  wrapped)

        # protectedPaths: the command tries to write before and after the
        # save; what it wrote that is still there is what the report must own.
        prod = os.path.join(w.ws, "prod.yaml")
        for how in ("in-process", "wrap"):
            def protected(how=how):
                with open(prod, "w") as f:
                    f.write("prod\n")
                run = w.in_process if how == "in-process" else w.wrapped
                before, after, enforcement, unenforced = run("workspace-write", prod, "--protect",
                                                             WRITE_SCRIPT)
                with open(prod) as f:
                    final = f.read().strip()
                wrote = final.startswith("evil")
                reported = "protectedPaths" in unenforced and enforcement == "partial"
                check(not wrote or reported, "%s %s %s: wrote %r yet reported %s %s"
                      % (runner, user, how, final, enforcement, unenforced))
                if runner == "bwrap":
                    # the write before the save is refused; after it, it lands
                    check(before == "REFUSED" and after == "WROTE" and final == "evil-after",
                          "bwrap %s: expected the save to open the name:" % how,
                          (before, after, final))
                TAP.ok("%s %s: %s, protectedPaths saved over on the host: before %s, after %s, "
                       "final %r; %s %s" % (runner, user, how, before, after, final, enforcement,
                                            unenforced))
            TAP.guard("%s %s: %s, protectedPaths saved over on the host" % (runner, user, how),
                      protected)
        return None
    finally:
        shutil.rmtree(w.base, ignore_errors=True)


def main():
    args = [a for a in sys.argv[1:] if a != "--no-nonroot"]
    confine, launcher, runner = args[0], args[1], args[2]
    why = run_table(confine, launcher, runner)
    if why:
        return TAP.skip_all(why)
    if os.getuid() == 0 and "--no-nonroot" not in sys.argv:
        # the same table as a user made for it, from staged copies
        TAP.user_half("cfdeny", __file__, args, args[:2])
    return TAP.done()


if __name__ == "__main__":
    sys.exit(main())
