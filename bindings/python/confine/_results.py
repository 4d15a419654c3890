# SPDX-License-Identifier: MIT
"""What the calls return: a run's result, a wrap, a verdict."""
from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple, Union

from . import _ffi
from ._errors import UsageError

if TYPE_CHECKING:
    from .stage import Stage

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
    ``"unix-sockets"``, ``"network"``). ``reason`` is the run's decider's
    own for a host it refused (doc/SPEC.md 15, "Ask"), else ``None``."""

    op: str
    path: Optional[str]
    address: Optional[str]
    clause: str
    reason: Optional[str] = None


@dataclass(frozen=True)
class NetworkDecision:
    """What the network allowlist's proxy decided for one host and port
    (doc/SPEC.md 15, "Ask"; the JSON's ``sandbox.network.decisions``):
    ``allow``, and ``by`` one of ``"allowlist"``, ``"denylist"``,
    ``"decider"``, ``"off"``, ``"allowLocal"`` (an allowed name whose
    address the local-address check refused: the decision is that deny)."""

    host: str
    port: int
    allow: bool
    by: str


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
    (:class:`Denial`, a bounded list: ``denials_dropped`` says how many
    more there were); ``network_denied`` is a refused network access with
    the policy's network off (the rendering's network marker).
    ``network_decisions`` is every decision of the allowlist's proxy, once
    per host and port (:class:`NetworkDecision`), the first 256;
    ``network_decisions_dropped`` counts those past them.
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
    # A staged run's stage (doc/SPEC.md 21): confine.Stage, else None.
    stage: Optional["Stage"] = None
    # The limit that stopped the run ({"name", "value", "killed"}) or None,
    # and what the run used (None: the mechanism cannot tell).
    limit: Optional[Dict[str, Any]] = None
    peak_memory: Optional[int] = None
    peak_processes: Optional[int] = None
    cpu_seconds: Optional[float] = None
    network_decisions: Tuple[NetworkDecision, ...] = ()
    denials_dropped: int = 0
    network_decisions_dropped: int = 0

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
