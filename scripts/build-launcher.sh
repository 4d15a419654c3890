#!/bin/sh
# SPDX-License-Identifier: MIT
# build-launcher.sh check CC HOSTCC
# build-launcher.sh build CC HOSTCC OUT [CFLAG|SOURCE...]
# Builds landlock-run with musl-gcc (Debian's musl-tools) as a static PIE
# with no symbols or debug info: a tenth of static glibc's size, which is
# what every run copies into its sealed memfd and execs (SPEC 14).
# musl-gcc sees no kernel headers of its own: the host compiler's linux/,
# asm/ and asm-generic/ are linked into OUT.kernel-headers and searched
# after musl's, nothing else of the host's (no glibc header can slip in).
# `check` exits 0 when such a build works here (meson's configure step).
set -eu
[ $# -ge 3 ] || { echo "usage: $0 check|build CC HOSTCC ..." >&2; exit 2; }
mode=$1 cc=$2 hostcc=$3
shift 3

# Links the kernel headers into $1; fails when the host compiler has none.
kernel_headers() {
	dir=$1 linux= asm= generic=
	for d in $(LC_ALL=C "$hostcc" -xc -E -v - </dev/null 2>&1 |
		sed -n '/^#include <\.\.\.> search starts here:/,/^End of search list\./p' |
		grep '^ /'); do
		[ -z "$linux" ] && [ -f "$d/linux/landlock.h" ] && linux=$d/linux
		[ -z "$asm" ] && [ -f "$d/asm/unistd.h" ] && asm=$d/asm
		[ -z "$generic" ] && [ -d "$d/asm-generic" ] && generic=$d/asm-generic
	done
	[ -n "$linux" ] && [ -n "$asm" ] && [ -n "$generic" ] || return 1
	rm -rf "$dir"
	mkdir -p "$dir"
	ln -s "$linux" "$dir/linux"
	ln -s "$asm" "$dir/asm"
	ln -s "$generic" "$dir/asm-generic"
}

# musl-gcc's specs know no -static-pie (they always name musl's dynamic
# loader): the static-PIE start files and link flags are given by hand.
# Sets static_pie to the words before and after the objects.
static_pie_link() {
	# musl's start files lie beside the specs musl-gcc reads (its
	# -print-file-name answers the host compiler's, glibc's).
	libdir=$(LC_ALL=C "$cc" -v 2>&1 | sed -n 's|^Reading specs from \(/.*\)/[^/]*\.specs$|\1|p' | head -n 1)
	[ -n "$libdir" ] && [ -f "$libdir/libc.a" ] || return 1
	rcrt1=$libdir/rcrt1.o crti=$libdir/crti.o crtn=$libdir/crtn.o
	begin=$("$cc" -print-file-name=crtbeginS.o)
	end=$("$cc" -print-file-name=crtendS.o)
	for f in "$rcrt1" "$crti" "$crtn" "$begin" "$end"; do
		case $f in /*) [ -f "$f" ] || return 1 ;; *) return 1 ;; esac
	done
}

# The link: a static PIE, no interpreter, no symbols.
link() {
	out=$1 headers=$2
	shift 2
	"$cc" -idirafter "$headers" -fPIE -nostartfiles "$rcrt1" "$crti" "$begin" "$@" "$end" "$crtn" \
		-Wl,-static -Wl,-pie -Wl,--no-dynamic-linker -Wl,-z,text -s -o "$out"
}

case $mode in
check)
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/confine-musl-check.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	kernel_headers "$tmp/kernel-headers" || exit 1
	cat >"$tmp/t.c" <<'C'
#define _GNU_SOURCE
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void) { return (int)syscall(SYS_landlock_create_ruleset, 0, 0, LANDLOCK_CREATE_RULESET_VERSION) < -1; }
C
	static_pie_link || exit 1
	link "$tmp/t" "$tmp/kernel-headers" -std=c11 "$tmp/t.c" >/dev/null 2>&1 || exit 1
	# Static: no dynamic loader named anywhere in it.
	! grep -q 'ld-musl' "$tmp/t" || exit 1
	"$tmp/t" || exit 1
	;;
build)
	[ $# -ge 1 ] || { echo "usage: $0 build CC HOSTCC OUT [CFLAG|SOURCE...]" >&2; exit 2; }
	out=$1
	shift
	kernel_headers "$out.kernel-headers" || {
		echo "$0: no kernel headers (linux/landlock.h) found by $hostcc" >&2
		exit 1
	}
	static_pie_link || { echo "$0: $cc has no static-PIE start files" >&2; exit 1; }
	link "$out" "$out.kernel-headers" "$@"
	;;
*)
	echo "$0: unknown mode $mode" >&2
	exit 2
	;;
esac
