#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The proxy's relay, byte for byte (issue 29, doc/SPEC.md 15): through
`landlock-run --deny-network --proxy-allow ...`, a CONNECT tunnel and a
SOCKS5 one each echo 24 MiB of random bytes back after the client's
half-close; an origin that half-closes first still reads what the client
sends after its EOF; a plain HTTP download of 8 MiB arrives whole. The
relay splices (src/launcher/proxy/relay.c); run under a small
`ulimit -n` it copies, and must give the same bytes.

Usage: proxy_relay.py LAUNCHER. Exits 77 where the launcher has no
allowlist (no supervisor or Landlock ABI < 4), unless CONFINE_MUST_WORK=1.
"""
# Outer: the origins; inner (argv[1] == "inner"): the client in the run.
import base64, hashlib, os, socket, subprocess, sys, threading

def recv_all(s):
    out = bytearray()
    while True:
        d = s.recv(1 << 16)
        if not d:
            return bytes(out)
        out += d

def inner(port_echo, port_late, port_http):
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
    return 0 if ok else 1

late_got = []
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
    pe, pl, ph = serve(echo), serve(late), serve(http)
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".hosts", delete=False) as f:
        f.write("127.0.0.1 echo.test late.test\n")
    hosts = f.name
    argv = [launcher, "--ro", "/", "--rw", "/dev/null", "--deny-network", "--proxy-allow", "echo.test",
            "--proxy-allow", "late.test", "--proxy-allow-local", "--proxy-hosts", hosts, "--",
            sys.executable, os.path.abspath(__file__), "inner", str(pe), str(pl), str(ph)]
    import resource, time
    status = 0
    # 784 descriptors: the 256 connections' own (relay.c), none for pipes
    for limit in (None, 784):
        print("# %s" % ("splice" if limit is None else
                        "RLIMIT_NOFILE %d: no pipe, the buffer copy" % limit))
        del late_got[:]
        pre = None if limit is None else (
            lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit)))
        p = subprocess.run(argv, timeout=120, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, preexec_fn=pre)
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
        status = status or p.returncode or (0 if good else 1)
    os.unlink(hosts)
    return status

if __name__ == "__main__":
    if sys.argv[1] == "inner":
        sys.exit(inner(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])))
    sys.exit(outer(sys.argv[1]))
