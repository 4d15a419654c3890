#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Transparent capture (issue 29.5, doc/SPEC.md 15 "Transparent capture"),
on one Linux rung, as root and as a user this test creates: a program that
ignores the proxy variables and connects itself is carried to the run's
proxy, which decides by the name it sends, never by the address.

Loopback origins: HTTP and HTTPS (a self-signed certificate) on 127.0.0.1,
a decoy on 127.0.0.2 with another body. The test-only resolver map
(CONFINE_TEST_PROXY_HOSTS) points allowed.test and other.test at 127.0.0.1;
the run allows allowed.test with --allow-local-network. Each case runs
confined (`run`, and a `wrap` argv spawned as-is) and unconfined, the
control, which shows the same program reaches its target:
- Python's socket to 127.0.0.1 with `Host: allowed.test`: reached; with
  `Host: other.test`: 403 naming it, a `denials` entry and a refused
  decision; the same to the decoy's address: the origin the name resolves
  to answers, never the decoy the program chose (control: the decoy);
- curl --noproxy '*' --resolve (HTTP and HTTPS, SNI allowed.test /
  other.test): reached / refused with the denial;
- Node's http.request (it ignores the proxy variables before Node 24),
  where node is installed: reached;
- an IP literal as the name (Host: 127.0.0.1, HTTPS to 127.0.0.1, which
  sends no SNI) and no name at all (HTTP/1.0 without Host): refused,
  clause network.allow;
- without --allow-local-network the name's loopback address is refused
  (network.allowLocal), as through the proxy;
- names inside the run (the proxy answers DNS over TCP with placeholders):
  curl --noproxy and Node 20's fetch by name, the proxy variables removed,
  reach allowed.test; fetch of other.test fails, a denial of the outcome;
  Python's create_connection by name to a server that speaks first gets
  its banner (decided by the placeholder's name, no bytes needed); a
  name's AAAA question gets a placeholder from 2001:2::/48;
- IPv6, where the host has ::1: six.test points at an origin on [::1];
  a direct connect to ::1 naming six.test reaches it, a connect by name
  over AF_INET6 (the AAAA placeholder) reaches six.test and allowed.test
  (an IPv4 origin: the name decides), `Host: [::1]` is refused as an IP
  literal.

Usage: network_capture.py CONFINE LAUNCHER RUNNER [--no-nonroot]
"""
import http.server
import json
import os
import shlex
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "helpers"))
from as_user import run_as_created_user  # noqa: E402
from outside_tmp import launcher_outside_tmp  # noqa: E402
from tap import Tap  # noqa: E402

TAP = Tap()
BODY = "hello-from-the-origin"
DECOY = "the-address-the-program-chose"


def check(cond, what, detail=""):
    TAP.check(cond, what, str(detail)[-1200:])


def serve(directory, host, context=None):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    class Server(http.server.ThreadingHTTPServer):
        address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

    server = Server((host, 0), lambda *a, **k: Quiet(*a, directory=directory, **k))
    if context is not None:
        server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


# Read until the other side closes (the in-sandbox scripts below).
PY_READ_ALL = r"""
def read_all(s):
    got = b""
    while True:
        chunk = s.recv(4096)
        if not chunk:
            return got
        got += chunk
"""
# Connects itself to ADDRESS:PORT, sends one request naming HOST (or none).
PY_DIRECT = PY_READ_ALL + r"""
import socket, sys
address, port, host = sys.argv[1], int(sys.argv[2]), sys.argv[3]
head = "Host: %s:%d\r\n" % (host, port) if host != "-" else ""
try:
    s = socket.create_connection((address, port), timeout=20)
    s.sendall(("GET /index.html HTTP/1.%s\r\n%sConnection: close\r\n\r\n"
               % ("1" if head else "0", head)).encode())
    got = read_all(s)
    print(got.decode(errors="replace"))
except OSError as e:
    print("FAILED:%s" % e)
"""
NODE_FETCH = r"""
fetch(process.argv[1]).then((r) => r.text()).then((t) => console.log('GOT ' + t.trim()),
  (e) => console.log('FAILED ' + e.message + ' ' + (e.cause && (e.cause.code || e.cause.message))));
"""
PY_BANNER = r"""
import socket, sys
try:
    s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=20)
    print(s.recv(100).decode())
except OSError as e:
    print("FAILED:%s" % e)
"""
PY_AAAA = r"""
import socket, sys
try:
    print("ADDR " + socket.getaddrinfo(sys.argv[1], 80, socket.AF_INET6)[0][4][0])
except OSError as e:
    print("NONE:%s" % e)
"""
# By name over IPv6 only: the AAAA answer, an AF_INET6 socket.
PY_V6_NAME = PY_READ_ALL + r"""
import socket, sys
host, port = sys.argv[1], int(sys.argv[2])
try:
    info = socket.getaddrinfo(host, port, socket.AF_INET6, socket.SOCK_STREAM)[0]
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.settimeout(20)
    s.connect(info[4])
    s.sendall(("GET /index.html HTTP/1.1\r\nHost: %s:%d\r\nConnection: close\r\n\r\n"
               % (host, port)).encode())
    got = read_all(s)
    print(info[4][0] + " " + got.decode(errors="replace"))
except OSError as e:
    print("FAILED:%s" % e)
"""
NODE_HTTP = r"""
const http = require('http');
const [address, port, host] = process.argv.slice(1);
http.get({ host: address, port: Number(port), path: '/index.html',
           headers: { Host: host + ':' + port } }, (res) => {
  let body = ''; res.on('data', (d) => { body += d; });
  res.on('end', () => console.log(res.statusCode + ' ' + body));
}).on('error', (e) => console.log('FAILED:' + e.message));
"""


def run(argv, env, cwd=None, timeout=120):
    return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=timeout, start_new_session=True)


def ipv6_cases(confined, name, env, py, port, port6):
    """A connect to an IPv6 address is captured like an IPv4 one."""
    for how in ("run", "wrap argv"):
        r = confined(py + ["::1", str(port6), "six.test"], how)
        check(BODY in r.stdout, "%s (%s): a direct connect to ::1 naming six.test reaches "
              "the IPv6 origin" % (name, how), (r.stdout, r.stderr))
        r = confined([sys.executable, "-c", PY_V6_NAME, "six.test", str(port6)], how)
        check(r.stdout.startswith("2001:2::") and BODY in r.stdout,
              "%s (%s): six.test by name over AF_INET6 (its AAAA placeholder) reaches the "
              "IPv6 origin" % (name, how), (r.stdout, r.stderr))
    r = confined([sys.executable, "-c", PY_V6_NAME, "allowed.test", str(port)])
    check(r.stdout.startswith("2001:2::") and BODY in r.stdout,
          "%s: allowed.test by name over AF_INET6 reaches its IPv4 origin (the name decides)"
          % name, (r.stdout, r.stderr))
    argv = py + ["::1", str(port6), "[::1]"]
    control = run(argv, env)
    check(BODY in control.stdout, "control: unconfined, a connect to ::1 with Host [::1] "
          "reaches the IPv6 origin", control.stdout)
    r = confined(argv)
    check(BODY not in r.stdout and "an IP address is refused" in r.stdout
          and "network: refused (" in r.stderr,
          "%s: Host [::1] on a connect to ::1 is refused (clause network.allow)" % name,
          (r.stdout, r.stderr))


def run_table(confine, runner, user):
    parent = os.path.join(os.path.expanduser("~"), ".cache", "confine-tests")
    os.makedirs(parent, exist_ok=True)
    base = tempfile.mkdtemp(prefix="cf-cap-", dir=parent)
    try:
        os.chmod(base, 0o755)
        site, decoy, ws = (os.path.join(base, d) for d in ("site", "decoy", "ws"))
        for d, body in ((site, BODY), (decoy, DECOY)):
            os.makedirs(d)
            with open(os.path.join(d, "index.html"), "w") as f:
                f.write(body + "\n")
        os.makedirs(ws)
        key, cert = os.path.join(base, "key.pem"), os.path.join(base, "cert.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-subj", "/CN=allowed.test", "-keyout", key, "-out", cert],
                       check=True, capture_output=True)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        port = serve(site, "127.0.0.1")
        tls_port = serve(site, "127.0.0.1", context)
        decoy_port = None
        try:
            decoy_port = serve(decoy, "127.0.0.2")
        except OSError:
            TAP.note("no 127.0.0.2 here: the decoy case is skipped")
        banner = socket.socket()
        banner.bind(("127.0.0.1", 0))
        banner.listen(8)

        def speak_first():
            while True:
                c, _ = banner.accept()
                c.sendall(b"banner-first")
                c.close()
        threading.Thread(target=speak_first, daemon=True).start()
        banner_port = banner.getsockname()[1]
        port6 = None
        try:
            port6 = serve(site, "::1")
        except OSError:
            TAP.note("no ::1 here: the IPv6 cases are skipped")
        hosts = os.path.join(base, "hosts")
        with open(hosts, "w") as f:
            f.write("127.0.0.1 allowed.test other.test\n::1 six.test\n")
        env = dict(os.environ, CONFINE_TEST_PROXY_HOSTS=hosts, HOME=base)
        for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                  "all_proxy", "NO_PROXY", "no_proxy"):
            env.pop(k, None)
        flags = ["--allow-host", "allowed.test", "--allow-host", "six.test",
                 "--allow-local-network"]
        wrap = run([confine, "wrap", "--runner", runner, "-w", ws] + flags + ["--", "true"], env)
        check(wrap.returncode == 0, "%s %s: wrap works" % (runner, user), wrap.stdout + wrap.stderr)
        spawn = json.loads(wrap.stdout)

        def confined(argv, how="run", extra=flags):
            if how == "wrap argv":
                # The proxy variables removed too: a program that never read them.
                e = {k: v for k, v in spawn["env"].items() if "proxy" not in k.lower()}
                return run(spawn["argv"][:-1] + argv, e, cwd=ws)
            return run([confine, "run", "--runner", runner, "-w", ws] + extra
                       + ["--", "env", "-u", "HTTP_PROXY", "-u", "http_proxy", "-u",
                          "HTTPS_PROXY", "-u", "https_proxy", "-u", "ALL_PROXY", "-u",
                          "all_proxy"] + argv, env, cwd=ws)

        def denials(argv):
            b = run([confine, "bash", "--json", "--runner", runner, "-w", ws] + flags
                    + ["-c", " ".join(shlex.quote(a) for a in argv)], env)
            return json.loads(b.stdout)["sandbox"]

        py = [sys.executable, "-c", PY_DIRECT]
        curl = ["curl", "-sS", "-m", "20", "--noproxy", "*"]
        name = "%s %s" % (runner, user)
        for how in ("run", "wrap argv"):
            r = confined(py + ["127.0.0.1", str(port), "allowed.test"], how)
            check(BODY in r.stdout, "%s (%s): a direct connect naming allowed.test in Host "
                  "reaches the origin" % (name, how), (r.stdout, r.stderr))
            r = confined(curl + ["-k", "--resolve", "allowed.test:%d:127.0.0.1" % tls_port,
                                 "https://allowed.test:%d/index.html" % tls_port], how)
            check(BODY in r.stdout, "%s (%s): curl --noproxy over TLS with SNI allowed.test "
                  "reaches the origin" % (name, how), (r.stdout, r.stderr))
            r = confined(curl + ["http://allowed.test:%d/index.html" % port], how)
            check(BODY in r.stdout, "%s (%s): curl --noproxy by name (resolved inside the "
                  "run) reaches the origin" % (name, how), (r.stdout, r.stderr))
            if shutil.which("node"):
                r = confined(["node", "-e", NODE_FETCH, "http://allowed.test:%d/index.html"
                              % port], how)
                check(("GOT " + BODY) in r.stdout, "%s (%s): Node's fetch by name, no proxy "
                      "variables, reaches the origin" % (name, how), (r.stdout, r.stderr))
            r = confined([sys.executable, "-c", PY_BANNER, "allowed.test", str(banner_port)],
                         how)
            check("banner-first" in r.stdout, "%s (%s): a server that speaks first, reached "
                  "by name" % (name, how), (r.stdout, r.stderr))
        control = run([sys.executable, "-c", PY_BANNER, "127.0.0.1", str(banner_port)], env)
        check("banner-first" in control.stdout, "control: unconfined, the server that speaks "
              "first answers", control.stdout)
        r = confined([sys.executable, "-c", PY_AAAA, "allowed.test"])
        check(r.stdout.startswith("ADDR 2001:2::"), "%s: a name's IPv6 address inside the "
              "run is a placeholder from 2001:2::/48" % name, (r.stdout, r.stderr))
        if port6 is not None:
            ipv6_cases(confined, name, env, py, port, port6)
        else:
            TAP.skip("%s: IPv6 capture" % name, "no ::1 here")
        if shutil.which("node"):
            fetch_other = ["node", "-e", NODE_FETCH, "http://other.test:%d/index.html" % port]
            r = confined(fetch_other)
            s = denials(fetch_other)
            # Closed with no byte (decided by the placeholder's name before
            # any): undici fails the fetch, or leaves it pending and exits.
            check(not r.stdout.startswith("GOT") and BODY not in r.stdout
                  and {"op": "connect", "address": "other.test:%d" % port, "clause": "network"}
                  in s["denials"],
                  "%s: Node's fetch of other.test by name fails, a denial of the outcome"
                  % name, (r.stdout, r.stderr, s["denials"]))
        control = run(py + ["127.0.0.1", str(port), "other.test"], env)
        check(BODY in control.stdout, "control: unconfined, the same direct connect naming "
              "other.test reaches the origin", control.stdout)
        r = confined(py + ["127.0.0.1", str(port), "other.test"])
        check(BODY not in r.stdout and "403" in r.stdout and '"other.test"' in r.stdout
              and "network.allow" in r.stdout,
              "%s: a direct connect naming other.test is answered 403 naming it" % name,
              (r.stdout, r.stderr))
        check("network: refused (not on network.allow) other.test:%d" % port in r.stderr,
              "%s: the launcher's line names other.test" % name, r.stderr)
        s = denials(py + ["127.0.0.1", str(port), "other.test"])
        check({"op": "connect", "address": "other.test:%d" % port, "clause": "network"}
              in s["denials"] and s["networkDenied"]
              and {"host": "other.test", "port": port, "decision": "deny", "by": "allowlist"}
              in s["network"]["decisions"],
              "%s: the captured refusal is a denial and a decision of the outcome" % name, s)
        tls_other = curl + ["-k", "--resolve", "other.test:%d:127.0.0.1" % tls_port,
                            "https://other.test:%d/index.html" % tls_port]
        control = run(tls_other, env)
        check(BODY in control.stdout, "control: unconfined, curl over TLS to other.test "
              "reaches the origin", control.stdout)
        r = confined(tls_other)
        s = denials(tls_other)
        check(BODY not in r.stdout and r.returncode != 0
              and {"op": "connect", "address": "other.test:%d" % tls_port, "clause": "network"}
              in s["denials"],
              "%s: TLS with SNI other.test is refused, a denial of the outcome" % name,
              (r.stdout, r.stderr, s["denials"]))
        if decoy_port is not None:
            decoy_argv = py + ["127.0.0.2", str(port), "allowed.test"]
            control = run(py + ["127.0.0.2", str(decoy_port), "allowed.test"], env)
            check(DECOY in control.stdout, "control: unconfined, the decoy address answers "
                  "itself", control.stdout)
            run_decoy = run([confine, "run", "--runner", runner, "-w", ws] + flags
                            + ["--"] + py + ["127.0.0.2", str(decoy_port), "allowed.test"], env)
            check(DECOY not in run_decoy.stdout,
                  "%s: a direct connect to the decoy's address never reaches the decoy"
                  % name, run_decoy.stdout)
            r = confined(decoy_argv)
            check(BODY in r.stdout, "%s: a direct connect to 127.0.0.2 naming allowed.test "
                  "reaches the name's own address, not the one chosen" % name,
                  (r.stdout, r.stderr))
        if shutil.which("node"):
            r = confined(["node", "-e", NODE_HTTP, "127.0.0.1", str(port), "allowed.test"])
            check(r.stdout.startswith("200 ") and BODY in r.stdout,
                  "%s: Node's http.request (no proxy) naming allowed.test reaches the origin"
                  % name, (r.stdout, r.stderr))
        else:
            TAP.skip("%s: Node's http.request" % name, "no node here")
        for what, argv, want in (
                ("Host an IP literal", py + ["127.0.0.1", str(port), "127.0.0.1"],
                 "an IP address is refused"),
                ("no Host (HTTP/1.0)", py + ["127.0.0.1", str(port), "-"],
                 "sent an HTTP request with no Host"),
                ("TLS to an address (no SNI)",
                 curl + ["-k", "https://127.0.0.1:%d/index.html" % tls_port], None)):
            control = run(argv, env)
            check(BODY in control.stdout, "control: unconfined, %s reaches the origin" % what,
                  control.stdout)
            r = confined(argv)
            check(BODY not in r.stdout and (want is None or want in r.stdout)
                  and "network: refused (" in r.stderr,
                  "%s: %s is refused (clause network.allow)" % (name, what),
                  (r.stdout, r.stderr))
        r = confined(py + ["127.0.0.1", str(port), "allowed.test"],
                     extra=["--allow-host", "allowed.test"])
        check(BODY not in r.stdout and "network.allowLocal" in r.stdout,
              "%s: without --allow-local-network the name's loopback address is refused"
              % name, (r.stdout, r.stderr))
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main():
    args = [a for a in sys.argv[1:] if a != "--no-nonroot"]
    confine, launcher, runner = args[0], args[1], args[2]
    half = "--no-nonroot" in sys.argv
    for tool in ("curl", "openssl"):
        if not shutil.which(tool):
            return TAP.skip_all("no %s here" % tool)
    config_dir = tempfile.mkdtemp(prefix="cf-cap-config-")
    try:
        config = os.path.join(config_dir, "launcher.json")
        with open(config, "w") as f:
            json.dump({"landlockLauncher": launcher_outside_tmp(launcher)}, f)
        os.chmod(config_dir, 0o755)
        os.environ["CONFINE_CONFIG"] = config
        probe = subprocess.run([confine, "wrap", "--runner", runner, "--", "true"],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            why = "runner %s unavailable here: %s" % (runner, probe.stdout.strip())
            if half:
                TAP.check(False, "the runner works for the user as for root", why)
                return TAP.done()
            return TAP.skip_all(why)
        run_table(confine, runner, "root" if os.getuid() == 0 else "user")
    finally:
        shutil.rmtree(config_dir, ignore_errors=True)
    if os.getuid() == 0 and not half:
        r = run_as_created_user("cfcap", __file__, args + ["--no-nonroot"], args[:2],
                                keep_env=("CONFINE_MUST_WORK",), relay=TAP.relay("user"))
        if r == 77:
            TAP.skip("the created user's half", "no useradd/runuser here")
        else:
            TAP.check(r == 0, "the created user's half ended well", "status %d" % r)
    return TAP.done()


if __name__ == "__main__":
    sys.exit(main())
