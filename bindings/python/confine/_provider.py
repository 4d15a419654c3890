# SPDX-License-Identifier: MIT
"""The local provider (the runner ladder, probed once) and the library's
errors as the package's exceptions."""
from __future__ import annotations

import ctypes
import math
import os
import threading
import warnings
from typing import Any, Callable, List, NoReturn, Optional, Sequence, Union

from . import _ffi, _values
from ._errors import Error, InvalidConfig, InvalidPolicy, SandboxUnavailable, UsageError
from ._results import Verdict
from ._values import CONFIG

PathArg = Union[str, bytes, "os.PathLike[str]"]

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
                  "probeTimeoutMs": "probe_timeout_ms", "landlockLauncher": "landlock_launcher"}


class Provider:
    """A local provider: the runner ladder with its probe cached for the
    provider's life. Thread-safe; one is shared by all calls that do not pass
    their own (see :func:`configure`).

    ``runner`` pins the ladder to one rung (``"bwrap"``, ``"landlock"``,
    ``"seatbelt"``, ``"gvisor"``: used unprobed, failing closed at run time
    if it cannot run; ``"gvisor"`` is never chosen unless named). ``landlock_launcher`` is landlock-run's path. ``runner_command`` and
    ``runner_failure_signatures`` configure an operator's bwrap-shaped
    runner; ``probe_timeout_ms`` bounds each probe, in milliseconds (the
    table's unit, config ``probeTimeoutMs``: a positive whole number).
    ``probe_timeout``, the same bound in seconds (a whole number of
    milliseconds: 0.25 is fine, 0.0005 is not), is deprecated
    (DeprecationWarning; giving both is refused). Invalid values
    raise :class:`InvalidConfig` with the library's exact message, a value
    of the wrong type (``probe_timeout_ms="5"``, ``runner_command="bwrap"``,
    which must be a list, ``runner=5``) :class:`InvalidConfig` naming the
    keyword, a NUL byte or text that is not UTF-8 :class:`UsageError`
    (doc/SPEC.md 16); ``option`` is the keyword.
    """

    def __init__(self, *, runner: Optional[str] = None,
                 landlock_launcher: Optional[PathArg] = None,
                 runner_command: Optional[Sequence[str]] = None,
                 runner_failure_signatures: Optional[Sequence[str]] = None,
                 probe_timeout_ms: Optional[int] = None,
                 path: Optional[str] = None, probe_timeout: Optional[float] = None):
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
        if probe_timeout_ms is not None and probe_timeout is not None:
            raise InvalidConfig("probe_timeout_ms and probe_timeout (deprecated, seconds) are "
                                "the same bound: give probe_timeout_ms alone",
                                option="probe_timeout")
        if probe_timeout_ms is not None:
            # The table's unit (doc/SPEC.md 4): passed on as is, so a
            # fraction or a bound the library refuses gets its message.
            config.probe_timeout_ms = _values.number(probe_timeout_ms, "probe_timeout_ms", CONFIG)
        if probe_timeout is not None:
            warnings.warn("confine.Provider(probe_timeout=SECONDS) is deprecated: use "
                          "probe_timeout_ms=MILLISECONDS (the table's unit, probeTimeoutMs)",
                          DeprecationWarning, stacklevel=2)
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
        _values.wrong_type(_values.USAGE, "provider", "a confine.Provider", provider)
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
