#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What a stage costs (issue 31, doc/SPEC.md 21): ratios, one run, printed,
never judged (a shared machine's timings prove nothing; bench/smoke.py
checks only that this runs and prints them).

    stage-bench.py CONFINE LANDLOCK_RUN [--files N] [--sources N]
                   [--rounds N] [--runner R]... [--quick]

Per Linux rung that runs here (bwrap, landlock):
- `tar x` of N files (default 10,000) into an empty workspace, and `make`
  of a C project of --sources files (default 40), staged vs the same run
  unstaged (`-m workspace-write`): the target is <= 1.2x;
- `confine stage apply` of the N extracted files vs `cp -a` of the same
  files (the stage's upper directory) into an empty directory on the same
  filesystem: the target is <= 1.5x.
Each figure is the median of --rounds (default 3) alternating rounds, wall
time and CPU time (user + system of confine and all it ran, the kernel's
overlay work included): the CPU ratio is the steadier one on a loaded host.
--quick: 500 files, 4 sources, 1 round (the smoke run).
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "helpers"))
from outside_tmp import launcher_outside_tmp  # noqa: E402


def timed(argv, **kw):
    """(wall seconds, CPU seconds of the children) of one command, which
    must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **kw)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit("stage-bench: %s failed (%d): %s" % (argv[:6], r.returncode, r.stderr[-800:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def make_tarball(path, files):
    src = path + ".src"
    per_dir = 100
    for i in range(files):
        d = os.path.join(src, "d%03d" % (i // per_dir))
        if i % per_dir == 0:
            os.makedirs(d)
        with open(os.path.join(d, "f%05d.txt" % i), "w") as f:
            f.write("file %d\n" % i * 4)
    with tarfile.open(path, "w") as t:
        t.add(src, arcname=".")
    shutil.rmtree(src)


def make_project(path, sources):
    os.makedirs(path)
    objs = []
    for i in range(sources):
        with open(os.path.join(path, "s%03d.c" % i), "w") as f:
            f.write("#include <stdio.h>\n")
            for j in range(40):
                f.write("int f%d_%d(int x) { return x * %d + %d; }\n" % (i, j, j + 1, i))
            if i == 0:
                f.write("int main(void) { printf(\"%d\\n\", f0_1(2)); return 0; }\n")
        objs.append("s%03d.o" % i)
    with open(os.path.join(path, "Makefile"), "w") as f:
        f.write("prog: %s\n\t$(CC) -o $@ $^\n%%.o: %%.c\n\t$(CC) -O1 -c -o $@ $<\n" % " ".join(objs))


class Bench:
    def __init__(self, confine, base, config):
        self.confine = confine
        self.base = base
        self.env = dict(os.environ, CONFINE_CONFIG=config)
        self.n = 0

    def fresh(self, name):
        self.n += 1
        d = os.path.join(self.base, "%s.%d" % (name, self.n))
        os.makedirs(d)
        return d

    def run(self, runner, ws, stage, argv):
        cmd = [self.confine, "run", "--runner", runner, "-w", ws]
        cmd += ["--stage", stage] if stage else ["-m", "workspace-write"]
        return timed(cmd + ["--"] + argv, cwd=ws, env=self.env)

    def pair(self, runner, rounds, setup, argv):
        """Median (wall, cpu) unstaged and staged, alternating."""
        plain, staged = [], []
        for _ in range(rounds):
            ws = setup()
            plain.append(self.run(runner, ws, None, argv))
            ws = setup()
            stage = os.path.join(self.fresh("stage"), "s")
            staged.append(self.run(runner, ws, stage, argv))
        return med(plain), med(staged)


def med(samples):
    return (statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples))


def ratio(a, b):
    return b / a if a > 0 else float("nan")


def line(what, base, other, target):
    print("%s: wall %.2f cpu %.2f (%.3fs vs %.3fs wall, %.3fs vs %.3fs cpu; target <= %.1f)"
          % (what, ratio(base[0], other[0]), ratio(base[1], other[1]), other[0], base[0],
             other[1], base[1], target))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("confine")
    ap.add_argument("launcher")
    ap.add_argument("--files", type=int, default=10000)
    ap.add_argument("--sources", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runner", action="append")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    if a.quick:
        a.files, a.sources, a.rounds = 500, 4, 1
    confine = os.path.abspath(a.confine)
    # Not under /tmp: bwrap's /tmp is the run's own (the tarball would be
    # hidden), and a launcher there is not trusted (doc/SPEC.md 14).
    parent = os.path.join(os.environ.get("HOME") or "/var/tmp", ".cache")
    os.makedirs(parent, exist_ok=True)
    base = tempfile.mkdtemp(prefix="confine-stage-bench.", dir=parent)
    try:
        config = os.path.join(base, "config.json")
        with open(config, "w") as f:
            json.dump({"landlockLauncher": launcher_outside_tmp(os.path.abspath(a.launcher))}, f)
        b = Bench(confine, base, config)
        tarball = os.path.join(base, "files.tar")
        make_tarball(tarball, a.files)
        project = os.path.join(base, "project")
        make_project(project, a.sources)
        print("stage bench: %d files, %d sources, %d round(s), median of each" %
              (a.files, a.sources, a.rounds))
        ran = []
        for runner in a.runner or ["bwrap", "landlock"]:
            probe = subprocess.run([confine, "wrap", "--runner", runner, "--", "true"],
                                   capture_output=True, text=True, env=b.env)
            if probe.returncode != 0:
                print("%s: unavailable here, skipped" % runner)
                continue
            ran.append(runner)
            plain, staged = b.pair(runner, a.rounds, lambda: b.fresh("ws"), ["tar", "xf", tarball])
            line("staged / unstaged, tar x of %d files, %s" % (a.files, runner), plain, staged, 1.2)

            def project_copy():
                d = b.fresh("proj")
                os.rmdir(d)
                shutil.copytree(project, d)
                return d
            plain, staged = b.pair(runner, a.rounds, project_copy, ["make", "-s", "CC=cc"])
            line("staged / unstaged, make of %d sources, %s" % (a.sources, runner), plain, staged, 1.2)
        if not ran:
            raise SystemExit("stage-bench: no rung runs here")
        # Apply vs cp -a: a staged extraction each round (untimed), then
        # its apply into the empty real workspace, and cp -a of the stage's
        # files into an empty directory beside it.
        applies, copies = [], []
        for _ in range(a.rounds):
            ws = b.fresh("ws")
            stage = os.path.join(b.fresh("stage"), "s")
            b.run(ran[-1], ws, stage, ["tar", "xf", tarball])
            upper = os.path.join(stage, "roots", "0", "upper")
            dest = b.fresh("cp")
            copies.append(timed(["cp", "-a", upper + "/.", dest]))
            applies.append(timed([confine, "stage", "apply", stage], env=b.env))
            if len(os.listdir(ws)) != len(os.listdir(dest)):
                raise SystemExit("stage-bench: apply did not land what cp -a copied")
        line("stage apply / cp -a, %d files" % a.files, med(copies), med(applies), 1.5)
    finally:
        subprocess.run(["chmod", "-R", "u+rwX", base], capture_output=True)
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
