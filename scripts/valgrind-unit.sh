#!/bin/sh
# Runs the unit suite under valgrind's memcheck and fails on any error.
# Usage: scripts/valgrind-unit.sh BUILDDIR   (a configured Meson build dir)
#
# Two checks, because one is not enough:
# - Each test's own process: --error-exitcode=1 turns any memcheck error or
#   definite leak into a failed test, which fails `meson test`.
# - Processes forked by the tests: between clone/fork and exec a spawned
#   child runs under valgrind too (valgrind turns the library's
#   clone(CLONE_VM|CLONE_VFORK) into a fork), but its errors do not reach the
#   test's exit status (a child that execs is no longer valgrind's). So the
#   log is also searched for memcheck error reports from any process. Leak
#   reports are left out of that search: a forked child that ends with _exit
#   holds a copy of the test's heap it never frees, so its leak check proves
#   nothing; the test process's own leak check above is the real one.
set -eu

if [ $# -ne 1 ]; then
	echo "usage: $0 BUILDDIR" >&2
	exit 2
fi
build=$1
if [ ! -f "$build/build.ninja" ]; then
	echo "$0: \"$build\" is not a configured Meson build directory (run: meson setup $build)" >&2
	exit 2
fi
if ! command -v valgrind >/dev/null 2>&1; then
	echo "$0: valgrind is not installed (Debian: apt-get install valgrind)" >&2
	exit 2
fi

# meson names the log LOGBASE.txt, or LOGBASE-valgrind.txt with a wrapper
# (meson 1.0); take whichever this run wrote.
logbase=valgrind-unit
rm -f "$build/meson-logs/$logbase.txt" "$build/meson-logs/$logbase-valgrind.txt"

status=0
# CONFINE_TEST_VALGRIND: a test may run fewer rounds of a loop whose
# point is a race, not memory (tests/unit/test-fs.c).
CONFINE_TEST_VALGRIND=1 meson test -C "$build" --suite unit --logbase "$logbase" --print-errorlogs \
	--wrap='valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite --trace-children=no' ||
	status=$?

log=
for candidate in "$build/meson-logs/$logbase-valgrind.txt" "$build/meson-logs/$logbase.txt"; do
	if [ -f "$candidate" ]; then
		log=$candidate
		break
	fi
done
if [ -z "$log" ]; then
	echo "$0: meson wrote no test log ($build/meson-logs/$logbase*.txt)" >&2
	exit 1
fi
# memcheck's error headers, as "==PID== <kind>" lines.
pattern='^==[0-9]+== (Invalid (read|write|free|alignment)|Mismatched free|Conditional jump or move depends on uninitialised|Use of uninitialised value|Syscall param|Source and destination overlap|Argument .* of function .* has a fishy|Warning: invalid file descriptor|Process terminating with default action of signal (4|6|7|8|11) )'
if grep -Eq "$pattern" "$log"; then
	echo "$0: memcheck errors in the log ($log):" >&2
	grep -En "$pattern" "$log" >&2
	status=1
fi
if [ "$status" -eq 0 ]; then
	echo "$0: unit suite clean under valgrind (log: $log)"
fi
exit "$status"
