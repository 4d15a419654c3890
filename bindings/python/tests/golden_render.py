#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The model-facing rendering (doc/SPEC.md 9) against
tests/golden/render.json, the cases the C unit suite (render-golden) and
the Node suite (node golden render) also run: the rendering a Python run()
result carries (confine._api.render, over the package's ctypes mirror of
the outcome) must be each row's text byte for byte. Needs no sandbox."""
import ctypes
import json
import os
import signal
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import confine  # noqa: E402,F401
from confine import _api, _ffi, _table  # noqa: E402

with open(os.path.join(HERE, "..", "..", "..", "tests", "golden", "render.json")) as f:
    GOLDEN = json.load(f)

# The limits in confine_limit's order: the table's limits rows.
LIMITS = [_table.leaf(r["key"]) for r in _table.under("limits")]
STATUS = {"enforced": 0, "partial": 1, "unenforced": 2}


def text(value):
    return None if value is None else value.encode()


def outcome_of(row, keep):
    """The row as the library's outcome (every buffer kept alive in
    ``keep``)."""
    o = _ffi.Outcome()
    for stream in ("stdout", "stderr"):
        data = row[stream].encode("utf-8", "surrogatepass")
        buf = ctypes.create_string_buffer(data, len(data) or 1)
        keep.append(buf)
        setattr(o, stream + "_data", ctypes.cast(buf, ctypes.c_void_p))
        setattr(o, stream + "_len", len(data))
    o.confined = True
    mode = ctypes.c_int()
    _ffi.lib().confine_mode_parse((row.get("mode") or "read-only").encode(),
                                  ctypes.byref(mode), None)
    o.mode = mode.value
    o.denied = bool(row.get("denied"))
    o.network_denied = bool(row.get("networkDenied"))
    o.timed_out = bool(row.get("timedOut"))
    o.signaled = bool(row.get("signal"))
    o.signal = (signal.SIGKILL if row.get("signal") == "SIGKILL" else signal.SIGTERM) \
        if o.signaled else 0
    o.exit_code = -1 if o.signaled else row["exitCode"]
    denials = row.get("denials") or []
    if denials:
        arr = (_ffi.Denial * len(denials))()
        for d, item in zip(arr, denials):
            d.op, d.path = text(item.get("op")), text(item.get("path"))
            d.address, d.clause = text(item.get("address")), text(item.get("clause"))
        keep.append(arr)
        o.denials, o.n_denials = ctypes.cast(arr, ctypes.POINTER(_ffi.Denial)), len(denials)
    clauses = row.get("clauses") or []
    if clauses:
        arr = (_ffi.Clause * len(clauses))()
        for c, item in zip(arr, clauses):
            c.clause, c.subject = text(item.get("clause")), text(item.get("subject"))
            c.status = STATUS[item.get("status") or "enforced"]
        keep.append(arr)
        o.clauses, o.n_clauses = ctypes.cast(arr, ctypes.POINTER(_ffi.Clause)), len(clauses)
    limit = row.get("limit")
    if limit:
        o.limit_stopped, o.limit_killed = True, bool(limit.get("killed"))
        o.limit, o.limit_value = LIMITS.index(limit["name"]), limit["value"]
    truncated = row.get("truncated") or {}
    o.stdout_truncated = bool(truncated.get("stdout"))
    o.stderr_truncated = bool(truncated.get("stderr"))
    return o


class Golden(unittest.TestCase):
    def test_the_golden_renderings(self):
        self.assertGreater(len(GOLDEN["rows"]), 10)
        for row in GOLDEN["rows"]:
            with self.subTest(case=row["name"]):
                keep = []
                o = outcome_of(row, keep)
                self.assertEqual(_api.render(ctypes.pointer(o), row.get("timeoutMs") or 0),
                                 row["expected"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
