# SPDX-License-Identifier: MIT
"""The table of options (doc/SPEC.md 15, "The table of options").

``options.json`` beside this file is ``confine options --json``: one row
per option, with its config key, CLI flag, Python and Node names, type,
bounds and default, made from ``src/common/options.def`` (the test
``options table`` requires the copy to equal the command's output). The
package takes its option names from here instead of restating them.
"""
from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "options.json"),
          encoding="utf-8") as _f:
    ROWS: List[Dict[str, Any]] = json.load(_f)["options"]


def policy_rows() -> List[Dict[str, Any]]:
    """The rows of doc/SPEC.md 15 (the policy beyond mode and root) that
    the Python package takes (the decider, ``ask_host``, is the run's:
    a keyword of run and bash of its own)."""
    return [r for r in ROWS if r["spec"] == "15" and r["python"] and r["type"] != "decider"]


def keywords() -> List[str]:
    """The policy keywords of run(), bash() and wrap(), in the table's
    order ("network" for network.allow: the head of a dotted name)."""
    out: List[str] = []
    for r in policy_rows():
        head = r["python"].split(".")[0]
        if head not in out:
            out.append(head)
    return out


def under(keyword: str) -> List[Dict[str, Any]]:
    """The rows inside the mapping ``keyword`` takes (``env``: inherit,
    include, ...)."""
    return [r for r in policy_rows() if r["python"].startswith(keyword + ".")]


def leaf(name: str) -> str:
    """The last part of a dotted name."""
    return name.rsplit(".", 1)[-1]


def row(keyword: str) -> Optional[Dict[str, Any]]:
    """The row whose Python name is ``keyword``, or None."""
    return next((r for r in ROWS if r["python"] == keyword), None)


def key_of(keyword: str) -> str:
    """The config key of a policy keyword ("writable_roots":
    "writableRoots"; "env": "env")."""
    rows = [r for r in policy_rows() if r["python"].split(".")[0] == keyword]
    if not rows:
        return keyword
    key: str = rows[0]["key"]
    return key.split(".")[0] if "." in rows[0]["python"] else key


def flags_of(keyword: str) -> List[str]:
    """The CLI flags of a policy keyword, in the table's order."""
    return [r["flag"] for r in policy_rows()
            if r["python"].split(".")[0] == keyword and r["flag"]]
