#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""SPEC 8's stderr classifiers against tests/golden/classifiers.json, the
cases the C unit suite (classify-golden) and the Node suite also run:
Wrap.runner_failure and Wrap.denied (the library's, through ctypes) must
give the table's answers. Needs no sandbox."""
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import confine  # noqa: E402

with open(os.path.join(HERE, "..", "..", "..", "tests", "golden", "classifiers.json")) as f:
    GOLDEN = json.load(f)


def wrap_for(case):
    rules = tuple(confine.Rule(allowed_exit_codes=tuple(r["allowedExitCodes"]),
                               fatal_signatures=tuple(r["fatalSignatures"]),
                               informational_lines=tuple(r["informationalLines"]))
                  for r in GOLDEN["rules"][case["rules"]])
    return confine.Wrap(argv=("true",), env={}, runner=None, enforcement=None,
                        dialect=tuple(GOLDEN["dialects"][case["dialect"]]), rules=rules,
                        mode="read-only", workspace_root="/", cwd="/")


class Golden(unittest.TestCase):
    def test_the_golden_cases_hold(self):
        self.assertGreaterEqual(len(GOLDEN["cases"]), 30)
        for case in GOLDEN["cases"]:
            w = wrap_for(case)
            # subprocess's returncode: -N for a death by signal N
            returncode = -case["exit"] if case["signal"] else case["exit"]
            for stderr in (case["stderr"], case["stderr"].encode()):
                with self.subTest(case=case["name"], type=type(stderr).__name__):
                    self.assertEqual(w.runner_failure(returncode, stderr), case["runnerFailure"])
                    self.assertEqual(w.denied(returncode, stderr), case["denied"])

    def test_a_returncode_that_is_not_an_int_is_refused(self):
        w = wrap_for(GOLDEN["cases"][0])
        with self.assertRaises(confine.UsageError) as cm:
            w.denied("1", "x")
        self.assertEqual(cm.exception.option, "returncode")


if __name__ == "__main__":
    unittest.main()
