#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# results-table.sh CASES_FILE RESULTS_TSV: prints the Markdown table of one
# run of run-escape.sh (its --report file) for doc/SECURITY.md: one row per
# case, one column per rung and mode. USER (default root) picks the caller
# of an --also-nonroot run: root or user. PATH (default run) picks the
# path: run, or wrap (the argv `confine wrap` prints, spawned by a harness).
set -eu
cases=$1 results=$2 who=${3:-root} path=${4:-run}
p=
[ "$path" = wrap ] && p=wrap-
columns="${p}bwrap/read-only ${p}bwrap/workspace-write ${p}landlock/read-only ${p}landlock/workspace-write ${p}none/danger-full-access"
printf '| case | %sbwrap ro | %sbwrap ww | %slandlock ro | %slandlock ww | unconfined (self-test) | what it tries |\n' "$p" "$p" "$p" "$p"
printf '|---|---|---|---|---|---|---|\n'
while IFS= read -r line; do
	case $line in '' | '#'*) continue ;; esac
	id=${line%% :: *}
	note=${line##* :: }
	row="| \`$id\`"
	for col in $columns; do
		rung=${col%%/*} mode=${col#*/}
		result=$(awk -F'\t' -v i="$id" -v r="$rung" -v m="$mode" -v u="$who" \
			'$1 == i && $2 == r && $3 == m && ($6 == u || ($6 == "" && u == "root")) { print $4 }' "$results")
		case $result in
		PASS) cell=ok ;;
		KNOWN-OPEN) cell="**open**" ;;
		SKIP) cell=skip ;;
		'') cell=- ;;
		*) cell="**$result**" ;;
		esac
		row="$row | $cell"
	done
	printf '%s | %s |\n' "$row" "${note//|/\\|}"
done <"$cases"
