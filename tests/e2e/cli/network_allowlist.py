#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The network allowlist (issue 23, doc/SPEC.md 15 "Network allowlist") on
one Linux rung, as root and as a user this test creates.

A loopback origin (HTTP, serving a file and a dumb-HTTP git repository), a
UDP listener that records what reaches it, and, where the host has IPv6, a
second origin on ::1. Names reach the origin through the test-only resolver
map (CONFINE_TEST_PROXY_HOSTS: "127.0.0.1 allowed.test other.test").

Both rungs (the launcher hosts the proxy; on bwrap the launcher inside,
and bwrap keeps the host's network namespace; the supervisor lets the
command connect to it alone):
- allowed.test (with --allow-local-network) is reached by curl (HTTP
  through the proxy, CONNECT, SOCKS5 with the name), Python urllib and git
  clone over http; `confine run` and a `wrap` argv spawned as-is;
- other.test gets the 403 naming the host and the clause network.allow,
  and the launcher's "network: refused" line;
- without --allow-local-network, allowed.test (which resolves to 127.0.0.1)
  is refused (403 naming network.allowLocal), through CONNECT too;
- each way around it fails, each with an unconfined control that works:
  a direct TCP connect to the origin's address, a direct connect with the
  proxy variables cleared, a UDP packet (a DNS-shaped query), IPv6, a raw
  socket (control as root only), io_uring_setup, SOCKS5 UDP ASSOCIATE
  (answered 0x07) and SOCKS5 with an IP address (0x02);
- the report: the clause network "allowlist" enforced by the supervisor.

Usage: network_allowlist.py CONFINE LAUNCHER RUNNER [--no-nonroot]
"""
import ctypes
import http.server
import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "helpers"))
from outside_tmp import launcher_outside_tmp  # noqa: E402
from tap import Tap  # noqa: E402

TAP = Tap()
BODY = "hello-from-the-origin"
# How long a UDP receiver waits after the host says its datagram is sent (a
# margin for a loaded machine: the unconfined control gets it at once).
UDP_MARGIN = 5 * float(os.environ.get("CONFINE_TEST_TIMEOUT_MULTIPLIER") or 1)


def check(cond, what, detail=""):
    if not cond:
        raise AssertionError("%s %s" % (what, detail))


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve_http(directory, family=socket.AF_INET, host="127.0.0.1"):
    class Server(http.server.ThreadingHTTPServer):
        address_family = family

    handler = lambda *a, **k: Quiet(*a, directory=directory, **k)  # noqa: E731
    server = Server((host, 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class UdpSink:
    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.got = []
        threading.Thread(target=self.loop, daemon=True).start()

    def loop(self):
        while True:
            data, _ = self.sock.recvfrom(2048)
            self.got.append(data)


# What the confined command runs for each attack: prints OK or FAILED:<why>.
PY_DIRECT = """
import socket, sys
try:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
    s.sendall(b"GET /index.html HTTP/1.0\\r\\n\\r\\n")
    got = b""
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        got += chunk
    print("OK" if b"%s" in got else "FAILED:nobody")
except OSError as e:
    print("FAILED:%%s" %% e)
""" % BODY
# The proxy's own port on another loopback address: Landlock's rule (ports
# only) lets it through; the supervisor's address check must not.
PY_SAME_PORT = """
import os, socket, sys
port = int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1])
print(port, flush=True)
sys.stdin.readline()
try:
    s = socket.create_connection(("127.0.0.2", port), timeout=10)
    print("OK" if s.recv(100) == b"listener" else "FAILED:nothing")
except OSError as e:
    print("FAILED:%s" % e)
"""
PY_UDP = """
import socket, sys
q = bytes.fromhex("abcd01000001000000000000076578616d706c65036f72670000010001")
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(q, ("127.0.0.1", int(sys.argv[1])))
    print("OK")
except OSError as e:
    print("FAILED:%s" % e)
"""
# The same direct connect to the IPv6 origin: captured like IPv4, it sends
# no name (HTTP/1.0 without Host) and is refused.
PY_V6 = PY_DIRECT.replace('"127.0.0.1"', '"::1"')
PY_RAW = """
import socket
try:
    socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    print("OK")
except OSError as e:
    print("FAILED:%s" % e)
"""
PY_URING = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
fd = libc.syscall(425, 4, params)
print("OK" if fd >= 0 else "FAILED:%s" % os.strerror(ctypes.get_errno()))
"""
# Inbound (issue 29.1): a listener with no bind(), which autobinds on the
# wildcard address of the host's network, and a UDP socket autobound by a
# send. Prints "PORT n" and waits for the host to reach it, or FAILED:<why>.
PY_LISTEN = """
import socket, sys
fam = socket.AF_INET6 if sys.argv[1] == "6" else socket.AF_INET
try:
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.listen(4)
except OSError as e:
    print("FAILED:%s" % e, flush=True)
    sys.exit(0)
print("PORT %d" % s.getsockname()[1], flush=True)
s.settimeout(20)
try:
    c, _ = s.accept()
    c.sendall(b"inbound")
    c.close()
    print("OK", flush=True)
except OSError as e:
    print("FAILED:%s" % e, flush=True)
"""
# A unix listener on an abstract name (given, or an autobind's): no
# permissions, in the network namespace the run shares with the host under
# the allowlist, so any local user could connect (red team, issue 29).
PY_ABSTRACT = """
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
name = "confine-inbound-%d" % os.getpid()
try:
    s.bind("\\0" + name if sys.argv[1] == "named" else "")  # "": an autobind
    s.listen(4)
except OSError as e:
    print("FAILED:%s" % e, flush=True)
    sys.exit(0)
print("ABSTRACT %s" % s.getsockname()[1:].hex(), flush=True)
s.settimeout(20)
try:
    c, _ = s.accept()
    c.sendall(b"inbound")
    c.close()
    print("OK", flush=True)
except OSError as e:
    print("FAILED:%s" % e, flush=True)
"""
PY_UDP_IN = """
import socket, sys
fam = socket.AF_INET6 if sys.argv[1] == "6" else socket.AF_INET
try:
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.sendto(b"out", ("::1" if fam == socket.AF_INET6 else "127.0.0.1", int(sys.argv[2])))
except OSError as e:
    print("FAILED:%s" % e, flush=True)
    sys.exit(0)
print("PORT %d" % s.getsockname()[1], flush=True)
# The host writes a line once its datagram is sent: on loopback it is queued
# by then wherever it can arrive, so the wait after it is a margin, not the
# test (the run that cannot be reached no longer waits out 20 s).
sys.stdin.readline()
s.settimeout(float(sys.argv[3]))
try:
    data, _ = s.recvfrom(100)
    print("OK" if data == b"inbound" else "FAILED:%r" % data, flush=True)
except OSError as e:
    print("FAILED:%s" % e, flush=True)
"""
# A run that lives until told: prints the proxy variable it was given.
PY_HOLD = """
import os, sys
print(os.environ["HTTP_PROXY"], flush=True)
sys.stdin.readline()
"""
# A SOCKS5 client from the host: "none" offers no authentication, "bad"
# a wrong password, "good" the run's. Prints the answer bytes.
PY_SOCKS_HOST = """
import socket, struct, sys
port, how, token, dport = int(sys.argv[1]), sys.argv[2], sys.argv[3].encode(), int(sys.argv[4])
s = socket.create_connection(("127.0.0.1", port), timeout=10)
s.sendall(b"\\x05\\x01\\x00" if how == "none" else b"\\x05\\x01\\x02")
r = s.recv(2)
if how == "none" or r != b"\\x05\\x02":
    print("METHOD:%s" % r.hex())
    sys.exit(0)
if how == "bad":
    token = b"0" * len(token)
s.sendall(b"\\x01\\x07confine" + bytes([len(token)]) + token)
r = s.recv(2)
if r != b"\\x01\\x00":
    print("AUTH:%s" % r.hex())
    sys.exit(0)
name = b"allowed.test"
s.sendall(b"\\x05\\x01\\x00\\x03" + bytes([len(name)]) + name + struct.pack(">H", dport))
r = s.recv(10)
if r[1] != 0:
    print("REPLY:%d" % r[1])
    sys.exit(0)
s.sendall(b"GET /index.html HTTP/1.0\\r\\nHost: allowed.test\\r\\n\\r\\n")
got = b""
while True:
    chunk = s.recv(4096)
    if not chunk:
        break
    got += chunk
print("BODY" if b"@BODY@" in got else "NOBODY")
""".replace("@BODY@", BODY)
PY_URLLIB = """
import sys, urllib.request
try:
    print(urllib.request.urlopen(sys.argv[1], timeout=20).read().decode().strip())
except Exception as e:
    print("FAILED:%s" % e)
"""
PY_SOCKS = """
import os, socket, struct, sys
port = int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1])
token = os.environ["HTTP_PROXY"].split("//", 1)[1].split("@", 1)[0].split(":", 1)[1].encode()
s = socket.create_connection(("127.0.0.1", port), timeout=10)
s.sendall(b"\\x05\\x01\\x02")
assert s.recv(2) == b"\\x05\\x02"
s.sendall(b"\\x01\\x07confine" + bytes([len(token)]) + token)
assert s.recv(2) == b"\\x01\\x00"
if sys.argv[1] == "udp":
    s.sendall(b"\\x05\\x03\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00")
else:
    s.sendall(b"\\x05\\x01\\x00\\x01\\x7f\\x00\\x00\\x01" + struct.pack(">H", int(sys.argv[2])))
r = s.recv(10)
print("REPLY:%d" % r[1])
"""


def run(argv, env=None, cwd=None, timeout=120):
    return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=timeout)


def attack(confine, runner, flags, ws, script, *args, env=None):
    """The script confined, then unconfined (the control): both outputs."""
    py = sys.executable
    inside = run([confine, "run", "--runner", runner, "-m", "read-only", "-w", ws] + flags
                 + ["--", py, "-c", script] + list(args), env=env)
    outside = run([py, "-c", script] + list(args), env=env)
    return inside.stdout.strip() + inside.stderr.strip(), outside.stdout.strip()


def reach_inbound(argv, kind, family, env, cwd=None):
    """Starts argv (a PY_LISTEN or PY_UDP_IN run); if it says PORT n, the
    host tries to reach it there. Returns "OK" when bytes were traded, else
    what failed."""
    p = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        first = p.stdout.readline().strip()
        if first.startswith("ABSTRACT "):
            try:
                c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                c.settimeout(10)
                c.connect(b"\0" + bytes.fromhex(first.split()[1]))
                got = c.recv(100)
                c.close()
                if got != b"inbound":
                    return "FAILED(nothing read):%r" % got
            except OSError as e:
                return "FAILED(host):%s" % e
            out, _ = p.communicate("", timeout=60)
            return out.strip()
        if not first.startswith("PORT "):
            return "FAILED(no listener):" + first
        port = int(first.split()[1])
        host = "::1" if family == "6" else "127.0.0.1"
        fam = socket.AF_INET6 if family == "6" else socket.AF_INET
        try:
            if kind == "tcp":
                c = socket.create_connection((host, port), timeout=10)
                got = c.recv(100)
                c.close()
                if got != b"inbound":
                    return "FAILED(nothing read):%r" % got
            else:
                u = socket.socket(fam, socket.SOCK_DGRAM)
                u.sendto(b"inbound", (host, port))
                u.close()
        except OSError as e:
            return "FAILED(host):%s" % e
        out, _ = p.communicate("sent\n", timeout=60)
        return out.strip()
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def inbound_cases(confine, runner, flags, ws, env, user, spawn_prefix=None, spawn_env=None,
                  label="allowlist"):
    """Nothing comes in (issue 29.1), TCP and UDP, IPv4 and IPv6, and a unix
    listener on an abstract name, each with its unconfined control; label
    names the flags (the allowlist, off)."""
    py = sys.executable
    sink4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink4.bind(("127.0.0.1", 0))
    families = ["4"]
    sink6 = None
    try:
        sink6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        sink6.bind(("::1", 0))
        families.append("6")
    except OSError:
        TAP.skip("%s %s inbound over IPv6" % (runner, user), "no IPv6 loopback here")
    try:
        for kind, script in (("tcp", PY_LISTEN), ("udp", PY_UDP_IN), ("unix", PY_ABSTRACT)):
            for fam in (["named", "autobound"] if kind == "unix" else families):
                sink = sink6 if fam == "6" else sink4
                args = [fam] + ([str(sink.getsockname()[1]), str(UDP_MARGIN)]
                                if kind == "udp" else [])
                if spawn_prefix is None:
                    argv = ([confine, "run", "--runner", runner, "-w", ws] + flags
                            + ["--", py, "-c", script] + args)
                    how = "run"
                else:
                    argv = spawn_prefix + [py, "-c", script] + args
                    how = "wrap argv"
                inside = reach_inbound(argv, kind, fam, spawn_env or env, cwd=ws)
                outside = reach_inbound([py, "-c", script] + args, kind, fam, env)
                name = "%s %s inbound %s %s (%s, %s)" % (
                    runner, user, kind, fam if kind == "unix" else "IPv" + fam, how, label)
                check(inside.startswith("FAILED"), name + ": must not be reachable:", inside)
                check(outside == "OK", name + ": the unconfined control must be reachable:",
                      outside)
                TAP.ok("%s: confined %s, control %s" % (name, inside, outside))
    finally:
        sink4.close()
        if sink6 is not None:
            sink6.close()


def ipv6_through_the_proxy(confined, runner, user, flags, env, port6):
    """An allowed name whose address is IPv6 (six.test, ::1 in the test
    map) is reached through the proxy, plain HTTP and CONNECT; the IPv6
    literal is refused as an IPv4 one is; without --allow-local-network
    ::1 is local. The control: the origin on [::1] answers unconfined."""
    url6 = "http://six.test:%d/index.html" % port6
    control = run(["curl", "-sS", "-m", "10", "--noproxy", "*",
                   "http://[::1]:%d/index.html" % port6], env=env)
    check(BODY in control.stdout, "control: the IPv6 origin answers unconfined",
          (control.stdout, control.stderr))
    six = flags + ["--allow-host", "six.test"]
    for how, extra in (("http", ""), ("connect", "--proxytunnel ")):
        r = confined("curl -sS -m 20 %s%s" % (extra, url6), six)
        check(r.stdout.strip() == BODY, "%s %s: six.test (IPv6) not reached:" % (runner, how),
              (r.stdout, r.stderr))
        r = confined("curl -sS -m 20 -i %shttp://[::1]:%d/index.html" % (extra, port6), six)
        # (curl prints no body of a refused CONNECT: the launcher's line)
        check(BODY not in r.stdout and "403" in r.stdout
              and "refused (an address, not a name) [::1]:%d" % port6 in r.stderr,
              "%s %s: the IPv6 literal must be refused:" % (runner, how), (r.stdout, r.stderr))
        r = confined("curl -sS -m 20 -i %s%s" % (extra, url6), ["--allow-host", "six.test"])
        check(BODY not in r.stdout and "network.allowLocal" in r.stdout
              and ("resolves to ::1," in r.stdout or how == "connect"),
              "%s %s: ::1 must be local without --allow-local-network:" % (runner, how),
              (r.stdout, r.stderr))
    TAP.ok("%s %s: six.test on ::1 reached through the proxy (http, CONNECT); [::1] and "
           "::1 without allowLocal refused; control OK" % (runner, user))


def proxy_only_for_the_run(confine, runner, flags, ws, env, user, port, spawn_prefix=None,
                           spawn_env=None):
    """Issue 29.2: while a run lives (`confine run`, or a spawned `wrap`
    argv: spawn_prefix), a host process (this user, and as root another
    user too) cannot use the run's proxy without the run's secret; the same
    requests with the secret copied from the run get through (the control:
    the proxy is up, and the credentials are what decide)."""
    if spawn_prefix is None:
        argv = [confine, "run", "--runner", runner, "-w", ws] + flags
        how_run = "run"
    else:
        argv = list(spawn_prefix)
        how_run = "wrap argv"
    if spawn_prefix is None:
        argv.append("--")
    p = subprocess.Popen(argv + [sys.executable, "-c", PY_HOLD], env=spawn_env or env, cwd=ws,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        given = p.stdout.readline().strip()
        check(given.startswith("http://confine:") and "@127.0.0.1:" in given,
              "%s: the proxy variable carries the run's credentials:" % runner, given)
        token = given.split("//", 1)[1].split("@", 1)[0].split(":", 1)[1]
        proxy_port = int(given.rsplit(":", 1)[1])
        bare = "http://127.0.0.1:%d" % proxy_port
        wrong = "http://confine:%s@127.0.0.1:%d" % ("0" * len(token), proxy_port)
        url = "http://allowed.test:%d/index.html" % port
        as_others = [("this user", [])]
        # another user runs system binaries only (the checkout and this
        # python may lie under a 0700 home)
        other_python = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) \
            else sys.executable
        if os.getuid() == 0 and shutil.which("setpriv"):
            as_others.append(("uid 65534", ["setpriv", "--reuid=65534", "--regid=65534",
                                            "--clear-groups"]))
        for who, prefix in as_others:
            for how, extra in (("http", []), ("connect", ["--proxytunnel"])):
                for cred, proxy in (("no credentials", bare), ("a wrong secret", wrong)):
                    r = run(prefix + ["curl", "-sS", "-m", "20", "-i", "--noproxy", "",
                                      "-x", proxy] + extra + [url], env=env)
                    check(BODY not in r.stdout and "407" in (r.stdout + r.stderr),
                          "%s: %s, %s, %s: must get 407:" % (runner, who, how, cred),
                          (r.stdout, r.stderr))
                r = run(prefix + ["curl", "-sS", "-m", "20", "--noproxy", "", "-x", given]
                        + extra + [url], env=env)
                check(r.stdout.strip() == BODY, "%s: %s, %s, the run's secret (control):"
                      % (runner, who, how), (r.stdout, r.stderr))
            for how, want in (("none", "METHOD:05ff"), ("bad", "AUTH:0101"), ("good", "BODY")):
                r = run(prefix + [other_python if prefix else sys.executable, "-c",
                                  PY_SOCKS_HOST, str(proxy_port), how, token, str(port)], env=env)
                check(r.stdout.strip() == want, "%s: %s, socks5 %s:" % (runner, who, how),
                      (r.stdout, r.stderr))
            TAP.ok("%s %s (%s): the run's proxy refuses %s without the run's secret (HTTP "
                   "407, CONNECT 407, SOCKS5 no method / auth failed); with it, reached "
                   "(control)" % (runner, user, how_run, who))
    finally:
        try:
            p.communicate("go\n", timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def local_refusal_is_the_decision(confine, runner, ws, env, user, port):
    """network.decisions is the final word: allowed.test is on the list but
    resolves to 127.0.0.1, so without --allow-local-network it is refused
    at the address, and its one decision is that deny, by allowLocal (it
    was the name's allow, with the denial beside it). The control: with
    --allow-local-network it is reached and the decision is the allow, by
    the allowlist."""
    url = "http://allowed.test:%d/index.html" % port
    want = {"host": "allowed.test", "port": port}
    for extra, decision, by in (([], "deny", "allowLocal"),
                                (["--allow-local-network"], "allow", "allowlist")):
        b = run([confine, "bash", "--json", "--runner", runner, "-w", ws, "--allow-host",
                 "allowed.test"] + extra + ["-c", "curl -sS -m 20 %s" % url], env=env)
        out = json.loads(b.stdout)
        decisions = out["sandbox"]["network"]["decisions"]
        denied = {"op": "connect", "address": "allowed.test:%d" % port, "clause": "network"} \
            in out["sandbox"]["denials"]
        check(decisions == [dict(want, decision=decision, by=by)],
              "%s %s%s: network.decisions:" % (runner, user, " ".join([""] + extra)),
              (decisions, out["sandbox"]["denials"]))
        check(denied == (decision == "deny") and (BODY in out["stdout"]) == (decision == "allow"),
              "%s %s%s: the denial and the body:" % (runner, user, " ".join([""] + extra)),
              (out["stdout"], out["sandbox"]["denials"]))
    TAP.ok("%s %s: a local address refused is the decision (deny, by allowLocal) beside its "
           "denial; control with --allow-local-network: allow, by the allowlist, reached"
           % (runner, user))


def run_table(confine, launcher, runner):
    # Not under /tmp: a workspace-write root there is refused on Landlock.
    parent = os.path.join(os.path.expanduser("~"), ".cache", "confine-tests")
    os.makedirs(parent, exist_ok=True)
    base = tempfile.mkdtemp(prefix="cf-net-", dir=parent)
    user = pwd.getpwuid(os.getuid()).pw_name
    try:
        os.chmod(base, 0o755)
        site = os.path.join(base, "site")
        ws = os.path.join(base, "ws")
        os.makedirs(site)
        os.makedirs(ws)
        with open(os.path.join(site, "index.html"), "w") as f:
            f.write(BODY + "\n")
        # a dumb-HTTP git repository
        src = os.path.join(base, "src")
        gitenv = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                      GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t", HOME=base)
        subprocess.run(["git", "init", "-q", src], check=True, env=gitenv)
        with open(os.path.join(src, "README"), "w") as f:
            f.write("cloned-through-the-proxy\n")
        subprocess.run(["git", "-C", src, "add", "README"], check=True, env=gitenv)
        subprocess.run(["git", "-C", src, "commit", "-qm", "one"], check=True, env=gitenv)
        subprocess.run(["git", "clone", "-q", "--bare", src, os.path.join(site, "repo.git")],
                       check=True, env=gitenv)
        subprocess.run(["git", "-C", os.path.join(site, "repo.git"), "update-server-info"],
                       check=True, env=gitenv)
        origin = serve_http(site)
        port = origin.server_address[1]
        udp = UdpSink()
        hosts = os.path.join(base, "hosts")
        with open(hosts, "w") as f:
            f.write("127.0.0.1 allowed.test other.test\n::1 six.test\n")
        env = dict(os.environ, CONFINE_TEST_PROXY_HOSTS=hosts, HOME=base)
        for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                  "all_proxy", "NO_PROXY", "no_proxy"):
            env.pop(k, None)
        url = "http://allowed.test:%d/index.html" % port
        flags = ["--allow-host", "allowed.test", "--allow-local-network"]

        def confined(cmd, extra=(), runner_=runner):
            return run([confine, "run", "--runner", runner_, "-m", "workspace-write", "-w", ws]
                       + list(extra) + ["--", "sh", "-c", cmd], env=env, cwd=ws)

        wrap = run([confine, "wrap", "--runner", runner, "-w", ws] + flags + ["--", "true"],
                   env=env)
        check(wrap.returncode == 0, "wrap failed:", wrap.stdout + wrap.stderr)
        report = json.loads(wrap.stdout)
        clause = [c for c in report["clauses"] if c["clause"] == "network"]
        check(len(clause) == 1 and clause[0]["subject"] == "allowlist", "network clause:", clause)
        check(report["policy"]["network"] == {"allow": ["allowed.test"], "deny": [],
                                              "allowLocal": True},
              "policy.network:", report["policy"]["network"])

        check(clause[0]["status"] == "enforced" and clause[0]["layers"] == ["supervisor"],
              "%s: the allowlist clause:" % runner, clause)

        # The allowance: curl (proxy, CONNECT, SOCKS5 by name), urllib, git.
        for how, cmd in (("http", "curl -sS -m 20 %s" % url),
                         ("connect", "curl -sS -m 20 --proxytunnel %s" % url),
                         ("socks5h", "curl -sS -m 20 --proxy \"$ALL_PROXY\" %s" % url)):
            r = confined(cmd, flags)
            check(r.stdout.strip() == BODY, "%s %s: allowed.test not reached:" % (runner, how),
                  (r.stdout, r.stderr))
        r = run([confine, "run", "--runner", runner, "-w", ws] + flags
                + ["--", sys.executable, "-c", PY_URLLIB, url], env=env)
        check(r.stdout.strip() == BODY, "landlock urllib:", (r.stdout, r.stderr))
        r = confined("git clone -q http://allowed.test:%d/repo.git clone && cat clone/README"
                     % port, flags)
        check("cloned-through-the-proxy" in r.stdout, "landlock git clone:", (r.stdout, r.stderr))
        shutil.rmtree(os.path.join(ws, "clone"), ignore_errors=True)
        # The wrap argv, spawned as a harness would: the launcher it names
        # hosts the proxy (on bwrap, the on-disk launcher inside).
        spawned = subprocess.run(report["argv"][:-1] + ["curl", "-sS", "-m", "20", url],
                                 env=report["env"], cwd=ws, capture_output=True, text=True,
                                 timeout=120, start_new_session=True)
        check(spawned.stdout.strip() == BODY, "%s wrap argv:" % runner,
              (spawned.stdout, spawned.stderr))

        # The refusals, answered at once.
        r = confined("curl -sS -m 20 -i http://other.test:%d/index.html" % port, flags)
        check("403" in r.stdout and '"other.test"' in r.stdout and "network.allow" in r.stdout,
              "%s: other.test must get the 403:" % runner, (r.stdout, r.stderr))
        check('network: refused (not on network.allow) other.test' in r.stderr,
              "%s: the launcher's line:" % runner, r.stderr)
        # ... and is a denial of the outcome, with the network marker.
        b = run([confine, "bash", "--json", "--runner", runner, "-w", ws] + flags
                + ["-c", "curl -sS -m 20 http://other.test:%d/index.html" % port], env=env)
        out = json.loads(b.stdout)
        check({"op": "connect", "address": "other.test:%d" % port, "clause": "network"}
              in out["sandbox"]["denials"] and out["sandbox"]["networkDenied"],
              "%s: the refusal must be a denial:" % runner, out["sandbox"])
        b = run([confine, "bash", "--runner", runner, "-w", ws] + flags
                + ["-c", "curl -sS -m 20 http://other.test:%d/index.html" % port], env=env)
        check("[denied: connect other.test:%d (network)]" % port in b.stdout,
              "%s: the rendering names the host:" % runner, b.stdout)
        for how, extra in (("http", ""), ("connect", "--proxytunnel ")):
            r = confined("curl -sS -m 20 -i %s%s" % (extra, url), ["--allow-host", "allowed.test"])
            check(BODY not in r.stdout and "network.allowLocal" in r.stdout,
                  "%s %s: a name resolving to 127.0.0.1 must be refused:" % (runner, how),
                  (r.stdout, r.stderr))
        r = confined("curl -sS -m 20 -i %s" % url, flags + ["--deny-host", "*.test"])
        check("403" in r.stdout and BODY not in r.stdout, "%s: deny wins:" % runner, r.stdout)
        # ... and the refusal names the clause that refused: network.deny.
        check("X-Confine-Clause: network.deny" in r.stdout
              and "(clause network.deny)" in r.stdout
              and "refused (on network.deny) allowed.test" in r.stderr,
              "%s: a denied host must name network.deny:" % runner, (r.stdout, r.stderr))
        # A list past the launcher's bound is refused before anything runs,
        # never cut (issue 27: a 257th deny entry was dropped and reached).
        marker = os.path.join(ws, "bound-ran")
        many = []
        for i in range(256):
            many += ["--deny-host", "filler%d.test" % i]
        r = run([confine, "run", "--runner", runner, "-m", "workspace-write", "-w", ws,
                 "--allow-host", "*.test", "--allow-local-network"] + many
                + ["--deny-host", "allowed.test", "--", "sh", "-c", "touch %s" % marker],
                env=env, cwd=ws)
        check(r.returncode == 125
              and "network.deny has 257 entries, more than the 256" in r.stderr
              and not os.path.exists(marker),
              "%s: 257 deny entries must be refused:" % runner, (r.returncode, r.stderr))
        w = run([confine, "wrap", "--runner", runner, "-w", ws, "--allow-host", "*.test"] + many
                + ["--deny-host", "allowed.test", "--", "true"], env=env)
        check(w.returncode == 125
              and json.loads(w.stdout)["error"]["code"] == "INVALID_POLICY",
              "%s: wrap must say INVALID_POLICY:" % runner, (w.stdout, w.stderr))

        # The ways around it, each with its unconfined control.
        cases = [("direct connect", PY_DIRECT, [str(port)]),
                 ("udp / dns query", PY_UDP, [str(udp.port)]),
                 ("io_uring", PY_URING, [])]
        if os.getuid() == 0:
            cases.append(("raw socket", PY_RAW, []))
        try:
            v6 = serve_http(site, socket.AF_INET6, "::1")
            cases.append(("ipv6 direct connect with no name", PY_V6,
                          [str(v6.server_address[1])]))
            ipv6_through_the_proxy(confined, runner, user, flags, env, v6.server_address[1])
        except OSError:
            TAP.skip("%s %s: ipv6 confined" % (runner, user), "no IPv6 loopback here")
        for name, script, args in cases:
            before = len(udp.got)
            inside, outside = attack(confine, runner, flags, ws, script, *args, env=env)
            check(inside.startswith("FAILED"), "%s %s: must fail confined:" % (runner, name), inside)
            check(outside == "OK", "%s %s: the unconfined control must work:" % (runner, name),
                  outside)
            if name.startswith("udp"):
                check(len(udp.got) == before + 1, "udp: only the control may arrive:", udp.got)
            TAP.ok("%s %s: %s confined (%s), control %s" % (runner, user, name, inside, outside))
        inbound_cases(confine, runner, flags, ws, env, user)
        inbound_cases(confine, runner, flags, ws, env, user, spawn_prefix=report["argv"][:-1],
                      spawn_env=report["env"])
        # Under --network off too (issue 29.1 with 29.3's refusing proxy:
        # on Landlock a TCP socket is let through to reach it).
        off = ["--network", "off"]
        off_wrap = run([confine, "wrap", "--runner", runner, "-w", ws] + off + ["--", "true"],
                       env=env)
        check(off_wrap.returncode == 0, "wrap --network off failed:",
              off_wrap.stdout + off_wrap.stderr)
        off_report = json.loads(off_wrap.stdout)
        inbound_cases(confine, runner, off, ws, env, user, label="off")
        inbound_cases(confine, runner, off, ws, env, user, spawn_prefix=off_report["argv"][:-1],
                      spawn_env=off_report["env"], label="off")
        proxy_only_for_the_run(confine, runner, flags, ws, env, user, port)
        proxy_only_for_the_run(confine, runner, flags, ws, env, user, port,
                               spawn_prefix=report["argv"][:-1], spawn_env=report["env"])
        local_refusal_is_the_decision(confine, runner, ws, env, user, port)
        # The proxy's port on 127.0.0.2: only the supervisor can refuse it.
        p = subprocess.Popen([confine, "run", "--runner", runner, "-w", ws] + flags
                             + ["--", sys.executable, "-c", PY_SAME_PORT], env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        proxy_port = int(p.stdout.readline())
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.2", proxy_port))
        listener.listen(4)

        def answer():
            while True:
                c, _ = listener.accept()
                c.sendall(b"listener")
                c.close()
        threading.Thread(target=answer, daemon=True).start()
        out, err = p.communicate("go\n", timeout=120)
        # Captured (doc/SPEC.md 15, "Transparent capture"): carried to the
        # proxy, which waits for a name; never the listener on 127.0.0.2.
        check(out.strip().startswith("FAILED"),
              "%s: 127.0.0.2 on the proxy's port must not be reached:" % runner, (out, err))
        c = socket.create_connection(("127.0.0.2", proxy_port), timeout=10)
        check(c.recv(100) == b"listener", "control: 127.0.0.2 on the proxy's port answers")
        c.close()
        listener.close()
        TAP.ok("%s %s: the proxy's port on 127.0.0.2 not reached (%s), control OK"
              % (runner, user, out.strip()))
        # The proxy variables cleared: a direct request resolves nothing.
        r = confined("env -u HTTP_PROXY -u http_proxy -u ALL_PROXY -u all_proxy "
                     "curl -sS -m 10 --noproxy '*' http://127.0.0.1:%d/index.html; echo rc=$?"
                     % port, flags)
        check(BODY not in r.stdout, "%s: proxy variables cleared must not help:" % runner, r.stdout)
        control = run(["curl", "-sS", "-m", "10", "--noproxy", "*",
                       "http://127.0.0.1:%d/index.html" % port], env=env)
        check(BODY in control.stdout, "control: the direct request works unconfined",
              control.stdout)
        # SOCKS5: UDP ASSOCIATE and an IP address refused.
        for how, args, code in (("udp associate", ["udp"], 7), ("ip address", ["ip", str(port)], 2)):
            r = run([confine, "run", "--runner", runner, "-w", ws] + flags
                    + ["--", sys.executable, "-c", PY_SOCKS] + args, env=env)
            check(r.stdout.strip() == "REPLY:%d" % code, "%s socks %s:" % (runner, how),
                  (r.stdout, r.stderr))
        TAP.ok("%s %s: allowed.test reached (curl http/CONNECT/SOCKS5, urllib, git%s); "
              "other.test 403; local address refused; direct, udp, ipv6, raw, io_uring, "
              "cleared variables, SOCKS UDP and IP refused"
              % (runner, user, ", wrap argv"))
        return 0
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main():
    args = [a for a in sys.argv[1:] if a != "--no-nonroot"]
    confine, launcher, runner = args[0], args[1], args[2]
    # A wrap argv names the on-disk launcher, which confine refuses to run
    # from a /tmp build tree (doc/SPEC.md 14): pin the test's own copy.
    config_dir = tempfile.mkdtemp(prefix="cf-net-config-")
    try:
        config = os.path.join(config_dir, "launcher.json")
        with open(config, "w") as f:
            json.dump({"landlockLauncher": launcher_outside_tmp(launcher)}, f)
        os.environ["CONFINE_CONFIG"] = config
        return run_with(confine, launcher, runner, args)
    finally:
        shutil.rmtree(config_dir, ignore_errors=True)


def run_with(confine, launcher, runner, args):
    probe = run([confine, "wrap", "--runner", runner, "--", "true"])
    if probe.returncode != 0:
        return TAP.skip_all("runner %s unavailable here: %s" % (runner, probe.stdout.strip()))
    # One table in one world (an origin, a sink, a workspace): each case a
    # TAP line; a failed check ends the table there, as one `not ok`.
    TAP.guard("%s: the allowlist table, from the step after the last ok" % runner,
              run_table, confine, launcher, runner)
    if os.getuid() == 0 and "--no-nonroot" not in sys.argv:
        # the same table as a user made for it, from staged copies
        TAP.user_half("cfnet", __file__, args, args[:2], keep_env=("CONFINE_MUST_WORK",))
    return TAP.done()


if __name__ == "__main__":
    sys.exit(main())
