# SPDX-License-Identifier: MIT
"""ctypes declarations of libconfine's public ABI (include/confine.h).

Every struct layout and prototype the package uses is declared here and only
here; a change of the C header (an ABI bump) is mirrored in this one file.
The library is loaded once, lazily, under a lock (see :func:`lib`), and its
version is checked against the package's own: the layouts below are those of
exactly that version.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import importlib
import os
import sys
import threading
from ctypes import (POINTER, Structure, c_bool, c_char, c_char_p, c_double, c_int,
                    c_size_t, c_uint, c_void_p)
from typing import List, Optional, Sequence

from . import _table
from ._errors import Error, UsageError
from ._version import __version__

# ---- enums (values from confine.h) ----------------------------------------

MODE_READ_ONLY = 0
MODE_WORKSPACE_WRITE = 1
MODE_DANGER_FULL_ACCESS = 2

RUNNER_NONE = 0
RUNNER_BWRAP = 1
RUNNER_LANDLOCK = 2
RUNNER_SEATBELT = 3
RUNNER_RUNNER_COMMAND = 4

STDIO_INHERIT = 0
STDIO_FD = 1
STDIO_NULL = 2
STDIO_CAPTURE = 3
STDIO_TEE = 4

E_OK = 0
E_SANDBOX_UNAVAILABLE = 1
E_INVALID_ARGUMENT = 2
E_INVALID_CONFIG = 3
E_INVALID_POLICY = 4
E_SPAWN = 5
E_SYSTEM = 6
E_DENIED = 7
E_FS = 8

NETWORK_ON = 0
NETWORK_OFF = 1

ENV_INHERIT_ALL = 0
ENV_INHERIT_NONE = 1

ERROR_MESSAGE_MAX = 8192
# The capture cap and the timeout's bound are the table of options' (the
# rows max_output and timeout; doc/SPEC.md 9, 10), as Node reads them.
DEFAULT_CAPTURE_LIMIT: int = _table.row("max_output")["default"]  # type: ignore[index]
DEFAULT_TIMEOUT_MS = 120000
MAX_TIMEOUT_MS: int = _table.row("timeout")["max"]  # type: ignore[index]

# ---- structs ----------------------------------------------------------------


class ConfineError(Structure):
    _fields_ = [
        ("code", c_int),
        ("stage", c_char_p),
        ("sys_errno", c_int),
        ("message", c_char * ERROR_MESSAGE_MAX),
    ]


class EnvPolicy(Structure):
    _fields_ = [
        ("inherit", c_int),
        ("include", POINTER(c_char_p)),
        ("exclude", POINTER(c_char_p)),
        ("set", POINTER(c_char_p)),
        ("default_excludes", c_bool),
    ]


class Policy(Structure):
    # Every pointer is owned by the library (confine_policy_free): the
    # package never assigns one, it calls the confine_policy_add_*()
    # appenders; it sets only the plain fields.
    _fields_ = [
        ("mode", c_int),
        ("workspace_root", c_char_p),
        ("writable_roots", POINTER(c_char_p)),
        ("protected_paths", POINTER(c_char_p)),
        ("default_protections", c_bool),
        ("deny_read", POINTER(c_char_p)),
        ("network", c_int),
        ("allow_unix_sockets", POINTER(c_char_p)),
        ("env", EnvPolicy),
        ("require_full", c_bool),
        ("private_temp", c_bool),
        ("temp_dir", c_char_p),
        ("network_allow", POINTER(c_char_p)),
        ("network_deny", POINTER(c_char_p)),
        ("network_allow_local", c_bool),
        ("writable_roots_missing", POINTER(c_char_p)),
        ("stage_dir", c_char_p),
        ("limits", ctypes.c_uint64 * 6),  # CONFINE_LIMIT_COUNT
        ("limits_given", c_uint),
        ("unprotect", POINTER(c_char_p)),
        ("network_ask", c_bool),
    ]


class Rule(Structure):
    _fields_ = [
        ("allowed_exit_codes", POINTER(c_int)),
        ("n_allowed_exit_codes", c_size_t),
        ("fatal_signatures", POINTER(c_char_p)),
        ("informational_lines", POINTER(c_char_p)),
    ]


class Clause(Structure):
    _fields_ = [
        ("clause", c_char_p),
        ("subject", c_char_p),
        ("status", c_int),
        ("layers", c_uint),
        ("reason", c_char_p),
        ("needs", c_char_p),
    ]


class ConfinedArgv(Structure):
    _fields_ = [
        ("argv", POINTER(c_char_p)),
        ("argc", c_size_t),
        ("runner", c_int),
        ("runner_facts", c_uint),
        ("enforcement", c_int),
        ("denial_signatures", POINTER(c_char_p)),
        ("rules", POINTER(Rule)),
        ("n_rules", c_size_t),
        ("policy", Policy),
        ("unenforced", POINTER(c_char_p)),
        ("spawn_flags", c_uint),
        ("exec_fd", c_int),
        ("inherit_fd", c_int),
        ("inherit_fd_at", c_int),
        ("status_fd_at", c_int),
        ("clauses", POINTER(Clause)),
        ("n_clauses", c_size_t),
        ("layers", POINTER(c_char_p)),
    ]


class Verdict(Structure):
    _fields_ = [
        ("usable", c_bool),
        ("runner", c_int),
        ("enforcement", c_int),
        ("landlock_abi", c_int),
        ("runner_path", c_char * 4096),
        ("runner_failure", c_char * 512),
    ]


class LocalConfig(Structure):
    _fields_ = [
        ("runner_command", POINTER(c_char_p)),
        ("runner_failure_signatures", POINTER(c_char_p)),
        ("probe_timeout_ms", c_double),
        ("landlock_launcher", c_char_p),
        ("pin", c_int),
        ("path", c_char_p),
        ("platform", c_char_p),
    ]


class Stdio(Structure):
    _fields_ = [("kind", c_int), ("fd", c_int)]


# confine_spawn_options.ask_host (doc/SPEC.md 15, "Ask"): (data, host,
# port, reason buffer, its size) -> allow.
ASK_HOST_FN = ctypes.CFUNCTYPE(c_bool, c_void_p, c_char_p, c_uint, POINTER(ctypes.c_char),
                               c_size_t)


class SpawnOptions(Structure):
    _fields_ = [
        ("confined", POINTER(ConfinedArgv)),
        ("argv", POINTER(c_char_p)),
        ("workdir", c_char_p),
        ("envp", POINTER(c_char_p)),
        ("stdio", Stdio * 3),
        ("capture_limit", c_size_t),
        ("timeout_ms", c_uint),
        ("ask_host", ASK_HOST_FN),
        ("ask_host_data", c_void_p),
    ]


class GitHazard(Structure):
    _fields_ = [("path", c_char_p), ("kind", c_char_p)]


class Denial(Structure):
    _fields_ = [("op", c_char_p), ("path", c_char_p), ("address", c_char_p),
                ("clause", c_char_p), ("reason", c_char_p)]


class NetworkDecision(Structure):
    _fields_ = [("host", c_char_p), ("port", c_uint), ("allow", c_bool), ("by", c_char_p)]


class Outcome(Structure):
    _fields_ = [
        ("signaled", c_bool),
        ("exit_code", c_int),
        ("signal", c_int),
        ("timed_out", c_bool),
        ("stdout_data", c_void_p),
        ("stdout_len", c_size_t),
        ("stdout_truncated", c_bool),
        ("stderr_data", c_void_p),
        ("stderr_len", c_size_t),
        ("stderr_truncated", c_bool),
        ("confined", c_bool),
        ("mode", c_int),
        ("runner", c_int),
        ("enforcement", c_int),
        ("denied", c_bool),
        ("runner_failed", c_bool),
        ("runner_failure_detail", c_char_p),
        ("unenforced", POINTER(c_char_p)),
        ("git_hazards", POINTER(GitHazard)),
        ("n_git_hazards", c_size_t),
        ("clauses", POINTER(Clause)),
        ("n_clauses", c_size_t),
        ("denials", POINTER(Denial)),
        ("n_denials", c_size_t),
        ("network_denied", c_bool),
        ("limit_stopped", c_bool),
        ("limit_killed", c_bool),
        ("limit", c_int),
        ("limit_value", ctypes.c_uint64),
        ("peak_memory", ctypes.c_int64),
        ("peak_pids", ctypes.c_int64),
        ("cpu_seconds", ctypes.c_double),
        ("network_decisions", POINTER(NetworkDecision)),
        ("n_network_decisions", c_size_t),
        ("denials_dropped", c_size_t),
        ("network_decisions_dropped", c_size_t),
    ]


class BashOptions(Structure):
    _fields_ = [
        ("command", c_char_p),
        ("policy", POINTER(Policy)),
        ("workdir", c_char_p),
        ("envp", POINTER(c_char_p)),
        ("timeout_ms", c_uint),
        ("max_output", c_size_t),
        ("ask_host", ASK_HOST_FN),
        ("ask_host_data", c_void_p),
    ]


class FsEntry(Structure):
    _fields_ = [("name", c_char_p), ("type", c_int)]


class FsInfo(Structure):
    _fields_ = [
        ("type", c_int),
        ("size", ctypes.c_uint64),
        ("mode", c_uint),
        ("nlink", c_uint),
        ("mtime_sec", ctypes.c_int64),
        ("mtime_nsec", ctypes.c_long),
    ]


class BashResult(Structure):
    _fields_ = [
        ("outcome", POINTER(Outcome)),
        ("timeout_ms", c_uint),
        ("error", ConfineError),
    ]


class StageChange(Structure):
    _fields_ = [
        ("path", c_char_p),
        ("from_path", c_char_p),
        ("change", c_int),
        ("type", c_char),
        ("size", ctypes.c_uint64),
        ("mode", c_uint),
        ("binary", c_bool),
        ("git", c_bool),
    ]


class ApplyEntry(Structure):
    _fields_ = [
        ("path", c_char_p),
        ("outcome", c_int),
        ("message", c_char_p),
    ]


# ---- prototypes -------------------------------------------------------------

_P = c_void_p  # opaque handles: confine_provider *, confine_process *

_PROTOTYPES = {
    "confine_version": (c_char_p, []),
    "confine_fs_open": (c_int, [POINTER(Policy), POINTER(c_void_p), POINTER(ConfineError)]),
    "confine_fs_free": (None, [c_void_p]),
    "confine_fs_git_hazards": (c_int, [c_void_p, POINTER(POINTER(GitHazard)), POINTER(c_size_t),
                                       POINTER(ConfineError)]),
    "confine_git_hazards_free": (None, [POINTER(GitHazard), c_size_t]),
    "confine_fs_read": (c_int, [c_void_p, c_char_p, c_size_t, POINTER(c_void_p),
                                POINTER(c_size_t), POINTER(c_bool), POINTER(ConfineError)]),
    "confine_fs_write": (c_int, [c_void_p, c_char_p, c_char_p, c_size_t,
                                 POINTER(ConfineError)]),
    "confine_fs_append": (c_int, [c_void_p, c_char_p, c_char_p, c_size_t,
                                  POINTER(ConfineError)]),
    "confine_fs_list": (c_int, [c_void_p, c_char_p, POINTER(POINTER(FsEntry)),
                                POINTER(c_size_t), POINTER(ConfineError)]),
    "confine_fs_entries_free": (None, [POINTER(FsEntry), c_size_t]),
    "confine_fs_stat": (c_int, [c_void_p, c_char_p, POINTER(FsInfo), POINTER(ConfineError)]),
    "confine_fs_mkdir": (c_int, [c_void_p, c_char_p, POINTER(ConfineError)]),
    "confine_fs_remove": (c_int, [c_void_p, c_char_p, POINTER(ConfineError)]),
    "confine_fs_rename": (c_int, [c_void_p, c_char_p, c_char_p, POINTER(ConfineError)]),
    "confine_free": (None, [c_void_p]),
    "confine_stage_create": (c_int, [c_char_p, POINTER(Policy), POINTER(ConfineError)]),
    "confine_policy_set_stage": (c_int, [POINTER(Policy), c_char_p, POINTER(ConfineError)]),
    "confine_stage_open": (c_int, [c_char_p, POINTER(c_void_p), POINTER(ConfineError)]),
    "confine_stage_free": (None, [c_void_p]),
    "confine_change_kind_name": (c_char_p, [c_int]),
    "confine_stage_changes": (c_int, [c_void_p, POINTER(POINTER(StageChange)),
                                      POINTER(c_size_t), POINTER(ConfineError)]),
    "confine_stage_changes_free": (None, [POINTER(StageChange), c_size_t]),
    "confine_stage_patch": (c_int, [c_void_p, POINTER(c_void_p), POINTER(c_size_t),
                                    POINTER(ConfineError)]),
    "confine_stage_apply": (c_int, [c_void_p, c_void_p, c_bool, POINTER(POINTER(ApplyEntry)),
                                    POINTER(c_size_t), POINTER(ConfineError)]),
    "confine_apply_entries_free": (None, [POINTER(ApplyEntry), c_size_t]),
    "confine_stage_discard": (c_int, [c_char_p, POINTER(ConfineError)]),
    "confine_error_code_name": (c_char_p, [c_int]),
    "confine_mode_parse": (c_int, [c_char_p, POINTER(c_int), POINTER(ConfineError)]),
    "confine_mode_name": (c_char_p, [c_int]),
    "confine_mode_is_confined": (c_bool, [c_int]),
    "confine_enforcement_name": (c_char_p, [c_int]),
    "confine_clause_status_name": (c_char_p, [c_int]),
    "confine_layer_name": (c_char_p, [c_uint]),
    "confine_runner_name": (c_char_p, [c_int]),
    "confine_runner_parse": (c_int, [c_char_p, POINTER(c_int), POINTER(ConfineError)]),
    "confine_policy_new": (c_int, [c_int, c_char_p, POINTER(POINTER(Policy)),
                                   POINTER(ConfineError)]),
    "confine_policy_free": (None, [POINTER(Policy)]),
    "confine_policy_validate": (c_int, [POINTER(Policy), POINTER(ConfineError)]),
    "confine_policy_set_limit_text": (c_int, [POINTER(Policy), c_char_p, c_char_p,
                                              POINTER(ConfineError)]),
    "confine_limit_name": (c_char_p, [c_int]),
    "confine_outcome_limit_marker": (c_bool, [POINTER(Outcome), c_char_p, c_size_t]),
    "confine_policy_add_writable_root": (c_int, [POINTER(Policy), c_char_p,
                                                 POINTER(ConfineError)]),
    "confine_policy_add_protected_path": (c_int, [POINTER(Policy), c_char_p,
                                                  POINTER(ConfineError)]),
    "confine_policy_add_unprotect": (c_int, [POINTER(Policy), c_char_p, POINTER(ConfineError)]),
    "confine_policy_add_deny_read": (c_int, [POINTER(Policy), c_char_p, POINTER(ConfineError)]),
    "confine_policy_add_allow_host": (c_int, [POINTER(Policy), c_char_p,
                                              POINTER(ConfineError)]),
    "confine_policy_add_deny_host": (c_int, [POINTER(Policy), c_char_p,
                                             POINTER(ConfineError)]),
    "confine_policy_add_unix_socket": (c_int, [POINTER(Policy), c_char_p,
                                               POINTER(ConfineError)]),
    "confine_policy_add_env_include": (c_int, [POINTER(Policy), c_char_p,
                                               POINTER(ConfineError)]),
    "confine_policy_add_env_exclude": (c_int, [POINTER(Policy), c_char_p,
                                               POINTER(ConfineError)]),
    "confine_policy_add_env_set": (c_int, [POINTER(Policy), c_char_p, POINTER(ConfineError)]),
    "confine_policy_make_temp_dir": (c_int, [POINTER(Policy), POINTER(c_char_p),
                                             POINTER(ConfineError)]),
    "confine_network_parse": (c_int, [c_char_p, POINTER(c_int), POINTER(ConfineError)]),
    "confine_network_name": (c_char_p, [c_int]),
    "confine_env_inherit_parse": (c_int, [c_char_p, POINTER(c_int), POINTER(ConfineError)]),
    "confine_env_inherit_name": (c_char_p, [c_int]),
    # char *** out: a c_void_p so the vector can be read, then freed
    "confine_env_filter": (c_int, [POINTER(c_char_p), POINTER(EnvPolicy), c_int,
                                   POINTER(POINTER(c_char_p))]),
    "confine_strv_free": (None, [POINTER(c_char_p)]),
    "confine_argv_free": (None, [POINTER(ConfinedArgv)]),
    "confine_classify_denial": (c_bool, [c_int, c_bool, c_char_p, c_size_t,
                                         POINTER(c_char_p)]),
    "confine_classify_runner_failure": (c_int, [c_int, c_bool, c_char_p, c_size_t,
                                                POINTER(Rule), c_size_t, POINTER(c_void_p)]),
    "confine_provider_free": (None, [_P]),
    "confine_confine": (c_int, [_P, POINTER(c_char_p), POINTER(Policy),
                                POINTER(POINTER(ConfinedArgv)), POINTER(ConfineError)]),
    "confine_provider_verdict": (c_int, [_P, POINTER(Verdict), POINTER(ConfineError)]),
    "confine_local_config_init": (None, [POINTER(LocalConfig)]),
    "confine_local_provider_new": (c_int, [POINTER(LocalConfig), POINTER(_P),
                                           POINTER(ConfineError)]),
    "confine_spawn_options_init": (None, [POINTER(SpawnOptions)]),
    "confine_spawn": (c_int, [POINTER(SpawnOptions), POINTER(_P), POINTER(ConfineError)]),
    "confine_spawn_through": (c_int, [_P, POINTER(Policy), POINTER(SpawnOptions), POINTER(_P),
                                      POINTER(ConfineError)]),
    "confine_process_pid": (c_int, [_P]),
    "confine_process_wait": (c_int, [_P, POINTER(POINTER(Outcome)), POINTER(ConfineError)]),
    "confine_process_signal": (c_int, [_P, c_int]),
    "confine_process_free": (None, [_P]),
    "confine_outcome_free": (None, [POINTER(Outcome)]),
    "confine_outcome_error": (c_int, [POINTER(Outcome), POINTER(ConfineError)]),
    "confine_bash_start": (c_int, [_P, POINTER(BashOptions), POINTER(_P),
                                   POINTER(ConfineError)]),
    "confine_bash_wait": (c_int, [_P, POINTER(POINTER(BashResult)), POINTER(ConfineError)]),
    "confine_bash_result_free": (None, [POINTER(BashResult)]),
    # returns malloc'd text: c_void_p so it can be freed
    "confine_bash_render": (c_void_p, [POINTER(BashResult)]),
    "confine_signal_name": (c_char_p, [c_int, c_char_p, c_size_t]),
    "confine_default_landlock_launcher": (c_char_p, []),
}

# ---- loading ----------------------------------------------------------------

if sys.platform == "darwin":
    SONAME = "libconfine.2.dylib"
else:
    SONAME = "libconfine.so.2"

_lock = threading.Lock()
_lib: Optional[ctypes.CDLL] = None
_libc: Optional[ctypes.CDLL] = None
_lib_path: Optional[str] = None


def candidates() -> List[str]:
    """Where the library is looked for, in order.

    1. ``$CONFINE_LIBRARY`` (a path to the shared library);
    2. next to the package: ``confine/libconfine.so.2`` (a bundled copy), then
       the library directory recorded at ``meson install`` time
       (``_build_config.LIBDIR``);
    3. the loader's search: ``ctypes.util.find_library("confine")``, then the
       plain soname;
    4. a source checkout's build tree (``build/src/lib``), for tests.
    """
    found: List[str] = []
    env = os.environ.get("CONFINE_LIBRARY")
    if env:
        return [env]  # explicit: nothing else is tried
    here = os.path.dirname(os.path.abspath(__file__))
    found.append(os.path.join(here, SONAME))
    try:
        # Written by meson install; absent from a checkout. Imported by name,
        # so type checks of the sources do not depend on an installed copy.
        build_config = importlib.import_module("._build_config", __package__)
        libdir = getattr(build_config, "LIBDIR", None)
        if libdir:
            found.append(os.path.join(libdir, SONAME))
    except ImportError:
        pass
    name = ctypes.util.find_library("confine")
    if name:
        found.append(name)
    found.append(SONAME)
    checkout = os.path.normpath(os.path.join(here, "..", "..", ".."))
    found.append(os.path.join(checkout, "build", "src", "lib", SONAME))
    return found


def _declare(cdll: ctypes.CDLL) -> None:
    for name, (restype, argtypes) in _PROTOTYPES.items():
        fn = getattr(cdll, name)
        fn.restype = restype
        fn.argtypes = argtypes


def lib() -> ctypes.CDLL:
    """The loaded library, its prototypes declared and its version checked."""
    global _lib, _libc, _lib_path
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for path in candidates():
            if os.sep in path and not os.path.exists(path):
                tried.append(path + " (absent)")
                continue
            try:
                cdll = ctypes.CDLL(path)
            except OSError as e:
                tried.append("%s (%s)" % (path, e))
                continue
            try:
                _declare(cdll)
            except AttributeError as e:
                raise Error("the library at %s is not libconfine: %s" % (path, e),
                            code="SYSTEM_ERROR") from None
            version = cdll.confine_version().decode()
            if version != __version__:
                raise Error("libconfine %s at %s does not match the confine Python package %s "
                            "(the package's struct layouts are those of libconfine %s)"
                            % (version, path, __version__, __version__),
                            code="SYSTEM_ERROR")
            _libc = ctypes.CDLL(ctypes.util.find_library("c") or None)
            _libc.free.argtypes = [c_void_p]
            _libc.free.restype = None
            _lib_path = path
            _lib = cdll
            return cdll
        raise Error("libconfine (%s) not found; set CONFINE_LIBRARY to its path. Tried: %s"
                    % (SONAME, "; ".join(tried)), code="SYSTEM_ERROR")


def library_path() -> str:
    """The path the library was loaded from (loads it if needed)."""
    lib()
    assert _lib_path is not None
    return _lib_path


def free(ptr: Optional[int]) -> None:
    """free(3) for memory the library malloc'd and handed over."""
    lib()
    if ptr:
        assert _libc is not None
        _libc.free(ptr)


# ---- conversions ------------------------------------------------------------


def fsencode(value: "str | bytes | os.PathLike[str]") -> bytes:
    return os.fsencode(value)


class StrArray:
    """A NULL-terminated ``char **`` that keeps its strings alive."""

    def __init__(self, items: Sequence["str | bytes"]):
        self._items = [os.fsencode(i) for i in items]
        # The callers check each value where it enters (_values.py); a NUL
        # here would cut a word short in C, so it is never passed on.
        for item in self._items:
            if b"\0" in item:
                raise UsageError("%r holds a NUL byte (a C string would end there)" % (item,))
        self.array = (c_char_p * (len(self._items) + 1))(*self._items, None)

    def ptr(self) -> "ctypes._Pointer[c_char_p]":
        return ctypes.cast(self.array, POINTER(c_char_p))


def strv(ptr: "ctypes._Pointer[c_char_p] | None") -> List[str]:
    """A NULL-terminated ``char **`` as a list of str (surrogateescape)."""
    out: List[str] = []
    if not ptr:
        return out
    i = 0
    while ptr[i] is not None:
        out.append(os.fsdecode(ptr[i]))
        i += 1
    return out


def text(value: Optional[bytes]) -> str:
    return value.decode("utf-8", "replace") if value else ""


def error_struct() -> ConfineError:
    return ConfineError()
