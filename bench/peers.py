#!/usr/bin/env python3
"""confine side by side with its peers: OpenAI Codex's `codex sandbox` and
Anthropic sandbox-runtime's `srt` (issue 13). bench/peers.sh installs the
peers and calls this; see doc/BENCHMARKS.md, "Peers".

Each variant runs `true` (bare: /bin/true itself). Before timing, every
variant must run it with exit 0, and every confined variant must refuse a
write to a file outside the working directory (the write's file must not
exist afterwards; the same write run bare must succeed). A variant that fails
either check is reported with its stderr and left out of the timing.

The timed runs are interleaved: each round runs every variant once, starting
with a different variant each round (the order rotates), so a slow patch of
the machine falls on all of them alike. Warm-up rounds are dropped. Each run
is one posix_spawn + wait4 from this process, timed with a monotonic clock
(ns); stdin and stdout are /dev/null, stderr goes to a per-variant file that
is shown if a run fails. Ratios are per round: a/b within one round, then
the median over the rounds.
"""
import argparse
import datetime
import glob
import json
import os
import platform
import shutil
import subprocess
import sys
import time

DEVNULL = os.devnull


def percentile(sorted_vals, q):
    """Linear interpolation between closest ranks; q in [0, 1]."""
    if not sorted_vals:
        return float("nan")
    if len(sorted_vals) == 1:
        return sorted_vals[0]
    pos = q * (len(sorted_vals) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (pos - lo)


def median(vals):
    return percentile(sorted(vals), 0.5)


def first_line(text, limit=200):
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:limit]
    return ""


def run_capture(argv, env, cwd, timeout=120):
    """Run argv to completion; return (exit status or description, stdout, stderr)."""
    try:
        p = subprocess.run(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, errors="replace",
                           timeout=timeout)
        rc = p.returncode
        return rc, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        return "timeout after %ds" % timeout, out, err
    except OSError as e:
        return "cannot start: %s" % e, "", ""


class Variant:
    def __init__(self, name, label, mode, prefix, run_true, env=None,
                 confined=True, context=False):
        self.name = name          # short id
        self.label = label        # what the row shows
        self.mode = mode          # which mode of the peer this is
        self.prefix = prefix      # argv before the command
        self.run_true = run_true  # full argv that runs `true`
        self.env = env
        self.confined = confined
        self.context = context    # shown, but not one of the compared tools
        self.wall = []            # ns per round (None when the run failed)
        self.cpu = []
        self.failures = []
        self.errfile = None
        self.orphans = 0          # orphans reaped right after its timed runs

    def argv_for(self, cmd):
        return self.prefix + cmd


def find_codex_native(mods):
    """The platform binary that @openai/codex's node wrapper execs."""
    machine = platform.machine()
    triple = {"x86_64": "x86_64-unknown-linux-musl",
              "aarch64": "aarch64-unknown-linux-musl"}.get(machine)
    if not triple:
        return None
    pats = [
        # 0.1xx: @openai/codex-linux-x64/vendor/<triple>/bin/codex
        os.path.join(mods, "@openai", "codex-linux-*", "vendor", triple, "bin", "codex"),
        # older layouts: vendor/<triple>/codex/codex inside either package
        os.path.join(mods, "@openai", "codex-linux-*", "vendor", triple, "codex", "codex"),
        os.path.join(mods, "@openai", "codex", "vendor", triple, "codex", "codex"),
    ]
    for pat in pats:
        for path in sorted(glob.glob(pat)):
            if os.access(path, os.X_OK):
                return path
    return None


def version_of(argv, env=None):
    rc, out, err = run_capture(argv, env or os.environ.copy(), None, timeout=60)
    text = first_line(out) or first_line(err)
    return text if rc == 0 else "%s (exit %s)" % (text, rc)


def pkg_version(mods, name):
    try:
        with open(os.path.join(mods, name, "package.json")) as f:
            return json.load(f).get("version", "?")
    except OSError:
        return None


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def become_subreaper():
    """Orphans of the runs (a helper a peer left running) become our children,
    so they can be seen, reported and ended instead of drifting to init."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def own_children():
    kids = set()
    for tid in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/children" % tid) as f:
                kids.update(int(x) for x in f.read().split())
        except OSError:
            pass
    return kids


def comm_of(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            args = f.read().split(b"\0")
        return " ".join(a.decode(errors="replace") for a in args if a)[:120]
    except OSError:
        return "?"


def reap_orphans(wait_s=0.0):
    """The runs' leftover processes (only descendants of this process can be
    here: subreaper). Returns (exited, killed): the commands of those that had
    already exited (reaped) and of those still running after wait_s (killed
    with SIGKILL, then reaped)."""
    deadline = time.monotonic() + wait_s
    exited, killed = [], []
    while True:
        running = []
        for pid in sorted(own_children()):
            try:
                with open("/proc/%d/stat" % pid) as f:
                    stat = f.read()
            except OSError:
                continue
            comm = stat[stat.index("(") + 1:stat.rindex(")")]
            state = stat[stat.rindex(")") + 2:].split()[0]
            if state in ("Z", "X"):
                try:
                    os.waitpid(pid, 0)
                except ChildProcessError:
                    pass
                exited.append(comm)
            else:
                running.append((pid, comm_of(pid) or comm))
        if not running:
            break
        if time.monotonic() >= deadline:
            for pid, cmd in running:
                try:
                    os.kill(pid, 9)
                except ProcessLookupError:
                    pass
                try:
                    os.waitpid(pid, 0)
                except ChildProcessError:
                    pass
                killed.append(cmd)
            break
        time.sleep(0.05)
    return exited, killed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", required=True, help="the peers' cache folder")
    ap.add_argument("--confine", required=True, help="the confine CLI to time")
    ap.add_argument("--node-modules", required=True, help="npm's node_modules in the cache")
    ap.add_argument("--srt-node", default=shutil.which("node") or "node",
                    help="the node that runs srt")
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--only", default="",
                    help="comma-separated variant names (bare and confine are always kept)")
    args = ap.parse_args()
    if args.rounds < 1 or args.warmup < 0:
        ap.error("--rounds must be >= 1 and --warmup >= 0")

    cache = os.path.abspath(args.cache)
    mods = os.path.abspath(args.node_modules)
    confine = os.path.abspath(args.confine)
    cwd = os.path.join(cache, "run", "cwd")         # every variant runs here
    outside = os.path.join(cache, "run", "outside")  # the write probe's target dir
    os.makedirs(cwd, exist_ok=True)
    os.makedirs(outside, exist_ok=True)
    errdir = os.path.join(cache, "run", "stderr")
    os.makedirs(errdir, exist_ok=True)

    base_env = os.environ.copy()
    true_path = "/bin/true"
    problems = []  # (variant, what, detail)

    # --- the variants --------------------------------------------------------
    variants = [Variant("bare", "bare /bin/true", "-", [], [true_path],
                        confined=False)]
    variants.append(Variant("confine", "confine run -- true", "read-only (default), "
                            "default ladder (probes each run)",
                            [confine, "run", "--"], [confine, "run", "--", "true"]))
    for runner in ("bwrap", "landlock"):
        variants.append(Variant("confine-" + runner, "confine run --runner %s -- true" % runner,
                                "read-only, pinned %s" % runner,
                                [confine, "run", "--runner", runner, "--"],
                                [confine, "run", "--runner", runner, "--", "true"]))

    codex_home = os.path.join(cache, "codex-home")
    os.makedirs(codex_home, exist_ok=True)
    codex_env = dict(base_env, CODEX_HOME=codex_home)
    codex_native = find_codex_native(mods)
    codex_js = os.path.join(mods, "@openai", "codex", "bin", "codex.js")
    sys_node = shutil.which("node")
    if codex_native:
        variants.append(Variant("codex", "codex sandbox -- true",
                                "default policy (read-only: / readable, no writes, "
                                "no network), native binary, CODEX_HOME in the cache",
                                [codex_native, "sandbox", "--"],
                                [codex_native, "sandbox", "--", "true"], env=codex_env))
    else:
        problems.append(("codex", "not found",
                         "no Linux binary of @openai/codex under %s" % mods))
    if os.path.exists(codex_js) and sys_node:
        variants.append(Variant("codex-npm", "codex sandbox -- true (npm's node wrapper)",
                                "as codex, through bin/codex.js (what `codex` on PATH runs)",
                                [sys_node, codex_js, "sandbox", "--"],
                                [sys_node, codex_js, "sandbox", "--", "true"],
                                env=codex_env, context=True))

    srt_cli = os.path.join(mods, "@anthropic-ai", "sandbox-runtime", "dist", "cli.js")
    srt_settings = os.path.join(cache, "srt-settings.json")
    with open(srt_settings, "w") as f:
        # The minimal config: no domains allowed (no network), no write grants.
        json.dump({"network": {"allowedDomains": [], "deniedDomains": []},
                   "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []}}, f)
        f.write("\n")
    if os.path.exists(srt_cli):
        srt_node = shutil.which(args.srt_node) or args.srt_node
        variants.append(Variant("srt", "srt true",
                                "settings: allowedDomains [], allowWrite [] "
                                "(no network, no writes)",
                                [srt_node, srt_cli, "--settings", srt_settings, "--"],
                                [srt_node, srt_cli, "--settings", srt_settings, "true"]))
    else:
        problems.append(("srt", "not found", "no %s" % srt_cli))

    if args.only:
        keep = set(x.strip() for x in args.only.split(",") if x.strip()) | {"bare", "confine"}
        variants = [v for v in variants if v.name in keep]

    # --- header: versions and machine -----------------------------------------
    srt_ver = pkg_version(mods, "@anthropic-ai/sandbox-runtime")
    codex_ver = pkg_version(mods, "@openai/codex")
    print("confine peers bench (bench/peers.py)")
    print("  date: %s" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    u = os.uname()
    print("  host: %s %s %s, %d CPUs online, load average %s at start"
          % (u.sysname, u.release, u.machine, os.cpu_count() or 0, loadavg()))
    print("  confine: %s (%s)" % (version_of([confine, "--version"]), confine))
    rc, out, err = run_capture([confine, "probe"], base_env, None, timeout=60)
    print("  confine probe: %s" % ("; ".join(l.strip() for l in out.splitlines() if l.strip())
                                   if rc == 0 else "exit %s: %s" % (rc, first_line(err))))
    if codex_native:
        print("  codex: %s (npm @openai/codex %s; %s)"
              % (version_of([codex_native, "--version"], codex_env), codex_ver, codex_native))
    if os.path.exists(srt_cli):
        srt_node = shutil.which(args.srt_node) or args.srt_node
        print("  srt: %s (npm @anthropic-ai/sandbox-runtime %s), run by node %s (%s)"
              % (version_of([srt_node, srt_cli, "--version"]), srt_ver,
                 version_of([srt_node, "--version"]), srt_node))
    if sys_node:
        print("  system node: %s (runs codex's npm wrapper)" % version_of([sys_node, "--version"]))
    bwrap = shutil.which("bwrap")
    print("  bwrap: %s" % (version_of([bwrap, "--version"]) if bwrap else "not found"))
    for tool in ("socat", "rg"):
        print("  %s: %s" % (tool, shutil.which(tool) or "not found (srt needs it)"))
    print("  cwd of every run: %s" % cwd)
    print()

    # --- checks: runs, and confines -----------------------------------------
    print("== checks (before timing) ==")
    subreaper = become_subreaper()
    ok = []
    for v in variants:
        env = v.env or base_env
        rc, out, err = run_capture(v.run_true, env, cwd)
        if rc != 0:
            print("  %-16s runs `true`: FAILED (exit %s)" % (v.name, rc))
            for line in (err or out).splitlines()[-15:]:
                print("      | " + line)
            problems.append((v.name, "`true` failed (exit %s)" % rc, first_line(err or out)))
            continue
        status = "runs `true`: exit 0"
        if err.strip():
            status += "; stderr: %s" % first_line(err)
        # The write probe: a file outside the cwd, which must not appear.
        target = os.path.join(outside, "written-by-" + v.name)
        if os.path.lexists(target):
            os.unlink(target)
        script = "echo x > '%s'" % target
        wrc, wout, werr = run_capture(v.argv_for(["/bin/sh", "-c", script]), env, cwd)
        landed = os.path.lexists(target)
        if landed:
            os.unlink(target)
        if v.confined:
            if landed:
                print("  %-16s %s; write outside cwd: NOT REFUSED (exit %s) -- not timed"
                      % (v.name, status, wrc))
                problems.append((v.name, "does not confine", "the outside write landed"))
                continue
            if wrc == 0:
                print("  %-16s %s; write outside cwd: file absent but exit 0 -- not timed"
                      % (v.name, status))
                problems.append((v.name, "write probe exit 0", first_line(werr)))
                continue
            # Informational: the cwd and /tmp.
            extra = []
            for where, path in (("cwd", os.path.join(cwd, "written-by-" + v.name)),
                                ("/tmp", "/tmp/confine-peers-written-by-%s-%d" % (v.name, os.getpid()))):
                if os.path.lexists(path):
                    os.unlink(path)
                run_capture(v.argv_for(["/bin/sh", "-c", "echo x > '%s'" % path]), env, cwd)
                if os.path.lexists(path):
                    extra.append("%s writable" % where)
                    os.unlink(path)
                else:
                    extra.append("%s not" % where)
            print("  %-16s %s; write outside cwd refused (exit %s: %s); %s"
                  % (v.name, status, wrc, first_line(werr), ", ".join(extra)))
        else:
            if not landed or wrc != 0:
                print("  %-16s the write probe fails even bare (exit %s: %s): the check proves nothing"
                      % (v.name, wrc, first_line(werr)))
                problems.append((v.name, "write probe broken", first_line(werr)))
                return 1
            print("  %-16s %s; the same write bare lands (the probe works)" % (v.name, status))
        exited, killed = reap_orphans(wait_s=0.5) if subreaper else ([], [])
        if exited or killed:
            print("  %-16s orphaned processes (reparented to the bench when the peer exited): "
                  "%d exited on their own within 0.5 s (%s), %d still running (killed: %s)"
                  % (v.name, len(exited), ", ".join(exited) or "-", len(killed),
                     "; ".join(killed) or "-"))
        ok.append(v)
    if not subreaper:
        print("  (could not become a child subreaper: leftover processes are not checked)")
    print()
    names = [v.name for v in ok]
    if "bare" not in names:
        print("bare /bin/true did not run: nothing to compare against", file=sys.stderr)
        return 1

    # --- timing ----------------------------------------------------------------
    devnull = os.open(DEVNULL, os.O_RDWR)
    for v in ok:
        v.errfile = os.path.join(errdir, v.name + ".stderr")
        v.errfd = os.open(v.errfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        v.envlist = v.env or base_env
    os.chdir(cwd)
    k = len(ok)
    total = args.warmup + args.rounds
    t_start = time.monotonic()
    for r in range(total):
        for i in range(k):
            v = ok[(r + i) % k]
            actions = [(os.POSIX_SPAWN_DUP2, devnull, 0),
                       (os.POSIX_SPAWN_DUP2, devnull, 1),
                       (os.POSIX_SPAWN_DUP2, v.errfd, 2)]
            t0 = time.perf_counter_ns()
            pid = os.posix_spawn(v.run_true[0], v.run_true, v.envlist, file_actions=actions)
            _, status, ru = os.wait4(pid, 0)
            t1 = time.perf_counter_ns()
            if subreaper:
                try:
                    while os.waitpid(-1, os.WNOHANG)[0]:
                        v.orphans += 1
                except ChildProcessError:
                    pass
            if r < args.warmup:
                continue
            if os.waitstatus_to_exitcode(status) != 0:
                v.failures.append((r, os.waitstatus_to_exitcode(status)))
                v.wall.append(None)
                v.cpu.append(None)
            else:
                v.wall.append(t1 - t0)
                v.cpu.append(ru.ru_utime + ru.ru_stime)
        if (r + 1) % 20 == 0:
            print("  ... %d/%d rounds, %.0f s" % (r + 1, total, time.monotonic() - t_start),
                  file=sys.stderr)
    elapsed = time.monotonic() - t_start
    if subreaper:
        exited, killed = reap_orphans(wait_s=1.0)
        counts = ", ".join("%s %d" % (v.name, v.orphans) for v in ok if v.orphans)
        if counts or exited or killed:
            problems.append(("timing", "orphans", "orphaned processes reaped by the bench "
                             "right after a run of (approximate attribution): %s; at the end %d "
                             "exited, %d still running (killed: %s)"
                             % (counts or "none", len(exited), len(killed),
                                "; ".join(killed) or "-")))
    for v in ok:
        os.close(v.errfd)

    # --- report ----------------------------------------------------------------
    byname = {v.name: v for v in ok}
    bare = byname["bare"]
    ref = byname.get("confine")

    def per_round_ratio(a, b, cpu=False):
        xs = a.cpu if cpu else a.wall
        ys = b.cpu if cpu else b.wall
        rs = [x / y for x, y in zip(xs, ys) if x is not None and y is not None and y > 0]
        return median(rs) if rs else float("nan")

    print("== wall time of one run (ms; %d rounds after %d warm-up rounds, interleaved, "
          "order rotating) ==" % (args.rounds, args.warmup))
    print("  x bare, x confine, x bwrap: the median over rounds of this variant's time / that "
          "one's in the same round")
    print("  (bare: /bin/true; confine: `confine run -- true`; bwrap: `confine run --runner "
          "bwrap -- true`, the rung both peers use)")
    print("  cpu: median CPU ms of the run (wait4: the child and the descendants it reaped)")
    refb = byname.get("confine-bwrap")
    hdr = "  %-42s %8s %8s %8s %8s %8s %9s %8s %4s" % (
        "variant", "median", "p10", "p90", "cpu", "x bare", "x confine", "x bwrap", "fail")
    print(hdr)
    for v in ok:
        w = sorted(x / 1e6 for x in v.wall if x is not None)
        c = [x * 1e3 for x in v.cpu if x is not None]
        rb = per_round_ratio(v, bare)
        rc = per_round_ratio(v, ref) if ref else float("nan")
        rw = per_round_ratio(v, refb) if refb else float("nan")
        label = v.label + (" *" if v.context else "")
        def rat(x, width):
            return ("%.2fx" % x).rjust(width) if x == x else "-".rjust(width)
        print("  %-42s %8.2f %8.2f %8.2f %8.2f %s %s %s %4d" % (
            label, percentile(w, 0.5), percentile(w, 0.1), percentile(w, 0.9),
            median(c) if c else float("nan"), rat(rb, 8), rat(rc, 9), rat(rw, 8),
            len(v.failures)))
    print("  (* context: the same peer through its npm entry point; whole measurement %.0f s,"
          " load average %s at the end)" % (elapsed, loadavg()))
    print()
    print("== modes compared ==")
    for v in ok:
        print("  %-16s %s" % (v.name, v.mode))
    failed = [v for v in ok if v.failures]
    if failed or problems:
        print()
        print("== problems ==")
        for name, what, detail in problems:
            print("  %s: %s: %s" % (name, what, detail))
        for v in failed:
            print("  %s: %d timed runs failed (first: round %d, exit %s); its stderr (%s):"
                  % (v.name, len(v.failures), v.failures[0][0], v.failures[0][1], v.errfile))
            with open(v.errfile, errors="replace") as f:
                for line in f.read().splitlines()[-10:]:
                    print("      | " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
