#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A harness in another language reads `confine wrap`'s failures.

`confine wrap` prints exactly one JSON object on stdout in every case
(doc/SPEC.md 10, 16): the wrap, or {"error":{"code","message"
[,"runnerFailure"]}} with exit 125, while stderr keeps the human
`confine: <message>` line. Checked for a bad mode, a missing workspace, an
unavailable sandbox (the Landlock rung pinned to a launcher that does not
exist) and a usage error. Runs nothing confined: needs no runner.

Usage: wrap_errors.py CONFINE
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def wrap(confine, args, env=None):
    done = subprocess.run([confine, "wrap"] + args, capture_output=True, text=True,
                          env=env)
    lines = done.stdout.splitlines()
    assert len(lines) == 1, "wrap printed %r (stderr %r)" % (done.stdout, done.stderr)
    return done, json.loads(lines[0])


def expect_error(confine, args, code, in_message, runner_failure=None):
    done, obj = wrap(confine, args)
    assert done.returncode == 125, "exit %d for %r" % (done.returncode, args)
    assert list(obj) == ["error"], obj
    error = obj["error"]
    assert error["code"] == code, error
    assert in_message in error["message"], error
    # stderr: the same message as the one line a person reads
    assert done.stderr.startswith("confine: " + error["message"] + "\n"), done.stderr
    if runner_failure is None:
        assert set(error) == {"code", "message"}, error
    else:
        assert set(error) == {"code", "message", "runnerFailure"}, error
        assert error["runnerFailure"] == runner_failure, error
        assert error["message"].endswith(" Runner failure: " + runner_failure), error
    print("ok: %s -> %s" % (" ".join(args), code))


def main():
    confine = sys.argv[1]
    base = tempfile.mkdtemp(prefix="wrap-errors.")
    try:
        work = os.path.join(base, "ws")
        os.mkdir(work)
        missing = os.path.join(base, "no-such-dir")
        config = os.path.join(base, "config.json")
        launcher = os.path.join(base, "no-such-launcher")
        with open(config, "w") as f:
            json.dump({"landlockLauncher": launcher}, f)

        expect_error(confine, ["-m", "bogus", "-w", work, "--", "true"], "INVALID_POLICY",
                     'unknown sandbox mode "bogus"')
        expect_error(confine, ["-m", "workspace-write", "-w", missing, "--", "true"],
                     "INVALID_POLICY",
                     'workspace root "%s" (given with -w) does not exist' % missing)
        expect_error(confine, ["--config", config, "--runner", "landlock", "-w", work,
                               "--", "true"],
                     "SANDBOX_UNAVAILABLE", "no sandbox backend is usable",
                     runner_failure="cannot execute %s: No such file or directory" % launcher)
        expect_error(confine, ["--frob", "--", "true"], "USAGE",
                     "unknown option '--frob' for 'confine wrap'")
        expect_error(confine, ["-w", work], "USAGE", "missing '-- PROGRAM [ARG...]'")
        with open(os.path.join(base, "bad.json"), "w") as f:
            f.write('{"mode": ')
        expect_error(confine, ["--config", os.path.join(base, "bad.json"), "--", "true"],
                     "INVALID_CONFIG", os.path.join(base, "bad.json"))

        # and the success shape is still one object, exit 0
        done, obj = wrap(confine, ["-m", "danger-full-access", "-w", work, "--", "echo", "x"])
        assert done.returncode == 0 and done.stderr == "", done
        assert obj["argv"] == ["echo", "x"] and obj["runner"] is None, obj
        assert "error" not in obj, obj
        print("ok: the wrap itself")
        return 0
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
