# SPDX-License-Identifier: MIT
"""The build's landlock-run for tests that hand an on-disk launcher to
confine (`wrap`, a configured `landlockLauncher`): where the build lies
under /tmp, which others may write and a workspace-write run under Landlock
may write, confine rightly refuses to run a launcher from there
(doc/SPEC.md 14), so tests use a copy under ~/.cache/confine-tests: one per
process, in a directory of its own that goes when the process exits."""
import atexit
import os
import shutil
import tempfile

_copy = None


def _remove(directory, owner):
    if os.getpid() == owner:  # not from a forked child's exit
        shutil.rmtree(directory, ignore_errors=True)


def launcher_outside_tmp(launcher):
    global _copy
    if not launcher:
        return launcher
    real = os.path.realpath(launcher)
    if not real.startswith("/tmp/"):
        return launcher
    if _copy is None:
        home = os.environ.get("HOME") or "/"
        base = os.path.join(home, ".cache", "confine-tests")
        os.makedirs(base, exist_ok=True)
        d = tempfile.mkdtemp(prefix="launcher.", dir=base)
        atexit.register(_remove, d, os.getpid())
        os.chmod(d, 0o755)
        copy = os.path.join(d, "landlock-run")
        shutil.copyfile(real, copy)
        os.chmod(copy, 0o755)
        _copy = copy
    return _copy
