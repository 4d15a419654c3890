#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The proxy's relay, byte for byte (issue 29, doc/SPEC.md 15): through
`landlock-run --deny-network --proxy-allow ...`, a CONNECT tunnel and a
SOCKS5 one each echo 24 MiB of random bytes back after the client's
half-close; an origin that half-closes first still reads what the client
sends after its EOF; a plain HTTP download of 8 MiB arrives whole. The
relay splices (src/launcher/proxy/relay.c); run under a small
`ulimit -n` it copies, and must give the same bytes. And a client that
resets its tunnel while its way is full (an origin that reads nothing)
does not make the proxy spin: its CPU over the next seconds stays near
nothing (a hang-up is reported by epoll whatever it is asked; loop.c
takes a descriptor that waits for nothing out of the set).

Usage: proxy_relay.py LAUNCHER. Exits 77 where the launcher has no
allowlist (no supervisor or Landlock ABI < 4), unless CONFINE_MUST_WORK=1.
"""
# Outer: the origins; inner (argv[1] == "inner"): the client in the run.
import base64, hashlib, os, select, socket, struct, subprocess, sys, threading, time

def recv_all(s):
    out = bytearray()
    while True:
        d = s.recv(1 << 16)
        if not d:
            return bytes(out)
        out += d

def inner(port_echo, port_late, port_http, port_stall):
    proxy = os.environ["HTTP_PROXY"]
    cred = proxy.split("//", 1)[1].split("@", 1)[0]
    pport = int(proxy.rsplit(":", 1)[1])
    auth = b"Proxy-Authorization: Basic " + base64.b64encode(cred.encode())
    data = os.urandom(24 << 20)
    ok = True
    # 1. CONNECT echo: send all, half-close, read all back
    for how in ("connect", "socks"):
        s = socket.create_connection(("127.0.0.1", pport))
        if how == "connect":
            s.sendall(b"CONNECT echo.test:%d HTTP/1.1\r\nHost: x\r\n%s\r\n\r\n" % (port_echo, auth))
            head = b""
            while b"\r\n\r\n" not in head:
                head += s.recv(1)
            assert b" 200 " in head, head
        else:
            user, pw = cred.split(":", 1)
            s.sendall(b"\x05\x01\x02")
            assert s.recv(2) == b"\x05\x02"
            s.sendall(bytes([1, len(user)]) + user.encode() + bytes([len(pw)]) + pw.encode())
            assert s.recv(2) == b"\x01\x00"
            h = b"echo.test"
            s.sendall(b"\x05\x01\x00\x03" + bytes([len(h)]) + h + port_echo.to_bytes(2, "big"))
            r = b""
            while len(r) < 10:
                r += s.recv(10 - len(r))
            assert r[1] == 0, r
        got = bytearray()
        def reader():
            got.extend(recv_all(s))
        t = threading.Thread(target=reader); t.start()
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        t.join()
        good = hashlib.sha256(bytes(got)).digest() == hashlib.sha256(data).digest()
        print("%s echo 24 MiB, client half-close: %s (%d bytes)" % (how, "ok" if good else "BAD", len(got)))
        ok &= good
        s.close()
    # 2. origin half-closes first, then reads what the client sends after
    s = socket.create_connection(("127.0.0.1", pport))
    s.sendall(b"CONNECT late.test:%d HTTP/1.1\r\n%s\r\n\r\n" % (port_late, auth))
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    first = recv_all(s)  # origin sent 8 MiB then FIN
    s.sendall(b"after-eof" * 100000)
    s.shutdown(socket.SHUT_WR)
    s.settimeout(10)
    rest = recv_all(s)
    good = len(first) == 8 << 20 and rest == b""
    print("origin half-close first: %s; client wrote after, sha %s" % ("ok" if good else "BAD %d %r" % (len(first), rest[:80]), hashlib.sha256(b"after-eof" * 100000).hexdigest()))
    ok &= good
    # 3. plain HTTP big download through the proxy
    s = socket.create_connection(("127.0.0.1", pport))
    s.sendall(b"GET http://late.test:%d/http HTTP/1.1\r\nHost: late.test\r\n%s\r\n\r\n" % (port_http, auth))
    body = recv_all(s)
    head, _, rest = body.partition(b"\r\n\r\n")
    good = len(rest) == 8 << 20 and b"200" in head.split(b"\r\n")[0]
    print("plain HTTP 8 MiB: %s" % ("ok" if good else "BAD %d" % len(rest)))
    ok &= good
    # 4. the way full (the origin reads nothing), then the client resets
    s = socket.create_connection(("127.0.0.1", pport))
    s.sendall(b"CONNECT stall.test:%d HTTP/1.1\r\n%s\r\n\r\n" % (port_stall, auth))
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    s.setblocking(False)
    chunk, sent, until = b"s" * (1 << 16), 0, time.monotonic() + 20
    while time.monotonic() < until:
        try:
            sent += s.send(chunk)
        except BlockingIOError:
            if not select.select([], [s], [], 1.0)[1]:
                break  # nothing has moved for a second: the way is full
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()  # a reset
    print("stall-begin %d %d" % (pport, sent), flush=True)
    time.sleep(3)
    print("stall-end", flush=True)
    return 0 if ok else 1

late_got = []

def proxy_pid(port):
    """The process holding the listening socket on 127.0.0.1:port."""
    inodes = set()
    for line in open("/proc/net/tcp").read().splitlines()[1:]:
        f = line.split()
        if f[1].endswith(":%04X" % port) and f[3] == "0A":
            inodes.add("socket:[%s]" % f[9])
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            for fd in os.listdir("/proc/%s/fd" % pid):
                if os.readlink("/proc/%s/fd/%s" % (pid, fd)) in inodes:
                    return int(pid)
        except OSError:
            pass
    return None

def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

class Watched:
    pass

def run_watching(argv, pre):
    """Runs argv; at the inner's "stall-begin", the proxy's CPU over 2.5 s."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=pre)
    err = []
    t = threading.Thread(target=lambda: err.append(p.stderr.read())); t.start()
    out, w = [], Watched()
    w.spin_seconds = None
    for line in p.stdout:
        out.append(line)
        if line.startswith("stall-begin "):
            pid = proxy_pid(int(line.split()[1]))
            if pid:
                try:
                    a = cpu_seconds(pid); time.sleep(2.5); w.spin_seconds = cpu_seconds(pid) - a
                except OSError:
                    pass
    w.returncode = p.wait(timeout=120)
    t.join()
    w.stdout, w.stderr = "".join(out), "".join(err)
    return w

def outer(launcher):
    def serve(handler):
        srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("127.0.0.1", 0)); srv.listen(16)
        def loop():
            while True:
                c, _ = srv.accept()
                threading.Thread(target=handler, args=(c,), daemon=True).start()
        threading.Thread(target=loop, daemon=True).start()
        return srv.getsockname()[1]
    def echo(c):
        while True:
            d = c.recv(1 << 16)
            if not d:
                break
            c.sendall(d)
        c.shutdown(socket.SHUT_WR); c.close()
    def late(c):
        c.sendall(b"z" * (8 << 20))
        c.shutdown(socket.SHUT_WR)
        got = recv_all(c)
        late_got.append(hashlib.sha256(got).hexdigest())
        c.close()
    def http(c):
        if True:
            req = b""
            while b"\r\n\r\n" not in req:
                req += c.recv(4096)
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % (8 << 20) + b"y" * (8 << 20))
            c.close(); return
    def stall(c):
        time.sleep(8)  # reads nothing, then goes
        c.close()
    pe, pl, ph, ps = serve(echo), serve(late), serve(http), serve(stall)
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".hosts", delete=False) as f:
        f.write("127.0.0.1 echo.test late.test stall.test\n")
    hosts = f.name
    argv = [launcher, "--ro", "/", "--rw", "/dev/null", "--deny-network", "--proxy-allow", "echo.test",
            "--proxy-allow", "late.test", "--proxy-allow", "stall.test", "--proxy-allow-local", "--proxy-hosts", hosts, "--",
            sys.executable, os.path.abspath(__file__), "inner", str(pe), str(pl), str(ph), str(ps)]
    import resource
    status = 0
    # 784 descriptors: the 256 connections' own (relay.c), none for pipes
    for limit in (None, 784):
        print("# %s" % ("splice" if limit is None else
                        "RLIMIT_NOFILE %d: no pipe, the buffer copy" % limit))
        del late_got[:]
        pre = None if limit is None else (
            lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit)))
        p = run_watching(argv, pre)
        print(p.stdout, end="")
        sys.stderr.write(p.stderr)
        if "the network stays off" in p.stderr and os.environ.get("CONFINE_MUST_WORK") != "1":
            print("skip: no allowlist here (%s)" % p.stderr.strip())
            os.unlink(hosts)
            return 77
        time.sleep(0.5)
        good = ("sha " + (late_got[-1] if late_got else "none")) in p.stdout
        print("origin read what the client wrote after its EOF: %s"
              % ("ok" if good else "BAD %s" % late_got))
        spin = p.spin_seconds
        calm = spin is not None and spin < 0.5
        print("a reset with the way full: the proxy used %s s of CPU in 2.5 s: %s"
              % ("?" if spin is None else "%.2f" % spin, "ok" if calm else "BAD (a spin)"))
        status = status or p.returncode or (0 if good and calm else 1)
    os.unlink(hosts)
    return status

if __name__ == "__main__":
    if sys.argv[1] == "inner":
        sys.exit(inner(*map(int, sys.argv[2:6])))
    sys.exit(outer(sys.argv[1]))
