#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The host's own addresses are local (red team R5-F5, doc/SPEC.md 15
"Network allowlist"), on one Linux rung, as root and as a user this test
creates.

A listener on 0.0.0.0 (and on :: where the host has IPv6) stands for the
host's own services. The test-only resolver map points an allowed name,
own.test, at each of the host's non-loopback interface addresses (from `ip
-o addr`: on this CI host eth0's 192.0.2.2, a documentation address the
ranges call public). Without --allow-local-network the confined command
gets the proxy's 403 naming the host's own address and the clause
network.allowLocal through the proxy (HTTP and CONNECT) and captured
(curl --noproxy, decided by its Host), in `confine run` and a spawned
`wrap` argv; the listener sees nothing. Controls:
the same request unconfined reaches the listener by that address, and
confined with --allow-local-network it is reached by the name. As root, in
a network namespace of its own: more than 256 addresses and the proxy does
not start (125, naming the bound); just under it the run runs.

Usage: network_own_address.py CONFINE LAUNCHER RUNNER [--no-nonroot]
"""
import http.server
import ipaddress
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "helpers"))
from outside_tmp import launcher_config  # noqa: E402
from tap import Tap  # noqa: E402

TAP = Tap()
BODY = "own-service"
OWN = "an address of this host's own interfaces"
LOCAL = "a loopback, private or link-local address"
# documentation and benchmarking IPv4: public to the proxy's ranges
PUBLIC_TOO = [ipaddress.ip_network(n) for n in ("192.0.2.0/24", "198.51.100.0/24",
                                                "203.0.113.0/24", "198.18.0.0/15")]


def check(cond, what, detail=""):
    TAP.check(cond, what, str(detail)[-800:])


class Recorder(http.server.BaseHTTPRequestHandler):
    seen = []

    def do_GET(self):
        Recorder.seen.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(BODY.encode())

    def log_message(self, *args):
        pass


def listen(family, host):
    class Server(http.server.ThreadingHTTPServer):
        address_family = family

    server = Server((host, 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def own_addresses():
    """The host's addresses that are neither loopback nor link-local (a
    link-local one needs a scope to be reached): [(family, address)]."""
    out = subprocess.run(["ip", "-o", "addr"], capture_output=True, text=True).stdout
    found = []
    for line in out.splitlines():
        words = line.split()
        if len(words) < 4 or words[2] not in ("inet", "inet6"):
            continue
        addr = words[3].split("/")[0]
        if "scope" in words and words[words.index("scope") + 1] in ("host", "link"):
            continue
        found.append(("6" if words[2] == "inet6" else "4", addr))
    return found


def run(argv, env, cwd=None):
    return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


def case(confine, runner, ws, base, env, fam, addr, server, user):
    port = server.server_address[1]
    url_addr = "[%s]" % addr if fam == "6" else addr
    hosts = os.path.join(base, "hosts-%s" % addr.replace(":", "_"))
    with open(hosts, "w") as f:
        f.write("%s own.test\n" % addr)
    env = dict(env, CONFINE_TEST_PROXY_HOSTS=hosts)
    name = "%s %s own IPv%s %s" % (runner, user, fam, addr)
    url = "http://own.test:%d/" % port
    ways = [
        ("http", "curl -sS -m 20 -i %s" % url),
        ("connect", "curl -sS -m 20 -v -p %s" % url),
        ("captured", "curl -sS -m 20 -i --noproxy '*' --resolve own.test:%d:%s %s"
         % (port, url_addr, url)),
    ]
    # the ranges' words for one they already call local (fd00::/8, unique
    # local), the host's own for one they call public (192.0.2.2)
    ip = ipaddress.ip_address(addr)
    what = OWN if ip.is_global or any(ip in n for n in PUBLIC_TOO) else LOCAL
    before = len(Recorder.seen)
    for how, cmd in ways:
        r = run([confine, "run", "--runner", runner, "-m", "read-only", "-w", ws,
                 "--allow-host", "own.test", "--", "sh", "-c", cmd], env, cwd=ws)
        out = r.stdout + r.stderr
        # curl shows no body of a refused CONNECT: its head (-v) names the clause
        check("403 Forbidden" in out and "X-Confine-Clause: network.allowLocal" in out
              and (how == "connect" or 'host "own.test" resolves to %s, %s' % (addr, what) in out),
              "%s %s: refused, naming the host's own address and network.allowLocal"
              % (name, how), out)
        check(BODY not in out, "%s %s: the listener is not reached" % (name, how), out)
    # A wrap argv spawned as a harness would: the launcher it names hosts
    # the proxy (on bwrap, the on-disk launcher inside).
    w = run([confine, "wrap", "--runner", runner, "-m", "read-only", "-w", ws, "--allow-host",
             "own.test", "--", "true"], env)
    check(w.returncode == 0, "%s wrap: the argv is made" % name, w.stdout + w.stderr)
    report = json.loads(w.stdout)
    spawned = subprocess.run(report["argv"][:-1] + ["sh", "-c", ways[0][1]], env=report["env"],
                             cwd=ws, capture_output=True, text=True, timeout=300,
                             start_new_session=True)
    out = spawned.stdout + spawned.stderr
    check("X-Confine-Clause: network.allowLocal" in out and BODY not in out
          and 'host "own.test" resolves to %s, %s' % (addr, what) in out,
          "%s wrap argv: refused, naming the host's own address" % name, out)
    check(len(Recorder.seen) == before, "%s: the listener saw no request" % name,
          Recorder.seen[before:])
    control = run(["curl", "-sS", "-m", "20", "--noproxy", "*",
                   "http://%s:%d/" % (url_addr, port)], env)
    check(control.stdout == BODY, "%s control: unconfined, the address reaches the listener"
          % name, control.stdout + control.stderr)
    r = run([confine, "run", "--runner", runner, "-m", "read-only", "-w", ws,
             "--allow-host", "own.test", "--allow-local-network", "--", "sh", "-c", ways[0][1]],
            env, cwd=ws)
    check(BODY in r.stdout, "%s control: with --allow-local-network the name is reached" % name,
          r.stdout + r.stderr)


BOUND = 256  # PROXY_OWN_MAX
PAST_BOUND = """
ip link set lo up || exit 99
i=0
while [ $i -lt $1 ]; do
  ip addr add 10.9.$((i / 250)).$((i % 250 + 1))/32 dev lo || exit 99
  i=$((i + 1))
done
shift
exec "$@"
"""


def bound_case(confine, runner):
    """Root, in a network namespace of its own: past PROXY_OWN_MAX
    addresses the proxy does not start (refused, not a list cut short);
    the control, just under it, runs."""
    if shutil.which("unshare") is None:
        TAP.skip("%s root: the bound on the host's addresses" % runner, "no unshare here")
        return
    ws = tempfile.mkdtemp(prefix="cf-own-bound-")
    try:
        for extra, runs in ((BOUND - 10, True), (BOUND + 4, False)):
            r = run(["unshare", "-n", "sh", "-c", PAST_BOUND, "sh", str(extra), confine, "run",
                     "--runner", runner, "-m", "read-only", "-w", ws, "--allow-host",
                     "x.test", "--", "echo", "ran"], os.environ)
            if r.returncode == 99:
                TAP.skip("%s root: the bound on the host's addresses" % runner,
                         "cannot add addresses in a new network namespace: " + r.stderr)
                return
            if runs:
                check(r.returncode == 0 and r.stdout.strip() == "ran",
                      "%s root: %d addresses (lo's, %d more), the run runs" %
                      (runner, extra + 2, extra), r.stdout + r.stderr)
            else:
                check(r.returncode == 125 and "ran" not in r.stdout and
                      "the host has more than %d interface addresses" % BOUND in r.stderr,
                      "%s root: %d addresses, refused (125) naming the bound, nothing runs" %
                      (runner, extra + 2), (r.returncode, r.stdout, r.stderr))
    finally:
        shutil.rmtree(ws, ignore_errors=True)


def run_table(confine, runner, user):
    addresses = own_addresses()
    if not addresses:
        # This host's interfaces are loopback and link-local only: nothing
        # an allowed name could be pointed at but what the ranges refuse.
        TAP.skip("%s %s: the host's own addresses" % (runner, user),
                 "the host has no non-loopback, non-link-local address")
        return
    parent = os.path.join(os.path.expanduser("~"), ".cache", "confine-tests")
    os.makedirs(parent, exist_ok=True)
    base = tempfile.mkdtemp(prefix="cf-own-", dir=parent)
    servers = {}
    try:
        ws = os.path.join(base, "ws")
        os.makedirs(ws)
        env = dict(os.environ, HOME=base)
        for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                  "all_proxy", "NO_PROXY", "no_proxy"):
            env.pop(k, None)
        servers["4"] = listen(socket.AF_INET, "0.0.0.0")
        if any(fam == "6" for fam, _ in addresses):
            servers["6"] = listen(socket.AF_INET6, "::")
        for fam, addr in addresses:
            TAP.guard("%s %s own address %s" % (runner, user, addr), case, confine, runner, ws,
                      base, env, fam, addr, servers[fam], user)
    finally:
        for s in servers.values():
            s.shutdown()
        shutil.rmtree(base, ignore_errors=True)


def main():
    args = [a for a in sys.argv[1:] if a != "--no-nonroot"]
    confine, launcher, runner = args[0], args[1], args[2]
    config_dir = tempfile.mkdtemp(prefix="cf-own-config-")
    try:
        os.chmod(config_dir, 0o755)
        os.environ["CONFINE_CONFIG"] = launcher_config(launcher, config_dir)
        probe = run([confine, "wrap", "--runner", runner, "--", "true"], os.environ)
        if probe.returncode != 0:
            return TAP.skip_all("runner %s unavailable here: %s" % (runner, probe.stdout.strip()))
        user = "root" if os.getuid() == 0 else "user"
        run_table(confine, runner, user)
        if os.getuid() == 0:
            TAP.guard("%s root: the bound on the host's addresses" % runner, bound_case,
                      confine, runner)
        if os.getuid() == 0 and "--no-nonroot" not in sys.argv:
            TAP.user_half("cfown", __file__, args, args[:2], keep_env=("CONFINE_MUST_WORK",))
        return TAP.done()
    finally:
        shutil.rmtree(config_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
