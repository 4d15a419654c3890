#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# run-bad-input.sh: feeds the confine command, its configuration file and
# landlock-run wrong input from a table (tests/escape/bad-input.txt) and
# checks each is refused cleanly: exit 125, a first stderr line starting
# with a stderr line starting "confine: " (or "landlock-run: "; a runner's own
# stderr passes through before it), the message naming the value, and
# nothing run: the command each case would start prints RAN, writes
# $WS/inside and $SIDE (outside the workspace); none of that may happen.
#
# Usage: run-bad-input.sh [--only ID[,ID...]] TABLE
# Environment: CONFINE, LANDLOCK_RUN (required), CONFINE_MUST_WORK.
#
# Table: one case per line, fields separated by " :: ":
#   id :: setup :: argv :: expect :: note
# setup   bash run before ("-": none) in $BASE; may write files under $CTL.
# argv    bash words (quoted as in a shell, variables expanded) forming the
#         command line, e.g. "$CONFINE" run -m bogus -- sh -c "$TRY".
#         "${PAD[@]}" expands to the NUL-separated words in $CTL/pad;
#         "${AS_OTHER[@]}" to a setpriv prefix that runs the command as
#         nobody when the suite runs as root, to nothing otherwise.
# expect  "125 TEXT": refused as above, stderr contains TEXT (a literal in
#         which $BASE, $WS and $CTL are replaced by their values); "126
#         TEXT" / "127 TEXT": the same with exit 126 / 127 (a program that
#         cannot run: the env(1) conventions); "1 TEXT": the same with exit
#         1 (`confine probe`'s verdict "not usable");
#         "works": exit 0, RAN printed, $WS/inside written;
#         "confined": either works or is refused with exit 125 and the
#         prefix; never anything else;
#         "harmless": only that nothing ran unconfined (a misconfiguration
#         that confines nothing and runs nothing).
# In every case $SIDE must stay absent: no run is ever unconfined.
#
# Variables: BASE (the case's dir under $HOME), WS (a workspace dir), CTL
# (scratch), SIDE (outside the workspace), TRY (the shell command every
# case's program runs), CONFINE, LANDLOCK_RUN.
set -u

die() { printf 'run-bad-input: %s\n' "$*" >&2; exit 99; }

only=
while [ $# -gt 1 ]; do
	case $1 in
	--only) only=$2; shift 2 ;;
	*) die "unknown option: $1" ;;
	esac
done
[ $# -eq 1 ] || die "usage: run-bad-input.sh [--only IDS] TABLE"
table=$1
[ -r "$table" ] || die "cannot read the table: $table"

if [ -z "${CONFINE:-}" ] || [ ! -x "$CONFINE" ] || [ -z "${LANDLOCK_RUN:-}" ] || [ ! -x "$LANDLOCK_RUN" ]; then
	if [ "${CONFINE_MUST_WORK:-0}" = 1 ]; then
		echo "run-bad-input: FAIL: CONFINE and LANDLOCK_RUN must be built executables" >&2
		exit 1
	fi
	echo "run-bad-input: SKIP: CONFINE or LANDLOCK_RUN is not built" >&2
	echo "1..0 # SKIP CONFINE or LANDLOCK_RUN is not built"
	exit 0
fi
CONFINE=$(realpath "$CONFINE")
LANDLOCK_RUN=$(realpath "$LANDLOCK_RUN")
export CONFINE LANDLOCK_RUN

root_parent=$HOME/.cache/confine-escape
mkdir -p "$root_parent" || die "cannot create $root_parent"
ROOT=$(mktemp -d "$root_parent/bad.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$ROOT"' EXIT

# Finds the largest padding (bytes, as words of at most 128 KiB - 1: the
# kernel's MAX_ARG_STRLEN counts the NUL) with which the shell can still exec
# `confine wrap ARGS... PAD...` (wrap runs nothing, so the search has no side
# effects), and writes it NUL-separated to $CTL/pad, one byte longer because
# the real call says "run" where the search said "wrap". At that size
# confine itself starts, but the runner's argv (its path and profile tokens
# added) no longer fits: the case the library must turn into a clean error.
# Usage (from a setup): pad_to_arg_max ARGS-AFTER-WRAP...
pad_to_arg_max() {
	local low=0 high=$((3 * 1024 * 1024)) mid n chunk status
	local -a words
	chunk=$(head -c 131071 /dev/zero | tr '\0' a)
	make_pad() {
		n=$1
		words=()
		while [ "$n" -ge 131071 ]; do words+=("$chunk"); n=$((n - 131071)); done
		[ "$n" -gt 0 ] && words+=("${chunk:0:$n}")
		return 0
	}
	while [ $((high - low)) -gt 1 ]; do
		mid=$(((low + high) / 2))
		make_pad "$mid"
		# The same exec prefix as run_one's real call (timeout), so the
		# search measures the exec that can fail with E2BIG.
		timeout -k 5 60 "$CONFINE" wrap "$@" "${words[@]}" >/dev/null 2>&1
		status=$?
		# 126: the shell's exec failed with E2BIG.
		if [ "$status" = 126 ]; then high=$mid; else low=$mid; fi
	done
	make_pad $((low + 1))
	printf '%s\0' "${words[@]}" >"$CTL/pad"
	echo "padding: $((low + 1)) bytes in ${#words[@]} words"
}
export -f pad_to_arg_max

# TAP (meson: protocol 'tap'): one line per case, a failure's reason on
# the "#" line after it, the plan last.
n_pass=0 n_fail=0 tap_n=0
failures=()
pass() {
	tap_n=$((tap_n + 1)) n_pass=$((n_pass + 1))
	printf 'ok %d - %s: %s\n' "$tap_n" "$1" "${2//#/}"
}
fail() {
	tap_n=$((tap_n + 1)) n_fail=$((n_fail + 1))
	failures+=("$1: $2")
	printf 'not ok %d - %s\n# %s\n' "$tap_n" "$1" "${2//$'\n'/ }"
}

substitute() { # TEXT: replace $BASE, $WS, $CTL with their values
	local text=$1
	text=${text//'$BASE'/$BASE}
	text=${text//'$WS'/$WS}
	text=${text//'$CTL'/$CTL}
	printf '%s' "$text"
}

# "${AS_OTHER[@]}" runs the case's command as a user other than the owner
# of its files: nobody when the suite runs as root (who can enter anything);
# a non-root caller is already refused by a mode-000 directory of its own.
# As root the cases run a staged copy of confine (tests/helpers/stage.sh):
# nobody cannot run one inside a checkout closed to it (a clone under /root),
# and would then exit 126 for a reason the case is not about.
if [ "$(id -u)" = 0 ]; then
	AS_OTHER=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	# shellcheck source=../helpers/stage.sh
	. "$(dirname "$(realpath "${BASH_SOURCE[0]}")")/../helpers/stage.sh" || die "cannot read stage.sh"
	stage_make || die "cannot make a stage"
	trap 'rm -rf "$ROOT"; stage_remove' EXIT
	CONFINE=$(stage_copy "$CONFINE" confine) || die "cannot stage confine"
	stage_check 65534 "$CONFINE" || die "nobody cannot run the staged $CONFINE"
	export CONFINE
else
	AS_OTHER=()
fi

run_one() {
	local id=$1 setup=$2 argv_text=$3 expect=$4
	local status errline prefix want ran=0 inside=0 side=0
	local -a argv PAD=()

	export BASE
	BASE=$(mktemp -d "$ROOT/$id.XXXX")
	export WS=$BASE/ws CTL=$BASE/ctl SIDE=$BASE/side
	# $SIDE's touch fails when confined; the command still exits 0 so a
	# confined run is told apart from a refusal by RAN and $WS/inside.
	export TRY='echo RAN; touch "$WS/inside"; touch "$SIDE" 2>/dev/null; true'
	mkdir "$WS" "$CTL"
	if [ "$setup" != - ]; then
		(cd "$BASE" && bash -c "$setup") >"$CTL/setup.out" 2>&1 </dev/null ||
			{ fail "$id" "setup failed: $(tail -n2 "$CTL/setup.out" | tr '\n' ' ')"; return; }
	fi
	[ -s "$CTL/pad" ] && mapfile -d '' -t PAD <"$CTL/pad"
	eval "argv=($argv_text)" || { fail "$id" "bad argv in the table"; return; }

	(cd "$BASE" && exec timeout -k 5 60 "${argv[@]}") >"$CTL/stdout" 2>"$CTL/stderr" </dev/null
	status=$?
	grep -q '^RAN$' "$CTL/stdout" && ran=1
	[ -e "$WS/inside" ] && inside=1
	[ -e "$SIDE" ] && side=1
	case ${argv[0]} in
	"$LANDLOCK_RUN") prefix='landlock-run: ' ;;
	*) prefix='confine: ' ;;
	esac
	# The runner's own stderr passes through first and a usage error adds a
	# help hint after it: the error is the first line with the prefix.
	errline=$(grep -m1 -- "^$prefix" "$CTL/stderr")
	local detail="exit $status; stderr: $(head -c 400 "$CTL/stderr" | tr '\n' ' ')"

	if [ "$side" = 1 ]; then
		fail "$id" "RAN UNCONFINED: $SIDE was written ($detail)"
		return
	fi
	refused_ok() { # [STATUS]: refused with that exit status (default 125)
		[ "$status" = "${1:-125}" ] && [ "$ran" = 0 ] && [ "$inside" = 0 ] &&
			[ "${errline#"$prefix"}" != "$errline" ]  # the line starts with it
	}
	case $expect in
	1\ * | 12[567]\ *)
		want=$(substitute "${expect#* }")
		if ! refused_ok "${expect%% *}"; then
			fail "$id" "expected exit ${expect%% *} with '$prefix...' and nothing run; got ran=$ran inside=$inside ($detail)"
		elif ! grep -qF -- "$want" "$CTL/stderr"; then
			fail "$id" "the error does not name '$want' ($detail)"
		else
			pass "$id" "$errline"
		fi ;;
	works)
		if [ "$status" = 0 ] && [ "$ran" = 1 ] && [ "$inside" = 1 ]; then
			pass "$id" "worked, confined"
		else
			fail "$id" "expected to run confined; got ran=$ran inside=$inside ($detail)"
		fi ;;
	confined)
		if [ "$status" = 0 ] && [ "$ran" = 1 ] && [ "$inside" = 1 ]; then
			pass "$id" "worked, confined"
		elif refused_ok; then
			pass "$id" "refused: $errline"
		else
			fail "$id" "neither a confined run nor a clean refusal: ran=$ran inside=$inside ($detail)"
		fi ;;
	harmless)
		# Only "nothing unconfined" is promised (checked above).
		pass "$id" "nothing ran unconfined (exit $status, ran=$ran)" ;;
	*) fail "$id" "unknown expectation: $expect" ;;
	esac
	rm -rf "$BASE"
}

ids_seen=" "
lineno=0
while IFS= read -r line || [ -n "$line" ]; do
	lineno=$((lineno + 1))
	case $line in '' | '#'*) continue ;; esac
	IFS=$'\x1f' read -r id setup argv_text expect note <<<"${line// :: /$'\x1f'}"
	[ -n "${note:-}" ] || die "$table:$lineno: expected 5 fields separated by ' :: '"
	case $ids_seen in *" $id "*) die "$table:$lineno: duplicate id $id" ;; esac
	ids_seen="$ids_seen$id "
	if [ -n "$only" ]; then
		case ",$only," in *",$id,"*) ;; *) continue ;; esac
	fi
	run_one "$id" "$setup" "$argv_text" "$expect"
done <"$table"

printf '# run-bad-input: %d passed, %d FAILED\n' "$n_pass" "$n_fail"
[ "$n_fail" -gt 0 ] && printf '#   FAIL %s\n' "${failures[@]}"
echo "1..$tap_n"
[ "$n_fail" -gt 0 ] && exit 1
[ "$n_pass" -gt 0 ] || die "no case ran"
exit 0
