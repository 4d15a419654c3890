# SPDX-License-Identifier: MIT
"""The policy options beyond mode and workspace, in one table.

Each keyword argument of :func:`confine.run`, :func:`confine.bash` and
:func:`confine.wrap` that is not one of their own parameters is a policy
option, looked up here. An option is named as in the contract (the config
key and the CLI flag) and has an ``apply`` hook that sets it on the C policy
once this libconfine can express it. Until then ``apply`` is ``None`` and the
option is refused with :class:`confine.InvalidPolicy` naming it: a policy
the sandbox would not enforce is never accepted silently.

Adding an option's support is one line here (its ``apply``), plus the C
call in ``_ffi``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, Optional

from ._errors import InvalidPolicy


@dataclass(frozen=True)
class PolicyOption:
    """One policy option: its Python keyword, its contract names, and how it
    is set on the library's policy (``None``: this libconfine cannot)."""

    keyword: str
    key: str    # the config-file key and JSON name
    flag: str   # the CLI flag
    doc: str
    apply: Optional[Callable[[Any, Any], None]] = None


OPTIONS: Dict[str, PolicyOption] = {o.keyword: o for o in (
    PolicyOption("writable_roots", "writableRoots", "--writable",
                 "more writable directories under workspace-write (list of paths)"),
    PolicyOption("protected_paths", "protectedPaths", "--protect",
                 "paths kept read-only inside the writable roots (list)"),
    PolicyOption("default_protections", "defaultProtections", "--no-default-protections",
                 "keep .git/hooks and .git/config read-only (bool, default on)"),
    PolicyOption("deny_read", "denyRead", "--deny-read",
                 "paths neither readable nor writable (list)"),
    PolicyOption("network", "network", "--network", '"on" or "off"'),
    PolicyOption("allow_unix_sockets", "allowUnixSockets", "--allow-unix-socket",
                 "pathname sockets the command may connect to (list)"),
    PolicyOption("env", "env", "--env-*",
                 "the command's environment policy: {inherit, include, exclude, set}"),
    PolicyOption("require_full", "requireFull", "--require-full",
                 "SANDBOX_UNAVAILABLE instead of partial enforcement (bool)"),
)}


def check(options: Mapping[str, Any], library: str) -> Dict[str, Any]:
    """Validates the policy keyword arguments of one call.

    Returns the options to apply (those given a value other than ``None``).
    Raises :class:`InvalidPolicy` for an unknown keyword or one this
    libconfine (``library``, for the message) cannot enforce yet.
    """
    chosen: Dict[str, Any] = {}
    for keyword, value in options.items():
        option = OPTIONS.get(keyword)
        if option is None:
            known = ", ".join(sorted(OPTIONS))
            raise InvalidPolicy("unknown policy option %r (known: %s)" % (keyword, known),
                                option=keyword)
        if value is None:
            continue
        if option.apply is None:
            raise InvalidPolicy(
                "policy option %r (%s, %s) is not supported by %s: refusing to run "
                "with a policy that would not be enforced" % (
                    keyword, option.key, option.flag, library),
                option=keyword)
        chosen[keyword] = value
    return chosen


def apply(policy: Any, chosen: Mapping[str, Any]) -> None:
    """Sets the checked options on the C policy."""
    for keyword, value in chosen.items():
        hook = OPTIONS[keyword].apply
        assert hook is not None
        hook(policy, value)
