#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# prefix.sh: words a case's setup writes to $CTL/prefix (run-escape.sh puts
# them before the confine command). Each form ends with "--" and the argv it
# runs, so forms chain.
#   pidfile FILE -- ARGV     write this pid (the confine process's, after
#                            exec) to FILE, then exec ARGV
#   stdin PATH -- ARGV       exec ARGV with stdin opened read-only on PATH
#                            (a directory too)
#   unpin -- ARGV            drop every "--runner NAME" from ARGV: the
#                            natural (optimistic) ladder
#   insert WORD... -- ARGV   put WORDs after ARGV's subcommand (ARGV[1])
#   ladder-race N OUT HELPER -- ARGV
#                            N times: run ARGV's confine, unpinned (the
#                            natural ladder), with its command
#                            replaced by "HELPER kill-parent RUNS" (the
#                            command SIGKILLs its launcher at once; RUNS is
#                            a fresh file in the workspace), and append
#                            "<exit status> <lines in RUNS>" to OUT; then
#                            exec ARGV itself once (the case's command)
set -u
form=$1
shift
case $form in
pidfile)
	echo $$ >"$1"
	shift 2
	exec "$@" ;;
stdin)
	path=$1
	shift 2
	exec "$@" <"$path" ;;
unpin)
	shift
	argv=()
	while [ $# -gt 0 ]; do
		if [ "$1" = --runner ]; then shift 2; continue; fi
		argv+=("$1"); shift
	done
	exec "${argv[@]}" ;;
insert)
	words=()
	while [ "$1" != -- ]; do words+=("$1"); shift; done
	shift
	first=$1 sub=$2
	shift 2
	exec "$first" "$sub" "${words[@]}" "$@" ;;
ladder-race)
	n=$1 out=$2 helper=$3
	shift 4
	head=()
	while [ "$1" != -- ]; do
		if [ "$1" = --runner ]; then shift 2; continue; fi
		head+=("$1"); shift
	done
	for i in $(seq 1 "$n"); do
		runs=$REALWS/runs.$i
		"${head[@]}" -- "$helper" kill-parent "$runs" </dev/null >/dev/null 2>>"$out.stderr"
		status=$?
		lines=0
		[ -e "$runs" ] && lines=$(wc -l <"$runs")
		echo "$status $lines" >>"$out"
	done
	exec "${head[@]}" "$@" ;;
*)
	echo "prefix.sh: unknown form $form" >&2
	exit 99 ;;
esac
