#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The table of options (src/common/options.def) against every door (TAP).

``table.py check``: the bindings' copies of the table
(bindings/python/confine/options.json, bindings/node/options.json) equal
``confine options --json``; doc/SPEC.md 15's option table names every
policy row's config key and flag; both packages take every policy row
(Python: a hook for each keyword, Node: an entry that forwards it).

``table.py cases``: for every row of the policy (doc/SPEC.md 15, mode and
the workspace root), the values its type refuses (a NUL, text that is not
UTF-8, past the bound, the wrong type, relative where an absolute path is
needed) and one value it takes are made from the row, and each is given
through the CLI flag (``confine wrap``, whose JSON names the code), the
config key (``confine wrap --config``), Python and Node. A refusal must
have, at each door, exactly the code doc/SPEC.md 16's table of codes by
kind and door gives (read from SPEC, the one home of the decision: a
config file's NUL or wrong JSON type is its reader's ``INVALID_CONFIG``);
every kind of that table is walked; nothing runs. A value taken must
be echoed as the same policy by every door's wrap. A door that cannot be
given a value (a NUL in an argv word) is left out of that case, by name.

Two kinds of rows beside the policy's: the provider's words (``runner``,
section 4): a word not among the row's choices and a value of the wrong
type are ``INVALID_CONFIG`` at every door, the word's message naming it
and listing the row's choices; and the run's decider (type ``decider``,
``--ask-host``/``ask_host``/``askHost``): given to wrap, ``USAGE`` at every
door; not a function, ``INVALID_POLICY`` at both packages.

Environment (set by Meson): as doors.py (CONFINE_LIBRARY, CONFINE_BIN,
CONFINE_TEST_NODE).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, HERE)
import doors  # noqa: E402
confine = doors.confine

CLI = os.environ["CONFINE_BIN"]
NODE = os.environ.get("CONFINE_TEST_NODE") or None


DOORS = ("python", "node", "cli", "config")


def spec_codes():
    """doc/SPEC.md 16's table of codes: {kind: {door: code}}, a door that
    cannot be given the value or takes it left out."""
    spec = open(os.path.join(ROOT, "doc", "SPEC.md"), encoding="utf-8").read()
    start = spec.index("**The code of each mistake, door by door**")
    out = {}
    block = spec[start:].split("\n\n")[1].splitlines()
    for line in block[2:]:  # after the head and its rule
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        out[cells[0]] = {door: c.strip("`") for door, c in zip(DOORS, cells[1:])
                         if c.startswith("`")}
    return out


CODES = spec_codes()


def table():
    done = subprocess.run([CLI, "options", "--json"], capture_output=True, check=True)
    return json.loads(done.stdout)["options"]


def nest(name, value):
    """{"a": {"b": value}} for "a.b"."""
    for part in reversed(name.split(".")):
        value = {part: value}
    return value


def merge(a, b):
    out = dict(a)
    for k, v in b.items():
        out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def flag_words(row, value):
    """The CLI words giving `value` to the row's flag (None: it cannot)."""
    t = row["type"]
    if t == "bool":
        return [row["flag"]] if value != row["default"] else []
    if t == "env-set":
        return [w for k, v in value.items() for w in (row["flag"], "%s=%s" % (k, v))]
    if isinstance(value, list):
        return [w for item in value for w in (row["flag"], item)]
    if isinstance(value, (str, bytes, int)):
        return [row["flag"], value if isinstance(value, (str, bytes)) else str(value)]
    return None


def good_value(row, ws):
    t = row["type"]
    if t in ("int", "seconds"):
        return row["min"] + 1
    if t == "size":
        return str(row["min"] * 2)
    if t == "enum":
        return "workspace-write" if row["key"] == "mode" else row["choices"][1]
    return {
        "bool": not row["default"],
        "path-list": ["%s/sub" % ws] if row["key"] != "denyRead" else ["%s/secret" % ws],
        "path": ws,
        "host-list": ["example.org"],
        "pattern-list": ["MY_VAR"],
        "env-set": {"MY_VAR": "1"},
    }.get(t)


def bad_values(row, ws):
    """(kind, value for the packages, the CLI word or None, the config
    value or None, {door: code}) for each refusal the row's type has."""
    t, out = row["type"], []
    text = t in ("host-list", "pattern-list", "enum")
    wrap = (lambda v: [v]) if t.endswith("-list") else (lambda v: v)
    nul = {"path-list": "%s/a\0b" % ws, "path": "%s\0/sub" % ws, "host-list": "a\0.test",
           "pattern-list": "A\0B", "enum": "on\0"}.get(t)
    if nul is not None:
        out.append(("nul", wrap(nul), None, wrap(nul),
                    CODES["nul"]))
    if text:
        out.append(("non-UTF-8", wrap(b"caf\xe9"), wrap(b"caf\xe9"), None,
                    CODES["non-UTF-8"]))
    if t in ("path-list", "path") and row["length"]:
        long = "/" + "x" * (row["length"] + 1)
        out.append(("past the length bound", wrap(long), wrap(long), wrap(long),
                    CODES["past the length bound"]))
    if t.endswith("-list") and row["max"]:
        many = (["h%d.test" % i for i in range(row["max"] + 1)] if t == "host-list"
                else ["%s/d%d" % (doors.OUT, i) for i in range(row["max"] + 1)])
        out.append(("past the count bound", many, many, many, CODES["past the count bound"]))
    if t in ("int", "size", "seconds") and row["max"]:
        past = str(row["max"] + 1)
        out.append(("past the bound", past, past, past, CODES["past the bound"]))
    wrong = {"bool": "yes", "enum": 5, "path": 5}.get(t, 5 if not t.endswith("-list") else [5])
    if t in ("int", "size", "seconds"):
        wrong = [5]
    if t == "env-set":
        wrong = {"MY_VAR": 5}
    out.append(("wrong type", wrong, None, wrong, CODES["wrong type"]))
    if row["key"] in ("writableRoots", "allowUnixSockets", "workspaceRoot"):
        # Relative: the packages and the CLI take it from the current
        # directory; a config file has none (doc/SPEC.md 10, 15).
        out.append(("relative in a config file", None, None, wrap("sub"),
                    CODES["relative in a config file"]))
    return out


def policy_rows(rows):
    return [r for r in rows if (r["spec"] == "15" or r["key"] in ("mode", "workspaceRoot"))
            and r["python"] and r["node"] and r["flag"] and r["type"] != "decider"]


def cli_wrap(words, ws, config=None, trusted=False):
    """{"code"} or {"policy"} from `confine wrap`; `trusted`: naming the
    staged launcher (doors.trust()), as an accepted value's call must."""
    args = [CLI.encode(), b"wrap"]
    if trusted and config is None:
        args.append(b"--config=" + doors.LAUNCHER.encode())
    elif trusted and "landlockLauncher" not in config:
        config = merge({"landlockLauncher": doors.PROVIDER_LAUNCHER}, config)
    if "workspaceRoot" not in (config or {}):
        args += [b"-w", ws.encode()]
    if "mode" not in (config or {}):
        args += [b"-m", b"workspace-write"]
    if config is not None:
        path = os.path.join(ws, "..", "config.json")
        with open(path, "w") as f:
            json.dump(config, f)
        args.insert(2, b"--config=" + path.encode())
    args += [w if isinstance(w, bytes) else w.encode("utf-8", "surrogateescape") for w in words]
    done = subprocess.run(args + [b"--", b"true"], capture_output=True, cwd=ws,
                          env=dict(os.environ, CONFINE_CONFIG=""), timeout=60)
    out = json.loads(done.stdout or b"{}")
    if "error" in out:
        return {"code": out["error"]["code"], "message": out["error"]["message"]}
    return {"policy": out.get("policy")}


def node_values(value):
    """A value as node-door.js gets it through JSON: bytes are text that is
    not UTF-8 there (a lone surrogate, \\udcXX for the byte XX)."""
    if isinstance(value, bytes):  # each byte that is not UTF-8 a lone surrogate, as Python's
        return value.decode("utf-8", "surrogateescape")
    if isinstance(value, list):
        return [node_values(v) for v in value]
    if isinstance(value, dict):
        return {k: node_values(v) for k, v in value.items()}
    return value


def node_door(kind, rows, ws):
    path = os.path.join(ws, "..", "cases.json")
    with open(path, "w") as f:
        json.dump({"rows": rows}, f)
    done = subprocess.run([NODE, os.path.join(HERE, "node-door.js"), kind, path, ws, doors.OUT],
                          capture_output=True, text=True, env=dict(os.environ, CONFINE_CONFIG=""),
                          timeout=600, cwd=ws)
    if done.returncode != 0:
        raise AssertionError("node-door.js failed: " + done.stderr)
    return {r["name"]: r for r in map(json.loads, done.stdout.splitlines())}


def python_wrap(kw, ws, trusted=False):
    kw = merge({"workspace": ws, "mode": "workspace-write"}, kw)
    if trusted:
        kw["provider"] = doors.PROVIDER
    try:
        return {"policy": confine.wrap(["true"], **kw).policy}
    except confine.Error as e:
        return {"code": e.code, "message": e.message}
    except Exception as e:  # not the contract's
        return {"code": None, "message": "%s: %s" % (type(e).__name__, e)}


def kwargs(row, door, value):
    name = row[door]
    if name == "workspace":
        return {"workspace": value}
    return nest(name, value)


def decider_cases(rows):
    """The decider rows (type decider: --ask-host, ask_host, askHost): the
    run's, so not walked as a policy value through wrap. Each door refuses
    a decider given to wrap with USAGE (its argv has no one to ask), and
    the packages refuse one that is not a function with INVALID_POLICY
    (the CLI's COMMAND is any word: there is no wrong type of it)."""
    out = []
    for row in rows:
        if row["type"] != "decider":
            continue
        out.append((row, "given to wrap", "wrap", CODES["decider: given to wrap"]))
        out.append((row, "not a function", "run", CODES["decider: not a function"]))
    return out


def provider_cases(rows):
    """The provider's word rows (section 4, type enum: runner): a word not
    among the row's choices, and a value of the wrong type, are
    INVALID_CONFIG at every door (a provider setting), the word's message
    the library's, naming it and listing the row's choices."""
    out = []
    for row in rows:
        if row["spec"] != "4" or row["type"] != "enum":
            continue
        words = row["choices"]
        listed = "unknown %s \"docker\" (expected %s or %s)" % (
            row["key"], ", ".join(words[:-1]), words[-1])
        out.append((row, "an unknown word", "docker", listed,
                    CODES["provider: an unknown word"]))
        out.append((row, "wrong type", 5, None, CODES["provider: wrong type"]))
    return out


def python_provider(name, value, ws):
    try:
        confine.wrap(["true"], workspace=ws, provider=confine.Provider(**{name: value}))
        return {"code": None, "message": "accepted"}
    except confine.Error as e:
        return {"code": e.code, "message": e.message}
    except Exception as e:  # not the contract's
        return {"code": None, "message": "%s: %s" % (type(e).__name__, e)}


def python_call(call, kw, ws):
    marker = os.path.join(ws, "ran")
    try:
        if call == "wrap":
            confine.wrap(["touch", marker], workspace=ws, **kw)
        else:
            confine.run(["touch", marker], workspace=ws, **kw)
        return {"code": None, "message": "ran" if os.path.exists(marker) else "accepted"}
    except confine.Error as e:
        return {"code": e.code, "message": e.message}
    except Exception as e:  # not the contract's
        return {"code": None, "message": "%s: %s" % (type(e).__name__, e)}


def same_text(row, got):
    """The packages' messages are one text (doc/SPEC.md 16, "One text per
    refusal"): each package's spelling of the option aside."""
    if "python" not in got or "node" not in got:
        return []
    texts = {}
    for door in ("python", "node"):
        message = got[door].get("message") or ""
        for name in {row[door], row["key"]}:  # the door's spelling, or the library's key
            message = re.sub(r"(?<![\w.-])%s(?![\w-])" % re.escape(name), "{name}", message)
        texts[door] = message
    if texts["python"] == texts["node"]:
        return []
    return ["the packages' texts differ: python %r, node %r" % (texts["python"][:200],
                                                                texts["node"][:200])]


def cases(ws):
    all_rows = table()
    rows = policy_rows(all_rows)
    deciders = decider_cases(all_rows)
    providers = provider_cases(all_rows)
    bad, good = [], []
    for row in rows:
        for kind, value, word, config_value, codes in bad_values(row, ws):
            bad.append((row, kind, value, word, config_value, codes))
        value = good_value(row, ws)
        if value is not None:
            good.append((row, value))
        if row["type"].endswith("-list") and row["max"]:
            # Exactly at the count bound: taken (the bound is the table's)
            good.append((row, ["h%d.test" % i for i in range(row["max"])]
                         if row["type"] == "host-list"
                         else ["%s/d%d" % (doors.OUT, i) for i in range(row["max"])]))
    node_bad = node_door("bad", [
        {"name": "%s: %s" % (row["node"], kind), "node": {
            "call": "wrap", "option": row["node"],
            "args": node_values(kwargs(row, "node", value))}}
        for row, kind, value, _, _, codes in bad if "node" in codes] + [
        {"name": "%s: %s" % (row["node"], kind), "node": {
            "call": call, "option": row["node"], "args": {row["node"]: 5}}}
        for row, kind, call, _ in deciders] + [
        {"name": "%s: %s" % (row["node"], kind), "node": {
            "call": "wrap", "option": row["node"], "args": {row["node"]: value}}}
        for row, kind, value, _, _ in providers], ws) if NODE else {}
    node_good = node_door("accepted", [
        {"name": "%s %d" % (row["node"], i), "node": kwargs(row, "node", value)}
        for i, (row, value) in enumerate(good)],
        ws) if NODE else {}
    checks = 0
    failed = 0
    lines = []
    for row, kind, value, word, config_value, codes in bad:
        label = "%s (%s, %s): %s" % (row["key"], row["flag"], row["python"], kind)
        got = {}
        if "python" in codes:
            kw = kwargs(row, "python", value)
            got["python"] = python_wrap(kw, ws)
        if "node" in codes and NODE:
            got["node"] = node_bad.get("%s: %s" % (row["node"], kind)) or {"code": "no answer"}
        if "cli" in codes and word is not None:
            got["cli"] = cli_wrap(flag_words(row, word), ws)
        if "config" in codes and config_value is not None:
            got["config"] = cli_wrap([], ws, nest(row["key"], config_value))
        problems = ["%s: %s, expected %s%s" % (door, g.get("code") or "accepted", codes[door],
                                               " (%s)" % g.get("message", "")[:160])
                    for door, g in got.items() if g.get("code") != codes[door]]
        problems += ["%s: SPEC 16 gives it %s, but it was not walked" % (door, codes[door])
                     for door in codes if door not in got and (door != "node" or NODE)]
        problems += same_text(row, got)
        checks += 1
        lines.append((label, problems))
    for row, kind, value, listed, codes in providers:
        label = "%s (%s, %s): %s" % (row["key"], row["flag"], row["python"], kind)
        got = {"python": python_provider(row["python"], value, ws),
               "config": cli_wrap([], ws, {row["key"]: value})}
        if NODE:
            got["node"] = node_bad.get("%s: %s" % (row["node"], kind)) or {"code": "no answer"}
        if "cli" in codes:
            got["cli"] = cli_wrap([row["flag"], value], ws)
        problems = ["%s: %s, expected %s (%s)" % (door, g.get("code") or "accepted", codes[door],
                                                  g.get("message", "")[:160])
                    for door, g in got.items() if g.get("code") != codes[door]]
        if listed:  # the same words at every door, after the door's own lead
            problems += ["%s: the message lacks %r: %s" % (door, listed, g.get("message"))
                         for door, g in got.items() if listed not in (g.get("message") or "")]
        checks += 1
        lines.append((label, problems))
    for row, kind, call, codes in deciders:
        label = "%s (%s, %s): %s" % (row["node"], row["flag"], row["python"], kind)
        got = {"python": python_call(call, {row["python"]: 5}, ws)}
        if NODE:
            got["node"] = node_bad.get("%s: %s" % (row["node"], kind)) or {"code": "no answer"}
        if "cli" in codes:
            got["cli"] = cli_wrap([row["flag"], "/bin/true"], ws)
        problems = ["%s: %s, expected %s (%s)" % (door, g.get("code") or "accepted", codes[door],
                                                  g.get("message", "")[:160])
                    for door, g in got.items() if g.get("code") != codes[door]]
        if os.path.exists(os.path.join(ws, "ran")):
            problems.append("a refused call ran")
        checks += 1
        lines.append((label, problems))
    for i, (row, value) in enumerate(good):
        label = "%s (%s, %s): takes %s" % (row["key"], row["flag"], row["python"],
                                           ("%d entries, the bound" % len(value)
                                            if isinstance(value, list) and len(value) > 9
                                            else repr(value)))
        echoed = {"python": python_wrap(kwargs(row, "python", value), ws, trusted=True),
                  "cli": cli_wrap(flag_words(row, value), ws, trusted=True),
                  "config": cli_wrap([], ws, nest(row["key"], value), trusted=True)}
        if NODE:
            n = node_good.get("%s %d" % (row["node"], i)) or {}
            echoed["node"] = {"policy": n["policy"]} if "policy" in n else n
        shown = {d: json.dumps(v.get("policy") or v.get("code"), sort_keys=True)
                 for d, v in echoed.items()}
        # Taken: the same policy echoed by every door; or, for requireFull,
        # the same refusal by the ladder (SANDBOX_UNAVAILABLE: a wrap argv
        # cannot stand in for a missing default protection, doc/SPEC.md
        # 15), which is not a value's refusal.
        problems = [] if len(set(shown.values())) == 1 and all(
            "policy" in v or (row["key"] == "requireFull" and v.get("code") == "SANDBOX_UNAVAILABLE")
            for v in echoed.values()) else [
            "%s: %s" % (d, s[:300]) for d, s in shown.items()]
        checks += 1
        lines.append((label, problems))
    walked = ({kind for _, kind, _, _, _, _ in bad} |
              {"provider: " + kind for _, kind, _, _, _ in providers} |
              {"decider: " + kind for _, kind, _, _ in deciders})
    checks += 1
    lines.append(("every kind of SPEC 16's table of codes is walked, and no other",
                  ["not walked: %s" % k for k in sorted(set(CODES) - walked)] +
                  ["not in SPEC 16's table: %s" % k for k in sorted(walked - set(CODES))]))
    print("1..%d" % checks)
    for i, (label, problems) in enumerate(lines, 1):
        if problems:
            failed += 1
            print("not ok %d - %s" % (i, label))
            for p in problems:
                print("#   " + p)
        else:
            print("ok %d - %s%s" % (i, label, "" if NODE else " # node not found"))
    return 1 if failed else 0


def check():
    out = []
    rows = table()
    for copy in ("bindings/python/confine/options.json", "bindings/node/options.json"):
        with open(os.path.join(ROOT, copy)) as f:
            same = json.load(f)["options"] == rows
        out.append(("%s equals confine options --json" % copy, None if same else
                    "it differs: run `meson compile -C build options-json`"))
    spec = open(os.path.join(ROOT, "doc", "SPEC.md")).read()
    section = spec[spec.index("## 15. "):spec.index("**The table of options**")]
    for r in rows:
        if r["spec"] != "15" or not r["key"]:
            continue
        top = r["key"].split(".")[0]
        missing = [w for w in ("`%s`" % top, r["flag"]) if w and w not in section]
        out.append(("SPEC 15's table names %s and %s" % (r["key"], r["flag"]),
                    "missing %s" % missing if missing else None))
    sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
    from confine import _policy
    for keyword, option in _policy.OPTIONS.items():
        out.append(("Python sets %s" % keyword, None if option.apply else "no hook"))
    if NODE:
        script = ("const {POLICY_OPTIONS} = require(%s);"
                  "for (const [k, v] of Object.entries(POLICY_OPTIONS)) "
                  "console.log(k, v.flags.length ? 'ok' : 'unsupported');"
                  % json.dumps(os.path.join(ROOT, "bindings", "node", "lib", "policy-options.js")))
        done = subprocess.run([NODE, "-e", script], capture_output=True, text=True, check=True)
        for line in done.stdout.splitlines():
            name, state = line.split()
            out.append(("Node forwards %s" % name, None if state == "ok" else state))
    print("1..%d" % len(out))
    failed = 0
    for i, (label, problem) in enumerate(out, 1):
        failed += bool(problem)
        print("%s %d - %s%s" % ("not ok" if problem else "ok", i, label,
                                ": " + problem if problem else ""))
    return 1 if failed else 0


def main():
    kind = sys.argv[1] if len(sys.argv) > 1 else "check"
    if kind == "check":
        return check()
    base = tempfile.mkdtemp(prefix="table.", dir=doors.doors_parent())
    ws = os.path.join(base, "ws")
    doors.OUT = os.path.join(base, "outside")
    os.makedirs(os.path.join(ws, "sub"))
    os.makedirs(doors.OUT)
    for i in range(300):  # the directories of a list past its bound
        os.makedirs(os.path.join(doors.OUT, "d%d" % i))
    os.chdir(ws)
    doors.trust(base)
    try:
        return cases(ws)
    finally:
        os.chdir("/")
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
