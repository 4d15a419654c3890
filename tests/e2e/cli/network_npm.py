#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A real workload through the network allowlist (issue 23), on one rung:
from a fresh workspace, `npm install` of a small package with only the host
of the registry this machine's npm is configured with allowed succeeds; with
an allowlist that lacks it, npm fails at once (the 403 answers its first
request) and the outcome names the host in its denials and the rendering;
with that allowlist and an asking decider (--ask-host) that allows the
registry's host alone, npm succeeds and network.decisions lists the host
once (issue 29.4, doc/SPEC.md 15 "Ask").

Needs the registry reachable from this machine: without it (checked
unconfined first, the control) the test skips (77).

Usage: network_npm.py CONFINE RUNNER
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

SKIP = 77


def main():
    confine, runner = sys.argv[1], sys.argv[2]
    if not shutil.which("npm") or not shutil.which("curl"):
        print("no npm or curl here")
        return SKIP
    registry = subprocess.run(["npm", "config", "get", "registry"], capture_output=True,
                              text=True, timeout=60).stdout.strip()
    host = urllib.parse.urlsplit(registry).hostname
    control = subprocess.run(["curl", "-sS", "-m", "20", "-o", "/dev/null", "-w", "%{http_code}",
                              registry.rstrip("/") + "/is-number"], capture_output=True,
                             text=True, timeout=60)
    if not host or control.stdout.strip() != "200":
        print("the registry %r is not reachable from here (%s): skipped"
              % (registry, control.stdout + control.stderr))
        return SKIP
    parent = os.path.join(os.path.expanduser("~"), ".cache", "confine-tests")
    os.makedirs(parent, exist_ok=True)
    ws = tempfile.mkdtemp(prefix="cf-npm-", dir=parent)
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.pop("CONFINE_TEST_PROXY_HOSTS", None)
    install = 'npm install --no-audit --no-fund --cache "$PWD/.npm-cache" is-number'
    try:
        r = subprocess.run([confine, "bash", "--json", "--runner", runner, "-m",
                            "workspace-write", "-w", ws, "--allow-host", host, "-c", install],
                           capture_output=True, text=True, env=env, timeout=600)
        out = json.loads(r.stdout)
        if out["exitCode"] != 0 or not os.path.isdir(os.path.join(ws, "node_modules", "is-number")):
            raise AssertionError("%s: npm install with %s allowed failed: %s"
                                 % (runner, host, out["stdout"] + out["stderr"]))
        print("ok %s: npm install is-number with only %s allowed" % (runner, host))
        shutil.rmtree(os.path.join(ws, "node_modules"))
        r = subprocess.run([confine, "bash", "--json", "--runner", runner, "-m",
                            "workspace-write", "-w", ws, "--allow-host", "example.org", "-c",
                            install], capture_output=True, text=True, env=env, timeout=600)
        out = json.loads(r.stdout)
        denial = {"op": "connect", "address": "%s:443" % host, "clause": "network"}
        if out["exitCode"] == 0 or denial not in out["sandbox"]["denials"] or \
                "403" not in out["stdout"] + out["stderr"]:
            raise AssertionError("%s: npm without %s must be refused with the 403 and a "
                                 "denial: %s" % (runner, host, out))
        print("ok %s: npm install without %s allowed: 403, denial %s" % (runner, host, denial))
        # The same allowlist with a decider that allows the registry's host.
        shutil.rmtree(os.path.join(ws, "node_modules"), ignore_errors=True)
        decider = os.path.join(ws + "-decider.sh")
        log = ws + "-asked.log"
        with open(decider, "w") as f:
            f.write('#!/bin/sh\necho "$1 $2" >> "%s"\n[ "$1" = "%s" ] && { echo yes; exit 0; }\n'
                    'echo "only the registry"; exit 1\n' % (log, host))
        os.chmod(decider, 0o755)
        r = subprocess.run([confine, "bash", "--json", "--runner", runner, "-m",
                            "workspace-write", "-w", ws, "--allow-host", "example.org",
                            "--ask-host", decider, "-c", install], capture_output=True, text=True,
                           env=env, timeout=600)
        out = json.loads(r.stdout)
        with open(log) as f:
            asked = f.read().split("\n")[:-1]
        mine = [d for d in out["sandbox"]["network"]["decisions"] if d["host"] == host]
        if out["exitCode"] != 0 or not os.path.isdir(os.path.join(ws, "node_modules", "is-number")):
            raise AssertionError("%s: npm install with a decider allowing %s failed: %s"
                                 % (runner, host, out["stdout"] + out["stderr"]))
        if mine != [{"host": host, "port": 443, "decision": "allow", "by": "decider"}] or \
                asked != ["%s 443" % host]:
            raise AssertionError("%s: decisions %s, asked %s" % (runner, mine, asked))
        print("ok %s: npm install with a decider allowing %s: succeeded, asked once, "
              "one decision" % (runner, host))
        return 0
    finally:
        shutil.rmtree(ws, ignore_errors=True)
        for extra in (ws + "-decider.sh", ws + "-asked.log"):
            if os.path.exists(extra):
                os.unlink(extra)


if __name__ == "__main__":
    sys.exit(main())
