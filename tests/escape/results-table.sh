#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# results-table.sh CASES_FILE RESULTS_TSV: prints the Markdown table of one
# run of run-escape.sh (its --report file) for doc/SECURITY.md: one row per
# case, one column per rung and mode. USER (default root) picks the caller
# of an --also-nonroot run: root or user.
set -eu
cases=$1 results=$2 who=${3:-root}
columns="bwrap/read-only bwrap/workspace-write landlock/read-only landlock/workspace-write none/danger-full-access"
printf '| case | bwrap ro | bwrap ww | landlock ro | landlock ww | unconfined (self-test) | what it tries |\n'
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
