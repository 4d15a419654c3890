#!/bin/sh
# SPDX-License-Identifier: MIT
# The offline install a user does: `pip install --no-build-isolation
# ./bindings/python` with Debian's setuptools, then a confined command
# through the installed package (and the freshly built library, named by
# CONFINE_LIBRARY).
# Usage: pip-install.sh PYTHON SOURCE_DIR
set -eu
python=$1
src=$2
can_build() {
	"$1" -c 'import setuptools, wheel, pip' >/dev/null 2>&1
}
if ! can_build "$python"; then
	# pyenv and other non-Debian pythons may lack wheel: Debian's has it
	# (python3-pip, python3-setuptools, python3-wheel).
	if [ -x /usr/bin/python3 ] && can_build /usr/bin/python3; then
		python=/usr/bin/python3
	else
		echo "# SKIP no python3 with pip, setuptools and wheel (apt-get install python3-pip python3-setuptools python3-wheel)"
		[ "${CONFINE_MUST_WORK:-}" = 1 ] && { echo "not ok - but CONFINE_MUST_WORK=1"; exit 1; }
		exit 77
	fi
fi
base=${HOME:-/tmp}/.cache/confine-tests
mkdir -p "$base"
work=$(mktemp -d "$base/pip-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
# pip builds in the tree it is given: a copy keeps the source tree clean.
mkdir "$work/src" "$work/ws"
cp -R "$src/confine" "$src/pyproject.toml" "$src/README.md" "$work/src/"
rm -f "$work/src/confine/_build_config.py.in"
PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore \
	"$python" -m pip install --quiet --no-build-isolation --no-deps \
	--target "$work/site" "$work/src"
test -f "$work/site/confine/py.typed"
test -f "$work/site/confine/options.json"
cd "$work/ws"
PYTHONPATH="$work/site" "$python" - <<'PY'
import os, confine
assert confine.__file__.startswith(os.environ["PYTHONPATH"]), confine.__file__
assert confine.version() == confine.__version__
r = confine.bash("echo x > f", mode="read-only")
assert r.denied and not os.path.exists("f"), r
print("ok - pip-installed confine %s confined a write (%s)" % (confine.__version__, r.runner))
PY
