# SPDX-License-Identifier: MIT
"""Where Meson installs the Python package, and what to do when Python does
not read that directory. Run by the Python that will import the package.

  site_dir.py choose PREFIX DEFAULT
      Prints the directory to install the package into: a site directory of
      this Python under PREFIX if it has one (Debian's python3 reads
      /usr/local/lib/python3.X/dist-packages, not Meson's default
      /usr/local/lib/python3/dist-packages), else DEFAULT (Meson's).

  site_dir.py status DIR
      One line for Meson's configure summary: whether this Python reads DIR,
      else the line that makes it.

  site_dir.py hint MESON BUILD
      After `make install`: when this Python does not read the directory
      the package went to (`MESON introspect BUILD --installed`), prints the
      exact line that makes `import confine` work. Nothing for a staged
      install ($DESTDIR set).
"""
import json
import os
import shlex
import site
import subprocess
import sys


def site_dirs():
    """The directories this Python's site module adds at startup (when they
    exist), PYTHONPATH aside."""
    dirs = []
    try:
        dirs.extend(site.getsitepackages())
    except AttributeError:  # an old virtualenv's site.py
        pass
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    return [os.path.normpath(d) for d in dirs if os.path.isabs(d)]


def under(path, prefix):
    return path == prefix or path.startswith(prefix.rstrip("/") + "/")


def choose(prefix, default):
    prefix = os.path.normpath(prefix)
    default = os.path.normpath(default)
    dirs = site_dirs()
    if default in dirs:
        return default
    # The prefix's own lib directories: under /usr, /usr/lib/python3/...
    # rather than /usr/local/lib/... (another prefix below it).
    for d in dirs:
        if under(d, prefix) and os.path.relpath(d, prefix).split(os.sep)[0].startswith("lib"):
            return d
    return default


def reads(directory):
    return os.path.normpath(directory) in site_dirs()


def export_line(directory):
    return "export PYTHONPATH=%s${PYTHONPATH:+:$PYTHONPATH}" % os.path.normpath(directory)


def status(directory):
    if reads(directory):
        return "read by %s" % sys.executable
    return "not read by %s: %s" % (sys.executable, export_line(directory))


def hint(meson, build):
    if os.environ.get("DESTDIR"):
        return  # a staged install: the directory is not in place yet
    # source -> destination of every file `meson install` installs
    installed = json.loads(subprocess.run(
        shlex.split(meson) + ["introspect", build, "--installed"],
        check=True, stdout=subprocess.PIPE).stdout)
    dirs = {os.path.dirname(os.path.dirname(dest)) for dest in installed.values()
            if dest.endswith("/confine/_build_config.py")}
    for directory in sorted(dirs):
        if reads(directory):
            continue
        print("The Python package is in %s, which %s does not read. To import confine, run"
              % (directory, sys.executable))
        print("(or add to your shell's profile):")
        print("  " + export_line(directory))


def main(argv):
    if len(argv) == 4 and argv[1] == "choose":
        print(choose(argv[2], argv[3]))
    elif len(argv) == 3 and argv[1] == "status":
        print(status(argv[2]))
    elif len(argv) == 4 and argv[1] == "hint":
        hint(argv[2], argv[3])
    else:
        sys.stderr.write("usage: site_dir.py choose PREFIX DEFAULT | status DIR | hint MESON BUILD\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
