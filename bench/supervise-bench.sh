#!/bin/bash
# The supervisor's cost on a metadata-heavy job (issue 15): extract a tar
# of 5,000 files with modes and times into the writable directory, then
# `chmod -R` over it; supervised (supervise-driver, the launcher's
# supervisor alone) vs the same job without it. Prints the best of N runs
# of each and their ratio. A measurement, not a test: no bound is checked
# (target: within 1.3x).
#
#   bench/supervise-bench.sh DRIVER [RUNS]
set -eu
DRIVER=${1:?usage: supervise-bench.sh DRIVER [RUNS]}
RUNS=${2:-5}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/confine-supervise-bench-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

mkdir -p "$WORK/src"
(cd "$WORK/src" && for d in $(seq 0 49); do
	mkdir "d$d"
	for f in $(seq 0 99); do echo "$d $f" > "d$d/f$f"; done
	chmod 640 "d$d"/f1* ; chmod 755 "d$d"/f2*; chmod 600 "d$d"/f3*
	touch -d "2001-0$((d % 9 + 1))-01" "d$d"/*
done)
tar cf "$WORK/files.tar" -C "$WORK/src" .
JOB='tar xf "$1" -C "$2" && chmod -R u+rw,go-w "$2"'

# run_once supervised|plain -> "wall_ms cpu_ms" (cpu: user+system of the
# job and, supervised, of the supervisor; steadier on a shared machine)
run_once() {
	rm -rf "$WORK/ws"; mkdir "$WORK/ws"
	local prefix=()
	[ "$1" = supervised ] && prefix=("$DRIVER" --rw "$WORK/ws" --)
	/usr/bin/time -f "%e %U %S" -o "$WORK/time" \
		"${prefix[@]}" sh -c "$JOB" sh "$WORK/files.tar" "$WORK/ws"
	awk '{ printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000 }' "$WORK/time"
}

min() { [ -z "$1" ] || [ "$2" -lt "$1" ] && echo "$2" || echo "$1"; }
pw=; pc=; sw=; sc=
for _ in $(seq "$RUNS"); do
	read -r w c < <(run_once plain); pw=$(min "$pw" "$w"); pc=$(min "$pc" "$c")
	read -r w c < <(run_once supervised); sw=$(min "$sw" "$w"); sc=$(min "$sc" "$c")
done
awk -v pw="$pw" -v pc="$pc" -v sw="$sw" -v sc="$sc" -v n="$RUNS" 'BEGIN {
	printf "tar x (5000 files, modes, times) + chmod -R, best of %d\n", n
	printf "               wall ms   cpu ms\n"
	printf "  unsupervised %7d  %7d\n  supervised   %7d  %7d\n", pw, pc, sw, sc
	printf "  ratio        %7.2fx %7.2fx   (target 1.30x)\n", sw / pw, sc / (pc ? pc : 1) }'
