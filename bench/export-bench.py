#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The per-call cost of one policy on each engine (issue 32, doc/SCALING.md):
`true` run N times bare, under `confine run` (the host's rung; then pinned
to bwrap and to gvisor, doc/SPEC.md 22), from an
exported bundle under `runc run`, and under `runsc run` (gVisor). Prints the
median wall time of each and its ratio to bare. As root; an engine that is
missing is left out. A measurement, not a test.

Usage: export-bench.py CONFINE [N]
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def median_ms(cmd, n, cleanup=None):
    times = []
    for i in range(n):
        start = time.monotonic()
        subprocess.run(cmd(i), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        times.append((time.monotonic() - start) * 1000)
        if cleanup:
            cleanup(i)
    return statistics.median(times)


def main():
    confine = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    base = tempfile.mkdtemp(prefix="confine-export-bench-", dir="/var/tmp")
    ws = os.path.join(base, "ws")
    os.makedirs(ws)
    rows = []
    try:
        rows.append(("bare exec", median_ms(lambda i: ["/bin/true"], n)))
        rows.append(("confine run (host rung)",
                     median_ms(lambda i: [confine, "run", "-w", ws, "--network", "off", "--",
                                          "/bin/true"], n)))
        # The rungs side by side (doc/SPEC.md 22): bwrap, and gVisor's runsc
        # through confine's own helper (bundle, run, cleanup per call).
        for rung in ("bwrap", "gvisor"):
            if rung == "gvisor" and not shutil.which("runsc"):
                continue
            rows.append(("confine run --runner " + rung,
                         median_ms(lambda i: [confine, "run", "--runner", rung, "-w", ws,
                                              "--network", "off", "--", "/bin/true"], n)))
        for runtime in ("runc", "runsc"):
            if not shutil.which(runtime):
                continue
            bundle = os.path.join(base, "bundle-" + runtime)
            subprocess.run([confine, "export", "oci", "--bundle", bundle, "--runtime", runtime,
                            "-w", ws, "--network", "off", "--", "/bin/true"],
                           check=True, stderr=subprocess.DEVNULL)
            pre = [runtime, "run", "-b", bundle] if runtime == "runc" else \
                [runtime, "--oci-seccomp", "--network=none", "run", "-bundle", bundle]
            rows.append((runtime + " run (exported bundle)",
                         median_ms(lambda i: pre + ["bench-%d-%d" % (os.getpid(), i)], n,
                                   lambda i: subprocess.run(
                                       [runtime, "delete", "-f", "bench-%d-%d" % (os.getpid(), i)],
                                       capture_output=True))))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    bare = rows[0][1]
    for name, ms in rows:
        print("%-32s %9.1f ms  %7.1fx bare" % (name, ms, ms / bare))
    by_name = dict(rows)
    if "confine run --runner gvisor" in by_name and "confine run --runner bwrap" in by_name:
        print("gvisor / bwrap rung: %.1fx" % (by_name["confine run --runner gvisor"] /
                                             by_name["confine run --runner bwrap"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
