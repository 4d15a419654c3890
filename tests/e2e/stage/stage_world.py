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
- a move onto a protected name (`mv safe .claude`, of a file and of a
  directory) is refused whole: the old name stays, the stage keeps it;
- a workspace root replaced after the run (moved aside and a new
  directory or a link put at its path) is refused whole by apply;
- kill -9 of confine mid-run leaves the tree as it was, nothing of the run
  survives, and the stage is readable and discardable;
- a stage inside the workspace, or not empty, is refused before anything
  runs."""
import inspect
import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stagelib  # noqa: E402
from stagelib import SKIP, Skip, check, run, snapshot  # noqa: E402,F401


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
with open(os.path.join(wr, "wmod.txt"), "a") as f: f.write("more\n")
os.rename(os.path.join(wr, "wold.txt"), os.path.join(wr, "wnew.txt"))
os.chmod(os.path.join(wr, "wrun.sh"), 0o755)
os.symlink("wmod.txt", os.path.join(wr, "wlink"))
exec(sys.argv[3])  # stagelib.snapshot's source: the checkout may be hidden (a clone under /tmp)
print(json.dumps({"ws": snapshot(ws), "wr": snapshot(wr)}))
"""

EXPECTED = {
    ("new.txt", "added"), ("mod.txt", "modified"), ("gone.txt", "deleted"),
    ("new-name.txt", "renamed"), ("run.sh", "mode"), ("link", "symlink"),
    ("dir", "added"), ("dir/inner.txt", "added"),
}
# The same in the writable root, by its absolute path.
EXPECTED_WR = {
    ("extra.txt", "added"), ("drop.txt", "deleted"), ("wmod.txt", "modified"),
    ("wnew.txt", "renamed"), ("wrun.sh", "mode"), ("wlink", "symlink"),
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
    for name, text in (("drop.txt", "drop me\n"), ("wmod.txt", "one\n"),
                       ("wold.txt", "moving\n"), ("wrun.sh", "echo hi\n"),
                       ("wsame.txt", "untouched\n")):
        with open(os.path.join(wr, name), "w") as f:
            f.write(text)
    os.chmod(os.path.join(wr, "wrun.sh"), 0o644)
    return ws, wr


def staged_run(confine, runner, ws, wr, stage, argv):
    return run([confine, "run", "--runner", runner, "-w", ws, "--writable", wr,
                "--stage", stage, "--"] + argv, cwd=ws)


def case_world(confine, runner, base):
    ws, wr = make_tree(base)
    stage = os.path.join(base, "stage")
    before = {"ws": snapshot(ws), "wr": snapshot(wr)}
    r = staged_run(confine, runner, ws, wr, stage,
                   [sys.executable, "-c", COMMAND, ws, wr, inspect.getsource(snapshot)])
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
    want = EXPECTED | {(os.path.join(wr, p), c) for p, c in EXPECTED_WR}
    check(got == want, "stage diff --json lists exactly the changes", (sorted(got), sorted(want)))
    by_path = {c["path"]: c for c in listing["changes"]}
    check(by_path["new-name.txt"]["from"] == "old-name.txt", "the rename names its old path",
          by_path["new-name.txt"])
    check(by_path[os.path.join(wr, "wnew.txt")]["from"] == os.path.join(wr, "wold.txt"),
          "the writable root's rename names its old path", by_path[os.path.join(wr, "wnew.txt")])
    check(by_path["run.sh"]["mode"] == 0o755 and by_path[os.path.join(wr, "wrun.sh")]["mode"] == 0o755,
          "the mode changes carry the new bits")
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
                   [sys.executable, "-c", COMMAND, ws, wr, inspect.getsource(snapshot)])
    check(r.returncode == 0, "staged run", r.stderr)
    d = run([confine, "stage", "diff", stage, "--json"])
    got = {(c["path"], c["change"]) for c in json.loads(d.stdout)["changes"]}
    check(d.returncode == 0 and {(os.path.join(wr, p), c) for p, c in EXPECTED_WR} <= got,
          "the stage holds the writable root's changes", sorted(got))
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


def case_root_replaced(confine, runner, base):
    """Red team round 4, F7: the workspace root moved aside after the run
    and another directory (or a link, even to the original) put at its
    path: apply refuses, naming the root, and nothing lands anywhere; the
    control: the root put back, the same stage applies."""
    ws, wr = make_tree(base)
    stage = os.path.join(base, "stage")
    r = staged_run(confine, runner, ws, wr, stage, ["sh", "-c", "echo staged > new.txt"])
    check(r.returncode == 0, "staged run", r.stderr)
    aside = ws + ".aside"
    os.rename(ws, aside)
    for how in ("a new directory", "a symbolic link to the original"):
        if how == "a new directory":
            os.mkdir(ws)
        else:
            os.rmdir(ws)
            os.symlink(aside, ws)
        a = run([confine, "stage", "apply", stage])
        check(a.returncode == 125 and ws in a.stderr and "not the directory the run was staged"
              in a.stderr, "apply into a replaced root: refused, naming it",
              (how, a.returncode, a.stdout, a.stderr))
        check(not os.path.exists(os.path.join(ws, "new.txt")) and
              not os.path.exists(os.path.join(aside, "new.txt")),
              "apply into a replaced root: nothing landed", how)
    os.unlink(ws)
    os.rename(aside, ws)
    a = run([confine, "stage", "apply", stage])
    check(a.returncode == 0 and open(os.path.join(ws, "new.txt")).read() == "staged\n",
          "control: the root put back, the stage applies", (a.returncode, a.stdout, a.stderr))


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
    # Red team, round 5: a link on the stage's way into the workspace
    # (`L/st`, L -> the workspace) is judged where it leads.
    link = os.path.join(base, "to-ws")
    os.symlink(ws, link)
    r = run([confine, "run", "--runner", runner, "-w", ws, "--stage", os.path.join(link, "st"),
             "--", "true"], cwd=ws)
    check(r.returncode == 125 and "writable root" in r.stderr and
          not os.path.exists(os.path.join(ws, "st")),
          "a stage reached through a link into the workspace is refused, none made",
          (r.returncode, r.stderr))
    # control: the same name through the link lands in the workspace
    os.mkdir(os.path.join(link, "st"))
    check(os.path.isdir(os.path.join(ws, "st")), "control: the link leads into the workspace")
    os.rmdir(os.path.join(ws, "st"))
    os.unlink(link)
    shm = "/dev/shm/confine-stage-test-%d" % os.getpid()
    r = run([confine, "run", "--runner", runner, "-w", ws, "--stage", shm, "--", "true"], cwd=ws)
    check(r.returncode == 125 and "/dev/shm" in r.stderr and not os.path.exists(shm),
          "a stage in /dev/shm (a confined command may write there) is refused",
          (r.returncode, r.stderr))


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
        raise Skip("no unshare(1): the forced no-user-namespace case cannot be made")
    ws, wr = make_tree(base)
    stage = os.path.join(base, "stage")
    before = snapshot(ws)
    script = ('echo 0 > /proc/sys/user/max_user_namespaces || exit 77; '
              'exec "$@"')
    r = run(["unshare", "-U", "-r", "sh", "-c", script, "sh", confine, "run", "--runner", runner,
             "-w", ws, "--stage", stage, "--", "sh", "-c", "echo no > new.txt"], cwd=ws)
    if r.returncode == 77:
        raise Skip("cannot set user.max_user_namespaces in a namespace here")
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


# F4: what the host does below a directory the run deleted, after the run
# began. Each is a conflict: apply deletes nothing of that directory.
HOST_BELOW = {
    "edit": lambda d: open(os.path.join(d, "sub", "old"), "a").write("host edit\n"),
    "create": lambda d: open(os.path.join(d, "sub", "new"), "w").write("host work\n"),
    "file-to-dir": lambda d: (os.unlink(os.path.join(d, "sub", "old")),
                              os.mkdir(os.path.join(d, "sub", "old"))),
    "dir-to-link": lambda d: (shutil.rmtree(os.path.join(d, "sub")),
                              os.symlink(os.path.join(os.path.dirname(os.path.dirname(d)),
                                                      "outside"), os.path.join(d, "sub"))),
    "remode": lambda d: os.chmod(os.path.join(d, "sub", "old"), 0o600),
    "recreate": lambda d: (os.unlink(os.path.join(d, "sub", "old")),
                           open(os.path.join(d, "sub", "old"), "w").write("keep\n")),
    "remove": lambda d: os.unlink(os.path.join(d, "sub", "old")),
}


def deleted_dirs_tree(base):
    ws = os.path.join(base, "ws")
    outside = os.path.join(base, "outside")
    os.makedirs(outside)
    with open(os.path.join(outside, "precious"), "w") as f:
        f.write("outside the workspace\n")
    for name in ["ctl"] + sorted(HOST_BELOW):
        os.makedirs(os.path.join(ws, name, "sub"))
        with open(os.path.join(ws, name, "sub", "old"), "w") as f:
            f.write("keep\n")
        os.chmod(os.path.join(ws, name, "sub", "old"), 0o644)
        with open(os.path.join(ws, name, "top"), "w") as f:
            f.write("top\n")
    return ws, outside


def staged_rm(confine, runner, ws, stage):
    names = " ".join(["ctl"] + sorted(HOST_BELOW))
    r = run([confine, "run", "--runner", runner, "-w", ws, "--stage", stage, "--",
             "sh", "-c", "rm -rf " + names], cwd=ws)
    check(r.returncode == 0, "the staged rm -rf", (r.returncode, r.stderr))


def case_host_below_deleted_dir(confine, runner, base):
    # The control: no host change, apply deletes every directory whole.
    ctl_base = os.path.join(base, "control")
    ws, outside = deleted_dirs_tree(ctl_base)
    stage = os.path.join(ctl_base, "stage")
    staged_rm(confine, runner, ws, stage)
    a = run([confine, "stage", "apply", stage, "--json"])
    check(a.returncode == 0, "control: apply of the deletions exits 0", (a.stdout, a.stderr))
    check(os.listdir(ws) == [], "control: every deleted directory is gone", os.listdir(ws))
    # The host's changes, made after the run (its start is the manifest).
    ws, outside = deleted_dirs_tree(os.path.join(base, "host"))
    stage = os.path.join(base, "host", "stage")
    staged_rm(confine, runner, ws, stage)
    for name, act in HOST_BELOW.items():
        act(os.path.join(ws, name))
    before = {k: v for k, v in snapshot(ws).items() if k.split("/")[0] != "ctl"}
    a = run([confine, "stage", "apply", stage, "--json"])
    check(a.returncode == 1, "apply with host changes below deleted directories exits 1",
          (a.returncode, a.stdout, a.stderr))
    results = {e["path"]: e for e in json.loads(a.stdout)["results"]}
    check(results["ctl"]["outcome"] == "applied", "the untouched directory is deleted", results)
    check(not os.path.exists(os.path.join(ws, "ctl")), "ctl is gone")
    for name in HOST_BELOW:
        e = results.get(name, {})
        check(e.get("outcome") == "conflict" and os.path.join(ws, name) in e.get("message", "")
              and "changed on the host since the run began" in e["message"],
              "%s below a deleted directory is a named conflict" % name, e)
    after = snapshot(ws)
    check(after == before, "apply deleted nothing the host kept",
          sorted(set(before.items()) ^ set(after.items())))
    check(open(os.path.join(outside, "precious")).read() == "outside the workspace\n",
          "the planted link was not followed")
    # --overwrite is the caller's word: the directories go.
    a = run([confine, "stage", "apply", stage, "--overwrite", "--json"])
    check(a.returncode == 0 and os.listdir(ws) == [], "--overwrite deletes them",
          (a.stdout, a.stderr, os.listdir(ws)))
    check(os.path.exists(os.path.join(outside, "precious")), "--overwrite follows no link")


# Every other kind of change onto what the host changed after the run.
KINDS_TREE = {"dir2file/x": "x\n", "dir2link/y": "y\n", "edit.txt": "one\n", "mode.txt": "m\n",
              "ren-a.txt": "moving\n", "gone.txt": "bye\n"}
KINDS_RUN = ("rm -rf dir2file && echo file > dir2file; rm -rf dir2link && ln -s edit.txt dir2link;"
             " echo staged >> edit.txt; chmod 755 mode.txt; mv ren-a.txt ren-b.txt; rm gone.txt;"
             " echo staged > new.txt; mkdir newdir && echo staged > newdir/f")
KINDS_HOST = {
    "dir2file": lambda ws: open(os.path.join(ws, "dir2file", "x"), "a").write("host\n"),
    "dir2link": lambda ws: open(os.path.join(ws, "dir2link", "host"), "w").write("host\n"),
    "edit.txt": lambda ws: open(os.path.join(ws, "edit.txt"), "a").write("host\n"),
    "mode.txt": lambda ws: open(os.path.join(ws, "mode.txt"), "a").write("host\n"),
    # same bytes (still a rename), but touched: another mtime and ctime
    "ren-b.txt": lambda ws: os.utime(os.path.join(ws, "ren-a.txt"), (1, 1)),
    "gone.txt": lambda ws: (os.unlink(os.path.join(ws, "gone.txt")),
                            open(os.path.join(ws, "gone.txt"), "w").write("host\n")),
    "new.txt": lambda ws: open(os.path.join(ws, "new.txt"), "w").write("host\n"),
    "newdir": lambda ws: os.mkdir(os.path.join(ws, "newdir")),
}


def kinds_tree(base):
    ws = os.path.join(base, "ws")
    for rel, text in KINDS_TREE.items():
        os.makedirs(os.path.dirname(os.path.join(ws, rel)), exist_ok=True)
        with open(os.path.join(ws, rel), "w") as f:
            f.write(text)
    os.chmod(os.path.join(ws, "mode.txt"), 0o644)
    return ws


def case_host_under_every_kind(confine, runner, base):
    # The control: every kind applied onto an unchanged tree.
    ws = kinds_tree(os.path.join(base, "control"))
    stage = os.path.join(base, "control", "stage")
    r = run([confine, "run", "--runner", runner, "-w", ws, "--stage", stage, "--",
             "sh", "-c", KINDS_RUN], cwd=ws)
    check(r.returncode == 0, "control: staged run", r.stderr)
    a = run([confine, "stage", "apply", stage, "--json"])
    check(a.returncode == 0, "control: apply exits 0", (a.stdout, a.stderr))
    check(open(os.path.join(ws, "dir2file")).read() == "file\n"
          and os.readlink(os.path.join(ws, "dir2link")) == "edit.txt"
          and open(os.path.join(ws, "edit.txt")).read() == "one\nstaged\n"
          and os.stat(os.path.join(ws, "mode.txt")).st_mode & 0o777 == 0o755
          and not os.path.exists(os.path.join(ws, "ren-a.txt"))
          and not os.path.exists(os.path.join(ws, "gone.txt"))
          and open(os.path.join(ws, "newdir", "f")).read() == "staged\n",
          "control: every change landed", snapshot(ws))
    # The host changes each path after the run.
    ws = kinds_tree(os.path.join(base, "host"))
    stage = os.path.join(base, "host", "stage")
    r = run([confine, "run", "--runner", runner, "-w", ws, "--stage", stage, "--",
             "sh", "-c", KINDS_RUN], cwd=ws)
    check(r.returncode == 0, "staged run", r.stderr)
    for act in KINDS_HOST.values():
        act(ws)
    before = snapshot(ws)
    a = run([confine, "stage", "apply", stage, "--json"])
    check(a.returncode == 1, "apply onto host changes exits 1", (a.returncode, a.stdout, a.stderr))
    results = {e["path"]: e["outcome"] for e in json.loads(a.stdout)["results"]}
    # newdir itself is no change (a directory on both sides); what the stage
    # put in it is, below the host's new directory. A rename is a pair: its
    # old name is reported too (kept, SPEC 21 "a move is a pair").
    want = dict.fromkeys([k for k in KINDS_HOST if k != "newdir"] + ["newdir/f", "ren-a.txt"],
                         "conflict")
    check(results == want, "each change onto a host change is a conflict", (results, want))
    after = snapshot(ws)
    check(after == before, "nothing of the host's was changed",
          sorted(set(before.items()) ^ set(after.items())))
    # The CLI's plain output: the same line per conflict, on stderr.
    a = run([confine, "stage", "apply", stage])
    check(a.returncode == 1 and a.stderr.count("conflict ") == len(want)
          and "changed on the host since the run began" in a.stderr,
          "plain apply prints one conflict line each", (a.returncode, a.stderr))



def case_move_onto_protected(confine, runner, base):
    """A move is a pair (SPEC 21): `mv safe .claude` of a file (a rename in
    the stage) and of a directory (`mv` copies it through the overlay: an
    added and a deleted directory) onto a protected name is refused whole:
    the old name stays with its content, nothing lands at the new one, the
    stage keeps the move. Control: the same moves onto ordinary names
    apply (the old name goes, the new one holds the content)."""
    for protected in (True, False):
        ws = os.path.join(base, "ws-%s" % protected)
        os.makedirs(os.path.join(ws, "safedir", "sub"))
        for rel, text in (("safe", "keep me\n"), ("safedir/f", "inner\n"), ("safedir/sub/g", "deep\n")):
            with open(os.path.join(ws, rel), "w") as f:
                f.write(text)
        os.symlink("f", os.path.join(ws, "safedir", "l"))
        to_file, to_dir = (".claude", ".vscode") if protected else ("plain", "plaindir")
        stage = os.path.join(base, "stage-%s" % protected)
        before = snapshot(ws)
        r = run([confine, "run", "--runner", runner, "-w", ws, "--stage", stage, "--", "sh", "-c",
                 "mv safe %s && mv safedir %s" % (to_file, to_dir)], cwd=ws)
        check(r.returncode == 0, "the staged moves run", (r.returncode, r.stderr))
        if protected:
            # Naming the old name alone selects the whole move: refused too.
            a = run([confine, "stage", "apply", stage, "--json", "safedir"])
            results = {e["path"]: e["outcome"] for e in json.loads(a.stdout)["results"]} if a.stdout else {}
            check(a.returncode == 1 and results.get("safedir") == "refused" and
                  results.get(to_dir) == "refused" and os.path.isdir(os.path.join(ws, "safedir")),
                  "apply of the old name alone: the move refused whole", (a.stdout, a.stderr))
        a = run([confine, "stage", "apply", stage, "--json"])
        results = {e["path"]: e for e in json.loads(a.stdout)["results"]} if a.stdout else {}
        if not protected:
            check(a.returncode == 0, "control: the moves apply", (a.stdout, a.stderr))
            check(not os.path.exists(os.path.join(ws, "safe")) and
                  open(os.path.join(ws, to_file)).read() == "keep me\n" and
                  open(os.path.join(ws, to_dir, "sub", "g")).read() == "deep\n" and
                  not os.path.exists(os.path.join(ws, "safedir")),
                  "control: the old names went, the new ones hold the content", snapshot(ws))
            continue
        check(a.returncode == 1, "apply: the moves refused", (a.returncode, a.stdout, a.stderr))
        for old, new in (("safe", to_file), ("safedir", to_dir)):
            for p in (old, new):
                e = results.get(p, {})
                check(e.get("outcome") == "refused" and
                      "the run moved %s to %s" % (old, new) in e.get("message", ""),
                      "the pair is refused naming both paths", (p, results))
        check(snapshot(ws) == before, "the workspace is untouched: safe and safedir kept",
              (snapshot(ws), before))
        check(open(os.path.join(ws, "safe")).read() == "keep me\n", "safe keeps its content")
        d = run([confine, "stage", "diff", stage, "--json"])
        listed = {c["path"] for c in json.loads(d.stdout)["changes"]} if d.returncode == 0 else set()
        check({to_file, to_dir, "safedir"} <= listed, "the stage still lists the moves",
              (d.returncode, d.stderr, sorted(listed)))


def case_move_onto_existing(confine, runner, base):
    """A move onto a name that was there (`mv -f notes.txt .envrc`) lists a
    modified file and a deleted one; apply pairs them (SPEC 21): onto a
    protected file (.envrc, .claude/settings.json) both are refused, the
    moved file keeps its bytes in the workspace and the protected one is
    unchanged. Control: the same moves onto ordinary files apply (the old
    names go, the new ones hold the moved bytes). On bwrap the move onto a
    protected file is refused in the run (the file is bound over itself)."""
    for protected in (True, False):
        ws = os.path.join(base, "wx-%s" % protected)
        to_a, to_b = (".envrc", ".claude/settings.json") if protected else ("plain", "cfg/settings.json")
        os.makedirs(os.path.join(ws, os.path.dirname(to_b)))
        os.makedirs(os.path.join(ws, "src"))
        for rel, text in (("notes.txt", "keep me\n"), ("src/settings.json", "{\"moved\": 1}\n"),
                          (to_a, "old a\n"), (to_b, "{\"old\": 1}\n")):
            with open(os.path.join(ws, rel), "w") as f:
                f.write(text)
        stage = os.path.join(base, "stagex-%s" % protected)
        before = snapshot(ws)
        r = run([confine, "run", "--runner", runner, "-w", ws, "--stage", stage, "--", "sh", "-c",
                 "mv -f notes.txt %s && mv -f src/settings.json %s" % (to_a, to_b)], cwd=ws)
        if protected and runner == "bwrap":
            # bwrap binds an existing protected file over itself: the
            # move is refused in the run already, and apply has nothing
            # that could take notes.txt away
            check(r.returncode != 0 and "Device or resource busy" in r.stderr,
                  "bwrap: the move onto a protected file is refused in the run",
                  (r.returncode, r.stderr))
            run([confine, "stage", "apply", stage, "--json"])
            check(snapshot(ws) == before, "bwrap: the workspace is untouched after apply",
                  (snapshot(ws), before))
            continue
        check(r.returncode == 0, "the staged moves onto existing files run", (r.returncode, r.stderr))
        a = run([confine, "stage", "apply", stage, "--json"])
        results = {e["path"]: e for e in json.loads(a.stdout)["results"]} if a.stdout else {}
        if not protected:
            check(a.returncode == 0, "control: the moves onto existing files apply", (a.stdout, a.stderr))
            check(not os.path.exists(os.path.join(ws, "notes.txt")) and
                  open(os.path.join(ws, to_a)).read() == "keep me\n" and
                  not os.path.exists(os.path.join(ws, "src/settings.json")) and
                  open(os.path.join(ws, to_b)).read() == "{\"moved\": 1}\n",
                  "control: the old names went, the existing ones hold the moved bytes", snapshot(ws))
            continue
        check(a.returncode == 1, "apply: the moves onto protected files refused",
              (a.returncode, a.stdout, a.stderr))
        for old, new in (("notes.txt", to_a), ("src/settings.json", to_b)):
            for p in (old, new):
                e = results.get(p, {})
                check(e.get("outcome") == "refused" and
                      "the run moved %s to %s" % (old, new) in e.get("message", ""),
                      "onto an existing protected file: the pair is refused naming both paths",
                      (p, results))
        check(snapshot(ws) == before, "the workspace is untouched: the moved files kept",
              (snapshot(ws), before))
        check(open(os.path.join(ws, "notes.txt")).read() == "keep me\n",
              "notes.txt keeps its bytes in the workspace")


CASES = [case_world, case_discard, case_conflict, case_protected, case_root_replaced, case_kill9,
         case_refusals,
         case_opaque_and_link_out, case_no_userns, case_clause_and_require_full,
         case_host_below_deleted_dir, case_host_under_every_kind, case_move_onto_protected,
         case_move_onto_existing]


def main():
    return stagelib.main(__file__, CASES, user_prefix="cfstg", prefix="cf-stage-")


if __name__ == "__main__":
    sys.exit(main())
