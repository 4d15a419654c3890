#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Walks a table of tests/golden/ through every door (TAP).

``doors.py bad``: bad-inputs.json. The Python package and the Node package
must refuse each row's value with the row's error code, name the option
(the error's ``option``), give the row's message byte for byte (doc/SPEC.md
16, "One text per refusal": {name} the option as the door spells it), and
run nothing; the CLI must exit 125 for the equivalent flag or config key,
and where the row says ``cliMessage`` its line is the same text (its own
notes of the flag that carried the value aside).

``doors.py accepted``: accepted-inputs.json. wrap() of each package and
``confine wrap`` must take each row's values and echo the same policy.

Environment (set by Meson): CONFINE_LIBRARY (the built library),
CONFINE_BIN (the built confine), CONFINE_TEST_LAUNCHER (the built
landlock-run), CONFINE_TEST_NODE (node, or empty: the Node door is then
reported as skipped, a failure under CONFINE_MUST_WORK=1).

An accepted value reaches the ladder, whose bwrap rung checks the on-disk
launcher by the trust rule (doc/SPEC.md 14): a build under /tmp is rightly
not trusted, so every door's accepted call names a staged copy
(tests/helpers/outside_tmp.py): Python's provider, the CLI's and Node's
config file. A refused value never gets that far.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TABLES = {"bad": os.path.join(HERE, "bad-inputs.json"),
          "accepted": os.path.join(HERE, "accepted-inputs.json")}
sys.path.insert(0, os.path.join(HERE, "..", "..", "bindings", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "helpers"))
import confine  # noqa: E402
from outside_tmp import launcher_config, launcher_outside_tmp  # noqa: E402

CLI = os.environ["CONFINE_BIN"]
NODE = os.environ.get("CONFINE_TEST_NODE") or None


OUT = ""  # the directory outside the workspace ({out}), set by main()
LAUNCHER = None  # the staged launcher's config file, path and provider, set by trust()
PROVIDER_LAUNCHER = None
PROVIDER = None


def trust(directory):
    """Stages the launcher (outside_tmp.py) and writes a config naming it in
    `directory`; sets LAUNCHER (the config's path) and PROVIDER (Python's),
    and CONFINE_TEST_DOOR_CONFIG for node-door.js."""
    global LAUNCHER, PROVIDER, PROVIDER_LAUNCHER
    built = os.environ.get("CONFINE_TEST_LAUNCHER")
    if not built:
        raise AssertionError("CONFINE_TEST_LAUNCHER is not set")
    LAUNCHER = launcher_config(built, directory)
    PROVIDER_LAUNCHER = launcher_outside_tmp(built)
    PROVIDER = confine.Provider(landlock_launcher=PROVIDER_LAUNCHER)
    os.environ["CONFINE_TEST_DOOR_CONFIG"] = LAUNCHER


def place(value, ws):
    """{ws} and {out} replaced, {"$bytes": HEX} made bytes, everywhere in a
    value."""
    if isinstance(value, str):
        return value.replace("{ws}", ws).replace("{out}", OUT)
    if isinstance(value, list):
        return [place(v, ws) for v in value]
    if isinstance(value, dict):
        if set(value) == {"$bytes"}:
            return bytes.fromhex(value["$bytes"])
        return {k: place(v, ws) for k, v in value.items()}
    return value


def camel(keyword):
    head, *rest = keyword.split("_")
    return head + "".join(w.title() for w in rest)


def tree(directory):
    """Every name under `directory` (what a run that ran would change)."""
    out = set()
    for parent, dirs, files in os.walk(directory):
        for name in dirs + files:
            out.add(os.path.relpath(os.path.join(parent, name), directory))
    return out


def python_door(entry, ws):
    args = place(entry["args"], ws)
    argv = args.pop("argv", None)
    command = args.pop("command", None)
    marker = os.path.join(ws, "ran")
    kw = {"workspace": ws, "mode": "workspace-write"}
    kw.update(args)
    try:
        if entry["call"] == "provider":
            confine.Provider(**args).close()
        elif entry["call"] == "run":
            confine.run(["touch", marker] if argv is None else argv, **kw)
        elif entry["call"] == "bash":
            confine.bash("touch " + marker if command is None else command, **kw)
        elif entry["call"] == "wrap":
            confine.wrap(["true"] if argv is None else argv, **kw)
        else:
            raise AssertionError("unknown call " + entry["call"])
    except confine.Error as e:
        return {"code": e.code, "option": e.option, "message": e.message}
    except Exception as e:  # a bare TypeError, AttributeError, ...: not the contract's
        return {"code": None, "option": None, "message": "%s: %s" % (type(e).__name__, e)}
    return {"ran": True}


def node_door(kind, ws):
    done = subprocess.run([NODE, os.path.join(HERE, "node-door.js"), kind, TABLES[kind], ws, OUT],
                          capture_output=True, text=True, env=dict(os.environ, CONFINE_CONFIG=""),
                          timeout=300, cwd=ws)
    if done.returncode != 0:
        raise AssertionError("node-door.js failed: " + done.stderr)
    return {r["name"]: r for r in map(json.loads, done.stdout.splitlines())}


def cli_door(entry, ws):
    args = [a if isinstance(a, bytes) else a.encode("utf-8", "surrogateescape")
            for a in place(entry["args"], ws)]
    if "config" in entry:
        path = os.path.join(ws, "config.json")
        with open(path, "w") as f:
            # \u0000 stays an escape: the config reader must refuse it
            json.dump(place(entry["config"], ws), f)
        args.insert(1, b"--config=" + path.encode())
    done = subprocess.run([CLI.encode()] + args, capture_output=True, cwd=ws,
                          env=dict(os.environ, CONFINE_CONFIG=""), timeout=60)
    return done.returncode, done.stderr.decode("utf-8", "replace").strip()


def known_options(door):
    """The door's policy options, in the table's order, as its message
    for an unknown one lists them ({known} in a row's message)."""
    out = []
    with open(os.path.join(HERE, "..", "..", "bindings", "node", "options.json")) as f:
        rows = json.load(f)["options"]
    for r in rows:
        if r["spec"] == "15" and r[door] and r["type"] != "decider":
            head = r[door].split(".")[0]
            if head not in out:
                out.append(head)
    return ", ".join(out)


def config_key(row):
    """The row's option as a config file spells it (the table's key for
    the Python keyword), or None."""
    if not row.get("python"):
        return None
    with open(os.path.join(HERE, "..", "..", "bindings", "node", "options.json")) as f:
        keys = {r["python"]: r["key"] for r in json.load(f)["options"] if r["key"]}
    return keys.get(row["python"]["option"])


def expected_message(row, door, ws):
    """The row's message at `door` (doc/SPEC.md 16, "One text per
    refusal"): one text for every door, {name} the option as that door
    spells it (the row's option there); a per-door text only where the
    door's own bound differs."""
    text = row["message"]
    if isinstance(text, dict):
        text = text.get(door) or text["node"]
    name = row[door]["option"] if door in ("python", "node") else config_key(row)
    if name is not None:
        text = text.replace("{name}", name).replace(
            "{known}", known_options("node" if door == "cli" else door))
    return place(text, ws)


def cli_text(stderr):
    """The CLI's first line as the library's text: `confine: ` and the
    CLI's own notes of where a value came from (`invalid FLAG: `, `FLAG
    "VALUE": `, ` (given with FLAG)`, a config file's `FILE: key "KEY": `)
    dropped (doc/SPEC.md 16)."""
    line = stderr.splitlines()[0] if stderr else ""
    line = line[len("confine: "):] if line.startswith("confine: ") else line
    line = re.sub(r'^/\S*/config\.json: (?:key "[\w.]+": )?', "", line)
    line = re.sub(r" \(given with -{1,2}[\w-]+\)", "", line)
    return re.sub(r'^(?:invalid -{1,2}[\w-]+: |-{1,2}[\w-]+ "(?:[^"\\]|\\.)*": )', "", line)


def refusal_problem(got, code, option, message):
    """Why `got` is not the expected refusal, or None."""
    if got.get("ran"):
        return "it ran"
    if got["code"] != code:
        return "code %s, expected %s (%s)" % (got["code"], code, got["message"])
    if got["option"] != option:
        return "option %r, expected %r (%s)" % (got["option"], option, got["message"])
    if got["message"] != message:
        return "the message %r, expected %r" % (got["message"], message)
    return None


def accepted(rows, ws):
    """Each row's policy as the three doors echo it: equal, or TAP fails."""
    node = node_door("accepted", ws) if NODE else {}
    print("1..%d" % len(rows))
    failed = 0
    for i, row in enumerate(rows, 1):
        echoed = {}
        kw = {"workspace": ws, "mode": "workspace-write"}
        kw.update(place(row["python"], ws))
        try:
            echoed["python"] = confine.wrap(["true"], provider=PROVIDER, **kw).policy
        except confine.Error as e:
            echoed["python"] = "refused: %s %s" % (e.code, e.message)
        args = [a.encode() for a in place(row["cli"], ws)]
        if b"-m" not in args:
            args = [b"-m", b"workspace-write"] + args
        # The config file's door where the row gives its keys ("config"):
        # a door of its own beside the flags.
        configs = [("cli", LAUNCHER, args)]
        if "config" in row:
            configs.append(("config", launcher_config(os.environ["CONFINE_TEST_LAUNCHER"],
                                                      os.path.dirname(ws),
                                                      place(row["config"], ws)),
                            [b"-m", b"workspace-write"]))
        for door, config, words in configs:
            done = subprocess.run([CLI.encode(), b"wrap", b"--config=" + config.encode(),
                                   b"-w", ws.encode()] + words + [b"--", b"true"],
                                  capture_output=True, cwd=ws,
                                  env=dict(os.environ, CONFINE_CONFIG=""), timeout=60)
            out = json.loads(done.stdout or b"{}")
            echoed[door] = out.get("policy") or "refused: %s" % out.get("error")
        if NODE:
            got = node.get(row["name"]) or {}
            echoed["node"] = got.get("policy") or "refused: %s %s" % (got.get("code"),
                                                                     got.get("message"))
        distinct = {json.dumps(v, sort_keys=True) for v in echoed.values()}
        if len(distinct) != 1 or any(isinstance(v, str) for v in echoed.values()):
            failed += 1
            print("not ok %d - %s: the doors disagree" % (i, row["name"]))
            for door, value in echoed.items():
                print("#   %s: %s" % (door, json.dumps(value, sort_keys=True)))
        else:
            print("ok %d - %s%s" % (i, row["name"], "" if NODE else " (node not found)"))
    return 1 if failed else 0


def doors_parent():
    """Where a test's directories go: under ~/.cache (made if missing), not
    /tmp, which is never writable to a confined command (doc/SPEC.md 3)."""
    parent = os.path.join(os.environ.get("HOME") or "/tmp", ".cache")
    os.makedirs(parent, exist_ok=True)
    return parent


def main():
    global OUT
    kind = sys.argv[1] if len(sys.argv) > 1 else "bad"
    rows = json.load(open(TABLES[kind]))["rows"]
    base = tempfile.mkdtemp(prefix="doors.", dir=doors_parent())
    ws = os.path.join(base, "ws")
    OUT = os.path.join(base, "outside")
    os.makedirs(os.path.join(ws, "sub"))
    os.makedirs(OUT)
    os.chdir(ws)  # relative values are taken from here at every door
    if kind == "accepted":
        trust(base)
        try:
            return accepted(rows, ws)
        finally:
            os.chdir("/")
            shutil.rmtree(base, ignore_errors=True)
    before = tree(base)
    node = {}
    if NODE:
        node = node_door("bad", ws)
    checks = []
    for row in rows:
        for door in ("python", "node"):
            if row[door] is not None:
                checks.append((row, door, row[door]))
        # the CLI: one entry, or a list of them (the flag and the config
        # key, each a door of its own)
        for entry in (row["cli"] if isinstance(row["cli"], list) else [row["cli"]]):
            if entry is not None:
                checks.append((row, "cli", entry))
    print("1..%d" % (len(checks) + 1))
    failed = 0
    if tree(base) != before:
        failed += 1
        print("not ok 1 - node: a call ran: %s" % sorted(tree(base) ^ before))
    else:
        print("ok 1 - node: no call ran")
    for i, (row, door, entry) in enumerate(checks, 2):
        label = "%s%s: %s" % (door, " (config)" if door == "cli" and "config" in entry else "",
                              row["name"])
        if door == "node" and not NODE:
            if os.environ.get("CONFINE_MUST_WORK") == "1":
                print("not ok %d - %s # node is missing, but CONFINE_MUST_WORK=1" % (i, label))
                failed += 1
            else:
                print("ok %d - %s # SKIP node not found" % (i, label))
            continue
        if door == "cli":
            status, stderr = cli_door(entry, ws)
            want_exit = row.get("exit", 125)
            problem = (None if status == want_exit
                       else "exit %d, expected %d (%s)" % (status, want_exit, stderr))
            if problem is None and row.get("cliMessage"):
                want = expected_message(row, "cli", ws)
                if cli_text(stderr) != want:
                    problem = "the message %r, expected %r" % (cli_text(stderr), want)
            for name in ("config.json",):
                if os.path.exists(os.path.join(ws, name)):
                    os.unlink(os.path.join(ws, name))
        else:
            got = python_door(entry, ws) if door == "python" else node.get(row["name"])
            problem = ("no answer from node-door.js" if got is None
                       else refusal_problem(got, row["code"], row[door]["option"],
                                            expected_message(row, door, ws)))
        after = tree(base)
        if after != before:
            problem = (problem + "; " if problem else "") + "the tree changed: %s" % sorted(
                after ^ before)
            shutil.rmtree(ws)
            os.makedirs(os.path.join(ws, "sub"))
        if problem:
            failed += 1
            print("not ok %d - %s: %s" % (i, label, problem))
        else:
            print("ok %d - %s" % (i, label))
    os.chdir("/")
    shutil.rmtree(base, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
