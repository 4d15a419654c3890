#!/bin/sh
# SPDX-License-Identifier: MIT
# `make check`: runs every leg, each one even when a leg before it failed,
# then prints one line per leg (PASS or FAIL, and how long it took) and
# exits 1 if any leg failed. Each leg is its own make target, so one can be
# rerun alone (make check-asan, ...).
#
# Usage: scripts/check-all.sh MAKE
#   MAKE is make's own $(MAKE): the legs run through it, so the variables
#   given on make's command line (BUILD=..., MESON=...) reach every leg.
set -u

if [ $# -ne 1 ]; then
	echo "usage: $0 MAKE  (run it through make check)" >&2
	exit 2
fi
make=$1

# target|what the summary calls it
legs='check-suites|meson suites (every suite)
check-valgrind|unit suite under valgrind
check-asan|unit suite under ASan and UBSan
check-portable|suites of the -Dportable=true build
fuzz|short libFuzzer run'

summary=
failed=0
# Counts files older than this run are not this run's.
stamp=$(mktemp)
trap 'rm -f "$stamp"' EXIT
gate_start=$(date +%s)
nl='
'
old_ifs=$IFS
IFS=$nl
for leg in $legs; do
	IFS=$old_ifs
	target=${leg%%|*}
	name=${leg#*|}
	printf '\n==== check: %s (make %s)\n' "$name" "$target"
	start=$(date +%s)
	status=0
	counts=
	# shellcheck disable=SC2086 # MAKE may carry options
	$make --no-print-directory "$target" || status=$?
	seconds=$(($(date +%s) - start))
	if [ "$status" -eq 0 ]; then
		line=$(printf 'check: %-42s PASS (%d s)' "$name ..." "$seconds")
	else
		line=$(printf 'check: %-42s FAIL (%d s; exit %d; rerun: make %s)' "$name ..." \
			"$seconds" "$status" "$target")
		failed=$((failed + 1))
	fi
	# The meson legs' case counts and suite time (scripts/test-counts.py).
	case $target in
	check-suites) counts=${BUILD:-build}/meson-logs/counts.txt ;;
	check-portable) counts=${PORTABLE_BUILD:-build-portable}/meson-logs/counts.txt ;;
	esac
	if [ -n "$counts" ] && [ -s "$counts" ] && [ "$counts" -nt "$stamp" ]; then
		line="$line$nl$(printf '         %s' "$(cat "$counts")")"
	fi
	summary=$summary$line$nl
	printf '==== %s\n' "$line"
	IFS=$nl
done
IFS=$old_ifs

printf '\n==== make check: every leg ran (%d s in all)\n%s' "$(($(date +%s) - gate_start))" "$summary"
if [ "$failed" -ne 0 ]; then
	printf 'make check: %d leg(s) FAILED\n' "$failed"
	exit 1
fi
printf 'make check: all legs passed\n'
