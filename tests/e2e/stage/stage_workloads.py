# SPDX-License-Identifier: MIT
"""Real workloads staged, then applied (issue 31, doc/SPEC.md 21), one rung
per invocation (argv: confine landlock-run RUNNER), as root and then as a
created user. Each: the staged run does its work (what it built or wrote
is there inside the run: the control that the command did write), the
real tree is byte-identical afterwards, `stage diff` lists what it made,
and after `stage apply` the real tree has it and works:

- `make` of a small C project: the objects and the program; the applied
  program runs;
- `python3 -m unittest` writing __pycache__ (and pytest's cache where
  pytest is installed);
- `git commit` in a staged run: a staged commit is the commit's objects,
  index, ref and logs held in the stage (listed apart, under `git`), the
  work tree's change with them; apply brings both, and the real repository
  then has the commit (`git log`, `git fsck`, a clean status);
- `npm install` of a small local package (a `file:` tarball, offline, the
  cache in the run's private temp): node_modules and package-lock.json;
  the applied module loads."""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stagelib  # noqa: E402
from stagelib import check, run, snapshot  # noqa: E402

GIT = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "init.defaultBranch=main"]


def staged(confine, runner, ws, stage, script, env=None):
    r = subprocess.run([confine, "run", "--runner", runner, "-w", ws, "--stage", stage, "--",
                        "sh", "-c", script], cwd=ws, capture_output=True, text=True, timeout=300,
                       env=env)
    check(r.returncode == 0, "the staged run", (r.returncode, r.stdout[-800:], r.stderr[-1500:]))
    return r


def listing(confine, stage):
    d = run([confine, "stage", "diff", stage, "--json"])
    check(d.returncode == 0, "stage diff", d.stderr)
    out = json.loads(d.stdout)
    return ({(c["path"], c["change"]) for c in out["changes"]},
            {(c["path"], c["change"]) for c in out["git"]})


def apply_all(confine, stage):
    a = run([confine, "stage", "apply", stage, "--json"])
    results = json.loads(a.stdout)["results"] if a.stdout else []
    check(a.returncode == 0 and all(e["outcome"] == "applied" for e in results),
          "stage apply", (a.returncode, [e for e in results if e["outcome"] != "applied"],
                          a.stderr[-800:]))
    return results


def case_make(confine, runner, base):
    ws = os.path.join(base, "proj")
    os.makedirs(ws)
    files = {"main.c": '#include "greet.h"\nint main(void) { return greet(); }\n',
             "greet.c": '#include <stdio.h>\n#include "greet.h"\n'
                        'int greet(void) { puts("built staged"); return 0; }\n',
             "greet.h": "int greet(void);\n",
             "Makefile": "prog: main.o greet.o\n\t$(CC) -o $@ main.o greet.o\n"
                         "%.o: %.c greet.h\n\t$(CC) -c -o $@ $<\n"}
    for name, text in files.items():
        with open(os.path.join(ws, name), "w") as f:
            f.write(text)
    stage = os.path.join(base, "stage")
    before = snapshot(ws)
    r = staged(confine, runner, ws, stage, "make -s CC=cc && ./prog")
    check("built staged" in r.stdout, "the program was built and ran inside the run", r.stdout)
    check(snapshot(ws) == before, "the real tree is untouched by make")
    changes, _ = listing(confine, stage)
    check(changes == {("main.o", "added"), ("greet.o", "added"), ("prog", "added")},
          "the listing is the build's outputs", sorted(changes))
    apply_all(confine, stage)
    p = run([os.path.join(ws, "prog")])
    check(p.returncode == 0 and p.stdout == "built staged\n", "the applied program runs", p)
    check(os.stat(os.path.join(ws, "prog")).st_mode & 0o111, "its execute bits are kept")
    m = run(["make", "-q", "-C", ws, "CC=cc"])
    check(m.returncode == 0, "make sees the applied build up to date", m)


def case_unittest(confine, runner, base):
    ws = os.path.join(base, "py")
    os.makedirs(os.path.join(ws, "pkg"))
    with open(os.path.join(ws, "pkg", "__init__.py"), "w") as f:
        f.write("def double(x):\n    return 2 * x\n")
    with open(os.path.join(ws, "test_pkg.py"), "w") as f:
        f.write("import unittest\nimport pkg\n\n\nclass T(unittest.TestCase):\n"
                "    def test_double(self):\n        self.assertEqual(pkg.double(2), 4)\n")
    stage = os.path.join(base, "stage")
    before = snapshot(ws)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    # pytest: this interpreter's, else Debian's (python3-pytest, which
    # .ci/run installs: there a missing pytest is a failure, not a skip).
    pytest_python = next((p for p in (sys.executable, "/usr/bin/python3")
                          if os.path.exists(p)
                          and run([p, "-c", "import pytest"]).returncode == 0), None)
    has_pytest = pytest_python is not None
    if not has_pytest and os.environ.get("CONFINE_MUST_WORK") == "1":
        check(False, "pytest is installed (python3-pytest)")
    script = '"$0" -m unittest -q 2>&1 && ls __pycache__ pkg/__pycache__'
    if has_pytest:
        script += ' && "$1" -m pytest -q 2>&1'
    r = subprocess.run([confine, "run", "--runner", runner, "-w", ws, "--stage", stage, "--",
                        "sh", "-c", script, sys.executable, pytest_python or ""], cwd=ws,
                       capture_output=True, text=True, timeout=300, env=env)
    check(r.returncode == 0 and ".pyc" in r.stdout, "unittest ran and wrote bytecode inside",
          (r.returncode, r.stdout, r.stderr[-800:]))
    check(snapshot(ws) == before, "the real tree is untouched by the tests")
    changes, _ = listing(confine, stage)
    paths = {p for p, _ in changes}
    check(("__pycache__", "added") in changes and ("pkg/__pycache__", "added") in changes
          and any(p.startswith("pkg/__pycache__/__init__.") and p.endswith(".pyc") for p in paths),
          "the listing has the caches", sorted(changes))
    if has_pytest:
        check("1 passed" in r.stdout, "pytest ran the test inside", r.stdout[-400:])
        check(any(p.startswith(".pytest_cache") for p in paths), "pytest's cache is listed")
    else:
        print("# pytest is not installed here: unittest alone")
    apply_all(confine, stage)
    pyc = [n for n in os.listdir(os.path.join(ws, "pkg", "__pycache__")) if n.endswith(".pyc")]
    check(pyc, "the applied cache is there")
    v = run([sys.executable, "-c", "import importlib.util, sys; sys.path.insert(0, %r); "
             "import pkg; print(pkg.__cached__)" % ws])
    check(v.returncode == 0 and os.path.exists(v.stdout.strip()), "python finds the applied cache", v)


def case_git_commit(confine, runner, base):
    ws = os.path.join(base, "repo")
    os.makedirs(ws)
    check(run(GIT + ["init", "-q", ws]).returncode == 0, "git init")
    with open(os.path.join(ws, "f.txt"), "w") as f:
        f.write("one\n")
    check(run(GIT + ["add", "f.txt"], cwd=ws).returncode == 0, "git add")
    check(run(GIT + ["commit", "-qm", "base"], cwd=ws).returncode == 0, "git commit base")
    head = run(["git", "rev-parse", "HEAD"], cwd=ws).stdout.strip()
    stage = os.path.join(base, "stage")
    before = snapshot(ws)
    r = staged(confine, runner, ws, stage,
               "echo two >> f.txt && echo new > g.txt && git add f.txt g.txt && "
               + " ".join(GIT) + " commit -qm staged && git log --format=%s -1")
    check(r.stdout.strip() == "staged", "the commit was made inside the run", r.stdout)
    check(snapshot(ws) == before, "the real repository is untouched by the commit")
    check(run(["git", "rev-parse", "HEAD"], cwd=ws).stdout.strip() == head, "HEAD has not moved")
    changes, git = listing(confine, stage)
    check(changes == {("f.txt", "modified"), ("g.txt", "added")}, "the work tree's changes",
          sorted(changes))
    gitpaths = {p for p, _ in git}
    check({".git/index", ".git/refs/heads/main", ".git/logs/HEAD"} <= gitpaths
          and any(p.startswith(".git/objects/") for p in gitpaths),
          "the commit's objects, index, ref and logs are listed apart", sorted(gitpaths))
    apply_all(confine, stage)
    log = run(["git", "log", "--format=%s"], cwd=ws)
    check(log.stdout.split() == ["staged", "base"], "the real repository has the commit", log)
    check(run(["git", "status", "--porcelain"], cwd=ws).stdout == "", "a clean status after apply")
    fsck = run(["git", "fsck", "--strict"], cwd=ws)
    check(fsck.returncode == 0, "git fsck", fsck.stderr)
    check(open(os.path.join(ws, "f.txt")).read() == "one\ntwo\n", "the work tree's change landed")


def case_npm(confine, runner, base):
    if not shutil.which("npm") or not shutil.which("node"):
        raise stagelib.Skip("npm is not installed here")
    pkg = os.path.join(base, "tiny")
    os.makedirs(pkg)
    with open(os.path.join(pkg, "package.json"), "w") as f:
        json.dump({"name": "tiny", "version": "1.0.0", "main": "index.js"}, f)
    with open(os.path.join(pkg, "index.js"), "w") as f:
        f.write("module.exports = () => 'tiny loaded';\n")
    # The tarball inside the workspace (bwrap's /tmp is the run's own).
    ws = os.path.join(base, "app")
    os.makedirs(os.path.join(ws, "vendor"))
    cache = os.path.join(base, "npm-cache")
    p = run(["npm", "pack", "--silent", "--pack-destination", os.path.join(ws, "vendor")], cwd=pkg,
            env=dict(os.environ, npm_config_cache=cache, npm_config_update_notifier="false"))
    check(p.returncode == 0 and os.path.exists(os.path.join(ws, "vendor", "tiny-1.0.0.tgz")),
          "npm pack", p.stderr)
    shutil.rmtree(cache, ignore_errors=True)
    with open(os.path.join(ws, "package.json"), "w") as f:
        json.dump({"name": "app", "version": "1.0.0",
                   "dependencies": {"tiny": "file:vendor/tiny-1.0.0.tgz"}}, f)
    stage = os.path.join(base, "stage")
    before = snapshot(ws)
    r = staged(confine, runner, ws, stage,
               'export npm_config_cache="${TMPDIR:-/tmp}/npm-cache" npm_config_update_notifier=false; '
               "npm install --offline --no-audit --no-fund --silent && "
               "node -e \"console.log(require('tiny')())\"")
    check("tiny loaded" in r.stdout, "npm installed the package inside the run", r.stdout)
    check(snapshot(ws) == before, "the real tree is untouched by npm install")
    changes, _ = listing(confine, stage)
    paths = {p for p, _ in changes}
    check({"node_modules", "node_modules/tiny/index.js", "package-lock.json"} <= paths,
          "the listing has node_modules and the lock file", sorted(paths))
    apply_all(confine, stage)
    n = run(["node", "-e", "console.log(require('tiny')())"], cwd=ws)
    check(n.returncode == 0 and n.stdout == "tiny loaded\n", "the applied module loads", n)


CASES = [case_make, case_unittest, case_git_commit, case_npm]


def main():
    return stagelib.main(__file__, CASES, user_prefix="cfsgl", prefix="cf-stage-load-", tools=('git', 'make', 'cc'), base_mode=0o755)


if __name__ == "__main__":
    sys.exit(main())
