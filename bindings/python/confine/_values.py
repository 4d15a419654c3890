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
import decimal
import json
import math
import os
from typing import Any, List, NoReturn, Optional

from ._errors import InvalidConfig, InvalidPolicy, UsageError

USAGE = "usage"
POLICY = "policy"
CONFIG = "config"


def _json_text(text: str) -> str:
    """``text`` as JSON quotes it, as Node's JSON.stringify does: control
    characters escaped, a lone surrogate as ``\\udXXX``, the rest as is."""
    quoted = json.dumps(text, ensure_ascii=False)
    return "".join("\\u%04x" % ord(c) if 0xD800 <= ord(c) <= 0xDFFF else c for c in quoted)


def show(value: Any) -> str:
    """The value as every door's message quotes it (doc/SPEC.md 16, "One
    text per refusal"): a string as JSON quotes it (bytes read as UTF-8,
    each other byte a lone surrogate, as os.fsdecode does), a number as
    JSON writes it; bounded to 200 characters."""
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("utf-8", "surrogateescape")
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
        if isinstance(value, bytes):
            value = value.decode("utf-8", "surrogateescape")
    if isinstance(value, str):
        text = _json_text(value)
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif value is None:
        text = "null"
    elif isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        text = str(int(value))
    elif isinstance(value, float) and not math.isfinite(value):
        text = json_number(value)  # Infinity, NaN: as Node's String() writes them
    else:
        text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


def json_number(value: Any) -> str:
    """A number as JSON (JavaScript's Number#toString) writes it, the same
    text at every door (doc/SPEC.md 15, "Limits"): ``1e+30``, ``1.5``,
    ``18446744073709552000`` for 2**64 + 1 (a whole number past 2**53 is
    the double JSON reads it as). An int up to 2**53 is exact."""
    if isinstance(value, int) and abs(value) <= 2 ** 53:
        return str(value)
    try:
        number = float(value)
    except OverflowError:
        return "Infinity" if value > 0 else "-Infinity"
    if not math.isfinite(number):
        return "NaN" if number != number else ("Infinity" if number > 0 else "-Infinity")
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    mantissa, _, exponent = ("%r" % abs(number)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction.rstrip("0")).lstrip("0") if fraction != "0" else whole.lstrip("0")
    point = len(whole.lstrip("0")) if whole.strip("0") else -(len(fraction) - len(fraction.lstrip("0")))
    point += int(exponent or 0)
    digits = digits.rstrip("0") or "0"
    k, n = len(digits), point
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * -n + digits
    else:
        e = n - 1
        text = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") \
            + str(abs(e))
    return sign + text


def env_name_with_equals(name: Any) -> str:
    """The one text for an env.set name holding '=' (doc/SPEC.md 15,
    "Environment"), the same at every door."""
    return ("env.set name %s holds '=': a variable name is printable ASCII without "
            "spaces or '='" % show(name))


def described(value: Any) -> str:
    """What a value of the wrong type is, in JSON's words, the same at
    every door: ``a string "5"``, ``a number 5``, ``a boolean true``,
    ``null``, ``an array``, ``an object``; another type by its name."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean " + show(value)
    if isinstance(value, (int, float)):
        return "a number " + show(value)
    if isinstance(value, (str, bytes, os.PathLike)):
        return "a string " + show(value)
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    if callable(value):
        return "a function"
    return "a " + type(value).__name__


def wrong_type(family: str, option: str, expected: str, value: Any) -> NoReturn:
    """Refuses a value of the wrong type: ``OPTION must be EXPECTED, not
    DESCRIBED`` (doc/SPEC.md 16, "One text per refusal")."""
    fail(family, option, "%s must be %s, not %s" % (option, expected, described(value)))


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
        wrong_type(family, option, "a string", value)
    return _checked(raw, value, option, allow_empty)


def path(value: Any, option: str, family: str, *, allow_empty: bool = True) -> bytes:
    """A path, an argv word or an env value: ``str``, ``bytes`` or
    ``os.PathLike``, as ``os.fsencode`` makes it."""
    if not isinstance(value, (str, bytes, os.PathLike)):
        wrong_type(family, option, "a string", value)
    try:
        raw = os.fsencode(value)
    except UnicodeEncodeError:
        fail(USAGE, option, "%s %s is not valid UTF-8 text" % (option, show(value)))
    except TypeError:
        wrong_type(family, option, "a string", value)
    return _checked(raw, value, option, allow_empty)


def items(value: Any, option: str, family: str, what: str, *,
          one_allowed: bool = False) -> List[Any]:
    """A list or tuple as a list; one string (or path) only when
    ``one_allowed`` (then a list of it)."""
    if isinstance(value, (str, bytes, os.PathLike)):
        if one_allowed:
            return [value]
        wrong_type(family, option, "an array of " + what, value)
    if not isinstance(value, (list, tuple)):
        wrong_type(family, option, "an array of " + what, value)
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
        wrong_type(family, option, "true or false", value)
    return value


def number(value: Any, option: str, family: str) -> float:
    """A real number (an int or a float, never a bool or a string). An int
    past what a double holds is the infinity JSON reads it as (10**400 is
    1e400, Infinity at every door), never an OverflowError (red team F6)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        wrong_type(family, option, "a number", value)
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def seconds(value: Any, option: str, *, upper_ms: Optional[int]) -> int:
    """Seconds (a positive number) as whole milliseconds, 1 to ``upper_ms``:
    past the bound it is refused, never cut to it, and a fraction of a
    millisecond is refused, never rounded (0.0015 s is not 2 ms). The
    message speaks in milliseconds, as the library's and the other doors'
    do (doc/SPEC.md 16): ``timeout 600001 ms exceeds the maximum of 600000
    ms``, ``timeout 1.5 ms is not a whole number of milliseconds``."""
    secs = number(value, option, USAGE)
    if not math.isfinite(secs):
        fail(USAGE, option, "%s %s is not a finite number" % (option, show(secs)))
    # The number as written (repr: 0.007, not 0.00700000000000000014...),
    # times 1000, exactly: whole or not as its writer meant it; binary
    # arithmetic's residue (0.1 + 0.2 is 300.00000000000004 ms) is not a
    # fraction anyone asked for, as the probe timeout's conversion reads it.
    exact = decimal.Decimal(value if isinstance(value, int) else repr(secs)) * 1000
    whole = exact.to_integral_value()
    if abs(exact - whole) > decimal.Decimal("1e-6") * max(decimal.Decimal(1), abs(whole)):
        fail(USAGE, option, "%s %s ms is not a whole number of milliseconds"
             % (option, format(exact.normalize(), "f")))
    ms = int(whole)
    if ms < 1:
        fail(USAGE, option, "%s %d ms is below the minimum of 1 ms" % (option, ms))
    if upper_ms is not None and ms > upper_ms:
        fail(USAGE, option, "%s %d ms exceeds the maximum of %d ms" % (option, ms, upper_ms))
    return ms


# What a size_t holds here: a count past it is refused, not wrapped by ctypes.
SIZE_MAX = ctypes.c_size_t(-1).value


def count(value: Any, option: str, *, lower: int = 0, upper: int = SIZE_MAX) -> int:
    """A whole number (not a bool), ``lower`` to ``upper``."""
    if isinstance(value, bool) or not isinstance(value, int):
        wrong_type(USAGE, option, "a whole number", value)
    if value < lower:
        fail(USAGE, option, "%s %d is below the minimum of %d" % (option, value, lower))
    if value > upper:
        fail(USAGE, option, "%s %d exceeds the maximum of %d" % (option, value, upper))
    return value
