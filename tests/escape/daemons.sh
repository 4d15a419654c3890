#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# daemons.sh: host daemons for the cases of cases-daemons.txt (issue 21: no
# host daemon is reachable from a confined run). A case's setup runs, e.g.,
#   bash "$(dirname "$ESCAPE_PREFIX")/daemons.sh" unix-sink /tmp/$MARK "$VICTIM/poked"
# Each daemon runs unconfined, outside the case's process tree, with its
# output to /dev/null; every pid it starts is appended to $CTL/pids, which
# run-escape.sh kills when the case ends (these cases change host state:
# each starts a daemon and leaves a socket while it runs). Forms:
#   unix-sink SOCK FILE     socat listening on SOCK, appending what each
#                           client sends to FILE (a daemon that acts for
#                           whoever connects)
#   tcp-sink FILE           socat on a free loopback TCP port appending to
#                           FILE; the port goes to $CTL/port
#   unix-relay SOCK FILE    a tcp-sink FILE, and socat relaying SOCK to it
#                           (a daemon that reaches the network for whoever
#                           connects: the --network off bypass)
#   tmux SOCK               a tmux server on SOCK ("default": tmux's own
#                           default socket, /tmp/tmux-UID/default)
#   agent                   an ssh-agent on its default socket
#                           (/tmp/ssh-*/agent.*) holding one new key whose
#                           comment is $MARK; SSH_AUTH_SOCK goes to
#                           $CTL/env (confine's environment, which the env
#                           filter passes on) and to $CTL/sock
# Exit 77 (the case skips) when a tool is missing.
set -u
: "${CTL:?}" "${MARK:?}"

need() {
	command -v "$1" >/dev/null 2>&1 || { echo "$1 is not installed (scripts/ensure-deps.sh check)"; exit 77; }
}

wait_for() { # PATH: a socket appears within 5 s
	for _ in $(seq 1 50); do
		[ -S "$1" ] && return 0
		sleep 0.1
	done
	echo "no socket at $1"
	exit 1
}

start() { # ARGV...: in the background, detached from the setup's streams
	setsid "$@" </dev/null >/dev/null 2>&1 &
	echo $! >>"$CTL/pids"
}

tcp_sink() { # FILE
	local file=$1 port pid
	need socat
	for _ in 1 2 3 4 5 6 7 8; do
		port=$((20000 + RANDOM % 30000))
		setsid socat -u "TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr,fork" \
			"OPEN:$file,creat,append" </dev/null >/dev/null 2>&1 &
		pid=$!
		sleep 0.2
		if kill -0 "$pid" 2>/dev/null; then
			echo "$pid" >>"$CTL/pids"
			echo "$port" >"$CTL/port"
			return 0
		fi
	done
	echo "no free loopback port"
	exit 1
}

form=$1
shift
case $form in
unix-sink)
	need socat
	start socat -u "UNIX-LISTEN:$1,fork" "OPEN:$2,creat,append"
	wait_for "$1" ;;
tcp-sink)
	tcp_sink "$1" ;;
unix-relay)
	tcp_sink "$2"
	start socat "UNIX-LISTEN:$1,fork" "TCP:127.0.0.1:$(cat "$CTL/port")"
	wait_for "$1" ;;
tmux)
	need tmux
	sock=$1
	args=()
	[ "$sock" = default ] || args=(-S "$sock")
	tmux "${args[@]}" new-session -d -s "cfesc" "sleep 900" </dev/null >/dev/null 2>&1 ||
		{ echo "tmux cannot start a server"; exit 1; }
	tmux "${args[@]}" display -p '#{pid}' >>"$CTL/pids" ;;
agent)
	need ssh-agent
	need ssh-add
	need ssh-keygen
	ssh-keygen -q -t ed25519 -N "" -C "$MARK" -f "$CTL/key" </dev/null >/dev/null ||
		{ echo "ssh-keygen failed"; exit 1; }
	out=$(ssh-agent -s </dev/null 2>/dev/null) || { echo "ssh-agent failed"; exit 1; }
	sock=$(printf '%s\n' "$out" | sed -n 's/^SSH_AUTH_SOCK=\([^;]*\);.*/\1/p')
	pid=$(printf '%s\n' "$out" | sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p')
	[ -n "$pid" ] && echo "$pid" >>"$CTL/pids"
	[ -S "$sock" ] || { echo "no agent socket"; exit 1; }
	SSH_AUTH_SOCK=$sock ssh-add "$CTL/key" </dev/null >/dev/null 2>&1 || { echo "ssh-add failed"; exit 1; }
	echo "SSH_AUTH_SOCK=$sock" >>"$CTL/env"
	echo "$sock" >"$CTL/sock" ;;
*)
	echo "daemons.sh: unknown form $form" >&2
	exit 99 ;;
esac
