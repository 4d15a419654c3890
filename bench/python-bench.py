#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What the Python package costs: confine.run(["/bin/true"]) against
subprocess.run(["/bin/true"]) and against subprocess.run(["confine", "run",
...]), interleaved in one run. Figures come from here, never from timed
assertions; see doc/BENCHMARKS.md. make check runs it once with a few
rounds (the meson test `bench python`), only to see that it runs and
prints its ratios.

    python3 bench/python-bench.py [--rounds N] [--build DIR]

Each round runs every variant once, the starting variant rotating; wall
time per run (time.perf_counter). Ratios are medians of per-round ratios
against bare subprocess.run. Uses the build tree's library and CLI
(``--build``, default ./build) unless CONFINE_LIBRARY / CONFINE_BIN are set.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bindings", "python"))


def build_library(build: str) -> str:
    """The build tree's libconfine by its soname (libconfine.so.N), whatever N is."""
    lib = os.path.join(build, "src", "lib")
    names = sorted((n for n in os.listdir(lib) if re.fullmatch(r"libconfine\.so\.[0-9]+", n)),
                   key=lambda n: int(n.rsplit(".", 1)[1])) if os.path.isdir(lib) else []
    if not names:
        sys.exit("python-bench: no libconfine.so.N in %s (build it, or set CONFINE_LIBRARY)" % lib)
    return os.path.join(lib, names[-1])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    os.environ.setdefault("CONFINE_LIBRARY", build_library(build))
    cli = os.environ.get("CONFINE_BIN") or os.path.join(build, "src", "cli", "confine")
    import confine

    base = os.path.join(os.path.expanduser("~"), ".cache", "confine-bench")
    os.makedirs(base, exist_ok=True)
    ws = tempfile.mkdtemp(prefix="python-bench.", dir=base)
    true = ["/bin/true"]
    # the bwrap rung's probe checks the on-disk launcher, which a build's
    # under /tmp is not trusted to be (doc/SPEC.md 14): a staged copy
    sys.path.insert(0, os.path.join(HERE, "..", "tests", "helpers"))
    from outside_tmp import launcher_outside_tmp
    launcher = launcher_outside_tmp(os.path.join(build, "src", "launcher", "landlock-run"))
    providers = {r: confine.Provider(runner=r, landlock_launcher=launcher)
                 for r in ("bwrap", "landlock")}

    def check(r):
        assert r.exit_code == 0, r

    variants = {
        "subprocess.run(/bin/true)": lambda: subprocess.run(true, check=True),
        "confine.run danger-full-access": lambda: check(confine.run(
            true, mode="danger-full-access", workspace=ws)),
    }
    for rung, provider in providers.items():
        variants["confine.run %s read-only" % rung] = (
            lambda p=provider: check(confine.run(true, workspace=ws, provider=p)))
        variants["confine.run %s workspace-write" % rung] = (
            lambda p=provider: check(confine.run(true, mode="workspace-write", workspace=ws,
                                                 provider=p)))
        # The very argv confine.wrap() gives, spawned raw (issue 33: the
        # in-process call <= 1.3x this): what the call adds to its runner.
        w = confine.wrap(true, workspace=ws, provider=provider)
        variants["subprocess.run(wrap argv, %s)" % rung] = (
            lambda w=w: subprocess.run(list(w.argv), env=dict(w.env), cwd=w.cwd, check=True))
        variants["subprocess.run(confine run --runner %s)" % rung] = (
            lambda r=rung: subprocess.run([cli, "run", "--runner", r, "-w", ws, "--"] + true,
                                          check=True))
    variants["confine.run ladder read-only"] = lambda: check(confine.run(true, workspace=ws))
    variants["subprocess.run(confine run) ladder"] = (
        lambda: subprocess.run([cli, "run", "-w", ws, "--"] + true, check=True))

    names = list(variants)
    times = {n: [] for n in names}
    for i in range(args.warmup + args.rounds):
        start = i % len(names)
        for n in names[start:] + names[:start]:
            t0 = time.perf_counter()
            variants[n]()
            dt = time.perf_counter() - t0
            if i >= args.warmup:
                times[n].append(dt)

    bare = names[0]
    print("libconfine %s (%s), %d rounds, median / p10 / p90 wall ms, "
          "ratio = median of per-round ratios to %s" % (
              confine.version(), confine._ffi.library_path(), args.rounds, bare))
    print("%-46s %8s %8s %8s %8s" % ("variant", "median", "p10", "p90", "ratio"))
    for n in names:
        ts = sorted(times[n])
        q = statistics.quantiles(ts, n=10)
        ratio = statistics.median(a / b for a, b in zip(times[n], times[bare]))
        print("%-46s %8.3f %8.3f %8.3f %8.2f" % (n, statistics.median(ts) * 1e3, q[0] * 1e3,
                                                q[-1] * 1e3, ratio))
    for rung in providers:
        lib = "confine.run %s read-only" % rung
        cmd = "subprocess.run(confine run --runner %s)" % rung
        r = statistics.median(a / b for a, b in zip(times[lib], times[cmd]))
        print("in-process / CLI process, %s: %.2f" % (rung, r))
        raw = "subprocess.run(wrap argv, %s)" % rung
        r = statistics.median(a / b for a, b in zip(times[lib], times[raw]))
        print("in-process / wrap argv spawned raw, %s: %.2f" % (rung, r))
    os.rmdir(ws)
    return 0


if __name__ == "__main__":
    sys.exit(main())
