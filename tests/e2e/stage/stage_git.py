# SPDX-License-Identifier: MIT
"""The stage's patch is git's (issue 31, doc/SPEC.md 21), one rung per
invocation (argv: confine landlock-run RUNNER), as root and then as a
created user: a staged run in a repository that adds, modifies, deletes,
renames, chmods and links text and binary files, and turns a file into a
link, gives a `stage diff --patch` that

- `git apply --check` accepts on a copy of the tree, and `git apply` makes
  the copy what the command saw (byte for byte, modes and links);
- `git apply -R --check` accepts on that result (the reverse hunks);
- a copy whose binary file differs from the one the patch names is refused
  by `git apply --check` (the control: the check can fail);
- names each change it leaves out (`.git`, another root) in a `# confine:`
  line, and the `.git` changes are listed apart in `--json`'s `git`;
- apply refuses git's rebase/sequencer state and a bare repository's
  config and hooks the stage holds (the later, unconfined `git rebase
  --continue` and `git push` as the oracle, with the unconfined control);
- apply refuses a nested repository's and a sub-project's `.envrc`,
  `.claude/settings.json`, `CLAUDE.md`, `.mcp.json` (`source .envrc` and a
  hook checker as the oracle, with the unconfined control)."""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stagelib  # noqa: E402
from stagelib import check, run, snapshot  # noqa: E402

GIT = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "init.defaultBranch=main"]

# What the command does: every kind of change, text and binary.
COMMAND = r"""
set -e
printf 'added\n' > add.txt
printf 'a\0added binary' > add.bin
printf 'more\n' >> mod.txt
printf 'changed\0binary' > mod.bin
rm del.txt del.bin
mv ren.txt ren2.txt
mv ren.bin ren2.bin
chmod 755 exec.sh
chmod 755 modebin.bin
ln -s mod.txt newlink
ln -sfn del-target oldlink
rm tolink.txt && ln -s add.txt tolink.txt
mkdir -p sub/deeper && printf 'deep\n' > sub/deeper/f.txt
rm -r olddir
printf 'no newline' > nonl.txt
: > empty.txt
echo touched > .git/description
echo "$1" > "$2/extra.txt"
"""


def make_repo(base):
    ws = os.path.join(base, "repo")
    wr = os.path.join(base, "wr")
    os.makedirs(ws)
    os.makedirs(wr)
    files = {"mod.txt": b"one\ntwo\n", "mod.bin": b"old\0binary", "del.txt": b"bye\n",
             "del.bin": b"\0\1\2\3", "ren.txt": b"moving\n", "ren.bin": b"\0moving binary",
             "exec.sh": b"echo hi\n", "modebin.bin": b"\0mode", "tolink.txt": b"file\n",
             "olddir/a.txt": b"a\n", "olddir/b.bin": b"\0b"}
    for name, data in files.items():
        os.makedirs(os.path.dirname(os.path.join(ws, name)), exist_ok=True)
        with open(os.path.join(ws, name), "wb") as f:
            f.write(data)
    for name in ("exec.sh", "modebin.bin"):
        os.chmod(os.path.join(ws, name), 0o644)
    os.symlink("mod.txt", os.path.join(ws, "oldlink"))
    check(run(GIT + ["init", "-q", ws]).returncode == 0, "git init")
    check(run(GIT + ["add", "-A"], cwd=ws).returncode == 0, "git add")
    check(run(GIT + ["commit", "-qm", "base"], cwd=ws).returncode == 0, "git commit")
    return ws, wr


def without_git(snap):
    # git has no directory modes, and the copy's .git is not the patch's.
    return {k: v for k, v in snap.items()
            if not (k == ".git" or k.startswith(".git/")) and v[0] != "d"}


def case_patch(confine, runner, base):
    ws, wr = make_repo(base)
    stage = os.path.join(base, "stage")
    before = snapshot(ws)
    r = run([confine, "run", "--runner", runner, "-w", ws, "--writable", wr, "--stage", stage,
             "--", "sh", "-c", COMMAND, "sh", "in the other root", wr], cwd=ws)
    check(r.returncode == 0, "the staged run", (r.returncode, r.stderr))
    check(snapshot(ws) == before, "the real tree is untouched")
    # What the command saw: the same command, unstaged, on a copy.
    seen_dir = os.path.join(base, "seen")
    shutil.copytree(ws, seen_dir, symlinks=True)
    os.makedirs(os.path.join(base, "seen-wr"))
    s = run(["sh", "-c", COMMAND, "sh", "x", os.path.join(base, "seen-wr")], cwd=seen_dir)
    check(s.returncode == 0, "the control run", s.stderr)
    seen = without_git(snapshot(seen_dir))

    d = run([confine, "stage", "diff", stage, "--json"])
    listing = json.loads(d.stdout)
    got = {(c["path"], c["change"]) for c in listing["changes"]}
    for want in (("add.txt", "added"), ("add.bin", "added"), ("mod.txt", "modified"),
                 ("mod.bin", "modified"), ("del.txt", "deleted"), ("del.bin", "deleted"),
                 ("ren2.txt", "renamed"), ("ren2.bin", "renamed"), ("exec.sh", "mode"),
                 ("modebin.bin", "mode"), ("newlink", "symlink"), ("oldlink", "symlink"),
                 ("olddir", "deleted"), (os.path.join(wr, "extra.txt"), "added")):
        check(want in got, "the listing has", (want, sorted(got)))
    check([c["path"] for c in listing["git"]] == [".git/description"],
          "the .git change is listed apart", listing["git"])
    check(all(c["binary"] for c in listing["changes"] if c["path"] in ("add.bin", "mod.bin")),
          "binary files are marked binary")

    p = run([confine, "stage", "diff", stage, "--patch"])
    check(p.returncode == 0, "stage diff --patch", p.stderr)
    patch = p.stdout
    check("# confine: not in this patch (under .git): .git/description\n" in patch,
          "the .git change is named as left out", patch[:400])
    check("# confine: not in this patch (outside the workspace root): %s\n"
          % os.path.join(wr, "extra.txt") in patch, "the other root's change is named")
    check(patch.count("GIT binary patch") >= 4, "binary files are git binary patches")

    copy = os.path.join(base, "copy")
    shutil.copytree(ws, copy, symlinks=True)
    g = run(["git", "apply", "--check", "-"], cwd=copy, input=patch)
    check(g.returncode == 0, "git apply --check accepts --patch", g.stderr)
    g = run(["git", "apply", "-"], cwd=copy, input=patch)
    check(g.returncode == 0, "git apply", g.stderr)
    applied = without_git(snapshot(copy))
    differ = sorted(k for k in set(applied) | set(seen) if applied.get(k) != seen.get(k))
    check(not differ, "git apply gives what the command saw",
          [(k, applied.get(k), seen.get(k)) for k in differ])
    g = run(["git", "apply", "-R", "--check", "-"], cwd=copy, input=patch)
    check(g.returncode == 0, "git apply -R --check accepts it on the result", g.stderr)

    # The control: a copy whose binary file is not the one the patch names.
    other = os.path.join(base, "other")
    shutil.copytree(ws, other, symlinks=True)
    with open(os.path.join(other, "mod.bin"), "wb") as f:
        f.write(b"\0someone else's")
    g = run(["git", "apply", "--check", "-"], cwd=other, input=patch)
    check(g.returncode != 0 and "mod.bin" in g.stderr,
          "git apply --check refuses a binary file that differs", (g.returncode, g.stderr))

    # And confine's own apply agrees with git's.
    a = run([confine, "stage", "apply", stage])
    check(a.returncode == 0, "stage apply", (a.stdout, a.stderr))
    mine = without_git(snapshot(ws))
    differ = sorted(k for k in set(mine) | set(seen) if mine.get(k) != seen.get(k))
    check(not differ, "stage apply gives the same tree", differ)


def git_ok(cwd, *args, **kw):
    r = subprocess.run(GIT + list(args), cwd=cwd, capture_output=True, text=True, timeout=120,
                       **kw)
    check(r.returncode == 0, "git " + " ".join(args), r.stderr)
    return r


def paused_rebase(base, name):
    """A repository with an interactive rebase stopped at a `break`: the
    next `git rebase --continue` obeys .git/rebase-merge/git-rebase-todo."""
    ws = os.path.join(base, name)
    os.makedirs(ws)
    git_ok(ws, "init", "-q")
    for n in ("one", "two"):
        with open(os.path.join(ws, n), "w") as f:
            f.write(n + "\n")
        git_ok(ws, "add", n)
        git_ok(ws, "commit", "-q", "-m", n)
    git_ok(ws, "rebase", "-q", "-i", "HEAD~1",
           env=dict(os.environ, GIT_SEQUENCE_EDITOR="sed -i '1i break'"))
    check(os.path.isdir(os.path.join(ws, ".git", "rebase-merge")), "the rebase is paused")
    return ws


# What the command plants: an `exec` line in the paused rebase's todo, a
# cherry-pick's sequencer todo, and a bare repository with a pre-receive
# hook (run by the next `git push` into it), and one split by `commondir`
# (HEAD beside commondir; config and hooks in the common directory: red
# team, round 5).
PLANT = r"""
set -e
printf 'exec touch %(mark)s.rebase\n' >> .git/rebase-merge/git-rebase-todo
mkdir -p .git/sequencer && printf 'exec touch %(mark)s.seq\n' > .git/sequencer/todo
git init -q --bare evil.git
printf '#!/bin/sh\ntouch %(mark)s.push\n' > evil.git/hooks/pre-receive
chmod +x evil.git/hooks/pre-receive
git init -q --bare common && mkdir split && mv common/HEAD split/HEAD
echo ../common > split/commondir
printf '#!/bin/sh\ntouch %(mark)s.split\n' > common/hooks/pre-receive
chmod +x common/hooks/pre-receive
echo fine > fine.txt
"""


def later_git(ws, mark):
    """The later, unconfined git: which of the plants ran."""
    subprocess.run(GIT + ["rebase", "--continue"], cwd=ws, capture_output=True, timeout=120,
                   env=dict(os.environ, GIT_EDITOR="true"))
    if os.path.isdir(os.path.join(ws, "evil.git")):
        subprocess.run(GIT + ["push", "-q", os.path.join(ws, "evil.git"), "HEAD:refs/heads/x"],
                       cwd=ws, capture_output=True, timeout=120)
    if os.path.isdir(os.path.join(ws, "split")):
        subprocess.run(GIT + ["push", "-q", os.path.join(ws, "split"), "HEAD:refs/heads/x"],
                       cwd=ws, capture_output=True, timeout=120)
    return {k for k in ("rebase", "push", "split") if os.path.exists("%s.%s" % (mark, k))}


def case_git_state(confine, runner, base):
    """Red team round 4, F4: apply never lands git's rebase/sequencer state
    or a bare repository's config and hooks (doc/SPEC.md 21)."""
    # the control: the same plant unconfined; the later git runs both
    ws = paused_rebase(base, "control")
    mark = os.path.join(base, "control-mark")
    r = subprocess.run(["sh", "-c", PLANT % {"mark": mark}], cwd=ws, capture_output=True,
                       text=True)
    check(r.returncode == 0, "control plant", r.stderr)
    check(later_git(ws, mark) == {"rebase", "push", "split"},
          "control: the later git ran the plants",
          later_git(ws, mark))

    ws = paused_rebase(base, "repo")
    mark = os.path.join(base, "staged-mark")
    stage = os.path.join(base, "stage")
    r = run([confine, "run", "--runner", runner, "-w", ws, "--stage", stage, "--", "sh", "-c",
             PLANT % {"mark": mark}], cwd=ws)
    check(r.returncode == 0, "staged run", r.stderr)
    a = run([confine, "stage", "apply", stage, "--json"])
    check(a.returncode == 1, "apply: some refused", (a.returncode, a.stderr))
    results = {e["path"]: e for e in json.loads(a.stdout)["results"]}
    check(results["fine.txt"]["outcome"] == "applied", "an ordinary file lands", results)
    for p in (".git/rebase-merge/git-rebase-todo", ".git/sequencer", ".git/sequencer/todo",
              "evil.git/config", "evil.git/hooks", "evil.git/hooks/pre-receive",
              "split/commondir", "common/config", "common/hooks",
              "common/hooks/pre-receive"):
        check(p in results and results[p]["outcome"] == "refused" and
              "denied by defaultProtections" in results[p]["message"],
              "apply: git's state refused", (p, results.get(p)))
    check(not os.path.exists(os.path.join(ws, ".git", "sequencer")), "no sequencer state lands")
    check(later_git(ws, mark) == set(), "the later git ran a plant apply landed",
          later_git(ws, mark))


def case_patch_leaves_out_protected(confine, runner, base):
    """Red team, round 5: --patch carried what apply refuses (CLAUDE.md,
    .envrc, .claude/settings.json), so `git apply` landed it. The patch
    names each as left out and holds none; the control: the stage does
    hold them (the listing has them)."""
    ws, wr = make_repo(base)
    stage = os.path.join(base, "stage-protected")
    r = run([confine, "run", "--runner", runner, "-w", ws, "--stage", stage, "--", "sh", "-c",
             "mkdir -p .claude && echo '{}' > .claude/settings.json && echo evil > CLAUDE.md && "
             "echo 'touch x' > .envrc && echo ok > fine.txt"], cwd=ws)
    check(r.returncode == 0, "the staged run", (r.returncode, r.stderr))
    d = run([confine, "stage", "diff", stage, "--json"])
    listed = {c["path"] for c in json.loads(d.stdout)["changes"]}
    protected = ("CLAUDE.md", ".envrc", ".claude/settings.json")
    check(all(p in listed for p in protected + ("fine.txt",)),
          "control: the stage holds the protected files", sorted(listed))
    p = run([confine, "stage", "diff", stage, "--patch"])
    check(p.returncode == 0, "stage diff --patch", p.stderr)
    for name in protected:
        check("# confine: not in this patch (apply refuses it: a protected path): %s\n" % name
              in p.stdout, "the patch names what apply refuses", (name, p.stdout[:600]))
    copy = os.path.join(base, "copy-protected")
    shutil.copytree(ws, copy, symlinks=True)
    g = run(["git", "apply", "-"], cwd=copy, input=p.stdout)
    check(g.returncode == 0, "git apply", g.stderr)
    check(os.path.exists(os.path.join(copy, "fine.txt")), "the ordinary file lands")
    check(not any(os.path.exists(os.path.join(copy, n)) for n in protected),
          "git apply of the patch lands nothing apply refuses")


# Red team round 5 (R5-names-raw): names a listing or a patch header must
# not print raw: a newline then a forged header, a terminal escape, a tab,
# a quote, a backslash, a byte that is not UTF-8.
EVIL_NAMES = [b"x\n+++ b/evil", b"esc\x1b[2Jclear", b"tab\tname", b'quo"te',
              b"back\\slash", b"latin\xe9"]


def git_quoted(name):
    """A name as git's core.quotePath writes it (the oracle, computed here)."""
    named = {7: "a", 8: "b", 9: "t", 10: "n", 11: "v", 12: "f", 13: "r"}
    if not any(c < 0x20 or c >= 0x7f or c in b'"\\' for c in name):
        return name.decode()
    out = '"'
    for c in name:
        if c in b'"\\':
            out += "\\" + chr(c)
        elif c in named:
            out += "\\" + named[c]
        elif c < 0x20 or c >= 0x7f:
            out += "\\%03o" % c
        else:
            out += chr(c)
    return out + '"'


def case_names_quoted(confine, runner, base):
    """Red team, round 5: `stage diff` printed names raw, so a name holding
    a newline and `+++ b/evil`, or an escape sequence, forged a line of the
    listing or the patch and reached the terminal. Names are quoted as git
    quotes them (the listing, `--patch` headers); `git apply --check`
    accepts the patch, and `git apply` lands the very names; `--json`
    keeps them exact. The control: git itself, over the same names,
    quotes them the same way (so the oracle is git's)."""
    ws, wr = make_repo(base)
    stage = os.path.join(base, "stage-names")
    bws = os.fsencode(ws)
    # A name that exists before the run, and is modified and renamed.
    with open(os.path.join(bws, b"old\nname"), "wb") as f:
        f.write(b"before\n")
    check(run(GIT + ["add", "-A"], cwd=ws).returncode == 0 and
          run(GIT + ["commit", "-qm", "names"], cwd=ws).returncode == 0, "git commit")
    # Each name made by printf's octal escapes: the argv stays ASCII.
    def octal(n):
        return "".join("\\%03o" % c for c in n)
    made = "; ".join(("mkdir -p \"$(printf '%s')\"; " % octal(n.rsplit(b"/", 1)[0])
                      if b"/" in n else "") +
                     "printf 'evil\\n' > \"$(printf '%s')\"" % octal(n) for n in EVIL_NAMES)
    script = ("set -e; %s; mv \"$(printf 'old\\nname')\" \"$(printf 'new\\nname')\""
              % made).encode()
    r = subprocess.run([os.fsencode(confine), b"run", b"--runner", os.fsencode(runner), b"-w",
                        bws, b"--stage", os.fsencode(stage), b"--", b"sh", b"-c", script],
                       cwd=ws, capture_output=True, timeout=120)
    check(r.returncode == 0, "the staged run", (r.returncode, r.stderr))
    listing = subprocess.run([confine, "stage", "diff", stage], capture_output=True,
                             timeout=120).stdout
    lines = listing.split(b"\n")
    check(b"\x1b" not in listing and not any(l.startswith(b"+++") for l in lines),
          "the listing holds no escape and no forged line", listing)
    for name in EVIL_NAMES:
        check(("added    %s" % git_quoted(name)).encode() in lines,
              "the listing names it quoted", (name, listing))
    check(('renamed  %s -> %s' % (git_quoted(b"old\nname"), git_quoted(b"new\nname"))).encode()
          in lines, "a rename's names quoted", listing)
    # --json keeps every UTF-8 name exact (JSON's own escapes)
    d = json.loads(subprocess.run([confine, "stage", "diff", stage, "--json"],
                                  capture_output=True, timeout=120).stdout)
    paths = {c["path"] for c in d["changes"]}
    for name in EVIL_NAMES[:-1] + [b"new\nname"]:
        check(name.decode() in paths, "--json keeps the name exact", (name, sorted(paths)))
    odd = [c for c in d["changes"] if c.get("pathQuoted")]
    check([(c["path"], c["pathQuoted"]) for c in odd] == [("latin\ufffd", git_quoted(b"latin\xe9"))],
          "a name JSON cannot hold: U+FFFD, and its bytes git-quoted", odd)
    p = subprocess.run([confine, "stage", "diff", stage, "--patch"], capture_output=True,
                       timeout=120)
    check(p.returncode == 0, "stage diff --patch", p.stderr)
    plines = p.stdout.split(b"\n")
    check(b"\x1b" not in p.stdout and b"+++ b/evil" not in plines,
          "the patch holds no escape and no forged header", p.stdout[:600])
    for name in EVIL_NAMES:
        q = git_quoted(b"b/" + name).encode() + (b"\t" if b" " in name else b"")
        check(b"+++ " + q in plines, "the patch header is quoted", (q, p.stdout[:800]))
    # control: git quotes the same names the same way
    ctl = os.path.join(base, "ctl")
    shutil.copytree(ws, ctl, symlinks=True)
    for name in EVIL_NAMES:
        os.makedirs(os.path.dirname(os.path.join(os.fsencode(ctl), name)), exist_ok=True)
        with open(os.path.join(os.fsencode(ctl), name), "wb") as f:
            f.write(b"evil\n")
    check(run(GIT + ["add", "-A"], cwd=ctl).returncode == 0, "control: git add")
    gd = subprocess.run(GIT + ["-c", "core.quotePath=true", "diff", "--cached"], cwd=ctl,
                        capture_output=True, timeout=120).stdout.split(b"\n")
    for name in EVIL_NAMES:
        check(b"+++ " + git_quoted(b"b/" + name).encode() + (b"\t" if b" " in name else b"")
              in gd,
              "control: git writes the header so", (name, gd[:40]))
    copy = os.path.join(base, "copy-names")
    shutil.copytree(ws, copy, symlinks=True)
    g = subprocess.run(["git", "apply", "--check", "-"], cwd=copy, input=p.stdout,
                       capture_output=True, timeout=120)
    check(g.returncode == 0, "git apply --check accepts the quoted patch", g.stderr)
    g = subprocess.run(["git", "apply", "-"], cwd=copy, input=p.stdout, capture_output=True,
                       timeout=120)
    check(g.returncode == 0, "git apply", g.stderr)
    bcopy = os.fsencode(copy)
    for name in EVIL_NAMES + [b"new\nname"]:
        check(os.path.exists(os.path.join(bcopy, name)), "git apply lands the very name", name)
    check(not os.path.exists(os.path.join(bcopy, b"old\nname")) and
          not os.path.exists(os.path.join(bcopy, b"evil")), "nothing else lands")


NESTED_PLANT = ("mkdir -p app/.claude deep/x && echo 'touch %(mark)s.envrc' > app/.envrc && "
                "echo '{\"hooks\": {\"Stop\": [{\"command\": \"touch %(mark)s.hook\"}]}}' "
                "> app/.claude/settings.json && echo evil > app/CLAUDE.md && "
                "echo 'touch %(mark)s.sub' > pkg/.envrc && echo evil >> pkg/CLAUDE.md && "
                "echo '{}' > deep/x/.mcp.json && echo ok > app/fine.txt")
NESTED_REFUSED = ("app/.envrc", "app/.claude/settings.json", "app/CLAUDE.md", "pkg/.envrc",
                  "pkg/CLAUDE.md", "deep/x/.mcp.json")


def nested_workspace(base, name):
    """A workspace that is no repository, holding a repository `app/` and a
    sub-project `pkg/` (a package.json, a CLAUDE.md of its own)."""
    ws = os.path.join(base, name)
    app, pkg = os.path.join(ws, "app"), os.path.join(ws, "pkg")
    os.makedirs(app)
    os.makedirs(pkg)
    subprocess.run(GIT + ["init", "-q"], cwd=app, check=True, capture_output=True)
    with open(os.path.join(pkg, "package.json"), "w") as f:
        f.write('{"name": "pkg"}\n')
    with open(os.path.join(pkg, "CLAUDE.md"), "w") as f:
        f.write("the project's own\n")
    return ws


def later_tools(ws, mark):
    """The later, unconfined tools: direnv's `source .envrc` in each
    project, and a checker running .claude/settings.json's hooks."""
    for d in ("app", "pkg"):
        subprocess.run(["bash", "-c", "source ./.envrc"], cwd=os.path.join(ws, d),
                       capture_output=True, timeout=60)
    try:
        with open(os.path.join(ws, "app", ".claude", "settings.json")) as f:
            for hooks in json.load(f).get("hooks", {}).values():
                for h in hooks:
                    subprocess.run(["sh", "-c", h["command"]], capture_output=True, timeout=60)
    except (OSError, ValueError):
        pass
    return {k for k in ("envrc", "hook", "sub") if os.path.exists("%s.%s" % (mark, k))}


def case_nested_projects(confine, runner, base):
    """The outside red team: a nested repository's and a sub-project's
    .envrc, .claude/settings.json, CLAUDE.md, .mcp.json are refused by
    apply, as at the root (doc/SPEC.md 15, "Nested projects")."""
    ws = nested_workspace(base, "nested-control")
    mark = os.path.join(base, "nested-control-mark")
    r = subprocess.run(["sh", "-c", NESTED_PLANT % {"mark": mark}], cwd=ws, capture_output=True,
                       text=True)
    check(r.returncode == 0, "control plant", r.stderr)
    check(later_tools(ws, mark) == {"envrc", "hook", "sub"}, "control: the later tools ran them",
          later_tools(ws, mark))

    ws = nested_workspace(base, "nested")
    mark = os.path.join(base, "nested-mark")
    stage = os.path.join(base, "stage-nested")
    r = run([confine, "run", "--runner", runner, "-w", ws, "--stage", stage, "--", "sh", "-c",
             NESTED_PLANT % {"mark": mark}], cwd=ws)
    check(r.returncode == 0, "staged run", (r.returncode, r.stderr))
    a = run([confine, "stage", "apply", stage, "--json"])
    check(a.returncode == 1, "apply: some refused", (a.returncode, a.stderr))
    results = {e["path"]: e for e in json.loads(a.stdout)["results"]}
    check(results.get("app/fine.txt", {}).get("outcome") == "applied", "an ordinary file lands",
          results)
    for p in NESTED_REFUSED:
        check(p in results and results[p]["outcome"] == "refused" and
              "denied by defaultProtections" in results[p]["message"],
              "apply: a nested project's entry refused", (p, results.get(p)))
    check(later_tools(ws, mark) == set(), "the later tools ran a plant apply landed",
          later_tools(ws, mark))
    with open(os.path.join(ws, "pkg", "CLAUDE.md")) as f:
        check(f.read() == "the project's own\n", "pkg/CLAUDE.md changed")


CASES = [case_patch, case_git_state, case_patch_leaves_out_protected, case_names_quoted,
         case_nested_projects]


def main():
    return stagelib.main(__file__, CASES, user_prefix="cfsgt", prefix="cf-stage-git-", tools=('git',))


if __name__ == "__main__":
    sys.exit(main())
