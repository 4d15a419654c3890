# SPDX-License-Identifier: MIT
"""The harness's own file operations under a run's policy (doc/SPEC.md 19).

An agent harness's read, write, edit and list tools run in the harness's
process, not under a runner: a confined command could plant
``notes.md -> ~/.bashrc`` and wait for the harness's next write. These
functions take the same policy keywords as :func:`confine.run` (``mode``,
``workspace``, ``writable_roots``, ``protected_paths``,
``default_protections``, ``deny_read``, ...) and apply them to the harness's
own operations, in-process through libconfine:

- every path is resolved beneath the root that holds it (a relative path is
  relative to the workspace root): a symlink or ``..`` leading out, and a
  magic link such as ``/proc/self/root``, are refused;
- writes go only under the writable roots of ``workspace-write``, never
  onto a protected or ``deny_read`` path (or one that holds such a path);
  :func:`write` is atomic (a new file renamed over the name, the old
  permission bits kept, a hard link not written through); :func:`append`
  refuses a hard-linked file;
- reads never return a ``deny_read`` path;
- every write operation returns the :class:`confine.GitHazard` entries it
  left (what git, or a tool of doc/SPEC.md 15's "What runs later", would
  run unconfined: the same report as a run's ``git_hazards``), an empty
  tuple when none.

A refusal by the policy raises :class:`confine.DeniedError` (its message
names the path and the clause); the filesystem's refusals raise
:class:`confine.FsError` (``errno`` set, also an :class:`OSError`).
"""
from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass
from typing import Any, List, Optional, Tuple, Union

from . import _ffi, _values
from ._api import GitHazard, PathArg, _Policy
from ._provider import _raise
from ._errors import DeniedError, FsError, UsageError


__all__ = ["read", "read_text", "write", "append", "list", "stat", "mkdir", "remove", "rename",
           "Entry", "Info"]

_TYPES = {ord("f"): "file", ord("d"): "directory", ord("l"): "symlink", ord("o"): "other"}


@dataclass(frozen=True)
class Entry:
    """A directory entry: ``type`` is ``"file"``, ``"directory"``,
    ``"symlink"`` or ``"other"``."""

    name: str
    type: str


@dataclass(frozen=True)
class Info:
    """What :func:`stat` says of a name (a symlink is not followed)."""

    type: str
    size: int
    mode: int
    nlink: int
    mtime: float


class _Handle:
    def __init__(self, mode: str, workspace: Optional[PathArg], policy: Any):
        self.policy = _Policy(mode, workspace, policy)
        self.ptr = ctypes.c_void_p()
        err = _ffi.ConfineError()
        if _ffi.lib().confine_fs_open(self.policy.ptr, ctypes.byref(self.ptr),
                                      ctypes.byref(err)) < 0:
            self.policy.close()
            _raise_fs(err)

    def __enter__(self) -> "_Handle":
        return self

    def __exit__(self, *exc: Any) -> None:
        _ffi.lib().confine_fs_free(self.ptr)
        self.policy.close()


def _raise_fs(err: _ffi.ConfineError) -> None:
    message = _ffi.text(err.message)
    if err.code == _ffi.E_DENIED:
        raise DeniedError(message)
    if err.code == _ffi.E_FS:
        raise FsError(message, errno=err.sys_errno)
    _raise(err)


def _path(path: PathArg) -> bytes:
    """The path as the library takes it: a C string cannot hold a NUL, and
    one cut there names another file, so that and an empty path are the
    caller's error (``USAGE``, as the Node package and the CLI say it)."""
    return _values.path(path, "path", _values.USAGE, allow_empty=False)


def _call(fn: Any, *args: Any) -> None:
    err = _ffi.ConfineError()
    if fn(*args, ctypes.byref(err)) < 0:
        _raise_fs(err)


def _hazards(h: "_Handle") -> Tuple[GitHazard, ...]:
    """What the handle's writes left for git (and for what runs later)."""
    found = ctypes.POINTER(_ffi.GitHazard)()
    n = ctypes.c_size_t()
    _call(_ffi.lib().confine_fs_git_hazards, h.ptr, ctypes.byref(found), ctypes.byref(n))
    try:
        return tuple(GitHazard(path=os.fsdecode(found[i].path or b""),
                               kind=_ffi.text(found[i].kind)) for i in range(n.value))
    finally:
        _ffi.lib().confine_git_hazards_free(found, n)


def read(path: PathArg, *, mode: str = "read-only", workspace: Optional[PathArg] = None,
         max_bytes: int = 0, **policy: Any) -> bytes:
    """The bytes of a regular file (at most ``max_bytes`` when given: the
    library reads no more than that)."""
    limit = _values.count(max_bytes, "max_bytes", lower=0)
    with _Handle(mode, workspace, policy) as h:
        data = ctypes.c_void_p()
        length = ctypes.c_size_t()
        cut = ctypes.c_bool()
        _call(_ffi.lib().confine_fs_read, h.ptr, _path(path), limit,
              ctypes.byref(data), ctypes.byref(length), ctypes.byref(cut))
        try:
            # Not ctypes.string_at, whose length is a C int: a file of
            # 4 GiB + 16 bytes came back as 16 (issue 28.6).
            n = length.value
            if not n or data.value is None:
                return b""
            return bytes((ctypes.c_char * n).from_address(data.value))
        finally:
            _ffi.lib().confine_free(data)


def read_text(path: PathArg, *, encoding: str = "utf-8", **kw: Any) -> str:
    return read(path, **kw).decode(encoding)


def _data(data: Union[str, bytes]) -> bytes:
    """The bytes to write (data with a length: a NUL is fine here)."""
    if isinstance(data, str):
        try:
            return data.encode("utf-8")
        except UnicodeEncodeError:
            raise UsageError("data is not valid UTF-8 text (pass bytes)", option="data") from None
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise UsageError("data must be str or bytes, not %s" % type(data).__name__, option="data")


def write(path: PathArg, data: Union[str, bytes], *, mode: str = "workspace-write",
          workspace: Optional[PathArg] = None, **policy: Any) -> Tuple[GitHazard, ...]:
    """Replaces (or creates) a file atomically."""
    raw = _data(data)
    with _Handle(mode, workspace, policy) as h:
        _call(_ffi.lib().confine_fs_write, h.ptr, _path(path), raw, len(raw))
        return _hazards(h)


def append(path: PathArg, data: Union[str, bytes], *, mode: str = "workspace-write",
           workspace: Optional[PathArg] = None, **policy: Any) -> Tuple[GitHazard, ...]:
    raw = _data(data)
    with _Handle(mode, workspace, policy) as h:
        _call(_ffi.lib().confine_fs_append, h.ptr, _path(path), raw, len(raw))
        return _hazards(h)


def list(path: PathArg = ".", *, mode: str = "read-only",  # noqa: A001 (the tool's name)
         workspace: Optional[PathArg] = None, **policy: Any) -> List[Entry]:
    with _Handle(mode, workspace, policy) as h:
        entries = ctypes.POINTER(_ffi.FsEntry)()
        n = ctypes.c_size_t()
        _call(_ffi.lib().confine_fs_list, h.ptr, _path(path), ctypes.byref(entries),
              ctypes.byref(n))
        try:
            return [Entry(name=os.fsdecode(entries[i].name), type=_TYPES[entries[i].type])
                    for i in range(n.value)]
        finally:
            _ffi.lib().confine_fs_entries_free(entries, n)


def stat(path: PathArg, *, mode: str = "read-only", workspace: Optional[PathArg] = None,
         **policy: Any) -> Info:
    with _Handle(mode, workspace, policy) as h:
        info = _ffi.FsInfo()
        _call(_ffi.lib().confine_fs_stat, h.ptr, _path(path), ctypes.byref(info))
        return Info(type=_TYPES[info.type], size=info.size, mode=info.mode, nlink=info.nlink,
                    mtime=info.mtime_sec + info.mtime_nsec / 1e9)


def mkdir(path: PathArg, *, mode: str = "workspace-write", workspace: Optional[PathArg] = None,
          **policy: Any) -> Tuple[GitHazard, ...]:
    with _Handle(mode, workspace, policy) as h:
        _call(_ffi.lib().confine_fs_mkdir, h.ptr, _path(path))
        return _hazards(h)


def remove(path: PathArg, *, mode: str = "workspace-write", workspace: Optional[PathArg] = None,
           **policy: Any) -> Tuple[GitHazard, ...]:
    with _Handle(mode, workspace, policy) as h:
        _call(_ffi.lib().confine_fs_remove, h.ptr, _path(path))
        return _hazards(h)


def rename(source: PathArg, target: PathArg, *, mode: str = "workspace-write",
           workspace: Optional[PathArg] = None, **policy: Any) -> Tuple[GitHazard, ...]:
    with _Handle(mode, workspace, policy) as h:
        _call(_ffi.lib().confine_fs_rename, h.ptr, _path(source), _path(target))
        return _hazards(h)
