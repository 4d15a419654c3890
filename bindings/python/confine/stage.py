# SPDX-License-Identifier: MIT
"""A staged run's changes (doc/SPEC.md 21): ``confine.run(..., stage=DIR)``
writes nowhere but DIR, and its result's ``stage`` lists, renders, applies or
discards what the command changed, through libconfine's ``confine_stage_*``.
"""
from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass
from typing import List, Optional, Sequence, Union

from . import _ffi
from ._provider import _raise

__all__ = ["Stage", "Change", "Applied"]

PathArg = Union[str, "os.PathLike[str]"]
_OUTCOMES = ("applied", "conflict", "refused", "failed")


@dataclass(frozen=True)
class Change:
    """One change: ``change`` is ``added``, ``modified``, ``deleted``,
    ``renamed`` (``from_path`` the old path), ``mode`` or ``symlink``;
    ``path`` relative to the workspace root (absolute for another root);
    ``git`` for a change under a ``.git`` directory."""
    path: str
    change: str
    from_path: Optional[str]
    type: str
    size: int
    mode: int
    binary: bool
    git: bool


@dataclass(frozen=True)
class Applied:
    """What apply did with one path: ``outcome`` is ``applied``,
    ``conflict`` (the real file changed since the run began), ``refused``
    (a protected path) or ``failed``; ``message`` says why."""
    path: str
    outcome: str
    message: Optional[str]


class Stage:
    """The stage at ``path``."""

    def __init__(self, path: PathArg):
        self.path = os.fsdecode(os.path.abspath(path))

    def _open(self) -> ctypes.c_void_p:
        handle = ctypes.c_void_p()
        err = _ffi.ConfineError()
        if _ffi.lib().confine_stage_open(os.fsencode(self.path), ctypes.byref(handle),
                                         ctypes.byref(err)) < 0:
            _raise(err)
        return handle

    @property
    def changes(self) -> List[Change]:
        """Every change against the real tree as it is now, by path."""
        lib = _ffi.lib()
        handle = self._open()
        try:
            items = ctypes.POINTER(_ffi.StageChange)()
            n = ctypes.c_size_t()
            err = _ffi.ConfineError()
            if lib.confine_stage_changes(handle, ctypes.byref(items), ctypes.byref(n),
                                         ctypes.byref(err)) < 0:
                _raise(err)
            try:
                return [Change(path=_ffi.text(c.path),
                               change=_ffi.text(lib.confine_change_kind_name(c.change)),
                               from_path=_ffi.text(c.from_path) if c.from_path else None,
                               type=c.type.decode(), size=int(c.size), mode=int(c.mode),
                               binary=bool(c.binary), git=bool(c.git))
                        for c in (items[i] for i in range(n.value))]
            finally:
                lib.confine_stage_changes_free(items, n.value)
        finally:
            lib.confine_stage_free(handle)

    def patch(self) -> str:
        """A unified diff of the text changes that ``git apply`` accepts."""
        lib = _ffi.lib()
        handle = self._open()
        try:
            text = ctypes.c_void_p()
            n = ctypes.c_size_t()
            err = _ffi.ConfineError()
            if lib.confine_stage_patch(handle, ctypes.byref(text), ctypes.byref(n),
                                       ctypes.byref(err)) < 0:
                _raise(err)
            try:
                if not text.value:
                    return ""
                return ctypes.string_at(text.value, n.value).decode("utf-8", "surrogateescape")
            finally:
                _ffi.free(text.value)
        finally:
            lib.confine_stage_free(handle)

    def apply(self, paths: Optional[Sequence[PathArg]] = None, *,
              overwrite: bool = False) -> List[Applied]:
        """Applies the changes (all, or those at or under ``paths``) to the
        real tree; a conflict or a refused path is in the list, never
        applied (unless ``overwrite`` for a conflict); the stage is kept."""
        lib = _ffi.lib()
        handle = self._open()
        try:
            chosen = _ffi.StrArray([os.fsdecode(p) for p in paths]) if paths is not None else None
            items = ctypes.POINTER(_ffi.ApplyEntry)()
            n = ctypes.c_size_t()
            err = _ffi.ConfineError()
            if lib.confine_stage_apply(handle, ctypes.cast(chosen.ptr(), ctypes.c_void_p)
                                       if chosen else None, overwrite, ctypes.byref(items),
                                       ctypes.byref(n), ctypes.byref(err)) < 0:
                _raise(err)
            try:
                return [Applied(path=_ffi.text(e.path), outcome=_OUTCOMES[e.outcome],
                                message=_ffi.text(e.message) if e.message else None)
                        for e in (items[i] for i in range(n.value))]
            finally:
                lib.confine_apply_entries_free(items, n.value)
        finally:
            lib.confine_stage_free(handle)

    def discard(self) -> None:
        """Removes the stage and everything in it."""
        err = _ffi.ConfineError()
        if _ffi.lib().confine_stage_discard(os.fsencode(self.path), ctypes.byref(err)) < 0:
            _raise(err)
