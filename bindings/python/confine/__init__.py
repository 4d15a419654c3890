# SPDX-License-Identifier: MIT
"""confine: run commands confined, from Python.

In-process bindings of libconfine (ctypes; no ``confine`` process per
command)::

    import confine

    r = confine.bash("echo hi > x", mode="read-only", workspace="/home/me/project")
    r.denied          # True: the write was refused
    r.denials         # (Denial(op='write', path='/home/me/project/x', clause='mode'),)
    r.rendering       # what an agent's model is shown, markers included

    r = confine.run(["make", "test"], mode="workspace-write", workspace=root, timeout=60)
    r.exit_code, r.stdout, r.stderr, r.timed_out

    w = confine.wrap(["sh", "-c", "echo hi"], mode="workspace-write")
    subprocess.run(w.argv, env=w.env, cwd=w.cwd, start_new_session=True)

Policy options beyond mode and workspace are keyword arguments, one per
config key (doc/SPEC.md 15; the table is ``confine.POLICY_OPTIONS``)::

    confine.run(["npm", "ci"], mode="workspace-write", workspace=root,
                writable_roots=["~/.npm"], deny_read=["/home/me/.ssh"],
                network="off", env={"include": ["PATH", "HOME"], "set": {"CI": "1"}},
                require_full=True)

Where nothing can confine, a confined mode raises
:class:`SandboxUnavailable` (``.message`` is the contract's exact text); it
never runs the command unconfined. ``arun``/``abash`` are the asyncio
variants. All calls are thread-safe and share one provider (the runner
ladder, probed once), made on first use; :func:`configure` replaces it, and
every call takes ``provider=`` for one of its own.

The library is found through ``$CONFINE_LIBRARY``, else next to the package
(a bundled copy, or the library directory recorded by ``meson install``),
else the loader's search path, else a source checkout's ``build/``.
"""
from ._api import (BashResult, Clause, Denial, GitHazard, NetworkDecision, Provider, Result, Rule,
                   Truncated, Verdict, Wrap, bash, configure, default_provider, probe, run, version,
                   wrap)
from ._async import abash, arun
from ._errors import (ERROR_CODES, DeniedError, Error, FsError, InvalidConfig,
                      InvalidConfigError, InvalidPolicy, InvalidPolicyError,
                      ProgramNotExecutableError, ProgramNotFoundError, SandboxUnavailable,
                      SandboxUnavailableError, SpawnFailedError, UsageError)
from ._policy import OPTIONS as POLICY_OPTIONS
from ._version import __version__

__all__ = [
    "run", "bash", "wrap", "probe", "arun", "abash", "configure", "default_provider",
    "version", "Provider", "Result", "BashResult", "Truncated", "Wrap", "Rule", "Verdict",
    "GitHazard", "Clause", "Denial", "NetworkDecision", "Error", "SandboxUnavailable", "InvalidPolicy",
    "InvalidConfig", "UsageError", "ERROR_CODES", "POLICY_OPTIONS", "__version__", "DeniedError",
    "FsError", "fs", "SandboxUnavailableError", "InvalidPolicyError", "InvalidConfigError",
    "SpawnFailedError", "ProgramNotFoundError", "ProgramNotExecutableError",
    "stage", "Stage",
]
from . import fs  # noqa: E402  (the harness's own file operations)
from . import stage  # noqa: E402  (a staged run's changes, doc/SPEC.md 21)
from .stage import Stage  # noqa: E402
