#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The confine command against doc/SPEC.md, read as it stands (issue 22).

    contract.py CONFINE LAUNCHER SPEC GROUP

GROUP `shapes`: every JSON shape of SPEC 10 (wrap, bash --json, run --json,
probe --json) and the error object of SPEC 16 is parsed out of SPEC.md, and
the real output of confine, in the cases listed below, is checked against it
key by key: a printed field the shape does not list fails, and so does a
listed field that is not printed where it applies. What "applies" means is
the one thing this file adds: each case says which listed fields SPEC's
prose leaves out in that case (`exitCode` or `signal`, never both;
`enforcement` only when confined...). SPEC 10 also lists the fields that
are documented but not printed yet; they must be absent until that list
drops them. So a field added to an output is a change to its shape in
SPEC.md, and nothing here; only a field that some cases leave out (as
`gitHazards` is absent unconfined) also needs its word in those cases'
`absent` lists below (CONFINED_ONLY, RULE_ABSENT, the probe's lists).

GROUP `help`: `confine --help`, each command's --help and doc/man/confine.1
name what SPEC 10 names: every configuration key (SPEC 10's and the config
keys of SPEC 15's table), the forwarded signals, confine's own stderr lines,
and every field each JSON shape prints.

Cases that need a working runner skip (exit 77) where none works, unless
CONFINE_MUST_WORK=1.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "helpers"))
from outside_tmp import launcher_outside_tmp  # noqa: E402

SKIP = 77


class Failure(Exception):
    pass


# ---------------------------------------------------------------------------
# Reading SPEC.md


def section(spec, number):
    """The text of `## <number>.` up to the next `## ` heading."""
    m = re.search(r"^## %d\. .*?$(.*?)(?=^## )" % number, spec, re.S | re.M)
    if not m:
        raise Failure("SPEC.md has no section %d" % number)
    return m.group(1)


def code_spans(text):
    """Inline code spans (fenced blocks aside); one may be broken across
    lines."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return [m.group(1) for m in re.finditer(r"`([^`]+)`", text)]


class Obj:
    """A documented object: its members (name -> node or None), groups of
    alternatives ("exitCode"|"signal": exactly one), or open (`{...}`)."""

    def __init__(self):
        self.members = {}
        self.alternatives = []
        self.open = False


class Arr:
    def __init__(self, item):
        self.item = item  # a node, or None: anything


class NullOr:
    def __init__(self, node):
        self.node = node


class Str:
    pass


class ShapeParser:
    """The shapes' little grammar: {"a","b":[...],"c":{...},"d":null|{...},
    "e"|"f","g":"<text>","h":[{"i","j"}]}; `...` stands for anything."""

    def __init__(self, text):
        self.s = re.sub(r"\s+", "", text)
        self.i = 0

    def peek(self, token):
        return self.s.startswith(token, self.i)

    def take(self, token):
        if not self.peek(token):
            raise Failure("shape %r: expected %r at %d" % (self.s, token, self.i))
        self.i += len(token)

    def name(self):
        self.take('"')
        end = self.s.index('"', self.i)
        word = self.s[self.i:end]
        self.i = end + 1
        return word

    def value(self):
        if self.peek("null|"):
            self.take("null|")
            return NullOr(self.value())
        if self.peek("{"):
            return self.obj()
        if self.peek("["):
            self.take("[")
            if self.peek("...]"):
                self.take("...]")
                return Arr(None)
            item = self.value()
            self.take("]")
            return Arr(item)
        if self.peek('"'):
            self.name()
            return Str()
        raise Failure("shape %r: no value at %d" % (self.s, self.i))

    def obj(self):
        o = Obj()
        self.take("{")
        if self.peek("...}"):
            self.take("...}")
            o.open = True
            return o
        while not self.peek("}"):
            names = [self.name()]
            while self.peek("|"):
                self.take("|")
                names.append(self.name())
            node = None
            if self.peek(":"):
                self.take(":")
                node = self.value()
            for n in names:
                o.members[n] = node
            if len(names) > 1:
                o.alternatives.append(set(names))
            if self.peek(","):
                self.take(",")
        self.take("}")
        return o

    def parse(self):
        node = self.obj()
        if self.i != len(self.s):
            raise Failure("shape %r: text after the object" % self.s)
        return node


def policy_object(spec15):
    """SPEC 15's list of the policy keys wrap echoes: "the whole policy with
    every key, defaults included (`mode`, ..., `env` {`inherit`, ...}, ...)"."""
    m = re.search(r"the whole policy with every key, defaults included \((.*?)\)\.",
                  spec15, re.S)
    if not m:
        raise Failure("SPEC 15 no longer lists the policy keys wrap echoes")
    o, last, inner = Obj(), None, None
    for tok in re.finditer(r"`(\w+)`|\{|\}", m.group(1)):
        if tok.group(0) == "{":
            inner = Obj()
        elif tok.group(0) == "}":
            o.members[last] = inner
            inner = None
        elif inner is not None:
            inner.members[tok.group(1)] = None
        else:
            last = tok.group(1)
            o.members[last] = None
    return o


def read_spec(path):
    with open(path, encoding="utf-8") as f:
        spec = f.read()
    s10, s15, s16 = section(spec, 10), section(spec, 15), section(spec, 16)
    shapes = {}
    prefixes = {'{"exitCode","signal"': "bash", '{"exitCode"|"signal"': "run",
                '{"argv"': "wrap", '{"usable"': "probe"}
    for span in code_spans(s10):
        flat = re.sub(r"\s+", "", span)
        for prefix, name in prefixes.items():
            if flat.startswith(prefix):
                if name in shapes:
                    raise Failure("SPEC 10 has two shapes for %s" % name)
                shapes[name] = ShapeParser(flat).parse()
    missing = set(prefixes.values()) - set(shapes)
    if missing:
        raise Failure("SPEC 10 has no shape for %s" % ", ".join(sorted(missing)))
    m = re.search(r"^```\n(\{\"error\".*?)\n```", s16, re.S | re.M)
    if not m:
        raise Failure("SPEC 16 no longer shows the error object")
    shapes["error"] = ShapeParser(m.group(1)).parse()
    # run --json is bash's object without the captured output: its sandbox
    # and error are bash's ("sandbox":{...}, a bare "error").
    run, bash = shapes["run"], shapes["bash"]
    for key, node in list(run.members.items()):
        if (node is None or (isinstance(node, Obj) and node.open)) and key in bash.members \
                and bash.members[key] is not None:
            run.members[key] = bash.members[key]
    # wrap's policy is SPEC 15's whole policy; its env an open map.
    shapes["wrap"].members["policy"] = policy_object(s15)
    m = re.search(r"listed but not printed yet, by anything:(.*?)\(", s10, re.S)
    if not m:
        raise Failure("SPEC 10 no longer says which fields are not printed yet")
    pending = set(code_spans(m.group(1)))
    for path in pending:
        if node_at(shapes, path) is False:
            raise Failure("SPEC 10 lists %s as not printed yet, but no shape has it" % path)
    return spec, shapes, pending


def node_at(shapes, path):
    """The node at `path` (shape.member.member...), False when absent."""
    parts = path.split(".")
    node = shapes.get(parts[0], False)
    for part in parts[1:]:
        while isinstance(node, (Arr, NullOr)):
            node = node.item if isinstance(node, Arr) else node.node
        if not isinstance(node, Obj) or part not in node.members:
            return False
        node = node.members[part]
    return node


# ---------------------------------------------------------------------------
# Checking one output


def check(value, node, path, absent, pending, problems):
    if node is None or isinstance(node, Str):
        return
    if isinstance(node, NullOr):
        if value is not None:
            check(value, node.node, path, absent, pending, problems)
        return
    if isinstance(node, Arr):
        if not isinstance(value, list):
            problems.append("%s: not an array: %.200r" % (path, value))
            return
        for item in value:
            check(item, node.item, path, absent, pending, problems)
        return
    if not isinstance(value, dict):
        problems.append("%s: not an object: %.200r" % (path, value))
        return
    if node.open:
        return
    for key in value:
        if key not in node.members:
            problems.append("%s.%s: printed, but not in SPEC's shape" % (path, key))
    for key, sub in node.members.items():
        here = "%s.%s" % (path, key)
        if "?" + here in absent:
            # either way: one item of an array prints it, another not
            if key in value:
                check(value[key], sub, here, absent, pending, problems)
            continue
        if here in pending:
            if key in value:
                problems.append("%s: printed, but SPEC 10 lists it as not printed yet: "
                                "remove it from that list" % here)
            continue
        if key not in value:
            # "a"|"b": the one printed stands for both (exactly one, below)
            chosen = any(key in g and any(k in value for k in g) for g in node.alternatives)
            if here not in absent and not chosen:
                problems.append("%s: in SPEC's shape, but not printed" % here)
            continue
        if here in absent:
            problems.append("%s: printed where SPEC leaves it out" % here)
            continue
        check(value[key], sub, here, absent, pending, problems)
    for group in node.alternatives:
        if len([k for k in group if k in value]) != 1:
            problems.append("%s: exactly one of %s" % (path, ", ".join(sorted(group))))


# ---------------------------------------------------------------------------
# The cases

# SPEC 6: which rule fields each runner's rule leaves out (no exit gate, no
# informational line).
RULE_ABSENT = {
    # bwrap's own rule has none; the launcher's inside it (SPEC 6) has them
    "bwrap": ["?informationalLines"],
    "landlock": [],
    "seatbelt": ["allowedExitCodes", "informationalLines"],
    "runnerCommand": ["allowedExitCodes", "informationalLines"],
}
CONFINED_ONLY = ["enforcement", "unenforced", "layers", "clauses", "runner", "gitHazards"]  # SPEC 10, 15


class Contract:
    def __init__(self, confine, launcher, spec_path):
        self.confine = confine
        self.launcher = launcher
        self.spec, self.shapes, self.pending = read_spec(spec_path)
        home = os.environ.get("HOME") or "/tmp"
        root = os.path.join(home, ".cache", "confine-tests")
        os.makedirs(root, exist_ok=True)
        # Not under /tmp: bwrap's /tmp is private, and the Landlock rung
        # refuses a workspace there under workspace-write.
        self.base = tempfile.mkdtemp(prefix="contract.", dir=root)
        self.ws = os.path.join(self.base, "ws")
        os.mkdir(self.ws)
        self.config = os.path.join(self.base, "launcher.json")
        with open(self.config, "w") as f:
            # a build tree under /tmp is not a trusted launcher home (SPEC 14)
            json.dump({"landlockLauncher": launcher_outside_tmp(launcher)}, f)
        # A bwrap only others could have planted: a runner failure on any host.
        self.untrusted = os.path.join(self.base, "untrusted-bin")
        os.mkdir(self.untrusted)
        with open(os.path.join(self.untrusted, "bwrap"), "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(os.path.join(self.untrusted, "bwrap"), 0o755)
        os.chmod(self.untrusted, 0o777)
        self.checked = 0
        self.problems = []

    def close(self):
        os.chmod(self.untrusted, 0o755)
        shutil.rmtree(self.base, ignore_errors=True)

    def run(self, args, env=None, stdin=subprocess.DEVNULL):
        full = dict(os.environ, CONFINE_CONFIG="")
        full.update(env or {})
        return subprocess.run([self.confine] + args, capture_output=True, text=True,
                              env=full, cwd=self.base, stdin=stdin, timeout=120)

    def runner_works(self):
        return self.run(["probe", "--config", self.config]).returncode == 0

    def expect(self, label, args, shape, absent=(), status=None, where="stdout", env=None,
               extra=None):
        r = self.run(args, env=env)
        if status is not None and r.returncode != status:
            self.problems.append("%s: exit %d, expected %d (stderr: %s)"
                                 % (label, r.returncode, status, r.stderr.strip()[-400:]))
            return None
        text = r.stdout if where == "stdout" else r.stderr
        lines = text.splitlines()
        if where == "stdout" and len(lines) != 1:
            self.problems.append("%s: stdout is not one line: %r" % (label, text))
            return None
        if not text.endswith("\n") or not lines:
            self.problems.append("%s: %s does not end a line: %r" % (label, where, text))
            return None
        try:
            value = json.loads(lines[-1])
        except ValueError as e:
            self.problems.append("%s: %s's last line is not JSON (%s): %r"
                                 % (label, where, e, lines[-1]))
            return None
        absent = set("%s.%s" % (shape, a) for a in absent)
        if extra:
            absent |= set(("?%s.%s" % (shape, a[1:])) if a.startswith("?") else ("%s.%s" % (shape, a))
                          for a in extra(value))
        found = []
        check(value, self.shapes[shape], shape, absent, self.pending, found)
        self.problems.extend("%s: %s" % (label, p) for p in found)
        self.checked += 1
        return value

    def rule_absent(self, value):
        return [("?runnerFailureRules." + k[1:]) if k.startswith("?") else ("runnerFailureRules." + k)
                for k in RULE_ABSENT.get(value.get("runner"), [])]

    # -- the error object, from every output (SPEC 16) --
    def errors(self):
        untrusted = {"CONFINE_RUNNER_PATH": self.untrusted}
        nowhere = os.path.join(self.base, "no-such-dir")
        for label, args, where, env, failure in [
            ("wrap usage", ["wrap", "--frob", "--", "true"], "stdout", None, False),
            ("wrap policy", ["wrap", "-w", nowhere, "--", "true"], "stdout", None, False),
            ("wrap runner failure", ["wrap", "--runner", "bwrap", "--", "/bin/true"], "stdout",
             untrusted, True),
            ("bash --json usage", ["bash", "--json", "--timeout", "x", "-c", "true"], "stdout",
             None, False),
            ("bash --json runner failure", ["bash", "--json", "--runner", "bwrap", "-c", "true"],
             "stdout", untrusted, True),
            ("run --json usage", ["run", "--json", "--frob", "--", "true"], "stderr", None,
             False),
            ("run --json policy", ["run", "--json", "-w", nowhere, "--", "true"], "stderr",
             None, False),
            ("run --json runner failure", ["run", "--json", "--runner", "bwrap", "--",
                                           "/bin/true"], "stderr", untrusted, True),
            ("probe --json usage", ["probe", "--json", "--frob"], "stdout", None, False),
            ("probe --json config", ["probe", "--json", "--config", nowhere], "stdout", None,
             False),
        ]:
            self.expect(label, args, "error", status=125, where=where, env=env,
                        absent=() if failure else ["error.runnerFailure"])

    def wrap(self, runner_ok):
        self.expect("wrap danger-full-access",
                    ["wrap", "-m", "danger-full-access", "-w", self.ws, "--", "true"], "wrap",
                    absent=["enforcement"], status=0)
        if not runner_ok:
            return
        for label, args in [
            ("wrap read-only", ["wrap", "--config", self.config, "-w", self.ws, "--", "true"]),
            ("wrap workspace-write landlock",
             ["wrap", "--config", self.config, "--runner", "landlock", "-m", "workspace-write",
              "-w", self.ws, "--", "true"]),
        ]:
            self.expect(label, args, "wrap", status=0, extra=self.rule_absent)
        if shutil.which("bwrap"):
            self.expect("wrap workspace-write bwrap",
                        ["wrap", "--config", self.config, "--runner", "bwrap", "-m",
                         "workspace-write", "-w", self.ws, "--", "true"], "wrap", status=0,
                        extra=self.rule_absent)

    def bash_and_run(self, runner_ok):
        dfa = ["sandbox." + k for k in CONFINED_ONLY]
        self.expect("bash --json danger-full-access",
                    ["bash", "--json", "-m", "danger-full-access", "-w", self.ws, "-c", "true"],
                    "bash", absent=dfa + ["signal"], status=0)
        self.expect("run --json danger-full-access",
                    ["run", "--json", "-m", "danger-full-access", "-w", self.ws, "--", "true"],
                    "run", absent=dfa + ["signal"], status=0, where="stderr")
        if not runner_ok:
            return
        common = ["--config", self.config, "-w", self.ws]
        self.expect("bash --json exit", ["bash", "--json"] + common + ["-c", "exit 3"], "bash",
                    absent=["signal"], status=3)
        self.expect("bash --json signal",
                    ["bash", "--json"] + common + ["-c", "kill -TERM $$"], "bash",
                    absent=["exitCode"], status=128 + 15)
        self.expect("bash --json workspace-write",
                    ["bash", "--json", "-m", "workspace-write"] + common + ["-c", "echo hi > f"],
                    "bash", absent=["signal"], status=0)
        # a refusal with its object: a path, then an address (SPEC 9)
        for label, extra, command in [
                ("bash --json denied write", [], "echo hi > f"),
                ("bash --json denied connect", ["--network", "off"],
                 "exec 3<>/dev/tcp/127.0.0.1/9")]:
            value = self.expect(label, ["bash", "--json"] + extra + common + ["-c", command],
                                "bash", absent=["signal"], status=1)
            if value is not None and not value["sandbox"]["denials"]:
                self.problems.append("%s: no denial listed: %r" % (label, value["sandbox"]))
        self.expect("run --json exit", ["run", "--json"] + common + ["--", "sh", "-c", "exit 3"],
                    "run", absent=["signal"], status=3, where="stderr")
        self.expect("run --json signal",
                    ["run", "--json"] + common + ["--", "sh", "-c", "kill -TERM $$"], "run",
                    absent=["exitCode"], status=128 + 15, where="stderr")

    def probe(self, runner_ok):
        unusable = ["enforcement", "runnerPath"]
        self.expect("probe --json seatbelt on Linux", ["probe", "--json", "--runner", "seatbelt"],
                    "probe", absent=unusable + ["runnerFailure"], status=1)
        self.expect("probe --json untrusted bwrap", ["probe", "--json", "--runner", "bwrap"],
                    "probe", absent=unusable, status=1, env={"CONFINE_RUNNER_PATH": self.untrusted})
        if runner_ok:
            self.expect("probe --json", ["probe", "--json", "--config", self.config], "probe",
                        absent=["reason", "runnerFailure"], status=0)
            self.expect("probe --json landlock",
                        ["probe", "--json", "--config", self.config, "--runner", "landlock"],
                        "probe", absent=["reason", "runnerFailure"], status=0)

    def shapes_group(self):
        runner_ok = self.runner_works()
        self.errors()
        self.wrap(runner_ok)
        self.bash_and_run(runner_ok)
        self.probe(runner_ok)
        return runner_ok

    # -- help texts and the man page --
    def printed_keys(self, node, path, out):
        """Every key of `node` that an output prints (pending ones aside)."""
        while isinstance(node, (Arr, NullOr)):
            node = node.item if isinstance(node, Arr) else node.node
        if not isinstance(node, Obj):
            return out
        for key, sub in node.members.items():
            here = "%s.%s" % (path, key)
            if here in self.pending:
                continue
            out.add(key)
            self.printed_keys(sub, here, out)
        return out

    def help_group(self, man_path):
        s10, s15 = section(self.spec, 10), section(self.spec, 15)
        helps = {c: self.run(([c] if c else []) + ["--help"]).stdout
                 for c in ["", "run", "bash", "wrap", "probe"]}
        with open(man_path, encoding="utf-8") as f:
            man = f.read().replace("\\-", "-")

        def names(text, word):
            return re.search(r'(?<![\w.])"?%s\b' % re.escape(word), text) is not None

        # configuration keys: SPEC 10's, then SPEC 15's table (env's own)
        m = re.search(r"a JSON object with the\s+keys (.*?) and the policy keys", s10, re.S)
        if not m:
            raise Failure("SPEC 10 no longer lists the configuration keys")
        keys = code_spans(m.group(1))
        for row in re.finditer(r"^\| `(\w+)`([^|]*)\|", s15, re.M):
            keys.append(row.group(1))
            if row.group(1) == "env":  # its own keys, in parentheses
                keys.extend(code_spans(row.group(2)))
        for key in keys:
            for where, text in (("confine --help", helps[""]), ("confine.1", man)):
                if not names(text, key):
                    self.problems.append("%s does not name the config key %s" % (where, key))
        # forwarded signals
        m = re.search(r"confine forwards (.*?) to the run", s10, re.S)
        if not m:
            raise Failure("SPEC 10 no longer lists the forwarded signals")
        signals = re.findall(r"SIG[A-Z0-9]+", m.group(1))
        for sig in signals:
            for where, text in (("confine run --help", helps["run"]), ("confine.1", man)):
                if sig not in text:
                    self.problems.append("%s does not name the forwarded %s" % (where, sig))
        # what stderr carries besides the command's: confine's own lines
        plain_man = re.sub(r"\s+", " ", re.sub(r'^\.[A-Z]{1,2} |"|\\f[BIPR]', "", man,
                                               flags=re.M))
        for where, text in (("confine run --help", helps["run"]),
                            ("confine bash --help", helps["bash"]), ("confine.1", plain_man)):
            for line in ("confine: MESSAGE", "confine: warning:"):
                if line not in text:
                    self.problems.append("%s does not say confine writes '%s' on stderr"
                                         % (where, line))
        # every printed field of each shape, in its help and the man page
        for shape, command in (("run", "run"), ("bash", "bash"), ("wrap", "wrap"),
                               ("probe", "probe"), ("error", "")):
            for key in sorted(self.printed_keys(self.shapes[shape], shape, set())):
                for where, text in (("confine %s --help" % command, helps[command]),
                                    ("confine.1", man)):
                    if '"%s"' % key not in text:
                        self.problems.append("%s does not show the %s field \"%s\""
                                             % (where, shape, key))
        self.checked += len(keys) + len(signals)


def main():
    if len(sys.argv) != 5 or sys.argv[4] not in ("shapes", "help"):
        print(__doc__, file=sys.stderr)
        return 2
    confine, launcher, spec_path, group = sys.argv[1:]
    confine, launcher = os.path.abspath(confine), os.path.abspath(launcher)
    must_work = os.environ.get("CONFINE_MUST_WORK") == "1"
    try:
        c = Contract(confine, launcher, spec_path)
    except Failure as e:
        print("contract: %s" % e, file=sys.stderr)
        return 1
    try:
        if group == "shapes":
            runner_ok = c.shapes_group()
        else:
            man = os.path.join(os.path.dirname(os.path.abspath(spec_path)), "man", "confine.1")
            c.help_group(man)
            runner_ok = True
    except Failure as e:
        print("contract: %s" % e, file=sys.stderr)
        return 1
    finally:
        c.close()
    for p in c.problems:
        print("FAIL %s" % p)
    print("%d outputs or texts checked against doc/SPEC.md, %d problems"
          % (c.checked, len(c.problems)))
    if c.problems:
        return 1
    if not runner_ok:
        if must_work:
            print("no runner works here but CONFINE_MUST_WORK=1")
            return 1
        print("no runner works here: the confined cases were skipped")
        return SKIP
    return 0


if __name__ == "__main__":
    sys.exit(main())
