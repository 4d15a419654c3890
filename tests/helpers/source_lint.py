# SPDX-License-Identifier: MIT
"""Checks of the source tree's shape (issue 27), one per subcommand:

  rungs   nothing outside src/lib/rungs/ names a rung (the rung table aside):
          no CONFINE_RUNNER_* or CONFINE_LAYER_* of a rung in src/'s code,
          and in src/lib's and src/cli's no CF_*/cf_* name built on a rung's
          (CF_*_BWRAP, cf_landlock_*), no rung's quoted name, no typed
          `--runner NAME` or "landlock-run: " prefix; RUNG_EXEMPT lists the
          places that may, each with its reason
  layers  src/lib includes only downward: each folder is a layer (LAYERS,
          lowest first) and a file includes headers of its own layer or
          lower ones, so no folder cycle can form
  links   the same at link level: no object of src/lib uses a symbol only
          a higher layer's object defines (nm on the built objects, so a
          call through confine.h counts as an include does)
  length  no source file over 700 lines, but the known exceptions (each
          must still be over: a split one leaves the list)
  map     the README's map of the source tree names folders that exist and
          every folder under src/; the file maps in headers (comment lines
          "  name.c   what it holds") name files that exist

Usage: source_lint.py CHECK SOURCE_ROOT [OBJECT_DIR (links: libconfine-internal's)]"""
import os
import re
import subprocess
import sys

# ---- rungs -----------------------------------------------------------------

RUNGS = "bwrap|landlock|seatbelt|gvisor|runnerCommand"
# In code, anywhere in src/ (the launcher is the landlock rung's program,
# but it has no use for the library's names): a rung's runner or layer.
RUNG_IDENT = re.compile(
    r"\bCONFINE_(?:RUNNER|LAYER)_(?:BWRAP|LANDLOCK|SEATBELT|RUNNER_COMMAND|GVISOR)\b")
# In the library's and the command's code: an internal name built on a
# rung's (CF_*_BWRAP, cf_landlock_*, ...): its home is the rung's folder.
RUNG_INTERNAL = re.compile(r"\b(?:CF|cf)_\w*?(?:BWRAP|LANDLOCK|SEATBELT|GVISOR|"
                           r"bwrap|landlock|seatbelt|gvisor)\w*")
# In their strings: a rung's quoted name, a hand-typed `--runner NAME`, or
# the launcher's prefix typed out (launcher-protocol.h's LAUNCHER_PREFIX).
RUNG_WORD = re.compile(r'"(?:%s)"|--runner (?:%s)\b|"landlock-run: ' % (RUNGS, RUNGS))
# Where a rung may be named outside src/lib/rungs/, and why. A file: the
# whole file; (file, name): that name there only.
RUNG_EXEMPT = {
    "src/lib/vocabulary.c":
        "the contract's words for layers and runners (confine_layer_name, "
        "confine_runner_name): the public header spells them, every layer "
        "prints them, the rung rows carry only their ids",
    "src/launcher":
        "landlock-run is the landlock rung's own program",
    "src/common":
        "the launcher's protocol and flag words (shared with the launcher)",
    ("src/lib/profiles/plan.h", "CF_PLAN_BWRAP"):
        "the plan's flavour with mount masks (every masking rung's); its "
        "name is the plan owner's to change",
    ("src/lib/profiles/plan.c", "CF_PLAN_BWRAP"): "as plan.h",
    ("src/lib/profiles/plan.h", "cf_plan_bwrap_protections"): "as CF_PLAN_BWRAP",
    ("src/lib/profiles/plan.c", "cf_plan_bwrap_protections"): "as CF_PLAN_BWRAP",
    ("src/lib/profiles/protect.c", "cf_plan_bwrap_protections"): "as CF_PLAN_BWRAP",
    ("src/lib/harness/fs.c", "CF_PLAN_BWRAP"):
        "the file API refuses what the masking plan protects",
    ("src/lib/spawn/placeholders.c", "CF_PLAN_BWRAP"):
        "the placeholders are the masking plan's stand-ins",
    ("src/lib/local/local-provider.c", "cf_host_landlock_abi"):
        "the kernel's Landlock ABI is a host fact the verdict reports "
        "(confine_verdict.landlock_abi)",
    ("src/lib/local/policy-check.c", "cf_host_landlock_abi"): "as local-provider.c",
    ("src/lib/spawn/process.c", "CONFINE_LAYER_LANDLOCK"):
        "the run's clauses weakened by the layers the launcher reported; "
        "re-running the clause engine (rungs/, a higher layer) with them as "
        "facts is a known leftover of issue 27",
    ("src/cli/policy-json.c", "CONFINE_LAYER_LANDLOCK"):
        "the launcher's landlock-partial word stands where the landlock "
        "layer does in the layers array (doc/SPEC.md 12)",
    ("src/cli/config-file.c", '"runnerCommand"'):
        "the config key runnerCommand (doc/SPEC.md 4), spelled as its rung is",
    ("src/cli/config-words.c", '"runnerCommand"'): "as config-file.c",
    ("src/cli/export/k8s.c", '"gvisor"'):
        "the Kubernetes RuntimeClass a cluster names gVisor by, not the rung",
}
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def code_lines(path):
    """The file's lines with comments blanked (line numbers kept)."""
    text = "\n".join(read(path))
    return COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text).split("\n")


def rung_exempt(rel, name, used):
    if any(rel == k or rel.startswith(k + "/") for k in RUNG_EXEMPT if isinstance(k, str)):
        return True
    used.add((rel, name))
    return (rel, name) in RUNG_EXEMPT


def check_rungs(root, _=None):
    bad, used = [], set()
    for path in sources(root, "src"):
        rel = os.path.relpath(path, root)
        if rel.startswith("src/lib/rungs/"):
            continue
        inner = rel.startswith(("src/lib/", "src/cli/"))
        for n, line in enumerate(code_lines(path), 1):
            if line.lstrip().startswith("#include"):
                continue
            code = STRING.sub('""', line)
            hits = RUNG_IDENT.findall(code)
            if inner:
                hits += RUNG_INTERNAL.findall(code)
                hits += [m.group(0).rstrip(" ") for m in RUNG_WORD.finditer(line)]
            for h in hits:
                if not rung_exempt(rel, h, used):
                    bad.append("%s:%d: %s (%s)" % (rel, n, line.strip(), h))
    for k in RUNG_EXEMPT:
        rel = k if isinstance(k, str) else k[0]
        if not os.path.exists(os.path.join(root, rel)):
            bad.append("%s: gone: drop it from RUNG_EXEMPT" % rel)
        elif not isinstance(k, str) and k not in used:
            bad.append("%s no longer names %s: drop it from RUNG_EXEMPT" % k)
    return bad, ("names a rung outside src/lib/rungs/ (read a row of the rung table, "
                 "or add the place to RUNG_EXEMPT with its reason)")


# ---- layers ----------------------------------------------------------------

# Lowest first. src/lib's own files are its base (vocabulary, policy,
# classifiers, the clause list); the plan; the spawner; the harness's file
# API (it reads the plan); the stage (apply writes through the file API);
# the rungs (their table, clause engine and folders); the local provider;
# the bash consumer (over the provider and the spawner).
LAYERS = [
    ("src/common",),
    ("src/lib",),
    ("src/lib/profiles",),
    ("src/lib/spawn",),
    ("src/lib/harness",),
    ("src/lib/stage",),
    ("src/lib/rungs",),
    ("src/lib/local",),
    ("src/lib/bash",),
]
# Known upward includes, each with its reason; the check fails when one is
# gone (drop it here) as when a new one appears.
KNOWN_UP = {
}
SEARCH = ["src/lib", "src/common", "include"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(rel):
    d = os.path.dirname(rel)
    best = None
    for i, folders in enumerate(LAYERS):
        for f in folders:
            if (d == f or d.startswith(f + "/")) and (best is None or len(f) > best[1]):
                best = (i, len(f))
    return None if best is None else best[0]


def resolve(root, rel, name):
    here = os.path.join(root, os.path.dirname(rel), name)
    if os.path.exists(here):
        return os.path.relpath(os.path.normpath(here), root)
    for s in SEARCH:
        p = os.path.join(root, s, name)
        if os.path.exists(p):
            return os.path.relpath(os.path.normpath(p), root)
    return None  # a system or generated header (config.h)


def check_layers(root, _=None):
    bad, seen = [], set()
    for path in sources(root, "src/lib") + sources(root, "src/common"):
        rel = os.path.relpath(path, root)
        mine = layer_of(rel)
        for n, line in enumerate(read(path), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = resolve(root, rel, m.group(1))
            theirs = layer_of(target) if target else None
            if theirs is None or mine is None or theirs <= mine:
                continue
            if (rel, target) in KNOWN_UP:
                seen.add((rel, target))
                continue
            bad.append("%s:%d: includes %s, a higher layer (%s above %s)" %
                       (rel, n, target, LAYERS[theirs][0], LAYERS[mine][0]))
    for k in KNOWN_UP:
        if k not in seen:
            bad.append("%s no longer includes %s: drop it from KNOWN_UP" % k)
    return bad, "includes upward (layers: %s)" % " < ".join("/".join(x) for x in LAYERS)


# ---- links -----------------------------------------------------------------

def object_source(root, name):
    """src/lib/spawn/status.c for spawn_status.c.o (Meson's object names), or
    None for a generated one."""
    rel = "src/lib/" + name[:-len(".o")].replace("_", "/")
    return rel if os.path.exists(os.path.join(root, rel)) else None


def check_links(root, objdir=None):
    if not objdir or not os.path.isdir(objdir):
        return ["no object directory given (%s)" % objdir], "cannot be checked"
    defined, wanted = {}, {}
    for name in sorted(os.listdir(objdir)):
        rel = object_source(root, name) if name.endswith(".o") else None
        if rel is None:
            continue
        out = subprocess.run(["nm", os.path.join(objdir, name)], capture_output=True,
                             text=True, check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "TDBRC":
                defined[f[2]] = rel
            elif len(f) == 2 and f[0] == "U":
                wanted.setdefault(rel, set()).add(f[1])
    bad = []
    for rel, symbols in sorted(wanted.items()):
        mine = layer_of(rel)
        for sym in sorted(symbols):
            target = defined.get(sym)
            theirs = layer_of(target) if target else None
            if theirs is not None and mine is not None and theirs > mine:
                bad.append("%s uses %s, defined in %s (%s above %s)" %
                           (rel, sym, target, LAYERS[theirs][0], LAYERS[mine][0]))
    if not defined:
        bad.append("no objects of src/lib in %s" % objdir)
    return bad, "links upward (layers: %s)" % " < ".join("/".join(x) for x in LAYERS)


# ---- length ----------------------------------------------------------------

LIMIT = 700
# Files still over, each with its owner's plan; a new file over the limit,
# or one of these grown under it, fails.
KNOWN_LONG = {
}


def check_length(root, _=None):
    bad = []
    for path in sources(root, "src"):
        rel = os.path.relpath(path, root)
        n = len(read(path))
        if n > LIMIT and rel not in KNOWN_LONG:
            bad.append("%s: %d lines (over %d: split it by concern)" % (rel, n, LIMIT))
        if n <= LIMIT and rel in KNOWN_LONG:
            bad.append("%s: %d lines, no longer over: drop it from KNOWN_LONG" % (rel, n))
    for rel in KNOWN_LONG:
        if not os.path.exists(os.path.join(root, rel)):
            bad.append("%s: gone: drop it from KNOWN_LONG" % rel)
    return bad, "breaks the file length rule"


# ---- map -------------------------------------------------------------------

MAP_LINE = re.compile(r"^(\S+/)\s")
FILE_MAP = re.compile(r"^ \*\s{2,}((?:[A-Za-z0-9_.<>-]+\.[ch](?:, )?)+)\s{2,}\S")


def check_map(root, _=None):
    bad = []
    text = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    start = text.find("Where things are:")
    block = text[start:].split("```")[1] if start >= 0 else ""
    named = set()
    for line in block.splitlines():
        m = MAP_LINE.match(line)
        if not m:
            continue
        path = m.group(1).rstrip("/")
        if "<rung>" in path:
            parent = os.path.join(root, path.split("<rung>")[0])
            subs = [d for d in os.listdir(parent) if os.path.isdir(os.path.join(parent, d))]
            if not subs:
                bad.append("README names %s/, but no folder is there" % path)
            named.update(os.path.join(path.split("<rung>")[0], d) for d in subs)
            continue
        if not os.path.isdir(os.path.join(root, path)):
            bad.append("README names %s/, which does not exist" % path)
        named.add(path)
    if not named:
        bad.append("README.md has no map of the source tree after \"Where things are:\"")
    for d, dirs, _ in os.walk(os.path.join(root, "src")):
        for x in dirs:
            rel = os.path.relpath(os.path.join(d, x), root)
            if rel not in named:
                bad.append("README's map does not name %s/" % rel)
    for path in sources(root, "src"):
        if not path.endswith(".h"):
            continue
        here = os.path.dirname(path)
        below = [here] + [os.path.join(here, x) for x in os.listdir(here)
                          if os.path.isdir(os.path.join(here, x))]
        for n, line in enumerate(read(path), 1):
            m = FILE_MAP.match(line)
            if not m:
                continue
            for name in m.group(1).split(", "):
                if not any(os.path.exists(os.path.join(b, name)) for b in below):
                    bad.append("%s:%d: its file map names %s, which is not there" %
                               (os.path.relpath(path, root), n, name))
    return bad, "makes a map untrue"


# ---- common ----------------------------------------------------------------

def sources(root, top):
    out = []
    for d, dirs, files in os.walk(os.path.join(root, top)):
        dirs.sort()
        out.extend(os.path.join(d, f) for f in sorted(files) if f.endswith((".c", ".h")))
    return out


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().splitlines()


def main():
    checks = {"rungs": check_rungs, "layers": check_layers, "links": check_links,
              "length": check_length, "map": check_map}
    if len(sys.argv) not in (3, 4) or sys.argv[1] not in checks:
        sys.stderr.write(__doc__)
        return 2
    bad, what = checks[sys.argv[1]](os.path.abspath(sys.argv[2]), *sys.argv[3:])
    for b in bad:
        print("not ok: " + b)
    if bad:
        print("%d place(s) %s" % (len(bad), what))
        return 1
    print("ok: %s" % sys.argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
