#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""World-effect tests of the Python package, against the freshly built
libconfine, on one Linux rung (pinned).

Environment (set by Meson):
  CONFINE_LIBRARY       the built shared library
  CONFINE_TEST_RUNNER   the rung to pin: bwrap or landlock
  CONFINE_TEST_CLI      the built confine command (its messages are compared)
  CONFINE_TEST_VERSION  meson.build's project version
  CONFINE_MUST_WORK=1   a rung that cannot run fails instead of skipping

Workspaces live under $HOME/.cache/confine-tests (not /tmp: bwrap gives
workspace-write a private /tmp, and Landlock refuses a launcher there).
Exit 77 (skip) when the rung cannot run here, unless CONFINE_MUST_WORK=1.
"""
import asyncio
import json
import errno
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import uuid
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import confine  # noqa: E402

SKIP = 77
RUNNER = os.environ.get("CONFINE_TEST_RUNNER") or None
CLI = os.environ.get("CONFINE_TEST_CLI")
CONTRACT = (
    'sandbox mode "%s" is requested but no sandbox backend is usable on this host; '
    "refusing to run the command unconfined. Install bubblewrap or run a "
    "Landlock-enforcing kernel (Linux), ensure sandbox-exec is usable (macOS) "
    "\u2014 Windows has no confinement backend yet \u2014 or switch the consumer to "
    "danger-full-access.")
# requireFull refusing a rung that runs (doc/SPEC.md 2, issue 28.3).
REQUIRE_FULL_CONTRACT = (
    'sandbox mode "%s" is requested with requireFull, and the sandbox this host offers does '
    "not enforce the whole policy; refusing to run the command with less. Drop requireFull to "
    'run it with enforcement "partial", or change the policy or the host so that the clause '
    "named below holds.")
MISSING_LAUNCHER = "/nonexistent/confine-tests/landlock-run"

# From a build under /tmp the build's launcher is not one confine may run
# from disk (wrap, a configured launcher: doc/SPEC.md 14): a copy under
# ~/.cache then.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tests", "helpers"))
from outside_tmp import launcher_outside_tmp  # noqa: E402

_BUILT_LAUNCHER = os.environ.get("CONFINE_TEST_LAUNCHER")
_LAUNCHER = launcher_outside_tmp(_BUILT_LAUNCHER)
LAUNCHER_KW = {"landlock_launcher": _LAUNCHER} if _LAUNCHER and _LAUNCHER != _BUILT_LAUNCHER else {}

PROVIDER = (confine.Provider(runner=RUNNER, **LAUNCHER_KW) if RUNNER
            else confine.Provider(**LAUNCHER_KW) if LAUNCHER_KW else None)


def test_root():
    home = os.environ.get("HOME") or "/tmp"
    root = os.path.join(home, ".cache", "confine-tests")
    os.makedirs(root, exist_ok=True)
    return root


# ---- a run's processes, found in the process table ----

# Every process of a run started with env={"set": {TREE_VAR: mark}} carries
# TREE_VAR=mark in its environment (the runner, the launcher and the command's
# whole tree: the environment is inherited across fork and exec), and /proc
# shows processes in a sandbox's PID namespace too.
TREE_VAR = "CONFINE_TEST_TREE"

# How long a killed tree may take to leave the process table. This bound only
# proves that a kill fired (the trees here would run for minutes); it is no
# speed assertion, and a loaded machine needs a small part of it.
GONE_BOUND = 60

# The tree the timeout tests end: a background writer (a subshell whose
# `sleep 121` only it runs) that would write `late` when it wakes, and a
# foreground sleep.
TREE = "(sleep 121; echo late > late) & sleep 120"


def tree_mark():
    """A value of TREE_VAR that no other process carries."""
    return "%s-%d" % (uuid.uuid4().hex, os.getpid())


def marked_processes(mark):
    """(pid, argv) of every live process whose environment holds
    TREE_VAR=mark. Zombies are dead (and have no environment to read)."""
    entry = ("%s=%s" % (TREE_VAR, mark)).encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                stat = f.read()
            if stat[stat.rindex(b")") + 2:][:1] in (b"Z", b"X"):
                continue
            with open("/proc/%s/environ" % name, "rb") as f:
                environ = f.read().split(b"\0")
            with open("/proc/%s/cmdline" % name, "rb") as f:
                argv = f.read().split(b"\0")[:-1]
        except (OSError, ValueError):
            continue  # gone meanwhile
        if entry in environ:
            found.append((int(name), [a.decode(errors="replace") for a in argv]))
    return found


def writer_running(mark):
    """Whether the tree's background writer is running and visible here:
    the control that the scan sees the run's processes at all (a scan that
    could not read them would find every tree gone)."""
    return any(argv == ["sleep", "121"] for _, argv in marked_processes(mark))


class Base(unittest.TestCase):
    def setUp(self):
        self.base = tempfile.mkdtemp(prefix="python.", dir=test_root())
        self.ws = os.path.join(self.base, "ws")
        self.outside = os.path.join(self.base, "outside")
        os.mkdir(self.ws)
        os.mkdir(self.outside)

    def tearDown(self):
        shutil.rmtree(self.base, ignore_errors=True)

    def kw(self, **extra):
        args = dict(workspace=self.ws, provider=PROVIDER)
        args.update(extra)
        return args

    def read(self, path):
        with open(path) as f:
            return f.read()

    def assert_tree_gone(self, mark):
        """No process of the run is left, within GONE_BOUND; what is left
        when the bound is reached is killed, then the test fails."""
        deadline = time.monotonic() + GONE_BOUND
        while marked_processes(mark):
            if time.monotonic() > deadline:
                left = marked_processes(mark)
                for pid, _ in left:
                    try:
                        os.kill(pid, 9)
                    except OSError:
                        pass
                self.fail("the run's processes outlived it by %d s: %r" % (GONE_BOUND, left))
            time.sleep(0.05)


class Effects(Base):
    def test_denied_write_renders_marker_and_leaves_no_file(self):
        target = os.path.join(self.ws, "f")
        r = confine.bash("echo x > f", mode="read-only", **self.kw())
        self.assertTrue(r.denied, r)
        self.assertEqual(r.exit_code, 1)
        self.assertEqual(r.runner, RUNNER or r.runner)
        lines = r.rendering.split("\n")
        self.assertEqual(lines[0], "[stderr]")
        self.assertEqual(lines[-3:], ["[sandbox: file access denied under read-only mode]",
                                      "[denied: write %s (mode)]" % target,
                                      "[exit code: 1]"])
        self.assertEqual(r.denials, (confine.Denial(op="write", path=target, address=None,
                                                    clause="mode"),))
        self.assertFalse(os.path.lexists(target))

        r = confine.run(["sh", "-c", "echo x > f"], mode="read-only", **self.kw())
        self.assertTrue(r.denied, r)
        self.assertNotEqual(r.exit_code, 0)
        self.assertFalse(os.path.lexists(target))

    def test_workspace_write_outside_is_denied(self):
        target = os.path.join(self.outside, "o")
        r = confine.bash("echo x > '%s'" % target, mode="workspace-write", **self.kw())
        self.assertTrue(r.denied, r)
        self.assertIn("[sandbox: file access denied under workspace-write mode]",
                      r.rendering.split("\n"))
        self.assertFalse(os.path.lexists(target))

    def test_allowed_write_lands(self):
        r = confine.run(["sh", "-c", "printf 'run content' > f"], mode="workspace-write",
                        **self.kw())
        self.assertEqual((r.exit_code, r.denied, r.signal), (0, False, None), r)
        self.assertEqual(self.read(os.path.join(self.ws, "f")), "run content")
        # `full` exactly when every clause held (doc/SPEC.md 15).
        held = all(c.enforced for c in r.clauses)
        self.assertTrue(r.clauses and r.clauses[0].clause == "mode" and r.clauses[0].enforced)
        self.assertEqual(r.enforcement, "full" if held else "partial", r.clauses)
        self.assertEqual(r.unenforced, tuple(dict.fromkeys(
            c.clause for c in r.clauses if not c.enforced)))
        r = confine.bash("printf 'bash content' > g && echo done", mode="workspace-write",
                         **self.kw())
        # The model is told what did not hold, in one line after the output.
        lines = r.rendering.split("\n")
        self.assertEqual(lines[0], "done")
        if held:
            self.assertEqual(r.rendering, "done\n")
        else:
            self.assertTrue(lines[1].startswith("[sandbox: not enforced on this run: "), lines)
        self.assertEqual(self.read(os.path.join(self.ws, "g")), "bash content")

    def test_cwd_stdin_environ(self):
        os.mkdir(os.path.join(self.ws, "sub"))
        r = confine.run(["sh", "-c", "pwd; cat; echo $CONFINE_X"], stdin=b"in\n",
                        cwd=os.path.join(self.ws, "sub"), environ={"CONFINE_X": "y",
                                                                  "PATH": os.defpath},
                        **self.kw())
        self.assertEqual(r.stdout, "%s/sub\nin\ny\n" % self.ws)

    def test_output_is_captured_and_truncated_per_stream(self):
        r = confine.run(["sh", "-c", "head -c 5000 /dev/zero | tr '\\0' a; echo err >&2"],
                        max_output=1000, **self.kw())
        self.assertEqual(len(r.stdout_bytes), 1000)
        self.assertEqual(r.truncated, confine.Truncated(stdout=True, stderr=False))
        self.assertTrue(r.truncated)
        self.assertEqual(r.stderr, "err\n")

    def test_danger_full_access_is_unconfined(self):
        target = os.path.join(self.outside, "free")
        r = confine.run(["sh", "-c", "echo x > '%s'" % target], mode="danger-full-access",
                        **self.kw())
        self.assertEqual((r.exit_code, r.runner, r.enforcement), (0, None, None))
        self.assertTrue(os.path.exists(target))

    def test_program_on_the_hosts_tmp(self):
        fd, prog = tempfile.mkstemp(prefix="confine-tests-prog.", dir="/tmp")
        try:
            os.write(fd, b"#!/bin/sh\necho ran\n")
            os.close(fd)
            os.chmod(prog, 0o755)
            # bwrap gives both modes a private, empty /tmp (read-only's
            # private temp area); Landlock reads the host's.
            for mode in ("read-only", "workspace-write"):
                if RUNNER == "bwrap":
                    with self.assertRaises(FileNotFoundError) as cm:
                        confine.run([prog], mode=mode, **self.kw())
                    self.assertIn("/tmp is private", str(cm.exception))
                elif RUNNER == "landlock":
                    r = confine.run([prog], mode=mode, **self.kw())
                    self.assertEqual(r.stdout, "ran\n")
        finally:
            os.unlink(prog)

    def test_missing_program(self):
        # SPAWN_FAILED 127 with the CLI's and the Node package's message,
        # still a FileNotFoundError (doc/SPEC.md 16)
        with self.assertRaises(FileNotFoundError) as cm:
            confine.run(["confine-no-such-program"], **self.kw())
        self.assertIsInstance(cm.exception, confine.SpawnFailedError)
        self.assertEqual((cm.exception.code, cm.exception.exit_status), ("SPAWN_FAILED", 127))
        self.assertEqual(cm.exception.message, "confine-no-such-program: command not found")
        r = confine.bash("confine-no-such-program", **self.kw())
        self.assertEqual(r.exit_code, 127)
        self.assertFalse(r.denied)


class Unavailable(Base):
    """A pinned runner that cannot run: the typed error, the exact text."""

    def broken(self):
        if RUNNER == "bwrap":
            # bwrap pinned, but nowhere on the PATH the provider searches
            return confine.Provider(runner="bwrap", path=self.outside)
        return confine.Provider(runner="landlock", landlock_launcher=MISSING_LAUNCHER)

    def check(self, e, mode):
        self.assertEqual(e.code, "SANDBOX_UNAVAILABLE")
        if e.runner_failure is None:
            self.assertEqual(e.message, CONTRACT % mode)
        else:
            self.assertEqual(e.message, CONTRACT % mode + " Runner failure: " + e.runner_failure)
        if RUNNER != "bwrap":
            self.assertEqual(e.runner_failure,
                             "cannot execute %s: No such file or directory" % MISSING_LAUNCHER)
        self.assertEqual(str(e), e.message)

    def test_run_bash_arun_raise_the_typed_error(self):
        provider = self.broken()
        marker = os.path.join(self.ws, "ran")
        for mode in ("read-only", "workspace-write"):
            with self.assertRaises(confine.SandboxUnavailable) as cm:
                confine.run(["sh", "-c", "touch ran"], mode=mode, workspace=self.ws,
                            provider=provider)
            self.check(cm.exception, mode)
            with self.assertRaises(confine.SandboxUnavailable) as cm:
                confine.bash("touch ran", mode=mode, workspace=self.ws, provider=provider)
            self.check(cm.exception, mode)
            with self.assertRaises(confine.SandboxUnavailable) as cm:
                asyncio.run(confine.arun(["sh", "-c", "touch ran"], mode=mode,
                                         workspace=self.ws, provider=provider))
            self.check(cm.exception, mode)
        self.assertFalse(os.path.exists(marker), "a command ran unconfined")
        self.assertIsInstance(cm.exception, confine.Error)

    @unittest.skipUnless(CLI and RUNNER == "landlock", "compares with the CLI's landlock text")
    def test_same_text_as_the_cli(self):
        config = os.path.join(self.base, "config.json")
        with open(config, "w") as f:
            json.dump({"landlockLauncher": MISSING_LAUNCHER}, f)
        done = subprocess.run([CLI, "bash", "--json", "--config", config, "--runner", "landlock",
                               "-w", self.ws, "-c", "true"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 125)
        cli_message = json.loads(done.stdout)["error"]["message"]
        with self.assertRaises(confine.SandboxUnavailable) as cm:
            confine.bash("true", workspace=self.ws, provider=self.broken())
        self.assertEqual(cm.exception.message, cli_message)


class Concurrency(Base):
    N = 16

    def one(self, i):
        return confine.run(["sh", "-c", 'echo "$0"; printf "%s" "$0" > "out-$0"', str(i)],
                           mode="workspace-write", **self.kw())

    def check_all(self, results):
        self.assertEqual(len(results), self.N)
        for i, r in enumerate(results):
            self.assertEqual((r.exit_code, r.stdout), (0, "%d\n" % i), r)
            self.assertEqual(self.read(os.path.join(self.ws, "out-%d" % i)), str(i))

    def test_threads(self):
        with ThreadPoolExecutor(self.N) as pool:
            self.check_all(list(pool.map(self.one, range(self.N))))

    def test_asyncio_gather(self):
        async def main():
            return await asyncio.gather(*[
                confine.arun(["sh", "-c", 'echo "$0"; printf "%s" "$0" > "out-$0"', str(i)],
                             mode="workspace-write", **self.kw()) for i in range(self.N)])
        self.check_all(asyncio.run(main()))

    def test_shared_provider_is_made_once(self):
        seen = set()
        barrier = threading.Barrier(8)

        def get(_):
            barrier.wait()
            seen.add(id(confine.default_provider()))
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(get, range(8)))
        self.assertEqual(len(seen), 1)


class Timeouts(Base):
    def run_until_seen(self, timeout):
        """Runs TREE with `timeout` on a worker thread and watches the
        process table meanwhile. Returns (result, mark, seen): seen when the
        writer was running before the run ended. Not seen means the timeout
        fired before the tree had started (a loaded machine)."""
        mark = tree_mark()
        with ThreadPoolExecutor(1) as pool:
            future = pool.submit(confine.run, ["sh", "-c", TREE], mode="workspace-write",
                                 timeout=timeout, env={"set": {TREE_VAR: mark}}, **self.kw())
            seen = False
            while not future.done() and not seen:
                seen = writer_running(mark)
                time.sleep(0.01)
            return future.result(), mark, seen

    def test_timeout_kills_the_tree(self):
        late = os.path.join(self.ws, "late")
        # The timeout must fire while the tree runs, and on a loaded machine
        # the start can take longer than a short one: until the writer was
        # seen running, again with twice the time.
        timeout = 0.5
        while True:
            r, mark, seen = self.run_until_seen(timeout)
            self.assertTrue(r.timed_out, r)
            self.assert_tree_gone(mark)
            if seen:
                break
            timeout *= 2
            self.assertLessEqual(timeout, 32, "the tree was never seen running before its timeout")
        # The writer is dead, so it can never write.
        self.assertFalse(os.path.exists(late), "a descendant outlived the timeout")

    def test_ctrl_c_in_the_main_thread_ends_the_run(self):
        # The caller stays alive after its KeyboardInterrupt until the tree
        # is checked: the run must end because of the Ctrl-C, not because
        # the caller exited (that closes the status channel, and the
        # launcher's lifeline would end the tree anyway).
        mark = tree_mark()
        script = (
            "import sys, confine\n"
            "p = confine.Provider(runner=sys.argv[2]) if sys.argv[2] else None\n"
            "try:\n"
            "    confine.run(['sh', '-c', sys.argv[3]], mode='workspace-write',\n"
            "                env={'set': {sys.argv[4]: sys.argv[5]}}, workspace=sys.argv[1],\n"
            "                provider=p)\n"
            "except KeyboardInterrupt:\n"
            "    print('interrupted', flush=True)\n"
            "    sys.stdin.read()\n"
            "    sys.exit(42)\n")
        env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(
            os.path.abspath(__file__)), ".."))
        child = subprocess.Popen([sys.executable, "-c", script, self.ws, RUNNER or "", TREE,
                                  TREE_VAR, mark], env=env, stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
        try:
            # until the tree runs (the bound only proves it started)
            deadline = time.monotonic() + GONE_BOUND
            while not writer_running(mark):
                self.assertIsNone(child.poll(), "the run ended before it was seen")
                self.assertLess(time.monotonic(), deadline, "the run never started")
                time.sleep(0.05)
            child.send_signal(2)  # SIGINT, as Ctrl-C
            # a rendezvous: the caller has handled its KeyboardInterrupt
            # (EOF instead if it died; the watchdog's bound only keeps a
            # caller that never handles it from hanging the test)
            watchdog = threading.Timer(GONE_BOUND, child.kill)
            watchdog.start()
            try:
                line = child.stdout.readline()
            finally:
                watchdog.cancel()
            self.assertEqual(line, "interrupted\n")
            self.assert_tree_gone(mark)
            child.stdin.close()
            # the bound only proves it ended
            self.assertEqual(child.wait(timeout=GONE_BOUND), 42)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
            child.stdout.close()
        self.assertFalse(os.path.exists(os.path.join(self.ws, "late")))

    def test_bash_timeout_marker(self):
        r = confine.bash("sleep 60", timeout=0.3, **self.kw())
        self.assertTrue(r.timed_out)
        self.assertEqual(r.timeout_ms, 300)
        self.assertIn("[timed out after 300ms]", r.rendering.split("\n"))

    def test_arun_does_not_block_the_loop_and_cancel_kills(self):
        late = os.path.join(self.ws, "late")
        started = os.path.join(self.ws, "started")
        mark = tree_mark()

        async def main():
            async def answer():
                # On the event loop, while arun is pending: sees the
                # command's `started` and answers with `go`.
                while not os.path.exists(started):
                    await asyncio.sleep(0.02)
                open(os.path.join(self.ws, "go"), "w").close()
            t = asyncio.ensure_future(answer())
            # A rendezvous, not a clock: the command waits for the answer
            # only the loop can give while the run is pending; a blocked loop
            # would give it after the run, which would then have exited 3
            # (its wait is bounded: 1200 polls, 60 s at least).
            r = await confine.arun(
                ["sh", "-c", "touch started; i=0; while [ ! -e go ]; do "
                 "[ $i -ge 1200 ] && exit 3; i=$((i+1)); sleep 0.05; done"],
                mode="workspace-write", **self.kw())
            self.assertEqual(r.exit_code, 0, "the event loop was blocked while arun ran")
            await t
            task = asyncio.ensure_future(confine.arun(
                ["sh", "-c", TREE], mode="workspace-write", env={"set": {TREE_VAR: mark}},
                **self.kw()))
            # until the tree runs (the bound only proves it started)
            deadline = time.monotonic() + GONE_BOUND
            while not writer_running(mark):
                self.assertFalse(task.done(), "the run ended before it was seen")
                self.assertLess(time.monotonic(), deadline, "the run never started")
                await asyncio.sleep(0.05)
            task.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await task
        asyncio.run(main())
        self.assert_tree_gone(mark)
        self.assertFalse(os.path.exists(late), "cancelling left the run going")


class Wrapped(Base):
    def test_wrap_spawned_as_is_has_the_same_effect(self):
        inside = os.path.join(self.ws, "inside")
        outside = os.path.join(self.outside, "o")
        w = confine.wrap(["sh", "-c", "echo in > inside; echo out > '%s'" % outside],
                         mode="workspace-write", **self.kw())
        if RUNNER:
            self.assertEqual(w.runner, RUNNER)
        self.assertEqual(w.cwd, self.ws)
        self.assertEqual(w.argv[-3:-1], ("sh", "-c"))
        done = subprocess.run(list(w.argv), env=w.env, cwd=w.cwd, start_new_session=True,
                              close_fds=True, stdin=subprocess.DEVNULL, capture_output=True)
        self.assertEqual(self.read(inside), "in\n")
        self.assertFalse(os.path.exists(outside))
        self.assertTrue(w.denied(done.returncode, done.stderr), done)
        self.assertIsNone(w.runner_failure(done.returncode, done.stderr))
        # both Linux rungs run the launcher (layered inside bwrap): its
        # seccomp deny-list is always among what it applies
        self.assertIn("seccomp", w.layers)

        ro = confine.wrap(["sh", "-c", "echo x > ro"], mode="read-only", **self.kw())
        done = subprocess.run(list(ro.argv), env=ro.env, cwd=ro.cwd, start_new_session=True,
                              capture_output=True)
        self.assertFalse(os.path.exists(os.path.join(self.ws, "ro")))
        self.assertTrue(ro.denied(done.returncode, done.stderr))

    def test_wrap_rules_classify_runner_failure(self):
        w = confine.wrap(["true"], **self.kw())
        self.assertTrue(w.rules)
        sig = w.rules[0].fatal_signatures[0]
        code = w.rules[0].allowed_exit_codes[0] if w.rules[0].allowed_exit_codes else 1
        self.assertEqual(w.runner_failure(code, sig + "boom\n"), sig + "boom")
        self.assertIsNone(w.runner_failure(0, sig + "boom\n"))

    def test_danger_full_access_wrap_is_the_argv(self):
        w = confine.wrap(["echo", "hi"], mode="danger-full-access", **self.kw())
        self.assertEqual((w.argv, w.runner, w.dialect, w.layers), (("echo", "hi"), None, (), ()))


class Policy(Base):
    def test_every_option_is_wired_and_bad_values_are_refused_by_name(self):
        self.assertEqual(set(confine.POLICY_OPTIONS), {
            "writable_roots", "protected_paths", "default_protections", "unprotect", "deny_read",
            "network", "allow_unix_sockets", "env", "require_full", "limits"})
        for keyword, option in confine.POLICY_OPTIONS.items():
            self.assertIsNotNone(option.apply, keyword)
        not_a_dir = os.path.join(self.base, "a-file")
        with open(not_a_dir, "w") as f:
            f.write("x")
        bad = {
            "writable_roots": [not_a_dir],
            "protected_paths": ["../up"],
            "default_protections": "no",
            "deny_read": 42,
            "network": "maybe",
            "allow_unix_sockets": [7],
            "env": {"inherit": "some"},
            "require_full": 1,
            "limits": {"pids": 0},
            "unprotect": [".bogus"],
        }
        for keyword, value in bad.items():
            for call in (lambda: confine.run(["true"], **self.kw(**{keyword: value})),
                         lambda: confine.bash("true", **self.kw(**{keyword: value})),
                         lambda: confine.wrap(["true"], **self.kw(**{keyword: value}))):
                with self.assertRaises(confine.InvalidPolicy) as cm:
                    call()
                # a nested option by its path (doc/SPEC.md 16)
                self.assertEqual(cm.exception.option, {"env": "env.inherit",
                                                       "limits": "limits.pids"}.get(keyword, keyword))
                self.assertEqual(cm.exception.code, "INVALID_POLICY")
        with self.assertRaises(confine.InvalidPolicy) as cm:
            confine.run(["true"], **self.kw(writable_roots=[not_a_dir]))
        self.assertIn("writableRoots", cm.exception.message)
        # one that does not exist is skipped, its clause says so (SPEC 15)
        missing = os.path.join(self.base, "missing")
        r = confine.bash("true", **self.kw(writable_roots=[missing]))
        clause = [c for c in r.clauses
                  if c.clause == "writableRoots" and c.subject == missing]
        self.assertEqual(len(clause), 1, r.clauses)
        self.assertIn("does not exist", clause[0].reason)
        with self.assertRaises(confine.InvalidPolicy) as cm:
            confine.run(["true"], **self.kw(env={"bogus": 1}))
        self.assertIn('"env.bogus"', cm.exception.message)
        # across options: confine_policy_validate
        with self.assertRaises(confine.InvalidPolicy) as cm:
            confine.run(["true"], **self.kw(deny_read=[self.ws]))
        self.assertIn("covers the workspace root", cm.exception.message)
        # None means "not set"
        confine.run(["true"], **self.kw(network=None))

    def test_limits_are_judged_by_the_library_at_every_call(self):
        # The same refusals as the CLI and the config file (doc/SPEC.md 15,
        # "Limits"): zero, negative, a fraction, a bad suffix, too large, a
        # word, a bool; never cut to fit.
        for key, value, words in (("pids", 0, "is zero"), ("pids", -1, "is negative"),
                                  ("memory", 1.5, "after the number"),
                                  ("memory", "2X", "after the number"),
                                  ("cpu_seconds", 10 ** 30, "after the number"),
                                  ("pids", 10 ** 7, "past the largest"),
                                  ("open_files", "many", "is not a number"),
                                  ("fileSize", True, "a number or a string"),
                                  ("forks", 5, "unknown policy option \"limits.forks\"")):
            with self.assertRaises(confine.InvalidPolicy) as cm:
                confine.wrap(["true"], **self.kw(limits={key: value}))
            self.assertEqual(cm.exception.option, "limits" if key == "forks" else "limits." + key)
            self.assertIn(words, cm.exception.message)
        w = confine.wrap(["true"], **self.kw(limits={"memory": "256M", "cpu_seconds": 2,
                                                     "pids": None}))
        self.assertEqual(w.policy["limits"], {"memory": 256 << 20, "cpuSeconds": 2})
        self.assertIn("--rlimit", w.argv)
        self.assertIn("cpu=2", w.argv)

    def test_a_cpu_limit_stops_a_run_and_says_so(self):
        # End to end through the package (doc/SPEC.md 15, "Limits"): a busy
        # loop under cpu_seconds=1 ends with SIGXCPU; the result names the
        # limit, counts the CPU time and has the marker.
        r = confine.run([sys.executable, "-c", "while True: pass"], timeout=30,
                        **self.kw(limits={"cpu_seconds": 1}))
        self.assertEqual(r.limit, {"name": "cpuSeconds", "value": 1, "killed": True})
        self.assertFalse(r.timed_out)
        self.assertIsNotNone(r.cpu_seconds)
        # counted (not the outer bwrap's few ms); RLIMIT_CPU counts in ticks,
        # rusage in run time, which may read lower on a virtual machine
        self.assertGreaterEqual(r.cpu_seconds, 0.5)
        self.assertIn("[sandbox: killed: cpu limit (1 s)]", r.rendering)
        clause = [c for c in r.clauses if c.clause == "limits.cpuSeconds"]
        self.assertEqual([c.status for c in clause], ["partial"])

    def test_wrap_echoes_the_whole_policy(self):
        w = confine.wrap(["true"], mode="workspace-write", **self.kw(
            writable_roots=[self.outside], protected_paths=["docs"], default_protections=False,
            unprotect=[".envrc", ".idea/"],
            deny_read=[os.path.join(self.outside, "secret")], network="off",
            allow_unix_sockets=["/run/confine-tests.sock"],
            env={"inherit": "none", "include": ["PATH"], "exclude": ["X*"],
                 "set": {"CI": "1"}, "default_excludes": False},
            require_full=False))
        self.assertEqual(w.policy, {
            "mode": "workspace-write", "workspaceRoot": self.ws,
            "writableRoots": [self.outside], "protectedPaths": ["docs"],
            "defaultProtections": False, "unprotect": [".envrc", ".idea"],
            "denyRead": [os.path.join(self.outside, "secret")],
            "network": "off", "allowUnixSockets": ["/run/confine-tests.sock"],
            "env": {"inherit": "none", "include": ["PATH"], "exclude": ["X*"],
                    "set": {"CI": "1"}, "defaultExcludes": False},
            "requireFull": False, "limits": {"pids": 4096}})
        self.assertEqual(w.env, {"PATH": os.environ["PATH"], "CI": "1"})

    def test_network_allowlist_option(self):
        # doc/SPEC.md 15, "Network allowlist": echoed as the object, and
        # each bad host refused by name with the option named
        w = confine.wrap(["true"], **self.kw(network={"allow": ["Registry.NPMJS.org", "*.pypi.org"],
                                                      "deny": ["evil.pypi.org"],
                                                      "allow_local": False}))
        self.assertEqual(w.policy["network"], {"allow": ["registry.npmjs.org", "*.pypi.org"],
                                               "deny": ["evil.pypi.org"], "allowLocal": False})
        clause = [c for c in w.clauses if c.clause == "network"]
        self.assertEqual([c.subject for c in clause], ["allowlist"])
        for host, part in (("https://x.org", "has a scheme"), ("10.0.0.0/8", "address range"),
                           ("x.org:99999", "has a port"), ("", "is empty")):
            with self.assertRaises(confine.InvalidPolicy) as cm:
                confine.wrap(["true"], **self.kw(network={"allow": [host]}))
            self.assertEqual(cm.exception.option, "network.allow")
            self.assertIn(part, cm.exception.message)
        with self.assertRaises(confine.InvalidPolicy) as cm:
            confine.wrap(["true"], **self.kw(network={"hosts": ["x.org"]}))
        self.assertIn('"network.hosts"', cm.exception.message)

    def test_usage_errors(self):
        for call in (lambda: confine.run([], **self.kw()),
                     lambda: confine.run(["true"], timeout=-1, **self.kw()),
                     lambda: confine.wrap([], **self.kw())):
            with self.assertRaises(confine.UsageError) as cm:
                call()
            self.assertEqual(cm.exception.code, "USAGE")
            self.assertIsInstance(cm.exception, ValueError)
        self.assertIn("USAGE", confine.ERROR_CODES)

    def test_unknown_option_is_refused(self):
        with self.assertRaises(confine.InvalidPolicy) as cm:
            confine.run(["true"], **self.kw(writeable_roots=["x"]))
        self.assertEqual(cm.exception.option, "writeable_roots")

    def test_bad_mode_and_workspace(self):
        with self.assertRaises(confine.InvalidPolicy) as cm:
            confine.run(["true"], mode="read_only", **self.kw())
        self.assertIn('"read_only"', cm.exception.message)
        self.assertEqual(cm.exception.code, "INVALID_POLICY")
        with self.assertRaises(confine.InvalidPolicy) as cm:
            confine.bash("true", workspace=os.path.join(self.base, "missing"),
                         provider=PROVIDER)
        self.assertIn(os.path.join(self.base, "missing"), cm.exception.message)

    def test_bad_provider_config(self):
        with self.assertRaises(confine.InvalidConfig):
            confine.Provider(runner="docker")
        # probe_timeout_ms: the table's unit; the library's message for a
        # bad one, as the config file's probeTimeoutMs
        confine.Provider(probe_timeout_ms=100).close()
        for bad in (-1, 0, 0.5):
            with self.assertRaises(confine.InvalidConfig) as cm:
                confine.Provider(probe_timeout_ms=bad)
            self.assertEqual(cm.exception.message,
                             "sandbox-local: probeTimeoutMs must be a positive finite number")
        with self.assertRaises(confine.InvalidConfig) as cm:
            confine.Provider(probe_timeout_ms="5")
        self.assertEqual(cm.exception.option, "probe_timeout_ms")
        # probe_timeout (seconds) is deprecated and still works: a whole
        # number of milliseconds (SPEC 4): 0.1 s is 100 ms, not a fraction
        # of binary rounding; half a millisecond is refused
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            confine.Provider(probe_timeout=0.1).close()
            with self.assertRaises(confine.InvalidConfig):
                confine.Provider(probe_timeout=-1)
            with self.assertRaises(confine.InvalidConfig) as cm:
                confine.Provider(probe_timeout=0.0005)
            self.assertEqual(cm.exception.message,
                             "sandbox-local: probeTimeoutMs must be a positive finite number")
        self.assertTrue(caught and all(issubclass(w.category, DeprecationWarning)
                                       for w in caught), caught)
        with self.assertRaises(confine.InvalidConfig):
            confine.Provider(probe_timeout=1, probe_timeout_ms=1000)


class PolicyEffects(Base):
    """One effect on the world per policy option, on this rung."""

    def test_writable_root_write_lands(self):
        extra = os.path.join(self.base, "extra")
        os.mkdir(extra)
        r = confine.run(["sh", "-c", "printf lands > '%s/f'" % extra], mode="workspace-write",
                        writable_roots=[extra], **self.kw())
        self.assertEqual((r.exit_code, r.denied), (0, False), r)
        self.assertEqual(self.read(os.path.join(extra, "f")), "lands")
        # without it, the same write is denied and leaves nothing
        r = confine.bash("printf no > '%s/g'" % extra, mode="workspace-write", **self.kw())
        self.assertTrue(r.denied, r)
        self.assertFalse(os.path.exists(os.path.join(extra, "g")))

    def test_deny_read_file_is_unreadable(self):
        # Landlock (and the layered bwrap rung's launcher) enforce denyRead by
        # granting every sibling along the path to it, listed when the
        # profile is built: the secret lives in a directory no other test
        # creates or removes entries beside (the suites' workspaces come and
        # go in parallel; a sibling that vanishes before the launcher opens
        # it is a runner failure). Its own provider: a runner failure marks
        # the rung failed for the provider's life.
        stable = os.path.join(os.path.dirname(test_root()), "confine-denyread",
                              "python-%s" % (RUNNER or "default"))
        os.makedirs(stable, exist_ok=True)
        secret = os.path.join(stable, "secret.txt")
        with open(secret, "w") as f:
            f.write("s3cr3t-value\n")
        provider = (confine.Provider(runner=RUNNER, **LAUNCHER_KW) if RUNNER
                    else confine.Provider(**LAUNCHER_KW))
        kw = dict(workspace=self.ws, provider=provider)
        try:
            r = confine.run(["cat", secret], **kw)
            self.assertEqual(r.stdout, "s3cr3t-value\n")  # readable by default
            for mode in ("read-only", "workspace-write"):
                r = confine.run(["cat", secret], mode=mode, deny_read=[secret], **kw)
                self.assertNotEqual(r.exit_code, 0, r)
                self.assertNotIn("s3cr3t", r.stdout + r.stderr)
                self.assertNotIn("denyRead", r.unenforced)
            r = confine.bash("cat '%s'" % secret, deny_read=[stable], **kw)
            self.assertNotIn("s3cr3t", r.rendering)
            self.assertEqual(self.read(secret), "s3cr3t-value\n")
        finally:
            os.unlink(secret)
            os.rmdir(stable)  # this rung's own; the shared parent stays

    def test_denials_name_their_object(self):
        # doc/SPEC.md 8, 9: each refusal with its object and clause, alike
        # on both rungs; ordinary errors are none.
        Denial = confine.Denial
        subprocess.run(["git", "init", "-q", self.ws], check=True)
        r = confine.bash("git config foo.bar 1", mode="workspace-write", **self.kw())
        config = os.path.join(self.ws, ".git", "config")
        if RUNNER == "landlock":  # defaultProtections unenforced there
            self.assertEqual((r.exit_code, r.denials), (0, ()), r)
        else:  # EBUSY: a rename onto the read-only bind of .git/config
            self.assertIn("Device or resource busy", r.stderr)
            self.assertTrue(r.denied, r)
            self.assertEqual(r.denials, (Denial("write", config, None, "defaultProtections"),))
            self.assertIn("[denied: write %s (defaultProtections)]" % config,
                          r.rendering.split("\n"))
        # below denyRead: bwrap's mask says ENOENT, Landlock says EACCES (a
        # directory beside which no other test makes entries: see above)
        stable = os.path.join(os.path.dirname(test_root()), "confine-denyread",
                              "python-denials-%s" % (RUNNER or "default"))
        os.makedirs(os.path.join(stable, "sub"), exist_ok=True)
        key = os.path.join(stable, "sub", "key")
        with open(key, "w") as f:
            f.write("s3cr3t-value\n")
        provider = (confine.Provider(runner=RUNNER, **LAUNCHER_KW) if RUNNER
                    else confine.Provider(**LAUNCHER_KW))
        try:
            r = confine.bash("cat '%s'" % key, deny_read=[stable], workspace=self.ws,
                             provider=provider)
            self.assertNotIn("s3cr3t", r.stdout)
            self.assertTrue(r.denied, r)
            self.assertEqual(r.denials, (Denial("read", key, None, "denyRead"),))
            # a name that is not there, on the host either: no denial
            r = confine.bash("cat '%s/sub/nokey'" % stable, deny_read=[stable],
                             workspace=self.ws, provider=provider)
            self.assertEqual((r.denied, r.denials), (False, ()), r)
        finally:
            os.unlink(key)
        # a refused connect, network off: its own marker and the address
        import socket
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        port = server.getsockname()[1]
        try:
            r = confine.bash("exec 3<>/dev/tcp/127.0.0.1/%d" % port, network="off",
                             **self.kw())
            self.assertEqual((r.network_denied, r.denied), (True, False), r)
            self.assertEqual(r.denials, (Denial("connect", None, "127.0.0.1:%d" % port,
                                                "network"),))
            self.assertIn("[sandbox: network access denied under read-only mode]\n"
                          "[denied: connect 127.0.0.1:%d (network)]" % port, r.rendering)
        finally:
            server.close()
        # ordinary errors
        for command in ["echo 'git@github.com: Permission denied (publickey).' >&2; exit 255",
                        "cat missing-file",
                        "python3 -c \"import os; open('pf', 'w').close(); os.chmod('pf', 0); "
                        "open('pf')\""]:
            r = confine.bash(command, mode="workspace-write", **self.kw())
            self.assertNotEqual(r.exit_code, 0, r)
            self.assertEqual((r.denied, r.network_denied, r.denials), (False, False, ()), r)
            self.assertNotIn("[sandbox:", r.rendering.replace("[sandbox: not enforced", ""))

    def test_secret_env_var_is_absent(self):
        environ = dict(os.environ, CONFINE_TEST_API_KEY="k-1", CONFINE_TEST_PLAIN="p-1",
                       CONFINE_TEST_DROP="d-1")
        r = confine.run(["env"], environ=environ,
                        env={"exclude": ["confine_test_drop"], "set": {"CONFINE_TEST_SET": "s-1"}},
                        **self.kw())
        names = dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)
        self.assertNotIn("CONFINE_TEST_API_KEY", names)   # default excludes: *KEY*
        self.assertNotIn("k-1", r.stdout)
        self.assertNotIn("CONFINE_TEST_DROP", names)      # exclude, case-insensitive
        self.assertEqual(names.get("CONFINE_TEST_PLAIN"), "p-1")
        self.assertEqual(names.get("CONFINE_TEST_SET"), "s-1")
        # inherit none: only what is included and set
        r = confine.bash("env", environ=environ, mode="workspace-write",
                         env={"inherit": "none", "include": ["PATH", "CONFINE_TEST_API_KEY"]},
                         **self.kw())
        names = dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)
        self.assertEqual(names.get("CONFINE_TEST_API_KEY"), "k-1")  # include wins
        self.assertNotIn("CONFINE_TEST_PLAIN", names)
        # wrap's env is the same filter, for the caller's own spawn
        w = confine.wrap(["env"], environ=environ, **self.kw())
        self.assertNotIn("CONFINE_TEST_API_KEY", w.env)
        self.assertEqual(w.env["CONFINE_TEST_PLAIN"], "p-1")
        # danger-full-access passes the environment unchanged
        r = confine.run(["env"], environ=environ, mode="danger-full-access", **self.kw())
        self.assertIn("CONFINE_TEST_API_KEY=k-1", r.stdout.splitlines())

    def test_round4_env_excludes(self):
        # R4-F5: session secrets, connection strings, *_PASS, *_PW, a value
        # holding a URL with a password; the login session's names stay
        environ = dict(os.environ, BW_SESSION="r4-bw", AZURE_STORAGE_CONNECTION_STRING="r4-az",
                       SMTP_PASS="r4-smtp", DB_PW="r4-pw", PG_URL="postgres://a:r4-url@db/x",
                       DBUS_SESSION_BUS_ADDRESS="unix:path=/r4/bus", XDG_SESSION_TYPE="r4-tty")
        r = confine.run(["env"], environ=environ, **self.kw())
        for secret in ("r4-bw", "r4-az", "r4-smtp", "r4-pw", "r4-url"):
            self.assertNotIn(secret, r.stdout)
        lines = r.stdout.splitlines()
        self.assertIn("DBUS_SESSION_BUS_ADDRESS=unix:path=/r4/bus", lines)
        self.assertIn("XDG_SESSION_TYPE=r4-tty", lines)
        w = confine.wrap(["env"], environ=environ, **self.kw())
        self.assertNotIn("PG_URL", w.env)
        self.assertNotIn("BW_SESSION", w.env)
        self.assertEqual(w.env["XDG_SESSION_TYPE"], "r4-tty")
        r = confine.run(["env"], environ=environ, env={"include": ["PG_URL"]}, **self.kw())
        self.assertIn("PG_URL=postgres://a:r4-url@db/x", r.stdout.splitlines())  # include wins

    def test_network_off_blocks_a_loopback_tcp_connect(self):
        import socket
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        server.settimeout(0.2)
        port = server.getsockname()[1]
        accepted = []  # what each connection sent, in accept order
        stop = threading.Event()

        def serve():
            while not stop.is_set():
                try:
                    conn, _ = server.accept()
                except socket.timeout:
                    continue
                except OSError:
                    return
                try:
                    conn.settimeout(GONE_BOUND)
                    accepted.append(conn.recv(1))  # b"" at the peer's close
                except OSError:
                    accepted.append(b"?")
                conn.close()

        def accepted_before_a_sentinel():
            """The connections accepted before one this test makes now: the
            queue is served in order, so once the sentinel is accepted every
            connection a finished run made has been counted (a rendezvous,
            not a pause; the bound only proves the server runs)."""
            with socket.create_connection(("127.0.0.1", port), timeout=GONE_BOUND) as s:
                s.sendall(b"S")
                deadline = time.monotonic() + GONE_BOUND
                while b"S" not in accepted:
                    self.assertLess(time.monotonic(), deadline, "the server stopped accepting")
                    time.sleep(0.01)
            i = accepted.index(b"S")
            before = accepted[:i]
            del accepted[:i + 1]
            return before
        t = threading.Thread(target=serve, daemon=True)
        t.start()
        try:
            probe = "exec 3<>/dev/tcp/127.0.0.1/%d && echo connected" % port
            r = confine.run(["bash", "-c", probe], timeout=20, **self.kw())
            self.assertEqual(r.stdout, "connected\n", r)   # network on: the default
            self.assertEqual(len(accepted_before_a_sentinel()), 1)
            for mode in ("read-only", "workspace-write"):
                r = confine.run(["bash", "-c", probe], mode=mode, network="off", timeout=20,
                                **self.kw())
                self.assertNotEqual(r.exit_code, 0, r)
                self.assertNotIn("connected", r.stdout)
                self.assertNotIn("network", r.unenforced)
            r = confine.bash(probe, network="off", **self.kw())
            self.assertNotEqual(r.exit_code, 0, r)
            self.assertEqual(accepted_before_a_sentinel(), [],
                             "a connection got out with network off")
        finally:
            stop.set()
            server.close()
            t.join(2)

    def test_a_clause_that_did_not_hold_is_reported_and_rendered(self):
        # denyRead inside the workspace: bwrap masks it; Landlock cannot
        # take read away below a writable grant, and says so per clause and
        # to the model (doc/SPEC.md 15).
        secret = os.path.join(self.ws, ".env")
        with open(secret, "w") as f:
            f.write("s3cret\n")
        r = confine.bash("cat .env", mode="workspace-write", deny_read=[secret], **self.kw())
        clause = [c for c in r.clauses if c.clause == "denyRead"]
        self.assertEqual(len(clause), 1, r.clauses)
        if RUNNER == "landlock":
            self.assertEqual((clause[0].subject, clause[0].status, clause[0].needs),
                             (secret, "unenforced", "bubblewrap"))
            self.assertIn("denyRead", r.unenforced)
            self.assertEqual(r.enforcement, "partial")
            self.assertIn("[sandbox: not enforced on this run: ", r.rendering)
            self.assertIn("denyRead (%s)" % secret, r.rendering)
        else:
            # Masked, but held by its name inside the workspace: a save on the
            # host over it would detach the mask, so partial, and said.
            self.assertEqual((clause[0].subject, clause[0].status), (secret, "partial"))
            self.assertIn("bwrap", clause[0].layers)
            self.assertNotIn("s3cret", r.stdout)
            self.assertIn("denyRead (%s)" % secret, r.rendering)
            # the refusal names its object and clause (doc/SPEC.md 9)
            self.assertIn("[denied: read %s (denyRead)]" % secret, r.rendering.split("\n"))
            self.assertIn(confine.Denial(op="read", path=secret, address=None,
                                         clause="denyRead"), r.denials)
        os.unlink(secret)

    def test_deny_read_pattern_at_two_depths(self):
        # `**/.env` is expanded at the start (doc/SPEC.md 15): each match its
        # own clause, the pattern itself partial (a later match is not covered).
        names = [os.path.join(self.ws, ".env"), os.path.join(self.ws, "a", "b", ".env")]
        os.makedirs(os.path.dirname(names[1]))
        for name in names:
            with open(name, "w") as f:
                f.write("s3cret\n")
        r = confine.bash("cat .env a/b/.env", mode="workspace-write", deny_read=["**/.env"],
                         **self.kw())
        pattern = [c for c in r.clauses if c.clause == "denyRead" and c.subject == "**/.env"]
        self.assertEqual(len(pattern), 1, r.clauses)
        self.assertEqual(pattern[0].status, "partial")
        matched = {c.subject: c for c in r.clauses if c.clause == "denyRead"}
        for name in names:
            self.assertIn(name, matched)
        if RUNNER == "landlock":
            self.assertEqual(matched[names[1]].status, "unenforced")
            self.assertIn("denyRead", r.rendering)
        else:
            self.assertNotIn("s3cret", r.stdout)
            self.assertEqual(matched[names[1]].status, "partial")  # held by its name

    def test_require_full_refuses_where_partial(self):
        # A denyRead inside the workspace: Landlock cannot carve a read
        # denial out of a write grant, and bwrap's mask sits on the name,
        # which a save on the host replaces (doc/SPEC.md 15): partial on
        # both rungs.
        env_file = os.path.join(self.ws, ".env")
        with open(env_file, "w") as f:
            f.write("K=v\n")
        r = confine.run(["sh", "-c", "touch ran"], mode="workspace-write",
                        deny_read=[env_file], **self.kw())
        self.assertEqual((r.exit_code, r.enforcement), (0, "partial"), r)
        self.assertIn("denyRead", r.unenforced)
        os.unlink(os.path.join(self.ws, "ran"))
        for call in (lambda: confine.run(["sh", "-c", "touch ran"], mode="workspace-write",
                                         deny_read=[env_file], require_full=True,
                                         **self.kw()),
                     lambda: confine.bash("touch ran", mode="workspace-write",
                                          deny_read=[env_file], require_full=True,
                                          **self.kw())):
            with self.assertRaises(confine.SandboxUnavailable) as cm:
                call()
            e = cm.exception
            title = {"bwrap": "bubblewrap", "landlock": "Landlock"}.get(RUNNER or "", "")
            self.assertTrue(e.runner_failure.startswith(
                "requireFull: %s does not enforce " % title), e.runner_failure)
            # The clause that stops it, with its subject.
            self.assertIn("denyRead (%s)" % env_file, e.runner_failure)
            self.assertEqual(e.message, REQUIRE_FULL_CONTRACT % "workspace-write"
                             + " Runner failure: " + e.runner_failure)
            self.assertNotIn("Install bubblewrap", e.message)
        self.assertFalse(os.path.exists(os.path.join(self.ws, "ran")), "it ran partial")

    def test_protected_path_stays_read_only(self):
        docs = os.path.join(self.ws, "docs")
        os.mkdir(docs)
        r = confine.run(["sh", "-c", "echo x > docs/f; echo y > g"], mode="workspace-write",
                        protected_paths=["docs"], **self.kw())
        self.assertEqual(self.read(os.path.join(self.ws, "g")), "y\n")
        if RUNNER == "bwrap":
            self.assertTrue(r.denied, r)
            self.assertFalse(os.path.exists(os.path.join(docs, "f")))
            self.assertNotIn("protectedPaths", r.unenforced)
        else:  # listed, never silently ignored
            self.assertIn("protectedPaths", r.unenforced)
            self.assertEqual(r.enforcement, "partial")

    def test_allow_unix_sockets_reaches_the_allowed_socket(self):
        # A pathname socket outside the writable roots, allowed by name: the
        # command connects (enforced by the launcher's supervisor where it
        # runs; listed in unenforced where nothing mediates, never dropped).
        import socket
        sock_path = os.path.join(self.outside, "s.sock")
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(sock_path)
        server.listen(4)
        try:
            code = ("import socket, sys; s = socket.socket(socket.AF_UNIX); "
                    "s.connect(sys.argv[1]); print('connected')")
            r = confine.run([sys.executable, "-c", code, sock_path], mode="workspace-write",
                            allow_unix_sockets=[sock_path], timeout=30, **self.kw())
            self.assertEqual(r.stdout, "connected\n", r)
            w = confine.wrap(["true"], mode="workspace-write", allow_unix_sockets=[sock_path],
                             **self.kw())
            self.assertEqual(w.policy["allowUnixSockets"], [sock_path])
        finally:
            server.close()

    def test_git_hazards_are_reported(self):
        r = confine.run(["sh", "-c", "mkdir -p repo/.git/hooks && printf '#!/bin/sh\n' > "
                         "repo/.git/hooks/pre-commit"], mode="workspace-write", **self.kw())
        self.assertEqual(r.exit_code, 0, r)
        self.assertIn(confine.GitHazard(
            path=os.path.join(self.ws, "repo", ".git", "hooks", "pre-commit"), kind="hook"),
            r.git_hazards)
        r = confine.bash("true", mode="workspace-write", **self.kw())
        self.assertEqual(r.git_hazards, ())

    def test_git_hazards_back_to_back_pairs_report_no_false_change(self):
        # A snapshot before, a diff after: a quiet run right after one that
        # wrote a hook reports nothing, 50 times over (doc/SPEC.md 15).
        # The hooks live where core.hooksPath says, in the worktree: a project
        # directory both rungs let the command write (bwrap keeps the
        # repository's own .git/hooks and config read-only), and gitHazards
        # reads (doc/SPEC.md 15).
        hook = os.path.join(self.ws, "pairs", "hooks", "pre-commit")
        os.makedirs(os.path.dirname(hook))
        os.makedirs(os.path.join(self.ws, "pairs", ".git"))
        with open(os.path.join(self.ws, "pairs", ".git", "config"), "w") as f:
            f.write("[core]\n\thooksPath = hooks\n")
        for i in range(50):
            r = confine.run(["sh", "-c", "printf '#!/bin/sh\\necho %02d\\n' > "
                             "pairs/hooks/pre-commit" % i],
                            mode="workspace-write", **self.kw())
            self.assertEqual(r.exit_code, 0, r)
            with open(hook) as f:
                self.assertEqual(f.read(), "#!/bin/sh\necho %02d\n" % i)
            self.assertEqual(r.git_hazards, (confine.GitHazard(path=hook, kind="hook"),), i)
            r = confine.run(["true"], mode="workspace-write", **self.kw())
            self.assertEqual(r.git_hazards, (), i)


class HarnessApi(Base):
    """What harness authors expect (issue 24): a run carries its rendering,
    arun/abash keep run/bash's signatures, exceptions end in Error with the
    old names kept as aliases."""

    def test_a_run_carries_its_rendering(self):
        r = confine.run(["sh", "-c", "echo out; echo err >&2; exit 3"], **self.kw())
        self.assertTrue(r.rendering.startswith("out\n[stderr]\nerr\n"), r.rendering)
        self.assertTrue(r.rendering.endswith("[exit code: 3]"), r.rendering)

    def test_async_signatures_match(self):
        import inspect
        for sync, async_ in ((confine.run, confine.arun), (confine.bash, confine.abash)):
            self.assertEqual(list(inspect.signature(sync).parameters),
                             list(inspect.signature(async_).parameters))

    def test_error_names(self):
        self.assertIs(confine.SandboxUnavailable, confine.SandboxUnavailableError)
        self.assertIs(confine.InvalidPolicy, confine.InvalidPolicyError)
        self.assertIs(confine.InvalidConfig, confine.InvalidConfigError)
        with self.assertRaises(confine.InvalidPolicyError):
            confine.run(["true"], mode="nope", **self.kw())


class HarnessFiles(Base):
    """confine.fs (doc/SPEC.md 19): the harness's own file tools under the
    run's policy; each planted link refused, with the plain call as the
    unconfined control."""

    def test_a_write_lands_and_reads_back(self):
        confine.fs.write("notes.md", "hello\n", workspace=self.ws)
        self.assertEqual(confine.fs.read("notes.md", workspace=self.ws), b"hello\n")
        confine.fs.append("notes.md", "more\n", workspace=self.ws)
        with open(os.path.join(self.ws, "notes.md")) as f:
            self.assertEqual(f.read(), "hello\nmore\n")
        names = [e.name for e in confine.fs.list(".", workspace=self.ws)]
        self.assertEqual(names, ["notes.md"])
        self.assertEqual(confine.fs.stat("notes.md", workspace=self.ws).size, 11)

    def test_a_nul_or_empty_path_is_the_callers_error(self):
        # Cut at the NUL, "notes.md\0/x" would name notes.md: refused,
        # nothing written.
        with open(os.path.join(self.ws, "notes.md"), "w") as f:
            f.write("kept\n")
        for path in ("notes.md\0/../../x", "zz\0.txt", ""):
            with self.assertRaises(confine.UsageError) as cm:
                confine.fs.write(path, "pwned", workspace=self.ws)
            self.assertEqual(cm.exception.code, "USAGE")
        with self.assertRaises(confine.UsageError):
            confine.fs.rename("notes.md", "a\0b", workspace=self.ws)
        with open(os.path.join(self.ws, "notes.md")) as f:
            self.assertEqual(f.read(), "kept\n")
        self.assertEqual(sorted(os.listdir(self.ws)), ["notes.md"])

    def test_planted_links_are_refused(self):
        target = os.path.join(self.outside, "bashrc")
        with open(target, "w") as f:
            f.write("original\n")
        os.symlink(target, os.path.join(self.ws, "notes.md"))
        os.symlink(self.outside, os.path.join(self.ws, "dir"))
        os.link(target, os.path.join(self.ws, "hard"))
        for call in (lambda: confine.fs.write("notes.md", "pwned", workspace=self.ws),
                     lambda: confine.fs.write("dir/new", "pwned", workspace=self.ws),
                     lambda: confine.fs.write("../outside/new", "pwned", workspace=self.ws),
                     lambda: confine.fs.append("hard", "pwned", workspace=self.ws)):
            with self.assertRaises(confine.DeniedError) as cm:
                call()
            self.assertIn("denied by mode", str(cm.exception))
        with open(target) as f:
            self.assertEqual(f.read(), "original\n")
        self.assertEqual(sorted(os.listdir(self.outside)), ["bashrc"])
        # The unconfined control: a plain open() follows the link out.
        with open(os.path.join(self.ws, "notes.md"), "w") as f:
            f.write("pwned\n")
        with open(target) as f:
            self.assertEqual(f.read(), "pwned\n")

    def test_the_policy_clauses_hold(self):
        os.makedirs(os.path.join(self.ws, ".git", "hooks"))
        with open(os.path.join(self.ws, ".env"), "w") as f:
            f.write("s3cret\n")
        with self.assertRaises(confine.DeniedError):
            confine.fs.write(".git/hooks/pre-commit", "#!/bin/sh\n", workspace=self.ws)
        with self.assertRaises(confine.DeniedError):
            confine.fs.rename(".git", ".git.old", workspace=self.ws)
        with self.assertRaises(confine.DeniedError):
            confine.fs.read(".env", workspace=self.ws, deny_read=["**/.env"])
        with self.assertRaises(confine.DeniedError):
            confine.fs.write("x", "y", mode="read-only", workspace=self.ws)
        with self.assertRaises(confine.FsError) as cm:
            confine.fs.read("missing", workspace=self.ws)
        self.assertEqual(cm.exception.errno, errno.ENOENT)
        self.assertFalse(os.path.exists(os.path.join(self.ws, ".git", "hooks", "pre-commit")))

    def test_what_runs_later_is_refused_and_unprotect_opts_out(self):
        # issue 28.3: refused existing or not; the control is a plain write
        for path in (".bashrc", ".envrc", ".vscode/settings.json", ".claude/commands/x.md"):
            with self.assertRaises(confine.DeniedError) as cm:
                confine.fs.write(path, "touch pwned\n", workspace=self.ws)
            self.assertIn("denied by defaultProtections", str(cm.exception))
            self.assertFalse(os.path.lexists(os.path.join(self.ws, path)))
        self.assertEqual(confine.fs.write(".envrc", "x\n", workspace=self.ws,
                                          unprotect=[".envrc"]), ())
        with open(os.path.join(self.ws, ".envrc")) as f:
            self.assertEqual(f.read(), "x\n")
        with self.assertRaises(confine.InvalidPolicy) as cm:
            confine.fs.write(".envrc", "x\n", workspace=self.ws, unprotect=[".bogus"])
        self.assertIn('unprotect entry ".bogus"', cm.exception.message)

    def test_writes_report_git_hazards(self):
        # issue 28.6: confine.fs hands back what a write left for git
        subprocess.run(["git", "init", "-q", self.ws], check=True)
        subprocess.run(["git", "-C", self.ws, "config", "include.path", "../project.gitconfig"],
                       check=True)
        got = confine.fs.write("project.gitconfig", "[core]\n\tpager = touch x\n",
                               workspace=self.ws)
        self.assertEqual(got, (confine.GitHazard(path=os.path.join(self.ws, "project.gitconfig"),
                                                 kind="core.pager"),))
        self.assertEqual(confine.fs.write("notes", "x", workspace=self.ws), ())
        self.assertEqual(confine.fs.remove("notes", workspace=self.ws), ())

    def test_max_bytes_reads_at_most_that_many(self):
        # a sparse file far past a C int: max_bytes bounds what is read
        big = os.path.join(self.ws, "big")
        with open(big, "wb") as f:
            f.truncate((1 << 32) + 16)
        self.assertEqual(confine.fs.read("big", workspace=self.ws, max_bytes=10), b"\0" * 10)
        with self.assertRaises(confine.UsageError):
            confine.fs.read("big", workspace=self.ws, max_bytes=1 << 64)
        with self.assertRaises(confine.UsageError):
            confine.fs.read("big", workspace=self.ws, max_bytes=-1)
        os.unlink(big)


class Facts(unittest.TestCase):
    @unittest.skipUnless(os.environ.get("CONFINE_TEST_ABI_LAYOUT"), "no layout program")
    def test_ctypes_layouts_match_the_header(self):
        import ctypes
        from confine import _ffi
        done = subprocess.run([os.environ["CONFINE_TEST_ABI_LAYOUT"]], capture_output=True,
                              text=True, check=True)
        layouts = json.loads(done.stdout)
        structs = {
            "confine_error": _ffi.ConfineError, "confine_policy": _ffi.Policy,
            "confine_rule": _ffi.Rule, "confine_argv": _ffi.ConfinedArgv,
            "confine_verdict": _ffi.Verdict, "confine_local_config": _ffi.LocalConfig,
            "confine_stdio": _ffi.Stdio, "confine_spawn_options": _ffi.SpawnOptions,
            "confine_outcome": _ffi.Outcome, "confine_bash_options": _ffi.BashOptions,
            "confine_bash_result": _ffi.BashResult, "confine_env_policy": _ffi.EnvPolicy,
            "confine_git_hazard": _ffi.GitHazard, "confine_clause": _ffi.Clause,
            "confine_denial": _ffi.Denial,
            "confine_network_decision": _ffi.NetworkDecision,
        }
        self.assertEqual(set(layouts), set(structs))
        for name, struct in structs.items():
            c = layouts[name]
            py = {f: getattr(struct, f).offset for f, _ in struct._fields_}
            self.assertEqual(py, c["fields"], name)
            self.assertEqual(ctypes.sizeof(struct), c["size"],
                             "%s: confine.h has fields _ffi.py does not declare" % name)

    def test_version_is_the_library_and_meson_version(self):
        self.assertEqual(confine.version(), confine.__version__)
        from confine import _ffi
        built = os.environ.get("CONFINE_LIBRARY")
        if built:  # the soname the package loads is the one the build made
            self.assertTrue(os.path.exists(os.path.join(os.path.dirname(built), _ffi.SONAME)),
                            _ffi.SONAME)
        want = os.environ.get("CONFINE_TEST_VERSION")
        if want:
            self.assertEqual(confine.__version__, want)

    def test_probe(self):
        v = confine.probe(PROVIDER)
        self.assertTrue(v.usable)
        if RUNNER:
            self.assertEqual(v.runner, RUNNER)
        self.assertIn(v.enforcement, ("full", "partial"))


def preflight():
    """Whether the pinned rung can run here; exit status to use if not."""
    try:
        ws = tempfile.mkdtemp(prefix="python-preflight.", dir=test_root())
        try:
            confine.run(["true"], workspace=ws, provider=PROVIDER)
        finally:
            shutil.rmtree(ws, ignore_errors=True)
        return None
    except confine.SandboxUnavailable as e:
        why = "the %s rung cannot run here: %s" % (RUNNER or "default", e.message)
    if os.environ.get("CONFINE_MUST_WORK") == "1":
        print("not ok - %s, but CONFINE_MUST_WORK=1" % why)
        return 1
    print("# SKIP " + why)
    return SKIP


if __name__ == "__main__":
    status = preflight()
    if status is not None:
        sys.exit(status)
    print("# libconfine %s at %s, runner %s" % (confine.version(),
                                                 confine._ffi.library_path(), RUNNER))
    unittest.main(verbosity=2)
