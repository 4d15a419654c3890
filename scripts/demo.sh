#!/bin/sh
# The main job, shown end to end: in a fresh workspace, a write inside is
# permitted under workspace-write, a write outside is denied (the file stays
# absent), read-only denies even the workspace, and the ladder's verdict.
set -eu
build=${1:-build}
confine=$build/src/cli/confine
[ -x "$confine" ] || { echo "demo: $confine is not built" >&2; exit 1; }

# One directory of its own under ~/.cache (not /tmp: a workspace-write root
# under the host's /tmp is refused on the Landlock rung), removed however the
# demo ends.
base=${HOME:-/tmp}/.cache
mkdir -p "$base"
demo=$(mktemp -d "$base/confine-demo.XXXXXX")
trap 'rm -rf "$demo"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
work=$demo/workspace
outside=$demo/outside
mkdir "$work" "$outside"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
# Prints the command as a shell would read it, then runs it.
show() {
	printf '$'
	for a in "$@"; do
		case $a in
		*[!A-Za-z0-9_./=:-]*) printf " '%s'" "$(printf '%s' "$a" | sed "s/'/'\\\\''/g")" ;;
		*) printf ' %s' "$a" ;;
		esac
	done
	printf '\n'
	"$@" || printf '(exit status %d)\n' "$?"
}

step "Which runner confines commands on this host"
show "$confine" probe

step "workspace-write: writing inside the workspace is permitted"
show "$confine" bash -m workspace-write -w "$work" -c 'echo hello > note.txt && cat note.txt'
printf 'on disk: %s\n' "$(cat "$work/note.txt")"

step "workspace-write: writing outside the workspace is denied"
show "$confine" bash -m workspace-write -w "$work" -c "echo escaped > $outside/escape.txt"
if [ -e "$outside/escape.txt" ]; then
	echo "on disk: $outside/escape.txt EXISTS (this is a bug)"; exit 1
else
	echo "on disk: $outside/escape.txt is absent"
fi

step "The same denial under the Landlock rung (landlock-run)"
show "$confine" bash --runner landlock -m workspace-write -w "$work" -c "echo escaped > $outside/escape.txt"
[ -e "$outside/escape.txt" ] && { echo "on disk: escape.txt EXISTS (bug)"; exit 1; }
echo "on disk: $outside/escape.txt is absent"

step "read-only: even the workspace is not writable"
show "$confine" bash -m read-only -w "$work" -c 'echo again > note2.txt'
[ -e "$work/note2.txt" ] && { echo "on disk: note2.txt EXISTS (bug)"; exit 1; }
echo "on disk: $work/note2.txt is absent"

step "What an agent harness spawns instead (confine wrap)"
# A wrap argv names the launcher on disk. confine refuses to name one that
# others could replace, and a build tree under /tmp is such a place (an
# installed confine's is not): from there the demo pins a copy of its own.
launcher=$(realpath "$build/src/launcher/landlock-run")
case $launcher in
/tmp/*)
	mkdir "$demo/bin"
	cp "$launcher" "$demo/bin/landlock-run"
	printf '{"landlockLauncher": "%s"}\n' "$demo/bin/landlock-run" > "$demo/confine.json"
	echo "(the build is under /tmp: this wrap uses a launcher copied to $demo/bin)"
	show "$confine" wrap --config "$demo/confine.json" -m workspace-write -w "$work" -- sh -c 'echo hi' ;;
*)
	show "$confine" wrap -m workspace-write -w "$work" -- sh -c 'echo hi' ;;
esac
