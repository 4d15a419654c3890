#!/bin/bash
# The supervisor's cost on a metadata-heavy job (issue 15): extract a tar
# of 5,000 files with modes and times into the writable directory, then
# `chmod -R` over it. Runs the job
#   plain         no sandbox at all
#   unsupervised  landlock-run with the supervisor taken away (the test
#                 build's CONFINE_TEST_SUPERVISOR_MISSING=1): Landlock and
#                 the deny-list, the same rung without the supervisor
#   supervised    landlock-run as installed: Landlock, the deny-list, the
#                 supervisor
# interleaved, and prints the best of RUNS of each, wall and CPU (user +
# system of the job and the launcher: steadier on a shared machine), and
# the ratio supervised / unsupervised. A measurement, not a test: no bound
# is checked (target: within 1.3x; doc/BENCHMARKS.md has the figure).
#
#   bench/supervise-bench.sh LAUNCHER-TEST-BUILD [RUNS] [DIRS]
#   (ninja -C build bench-supervise; DIRS of 100 files each, default 50: the
#   5,000 files; make check's smoke run, the meson test `bench supervise`,
#   takes 1 run of 2 directories only to see that it runs and prints)
set -eu
LAUNCHER=${1:?usage: supervise-bench.sh LAUNCHER-TEST-BUILD [RUNS]}
RUNS=${2:-5}
DIRS=${3:-50}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/confine-supervise-bench-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

mkdir -p "$WORK/src"
(cd "$WORK/src" && for d in $(seq 0 $((DIRS - 1))); do
	mkdir "d$d"
	for f in $(seq 0 99); do echo "$d $f" > "d$d/f$f"; done
	chmod 640 "d$d"/f1* ; chmod 755 "d$d"/f2*; chmod 600 "d$d"/f3*
	touch -d "2001-0$((d % 9 + 1))-01" "d$d"/*
done)
tar cf "$WORK/files.tar" -C "$WORK/src" .
JOB='tar xf "$1" -C "$2" && chmod -R u+rw,go-w "$2"'

# run_once plain|unsupervised|supervised -> "wall_ms cpu_ms"
run_once() {
	rm -rf "$WORK/ws"; mkdir "$WORK/ws"
	local prefix=() env=()
	case $1 in
	unsupervised) env=(CONFINE_TEST_SUPERVISOR_MISSING=1)
		prefix=("$LAUNCHER" --ro / --rw "$WORK/ws" --) ;;
	supervised) prefix=("$LAUNCHER" --require-supervisor --ro / --rw "$WORK/ws" --) ;;
	esac
	env "${env[@]}" /usr/bin/time -f "%e %U %S" -o "$WORK/time" \
		"${prefix[@]}" sh -c "$JOB" sh "$WORK/files.tar" "$WORK/ws" 2>/dev/null
	awk '{ printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000 }' "$WORK/time"
}

min() { [ -z "$1" ] || [ "$2" -lt "$1" ] && echo "$2" || echo "$1"; }
pw=; pc=; uw=; uc=; sw=; sc=
for _ in $(seq "$RUNS"); do
	read -r w c < <(run_once plain); pw=$(min "$pw" "$w"); pc=$(min "$pc" "$c")
	read -r w c < <(run_once unsupervised); uw=$(min "$uw" "$w"); uc=$(min "$uc" "$c")
	read -r w c < <(run_once supervised); sw=$(min "$sw" "$w"); sc=$(min "$sc" "$c")
done
awk -v pw="$pw" -v pc="$pc" -v uw="$uw" -v uc="$uc" -v sw="$sw" -v sc="$sc" -v n="$RUNS" -v files=$((DIRS * 100)) 'BEGIN {
	printf "tar x (%d files, modes, times) + chmod -R, best of %d\n", files, n
	printf "               wall ms   cpu ms\n"
	printf "  plain        %7d  %7d\n  unsupervised %7d  %7d\n  supervised   %7d  %7d\n",
		pw, pc, uw, uc, sw, sc
	printf "  ratio        %7.2fx %7.2fx   supervised / unsupervised (target 1.30x)\n",
		sw / (uw ? uw : 1), sc / (uc ? uc : 1) }'
