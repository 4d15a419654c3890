# SPDX-License-Identifier: MIT
"""Every value the package hands to libconfine passes here first.

A C string ends at its first NUL byte: ``"/ws9\\0/sub"`` handed over as is
would be the root ``/ws9``, a path cut short that names another place. So
each string is checked where it enters the package, and the C side sees
only what was checked (doc/SPEC.md 16, "Values the packages hand over"):

- a NUL byte anywhere is ``USAGE`` naming the argument and the value;
- a value that must be text (a mode, a runner name, a host, an env name or
  pattern, a signature) is a ``str``, or ``bytes`` that are UTF-8; a
  ``str`` that is not encodable as UTF-8 (a lone surrogate) is ``USAGE``;
  paths, argv words and env values may be any bytes (a ``str`` with
  ``surrogateescape`` bytes round-trips, as ``os.fsencode`` does);
- a value of the wrong type is refused with the code of its family: a
  policy option, ``mode`` and ``workspace`` ``INVALID_POLICY``; a provider
  option ``INVALID_CONFIG``; the call's own arguments (``argv``,
  ``command``, ``cwd``, ``timeout``, ``environ``, ...) ``USAGE``; a list
  that is given a single string is refused (a string iterated would be one
  word per letter), except the policy's path lists, which take one path.

``family`` is one of ``"usage"``, ``"policy"``, ``"config"``.
"""
from __future__ import annotations

import ctypes
import math
import os
from typing import Any, List, NoReturn, Optional

from ._errors import InvalidConfig, InvalidPolicy, UsageError

USAGE = "usage"
POLICY = "policy"
CONFIG = "config"


def show(value: Any) -> str:
    """The value as a message quotes it (bounded)."""
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


def fail(family: str, option: str, message: str) -> NoReturn:
    """Raises the family's error, naming ``option``."""
    if family == POLICY:
        raise InvalidPolicy(message, option=option)
    if family == CONFIG:
        raise InvalidConfig(message, option=option)
    raise UsageError(message, option=option)


def _checked(raw: bytes, value: Any, option: str, allow_empty: bool) -> bytes:
    if b"\0" in raw:
        fail(USAGE, option, "%s %s holds a NUL byte (a C string would end there)"
             % (option, show(value)))
    if not raw and not allow_empty:
        fail(USAGE, option, "%s is an empty string" % option)
    return raw


def text(value: Any, option: str, family: str, *, allow_empty: bool = True) -> bytes:
    """A text value as UTF-8 bytes: a ``str``, or ``bytes`` that are UTF-8."""
    if isinstance(value, str):
        try:
            raw = value.encode("utf-8")
        except UnicodeEncodeError:
            fail(USAGE, option, "%s %s is not valid UTF-8 text" % (option, show(value)))
    elif isinstance(value, bytes):
        try:
            value.decode("utf-8")
        except UnicodeDecodeError:
            fail(USAGE, option, "%s %s is not valid UTF-8 text" % (option, show(value)))
        raw = value
    else:
        fail(family, option, "%s must be a string, not %s" % (option, type(value).__name__))
    return _checked(raw, value, option, allow_empty)


def path(value: Any, option: str, family: str, *, allow_empty: bool = True) -> bytes:
    """A path, an argv word or an env value: ``str``, ``bytes`` or
    ``os.PathLike``, as ``os.fsencode`` makes it."""
    if not isinstance(value, (str, bytes, os.PathLike)):
        fail(family, option, "%s must be a string or a path, not %s"
             % (option, type(value).__name__))
    try:
        raw = os.fsencode(value)
    except UnicodeEncodeError:
        fail(USAGE, option, "%s %s cannot be encoded for the filesystem" % (option, show(value)))
    except TypeError:
        fail(family, option, "%s must be a string or a path, not %s"
             % (option, type(value).__name__))
    return _checked(raw, value, option, allow_empty)


def items(value: Any, option: str, family: str, what: str, *,
          one_allowed: bool = False) -> List[Any]:
    """A list or tuple as a list; one string (or path) only when
    ``one_allowed`` (then a list of it)."""
    if isinstance(value, (str, bytes, os.PathLike)):
        if one_allowed:
            return [value]
        fail(family, option, "%s must be a list of %s, not a single string %s"
             % (option, what, show(value)))
    if not isinstance(value, (list, tuple)):
        fail(family, option, "%s must be a list of %s, not %s"
             % (option, what, type(value).__name__))
    return list(value)


def texts(value: Any, option: str, family: str, what: str, *,
          one_allowed: bool = False) -> List[bytes]:
    return [text(v, option, family)
            for v in items(value, option, family, what, one_allowed=one_allowed)]


def paths(value: Any, option: str, family: str, what: str, *,
          one_allowed: bool = False, allow_empty: bool = True) -> List[bytes]:
    return [path(v, option, family, allow_empty=allow_empty)
            for v in items(value, option, family, what, one_allowed=one_allowed)]


def boolean(value: Any, option: str, family: str) -> bool:
    if not isinstance(value, bool):
        fail(family, option, "%s must be True or False, not %s" % (option, show(value)))
    return value


def number(value: Any, option: str, family: str) -> float:
    """A real number (an int or a float, never a bool or a string)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        fail(family, option, "%s must be a number, not %s" % (option, show(value)))
    return float(value)


def seconds(value: Any, option: str, *, upper_ms: Optional[int]) -> int:
    """Seconds (a positive number) as whole milliseconds, 1 to ``upper_ms``:
    past the bound it is refused, never cut to it."""
    secs = number(value, option, USAGE)
    if not math.isfinite(secs) or secs <= 0:
        fail(USAGE, option, "%s must be a positive number of seconds, not %s"
             % (option, show(value)))
    ms = max(1, int(round(secs * 1000)))
    if upper_ms is not None and ms > upper_ms:
        fail(USAGE, option, "%s %s exceeds the maximum of %g seconds"
             % (option, show(value), upper_ms / 1000))
    return ms


# What a size_t holds here: a count past it is refused, not wrapped by ctypes.
SIZE_MAX = ctypes.c_size_t(-1).value


def count(value: Any, option: str, *, lower: int = 0, upper: int = SIZE_MAX) -> int:
    """A whole number (not a bool), ``lower`` to ``upper``."""
    if isinstance(value, bool) or not isinstance(value, int):
        fail(USAGE, option, "%s must be a whole number, not %s" % (option, show(value)))
    if value < lower:
        fail(USAGE, option, "%s must be %d or more, not %d" % (option, lower, value))
    if value > upper:
        fail(USAGE, option, "%s %d exceeds the maximum of %d" % (option, value, upper))
    return value
