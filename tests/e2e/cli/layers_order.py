#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`probe --json` and `wrap` name the same layers for the same argv, in
doc/SPEC.md 15's order (issue 27: probe left `seccomp` out, and wrap put
the launcher's words after `confine`).

Usage: layers_order.py CONFINE
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "helpers"))
from outside_tmp import launcher_config  # noqa: E402

ORDER = ["bwrap", "landlock", "landlock-partial", "seccomp", "supervisor", "seatbelt",
         "confine", "runnerCommand"]


def layers(argv):
    done = subprocess.run(argv, capture_output=True, text=True)
    return done.returncode, json.loads(done.stdout).get("layers") if done.stdout else None


def main():
    # probe and wrap check the on-disk launcher, which a build's under /tmp
    # is not trusted to be (doc/SPEC.md 14): a staged copy, named in a config
    config_dir = tempfile.mkdtemp(prefix="cf-layers-config-")
    try:
        if os.environ.get("CONFINE_TEST_LAUNCHER"):
            os.environ["CONFINE_CONFIG"] = launcher_config(os.environ["CONFINE_TEST_LAUNCHER"],
                                                           config_dir)
        return check_layers()
    finally:
        shutil.rmtree(config_dir, ignore_errors=True)


def check_layers():
    confine = sys.argv[1]
    failures = 0
    checked = 0
    for runner in ("bwrap", "landlock"):
        rc, probed = layers([confine, "probe", "--json", "--runner", runner])
        if rc != 0:
            print("%s not usable here: not checked" % runner)
            continue
        # probe's argv is read-only on / (doc/SPEC.md 10)
        rc, wrapped = layers([confine, "wrap", "--runner", runner, "-w", "/", "--", "true"])
        checked += 1
        for what, got in (("probe", probed), ("wrap", wrapped)):
            positions = [ORDER.index(w) for w in got]
            if positions != sorted(positions) or len(set(got)) != len(got):
                print("FAIL: %s %s layers not in SPEC 15's order: %s" % (runner, what, got))
                failures += 1
        if probed != wrapped:
            print("FAIL: %s: probe says %s, wrap says %s" % (runner, probed, wrapped))
            failures += 1
        if "landlock" in (probed or []) and "seccomp" not in probed:
            print("FAIL: %s: the launcher's seccomp deny-list is missing: %s" % (runner, probed))
            failures += 1
        print("%s: probe %s, wrap %s" % (runner, probed, wrapped))
    if checked == 0:
        return 1 if os.environ.get("CONFINE_MUST_WORK") == "1" else 77
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
