# SPDX-License-Identifier: MIT
"""Staged runs (issue 31, doc/SPEC.md 21), world effects on disk, one rung
per invocation (argv: confine landlock-run RUNNER), as root and then as a
created user:

- a run that creates, modifies, deletes, renames, chmods, symlinks and
  makes a directory in the workspace and a writable root leaves the real
  tree byte-identical (snapshot) until apply;
- `stage diff --json` lists exactly those changes; `git apply --check`
  accepts `--patch` on a copy of the tree;
- apply makes the tree equal to what the command saw; the stage is left;
- discard leaves the tree as before and removes the stage;
- a host-side edit of a file after the run began is a named conflict, the
  rest is applied, --overwrite applies it;
- a protected path (.git/hooks, .git/config) is never applied;
- kill -9 of confine mid-run leaves the tree as it was, nothing of the run
  survives, and the stage is readable and discardable;
- a stage inside the workspace, or not empty, is refused before anything
  runs."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "helpers"))
from as_user import run_as_created_user  # noqa: E402
from outside_tmp import launcher_outside_tmp  # noqa: E402

SKIP = 77


def check(cond, what, detail=""):
    if not cond:
        raise AssertionError("%s %s" % (what, detail))


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, **kw)


def snapshot(top):
    """Every entry below top: type, permission bits, bytes or link target."""
    out = {}
    for root, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(dirs + files):
            p = os.path.join(root, name)
            rel = os.path.relpath(p, top)
            st = os.lstat(p)
            if os.path.islink(p):
                out[rel] = ("l", os.readlink(p))
            elif os.path.isdir(p):
                out[rel] = ("d", oct(st.st_mode & 0o7777))
            else:
                with open(p, "rb") as f:
                    out[rel] = ("f", oct(st.st_mode & 0o7777), f.read().hex())
    return out


# The command: the changes, then what it sees, as JSON on stdout.
COMMAND = r"""
import json, os, sys
ws, wr = sys.argv[1], sys.argv[2]
open(os.path.join(ws, "new.txt"), "w").write("new\n")
with open(os.path.join(ws, "mod.txt"), "a") as f: f.write("more\n")
os.unlink(os.path.join(ws, "gone.txt"))
os.rename(os.path.join(ws, "old-name.txt"), os.path.join(ws, "new-name.txt"))
os.chmod(os.path.join(ws, "run.sh"), 0o755)
os.symlink("mod.txt", os.path.join(ws, "link"))
os.mkdir(os.path.join(ws, "dir"))
open(os.path.join(ws, "dir", "inner.txt"), "w").write("inner\n")
open(os.path.join(wr, "extra.txt"), "w").write("in the writable root\n")
os.unlink(os.path.join(wr, "drop.txt"))
sys.path.insert(0, sys.argv[3])
from stage_world import snapshot
print(json.dumps({"ws": snapshot(ws), "wr": snapshot(wr)}))
"""

EXPECTED = {
    ("new.txt", "added"), ("mod.txt", "modified"), ("gone.txt", "deleted"),
    ("new-name.txt", "renamed"), ("run.sh", "mode"), ("link", "symlink"),
    ("dir", "added"), ("dir/inner.txt", "added"),
}


def make_tree(base):
    ws = os.path.join(base, "ws")
    wr = os.path.join(base, "wr")
    os.makedirs(ws)
    os.makedirs(wr)
    for name, text in (("mod.txt", "one\n"), ("gone.txt", "bye\n"),
                       ("old-name.txt", "moving\n"), ("run.sh", "echo hi\n"),
                       ("same.txt", "untouched\n")):
        with open(os.path.join(ws, name), "w") as f:
            f.write(text)
    os.chmod(os.path.join(ws, "run.sh"), 0o644)
    with open(os.path.join(wr, "drop.txt"), "w") as f:
        f.write("drop me\n")
    return ws, wr


def staged_run(confine, runner, ws, wr, stage, argv):
    return run([confine, "run", "--runner", runner, "-w", ws, "--writable", wr,
                "--stage", stage, "--"] + argv, cwd=ws)


def case_world(confine, runner, base):
    ws, wr = make_tree(base)
    stage = os.path.join(base, "stage")
    before = {"ws": snapshot(ws), "wr": snapshot(wr)}
    r = staged_run(confine, runner, ws, wr, stage,
                   [sys.executable, "-c", COMMAND, ws, wr, os.path.dirname(os.path.abspath(__file__))])
    check(r.returncode == 0, "the staged run succeeds", (r.returncode, r.stderr))
    seen = json.loads(r.stdout)
    # As JSON carried it: lists, not tuples.
    before = json.loads(json.dumps(before))
    check(seen != before, "the command saw its changes")
    check(json.loads(json.dumps({"ws": snapshot(ws), "wr": snapshot(wr)})) == before,
          "the real tree is byte-identical after the run")
    st = os.stat(stage)
    check(st.st_mode & 0o777 == 0o700 and st.st_uid == os.getuid(), "the stage is 0700, the caller's")
    d = run([confine, "stage", "diff", stage, "--json"])
    check(d.returncode == 0, "stage diff", d.stderr)
    listing = json.loads(d.stdout)
    got = {(c["path"], c["change"]) for c in listing["changes"]}
    want = EXPECTED | {(os.path.join(wr, "extra.txt"), "added"),
                       (os.path.join(wr, "drop.txt"), "deleted")}
    check(got == want, "stage diff --json lists exactly the changes", (sorted(got), sorted(want)))
    renamed = [c for c in listing["changes"] if c["change"] == "renamed"][0]
    check(renamed["from"] == "old-name.txt", "the rename names its old path", renamed)
    check([c for c in listing["changes"] if c["path"] == "run.sh"][0]["mode"] == 0o755,
          "the mode change carries the new bits")
    # git apply --check accepts the patch, on a copy of the tree.
    copy = os.path.join(base, "copy")
    shutil.copytree(ws, copy, symlinks=True)
    p = run([confine, "stage", "diff", stage, "--patch"])
    check(p.returncode == 0 and "diff --git" in p.stdout, "stage diff --patch", p.stderr)
    g = run(["git", "apply", "--check", "-"], cwd=copy, input=p.stdout)
    check(g.returncode == 0, "git apply --check accepts --patch", (g.stderr, p.stdout))
    g = run(["git", "apply", "-"], cwd=copy, input=p.stdout)
    applied = json.loads(json.dumps(snapshot(copy)))
    differ = sorted(k for k in set(applied) | set(seen["ws"]) if applied.get(k) != seen["ws"].get(k))
    check(g.returncode == 0 and not differ, "git apply of --patch gives the command's view",
          (g.stderr, [(k, applied.get(k), seen["ws"].get(k)) for k in differ]))
    # Still untouched; apply makes the tree what the command saw.
    check(json.loads(json.dumps({"ws": snapshot(ws), "wr": snapshot(wr)})) == before,
          "diff and patch write nothing")
    a = run([confine, "stage", "apply", stage])
    check(a.returncode == 0, "stage apply", (a.stdout, a.stderr))
    check(json.loads(json.dumps({"ws": snapshot(ws), "wr": snapshot(wr)})) == seen,
          "after apply the tree is what the command saw",
          (snapshot(ws), seen["ws"]))
    check(os.path.isdir(stage), "apply leaves the stage")
    d = run([confine, "stage", "diff", stage, "--json"])
    check(json.loads(d.stdout)["changes"] == [], "an applied stage holds no more changes", d.stdout)
    check(run([confine, "stage", "discard", stage]).returncode == 0 and not os.path.exists(stage),
          "discard removes the stage")


def case_discard(confine, runner, base):
    ws, wr = make_tree(base)
    stage = os.path.join(base, "stage")
    before = {"ws": snapshot(ws), "wr": snapshot(wr)}
    r = staged_run(confine, runner, ws, wr, stage,
                   ["sh", "-c", "echo x > new.txt; rm gone.txt; echo y >> mod.txt"])
    check(r.returncode == 0, "staged run", r.stderr)
    d = run([confine, "stage", "discard", stage])
    check(d.returncode == 0, "discard", d.stderr)
    check(not os.path.exists(stage), "discard removes the stage")
    check({"ws": snapshot(ws), "wr": snapshot(wr)} == before, "discard leaves the tree as it was")


def case_conflict(confine, runner, base):
    ws, wr = make_tree(base)
    stage = os.path.join(base, "stage")
    proc = subprocess.Popen([confine, "run", "--runner", runner, "-w", ws, "--writable", wr,
                             "--stage", stage, "--", "sh", "-c",
                             "echo staged >> mod.txt; echo staged > same.txt; "
                             "touch started; sleep 2"],
                            cwd=ws, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while not os.path.exists(os.path.join(stage, "roots", "0", "upper", "started")):
        check(time.time() < deadline and proc.poll() is None, "the run starts")
        time.sleep(0.05)
    with open(os.path.join(ws, "mod.txt"), "w") as f:  # the host edits during the run
        f.write("host edit\n")
    out, err = proc.communicate(timeout=60)
    check(proc.returncode == 0, "staged run", err)
    a = run([confine, "stage", "apply", stage, "--json"])
    check(a.returncode == 1, "apply with a conflict exits 1", (a.returncode, a.stdout, a.stderr))
    results = {e["path"]: e for e in json.loads(a.stdout)["results"]}
    check(results["mod.txt"]["outcome"] == "conflict" and "mod.txt" in results["mod.txt"]["message"],
          "the host-edited file is a named conflict", results)
    check(results["same.txt"]["outcome"] == "applied", "the rest is applied", results)
    check(open(os.path.join(ws, "mod.txt")).read() == "host edit\n", "the host's version stays")
    check(open(os.path.join(ws, "same.txt")).read() == "staged\n", "the other file landed")
    check(open(os.path.join(stage, "roots", "0", "upper", "mod.txt")).read() == "one\nstaged\n",
          "the stage keeps its version of the conflict")
    a = run([confine, "stage", "apply", stage, "mod.txt", "--overwrite"])
    check(a.returncode == 0 and open(os.path.join(ws, "mod.txt")).read() == "one\nstaged\n",
          "--overwrite applies it", (a.stdout, a.stderr))


def case_protected(confine, runner, base):
    ws = os.path.join(base, "repo")
    os.makedirs(ws)
    check(run(["git", "init", "-q", ws]).returncode == 0, "git init")
    stage = os.path.join(base, "stage")
    before = snapshot(ws)
    r = run([confine, "run", "--runner", runner, "-w", ws, "--stage", stage, "--", "sh", "-c",
             "echo evil > .git/hooks/post-checkout; echo '[core]' >> .git/config; echo ok > fine.txt"],
            cwd=ws)
    check(r.returncode in (0, 1, 2), "staged run in a repository", r.stderr)
    a = run([confine, "stage", "apply", stage, "--json"])
    results = {e["path"]: e["outcome"] for e in json.loads(a.stdout)["results"]} if a.stdout else {}
    check(results.get("fine.txt") == "applied", "an ordinary file is applied", (a.stdout, a.stderr))
    for p in (".git/hooks/post-checkout", ".git/config"):
        if p in results:
            check(results[p] == "refused", "a protected path is refused", (p, results))
    check(not os.path.exists(os.path.join(ws, ".git/hooks/post-checkout")), "no hook lands")
    after = snapshot(ws)
    check(after.get(".git/config") == before.get(".git/config"), ".git/config unchanged")


def case_kill9(confine, runner, base):
    ws, wr = make_tree(base)
    stage = os.path.join(base, "stage")
    before = {"ws": snapshot(ws), "wr": snapshot(wr)}
    marker = "cf-stage-kill9-%d" % os.getpid()
    proc = subprocess.Popen([confine, "run", "--runner", runner, "-w", ws, "--writable", wr,
                             "--stage", stage, "--", "sh", "-c",
                             "echo x > new.txt; rm gone.txt; exec sleep 300 %s" % marker],
                            cwd=ws, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    upper = os.path.join(stage, "roots", "0", "upper", "new.txt")
    deadline = time.time() + 30
    while not os.path.exists(upper):
        check(time.time() < deadline and proc.poll() is None, "the run starts")
        time.sleep(0.05)
    time.sleep(0.2)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.time() + 10
    while time.time() < deadline and survivors(marker):
        time.sleep(0.1)
    check(not survivors(marker), "nothing of the run survives kill -9 of confine")
    check({"ws": snapshot(ws), "wr": snapshot(wr)} == before, "the real tree is as it was")
    d = run([confine, "stage", "diff", stage, "--json"])
    check(d.returncode == 0, "the stage is readable after kill -9", d.stderr)
    got = {(c["path"], c["change"]) for c in json.loads(d.stdout)["changes"]}
    check(got == {("new.txt", "added"), ("gone.txt", "deleted")}, "it lists what the run did", got)
    check(run([confine, "stage", "discard", stage]).returncode == 0 and not os.path.exists(stage),
          "and is discarded")


def survivors(marker):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if marker.encode() in f.read():
                    found.append(pid)
        except OSError:
            pass
    return found


def case_refusals(confine, runner, base):
    ws, wr = make_tree(base)
    inside = os.path.join(ws, "stage")
    r = run([confine, "run", "--runner", runner, "-w", ws, "--stage", inside, "--", "true"], cwd=ws)
    check(r.returncode == 125 and "stage" in r.stderr, "a stage inside the workspace is refused",
          (r.returncode, r.stderr))
    full = os.path.join(base, "full")
    os.makedirs(full)
    open(os.path.join(full, "x"), "w").close()
    r = run([confine, "run", "--runner", runner, "-w", ws, "--stage", full, "--",
             "sh", "-c", "echo no > new.txt"], cwd=ws)
    check(r.returncode == 125 and not os.path.exists(os.path.join(ws, "new.txt")),
          "a stage that is not empty is refused, and nothing ran", (r.returncode, r.stderr))
    r = run([confine, "stage", "diff", full])
    check(r.returncode == 125 and "no stage" in r.stderr, "a directory without a manifest is no stage",
          r.stderr)
    r = run([confine, "stage", "discard", full])
    check(r.returncode == 125 and os.path.exists(os.path.join(full, "x")),
          "discard removes nothing that is not a stage", r.stderr)


def case_opaque_and_link_out(confine, runner, base):
    """A directory removed and made again (overlayfs's opaque directory)
    lists its old entries deleted and its new ones added; a real parent
    that became a link out of the workspace after the run is refused at
    apply, and nothing lands where it points."""
    ws, wr = make_tree(base)
    os.makedirs(os.path.join(ws, "sub"))
    with open(os.path.join(ws, "sub", "old.txt"), "w") as f:
        f.write("old\n")
    outside = os.path.join(base, "outside")
    os.makedirs(outside)
    stage = os.path.join(base, "stage")
    r = staged_run(confine, runner, ws, wr, stage,
                   ["sh", "-c", "rm -r sub && mkdir sub && echo new > sub/new.txt && "
                                "mkdir d && echo f > d/f.txt"])
    check(r.returncode == 0, "staged run", r.stderr)
    d = run([confine, "stage", "diff", stage, "--json"])
    got = {(c["path"], c["change"]) for c in json.loads(d.stdout)["changes"]}
    check(got == {("sub/old.txt", "deleted"), ("sub/new.txt", "added"), ("d", "added"),
                  ("d/f.txt", "added")}, "an opaque directory's listing", sorted(got))
    os.symlink(outside, os.path.join(ws, "d"))  # the host plants a link where d goes
    a = run([confine, "stage", "apply", stage, "--json"])
    results = {e["path"]: e["outcome"] for e in json.loads(a.stdout)["results"]}
    check(a.returncode == 1 and results.get("d") == "conflict"
          and results.get("d/f.txt") in ("refused", "conflict"),
          "a parent turned link out is never followed", results)
    check(os.listdir(outside) == [], "nothing lands outside", os.listdir(outside))
    check(results.get("sub/new.txt") == "applied" and results.get("sub/old.txt") == "applied"
          and sorted(os.listdir(os.path.join(ws, "sub"))) == ["new.txt"],
          "the opaque directory applied", results)


def case_no_userns(confine, runner, base):
    """A host without user namespaces, forced in a user namespace of the
    test's own whose user.max_user_namespaces is 0 (the host's is left
    alone): the run is refused naming what is missing, nothing runs, and
    the stage made for it is gone again."""
    if not shutil.which("unshare"):
        print("# no unshare(1): the forced no-user-namespace case is skipped")
        return
    ws, wr = make_tree(base)
    stage = os.path.join(base, "stage")
    before = snapshot(ws)
    script = ('echo 0 > /proc/sys/user/max_user_namespaces || exit 77; '
              'exec "$@"')
    r = run(["unshare", "-U", "-r", "sh", "-c", script, "sh", confine, "run", "--runner", runner,
             "-w", ws, "--stage", stage, "--", "sh", "-c", "echo no > new.txt"], cwd=ws)
    if r.returncode == 77:
        print("# cannot set user.max_user_namespaces in a namespace here: case skipped")
        return
    # A non-root user's namespace maps root away: a root-owned bwrap is
    # then "owned by another user" and refused by the trust rule first.
    named = "user namespaces" in r.stderr or (
        os.getuid() != 0 and runner == "bwrap" and "is not trusted" in r.stderr)
    check(r.returncode == 125 and named,
          "without user namespaces a staged run is refused, naming them", (r.returncode, r.stderr))
    check(snapshot(ws) == before, "nothing ran")
    check(not os.path.exists(stage), "the stage made for the refused run is removed")
    if "user namespaces" in r.stderr:
        check("stage: " in r.stderr and "cannot stage the run" in r.stderr
              and "user.max_user_namespaces" in r.stderr,
              "the refusal names the stage and what is missing", r.stderr)
        # --require-full changes nothing: still refused, naming the stage.
        r = run(["unshare", "-U", "-r", "sh", "-c", script, "sh", confine, "run", "--require-full",
                 "--runner", runner, "-w", ws, "--stage", stage, "--", "sh", "-c",
                 "echo no > new.txt"], cwd=ws)
        check(r.returncode == 125 and "cannot stage the run" in r.stderr,
              "--require-full: refused too, naming the stage", (r.returncode, r.stderr))
        check(snapshot(ws) == before and not os.path.exists(stage), "nothing ran, no stage left")


def case_clause_and_require_full(confine, runner, base):
    """The `stage` clause says what holds the stage on this rung; with
    --require-full a staged run goes ahead only where every clause holds
    (bwrap), else it is refused before anything runs and leaves no stage."""
    ws, wr = make_tree(base)
    stage = os.path.join(base, "stage")
    before = snapshot(ws)
    r = run([confine, "run", "--json", "--runner", runner, "-w", ws, "--stage", stage, "--",
             "sh", "-c", "echo x > new.txt"], cwd=ws)
    check(r.returncode == 0, "a staged run", r.stderr)
    clauses = json.loads(r.stderr.strip().splitlines()[-1])["sandbox"]["clauses"]
    mine = [c for c in clauses if c["clause"] == "stage"]
    check(len(mine) == 1 and mine[0]["status"] == "enforced" and mine[0]["subject"] == stage,
          "one stage clause, enforced", mine)
    want = ("inside bwrap's namespaces" if runner == "bwrap" else
            "in a user and mount namespace of its own")
    check(want in mine[0]["reason"] and "landlock" in mine[0]["layers"],
          "the clause says what holds it on this rung", mine)
    check(snapshot(ws) == before, "staged: the real tree untouched")
    check(run([confine, "stage", "discard", stage]).returncode == 0, "discard")
    r = run([confine, "run", "--json", "--require-full", "--runner", runner, "-w", ws,
             "--stage", stage, "--", "sh", "-c", "echo x > new.txt"], cwd=ws)
    if runner == "bwrap":
        out = json.loads(r.stderr.strip().splitlines()[-1])
        check(r.returncode == 0 and out["sandbox"]["enforcement"] == "full",
              "bwrap holds every clause of a staged run: --require-full runs it", r.stderr[-600:])
        check(snapshot(ws) == before, "and it is staged")
        check(run([confine, "stage", "discard", stage]).returncode == 0, "discard")
    else:
        check(r.returncode == 125 and "requireFull" in r.stderr,
              "Landlock leaves clauses unheld: --require-full refuses", (r.returncode, r.stderr))
        check(snapshot(ws) == before and not os.path.exists(stage),
              "nothing ran, no stage is left")


CASES = [case_world, case_discard, case_conflict, case_protected, case_kill9, case_refusals,
         case_opaque_and_link_out, case_no_userns, case_clause_and_require_full]


def run_table(confine, runner):
    user = "root" if os.getuid() == 0 else "uid %d" % os.getuid()
    failed = 0
    for n, case in enumerate(CASES, 1):
        base = tempfile.mkdtemp(prefix="cf-stage-")
        try:
            case(confine, runner, base)
            print("ok %d - %s %s %s" % (n, runner, user, case.__name__))
        except AssertionError as e:
            failed += 1
            print("not ok %d - %s %s %s: %s" % (n, runner, user, case.__name__, e))
        finally:
            subprocess.run(["chmod", "-R", "u+rwX", base], capture_output=True)
            shutil.rmtree(base, ignore_errors=True)
    print("1..%d" % len(CASES))
    return 1 if failed else 0


def main():
    args = [a for a in sys.argv[1:] if a != "--no-nonroot"]
    confine, launcher, runner = args[0], args[1], args[2]
    config_dir = tempfile.mkdtemp(prefix="cf-stage-config-")
    try:
        config = os.path.join(config_dir, "launcher.json")
        with open(config, "w") as f:
            json.dump({"landlockLauncher": launcher_outside_tmp(launcher)}, f)
        os.environ["CONFINE_CONFIG"] = config
        probe = run([confine, "wrap", "--runner", runner, "--", "true"])
        if probe.returncode != 0:
            print("runner %s unavailable here: %s" % (runner, probe.stdout.strip()))
            return SKIP if os.environ.get("CONFINE_MUST_WORK") != "1" else 1
        r = run_table(confine, runner)
    finally:
        shutil.rmtree(config_dir, ignore_errors=True)
    if r != 0 or os.getuid() != 0 or "--no-nonroot" in sys.argv:
        return r
    return run_as_created_user("cfstg", __file__, args, args[:2], keep_env=("CONFINE_MUST_WORK",))


if __name__ == "__main__":
    sys.exit(main())
