# SPDX-License-Identifier: MIT
"""The policy options beyond mode and workspace, in one table.

Each keyword argument of :func:`confine.run`, :func:`confine.bash` and
:func:`confine.wrap` that is not one of their own parameters is a policy
option, looked up here. An option is named as in the contract (the config
key and the CLI flag, doc/SPEC.md 15) and has an ``apply`` hook that sets it
on the C policy through libconfine's appenders (``confine_policy_add_*``,
which copy, check and canonicalize) or its plain fields. An option whose
``apply`` is ``None`` would be refused with :class:`confine.InvalidPolicy`
naming it: a policy the sandbox would not enforce is never accepted
silently. Every option of this libconfine has its hook.

A value the library refuses raises :class:`confine.InvalidPolicy` with the
library's message (naming the config key and the value) and ``option`` set
to the keyword; once every option is set the whole policy is checked with
``confine_policy_validate`` (a ``deny_read`` covering the workspace, a
writable root under a ``deny_read``, ...).

Paths: ``writable_roots`` and ``allow_unix_sockets`` entries that are
relative are taken from the current directory, as the CLI's flags are; a
relative ``protected_paths`` entry means that path under each writable root
(the workspace root included). A relative ``deny_read`` entry is a
gitignore-style pattern, as from every other door (``".env"`` hides every
``.env`` at any depth under the roots, ``"*.pem"`` too); ``"~/x"`` is ``x``
under ``$HOME``; a ``protected_paths`` entry holding ``*``, ``?`` or ``[``
is a pattern too.
"""
from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional

from . import _ffi, _table, _values
from ._errors import InvalidPolicy

PolicyPtr = Any  # ctypes.POINTER(_ffi.Policy)


def _raise(err: _ffi.ConfineError, keyword: Optional[str]) -> None:
    raise InvalidPolicy(_ffi.text(err.message), option=keyword,
                        stage=err.stage.decode() if err.stage else None)


def _paths(value: Any, keyword: str, absolute: bool) -> List[bytes]:
    """A path or a sequence of paths as bytes (each checked: no NUL, not
    empty); relative ones made absolute from the current directory when
    ``absolute``."""
    out = []
    for raw in _values.paths(value, keyword, _values.POLICY, "paths", one_allowed=True):
        # An empty entry is the library's to refuse, in its words (every
        # door's text, doc/SPEC.md 16). A relative writable root or socket
        # is taken from the current directory of this process, as the
        # CLI's flags are (never the call's `cwd`); a glob is left for the
        # library to refuse by name (doc/SPEC.md 15, "Validation").
        if raw and absolute and not os.path.isabs(raw) and not any(c in raw for c in b"*?["):
            raw = os.path.join(os.fsencode(os.getcwd()), raw)
        out.append(raw)
    return out


def _strings(value: Any, keyword: str, what: str) -> List[bytes]:
    """Text values (host names, env patterns): a list, each UTF-8 without a
    NUL. One string is refused, as at every door (doc/SPEC.md 16: only a
    path list of section 15 takes one path)."""
    return _values.texts(value, keyword, _values.POLICY, what)


def _bool(value: Any, keyword: str) -> bool:
    return _values.boolean(value, keyword, _values.POLICY)


def _appender(name: str, keyword: str, absolute: bool) -> Callable[[PolicyPtr, Any], None]:
    def apply(policy: PolicyPtr, value: Any) -> None:
        add = getattr(_ffi.lib(), name)
        for path in _paths(value, keyword, absolute):
            err = _ffi.ConfineError()
            if add(policy, path, ctypes.byref(err)) < 0:
                _raise(err, keyword)
    return apply


def _set_default_protections(policy: PolicyPtr, value: Any) -> None:
    policy.contents.default_protections = _bool(value, "default_protections")


# The allowlist's keys, each in Python's and the config's spelling.
NETWORK_KEYS = tuple(n for r in _table.under("network")
                     for n in dict.fromkeys((_table.leaf(r["python"]), _table.leaf(r["key"]))))


def _set_network(policy: PolicyPtr, value: Any) -> None:
    if isinstance(value, Mapping):
        # {"allow": [...], "deny": [...], "allow_local": bool} (or
        # allowLocal): the allowlist, which is the network off plus the
        # proxy (doc/SPEC.md 15, "Network allowlist").
        lib = _ffi.lib()
        err = _ffi.ConfineError()
        for name in value:
            if name not in NETWORK_KEYS:
                raise InvalidPolicy("unknown policy option %s (known: %s)"
                                    % (_values.show("network.%s" % name), ", ".join(
                                        _table.leaf(r["python"])
                                        for r in _table.under("network"))),
                                    option="network")
        policy.contents.network = 1  # CONFINE_NETWORK_OFF
        # A nested option is named by its path (doc/SPEC.md 16), as in Node.
        for name, add in (("allow", lib.confine_policy_add_allow_host),
                          ("deny", lib.confine_policy_add_deny_host)):
            for host in _strings(value.get(name, []), "network." + name, "host names"):
                if add(policy, host, ctypes.byref(err)) < 0:
                    _raise(err, "network." + name)
        local = value.get("allow_local", value.get("allowLocal", False))
        policy.contents.network_allow_local = _bool(local, "network.allow_local")
        return
    # A boolean is the wrong type, as at every door (doc/SPEC.md 16).
    if isinstance(value, bool) or not isinstance(value, (str, bytes)):
        _values.wrong_type(_values.POLICY, "network", '"on", "off" or an object', value)
    word = _values.text(value, "network", _values.POLICY)
    parsed = ctypes.c_int()
    err = _ffi.ConfineError()
    if _ffi.lib().confine_network_parse(word, ctypes.byref(parsed),
                                        ctypes.byref(err)) < 0:
        _raise(err, "network")
    policy.contents.network = parsed.value


def _set_require_full(policy: PolicyPtr, value: Any) -> None:
    policy.contents.require_full = _bool(value, "require_full")


# The limits' config keys, and the Python names that differ (the table).
LIMIT_KEYS = tuple(_table.leaf(r["key"]) for r in _table.under("limits"))
LIMIT_ALIASES = {_table.leaf(r["python"]): _table.leaf(r["key"]) for r in _table.under("limits")
                 if _table.leaf(r["python"]) != _table.leaf(r["key"])}


def _set_limits(policy: PolicyPtr, value: Any) -> None:
    """``limits={"pids": 256, "memory": "2G", "cpu_seconds": 600, ...}``
    (the config's camelCase keys are accepted too; ``None`` or
    ``"unlimited"`` lifts one). Each value goes to the library as text, so
    a bad one (zero, negative, a fraction, a bad suffix, too large) is the
    same InvalidPolicy the CLI and the config file give."""
    if not isinstance(value, Mapping):
        _values.wrong_type(_values.POLICY, "limits", "an object", value)
    lib = _ffi.lib()
    for key, item in value.items():
        name = LIMIT_ALIASES.get(key, key)
        if name not in LIMIT_KEYS:
            raise InvalidPolicy("unknown policy option %s (known: %s)"
                                % (_values.show("limits.%s" % key), ", ".join(LIMIT_KEYS)),
                                option="limits")
        if item is None:
            text = "unlimited"
        elif isinstance(item, bool) or not isinstance(item, (int, float, str)):
            _values.wrong_type(_values.POLICY, "limits." + str(key), "a number or a string",
                               item)
        elif isinstance(item, str):
            # checked first: "5\0" must not reach C as "5" (doc/SPEC.md 16)
            text = _values.text(item, "limits." + str(key), _values.POLICY).decode()
        else:
            # A number as JSON (JavaScript) writes it, as every door hands
            # it over (doc/SPEC.md 15, "Limits").
            text = _values.json_number(item)
        err = _ffi.ConfineError()
        if lib.confine_policy_set_limit_text(policy, name.encode(), text.encode(),
                                             ctypes.byref(err)) < 0:
            _raise(err, "limits." + str(key))


ENV_KEYS = tuple(_table.leaf(r["python"]) for r in _table.under("env"))
# The config's spellings that differ from Python's, accepted too.
ENV_ALIASES = {_table.leaf(r["key"]): _table.leaf(r["python"]) for r in _table.under("env")
               if _table.leaf(r["key"]) != _table.leaf(r["python"])}


def _set_env(policy: PolicyPtr, value: Any) -> None:
    """``env={"inherit": "all"|"none", "include": [PAT], "exclude": [PAT],
    "set": {NAME: VALUE}, "default_excludes": bool}`` (``defaultExcludes``,
    the config's spelling, is accepted too)."""
    keyword = "env"
    if not isinstance(value, Mapping):
        _values.wrong_type(_values.POLICY, keyword, "an object", value)
    lib = _ffi.lib()
    err = _ffi.ConfineError()
    env = policy.contents.env
    for key, item in value.items():
        keyword = "env"
        name = ENV_ALIASES.get(key, key)
        if name not in ENV_KEYS:
            raise InvalidPolicy("unknown policy option %s (known: %s)"
                                % (_values.show("env.%s" % key), ", ".join(ENV_KEYS)),
                                option=keyword)
        if item is None:
            continue
        keyword = "env." + name  # a nested option is named by its path
        if name == "inherit":
            if isinstance(item, bool) or not isinstance(item, (str, bytes)):
                _values.wrong_type(_values.POLICY, keyword, '"all" or "none"', item)
            parsed = ctypes.c_int()
            if lib.confine_env_inherit_parse(_values.text(item, keyword, _values.POLICY),
                                             ctypes.byref(parsed),
                                             ctypes.byref(err)) < 0:
                _raise(err, keyword)
            env.inherit = parsed.value
        elif name == "default_excludes":
            env.default_excludes = _bool(item, "env.default_excludes")
        elif name in ("include", "exclude"):
            add = (lib.confine_policy_add_env_include if name == "include"
                   else lib.confine_policy_add_env_exclude)
            for pattern in _strings(item, keyword, "patterns"):
                if add(policy, pattern, ctypes.byref(err)) < 0:
                    _raise(err, keyword)
        else:  # set
            # An object of names to values, as at every door (a list of
            # NAME=VALUE is refused: doc/SPEC.md 16).
            if not isinstance(item, Mapping):
                _values.wrong_type(_values.POLICY, keyword, "an object", item)
            entries = []
            for k, v in item.items():
                for part in (k, v):
                    if not isinstance(part, str):
                        _values.wrong_type(_values.POLICY, keyword, "a string", part)
                name_bytes = _values.text(k, keyword, _values.POLICY)
                if b"=" in name_bytes:
                    # NAME=VALUE would split at it: another name, another
                    # value (doc/SPEC.md 15, "Environment").
                    raise InvalidPolicy(_values.env_name_with_equals(k), option=keyword)
                entries.append(name_bytes + b"=" + _values.path(v, keyword, _values.POLICY))
            for entry in entries:
                if lib.confine_policy_add_env_set(policy, entry, ctypes.byref(err)) < 0:
                    _raise(err, keyword)


@dataclass(frozen=True)
class PolicyOption:
    """One policy option: its Python keyword, its contract names, and how it
    is set on the library's policy (``None``: this libconfine cannot)."""

    keyword: str
    key: str    # the config-file key and JSON name
    flag: str   # the CLI flag
    doc: str
    apply: Optional[Callable[[Any, Any], None]] = None


# How each policy keyword of the table of options is set on the C policy.
# A keyword of the table with no hook here is refused, naming it (a policy
# the sandbox would not enforce is never accepted silently).
HOOKS: Dict[str, Callable[[Any, Any], None]] = {
    "writable_roots": _appender("confine_policy_add_writable_root", "writable_roots", True),
    "protected_paths": _appender("confine_policy_add_protected_path", "protected_paths", False),
    "default_protections": _set_default_protections,
    # names of what runs later (doc/SPEC.md 15), checked by the library
    "unprotect": _appender("confine_policy_add_unprotect", "unprotect", False),
    # relative: a pattern at any depth, never joined to the cwd
    # (doc/SPEC.md 15, "Patterns")
    "deny_read": _appender("confine_policy_add_deny_read", "deny_read", False),
    "network": _set_network,
    "allow_unix_sockets": _appender("confine_policy_add_unix_socket", "allow_unix_sockets", True),
    "env": _set_env,
    "require_full": _set_require_full,
    "limits": _set_limits,
}

OPTIONS: Dict[str, PolicyOption] = {
    keyword: PolicyOption(keyword, _table.key_of(keyword),
                          ", ".join(_table.flags_of(keyword)) or "-",
                          "doc/SPEC.md 15", HOOKS.get(keyword))
    for keyword in _table.keywords()}


def check(options: Mapping[str, Any], library: str) -> Dict[str, Any]:
    """Validates the policy keyword arguments of one call.

    Returns the options to apply (those given a value other than ``None``).
    Raises :class:`InvalidPolicy` for an unknown keyword or one this
    libconfine (``library``, for the message) cannot enforce.
    """
    chosen: Dict[str, Any] = {}
    for keyword, value in options.items():
        option = OPTIONS.get(keyword)
        if option is None:
            known = ", ".join(_table.keywords())
            raise InvalidPolicy("unknown policy option %s (known: %s)"
                                % (_values.show(keyword), known), option=keyword)
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


def apply(policy: PolicyPtr, chosen: Mapping[str, Any]) -> None:
    """Sets the checked options on the C policy, then validates the whole
    policy (the checks across options)."""
    for keyword, value in chosen.items():
        hook = OPTIONS[keyword].apply
        assert hook is not None
        hook(policy, value)
    err = _ffi.ConfineError()
    if _ffi.lib().confine_policy_validate(policy, ctypes.byref(err)) < 0:
        # The library's message starts with the config key at fault
        # ("denyRead entry ..."): the keyword is named.
        lead = _ffi.text(err.message).split(" ", 1)[0].split(".", 1)[0]
        _raise(err, next((o.keyword for o in OPTIONS.values() if o.key == lead), None))


def _describe_network(p: Any) -> Any:
    allow = _ffi.strv(p.network_allow)
    deny = _ffi.strv(p.network_deny)
    if not allow and not deny and not p.network_allow_local:
        return _ffi.lib().confine_network_name(p.network).decode()
    return {"allow": allow, "deny": deny, "allowLocal": bool(p.network_allow_local)}


def describe(policy: PolicyPtr) -> Dict[str, Any]:
    """The whole policy in the shape of the CLI's wrap JSON ``policy``."""
    lib = _ffi.lib()
    p = policy.contents
    env_set: Dict[str, str] = {}
    for entry in _ffi.strv(p.env.set):
        name, _, val = entry.partition("=")
        env_set[name] = val
    return {
        "mode": lib.confine_mode_name(p.mode).decode(),
        "workspaceRoot": os.fsdecode(p.workspace_root) if p.workspace_root else None,
        "writableRoots": _ffi.strv(p.writable_roots),
        "protectedPaths": _ffi.strv(p.protected_paths),
        "defaultProtections": bool(p.default_protections),
        "unprotect": _ffi.strv(p.unprotect),
        "denyRead": _ffi.strv(p.deny_read),
        "network": _describe_network(p),
        "allowUnixSockets": _ffi.strv(p.allow_unix_sockets),
        "env": {
            "inherit": lib.confine_env_inherit_name(p.env.inherit).decode(),
            "include": _ffi.strv(p.env.include),
            "exclude": _ffi.strv(p.env.exclude),
            "set": env_set,
            "defaultExcludes": bool(p.env.default_excludes),
        },
        "requireFull": bool(p.require_full),
        "limits": {lib.confine_limit_name(i).decode(): int(p.limits[i])
                   for i in range(len(LIMIT_KEYS)) if p.limits[i]},
    }
