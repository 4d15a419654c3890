# SPDX-License-Identifier: MIT
"""Every suite's non-root half runs from staged copies (issue 33).

A half that starts a program by its path in the checkout fails where the
checkout is closed to the user (a clone under /root, mode 0700). The two
helpers that stage are tests/helpers/stage.sh (shell) and as_user.py
(Python; tap.py's user_half() and main_beside_user() run a TAP suite's
half through it). This
check walks tests/ and bindings/ and fails for any file that switches to
another user (runuser, `setpriv --reuid`, os.setuid, C's setuid())
without going through one of them, so a new suite cannot forget it.

Usage: staged_halves.py SOURCE_ROOT"""
import os
import re
import sys

SWITCH = re.compile(r"\brunuser\b|setpriv\s+--reuid|os\.set(?:e|res)?uid\(|"
                    r"\bset(?:e|res)?uid\s*\(\s*[^)\s]")
STAGED = re.compile(r"stage\.sh|\bas_user\b|run_as_created_user|\buser_half(?:_start)?\(|\bmain_beside_user\(")
# the helpers themselves, and files that name the tools without switching
EXEMPT = {"tests/helpers/stage.sh", "tests/helpers/as_user.py", "tests/helpers/staged_halves.py",
          # a forked child drops to nobody to call the library in-process on
          # a temp path: it starts no program, so there is nothing to stage
          "tests/unit/test-policy.c"}


def main():
    root = os.path.abspath(sys.argv[1])
    bad, seen = [], 0
    for top in ("tests", "bindings"):
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = [x for x in dirs if x not in ("node_modules", "__pycache__", "build")]
            for f in files:
                if not f.endswith((".py", ".sh", ".js", ".mjs", ".c")):
                    continue
                path = os.path.join(d, f)
                rel = os.path.relpath(path, root)
                if rel in EXEMPT:
                    continue
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                code = "\n".join(line for line in text.splitlines()
                                 if not line.lstrip().startswith(("#", "/*", "*", "//")))
                if SWITCH.search(code):
                    seen += 1
                    if not STAGED.search(text):
                        bad.append(rel)
    for rel in bad:
        print("not staged: %s switches user without tests/helpers/stage.sh or as_user.py" % rel)
    if seen == 0:
        print("FAIL: no file switches user: the walk found nothing to check")
        return 1
    print("%d files switch user; %d not through a staging helper" % (seen, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
