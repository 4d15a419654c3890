/* SPDX-License-Identifier: MIT */
/*
 * The confine command's configuration file: one JSON object with the
 * optional keys mode, workspaceRoot, runner, runnerCommand,
 * runnerFailureSignatures, probeTimeoutMs and landlockLauncher (SPEC 10),
 * and the policy keys
 * writableRoots, protectedPaths, defaultProtections, denyRead, network,
 * allowUnixSockets, env {inherit, include, exclude, set, defaultExcludes}
 * and requireFull (issue 16). Loading checks the shape
 * (keys, types, spellings); the provider's own rules (SPEC 4) are checked by
 * confine_local_provider_new() with the library's messages.
 */
#ifndef CONFINE_CLI_CONFIG_FILE_H
#define CONFINE_CLI_CONFIG_FILE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "confine.h"

typedef struct cli_config {
	char *path;                       /* the file it came from; NULL: no file */
	bool has_mode;
	confine_mode mode;                /* the deployment default */
	char *workspace_root;             /* the deployment fallback root, or NULL */
	char **runner_command;            /* NULL-terminated, or NULL */
	char **runner_failure_signatures; /* NULL-terminated, or NULL */
	bool has_probe_timeout;
	double probe_timeout_ms;          /* passed through unvalidated */
	char *landlock_launcher;          /* or NULL: the library's default */
	bool has_runner;
	confine_runner runner;            /* runner: the pinned rung ("gvisor": SPEC 22) */

	/* The policy beyond mode and root (issue 16). Lists are NULL-terminated
	 * or NULL (absent); paths are checked for shape here (absolute where
	 * the key requires it) and for existence by the library. */
	char **writable_roots;            /* writableRoots: absolute paths */
	char **protected_paths;           /* protectedPaths: absolute or relative */
	char **unprotect;                 /* unprotect: names of what runs later */
	bool has_default_protections;
	bool default_protections;         /* defaultProtections */
	char **deny_read;                 /* denyRead: absolute paths */
	bool has_network;
	confine_network network;          /* network: "on" | "off" | an object (off) */
	char **network_allow;             /* network.allow: host patterns */
	char **network_deny;              /* network.deny: host patterns */
	bool network_allow_local;         /* network.allowLocal */
	char **allow_unix_sockets;        /* allowUnixSockets: absolute paths */
	bool has_env_inherit;
	confine_env_inherit env_inherit;  /* env.inherit: "all" | "none" */
	char **env_include;               /* env.include: patterns */
	char **env_exclude;               /* env.exclude: patterns */
	char **env_set;                   /* env.set: {"NAME": "VALUE"} as NAME=VALUE */
	bool has_env_default_excludes;
	bool env_default_excludes;        /* env.defaultExcludes */
	bool has_require_full;
	bool require_full;                /* requireFull */
	/* limits: each value as text ("256", "2G", "unlimited" for null), the
	 * library judges it (INVALID_POLICY naming it); NULL: absent */
	char *limits[CONFINE_LIMIT_COUNT];
} cli_config;

/* Which file to read: `option` (--config) when non-NULL, else `env`
 * ($CONFINE_CONFIG) when non-NULL and non-empty, else NULL (no file). */
const char *cli_config_pick_path(const char *option, const char *env);

/*
 * Which code a load failure is (doc/SPEC.md 10, 16): -CLI_CONFIG_POLICY_VALUE
 * is a value of the right JSON type the policy refuses (a mode, network or
 * env.inherit word, a relative workspaceRoot), INVALID_POLICY as the same
 * value is from a flag; anything else is the file's own fault (unreadable,
 * not a regular file, too big, malformed, an unknown key, a wrong type),
 * INVALID_CONFIG. The other policy values (paths, host and env patterns)
 * are kept as given and judged by the library when the policy is built.
 */
#define CLI_CONFIG_POLICY_VALUE EDOM
confine_error_code cli_config_error_code(int r);

/*
 * Reads and checks `path`. On success fills `ret` (free with
 * cli_config_clear) and returns 0. On failure returns a negative errno and
 * writes one line into `errbuf` that names the file, the key where there is
 * one, and the problem: an unreadable file, malformed JSON (with line and
 * column), a top level that is not an object, an unknown key, a wrong type,
 * an invalid value.
 */
int cli_config_load(const char *path, cli_config *ret, char *errbuf, size_t errbuf_size);

void cli_config_clear(cli_config *config);

#endif
