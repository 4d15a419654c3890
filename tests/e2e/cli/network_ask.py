#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The network allowlist's decider (issue 29.4, doc/SPEC.md 15 "Ask") on
one Linux rung, as root and as a user this test creates.

A loopback origin; names reach it through the test-only resolver map
(CONFINE_TEST_PROXY_HOSTS). `--ask-host DECIDER` with no --allow-host (an
empty list with a decider) and --allow-local-network:
- asked.test, which the decider allows, is reached twice by curl; the
  decider was asked once (its log), and network.decisions lists it once
  (allow, by decider);
- refused.test, which the decider refuses with a reason, gets the 403 whose
  body carries that reason, a denial with it, and the bash rendering's
  `[denied: connect refused.test:PORT (network): REASON]`;
- the controls: the same curl unconfined reaches the origin (so a refusal
  is the proxy's); without --ask-host (--allow-host listed.test) asked.test
  is refused by the list (clause network.allow), the decider never runs,
  and listed.test is decided by the allowlist;
- a forged question (R3-F1, doc/SPEC.md 15 "Host names"): a SOCKS5 name
  holding `1\\nask 2 vm` is refused as not a name (a denial naming it
  escaped), is never asked about, and the next real question (refused.test,
  which the decider refuses) is not settled by the decider's allow for vm;
  the controls: vm asked plainly is allowed and reaches the origin;
- a decider that exits 0 at once leaving a child that holds its stdout
  (R3-F7) allows: the answer is taken when it exits, and the child is
  killed with its process group (it is gone after the run);
- `confine wrap --ask-host` is refused (125: a wrap argv has no one to
  ask), and --ask-host with --network on is INVALID_POLICY (125).

Usage: network_ask.py CONFINE LAUNCHER RUNNER [--no-nonroot]
"""
import http.server
import json
import os
import pwd
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "helpers"))
from outside_tmp import launcher_outside_tmp  # noqa: E402
from tap import Tap  # noqa: E402

TAP = Tap()

BODY = "hello-from-the-origin"
DECIDER = """#!/bin/sh
echo "$1 $2" >> "%s"
case "$1" in
asked.test) echo "needed for this task"; exit 0;;
*) echo "not needed: $1 is outside this task"; echo "a second line, not the reason"; exit 1;;
esac
"""
INJECT_DECIDER = """#!/bin/sh
echo "$1 $2" >> "%s"
case "$1" in
vm) echo "vm is fine"; exit 0;;
*) echo "refused by policy"; exit 1;;
esac
"""
# Inside the run: SOCKS5 CONNECT by name with the run's credentials; prints
# the reply code and what the origin sent.
SOCKS_CLIENT = r"""
import os, socket, struct, sys, time, urllib.parse
u = urllib.parse.urlsplit(os.environ["ALL_PROXY"])
def socks(host):
    s = socket.create_connection((u.hostname, u.port), timeout=60)
    s.sendall(b"\x05\x01\x02"); assert s.recv(2) == b"\x05\x02"
    s.sendall(bytes([1, len(u.username)]) + u.username.encode() + bytes([len(u.password)])
              + u.password.encode())
    assert s.recv(2) == b"\x01\x00"
    s.sendall(b"\x05\x01\x00\x03" + bytes([len(host)]) + host
              + struct.pack(">H", int(sys.argv[1])))
    return s
def fetch(s):
    r = s.recv(10)
    got = b""
    if r[:2] == b"\x05\x00":
        s.sendall(b"GET /index.html HTTP/1.0\r\nHost: x\r\n\r\n")
        while True:
            b = s.recv(4096)
            if not b:
                break
            got += b
    print("reply %02x %s" % (r[1] if len(r) > 1 else 255, got.decode(errors="replace")))
if sys.argv[2] == "inject":
    s1 = socks(b"slow.test 1\nask 2 vm")
    time.sleep(0.3)
    fetch(socks(b"refused.test"))
    fetch(s1)
else:
    fetch(socks(b"vm"))
"""
# Outside, as another user: every slot of the run's proxy held idle (no
# credentials), then "held N" on stdout; it holds them until its stdin
# closes (the test's end of it; killing runuser would leave it behind,
# holding the test's stderr and with it meson's wait for two minutes).
FLOOD = r"""
import socket, sys, time
port = int(sys.argv[1]); socks = []
for _ in range(300):
    try:
        socks.append(socket.create_connection(("127.0.0.1", port), timeout=5))
    except OSError:
        break
time.sleep(0.5)
print("held", len(socks), flush=True)
sys.stdin.read()
"""
CLI_DECIDER_BOUND = 25  # s: src/cli/ask-host.h CLI_ASK_HOST_SECONDS
SLOW_DECIDER = """#!/bin/sh
echo "$1 $2" >> "%s"
sleep 60
echo "too late"
exit 0
"""
DAEMON_DECIDER = """#!/bin/sh
echo "$1 $2" >> "%s"
sleep 300 &
echo $! > "%s"
echo "allowed; a child is left holding this output"
exit 0
"""


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


WHO = ""


def check(cond, what, detail=""):
    TAP.check(cond, WHO + what, str(detail)[-600:])


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve_http(directory):
    handler = lambda *a, **k: Quiet(*a, directory=directory, **k)  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def run(argv, env=None, cwd=None, timeout=180):
    return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=timeout)


def run_table(confine, runner):
    # Not under /tmp: bwrap's private /tmp would hide the resolver map.
    parent = os.path.join(os.path.expanduser("~"), ".cache", "confine-tests")
    os.makedirs(parent, exist_ok=True)
    base = tempfile.mkdtemp(prefix="cf-ask-", dir=parent)
    global WHO
    user = pwd.getpwuid(os.getuid()).pw_name
    WHO = "%s %s: " % (runner, user)
    try:
        os.chmod(base, 0o755)
        site, ws = os.path.join(base, "site"), os.path.join(base, "ws")
        os.makedirs(site)
        os.makedirs(ws)
        with open(os.path.join(site, "index.html"), "w") as f:
            f.write(BODY + "\n")
        origin = serve_http(site)
        port = origin.server_address[1]
        hosts = os.path.join(base, "hosts")
        with open(hosts, "w") as f:
            f.write("127.0.0.1 listed.test asked.test refused.test\n")
        log = os.path.join(base, "asked.log")
        decider = os.path.join(base, "decider.sh")
        with open(decider, "w") as f:
            f.write(DECIDER % log)
        os.chmod(decider, 0o755)
        env = dict(os.environ, CONFINE_TEST_PROXY_HOSTS=hosts, HOME=base)
        for k in list(env):
            if "proxy" in k.lower() and k != "CONFINE_TEST_PROXY_HOSTS":
                env.pop(k)

        def url(host):
            return "http://%s:%d/index.html" % (host, port)

        def asked():
            if not os.path.exists(log):
                return []
            with open(log) as f:
                return f.read().split("\n")[:-1]

        # The control: unconfined, the origin answers by its address.
        control = run(["curl", "-sS", "-m", "20", "http://127.0.0.1:%d/index.html" % port],
                      env=env)
        check(BODY in control.stdout, "control: unconfined, curl reaches the origin",
              control.stdout + control.stderr)

        cmd = ("curl -sS -m 60 %s; curl -sS -m 60 %s; curl -sS -m 60 %s; exit 3"
               % (url("asked.test"), url("asked.test"), url("refused.test")))
        b = run([confine, "bash", "--json", "--runner", runner, "-w", ws, "--allow-local-network",
                 "--ask-host", decider, "-c", cmd], env=env, cwd=ws)
        out = json.loads(b.stdout)
        text = out["stdout"] + out["stderr"]
        check(text.count(BODY) == 2,
              "--ask-host alone: asked.test, allowed by the decider, reached twice", out)
        check(asked() == ["asked.test %d" % port, "refused.test %d" % port],
              "the decider was asked once per host", asked())
        reason = "not needed: refused.test is outside this task"
        check("refused by the run's decider (clause network.ask): " + reason in text,
              "refused.test: the 403 body carries the decider's reason", text)
        decisions = out["sandbox"]["network"]["decisions"]
        check(decisions == [{"host": "asked.test", "port": port, "decision": "allow",
                             "by": "decider"},
                            {"host": "refused.test", "port": port, "decision": "deny",
                             "by": "decider"}],
              "network.decisions lists each host once, by the decider", decisions)
        denial = {"op": "connect", "address": "refused.test:%d" % port, "clause": "network",
                  "reason": reason}
        check(denial in out["sandbox"]["denials"], "a denial carries the decider's reason",
              out["sandbox"]["denials"])
        check("a second line" not in json.dumps(out["sandbox"]),
              "only the first line of the decider's output is kept")
        # The rendering (no --json): the model's denial line with the reason.
        b = run([confine, "bash", "--runner", runner, "-w", ws, "--allow-local-network",
                 "--ask-host", decider, "-c", "curl -sS -m 60 %s" % url("refused.test")],
                env=env, cwd=ws)
        line = "[denied: connect refused.test:%d (network): %s]" % (port, reason)
        check(line in b.stdout, "the rendering has the denial line with the reason", b.stdout)

        # Without a decider the list decides; the decider never runs.
        os.unlink(log)
        cmd = "curl -sS -m 60 %s; curl -sS -m 60 %s" % (url("listed.test"), url("asked.test"))
        b = run([confine, "bash", "--json", "--runner", runner, "-w", ws, "--allow-local-network",
                 "--allow-host", "listed.test", "-c", cmd], env=env, cwd=ws)
        out = json.loads(b.stdout)
        text = out["stdout"] + out["stderr"]
        check(text.count(BODY) == 1 and "(clause network.allow)" in text,
              "control: without --ask-host, asked.test is refused by the list (network.allow)",
              text)
        check(asked() == [], "control: without --ask-host the decider never runs", asked())
        decisions = out["sandbox"]["network"]["decisions"]
        check({"host": "listed.test", "port": port, "decision": "allow", "by": "allowlist"}
              in decisions and {"host": "asked.test", "port": port, "decision": "deny",
                                "by": "allowlist"} in decisions,
              "control: network.decisions are the allowlist's", decisions)

        # R3-F1: a name holding a newline forges no question.
        with open(decider, "w") as f:
            f.write(INJECT_DECIDER % log)
        client = os.path.join(base, "socks_client.py")
        # the system's: the user half cannot read root's own interpreters
        python = shutil.which("python3", path="/usr/bin:/bin") or sys.executable
        with open(client, "w") as f:
            f.write(SOCKS_CLIENT)
        with open(hosts, "w") as f:
            f.write("127.0.0.1 vm refused.test\n")
        if os.path.exists(log):
            os.unlink(log)
        b = run([confine, "bash", "--json", "--runner", runner, "-w", ws, "--allow-local-network",
                 "--ask-host", decider, "-c", "%s %s %d control" % (python, client, port)],
                env=env, cwd=ws)
        check(b.stdout.startswith("{"), "control: no outcome:", b.stdout + b.stderr)
        out = json.loads(b.stdout)
        check("reply 00" in out["stdout"] and BODY in out["stdout"],
              "control: vm, allowed by the decider, not reached over SOCKS5:", out)
        os.unlink(log)
        b = run([confine, "bash", "--json", "--runner", runner, "-w", ws, "--allow-local-network",
                 "--ask-host", decider, "-c", "%s %s %d inject" % (python, client, port)],
                env=env, cwd=ws)
        out = json.loads(b.stdout)
        check(BODY not in out["stdout"] and "reply 00" not in out["stdout"],
              "R3-F1: the forged question does not let refused.test through", out)
        check(out["stdout"].count("reply 01") == 1 and "reply 02" in out["stdout"],
              "R3-F1: the bad name is refused as not a name, refused.test by the decider", out)
        check(asked() == ["refused.test %d" % port], "R3-F1: the decider is asked no forged question",
              asked())
        decisions = out["sandbox"]["network"]["decisions"]
        check(decisions == [{"host": "refused.test", "port": port, "decision": "deny",
                             "by": "decider"}], "R3-F1: network.decisions holds the one real question", decisions)
        escaped = '"slow.test\\x201\\x0aask\\x202\\x20vm"'
        check("network: refused (not a host name) %s:%d" % (escaped, port)
              in out["stderr"] + b.stderr, "R3-F1: the launcher line names the bad host escaped",
              out["stderr"] + b.stderr)
        check(not any("slow.test" in d.get("address", "") for d in out["sandbox"]["denials"]),
              "R3-F1: no denial carries the bad host", out["sandbox"]["denials"])
        check("\nask 2 vm" not in b.stderr and "\nask 2 vm" not in out["stderr"],
              "R3-F1: the raw host reaches no line", b.stderr)
        TAP.note("R3-F1 (%s %s): a SOCKS5 name holding a newline is refused as not a name, "
                 "asks nothing, and forges no answer (control: vm allowed and reached)" % (runner, user))

        # R3-F7: the answer is the decider's exit, not its stdout's end.
        pidfile = os.path.join(base, "child.pid")
        with open(decider, "w") as f:
            f.write(DAEMON_DECIDER % (log, pidfile))
        b = run([confine, "bash", "--json", "--runner", runner, "-w", ws, "--allow-local-network",
                 "--ask-host", decider, "-c", "curl -sS -m 60 %s" % url("vm")], env=env, cwd=ws)
        out = json.loads(b.stdout)
        check(BODY in out["stdout"], "R3-F7: a decider that leaves a child behind is taken at its exit", out)
        check(out["sandbox"]["network"]["decisions"] == [
            {"host": "vm", "port": port, "decision": "allow", "by": "decider"}],
            "R3-F7: network.decisions holds its allow", out["sandbox"]["network"]["decisions"])
        with open(pidfile) as f:
            child = int(f.read())
        check(not alive(child), "R3-F7: the decider's child does not outlive the run", child)
        TAP.note("R3-F7 (%s %s): a decider that exits 0 leaving a child on its stdout allows at "
                 "once; the child is killed with its group" % (runner, user))

        w = run([confine, "wrap", "--runner", runner, "-w", ws, "--ask-host", decider, "--",
                 "true"], env=env)
        check(w.returncode == 125 and "ask-host" in w.stderr, "wrap --ask-host is refused (125)",
              w.stdout + w.stderr)
        n = run([confine, "run", "--runner", runner, "-w", ws, "--network", "on", "--ask-host",
                 decider, "--", "true"], env=env)
        check(n.returncode == 125 and "network.ask" in n.stderr,
              "--ask-host with --network on is refused (125, network.ask)",
              n.stdout + n.stderr)

        # R3-F2: the run's end is not held up by a decider that takes its
        # time: with --timeout the open question is refused when the
        # timeout is due (the reason says so; waiting the decider out would
        # say "did not answer within 25 s"), and SIGTERM to confine
        # likewise. The decider's log shows it was asked.
        slow = os.path.join(base, "slow-decider.sh")
        slow_log = os.path.join(base, "slow.log")
        with open(slow, "w") as f:
            f.write(SLOW_DECIDER % slow_log)
        os.chmod(slow, 0o755)
        started = time.monotonic()
        b = run([confine, "bash", "--json", "--runner", runner, "-w", ws, "--timeout", "6000",
                 "--ask-host", slow, "-c", "curl -sS -m 100 %s; sleep 100" % url("slow.test")],
                env=env, cwd=ws)
        took = time.monotonic() - started
        out = json.loads(b.stdout)
        with open(slow_log) as f:
            asked_slow = f.read().split()
        # Waiting the decider out would end the run no sooner than its
        # 25 s bound: ending before it is the evidence (the refusal's
        # record, "the run's timeout came first", may not reach the outcome
        # while the run is torn down). The bound is the decider's.
        check(out.get("timedOut") is True and asked_slow[:1] == ["slow.test"] and
              took < CLI_DECIDER_BOUND - 3,
              "R3-F2: --timeout ends the run while the decider is still deciding",
              "%s %s %.1f s" % (out.get("timedOut"), asked_slow, took))
        os.remove(slow_log)
        p = subprocess.Popen([confine, "run", "--json", "--runner", runner, "-w", ws,
                              "--ask-host", slow, "--", "sh", "-c",
                              "curl -sS -m 100 %s; sleep 100" % url("slow.test")],
                             env=env, cwd=ws, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        for _ in range(600):  # until the question is with the decider
            if os.path.exists(slow_log):
                break
            time.sleep(0.1)
        p.send_signal(signal.SIGTERM)
        # The decider would be waited for up to 25 s (then killed): ending
        # before that is the evidence it was not (the refusal's record may
        # not reach the outcome: the run is being torn down meanwhile).
        # The bound is the decider's, not a measure of speed.
        try:
            _, err = p.communicate(timeout=CLI_DECIDER_BOUND - 5)
            ended = True
        except subprocess.TimeoutExpired:
            p.kill()
            _, err = p.communicate()
            ended = False
        last = [line for line in err.splitlines() if line.startswith("{")]
        out = json.loads(last[-1]) if last else {}
        check(os.path.exists(slow_log) and ended and out.get("signal") == "SIGTERM",
              "R3-F2: SIGTERM to confine ends the run while the decider is still deciding",
              "asked %s ended %s signal %s" % (os.path.exists(slow_log), ended,
                                               out.get("signal")))

        # R3-F5: another user, without the run's credentials, holds every
        # slot of its proxy idle before the run's own request: the run's
        # request still gets through (the oldest unauthenticated connection
        # makes room), where it was closed at once. As root only (another
        # user, nobody, floods): the proxy's rule does not look at uids.
        if os.geteuid() == 0 and shutil.which("runuser"):
            go = os.path.join(ws, "go")
            cmd = ("echo \"$HTTP_PROXY\" > proxy-url; while [ ! -e go ]; do sleep 0.1; done; "
                   "curl -sS -o /dev/null -w 'code=%%{http_code}' -m 20 %s" % url("vm"))
            p = subprocess.Popen([confine, "bash", "--json", "--runner", runner, "-w", ws,
                                  "-m", "workspace-write", "--allow-local-network",
                                  "--allow-host", "vm", "-c", cmd],
                                 env=env, cwd=ws, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
            proxy_url = os.path.join(ws, "proxy-url")
            for _ in range(600):
                if os.path.exists(proxy_url) and os.path.getsize(proxy_url) > 0:
                    break
                time.sleep(0.1)
            with open(proxy_url) as f:
                proxy_port = f.read().strip().rsplit(":", 1)[-1].strip("/")
            # where nobody can read it (the checkout may be under /root)
            flood_dir = tempfile.mkdtemp(prefix="confine-flood-", dir="/var/tmp")
            os.chmod(flood_dir, 0o755)
            flood_py = os.path.join(flood_dir, "flood.py")
            with open(flood_py, "w") as f:
                f.write(FLOOD)
            os.chmod(flood_py, 0o644)
            flood = subprocess.Popen(["runuser", "-u", "nobody", "--", "/usr/bin/python3", flood_py,
                                      proxy_port], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, start_new_session=True)
            held = flood.stdout.readline().split()
            with open(go, "w"):
                pass
            out_text, _ = p.communicate(timeout=120)
            flood.communicate("", timeout=60)
            shutil.rmtree(flood_dir, ignore_errors=True)
            out = json.loads(out_text) if out_text.startswith("{") else {}
            check(len(held) == 2 and int(held[1]) >= 256 and
                  "code=200" in out.get("stdout", ""),
                  "R3-F5: another user holding every proxy slot idle does not starve the run",
                  "%s %s %s" % (held, out.get("stdout", out_text[-300:]),
                                out.get("stderr", "")[-300:]))
            os.remove(go)
        else:
            TAP.skip(WHO + "R3-F5: another user holding every proxy slot idle",
                     "needs root to flood as another user (the root half does)")

        # R3-F4: 40 names on neither list, refused by the list (no
        # decider): 32 denials listed and 8 counted as dropped, each once
        # (the sum of the channel's count and the stderr scan's counted
        # every dropped refusal twice: 16).
        flood = " ".join("curl -s -m 20 -o /dev/null %s;" % url("f%d.test" % i)
                         for i in range(40))
        # The bash's own timeout lifted (its default is 120 s, which 40 or
        # 260 curls one after another can pass on a loaded machine: the
        # count would then say the load, not the bound).
        b = run([confine, "bash", "--json", "--runner", runner, "-w", ws, "--allow-host",
                 "listed.test", "--timeout", "600000", "-c", flood + " true"], env=env, cwd=ws,
                timeout=900)
        out = json.loads(b.stdout)
        sandbox = out.get("sandbox", {})
        check(len(sandbox.get("denials", [])) == 32 and sandbox.get("denialsDropped") == 8,
              "R3-F4: 40 refusals are 32 denials and denialsDropped 8",
              "%d %s timedOut=%s" % (len(sandbox.get("denials", [])),
                                     sandbox.get("denialsDropped"), out.get("timedOut")))

        # R3-F4, decisions: 260 names on neither list (no decider), each
        # refused by the list: 256 decisions listed, and the 4 past them
        # counted in network.decisionsDropped (they were neither listed nor
        # counted: 0).
        many = "for i in $(seq 0 259); do curl -s -m 20 -o /dev/null http://d$i.test:%d/; done" % port
        b = run([confine, "bash", "--json", "--runner", runner, "-w", ws, "--allow-host",
                 "listed.test", "--timeout", "600000", "-c", many + "; true"], env=env,
                cwd=ws, timeout=900)
        out = json.loads(b.stdout)
        network = out.get("sandbox", {}).get("network", {})
        check(len(network.get("decisions", [])) == 256 and network.get("decisionsDropped") == 4,
              "R3-F4: 260 decisions are 256 listed and decisionsDropped 4",
              "%d %s timedOut=%s" % (len(network.get("decisions", [])),
                                     network.get("decisionsDropped"), out.get("timedOut")))

        # The supervisor's own bound: 40 chmods it refuses (files outside
        # the workspace, the errors kept out of the output so only the
        # channel can tell) are 32 denials and 8 counted in denialsDropped
        # (past its 32 records they were gone: 0). The files keep their
        # mode; the control: the same chmod unconfined changes one.
        outside = os.path.join(base, "outside")
        os.makedirs(outside, exist_ok=True)
        for i in range(41):
            with open(os.path.join(outside, "f%d" % i), "w"):
                pass
            os.chmod(os.path.join(outside, "f%d" % i), 0o644)
        subprocess.run(["chmod", "600", os.path.join(outside, "f40")], check=True)
        chmods = "for i in $(seq 0 39); do chmod 600 %s/f$i 2>/dev/null; done; true" % outside
        b = run([confine, "bash", "--json", "--runner", runner, "-w", ws, "-m", "workspace-write",
                 "-c", chmods], env=env, cwd=ws)
        out = json.loads(b.stdout)
        sandbox = out.get("sandbox", {})
        modes = {os.stat(os.path.join(outside, "f%d" % i)).st_mode & 0o777 for i in range(40)}
        check(os.stat(os.path.join(outside, "f40")).st_mode & 0o777 == 0o600 and
              modes == {0o644} and len(sandbox.get("denials", [])) == 32 and
              sandbox.get("denialsDropped") == 8,
              "the supervisor's 40 refusals are 32 denials and denialsDropped 8 (control: "
              "unconfined chmod holds)",
              "%s %d %s" % (modes, len(sandbox.get("denials", [])), sandbox.get("denialsDropped")))

        # R3-F6: the decider is found once, before the run, and refused
        # where the confined command could replace it: inside a writable
        # root (given by path, or found on a PATH entry there), or under a
        # directory others may write. Nothing runs. Control: the same
        # decider outside the workspace is taken (the cases above).
        planted_dir = os.path.join(ws, ".venv", "bin")
        os.makedirs(planted_dir, exist_ok=True)
        planted = os.path.join(planted_dir, "decider")
        shutil.copy(decider, planted)
        os.chmod(planted, 0o755)
        marker = os.path.join(ws, "ran-f6")
        cmd = ["-w", ws, "-m", "workspace-write", "--runner", runner]
        r1 = run([confine, "run"] + cmd + ["--ask-host", planted, "--", "touch", marker], env=env)
        check(r1.returncode == 125 and "inside the run's writable root" in r1.stderr and
              not os.path.exists(marker),
              "R3-F6: a decider inside the workspace is refused (125), nothing runs",
              r1.stdout + r1.stderr)
        penv = dict(env, PATH=planted_dir + ":" + env.get("PATH", "/usr/bin:/bin"))
        r2 = run([confine, "bash"] + cmd + ["--ask-host", "decider", "-c", "touch " + marker],
                 env=penv)
        check(r2.returncode == 125 and "inside the run's writable root" in r2.stderr and
              not os.path.exists(marker),
              "R3-F6: a decider found on a PATH entry in the workspace is refused (125)",
              r2.stdout + r2.stderr)
        shared = os.path.join(base, "shared")
        os.makedirs(shared, exist_ok=True)
        shutil.copy(decider, os.path.join(shared, "decider"))
        os.chmod(shared, 0o777)
        r3 = run([confine, "run"] + cmd + ["--ask-host", os.path.join(shared, "decider"), "--",
                                          "touch", marker], env=env)
        os.chmod(shared, 0o755)
        check(r3.returncode == 125 and "writable by group or others" in r3.stderr and
              not os.path.exists(marker),
              "R3-F6: a decider under a directory others may write is refused (125)",
              r3.stdout + r3.stderr)
        r4_f1(confine, runner, base, ws, env, url)
        r4_f6(confine, runner, base, ws, env)
        r5_shebang(confine, runner, base, ws, env)
        return 0
    finally:
        shutil.rmtree(base, ignore_errors=True)


R4F1_SH = """#!/bin/sh
pwd > %s
if echo "$1" | grep -qx listed.test; then echo listed; exit 0; fi
echo "not listed"; exit 1
"""
R4F1_PY = """#!/usr/bin/python3
import json, sys
print(json.dumps("not listed")); sys.exit(1)
"""
PLANT = "#!/bin/sh\necho planted > %s\nexec /bin/grep \"$@\"\n"


def r4_f1(confine, runner, base, ws, env, url):
    """R4-F1: an outside-the-run decider script runs programs by name
    (grep, its interpreter's modules): the run plants them on the caller's
    PATH entry in the workspace (.venv/bin) or a PYTHONPATH there, then
    asks. The decider runs in "/" with those entries and variables gone,
    so the plant never runs; the control runs the same decider by hand
    with the same environment, and the plant does."""
    cwd_file = os.path.join(base, "r4f1-cwd")
    victim = os.path.join(base, "r4f1-victim")
    sh_decider = os.path.join(base, "r4f1-decider.sh")
    py_decider = os.path.join(base, "r4f1-decider.py")
    with open(sh_decider, "w") as f:
        f.write(R4F1_SH % cwd_file)
    with open(py_decider, "w") as f:
        f.write(R4F1_PY)
    os.chmod(sh_decider, 0o755)
    os.chmod(py_decider, 0o755)
    venv = os.path.join(ws, ".venv", "bin")
    pylib = os.path.join(ws, "pylib")
    os.makedirs(venv, exist_ok=True)
    os.makedirs(pylib, exist_ok=True)
    penv = dict(env, PATH=venv + ":/usr/bin:/bin", PYTHONPATH=pylib)
    plant = ("printf %s > .venv/bin/grep && chmod +x .venv/bin/grep && "
             "printf %s > pylib/json.py && curl -s -m 20 -o /dev/null %s; "
             "curl -s -m 20 -o /dev/null %s; true" % (
                 shlex.quote(PLANT % victim),
                 shlex.quote("open(%r, 'w').write('planted')\ndumps = repr\n" % victim),
                 url("refused.test"), url("listed.test")))
    for decider, kind in ((sh_decider, "grep on PATH"), (py_decider, "a PYTHONPATH module")):
        for path in (victim, cwd_file):
            if os.path.exists(path):
                os.remove(path)
        b = run([confine, "bash", "--json", "--runner", runner, "-w", ws, "-m",
                 "workspace-write", "--allow-host", "none.test", "--ask-host", decider, "-c",
                 plant], env=penv, cwd=ws)
        try:
            decisions = json.loads(b.stdout)["sandbox"]["network"]["decisions"]
        except (ValueError, KeyError):
            decisions = []
        check(any(d.get("by") == "decider" for d in decisions),
              "R4-F1 (%s): the decider was asked" % kind, b.stdout[-400:] + b.stderr[-300:])
        check(not os.path.exists(victim),
              "R4-F1 (%s): the run's plant did not run in the decider" % kind)
        if decider == sh_decider:
            cwd = open(cwd_file).read().strip() if os.path.exists(cwd_file) else None
            check(cwd == "/", "R4-F1: the decider runs in /, not the workspace", cwd)
        # Control: the decider by hand, the same environment: the plant runs.
        subprocess.run([decider, "refused.test", "80"], env=penv, cwd=ws, capture_output=True,
                       timeout=60)
        check(os.path.exists(victim),
              "R4-F1 control (%s): by hand with that environment the plant runs" % kind)
    for path in (victim, cwd_file):
        if os.path.exists(path):
            os.remove(path)


def r4_f6(confine, runner, base, ws, env):
    """R4-F6: a decider (or its #! interpreter) outside the run with a
    second name, a hard link, in the workspace: the run rewrites the
    decider through the link. Such a decider is refused (125, nothing
    runs); the control shows a confined run does rewrite it through the
    link, and the same decider with one link is taken."""
    decider = os.path.join(base, "r4f6-decider")
    interp = os.path.join(base, "r4f6-sh")
    script = os.path.join(base, "r4f6-script")
    marker = os.path.join(ws, "ran-r4f6")
    with open(decider, "w") as f:
        f.write("#!/bin/sh\necho no; exit 1\n")
    shutil.copy("/bin/sh", interp)
    with open(script, "w") as f:
        f.write("#!%s\necho no; exit 1\n" % interp)
    for path in (decider, interp, script):
        os.chmod(path, 0o755)
    cmd = ["-w", ws, "-m", "workspace-write", "--runner", runner]
    for target, ask, kind in ((decider, decider, "the decider"),
                              (interp, script, "its interpreter")):
        link = os.path.join(ws, "r4f6-link")
        os.link(target, link)
        r = run([confine, "run"] + cmd + ["--ask-host", ask, "--", "touch", marker], env=env)
        check(r.returncode == 125 and "hard links" in r.stderr and not os.path.exists(marker),
              "R4-F6: %s with a hard link in the workspace is refused (125), nothing runs" % kind,
              r.stdout + r.stderr)
        if target == decider:
            # Control: a confined run rewrites the decider through the link.
            c = run([confine, "run"] + cmd + ["--", "sh", "-c",
                    "printf '#!/bin/sh\\necho rewritten; exit 0\\n' > r4f6-link"],
                    env=env, cwd=ws)
            check(c.returncode == 0 and "rewritten" in open(decider).read(),
                  "R4-F6 control: a confined run rewrites the decider through the link",
                  c.stdout + c.stderr)
        os.remove(link)
        r = run([confine, "run"] + cmd + ["--ask-host", ask, "--", "touch", marker], env=env)
        check(r.returncode == 0 and os.path.exists(marker),
              "R4-F6 control: %s with one link is taken" % kind, r.stdout + r.stderr)
        os.remove(marker)


def r5_shebang(confine, runner, base, ws, env):
    """Red team (round 5): a decider outside the run whose #! line hands
    the interpreter a script in the workspace (`#!/bin/sh WS/evil`,
    `#!/usr/bin/env -S WS/evil`), or whose interpreter is itself such a
    script: the run writes evil, and the decider runs it unconfined. Each
    is refused (125, nothing runs); the control runs the same decider by
    hand and shows the planted script is what it executes."""
    evil = os.path.join(ws, "r5-evil")
    marker = os.path.join(ws, "ran-r5")
    planted = os.path.join(base, "r5-planted")
    interp = os.path.join(base, "r5-interp")
    with open(interp, "w") as f:
        f.write("#!/bin/sh %s\n" % evil)
    deciders = {"argument": "#!/bin/sh %s\n" % evil,
                "env -S": "#!/usr/bin/env -S %s\n" % evil,
                "nested interpreter": "#!%s\n" % interp}
    os.chmod(interp, 0o755)
    cmd = ["-w", ws, "-m", "workspace-write", "--runner", runner]
    for kind, text in deciders.items():
        decider = os.path.join(base, "r5-decider")
        with open(decider, "w") as f:
            f.write(text)
        os.chmod(decider, 0o755)
        r = run([confine, "run"] + cmd + ["--ask-host", decider, "--", "touch", marker], env=env)
        check(r.returncode == 125 and "writable root" in r.stderr and not os.path.exists(marker),
              "round 5: a decider whose #! %s names the workspace is refused (125)" % kind,
              r.stdout + r.stderr)
        # Control: what the decider would run is the run's to write.
        with open(evil, "w") as f:
            f.write("#!/bin/sh\ntouch %s\n" % planted)
        os.chmod(evil, 0o755)
        c = subprocess.run([decider, "example.test", "80"], cwd="/", capture_output=True,
                           timeout=60)
        check(os.path.exists(planted),
              "round 5 control (%s): run by hand, the decider runs the planted script" % kind,
              (c.returncode, c.stderr[-300:]))
        for path in (planted, evil):
            if os.path.exists(path):
                os.remove(path)


def main():
    args = [a for a in sys.argv[1:] if a != "--no-nonroot"]
    confine, launcher, runner = args[0], args[1], args[2]
    half = "--no-nonroot" in sys.argv
    if not shutil.which("curl"):
        return TAP.skip_all("no curl here")
    # The launcher the library runs, named in a configuration (the build's
    # copy; the user half's is its staged one).
    config_dir = tempfile.mkdtemp(prefix="cf-ask-config-")
    try:
        config = os.path.join(config_dir, "launcher.json")
        with open(config, "w") as f:
            json.dump({"landlockLauncher": launcher_outside_tmp(launcher)}, f)
        os.chmod(config_dir, 0o755)
        os.environ["CONFINE_CONFIG"] = config
        probe = run([confine, "wrap", "--runner", runner, "--", "true"])
        if probe.returncode != 0:
            why = "runner %s unavailable here: %s" % (runner, probe.stdout.strip())
            # the user half must run where the root half did
            if half:
                TAP.check(False, "the runner works for the user as for root", why)
                return TAP.done()
            return TAP.skip_all(why)
        if os.getuid() == 0 and not half:
            # the same table as a user made for it (its own launcher
            # config: CONFINE_CONFIG is not passed on), run beside root's;
            # its lines follow root's, as if run after them
            TAP.user_half_start("cfask", __file__, args + ["--no-nonroot"], args[:2],
                                keep_env=("CONFINE_MUST_WORK",))
        run_table(confine, runner)
    finally:
        shutil.rmtree(config_dir, ignore_errors=True)
    if os.getuid() == 0 and not half:
        TAP.user_half_finish()
    return TAP.done()


if __name__ == "__main__":
    sys.exit(main())
