# SPDX-License-Identifier: MIT
"""run, bash, wrap and probe over libconfine (the asyncio variants are in
_async.py, the results in _results.py, the provider in _provider.py, a
run in flight in _running.py, the program's lookup in _program.py, the
table of options in _table.py)."""
from __future__ import annotations

import ctypes
import errno as _errno
import os
from typing import IO, Any, Dict, List, Mapping, Optional, Sequence, Union, cast

from . import _ask, _ffi, _policy, _values
from ._errors import (RUNNER_FAILURE_SEPARATOR, InvalidPolicy, SandboxUnavailable, UsageError)
from ._provider import Provider, _name, _provider, _raise, configure, default_provider
from ._results import (BashResult, Clause, Denial, GitHazard, NetworkDecision, Result, Rule,
                       Truncated, Verdict, Wrap)
from ._values import POLICY, USAGE

__all__ = ["run", "bash", "wrap", "probe", "version", "Provider", "configure",
           "default_provider", "Result", "BashResult", "Clause", "Denial", "NetworkDecision",
           "GitHazard", "Rule",
           "Truncated", "Verdict", "Wrap"]

PathArg = Union[str, bytes, "os.PathLike[str]"]
StdinArg = Union[None, bytes, str, int, IO[Any]]

MODES = ("read-only", "workspace-write", "danger-full-access")

# ---- building one call ------------------------------------------------------


def _library_name() -> str:
    return "libconfine %s (%s)" % (_ffi.lib().confine_version().decode(), _ffi.library_path())


class _Policy:
    """A resolved C policy, freed with this object."""

    ptr: Any = None

    def __init__(self, mode: str, workspace: Optional[PathArg], options: Mapping[str, Any],
                 ask: bool = False):
        lib = _ffi.lib()
        chosen = _policy.check(options, _library_name())
        err = _ffi.ConfineError()
        mode_value = ctypes.c_int()
        if mode is None:  # not given: the default, as the CLI and Node take it
            mode = "read-only"
        if lib.confine_mode_parse(_values.text(mode, "mode", POLICY), ctypes.byref(mode_value),
                                  ctypes.byref(err)) < 0:
            _raise(err, option="mode")
        if workspace is None:
            raw_root = os.fsencode(os.getcwd())
        else:
            raw_root = _values.path(workspace, "workspace", POLICY)
            if raw_root and not os.path.isabs(raw_root):
                raw_root = os.path.join(os.fsencode(os.getcwd()), raw_root)  # as the CLI's -w
        ptr = ctypes.POINTER(_ffi.Policy)()
        if lib.confine_policy_new(mode_value.value, raw_root, ctypes.byref(ptr),
                                  ctypes.byref(err)) < 0:
            _raise(err, option="workspace")
        self.ptr = ptr
        if ask:
            # A decider (doc/SPEC.md 15, "Ask"): the network off around it
            # unless `network` says otherwise, as the CLI's --ask-host.
            ptr.contents.network_ask = True
            ptr.contents.network = 1  # CONFINE_NETWORK_OFF
        self.mode = mode
        self.mode_value = mode_value.value
        self.confined = bool(lib.confine_mode_is_confined(mode_value.value))
        self.root = os.fsdecode(ptr.contents.workspace_root)
        self._lib = lib
        try:
            _policy.apply(ptr, chosen)
        except BaseException:
            self.close()
            raise

    def make_temp_dir(self, envp: Optional[_ffi.StrArray]) -> None:
        """The run's private temp area on the rungs without a mount
        namespace, in both confined modes (doc/SPEC.md 15), made before the
        argv that grants it, as the CLI's run and the bash consumer do; the
        spawner removes it after the run. Nothing for any other policy."""
        err = _ffi.ConfineError()
        if self._lib.confine_policy_make_temp_dir(self.ptr, envp.ptr() if envp else None,
                                                  ctypes.byref(err)) < 0:
            _raise(err)

    def drop_temp_dir(self) -> None:
        """The temp dir of a run that did not start (a spawn refused before
        it took the directory over; rmdir of one it removed fails
        harmlessly)."""
        if self.ptr and self.ptr.contents.temp_dir:
            try:
                os.rmdir(self.ptr.contents.temp_dir)
            except OSError:
                pass

    def env(self, environ: Optional[Mapping[str, str]]) -> Dict[str, str]:
        """The environment a confined command gets from ``environ`` (None:
        this process's) under this policy's env filter; danger-full-access
        gets it unchanged."""
        arr = _envp(os.environ if environ is None else environ)
        assert arr is not None
        out = ctypes.POINTER(ctypes.c_char_p)()
        r = self._lib.confine_env_filter(arr.ptr(), ctypes.byref(self.ptr.contents.env),
                                         self.mode_value, ctypes.byref(out))
        if r < 0:
            raise MemoryError() if r == -_errno.ENOMEM else InvalidPolicy(
                "the env policy cannot be applied (%s)" % os.strerror(-r), option="env")
        try:
            env: Dict[str, str] = {}
            for entry in _ffi.strv(out):
                name, _, value = entry.partition("=")
                env[name] = value
            return env
        finally:
            self._lib.confine_strv_free(out)

    def close(self) -> None:
        ptr, self.ptr = self.ptr, None
        if ptr:
            self._lib.confine_policy_free(ptr)

    def __del__(self) -> None:
        self.close()


def _envp(environ: Optional[Mapping[str, str]]) -> Optional[_ffi.StrArray]:
    """``environ`` as the ``NAME=VALUE`` words the library takes, each
    checked: a name is not empty and holds no ``=``, neither holds a NUL."""
    if environ is None:
        return None
    if not isinstance(environ, Mapping):
        _values.wrong_type(USAGE, "environ", "an object of names to strings", environ)
    entries = []
    for name, value in environ.items():
        raw_name = _values.path(name, "environ", USAGE)
        if not raw_name or b"=" in raw_name:
            _values.fail(USAGE, "environ", "environ name %s is empty or holds '='"
                         % _values.show(name))
        entries.append(raw_name + b"=" + _values.path(value, "environ", USAGE))
    return _ffi.StrArray(entries)


def render(outcome: Any, timeout_ms: int) -> str:
    """What a model is shown of a run's outcome (doc/SPEC.md 9): the
    library's rendering, as bash() gives it (tests/golden/render.json pins
    it, run here by golden_render.py as by the C and Node suites)."""
    shown = _ffi.BashResult()
    shown.outcome = outcome
    shown.timeout_ms = timeout_ms
    raw = _ffi.lib().confine_bash_render(ctypes.byref(shown))
    if not raw:
        raise MemoryError()
    rendering = ctypes.string_at(raw).decode("utf-8", "replace")
    _ffi.free(raw)
    return rendering


def _timeout_ms(timeout: Optional[float], default: int) -> int:
    """The timeout in seconds as milliseconds, 0.001 to 600 (SPEC 10's
    --timeout, 1 to 600000 ms, at every door): past the bound it is
    refused, never cut to it."""
    if timeout is None:
        return default
    return _values.seconds(timeout, "timeout", upper_ms=_ffi.MAX_TIMEOUT_MS)


def _workdir(cwd: Optional[PathArg], root: str) -> bytes:
    """Where the command starts: ``cwd`` (relative: from this process's
    current directory, as the CLI's), default the workspace root."""
    if cwd is None:
        return os.fsencode(root)
    raw = _values.path(cwd, "cwd", USAGE, allow_empty=False)
    return raw if os.path.isabs(raw) else os.path.join(os.fsencode(os.getcwd()), raw)


def _capture_limit(max_output: Any) -> int:
    """Bytes kept of each stream: a whole number, 0 for the default, at
    most what a size_t holds here (a bigger one is refused, never cut)."""
    return _values.count(max_output, "max_output", lower=0)


from ._program import _check_program, _program_failure  # noqa: E402
from ._running import (_Running, _argv_list, _clauses, _outcome_fields,  # noqa: E402
                       _start_and_finish, _stdin_stdio)


def _start_run(argv: Sequence[PathArg], *, mode: str = "read-only",
               workspace: Optional[PathArg] = None, timeout: Optional[float] = None,
               stdin: StdinArg = None, cwd: Optional[PathArg] = None,
               environ: Optional[Mapping[str, str]] = None,
               max_output: int = _ffi.DEFAULT_CAPTURE_LIMIT,
               provider: Optional[Provider] = None, ask_host: Optional[_ask.Decider] = None,
               loop: Any = None, **policy: Any) -> _Running:
    lib = _ffi.lib()
    items = _argv_list(argv)
    decide = _ask.check(ask_host, "run")
    timeout_ms = _timeout_ms(timeout, 0)
    capture_limit = _capture_limit(max_output)
    envp = _envp(environ)
    if provider is not None:
        _provider(provider)
    stage_dir = policy.pop("stage", None)
    if stage_dir is not None and mode == "read-only":
        mode = "workspace-write"  # a stage's writes reach nothing real (doc/SPEC.md 21)
    pol = _Policy(mode, workspace, policy, ask=decide is not None)
    keep: List[Any] = [pol]
    if stage_dir is not None:
        stage_dir = os.path.abspath(os.fsdecode(stage_dir))
        serr = _ffi.ConfineError()
        if (lib.confine_stage_create(os.fsencode(stage_dir), pol.ptr, ctypes.byref(serr)) < 0
                or lib.confine_policy_set_stage(pol.ptr, os.fsencode(stage_dir),
                                                ctypes.byref(serr)) < 0):
            _raise(serr, option="stage")
    raw_workdir = _workdir(cwd, pol.root)
    workdir = os.fsdecode(raw_workdir)
    program = os.fsdecode(items[0])
    # Before confining: a missing program is not a sandbox problem.
    _check_program(program, workdir, environ)
    argv_arr = _ffi.StrArray(items)
    keep.append(argv_arr)
    err = _ffi.ConfineError()
    options = _ffi.SpawnOptions()
    lib.confine_spawn_options_init(ctypes.byref(options))
    options.argv = argv_arr.ptr()
    keep.append(raw_workdir)
    options.workdir = raw_workdir
    if envp is not None:
        keep.append(envp)
        options.envp = envp.ptr()
    options.stdio[1].kind = _ffi.STDIO_CAPTURE
    options.stdio[2].kind = _ffi.STDIO_CAPTURE
    options.capture_limit = capture_limit
    options.timeout_ms = timeout_ms
    if decide is not None:
        options.ask_host = _ask.callback(decide, keep, loop)
    process = ctypes.c_void_p()
    try:
        kind, fd = _stdin_stdio(stdin, keep)
        options.stdio[0].kind, options.stdio[0].fd = kind, fd
        if pol.confined:
            # The library's own spawning of a confined run (doc/SPEC.md 12,
            # 17), as `confine run` and the bash consumer do: the sealed
            # launcher with a status channel (the command's stderr is never
            # mistaken for the runner's), no probe first, the next rung
            # tried when one fails before the command started. The policy's
            # env filter and TMPDIR apply to `envp` in the spawner.
            prov = _provider(provider)
            keep.append(prov)
            pol.make_temp_dir(envp)
            r = lib.confine_spawn_through(prov.handle, pol.ptr, ctypes.byref(options),
                                          ctypes.byref(process), ctypes.byref(err))
        else:
            r = lib.confine_spawn(ctypes.byref(options), ctypes.byref(process),
                                  ctypes.byref(err))
        if r < 0:
            pol.drop_temp_dir()
            # The runner started but the program is not there in the sandbox,
            # or cannot be run there (its status channel said so).
            if (pol.confined and err.code == _ffi.E_SPAWN
                    and err.sys_errno in (_errno.ENOENT, _errno.EACCES)):
                raise _program_failure(program, workdir, pol.root, environ, err.sys_errno)
            _raise(err)
    finally:
        for item in keep:
            if hasattr(item, "close") and hasattr(item, "fileno"):
                item.close()  # the child has its stdin now

    def settle(handle: int) -> Result:
        outcome = ctypes.POINTER(_ffi.Outcome)()
        e = _ffi.ConfineError()
        if lib.confine_process_wait(handle, ctypes.byref(outcome), ctypes.byref(e)) < 0:
            _raise(e)
        try:
            o = outcome.contents
            if o.runner_failed and lib.confine_outcome_error(outcome, ctypes.byref(e)) < 0:
                message = _ffi.text(e.message)
                detail = None if RUNNER_FAILURE_SEPARATOR in message else (
                    _ffi.text(o.runner_failure_detail) or None)
                raise SandboxUnavailable(message, runner_failure=detail,
                                         stage=e.stage.decode() if e.stage else None)
            rendering = render(outcome, timeout_ms)
            staged = None
            if stage_dir is not None:
                from .stage import Stage
                staged = Stage(stage_dir)
            return Result(rendering=rendering, stage=staged, **_outcome_fields(o, mode))
        finally:
            lib.confine_outcome_free(outcome)

    assert process.value is not None
    return _Running(process.value, keep, settle)


def _start_bash(command: str, *, mode: str = "read-only",
                workspace: Optional[PathArg] = None, timeout: Optional[float] = None,
                cwd: Optional[PathArg] = None, environ: Optional[Mapping[str, str]] = None,
                max_output: int = _ffi.DEFAULT_CAPTURE_LIMIT,
                provider: Optional[Provider] = None, ask_host: Optional[_ask.Decider] = None,
                loop: Any = None, **policy: Any) -> _Running:
    lib = _ffi.lib()
    decide = _ask.check(ask_host, "bash")
    if not isinstance(command, (str, bytes)):
        _values.wrong_type(USAGE, "command", "a string", command)
    command_bytes = _values.path(command, "command", USAGE, allow_empty=False)
    timeout_ms = _timeout_ms(timeout, _ffi.DEFAULT_TIMEOUT_MS)
    capture_limit = _capture_limit(max_output)
    envp = _envp(environ)
    prov = _provider(provider)
    pol = _Policy(mode, workspace, policy, ask=decide is not None)
    keep: List[Any] = [pol]
    keep.append(prov)
    options = _ffi.BashOptions()
    keep.append(command_bytes)
    options.command = command_bytes
    options.policy = pol.ptr
    if cwd is not None:
        raw_workdir = _workdir(cwd, pol.root)
        keep.append(raw_workdir)
        options.workdir = raw_workdir
    if envp is not None:
        keep.append(envp)
        options.envp = envp.ptr()
    options.timeout_ms = timeout_ms
    options.max_output = capture_limit
    if decide is not None:
        options.ask_host = _ask.callback(decide, keep, loop)
    err = _ffi.ConfineError()
    process = ctypes.c_void_p()
    if lib.confine_bash_start(prov.handle, ctypes.byref(options), ctypes.byref(process),
                              ctypes.byref(err)) < 0:
        _raise(err)

    def settle(handle: int) -> BashResult:
        result = ctypes.POINTER(_ffi.BashResult)()
        e = _ffi.ConfineError()
        if lib.confine_bash_wait(handle, ctypes.byref(result), ctypes.byref(e)) < 0:
            _raise(e)
        try:
            r = result.contents
            o = r.outcome.contents
            if r.error.code != _ffi.E_OK:
                if r.error.code == _ffi.E_SANDBOX_UNAVAILABLE:
                    message = _ffi.text(r.error.message)
                    detail = None if RUNNER_FAILURE_SEPARATOR in message else (
                        _ffi.text(o.runner_failure_detail) or None)
                    raise SandboxUnavailable(
                        message, runner_failure=detail,
                        stage=r.error.stage.decode() if r.error.stage else None)
                _raise(r.error)
            raw = lib.confine_bash_render(result)
            if not raw:
                raise MemoryError()
            rendering = ctypes.string_at(raw).decode("utf-8", "replace")
            _ffi.free(raw)
            return BashResult(rendering=rendering, timeout_ms=r.timeout_ms,
                              **_outcome_fields(o, mode))
        finally:
            lib.confine_bash_result_free(result)

    assert process.value is not None
    return _Running(process.value, keep, settle)


# ---- the public calls -------------------------------------------------------


def run(argv: Sequence[PathArg], *, mode: str = "read-only",
        workspace: Optional[PathArg] = None, timeout: Optional[float] = None,
        stdin: StdinArg = None, cwd: Optional[PathArg] = None,
        environ: Optional[Mapping[str, str]] = None,
        max_output: int = _ffi.DEFAULT_CAPTURE_LIMIT,
        provider: Optional[Provider] = None, ask_host: Optional[_ask.Decider] = None,
        **policy: Any) -> Result:
    """Runs ``argv`` confined, in this process (no ``confine`` process), and
    returns its :class:`Result`.

    ``mode`` is ``"read-only"`` (default), ``"workspace-write"`` or
    ``"danger-full-access"`` (unconfined). ``workspace`` is the workspace
    root (default: the current directory); ``cwd`` where the command starts
    (default: the workspace root). ``timeout`` in seconds (default: none)
    ends the run's whole process tree: SIGTERM, then SIGKILL 3 s later; the
    result then has ``timed_out``. ``stdin``: ``None`` (``/dev/null``), bytes
    or str to feed, or a descriptor / file. ``environ``: the command's
    environment (default: this process's). stdout and stderr are captured,
    each up to ``max_output`` bytes. Other keyword arguments are policy
    options (``writable_roots``, ``protected_paths``,
    ``default_protections``, ``deny_read``, ``network``,
    ``allow_unix_sockets``, ``env``, ``require_full``; see
    :data:`confine.POLICY_OPTIONS` and doc/SPEC.md 15); a bad value raises
    :class:`InvalidPolicy` naming it. In a confined mode the command's
    environment is ``environ`` through the ``env`` policy (by default the
    names matching ``*KEY*``, ``*SECRET*``, ``*TOKEN*``, ``*PASSWORD*``,
    ``*CREDENTIAL*`` and the others of doc/SPEC.md 15, "Environment", are
    dropped). ``require_full=True`` raises
    :class:`SandboxUnavailable` rather than run with part of the policy
    unenforced; otherwise what was not enforced is in the result's
    ``unenforced``.

    ``ask_host``: the run's decider for hosts on neither network list
    (doc/SPEC.md 15, "Ask"; see confine._ask): ``decide(host, port)``
    returns ``True``, ``False``, ``(allow, reason)`` or
    ``{"allow", "reason"}``, sync or ``async def``, once per host and port
    a run; it raising, answering anything else or taking more than 20 s
    refuses the host with a reason saying so. It turns the network off
    around it unless ``network`` says otherwise (``network={"allow": [...]}``
    for a list beside it); each decision is in ``network_decisions``, a
    refusal's reason in its :class:`Denial`'s ``reason``.

    Confined runs go through the library's own spawning
    (``confine_spawn_through``, as ``confine run`` does): the runner
    reports the command's start on a status channel, and when a rung fails
    before the command started the next one is tried.

    Raises :class:`SandboxUnavailable` (nothing can confine here, or the
    runner failed before the command ran), :class:`InvalidPolicy`,
    :class:`InvalidConfig`, :class:`UsageError` (an empty argv, a bad
    timeout), :class:`Error`; ``FileNotFoundError`` /
    ``PermissionError`` when the program cannot be found / executed, as
    ``subprocess.run`` does. A denial or a non-zero exit is not an exception:
    it is in the result.
    """
    return cast(Result, _start_and_finish(lambda: _start_run(
        argv, mode=mode, workspace=workspace, timeout=timeout, stdin=stdin, cwd=cwd,
        environ=environ, max_output=max_output, provider=provider, ask_host=ask_host,
        **policy)))


def bash(command: str, *, mode: str = "read-only", workspace: Optional[PathArg] = None,
         timeout: Optional[float] = None, cwd: Optional[PathArg] = None,
         environ: Optional[Mapping[str, str]] = None,
         max_output: int = _ffi.DEFAULT_CAPTURE_LIMIT,
         provider: Optional[Provider] = None, ask_host: Optional[_ask.Decider] = None,
         **policy: Any) -> BashResult:
    """Runs ``bash -c COMMAND`` confined: the library's bash consumer (SPEC
    9), as ``confine bash`` does. The :class:`BashResult` carries
    ``rendering``, the text to hand an agent's model. ``timeout`` in seconds
    defaults to 120 (at most 600); stdin is ``/dev/null``. Other arguments
    and exceptions as :func:`run`; a runner failure raises
    :class:`SandboxUnavailable` (its ``message`` is also what the rendering
    would be)."""
    return cast(BashResult, _start_and_finish(lambda: _start_bash(
        command, mode=mode, workspace=workspace, timeout=timeout, cwd=cwd, environ=environ,
        max_output=max_output, provider=provider, ask_host=ask_host, **policy)))


def wrap(argv: Sequence[PathArg], *, mode: str = "read-only",
         workspace: Optional[PathArg] = None, cwd: Optional[PathArg] = None,
         environ: Optional[Mapping[str, str]] = None,
         provider: Optional[Provider] = None, **policy: Any) -> Wrap:
    """The argv to spawn instead of ``argv``, for a caller that spawns it
    itself (as ``confine wrap`` prints it); runs nothing and creates
    nothing. See :class:`Wrap` for how to spawn and classify it; its ``env``
    is ``environ`` (default: this process's) through the policy's env
    filter. Danger-full-access returns ``argv`` unchanged."""
    lib = _ffi.lib()
    items = _argv_list(argv)
    _ask.check(policy.pop("ask_host", None), "wrap")  # a wrap argv has no one to ask
    _envp(environ)  # checked before anything else is made
    pol = _Policy(mode, workspace, policy)
    try:
        workdir = os.fsdecode(_workdir(cwd, pol.root))
    except BaseException:
        pol.close()
        raise
    try:
        env = pol.env(environ)
        described = _policy.describe(pol.ptr)
        if not pol.confined:
            return Wrap(argv=tuple(os.fsdecode(a) for a in items), env=env, runner=None,
                        enforcement=None, dialect=(), rules=(), mode=mode,
                        workspace_root=pol.root, cwd=workdir, policy=described)
        prov = _provider(provider)
        argv_arr = _ffi.StrArray(items)
        confined = ctypes.POINTER(_ffi.ConfinedArgv)()
        err = _ffi.ConfineError()
        if lib.confine_confine(prov.handle, argv_arr.ptr(), pol.ptr, ctypes.byref(confined),
                               ctypes.byref(err)) < 0:
            _raise(err)
        try:
            c = confined.contents
            rules = []
            for i in range(c.n_rules):
                rule = c.rules[i]
                rules.append(Rule(
                    allowed_exit_codes=tuple(rule.allowed_exit_codes[j]
                                             for j in range(rule.n_allowed_exit_codes)),
                    fatal_signatures=tuple(_ffi.strv(rule.fatal_signatures)),
                    informational_lines=tuple(_ffi.strv(rule.informational_lines))))
            return Wrap(argv=tuple(_ffi.strv(c.argv)), env=env,
                        runner=_name(lib.confine_runner_name, c.runner),
                        enforcement=_name(lib.confine_enforcement_name, c.enforcement),
                        dialect=tuple(_ffi.strv(c.denial_signatures)), rules=tuple(rules),
                        mode=mode, workspace_root=pol.root, cwd=workdir,
                        unenforced=tuple(_ffi.strv(c.unenforced)), policy=described,
                        clauses=_clauses(c.clauses, c.n_clauses),
                        layers=tuple(_ffi.strv(c.layers)))
        finally:
            lib.confine_argv_free(confined)
    finally:
        pol.close()


def probe(provider: Optional[Provider] = None) -> Verdict:
    """The shared (or given) provider's backend selection: which runner,
    full or partial enforcement, or unusable."""
    return _provider(provider).probe()


def version() -> str:
    """The version of the libconfine loaded (equal to the package's)."""
    return str(_ffi.lib().confine_version().decode())
