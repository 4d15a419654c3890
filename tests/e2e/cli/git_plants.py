#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Nothing a confined command writes makes git run code outside later
(issue 21.3, doc/SPEC.md 15), on one Linux rung, as root and as a user this
test creates.

Each case plants something in a workspace-write run (`confine bash --json`),
then the real unconfined git command a person would run there is the
oracle: the planted code touches a marker file outside the workspace, so
the marker says whether the plant ran. Each case first runs the same plant
unconfined, to show the attack and the oracle work (the control).

- bwrap: the plant must not land (no marker), the run reports `full`, and
  no placeholder is left on the host (no path the run stood in for, no
  entry marked user.confine.placeholder).
- Landlock, which cannot keep a carve-out of a writable root read-only:
  the plant lands (the marker shows it would run: the honest "reported"
  case), and the run reported it: in gitHazards for what git would run, in
  `unenforced` (protectedPaths, `partial`) for a protected path.

The protectedPaths cases (a path missing at the start, an ancestor
renamed, a symlink) check the file on the host instead of a marker.

Usage: git_plants.py CONFINE LAUNCHER RUNNER [--no-nonroot]
As root, the table runs again as a throwaway user (useradd, runuser,
userdel -r) unless --no-nonroot, from staged copies. TAP
(tests/helpers/tap.py): one line per case, the user half's folded in; a
skip of the whole when RUNNER does not work here, unless CONFINE_MUST_WORK=1.
"""
import json
import os
import pty
import pwd
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "helpers"))
from outside_tmp import launcher_outside_tmp  # noqa: E402
from tap import Tap  # noqa: E402

TAP = Tap()
ID = ["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "protocol.file.allow=always",
      "-c", "init.defaultBranch=main"]


def git(cwd, *args, check=True, **kw):
    return subprocess.run(["git"] + ID + list(args), cwd=cwd, check=check,
                          capture_output=True, text=True, **kw)


def repo(path, tracked=False):
    os.makedirs(path, exist_ok=True)
    git(path, "init", "-q")
    if tracked:
        with open(os.path.join(path, "t.txt"), "w") as f:
            f.write("one\n")
        git(path, "add", "t.txt")
    git(path, "commit", "-q", "--allow-empty", "-m", "base")


def hook(path, mark):
    """Shell that writes an executable hook at `path` touching `mark`."""
    return ("mkdir -p %s; printf '#!/bin/sh\\ntouch %s\\n' > %s; chmod +x %s; "
            % (os.path.dirname(path), mark, path, path))


# ---- oracles: the unconfined git command a person runs next ----

def commit_in(sub="."):
    def oracle(ws):
        git(os.path.join(ws, sub), "commit", "-q", "--allow-empty", "-m", "oracle", check=False)
    return oracle


def diff_oracle(ws):
    with open(os.path.join(ws, "t.txt"), "a") as f:
        f.write("two\n")
    git(ws, "diff", check=False)


def log_on_a_terminal(ws):
    """git runs core.pager only when stdout is a terminal."""
    master, slave = pty.openpty()
    try:
        subprocess.run(["git"] + ID + ["log"], cwd=ws, stdin=subprocess.DEVNULL, stdout=slave,
                       stderr=slave, env=dict(os.environ, TERM="xterm"), timeout=60)
    finally:
        os.close(slave)
        os.close(master)


def alias_oracle(ws):
    git(ws, "st", check=False)


def archive_oracle(sub=".", fmt="tgz"):
    """git archive pipes its tar through tar.<format>.command."""
    def oracle(ws):
        git(os.path.join(ws, sub), "archive", "--format=" + fmt, "-o", os.devnull, "HEAD",
            check=False)
    return oracle


def tar_command(mark):
    return "touch %s; gzip -cn" % mark


def setup_including(ws, base):
    """A repository whose config includes a project file in the worktree."""
    repo(ws, tracked=True)
    git(ws, "config", "include.path", "../project.gitconfig")
    with open(os.path.join(ws, "project.gitconfig"), "w") as f:
        f.write("[core]\n\tautocrlf = false\n")


# ---- the table ----

class Case:
    def __init__(self, name, setup, plant, oracle=None, hazard=None, opts=(), landed=None,
                 traces=(), bwrap_unenforced=(), reported_everywhere=False):
        self.name = name
        self.setup = setup        # setup(ws, base)
        self.plant = plant        # plant(ws, mark) -> bash text
        self.oracle = oracle      # oracle(ws): the unconfined git command
        self.hazard = hazard      # hazard(ws) -> (path, kind) gitHazards must hold on Landlock
        self.opts = list(opts)    # confine policy flags
        self.landed = landed      # landed(ws) -> bool, for protectedPaths cases (no marker)
        self.traces = traces      # paths (relative) a bwrap run must not leave behind
        # what a bwrap run still reports (its enforcement is then partial)
        self.bwrap_unenforced = list(bwrap_unenforced)
        # a plant the policy allows on every rung (a repository the command
        # creates, a project file git includes): it lands, and gitHazards
        # must say so, with bwrap's enforcement still `full`
        self.reported_everywhere = reported_everywhere


def setup_repo(ws, base):
    repo(ws, tracked=True)


def setup_nested(ws, base):
    repo(ws)
    repo(os.path.join(ws, "sub"))


def setup_submodule(ws, base):
    upstream = os.path.join(base, "upstream-" + os.path.basename(ws))
    repo(upstream)
    repo(ws)
    git(ws, "submodule", "add", "-q", upstream, "lib")
    git(ws, "commit", "-q", "-m", "lib")


def setup_worktree(ws, base):
    repo(ws)
    git(ws, "worktree", "add", "-q", "-b", "side", "wt")


def setup_missing_gitdir(ws, base):
    repo(ws)
    os.makedirs(os.path.join(ws, "wt2"))
    with open(os.path.join(ws, "wt2", ".git"), "w") as f:
        f.write("gitdir: ../gitdirs/wt2\n")


def setup_conf(ws, base):
    os.makedirs(os.path.join(ws, "conf"))
    with open(os.path.join(ws, "conf", "prod.yaml"), "w") as f:
        f.write("prod\n")


def setup_link(ws, base):
    with open(os.path.join(ws, "real.yaml"), "w") as f:
        f.write("prod\n")
    os.symlink("real.yaml", os.path.join(ws, "link.yaml"))


def setup_plain(ws, base):
    pass


def content(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


CASES = [
    Case("commondir naming a directory the command wrote",
         setup_repo,
         lambda ws, mark: "mkdir -p .evil/objects .evil/refs; cp .git/config .evil/config; "
         + hook(".evil/hooks/pre-commit", mark) + 'echo "$PWD/.evil" > .git/commondir',
         commit_in(), lambda ws: (os.path.join(ws, ".git", "commondir"), "commondir"),
         traces=[".git/commondir"]),
    Case(".git renamed and copied, then diff.external",
         setup_repo,
         lambda ws, mark: "printf '#!/bin/sh\\ntouch %s\\n' > ext.sh; chmod +x ext.sh; "
         "mv .git .git.old && cp -a .git.old .git; git config diff.external \"$PWD/ext.sh\"" % mark,
         diff_oracle, lambda ws: (os.path.join(ws, ".git", "config"), "diff.external")),
    Case("core.pager",
         setup_repo,
         lambda ws, mark: "git config core.pager \"sh -c 'touch %s; cat'\"" % mark,
         log_on_a_terminal, lambda ws: (os.path.join(ws, ".git", "config"), "core.pager")),
    Case("a hook in a nested repository",
         setup_nested,
         lambda ws, mark: hook("sub/.git/hooks/pre-commit", mark),
         commit_in("sub"),
         lambda ws: (os.path.join(ws, "sub", ".git", "hooks", "pre-commit"), "hook")),
    Case("a hook in a submodule's gitdir (.git/modules)",
         setup_submodule,
         lambda ws, mark: hook(".git/modules/lib/hooks/pre-commit", mark),
         commit_in("lib"),
         lambda ws: (os.path.join(ws, ".git", "modules", "lib", "hooks", "pre-commit"), "hook")),
    Case("a worktree's .git file re-pointed at a gitdir the command wrote",
         setup_worktree,
         lambda ws, mark: "mkdir -p evilgit; cp -r .git/objects .git/refs .git/HEAD .git/config "
         "evilgit/; " + hook("evilgit/hooks/pre-commit", mark)
         + 'echo "gitdir: $PWD/evilgit" > wt/.git',
         commit_in("wt"), lambda ws: (os.path.join(ws, "evilgit", "hooks", "pre-commit"), "hook")),
    Case("the gitdir a .git file names, made while it does not exist",
         setup_missing_gitdir,
         lambda ws, mark: "mkdir -p gitdirs; cp -a .git gitdirs/wt2; "
         + hook("gitdirs/wt2/hooks/pre-commit", mark),
         commit_in("wt2"),
         lambda ws: (os.path.join(ws, "gitdirs", "wt2", "hooks", "pre-commit"), "hook"),
         traces=["gitdirs"]),
    Case("core.hooksPath",
         setup_repo,
         lambda ws, mark: hook(".evilhooks/pre-commit", mark)
         + 'git config core.hooksPath "$PWD/.evilhooks"',
         commit_in(), lambda ws: (os.path.join(ws, ".git", "config"), "core.hooksPath")),
    Case("an alias starting with !",
         setup_repo,
         lambda ws, mark: "git config alias.st '!touch %s'" % mark,
         alias_oracle, lambda ws: (os.path.join(ws, ".git", "config"), "alias.st")),
    # tar.<format>.command (issue 28.2): every way a run can set it, with
    # the later `git archive` as the oracle.
    Case("tar.<format>.command in .git/config",
         setup_repo,
         lambda ws, mark: "git config tar.tgz.command '%s'" % tar_command(mark),
         archive_oracle(), lambda ws: (os.path.join(ws, ".git", "config"), "tar.tgz.command")),
    Case("tar.<format>.command in a repository the command creates",
         setup_plain,
         lambda ws, mark: "git init -q new && git -c user.email=t@example.com -c user.name=t -C new commit -q --allow-empty -m x && "
         "git -C new config tar.tgz.command '%s'" % tar_command(mark),
         archive_oracle("new"),
         lambda ws: (os.path.join(ws, "new", ".git", "config"), "tar.tgz.command"),
         reported_everywhere=True),
    Case("tar.<format>.command of a format of its own, in a new repository deep down",
         setup_plain,
         lambda ws, mark: "mkdir -p a/b/c/d/e/f/g/h && git init -q a/b/c/d/e/f/g/h/new && "
         "git -c user.email=t@example.com -c user.name=t -C a/b/c/d/e/f/g/h/new commit -q --allow-empty -m x && "
         "git -C a/b/c/d/e/f/g/h/new config tar.tar.xz.command '%s'" % tar_command(mark),
         archive_oracle("a/b/c/d/e/f/g/h/new", "tar.xz"),
         lambda ws: (os.path.join(ws, "a/b/c/d/e/f/g/h/new", ".git", "config"),
                     "tar.tar.xz.command"),
         reported_everywhere=True),
    Case("tar.<format>.command in a file an existing include.path names",
         setup_including,
         lambda ws, mark: "printf '[tar \"tgz\"]\\n\\tcommand = %s\\n' >> project.gitconfig"
         % tar_command(mark),
         archive_oracle(), lambda ws: (os.path.join(ws, "project.gitconfig"), "tar.tgz.command"),
         reported_everywhere=True),
    Case("protected paths that do not exist yet, created with their parents",
         setup_plain,
         lambda ws, mark: "mkdir -p .claude a/b/c; echo '{\"evil\":1}' > .claude/settings.json; "
         "echo evil > a/b/c/file.txt",
         opts=["--protect", ".claude/settings.json", "--protect", "a/b/c/file.txt"],
         landed=lambda ws: content(os.path.join(ws, ".claude", "settings.json")) is not None
         or content(os.path.join(ws, "a", "b", "c", "file.txt")) is not None,
         traces=[".claude", "a"]),
    Case("a protected path's ancestor renamed",
         setup_conf,
         lambda ws, mark: "mv conf conf.old; mkdir -p conf; echo evil > conf/prod.yaml",
         opts=["--protect", "conf/prod.yaml"],
         landed=lambda ws: content(os.path.join(ws, "conf", "prod.yaml")) != "prod\n"),
    # What the symlink points to holds; the link itself could be replaced
    # (no mount sits on a symlink), which bwrap reports.
    Case("a protected path that is a symlink: what it points to",
         setup_link,
         lambda ws, mark: "echo evil > link.yaml",
         opts=["--protect", "link.yaml"],
         landed=lambda ws: content(os.path.join(ws, "real.yaml")) != "prod\n",
         bwrap_unenforced=["protectedPaths"]),
]


class World:
    def __init__(self, confine, launcher, runner):
        self.confine = confine
        self.runner = runner
        home = os.environ.get("HOME") or "/tmp"
        root = os.path.join(home, ".cache", "confine-tests")
        os.makedirs(root, exist_ok=True)
        self.base = os.path.realpath(tempfile.mkdtemp(prefix="git-plants.", dir=root))
        os.mkdir(os.path.join(self.base, "marks"))
        self.config = os.path.join(self.base, "config.json")
        with open(self.config, "w") as f:
            json.dump({"landlockLauncher": launcher_outside_tmp(launcher)}, f)

    def confined(self, ws, opts, command):
        done = subprocess.run([self.confine, "bash", "--json", "--config", self.config,
                               "--runner", self.runner, "-m", "workspace-write", "-w", ws]
                              + opts + ["-c", command], capture_output=True, text=True,
                              cwd=self.base, timeout=300)
        if not done.stdout.strip():
            raise AssertionError("confine bash printed nothing (%d): %s"
                                 % (done.returncode, done.stderr))
        return json.loads(done.stdout)


def check(cond, what, detail=""):
    if not cond:
        raise AssertionError("%s %s" % (what, detail))


def marked_entries(ws):
    """Entries carrying confine's placeholder mark (none may be left)."""
    found = []
    for d, dirs, files in os.walk(ws):
        for n in dirs + files:
            p = os.path.join(d, n)
            try:
                os.getxattr(p, "user.confine.placeholder", follow_symlinks=False)
                found.append(p)
            except OSError:
                pass
    return found


def run_case(w, i, case):
    user = pwd.getpwuid(os.getuid()).pw_name
    label = "%s [%s, %s]" % (case.name, w.runner, user)
    # The control: the same plant, unconfined; the oracle must see it run.
    ws = os.path.join(w.base, "control-%d" % i)
    mark = os.path.join(w.base, "marks", "control-%d" % i)
    os.mkdir(ws)
    case.setup(ws, w.base)
    subprocess.run(["bash", "-c", case.plant(ws, mark)], cwd=ws, capture_output=True, timeout=60)
    if case.oracle:
        case.oracle(ws)
        check(os.path.exists(mark), "control: the attack did not work unconfined:", label)
    else:
        check(case.landed(ws), "control: the attack did not work unconfined:", label)

    # Confined.
    ws = os.path.join(w.base, "ws-%d" % i)
    mark = os.path.join(w.base, "marks", "ws-%d" % i)
    os.mkdir(ws)
    case.setup(ws, w.base)
    out = w.confined(ws, case.opts, case.plant(ws, mark))
    check(out.get("error") is None, "the run failed:", (label, out))
    sandbox = out["sandbox"]
    hazards = {(h["path"], h["kind"]) for h in sandbox["gitHazards"]}
    if case.oracle:
        case.oracle(ws)
        landed = os.path.exists(mark)
    else:
        landed = case.landed(ws)
    if case.reported_everywhere:
        check(landed, "the plant did not land (the case proves nothing):", label)
        check(case.hazard(ws) in hazards, "not reported in gitHazards:",
              (label, case.hazard(ws), sorted(hazards)))
        if w.runner == "bwrap":
            check(sandbox["enforcement"] == "full", "bwrap: not full:", (label, sandbox))
    elif w.runner == "bwrap":
        check(not landed, "bwrap: the plant landed:", (label, out["stderr"]))
        want = "partial" if case.bwrap_unenforced else "full"
        check(sandbox["enforcement"] == want and sandbox["unenforced"] == case.bwrap_unenforced,
              "bwrap: the run did not report what held:", (label, sandbox))
        for t in case.traces:
            check(not os.path.lexists(os.path.join(ws, t)), "bwrap: left behind on the host:",
                  (label, t))
        check(marked_entries(ws) == [], "bwrap: placeholders left:", (label, marked_entries(ws)))
    else:
        # Landlock cannot prevent it: it lands, and the run said so.
        check(landed, "landlock: the plant did not land (the case proves nothing):", label)
        if case.hazard:
            check(case.hazard(ws) in hazards, "landlock: not reported in gitHazards:",
                  (label, case.hazard(ws), sorted(hazards)))
        else:
            check("protectedPaths" in sandbox["unenforced"] and sandbox["enforcement"] == "partial",
                  "landlock: protectedPaths not reported:", (label, sandbox))
    TAP.ok("%s: %s" % (label, "prevented" if not landed else "landed and reported"))


def fsmonitor_repo(ws, base, worktree_config=False):
    """A repository, and beside it a planted gitdir (`evil/`, a copy of
    .git) whose config names a core.fsmonitor that touches a marker."""
    repo(ws, tracked=True)
    if worktree_config:
        git(ws, "config", "core.repositoryformatversion", "1")
        git(ws, "config", "extensions.worktreeConfig", "true")
    shutil.copytree(os.path.join(ws, ".git"), os.path.join(ws, "evil"))


def fs_plants(w):
    """The harness's file API (issue 28.1): what a run's bwrap keeps
    read-only, existing or not, is refused to `confine fs` too, with the
    unconfined control (a plain write) showing the next `git status` runs
    the plant; and a write git would read later is reported."""
    user = pwd.getpwuid(os.getuid()).pw_name
    cases = [
        # (name, worktree_config, path, content(ws, mark))
        ("fs write .git/commondir (missing) at a planted gitdir", False, ".git/commondir",
         lambda ws, mark: "../evil\n"),
        ("fs write .git/config.worktree (missing, extensions.worktreeConfig)", True,
         ".git/config.worktree", lambda ws, mark: "[core]\n\tfsmonitor = touch %s\n" % mark),
    ]
    for i, (name, wtc, rel, text) in enumerate(cases):
        label = "%s [%s]" % (name, user)
        for confined in (False, True):
            ws = os.path.join(w.base, "fs-%s-%d" % ("ws" if confined else "control", i))
            mark = os.path.join(w.base, "marks", os.path.basename(ws))
            os.mkdir(ws)
            fsmonitor_repo(ws, w.base, wtc)
            with open(os.path.join(ws, "evil", "config"), "a") as f:
                f.write("[core]\n\tfsmonitor = touch %s\n" % mark)
            if confined:
                done = subprocess.run([w.confine, "fs", "--json", "-m", "workspace-write", "-w",
                                       ws, "write", rel], input=text(ws, mark),
                                      capture_output=True, text=True, timeout=60)
                check(done.returncode == 1 and "denied by defaultProtections" in done.stdout,
                      "confine fs did not refuse:", (label, done.returncode, done.stdout))
                check(not os.path.lexists(os.path.join(ws, rel)), "fs: the file landed:", label)
            else:
                with open(os.path.join(ws, rel), "w") as f:
                    f.write(text(ws, mark))
            git(ws, "status", check=False)
            if confined:
                check(not os.path.exists(mark), "fs: git status ran the plant:", label)
            else:
                check(os.path.exists(mark), "control: the attack did not work:", label)
        TAP.ok("%s: refused" % label)
    # An include file in the worktree is a project file: written, reported.
    ws = os.path.join(w.base, "fs-include")
    mark = os.path.join(w.base, "marks", "fs-include")
    os.mkdir(ws)
    setup_including(ws, w.base)
    done = subprocess.run([w.confine, "fs", "--json", "-m", "workspace-write", "-w", ws, "write",
                           "project.gitconfig"],
                          input="[tar \"tgz\"]\n\tcommand = %s\n" % tar_command(mark),
                          capture_output=True, text=True, timeout=60)
    check(done.returncode == 0, "fs write of a project file failed:", done.stdout + done.stderr)
    hazards = json.loads(done.stdout)["gitHazards"]
    want = {"path": os.path.join(ws, "project.gitconfig"), "kind": "tar.tgz.command"}
    check(want in hazards, "fs: gitHazards did not report it:", (hazards, done.stderr))
    check("git would run it unconfined" in done.stderr, "fs: no warning:", done.stderr)
    archive_oracle()(ws)
    check(os.path.exists(mark), "fs: the reported setting does not run (proves nothing)", "")
    TAP.ok("fs write of an included config file: reported [%s]" % user)


def deep_tree(w):
    """A workspace with node_modules 12 levels deep and about 30000 entries,
    a repository at the bottom (issue 28.3): the walk finds it without a
    depth bound, a bwrap workspace-write run reports `full` and
    --require-full runs; a hook planted there is kept out (bwrap) or
    reported (Landlock)."""
    ws = os.path.join(w.base, "deep")
    repo(ws)
    level = ws
    for depth in range(12):
        level = os.path.join(level, "node_modules", "pkg%d" % depth)
        os.makedirs(level)
        for k in range(2500):
            with open(os.path.join(level, "f%d.js" % k), "w"):
                pass
    repo(os.path.join(level, "vendored"))
    hook_path = os.path.join(level, "vendored", ".git", "hooks", "pre-commit")
    mark = os.path.join(w.base, "marks", "deep")
    out = w.confined(ws, ["--require-full"] if w.runner == "bwrap" else [], hook(hook_path, mark))
    check(out.get("error") is None, "deep tree: the run failed:", out)
    sandbox = out["sandbox"]
    hazards = {(h["path"], h["kind"]) for h in sandbox["gitHazards"]}
    check(not any(k == "incomplete" for _, k in hazards), "deep tree: incomplete:", hazards)
    commit_in(os.path.relpath(os.path.join(level, "vendored"), ws))(ws)
    if w.runner == "bwrap":
        check(sandbox["enforcement"] == "full" and sandbox["unenforced"] == [],
              "deep tree: bwrap is not full:", sandbox)
        check(not os.path.exists(mark), "deep tree: bwrap let the hook land", "")
    else:
        check(os.path.exists(mark), "deep tree: the hook did not land (proves nothing)", "")
        check((hook_path, "hook") in hazards, "deep tree: not reported:", hazards)
    if w.runner == "bwrap":
        # What bwrap cannot hold (a `.git` symlink can be re-pointed):
        # requireFull refuses naming the clause and why, not "Install
        # bubblewrap" (issue 28.3).
        linked = os.path.join(w.base, "linked")
        repo(os.path.join(w.base, "linked-store"))
        os.mkdir(linked)
        os.symlink(os.path.join(w.base, "linked-store", ".git"), os.path.join(linked, ".git"))
        out = w.confined(linked, ["--require-full"], "true")
        message = (out.get("error") or {}).get("message", "")
        check(out["error"]["code"] == "SANDBOX_UNAVAILABLE" and "Install bubblewrap" not in message
              and "requireFull: " in message and "defaultProtections (" in message
              and "is a symbolic link" in message,
              "requireFull's refusal does not name the clause and its reason:", message)
    TAP.ok("a 12-level node_modules tree [%s, %s]: %s" % (
        w.runner, pwd.getpwuid(os.getuid()).pw_name,
        "full" if w.runner == "bwrap" else "reported"))


def git_still_works(w):
    """What an agent does with git keeps working under the protections: a
    clone with a submodule and a linked worktree; add, commit, branch,
    checkout, stash, gc, fetch, commits in the submodule and the worktree,
    a new worktree."""
    upstream = os.path.join(w.base, "upstream-works")
    ws = os.path.join(w.base, "works")
    repo(upstream)
    subprocess.run(["git", "clone", "-q", upstream, ws], check=True, capture_output=True)
    git(ws, "submodule", "add", "-q", upstream, "lib")
    git(ws, "commit", "-q", "-m", "lib")
    git(ws, "worktree", "add", "-q", "-b", "side", "wt")
    g = "git " + " ".join(ID)
    command = ("set -e; echo a > a; G; add a; G; commit -q -m a; G; checkout -q -b feat; "
               "G; checkout -q -; echo b > a; G; stash -q; G; stash pop -q; G; commit -qam b; "
               "G; gc -q; G; fetch -q origin; G; -C lib commit -q --allow-empty -m in-lib; "
               "G; -C wt commit -q --allow-empty -m in-wt; G; worktree add -q -b third wt3; "
               "echo ALL-OK").replace("G; ", g + " ")
    out = w.confined(ws, [], command)
    check(out["exitCode"] == 0 and out["stdout"].endswith("ALL-OK\n"),
          "git did not work under the protections:", (w.runner, out["stdout"], out["stderr"]))
    log = git(ws, "log", "--oneline").stdout
    check(" b\n" in log and " a\n" in log, "the commits are not there:", log)
    TAP.ok("git still works [%s, %s]" % (w.runner, pwd.getpwuid(os.getuid()).pw_name))


def run_table(confine, launcher, runner):
    """Runs the cases (TAP); returns None, or why the runner cannot run here."""
    w = World(confine, launcher, runner)
    try:
        probe = subprocess.run([confine, "bash", "--json", "--config", w.config, "--runner",
                                runner, "-m", "read-only", "-w", w.base, "-c", "true"],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            return "runner %s is not usable here: %s" % (runner, probe.stderr)
        for i, case in enumerate(CASES):
            TAP.guard("%s [%s]" % (case.name, runner), run_case, w, i, case)
        TAP.guard("fs plants [%s]" % runner, fs_plants, w)
        TAP.guard("a 12-level node_modules tree [%s]" % runner, deep_tree, w)
        TAP.guard("git still works [%s]" % runner, git_still_works, w)
        return None
    finally:
        shutil.rmtree(w.base, ignore_errors=True)


def main():
    return TAP.main_beside_user("cfplant", __file__, lambda args: run_table(*args[:3]))


if __name__ == "__main__":
    sys.exit(main())
