#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The exported seccomp profile names every row of the launcher's deny-list
(doc/SPEC.md 20): the syscalls of src/launcher/seccomp-filter.c's
native_rules (by their __NR_ names) and the names `confine export oci`
writes into linux.seccomp are the same set, each with EPERM, and nothing
is a notify rule. One list is the contract; this keeps the second honest.

Usage: seccomp_rows.py SOURCE_ROOT CONFINE
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "helpers"))
from tap import Tap  # noqa: E402

TAP = Tap()


def main():
    root, confine = sys.argv[1], sys.argv[2]
    with open(os.path.join(root, "src", "launcher", "seccomp-filter.c")) as f:
        text = f.read()
    table = text[text.index("native_rules[] = {"):]
    table = table[:table.index("};")]
    launcher = set(re.findall(r"__NR_(\w+)", table))
    work = tempfile.mkdtemp(prefix="confine-export-seccomp-", dir="/var/tmp")
    bundle = os.path.join(work, "bundle")
    r = subprocess.run([confine, "export", "oci", "--bundle", bundle, "-w", work, "--",
                        "true"], capture_output=True, text=True)
    if not TAP.check(r.returncode == 0, "confine export oci writes a bundle", r.stderr):
        return TAP.done()
    with open(os.path.join(bundle, "config.json")) as f:
        profile = json.load(f)["linux"]["seccomp"]
    subprocess.run(["rm", "-rf", work])
    exported = set()
    bad = []
    for rule in profile["syscalls"]:
        exported.update(rule["names"])
        if rule["action"] != "SCMP_ACT_ERRNO" or rule.get("errnoRet") != 1:
            bad.append(rule)
    missing = launcher - exported
    TAP.check(not missing, "the export has every row of the launcher's table (%d rows, %d names)"
              % (len(launcher), len(exported)), "it lacks: " + ", ".join(sorted(missing)))
    # Rows the export has beyond the native table are the compat ABIs'
    # (i386's socketcall and ipc, the *_time64 calls): all in the launcher's
    # compat tables' comments.
    extra = exported - launcher
    foreign = [name for name in sorted(extra) if not re.search(r"\b%s\b" % re.escape(name), text)]
    TAP.check(not foreign, "the export denies nothing the launcher does not",
              "it denies: " + ", ".join(foreign))
    TAP.check(not bad, "every rule is EPERM", "rules that are not: %s" % bad)
    TAP.check(profile["defaultAction"] == "SCMP_ACT_ALLOW" and "listenerPath" not in profile,
              "the profile is an allow-by-default deny-list without a listener",
              "defaultAction %s, listenerPath %s" % (profile["defaultAction"],
                                                     profile.get("listenerPath")))
    return TAP.done()


if __name__ == "__main__":
    sys.exit(main())
