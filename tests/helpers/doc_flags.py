#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The help texts and the man page against the table of options (TAP).

Usage: doc_flags.py CONFINE SOURCE_ROOT

The flags a reader is told of are the ones the command takes: every row of
the table of options (``confine options --json``, src/common/options.def)
with a flag appears in doc/man/confine.1 and in the ``--help`` of every
command the row names, and neither names a flag (``--word``) that is not
a row's or one of the command line's own (src/cli/args.c's rows after the
table's: --help, --config, --json, ...). A flag of another program the man
page cites (bwrap's, landlock-run's) is listed below with where it is from.
"""
import json
import os
import re
import subprocess
import sys

# Flags confine.1 or a help text cites that are another program's, or the
# general options outside the parser's table.
OTHERS = {
    "--version": "confine --version (main.c, before any command)",
    "--oci": "runsc's flag, cited by confine export (doc/SCALING.md)",
    "--oci-seccomp": "runsc's flag, cited by confine export --help",
}


def flags_in(text):
    """Every --word in a text (a roff \\- is a -)."""
    text = text.replace("\\-", "-").replace("\\&", "")
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*[a-z0-9]", text))


def own_flags(root):
    """The command line's own flags: args.c's rows after the table's."""
    with open(os.path.join(root, "src", "cli", "args.c")) as f:
        src = f.read()
    table = src[src.index("static const option_spec option_table[]"):]
    table = table[table.index('#include "options.def"'):table.index("};")]
    return set(re.findall(r'"(--[a-z][a-z0-9-]*)"', table))


def main():
    confine, root = sys.argv[1], sys.argv[2]
    rows = json.loads(subprocess.run([confine, "options", "--json"], capture_output=True,
                                     check=True).stdout)["options"]
    table = {r["flag"]: r for r in rows if r["flag"]}
    known = set(table) | own_flags(root) | set(OTHERS)
    with open(os.path.join(root, "doc", "man", "confine.1")) as f:
        man = f.read()
    checks = []
    man_flags = flags_in(man)
    for flag in sorted(table):
        checks.append(("confine.1 names %s" % flag,
                       None if flag in man_flags else "missing"))
    extra = sorted(man_flags - known)
    checks.append(("confine.1 names no flag outside the table and the command line's own",
                   "extra: %s" % ", ".join(extra) if extra else None))
    commands = sorted({c for r in rows for c in r["commands"]})
    for command in commands:
        done = subprocess.run([confine, command, "--help"], capture_output=True, text=True)
        help_flags = flags_in(done.stdout + done.stderr)
        for flag, row in sorted(table.items()):
            if command in row["commands"]:
                checks.append(("confine %s --help names %s" % (command, flag),
                               None if flag in help_flags else "missing"))
        taken = {f for f, r in table.items() if command in r["commands"]} | own_flags(root)
        extra = sorted(help_flags - taken - set(OTHERS))
        checks.append(("confine %s --help names no flag it does not take" % command,
                       "extra: %s" % ", ".join(extra) if extra else None))
    print("1..%d" % len(checks))
    failed = 0
    for i, (label, problem) in enumerate(checks, 1):
        failed += bool(problem)
        print("%s %d - %s%s" % ("not ok" if problem else "ok", i, label,
                                ": " + problem if problem else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
