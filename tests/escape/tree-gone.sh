#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tree-gone.sh FILE...: the check of the cases where confine is SIGKILLed
# while a call the supervisor performs for the command would block (issue
# 21; cases.txt, "lifeline-blocked-*"). Run by run-escape.sh as a case's
# check, with MARK, REALWS and RUNG in the environment. FILEs are names in
# the workspace that the run's processes write in a loop.
#
# A process of the run is one whose environment holds ESC_TREE=$MARK (the
# case's command exports it, so every descendant inherits it) or whose
# command line names $REALWS (confine, bwrap and the launcher do; the
# harness names it only in its environment, and this script takes only
# relative names). Succeeds when, within the bound, no such process is
# left, and then the FILEs have stopped growing, and $REALWS/state says the
# call was blocked when confine was killed and never returned. Whatever is
# left is SIGKILLed here, by pid, so no case outlives its check.
set -u
token="ESC_TREE=$MARK"

# Builtins only (no process per entry): a scan of /proc stays fast on a
# loaded machine, and spawns nothing that could match itself.
run_pids() {
	local dir pid words
	for dir in /proc/[0-9]*; do
		pid=${dir#/proc/}
		[ "$pid" = "$$" ] && continue
		words=()
		mapfile -d '' words 2>/dev/null <"$dir/cmdline"
		case " ${words[*]} " in *"$REALWS"*) echo "$pid"; continue ;; esac
		words=()
		mapfile -d '' words 2>/dev/null <"$dir/environ"
		case " ${words[*]} " in *" $token "*) echo "$pid" ;; esac
	done
}

size() { (cd "$REALWS" && cat -- "$@" 2>/dev/null | wc -c); }

# The bound: the launcher reads its lifeline within milliseconds of
# confine's death, so only a tree left running reaches 60 s; it is that
# wide so a loaded machine never fails the case. The unconfined control
# (RUNG none) shows the tree outliving confine: 10 s alive is the evidence.
bound=60
[ "$RUNG" = none ] && bound=10
deadline=$((SECONDS + bound))
while :; do
	left=$(run_pids)
	[ -z "$left" ] || [ "$SECONDS" -ge "$deadline" ] && break
	sleep 0.2
done
before=$(size "$@")
sleep 1
after=$(size "$@")
for pid in $left $(run_pids); do
	kill -KILL "$pid" 2>/dev/null
done
echo "left after ${bound}s: ${left:-none}; written $before then $after bytes;" \
	"state: $(tr '\n' ' ' 2>/dev/null <"$REALWS/state")"
[ -z "$left" ] && [ "$before" -gt 0 ] && [ "$before" = "$after" ] &&
	grep -q '^blocked' "$REALWS/state" && ! grep -q '^returned' "$REALWS/state"
