#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gitHazards' list of settings git runs, checked against git's own manuals
(issue 28.2, doc/SPEC.md 15).

Reads the configuration entries of every installed git manual page
(git-config(1), git-archive(1), gitattributes(5), ...), picks each key
whose name or description says its value is a command, a program, a shell
line, a helper or a hook, and asks the library's table
(cf_git_executable_setting, through tests/helpers/git-key-check) whether it
counts. A flagged key the table lacks fails the test, unless it is listed
below as reviewed (with why its value runs nothing). Skips (77) where the
manuals are not installed.

usage: git_config_keys.py GIT-KEY-CHECK [MANDIR]
"""
import glob
import gzip
import os
import re
import subprocess
import sys

# Keys the wording flags whose value git does not run, each with why.
REVIEWED_NOT_RUN = {
    "color.pager": "a boolean: colour when paging",
    "column.clean": "a column layout for git clean",
    "diff.<driver>.cachetextconv": "a boolean: cache textconv's output",
    "gitcvs.dbDriver": "a Perl DBI driver name (SQLite, Pg), not a program",
    "http.proxy": "a proxy URL",
    "remote.<name>.proxy": "a proxy URL",
    "http.receivepack": "a boolean: enable the service in git http-backend",
    "http.uploadpack": "a boolean: enable the service in git http-backend",
    "uploadpack.allowFilter": "a boolean",
    "remote.<name>.partialclonefilter": "an object filter spec",
    "maintenance.commit-graph.auto": "an integer",
    "maintenance.incremental-repack.auto": "an integer",
    "maintenance.loose-objects.auto": "an integer",
    "core.fsmonitorHookVersion": "a protocol version number",
    "filter.<driver>.required": "a boolean",
    "diff.<driver>.binary": "a boolean",
    "merge.<driver>.name": "a human-readable name",
    "merge.<driver>.recursive": "the name of another merge driver",
    "mergetool.<tool>.trustExitCode": "a boolean",
    "mergetool.<tool>.hideResolved": "a boolean",
    "difftool.<tool>.trustExitCode": "a boolean",
    "trailer.<token>.key": "a trailer's key text",
    "mergetool.prompt": "a boolean",
    "difftool.prompt": "a boolean",
    "sendemail.smtpServerOption": "an option passed to the sendmail program configured elsewhere",
    "credential.useHttpPath": "a boolean",
    "credential.<url>.useHttpPath": "a boolean",
    "credential.protectProtocol": "a boolean",
    "credential.sanitizePrompt": "a boolean",
    "credential.username": "a user name",
    "credentialCache.ignoreSIGHUP": "a boolean",
    "receive.procReceiveRefs": "ref prefixes; the program is the proc-receive hook, protected",
    "core.hooksPath.sample": "not a key",
}

# Key names (the last part) that say a program: flagged whatever the words.
NAME = re.compile(r"(cmd|command|program|editor|pager|hook|helper|tunnel|httpd|driver|textconv|"
                  r"external|proxy|askpass|uploadpack|receivepack|vcs|smudge|clean|process|"
                  r"browser)$", re.I)
# Descriptions that say the value is run.
WORDING = re.compile(
    r"interpreted by the shell|evaluated in shell|executed using the shell|executed by the shell|"
    r"using the shell|shell command|(command|program|daemon|helper)s? (to|that will be) "
    r"(invoke|execute|run|use)|(the|a|custom|external|given|specified) (shell )?"
    r"(command|program|helper)\b[^.]{0,40}\b(is|will be)? ?(run|invoked|executed|called|used)|"
    r"use the specified command|command[- ]line to start|proxy command|helper program|"
    r"path to the [^.]{0,30}(program|executable)|program used for|custom program|"
    r"external helper|instead of .?ssh|command used to|the command (which|that)|"
    r"command that implements|command that will be run|through which the|piped through|"
    r"pipe .{0,40}through|command aliases|look for your hooks|hook (command|program)",
    re.I)
KEY = re.compile(r"^[A-Za-z][A-Za-z0-9]*(\.(<[^>]+>|\*|[A-Za-z0-9_-]+))*\.[A-Za-z<*][A-Za-z0-9<>*_-]*$")


def clean(text):
    text = re.sub(r"\\f[BIRP]", "", text)
    text = text.replace("\\&", "").replace("\\-", "-").replace("\\(cq", "'")
    return re.sub(r"\\\(..", "", text)


def entries(path):
    """(term, description) of each `.PP TERM .RS ... .RE` entry."""
    lines = gzip.open(path, "rt", errors="replace").read().split("\n")
    for i, line in enumerate(lines):
        if line != ".PP":
            continue
        j, terms = i + 1, []
        while j < len(lines) and j - i < 6 and not lines[j].startswith((".RS", ".PP")):
            terms.append(lines[j])
            j += 1
        if j >= len(lines) or not lines[j].startswith(".RS"):
            continue
        k, depth, body = j + 1, 1, []
        while k < len(lines) and depth:
            if lines[k].startswith(".RS"):
                depth += 1
            elif lines[k].startswith(".RE"):
                depth -= 1
            body.append(lines[k])
            k += 1
        yield clean(" ".join(terms)), clean(" ".join(body))


def manual_keys(mandir):
    keys = {}
    pages = sorted(glob.glob(os.path.join(mandir, "man[157]", "git*.gz")))
    for page in pages:
        for term, body in entries(page):
            for name in re.split(r",\s*|\s+", term):
                if KEY.match(name) and not name.startswith("foo."):
                    keys.setdefault(name, (os.path.basename(page), body))
    return pages, keys


def main():
    check = sys.argv[1]
    mandir = sys.argv[2] if len(sys.argv) > 2 else "/usr/share/man"
    pages, keys = manual_keys(mandir)
    if not any(p.endswith("git-config.1.gz") for p in pages):
        print("# skip: git-config(1) is not installed under", mandir)
        return 77
    flagged = {k: v for k, v in keys.items()
               if NAME.search(k.rsplit(".", 1)[-1]) or WORDING.search(v[1][:600])}
    out = subprocess.run([check], input="\n".join(sorted(flagged)) + "\n", capture_output=True,
                         text=True, check=True).stdout.split("\n")
    covered = {line[4:] for line in out if line.startswith("yes ")}
    missing = sorted(k for k in flagged if k not in covered and k not in REVIEWED_NOT_RUN)
    # The manuals' own words must find what the issue named (a parser that
    # found nothing would pass otherwise).
    must_flag = ["tar.<format>.command", "core.sshCommand", "credential.helper",
                 "filter.<driver>.clean", "diff.<driver>.textconv", "gpg.program",
                 "uploadpack.packObjectsHook", "core.pager", "sequence.editor"]
    unflagged = [k for k in must_flag if k not in flagged]
    print(f"# {len(pages)} manual pages, {len(keys)} keys, {len(flagged)} flagged, "
          f"{len(covered)} counted by gitHazards")
    for k in unflagged:
        print(f"not ok: the manuals' wording did not flag {k} (parser broken?)")
    for k in missing:
        page, body = flagged[k]
        print(f"not ok: {k} ({page}) looks command-valued and gitHazards does not count it: "
              f"{body[:160]}")
    if missing or unflagged:
        return 1
    print("ok: every command-valued key the manuals name is counted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
