#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Limits (issue 30, doc/SPEC.md 15 "Limits") on one Linux rung, through
the confine command, as root and (when run as root) as a user this test
creates, each case with an unconfined control that shows the same program
exceeds the bound:

- a bounded fork bomb under --max-pids 64 stays below 64 and, where the
  run's cgroup holds it, ends with "[sandbox: limit reached: pids (64)]";
- a process allocating 4 GiB under --max-memory 256M (1 GiB unconfined
  for the control) is killed with
  "[sandbox: killed: memory limit (256 MiB)]" (cgroup), or fails to
  allocate (RLIMIT_AS, the clause then `partial`);
- --max-file-size 1M makes a 2 MiB write fail with EFBIG;
- --max-cpu 2 ends a busy loop with "[sandbox: killed: cpu limit (2 s)]";
  one that ignores SIGXCPU is SIGKILLed under --max-cpu 1 and the outcome
  names the limit, its usage.cpuSeconds counting the command (on bwrap too);
  the bound is per process (partial): three 0.8 s children all finish;
- the command cannot move itself out of its cgroup;
- usage.peakMemory is known without --max-memory where the run has a cgroup;
- --max-temp 10M fills with ENOSPC where the clause says enforced (the
  launcher's sized tmpfs: both rungs, root and user, where the host has
  user namespaces), and where it does not, --require-full refuses the run;
- under --max-pids 64 the processes below confine (what the run adds to
  the host's count) stay within 64, against the control's 300;
- zero, negative, overflow, a bad suffix, a fraction and a word are
  INVALID_POLICY naming the limit, from a flag and from the config file;
- killing confine with SIGKILL mid-run leaves a temp dir and a cgroup that
  the next run removes, and nothing of a live run is touched.

The fork bomb is bounded by construction (at most 300 children, each
sleeping 10 s), so a failure cannot take the machine down.

Usage: limits.py CONFINE LAUNCHER RUNNER [--no-nonroot]
Exit 77 (skip) when RUNNER does not work here, unless CONFINE_MUST_WORK=1.
"""
import glob
import json
import os
import pwd
import shutil
import shlex
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "helpers"))
from as_user import run_as_created_user  # noqa: E402
from tap import Tap  # noqa: E402

TAP = Tap()

SKIP = 77

BOMB = """
n=0; i=0
while [ $i -lt 300 ]; do
  if sleep 10 2>/dev/null & then n=$((n+1)); else break; fi
  i=$((i+1))
done
echo started=$n
wait
"""

EAT = """
import sys
chunks = []
mib = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
try:
    for i in range(mib // 64):
        chunks.append(b"\\x01" * (64 << 20))
except MemoryError:
    print("MemoryError after %d MiB" % (len(chunks) * 64))
    sys.exit(3)
print("allocated %d MiB" % (len(chunks) * 64))
"""

WRITE = """
import errno, os, sys
try:
    with open(sys.argv[1], "wb") as f:
        f.write(b"x" * (2 << 20))
    print("wrote 2 MiB")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))
"""

FILL = """
import errno, os, sys
path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "fill")
try:
    with open(path, "wb") as f:
        for i in range(32):
            f.write(b"x" * (1 << 20))
            f.flush()
    print("filled 32 MiB")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))
"""

IGNORE_XCPU = """
import signal
signal.signal(signal.SIGXCPU, signal.SIG_IGN)
while True:
    pass
"""

# Spins until its own CPU time (its start-up included) is the given seconds.
SPIN = """
import time
while time.process_time() < %r:
    pass
"""


def check(ok, what, detail=""):
    TAP.check(ok, what, detail)


def run(argv, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    kw.setdefault("timeout", 120)
    return subprocess.run(argv, **kw)


def outcome(r):
    """The --json outcome: the last line of stderr."""
    for line in reversed(r.stderr.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return {}


def clause(o, name):
    for c in o.get("sandbox", {}).get("clauses", []):
        if c["clause"] == name:
            return c
    return None


def descendants(pid):
    """How many processes are below `pid` now (read from /proc)."""
    parent = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    parent[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    below, frontier = set(), {pid}
    while frontier:
        frontier = {c for c, p in parent.items() if p in frontier} - below
        below |= frontier
    return len(below)


def peak_below(argv, **kw):
    """Runs argv, sampling how many processes are below it until it ends:
    what the run adds to the host's process count (other programs on a
    shared host make the host's own count noisy). (result, peak)."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    peak = 0
    while p.poll() is None:
        peak = max(peak, descendants(p.pid))
        time.sleep(0.05)
    out, err = p.communicate()
    return subprocess.CompletedProcess(argv, p.returncode, out, err), peak


def cases(confine, runner, ws):
    base = [confine, "run", "--runner", runner, "-w", ws]
    who = "root" if os.getuid() == 0 else "user"
    tag = "%s %s" % (runner, who)

    # pids: the control starts all 300; confined, fewer than 64 at once.
    control, control_peak = peak_below(["sh", "-c", BOMB])
    check("started=300" in control.stdout and control_peak > 64,
          "%s pids control: 300 children unconfined (%d processes at the peak)"
          % (tag, control_peak), control.stdout)
    # What the bounded run adds to the host's process count: within the
    # limit (the cgroup counts bwrap and the launcher too; RLIMIT_NPROC the
    # user's every process), never the control's 300.
    _, bounded_peak = peak_below(base + ["--max-pids", "64", "--", "sh", "-c", BOMB])
    check(bounded_peak <= 64 + 1,
          "%s pids: the host's process count stays within 64 of its baseline (%d at the peak)"
          % (tag, bounded_peak), bounded_peak)
    r = run(base + ["--json", "--max-pids", "64", "--", "sh", "-c", BOMB])
    o = outcome(r)
    c = clause(o, "limits.pids")
    check(c is not None, "%s pids: limits.pids is a clause" % tag, r.stderr[-500:])
    if c and c["status"] == "enforced":
        check(o["sandbox"]["limit"] == {"name": "pids", "value": 64, "killed": False},
              "%s pids: the outcome names the limit (cgroup)" % tag, o.get("sandbox"))
        check("started=300" not in r.stdout, "%s pids: bounded" % tag, r.stdout)
        m = run(base + ["--max-pids", "64", "--", "sh", "-c", BOMB])
        check("[sandbox: limit reached: pids (64)]" in m.stderr,
              "%s pids: the marker" % tag, m.stderr[-300:])
        peak = o.get("usage", {}).get("peakProcesses")
        check(peak is None or peak <= 64, "%s pids: peak within the bound" % tag, peak)
        # Peak memory is known wherever the run has a cgroup, a memory
        # limit or not (cgroup v1's memory hierarchy is made unbounded for
        # it; issue 30).
        r = run(base + ["--json", "--", sys.executable, "-c", "b = b'x' * (100 << 20)"])
        peak = outcome(r).get("usage", {}).get("peakMemory")
        check(peak is not None and peak >= 100 << 20,
              "%s memory: peakMemory known without --max-memory (%s)" % (tag, peak),
              r.stderr[-300:])
        # The command cannot leave its cgroup: cgroupfs is read-only in
        # bwrap and not granted on the Landlock rung.
        esc = run(base + ["-m", "workspace-write", "--max-pids", "64", "--", "sh", "-c",
                          "for f in /sys/fs/cgroup/pids/cgroup.procs "
                          "/sys/fs/cgroup/unified/cgroup.procs /sys/fs/cgroup/cgroup.procs; do "
                          "echo 0 2>/dev/null > $f && echo escaped $f; done; true"])
        check("escaped" not in esc.stdout, "%s pids: the command cannot leave its cgroup" % tag,
              esc.stdout)
    elif c and c["status"] == "partial":
        check("started=300" not in r.stdout, "%s pids: bounded by RLIMIT_NPROC" % tag, r.stdout)
    else:
        check(c is not None and c["needs"], "%s pids: unenforced names what would hold it" % tag, c)

    # memory: the control allocates 1 GiB (four times the bound; 4 GiB
    # unconfined is slow on a loaded machine); confined, 4 GiB is stopped.
    control = run([sys.executable, "-c", EAT, "1024"], timeout=300)
    check("allocated 1024 MiB" in control.stdout, "%s memory control: 1 GiB unconfined" % tag,
          control.stdout)
    r = run(base + ["--json", "--max-memory", "256M", "--", sys.executable, "-c", EAT])
    o = outcome(r)
    c = clause(o, "limits.memory")
    check("allocated 4096 MiB" not in r.stdout, "%s memory: 4 GiB not allocated" % tag, r.stdout)
    if c and c["status"] == "enforced":
        check(o["sandbox"]["limit"] == {"name": "memory", "value": 256 << 20, "killed": True},
              "%s memory: killed, and the outcome says so" % tag, o.get("sandbox", {}).get("limit"))
        m = run(base + ["--max-memory", "256M", "--", sys.executable, "-c", EAT])
        check("[sandbox: killed: memory limit (256 MiB)]" in m.stderr,
              "%s memory: the marker" % tag, m.stderr[-300:])
        check((o.get("usage", {}).get("peakMemory") or 0) <= (256 << 20),
              "%s memory: peak within the bound" % tag, o.get("usage"))
    else:
        check(c is not None and c["status"] == "partial" and "MemoryError" in r.stdout,
              "%s memory: RLIMIT_AS refuses the allocation (partial)" % tag, (c, r.stdout))

    # fileSize: EFBIG past 1 MiB.
    out = os.path.join(ws, "big")
    control = run([sys.executable, "-c", WRITE, out])
    check("wrote 2 MiB" in control.stdout, "%s fileSize control: 2 MiB unconfined" % tag,
          control.stdout)
    os.unlink(out)
    r = run(base + ["-m", "workspace-write", "--max-file-size", "1M", "--", sys.executable, "-c",
                    WRITE, out])
    check(r.stdout.strip() == "EFBIG", "%s fileSize: a 2 MiB write fails with EFBIG" % tag,
          (r.stdout, r.stderr[-300:]))
    check(os.path.getsize(out) <= (1 << 20), "%s fileSize: the file stops at 1 MiB" % tag)
    os.unlink(out)

    # cpuSeconds: a busy loop ends.
    busy = [sys.executable, "-c", "while True: pass"]
    control = run(["timeout", "4", *busy])
    check(control.returncode == 124, "%s cpu control: still running after 4 s" % tag,
          control.returncode)
    start = time.monotonic()
    r = run(base + ["--max-cpu", "2", "--timeout", "30000", "--", *busy], timeout=60)
    check(time.monotonic() - start < 20 and r.returncode != 0,
          "%s cpu: the busy loop ends" % tag, r.returncode)
    check("[sandbox: killed: cpu limit (2 s)]" in r.stderr, "%s cpu: the marker" % tag,
          r.stderr[-300:])
    # A loop that ignores SIGXCPU is SIGKILLed at the hard bound: the
    # outcome says so only when it counts the command's CPU time, which on
    # bwrap only the launcher's `cpu` record carries (issue 30).
    stubborn = [sys.executable, "-c", IGNORE_XCPU]
    r = run(base + ["--json", "--max-cpu", "1", "--timeout", "30000", "--", *stubborn],
            timeout=60)
    o = outcome(r)
    used = o.get("usage", {}).get("cpuSeconds")
    check(used is not None and used >= 1.0,
          "%s cpu: usage.cpuSeconds counts the command (%s s)" % (tag, used), o.get("usage"))
    check(o.get("sandbox", {}).get("limit") == {"name": "cpuSeconds", "value": 1, "killed": True},
          "%s cpu: SIGXCPU ignored, SIGKILLed: the outcome names the limit" % tag,
          (o.get("signal"), o.get("sandbox", {}).get("limit")))
    m = run(base + ["--max-cpu", "1", "--timeout", "30000", "--", *stubborn], timeout=60)
    check("[sandbox: killed: cpu limit (1 s)]" in m.stderr,
          "%s cpu: SIGXCPU ignored: the marker" % tag, m.stderr[-300:])
    # RLIMIT_CPU is per process: three children of 0.8 s each all finish
    # under --max-cpu 1 (2.4 s in all), so the clause is partial, saying
    # so, and --require-full refuses it (issue 30).
    three = "for i in 1 2 3; do %s -c %s && echo done; done" % (
        sys.executable, shlex.quote(SPIN % 0.8))
    r = run(base + ["--json", "--max-cpu", "1", "--timeout", "60000", "--", "sh", "-c", three],
            timeout=90)
    o = outcome(r)
    c = clause(o, "limits.cpuSeconds")
    check(c is not None and c["status"] == "partial" and "not the run's total" in (c["reason"] or ""),
          "%s cpu: limits.cpuSeconds is partial, per process" % tag, c)
    check(r.stdout.split() == ["done"] * 3 and o.get("sandbox", {}).get("limit") is None and
          (o.get("usage", {}).get("cpuSeconds") or 0) > 1,
          "%s cpu: three 0.8 s children all finish under --max-cpu 1 (the stated gap)" % tag,
          (r.stdout, o.get("usage")))
    rf = run(base + ["--require-full", "--max-cpu", "1", "--", "true"])
    check(rf.returncode == 125 and "limits.cpuSeconds" in rf.stderr,
          "%s cpu: --require-full refuses the per-process bound" % tag, rf.stderr[-300:])
    # One second of CPU, no limit: reported as about one second.
    r = run(base + ["--json", "--", sys.executable, "-c", SPIN % 1.0])
    used = outcome(r).get("usage", {}).get("cpuSeconds")
    check(used is not None and 0.9 <= used < 5,
          "%s cpu: 1 s of CPU is reported as such (%s s)" % (tag, used), r.stderr[-300:])

    # temp: ENOSPC where enforced; else requireFull refuses. The control:
    # the same 32 MiB fill in a temp area of the host's own succeeds.
    host_tmp = tempfile.mkdtemp(prefix="lim-fill-")
    control = run([sys.executable, "-c", FILL], env=dict(os.environ, TMPDIR=host_tmp))
    shutil.rmtree(host_tmp, ignore_errors=True)
    check(control.stdout.strip() == "filled 32 MiB", "%s temp control: 32 MiB unconfined" % tag,
          control.stdout)
    r = run(base + ["--json", "-m", "workspace-write", "--max-temp", "10M", "--", sys.executable,
                    "-c", FILL])
    c = clause(outcome(r), "limits.temp")
    if c and c["status"] == "enforced":
        check(r.stdout.strip() == "ENOSPC", "%s temp: filling fails with ENOSPC" % tag, r.stdout)
        # /dev/shm, the second temp area (granted on Landlock, bwrap's own
        # on bwrap): sized too, and nothing of it reaches the host's
        # (doc/SPEC.md 15 "Limits", red team F6). The control: the same
        # fill of the host's /dev/shm unconfined succeeds.
        name = "cf-lim-shm-%d" % os.getpid()
        host_shm = os.path.join("/dev/shm", name)
        control = run([sys.executable, "-c", FILL], env=dict(os.environ, TMPDIR="/dev/shm"))
        if os.path.exists(os.path.join("/dev/shm", "fill")):
            os.unlink(os.path.join("/dev/shm", "fill"))
        check(control.stdout.strip() == "filled 32 MiB",
              "%s temp control: 32 MiB into the host's /dev/shm unconfined" % tag, control.stdout)
        shm_fill = FILL.replace('os.path.join(os.environ.get("TMPDIR", "/tmp"), "fill")',
                                repr(host_shm))
        r = run(base + ["-m", "workspace-write", "--max-temp", "10M", "--", sys.executable, "-c",
                        shm_fill])
        check(r.stdout.strip() == "ENOSPC", "%s temp: filling /dev/shm fails with ENOSPC" % tag,
              (r.stdout, r.stderr[-300:]))
        left = os.path.exists(host_shm)
        if left:
            os.unlink(host_shm)
        check(not left, "%s temp: nothing lands in the host's /dev/shm" % tag, host_shm)
    elif c and c["status"] == "partial":
        # Landlock's workspace-write where a path of the policy lies in
        # /dev/shm: the temp area is sized, the host's /dev/shm it also
        # grants is not (doc/SPEC.md 15, red team F6).
        check(r.stdout.strip() == "ENOSPC", "%s temp: filling the temp area fails with ENOSPC"
              % tag, r.stdout)
        check("/dev/shm" in (c.get("reason") or "") and c.get("needs"),
              "%s temp: partial, naming /dev/shm and what would hold it" % tag, c)
        rf = run(base + ["--require-full", "-m", "workspace-write", "--max-temp", "10M", "--",
                         "true"])
        check(rf.returncode == 125 and "limits.temp" in rf.stderr,
              "%s temp: --require-full refuses the partial bound" % tag, rf.stderr[-300:])
    else:
        check(c is not None and c["status"] == "unenforced" and c["needs"],
              "%s temp: unenforced, naming what would hold it" % tag, c)
        rf = run(base + ["--require-full", "-m", "workspace-write", "--max-temp", "10M", "--",
                         "true"])
        check(rf.returncode == 125 and "limits.temp" in rf.stderr,
              "%s temp: --require-full refuses it" % tag, rf.stderr[-300:])

    if runner == "landlock":
        shm_workspace(confine, tag)


def shm_workspace(confine, tag):
    """A socket in /dev/shm the command may connect to: the launcher cannot
    make /dev/shm a tmpfs of the run's own (it would hide the socket), so
    limits.temp is partial, naming /dev/shm, the argv carries no
    --private-shm, and the socket is reached."""
    import socket
    path = "/dev/shm/cf-lim-%d.sock" % os.getpid()
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        srv.bind(path)
        os.chmod(path, 0o777)
        srv.listen(4)
        ws = tempfile.mkdtemp(prefix="cf-lim-ws-", dir=os.environ.get("HOME"))
        flags = ["--runner", "landlock", "-w", ws, "-m", "workspace-write", "--max-temp", "10M",
                 "--allow-unix-socket", path]
        probe = "import socket; s = socket.socket(socket.AF_UNIX); s.connect(%r); print('reached')"
        r = run([confine, "run", "--json", *flags, "--", sys.executable, "-c", probe % path])
        c = clause(outcome(r), "limits.temp")
        check(c is not None and c["status"] == "partial" and "/dev/shm" in (c["reason"] or ""),
              "%s temp: a socket allowed in /dev/shm leaves it shared: partial" % tag, c)
        check(r.stdout.strip() == "reached", "%s temp: the allowed socket in /dev/shm is reached"
              % tag, (r.stdout, r.stderr[-300:]))
        w = run([confine, "wrap", *flags, "--", "true"])
        check("--private-shm" not in w.stdout, "%s temp: no --private-shm then" % tag,
              w.stdout[:300])
        shutil.rmtree(ws, ignore_errors=True)
    finally:
        srv.close()
        if os.path.exists(path):
            os.unlink(path)


BAD = [("--max-pids", "0", "zero"), ("--max-pids", "-5", "negative"),
       ("--max-pids", "99999999999999999999999", "past the largest"),
       ("--max-memory", "2X", "after the number"), ("--max-memory", "1.5G", "after the number"),
       ("--max-cpu", "lots", "not a number"), ("--max-file-size", "1 M", "after the number"),
       ("--max-open-files", "4096K", "after the number"), ("--max-temp", "", "not a number")]
KEYS = {"--max-pids": "pids", "--max-memory": "memory", "--max-cpu": "cpuSeconds",
        "--max-file-size": "fileSize", "--max-temp": "temp", "--max-open-files": "openFiles"}


def bad_values(confine, ws, tmp):
    for flag, value, words in BAD:
        r = run([confine, "run", "--json", "-w", ws, flag, value, "--", "true"])
        key = KEYS[flag]
        o = outcome(r)
        check(r.returncode == 125 and ("limits.%s" % key) in r.stderr and words in r.stderr and
              o.get("error", {}).get("code") == "INVALID_POLICY",
              "bad value %s %r: INVALID_POLICY naming limits.%s" % (flag, value, key),
              r.stderr[-300:])
    for key, value in (("pids", 0), ("pids", -1), ("memory", 1.5), ("memory", "2X"),
                       ("cpuSeconds", 1e30), ("openFiles", "many")):
        path = os.path.join(tmp, "limits.json")
        with open(path, "w") as f:
            json.dump({"limits": {key: value}}, f)
        r = run([confine, "run", "--json", "--config", path, "-w", ws, "--", "true"])
        o = outcome(r)
        check(r.returncode == 125 and ("limits.%s" % key) in r.stderr and
              o.get("error", {}).get("code") == "INVALID_POLICY",
              "bad config limits.%s %r: INVALID_POLICY" % (key, value), r.stderr[-300:])


def leftovers(confine, runner, ws, tmp):
    """SIGKILL the owner mid-run; the next run removes what it left."""
    base = os.path.join(tmp, "tmpbase")
    os.mkdir(base, 0o700)
    env = dict(os.environ, TMPDIR=base)
    p = subprocess.Popen([confine, "run", "--runner", runner, "-w", ws, "--max-pids", "64",
                          "--", "sleep", "31.7"], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    mine = glob.glob("/sys/fs/cgroup/*/confine-run.%d.*" % p.pid) + \
        glob.glob("/sys/fs/cgroup/*/*/*/confine-run.%d.*" % p.pid)
    p.send_signal(signal.SIGKILL)
    p.wait()
    time.sleep(0.5)
    left_tmp = glob.glob(os.path.join(base, "confine-tmp.*"))
    # The killed run made its temp dir under TMPDIR (on bwrap too: the
    # library makes it before the rung is known, doc/SPEC.md 15).
    check(len(left_tmp) == 1,
          "%s leftovers: the killed run's temp dirs on the host" % runner, left_tmp)
    # A live run beside it, whose temp dir must survive the sweep.
    live = subprocess.Popen([confine, "run", "--runner", "landlock", "-w", ws, "--", "sleep", "5"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1)
    live_tmp = set(glob.glob(os.path.join(base, "confine-tmp.*"))) - set(left_tmp)
    r = run([confine, "run", "--runner", "landlock", "-w", ws, "--max-pids", "64", "--",
             "true"], env=env)
    check(r.returncode == 0, "%s leftovers: the next run works" % runner, r.stderr[-300:])
    after = [d for d in left_tmp if os.path.exists(d)]
    check(not after, "%s leftovers: the dead run's temp dir is removed (%d before)"
          % (runner, len(left_tmp)), after)
    check(all(os.path.exists(d) for d in live_tmp),
          "%s leftovers: a live run's temp dir is kept" % runner, live_tmp)
    check(not [d for d in mine if os.path.exists(d)],
          "%s leftovers: the dead run's cgroup is removed (%d before)" % (runner, len(mine)),
          mine)
    stray = run(["pgrep", "-f", "^sleep 31.7$"])
    check(stray.returncode != 0, "%s leftovers: no process of the dead run" % runner,
          stray.stdout)
    live.wait()
    check(not [d for d in live_tmp if os.path.exists(d)],
          "%s leftovers: the live run removed its own" % runner)


def as_throwaway_user(argv):
    """The same cases as a user made for it (root only), from staged copies
    that user can read (tests/helpers/as_user.py)."""
    r = run_as_created_user("cflim", __file__, argv, argv[:2],
                            keep_env=("CONFINE_MUST_WORK", "CONFINE_CONFIG"), timeout=900,
                            relay=TAP.relay("user"))
    if r == SKIP:
        TAP.skip("the created user's half", "no useradd/runuser here")
    else:
        check(r == 0, "the created user's half ended well", "status %d" % r)


def main():
    args = [a for a in sys.argv[1:] if a != "--no-nonroot"]
    confine, _launcher, runner = args[0], args[1], args[2]
    probe = run([confine, "run", "--runner", runner, "--", "true"])
    if probe.returncode != 0:
        return TAP.skip_all("runner %s unavailable here: %s" % (runner, probe.stderr.strip()))
    tmp = tempfile.mkdtemp(prefix="cf-limits-", dir=os.environ.get("HOME"))
    try:
        ws = os.path.join(tmp, "ws")
        os.mkdir(ws)
        cases(confine, runner, ws)
        if os.getuid() == 0 or "--no-nonroot" in sys.argv:
            bad_values(confine, ws, tmp)
            leftovers(confine, runner, ws, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if os.getuid() == 0 and "--no-nonroot" not in sys.argv:
        as_throwaway_user(args)
    return TAP.done()


if __name__ == "__main__":
    sys.exit(main())
