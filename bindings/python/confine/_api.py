# SPDX-License-Identifier: MIT
"""run, bash, wrap, probe and their asyncio variants, over libconfine."""
from __future__ import annotations

import asyncio
import ctypes
import errno as _errno
import math
import os
import shutil
import signal as _signal
import stat
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import (IO, Any, Callable, Dict, List, Mapping, NoReturn, Optional, Sequence,
                    Tuple, TypeVar, Union, cast)

from . import _ffi, _policy, _values
from ._errors import (RUNNER_FAILURE_SEPARATOR, Error, InvalidConfig, InvalidPolicy,
                      ProgramNotExecutableError, ProgramNotFoundError, SandboxUnavailable,
                      UsageError)
from ._values import CONFIG, POLICY, USAGE

PathArg = Union[str, bytes, "os.PathLike[str]"]
StdinArg = Union[None, bytes, str, int, IO[Any]]

MODES = ("read-only", "workspace-write", "danger-full-access")

# ---- results ----------------------------------------------------------------


@dataclass(frozen=True)
class Truncated:
    """Whether each captured stream was cut at the capture limit. True as a
    whole when either was."""

    stdout: bool = False
    stderr: bool = False

    def __bool__(self) -> bool:
        return self.stdout or self.stderr


@dataclass(frozen=True)
class GitHazard:
    """A git hook or an executable git setting that appeared or changed
    under a writable root during a workspace-write run (doc/SPEC.md 15): git
    run there later, by a person, would run it unconfined. ``kind`` is
    ``"hook"``, the setting's key as git spells it (``"core.hooksPath"``,
    ``"core.fsmonitor"``, ...), or ``"incomplete"`` (the scan stopped at its
    bound; ``path`` is then ``""``)."""

    path: str
    kind: str


@dataclass(frozen=True)
class Clause:
    """One clause of the resolved policy and how it held (doc/SPEC.md 15).

    ``clause`` is a policy key (``"mode"``, ``"writableRoots"``,
    ``"protectedPaths"``, ``"defaultProtections"``, ``"denyRead"``,
    ``"network"``, ``"allowUnixSockets"``, ``"env"``, ``"privateTemp"``) or a
    mechanism (``"unix-sockets"``, ``"metadata"``, ``"setid"``,
    ``"devices"``, ``"signals"``, ``"abstract-unix-sockets"``); ``subject``
    the path, pattern or value it is about (``None`` for a whole mechanism);
    ``status`` ``"enforced"``, ``"partial"`` or ``"unenforced"``; ``layers``
    what holds it (``"bwrap"``, ``"landlock"``, ``"seccomp"``,
    ``"supervisor"``, ``"seatbelt"``, ``"confine"``, ``"runnerCommand"``);
    ``reason`` why it does not hold (or, enforced, what to know); ``needs``
    what on the host would enforce it."""

    clause: str
    subject: Optional[str]
    status: str
    layers: Tuple[str, ...]
    reason: Optional[str] = None
    needs: Optional[str] = None

    @property
    def enforced(self) -> bool:
        return self.status == "enforced"


@dataclass(frozen=True)
class Denial:
    """One refusal the sandbox made during a run, with its object
    (doc/SPEC.md 8, 9), so an approval can name what to grant.

    ``op`` is what was refused (``"write"``, ``"read"``, ``"chmod"``,
    ``"chown"``, ``"utimes"``, ``"setxattr"``, ``"removexattr"``,
    ``"setflags"``, ``"connect"``, ``"send"``, ``"resolve"``); exactly one of
    ``path`` (absolute) and ``address`` (``"host:port"``, or a host) is set;
    ``clause`` is the policy clause that covers it (``"mode"``: a write
    outside the writable roots; ``"denyRead"``, ``"protectedPaths"``,
    ``"defaultProtections"``, ``"metadata"``, ``"setid"``,
    ``"unix-sockets"``, ``"network"``)."""

    op: str
    path: Optional[str]
    address: Optional[str]
    clause: str


@dataclass(frozen=True)
class Result:
    """How a run ended, classified with that run's own facts.

    ``exit_code`` is ``None`` when a signal ended the command (``signal`` is
    then its name, ``"SIGTERM"``). ``stdout``/``stderr`` are the captured
    bytes decoded as UTF-8 (undecodable bytes replaced); the raw bytes are in
    ``stdout_bytes``/``stderr_bytes``. ``denied``: a refused file access
    (the rendering's file marker): the runner's denial dialect where it
    reads as one, or a file denial in ``denials``. ``runner`` and
    ``enforcement`` are ``None`` for danger-full-access. ``unenforced`` lists
    what of the policy the runner did not enforce (config key names,
    ``"protectedPaths"``, ``"denyRead"``, ``"privateTemp"``, ...; doc/SPEC.md
    15), and ``git_hazards`` the git hooks and settings a workspace-write run
    left behind (:class:`GitHazard`): warn before running git there.
    ``clauses`` is the report per clause (:class:`Clause`) as this run held
    it: ``enforcement`` is ``"full"`` only when every clause is enforced.
    ``denials`` lists the refusals this run met, each with its object
    (:class:`Denial`, at most 32); ``network_denied`` is a refused network
    access with the policy's network off (the rendering's network marker).
    """

    exit_code: Optional[int]
    signal: Optional[str]
    stdout: str
    stderr: str
    truncated: Truncated
    denied: bool
    timed_out: bool
    runner: Optional[str]
    enforcement: Optional[str]
    unenforced: Tuple[str, ...]
    mode: str
    signal_number: Optional[int] = None
    stdout_bytes: bytes = field(default=b"", repr=False)
    stderr_bytes: bytes = field(default=b"", repr=False)
    git_hazards: Tuple[GitHazard, ...] = ()
    clauses: Tuple[Clause, ...] = ()
    rendering: str = ""
    denials: Tuple[Denial, ...] = ()
    network_denied: bool = False

    @property
    def returncode(self) -> int:
        """subprocess's convention: the exit code, or -N for signal N."""
        if self.exit_code is not None:
            return self.exit_code
        return -(self.signal_number or 0)


@dataclass(frozen=True)
class BashResult(Result):
    """A :func:`bash` result: a :class:`Result` plus ``rendering``, the text
    an agent's model is shown (stdout, ``[stderr]``, the markers), and the
    timeout that applied, in milliseconds."""

    timeout_ms: int = 0


@dataclass(frozen=True)
class Rule:
    """A runner-failure rule of the wrap's runner (SPEC 8)."""

    allowed_exit_codes: Tuple[int, ...]
    fatal_signatures: Tuple[str, ...]
    informational_lines: Tuple[str, ...]


@dataclass(frozen=True)
class Wrap:
    """The argv to spawn instead of the caller's, for callers who spawn
    themselves.

    Spawn ``argv`` with exactly ``env`` as its environment (the caller's
    environment through the policy's env filter: secrets dropped, ``set``
    applied; the launcher reads no environment, so the filter is the
    spawner's), ``cwd`` as its working directory, in a new session
    (``start_new_session=True``) and with no descriptor above 2
    (``close_fds=True``). ``unenforced`` lists what of the policy this
    runner does not enforce (``"privateTemp"`` on Landlock: a wrap creates
    no temp directory), and ``policy`` echoes the whole
    canonical policy as the CLI's wrap JSON does. ``layers`` says what the
    launcher in ``argv`` will apply (``"landlock"``, ``"seccomp"``,
    ``"supervisor"``: doc/SPEC.md 10), as predicted when the wrap was made;
    empty for a runner without it; ``clauses`` is the report per clause.
    ``dialect`` is the runner's
    denial signatures and ``rules`` its runner-failure rules: classify the
    finished run with :meth:`denied` and :meth:`runner_failure`.
    ``runner``/``enforcement`` are ``None`` for danger-full-access, whose
    argv is the caller's own.
    """

    argv: Tuple[str, ...]
    env: Dict[str, str] = field(repr=False)
    runner: Optional[str]
    enforcement: Optional[str]
    dialect: Tuple[str, ...]
    rules: Tuple[Rule, ...]
    mode: str
    workspace_root: str
    cwd: str
    unenforced: Tuple[str, ...] = ()
    policy: Dict[str, Any] = field(default_factory=dict, repr=False)
    clauses: Tuple[Clause, ...] = ()
    layers: Tuple[str, ...] = ()

    def denied(self, returncode: int, stderr: Union[str, bytes]) -> bool:
        """Whether a finished run of ``argv`` was a denial in this runner's
        dialect (subprocess's returncode: negative for a signal)."""
        data = _finished_stderr(returncode, stderr)
        if not self.dialect:
            return False
        sigs = _ffi.StrArray(self.dialect)
        return bool(_ffi.lib().confine_classify_denial(
            returncode if returncode >= 0 else 0, returncode < 0, data, len(data), sigs.ptr()))

    def runner_failure(self, returncode: int, stderr: Union[str, bytes]) -> Optional[str]:
        """The runner's failure line when a finished run of ``argv`` failed
        in the runner before the command ran (SPEC 8's stderr rules), else
        ``None``. Then raise or report :class:`SandboxUnavailable`."""
        data = _finished_stderr(returncode, stderr)
        if not self.rules:
            return None
        keep: List[Any] = []
        rules = (_ffi.Rule * len(self.rules))()
        for i, rule in enumerate(self.rules):
            codes = (ctypes.c_int * max(1, len(rule.allowed_exit_codes)))(
                *rule.allowed_exit_codes)
            fatal = _ffi.StrArray(rule.fatal_signatures)
            info = _ffi.StrArray(rule.informational_lines)
            keep += [codes, fatal, info]
            rules[i].allowed_exit_codes = ctypes.cast(codes, ctypes.POINTER(ctypes.c_int))
            rules[i].n_allowed_exit_codes = len(rule.allowed_exit_codes)
            rules[i].fatal_signatures = fatal.ptr()
            rules[i].informational_lines = info.ptr()
        detail = ctypes.c_void_p()
        r = _ffi.lib().confine_classify_runner_failure(
            returncode if returncode >= 0 else 0, returncode < 0, data, len(data),
            rules, len(self.rules), ctypes.byref(detail))
        if r < 0:
            raise MemoryError()
        if r == 0:
            return None
        assert detail.value is not None
        line = ctypes.string_at(detail.value).decode("utf-8", "replace")
        _ffi.free(detail.value)
        return line


def _finished_stderr(returncode: Any, stderr: Any) -> bytes:
    """A finished run's stderr as bytes (NUL bytes are data here: the
    library takes a length), its returncode checked."""
    if isinstance(returncode, bool) or not isinstance(returncode, int):
        raise UsageError("returncode must be an int, not %s" % type(returncode).__name__,
                         option="returncode")
    if isinstance(stderr, str):
        try:
            return stderr.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a lone surrogate: no byte it stood for
            return stderr.encode("utf-8", "replace")
    if isinstance(stderr, (bytes, bytearray, memoryview)):
        return bytes(stderr)
    raise UsageError("stderr must be str or bytes, not %s" % type(stderr).__name__,
                     option="stderr")


@dataclass(frozen=True)
class Verdict:
    """The backend a provider selected: ``usable``, the ``runner`` and its
    ``enforcement`` (``None`` when unusable), the kernel's Landlock ABI
    (``None`` when unknown), the runner's path, and, when a runner exists but
    is broken, its failure line."""

    usable: bool
    runner: Optional[str]
    enforcement: Optional[str]
    landlock_abi: Optional[int]
    runner_path: Optional[str]
    runner_failure: Optional[str]


# ---- errors from the library ------------------------------------------------


def _raise(err: _ffi.ConfineError, *, option: Optional[str] = None) -> NoReturn:
    message = _ffi.text(err.message)
    stage = err.stage.decode() if err.stage else None
    if err.code == _ffi.E_SANDBOX_UNAVAILABLE:
        # runner_failure: the error's detail, after " Runner failure: "
        raise SandboxUnavailable(message, stage=stage)
    if err.code == _ffi.E_INVALID_POLICY:
        raise InvalidPolicy(message, option=option, stage=stage)
    if err.code == _ffi.E_INVALID_CONFIG:
        raise InvalidConfig(message, stage=stage, option=option)
    name = _ffi.lib().confine_error_code_name(err.code).decode()
    raise Error(message, code=name, stage=stage, errno=err.sys_errno)


def _name(fn: Callable[[int], Optional[bytes]], value: int) -> Optional[str]:
    raw = fn(value)
    return raw.decode() if raw else None


# ---- the provider -----------------------------------------------------------


# The config keys of SPEC 4 and the Provider keywords they are.
_PROVIDER_KEYS = {"runnerCommand": "runner_command",
                  "runnerFailureSignatures": "runner_failure_signatures",
                  "probeTimeoutMs": "probe_timeout", "landlockLauncher": "landlock_launcher"}


class Provider:
    """A local provider: the runner ladder with its probe cached for the
    provider's life. Thread-safe; one is shared by all calls that do not pass
    their own (see :func:`configure`).

    ``runner`` pins the ladder to one rung (``"bwrap"``, ``"landlock"``,
    ``"seatbelt"``: used unprobed, failing closed at run time if it cannot
    run). ``landlock_launcher`` is landlock-run's path. ``runner_command`` and
    ``runner_failure_signatures`` configure an operator's bwrap-shaped
    runner; ``probe_timeout`` bounds each probe, in seconds (a whole number of
    milliseconds: 0.25 is fine, 0.0005 is not). Invalid values
    raise :class:`InvalidConfig` with the library's exact message.
    """

    def __init__(self, *, runner: Optional[str] = None,
                 landlock_launcher: Optional[PathArg] = None,
                 runner_command: Optional[Sequence[str]] = None,
                 runner_failure_signatures: Optional[Sequence[str]] = None,
                 probe_timeout: Optional[float] = None,
                 path: Optional[str] = None):
        self._handle: Optional[int] = None
        lib = _ffi.lib()
        config = _ffi.LocalConfig()
        lib.confine_local_config_init(ctypes.byref(config))
        # Every value checked before any reaches C (_values.py): the
        # provider's options are the config file's keys, so a wrong type is
        # INVALID_CONFIG as there; a NUL or text not UTF-8 is USAGE.
        self._keep: List[Any] = []
        err = _ffi.ConfineError()
        if runner is not None:
            word = _values.text(runner, "runner", CONFIG)
            pin = ctypes.c_int()
            if lib.confine_runner_parse(word, ctypes.byref(pin), ctypes.byref(err)) < 0:
                raise InvalidConfig(_ffi.text(err.message), stage="runner", option="runner")
            config.pin = pin.value
        if landlock_launcher is not None:
            launcher = _values.path(landlock_launcher, "landlock_launcher", CONFIG)
            self._keep.append(launcher)
            config.landlock_launcher = launcher
        if runner_command is not None:
            words = _values.paths(runner_command, "runner_command", CONFIG, "argv words")
            arr = _ffi.StrArray(words)
            self._keep.append(arr)
            config.runner_command = arr.ptr()
        if runner_failure_signatures is not None:
            signatures = _values.texts(runner_failure_signatures, "runner_failure_signatures",
                                       CONFIG, "signatures")
            arr = _ffi.StrArray(signatures)
            self._keep.append(arr)
            config.runner_failure_signatures = arr.ptr()
        if probe_timeout is not None:
            # Seconds to the whole milliseconds the library wants (0.1 s is
            # 100.00000000000001 ms in binary); a real fraction of a
            # millisecond is passed on, and refused with SPEC 4's message.
            ms = _values.number(probe_timeout, "probe_timeout", CONFIG) * 1000.0
            whole = float(round(ms)) if math.isfinite(ms) else ms
            config.probe_timeout_ms = whole if abs(ms - whole) <= 1e-6 * max(1.0, abs(ms)) else ms
        if path is not None:
            search = _values.path(path, "path", CONFIG)
            self._keep.append(search)
            config.path = search
        handle = ctypes.c_void_p()
        if lib.confine_local_provider_new(ctypes.byref(config), ctypes.byref(handle),
                                          ctypes.byref(err)) < 0:
            # SPEC 4's messages name the config key: the keyword is named
            message = _ffi.text(err.message)
            keys = [k for k in _PROVIDER_KEYS if k in message]
            _raise(err, option=_PROVIDER_KEYS[min(keys, key=message.index)] if keys else None)
        self._handle = handle.value
        self._lib = lib

    @property
    def handle(self) -> int:
        if not self._handle:
            raise Error("the provider is closed", code="INVALID_ARGUMENT")
        return self._handle

    def probe(self) -> Verdict:
        """The backend selection (probing on first use, then cached)."""
        verdict = _ffi.Verdict()
        err = _ffi.ConfineError()
        if self._lib.confine_provider_verdict(self.handle, ctypes.byref(verdict),
                                              ctypes.byref(err)) < 0:
            _raise(err)
        lib = self._lib
        return Verdict(
            usable=bool(verdict.usable),
            runner=_name(lib.confine_runner_name, verdict.runner) if verdict.usable else None,
            enforcement=(_name(lib.confine_enforcement_name, verdict.enforcement)
                         if verdict.usable else None),
            landlock_abi=verdict.landlock_abi if verdict.landlock_abi >= 0 else None,
            runner_path=os.fsdecode(verdict.runner_path) or None,
            runner_failure=_ffi.text(verdict.runner_failure) or None,
        )

    def close(self) -> None:
        """Releases the provider. Only once no call is using it; otherwise
        drop the reference and let the garbage collector do it."""
        handle, self._handle = self._handle, None
        if handle:
            self._lib.confine_provider_free(handle)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


_default_lock = threading.Lock()
_default: Optional[Provider] = None


def default_provider() -> Provider:
    """The shared provider, made on first use (under a lock) with the
    library's defaults."""
    global _default
    provider = _default
    if provider is not None:
        return provider
    with _default_lock:
        if _default is None:
            _default = Provider()
        return _default


def _provider(provider: Any) -> Provider:
    """The call's provider: the shared one for None, else a Provider."""
    if provider is None:
        return default_provider()
    if not isinstance(provider, Provider):
        raise UsageError("provider must be a confine.Provider, not %s"
                         % type(provider).__name__, option="provider")
    return provider


def configure(**provider_options: Any) -> Provider:
    """Replaces the shared provider with ``Provider(**provider_options)``
    (e.g. ``configure(runner="landlock")``) and returns it. Calls already
    running keep the provider they started with."""
    global _default
    provider = Provider(**provider_options)
    with _default_lock:
        _default = provider
    return provider


# ---- building one call ------------------------------------------------------


def _library_name() -> str:
    return "libconfine %s (%s)" % (_ffi.lib().confine_version().decode(), _ffi.library_path())


class _Policy:
    """A resolved C policy, freed with this object."""

    ptr: Any = None

    def __init__(self, mode: str, workspace: Optional[PathArg], options: Mapping[str, Any]):
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
        _values.fail(USAGE, "environ", "environ must be a mapping of names to values, not %s"
                     % type(environ).__name__)
    entries = []
    for name, value in environ.items():
        raw_name = _values.path(name, "environ", USAGE)
        if not raw_name or b"=" in raw_name:
            _values.fail(USAGE, "environ", "environ name %s is empty or holds '='"
                         % _values.show(name))
        entries.append(raw_name + b"=" + _values.path(value, "environ", USAGE))
    return _ffi.StrArray(entries)


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


def _check_program(program: str, workdir: str, environ: Optional[Mapping[str, str]]) -> None:
    """Resolves the program as the sandbox's execvp will, before anything is
    confined: a missing program is FileNotFoundError (as with subprocess),
    not a runner failure. (bwrap's own "execvp: No such file" would read as
    one.)"""
    if "/" in program:
        full = program if os.path.isabs(program) else os.path.join(workdir, program)
        try:
            st = os.stat(full)
        except OSError:
            raise _not_found(program) from None
        if stat.S_ISDIR(st.st_mode) or not os.access(full, os.X_OK):
            raise _not_executable(program)
        return
    env = os.environ if environ is None else environ
    path = env.get("PATH", os.defpath)
    if shutil.which(program, path=path) is None:
        raise _not_found(program)


def _not_found(program: str, hint: str = "") -> ProgramNotFoundError:
    """SPAWN_FAILED, exit 127 (doc/SPEC.md 16): a FileNotFoundError too."""
    return ProgramNotFoundError("%s: command not found%s" % (program, hint),
                                errno=_errno.ENOENT, filename=program, exit_status=127)


def _not_executable(program: str) -> ProgramNotExecutableError:
    """SPAWN_FAILED, exit 126: a PermissionError too."""
    return ProgramNotExecutableError("%s: Permission denied" % program, errno=_errno.EACCES,
                                     filename=program, exit_status=126)


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def _program_failure(program: str, workdir: str, root: str,
                     environ: Optional[Mapping[str, str]], error: int) -> Error:
    """The program exists here but not in the sandbox, or cannot be run
    there (the runner's status channel said ENOENT or EACCES after its
    start): the command's failure, as subprocess reports it, not a runner
    failure. bwrap gives workspace-write a private, empty /tmp, so a program
    on the host's /tmp (outside the workspace) is not there: said plainly,
    as `confine run` does."""
    if error != _errno.ENOENT:
        return _not_executable(program)
    if "/" in program:
        full: Optional[str] = program if os.path.isabs(program) else os.path.join(workdir,
                                                                                  program)
    else:
        env = os.environ if environ is None else environ
        full = shutil.which(program, path=env.get("PATH", os.defpath))
    hint = ""
    if full is not None:
        real = os.path.realpath(full)
        if _inside(real, "/tmp") and not _inside(real, root):
            hint = " (in the sandbox, /tmp is private and empty)"
    return _not_found(program, hint)


def _outcome_fields(o: _ffi.Outcome, mode: str) -> Dict[str, Any]:
    lib = _ffi.lib()
    out = ctypes.string_at(o.stdout_data, o.stdout_len) if o.stdout_data else b""
    err = ctypes.string_at(o.stderr_data, o.stderr_len) if o.stderr_data else b""
    buf = ctypes.create_string_buffer(32)
    signame = lib.confine_signal_name(o.signal, buf, 32).decode() if o.signaled else None
    return dict(
        exit_code=None if o.signaled else o.exit_code,
        signal=signame,
        signal_number=o.signal if o.signaled else None,
        stdout=out.decode("utf-8", "replace"),
        stderr=err.decode("utf-8", "replace"),
        stdout_bytes=out,
        stderr_bytes=err,
        truncated=Truncated(bool(o.stdout_truncated), bool(o.stderr_truncated)),
        denied=bool(o.denied),
        timed_out=bool(o.timed_out),
        runner=_name(lib.confine_runner_name, o.runner) if o.confined else None,
        enforcement=_name(lib.confine_enforcement_name, o.enforcement) if o.confined else None,
        unenforced=tuple(_ffi.strv(o.unenforced)),
        clauses=_clauses(o.clauses, o.n_clauses),
        git_hazards=tuple(GitHazard(path=os.fsdecode(o.git_hazards[i].path or b""),
                                    kind=_ffi.text(o.git_hazards[i].kind))
                          for i in range(o.n_git_hazards)),
        denials=tuple(Denial(op=_ffi.text(o.denials[i].op),
                             path=os.fsdecode(o.denials[i].path) if o.denials[i].path else None,
                             address=(_ffi.text(o.denials[i].address)
                                      if o.denials[i].address else None),
                             clause=_ffi.text(o.denials[i].clause))
                      for i in range(o.n_denials)),
        network_denied=bool(o.network_denied),
        mode=mode,
    )


def _clauses(items: Any, n: int) -> Tuple[Clause, ...]:
    """The C report per clause as :class:`Clause` values."""
    lib = _ffi.lib()
    out = []
    for i in range(n):
        c = items[i]
        layers = tuple(_ffi.text(lib.confine_layer_name(b)) for b in range(32)
                       if c.layers & (1 << b) and lib.confine_layer_name(b))
        out.append(Clause(clause=_ffi.text(c.clause),
                          subject=os.fsdecode(c.subject) if c.subject else None,
                          status=_ffi.text(lib.confine_clause_status_name(c.status)),
                          layers=layers,
                          reason=_ffi.text(c.reason) if c.reason else None,
                          needs=_ffi.text(c.needs) if c.needs else None))
    return tuple(out)


class _Running:
    """A started run: the process handle and everything that must outlive
    it until it settles. ``_wait`` blocks; ``kill`` may be called from any
    thread while another waits."""

    def __init__(self, process: int, keep: List[Any],
                 settle: Callable[[int], Any]):
        self._process: Optional[int] = process
        self._keep = keep
        self._settle = settle
        self._lock = threading.Lock()
        self._lib = _ffi.lib()

    def kill(self, sig: int = _signal.SIGKILL) -> None:
        with self._lock:
            if self._process:
                self._lib.confine_process_signal(self._process, sig)

    def _wait(self) -> Any:
        assert self._process is not None
        try:
            return self._settle(self._process)
        finally:
            with self._lock:
                process, self._process = self._process, None
            self._lib.confine_process_free(process)
            self._keep.clear()


def _start_and_finish(start: Callable[[], _Running]) -> Any:
    """Starts a run with ``start`` and waits for it to settle. In the main
    thread both happen in a helper thread, so that Ctrl-C
    (KeyboardInterrupt, raised only in the main thread) always lands here,
    never between the spawn and the handle that can end the run: it kills
    the run, already started or still starting, lets it settle, then
    propagates."""
    if threading.current_thread() is not threading.main_thread():
        return start()._wait()
    box: Dict[str, Any] = {}
    lock = threading.Lock()

    def helper() -> None:
        try:
            running = start()
        except BaseException as e:  # re-raised in the caller
            box["error"] = e
            return
        with lock:
            box["running"] = running
            interrupted = "interrupted" in box
        if interrupted:
            running.kill()
        try:
            box["result"] = running._wait()
        except BaseException as e:  # re-raised in the caller
            box["error"] = e

    t = threading.Thread(target=helper, name="confine-wait", daemon=True)
    t.start()
    try:
        while t.is_alive():
            t.join(0.5)
    except BaseException:
        with lock:
            box["interrupted"] = True
            running = box.get("running")
        if running is not None:
            running.kill()
        t.join()
        raise
    if "error" in box:
        raise box["error"]
    return box["result"]


def _stdin_stdio(stdin: StdinArg, keep: List[Any]) -> Tuple[int, int]:
    if stdin is None:
        return _ffi.STDIO_NULL, -1
    if isinstance(stdin, (bytes, bytearray, memoryview, str)):
        if isinstance(stdin, str):
            try:
                data = stdin.encode("utf-8")
            except UnicodeEncodeError:
                raise UsageError("stdin is not valid UTF-8 text (pass bytes)",
                                 option="stdin") from None
        else:
            data = bytes(stdin)
        f = tempfile.TemporaryFile()
        f.write(data)
        f.flush()
        f.seek(0)
        keep.append(f)
        return _ffi.STDIO_FD, f.fileno()
    if isinstance(stdin, int):
        return _ffi.STDIO_FD, stdin
    if hasattr(stdin, "fileno"):
        return _ffi.STDIO_FD, stdin.fileno()
    raise UsageError("stdin must be None, bytes, str, a descriptor or a file, not %s"
                     % type(stdin).__name__, option="stdin")


def _argv_list(argv: Sequence[PathArg]) -> List[bytes]:
    """The argv words, each checked (no NUL), argv[0] not empty."""
    if isinstance(argv, (str, bytes, os.PathLike)):
        raise UsageError("argv must be a list of arguments, not a string "
                         "(use confine.bash() for a shell command)", option="argv")
    items = _values.paths(argv, "argv", USAGE, "arguments")
    if not items or not items[0]:
        raise UsageError("argv must not be empty", option="argv")
    return items


def _start_run(argv: Sequence[PathArg], *, mode: str = "read-only",
               workspace: Optional[PathArg] = None, timeout: Optional[float] = None,
               stdin: StdinArg = None, cwd: Optional[PathArg] = None,
               environ: Optional[Mapping[str, str]] = None,
               max_output: int = _ffi.DEFAULT_CAPTURE_LIMIT,
               provider: Optional[Provider] = None, **policy: Any) -> _Running:
    lib = _ffi.lib()
    items = _argv_list(argv)
    timeout_ms = _timeout_ms(timeout, 0)
    capture_limit = _capture_limit(max_output)
    envp = _envp(environ)
    if provider is not None:
        _provider(provider)
    pol = _Policy(mode, workspace, policy)
    keep: List[Any] = [pol]
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
            # What a model would be shown of this run too (doc/SPEC.md 9).
            shown = _ffi.BashResult()
            shown.outcome = outcome
            shown.timeout_ms = timeout_ms
            raw = lib.confine_bash_render(ctypes.byref(shown))
            if not raw:
                raise MemoryError()
            rendering = ctypes.string_at(raw).decode("utf-8", "replace")
            _ffi.free(raw)
            return Result(rendering=rendering, **_outcome_fields(o, mode))
        finally:
            lib.confine_outcome_free(outcome)

    assert process.value is not None
    return _Running(process.value, keep, settle)


def _start_bash(command: str, *, mode: str = "read-only",
                workspace: Optional[PathArg] = None, timeout: Optional[float] = None,
                cwd: Optional[PathArg] = None, environ: Optional[Mapping[str, str]] = None,
                max_output: int = _ffi.DEFAULT_CAPTURE_LIMIT,
                provider: Optional[Provider] = None, **policy: Any) -> _Running:
    lib = _ffi.lib()
    if not isinstance(command, (str, bytes)):
        raise UsageError("command must be a string, not %s" % type(command).__name__,
                         option="command")
    command_bytes = _values.path(command, "command", USAGE, allow_empty=False)
    timeout_ms = _timeout_ms(timeout, _ffi.DEFAULT_TIMEOUT_MS)
    capture_limit = _capture_limit(max_output)
    envp = _envp(environ)
    prov = _provider(provider)
    pol = _Policy(mode, workspace, policy)
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
        provider: Optional[Provider] = None, **policy: Any) -> Result:
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
    ``*CREDENTIAL*`` are dropped). ``require_full=True`` raises
    :class:`SandboxUnavailable` rather than run with part of the policy
    unenforced; otherwise what was not enforced is in the result's
    ``unenforced``.

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
        environ=environ, max_output=max_output, provider=provider, **policy)))


def bash(command: str, *, mode: str = "read-only", workspace: Optional[PathArg] = None,
         timeout: Optional[float] = None, cwd: Optional[PathArg] = None,
         environ: Optional[Mapping[str, str]] = None,
         max_output: int = _ffi.DEFAULT_CAPTURE_LIMIT,
         provider: Optional[Provider] = None, **policy: Any) -> BashResult:
    """Runs ``bash -c COMMAND`` confined: the library's bash consumer (SPEC
    9), as ``confine bash`` does. The :class:`BashResult` carries
    ``rendering``, the text to hand an agent's model. ``timeout`` in seconds
    defaults to 120 (at most 600); stdin is ``/dev/null``. Other arguments
    and exceptions as :func:`run`; a runner failure raises
    :class:`SandboxUnavailable` (its ``message`` is also what the rendering
    would be)."""
    return cast(BashResult, _start_and_finish(lambda: _start_bash(
        command, mode=mode, workspace=workspace, timeout=timeout, cwd=cwd, environ=environ,
        max_output=max_output, provider=provider, **policy)))


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


# ---- asyncio ------------------------------------------------------------------

_executor_lock = threading.Lock()
_executor: Optional[ThreadPoolExecutor] = None
T = TypeVar("T")


def _pool() -> ThreadPoolExecutor:
    """The threads that wait for async runs: a wait holds a thread for the
    command's duration, so the pool is wider than asyncio's default."""
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=64, thread_name_prefix="confine")
        return _executor


async def _end_once_started(loop: asyncio.AbstractEventLoop, pool: ThreadPoolExecutor,
                            starting: "asyncio.Future[_Running]") -> None:
    """After a cancellation during the start: waits for the start to finish
    in its thread, then ends what it started and lets it settle (nothing
    when the start failed)."""
    try:
        running = await starting
    except BaseException:
        return
    running.kill()
    try:
        await loop.run_in_executor(pool, running._wait)
    except BaseException:
        pass


async def _settle_async(start: Callable[[], _Running]) -> Any:
    loop = asyncio.get_running_loop()
    pool = _pool()
    starting = loop.run_in_executor(pool, start)
    try:
        running = await asyncio.shield(starting)
    except asyncio.CancelledError:
        # Cancelled while the run starts: the start goes on in its thread,
        # and what it starts must not outlive the task. The cleanup is a
        # task of its own, so a second cancellation cannot cut it short.
        cleanup = asyncio.ensure_future(_end_once_started(loop, pool, starting))
        try:
            await asyncio.shield(cleanup)
        except asyncio.CancelledError:
            pass
        raise
    future = loop.run_in_executor(pool, running._wait)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        # Cancelled: end the run's process tree, let the wait settle, go on
        # being cancelled.
        running.kill()
        try:
            await future
        except BaseException:
            pass
        raise


async def arun(argv: Sequence[PathArg], *, mode: str = "read-only",
               workspace: Optional[PathArg] = None, timeout: Optional[float] = None,
               stdin: StdinArg = None, cwd: Optional[PathArg] = None,
               environ: Optional[Mapping[str, str]] = None,
               max_output: int = _ffi.DEFAULT_CAPTURE_LIMIT,
               provider: Optional[Provider] = None, **policy: Any) -> Result:
    """:func:`run` for asyncio, with its signature: the start and the wait
    happen on worker threads, so the event loop is never blocked. Cancelling
    the task kills the run's process tree."""
    return cast(Result, await _settle_async(lambda: _start_run(
        argv, mode=mode, workspace=workspace, timeout=timeout, stdin=stdin, cwd=cwd,
        environ=environ, max_output=max_output, provider=provider, **policy)))


async def abash(command: str, *, mode: str = "read-only", workspace: Optional[PathArg] = None,
                timeout: Optional[float] = None, cwd: Optional[PathArg] = None,
                environ: Optional[Mapping[str, str]] = None,
                max_output: int = _ffi.DEFAULT_CAPTURE_LIMIT,
                provider: Optional[Provider] = None, **policy: Any) -> BashResult:
    """:func:`bash` for asyncio, with its signature (see :func:`arun`)."""
    return cast(BashResult, await _settle_async(lambda: _start_bash(
        command, mode=mode, workspace=workspace, timeout=timeout, cwd=cwd, environ=environ,
        max_output=max_output, provider=provider, **policy)))


def version() -> str:
    """The version of the libconfine loaded (equal to the package's)."""
    return str(_ffi.lib().confine_version().decode())
