#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Installed use (SPEC 11): confine as a user gets it from `meson install`.
#
#   packed-install.sh files     what the install places, and how
#   packed-install.sh consumer  a plain C program built against the install
#   packed-install.sh prefix    a build whose prefix is real, installed with
#                               `make install PREFIX=...` over a build dir
#                               configured for another prefix: no
#                               configuration, and the Python and Node
#                               packages work from there as the README says
#
# `files` and `consumer` install this build with `meson install --destdir`
# into a temporary directory, so the library lives at DESTDIR/PREFIX/lib while
# its compiled-in launcher path is PREFIX/libexec/confine/landlock-run, which
# does not exist (or is some other install). There the consumer checks that
# the library *computes* that installed path, and points it at the
# destdir's launcher through its configuration (landlock_launcher) to run.
# `prefix` proves the rest honestly: it configures a second build of this
# source with --prefix inside the temporary directory, installs it for real,
# and runs the consumer with no configuration at all.
#
# meson passes (environment): CONFINE_MESON CONFINE_BUILD_ROOT
# CONFINE_SOURCE_ROOT CONFINE_CC CONFINE_VERSION CONFINE_PREFIX
# CONFINE_LIBDIR CONFINE_INCLUDEDIR CONFINE_BINDIR CONFINE_MANDIR
# CONFINE_LAUNCHER (all absolute, as configured), CONFINE_CONSUMER_C, and
# CONFINE_PYTHON_DIR and CONFINE_NODE_DIR (where the language packages go,
# empty when they are not installed).
# Exit 0 pass, 1 fail, 77 skip (a failure when CONFINE_MUST_WORK=1).
set -eu

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	if [ "${CONFINE_MUST_WORK:-0}" = 1 ]; then
		fail "CONFINE_MUST_WORK=1 but: $*"
	fi
	echo "SKIP: $*"
	exit 77
}

for var in CONFINE_MESON CONFINE_BUILD_ROOT CONFINE_SOURCE_ROOT CONFINE_CC \
	CONFINE_VERSION CONFINE_PREFIX CONFINE_LIBDIR CONFINE_INCLUDEDIR \
	CONFINE_BINDIR CONFINE_MANDIR CONFINE_LAUNCHER CONFINE_CONSUMER_C; do
	eval "value=\${$var:-}"
	[ -n "$value" ] || fail "$var is not set (run this through meson test)"
done

# Outside the build tree on purpose: a library under the build root counts
# as a build-tree library and would use the build tree's launcher.
# Under $HOME, not /tmp: an installed launcher is run only where no one but
# root or the caller can write above it (doc/SPEC.md 14), and read-only
# runs get a private /tmp of their own.
mkdir -p "$HOME/.cache/confine-tests"
work_root=$(mktemp -d "$HOME/.cache/confine-tests/install.XXXXXX")
trap 'rm -rf "$work_root"' EXIT INT TERM
case "$work_root" in
"$CONFINE_BUILD_ROOT"/* | "$CONFINE_SOURCE_ROOT"/*)
	fail "the temporary directory $work_root is inside the source or build tree" ;;
esac

# Installs this build into $1 (a DESTDIR) without rebuilding: meson test has
# just built everything, and a rebuild would race with other tests.
install_into() {
	"$CONFINE_MESON" install -C "$CONFINE_BUILD_ROOT" --no-rebuild --destdir "$1" \
		>"$work_root/install.log" 2>&1 ||
		{ cat "$work_root/install.log" >&2; fail "meson install --destdir $1"; }
}

# pkg-config sees only the install under $1 (a sysroot) with the .pc file
# in $2: never the source tree, and never an older confine in /usr/local.
use_pkg_config() {
	if [ -n "$1" ]; then PKG_CONFIG_SYSROOT_DIR=$1; export PKG_CONFIG_SYSROOT_DIR; else unset PKG_CONFIG_SYSROOT_DIR; fi
	PKG_CONFIG_LIBDIR=$2
	export PKG_CONFIG_LIBDIR
	unset PKG_CONFIG_PATH
	pc_cflags=$(pkg-config --cflags confine) || fail "pkg-config --cflags confine"
	pc_libs=$(pkg-config --libs confine) || fail "pkg-config --libs confine"
	pc_static_libs=$(pkg-config --static --libs confine) || fail "pkg-config --static --libs confine"
	[ "$(pkg-config --modversion confine)" = "$CONFINE_VERSION" ] ||
		fail "pkg-config --modversion confine is not $CONFINE_VERSION"
	for flag in $pc_cflags $pc_libs; do
		case "$flag" in
		*"$CONFINE_SOURCE_ROOT"* | *"$CONFINE_BUILD_ROOT"*)
			fail "pkg-config points into the source or build tree: $flag" ;;
		esac
	done
	echo "pkg-config: $pc_cflags $pc_libs"
}

# Builds consumer.c as a user would, strict, from a copy outside the tree.
build_consumer() {
	out=$1
	shift
	cp "$CONFINE_CONSUMER_C" "$work_root/consumer.c"
	# shellcheck disable=SC2086 # the compiler command and flags are lists
	$CONFINE_CC -std=c99 -Wall -Wextra -Wpedantic -Werror -o "$out" \
		"$work_root/consumer.c" $pc_cflags "$@" ||
		fail "building the consumer against the installed header and library"
}

# Runs the consumer on a fresh work dir; $1 is what it must report.
# The denied file must be absent afterwards, whatever the consumer said.
run_consumer() {
	binary=$1
	expect=$2
	shift 2
	work=$(mktemp -d "$work_root/work.XXXXXX")
	status=0
	"$binary" --expect-version "$CONFINE_VERSION" --expect "$expect" "$@" "$work" ||
		status=$?
	[ ! -e "$work/denied.txt" ] || fail "the confined write landed: $work/denied.txt exists"
	case $status in
	0) ;;
	77) skip "this host cannot enforce the outcome ($binary $*)" ;;
	*) fail "consumer $* --expect $expect exited $status" ;;
	esac
}

# The exported symbols of a shared library are exactly the functions that
# confine.h declares with CONFINE_API: nothing internal leaks (cf_*, helpers
# from the profiles or the ladder), and nothing declared is missing.
check_exports() {
	shared=$1
	declared_in=$2
	nm -D --defined-only "$shared" >"$work_root/nm.txt" || fail "nm -D $shared"
	# Version-script nodes (CONFINE_1) are absolute symbols, not code.
	awk '$2 != "A" { print $3 }' "$work_root/nm.txt" | sed 's/@.*//' | sort -u \
		>"$work_root/exported.txt"
	awk '$2 == "A" && $3 !~ /^CONFINE_[0-9]/ { print }' "$work_root/nm.txt" \
		>"$work_root/odd.txt"
	[ ! -s "$work_root/odd.txt" ] || fail "unexpected absolute symbols: $(cat "$work_root/odd.txt")"
	if grep -v '^confine_' "$work_root/exported.txt" >"$work_root/foreign.txt"; then
		fail "exported symbols outside confine_: $(tr '\n' ' ' <"$work_root/foreign.txt")"
	fi
	grep 'CONFINE_API' "$declared_in" | grep -v '#define' |
		sed -n 's/.*[^a-z0-9_]\(confine_[a-z0-9_]*\)(.*/\1/p' | sort -u \
		>"$work_root/declared.txt"
	[ -s "$work_root/declared.txt" ] || fail "no CONFINE_API declarations found in $declared_in"
	if ! cmp -s "$work_root/declared.txt" "$work_root/exported.txt"; then
		echo "declared in confine.h but not exported:" >&2
		comm -23 "$work_root/declared.txt" "$work_root/exported.txt" >&2
		echo "exported but not declared in confine.h:" >&2
		comm -13 "$work_root/declared.txt" "$work_root/exported.txt" >&2
		fail "the exports of $shared are not the API of $declared_in"
	fi
	echo "exports: $(wc -l <"$work_root/exported.txt") confine_ functions, as declared"
}

# The Python and Node packages, as `meson install` placed them under $1 (a
# DESTDIR).
check_language_files() {
	if [ -n "${CONFINE_PYTHON_DIR:-}" ]; then
		pkg=$1$CONFINE_PYTHON_DIR/confine
		# every file of the package's source directory (a module added
		# there and left out of meson.build's install list failed `import
		# confine` only once installed), and the generated config
		for f in $(cd "$CONFINE_SOURCE_ROOT/bindings/python/confine" &&
			ls -- *.py py.typed options.json) _build_config.py; do
			[ -f "$pkg/$f" ] || fail "no $pkg/$f"
		done
		grep -qxF "LIBDIR = \"$CONFINE_LIBDIR\"" "$pkg/_build_config.py" ||
			fail "$pkg/_build_config.py does not name $CONFINE_LIBDIR"
		# Where python3 reads a site directory under this prefix (Debian's
		# /usr/local/lib/python3.X/dist-packages), the package is in it:
		# `import confine` works with no setting after `meson install`.
		python3 - "$CONFINE_PREFIX" "$CONFINE_PYTHON_DIR" <<'PY' || fail "the Python package's directory"
import os, site, sys
prefix, chosen = sys.argv[1:3]
dirs = [os.path.normpath(d) for d in site.getsitepackages() + [site.getusersitepackages()]]
own = [d for d in dirs if os.path.relpath(d, prefix).split(os.sep)[0].startswith("lib")]
if own and os.path.normpath(chosen) not in own:
    sys.exit("python3 reads %s under %s, but the package goes to %s" % (own, prefix, chosen))
print("Python package: %s (%s)" % (chosen, "read by python3" if own else
      "python3 reads nothing under %s: make install prints the PYTHONPATH line" % prefix))
PY
	fi
	if [ -n "${CONFINE_NODE_DIR:-}" ]; then
		pkg=$1$CONFINE_NODE_DIR
		for f in index.js options.json $(cd "$CONFINE_SOURCE_ROOT/bindings/node" && ls -- lib/*.js) \
			index.d.ts package.json README.md _build_config.json; do
			[ -f "$pkg/$f" ] || fail "no $pkg/$f"
		done
		grep -qF "\"bindir\": \"$CONFINE_BINDIR\"" "$pkg/_build_config.json" ||
			fail "$pkg/_build_config.json does not name $CONFINE_BINDIR"
		echo "Node package: $CONFINE_NODE_DIR"
	fi
}

check_files() {
	dest=$work_root/dest
	install_into "$dest"
	lib=$dest$CONFINE_LIBDIR
	header=$dest$CONFINE_INCLUDEDIR/confine.h
	launcher=$dest$CONFINE_LAUNCHER

	[ -f "$header" ] || fail "no installed header $header"
	[ -f "$lib/libconfine.so.$CONFINE_VERSION" ] || fail "no $lib/libconfine.so.$CONFINE_VERSION"
	[ "$(readlink "$lib/libconfine.so.2")" = "libconfine.so.$CONFINE_VERSION" ] ||
		fail "libconfine.so.2 is not a link to libconfine.so.$CONFINE_VERSION"
	[ "$(readlink "$lib/libconfine.so")" = "libconfine.so.2" ] ||
		fail "libconfine.so is not a link to libconfine.so.2"
	[ -f "$lib/libconfine.a" ] || fail "no static library $lib/libconfine.a"
	[ -f "$lib/pkgconfig/confine.pc" ] || fail "no $lib/pkgconfig/confine.pc"
	[ -f "$dest$CONFINE_BINDIR/confine" ] || fail "no $dest$CONFINE_BINDIR/confine"
	[ -x "$dest$CONFINE_BINDIR/confine" ] || fail "$dest$CONFINE_BINDIR/confine is not executable"

	# The launcher: a regular file, executable by everyone (the library may
	# be used by any user), and it really runs.
	[ -f "$launcher" ] || fail "no installed launcher $launcher"
	[ -x "$launcher" ] || fail "the installed launcher is not executable"
	mode=$(stat -c %a "$launcher")
	[ "$mode" = 755 ] || fail "the installed launcher has mode $mode, not 755"
	"$launcher" --ro / -- true 2>"$work_root/launcher.err" || {
		status=$?
		grep -q 'not enforced by this kernel' "$work_root/launcher.err" ||
			fail "the installed launcher failed ($status): $(cat "$work_root/launcher.err")"
	}

	soname=$(readelf -d "$lib/libconfine.so.$CONFINE_VERSION" |
		sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
	[ "$soname" = libconfine.so.2 ] || fail "soname is '$soname', not libconfine.so.2"
	echo "soname: $soname"

	check_exports "$lib/libconfine.so.$CONFINE_VERSION" "$header"

	# The static library: its default-visibility definitions are the same
	# API, and everything internal is hidden, so a shared object built on
	# libconfine.a does not re-export confine's internals.
	readelf -sW "$lib/libconfine.a" |
		awk '$5 == "GLOBAL" && $6 == "DEFAULT" && $7 != "UND" { print $8 }' | sort -u \
		>"$work_root/static-exported.txt"
	cmp -s "$work_root/declared.txt" "$work_root/static-exported.txt" ||
		fail "libconfine.a's visible symbols are not the API: $(comm -3 "$work_root/declared.txt" "$work_root/static-exported.txt" | tr -d '\t' | tr '\n' ' ')"

	# Man pages: installed, naming this build's launcher, and rendered by
	# groff without a single warning.
	for page in man1/confine.1 man1/landlock-run.1 man3/libconfine.3; do
		file=$dest$CONFINE_MANDIR/$page
		[ -f "$file" ] || fail "no man page $file"
		grep -qxF ".ds launcher $CONFINE_LAUNCHER" "$file" ||
			fail "$page does not name the launcher $CONFINE_LAUNCHER"
		grep -qxF ".ds version $CONFINE_VERSION" "$file" ||
			fail "$page does not carry the version $CONFINE_VERSION"
		if command -v groff >/dev/null 2>&1; then
			warnings=$(groff -man -ww -z "$file" 2>&1) || fail "groff failed on $page"
			[ -z "$warnings" ] || fail "groff warns on $page: $warnings"
		fi
	done

	check_language_files "$dest"

	# The installed header stands alone for C99 and C++ consumers.
	printf '#include <confine.h>\nint main(void) { return confine_version() == 0; }\n' \
		>"$work_root/header.c"
	# shellcheck disable=SC2086
	$CONFINE_CC -std=c99 -Wall -Wextra -Wpedantic -Werror -fsyntax-only \
		-I"$dest$CONFINE_INCLUDEDIR" "$work_root/header.c" ||
		fail "confine.h does not compile alone as C99"
	if command -v c++ >/dev/null 2>&1; then
		cp "$work_root/header.c" "$work_root/header.cc"
		c++ -Wall -Wextra -Werror -fsyntax-only -I"$dest$CONFINE_INCLUDEDIR" \
			"$work_root/header.cc" || fail "confine.h does not compile as C++"
	fi
	echo "installed files: ok"
}

check_consumer() {
	dest=$work_root/dest
	install_into "$dest"
	lib=$dest$CONFINE_LIBDIR
	launcher=$dest$CONFINE_LAUNCHER
	use_pkg_config "$dest" "$lib/pkgconfig"

	# shellcheck disable=SC2086
	build_consumer "$work_root/consumer" $pc_libs
	LD_LIBRARY_PATH=$lib
	export LD_LIBRARY_PATH
	# It must load the installed library, not one from the build tree or
	# the system.
	loaded=$(ldd "$work_root/consumer" | sed -n 's/.*libconfine\.so\.2 => \([^ ]*\).*/\1/p')
	[ "$loaded" = "$lib/libconfine.so.2" ] ||
		fail "the consumer loads libconfine from '$loaded', not $lib"

	[ -x "$launcher" ] || fail "the installed launcher $launcher is not executable"

	# 1. The platform's ladder, no configuration: denied, file absent. The
	#    relocated library still computes the installed launcher path.
	# The default is the prefix's launcher; the staged copy runs (a layered
	# bwrap argv runs the on-disk launcher too, doc/SPEC.md 14).
	run_consumer "$work_root/consumer" denied --launcher "$launcher" --expect-default "$CONFINE_LAUNCHER"
	# 2. Pinned to Landlock through the installed launcher binary.
	run_consumer "$work_root/consumer" denied --pin landlock --launcher "$launcher"
	# 3. A launcher whose execute bit was stripped is a runner failure that
	#    names it, not a kernel that cannot enforce; nothing runs.
	mkdir "$work_root/stripped"
	cp "$launcher" "$work_root/stripped/landlock-run"
	chmod 0644 "$work_root/stripped/landlock-run"
	run_consumer "$work_root/consumer" runner-failure --pin landlock \
		--launcher "$work_root/stripped/landlock-run"

	# 4. The same through the static library (with its private libraries).
	static_libs=$(echo "$pc_static_libs" | sed 's/-lconfine\b/-Wl,-Bstatic -lconfine -Wl,-Bdynamic/')
	# shellcheck disable=SC2086
	build_consumer "$work_root/consumer-static" $static_libs
	if readelf -d "$work_root/consumer-static" | grep -q 'libconfine\.so'; then
		fail "the static consumer still needs libconfine.so"
	fi
	run_consumer "$work_root/consumer-static" denied --pin landlock --launcher "$launcher"

	# 5. The complete example of the installed libconfine(3), as printed
	#    there: it must build as shown and do what the page says it does.
	# The page's program uses the default launcher, where `make install`
	# puts it; this install is staged under DESTDIR, so the program is
	# pointed at the staged copy (a confine_confine() on the bwrap rung
	# names the on-disk launcher it layers inside bwrap: doc/SPEC.md 14).
	work=$(mktemp -d "$work_root/work.XXXXXX")
	awk '/^\.EX$/ { ex = 1; text = ""; next }
	     /^\.EE$/ { if (text ~ /int main/) printf "%s", text; ex = 0; next }
	     ex { text = text $0 "\n" }' "$dest$CONFINE_MANDIR/man3/libconfine.3" |
		sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e "s|/home/me/project|$work|" \
		-e "s|^\\( *\\)confine_local_config_init(&config);|&\\n\\1config.landlock_launcher = \"$launcher\";|" \
		>"$work_root/example.c"
	grep -q "config.landlock_launcher = \"$launcher\"" "$work_root/example.c" ||
		fail "the libconfine(3) example no longer calls confine_local_config_init(&config)"
	grep -q "$work" "$work_root/example.c" || fail "no example program found in libconfine(3)"
	# shellcheck disable=SC2086
	$CONFINE_CC -std=c11 -Wall -Wextra -Werror -o "$work_root/example" "$work_root/example.c" \
		$pc_cflags $pc_libs || fail "the libconfine(3) example does not build"
	status=0
	"$work_root/example" >"$work_root/example.out" 2>&1 || status=$?
	[ ! -e "$work/denied.txt" ] || fail "the libconfine(3) example let the write land"
	echo "libconfine(3) example: $(cat "$work_root/example.out")"
	if [ "$status" -ne 0 ]; then
		grep -q '^SANDBOX_UNAVAILABLE: ' "$work_root/example.out" ||
			fail "the libconfine(3) example failed ($status)"
		skip "no backend for the libconfine(3) example"
	fi
	grep -qx 'runner [a-z]*, exit [1-9][0-9]*, denied yes' "$work_root/example.out" ||
		fail "the libconfine(3) example does not print what the page says"

	# 6. The installed command, through the installed library: the command's
	#    own status (sh's 2 for a failed redirection), the file absent.
	cli=$dest$CONFINE_BINDIR/confine
	[ "$("$cli" --version)" = "confine $CONFINE_VERSION" ] ||
		[ "$("$cli" --version)" = "$CONFINE_VERSION" ] ||
		fail "confine --version does not print $CONFINE_VERSION: $("$cli" --version)"
	printf '{"landlockLauncher": "%s"}\n' "$launcher" >"$work_root/config.json"
	work=$(mktemp -d "$work_root/work.XXXXXX")
	status=0
	"$cli" run --config "$work_root/config.json" --runner landlock -m read-only -w "$work" \
		-- sh -c "echo hi > '$work/denied.txt'" 2>"$work_root/cli.err" || status=$?
	[ ! -e "$work/denied.txt" ] || fail "the installed confine let the write land"
	case $status in
	2) grep -qi 'permission denied' "$work_root/cli.err" ||
		fail "confine run: no Landlock denial on stderr: $(cat "$work_root/cli.err")" ;;
	125) grep -q 'not enforced by this kernel' "$work_root/cli.err" ||
		fail "confine run exited 125: $(cat "$work_root/cli.err")"
		skip "this kernel cannot enforce Landlock" ;;
	*) fail "confine run exited $status: $(cat "$work_root/cli.err")" ;;
	esac
	echo "packed install: ok"
}

check_prefix() {
	prefix=$work_root/prefix
	first=$work_root/first-prefix
	build=$work_root/build
	missing=
	command -v make >/dev/null 2>&1 || skip "make is not installed"
	# The state `make demo` leaves: a configured build directory, here with
	# a prefix of its own (which must stay empty). Same compiler, no tests
	# (no cmocka needed), no benchmarks; explicit directories so the paths
	# below do not depend on the distribution.
	CC=$CONFINE_CC "$CONFINE_MESON" setup "$build" "$CONFINE_SOURCE_ROOT" \
		--prefix="$first" --libdir=lib --libexecdir=libexec --bindir=bin \
		-Dtests=disabled -Dbench=false >"$work_root/setup.log" 2>&1 ||
		{ cat "$work_root/setup.log" >&2; fail "meson setup --prefix=$first"; }
	# Then the README's way to install elsewhere. Not this make's flags (an
	# outer make check's variables would reach it through MAKEFLAGS).
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -C "$CONFINE_SOURCE_ROOT" --no-print-directory install \
		BUILD="$build" PREFIX="$prefix" MESON="$CONFINE_MESON" \
		>"$work_root/install.log" 2>&1 ||
		{ tail -50 "$work_root/install.log" >&2; fail "make install PREFIX=$prefix"; }
	[ ! -e "$first" ] || fail "make install PREFIX=$prefix installed into the old prefix $first"
	# From here on the build tree is gone: only the install remains.
	rm -rf "$build"

	launcher=$prefix/libexec/confine/landlock-run
	[ -x "$launcher" ] || fail "no executable launcher at $launcher"
	# The installed pages name this prefix's launcher (not the sources'
	# /usr/local default), with whatever Meson the machine has.
	for page in man1/confine.1 man1/landlock-run.1 man3/libconfine.3; do
		grep -qxF ".ds launcher $launcher" "$prefix/share/man/$page" ||
			fail "the installed $page does not name $launcher: $(grep -m1 '^[.]ds launcher' "$prefix/share/man/$page")"
	done
	use_pkg_config "" "$prefix/lib/pkgconfig"
	# shellcheck disable=SC2086
	build_consumer "$work_root/consumer" $pc_libs
	LD_LIBRARY_PATH=$prefix/lib
	export LD_LIBRARY_PATH

	# No configuration at all: the library finds its installed launcher.
	run_consumer "$work_root/consumer" denied --pin landlock --expect-default "$launcher"
	run_consumer "$work_root/consumer" denied --expect-default "$launcher"
	unset LD_LIBRARY_PATH

	# And so does the installed command.
	work=$(mktemp -d "$work_root/work.XXXXXX")
	status=0
	"$prefix/bin/confine" run --runner landlock -w "$work" \
		-- sh -c "echo hi > '$work/denied.txt'" 2>"$work_root/cli.err" || status=$?
	[ ! -e "$work/denied.txt" ] || fail "the installed confine let the write land"
	case $status in
	2) ;;
	125) grep -q 'not enforced by this kernel' "$work_root/cli.err" ||
		fail "confine run exited 125: $(cat "$work_root/cli.err")"
		skip "this kernel cannot enforce Landlock" ;;
	*) fail "confine run exited $status: $(cat "$work_root/cli.err")" ;;
	esac

	if command -v python3 >/dev/null 2>&1; then
		check_prefix_python
	else
		missing="$missing python3"
	fi
	if command -v node >/dev/null 2>&1; then
		check_prefix_node
	else
		missing="$missing node"
	fi
	[ -z "$missing" ] || skip "not installed, so not tested from the prefix:$missing"
	echo "installed prefix: ok"
}

# The Python package: `make install` ends with the line that puts it on
# python3's path (the prefix is not one python3 reads), and with that line
# alone `import confine` works from anywhere and loads the installed library.
check_prefix_python() {
	line=$(sed -n 's/^ *\(export PYTHONPATH=.*\)$/\1/p' "$work_root/install.log")
	[ -n "$line" ] || fail "make install printed no PYTHONPATH line: $(cat "$work_root/install.log")"
	case $line in
	"export PYTHONPATH=$prefix/"*) ;;
	*) fail "the printed line is not into $prefix: $line" ;;
	esac
	echo "printed: $line"
	work=$(mktemp -d "$work_root/work.XXXXXX")
	(
		cd "$work" || exit 1
		unset PYTHONPATH LD_LIBRARY_PATH CONFINE_LIBRARY
		eval "$line"
		python3 -c 'import confine' || fail "python3 -c 'import confine' after: $line"
		python3 - "$prefix" "$work" "$launcher" <<'PY' || fail "the installed Python package"
import os, sys
import confine
prefix, work, launcher = sys.argv[1:4]
assert confine.__file__.startswith(prefix + "/"), "imported %s" % confine.__file__
path = confine._ffi.library_path()
assert path.startswith(prefix + "/"), "loaded %s, not the installed library" % path
assert confine.__version__ == confine.version()
r = confine.run(["sh", "-c", "echo hi > denied.txt"], workspace=work,
                provider=confine.Provider(runner="landlock"))
assert r.denied and not os.path.exists(os.path.join(work, "denied.txt")), r
assert confine.wrap(["true"], workspace=work,
                    provider=confine.Provider(runner="landlock")).argv[0] == launcher
print("installed Python package: ok (%s)" % path)
PY
	) || exit 1
}

# The Node package: the installed copy (NODE_PATH; it runs the confine
# installed beside it), and a tarball `npm pack` made from a copy of the
# sources that is gone before `npm install` takes it into a new project.
check_prefix_node() {
	node_dir=$prefix/lib/node_modules
	[ -f "$node_dir/confine/package.json" ] || fail "no Node package at $node_dir/confine"
	work=$(mktemp -d "$work_root/work.XXXXXX")
	(cd "$work" && NODE_PATH=$node_dir node_check "$prefix/bin/confine" "$work") ||
		fail "the installed Node package"
	echo "installed Node package: ok ($node_dir/confine)"

	if ! command -v npm >/dev/null 2>&1; then
		missing="$missing npm"
		return
	fi
	npm_config_cache=$work_root/npm-cache
	npm_config_update_notifier=false
	npm_config_fund=false
	npm_config_audit=false
	export npm_config_cache npm_config_update_notifier npm_config_fund npm_config_audit
	cp -R "$CONFINE_SOURCE_ROOT/bindings/node" "$work_root/clone-node"
	(cd "$work_root" && npm pack --silent ./clone-node >"$work_root/pack.out" 2>"$work_root/pack.err") ||
		fail "npm pack: $(cat "$work_root/pack.err")"
	tgz=$work_root/$(tail -n 1 "$work_root/pack.out")
	[ -f "$tgz" ] || fail "npm pack made no $tgz"
	rm -rf "$work_root/clone-node"
	project=$work_root/project
	mkdir "$project"
	printf '{"name": "my-agent", "version": "1.0.0", "private": true}\n' >"$project/package.json"
	(cd "$project" && npm install --offline "$tgz" >"$work_root/npm-install.log" 2>&1) ||
		fail "npm install $tgz: $(cat "$work_root/npm-install.log")"
	installed=$project/node_modules/confine
	if [ -L "$installed" ] || [ ! -d "$installed" ]; then
		fail "npm install did not copy the package into $installed: $(ls -ld "$installed" 2>&1)"
	fi
	[ ! -e "$installed/_build_config.json" ] || fail "the tarball carries an install's _build_config.json"
	if grep -rlF "$CONFINE_SOURCE_ROOT" "$installed" >"$work_root/refs.txt"; then
		fail "the installed package names the source tree: $(cat "$work_root/refs.txt")"
	fi
	work=$(mktemp -d "$work_root/work.XXXXXX")
	(cd "$project" && KEEP_BIN=1 CONFINE_BIN=$prefix/bin/confine node_check "$prefix/bin/confine" "$work") ||
		fail "the Node package installed from $tgz"
	echo "packed Node package: ok ($(basename "$tgz") into a new project)"
}

# Requires `confine` from the current directory's resolution (NODE_PATH or
# node_modules), checks it runs $1, and confines a write in $2. With
# KEEP_BIN=1 the caller's CONFINE_BIN stays (a packed package has no
# recorded install, and never searches $PATH: doc/SPEC.md 4, R4-F10).
node_check() {
	keep=${KEEP_BIN:-}
	[ "$keep" = 1 ] || unset CONFINE_BIN
	env -u CONFINE_LIBRARY node - "$1" "$2" <<'JS'
'use strict';
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const confine = require('confine');
const [bin, work] = process.argv.slice(2);
(async () => {
  assert.strictEqual(confine.findConfine(), bin);
  const r = await confine.bash('echo hi > denied.txt', { mode: 'read-only', workspace: work });
  assert.ok(r.denied, JSON.stringify(r));
  assert.ok(!fs.existsSync(path.join(work, 'denied.txt')));
  console.log(`node: ${require.resolve('confine')} ran ${bin}: denied`);
})().catch((e) => { console.error(e); process.exit(1); });
JS
}

case "${1:-}" in
files) check_files ;;
consumer) check_consumer ;;
prefix) check_prefix ;;
*) fail "usage: $0 files|consumer|prefix" ;;
esac
