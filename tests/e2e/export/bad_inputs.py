#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every bad input to `confine export` is refused the same clear way
(doc/SPEC.md 20, 16): exit 125, one `confine:` line naming the problem,
and with --json the error object alone on stdout with its code; nothing is
written. One row per case: (name, argv after `confine export`, code,
a part of the message).

Usage: bad_inputs.py CONFINE
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "helpers"))
from tap import Tap  # noqa: E402

TAP = Tap()


def main():
    confine = sys.argv[1]
    base = tempfile.mkdtemp(prefix="confine-export-bad-", dir="/var/tmp")
    ws = os.path.join(base, "ws")
    os.makedirs(ws)
    a_file = os.path.join(base, "a-file")
    with open(a_file, "w") as f:
        f.write("x")
    bad_config = os.path.join(base, "bad.json")
    with open(bad_config, "w") as f:
        f.write('{"mode": 5}')
    out = os.path.join(base, "out")
    W = ["-w", ws]
    cases = [
        ("no target", [], "USAGE", "missing export target"),
        ("an unknown target", ["docker", "--bundle", out, "--", "true"], "USAGE",
         "unknown export target 'docker'"),
        ("no bundle", ["oci"] + W + ["--", "true"], "USAGE", "missing --bundle DIR"),
        ("no command", ["oci", "--bundle", out] + W, "USAGE", "missing '-- PROGRAM"),
        ("--runner", ["oci", "--bundle", out, "--runner", "bwrap"] + W + ["--", "true"], "USAGE",
         "unknown option '--runner'"),
        ("a bad --runtime", ["oci", "--bundle", out, "--runtime", "kata"] + W + ["--", "true"],
         "USAGE", "expected runc, crun or runsc"),
        ("danger-full-access", ["oci", "--bundle", out, "-m", "danger-full-access"] + W +
         ["--", "true"], "INVALID_POLICY", "danger-full-access has no sandbox to export"),
        ("a bundle inside the workspace", ["oci", "--bundle", os.path.join(ws, "b"), "-m",
                                           "workspace-write"] + W + ["--", "true"],
         "INVALID_POLICY", "lies inside the writable root"),
        ("a bundle whose parent is missing", ["oci", "--bundle", os.path.join(base, "no", "b")] +
         W + ["--", "true"], "INVALID_POLICY", "cannot be resolved"),
        ("a bundle that is a file", ["oci", "--bundle", a_file] + W + ["--", "true"],
         "SYSTEM_ERROR", "cannot write the bundle"),
        ("a missing workspace", ["oci", "--bundle", out, "-w", os.path.join(base, "nope"), "--",
                                 "true"], "INVALID_POLICY", "(given with -w)"),
        ("a denyRead covering the root", ["oci", "--bundle", out, "--deny-read", base] + W +
         ["--", "true"], "INVALID_POLICY", "denyRead"),
        ("a bundle that holds other files (/)", ["oci", "--bundle", "/"] + W + ["--", "true"],
         "INVALID_POLICY", 'bundle directory "/" (given with --bundle) holds'),
        ("a bundle that holds other files", ["k8s", "--bundle", base] + W + ["--", "true"],
         "INVALID_POLICY", "give a new or empty directory"),
        ("a bad config", ["k8s", "--bundle", out, "--config", bad_config] + W + ["--", "true"],
         "INVALID_CONFIG", "bad.json"),
        ("requireFull", ["k8s", "--bundle", out, "--require-full"] + W + ["--", "true"],
         "SANDBOX_UNAVAILABLE", "requireFull: the k8s export does not hold"),
        ("a limit of zero", ["oci", "--bundle", out, "--max-pids", "0"] + W + ["--", "true"],
         "INVALID_POLICY", "limits.pids \"0\" is zero"),
        ("a limit below its bound", ["k8s", "--bundle", out, "--max-memory", "10"] + W +
         ["--", "true"], "INVALID_POLICY", "below the smallest limit"),
        ("requireFull with a limit a pod cannot hold",
         ["k8s", "--bundle", out, "--require-full", "--max-pids", "9"] + W + ["--", "true"],
         "SANDBOX_UNAVAILABLE", "limits.pids (9)"),
        ("an argument that is not UTF-8", ["oci", "--bundle", out] + W + ["--", "echo", b"\xff"],
         "USAGE", "not valid UTF-8"),
    ]
    try:
        for name, argv, code, part in cases:
            for json_mode in (False, True):
                words = [confine.encode(), b"export"] + \
                        [w if isinstance(w, bytes) else w.encode() for w in argv]
                if json_mode:
                    # --json after the target (or first when there is none).
                    words.insert(3 if argv and argv[0] in ("oci", "k8s", "docker") else 2,
                                 b"--json")
                r = subprocess.run(words, capture_output=True,
                                   env=dict(os.environ, CONFINE_CONFIG=""))
                stderr = r.stderr.decode(errors="replace")
                ok = r.returncode == 125 and ("confine: " in stderr) and part in stderr
                if json_mode:
                    try:
                        obj = json.loads(r.stdout)
                        ok = ok and list(obj) == ["error"] and obj["error"]["code"] == code and \
                            part in obj["error"]["message"]
                    except ValueError:
                        ok = False
                else:
                    ok = ok and r.stdout == b""
                ok = ok and not os.path.exists(out)
                tag = name + (" (--json)" if json_mode else "")
                TAP.check(ok, tag, "%d %r %r" % (r.returncode, r.stdout[:300], stderr[-300:]))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return TAP.done()


if __name__ == "__main__":
    sys.exit(main())
