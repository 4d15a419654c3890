#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A relative denyRead means one thing at every door (issue 27, doc/SPEC.md
15 "Patterns"): `.env` and `*.env` hide every match at any depth under the
workspace, as gitignore reads them, from the CLI flag, the config file, the
Python package (the library's own appenders: the C door) and the Node
package (the CLI underneath). Once they meant the literal `<cwd>/.env` at
three doors and were refused at the fourth, and a nested `sub/deep/.env`
was printed while the report said `denyRead enforced`.

Each door runs `cat sub/deep/.env` confined on RUNNER and must not print
the secret; an unconfined control reads it; `~/x` is x under $HOME.

Usage: deny_read_doors.py CONFINE LAUNCHER RUNNER SOURCE_ROOT LIBRARY
Exit 77 (skip) when RUNNER does not work here, unless CONFINE_MUST_WORK=1.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "helpers"))
from outside_tmp import launcher_outside_tmp  # noqa: E402
from tap import Tap  # noqa: E402

SECRET = "nested-secret-do-not-print"
TAP = Tap()


def check(cond, what, detail=""):
    TAP.check(cond, what, str(detail)[-800:])


def main():
    confine, launcher, runner, source_root, library = sys.argv[1:6]
    home = os.environ.get("HOME") or "/tmp"
    root = os.path.join(home, ".cache", "confine-tests")
    os.makedirs(root, exist_ok=True)
    base = os.path.realpath(tempfile.mkdtemp(prefix="deny-read-doors.", dir=root))
    try:
        return run_doors(confine, launcher_outside_tmp(launcher), runner, source_root, library,
                         base)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def run_doors(confine, launcher, runner, source_root, library, base):
    ws = os.path.join(base, "ws")
    deep = os.path.join(ws, "sub", "deep")
    os.makedirs(deep)
    for name in (".env", "prod.env"):
        with open(os.path.join(deep, name), "w") as f:
            f.write(SECRET + "\n")
    with open(os.path.join(ws, "visible.txt"), "w") as f:
        f.write("visible\n")
    config = os.path.join(base, "config.json")
    with open(config, "w") as f:
        json.dump({"landlockLauncher": launcher}, f)
    env = dict(os.environ, CONFINE_CONFIG="")

    probe = subprocess.run([confine, "probe", "--config", config, "--runner", runner],
                           capture_output=True, text=True, env=env)
    if probe.returncode != 0:
        return TAP.skip_all("runner %s unusable here: %s" % (runner, probe.stdout + probe.stderr))

    # The unconfined control: the file is there and readable.
    with open(os.path.join(deep, ".env")) as f:
        check(f.read().strip() == SECRET, "control: sub/deep/.env is readable unconfined")

    cat = ["sh", "-c", "cat sub/deep/.env sub/deep/prod.env; cat visible.txt"]
    # read-only: where both rungs can hold a denyRead inside the workspace
    # (Landlock cannot take read access away below a writable grant; that
    # case must be reported, checked at the end)
    mode = "read-only"

    def cli(extra_flags, cfg=config):
        # from the workspace: a relative entry joined to the cwd (as it
        # once was) is <ws>/.env, which does not exist, and the nested one
        # is printed
        return subprocess.run([confine, "run", "--config", cfg, "--runner", runner, "-m",
                               mode, "-w", ws] + extra_flags + ["--"] + cat,
                              capture_output=True, text=True, env=env, cwd=ws, timeout=120)

    def held(door, r):
        check(SECRET not in r.stdout and "visible" in r.stdout,
              "%s: nested .env and *.env hidden, the rest readable (%s)" % (door, runner),
              (r.returncode, r.stdout, r.stderr))

    held("CLI --deny-read .env --deny-read '*.env'",
         cli(["--deny-read", ".env", "--deny-read", "*.env"]))

    with_deny = os.path.join(base, "deny.json")
    with open(with_deny, "w") as f:
        json.dump({"landlockLauncher": launcher, "denyRead": [".env", "*.env"]}, f)
    held("config denyRead [.env, *.env]", cli([], with_deny))

    # ~/x is x under $HOME, from the config file and the flag alike.
    home_env = dict(env, HOME=deep)
    r = subprocess.run([confine, "run", "--config", config, "--runner", runner, "-m",
                        mode, "-w", ws, "--deny-read", "~/.env", "--"]
                       + ["cat", "sub/deep/.env"], capture_output=True, text=True, env=home_env,
                       cwd=ws, timeout=120)
    check(SECRET not in r.stdout, "CLI --deny-read '~/.env' is $HOME/.env (%s)" % runner,
          (r.returncode, r.stdout, r.stderr))

    # The report names the pattern and what it matched.
    w = subprocess.run([confine, "wrap", "--config", config, "--runner", runner, "-m",
                        "workspace-write", "-w", ws, "--deny-read", ".env", "--", "true"],
                       capture_output=True, text=True, env=env, cwd=base)
    check(w.returncode == 0, "wrap with a relative denyRead", w.stdout + w.stderr)
    if w.returncode == 0:
        report = json.loads(w.stdout)
        check(report["policy"]["denyRead"] == [".env"],
              "the echoed policy keeps the pattern as given", report["policy"]["denyRead"])
        subjects = [c["subject"] for c in report["clauses"] if c["clause"] == "denyRead"]
        check(os.path.join(deep, ".env") in subjects and ".env" in subjects,
              "the report lists the pattern and its nested match", subjects)

    # Python (the library through its own appenders: the C door).
    py = subprocess.run([sys.executable, "-c", PY_DOOR, os.path.join(source_root, "bindings",
                                                                     "python"),
                         ws, runner, launcher] + cat,
                        capture_output=True, text=True, env=dict(env, CONFINE_LIBRARY=library),
                        cwd=base, timeout=120)
    held("Python deny_read=['.env', '*.env']", py)

    node = shutil.which("node")
    if node:
        nd = subprocess.run([node, "-e", NODE_DOOR, os.path.join(source_root, "bindings", "node",
                                                                 "index.js"),
                             ws, runner, config] + cat,
                            capture_output=True, text=True, env=dict(env, CONFINE_BIN=confine),
                            cwd=base, timeout=120)
        held("Node denyRead: ['.env', '*.env']", nd)
    else:
        TAP.skip("Node denyRead", "no node here: the Node door is not checked")

    # workspace-write: bwrap still hides it; Landlock cannot, and says so
    # for the nested match by name (never "enforced").
    r = subprocess.run([confine, "run", "--config", config, "--runner", runner, "-m",
                        "workspace-write", "-w", ws, "--deny-read", ".env", "--"] + cat,
                       capture_output=True, text=True, env=env, cwd=ws, timeout=120)
    if runner == "landlock":
        check("not enforced on this run" in r.stderr
              and "denyRead %s (it lies inside a directory Landlock grants writable"
              % os.path.join(deep, ".env") in r.stderr,
              "landlock workspace-write: the nested match is reported unenforced", r.stderr)
    else:
        check(r.stdout.count(SECRET) == 1 and "visible" in r.stdout,
              "bwrap workspace-write: the nested .env hidden", (r.stdout, r.stderr))

    return TAP.done()


PY_DOOR = r"""
import sys
sys.path.insert(0, sys.argv[1])
import confine
ws, runner, launcher = sys.argv[2:5]
provider = confine.Provider(runner=runner, landlock_launcher=launcher)
r = confine.run(sys.argv[5:], mode="read-only", workspace=ws, cwd=ws,
                provider=provider, deny_read=[".env", "*.env"])
sys.stdout.write(r.stdout if isinstance(r.stdout, str) else r.stdout.decode())
sys.stderr.write(r.stderr if isinstance(r.stderr, str) else r.stderr.decode())
"""

NODE_DOOR = r"""
const [index, ws, runner, config, ...argv] = process.argv.slice(1);
const confine = require(index);
confine.run(argv, { mode: 'read-only', workspace: ws, cwd: ws, runner, config,
                    denyRead: ['.env', '*.env'] })
  .then((r) => { process.stdout.write(String(r.stdout)); process.stderr.write(String(r.stderr)); })
  .catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });
"""

if __name__ == "__main__":
    sys.exit(main())
