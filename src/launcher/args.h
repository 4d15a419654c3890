/*
 * The launcher's command line (SPEC 7, DESIGN D3). Parsed in place, with
 * no allocation: the result points into argv.
 *
 *   landlock-run [--ro PATH | --rw PATH | --ro-try PATH | --ro-list PATH |
 *                 --rw-shared PATH |
 *                 --allow-unix-socket PATH |
 *                 --status-fd N | --best-effort | --deny-network |
 *                 --require-supervisor | --rlimit NAME=N |
 *                 --temp-size BYTES:PATH | --identity DEV:INO:PATH |
 *                 --starter PID]...
 *                 -- PROGRAM [ARG...]
 *   landlock-run --probe
 */
#ifndef LAUNCHER_ARGS_H
#define LAUNCHER_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "command-limits.h"

struct invocation {
	bool probe;
	bool best_effort;  /* no Landlock in this kernel: go on without it */
	bool deny_network; /* no TCP, no socket() but AF_UNIX */
	/* the supervisor's absence is a launcher failure, not a partial run */
	bool require_supervisor;
	int status_fd;     /* -1: none */
	/* --starter PID: the parent the launcher must have (launcher-args.h);
	 * 0: whichever it has */
	int starter;
	/* The network allowlist (--proxy-allow, with --deny-network): the
	 * launcher hosts the proxy (proxy.h). */
	bool proxy;
	bool proxy_allow_local;  /* --proxy-allow-local */
	/* --proxy-off: the proxy with no host, answering every request 403
	 * "network is off", so tools that honour the proxy variables fail at
	 * once (doc/SPEC.md 15, "Off fails fast"). With --deny-network the
	 * supervisor's one way out reaches it (needs the supervisor and
	 * Landlock ABI 4, else no proxy); without, the network is another's to
	 * cut (bwrap's namespace) and the proxy only answers. */
	bool proxy_off;
	const char *proxy_hosts; /* --proxy-hosts FILE (tests' resolver map) */
	int ask_fd;              /* --ask-fd N (proxy/ask.h), or -1; implies proxy */
	unsigned proxy_port;     /* set by main once the proxy listens (host order) */
	/* --stage DIR: a staged run (stage-mount.h), over each --stage-root */
	const char *stage;
	struct command_limits limits; /* --rlimit NAME=N (command-limits.h) */
	/* --temp-size BYTES:PATH (temp-mount.h); temp_path NULL: none */
	unsigned long long temp_size;
	const char *temp_path;
	bool private_shm; /* --private-shm: /dev/shm sized too (temp-mount.h) */
	char **argv;       /* the launcher's own argv, for the grants */
	char **command;    /* argv after "--"; NULL for --probe */
};

enum usage_error {
	USAGE_OK,
	USAGE_BAD_STARTER,
	USAGE_PROBE_TAKES_NO_ARGUMENTS,
	USAGE_RO_REQUIRES_PATH,
	USAGE_RW_REQUIRES_PATH,
	USAGE_RO_TRY_REQUIRES_PATH,
	USAGE_RO_LIST_REQUIRES_PATH,
	USAGE_RW_SHARED_REQUIRES_PATH,
	USAGE_SOCKET_REQUIRES_PATH,
	USAGE_STATUS_FD_REQUIRES_NUMBER,
	USAGE_ASK_FD_REQUIRES_NUMBER,
	USAGE_UNKNOWN_ARGUMENT,
	USAGE_PROXY_REQUIRES_VALUE,
	USAGE_PROXY_REQUIRES_DENY_NETWORK,
	USAGE_MISSING_COMMAND,
	USAGE_TOO_MANY, /* a flag past its bound (launcher-args.h) */
	USAGE_STAGE_REQUIRES_PATH,
	USAGE_BAD_RLIMIT,
	USAGE_BAD_TEMP_SIZE,
	USAGE_BAD_IDENTITY,
	USAGE_PRIVATE_SHM_REQUIRES_TEMP_SIZE,
};

/* Fills *ret_invocation on success. On an error, bad_argument points at
 * the offending word where there is one, and ret_invocation->status_fd
 * holds the channel if it was parsed before the error (so the error can
 * be recorded there too). */
enum usage_error parse_arguments(int argc, char **argv, struct invocation *ret_invocation,
				 const char **bad_argument);

/* Prints the usage error line (and its record). Returns 125. */
int report_usage_error(enum usage_error error, const char *bad_argument);

/* Walks the grants in argv order: *cursor starts at 0. Returns false when
 * there are no more. */
bool next_grant(const struct invocation *invocation, size_t *cursor,
		const char **ret_path, bool *ret_writable);
/* Whether the grant next_grant() just returned (cursor as it left it) is
 * a --ro-try: a read grant on a path that may be gone by now (the library's
 * grants around a denyRead entry list a directory's entries), skipped when
 * it no longer exists, never a reason to grant more. */
bool grant_is_optional(const struct invocation *invocation, size_t cursor);
/* Whether it is a --ro-list: read-directory alone, on a directory along the
 * way to a denyRead entry, so it stays listable (its names shown, nothing
 * under it readable by this rule: the right is inherited, so the denied
 * entry's names show too, never its files). Optional like --ro-try. */
bool grant_is_listing(const struct invocation *invocation, size_t cursor);
/* Whether it is a --rw-shared: writable like --rw, on a place other
 * programs share (the host's /dev/shm), so a pathname unix socket under it
 * is never reached: the supervisor refuses the connect, and on the
 * RESOLVE_UNIX ABI the rule leaves that right out. The command's own
 * sockets belong in its workspace or private temp area. */
bool grant_is_shared(const struct invocation *invocation, size_t cursor);

/* Walks the --allow-unix-socket paths the same way. */
/* The next --proxy-allow (deny false) or --proxy-deny (deny true) value. */
bool next_proxy_host(const struct invocation *invocation, size_t *cursor, bool deny,
		     const char **ret_pattern);

bool next_allowed_socket(const struct invocation *invocation, size_t *cursor,
			 const char **ret_path);

/* The next --identity value, parsed (launcher-args.h's format, which the
 * parser checked). */
bool next_identity(const struct invocation *invocation, size_t *cursor, const char **ret_path,
		   unsigned long long *ret_dev, unsigned long long *ret_ino);

/* The next --stage-root path, in argv order. */
bool next_stage_root(const struct invocation *invocation, size_t *cursor, const char **ret_path);

#endif
