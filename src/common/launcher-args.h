/*
 * The launcher's command line (doc/SPEC.md 7): one copy of every flag word
 * and every bound, for the library that writes the argv
 * (src/lib/rungs/landlock/argv.c, src/lib/rungs/), the launcher that parses
 * it (src/launcher/args.c) and the tests. Pure: nothing here touches the OS.
 *
 * A bound is a promise both ways: the library refuses a policy past it
 * (INVALID_POLICY naming the bound and the value, doc/SPEC.md 15,
 * "Bounds"), and the launcher refuses an argv past it (a usage error).
 * Neither ever keeps the first N and drops the rest.
 */
#ifndef CONFINE_LAUNCHER_ARGS_H
#define CONFINE_LAUNCHER_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "launcher-limits.h"

/* The flag words. */
#define LAUNCHER_ARG_PROBE "--probe"
#define LAUNCHER_ARG_BEST_EFFORT "--best-effort"
#define LAUNCHER_ARG_DENY_NETWORK "--deny-network"
#define LAUNCHER_ARG_REQUIRE_SUPERVISOR "--require-supervisor"
#define LAUNCHER_ARG_PROXY_ALLOW_LOCAL "--proxy-allow-local"
#define LAUNCHER_ARG_PROXY_OFF "--proxy-off"
#define LAUNCHER_ARG_RO "--ro"
#define LAUNCHER_ARG_RW "--rw"
#define LAUNCHER_ARG_RO_TRY "--ro-try"
#define LAUNCHER_ARG_RO_LIST "--ro-list"
#define LAUNCHER_ARG_RW_SHARED "--rw-shared"
#define LAUNCHER_ARG_ALLOW_UNIX_SOCKET "--allow-unix-socket"
#define LAUNCHER_ARG_STATUS_FD "--status-fd"
/* --ask-fd N: the ask socket (launcher-protocol.h): names on neither list
 * are asked there; alone it is an allowlist with no host but a decider. */
#define LAUNCHER_ARG_ASK_FD "--ask-fd"
#define LAUNCHER_ARG_PROXY_ALLOW "--proxy-allow"
#define LAUNCHER_ARG_PROXY_DENY "--proxy-deny"
#define LAUNCHER_ARG_PROXY_HOSTS "--proxy-hosts"
#define LAUNCHER_ARG_STAGE "--stage"
#define LAUNCHER_ARG_STAGE_ROOT "--stage-root"
/* --rlimit NAME=N: its NAME words and bound are launcher-limits.h's. */
#define LAUNCHER_ARG_RLIMIT LAUNCHER_RLIMIT_FLAG
/* --temp-size BYTES:PATH: the temp area PATH becomes a tmpfs of at most
 * BYTES (doc/SPEC.md 15, "Limits"; src/launcher/temp-mount.c). */
#define LAUNCHER_ARG_TEMP_SIZE "--temp-size"
/* --private-shm: with --temp-size, /dev/shm too becomes a fresh tmpfs of
 * the same size in the temp area's mount namespace (the Landlock rung's
 * workspace-write grant; doc/SPEC.md 15 "Limits"): files the command
 * leaves there are counted, sized and gone with the run. */
#define LAUNCHER_ARG_PRIVATE_SHM "--private-shm"
/* --identity DEV:INO:PATH: PATH, opened without following a link, must be
 * the inode the library saw when it made the argv (st_dev DEV, st_ino INO,
 * decimal), or nothing runs (doc/SPEC.md 7, 14; red team F3: bwrap follows
 * links in a bind's source and target, so a component swapped for a link
 * between `wrap` and the spawn moved a writable bind onto another tree). */
#define LAUNCHER_ARG_IDENTITY "--identity"
/* --starter PID: without a status channel, the process that must be the
 * launcher's parent when it starts (the harness a `wrap` argv was made
 * for: its lifeline, doc/SPEC.md 13, "The wrap argv's lifeline"; red team
 * R4-F2). Another parent (init or a subreaper: the harness died before
 * the spawn) runs nothing. */
#define LAUNCHER_ARG_STARTER "--starter"
/* Ends the flags; the command follows. */
#define LAUNCHER_ARG_END "--"

enum launcher_flag {
	LAUNCHER_FLAG_PROBE,
	LAUNCHER_FLAG_BEST_EFFORT,
	LAUNCHER_FLAG_DENY_NETWORK,
	LAUNCHER_FLAG_REQUIRE_SUPERVISOR,
	LAUNCHER_FLAG_PROXY_ALLOW_LOCAL,
	LAUNCHER_FLAG_PROXY_OFF,
	LAUNCHER_FLAG_RO,
	LAUNCHER_FLAG_RW,
	LAUNCHER_FLAG_RO_TRY,
	LAUNCHER_FLAG_RO_LIST,
	LAUNCHER_FLAG_RW_SHARED,
	LAUNCHER_FLAG_ALLOW_UNIX_SOCKET,
	LAUNCHER_FLAG_STATUS_FD,
	LAUNCHER_FLAG_ASK_FD,
	LAUNCHER_FLAG_PROXY_ALLOW,
	LAUNCHER_FLAG_PROXY_DENY,
	LAUNCHER_FLAG_PROXY_HOSTS,
	LAUNCHER_FLAG_STAGE,
	LAUNCHER_FLAG_STAGE_ROOT,
	LAUNCHER_FLAG_RLIMIT,
	LAUNCHER_FLAG_TEMP_SIZE,
	LAUNCHER_FLAG_PRIVATE_SHM,
	LAUNCHER_FLAG_IDENTITY,
	LAUNCHER_FLAG_STARTER,
	LAUNCHER_FLAG_COUNT,
	LAUNCHER_FLAG_UNKNOWN = -1,
};

/* One row per flag: its word, whether a value follows it, and the most
 * times it may be given (0: no bound but the argv's own). */
struct launcher_flag_def {
	const char *word;
	bool takes_value;
	size_t max_count;
};

/*
 * The bounds. LAUNCHER_WRITABLE_MAX: writable grants (--rw, --rw-shared)
 * the supervisor holds; the library's own take at most
 * LAUNCHER_WRITABLE_OWN of them (/dev/null, the temp area, /dev/shm, the
 * workspace root), so writableRoots may hold the rest.
 */
#define LAUNCHER_WRITABLE_MAX 256
#define LAUNCHER_WRITABLE_OWN 4
#define LAUNCHER_WRITABLE_ROOTS_MAX (LAUNCHER_WRITABLE_MAX - LAUNCHER_WRITABLE_OWN)
/* --allow-unix-socket paths the supervisor holds. */
#define LAUNCHER_UNIX_SOCKETS_MAX 256
/* --proxy-allow and --proxy-deny patterns, each. */
#define LAUNCHER_PROXY_HOSTS_MAX 256
/* Read grants a denyRead expansion may produce (--ro-try): past it the
 * library refuses the policy rather than widen it. */
#define LAUNCHER_READ_GRANTS_MAX 8192
/* Bytes of a path value, NUL excluded (PATH_MAX less its NUL): the
 * launcher opens and compares paths in PATH_MAX buffers. */
#define LAUNCHER_PATH_LENGTH_MAX 4095
/* Bytes of one environment entry, NAME=VALUE, NUL excluded: execve(2)
 * refuses a longer string (MAX_ARG_STRLEN, 32 pages, with its NUL), so an
 * env.set entry past it is refused, not left to fail the spawn (E2BIG). */
#define LAUNCHER_ENV_ENTRY_LENGTH_MAX 131071
/* --temp-size's BYTES: 1 MiB to 2^50 (policy-limits.c's row for temp). */
#define LAUNCHER_TEMP_SIZE_MIN (1ULL << 20)
#define LAUNCHER_TEMP_SIZE_MAX (1ULL << 50)
/* --identity values: one per path bwrap binds from the host (the writable
 * roots, the pins, the protected paths); the plan's own bounds keep it far
 * below this. */
#define LAUNCHER_IDENTITIES_MAX 8192

static inline const struct launcher_flag_def *launcher_flag_def(enum launcher_flag flag)
{
	static const struct launcher_flag_def defs[LAUNCHER_FLAG_COUNT] = {
		[LAUNCHER_FLAG_PROBE] = { LAUNCHER_ARG_PROBE, false, 1 },
		[LAUNCHER_FLAG_BEST_EFFORT] = { LAUNCHER_ARG_BEST_EFFORT, false, 0 },
		[LAUNCHER_FLAG_DENY_NETWORK] = { LAUNCHER_ARG_DENY_NETWORK, false, 0 },
		[LAUNCHER_FLAG_REQUIRE_SUPERVISOR] = { LAUNCHER_ARG_REQUIRE_SUPERVISOR, false, 0 },
		[LAUNCHER_FLAG_PROXY_ALLOW_LOCAL] = { LAUNCHER_ARG_PROXY_ALLOW_LOCAL, false, 0 },
		[LAUNCHER_FLAG_PROXY_OFF] = { LAUNCHER_ARG_PROXY_OFF, false, 0 },
		[LAUNCHER_FLAG_RO] = { LAUNCHER_ARG_RO, true, 0 },
		[LAUNCHER_FLAG_RW] = { LAUNCHER_ARG_RW, true, 0 },
		[LAUNCHER_FLAG_RO_TRY] = { LAUNCHER_ARG_RO_TRY, true, 0 },
		[LAUNCHER_FLAG_RO_LIST] = { LAUNCHER_ARG_RO_LIST, true, 0 },
		[LAUNCHER_FLAG_RW_SHARED] = { LAUNCHER_ARG_RW_SHARED, true, 0 },
		[LAUNCHER_FLAG_ALLOW_UNIX_SOCKET] = { LAUNCHER_ARG_ALLOW_UNIX_SOCKET, true,
						      LAUNCHER_UNIX_SOCKETS_MAX },
		[LAUNCHER_FLAG_STATUS_FD] = { LAUNCHER_ARG_STATUS_FD, true, 0 },
		[LAUNCHER_FLAG_ASK_FD] = { LAUNCHER_ARG_ASK_FD, true, 1 },
		[LAUNCHER_FLAG_PROXY_ALLOW] = { LAUNCHER_ARG_PROXY_ALLOW, true,
						LAUNCHER_PROXY_HOSTS_MAX },
		[LAUNCHER_FLAG_PROXY_DENY] = { LAUNCHER_ARG_PROXY_DENY, true,
					       LAUNCHER_PROXY_HOSTS_MAX },
		[LAUNCHER_FLAG_PROXY_HOSTS] = { LAUNCHER_ARG_PROXY_HOSTS, true, 1 },
		[LAUNCHER_FLAG_STAGE] = { LAUNCHER_ARG_STAGE, true, 0 },
		[LAUNCHER_FLAG_STAGE_ROOT] = { LAUNCHER_ARG_STAGE_ROOT, true, 0 },
		[LAUNCHER_FLAG_RLIMIT] = { LAUNCHER_ARG_RLIMIT, true, LAUNCHER_RLIMIT_MAX },
		[LAUNCHER_FLAG_TEMP_SIZE] = { LAUNCHER_ARG_TEMP_SIZE, true, 1 },
		[LAUNCHER_FLAG_PRIVATE_SHM] = { LAUNCHER_ARG_PRIVATE_SHM, false, 1 },
		[LAUNCHER_FLAG_IDENTITY] = { LAUNCHER_ARG_IDENTITY, true, LAUNCHER_IDENTITIES_MAX },
		[LAUNCHER_FLAG_STARTER] = { LAUNCHER_ARG_STARTER, true, 1 },
	};

	return flag >= 0 && flag < LAUNCHER_FLAG_COUNT ? &defs[flag] : NULL;
}

/* The flag `word` spells, or LAUNCHER_FLAG_UNKNOWN. */
static inline enum launcher_flag launcher_flag_lookup(const char *word)
{
	for (int i = 0; i < LAUNCHER_FLAG_COUNT; i++)
		if (strcmp(launcher_flag_def((enum launcher_flag)i)->word, word) == 0)
			return (enum launcher_flag)i;
	return LAUNCHER_FLAG_UNKNOWN;
}

/* An --identity value, DEV:INO:PATH (each number decimal, at most 20
 * digits, PATH absolute and within LAUNCHER_PATH_LENGTH_MAX): false when
 * it is not one. The library writes it with "%llu:%llu:%s". */
static inline bool launcher_identity_parse(const char *text, unsigned long long *ret_dev,
					   unsigned long long *ret_ino, const char **ret_path)
{
	unsigned long long value[2] = { 0, 0 };
	const char *p = text;

	for (int k = 0; k < 2; k++) {
		const char *start = p;

		for (; *p >= '0' && *p <= '9'; p++) {
			unsigned digit = (unsigned)(*p - '0');

			if (value[k] > (~0ULL - digit) / 10)
				return false;
			value[k] = value[k] * 10 + digit;
		}
		if (p == start || *p != ':')
			return false;
		p++;
	}
	if (*p != '/' || strlen(p) > LAUNCHER_PATH_LENGTH_MAX)
		return false;
	*ret_dev = value[0];
	*ret_ino = value[1];
	*ret_path = p;
	return true;
}

/* Whether `flag` is a path grant: --ro, --rw, --ro-try, --ro-list,
 * --rw-shared. */
static inline bool launcher_flag_is_grant(enum launcher_flag flag)
{
	return flag == LAUNCHER_FLAG_RO || flag == LAUNCHER_FLAG_RW ||
	       flag == LAUNCHER_FLAG_RO_TRY || flag == LAUNCHER_FLAG_RO_LIST ||
	       flag == LAUNCHER_FLAG_RW_SHARED;
}

/* Whether a grant flag grants writing: --rw, --rw-shared. */
static inline bool launcher_flag_is_writable(enum launcher_flag flag)
{
	return flag == LAUNCHER_FLAG_RW || flag == LAUNCHER_FLAG_RW_SHARED;
}

#endif
