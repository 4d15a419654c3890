#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What a refused client reads, byte for byte (doc/SPEC.md 15, "Network
allowlist", "Transparent capture"), on one Linux rung, as root and as a
user this test creates.

Inside one confined run (--allow-host allowed.test --allow-host bad.test
--deny-host bad.test; the test map points allowed.test at a loopback
origin that records every request, without --allow-local-network) a
Python client speaks to the run's proxy and, around it, to the origin's
address (captured), and prints every byte it was answered until the
proxy closed. Each must be exactly:

- plain HTTP for other.test: `HTTP/1.1 403 Forbidden`, the head with
  `X-Confine-Clause: network.allow`, the body naming the host and the
  clause; CONNECT other.test:443 the same; bad.test (network.deny);
  allowed.test, which resolves to 127.0.0.1 (network.allowLocal);
- a POST for other.test that goes on sending 32 MiB of body after its
  head: the whole 403, then the proxy's end (no reset), its body sent;
- SOCKS5 CONNECT other.test: the greeting's and the login's replies,
  then reply 0x02 (not allowed by the ruleset);
- captured, HTTP with Host other.test: the 403 (network.allow);
- captured, a TLS ClientHello with SNI other.test (Python's ssl): the
  fatal alert access_denied, `15 03 03 00 02 02 31`, which the TLS stack
  reads as TLSV1_ALERT_ACCESS_DENIED.

The origin records no request (the control: unconfined, a direct request
reaches it).

Usage: network_refusal_bytes.py CONFINE LAUNCHER RUNNER [--no-nonroot]
"""
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "helpers"))
from outside_tmp import launcher_config  # noqa: E402
from tap import Tap  # noqa: E402

TAP = Tap()


def check(cond, what, detail=""):
    TAP.check(cond, what, str(detail)[-1500:])


class Recorder(http.server.BaseHTTPRequestHandler):
    seen = []

    def do_GET(self):
        Recorder.seen.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"reached")

    do_POST = do_GET

    def log_message(self, *args):
        pass


# Inside the run: each case's bytes, as hex, in one JSON line.
CLIENT = r"""
import base64, json, os, socket, ssl, sys, threading
origin = int(sys.argv[1])
url = os.environ["HTTP_PROXY"]
token = url.split("@")[0].rsplit(":", 1)[1]
proxy = int(url.rsplit(":", 1)[1])
auth = "Proxy-Authorization: Basic %s\r\n" % base64.b64encode(
    ("confine:" + token).encode()).decode()


def exchange(port, data, body=None):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall(data)
    sent = {"n": 0, "error": ""}
    if body is not None:
        def push():
            try:
                chunk = b"x" * 65536
                for _ in range(body // len(chunk)):
                    s.sendall(chunk)
                    sent["n"] += len(chunk)
                s.shutdown(socket.SHUT_WR)
            except OSError as e:
                sent["error"] = str(e)
        t = threading.Thread(target=push)
        t.start()
    got = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
        end = "eof"
    except OSError as e:
        end = "error: %s" % e
    if body is not None:
        t.join()
    s.close()
    return {"hex": got.hex(), "end": end, "sent": sent["n"], "send_error": sent["error"]}


out = {}
out["http"] = exchange(proxy, ("GET http://other.test/x HTTP/1.1\r\nHost: other.test\r\n"
                               "%s\r\n" % auth).encode())
out["connect"] = exchange(proxy, ("CONNECT other.test:443 HTTP/1.1\r\nHost: other.test:443\r\n"
                                  "%s\r\n" % auth).encode())
out["deny"] = exchange(proxy, ("GET http://bad.test/ HTTP/1.1\r\nHost: bad.test\r\n%s\r\n"
                               % auth).encode())
out["local"] = exchange(proxy, ("GET http://allowed.test:%d/ HTTP/1.1\r\nHost: allowed.test:%d\r\n"
                                "%s\r\n" % (origin, origin, auth)).encode())
big = 32 * 1024 * 1024
out["post"] = exchange(proxy, ("POST http://other.test/up HTTP/1.1\r\nHost: other.test\r\n"
                               "Content-Length: %d\r\n%s\r\n" % (big, auth)).encode(), body=big)
user = b"confine"
out["socks"] = exchange(proxy, b"\x05\x01\x02" + bytes([1, len(user)]) + user
                        + bytes([len(token)]) + token.encode()
                        + b"\x05\x01\x00\x03" + bytes([len("other.test")]) + b"other.test"
                        + (443).to_bytes(2, "big"))
out["captured_http"] = exchange(origin, b"GET /c HTTP/1.1\r\nHost: other.test\r\n\r\n")
ctx = ssl.create_default_context()
tls_in, tls_out = ssl.MemoryBIO(), ssl.MemoryBIO()
tls = ctx.wrap_bio(tls_in, tls_out, server_hostname="other.test")
try:
    tls.do_handshake()
except ssl.SSLWantReadError:
    pass
r = exchange(origin, tls_out.read())
tls_in.write(bytes.fromhex(r["hex"]))
try:
    tls.do_handshake()
    r["tls"] = "handshake"
except ssl.SSLError as e:
    r["tls"] = str(e)
out["captured_tls"] = r
print(json.dumps(out))
"""


def http_403(clause, why):
    body = ("confine: %s\n" % why).encode()
    return (b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
            b"Connection: close\r\nX-Confine-Clause: %s\r\n\r\n" % (len(body), clause.encode())
            + body)


def expected(origin):
    other = http_403("network.allow", 'host "other.test" is not on the network allowlist '
                     "(clause network.allow): ask for it to be allowed")
    return {
        "http": other,
        "connect": other,
        "deny": http_403("network.deny", 'host "bad.test" is refused by the network denylist '
                         "(clause network.deny)"),
        "local": http_403("network.allowLocal", 'host "allowed.test" resolves to 127.0.0.1, '
                          "a loopback, private or link-local address, which the allowlist "
                          "refuses (clause network.allowLocal)"),
        "post": other,
        "socks": bytes([5, 2, 1, 0, 5, 2, 0, 1, 0, 0, 0, 0, 0, 0]),
        "captured_http": other,
        "captured_tls": bytes([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 49]),
    }


def run(argv, env, cwd=None):
    return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


def run_table(confine, runner, user):
    parent = os.path.join(os.path.expanduser("~"), ".cache", "confine-tests")
    os.makedirs(parent, exist_ok=True)
    base = tempfile.mkdtemp(prefix="cf-bytes-", dir=parent)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = server.server_address[1]
    try:
        ws = os.path.join(base, "ws")
        os.makedirs(ws)
        hosts = os.path.join(base, "hosts")
        with open(hosts, "w") as f:
            f.write("127.0.0.1 allowed.test other.test bad.test\n")
        env = dict(os.environ, HOME=base, CONFINE_TEST_PROXY_HOSTS=hosts)
        for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                  "all_proxy", "NO_PROXY", "no_proxy"):
            env.pop(k, None)
        r = run([confine, "run", "--runner", runner, "-m", "read-only", "-w", ws,
                 "--allow-host", "allowed.test", "--allow-host", "bad.test", "--deny-host",
                 "bad.test", "--", sys.executable, "-c", CLIENT, str(origin)], env, cwd=ws)
        try:
            got = json.loads(r.stdout)
        except ValueError:
            check(False, "%s %s: the client ran" % (runner, user), r.stdout + r.stderr)
            return
        for case, want in expected(origin).items():
            g = got[case]
            check(bytes.fromhex(g["hex"]) == want and g["end"] == "eof",
                  "%s %s %s: exactly the refusal, then the proxy's end" % (runner, user, case),
                  "got %r (%s), want %r" % (bytes.fromhex(g["hex"]), g["end"], want))
        check(got["post"]["sent"] == 32 * 1024 * 1024 and got["post"]["send_error"] == "",
              "%s %s post: the body after the head is taken, not reset" % (runner, user),
              got["post"])
        check("ACCESS_DENIED" in got["captured_tls"]["tls"],
              "%s %s captured_tls: the TLS stack reads access_denied" % (runner, user),
              got["captured_tls"]["tls"])
        check(Recorder.seen == [], "%s %s: the origin saw no request" % (runner, user),
              Recorder.seen)
        control = run(["curl", "-sS", "-m", "20", "--noproxy", "*",
                       "http://127.0.0.1:%d/control" % origin], env)
        check(control.stdout == "reached" and Recorder.seen == ["/control"],
              "%s %s control: unconfined, the origin answers" % (runner, user),
              control.stdout + control.stderr)
    finally:
        server.shutdown()
        shutil.rmtree(base, ignore_errors=True)


def main():
    args = [a for a in sys.argv[1:] if a != "--no-nonroot"]
    confine, launcher, runner = args[0], args[1], args[2]
    config_dir = tempfile.mkdtemp(prefix="cf-bytes-config-")
    try:
        os.chmod(config_dir, 0o755)
        os.environ["CONFINE_CONFIG"] = launcher_config(launcher, config_dir)
        probe = run([confine, "wrap", "--runner", runner, "--", "true"], os.environ)
        if probe.returncode != 0:
            return TAP.skip_all("runner %s unavailable here: %s" % (runner, probe.stdout.strip()))
        user = "root" if os.getuid() == 0 else "user"
        TAP.guard("%s %s: the refusal bytes" % (runner, user), run_table, confine, runner, user)
        if os.getuid() == 0 and "--no-nonroot" not in sys.argv:
            TAP.user_half("cfbytes", __file__, args, args[:2], keep_env=("CONFINE_MUST_WORK",))
        return TAP.done()
    finally:
        shutil.rmtree(config_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
