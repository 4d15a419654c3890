# SPDX-License-Identifier: MIT
#
# stage.sh, sourced by the test scripts whose root run has a non-root half
# (run-escape.sh --also-nonroot, run-supervisor.sh's nobody half, faults.sh
# nproc): the files that half runs, copied to a place that user can read.
#
# Why: the checkout may be one the user cannot enter (a clone under /root,
# mode 0700). A program the half started by its path there fails with
# EACCES; worse, a check that only proves "nothing happened" then passes
# having tried nothing. So root copies what the half needs into a fresh
# directory, root-owned, mode 0755, outside the checkout and outside /tmp
# (bwrap's private /tmp would hide it from inside the sandbox), proves the
# user can reach every copy, and fails loudly when it cannot.
#
#   stage_make                 makes $STAGE: a fresh directory under
#                              $CONFINE_TEST_STAGE_PARENT (default /var/lib),
#                              root-owned, 0755; every directory above it
#                              must be searchable by others
#   stage_copy SRC [NAME]      copies SRC into $STAGE (0755 when SRC is
#                              executable, else 0644); prints the copy's path
#   stage_check UID PATH...    as UID (setpriv, no groups), each PATH must be
#                              readable, and executable when it is mode 0755;
#                              prints each one that is not, returns 1 then
#   stage_remove               removes $STAGE
#
# Each prints its reason on stderr and returns non-zero on failure: the
# caller turns that into a failure of the half, never a skip or a pass.

STAGE=

stage_make() {
	local parent=${CONFINE_TEST_STAGE_PARENT:-/var/lib}
	STAGE=$(mktemp -d "$parent/confine-stage.XXXXXX") || {
		echo "stage: cannot make a directory under $parent" >&2
		return 1
	}
	chown 0:0 "$STAGE" && chmod 0755 "$STAGE" || {
		echo "stage: cannot make $STAGE root-owned, mode 0755" >&2
		return 1
	}
}

stage_copy() {
	local src=$1 name=${2:-$(basename "$1")} mode=0644
	[ -n "$STAGE" ] && [ -d "$STAGE" ] || { echo "stage: stage_make first" >&2; return 1; }
	[ -x "$src" ] && mode=0755
	cp -- "$src" "$STAGE/$name" && chown 0:0 "$STAGE/$name" && chmod "$mode" "$STAGE/$name" || {
		echo "stage: cannot copy $src to $STAGE/$name" >&2
		return 1
	}
	printf '%s\n' "$STAGE/$name"
}

stage_check() {
	local uid=$1 path bad=0 want
	shift
	for path in "$@"; do
		want=-r
		[ "$(stat -c %a "$path" 2>/dev/null)" = 755 ] && want=-x
		# setpriv runs test(1) from /usr/bin; test then asks the kernel as
		# the user (access(2) with its ids: a closed directory above, a
		# noexec mount, a mode all say no).
		if ! (cd / && setpriv --reuid="$uid" --regid="$uid" --clear-groups -- test "$want" "$path" -a -r "$path"); then
			echo "stage: uid $uid cannot $([ $want = -x ] && echo run || echo read) $path" >&2
			bad=1
		fi
	done
	return $bad
}

stage_remove() {
	[ -n "$STAGE" ] && rm -rf -- "$STAGE"
	STAGE=
}
