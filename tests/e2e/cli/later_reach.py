#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What a protected file reaches from inside a writable root (issue 28, the
outside red team's follow-up; doc/SPEC.md 15, "What runs later"), on one
Linux rung, as root and as a user this test creates: each plant through
`run` (`confine bash --json`), a spawned `wrap` argv and the file API
(`confine fs append`), each with the unconfined control.

- Other names (hard links) of a protected file: `~/.bashrc` (the home not
  writable) with a second name in the workspace, `~/.gitconfig` with one in
  a `--writable` directory. The control: an append through the second name
  changes the home's file, and the next `bash -ic exit` (`git status`) runs
  the plant. bwrap holds the second name read-only (`full`); Landlock
  cannot, and its report lists `defaultProtections` for that path with a
  reason naming the home's file; the file API refuses it.
- What git configuration names inside a root: `init.templateDir` (from
  `~/.gitconfig`), whose `hooks/` the next `git clone` copies and runs;
  the program of a command-valued setting (`core.fsmonitor`, an `alias`
  of `!PATH`, a missing `diff.external`, a nested repository's own
  relative `core.fsmonitor`) and the script an interpreter there is
  handed (`!sh WS/s.sh`, `fsmonitor = sh DIR/fsm.sh`), which the next `git status` (`git dep`,
  `git diff`) runs; a relative `core.hooksPath` at a repository nested below
  the workspace, whose `pre-commit` the next `git commit` runs there.
  bwrap holds what exists read-only (`full`) and reports a missing
  program planted (nothing stands in for a program); Landlock reports
  each planted; the file API refuses each.

Usage: later_reach.py CONFINE LAUNCHER RUNNER [--no-nonroot]
TAP (tests/helpers/tap.py): one line per case, the user half's folded in; a
skip of the whole when RUNNER does not work here, unless CONFINE_MUST_WORK=1.
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
ID = ["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "init.defaultBranch=main"]


def check(cond, what, detail=""):
    if not cond:
        raise AssertionError("%s %s" % (what, detail))


def bash_interactive(d, mark):
    subprocess.run(["bash", "-ic", "exit"], env=dict(os.environ, HOME=d["home"]),
                   stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    return os.path.exists(mark)


def git_status(d, mark):
    subprocess.run(["git", "status"], cwd=d["repo"], env=dict(os.environ, HOME=d["home"]),
                   stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    return os.path.exists(mark)


class Link:
    """A protected file at the home, `other` another name of it in a root
    ("ws/..." the workspace, "extra/..." the --writable directory)."""

    def __init__(self, name, entry, text, other, plant, oracle, below=False):
        self.name, self.entry, self.text, self.other = name, entry, text, other
        self.plant, self.oracle = plant, oracle
        # a file below a protected directory: listed, not fingerprinted,
        # so Landlock names it before the run only (doc/SPEC.md 15)
        self.below = below

    def setup(self, d):
        path = os.path.join(d["home"], self.entry)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(self.text)
        os.chmod(path, 0o755)
        os.link(path, self.other_path(d))

    def other_path(self, d):
        top, rest = self.other.split("/", 1)
        return os.path.join(d[top], rest)

    def command(self, d, mark):
        return "printf '%s' >> %s; true" % (self.plant % mark, self.other_path(d))

    def ran(self, d, mark):
        """Whether the next unconfined call (the oracle, or running the
        file itself) ran the plant."""
        if self.oracle == "runs_it":
            subprocess.run([os.path.join(d["home"], self.entry)], stdin=subprocess.DEVNULL,
                           env=dict(os.environ, HOME=d["home"]), capture_output=True, timeout=60)
            return os.path.exists(mark)
        return self.oracle(d, mark)


LINKS = [
    Link("a hard link of ~/.bashrc in the workspace", ".bashrc", "# the user's own\n",
         "ws/sub/deeper/rc", "touch %s\\n", bash_interactive),
    Link("a hard link of ~/.gitconfig in a --writable directory", ".gitconfig",
         "[user]\n\tname = t\n", "extra/gc", "[core]\\n\\tfsmonitor = touch %s\\n", git_status),
    # R28c-dir-links: files below a protected directory (~/.local/bin/,
    # one deep in ~/.vim/), which the next unconfined call runs
    Link("a hard link of a file in ~/.local/bin in the workspace", ".local/bin/tool",
         "#!/bin/sh\n# the user's own\n", "ws/sub/deeper/tool", "touch %s\\n", "runs_it",
         below=True),
    Link("a hard link of a file deep in ~/.vim in a --writable directory",
         ".vim/pack/p/start/x/plugin/run.sh", "#!/bin/sh\n# the user's own\n", "extra/run.sh",
         "touch %s\\n", "runs_it", below=True),
]


def git(cwd, *args, home=None):
    env = dict(os.environ, HOME=home) if home else None
    return subprocess.run(["git"] + ID + list(args), cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)


def commit_one(path):
    os.makedirs(path, exist_ok=True)
    git(path, "init", "-q")
    with open(os.path.join(path, "t.txt"), "w") as f:
        f.write("one\n")
    git(path, "add", "t.txt")
    git(path, "commit", "-q", "-m", "base")


def gitconfig(d, text):
    with open(os.path.join(d["home"], ".gitconfig"), "w") as f:
        f.write(text % d)


def script(path, text="#!/bin/sh\n# the user's own\n"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)


class Named:
    """A path git configuration names inside a root: `held` (the report's
    path, "ws/..." or "extra/...") and `target` (what the plant writes);
    `missing`: a program not there before the run (reported, not held)."""

    def __init__(self, name, setup, held, target, oracle, missing=False):
        self.name, self.setup_fn, self.held, self.target = name, setup, held, target
        self.oracle, self.missing = oracle, missing

    def setup(self, d):
        commit_one(d["repo"])
        self.setup_fn(d)

    def at(self, d, rel):
        top, rest = rel.split("/", 1)
        return os.path.join(d[top], rest)

    def command(self, d, mark):
        p = self.at(d, self.target)
        return ("mkdir -p %s 2>/dev/null; printf '#!/bin/sh\\ntouch %s\\n' >> %s; "
                "chmod +x %s 2>/dev/null; true" % (os.path.dirname(p), mark, p, p))

    def text(self, mark):
        return "#!/bin/sh\ntouch %s\n" % mark


def template_user(d):
    os.makedirs(os.path.join(d["ws"], "tmpl", "hooks"))
    gitconfig(d, "[init]\n\ttemplateDir = %(ws)s/tmpl\n")


def fsmonitor_repo(d):
    commit_one(os.path.join(d["ws"], "app"))
    script(os.path.join(d["ws"], "app", "tools", "fsm"))
    git(os.path.join(d["ws"], "app"), "config", "core.fsmonitor", "tools/fsm")


def fsmonitor(d):
    script(os.path.join(d["ws"], "tools", "fsm.sh"))
    gitconfig(d, "[core]\n\tfsmonitor = %(ws)s/tools/fsm.sh\n")


def alias(d):
    script(os.path.join(d["extra"], "bin", "dep"))
    gitconfig(d, '[alias]\n\tdep = "!%(extra)s/bin/dep --now"\n')


def alias_script(d):
    script(os.path.join(d["ws"], "tools", "s.sh"))
    gitconfig(d, '[alias]\n\tdep = "!sh %(ws)s/tools/s.sh --now"\n')


def fsmonitor_script(d):
    script(os.path.join(d["extra"], "fsm.sh"))
    gitconfig(d, "[core]\n\tfsmonitor = sh %(extra)s/fsm.sh\n")


def external(d):
    gitconfig(d, "[diff]\n\texternal = %(ws)s/tools/differ\n")


def hooks_nested(d):
    commit_one(os.path.join(d["ws"], "a", "b", "app"))
    os.makedirs(os.path.join(d["ws"], "a", "b", "app", ".githooks"))
    gitconfig(d, "[core]\n\thooksPath = .githooks\n")


def ran(mark):
    return os.path.exists(mark)


def clone_runs(d, mark):
    dst = os.path.join(os.path.dirname(d["repo"]), "clone-%d" % len(os.listdir(os.path.dirname(
        d["repo"]))))
    git(os.path.dirname(d["repo"]), "clone", "-q", d["repo"], dst, home=d["home"])
    return ran(mark)


def app_status_runs(d, mark):
    git(os.path.join(d["ws"], "app"), "status", home=d["home"])
    return ran(mark)


def status_runs(d, mark):
    git(d["repo"], "status", home=d["home"])
    return ran(mark)


def alias_runs(d, mark):
    git(d["repo"], "dep", home=d["home"])
    return ran(mark)


def diff_runs(d, mark):
    with open(os.path.join(d["repo"], "t.txt"), "a") as f:
        f.write("two\n")
    git(d["repo"], "diff", home=d["home"])
    return ran(mark)


def commit_runs(d, mark):
    git(os.path.join(d["ws"], "a", "b", "app"), "commit", "-q", "--allow-empty", "-m", "x",
        home=d["home"])
    return ran(mark)


NAMED = [
    Named("~/.gitconfig's init.templateDir in the workspace", template_user, "ws/tmpl",
          "ws/tmpl/hooks/post-checkout", clone_runs),
    Named("a nested repository's own core.fsmonitor program, relative", fsmonitor_repo,
          "ws/app/tools/fsm", "ws/app/tools/fsm", app_status_runs),
    Named("~/.gitconfig's core.fsmonitor program in the workspace", fsmonitor,
          "ws/tools/fsm.sh", "ws/tools/fsm.sh", status_runs),
    Named("~/.gitconfig's alias !PATH in a --writable directory", alias, "extra/bin/dep",
          "extra/bin/dep", alias_runs),
    Named("~/.gitconfig's alias !sh SCRIPT, the script in the workspace", alias_script,
          "ws/tools/s.sh", "ws/tools/s.sh", alias_runs),
    Named("~/.gitconfig's core.fsmonitor sh SCRIPT, the script in a --writable directory",
          fsmonitor_script, "extra/fsm.sh", "extra/fsm.sh", status_runs),
    Named("~/.gitconfig's missing diff.external program in the workspace", external,
          "ws/tools/differ", "ws/tools/differ", diff_runs, missing=True),
    Named("~/.gitconfig's relative core.hooksPath at a nested repository", hooks_nested,
          "ws/a/b/app/.githooks", "ws/a/b/app/.githooks/pre-commit", commit_runs),
]


class World:
    def __init__(self, confine, launcher, runner):
        self.confine, self.runner = confine, runner
        home = os.environ.get("HOME") or "/tmp"
        root = os.path.join(home, ".cache", "confine-tests")
        os.makedirs(root, exist_ok=True)
        self.base = os.path.realpath(tempfile.mkdtemp(prefix="later-reach.", dir=root))
        os.mkdir(os.path.join(self.base, "marks"))
        self.config = os.path.join(self.base, "config.json")
        with open(self.config, "w") as f:
            json.dump({"landlockLauncher": launcher_outside_tmp(launcher)}, f)
        self.n = 0

    def fresh(self, tag):
        self.n += 1
        top = os.path.join(self.base, "%s-%d" % (tag, self.n))
        d = {k: os.path.join(top, k) for k in ("ws", "home", "extra", "repo")}
        for k in ("home", "extra"):
            os.makedirs(d[k])
        os.makedirs(os.path.join(d["ws"], "sub", "deeper"))
        os.makedirs(d["repo"])
        subprocess.run(["git"] + ID + ["init", "-q"], cwd=d["repo"], check=True, timeout=60)
        return d, os.path.join(self.base, "marks", "%s-%d" % (tag, self.n))

    def common(self, d):
        return ["--config", self.config, "--runner", self.runner, "-m", "workspace-write",
                "-w", d["ws"], "--writable", d["extra"]]

    @staticmethod
    def env(d):
        env = dict(os.environ, HOME=d["home"])
        env.pop("XDG_CONFIG_HOME", None)
        env.pop("GIT_CONFIG_GLOBAL", None)
        return env

    def run(self, d, command):
        done = subprocess.run([self.confine, "bash", "--json"] + self.common(d) + ["-c", command],
                              capture_output=True, text=True, cwd=self.base, env=self.env(d),
                              timeout=300)
        check(done.stdout.strip(), "confine bash printed nothing:", (done.returncode, done.stderr))
        return json.loads(done.stdout)

    def wrap(self, d, command):
        done = subprocess.run([self.confine, "wrap"] + self.common(d) + ["--", "bash", "-c",
                                                                        command],
                              capture_output=True, text=True, cwd=self.base, env=self.env(d),
                              timeout=300)
        check(done.returncode == 0, "confine wrap failed:", done.stderr)
        wrapped = json.loads(done.stdout)
        subprocess.run(wrapped["argv"], cwd=d["ws"], env=wrapped["env"], start_new_session=True,
                       close_fds=True, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=300)
        return wrapped


def link_clause(clauses, path):
    return [c for c in clauses if c["clause"] == "defaultProtections" and c["subject"] == path]


def one_link(w, case):
    label = "%s [%s, %s]" % (case.name, w.runner, pwd.getpwuid(os.getuid()).pw_name)
    home_file = lambda d: os.path.join(d["home"], case.entry)  # noqa: E731

    # the control: through the other name, the home's file changes, and the
    # later tool runs the plant
    d, mark = w.fresh("control")
    case.setup(d)
    subprocess.run(["bash", "-c", case.command(d, mark)], cwd=d["ws"], timeout=60)
    check(open(home_file(d)).read() != case.text, "control: the home's file is unchanged:", label)
    check(case.ran(d, mark), "control: the plant did not run unconfined:", label)

    for door in ("run", "wrap"):
        d, mark = w.fresh(door)
        case.setup(d)
        if door == "run":
            out = w.run(d, case.command(d, mark))
            check(out.get("error") is None, "the run failed:", (label, out))
            report = out["sandbox"]
        else:
            report = w.wrap(d, case.command(d, mark))
        got = open(home_file(d)).read() != case.text
        clause = link_clause(report["clauses"], case.other_path(d))
        if w.runner == "bwrap":
            check(not got and not case.ran(d, mark), "bwrap %s: written through the link:"
                  % door, label)
            check(clause and clause[0]["status"] == "enforced", "bwrap %s: the link not held:"
                  % door, (label, report["clauses"]))
            if door == "run":
                check(report["enforcement"] == "full", "bwrap run: not full:",
                      (label, report["unenforced"]))
            TAP.ok("%s %s: held" % (door, label))
        else:
            check(got and case.ran(d, mark), "landlock %s: did not land (proves nothing):"
                  % door, label)
            check(clause and clause[0]["status"] != "enforced" and
                  home_file(d) in (clause[0]["reason"] or ""),
                  "landlock %s: the link not reported naming the home's file:" % door,
                  (label, report["clauses"]))
            check("defaultProtections" in report["unenforced"], "landlock %s: not listed:" % door,
                  (label, report["unenforced"]))
            if door == "run" and not case.below:
                # after the run: the protected file itself, changed
                hazards = [(h["path"], h["kind"]) for h in report["gitHazards"]]
                check((home_file(d), "planted") in hazards, "landlock run: not reported planted:",
                      (label, hazards))
            TAP.ok("%s %s: landed, reported" % (door, label))

    # the file API
    d, mark = w.fresh("fs")
    case.setup(d)
    done = subprocess.run([w.confine, "fs", "--json"] + w.common(d)[4:]
                          + ["append", case.other_path(d)], input=case.plant % mark,
                          capture_output=True, text=True, env=w.env(d), timeout=60)
    check(done.returncode == 1 and "denied by defaultProtections" in done.stdout,
          "fs: not refused:", (label, done.returncode, done.stdout, done.stderr))
    check(open(home_file(d)).read() == case.text, "fs: the home's file changed:", label)
    TAP.ok("fs %s: refused" % label)


def one_named(w, case):
    label = "%s [%s, %s]" % (case.name, w.runner, pwd.getpwuid(os.getuid()).pw_name)

    # the control: planted unconfined, the later git runs it
    d, mark = w.fresh("control")
    case.setup(d)
    subprocess.run(["bash", "-c", case.command(d, mark)], cwd=d["ws"], timeout=60)
    check(case.oracle(d, mark), "control: the plant did not run unconfined:", label)

    for door in ("run", "wrap"):
        d, mark = w.fresh(door)
        case.setup(d)
        held = case.at(d, case.held)
        if door == "run":
            out = w.run(d, case.command(d, mark))
            check(out.get("error") is None, "the run failed:", (label, out))
            report = out["sandbox"]
        else:
            report = w.wrap(d, case.command(d, mark))
        got = case.oracle(d, mark)
        hazards = [(h["path"], h["kind"]) for h in report.get("gitHazards", [])]
        if w.runner == "bwrap" and not case.missing:
            clause = link_clause(report["clauses"], held)
            check(not got, "bwrap %s: the plant ran:" % door, label)
            check(clause and clause[0]["status"] == "enforced", "bwrap %s: not held:" % door,
                  (label, report["clauses"]))
            if door == "run":
                check(report["enforcement"] == "full", "bwrap run: not full:",
                      (label, report["unenforced"]))
            TAP.ok("%s %s: held" % (door, label))
        elif door == "run":
            check(got, "%s run: did not land (proves nothing):" % w.runner, label)
            check((held, "planted") in hazards, "%s run: not reported planted:" % w.runner,
                  (label, hazards))
            TAP.ok("run %s: landed, reported" % label)
        else:
            check(got, "wrap: did not land (proves nothing):", label)
            check("defaultProtections" in report["unenforced"], "wrap: not listed:",
                  (label, report["unenforced"]))
            TAP.ok("wrap %s: landed, listed" % label)

    d, mark = w.fresh("fs")
    case.setup(d)
    done = subprocess.run([w.confine, "fs", "--json"] + w.common(d)[4:]
                          + ["write", case.at(d, case.target)], input=case.text(mark),
                          capture_output=True, text=True, env=w.env(d), timeout=60)
    check(done.returncode == 1 and "denied by defaultProtections" in done.stdout,
          "fs: not refused:", (label, done.returncode, done.stdout, done.stderr))
    check(not case.oracle(d, mark), "fs: the plant ran:", label)
    TAP.ok("fs %s: refused" % label)


def data_argument(w):
    """An alias's argument that is data, not a program (`!git checkout --
    WS/notes/app.c`, `!sh WS/s.sh WS/notes/app.c`): the run writes it
    (nothing held, nothing reported), as the user's own file; the script
    an interpreter is handed is still held (bwrap) or reported."""
    label = "an alias's data argument [%s, %s]" % (w.runner, pwd.getpwuid(os.getuid()).pw_name)
    d, mark = w.fresh("data")
    commit_one(d["repo"])
    app = os.path.join(d["ws"], "notes", "app.c")
    os.makedirs(os.path.dirname(app))
    with open(app, "w") as f:
        f.write("int x;\n")
    script(os.path.join(d["ws"], "tools", "s.sh"))
    gitconfig(d, '[alias]\n\tco = "!git checkout -- %(ws)s/notes/app.c"\n'
                 '\tdep = "!sh %(ws)s/tools/s.sh %(ws)s/notes/app.c"\n')
    out = w.run(d, "echo edited >> %s; echo planted >> %s/tools/s.sh 2>/dev/null; true"
                % (app, d["ws"]))
    check(out.get("error") is None, "the run failed:", (label, out))
    hazards = [h["path"] for h in out["sandbox"].get("gitHazards", [])]
    check(open(app).read() == "int x;\nedited\n", "the data argument was held:", label)
    check(app not in hazards, "the data argument was reported:", (label, hazards))
    s_sh = os.path.join(d["ws"], "tools", "s.sh")
    wrote = "planted" in open(s_sh).read()
    check(not wrote if w.runner == "bwrap" else s_sh in hazards,
          "the script sh is handed was neither held nor reported:", (label, wrote, hazards))
    TAP.ok("run %s: data written, the script %s" % (label, "held" if not wrote else "reported"))


def system_link(w):
    """R28c-system-links (root only: another user can neither write a
    system start-up file nor, with protected_hardlinks, link one): a hard
    link in the workspace of a file in /etc/profile.d/, which the next
    login shell sources. The real /etc is never written: the run is in a
    private mount namespace where a directory of this test stands at
    /etc/profile.d (on the workspace's filesystem, so the link can be
    made). bwrap holds the link read-only (`full`); Landlock writes it and
    names the system file; the control writes through it."""
    label = "a hard link of a file in /etc/profile.d [%s, root]" % w.runner
    unshare = shutil.which("unshare")
    if not unshare:
        TAP.skip(label, "no unshare(1) here")
        return
    d, mark = w.fresh("system")
    pd = os.path.join(os.path.dirname(d["ws"]), "profile.d")
    os.makedirs(pd)
    rc = os.path.join(pd, "zz-confine-test.sh")
    with open(rc, "w") as f:
        f.write("# the system's own\n")
    other = os.path.join(d["ws"], "sub", "deeper", "prof")
    os.link(rc, other)
    command = "printf 'touch %s\\n' >> %s; true" % (mark, other)
    inner = ("mount --make-rprivate / && mount --bind \"$1\" /etc/profile.d && shift && "
             "exec \"$@\"")

    def in_namespace(argv):
        return subprocess.run([unshare, "-m", "sh", "-c", inner, "sh", pd] + argv,
                              capture_output=True, text=True, cwd=w.base, env=w.env(d),
                              timeout=300)

    # the control: through the link, the system file changes
    done = in_namespace(["bash", "-c", command])
    check(done.returncode == 0, "control: the namespace failed:", (label, done.stderr))
    check("touch" in open(rc).read(), "control: the system file is unchanged:", label)
    with open(rc, "w") as f:
        f.write("# the system's own\n")
    done = in_namespace([w.confine, "bash", "--json"] + w.common(d) + ["-c", command])
    check(done.stdout.strip(), "confine bash printed nothing:", (label, done.stderr))
    report = json.loads(done.stdout)["sandbox"]
    got = "touch" in open(rc).read()
    clause = link_clause(report["clauses"], other)
    if w.runner == "bwrap":
        check(not got, "bwrap: written through the link:", label)
        check(clause and clause[0]["status"] == "enforced", "bwrap: the link not held:",
              (label, report["clauses"]))
        check(report["enforcement"] == "full", "bwrap: not full:", (label, report["unenforced"]))
        TAP.ok("run %s: held" % label)
    else:
        check(got, "landlock: did not land (proves nothing):", label)
        check(clause and clause[0]["status"] != "enforced" and
              "/etc/profile.d/zz-confine-test.sh" in (clause[0]["reason"] or ""),
              "landlock: the link not reported naming the system file:",
              (label, report["clauses"]))
        TAP.ok("run %s: landed, reported" % label)


def unlistable(w):
    """A directory in the workspace the walk cannot list but the command
    can reach inside (`chmod 111`, the user's own): a link of ~/.bashrc
    there is not seen, so the report must not say `full` (the second red
    team, round 4 session 10). Root lists anything: the user's half."""
    label = "a directory the walk cannot list [%s, %s]" % (w.runner,
                                                          pwd.getpwuid(os.getuid()).pw_name)
    if os.getuid() == 0:
        TAP.skip(label, "root lists every directory")
        return
    d, mark = w.fresh("unlistable")
    with open(os.path.join(d["home"], ".bashrc"), "w") as f:
        f.write("# the user's own\n")
    hidden = os.path.join(d["ws"], "x")
    os.mkdir(hidden)
    os.link(os.path.join(d["home"], ".bashrc"), os.path.join(hidden, "r"))
    os.chmod(hidden, 0o111)
    try:
        out = w.run(d, "true")
        check(out.get("error") is None, "the run failed:", (label, out))
        report = out["sandbox"]
        reasons = " ".join(c["reason"] or "" for c in report["clauses"]
                           if c["clause"] == "defaultProtections")
        check(report["enforcement"] != "full" and "defaultProtections" in report["unenforced"],
              "reported full:", (label, report["unenforced"]))
        # (Landlock holds no default protection: its clause says so)
        check(w.runner != "bwrap" or (hidden in reasons and "cannot be listed" in reasons),
              "the reason does not name it:", (label, reasons))
        TAP.ok("run %s: reported" % label)
    finally:
        os.chmod(hidden, 0o755)


def run_table(confine, launcher, runner):
    w = World(confine, launcher, runner)
    try:
        probe = subprocess.run([confine, "bash", "--json", "--config", w.config, "--runner",
                                runner, "-m", "read-only", "-w", w.base, "-c", "true"],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            return "runner %s is not usable here: %s" % (runner, probe.stderr)
        for case in LINKS:
            TAP.guard("%s [%s]" % (case.name, runner), one_link, w, case)
        for case in NAMED:
            TAP.guard("%s [%s]" % (case.name, runner), one_named, w, case)
        TAP.guard("an alias's data argument [%s]" % runner, data_argument, w)
        if os.getuid() == 0:
            TAP.guard("a hard link of a file in /etc/profile.d [%s]" % runner, system_link, w)
        TAP.guard("a directory the walk cannot list [%s]" % runner, unlistable, w)
        return None
    finally:
        shutil.rmtree(w.base, ignore_errors=True)


def main():
    return TAP.main_beside_user("cfreach", __file__, lambda args: run_table(*args[:3]))


if __name__ == "__main__":
    sys.exit(main())
