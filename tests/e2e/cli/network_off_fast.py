#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Off fails fast and says so (issue 29.3, doc/SPEC.md 15 "Off fails
fast"), on one Linux rung: with --network off, the tools that honour the
proxy variables get the launcher's refusing proxy's answer at once, 403
naming the clause `network`, and the outcome names the host; direct
connects still fail at once; nothing is resolved or reached, not even a
name the test map points at a loopback origin that records every request.

Checked: curl (HTTP, CONNECT), Python urllib, git clone over https, npm
install (where npm is installed; no registry is needed: nothing is
reached), pip download (where a python3 with pip is; as it is run, with
PIP_RETRIES=0 from the launcher), the bash rendering's `[denied: connect
HOST:443 (network)]` and `--json`'s denials. Each tool must fail within
5 s more than its own start (`TOOL --version`, timed unconfined just
before), the 5 s times CONFINE_TEST_TIMEOUT_MULTIPLIER (the gate's
`meson test -t`, `make check-suites TIMEOUT_MULTIPLIER=`): a wide bound
against a retry loop or a hang, not a benchmark. `pip download --isolated`
(which ignores PIP_RETRIES and retries the refused tunnel five times with
back-off, about 7.5 s; doc/SPEC.md 15 "Off fails fast") is checked for
the refusal only, its time noted.

Usage: network_off_fast.py CONFINE RUNNER
"""
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "helpers"))
from outside_tmp import launcher_config  # noqa: E402
from tap import Tap  # noqa: E402

TAP = Tap()

SKIP = 77
OFF = "network is off"
# The wall-time bound's scale on a loaded gate (doc: the module's).
SCALE = float(os.environ.get("CONFINE_TEST_TIMEOUT_MULTIPLIER") or 1)
FAST_SECONDS = 5.0 * SCALE


def check(cond, what, detail=""):
    TAP.check(cond, what, str(detail)[-800:])


class Recorder(http.server.BaseHTTPRequestHandler):
    seen = []

    def do_GET(self):
        Recorder.seen.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"reached")

    def log_message(self, *args):
        pass


PY_URLLIB = """
import sys, urllib.error, urllib.request
try:
    urllib.request.urlopen(sys.argv[1], timeout=20)
    print("REACHED")
except urllib.error.HTTPError as e:
    print("HTTP %d %s" % (e.code, e.read().decode(errors="replace").strip()))
except Exception as e:
    print("FAILED:%s" % e)
"""


def pip_python():
    """A python3 whose `-m pip` runs (Debian's /usr/bin/python3 first), or
    None."""
    for py in ("/usr/bin/python3", sys.executable):
        if os.access(py, os.X_OK) and subprocess.run(
                [py, "-m", "pip", "--version"], capture_output=True).returncode == 0:
            return py
    return None


def start_seconds(argv, env):
    """How long argv (a tool's --version) takes unconfined: its own start."""
    t = time.monotonic()
    subprocess.run(argv, capture_output=True, env=env, timeout=300)
    return time.monotonic() - t


def main():
    confine, runner = sys.argv[1], sys.argv[2]
    # wrap names the on-disk launcher, which a build's under /tmp is not
    # trusted to be (doc/SPEC.md 14): a staged copy, named in a config
    config_dir = tempfile.mkdtemp(prefix="cf-off-config-")
    try:
        os.chmod(config_dir, 0o755)
        if os.environ.get("CONFINE_TEST_LAUNCHER"):
            os.environ["CONFINE_CONFIG"] = launcher_config(os.environ["CONFINE_TEST_LAUNCHER"],
                                                           config_dir)
        return run_all(confine, runner)
    finally:
        shutil.rmtree(config_dir, ignore_errors=True)


def run_all(confine, runner):
    probe = subprocess.run([confine, "wrap", "--runner", runner, "--", "true"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return TAP.skip_all("runner %s unavailable here: %s" % (runner, probe.stdout.strip()))
    parent = os.path.join(os.path.expanduser("~"), ".cache", "confine-tests")
    os.makedirs(parent, exist_ok=True)
    base = tempfile.mkdtemp(prefix="cf-off-", dir=parent)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    try:
        ws = os.path.join(base, "ws")
        os.makedirs(ws)
        hosts = os.path.join(base, "hosts")
        with open(hosts, "w") as f:
            f.write("127.0.0.1 origin.test\n")
        env = dict(os.environ, CONFINE_TEST_PROXY_HOSTS=hosts, HOME=base)
        for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                  "all_proxy", "NO_PROXY", "no_proxy"):
            env.pop(k, None)
        # pip's own settings from the host (a find-links, a timeout,
        # retries) are not the case's
        for k in [k for k in env if k.startswith("PIP_")]:
            env.pop(k)

        def confined(cmd):
            t = time.monotonic()
            r = subprocess.run([confine, "run", "--runner", runner, "--network", "off", "-m",
                                "workspace-write", "-w", ws, "--", "sh", "-c", cmd],
                               capture_output=True, text=True, env=env, cwd=ws, timeout=300)
            return r, time.monotonic() - t

        # (name, command, what the tool prints, its own start: None for
        # no time bound)
        curl_start = start_seconds(["curl", "--version"], env)
        py_start = start_seconds([sys.executable, "-c", "import urllib.request"], env)
        cases = [
            ("curl http", "curl -sS -m 20 -i http://origin.test:%d/x" % port,
             "X-Confine-Clause: network", curl_start),
            ("curl connect", "curl -sS -m 20 https://registry.npmjs.org/", "response 403",
             curl_start),
            ("python urllib", "%s -c '%s' http://origin.test:%d/y" % (sys.executable, PY_URLLIB, port),
             "HTTP 403 confine: " + OFF, py_start),
            ("git clone https", "git clone -q https://github.com/confine/none.git \"$TMPDIR/g\"",
             "403", start_seconds(["git", "--version"], env)),
        ]
        if shutil.which("npm"):
            cases.append(("npm install", "npm install --no-audit --no-fund --cache \"$TMPDIR/npm\""
                          " is-number", "E403", start_seconds(["npm", "--version"], env)))
        else:
            TAP.skip("%s npm install: refused by the proxy" % runner, "no npm here")
        pip_py = pip_python()
        if pip_py is not None:
            # -vv: pip names the tunnel's 403 only past its default level
            pip = "%s -m pip download -vv --no-deps --no-cache-dir -d \"$TMPDIR/pip\"" % pip_py
            cases.append(("pip download", pip + " six",
                          "Tunnel connection failed: 403",
                          start_seconds([pip_py, "-m", "pip", "--version"], env)))
            cases.append(("pip download --isolated", pip + " --isolated six",
                          "Tunnel connection failed: 403", None))
        else:
            TAP.skip("%s pip download: refused by the proxy" % runner, "no python3 with pip here")
        for name, cmd, want, start in cases:
            r, took = confined(cmd)
            out = r.stdout + r.stderr
            check(want in out, "%s %s: the proxy's refusal reaches the tool (%s)" % (runner, name, want), out)
            check("network: refused (network is off)" in r.stderr,
                  "%s %s: the launcher's line names network off" % (runner, name), r.stderr)
            if start is not None:
                check(took < start + FAST_SECONDS,
                      "%s %s: fails within %.0f s of its own start (%.1f s)"
                      % (runner, name, FAST_SECONDS, start), "took %.1f s" % took)
            TAP.note("%s %s: refused in %.1f s" % (runner, name, took))
        # Direct connects fail at once, as before: nothing listens for them.
        r, took = confined("curl -sS -m 20 --noproxy '*' http://127.0.0.1:%d/z; echo rc=$?" % port)
        check("rc=7" in r.stdout, "%s direct: a connect around the proxy fails" % runner, r.stdout + r.stderr)
        control = subprocess.run(["curl", "-sS", "-m", "20", "--noproxy", "*",
                                  "http://127.0.0.1:%d/z" % port], capture_output=True, text=True)
        check(control.stdout == "reached", "control: the origin answers unconfined", control.stdout)
        TAP.note("%s direct connect refused (%s) in %.1f s" %
                 (runner, [x for x in r.stderr.splitlines() if x.startswith("curl:")], took))
        check(Recorder.seen == ["/z"], "%s: only the control reached the origin" % runner,
              Recorder.seen)
        # The outcome names the host.
        b = subprocess.run([confine, "bash", "--json", "--runner", runner, "--network", "off",
                            "-w", ws, "-c", "curl -sS -m 20 https://registry.npmjs.org/"],
                           capture_output=True, text=True, env=env, timeout=300)
        out = json.loads(b.stdout)
        check({"op": "connect", "address": "registry.npmjs.org:443", "clause": "network"}
              in out["sandbox"]["denials"] and out["sandbox"]["networkDenied"],
              "%s: the refusal is a denial naming the host" % runner, out["sandbox"])
        b = subprocess.run([confine, "bash", "--runner", runner, "--network", "off", "-w", ws,
                            "-c", "curl -sS -m 20 https://registry.npmjs.org/"],
                           capture_output=True, text=True, env=env, timeout=300)
        check("[denied: connect registry.npmjs.org:443 (network)]" in b.stdout,
              "%s: the rendering names the host" % runner, b.stdout)
        return TAP.done()
    finally:
        server.shutdown()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
