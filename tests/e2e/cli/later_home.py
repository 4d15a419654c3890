#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What runs later from a home and a project, beyond later_plants.py's
table (issue 28, the outside red team's findings; doc/SPEC.md 15 "What
runs later"), on one Linux rung, as root and as a user this test creates.
later_plants.py's World and one_case run each case: the unconfined
control, `run` (bwrap holds it, Landlock reports it planted), the tool
beside the stand-in, `--unprotect`, a spawned `wrap` and the file API.

- the home's PATH directories and tools' files that name programs:
  `~/.pyenv/shims/`, `~/go/bin/` (a planted `git`, the next `git` runs
  it), `~/.lesskey` (`#env LESSOPEN=|cmd`: the next `less` runs it),
  `~/.kube/config`, `~/.aws/config`, `~/.rustup/`, `~/.nvm/`,
  `~/.cache/pre-commit/`, `~/.claude/plugins/`, `~/.vscode-server/`;
- a project's `.devcontainer/devcontainer.json`, `.devcontainer.json`;
- relocated: `$XDG_CONFIG_HOME/lesskey` (less reads it there),
  `$XDG_CONFIG_HOME/nvim/`, `$PYTHONUSERBASE/lib/` (python runs a `.pth`
  there);
- a fresh home (`--writable ~`, no `~/.claude`): the run makes
  `~/.claude/projects/` (bwrap stands no read-only `~/.claude` in), a
  plant of `~/.claude/settings.json` there lands and is reported planted;
- `$HOME` unset: the passwd entry's home is the home (the file API
  refuses its `.xsessionrc`; the created user's `run` holds its
  `.bashrc` on bwrap and reports it on Landlock);
- `$HOME` naming another directory (R28c-home-env): the passwd home's
  entries are protected too, the same way.

Usage: later_home.py CONFINE LAUNCHER RUNNER [--no-nonroot]
"""
import os
import pwd
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import later_plants as lp  # noqa: E402
from later_plants import Case, check, mkdirs, no_setup, put_setup  # noqa: E402

TAP = lp.TAP


def git_on_path(rel):
    """A later shell with `~/rel` first on PATH: the next `git` is the
    planted one."""
    def oracle(ws, home):
        subprocess.run(["git", "--version"], capture_output=True, timeout=60,
                       env=dict(os.environ, PATH=os.path.join(home, rel) + ":" +
                                os.environ["PATH"]))
    return oracle


def less_reads(xdg=None):
    """The next `less` (its lesskey's `#env` sets LESSOPEN, which it runs
    on the file it opens; not a terminal, it still does)."""
    def oracle(ws, home):
        env = dict(os.environ, HOME=home)
        for v in ("LESSOPEN", "LESSKEYIN", "LESSKEY", "XDG_CONFIG_HOME", "LESS"):
            env.pop(v, None)
        if xdg:
            env["XDG_CONFIG_HOME"] = os.path.join(home, xdg)
        subprocess.run(["less", "/etc/hostname"], env=env, stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=60)
    return oracle


def python_user_base(base):
    def oracle(ws, home):
        env = dict(os.environ, HOME=home, PYTHONUSERBASE=os.path.join(home, base))
        env.pop("PYTHONNOUSERSITE", None)
        subprocess.run([lp.python3(), "-c", "pass"], env=env, capture_output=True, timeout=60)
    return oracle


def site_below(base):
    return base + lp.user_site_rel()[len(".local"):]


def lesskey(mark):
    return "#env\nLESSOPEN=|touch %s; cat %%s\n" % mark


def kube(mark):
    return ("users:\n- name: x\n  user:\n    exec:\n      apiVersion: "
            "client.authentication.k8s.io/v1\n      command: touch\n      args: [%s]\n" % mark)


def shim(mark):
    return "#!/bin/sh\ntouch %s\n" % mark


CASES = [
    Case("an existing ~/.pyenv/shims/", ".pyenv/shims", mkdirs("~/.pyenv/shims"), shim,
         git_on_path(".pyenv/shims"), in_home=True, target=".pyenv/shims/git"),
    Case("a missing ~/go/bin/ in an existing ~/go/", "go/bin", mkdirs("~/go/pkg"), shim,
         git_on_path("go/bin"), in_home=True, target="go/bin/git", left="go/bin"),
    Case("an existing ~/.lesskey", ".lesskey", put_setup("~/.lesskey", "#command\n"), lesskey,
         less_reads(), in_home=True),
    Case("a missing ~/.lesskey", ".lesskey", no_setup, lesskey, less_reads(), in_home=True,
         left=".lesskey"),
    Case("an existing ~/.kube/config", ".kube/config", put_setup("~/.kube/config", "users: []\n"),
         kube, None, in_home=True),
    Case("a missing ~/.kube/config in an existing ~/.kube/", ".kube/config", mkdirs("~/.kube"),
         kube, None, in_home=True, left=".kube/config"),
    Case("a missing ~/.kube/", ".kube/config", no_setup, kube, None, in_home=True,
         report_only=True),
    Case("an existing ~/.aws/config", ".aws/config", put_setup("~/.aws/config", "[default]\n"),
         lambda mark: "credential_process = touch %s\n" % mark, None, in_home=True),
    Case("an existing ~/.rustup/", ".rustup", mkdirs("~/.rustup/toolchains"), shim, None,
         in_home=True, target=".rustup/toolchains/stable/bin/cargo"),
    Case("a missing ~/.rustup/", ".rustup", no_setup, shim, None, in_home=True,
         target=".rustup/toolchains/stable/bin/cargo", report_only=True),
    Case("an existing ~/.nvm/", ".nvm", put_setup("~/.nvm/nvm.sh", "# nvm\n"),
         lambda mark: "touch %s\n" % mark, None, in_home=True, target=".nvm/nvm.sh"),
    Case("an existing ~/.cache/pre-commit/", ".cache/pre-commit", mkdirs("~/.cache/pre-commit"),
         shim, None, in_home=True, target=".cache/pre-commit/repoabc/hook"),
    Case("a missing ~/.claude/plugins/ in an existing ~/.claude/", ".claude/plugins",
         mkdirs("~/.claude"), lambda mark: '{"hooks": {"Stop": [{"command": "touch %s"}]}}\n'
         % mark, None, in_home=True, target=".claude/plugins/x/hooks/hooks.json",
         left=".claude/plugins"),
    Case("an existing ~/.vscode-server/", ".vscode-server",
         mkdirs("~/.vscode-server/extensions"), lambda mark: "require('fs').openSync(%r, 'w')\n"
         % mark, None, in_home=True, target=".vscode-server/extensions/x/main.js"),
    Case("a missing .devcontainer/devcontainer.json in an existing .devcontainer/",
         ".devcontainer/devcontainer.json", mkdirs(".devcontainer"),
         lambda mark: '{"initializeCommand": "touch %s"}\n' % mark, None,
         left=".devcontainer/devcontainer.json"),
    Case("a missing .devcontainer/", ".devcontainer/devcontainer.json", no_setup,
         lambda mark: '{"initializeCommand": "touch %s"}\n' % mark, None, report_only=True),
    Case("a missing .devcontainer.json", ".devcontainer.json", no_setup,
         lambda mark: '{"initializeCommand": "touch %s"}\n' % mark, None),
    # relocated: the variable names another place, read instead
    Case("a missing $XDG_CONFIG_HOME/lesskey", ".config/lesskey", mkdirs("~/xdg"), lesskey,
         less_reads("xdg"), in_home=True, target="xdg/lesskey", report="xdg/lesskey",
         left="xdg/lesskey"),
    Case("a missing $XDG_CONFIG_HOME/nvim/", ".config/nvim", mkdirs("~/xdg"),
         lambda mark: "vim.fn.system('touch %s')\n" % mark, None, in_home=True,
         target="xdg/nvim/init.lua", report="xdg/nvim", left="xdg/nvim"),
    Case("a .pth in an existing $PYTHONUSERBASE/lib/", ".local/lib",
         lambda ws, home, mark: mkdirs("~/" + site_below("pub"))(ws, home, mark),
         lambda mark: "import os; open(%r, 'w').close()\n" % mark, python_user_base("pub"),
         in_home=True, target=site_below("pub") + "/later.pth", report="pub/lib"),
    # a fresh home: no read-only ~/.claude stands in (below), so a plant
    # in it lands and is reported; an existing one holds its entries
    Case("a missing ~/.claude/ (a fresh home)", ".claude/settings.json", no_setup,
         lambda mark: '{"hooks": {"Stop": [{"command": "touch %s"}]}}\n' % mark, None,
         in_home=True, report_only=True),
    Case("a missing ~/.claude/settings.json in an existing ~/.claude/", ".claude/settings.json",
         mkdirs("~/.claude"), lambda mark: '{"hooks": {"Stop": [{"command": "touch %s"}]}}\n'
         % mark, None, in_home=True, left=".claude/settings.json"),
]

RELOCATED = {"xdg": "XDG_CONFIG_HOME", "pub": "PYTHONUSERBASE"}


class World(lp.World):
    """later_plants's World; a relocated case's variable names a directory
    in its home, for confine and the file API alike."""
    case = None

    def env(self, home):
        env = lp.World.env(home)
        rel = (self.case.target_rel or "").split("/")[0] if self.case else ""
        if rel in RELOCATED:
            env[RELOCATED[rel]] = os.path.join(home, rel)
        return env


def fresh_home_claude(w):
    """A `--writable ~` run in a home with no `.claude`: the command (an
    agent) makes `~/.claude/projects/` and writes there."""
    user = pwd.getpwuid(os.getuid()).pw_name
    case = Case("a fresh home", ".claude/settings.json", no_setup, None, None, in_home=True)
    w.case = None
    ws, home, mark = w.fresh(case, "claude-fresh")
    out = w.run(ws, home, [], "mkdir -p %s/.claude/projects/p && echo x > %s/.claude/projects/p/"
                "log && cat %s/.claude/projects/p/log" % (home, home, home))
    check(out.get("error") is None and out["exitCode"] == 0 and out["stdout"].strip() == "x",
          "a fresh home: the run could not make ~/.claude/projects/:",
          (w.runner, user, out.get("exitCode"), out.get("stderr")))
    check(lp.marked_entries(ws, home) == [], "placeholders left:", lp.marked_entries(ws, home))
    TAP.ok("a fresh home's ~/.claude/projects/ is made [%s, %s]" % (w.runner, user))


def passwd_home(w, elsewhere=False):
    """`$HOME` unset: the home a later login sees, the passwd entry's, is
    the home (the file API refuses its entry; the created user's run holds
    its `.bashrc`, which useradd -m put there, or reports it). With
    `elsewhere`, `$HOME` names another directory (R28c-home-env): the
    passwd home's entries are protected as well, the same way."""
    me = pwd.getpwuid(os.getuid())
    user, home = me.pw_name, os.path.realpath(me.pw_dir)
    env = {k: v for k, v in os.environ.items() if k not in ("HOME", "XDG_CONFIG_HOME")}
    other = None
    if elsewhere:
        other = tempfile.mkdtemp(prefix="confine-later-otherhome.")
        env["HOME"] = other
    try:
        passwd_home_cases(w, user, home, env, "$HOME elsewhere" if elsewhere else "$HOME unset")
    finally:
        if other:
            shutil.rmtree(other, ignore_errors=True)


def passwd_home_cases(w, user, home, env, how):
    target = os.path.join(home, ".xsessionrc")
    if os.path.lexists(target):
        TAP.skip("%s, fs [%s, %s]" % (how, w.runner, user), "%s exists" % target)
    else:
        try:
            done = subprocess.run([w.confine, "fs", "--json", "-m", "workspace-write", "-w",
                                   home, "write", target], input="touch x\n",
                                  capture_output=True, text=True, env=env, timeout=60)
            check(done.returncode == 1 and "denied by defaultProtections" in done.stdout,
                  how + ": the passwd home's entry not refused:",
                  (user, done.returncode, done.stdout, done.stderr))
            check(not os.path.lexists(target), how + ": the file API wrote it:", target)
        finally:
            if os.path.lexists(target):
                os.unlink(target)
        TAP.ok("%s, fs [%s, %s]: the passwd home's entry refused" % (how, w.runner, user))
    # $HOME unset: the .bashrc useradd -m made. $HOME elsewhere: a missing
    # .gitconfig, a home-only entry (a root's top does not hold it, so only
    # the passwd home's own entries can)
    elsewhere = how.endswith("elsewhere")
    target = os.path.join(home, ".gitconfig" if elsewhere else ".bashrc")
    if os.getuid() == 0 or (not elsewhere and not os.path.isfile(target)) or \
            (elsewhere and os.path.lexists(target)):
        TAP.skip("%s, run [%s, %s]" % (how, w.runner, user),
                 "only in the created user's own home (its .bashrc from useradd -m, "
                 "no .gitconfig)")
        return
    mark = os.path.join(w.base, "marks", "passwd-home-" + how.split()[-1])
    # the configuration outside the home, which is the writable root
    outside = tempfile.mkdtemp(prefix="confine-later-home.")
    config = shutil.copy(w.config, outside)
    try:
        done = subprocess.run([w.confine, "bash", "--json", "--config", config, "--runner",
                               w.runner, "-m", "workspace-write", "-w", home, "-c",
                               "printf 'touch %s\\n' >> %s; true" % (mark, target)],
                              capture_output=True, text=True, cwd=w.base, env=env, timeout=300)
        landed = os.path.isfile(target) and mark in open(target).read()
    finally:
        shutil.rmtree(outside, ignore_errors=True)
        if elsewhere and os.path.lexists(target):
            os.unlink(target)
    out = lp.json.loads(done.stdout)
    check(out.get("error") is None, how + ": the run failed:", (out, done.stderr))
    hazards = [(h["path"], h["kind"]) for h in out["sandbox"]["gitHazards"]]
    name = os.path.basename(target)
    if w.runner == "bwrap":
        check(not landed, how + ", bwrap run: the passwd home's %s written:" % name, out)
    else:
        check(landed and (target, "planted") in hazards,
              how + ", landlock run: %s not reported planted:" % name, (landed, hazards))
    TAP.ok("%s, run [%s, %s]: %s %s" % (how, w.runner, user, name,
                                         "held" if not landed else "reported"))


def run_table(confine, launcher, runner):
    w = World(confine, launcher, runner)
    try:
        probe = subprocess.run([confine, "bash", "--json", "--config", w.config, "--runner",
                                runner, "-m", "read-only", "-w", w.base, "-c", "true"],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            return "runner %s is not usable here: %s" % (runner, probe.stderr)
        for case in CASES:
            if case.oracle is None and case.entry.startswith(".claude/") and \
                    case.target_rel is None:
                case.oracle = lp.claude_hooks(case)
            w.case = case
            TAP.guard("%s [%s]" % (case.name, runner), lp.one_case, w, case)
        w.case = None
        TAP.guard("a fresh home [%s]" % runner, fresh_home_claude, w)
        TAP.guard("$HOME unset [%s]" % runner, passwd_home, w)
        TAP.guard("$HOME elsewhere [%s]" % runner, passwd_home, w, True)
        return None
    finally:
        shutil.rmtree(w.base, ignore_errors=True)


def main():
    return TAP.main_beside_user("cflhome", __file__, lambda args: run_table(*args[:3]))


if __name__ == "__main__":
    sys.exit(main())
