# SPDX-License-Identifier: MIT
"""The exceptions of the confine package.

Every exception the package raises for a failure of confine itself is a
:class:`Error`; its ``code`` is one of :data:`ERROR_CODES`, the names the
CLI's JSON error object carries (doc/SPEC.md 16): ``USAGE`` (the call
itself is wrong: an empty argv, a bad timeout; the CLI's bad command line),
``INVALID_CONFIG``, ``INVALID_POLICY``, ``SANDBOX_UNAVAILABLE``,
``SPAWN_FAILED``, ``SYSTEM_ERROR``; and ``INVALID_ARGUMENT``, the library's
own name for a caller's bug the package did not catch first.
"""
from __future__ import annotations

from typing import Optional

RUNNER_FAILURE_SEPARATOR = " Runner failure: "

ERROR_CODES = ("USAGE", "INVALID_CONFIG", "INVALID_POLICY", "SANDBOX_UNAVAILABLE",
               "SPAWN_FAILED", "SYSTEM_ERROR", "INVALID_ARGUMENT", "DENIED", "FS_ERROR")


class Error(Exception):
    """confine itself failed; nothing ran (or, for a runner failure, the
    command never started)."""

    code: str
    message: str
    stage: Optional[str]
    errno: int
    #: the keyword argument at fault, when one is (``"workspace"``,
    #: ``"deny_read"``, ``"probe_timeout"``, ...), else ``None``
    option: Optional[str]

    def __init__(self, message: str, *, code: str = "SYSTEM_ERROR",
                 stage: Optional[str] = None, errno: int = 0, option: Optional[str] = None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.stage = stage
        self.errno = errno
        self.option = option


class SandboxUnavailableError(Error):
    """No sandbox can confine the requested mode here, or the runner failed
    before running the command.

    ``message`` is exactly the contract's SANDBOX_UNAVAILABLE text (what the
    CLI prints after ``confine: ``), and ``runner_failure`` the error's
    detail, the text after ``Runner failure: `` (the CLI's
    ``error.runnerFailure``: the runner's own line, each rung's joined by
    ``"; "`` when the ladder tried several, or ``requireFull: ...``), else
    ``None``. This is not an
    invitation to escalate: a harness shows it (to the model, to the user)
    and switches to ``danger-full-access`` only on a person's decision.
    """

    runner_failure: Optional[str]

    def __init__(self, message: str, *, runner_failure: Optional[str] = None,
                 stage: Optional[str] = None):
        super().__init__(message, code="SANDBOX_UNAVAILABLE", stage=stage)
        if runner_failure is None and RUNNER_FAILURE_SEPARATOR in message:
            runner_failure = message.split(RUNNER_FAILURE_SEPARATOR, 1)[1]
        self.runner_failure = runner_failure


class InvalidPolicyError(Error):
    """The policy is invalid (unknown mode, unusable workspace root) or asks
    for an option this libconfine does not support. ``option`` names the
    keyword argument when one is at fault."""

    def __init__(self, message: str, *, option: Optional[str] = None,
                 stage: Optional[str] = None):
        super().__init__(message, code="INVALID_POLICY", stage=stage, option=option)


class UsageError(Error, ValueError):
    """The call itself is wrong (an empty argv, a timeout out of range, a
    call argument of the wrong type) or a value cannot reach the library as
    given (a NUL byte, text that is not UTF-8): the CLI's ``USAGE``
    (doc/SPEC.md 16). ``option`` names the argument. Also a
    :class:`ValueError`."""

    def __init__(self, message: str, *, option: Optional[str] = None):
        super().__init__(message, code="USAGE", option=option)


class InvalidConfigError(Error):
    """The provider's configuration is invalid (SPEC 4's validations, or a
    provider option of the wrong type); ``option`` names it."""

    def __init__(self, message: str, *, stage: Optional[str] = None,
                 option: Optional[str] = None):
        super().__init__(message, code="INVALID_CONFIG", stage=stage, option=option)


class SpawnFailedError(Error, OSError):
    """The program could not be started, and it is not the sandbox's fault
    (doc/SPEC.md 16, ``SPAWN_FAILED``): not found (``exit_status`` 127, also
    a :class:`FileNotFoundError`) or not executable (126, also a
    :class:`PermissionError`), as the CLI's ``run`` and the Node package
    report it. ``filename`` is the program."""

    exit_status: int
    filename: str

    def __init__(self, message: str, *, errno: int, filename: str, exit_status: int):
        Error.__init__(self, message, code="SPAWN_FAILED", errno=errno)
        self.exit_status = exit_status
        self.filename = filename

    def __str__(self) -> str:
        return self.message


class ProgramNotFoundError(SpawnFailedError, FileNotFoundError):
    """:class:`SpawnFailedError` for a program that is not there (127)."""


class ProgramNotExecutableError(SpawnFailedError, PermissionError):
    """:class:`SpawnFailedError` for a program that cannot be run (126)."""


class DeniedError(Error, PermissionError):
    """A harness file operation the policy refuses (:mod:`confine.fs`): the
    message names the path and the clause (``denied by denyRead: ...``)."""

    def __init__(self, message: str, *, stage: Optional[str] = None):
        Error.__init__(self, message, code="DENIED", stage=stage)


class FsError(Error, OSError):
    """A harness file operation the filesystem refuses (no such file, not a
    directory, ...): ``errno`` is set."""

    def __init__(self, message: str, *, errno: int = 0, stage: Optional[str] = None):
        Error.__init__(self, message, code="FS_ERROR", stage=stage, errno=errno)


# The names before 0.3, kept for one release.
SandboxUnavailable = SandboxUnavailableError
InvalidPolicy = InvalidPolicyError
InvalidConfig = InvalidConfigError
