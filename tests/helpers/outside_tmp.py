# SPDX-License-Identifier: MIT
"""The build's landlock-run for tests that hand an on-disk launcher to
confine (`wrap`, a configured `landlockLauncher`): where the build lies
under /tmp, which others may write and a workspace-write run under Landlock
may write, confine rightly refuses to run a launcher from there
(doc/SPEC.md 14), so tests use a copy under ~/.cache/confine-tests."""
import os
import shutil


def launcher_outside_tmp(launcher):
    if not launcher:
        return launcher
    real = os.path.realpath(launcher)
    if not real.startswith("/tmp/"):
        return launcher
    home = os.environ.get("HOME") or "/"
    d = os.path.join(home, ".cache", "confine-tests", "launcher")
    os.makedirs(d, mode=0o755, exist_ok=True)
    os.chmod(d, 0o755)
    copy = os.path.join(d, "landlock-run")
    tmp = os.path.join(d, ".landlock-run.%d" % os.getpid())
    shutil.copyfile(real, tmp)
    os.chmod(tmp, 0o755)
    os.replace(tmp, copy)
    return copy
