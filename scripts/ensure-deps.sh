#!/bin/sh
# Makes sure the Debian packages confine needs are installed: as root it
# installs what is missing; otherwise it prints the one command to run.
# Usage: scripts/ensure-deps.sh [build|check]
set -eu
# musl-tools: the launcher is built with musl-gcc where it is found (a
# static launcher a tenth of static glibc's size, src/launcher/meson.build).
want="meson ninja-build gcc pkg-config libcmocka-dev libjansson-dev bubblewrap musl-tools"
if [ "${1:-build}" = check ]; then
	# The test suites also use these: bash/make/git/cc for must-work cases,
	# python3 for the "spawn wrap's argv as-is" test, clang for the fuzzers,
	# python3's pip/setuptools/wheel, mypy and nodejs for the language packages'
	# suites (bindings/python, bindings/node).
	want="$want bash make git python3 clang libclang-rt-14-dev valgrind groff-base procps"
	want="$want python3-pip python3-setuptools python3-wheel mypy nodejs"
	# chattr/lsattr (e2fsprogs), useradd (passwd), setpriv/unshare
	# (util-linux), mount: the escape, supervisor and faults suites.
	want="$want e2fsprogs passwd util-linux mount"
	# Host daemons the escape suite starts and attacks (tests/escape/
	# cases-daemons.txt): tmux, socat listeners, ssh-agent/ssh-add.
	want="$want tmux socat openssh-client"
	# OCI runtimes the export suite runs its bundles with (tests/e2e/export).
	want="$want runc runsc"
	# git-config(1) and the other manuals: the gitHazards key list is checked
	# against them (tests/unit/git_config_keys.py)
	want="$want git-man"
fi
missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# npm (the install suite packs the Node package and installs the tarball):
# Debian's package only where no npm is there already (a NodeSource nodejs
# carries its own and conflicts with Debian's npm).
if [ "${1:-build}" = check ] && ! command -v npm >/dev/null 2>&1; then
	missing="$missing npm"
fi
[ -z "$missing" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
	echo "confine: missing build dependencies:$missing (no apt-get here; install them by hand)" >&2
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "confine: missing packages:$missing" >&2
	echo "run:  sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "confine: installing:$missing" >&2
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
