# SPDX-License-Identifier: MIT
"""The build's landlock-run for tests that hand an on-disk launcher to
confine (`wrap`, a configured `landlockLauncher`, the bwrap rung's probe):
where the build lies under /tmp, which others may write and a
workspace-write run under Landlock may write, confine rightly refuses to
run a launcher from there (doc/SPEC.md 14, the trust rule of section 4), so
tests stage a copy and name it: one per process, in a directory of its own
that goes when the process exits. The copy lies under ~/.cache/confine-tests
(the caller's own), or, for root whose HOME is unset or itself under /tmp,
under /var/lib (CONFINE_TEST_STAGE_PARENT), root-owned, mode 0755, as
tests/helpers/as_user.py stages a user half. A launcher elsewhere (an
installed one, a clone in a home) is returned as it is.

    launcher_outside_tmp(path)  -> the path to name (the copy, or path)
    launcher_config(path, dir)  -> a config file naming it (for --config,
                                   CONFINE_CONFIG or Node's `config`)"""
import atexit
import json
import os
import shutil
import tempfile

_copy = None


def _remove(directory, owner):
    if os.getpid() == owner:  # not from a forked child's exit
        shutil.rmtree(directory, ignore_errors=True)


def _under_tmp(path):
    return path == "/tmp" or path.startswith("/tmp/")


def _stage_parent():
    home = os.environ.get("HOME") or ""
    if home and not _under_tmp(os.path.realpath(home)):
        base = os.path.join(home, ".cache", "confine-tests")
        os.makedirs(base, exist_ok=True)
        return base
    if os.getuid() == 0:
        return os.environ.get("CONFINE_TEST_STAGE_PARENT", "/var/lib")
    raise RuntimeError("outside_tmp: HOME (%r) is unset or under /tmp, and only root may stage "
                       "under /var/lib: no trusted place for the launcher's copy" % home)


def launcher_outside_tmp(launcher, beside=()):
    """`beside`: programs found beside the launcher (confine-gvisor), staged
    with it."""
    global _copy
    if not launcher:
        return launcher
    real = os.path.realpath(launcher)
    if not _under_tmp(real):
        return launcher
    if _copy is None:
        d = tempfile.mkdtemp(prefix="confine-launcher.", dir=_stage_parent())
        atexit.register(_remove, d, os.getpid())
        os.chmod(d, 0o755)
        copy = os.path.join(d, "landlock-run")
        shutil.copyfile(real, copy)
        os.chmod(copy, 0o755)
        _copy = copy
    for program in beside:
        dst = os.path.join(os.path.dirname(_copy), os.path.basename(program))
        if not os.path.exists(dst):
            shutil.copyfile(os.path.realpath(program), dst)
            os.chmod(dst, 0o755)
    return _copy


def launcher_config(launcher, directory, extra=None):
    """A config file in `directory` naming the staged launcher (and the keys
    of `extra`, which win); returns its path."""
    config = {"landlockLauncher": launcher_outside_tmp(launcher)}
    config.update(extra or {})
    fd, path = tempfile.mkstemp(prefix="launcher.", suffix=".json", dir=directory)
    with os.fdopen(fd, "w") as f:
        json.dump(config, f)
    os.chmod(path, 0o644)
    return path
