#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs a package README's examples as they are written (issue 24).

Usage: readme_examples.py python|node README CONFINE_BUILD_ROOT

Every ```python (or ```js) block of README runs, in order, with only its
example paths made real: "/home/me" becomes a fresh directory holding
`project`, `.npm`, `.ssh` and `.cache/pip`, and `require('confine')` the
package of this checkout. A block that raises fails the test; the examples
must work as a reader copies them.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from outside_tmp import launcher_outside_tmp


def blocks(readme, lang):
    with open(readme) as f:
        text = f.read()
    return re.findall(r"```%s\n(.*?)```" % lang, text, re.S)


def main():
    lang, readme, build = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
    source = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    home_root = os.path.join(os.environ.get("HOME") or "/tmp", ".cache", "confine-tests")
    os.makedirs(home_root, exist_ok=True)
    home = os.path.realpath(tempfile.mkdtemp(prefix="readme.", dir=home_root))
    try:
        for d in ("project", ".npm", ".ssh", ".cache/pip"):
            os.makedirs(os.path.join(home, d))
        # A wrap argv names the on-disk launcher, which confine refuses to
        # run from a build tree under /tmp (doc/SPEC.md 14): the examples
        # get a copy outside it, as an installed confine has its own. The
        # configuration lies beside the examples' home, not in it: the
        # examples' workspace is the home, and a configuration the run may
        # write is refused (doc/SPEC.md 16, R4-F11).
        config = home + ".json"
        with open(config, "w") as f:
            json.dump({"landlockLauncher": launcher_outside_tmp(
                os.path.join(build, "src", "launcher", "landlock-run"))}, f)
        env = dict(os.environ, CONFINE_CONFIG=config,
                   CONFINE_LIBRARY=os.path.join(build, "src", "lib", "libconfine.so.2"),
                   CONFINE_BIN=os.path.join(build, "src", "cli", "confine"),
                   PYTHONPATH=os.path.join(source, "bindings", "python"))
        found = blocks(readme, "python" if lang == "python" else "js")
        if not found:
            print("no %s example in %s" % (lang, readme))
            return 1
        for i, code in enumerate(found):
            code = code.replace("/home/me", home)
            if lang == "python":
                argv = [sys.executable, "-c", code]
            else:
                code = code.replace("require('confine')",
                                    "require(%r)" % os.path.join(source, "bindings", "node"))
                # top-level await, as in an ES module or a REPL
                argv = ["node", "-e", "(async () => {\n%s\n})().catch((e) => {"
                        " console.error(e); process.exit(1); });" % code]
            done = subprocess.run(argv, env=env, cwd=home, capture_output=True, text=True,
                                  timeout=300)
            if done.returncode != 0:
                print("example %d of %s failed (%d):\n%s\n%s" % (i + 1, readme, done.returncode,
                                                               done.stdout, done.stderr))
                return 1
            print("ok - %s example %d ran as written" % (lang, i + 1))
        return 0
    finally:
        shutil.rmtree(home, ignore_errors=True)
        if os.path.exists(home + ".json"):
            os.unlink(home + ".json")


if __name__ == "__main__":
    sys.exit(main())
