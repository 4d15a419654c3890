#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# run-escape.sh: the escape suite's driver. Reads a table of cases
# (tests/escape/cases.txt), runs each one through the real `confine run`,
# and again through the argv the real `confine wrap` prints (spawned as a
# harness would: --paths), under each Linux rung (bwrap, landlock) and each
# mode the case names, each
# time with a fresh workspace and a fresh victim directory under $HOME, and
# proves on disk that nothing outside the allowed area changed (or, for a
# must-work case, that the effect happened).
#
# Usage: run-escape.sh [--rungs bwrap,landlock] [--paths run,wrap]
#                      [--only ID[,ID...]] [--report FILE] [--keep]
#                      [--jobs N] [--also-nonroot] [--user-only]
#                      [--cases shared|alone|all] CASES_FILE
#
# Output: TAP on stdout (meson reads it: protocol 'tap'), one line per case,
# rung and mode: "ok N - ID RUNG MODE USER: blocked", "ok N - ... # SKIP
# why", a known-open case "not ok N - ... # TODO known open ..." (TAP's
# expected failure), a failure "not ok N - ... RESULT" with its reason on
# the "#" line after it; "1..N" last. Everything else on stdout is a "#"
# line. The exit status is 1 when any case failed (0 when all passed or
# were known-open or skipped; a run that can test nothing prints "1..0 #
# SKIP why" and exits 0, or fails with CONFINE_MUST_WORK=1).
#
# --jobs N: how many cases run at once (default: the number of CPUs, at
# least 2, at most 4; CONFINE_ESCAPE_JOBS overrides the default). Each case
# has its own directories, outside process, names ($MARK) and daemons, so
# cases run side by side; a case that changes host state another case
# could meet (a mount, the host's /dev/null) says so in its row ("alone:",
# below) and runs after the others, one at a time. Results are reported in
# table order either way.
#
# --paths: how each case reaches its rung. run (the library spawns the
# command itself: `confine run`, or `confine bash` for a "bash:" command)
# and wrap (a harness spawns the argv `confine wrap` prints, as doc/SPEC.md
# 10 says: tests/escape/wrap-harness.py stands where confine stands). Both
# by default. A wrap result names its rung wrap-bwrap, wrap-landlock or
# wrap-none; RUNG stays the rung itself and ESCAPE_PATH says which path.
# The wrap path needs WRAP_HARNESS (tests/helpers/escape/wrap-harness.c,
# built); without it that path is skipped (a failure with
# CONFINE_MUST_WORK=1).
#
# --also-nonroot: when run as root, after the root pass, create a throwaway
# user (useradd, home under /home), run the whole table again as that user
# (its own $HOME, its own workspaces and victims), and remove the user
# (userdel -r) afterwards. The user half runs from copies of the binaries
# and scripts in a root-owned directory it can read (tests/helpers/stage.sh;
# the checkout may be closed to it), and fails unless it exited 0, recorded
# as many results as the root half and ran at least one case. Each result
# line names the user it ran as: root, or user for a non-root caller.
#
# --user-only (with --also-nonroot, run as root): the user half alone, no
# root pass; its results are checked against the table's count instead of
# the root half's. Meson runs the root half and the user half as tests of
# their own, side by side (tests/e2e/escape/meson.build). Run by a non-root
# caller it is a skip as a whole: the root-half test already ran the table
# as that caller.
#
# --cases: which of the table's cases run: shared (those without
# "alone:"), alone (only those, one at a time), all (the default). Meson
# runs the shared ones beside other tests and the alone ones in a test
# that runs with no other (is_parallel: false).
#
# As root the run first re-executes itself in a private mount namespace
# (unshare --mount --propagation private), so that no case mounts on the
# host (tests/escape/README.md, "Isolation").
#
# Environment:
#   CONFINE            the confine binary under test (required)
#   LANDLOCK_RUN       the build tree's landlock-run (for nested attempts and
#                      the rung's availability check)
#   ESCAPE_HELPER      tests/helpers/escape/escape-helper, built
#   WRAP_HARNESS       tests/helpers/escape/wrap-harness, built (the wrap path)
#   CONFINE_MUST_WORK  1: a rung that is unavailable is a failure, not a skip
#   CONFINE_GVISOR     the build tree's confine-gvisor: staged for the user
#                      half of --rungs gvisor (beside the staged launcher)
#
# Table format: one case per line, fields separated by " :: ":
#   id :: modes :: expect :: setup :: command :: check :: note
# modes   ro, ww, dfa (danger-full-access: a harness self-test, run once, no
#         rung), joined with "+": "ro+ww". Then, for a case that changes
#         host state another case could meet, "alone:WHAT" (WHAT: one word,
#         the state: mounts, devnull): it runs after the other cases, with
#         no other case at once (tests/escape/README.md, "Isolation").
# expect  one word, optionally followed by per-rung overrides
#         "WORD@RUNG" (comma separated): "blocked,open@landlock".
#           blocked  nothing outside the allowed area changes
#           works    the command exits 0, the effect happened (check holds)
#                    and nothing outside changed
#           open     a KNOWN-OPEN limit: the escape must still succeed (it is
#                    documented in doc/SECURITY.md); if it is blocked the case
#                    FAILS so the table and the document get updated. A case
#                    whose command never starts is open only when its check
#                    fails (e.g. a runner that ran nothing and read as success)
#           escapes  harness self-test (dfa): the escape is visible, which
#                    proves the checks can see one
#           refused  confine refuses before running anything: the command
#                    never starts, confine exits non-zero, nothing outside
#                    changes and the check holds (a policy or runner that
#                    must not be accepted)
#           skip     not meaningful on this rung
#           skip:WHY a case that does not apply to the rung, for the reason
#                    WHY names: a line "@reason WHY :: TEXT" earlier in the
#                    table (a word with no such line fails the table). The
#                    TAP line is a SKIP saying TEXT: "skip:proxy@gvisor"
#         On the wrap path an override "WORD@wrap-RUNG" (or "WORD@wrap",
#         every rung) comes first, then "WORD@RUNG", then the leading word.
# setup   bash run unconfined before the snapshot ("-": none); exit 77 skips
#         the case. It may write $CTL/wsarg (the -w argument, default the
#         workspace), $CTL/env (KEY=VALUE lines added to confine's
#         environment), $CTL/prefix (words put before the confine command,
#         e.g. a pty harness) and $CTL/pids (pids to kill afterwards).
# command bash run confined as `bash -c COMMAND` by `confine run`; a "bash:"
#         prefix runs it through `confine bash -c` instead.
# check   bash run unconfined after the run ("-": none); must succeed for
#         blocked/works, and for open it failing (or the snapshot changing)
#         is the evidence that the escape happened.
# note    what the case tries; for open cases, why it is open.
#
# Variables exported to setup, command and check: BASE (the case's private
# dir), WS (the -w argument), REALWS (the workspace directory), VICTIM (the
# victim directory, outside the workspace), CTL (harness-private dir, not
# snapshotted), OUTPID (a process outside the sandbox, cwd in VICTIM), MARK
# (a unique token for paths outside BASE), RUNG, MODE, ESCAPE_PATH (run or
# wrap), CONFINE, LANDLOCK_RUN,
# HELPER, ESCAPE_PREFIX (tests/escape/prefix.sh, forms a setup can put in
# $CTL/prefix); and to check only: STATUS (confine's exit status), OUT, ERR (files
# holding its stdout and stderr).
#
# The confine process runs with stdin opened read-only on $VICTIM/stdin.txt
# and with descriptor 7 open for appending on $VICTIM/fd7.txt: a descriptor
# the caller leaked must not become a write channel (spawn closes every
# descriptor above 2).
set -u

die() { printf 'run-escape: %s\n' "$*" >&2; exit 99; }

all_args=("$@")
rungs_wanted=bwrap,landlock
paths_wanted=run,wrap
only=
report=
keep=0
also_nonroot=0
user_only=0
case_set=all
user_label=
jobs=${CONFINE_ESCAPE_JOBS:-}
while [ $# -gt 1 ]; do
	case $1 in
	--rungs) rungs_wanted=$2; shift 2 ;;
	--paths) paths_wanted=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--report) report=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--also-nonroot) also_nonroot=1; shift ;;
	--user-only) user_only=1; shift ;;
	--cases) case_set=$2; shift 2 ;;
	--user-label) user_label=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	*) die "unknown option: $1" ;;
	esac
done
[ $# -eq 1 ] || die "usage: run-escape.sh [options] CASES_FILE"
case $case_set in shared | alone | all) ;; *) die "--cases wants shared, alone or all: $case_set" ;; esac
[ "$user_only" = 0 ] || [ "$also_nonroot" = 1 ] || die "--user-only goes with --also-nonroot"
if [ "$user_only" = 1 ] && [ "$(id -u)" != 0 ]; then
	# Not a skip_or_fail: nothing is left untested, the root-half test ran
	# the table as this very caller.
	printf '1..0 # SKIP the user half runs from a root run; the other half ran the table as this caller (uid %s)\n' "$(id -u)"
	exit 0
fi
cases_file=$1
[ -r "$cases_file" ] || die "cannot read the case table: $cases_file"
cases_file=$(realpath "$cases_file")
script_path=$(realpath "$0")
if [ -z "$jobs" ]; then
	jobs=$(nproc 2>/dev/null || echo 2)
	[ "$jobs" -lt 2 ] && jobs=2
	[ "$jobs" -gt 4 ] && jobs=4
fi
case $jobs in '' | *[!0-9]* | 0) die "--jobs wants a positive number: $jobs" ;; esac
# The job pool waits for whichever case ends first: wait -n -p (bash 5.1).
if [ "$jobs" -gt 1 ] && { [ "${BASH_VERSINFO[0]}" -lt 5 ] ||
	{ [ "${BASH_VERSINFO[0]}" = 5 ] && [ "${BASH_VERSINFO[1]}" -lt 1 ]; }; }; then
	printf '# bash %s has no wait -n -p: the cases run one at a time\n' "$BASH_VERSION"
	jobs=1
fi
if [ -z "$user_label" ]; then
	if [ "$(id -u)" = 0 ]; then user_label=root; else user_label=user; fi
fi

must_work=${CONFINE_MUST_WORK:-0}
# Nothing can be tested here: TAP's "skipped as a whole" (meson: SKIP).
skip_or_fail() {
	if [ "$must_work" = 1 ]; then
		printf 'run-escape: FAIL: %s (CONFINE_MUST_WORK=1)\n' "$*" >&2
		printf 'Bail out! %s (CONFINE_MUST_WORK=1)\n' "$*"
		exit 1
	fi
	printf 'run-escape: SKIP: %s\n' "$*" >&2
	printf '1..0 # SKIP %s\n' "$*"
	exit 0
}

[ "$(uname -s)" = Linux ] || skip_or_fail "the escape suite needs Linux"

# Isolation (tests/escape/README.md): as root, the whole run happens in a
# mount namespace of its own with private propagation. The cases that mount
# (n1-host-mount-appears, n8-*-bind-elsewhere, a mount-over-victim that got
# through) then mount in it, never on the host, where a bwrap of another
# test binding / recursively could meet them half made ("Can't bind mount
# /oldroot/ on /newroot/"); and mounts made on the host after the run
# started never reach it. The cases still test what they must: the
# confined command's namespace (bwrap's) is made from this one, so a mount
# made here after the command started propagates into it as a host mount
# would. The user half runs in the same namespace.
if [ "$(id -u)" = 0 ]; then
	mntns=$(readlink /proc/self/ns/mnt) || die "cannot read /proc/self/ns/mnt"
	if [ -z "${CONFINE_ESCAPE_OUTER_MNTNS:-}" ]; then
		command -v unshare >/dev/null 2>&1 ||
			skip_or_fail "unshare (util-linux) is missing: root's cases would mount on the host"
		unshare --mount --propagation private true 2>/dev/null ||
			skip_or_fail "unshare --mount fails here: root's cases would mount on the host"
		export CONFINE_ESCAPE_OUTER_MNTNS=$mntns
		exec unshare --mount --propagation private -- bash "$script_path" "${all_args[@]}"
	fi
	[ "$CONFINE_ESCAPE_OUTER_MNTNS" != "$mntns" ] ||
		die "still in the mount namespace the run started in: refusing to mount on the host"
fi
[ -n "${CONFINE:-}" ] && [ -x "$CONFINE" ] || skip_or_fail "CONFINE is not an executable: ${CONFINE:-unset}"
[ -n "${ESCAPE_HELPER:-}" ] && [ -x "$ESCAPE_HELPER" ] || die "ESCAPE_HELPER is not an executable: ${ESCAPE_HELPER:-unset}"
CONFINE=$(realpath "$CONFINE")
HELPER=$(realpath "$ESCAPE_HELPER")
LANDLOCK_RUN=${LANDLOCK_RUN:-}
[ -n "$LANDLOCK_RUN" ] && LANDLOCK_RUN=$(realpath "$LANDLOCK_RUN")
ESCAPE_PREFIX=$(dirname "$(realpath "$0")")/prefix.sh
export CONFINE HELPER LANDLOCK_RUN ESCAPE_PREFIX
# The wrap path's harness (--paths): it stands where confine stands.
want_wrap=0
for path in ${paths_wanted//,/ }; do
	case $path in
	run) ;;
	wrap) want_wrap=1 ;;
	*) die "unknown path: $path" ;;
	esac
done
case ",$paths_wanted," in *,run,*) want_run=1 ;; *) want_run=0 ;; esac
if [ "$want_wrap" = 1 ] && { [ -z "${WRAP_HARNESS:-}" ] || [ ! -x "$WRAP_HARNESS" ]; }; then
	[ "$must_work" = 1 ] && { echo "run-escape: FAIL: WRAP_HARNESS is not an executable: ${WRAP_HARNESS:-unset} (CONFINE_MUST_WORK=1)" >&2; exit 1; }
	echo "run-escape: WRAP_HARNESS is not an executable (${WRAP_HARNESS:-unset}): the wrap path is skipped" >&2
	want_wrap=0
fi
[ "$want_wrap" = 1 ] && WRAP_HARNESS=$(realpath "$WRAP_HARNESS")

# Which rungs can really run here: the same functional checks the ladder
# uses. A rung that cannot run still gets one line per case (SKIP, with the
# reason), so every caller's run has as many results as the table has
# case, rung and mode triples: the --also-nonroot check counts them.
rungs=()
declare -A rung_unusable=()
for rung in ${rungs_wanted//,/ }; do
	case $rung in
	bwrap)
		if command -v bwrap >/dev/null 2>&1 &&
			bwrap --ro-bind / / --dev /dev --unshare-pid --unshare-ipc --proc /proc --ro-bind /proc/sys /proc/sys --die-with-parent \
				--new-session --cap-drop ALL -- true >/dev/null 2>&1; then
			rungs+=(bwrap)
		else
			[ "$must_work" = 1 ] && { echo "run-escape: FAIL: bwrap is not usable here (CONFINE_MUST_WORK=1)" >&2; exit 1; }
			echo "run-escape: bwrap is not usable here: its cases are skipped" >&2
			rungs+=(bwrap)
			rung_unusable[bwrap]="bwrap is not usable here"
		fi ;;
	landlock)
		if [ -n "$LANDLOCK_RUN" ] && "$LANDLOCK_RUN" --probe >/dev/null 2>&1; then
			rungs+=(landlock)
		else
			[ "$must_work" = 1 ] && { echo "run-escape: FAIL: landlock-run --probe fails here (CONFINE_MUST_WORK=1)" >&2; exit 1; }
			echo "run-escape: Landlock is not enforced here: its cases are skipped" >&2
			rungs+=(landlock)
			rung_unusable[landlock]="Landlock is not enforced here"
		fi ;;
	gvisor)
		# Pinned only (doc/SPEC.md 22): runsc under confine's own helper,
		# checked the way the rung's probe checks it, a `true` run.
		if command -v runsc >/dev/null 2>&1 &&
			"$CONFINE" run -m read-only -w / --runner gvisor -- true >/dev/null 2>&1; then
			rungs+=(gvisor)
		else
			[ "$must_work" = 1 ] && { echo "run-escape: FAIL: the gvisor rung does not run here (CONFINE_MUST_WORK=1)" >&2; exit 1; }
			echo "run-escape: the gvisor rung does not run here: its cases are skipped" >&2
			rungs+=(gvisor)
			rung_unusable[gvisor]="the gvisor rung does not run here (runsc)"
		fi ;;
	*) die "unknown rung: $rung" ;;
	esac
done
[ ${#rungs[@]} -gt ${#rung_unusable[@]} ] || skip_or_fail "no Linux rung is usable here"

# Work dirs live under $HOME, outside every temp area a rung grants.
root_parent=$HOME/.cache/confine-escape
mkdir -p "$root_parent" || die "cannot create $root_parent"
ROOT=$(mktemp -d "$root_parent/run.XXXXXX") || die "mktemp under $root_parent failed"
# A case may run the helper confined: bwrap's /tmp is its own, so a helper
# built under /tmp (a clone there) is not visible inside; use a copy here.
case $HELPER in
/tmp/*)
	mkdir "$ROOT/bin" && cp "$HELPER" "$ROOT/bin/escape-helper" || die "cannot copy $HELPER to $ROOT/bin"
	HELPER=$ROOT/bin/escape-helper ;;
esac

# Undo anything a case managed to do to the host that would outlive it: a
# mount over the case dir, an immutable flag, a replaced /dev/null.
devnull_expected="character special file 1 3 666"
# The mounts are read from mountinfo by the shell itself (no findmnt, grep
# or sort per call: each process costs a case measurable time, and this
# runs twice a case); the deepest first.
host_guard() {
	local base=$1 target i
	local -a field targets=()
	while read -r -a field; do
		target=${field[4]:-}
		# mountinfo escapes space, tab, newline and backslash as \ooo
		[[ $target == *\\* ]] && printf -v target '%b' "$target"
		[[ $target == *"$base"* ]] && targets+=("$target")
	done </proc/self/mountinfo
	for ((i = ${#targets[@]} - 1; i >= 0; i--)); do
		umount -l "${targets[$i]}" 2>/dev/null
	done
	chattr -R -i -a "$base" 2>/dev/null
	if [ "$(stat -c '%F %t %T %a' /dev/null 2>/dev/null)" != "$devnull_expected" ]; then
		printf 'run-escape: HOST DAMAGE: /dev/null changed (%s); restoring it\n' \
			"$(stat -c '%F %t %T %a' /dev/null 2>&1)" >&2
		rm -f /dev/null && mknod -m 666 /dev/null c 1 3
		return 1
	fi
	return 0
}
cleanup_all() {
	if [ "$keep" = 0 ]; then
		host_guard "$ROOT" >/dev/null 2>&1
		rm -rf "$ROOT"
	fi
}
trap cleanup_all EXIT

# A snapshot of everything under BASE except the workspace's contents and
# the harness's CTL dir: paths, types, modes, link counts, owners, sizes,
# mtimes, ctimes (which catch chmod, chown, setxattr and chattr), inodes,
# link targets and content hashes. The workspace itself is recorded by
# inode and type, so renaming or replacing it shows.
# One find prints it all (the workspace's own line, every entry's metadata
# line, each file's hash from sha256sum), sorted: three processes, where a
# case's cost is mostly its process count.
# (From BASE, in this shell: a subshell would be one more fork.)
snapshot() {
	local back=$PWD
	cd "$1" || return 1
	LC_ALL=C find . \( -path ./ws -printf 'ws|%i|%y\n' -prune \) -o \( -path ./ctl -prune \) -o \
		\( -printf '%p|%y|%m|%n|%U:%G|%s|%T@|%C@|%i|%l\n' -type f -exec sha256sum {} + \) |
		LC_ALL=C sort
	cd "$back" || return 1
}

populate_victim() {
	local v=$1
	printf 'victim-content\n' >"$v/file.txt"
	printf 'read-only victim\n' >"$v/ro.txt" && chmod 444 "$v/ro.txt"
	printf '#!/bin/sh\necho victim-script\n' >"$v/exec.sh" && chmod 755 "$v/exec.sh"
	printf 'deep\n' >"$v/sub/deep.txt"
	printf 'fd7-target\n' >"$v/fd7.txt"
	printf 'stdin-content\n' >"$v/stdin.txt"
	ln -s file.txt "$v/link"
}

# Exported so a setup can make a confined call of its own (a "first call"
# that prepares the next one).
run_confined() { # MODE WSARG ARGV...
	local mode=$1 wsarg=$2
	shift 2
	"$CONFINE" run -m "$mode" -w "$wsarg" --runner "$RUNG" -- "$@"
}
export -f run_confined

mode_name() {
	case $1 in
	ro) echo read-only ;;
	ww) echo workspace-write ;;
	dfa) echo danger-full-access ;;
	*) return 1 ;;
	esac
}

# The expectation of a case on one rung: the override WORD@RUNG if there is
# one, else the leading word. More rungs after the first are looked up in
# turn (the wrap path: wrap-RUNG, wrap, RUNG).
expect_for() {
	local spec=$1 item default= rung
	shift
	for rung in "$@"; do
		for item in ${spec//,/ }; do
			case $item in
			*@"$rung") echo "${item%@*}"; return ;;
			esac
		done
	done
	for item in ${spec//,/ }; do
		case $item in
		*@*) ;;
		*) [ -z "$default" ] && default=$item ;;
		esac
	done
	echo "$default"
}

n_pass=0 n_fail=0 n_open=0 n_skip=0
tap_n=0
failures=()
[ -n "$report" ] && : >"$report"
# Each case runs in a job of its own and leaves its one result in
# $RES/UNIT.res; the parent reports them in table order (tally), so the
# output does not depend on how many ran at once.
RES=$ROOT/results
mkdir "$RES" || die "cannot create $RES"
unit=

# In a case's job: its result, for the parent to report.
record() { # RESULT ID RUNG MODE DETAIL
	printf '%s\0' "$@" >"$RES/$unit.res"
}

# In the parent: one result as a TAP line (the reason of a failure on the
# "#" line after it), the report's line and the counts.
tally() { # RESULT ID RUNG MODE DETAIL
	local result=$1 id=$2 rung=$3 mode=$4 detail=${5//$'\n'/ } name
	name="$id $rung $mode $user_label"
	tap_n=$((tap_n + 1))
	[ -n "$report" ] && printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$rung" "$mode" "$result" "$detail" "$user_label" >>"$report"
	case $result in
	PASS)
		n_pass=$((n_pass + 1))
		printf 'ok %d - %s: %s\n' "$tap_n" "$name" "${detail//#/}" ;;
	KNOWN-OPEN)
		n_open=$((n_open + 1))
		printf 'not ok %d - %s # TODO known open, documented in doc/SECURITY.md\n# %s\n' "$tap_n" "$name" "$detail" ;;
	SKIP)
		n_skip=$((n_skip + 1))
		printf 'ok %d - %s # SKIP %s\n' "$tap_n" "$name" "$detail" ;;
	*)
		n_fail=$((n_fail + 1))
		failures+=("$id/$rung/$mode: $detail")
		printf 'not ok %d - %s: %s\n# %s\n' "$tap_n" "$name" "$result" "$detail" ;;
	esac
}

# Runs one case on one rung under one mode. Prints nothing itself; records.
# A rung named wrap-RUNG is RUNG reached through the wrap path.
run_case() {
	local id=$1 modeword=$2 rung=$3 expect=$4 setup=$5 command=$6 check=$7
	local mode base status intact=1 why= ran=1 setup_status check_status
	local -a prefix=() extra_env=() confine_argv=()
	local real_rung=${rung#wrap-} path=run
	[ "$real_rung" != "$rung" ] && path=wrap

	mode=$(mode_name "$modeword") || { record FAIL "$id" "$rung" "$modeword" "unknown mode word in the table"; return; }
	# $unit is unique within the run, and ROOT is ours (mode 0700).
	base=$ROOT/$id.$rung.$modeword.$unit
	mkdir "$base" || { record FAIL "$id" "$rung" "$modeword" "cannot make $base"; return; }
	mkdir -p "$base/ws" "$base/ctl" "$base/victim/sub" "$base/victim/empty"
	populate_victim "$base/victim"

	export BASE=$base REALWS=$base/ws WS=$base/ws VICTIM=$base/victim CTL=$base/ctl
	export MARK="confine-esc-$$-$unit-$RANDOM-$id" RUNG=$real_rung MODE=$mode ESCAPE_PATH=$path

	# The outside process: not a child of confine, cwd in the victim dir.
	(cd "$VICTIM" && exec sleep 600) &
	export OUTPID=$!

	if [ "$setup" != - ]; then
		(cd "$base" && bash -c "$setup") >"$CTL/setup.out" 2>&1 </dev/null
		setup_status=$?
		if [ "$setup_status" = 77 ]; then
			record SKIP "$id" "$rung" "$mode" "setup: $(tail -n1 "$CTL/setup.out")"
			finish_case "$base"; return
		elif [ "$setup_status" != 0 ]; then
			record FAIL "$id" "$rung" "$mode" "setup failed ($setup_status): $(tail -n3 "$CTL/setup.out" | tr '\n' ' ')"
			finish_case "$base"; return
		fi
	fi
	[ -s "$CTL/wsarg" ] && WS=$(cat "$CTL/wsarg")
	if [ -s "$CTL/prefix" ]; then read -r -a prefix <"$CTL/prefix"; fi
	if [ -s "$CTL/env" ]; then mapfile -t extra_env <"$CTL/env"; fi

	snapshot "$base" >"$CTL/before"

	# The case's command is preceded by a marker so a run that never
	# started (confine refused) cannot pass as "blocked".
	if [ "${command#bash:}" != "$command" ]; then
		confine_argv=("$CONFINE" bash -m "$mode" -w "$WS" -c "echo __CASE_STARTED__; ${command#bash:}")
	else
		confine_argv=("$CONFINE" run -m "$mode" -w "$WS" -- bash -c "echo __CASE_STARTED__; $command")
	fi
	# danger-full-access never reaches a provider: no rung to pin.
	if [ "$real_rung" != none ]; then
		confine_argv=("${confine_argv[0]}" "${confine_argv[1]}" --runner "$real_rung" "${confine_argv[@]:2}")
	fi
	# The wrap path: the same words, to the harness that wraps and spawns.
	[ "$path" = wrap ] && confine_argv[0]=$WRAP_HARNESS
	(
		cd "$base" || exit 99
		for e in "${extra_env[@]}"; do export "$e" || exit 99; done
		exec timeout -k 5 90 "${prefix[@]}" "${confine_argv[@]}"
	) >"$CTL/stdout" 2>"$CTL/stderr" <"$VICTIM/stdin.txt" 7>>"$VICTIM/fd7.txt"
	status=$?

	snapshot "$base" >"$CTL/after"
	if ! cmp -s "$CTL/before" "$CTL/after"; then
		intact=0
		why="outside changed: $(diff "$CTL/before" "$CTL/after" | grep '^[<>]' | head -n4 | tr '\n' ' ')"
	fi
	if [ "$check" != - ]; then
		STATUS=$status OUT=$CTL/stdout ERR=$CTL/stderr bash -c "$check" >"$CTL/check.out" 2>&1 </dev/null
		check_status=$?
		if [ "$check_status" != 0 ]; then
			intact=0
			why="${why:+$why; }check failed: $(head -c 300 "$CTL/check.out" | tr '\n' ' ')"
		fi
	fi
	grep -q __CASE_STARTED__ "$CTL/stdout" "$CTL/stderr" || ran=0
	host_guard "$base" || { intact=0; why="${why:+$why; }/dev/null was changed"; }

	local errtail errbuf=
	IFS= read -r -d '' errbuf <"$CTL/stderr"
	errbuf=${errbuf: -300}
	errtail="exit $status; stderr: ${errbuf//$'\n'/ }"
	case $expect in
	blocked)
		if [ "$ran" = 0 ]; then
			record FAIL "$id" "$rung" "$mode" "the command never started, so nothing was tried ($errtail)"
		elif [ "$intact" = 1 ]; then
			record PASS "$id" "$rung" "$mode" "blocked"
		else
			record FAIL "$id" "$rung" "$mode" "ESCAPED: $why ($errtail)"
		fi ;;
	works)
		if [ "$ran" = 1 ] && [ "$status" = 0 ] && [ "$intact" = 1 ]; then
			record PASS "$id" "$rung" "$mode" "works"
		else
			record FAIL "$id" "$rung" "$mode" "must work but: ${why:-} ($errtail)"
		fi ;;
	open)
		if [ "$ran" = 0 ] && [ "$intact" = 1 ]; then
			record FAIL "$id" "$rung" "$mode" "the command never started ($errtail)"
		elif [ "$intact" = 0 ]; then
			record KNOWN-OPEN "$id" "$rung" "$mode" "still open: $why"
		else
			record FAIL "$id" "$rung" "$mode" "known-open case now closed: update the table and SECURITY.md ($errtail)"
		fi ;;
	refused)
		if [ "$ran" = 1 ]; then
			record FAIL "$id" "$rung" "$mode" "ACCEPTED: the command started, confine should have refused (${why:-nothing visible changed}; $errtail)"
		elif [ "$status" = 0 ]; then
			record FAIL "$id" "$rung" "$mode" "confine exited 0 without running the command ($errtail)"
		elif [ "$intact" = 1 ]; then
			record PASS "$id" "$rung" "$mode" "refused"
		else
			record FAIL "$id" "$rung" "$mode" "refused, but: $why ($errtail)"
		fi ;;
	escapes)
		if [ "$ran" = 1 ] && [ "$intact" = 0 ]; then
			record PASS "$id" "$rung" "$mode" "self-test: the escape is visible"
		else
			record FAIL "$id" "$rung" "$mode" "self-test: the harness did not see an unconfined effect ($errtail)"
		fi ;;
	*) record FAIL "$id" "$rung" "$mode" "unknown expectation: $expect" ;;
	esac
	finish_case "$base"
}

finish_case() {
	local base=$1 pid
	kill "$OUTPID" 2>/dev/null
	wait "$OUTPID" 2>/dev/null
	if [ -s "$base/ctl/pids" ]; then
		while read -r pid; do
			[ -n "$pid" ] && kill "$pid" 2>/dev/null
		done <"$base/ctl/pids"
	fi
	host_guard "$base" >/dev/null 2>&1
	if [ "$keep" = 0 ]; then
		# One rm for the marks and the case's directory (-r: a mark some
		# case made a directory goes too; ${MARK:?}: never an empty name).
		rm -rf "/dev/shm/${MARK:?}" "/run/$MARK" "/run/user/$EUID/$MARK" "/tmp/$MARK" \
			"$HOME/.$MARK" "/etc/$MARK" "$base" "$base".* 2>/dev/null
	else
		rm -f "/dev/shm/$MARK" "/run/$MARK" "/run/user/$EUID/$MARK" "/tmp/$MARK" "$HOME/.$MARK" \
			"/etc/$MARK" 2>/dev/null
	fi
}

# The units: one per case, rung (or wrap-rung) and mode, in table order.
# A unit is run by a job, or is known without running (U_pre: the SKIP
# detail of a rung that cannot run here, or of "skip" in the table).
U_id=() U_word=() U_rung=() U_expect=() U_setup=() U_command=() U_check=() U_alone=() U_pre=()
add_unit() { # ID MODEWORD RUNG EXPECT SETUP COMMAND CHECK ALONE PRE
	U_id+=("$1") U_word+=("$2") U_rung+=("$3") U_expect+=("$4") U_setup+=("$5")
	U_command+=("$6") U_check+=("$7") U_alone+=("$8") U_pre+=("$9")
}

# "@reason WHY :: TEXT": what skip:WHY says (above).
declare -A skip_reason=()
# The SKIP detail of an expectation "skip" or "skip:WHY", else nothing.
skip_detail() { # EXPECT DEFAULT-DETAIL
	case $1 in
	skip) echo "$2" ;;
	skip:*)
		[ -n "${skip_reason[${1#skip:}]:-}" ] || return 1
		echo "does not apply to this rung: ${skip_reason[${1#skip:}]}" ;;
	esac
}

ids_seen=" "
lineno=0
while IFS= read -r line || [ -n "$line" ]; do
	lineno=$((lineno + 1))
	case $line in '' | '#'*) continue ;; esac
	case $line in
	'@reason '*)
		word=${line#@reason }
		word=${word%% :: *}
		case $word in '' | *[!a-z0-9-]*) die "$cases_file:$lineno: @reason WORD :: TEXT, WORD in [a-z0-9-]" ;; esac
		[ "${line#* :: }" != "$line" ] && [ -n "${line#* :: }" ] ||
			die "$cases_file:$lineno: @reason $word :: TEXT: the text is missing"
		skip_reason[$word]=${line#* :: }
		continue ;;
	esac
	IFS=$'\x1f' read -r id modes expect setup command check note <<<"${line// :: /$'\x1f'}"
	if [ -z "${note:-}" ] || [ -z "$check" ]; then
		die "$cases_file:$lineno: expected 7 fields separated by ' :: '"
	fi
	case $ids_seen in *" $id "*) die "$cases_file:$lineno: duplicate id $id" ;; esac
	ids_seen="$ids_seen$id "
	# "ro+ww alone:mounts": the case runs alone.
	alone=
	case $modes in
	*" "*)
		alone=${modes#* }
		modes=${modes%% *}
		case $alone in
		alone:[a-z]*) ;;
		*) die "$cases_file:$lineno: after the modes only alone:WHAT may follow, not: $alone" ;;
		esac ;;
	esac
	if [ -n "$only" ]; then
		case ",$only," in *",$id,"*) ;; *) continue ;; esac
	fi
	for modeword in ${modes//+/ }; do
		if [ "$modeword" = dfa ]; then
			[ "$want_run" = 1 ] &&
				add_unit "$id" dfa none "$(expect_for "$expect" none)" "$setup" "$command" "$check" "$alone" ""
			[ "$want_wrap" = 1 ] &&
				add_unit "$id" dfa wrap-none "$(expect_for "$expect" wrap-none wrap none)" \
					"$setup" "$command" "$check" "$alone" ""
			continue
		fi
		for rung in "${rungs[@]}"; do
			e=$(expect_for "$expect" "$rung")
			# A skip:WHY whose WHY the table does not define fails it:
			# no case is dropped for a reason nobody wrote down.
			for w in "$e" "$(expect_for "$expect" "wrap-$rung" wrap "$rung")"; do
				case $w in skip:*) skip_detail "$w" - >/dev/null ||
					die "$cases_file:$lineno: $id: $w: no \"@reason ${w#skip:} :: TEXT\" line before it" ;;
				esac
			done
			if [ -n "${rung_unusable[$rung]:-}" ]; then
				if [ "$want_run" = 1 ]; then
					add_unit "$id" "$modeword" "$rung" - - - - "$alone" "${rung_unusable[$rung]}"
				fi
				if [ "$want_wrap" = 1 ]; then
					add_unit "$id" "$modeword" "wrap-$rung" - - - - "$alone" "${rung_unusable[$rung]}"
				fi
				continue
			fi
			if [ "$want_run" = 0 ]; then
				:
			elif [ "${e%%:*}" = skip ]; then
				add_unit "$id" "$modeword" "$rung" - - - - "$alone" \
					"$(skip_detail "$e" "not meaningful on this rung")"
			else
				add_unit "$id" "$modeword" "$rung" "$e" "$setup" "$command" "$check" "$alone" ""
			fi
			[ "$want_wrap" = 1 ] || continue
			e=$(expect_for "$expect" "wrap-$rung" wrap "$rung")
			if [ "${e%%:*}" = skip ]; then
				add_unit "$id" "$modeword" "wrap-$rung" - - - - "$alone" \
					"$(skip_detail "$e" "not meaningful on this path")"
				continue
			fi
			add_unit "$id" "$modeword" "wrap-$rung" "$e" "$setup" "$command" "$check" "$alone" ""
		done
	done
done <"$cases_file"

# An --only that names no case in the table would run nothing.
if [ -n "$only" ]; then
	for id in ${only//,/ }; do
		case $ids_seen in *" $id "*) ;; *) die "--only $id: no such case in $cases_file" ;; esac
	done
fi

# The job pool. A case's job runs it with its own directories, outside
# process and names; at most $jobs at once, the "alone:" cases after the
# others one at a time. The parent reports results in table order.
declare -A running=()
unit_done=()
start_unit() { # UNIT
	unit=$1
	(
		trap - EXIT
		run_case "${U_id[$1]}" "${U_word[$1]}" "${U_rung[$1]}" "${U_expect[$1]}" \
			"${U_setup[$1]}" "${U_command[$1]}" "${U_check[$1]}"
	) >"$RES/$1.log" 2>&1 </dev/null &
	running[$!]=$1
}
# Waits until one running job has ended.
reap_one() {
	local pid= status n
	if [ "$jobs" = 1 ]; then
		for pid in "${!running[@]}"; do :; done
		wait "$pid"
	else
		wait -n -p pid
	fi
	status=$?
	if [ -z "$pid" ] || [ -z "${running[$pid]:-}" ]; then
		# Not a job of ours, or none left to wait for: take every one.
		for pid in "${!running[@]}"; do
			wait "$pid"
			echo "$?" >"$RES/${running[$pid]}.status"
			unit_done[${running[$pid]}]=1
			unset "running[$pid]"
		done
		return
	fi
	n=${running[$pid]}
	echo "$status" >"$RES/$n.status"
	unit_done[$n]=1
	unset "running[$pid]"
}
# Reports unit N: its job's output on stderr, its result as TAP. A job
# that ended without a result is a failure, never a pass.
collect() { # UNIT
	local n=$1 f=()
	if [ -s "$RES/$n.log" ]; then
		sed "s/^/run-escape: ${U_id[$n]}\/${U_rung[$n]}: /" "$RES/$n.log" >&2
	fi
	if [ -n "${U_pre[$n]}" ]; then
		tally SKIP "${U_id[$n]}" "${U_rung[$n]}" "$(mode_name "${U_word[$n]}")" "${U_pre[$n]}"
	elif [ -s "$RES/$n.res" ] && mapfile -d '' f <"$RES/$n.res" && [ ${#f[@]} = 5 ]; then
		tally "${f[@]}"
	else
		tally FAIL "${U_id[$n]}" "${U_rung[$n]}" "$(mode_name "${U_word[$n]}")" \
			"the case's job ended without a result (exit $(cat "$RES/$n.status" 2>/dev/null))"
	fi
	rm -f "$RES/$n.res" "$RES/$n.log" "$RES/$n.status"
}

shared=() alone_units=()
for n in "${!U_id[@]}"; do
	if [ -n "${U_alone[$n]}" ]; then
		[ "$case_set" = shared ] || alone_units+=("$n")
	else
		[ "$case_set" = alone ] || shared+=("$n")
	fi
done
n_units=$((${#shared[@]} + ${#alone_units[@]}))
if [ "$user_only" = 1 ]; then
	printf '# run-escape: --user-only: no root pass; the user half records %d results (--cases %s)\n' \
		"$n_units" "$case_set"
	shared=() alone_units=()
fi
printf '# run-escape: %s: %d results to record (--cases %s), %d at once, %d alone after them\n' \
	"$user_label" "$((${#shared[@]} + ${#alone_units[@]}))" "$case_set" "$jobs" "${#alone_units[@]}"
next=0
flush() {
	while [ "$next" -lt ${#shared[@]} ] && [ -n "${unit_done[${shared[$next]}]:-}" ]; do
		collect "${shared[$next]}"
		next=$((next + 1))
	done
}
for n in "${shared[@]}"; do
	if [ -n "${U_pre[$n]}" ]; then
		unit_done[$n]=1
	else
		while [ ${#running[@]} -ge "$jobs" ]; do reap_one; flush; done
		start_unit "$n"
	fi
	flush
done
while [ ${#running[@]} -gt 0 ]; do reap_one; flush; done
flush
for n in "${alone_units[@]}"; do
	if [ -z "${U_pre[$n]}" ]; then
		start_unit "$n"
		while [ ${#running[@]} -gt 0 ]; do reap_one; done
	fi
	collect "$n"
done

n_records=$((n_pass + n_open + n_skip + n_fail))
n_ran=$((n_pass + n_open + n_fail))
printf '# run-escape: %s: %d passed, %d known-open (still open, documented), %d skipped, %d FAILED (%d results, %d ran)\n' \
	"$user_label" "$n_pass" "$n_open" "$n_skip" "$n_fail" "$n_records" "$n_ran"
[ "$n_fail" -gt 0 ] && printf '#   FAIL %s\n' "${failures[@]}"

# The same table as a non-root caller: a user made for this run only. It
# runs from copies (tests/helpers/stage.sh): the checkout may be one the
# user cannot enter (a clone under /root, mode 0700). The half passes only
# if it exited 0, recorded one result per case, rung and mode, as many as
# this half did, and ran at least one case: a half that ran nothing fails.
nonroot_status=0
nonroot_why=
nonroot_user=cfesc$$
remove_user() { userdel -r "$nonroot_user" >/dev/null 2>&1; }

# Runs the user half; on failure sets nonroot_why to the reason.
run_user_half() {
	local tool nonroot_uid nonroot_home nonroot_report status records ran
	local s_confine s_helper s_script s_prefix s_cases s_launcher= s_harness= s_daemons= s_treegone=
	local -a staged args
	for tool in useradd userdel runuser setpriv; do
		command -v "$tool" >/dev/null 2>&1 || { nonroot_why="--also-nonroot needs $tool"; return; }
	done
	# shellcheck source=../helpers/stage.sh
	. "$(dirname "$script_path")/../helpers/stage.sh" || { nonroot_why="cannot read tests/helpers/stage.sh"; return; }
	useradd -m -d "/home/$nonroot_user" -s /bin/bash "$nonroot_user" ||
		{ nonroot_why="useradd $nonroot_user failed"; return; }
	trap 'cleanup_all; remove_user; stage_remove' EXIT
	nonroot_uid=$(id -u "$nonroot_user")
	nonroot_home=$(getent passwd "$nonroot_user" | cut -d: -f6)
	chmod 700 "$nonroot_home"
	nonroot_report=$nonroot_home/escape-results.tsv
	echo "# run-escape: the same table as $nonroot_user (uid $nonroot_uid)"
	if ! stage_make ||
		! s_confine=$(stage_copy "$CONFINE" confine) ||
		! s_helper=$(stage_copy "$HELPER" escape-helper) ||
		! s_script=$(stage_copy "$script_path" run-escape.sh) ||
		! s_prefix=$(stage_copy "$ESCAPE_PREFIX" prefix.sh) ||
		! s_cases=$(stage_copy "$cases_file" cases.txt) ||
		{ [ -n "$LANDLOCK_RUN" ] && ! s_launcher=$(stage_copy "$LANDLOCK_RUN" landlock-run); } ||
		{ [ -n "${WRAP_HARNESS:-}" ] && ! s_harness=$(stage_copy "$WRAP_HARNESS" wrap-harness); } ||
		{ [ -e "$(dirname "$ESCAPE_PREFIX")/daemons.sh" ] &&
			! s_daemons=$(stage_copy "$(dirname "$ESCAPE_PREFIX")/daemons.sh" daemons.sh); } ||
		{ [ -e "$(dirname "$ESCAPE_PREFIX")/tree-gone.sh" ] &&
			! s_treegone=$(stage_copy "$(dirname "$ESCAPE_PREFIX")/tree-gone.sh" tree-gone.sh); }; then
		nonroot_why="could not copy what the user half runs to a place it can read"
		return
	fi
	# The gVisor rung's helper is found beside the launcher the provider
	# runs (doc/SPEC.md 22): staged beside the staged launcher, which a
	# config names (the user cannot be relied on to reach the build tree's).
	local s_gvisor= s_config=
	case ",$rungs_wanted," in
	*,gvisor,*)
		if [ -n "${CONFINE_GVISOR:-}" ] && [ -n "$s_launcher" ]; then
			s_gvisor=$(stage_copy "$CONFINE_GVISOR" confine-gvisor) &&
				printf '{"landlockLauncher": "%s"}\n' "$s_launcher" >"$STAGE/gvisor-config.json" &&
				chmod 0644 "$STAGE/gvisor-config.json" && s_config=$STAGE/gvisor-config.json ||
				{ nonroot_why="could not stage confine-gvisor"; return; }
		fi ;;
	esac
	staged=("$s_confine" "$s_helper" "$s_script" "$s_prefix" "$s_cases" ${s_launcher:+"$s_launcher"}
		${s_gvisor:+"$s_gvisor"} ${s_config:+"$s_config"}
		${s_harness:+"$s_harness"} ${s_daemons:+"$s_daemons"} ${s_treegone:+"$s_treegone"})
	echo "# run-escape: the user half runs from copies in $STAGE"
	stage_check "$nonroot_uid" "${staged[@]}" ||
		{ nonroot_why="uid $nonroot_uid cannot reach the copies in $STAGE"; return; }

	args=(--rungs "$rungs_wanted" --paths "$paths_wanted" --user-label user --report "$nonroot_report"
		--jobs "$jobs" --cases "$case_set")
	[ -n "$only" ] && args+=(--only "$only")
	[ "$keep" = 1 ] && args+=(--keep)
	# Its TAP lines continue this run's numbering; its plan is this run's.
	(cd / && runuser -u "$nonroot_user" -- env -i HOME="$nonroot_home" USER="$nonroot_user" \
		LOGNAME="$nonroot_user" PATH="$PATH" LANG=C.UTF-8 CONFINE="$s_confine" \
		LANDLOCK_RUN="$s_launcher" ESCAPE_HELPER="$s_helper" WRAP_HARNESS="${s_harness:-}" \
		CONFINE_MUST_WORK="$must_work" ${s_config:+CONFINE_CONFIG="$s_config"} \
		bash "$s_script" "${args[@]}" "$s_cases") |
		awk -v off="$tap_n" -v count="$RES/user.tap" '
			match($0, /^(not )?ok [0-9]+/) {
				n++
				print (substr($0, 1, 3) == "not" ? "not ok " : "ok ") (off + n) substr($0, RLENGTH + 1)
				next
			}
			/^1\.\./ { print "# user half: " $0; next }
			/^Bail out!/ { print "# user half: " $0; next }
			{ print }
			END { print n + 0 > count }'
	status=${PIPESTATUS[0]}
	tap_n=$((tap_n + $(cat "$RES/user.tap" 2>/dev/null || echo 0)))
	records=0 ran=0
	if [ -r "$nonroot_report" ]; then
		records=$(wc -l <"$nonroot_report")
		ran=$(awk -F'\t' '$4 != "SKIP"' "$nonroot_report" | wc -l)
		[ -n "$report" ] && cat "$nonroot_report" >>"$report"
	fi
	# A half that skipped as a whole ("1..0 # SKIP", exit 0) recorded no
	# result: that fails below, as a half that ran nothing.
	if [ "$status" != 0 ]; then
		nonroot_why="the user half exited $status"
	elif [ "$user_only" = 1 ] && [ "$records" != "$n_units" ]; then
		nonroot_why="the user half recorded $records results, the table has $n_units"
	elif [ "$user_only" = 0 ] && [ "$records" != "$n_records" ]; then
		nonroot_why="the user half recorded $records results, the root half $n_records"
	elif [ "$ran" = 0 ]; then
		nonroot_why="the user half ran no case (all $records results are SKIP)"
	else
		user_half_ok="$records results, $ran ran, as many results as the root half"
		[ "$user_only" = 1 ] && user_half_ok="$records results, $ran ran, one per case, rung and mode"
	fi
}

user_half_ok=
if [ "$also_nonroot" = 1 ] && [ "$(id -u)" = 0 ]; then
	run_user_half
	# Nothing of the user may outlive the run: its processes, then it.
	if getent passwd "$nonroot_user" >/dev/null; then
		for pid in $(pgrep -u "$nonroot_user"); do kill -KILL "$pid" 2>/dev/null; done
		remove_user
		# A user left behind is host state this run leaked: say so, fail.
		if getent passwd "$nonroot_user" >/dev/null; then
			nonroot_why="${nonroot_why:+$nonroot_why; }userdel -r $nonroot_user failed: the user is left on the host"
		fi
	fi
	[ -n "${STAGE:-}" ] && stage_remove
	trap cleanup_all EXIT
	# The half's own verdict is a case of this run too.
	tap_n=$((tap_n + 1))
	if [ -n "$nonroot_why" ]; then
		printf 'not ok %d - user half (%s)\n# run-escape: FAIL: user half: %s\n' "$tap_n" "$nonroot_user" "$nonroot_why"
		printf 'run-escape: FAIL: user half: %s\n' "$nonroot_why" >&2
		nonroot_status=1
	else
		printf 'ok %d - user half (%s): %s\n' "$tap_n" "$nonroot_user" "$user_half_ok"
	fi
fi
none_ran=0
if [ "$n_ran" = 0 ] && [ "$user_only" = 0 ]; then
	tap_n=$((tap_n + 1))
	printf 'not ok %d - %s: at least one case ran\n# run-escape: FAIL: %s: no case ran (%d results, all SKIP)\n' \
		"$tap_n" "$user_label" "$user_label" "$n_records"
	none_ran=1
fi
echo "1..$tap_n"
[ "$n_fail" -gt 0 ] && exit 1
[ "$nonroot_status" != 0 ] && exit 1
[ "$none_ran" = 1 ] && exit 1
exit 0
