#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The network allowlist's proxy, measured (issue 23; doc/SPEC.md 15).

One run, figures and ratios against a baseline measured in the same
process, on loopback:
- throughput: a 100 MiB download from a loopback origin through the proxy
  (curl inside `landlock-run --deny-network --proxy-allow ...`) against the
  same download direct (curl unconfined); the ratio (target >= 0.9, issue
  29: the relay splices, doc/SPEC.md 15);
- added time to first byte per connection: the median of N small requests
  through the proxy minus the median direct (curl's time_starttransfer);
- the proxy's peak memory (VmHWM) with 100 concurrent connections held open
  through it, and its resident set before them;
- the decider's round trip (issue 29.4, doc/SPEC.md 15 "Ask"): the median
  time to first byte of N requests each for a name on neither list, which
  the proxy asks on `--ask-fd` (this script answers allow at once), against
  the same for the listed name; the ratio and the added time.

Prints figures; asserts nothing about speed.

Usage: proxy-bench.py LAUNCHER [--mib N] [--requests N] [--connections N]
"""
import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

CHUNK = b"x" * (1 << 20)
# The throughput ratio the proxy is to reach (issue 29); printed, not asserted.
TARGET = 0.9


def origin(size_mib):
    """A loopback HTTP origin: /big is size_mib MiB, /small is 2 bytes;
    /hold answers headers and keeps the connection open."""
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(512)

    def handle(c):
        try:
            req = b""
            while b"\r\n\r\n" not in req:
                d = c.recv(4096)
                if not d:
                    return
                req += d
            path = req.split(b" ")[1]
            if path.endswith(b"/big"):
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                          % (size_mib << 20))
                for _ in range(size_mib):
                    c.sendall(CHUNK)
            elif path.endswith(b"/hold"):
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\nx")
                c.recv(1)  # until the client goes
            else:
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        except OSError:
            pass
        finally:
            c.close()

    def loop():
        while True:
            c, _ = srv.accept()
            threading.Thread(target=handle, args=(c,), daemon=True).start()

    threading.Thread(target=loop, daemon=True).start()
    return srv.getsockname()[1]


def curl_figures(argv):
    out = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise SystemExit("curl failed: %s %s" % (out.stdout, out.stderr))
    return [float(x) for x in out.stdout.split()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("launcher")
    ap.add_argument("--mib", type=int, default=100)
    ap.add_argument("--requests", type=int, default=30)
    ap.add_argument("--connections", type=int, default=100)
    a = ap.parse_args()

    port = origin(a.mib)
    hosts = tempfile.NamedTemporaryFile("w", suffix=".hosts", delete=False)
    hosts.write("127.0.0.1 bench.test %s\n" % " ".join("ask%d.test" % i
                                                       for i in range(a.requests)))
    hosts.close()
    launcher = [a.launcher, "--ro", "/", "--rw", "/dev/null", "--deny-network",
                "--proxy-allow", "bench.test", "--proxy-allow-local", "--proxy-hosts", hosts.name,
                "--"]
    fmt = "%{speed_download} %{time_starttransfer}\\n"
    big = "http://%s:%d/big"
    small = "http://%s:%d/small"

    # Throughput: direct (baseline), then through the proxy.
    direct = curl_figures(["curl", "-sS", "-o", "/dev/null", "-w", fmt, "--noproxy", "*",
                           big % ("127.0.0.1", port)])[0]
    proxied = curl_figures(launcher + ["curl", "-sS", "-o", "/dev/null", "-w", fmt,
                                       big % ("bench.test", port)])[0]
    print("throughput, %d MiB: direct %.0f MiB/s, through the proxy %.0f MiB/s, ratio %.2f "
          "(target >= %.1f)" % (a.mib, direct / 2**20, proxied / 2**20, proxied / direct, TARGET))

    # Time to first byte: N requests in one curl each side (connection per
    # request: curl gets each URL on a new connection with --no-keepalive).
    urls_d = [small % ("127.0.0.1", port)] * a.requests
    urls_p = [small % ("bench.test", port)] * a.requests
    d = curl_figures(["curl", "-sS", "--no-keepalive", "-w", fmt, "--noproxy", "*"]
                     + sum([["-o", "/dev/null", u] for u in urls_d], []))[1::2]
    p = curl_figures(launcher + ["curl", "-sS", "--no-keepalive", "-w", fmt]
                     + sum([["-o", "/dev/null", u] for u in urls_p], []))[1::2]
    md, mp = statistics.median(d), statistics.median(p)
    print("time to first byte, median of %d: direct %.3f ms, through the proxy %.3f ms, "
          "added %.3f ms per connection" % (a.requests, md * 1e3, mp * 1e3, (mp - md) * 1e3))

    # The decider's round trip: each request a name never asked before.
    mine, theirs = socket.socketpair()

    def answer():
        f = mine.makefile("rb")
        for line in f:
            words = line.split()
            if len(words) == 4 and words[0] == b"ask":
                mine.sendall(b"answer %s allow bench\n" % words[1])

    threading.Thread(target=answer, daemon=True).start()
    asking = launcher[:-1] + ["--ask-fd", str(theirs.fileno()), "--"]
    urls_a = [small % ("ask%d.test" % i, port) for i in range(a.requests)]
    q = subprocess.run(asking + ["curl", "-sS", "--no-keepalive", "-w", fmt]
                       + sum([["-o", "/dev/null", u] for u in urls_a], []),
                       capture_output=True, text=True, timeout=600, pass_fds=(theirs.fileno(),))
    if q.returncode != 0:
        raise SystemExit("curl through the decider failed: %s %s" % (q.stdout, q.stderr))
    asked = [float(x) for x in q.stdout.split()][1::2]
    ma = statistics.median(asked)
    print("decider round trip, median of %d: listed %.3f ms, asked %.3f ms, ratio %.2f, "
          "added %.3f ms per new name" % (a.requests, mp * 1e3, ma * 1e3, ma / mp,
                                          (ma - mp) * 1e3))
    theirs.close()

    # Peak memory with N connections held open through the proxy.
    # The run's credentials ride in the proxy variable (doc/SPEC.md 15).
    script = ("import base64,os,socket,sys\n"
              "port=int(os.environ['HTTP_PROXY'].rsplit(':',1)[1])\n"
              "cred=os.environ['HTTP_PROXY'].split('//',1)[1].split('@',1)[0]\n"
              "auth=b'Proxy-Authorization: Basic '+base64.b64encode(cred.encode())\n"
              "socks=[]\n"
              "for i in range(%d):\n"
              "    s=socket.create_connection(('127.0.0.1',port))\n"
              "    s.sendall(b'GET http://bench.test:%d/hold HTTP/1.1\\r\\nHost: x\\r\\n'+auth+b'\\r\\n\\r\\n')\n"
              "    socks.append(s)\n"
              "for s in socks:\n"
              "    s.recv(100)\n"
              "print('held', flush=True)\n"
              "sys.stdin.readline()\n" % (a.connections, port))
    proc = subprocess.Popen(launcher + [sys.executable, "-c", script], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    time.sleep(0)  # the launcher forks the proxy before the command runs
    line = proc.stdout.readline()
    # The proxy: the launcher's descendant (the supervisor forks it) that
    # holds the most sockets (the listener and the connections).
    parents, comms = {}, {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                parents[int(pid)] = int(f.read().rsplit(")", 1)[1].split()[1])
            with open("/proc/%s/comm" % pid) as f:
                comms[int(pid)] = f.read().strip()
        except OSError:
            continue
    proxy_pid, most = None, -1
    for pid in parents:
        up = pid
        while up > 1 and up != proc.pid:
            up = parents.get(up, 0)
        if up != proc.pid or pid == proc.pid or comms.get(pid) != "landlock-run":
            continue
        try:
            sockets = sum(os.readlink("/proc/%d/fd/%s" % (pid, fd)).startswith("socket:")
                          for fd in os.listdir("/proc/%d/fd" % pid))
        except OSError:
            continue
        if sockets > most:
            proxy_pid, most = str(pid), sockets
    figures = {}
    if proxy_pid:
        with open("/proc/%s/status" % proxy_pid) as f:
            for l in f:
                k, _, v = l.partition(":")
                if k in ("VmHWM", "VmRSS"):
                    figures[k] = v.strip()
        fds = len(os.listdir("/proc/%s/fd" % proxy_pid))
    proc.stdin.write("go\n")
    proc.stdin.flush()
    proc.wait(timeout=120)
    if line.strip() != "held" or not proxy_pid:
        raise SystemExit("the connections were not held (%r, proxy %s)" % (line, proxy_pid))
    print("proxy with %d connections held: peak resident %s, resident %s, %d descriptors"
          % (a.connections, figures.get("VmHWM"), figures.get("VmRSS"), fds))
    os.unlink(hosts.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
