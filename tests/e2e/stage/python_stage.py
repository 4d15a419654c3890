# SPDX-License-Identifier: MIT
"""confine.run(..., stage=DIR) from Python (issue 31, doc/SPEC.md 21): the
result's stage lists the changes, renders a patch, applies the named paths
and then the rest, and is discarded; the real tree is untouched until then.
argv: RUNNER (bwrap or landlock). TAP (tests/helpers/tap.py)."""
import os
import shutil
import sys
import tempfile

import confine

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "helpers"))
from tap import Tap  # noqa: E402

TAP = Tap()


def check(cond, what, detail=""):
    if not cond:
        raise AssertionError("%s %s" % (what, detail))


def case_host_below_deleted_dir(base, runner):
    for host in (False, True):
        ws = os.path.join(base, "f4-%s" % host, "ws")
        os.makedirs(os.path.join(ws, "d", "sub"))
        with open(os.path.join(ws, "d", "sub", "old"), "w") as f:
            f.write("keep\n")
        r = confine.run(["sh", "-c", "rm -rf d"], workspace=ws,
                        stage=os.path.join(base, "f4-%s" % host, "stage"))
        check(r.exit_code == 0, "the staged rm", r.stderr)
        if host:
            with open(os.path.join(ws, "d", "sub", "old"), "a") as f:
                f.write("host edit\n")
            with open(os.path.join(ws, "d", "sub", "new"), "w") as f:
                f.write("host work\n")
        applied = r.stage.apply()
        if not host:  # the control: the directory goes whole
            check([(a.path, a.outcome) for a in applied] == [("d", "applied")]
                  and not os.path.exists(os.path.join(ws, "d")), "control: d deleted", applied)
            continue
        check([(a.path, a.outcome) for a in applied] == [("d", "conflict")]
              and applied[0].message.startswith("conflict: " + os.path.join(ws, "d", "sub") +
                                                " changed on the host since the run began"),
              "the host's work is a named conflict", applied)
        check(sorted(os.listdir(os.path.join(ws, "d", "sub"))) == ["new", "old"]
              and open(os.path.join(ws, "d", "sub", "old")).read() == "keep\nhost edit\n",
              "apply deleted nothing of it")


def main():
    runner = sys.argv[1]
    confine.configure(runner=runner)
    base = tempfile.mkdtemp(prefix="cf-pystage-")
    try:
        ws = os.path.join(base, "ws")
        os.makedirs(ws)
        with open(os.path.join(ws, "a.txt"), "w") as f:
            f.write("one\n")
        stage = os.path.join(base, "stage")
        try:
            r = confine.run(["sh", "-c", "echo two >> a.txt; echo new > b.txt"], workspace=ws,
                            stage=stage)
        except confine.SandboxUnavailable as e:
            return TAP.skip_all("no rung here: %s" % e)
        TAP.guard("python %s stage changes, patch, apply, discard" % runner, first, r, ws, stage,
                  runner)
        what = "python %s F4: host work below a deleted directory is a conflict" % runner
        TAP.guard(what, lambda: (case_host_below_deleted_dir(base, runner), TAP.ok(what)))
        return TAP.done()
    finally:
        shutil.rmtree(base, ignore_errors=True)


def first(r, ws, stage, runner):
    """The first case: the staged run's changes, patch, apply and discard."""
    check(r.exit_code == 0, "the staged run", r.stderr)
    check([c.status for c in r.clauses if c.clause == "stage"] == ["enforced"],
          "a stage clause, enforced", r.clauses)
    check(open(os.path.join(ws, "a.txt")).read() == "one\n"
          and not os.path.exists(os.path.join(ws, "b.txt")), "the real tree is untouched")
    got = sorted((c.path, c.change) for c in r.stage.changes)
    check(got == [("a.txt", "modified"), ("b.txt", "added")], "changes", got)
    check("+++ b/b.txt" in r.stage.patch(), "patch()")
    applied = r.stage.apply(["b.txt"])
    check([(a.path, a.outcome) for a in applied] == [("b.txt", "applied")], "apply(paths)",
          applied)
    check(open(os.path.join(ws, "a.txt")).read() == "one\n", "only the named path")
    applied = r.stage.apply()
    check([(a.path, a.outcome) for a in applied] == [("a.txt", "applied")], "apply()", applied)
    check(open(os.path.join(ws, "a.txt")).read() == "one\ntwo\n", "the rest landed")
    r.stage.discard()
    check(not os.path.exists(stage), "discard()")
    TAP.ok("python %s stage changes, patch, apply, discard" % runner)


if __name__ == "__main__":
    sys.exit(main())
