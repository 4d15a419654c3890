#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The cost of limits (issue 30, doc/SPEC.md 15 "Limits"): `confine run`
with every limit vs with none (the default pids limit lifted), on each
Linux rung, for `true` and for `make -B` of a small C project (12 files,
-j2). One run of this script; the variants are interleaved (A B A B ...)
so the machine's load falls on both alike; it prints medians and the
ratio, never a verdict (the target is <= 1.05x).

Usage: limits-bench.py CONFINE [ROUNDS]   (`ninja -C build bench-limits`)
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

LIMITS = ["--max-pids", "4096", "--max-memory", "4G", "--max-cpu", "600",
          "--max-file-size", "1G", "--max-open-files", "4096"]
NONE = ["--max-pids", "unlimited"]


def project(root):
    os.makedirs(root)
    objs = []
    for i in range(12):
        with open(os.path.join(root, "f%d.c" % i), "w") as f:
            f.write("int f%d(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * %d; "
                    "return s; }\n" % (i, i + 1))
        objs.append("f%d.o" % i)
    with open(os.path.join(root, "main.c"), "w") as f:
        f.write("int f0(int);\nint main(void) { return f0(3) == 3 ? 0 : 1; }\n")
    with open(os.path.join(root, "Makefile"), "w") as f:
        f.write("all: prog\nprog: main.o %s\n\t$(CC) -o $@ $^\n%%.o: %%.c\n\t$(CC) -O1 -c $<\n"
                % " ".join(objs))


def once(argv, cwd):
    start = time.perf_counter()
    r = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    took = time.perf_counter() - start
    if r.returncode != 0:
        raise SystemExit("failed: %s: %s" % (" ".join(argv), r.stderr.decode()[-300:]))
    return took


def main():
    confine = os.path.abspath(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    tmp = tempfile.mkdtemp(prefix="cf-limits-bench-", dir=os.environ.get("HOME"))
    try:
        ws = os.path.join(tmp, "proj")
        project(ws)
        print("# confine run, every limit vs none; median of %d interleaved runs each" % rounds)
        print("%-9s %-6s %10s %10s %7s" % ("rung", "cmd", "none ms", "limits ms", "ratio"))
        for rung in ("bwrap", "landlock"):
            probe = subprocess.run([confine, "run", "--runner", rung, "--", "true"],
                                   capture_output=True)
            if probe.returncode != 0:
                print("%-9s unavailable here" % rung)
                continue
            for name, cmd, mode in (("true", ["true"], "read-only"),
                                    ("make", ["make", "-B", "-j2", "-s"], "workspace-write")):
                base = [confine, "run", "--runner", rung, "-m", mode, "-w", ws]
                times = {"none": [], "limits": []}
                for _ in range(2):  # warm the caches
                    once(base + NONE + ["--"] + cmd, ws)
                for _ in range(rounds):
                    times["none"].append(once(base + NONE + ["--"] + cmd, ws))
                    times["limits"].append(once(base + LIMITS + ["--"] + cmd, ws))
                a = statistics.median(times["none"]) * 1000
                b = statistics.median(times["limits"]) * 1000
                print("%-9s %-6s %10.1f %10.1f %6.3fx" % (rung, name, a, b, b / a))
                sys.stdout.flush()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
