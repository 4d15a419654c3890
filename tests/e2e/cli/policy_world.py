#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""World effects of the policy beyond mode and root (doc/SPEC.md 15), on one
Linux rung, through the confine command as an agent harness uses it: once
run by confine itself (`confine bash --json`, `confine run`) and once as a
harness spawning the `confine wrap` JSON as-is (its argv, its env, the
workspace root as cwd, a new session).

- writableRoots: an npm-like cache write lands; a sibling's does not;
- default protections: .git/hooks/post-commit cannot be made or changed
  under bwrap (listed unenforced under Landlock, and then reported in
  gitHazards), while `git add && git commit` works;
- denyRead: the file's content cannot be read;
- env: a secret-named variable is absent, an included one present;
- network off: a TCP connect to a loopback server this test runs fails,
  and with `on` it succeeds;
- denials with their object (SPEC 8, 9): git config on a protected
  .git/config (EBUSY under bwrap), a read below denyRead (bwrap's ENOENT,
  Landlock's EACCES), a write outside, a refused connect with the network
  off, each marked with its object and clause, in JSON and the rendering,
  identically on both rungs; and the ordinary errors that are not denials
  (ssh's "Permission denied (publickey)", a missing file, a file the
  command locked itself, a refused connect with the network on);
- Python multiprocessing (Pool + Lock) works under workspace-write;
- read-only: `cc -o /dev/null hello.c` works and leaves nothing behind;
- workspace-write: TMPDIR is the run's own temp area (cc uses it), the
  host's /tmp is not written and a daemon's socket there is not reached,
  a socket in $TMPDIR is;
- a repository made during the run is reported in gitHazards;
- gitHazards by comparison: 50 back-to-back pairs (a run that writes a hook,
  then one that does nothing) give no false report; two runs at once both
  report a hook written while they lived, a later run does not.

As root, the cases whose outcome depends on who runs them (listing under
deny-read, deny-read, writable roots, the refusals) run again as a user
made for them, from staged copies (tests/helpers/as_user.py).

Usage: policy_world.py CONFINE LAUNCHER RUNNER [--only T1,T2] [--no-nonroot]
Exit 77 (skip) when RUNNER does not work here, unless CONFINE_MUST_WORK=1.
"""
import glob
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "helpers"))
from outside_tmp import launcher_outside_tmp  # noqa: E402
from as_user import run_as_created_user  # noqa: E402
from tap import Tap  # noqa: E402

TAP = Tap()

SKIP = 77
SECRET = "s3cr3t-do-not-leak"


class World:
    def __init__(self, confine, launcher, runner):
        self.confine = confine
        self.runner = runner
        home = os.environ.get("HOME") or "/tmp"
        root = os.path.join(home, ".cache", "confine-tests")
        os.makedirs(root, exist_ok=True)
        self.base = os.path.realpath(tempfile.mkdtemp(prefix="policy-world.", dir=root))
        self.ws = os.path.join(self.base, "ws")
        self.cache = os.path.join(self.base, "npm-cache")
        self.other = os.path.join(self.base, "other")
        for d in (self.ws, self.cache, self.other):
            os.mkdir(d)
        self.config = os.path.join(self.base, "config.json")
        with open(self.config, "w") as f:
            json.dump({"landlockLauncher": launcher_outside_tmp(launcher)}, f)

    def common(self, mode, opts):
        return ["--config", self.config, "--runner", self.runner, "-m", mode, "-w", self.ws] + opts

    def bash(self, mode, opts, command, env=None):
        done = subprocess.run([self.confine, "bash", "--json"] + self.common(mode, opts)
                              + ["-c", command], capture_output=True, text=True,
                              env=env, cwd=self.base)
        if not done.stdout.strip():
            raise AssertionError("confine bash printed nothing (%d): %s"
                                 % (done.returncode, done.stderr))
        return json.loads(done.stdout)

    def wrap(self, mode, opts, argv, env=None):
        done = subprocess.run([self.confine, "wrap"] + self.common(mode, opts) + ["--"] + argv,
                              capture_output=True, text=True, env=env, cwd=self.base)
        if done.returncode != 0:
            raise AssertionError("confine wrap failed (%d): %s" % (done.returncode, done.stderr))
        return json.loads(done.stdout)

    def spawn_wrapped(self, wrapped):
        env = wrapped["env"]  # {"NAME": "VALUE"}, doc/SPEC.md 10
        return subprocess.run(wrapped["argv"], cwd=wrapped["policy"]["workspaceRoot"],
                              env=env, start_new_session=True, close_fds=True,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True)

    def both(self, mode, opts, command, env=None):
        """The command run by confine, then spawned from the wrap JSON:
        [(exit code, stdout, stderr, unenforced)] for each."""
        out = self.bash(mode, opts, command, env)
        assert out["error"] is None, out
        first = (out["exitCode"], out["stdout"], out["stderr"], out["sandbox"]["unenforced"])
        wrapped = self.wrap(mode, opts, ["bash", "-c", command], env)
        done = self.spawn_wrapped(wrapped)
        second = (done.returncode, done.stdout, done.stderr, wrapped["unenforced"])
        return [first, second]


def check(cond, what, detail=""):
    if not cond:
        raise AssertionError("%s %s" % (what, detail))


def test_writable_roots(w):
    # Each variant names its files apart.
    for i, (code, out, err, _) in enumerate(w.both(
            "workspace-write", ["--writable", w.cache],
            "mktemp -p '%s' _cacache-XXXXXX && mktemp -p '%s' x-XXXXXX; true" % (w.cache, w.other))):
        check(code == 0, "writableRoots: the command failed", err)
    check(len(glob.glob(os.path.join(w.cache, "_cacache-*"))) >= 2,
          "writableRoots: the cache writes did not land", os.listdir(w.cache))
    check(os.listdir(w.other) == [], "writableRoots: a sibling was written", os.listdir(w.other))
    # A relative --writable is the directory relative to where confine runs.
    out = w.bash("workspace-write", ["--writable", "npm-cache"],
                 "touch '%s/rel' && echo ok" % w.cache)
    check(out["stdout"] == "ok\n", "writableRoots: relative flag", out)
    # A workspace inside another writable root (`-w D/ws --writable D`):
    # both writable, through confine and through a spawned wrap argv (bound
    # in the other order, bwrap's outer bind hid the inner one and the
    # launcher refused the run: 125, nothing ran); outside D still refused.
    outer = os.path.join(w.base, "outer")
    inner = os.path.join(outer, "ws")
    os.makedirs(inner)
    opts = ["--config", w.config, "--runner", w.runner, "-m", "workspace-write", "-w", inner,
            "--writable", outer]
    for n in ("a", "b"):
        command = "echo %s > '%s/in-%s' && echo %s > '%s/out-%s' && echo ok; " \
                  "echo x > '%s/escaped-%s'" % (n, inner, n, n, outer, n, w.other, n)
        if n == "a":
            done = subprocess.run([w.confine, "bash"] + opts + ["-c", command],
                                  capture_output=True, text=True, cwd=w.base)
        else:
            wrap = subprocess.run([w.confine, "wrap"] + opts + ["--", "sh", "-c", command],
                                  capture_output=True, text=True, cwd=w.base)
            check(wrap.returncode == 0, "nested roots: wrap refused", wrap.stderr)
            done = w.spawn_wrapped(json.loads(wrap.stdout))
        # confine bash renders the escape's refusal after the output.
        check(done.stdout.startswith("ok\n"), "nested roots (%s): the writes did not land" % n,
              "%d %r %r" % (done.returncode, done.stdout, done.stderr[-600:]))
        check(os.path.isfile(os.path.join(inner, "in-" + n)) and
              os.path.isfile(os.path.join(outer, "out-" + n)),
              "nested roots (%s): files missing" % n, os.listdir(outer))
        check(not os.path.exists(os.path.join(w.other, "escaped-" + n)),
              "nested roots (%s): a write outside both roots landed" % n)


def git(ws, *args):
    subprocess.run(["git", "-C", ws, "-c", "user.email=t@e", "-c", "user.name=t"] + list(args),
                   check=True, capture_output=True)


def test_git_protections(w):
    git(w.ws, "init", "-q")
    git(w.ws, "commit", "-q", "--allow-empty", "-m", "base")
    hook = os.path.join(w.ws, ".git", "hooks", "post-commit")
    config = os.path.join(w.ws, ".git", "config")
    with open(config) as f:
        config_before = f.read()
    command = ("echo 'echo pwned' > .git/hooks/post-commit; chmod +x .git/hooks/post-commit; "
               "git config core.hooksPath /tmp/evil; "
               "f=$(mktemp -p . file-XXXXXX) && git add $f && "
               "git -c user.email=t@e -c user.name=t commit -q -m work && echo committed")
    results = w.both("workspace-write", [], command)
    for i, (code, out, err, unenforced) in enumerate(results):
        check("committed" in out, "git commit failed under the default protections", err)
        if w.runner == "bwrap":
            check(not os.path.exists(hook), "bwrap: the hook was created", err)
            with open(config) as f:
                check(f.read() == config_before, "bwrap: .git/config changed")
            # The wrap argv (i == 1) cannot stand a placeholder in for the
            # missing .git/commondir (nobody would remove it): listed.
            listed = "defaultProtections" in unenforced
            check(listed == (i == 1), "bwrap: unenforced", (i, unenforced))
        else:
            check("defaultProtections" in unenforced, "landlock: unenforced", unenforced)
    if w.runner != "bwrap":
        # Unenforced, so reported: the run that wrote them says so.
        os.unlink(hook)
        with open(config, "w") as f:
            f.write(config_before)
        out = w.bash("workspace-write", [], command)
        kinds = {(h["path"], h["kind"]) for h in out["sandbox"]["gitHazards"]}
        check((hook, "hook") in kinds, "landlock: the hook is not in gitHazards", kinds)
        check((config, "core.hooksPath") in kinds, "landlock: hooksPath not reported", kinds)
        os.unlink(hook)
        with open(config, "w") as f:
            f.write(config_before)


def test_new_repository_reported(w):
    out = w.bash("workspace-write", [],
                 "git init -q newrepo && printf '#!/bin/sh\\necho hi\\n' > "
                 "newrepo/.git/hooks/pre-commit && chmod +x newrepo/.git/hooks/pre-commit && "
                 "git -C newrepo config filter.x.clean 'sh -c evil' && echo made")
    check(out["stdout"] == "made\n", "git init in the workspace failed", out)
    kinds = {(h["path"], h["kind"]) for h in out["sandbox"]["gitHazards"]}
    repo = os.path.join(w.ws, "newrepo", ".git")
    check((os.path.join(repo, "hooks", "pre-commit"), "hook") in kinds, "new hook not reported",
          kinds)
    check((os.path.join(repo, "config"), "filter.x.clean") in kinds, "filter not reported", kinds)
    check(not any(k.endswith(".sample") for k, _ in kinds), "samples reported", kinds)
    # A quiet run reports nothing.
    out = w.bash("workspace-write", [], "true")
    check(out["sandbox"]["gitHazards"] == [], "a quiet run reported", out)
    shutil.rmtree(os.path.join(w.ws, "newrepo"))


def test_hazards_by_comparison(w):
    """gitHazards compares a snapshot before the run with a walk after it:
    a run that changes nothing right after one that wrote a hook reports
    nothing (50 back-to-back pairs; no clock decides), and the run that
    writes is always reported, even when it writes the same size."""
    git(w.ws, "init", "-q", "pairs")
    hook = os.path.join(w.ws, "pairs", ".git", "hooks", "pre-commit")
    quiet = 0
    for i in range(50):
        # The same length every time: only the content tells.
        out = w.bash("workspace-write", [], "printf '#!/bin/sh\\necho %02d\\n' > "
                     "pairs/.git/hooks/pre-commit; chmod +x pairs/.git/hooks/pre-commit" % i)
        # Reported exactly when it landed (bwrap protects the nested
        # repository's hooks and keeps it out; Landlock cannot, and reports it).
        landed = os.path.exists(hook) and open(hook).read() == "#!/bin/sh\necho %02d\n" % i
        if w.runner == "bwrap":
            check(out["exitCode"] != 0 and not landed, "bwrap: the hook landed (pair %d)" % i, out)
        else:
            check(out["exitCode"] == 0, "the writing run failed", out)
            check(landed, "landlock: the hook did not land (pair %d)" % i)
        want = [{"path": hook, "kind": "hook"}] if landed else []
        check(out["sandbox"]["gitHazards"] == want,
              "pair %d: the report does not match the disk" % i, out["sandbox"])
        out = w.bash("workspace-write", [], "true")
        check(out["sandbox"]["gitHazards"] == [], "pair %d: a quiet run reported" % i,
              out["sandbox"])
        quiet += 1
    check(quiet == 50, "not every pair ran")
    shutil.rmtree(os.path.join(w.ws, "pairs"))


def test_hazards_below_a_mount(w):
    """Red team, round 5: a mount point inside the workspace (a tmpfs at
    ws/mnt) was not entered by the gitHazards walk, so a repository the
    run made there, with a hook, was not reported (both rungs; bwrap binds
    the workspace with its submounts). Now reported. Root only: the tmpfs
    lives in a mount namespace of its own (the host's mounts untouched);
    the control is the hook on disk after the run, in that namespace."""
    if os.getuid() != 0 or not shutil.which("unshare"):
        return "skip: a mount needs root and unshare(1)"
    mnt = os.path.join(w.ws, "mnt")
    os.mkdir(mnt)
    hook = os.path.join(mnt, "new", ".git", "hooks", "pre-commit")
    plant = ("git init -q mnt/new && printf '#!/bin/sh\\necho planted\\n' > %s && chmod +x %s"
             % (shlex.quote(hook), shlex.quote(hook)))
    argv = [w.confine, "bash", "--json"] + w.common("workspace-write", []) + ["-c", plant]
    script = ("mount -t tmpfs cf-hazards %s && cd %s && %s; test -f %s && echo LANDED"
              % (shlex.quote(mnt), shlex.quote(w.ws), " ".join(shlex.quote(a) for a in argv),
                 shlex.quote(hook)))
    try:
        done = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                              capture_output=True, text=True, cwd=w.base)
        lines = done.stdout.strip().splitlines()
        check(lines and lines[-1] == "LANDED", "control: the hook landed on the tmpfs",
              (done.stdout[-600:], done.stderr[-600:]))
        out = json.loads(lines[0])
        check({"path": hook, "kind": "hook"} in out["sandbox"]["gitHazards"],
              "a hook in a repository below a mount point is reported", out["sandbox"])
    finally:
        os.rmdir(mnt)


def test_home_entry_through_link(w):
    """Red team, round 5 (second attack, F1): a home entry that is a link
    into a writable root (a dotfiles directory: `~/.bashrc ->
    WS/dotfiles/bashrc`) was held by its name only, so a run that may write
    the workspace rewrote what the next shell runs, unreported. Held where
    it resolves to now: read-only on bwrap, reported planted on Landlock.
    The control: unconfined, a write to the target is what `~/.bashrc`
    runs."""
    home = tempfile.mkdtemp(prefix="cf-home-link-", dir=w.base)
    dot = os.path.join(w.ws, "dotfiles")
    os.makedirs(dot)
    target = os.path.join(dot, "bashrc")
    with open(target, "w") as f:
        f.write("echo ORIG\n")
    os.symlink(target, os.path.join(home, ".bashrc"))
    env = dict(os.environ, HOME=home)
    try:
        out = w.bash("workspace-write", [], "echo 'echo PWNED' >> dotfiles/bashrc", env=env)
        landed = open(target).read() != "echo ORIG\n"
        if w.runner == "bwrap":
            check(not landed and out["exitCode"] != 0, "bwrap: the link's target was written",
                  out["sandbox"]["gitHazards"])
        else:
            check(landed and {"path": target, "kind": "planted"} in out["sandbox"]["gitHazards"],
                  "landlock: the link's target written unreported", out["sandbox"]["gitHazards"])
        with open(target, "w") as f:
            f.write("echo PWNED\n")
        later = subprocess.run(["bash", "-c", "source ~/.bashrc"], env=env, capture_output=True,
                               text=True)
        check(later.stdout == "PWNED\n", "control: ~/.bashrc runs the link's target",
              later.stdout)
    finally:
        shutil.rmtree(dot, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)


def test_hazards_of_two_runs_at_once(w):
    """Two runs in one workspace at once (doc/SPEC.md 15): each reports what
    changed while it lived, whoever changed it; a run that starts after the
    change reports nothing. Ordered by files, not by time."""
    os.makedirs(os.path.join(w.ws, "shared", ".git", "hooks"))
    hook = os.path.join(w.ws, "shared", ".git", "hooks", "post-merge")
    # A is under way (its snapshot taken) before B writes; A ends after.
    a = subprocess.Popen([w.confine, "bash", "--json"] + w.common("workspace-write", [])
                         + ["-c", "touch a-started; while [ ! -e b-done ]; do sleep 0.05; done"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=w.base)
    started = os.path.join(w.ws, "a-started")
    for _ in range(6000):  # a rendezvous, bounded only so a broken A cannot hang the suite
        if os.path.exists(started) or a.poll() is not None:
            break
        threading.Event().wait(0.01)
    check(os.path.exists(started), "run A never started")
    b = w.bash("workspace-write", [], "printf '#!/bin/sh\\n' > shared/.git/hooks/post-merge; "
               "chmod +x shared/.git/hooks/post-merge; touch b-done")
    a_out, a_err = a.communicate(timeout=300)
    a_json = json.loads(a_out)
    check(os.path.exists(hook) or w.runner != "landlock", "landlock: the hook did not land")
    want = [{"path": hook, "kind": "hook"}] if os.path.exists(hook) else []
    check(b["sandbox"]["gitHazards"] == want, "run B's report does not match the disk",
          b["sandbox"])
    check(a_json["sandbox"]["gitHazards"] == want, "run A's report does not match the disk",
          (a_json["sandbox"], a_err))
    later = w.bash("workspace-write", [], "true")
    check(later["sandbox"]["gitHazards"] == [], "a later run reported", later["sandbox"])
    for name in ("a-started", "b-done"):
        os.unlink(os.path.join(w.ws, name))
    shutil.rmtree(os.path.join(w.ws, "shared"))


def test_deny_read(w):
    secret = os.path.join(w.ws, ".env")
    with open(secret, "w") as f:
        f.write(SECRET + "\n")
    outside = os.path.join(w.other, "id_rsa")
    with open(outside, "w") as f:
        f.write(SECRET + "\n")
    for mode in ("read-only", "workspace-write"):
        results = w.both(mode, ["--deny-read", outside], "cat '%s'; echo done" % outside)
        for i, (code, out, err, unenforced) in enumerate(results):
            check(SECRET not in out, "denyRead: %s readable in %s" % (outside, mode), out)
            # bwrap's mask sits on the name, which a rename on the host
            # replaces; the launcher's Landlock layer follows the inode, and
            # both paths carry it now (in-process, and the layered wrap
            # argv: doc/SPEC.md 14, 15), so it holds outside the write grants.
            check("denyRead" not in unenforced, "denyRead unenforced", (i, unenforced))
    results = w.both("read-only", ["--deny-read", secret], "cat .env; echo done")
    for code, out, err, unenforced in results:
        check(SECRET not in out, "denyRead: .env readable in read-only", out)
    os.unlink(secret)
    os.unlink(outside)


def test_deny_read_hard_link(w):
    """R4-F8: a denied file with a second name (a hard link) in the
    workspace: the command reads the content through the link (the
    control: the attack works), and the report says denyRead partial,
    naming the links; without the link it is enforced (the check can
    fail)."""
    outside = os.path.join(w.other, "id_ed25519")
    link = os.path.join(w.ws, "innocent.txt")
    with open(outside, "w") as f:
        f.write(SECRET + "\n")

    def status(clauses):
        return [(c["status"], c["reason"] or "") for c in clauses
                if c["clause"] == "denyRead" and c["subject"] == outside]
    try:
        out = w.bash("read-only", ["--deny-read", outside], "cat '%s'; echo done" % outside)
        check(SECRET not in out["stdout"], "denyRead: the file itself was read", out["stdout"])
        check([s for s, _ in status(out["sandbox"]["clauses"])] == ["enforced"],
              "denyRead with one link is not enforced", status(out["sandbox"]["clauses"]))
        os.link(outside, link)
        for mode in ("read-only", "workspace-write"):
            out = w.bash(mode, ["--deny-read", outside], "cat innocent.txt")
            check(SECRET in out["stdout"],
                  "control (%s): the link did not read the denied content" % mode, out)
            got = status(out["sandbox"]["clauses"])
            check(len(got) == 1 and got[0][0] == "partial" and "hard links" in got[0][1],
                  "denyRead with a hard link is not reported partial (%s)" % mode, got)
            wrapped = w.wrap(mode, ["--deny-read", outside], ["cat", "innocent.txt"])
            got = status(wrapped["clauses"])
            check(len(got) == 1 and got[0][0] == "partial" and "hard links" in got[0][1],
                  "wrap: denyRead with a hard link is not reported partial (%s)" % mode, got)
    finally:
        for path in (link, outside):
            if os.path.exists(path):
                os.unlink(path)
    # Red team, round 5: a file inside a denied directory, linked into the
    # workspace: read through the link (the control), and partial, naming
    # the file; without the link, enforced.
    secret_dir = os.path.join(w.other, "secret-dir")
    inner = os.path.join(secret_dir, "deep", "key")
    os.makedirs(os.path.dirname(inner))
    with open(inner, "w") as f:
        f.write(SECRET + "\n")

    def dir_status(clauses):
        return [(c["status"], c["reason"] or "") for c in clauses
                if c["clause"] == "denyRead" and c["subject"] == secret_dir]
    try:
        out = w.bash("read-only", ["--deny-read", secret_dir], "cat '%s'; echo done" % inner)
        check(SECRET not in out["stdout"] and
              [st for st, _ in dir_status(out["sandbox"]["clauses"])] == ["enforced"],
              "a denied directory without links is enforced", dir_status(out["sandbox"]["clauses"]))
        os.link(inner, link)
        out = w.bash("read-only", ["--deny-read", secret_dir], "cat innocent.txt")
        check(SECRET in out["stdout"], "control: the link read the denied directory's file", out)
        got = dir_status(out["sandbox"]["clauses"])
        check(len(got) == 1 and got[0][0] == "partial" and inner in got[0][1] and
              "hard links" in got[0][1],
              "a denied directory holding a linked file is reported partial, naming it", got)
    finally:
        if os.path.exists(link):
            os.unlink(link)
        shutil.rmtree(secret_dir, ignore_errors=True)


ALIAS_ENV = "CF_TEST_DENY_ALIAS"


def deny_alias_make():
    """Root, before both halves: a directory holding a secret, bound a
    second time at another path (a bind mount in the host's namespace,
    readable by a created user; removed by deny_alias_remove). Its base in
    ALIAS_ENV, or None where it cannot be made."""
    if os.getuid() != 0 or not shutil.which("mount"):
        return None
    base = tempfile.mkdtemp(prefix="cf-deny-alias-", dir="/var/tmp")
    os.chmod(base, 0o755)
    for d in ("src/secret", "alias", "plain/secret"):
        os.makedirs(os.path.join(base, d), mode=0o755)
        os.chmod(os.path.join(base, d), 0o755)
    for d in ("src/secret", "plain/secret"):
        with open(os.path.join(base, d, "key"), "w") as f:
            f.write(SECRET + "\n")
        os.chmod(os.path.join(base, d, "key"), 0o644)
    os.chmod(os.path.join(base, "src"), 0o755)
    os.chmod(os.path.join(base, "plain"), 0o755)
    if subprocess.run(["mount", "--bind", os.path.join(base, "src"), os.path.join(base, "alias")],
                      capture_output=True).returncode != 0:
        shutil.rmtree(base, ignore_errors=True)
        return None
    os.environ[ALIAS_ENV] = base
    return base


def deny_alias_remove(base):
    if base:
        subprocess.run(["umount", os.path.join(base, "alias")], capture_output=True)
        if not os.path.ismount(os.path.join(base, "alias")):
            shutil.rmtree(base, ignore_errors=True)
        os.environ.pop(ALIAS_ENV, None)


def test_deny_read_bind_alias(w):
    """A denied directory bound a second time at another path (review,
    round 4 session 8): every rung denies by path, so the alias reads the
    secret (the control: the attack works, the denied path itself does
    not), and the report says denyRead partial naming the alias, through
    bash in both modes, with the alias as a writable root, and wrap. A
    denied directory with no alias is enforced (the check can fail), and
    so is one whose alias is denied too. The mount is made by root before
    both halves (deny_alias_make)."""
    base = os.environ.get(ALIAS_ENV)
    if not base:
        return "skip: the bind mount needs root (made before both halves)"
    secret = os.path.join(base, "src", "secret")
    alias = os.path.join(base, "alias", "secret")
    plain = os.path.join(base, "plain", "secret")

    def status(clauses, subject):
        return [(c["status"], c["reason"] or "") for c in clauses
                if c["clause"] == "denyRead" and c["subject"] == subject]
    for mode in ("read-only", "workspace-write"):
        out = w.bash(mode, ["--deny-read", secret],
                     "cat '%s/key'; echo; cat '%s/key'" % (secret, alias))
        # On Landlock the alias's grant (a sibling on the way to the denied
        # path) is a rule on the very directory the mount shows: the denied
        # path itself reads too (measured; SPEC 15). bwrap masks the name.
        check(out["stdout"].count(SECRET) == (1 if w.runner == "bwrap" else 2),
              "control (%s): the alias reads the secret (on bwrap the denied path does not)"
              % mode, out)
        got = status(out["sandbox"]["clauses"], secret)
        check(len(got) == 1 and got[0][0] == "partial" and alias in got[0][1],
              "denyRead reached through a bind alias is reported partial naming it (%s)" % mode,
              got)
    out = w.bash("workspace-write", ["--deny-read", secret, "--writable", os.path.join(base, "alias")],
                 "cat '%s/key'" % alias)
    got = status(out["sandbox"]["clauses"], secret)
    check(SECRET in out["stdout"] and len(got) == 1 and got[0][0] == "partial" and alias in got[0][1],
          "a writable root that binds the denied path's parent: partial naming it", (out, got))
    wrapped = w.wrap("read-only", ["--deny-read", secret], ["cat", os.path.join(alias, "key")])
    got = status(wrapped["clauses"], secret)
    check(len(got) == 1 and got[0][0] == "partial" and alias in got[0][1],
          "wrap: denyRead reached through a bind alias is partial", got)
    out = w.bash("read-only", ["--deny-read", plain], "cat '%s/key'; echo done" % plain)
    check(SECRET not in out["stdout"] and
          [st for st, _ in status(out["sandbox"]["clauses"], plain)] == ["enforced"],
          "a denied directory without an alias is enforced", out["sandbox"]["clauses"])
    out = w.bash("read-only", ["--deny-read", secret, "--deny-read", alias],
                 "cat '%s/key'; cat '%s/key'; echo done" % (secret, alias))
    check(SECRET not in out["stdout"] and
          [st for st, _ in status(out["sandbox"]["clauses"], secret)] == ["enforced"],
          "a denied directory whose alias is denied too is enforced", out)


def test_deny_read_keeps_listing(w):
    """A denied path's ancestors stay listable (issue 28.4, doc/SPEC.md
    15): `ls /`, `ls` of the home that holds the denied `.ssh`, `find .`
    and `git status` in a workspace whose `.env` files are denied, in both
    modes, run by confine and spawned from the wrap JSON. The control is the
    same listing unconfined; the denied files stay unreadable."""
    home = os.path.join(w.base, "home")
    ssh = os.path.join(home, ".ssh")
    os.makedirs(ssh)
    key = "ssh-key-" + SECRET
    with open(os.path.join(ssh, "id_rsa"), "w") as f:
        f.write(key + "\n")
    with open(os.path.join(home, "notes.txt"), "w") as f:
        f.write("notes\n")
    for name in (".env", os.path.join("sub", ".env")):
        os.makedirs(os.path.join(w.ws, os.path.dirname(name)), exist_ok=True)
        with open(os.path.join(w.ws, name), "w") as f:
            f.write(SECRET + "\n")
    with open(os.path.join(w.ws, "a.txt"), "w") as f:
        f.write("a\n")
    git(w.ws, "init", "-q")
    git(w.ws, "add", "a.txt")
    git(w.ws, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "a")
    with open(os.path.join(w.ws, "untracked.txt"), "w") as f:
        f.write("u\n")
    script = ("ls / >/dev/null && echo ROOT-LISTED; ls -a '%s' | grep -qx notes.txt && "
              "echo HOME-LISTED; find . -name untracked.txt | grep -q . && echo FOUND; "
              "git status --porcelain | grep -q '^?? untracked.txt' && echo STATUS; "
              "cat '%s' .env sub/.env 2>/dev/null; true") % (home, os.path.join(ssh, "id_rsa"))
    control = subprocess.run(["bash", "-c", script], cwd=w.ws, capture_output=True, text=True)
    for word in ("ROOT-LISTED", "HOME-LISTED", "FOUND", "STATUS", key, SECRET):
        check(word in control.stdout, "control: unconfined, %s missing" % word, control.stdout)
    opts = ["--deny-read", ssh, "--deny-read", os.path.join(w.ws, ".env"),
            "--deny-read", os.path.join(w.ws, "sub", ".env")]
    for mode in ("read-only", "workspace-write"):
        for i, (code, out, err, unenforced) in enumerate(w.both(mode, opts, script)):
            how = "%s, %s" % (mode, "confine" if i == 0 else "wrap argv")
            for word in ("ROOT-LISTED", "HOME-LISTED", "FOUND", "STATUS"):
                check(word in out, "denyRead took listing away: %s (%s)" % (word, how),
                      (out, err))
            # the .ssh outside the write grants is held on every rung; the
            # workspace's .env files where the rung holds them
            check(key not in out, "the denied .ssh was read (%s)" % how, out)
            check(SECRET not in out.replace(key, "") or "denyRead" in unenforced,
                  "a denied .env was read, the report says held (%s)" % how, (out, unenforced))
    shutil.rmtree(home)
    shutil.rmtree(os.path.join(w.ws, ".git"))
    shutil.rmtree(os.path.join(w.ws, "sub"))
    for name in (".env", "a.txt", "untracked.txt"):
        os.unlink(os.path.join(w.ws, name))


def test_deny_read_patterns(w):
    """`**/.env` (doc/SPEC.md 15): expanded at the start under the roots;
    at two depths unreadable where the rung holds it, and where it cannot
    (Landlock inside a write grant) each match is an unenforced clause and
    the model is told. Both ways a harness runs it: confine's and a
    spawned wrap."""
    files = [os.path.join(w.ws, ".env"), os.path.join(w.ws, "app", "deep", ".env")]
    os.makedirs(os.path.dirname(files[1]))
    for i, name in enumerate(files):
        with open(name, "w") as f:
            f.write("%s-%d\n" % (SECRET, i))
    out = w.bash("workspace-write", ["--deny-read", "**/.env"], "cat .env app/deep/.env; true")
    clauses = [c for c in out["sandbox"]["clauses"] if c["clause"] == "denyRead"]
    pattern = [c for c in clauses if c["subject"] == "**/.env"]
    check(len(pattern) == 1 and pattern[0]["status"] == "partial"
          and "2 matches" in pattern[0]["reason"], "the pattern's clause", clauses)
    for name in files:
        match = [c for c in clauses if c["subject"] == name]
        check(len(match) == 1, "a match is not its own clause", (name, clauses))
        if w.runner == "bwrap":
            # Masked, but held by its name inside a writable root: a save on
            # the host over it would detach the mask (doc/SPEC.md 15).
            check(match[0]["status"] == "partial" and "bwrap" in match[0]["layers"],
                  "bwrap: a match not masked", match)
        else:
            check(match[0]["status"] == "unenforced" and match[0]["needs"] == "bubblewrap",
                  "landlock: a match inside the workspace claimed", match)
    if w.runner == "bwrap":
        check(SECRET not in out["stdout"], "bwrap: a .env was readable", out)
        for code, stdout, err, unenforced in w.both(
                "workspace-write", ["--deny-read", "**/.env"], "cat .env app/deep/.env; true"):
            check(SECRET not in stdout, "bwrap: a .env was readable (both ways)", stdout)
    else:
        check("denyRead" in out["sandbox"]["unenforced"] and
              out["sandbox"]["enforcement"] == "partial", "landlock: claimed full", out["sandbox"])
    # Outside the write grants Landlock holds it too: read-only mode.
    for code, stdout, err, unenforced in w.both("read-only", ["--deny-read", "**/.env"],
                                                "cat .env app/deep/.env; true"):
        check(SECRET not in stdout, "read-only: a .env was readable", stdout)
    shutil.rmtree(os.path.join(w.ws, "app"))
    os.unlink(files[0])


def test_env(w):
    env = dict(os.environ, OPENAI_API_KEY=SECRET, MY_SERVICE_TOKEN="kept", PLAIN_VAR="plain")
    results = w.both("read-only", ["--env-include", "MY_SERVICE_TOKEN", "--env-set", "SET_ME=1"],
                     "env", env)
    for code, out, err, _ in results:
        check(SECRET not in out, "env: the secret leaked", out)
        check("MY_SERVICE_TOKEN=kept" in out.splitlines(), "env: include lost", out)
        check("PLAIN_VAR=plain" in out.splitlines(), "env: inherited lost", out)
        check("SET_ME=1" in out.splitlines(), "env: set lost", out)
    # R4-F5: session secrets, connection strings, *_PASS, *_PW and any value
    # holding a URL with a password are dropped; the login session's names stay
    r4 = {"BW_SESSION": "r4-bw", "AZURE_STORAGE_CONNECTION_STRING": "r4-az",
          "SMTP_PASS": "r4-smtp", "DB_PW": "r4-pw",
          "PG_URL": "postgres://app:r4-url@db/x",
          "DBUS_SESSION_BUS_ADDRESS": "unix:path=/r4/bus", "XDG_SESSION_TYPE": "r4-tty",
          "GIT_REMOTE": "ssh://git@r4.example/a"}
    env4 = dict(os.environ, **r4)
    for code, out, err, _ in w.both("read-only", [], "env", env4):
        for secret in ("r4-bw", "r4-az", "r4-smtp", "r4-pw", "r4-url"):
            check(secret not in out, "env (R4-F5): %s passed" % secret, out)
        for name in ("DBUS_SESSION_BUS_ADDRESS", "XDG_SESSION_TYPE", "GIT_REMOTE"):
            check("%s=%s" % (name, r4[name]) in out.splitlines(), "env (R4-F5): %s lost" % name,
                  out)
    # R5-env: a user-only URL credential, DBPASS, *AUTH*, *BEARER*, *BASIC*, a
    # password holding '/'; git's author, XAUTHORITY and SSH_AUTH_SOCK stay
    r5 = {"REPO_URL": "https://r5-tok@github.com/o/r", "DBPASS": "r5-dbpass",
          "HTTP_AUTHORIZATION": "r5-auth", "API_BEARER": "r5-bearer",
          "BASIC_CRED_B64": "r5-basic", "PG_URI": "postgres://a:r5-sl/ash@db/x",
          "GIT_AUTHOR_NAME": "r5 author", "XAUTHORITY": "/r5/.Xauthority",
          "SSH_AUTH_SOCK": "/r5/agent.sock"}
    env5 = dict(os.environ, **r5)
    for code, out, err, _ in w.both("read-only", [], "env", env5):
        for secret in ("r5-tok", "r5-dbpass", "r5-auth", "r5-bearer", "r5-basic", "r5-sl"):
            check(secret not in out, "env (R5-env): %s passed" % secret, out)
        for name in ("GIT_AUTHOR_NAME", "XAUTHORITY", "SSH_AUTH_SOCK"):
            check("%s=%s" % (name, r5[name]) in out.splitlines(), "env (R5-env): %s lost" % name,
                  out)
    # control: with the default excludes off, every one of them reaches the command
    for code, out, err, _ in w.both("read-only", ["--no-default-env-excludes"], "env", env5):
        for secret in ("r5-tok", "r5-dbpass", "r5-auth", "r5-bearer", "r5-basic", "r5-sl"):
            check(secret in out, "env (R5-env) control: %s absent without the excludes" % secret,
                  out)
    results = w.both("read-only", ["--env-inherit", "none", "--env-include", "PLAIN_VAR"],
                     "echo \"[$PLAIN_VAR][$HOME]\"", env)
    for code, out, err, _ in results:
        check(out == "[plain][]\n", "env: inherit none", out)


class Server:
    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            conn.close()


def test_network(w):
    server = Server()
    command = "echo hi > /dev/tcp/127.0.0.1/%d && echo connected" % server.port
    for code, out, err, _ in w.both("workspace-write", ["--network", "on"], command):
        check(out == "connected\n", "network on: no connection", err)
    # The accept thread counts on its own time: on a loaded machine it had
    # not yet counted both connections, and a late count read as a
    # connection made with the network off.
    for _ in range(100):
        if server.accepted >= 2:
            break
        time.sleep(0.05)
    before = server.accepted
    for code, out, err, _ in w.both("workspace-write", ["--network", "off"], command):
        check(code != 0 and "connected" not in out, "network off: connected", out)
    for code, out, err, _ in w.both("read-only", ["--network", "off"], command):
        check(code != 0 and "connected" not in out, "network off (read-only): connected", out)
    check(server.accepted == before, "network off: the host server was reached")
    server.sock.close()


def test_denials(w):
    ws = os.path.join(w.base, "denials-ws")
    secret = os.path.join(w.base, "denials-secret")
    for d in (ws, os.path.join(secret, "sub")):
        os.makedirs(d)
    with open(os.path.join(secret, "sub", "key"), "w") as f:
        f.write(SECRET)
    git(ws, "init", "-q")

    def bash(mode, opts, command, json_out=True):
        args = ["--config", w.config, "--runner", w.runner, "-m", mode, "-w", ws] + opts
        done = subprocess.run([w.confine, "bash"] + (["--json"] if json_out else []) + args
                              + ["-c", command], capture_output=True, text=True, cwd=w.base)
        return json.loads(done.stdout) if json_out else done.stdout

    def denials(out):
        return [(d["op"], d.get("path", d.get("address")), d["clause"])
                for d in out["sandbox"]["denials"]]

    # git config on the protected .git/config: EBUSY under bwrap (a rename
    # onto its read-only bind); Landlock does not protect it (unenforced)
    out = bash("workspace-write", [], "git config foo.bar 1")
    config = os.path.join(ws, ".git", "config")
    if w.runner == "bwrap":
        check("Device or resource busy" in out["stderr"], "git config: not EBUSY", out)
        check(out["sandbox"]["denied"], "git config: not marked", out)
        check(denials(out) == [("write", config, "defaultProtections")], "git config", out)
    else:
        check(out["exitCode"] == 0 and denials(out) == [], "git config under Landlock", out)

    # a read below denyRead: bwrap masks it (ENOENT), Landlock refuses (EACCES)
    key = os.path.join(secret, "sub", "key")
    out = bash("workspace-write", ["--deny-read", secret], "cat '%s'" % key)
    check(SECRET not in out["stdout"], "denyRead: read", out)
    check(out["sandbox"]["denied"], "denyRead: not marked", out)
    check(denials(out) == [("read", key, "denyRead")], "denyRead", out)

    # a write outside, in the rendering the model sees
    target = os.path.join(w.other, "o")
    text = bash("workspace-write", [], "echo x > '%s'" % target, json_out=False)
    lines = text.splitlines()
    check("[sandbox: file access denied under workspace-write mode]" in lines and
          "[denied: write %s (mode)]" % target in lines, "write outside: rendering", text)

    # a refused connect, network off: its own marker, the address named
    server = Server()
    command = "exec 3<>/dev/tcp/127.0.0.1/%d" % server.port
    for mode in ("read-only", "workspace-write"):
        out = bash(mode, ["--network", "off"], command)
        check(out["sandbox"]["networkDenied"] and not out["sandbox"]["denied"],
              "network off: markers", out)
        check(denials(out) == [("connect", "127.0.0.1:%d" % server.port, "network")],
              "network off: denial", out)
    text = bash("read-only", ["--network", "off"], command, json_out=False)
    check("[sandbox: network access denied under read-only mode]\n"
          "[denied: connect 127.0.0.1:%d (network)]" % server.port in text,
          "network off: rendering", text)
    check(server.accepted == 0, "network off: the host server was reached")
    server.sock.close()

    # ordinary errors are no denials
    # a port held bound but not listening: refused, and nobody else's
    closed = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    closed.bind(("127.0.0.1", 0))
    closed_port = closed.getsockname()[1]
    for label, opts, command in [
            ("ssh's publickey", [],
             "echo 'git@github.com: Permission denied (publickey).' >&2; exit 255"),
            ("a missing file", [], "cat missing-file"),
            ("a missing file below denyRead", ["--deny-read", secret],
             "cat '%s/sub/nokey'" % secret),
            ("a file the command locked itself", [],
             "python3 -c \"import os; open('pf', 'w').close(); os.chmod('pf', 0); open('pf')\""),
            ("a refused connect, network on", [],
             "exec 3<>/dev/tcp/127.0.0.1/%d" % closed_port)]:
        out = bash("workspace-write", opts, command)
        check(out["exitCode"] != 0, "%s: it did not fail" % label, out)
        check(not out["sandbox"]["denied"] and not out["sandbox"]["networkDenied"] and
              out["sandbox"]["denials"] == [], "%s: marked as a denial" % label, out)
    closed.close()
    shutil.rmtree(ws, ignore_errors=True)
    shutil.rmtree(secret, ignore_errors=True)


def test_multiprocessing(w):
    script = os.path.join(w.ws, "mp.py")
    with open(script, "w") as f:
        f.write("import multiprocessing as mp\n"
                "lock = None\n"
                "def init(l):\n    global lock\n    lock = l\n"
                "def sq(x):\n    with lock:\n        return x * x\n"
                "if __name__ == '__main__':\n"
                "    l = mp.Lock()\n"
                "    with mp.Pool(2, initializer=init, initargs=(l,)) as p:\n"
                "        print(sum(p.map(sq, range(10))))\n")
    python = shutil.which("python3")
    for code, out, err, _ in w.both("workspace-write", [], "'%s' mp.py" % python):
        check(out == "285\n", "multiprocessing failed", err)
    # Read-only too where the rung has a /dev/shm of its own (bwrap's, gone
    # with the run); the Landlock rung cannot, and says so in its clause.
    out = w.bash("read-only", [], "'%s' mp.py" % python)
    if w.runner == "bwrap":
        check(out["stdout"] == "285\n", "read-only multiprocessing failed on bwrap", out)
    else:
        temp = [c for c in out["sandbox"]["clauses"] if c["clause"] == "privateTemp"]
        check(out["exitCode"] != 0 and temp and "/dev/shm" in (temp[0]["reason"] or ""),
              "landlock read-only: /dev/shm not said", (out, temp))
    os.unlink(script)


def test_cc_read_only(w):
    cc = shutil.which("cc")
    if not cc:
        return "skip: no cc here"
    src = os.path.join(w.ws, "hello.c")
    with open(src, "w") as f:
        f.write("int main(void) { return 0; }\n")
    # A TMPDIR of this test's own: the run's temp dir is made there.
    tmp = os.path.join(w.base, "tmp")
    os.mkdir(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    listing = sorted(os.listdir(w.ws))
    out = w.bash("read-only", [], "cc -o /dev/null hello.c && echo built; echo $TMPDIR", env)
    check(out["stdout"].startswith("built\n"), "cc failed in read-only", out)
    if w.runner == "landlock":
        check(out["stdout"].split("\n")[1].startswith(tmp + "/confine-tmp."), "TMPDIR", out)
    else:
        check(out["stdout"].split("\n")[1] == "/tmp", "TMPDIR under bwrap", out)
    check(os.listdir(tmp) == [], "the temp dir was left behind", os.listdir(tmp))
    # Removed with its contents, a directory the command made unreadable too.
    out = w.bash("read-only", [], "mkdir -p $TMPDIR/d/e && touch $TMPDIR/f $TMPDIR/d/e/g && "
                 "chmod 000 $TMPDIR/d && ln -s / $TMPDIR/root && echo made", env)
    check(out["stdout"] == "made\n", "writing the temp area failed", out)
    check(os.listdir(tmp) == [], "the filled temp dir was left behind", os.listdir(tmp))
    check(sorted(os.listdir(w.ws)) == listing, "cc left files in the workspace")
    # Through confine run too.
    done = subprocess.run([w.confine, "run"] + w.common("read-only", [])
                          + ["--", "cc", "-o", "/dev/null", "hello.c"],
                          capture_output=True, text=True, cwd=w.base, env=env)
    check(done.returncode == 0, "confine run cc failed", done.stderr)
    check(os.listdir(tmp) == [], "run left the temp dir behind", os.listdir(tmp))
    # The wrap for another process's spawn says what it could not give.
    wrapped = w.wrap("read-only", [], ["true"])
    if w.runner == "landlock":
        temp = [c for c in wrapped["clauses"] if c["clause"] == "privateTemp"]
        check(len(temp) == 1 and temp[0]["subject"] is None
              and temp[0]["reason"].startswith("none:"), "wrap: privateTemp", temp)
    else:
        check("--tmpfs" in wrapped["argv"], "wrap: bwrap's tmpfs", wrapped["argv"])
    os.unlink(src)


def test_temp_area_workspace_write(w):
    """workspace-write's temp area is the run's own (issue 21): TMPDIR names
    it, cc uses it, the host's /tmp is not written, a host daemon's socket
    there is not reached while one the command makes in $TMPDIR is, and
    nothing is left behind."""
    tmp = os.path.join(w.base, "tmp-ww")
    os.mkdir(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    marker = "/tmp/confine-policy-world-%d" % os.getpid()
    sock_path = "/tmp/confine-policy-world-%d.sock" % os.getpid()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(sock_path)
    listener.listen(8)
    listener.settimeout(0.2)
    reach = ("import socket, sys\n"
             "s = socket.socket(socket.AF_UNIX)\n"
             "try:\n    s.connect(sys.argv[1]); print('reached')\n"
             "except OSError as e:\n    print('refused', e.errno)\n")
    own = ("import os, socket, tempfile\n"
           "p = os.path.join(os.environ['TMPDIR'], 'own.sock')\n"
           "s = socket.socket(socket.AF_UNIX); s.bind(p); s.listen(1)\n"
           "c = socket.socket(socket.AF_UNIX); c.connect(p); print('own')\n"
           # a rename across directories, as pip wheel does (EXDEV before
           # the launcher's nested domain granted REFER)
           "for base in (None, '.'):\n"
           "    d = tempfile.mkdtemp(dir=base); os.mkdir(d + '/sub')\n"
           "    open(d + '/sub/f', 'w').close(); os.rename(d + '/sub/f', d + '/f')\n"
           "    os.remove(d + '/f'); os.rmdir(d + '/sub'); os.rmdir(d)\n"
           "print('renamed')\n")
    with open(os.path.join(w.ws, "reach.py"), "w") as f:
        f.write(reach)
    with open(os.path.join(w.ws, "own.py"), "w") as f:
        f.write(own)
    with open(os.path.join(w.ws, "t.c"), "w") as f:
        f.write("int main(void) { return 0; }\n")
    python = shutil.which("python3")
    try:
        # the control: unconfined, the daemon's socket is reached
        done = subprocess.run([python, os.path.join(w.ws, "reach.py"), sock_path],
                              capture_output=True, text=True)
        check(done.stdout == "reached\n", "control: the host socket is not reachable", done)
        command = ("echo $TMPDIR; cc -c t.c -o t.o && echo built; "
                   "touch %s 2>/dev/null && echo host-tmp-written; "
                   "'%s' reach.py %s; '%s' own.py" % (marker, python, sock_path, python))
        out = w.bash("workspace-write", [], command, env)
        lines = out["stdout"].split("\n")
        if w.runner == "landlock":
            check(lines[0].startswith(tmp + "/confine-tmp."), "TMPDIR", out)
            check("host-tmp-written" not in lines, "the host's /tmp was writable", out)
        else:
            check(lines[0] == "/tmp", "TMPDIR under bwrap", out)
        check("built" in lines, "cc failed in workspace-write", out)
        check(not os.path.exists(marker), "a file landed in the host's /tmp", out)
        check("reached" not in lines and any(l.startswith("refused") for l in lines),
              "the host daemon's socket in /tmp was reached", out)
        check("own" in lines, "a socket in the run's own TMPDIR did not work", out)
        check("renamed" in lines, "a rename across directories failed", out)
        check(os.listdir(tmp) == [], "the temp dir was left behind", os.listdir(tmp))
        # a wrap for another process has no temp dir on Landlock
        wrapped = w.wrap("workspace-write", [], ["true"], env)
        if w.runner == "landlock":
            temp = [c for c in wrapped["clauses"] if c["clause"] == "privateTemp"]
            check(len(temp) == 1 and temp[0]["subject"] is None
                  and temp[0]["reason"].startswith("none:"), "wrap: privateTemp", temp)
            check("/tmp" not in wrapped["argv"], "wrap grants the host's /tmp", wrapped["argv"])
            # the run's own report: its temp dir, partial for the shared
            # /dev/shm beside it (where the host has one)
            temp = [c for c in out["sandbox"]["clauses"] if c["clause"] == "privateTemp"]
            check(len(temp) == 1 and temp[0]["subject"].startswith(tmp + "/confine-tmp.")
                  and (temp[0]["status"] == "partial") == os.path.isdir("/dev/shm"),
                  "run: privateTemp", temp)
    finally:
        listener.close()
        for p in (sock_path, marker):
            try:
                os.unlink(p)
            except OSError:
                pass
        for name in ("reach.py", "own.py", "t.c", "t.o"):
            try:
                os.unlink(os.path.join(w.ws, name))
            except OSError:
                pass


def test_refusals(w):
    # a writable root that resolves into another repository's git directory
    # (issue 28.7): refused; the control, with defaultProtections off, shows
    # the grant would let the command plant a hook there
    repo = os.path.join(w.other, "repo")
    os.makedirs(repo)
    git(repo, "init", "-q")
    link = os.path.join(w.other, "hooks-link")
    os.symlink(os.path.join(repo, ".git", "hooks"), link)
    hook = os.path.join(repo, ".git", "hooks", "pre-commit")
    plant = "echo planted > '%s'" % hook
    control = w.bash("workspace-write", ["--writable", link, "--no-default-protections"], plant)
    check(os.path.exists(hook), "control: the hooks grant did not let the command write", control)
    os.unlink(hook)
    done = subprocess.run([w.confine, "bash"] + w.common("workspace-write", ["--writable", link])
                          + ["-c", plant], capture_output=True, text=True)
    check(done.returncode == 125 and "lies in the git directory" in done.stderr
          and not os.path.exists(hook), "a writable root in a git directory", done.stderr)
    shutil.rmtree(repo)
    os.unlink(link)
    for opts, word in ((["--deny-read", w.base], "denyRead"),
                       (["--writable", os.path.join(w.base, "a-file")], "--writable"),
                       (["--env-include", "A=B"], "--env-include")):
        with open(os.path.join(w.base, "a-file"), "w") as f:
            f.write("x")
        done = subprocess.run([w.confine, "wrap"] + w.common("workspace-write", opts)
                              + ["--", "true"], capture_output=True, text=True)
        check(done.returncode == 125 and word in done.stderr, "not refused: %r" % opts,
              done.stderr)
    if w.runner == "landlock":
        done = subprocess.run([w.confine, "run"] + w.common("workspace-write",
                              ["--protect", "x", "--require-full"]) + ["--", "true"],
                              capture_output=True, text=True)
        check(done.returncode == 125 and "requireFull: Landlock does not enforce "
              "protectedPaths" in done.stderr, "requireFull", done.stderr)


def test_config_the_run_may_write(w):
    # R4-F11: a configuration inside the workspace (or hard-linked there)
    # is refused before anything runs; the control shows a confined run
    # rewrites it (the next run's policy), and read-only may use it
    inside = os.path.join(w.ws, "confine.json")
    marker = os.path.join(w.ws, "r4f11-ran")
    shutil.copy(w.config, inside)
    control = w.bash("workspace-write", [], "echo '{\"mode\": \"danger-full-access\"}' > "
                     "confine.json")
    check(control["exitCode"] == 0 and "danger-full-access" in open(inside).read(),
          "control: the run did not rewrite the configuration in the workspace", control)
    shutil.copy(w.config, inside)
    for door in ("run", "wrap"):
        done = subprocess.run([w.confine, door, "--config", inside, "--runner", w.runner, "-m",
                               "workspace-write", "-w", w.ws, "--", "touch", marker],
                              capture_output=True, text=True)
        check(done.returncode == 125 and "INVALID_CONFIG" in done.stdout + done.stderr
              if door == "wrap" else done.returncode == 125, "%s took %s" % (door, inside),
              done.stdout + done.stderr)
        check("lies inside the run's writable root" in done.stderr and inside in done.stderr
              and not os.path.exists(marker), "%s: the refusal names the file" % door,
              done.stderr)
    done = subprocess.run([w.confine, "run", "--config", inside, "--runner", w.runner, "-m",
                           "read-only", "-w", w.ws, "--", "true"], capture_output=True, text=True)
    check(done.returncode == 0, "read-only refused a configuration it cannot write", done.stderr)
    os.unlink(inside)
    os.link(w.config, inside)
    try:
        done = subprocess.run([w.confine, "run", "--config", w.config, "--runner", w.runner,
                               "-m", "workspace-write", "-w", w.ws, "--", "touch", marker],
                              capture_output=True, text=True)
        check(done.returncode == 125 and "hard links" in done.stderr and
              not os.path.exists(marker), "a configuration linked into the workspace",
              done.stderr)
    finally:
        os.unlink(inside)
    # Red team, round 5: the workspace by another name, a bind mount of it
    # (root only, in a mount namespace of its own so the host's mounts are
    # untouched): the configuration there is the same file, and refused.
    if os.getuid() != 0 or not shutil.which("unshare"):
        print("# bind-mount alias step: needs root and unshare(1); not run here")
    else:
        alias = tempfile.mkdtemp(prefix="cf-alias-")
        shutil.copy(w.config, inside)
        try:
            script = ("mount --bind %s %s && exec %s run --config %s --runner %s -m "
                      "workspace-write -w %s -- touch %s" %
                      (shlex.quote(w.ws), shlex.quote(alias), shlex.quote(w.confine),
                       shlex.quote(os.path.join(alias, "confine.json")), shlex.quote(w.runner),
                       shlex.quote(w.ws), shlex.quote(marker)))
            done = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                                   script], capture_output=True, text=True)
            check(done.returncode == 125 and "lies inside the run's writable root" in done.stderr
                  and not os.path.exists(marker),
                  "a configuration in a bind mount of the workspace is refused", done.stderr)
            # control: through the alias the run's writes reach the file
            script = ("mount --bind %s %s && echo x >> %s/confine.json" %
                      (shlex.quote(w.ws), shlex.quote(alias), shlex.quote(alias)))
            subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                           check=True)
            check(open(inside).read().endswith("x\n"),
                  "control: the alias is the workspace's own file")
        finally:
            os.unlink(inside)
            os.rmdir(alias)


def test_launcher_through_alias(w):
    """Red team, round 5 (R5-bind-alias, F1, F2, F3): a landlockLauncher a
    configuration names where the run can rewrite it under another name:
    through a bind mount of the workspace (/mnt/alias/landlock-run), of a
    directory below it, through a bind of the launcher's own directory
    inside the workspace, or through a hard link in the workspace. A run
    that wrote the workspace replaced it and the next probe ran it as root.
    Each refused (the mounts need root: made in a mount namespace of its
    own, so the host's mounts are untouched; the hard link is tried by the
    created user too)."""
    with open(w.config) as f:
        launcher = json.load(f)["landlockLauncher"]
    mounts = os.getuid() == 0 and shutil.which("unshare")
    sub = os.path.join(w.ws, "sub")
    inner = os.path.join(w.ws, "m")
    outside = tempfile.mkdtemp(prefix="cf-launcher-outside-", dir=w.base)
    alias = tempfile.mkdtemp(prefix="cf-launcher-alias-", dir=w.base)
    os.makedirs(sub)
    os.makedirs(inner)
    config = os.path.join(w.base, "alias-launcher.json")
    marker = os.path.join(w.ws, "r5-launcher-ran")
    own = os.path.join(outside, "landlock-run")
    shutil.copy(launcher, own)
    os.chmod(own, 0o755)
    # (what, the launcher the config names, the file the run could rewrite,
    #  the mount made first or None, the refusal's words)
    kinds = [("a hard link in the workspace", own, os.path.join(w.ws, "ll"), None,
              "hard links")]
    if mounts:
        kinds += [
            ("a bind mount of the workspace", os.path.join(alias, "landlock-run"),
             os.path.join(w.ws, "landlock-run"), (w.ws, alias), "lies inside the workspace"),
            ("a bind mount of a directory below the workspace",
             os.path.join(alias, "landlock-run"), os.path.join(sub, "landlock-run"),
             (sub, alias), "lies inside the workspace"),
            ("a bind of its own directory inside the workspace", own, None, (outside, inner),
             "lies inside the workspace")]
    try:
        for what, named, planted, mount, words in kinds:
            if planted and mount:
                shutil.copy(launcher, planted)
                os.chmod(planted, 0o755)
            elif planted:
                os.link(own, planted)
            with open(config, "w") as f:
                json.dump({"landlockLauncher": named}, f)
            # On the bwrap rung `run` execs the in-memory launcher inside
            # bwrap: nothing on disk runs, so only the on-disk argv (wrap)
            # is judged.
            for door in ("run", "wrap") if w.runner == "landlock" else ("wrap",):
                argv = [w.confine, door, "--config", config, "--runner", w.runner, "-m",
                        "workspace-write", "-w", w.ws, "--", "touch", marker]
                if mount:
                    script = "mount --bind %s %s && exec %s" % (
                        shlex.quote(mount[0]), shlex.quote(mount[1]),
                        " ".join(shlex.quote(a) for a in argv))
                    argv = ["unshare", "-m", "--propagation", "private", "sh", "-c", script]
                done = subprocess.run(argv, capture_output=True, text=True)
                check(done.returncode == 125 and words in done.stderr
                      and not os.path.exists(marker),
                      "%s: a launcher through %s is refused" % (door, what),
                      (done.returncode, done.stdout[-300:], done.stderr[-600:]))
            if planted and not mount:
                os.unlink(planted)
        # controls: through each alias a write lands on the file the config
        # names, and the launcher outside with one link runs
        if mounts:
            for src, dst, via, target in ((w.ws, alias, "landlock-run", "landlock-run"),
                                          (sub, alias, "landlock-run", "sub/landlock-run")):
                script = ("mount --bind %s %s && printf '#!/bin/sh\\necho planted\\n' > %s/%s"
                          % (shlex.quote(src), shlex.quote(dst), shlex.quote(dst), via))
                subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                               check=True)
                check(open(os.path.join(w.ws, target)).read() == "#!/bin/sh\necho planted\n",
                      "control: the alias's launcher is the workspace's file %s" % target)
        os.link(own, os.path.join(w.ws, "ll2"))
        with open(os.path.join(w.ws, "ll2"), "r+b") as f:
            data = f.read(4)
        check(data == open(own, "rb").read(4), "control: the hard link is the launcher")
        os.unlink(os.path.join(w.ws, "ll2"))
        with open(config, "w") as f:
            json.dump({"landlockLauncher": own}, f)
        done = subprocess.run([w.confine, "run", "--config", config, "--runner", w.runner, "-m",
                               "workspace-write", "-w", w.ws, "--", "touch", marker],
                              capture_output=True, text=True)
        check(done.returncode == 0 and os.path.exists(marker),
              "control: the launcher outside the workspace, one link, runs", done.stderr[-600:])
    finally:
        for p in (marker, config):
            if os.path.exists(p):
                os.unlink(p)
        for d in (sub, inner, outside, alias):
            shutil.rmtree(d, ignore_errors=True)
        for n in ("landlock-run", "ll", "ll2"):
            if os.path.lexists(os.path.join(w.ws, n)):
                os.unlink(os.path.join(w.ws, n))


USER_HALF = ("test_writable_roots", "test_launcher_through_alias", "test_home_entry_through_link", "test_deny_read", "test_deny_read_hard_link",
             "test_deny_read_bind_alias",
             "test_deny_read_keeps_listing",
             "test_refusals", "test_config_the_run_may_write")


def main():
    args = [a for a in sys.argv[1:] if a != "--no-nonroot"]
    only = None
    if "--only" in args:
        i = args.index("--only")
        only = set(args[i + 1].split(","))
        del args[i:i + 2]
    alias_base = deny_alias_make() if "--no-nonroot" not in sys.argv else None
    try:
        why = cases(args[0], args[1], args[2], only)
        if why:
            return TAP.skip_all(why)
        if os.getuid() == 0 and "--no-nonroot" not in sys.argv:
            user = run_as_created_user("cfpol", __file__, args + ["--only", ",".join(USER_HALF)],
                                       args[:2], keep_env=("CONFINE_MUST_WORK", ALIAS_ENV),
                                       timeout=600, relay=TAP.relay("user"))
            if user == SKIP:
                TAP.skip("the created user's half", "no useradd/runuser here")
            else:
                TAP.check(user == 0, "the created user's half ended well", "status %d" % user)
        return TAP.done()
    finally:
        deny_alias_remove(alias_base)


def cases(confine, launcher, runner, only):
    """One TAP line per test function (its first failed check ends it);
    returns why nothing could run, or None."""
    w = World(confine, launcher, runner)
    try:
        probe = subprocess.run([confine, "bash", "--json"] + w.common("read-only", [])
                               + ["-c", "true"], capture_output=True, text=True)
        if probe.returncode != 0:
            return "runner %s is not usable here: %s" % (runner, probe.stderr)
        tests = [test_writable_roots, test_git_protections, test_new_repository_reported,
                 test_hazards_by_comparison, test_hazards_below_a_mount,
                 test_home_entry_through_link,
                 test_hazards_of_two_runs_at_once,
                 test_deny_read, test_deny_read_hard_link, test_deny_read_bind_alias,
                 test_deny_read_keeps_listing,
                 test_deny_read_patterns, test_env, test_network,
                 test_denials,
                 test_multiprocessing,
                 test_cc_read_only, test_temp_area_workspace_write, test_refusals,
                 test_config_the_run_may_write, test_launcher_through_alias]
        for t in tests:
            if only is not None and t.__name__ not in only:
                continue
            name = "%s %s: %s" % (runner, "root" if os.getuid() == 0 else "user", t.__name__)
            try:
                got = t(w)
            except Exception:  # noqa: BLE001 - reported, and the next function runs
                TAP.check(False, name, traceback.format_exc()[-1500:])
                continue
            if isinstance(got, str) and got.startswith("skip: "):
                TAP.skip(name, got[len("skip: "):])
            else:
                TAP.check(True, name)
        return None
    finally:
        shutil.rmtree(w.base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
