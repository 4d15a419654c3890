/* SPDX-License-Identifier: MIT */
/*
 * confine.h: run commands confined.
 *
 * A caller that is about to spawn an argv asks confine for the argv to spawn
 * *instead*: wrapped in a runner (bubblewrap, the Landlock launcher
 * landlock-run, or Seatbelt's sandbox-exec) so the command and everything it
 * starts can write only where the policy's mode allows. Where nothing can
 * confine, confine fails closed with CONFINE_E_SANDBOX_UNAVAILABLE; it never
 * hands back an unconfined argv for a confined mode.
 *
 * Conventions (the whole API follows them):
 *  - Functions return 0 (or a non-negative count) on success and a negative
 *    errno on failure. Where a function takes a `confine_error *err` (which
 *    may be NULL), a failure fills it with a code, a stage, the system errno
 *    and a message; success leaves it untouched.
 *  - `ret` out-parameters are written only on success.
 *  - Inputs are copied; the library keeps no pointer into caller memory after
 *    a call returns. Every object returned through `ret` is owned by the
 *    caller and released with its one matching `_free`, which accepts NULL.
 *  - The library never prints, exits or aborts. Every descriptor it opens is
 *    close-on-exec.
 *  - String arrays are NULL-terminated.
 */
#ifndef CONFINE_H
#define CONFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && defined(CONFINE_BUILDING_LIBRARY)
#define CONFINE_API __attribute__((visibility("default")))
#else
#define CONFINE_API
#endif

/* ------------------------------------------------------------------------ */
/* Version                                                                  */

#define CONFINE_VERSION_MAJOR 0
#define CONFINE_VERSION_MINOR 3
#define CONFINE_VERSION_MICRO 0
#define CONFINE_VERSION_STRING "0.3.0"

/* The version of the library linked at run time, e.g. "0.3.0". Static. */
CONFINE_API const char *confine_version(void);

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */

typedef enum confine_error_code {
	CONFINE_OK = 0,
	/* No backend can confine the requested mode, or the runner failed before
	 * running the command. The message is the contract's exact text. */
	CONFINE_E_SANDBOX_UNAVAILABLE,
	/* A caller-supplied value is wrong (NULL, empty argv, bad option). */
	CONFINE_E_INVALID_ARGUMENT,
	/* The provider's configuration is invalid (the SPEC 4 validations). */
	CONFINE_E_INVALID_CONFIG,
	/* The policy cannot be resolved: unknown mode, bad workspace root. */
	CONFINE_E_INVALID_POLICY,
	/* The command could not be started (workdir unusable, exec failed) and
	 * this is not evidence of a broken runner. */
	CONFINE_E_SPAWN,
	/* A system resource failed (out of memory, pipe, fork). */
	CONFINE_E_SYSTEM,
	/* A harness file operation the policy refuses (confine_fs_*): the
	 * message names the path and the clause. */
	CONFINE_E_DENIED,
	/* A harness file operation failed on the filesystem (no such file, not
	 * a directory, ...): the message names the path, sys_errno the errno. */
	CONFINE_E_FS,
} confine_error_code;

#define CONFINE_ERROR_MESSAGE_MAX 8192

typedef struct confine_error {
	confine_error_code code;
	/* Where it failed, a static lowercase word: "mode", "policy", "config",
	 * "provider", "probe", "confine", "spawn", "wait", "runner". */
	const char *stage;
	/* errno of the system call behind the failure, or 0. */
	int sys_errno;
	/* One line, NUL-terminated, truncated to fit. */
	char message[CONFINE_ERROR_MESSAGE_MAX];
} confine_error;

/* The code's stable name: "SANDBOX_UNAVAILABLE", "INVALID_ARGUMENT",
 * "INVALID_CONFIG", "INVALID_POLICY", "SPAWN_FAILED", "SYSTEM_ERROR",
 * "DENIED", "FS_ERROR", "OK".
 * Static; never NULL. */
CONFINE_API const char *confine_error_code_name(confine_error_code code);

/* ------------------------------------------------------------------------ */
/* Vocabulary                                                               */

/* Modes govern file effects only. Their order is their width. */
typedef enum confine_mode {
	CONFINE_MODE_READ_ONLY = 0,       /* "read-only": no writes but /dev/null */
	CONFINE_MODE_WORKSPACE_WRITE = 1, /* "workspace-write": root + temp area */
	CONFINE_MODE_DANGER_FULL_ACCESS = 2, /* "danger-full-access": unconfined */
} confine_mode;

/* Parses the exact spelling. Unknown, NULL or empty: -EINVAL with a
 * CONFINE_E_INVALID_POLICY error naming the value. */
CONFINE_API int confine_mode_parse(const char *text, confine_mode *ret, confine_error *err);
/* The exact spelling; NULL for a value outside the enum. Static. */
CONFINE_API const char *confine_mode_name(confine_mode mode);
/* read-only and workspace-write are confined modes. */
CONFINE_API bool confine_mode_is_confined(confine_mode mode);
/* True when `candidate` is strictly wider than `current`: an approved
 * escalation is a new call with such a mode. */
CONFINE_API bool confine_mode_is_wider(confine_mode candidate, confine_mode current);

typedef enum confine_enforcement {
	CONFINE_ENFORCEMENT_FULL = 0,    /* "full" */
	CONFINE_ENFORCEMENT_PARTIAL = 1, /* "partial": e.g. Landlock ABI < 5 */
} confine_enforcement;

/* "full" or "partial"; NULL outside the enum. Static. */
CONFINE_API const char *confine_enforcement_name(confine_enforcement enforcement);

/* How one clause of a policy held (doc/SPEC.md 15, "A report per clause"). */
typedef enum confine_clause_status {
	CONFINE_CLAUSE_ENFORCED = 0,   /* "enforced": it holds as stated */
	CONFINE_CLAUSE_PARTIAL = 1,    /* "partial": it holds, with a gap `reason` names */
	CONFINE_CLAUSE_UNENFORCED = 2, /* "unenforced": it does not hold on this rung */
} confine_clause_status;

/* "enforced", "partial" or "unenforced"; NULL outside the enum. Static. */
CONFINE_API const char *confine_clause_status_name(confine_clause_status status);

/* What enforces a clause: bits of confine_clause.layers. */
typedef enum confine_layer {
	CONFINE_LAYER_BWRAP = 1u << 0,          /* "bwrap": its mounts and namespaces */
	CONFINE_LAYER_LANDLOCK = 1u << 1,       /* "landlock": the launcher's ruleset */
	CONFINE_LAYER_SECCOMP = 1u << 2,        /* "seccomp": the launcher's deny-list */
	CONFINE_LAYER_SUPERVISOR = 1u << 3,     /* "supervisor": the launcher acting on behalf */
	CONFINE_LAYER_SEATBELT = 1u << 4,       /* "seatbelt": the SBPL profile */
	CONFINE_LAYER_LIBRARY = 1u << 5,        /* "confine": the spawner itself (env, temp) */
	CONFINE_LAYER_RUNNER_COMMAND = 1u << 6, /* "runnerCommand": the operator's assertion */
	CONFINE_LAYER_CGROUP = 1u << 7,         /* "cgroup": the run's own cgroup (limits) */
	CONFINE_LAYER_RLIMIT = 1u << 8,         /* "rlimit": setrlimit(2) in the launcher (limits) */
	CONFINE_LAYER_GVISOR = 1u << 9,         /* "gvisor": runsc's kernel and its mounts */
} confine_layer;
#define CONFINE_LAYER_COUNT 10

/* Whether this host can run the launcher's supervisor (seccomp user
 * notification, Linux 5.0): the layer that holds metadata, unix-sockets
 * and setid on the Landlock rung (doc/SPEC.md 13, 15). */
CONFINE_API bool confine_supervisor_available(void);

/* The word of layer bit number `index` (0 .. CONFINE_LAYER_COUNT - 1), in
 * the order reports list them; NULL past the end. Static. */
CONFINE_API const char *confine_layer_name(unsigned index);

/* Runners of the local provider. */
typedef enum confine_runner {
	CONFINE_RUNNER_NONE = 0,
	CONFINE_RUNNER_BWRAP,          /* "bwrap" */
	CONFINE_RUNNER_LANDLOCK,       /* "landlock" */
	CONFINE_RUNNER_SEATBELT,       /* "seatbelt" */
	CONFINE_RUNNER_RUNNER_COMMAND, /* "runnerCommand" */
	CONFINE_RUNNER_GVISOR,         /* "gvisor": runsc, pinned only (doc/SPEC.md 22) */
} confine_runner;

/* "bwrap", "landlock", "seatbelt", "runnerCommand", "gvisor"; "none" for NONE. Static. */
CONFINE_API const char *confine_runner_name(confine_runner runner);
/* Parses "bwrap", "landlock", "seatbelt" or "gvisor" (the rungs a chain can
 * be pinned to). Anything else: -EINVAL naming the value. */
CONFINE_API int confine_runner_parse(const char *text, confine_runner *ret, confine_error *err);

/* ------------------------------------------------------------------------ */
/* Policy                                                                   */

/* Network access of a confined run. Modes govern files only; this is apart. */
typedef enum confine_network {
	CONFINE_NETWORK_ON = 0,  /* "on" (the default) */
	CONFINE_NETWORK_OFF = 1, /* "off": no connection to anything but the sandbox
	                          * itself (loopback inside bwrap's namespace); no
	                          * TCP, UDP, raw, netlink or vsock to the host */
} confine_network;

/* "on" or "off"; NULL outside the enum. Static. */
CONFINE_API const char *confine_network_name(confine_network network);
/* Parses "on" or "off". Anything else: -EINVAL, CONFINE_E_INVALID_POLICY
 * naming the value. */
CONFINE_API int confine_network_parse(const char *text, confine_network *ret, confine_error *err);

/* Which of the caller's variables a confined command starts from. */
typedef enum confine_env_inherit {
	CONFINE_ENV_INHERIT_ALL = 0,  /* "all" (the default) */
	CONFINE_ENV_INHERIT_NONE = 1, /* "none": only `include` matches and `set` */
} confine_env_inherit;

/* "all" or "none"; NULL outside the enum. Static. */
CONFINE_API const char *confine_env_inherit_name(confine_env_inherit inherit);
CONFINE_API int confine_env_inherit_parse(const char *text, confine_env_inherit *ret,
                                          confine_error *err);

/*
 * The command's environment (config key `env`). Applies in confined modes
 * only: danger-full-access passes the environment unchanged.
 * Patterns match whole variable names, case-insensitively; `*` matches any
 * run of characters, `?` one character, everything else itself. A pattern
 * is 1 to 255 printable ASCII characters other than `=` and space.
 * A variable of the caller's environment is kept when
 *   (inherit == ALL or it matches an `include`) and
 *   (it matches an `include` or it matches no `exclude` and, with
 *    default_excludes, none of confine_env_default_excludes() unless it is
 *    one of the login session's names (DBUS_SESSION_BUS_ADDRESS,
 *    XDG_SESSION_*, ...), and its value holds no URL with a password,
 *    `scheme://user:password@`; doc/SPEC.md 15, "Environment")
 * ("include wins"); then every `set` entry NAME=VALUE replaces or adds NAME.
 */
typedef struct confine_env_policy {
	confine_env_inherit inherit;
	char **include;        /* NULL-terminated patterns, or NULL */
	char **exclude;        /* NULL-terminated patterns, or NULL */
	char **set;            /* NULL-terminated "NAME=VALUE" entries, or NULL */
	bool default_excludes; /* drop secret-looking names; default true */
} confine_env_policy;

/* The names the default excludes drop (case-insensitive), NULL-terminated:
 * "*KEY*", "*SECRET*", "*TOKEN*", "*PASSWORD*", "*CREDENTIAL*", ...,
 * "*SESSION*", "*CONNECTION_STRING*", "*_PASS", "*_PW" (doc/SPEC.md 15,
 * "Environment"). Static. */
CONFINE_API const char *const *confine_env_default_excludes(void);

/*
 * Resource limits of a confined run (config key `limits`, doc/SPEC.md 15,
 * "Limits"). Each is a whole number in the limit's unit; 0 in
 * confine_policy.limits means none. The words are the config keys.
 */
typedef enum confine_limit {
	CONFINE_LIMIT_PIDS = 0,    /* "pids" [--max-pids N]: processes and threads at once */
	CONFINE_LIMIT_MEMORY,      /* "memory" [--max-memory SIZE]: bytes */
	CONFINE_LIMIT_CPU_SECONDS, /* "cpuSeconds" [--max-cpu SECONDS]: CPU time per process */
	CONFINE_LIMIT_FILE_SIZE,   /* "fileSize" [--max-file-size SIZE]: bytes of one file */
	CONFINE_LIMIT_TEMP,        /* "temp" [--max-temp SIZE]: bytes of the temp area */
	CONFINE_LIMIT_OPEN_FILES,  /* "openFiles" [--max-open-files N]: descriptors per process */
} confine_limit;
#define CONFINE_LIMIT_COUNT 6

/*
 * The execution policy of one call. With a confined mode it is a provider
 * policy. Make one with confine_policy_new() or confine_policy_resolve(),
 * which fill every field below with its default, then widen or narrow it with
 * the confine_policy_add_*() functions (which copy, canonicalize and check
 * their input) and by setting the plain fields. Every pointer in it is owned
 * by the policy and released by confine_policy_free(); a caller that assigns
 * a list directly hands it over (malloc'd strings in a malloc'd,
 * NULL-terminated array) and should run confine_policy_validate() after.
 * A zero-initialized struct is a valid policy too, but with every default
 * *off* (no default protections, no default env excludes).
 *
 * Config keys (and CLI flags) in brackets; doc/POLICY.md has the semantics
 * and the exact effect on every rung.
 */
typedef struct confine_policy {
	confine_mode mode;
	char *workspace_root;        /* absolute, canonical once resolved */

	/* [writableRoots, --writable] More writable directories under
	 * workspace-write (ignored by read-only). Canonical, existing
	 * directories; never `/`, never on a pseudo-filesystem or under /dev,
	 * /proc or /sys (one that does not exist goes to
	 * writable_roots_missing instead). NULL-terminated, or NULL. */
	char **writable_roots;
	/* [protectedPaths, --protect] Read-only inside the writable roots. An
	 * absolute path (canonicalized where it exists) must lie inside the
	 * workspace root or a writable root; a relative one (no `..`) means
	 * that path under each of them. NULL-terminated, or NULL. */
	char **protected_paths;
	/* [defaultProtections, --no-default-protections] In every repository
	 * under the writable roots, what git reads and runs code from (config,
	 * config.worktree, commondir, hooks, info, worktrees' commondir and
	 * config.worktree, a .git file) stays read-only; doc/SPEC.md 15 says
	 * how per rung (best effort: listed, never `partial`). Default true. */
	bool default_protections;
	/* [denyRead, --deny-read] Neither readable nor writable in confined
	 * modes. Absolute, canonicalized where they exist. Must not cover the
	 * workspace root or a writable root. NULL-terminated, or NULL. */
	char **deny_read;
	/* [network, --network] Default CONFINE_NETWORK_ON. */
	confine_network network;
	/* [allowUnixSockets, --allow-unix-socket] Pathname sockets outside the
	 * writable roots the command may connect to. Absolute. NULL-terminated,
	 * or NULL. (Mediated by the supervisor; until then listed unenforced.) */
	char **allow_unix_sockets;
	/* [env, --env-*] The command's environment: see confine_env_filter(). */
	confine_env_policy env;
	/* [requireFull, --require-full] Refuse (SANDBOX_UNAVAILABLE) rather
	 * than run with an explicitly requested part unenforced. Default false. */
	bool require_full;
	/* Give the command a private temp area that does not outlive the run,
	 * named by TMPDIR (bwrap: `--tmpfs /tmp`, which workspace-write has
	 * regardless; Landlock and Seatbelt: `temp_dir`, in both confined
	 * modes; the host's /tmp is never the temp area on Landlock). Default
	 * true. */
	bool private_temp;
	/* The run's private temp directory on rungs without a mount namespace
	 * (Landlock, Seatbelt): made by confine_policy_make_temp_dir() for a
	 * run the library spawns, granted writable in both confined modes,
	 * exported as TMPDIR, and removed with its contents by the spawner
	 * after the run. NULL: none (such rungs then grant no temp area and list
	 * "privateTemp" unenforced: an argv for another process to spawn,
	 * `wrap`). Absolute. */
	char *temp_dir;
	/* [network.allow, --allow-host] The network allowlist (doc/SPEC.md 15,
	 * "Network allowlist"): with `network` CONFINE_NETWORK_OFF and at
	 * least one entry, the command reaches these hosts through a proxy
	 * confine runs for the run, and nothing else. An entry is a host name
	 * ("example.org") or "*." and a suffix ("*.example.org": any name
	 * under it, not the suffix itself); lower-cased; no scheme, port, IP
	 * address or range. Entries with `network` on are INVALID_POLICY (the
	 * allowlist is network off plus one way out). NULL-terminated, or NULL
	 * (an empty allowlist is network off). */
	char **network_allow;
	/* [network.deny, --deny-host] Hosts refused even when an allow entry
	 * matches (deny wins). Same patterns. NULL-terminated, or NULL. */
	char **network_deny;
	/* [network.allowLocal, --allow-local-network] Let an allowed name
	 * resolve to a loopback, private, link-local, unique-local or CGNAT
	 * address (refused by default, so an allowed name cannot be pointed at
	 * the host's own services). Default false. */
	bool network_allow_local;
	/* [writableRoots] The entries confine_policy_add_writable_root() was
	 * given that do not exist (ENOENT): granted nothing, each reported as
	 * its writableRoots clause ("not granted: it does not exist"), never an
	 * error (a config's `~/.npm` before the first npm run). Absolute, made
	 * as canonical as the filesystem allows. NULL-terminated, or NULL. */
	char **writable_roots_missing;
	/* [--stage] A staged run (doc/SPEC.md 21): every write of the command
	 * under the writable roots lands in this directory (made by
	 * confine_stage_create() first) instead of the real tree. Absolute.
	 * Held by the launcher (both Linux rungs, through a user namespace);
	 * where nothing holds it the run is refused, never written through.
	 * NULL: none. */
	char *stage_dir;
	/* [limits, --max-*] Resource limits (confine_limit; 0: none). Set
	 * with confine_policy_set_limit(); `pids` is CONFINE_DEFAULT_MAX_PIDS
	 * by default. */
	uint64_t limits[CONFINE_LIMIT_COUNT];
	/* Bit (1u << limit) for a limit set or lifted by the caller (not a
	 * default): only those count for requireFull. */
	unsigned limits_given;
	/* [unprotect, --unprotect NAME] Default protections for what runs
	 * later (doc/SPEC.md 15: ".bashrc", ".envrc", ".vscode/settings.json",
	 * ".idea", ...) this policy leaves writable, each named as that list
	 * spells it (a directory's trailing slash optional). Only those names:
	 * anything else is INVALID_POLICY. NULL-terminated, or NULL. */
	char **unprotect;
	/* [network.ask, --ask-host] A decider answers for the hosts on
	 * neither network list (doc/SPEC.md 15, "Ask"): with `network`
	 * CONFINE_NETWORK_OFF it makes an allowlist even with no
	 * network.allow entry (an empty list with a decider). The decider
	 * itself is the run's (confine_spawn_options.ask_host); a run
	 * without one, and an argv for another process to spawn, get every
	 * such host refused. True with `network` on is INVALID_POLICY.
	 * Default false. */
	bool network_ask;
} confine_policy;


/* The process limit a policy gets by default (confine_policy_new,
 * confine_policy_resolve): it stops an accidental fork bomb and stays out
 * of a parallel build's way. Applied only where the run's own cgroup holds
 * it (doc/SPEC.md 15): RLIMIT_NPROC would count the user's other
 * processes. Lift it with confine_policy_lift_limit() (`"pids":
 * "unlimited"`, `--max-pids unlimited`). */
#define CONFINE_DEFAULT_MAX_PIDS 4096

/* The config key ("pids", "memory", "cpuSeconds", "fileSize", "temp",
 * "openFiles"); NULL outside the enum. Static. */
CONFINE_API const char *confine_limit_name(confine_limit limit);
/* The CLI flag ("--max-pids", ...); NULL outside the enum. Static. */
CONFINE_API const char *confine_limit_flag(confine_limit limit);
/* Whether the limit is a size (SIZE: K, M, G, T suffixes, powers of 1024). */
CONFINE_API bool confine_limit_is_size(confine_limit limit);
/* The limit a config key or a CLI flag (with its dashes) names. 0, or
 * -EINVAL with CONFINE_E_INVALID_POLICY naming it. */
CONFINE_API int confine_limit_from_name(const char *name, confine_limit *ret,
                                        confine_error *err);
/* Parses a limit's value as every door spells it: digits, then for a size
 * one of K, M, G, T (either case; powers of 1024), or the word "unlimited"
 * (*ret 0: none). Zero, a sign, a fraction, spaces, another suffix, or a
 * value past the limit's bound: -EINVAL with CONFINE_E_INVALID_POLICY
 * naming `limits.<key>` and the text; never cut to fit. */
CONFINE_API int confine_limit_parse(confine_limit limit, const char *text, uint64_t *ret,
                                    confine_error *err);
/* The value as a person reads it into `buf`: "256", "2 GiB", "600 s". */
CONFINE_API void confine_limit_format(confine_limit limit, uint64_t value, char *buf,
                                      size_t size);
/* Sets a limit (explicitly: requireFull then refuses a run where it does
 * not hold). 0 or above the limit's bound: -EINVAL, INVALID_POLICY naming
 * it; the policy is then unchanged. */
CONFINE_API int confine_policy_set_limit(confine_policy *policy, confine_limit limit,
                                         uint64_t value, confine_error *err);
/* Lifts a limit, the default included. -EINVAL for a NULL policy or a
 * value outside the enum. */
CONFINE_API int confine_policy_lift_limit(confine_policy *policy, confine_limit limit,
                                          confine_error *err);
/* confine_limit_from_name() then confine_limit_parse() then set or lift:
 * what the config file, the CLI and the bindings call. */
CONFINE_API int confine_policy_set_limit_text(confine_policy *policy, const char *name,
                                              const char *text, confine_error *err);


/* Deployment configuration: the agentless defaults. */
typedef struct confine_deployment {
	confine_mode default_mode;  /* usually CONFINE_MODE_READ_ONLY */
	const char *fallback_root;  /* NULL: the process's current directory */
} confine_deployment;

/* The calling session: its immutable cwd, and optionally its own mode. */
typedef struct confine_session {
	const char *cwd;            /* NULL: use the deployment's fallback root */
	bool has_mode;
	confine_mode mode;
} confine_session;

/*
 * Resolves the policy of one call (SPEC 3). Mode: `approved_mode` (may be
 * NULL) outranks the session's mode, which outranks the deployment default.
 * Root: the session's cwd, else the deployment fallback, else the current
 * directory; canonicalized with realpath(3) before lexical normalization, so
 * `/a/link/..` with link -> /b/c is /b. A relative, empty, missing or
 * non-directory root is refused (CONFINE_E_INVALID_POLICY naming it), and so
 * is `/` under workspace-write. `deployment` and `session` may be NULL.
 * Copies everything; free the result with confine_policy_free().
 */
CONFINE_API int confine_policy_resolve(const confine_deployment *deployment,
                                       const confine_session *session,
                                       const confine_mode *approved_mode,
                                       confine_policy **ret,
                                       confine_error *err);
/* Builds a policy from a mode and a root, validated and canonicalized as
 * confine_policy_resolve() does. */
CONFINE_API int confine_policy_new(confine_mode mode, const char *workspace_root,
                                   confine_policy **ret, confine_error *err);
/* Frees the policy and everything it owns. Accepts NULL. */
CONFINE_API void confine_policy_free(confine_policy *policy);
/* Deep copy; free with confine_policy_free(). -EINVAL, -ENOMEM. */
CONFINE_API int confine_policy_copy(const confine_policy *policy, confine_policy **ret);

/*
 * Appenders: each copies its input, checks and canonicalizes it, and appends
 * it (an entry already present is not added twice). A bad value is
 * -EINVAL with CONFINE_E_INVALID_POLICY naming the config key and the value;
 * the policy is then unchanged.
 */
/* An existing directory, canonicalized with realpath(3) like the workspace
 * root; `/`, a pseudo-filesystem (procfs, sysfs, devtmpfs, devpts, cgroup,
 * debugfs, tracefs, securityfs, bpffs, configfs, mqueue) and anything at or
 * under /dev, /proc or /sys are refused. */
CONFINE_API int confine_policy_add_writable_root(confine_policy *policy, const char *path,
                                                 confine_error *err);
/* Absolute (canonicalized as far as it exists), or relative without `..`
 * (then meant under each writable root, the workspace root included). */
/* Adds an `unprotect` entry (a name of doc/SPEC.md 15's list of what runs
 * later). 0, or -EINVAL with INVALID_POLICY naming it. */
CONFINE_API int confine_policy_add_unprotect(confine_policy *policy, const char *name,
                                             confine_error *err);
CONFINE_API int confine_policy_add_protected_path(confine_policy *policy, const char *path,
                                                  confine_error *err);
/* Absolute; canonicalized as far as it exists. */
CONFINE_API int confine_policy_add_deny_read(confine_policy *policy, const char *path,
                                             confine_error *err);
/* Absolute; canonicalized as far as it exists. */
CONFINE_API int confine_policy_add_unix_socket(confine_policy *policy, const char *path,
                                               confine_error *err);
/* Appends a network allowlist (or deny) entry, checked and lower-cased
 * (INVALID_POLICY naming it: a scheme, a port, an IP address or range, an
 * empty name, a bad character). */
CONFINE_API int confine_policy_add_allow_host(confine_policy *policy, const char *pattern,
                                              confine_error *err);
CONFINE_API int confine_policy_add_deny_host(confine_policy *policy, const char *pattern,
                                             confine_error *err);
/* Whether the policy is a network allowlist: network off with at least one
 * allow entry. */
CONFINE_API bool confine_policy_network_allowlist(const confine_policy *policy);
/* Checks one host pattern (allow or deny) as the appenders do; `key` names
 * it in the message ("network.allow"). */
CONFINE_API int confine_host_pattern_check(const char *key, const char *pattern,
                                           confine_error *err);
/* Whether `host` (a name, any case) matches `pattern`. */
CONFINE_API bool confine_host_pattern_match(const char *pattern, const char *host);
/* A pattern (see confine_env_policy). */
CONFINE_API int confine_policy_add_env_include(confine_policy *policy, const char *pattern,
                                               confine_error *err);
CONFINE_API int confine_policy_add_env_exclude(confine_policy *policy, const char *pattern,
                                               confine_error *err);
/* "NAME=VALUE" (VALUE may be empty; NAME as a pattern without `*` or `?`).
 * A later entry for the same NAME replaces the earlier one. */
CONFINE_API int confine_policy_add_env_set(confine_policy *policy, const char *assignment,
                                           confine_error *err);

/*
 * Checks a whole policy, in this order, and returns the first problem
 * (CONFINE_E_INVALID_POLICY, the config key and the value named):
 * the mode; the workspace root (for a confined mode: absolute, canonical,
 * an existing directory, not a pseudo-filesystem, not `/` under
 * workspace-write); each writableRoots entry (as the appender checks it);
 * a denyRead entry that covers the workspace root; a writableRoots entry
 * at or under a denyRead entry; an absolute protectedPaths entry outside
 * every writable root (the workspace root included), or a relative one with
 * `..`; a relative path in denyRead or allowUnixSockets; an env pattern or
 * assignment that is malformed; temp_dir not absolute; a limit of 0 or past
 * its bound, or one the caller set under danger-full-access.
 */
CONFINE_API int confine_policy_validate(const confine_policy *policy, confine_error *err);

/*
 * Gives a confined `policy` with private_temp and no temp_dir a fresh,
 * empty directory (mode 0700, mkdtemp(3) under $TMPDIR of `envp`, NULL:
 * this process's environment, else /tmp) as its temp_dir, for a run the
 * caller spawns through confine_spawn(): the rungs without a mount
 * namespace (Landlock, Seatbelt) grant it writable, the spawner exports it
 * as TMPDIR and removes it with its contents once the run is over (or its
 * start failed). Call it before confine_confine(). A caller that does not
 * spawn the result removes the (empty) directory with rmdir(2). Any other
 * policy: 0, nothing done. 0, or -errno with CONFINE_E_SYSTEM.
 */
CONFINE_API int confine_policy_make_temp_dir(confine_policy *policy, const char *const *envp,
                                             confine_error *err);

/*
 * The environment a confined command gets (see confine_env_policy): a new
 * malloc'd NULL-terminated "NAME=VALUE" vector built from `envp` (NULL: the
 * empty environment) under `env` (NULL: the defaults: inherit all, default
 * excludes on, nothing included, excluded or set) for `mode`. danger-full-access copies
 * `envp` unchanged. Entries without `=` are dropped. Free with
 * confine_strv_free(). 0, -EINVAL (NULL ret, a malformed pattern), -ENOMEM.
 */
CONFINE_API int confine_env_filter(const char *const *envp, const confine_env_policy *env,
                                   confine_mode mode, char ***ret);

/* ------------------------------------------------------------------------ */
/* Runner-failure rules and the confined argv                               */

/* Evidence that a runner failed *before* running the command (SPEC 8). */
typedef struct confine_rule {
	int *allowed_exit_codes;       /* may be NULL: any non-zero exit */
	size_t n_allowed_exit_codes;
	char **fatal_signatures;       /* NULL-terminated, non-empty list */
	char **informational_lines;    /* NULL-terminated; may be NULL */
} confine_rule;

/* What a spawner or a consumer must know about a runner, beyond its
 * dialect: bits of confine_argv.runner_facts. Each runner states its own
 * (src/lib/local/runner-*.c); code that acts on a fact tests the bit and
 * never the runner's name. */
typedef enum confine_runner_fact {
	/* The runner supervises the command from a session of its own and
	 * reports its status (bwrap-shaped): a signal meant for the command
	 * must reach the command below it, not end the runner first. */
	CONFINE_RUNNER_FACT_SUPERVISES = 1u << 0,
	/* Under workspace-write the command sees a private, empty /tmp: a file
	 * under the host's /tmp (outside the workspace) is not there. */
	CONFINE_RUNNER_FACT_PRIVATE_TMP = 1u << 1,
	/* Under workspace-write the command may write a shared host temp area
	 * (the host's /dev/shm; Landlock), so a runner or a workspace there
	 * could be replaced by the very run it confines. */
	CONFINE_RUNNER_FACT_HOST_TMP = 1u << 2,
	/* denyRead names are masked and protected paths bound by mounts (a
	 * mount namespace of its own): a masked name reads ENOENT, a rename
	 * onto a bind EBUSY, and such errors there are the rung's refusals. */
	CONFINE_RUNNER_FACT_MOUNT_MASKS = 1u << 3,
	/* A refused file access reads EPERM ("Operation not permitted"), where
	 * the Linux rungs say EACCES or EROFS and keep EPERM for metadata. */
	CONFINE_RUNNER_FACT_EPERM_FILES = 1u << 4,
} confine_runner_fact;

/* What confine() returns: the argv to spawn instead, and facts about the
 * runner that confines it. Owned by the caller; confine_argv_free(). */
typedef struct confine_argv {
	char **argv;                   /* runner, profile, "--", caller's argv */
	size_t argc;
	confine_runner runner;
	unsigned runner_facts;         /* CONFINE_RUNNER_FACT_* bits */
	confine_enforcement enforcement;
	char **denial_signatures;      /* NULL-terminated; this runner's dialect */
	confine_rule *rules;
	size_t n_rules;
	confine_policy policy;         /* a copy of the policy it was built for */
	/* Policy parts this rung does not enforce (config key names, e.g.
	 * "protectedPaths"), NULL-terminated; NULL when it enforces them all
	 * (doc/SPEC.md 15). */
	char **unenforced;
	/* How the library spawns this argv itself (doc/SPEC.md 12, 14). All
	 * zero in an argv meant for another process to spawn (`wrap`), and in
	 * one a custom backend builds. Descriptors are not owned: they live as
	 * long as the provider's process. */
	unsigned spawn_flags;          /* CONFINE_SPAWN_* bits */
	int exec_fd;                   /* EXEC_FD: exec this descriptor; argv[0] names it */
	int inherit_fd;                /* INHERIT_FD: placed at `inherit_fd_at` in the child, */
	int inherit_fd_at;             /*   not close-on-exec (bwrap's inner launcher) */
	int status_fd_at;              /* STATUS_CHANNEL: the status pipe's write end goes here */
	/* Every clause of the policy and how this rung holds it (doc/SPEC.md
	 * 15): `unenforced` is the summary of those not enforced, and
	 * `enforcement` is full only when every clause is. NULL and 0 for an
	 * argv a custom backend builds without them. */
	struct confine_clause *clauses;
	size_t n_clauses;
	/* In an argv for another process to spawn that runs the project's
	 * launcher (bwrap, layered; Landlock): what the launcher will apply,
	 * in the words of its status channel's `layers` record ("landlock" or
	 * "landlock-partial", "seccomp", "supervisor"), as predicted on this
	 * host when the argv was made (doc/SPEC.md 10, 14); NULL-terminated.
	 * NULL when the argv runs no launcher (Seatbelt, a runnerCommand) and
	 * in an argv the library spawns itself (its status channel says). */
	char **layers;
} confine_argv;

/* The child execs `exec_fd` (fexecve) instead of looking argv[0] up. */
#define CONFINE_SPAWN_EXEC_FD 0x1u
/* The child gets `inherit_fd` at descriptor number `inherit_fd_at`. */
#define CONFINE_SPAWN_INHERIT_FD 0x2u
/* The runner writes status records (doc/SPEC.md 12) on descriptor
 * `status_fd_at`: the spawner makes the pipe, and judges the run by the
 * records, never by stderr. */
#define CONFINE_SPAWN_STATUS_CHANNEL 0x4u
/* The argv binds stand-ins for protected paths missing at the start
 * (doc/SPEC.md 15): the spawner makes them before the run (workspace-write)
 * and removes them after. */
#define CONFINE_SPAWN_PLACEHOLDERS 0x8u

CONFINE_API void confine_argv_free(confine_argv *confined);
/* Deep copy. */
CONFINE_API int confine_argv_copy(const confine_argv *confined, confine_argv **ret);

/* ------------------------------------------------------------------------ */
/* The SANDBOX_UNAVAILABLE message                                          */

/*
 * Writes the exact SANDBOX_UNAVAILABLE text for a confined `mode` into
 * `err` (code CONFINE_E_SANDBOX_UNAVAILABLE, stage "confine" or "runner"),
 * followed by " Runner failure: <detail>" when `runner_failure_detail` is
 * non-NULL. A detail starting "requireFull: " (a rung that runs but does
 * not enforce a clause) gets requireFull's text instead (doc/SPEC.md 2),
 * with the same tail. Returns -EHOSTUNREACH so it can be returned
 * directly. `err` may be NULL.
 */
CONFINE_API int confine_error_sandbox_unavailable(confine_error *err, confine_mode mode,
                                                  const char *runner_failure_detail);
/*
 * The same for a call pinned to `pin` that cannot run: a rung only a pin
 * runs (not in the platform's ladder) gets its own text, naming the rung
 * and its runner failure, instead of the ladder's "Install bubblewrap ..."
 * (doc/SPEC.md 22); every other rung, CONFINE_RUNNER_NONE and a NULL
 * detail get confine_error_sandbox_unavailable()'s. The local provider's
 * own refusals are these texts; this is for a caller that probed the pin
 * itself (`confine wrap --runner`). Returns -EHOSTUNREACH. `err` may be
 * NULL.
 */
CONFINE_API int confine_error_pinned_unavailable(confine_error *err, confine_runner pin,
                                                 confine_mode mode,
                                                 const char *runner_failure_detail);

/* ------------------------------------------------------------------------ */
/* Classifiers (SPEC 8): pure functions                                     */

/*
 * Runner failure, from stderr (doc/SPEC.md 8: for argvs spawned by others;
 * runs the library spawns itself learn it from the status channel).
 * `exit_code` is meaningful when `signaled` is false.
 * Exit 0 or a signal death: never. Otherwise stderr is split into lines on
 * "\n" / "\r\n"; for each rule in order: skipped when it has exit codes and
 * exit_code is not one of them; lines equal to an informational line
 * (case-insensitive, whole line) are dropped; the first remaining line that
 * starts with a fatal signature (case-insensitive; signatures empty after
 * trimming are ignored) is the match. Returns 1 and, when `ret_detail`
 * is non-NULL, a malloc'd copy of the original line; 0 when no match; -ENOMEM.
 */
CONFINE_API int confine_classify_runner_failure(int exit_code, bool signaled,
                                                const char *stderr_text, size_t stderr_len,
                                                const confine_rule *rules, size_t n_rules,
                                                char **ret_detail);

/* Denial (doc/SPEC.md 8): a line of stderr, at any exit, holds one of
 * `denial_signatures` (case-insensitive) where it reads as a refused file
 * access: the line names a path ('/' or a quoted name) or the signature
 * ends the error (end of line, or before ':', ',', ';', '.', " (os error").
 * "host: Permission denied (publickey)." is no denial. */
CONFINE_API bool confine_classify_denial(int exit_code, bool signaled,
                                         const char *stderr_text, size_t stderr_len,
                                         char *const *denial_signatures);
/* The same over both streams: stderr as above; stdout too when the run
 * exited non-zero (a denial printed by "touch f 2>&1"). Either text may be
 * NULL. */
CONFINE_API bool confine_classify_denial_streams(int exit_code, bool signaled,
                                                 const char *stdout_text, size_t stdout_len,
                                                 const char *stderr_text, size_t stderr_len,
                                                 char *const *denial_signatures);

/* Which step of starting the child failed. */
typedef enum confine_spawn_step {
	CONFINE_SPAWN_STEP_NONE = 0,
	CONFINE_SPAWN_STEP_CHDIR,  /* changing to the working directory */
	CONFINE_SPAWN_STEP_EXEC,   /* exec of argv[0] */
	CONFINE_SPAWN_STEP_SETUP,  /* anything else in the child (dup2, setsid) */
} confine_spawn_step;

/* Spawn rejection: a runner failure only for ENOENT or EACCES from exec of
 * the provider's argv[0], with a usable workdir (exists, is a directory,
 * searchable). */
CONFINE_API bool confine_classify_spawn_rejection(confine_spawn_step step, int error_number,
                                                  bool workdir_usable);

/* Whether `path` exists, is a directory and is searchable by this process. */
CONFINE_API bool confine_workdir_usable(const char *path);

/* ------------------------------------------------------------------------ */
/* Providers                                                                */

typedef struct confine_provider confine_provider;

/* What a provider knows about its backend after selection. */
typedef struct confine_verdict {
	bool usable;
	confine_runner runner;
	confine_enforcement enforcement;
	int landlock_abi;  /* the kernel's Landlock ABI, or -1 when unknown */
	char runner_path[4096]; /* argv[0] the runner is spawned as, or "" */
	/* When unusable because a runner exists but is broken (a launcher that
	 * cannot be executed): the runner-failure detail; "" otherwise. */
	char runner_failure[512];
} confine_verdict;

/* A backend: confine() builds the confined argv for a provider policy.
 * verdict() is optional. destroy() releases `data`. */
typedef struct confine_provider_ops {
	int (*confine)(void *data, const char *const *argv, const confine_policy *policy,
	               confine_argv **ret, confine_error *err);
	int (*verdict)(void *data, confine_verdict *ret, confine_error *err);
	void (*destroy)(void *data);
	/* Optional, for runs the library spawns itself (confine_spawn_through):
	 * confine_for_spawn builds an argv that may use a status channel and
	 * descriptors (NULL: confine() is used); when such a run fails before
	 * its command started, runner_failed is told (detail: the runner's
	 * line) and returns true when another runner may be tried; when it
	 * started, runner_started is told. Both may be NULL. */
	int (*confine_for_spawn)(void *data, const char *const *argv, const confine_policy *policy,
	                         confine_argv **ret, confine_error *err);
	bool (*runner_failed)(void *data, const confine_argv *confined, const char *detail);
	void (*runner_started)(void *data, const confine_argv *confined);
} confine_provider_ops;

/* Wraps a backend in a provider handle. `ops` is copied; `data` is owned by
 * the provider from now on (destroy() is called from confine_provider_free,
 * and also here on failure). */
CONFINE_API int confine_provider_new(const confine_provider_ops *ops, void *data,
                                     confine_provider **ret, confine_error *err);
CONFINE_API void confine_provider_free(confine_provider *provider);

/*
 * Returns the argv to spawn instead of `argv` (non-empty, NULL-terminated),
 * confined by `policy` (a confined mode: danger-full-access is refused with
 * CONFINE_E_INVALID_ARGUMENT and never reaches the backend). Where no backend
 * can confine: CONFINE_E_SANDBOX_UNAVAILABLE with the exact message.
 * Thread-safe; the provider holds no policy.
 */
CONFINE_API int confine_confine(confine_provider *provider, const char *const *argv,
                                const confine_policy *policy, confine_argv **ret,
                                confine_error *err);

/* The backend selection (probing on first use). -EOPNOTSUPP when the
 * backend has no verdict. An unavailable verdict is success with
 * usable == false. */
CONFINE_API int confine_provider_verdict(confine_provider *provider, confine_verdict *ret,
                                         confine_error *err);

/* ------------------------------------------------------------------------ */
/* The local provider (SPEC 4)                                              */

#define CONFINE_DEFAULT_PROBE_TIMEOUT_MS 5000.0

typedef struct confine_local_config {
	/* An operator's bwrap-shaped runner; NULL or empty: not configured. */
	const char *const *runner_command;
	/* Its pre-exec refusal dialect; required with runner_command. */
	const char *const *runner_failure_signatures;
	/* Bound on each functional probe, in milliseconds: a positive whole
	 * number (a fraction such as 0.5 is refused, not rounded; doc/SPEC.md 4). */
	double probe_timeout_ms;
	/* The on-disk landlock-run: what wrap and the probes run, and, when set,
	 * what the Landlock rung runs for in-process runs instead of the sealed
	 * in-memory copy (doc/SPEC.md 4, 14); NULL: the installed one (or, for a
	 * library in its build tree, the build tree's). */
	const char *landlock_launcher;
	/* Pin the chain to one rung (a chain of one, selected unprobed);
	 * CONFINE_RUNNER_NONE: the platform's chain. */
	confine_runner pin;
	/* The search path for runners (bwrap, runsc, a bare runnerCommand);
	 * NULL: $CONFINE_RUNNER_PATH when the provider is made, else
	 * CONFINE_DEFAULT_PATH, never $PATH (doc/SPEC.md 4, red team R4-F9). */
	const char *path;
	/* Platform whose chain to use: "linux", "darwin", anything else (empty
	 * chain); NULL: this host. For tests and explicit pretend-platforms. */
	const char *platform;
} confine_local_config;

/* Fills `config` with the defaults (probe_timeout_ms 5000, all else unset). */
CONFINE_API void confine_local_config_init(confine_local_config *config);

/* Validates `config` (SPEC 4, in order, exact messages; CONFINE_E_INVALID_CONFIG)
 * and makes the local provider. Copies the configuration. Probing happens on
 * the first confine() or verdict call, once, and is cached for the
 * provider's life. */
CONFINE_API int confine_local_provider_new(const confine_local_config *config,
                                           confine_provider **ret, confine_error *err);

/* The launcher path a default local provider uses. Static. */
CONFINE_API const char *confine_default_landlock_launcher(void);

/* ------------------------------------------------------------------------ */
/* Profiles (SPEC 5): pure generators, on every platform                    */

/*
 * The generators read the filesystem only to learn what exists (a bind can
 * cover only an existing path; a `.git` directory decides the default
 * protections; denyRead on Landlock lists directories). doc/POLICY.md has
 * every token per option. All return 0, -EINVAL (not a confined policy, a
 * workspace-write policy without an absolute root, bad flags) or -ENOMEM;
 * the Landlock one also a negative errno when a directory on the way to a
 * denyRead entry cannot be listed, and -E2BIG past 8192 read grants (the
 * profile fails closed rather than grant more).
 */

/* Omit --die-with-parent (in-process runs: the launcher's lifeline replaces
 * it; PR_SET_PDEATHSIG would follow the spawning thread). */
#define CONFINE_PROFILE_NO_DIE_WITH_PARENT (1u << 0)

/* bwrap profile tokens for a confined policy (no "--"), NULL-terminated,
 * malloc'd; free with confine_strv_free(). read-only: the 16 tokens
 *   --ro-bind / / --dev /dev --unshare-pid --unshare-ipc --proc /proc
 *   --ro-bind /proc/sys /proc/sys --die-with-parent --new-session --cap-drop ALL
 * then `--unshare-net` (network off), `--tmpfs /tmp` (workspace-write, or
 * read-only with private_temp), `--bind R R` per writable root (workspace
 * root first), `--bind D D` per directory on the way to a protected path
 * (shallow first: a mount point cannot be renamed in the sandbox),
 * `--ro-bind P P` per existing protected path (protectedPaths and the
 * default protections of every repository found, sorted by path), and per
 * existing denyRead entry `--tmpfs D --remount-ro D` (a directory) or
 * `--ro-bind /dev/null F` (anything else). A protected path that does not
 * exist is left out here (an argv for others); the library's own runs
 * stand a placeholder in for it (doc/SPEC.md 15). */
CONFINE_API int confine_profile_bwrap(const confine_policy *policy, char ***ret);
/* The same with CONFINE_PROFILE_* flags. */
CONFINE_API int confine_profile_bwrap_flags(const confine_policy *policy, unsigned flags,
                                            char ***ret);
/* landlock-run arguments, NULL-terminated: `--ro /` (or, with denyRead, one
 * `--ro` per sibling along the way to each denied path), `--rw /dev/null`,
 * `--rw TEMP_DIR` (private_temp with temp_dir set; never the host's /tmp);
 * workspace-write: `--rw-shared /dev/shm` (where it exists: writable, but
 * no socket there is reached), `--rw R` per writable root; then
 * `--deny-network` (network off). */
CONFINE_API int confine_profile_landlock(const confine_policy *policy, char ***ret);
/* The SBPL profile text. `tmpdir` is the per-user temp dir ($TMPDIR), NULL
 * for "/tmp". Writable roots are canonicalized with realpath (a path that does
 * not resolve is used as given) and de-duplicated; protected paths, denyRead
 * and network off follow as deny forms (doc/POLICY.md). */
CONFINE_API int confine_profile_seatbelt(const confine_policy *policy, const char *tmpdir,
                                         char **ret);

#define CONFINE_UNENFORCED_MAX 16

/* The parts of a policy a rung leaves unenforced. */
typedef struct confine_unenforced {
	/* Config key names (static strings), in config order, NULL-terminated:
	 * "protectedPaths", "defaultProtections", "denyRead", "allowUnixSockets",
	 * and "privateTemp" (private_temp but no temp_dir, so no temp area is
	 * granted: Landlock in both modes, Seatbelt in read-only; never
	 * partial). */
	const char *keys[CONFINE_UNENFORCED_MAX + 1];
	size_t n_keys;
	/* An explicitly requested part is unenforced: the run is `partial`
	 * (with require_full: SANDBOX_UNAVAILABLE). Default protections and
	 * allowUnixSockets are listed but never make a run partial. */
	bool partial;
} confine_unenforced;

/*
 * Reports, for `runner` (BWRAP, LANDLOCK, SEATBELT or RUNNER_COMMAND, which
 * is bwrap-shaped), what of the confined `policy` it does not enforce:
 *  bwrap:    for an argv another process spawns (plain bwrap): protectedPaths
 *            when an entry is missing, behind a symlink inside a writable
 *            root, or bound at all (a save on the host detaches a mount:
 *            held by name only) (partial); defaultProtections when a
 *            repository's protected surface is missing (its commondir, say)
 *            or the walk reached a bound; denyRead when an existing entry
 *            lies inside a writable root, or at all (no Landlock layer)
 *            (partial); allowUnixSockets (no supervisor).
 *  landlock: protectedPaths (no carve-out inside a writable grant: partial),
 *            defaultProtections (whenever on: never enforced), denyRead when an
 *            existing entry lies inside a writable grant (partial),
 *            allowUnixSockets.
 *  seatbelt: nothing.
 * The rung's own enforcement (Landlock ABI) is apart: `partial` here adds
 * to it. A view on the report per clause (confine_argv's `clauses`, made
 * by the same engine from the rung's clause table): a key is listed when a
 * clause of it is not enforced there, but a denyRead entry missing at the
 * start (nothing to hide yet: the report's alone), and privateTemp when no
 * temp area is granted. 0 or -EINVAL, -ENOMEM.
 */
CONFINE_API int confine_policy_unenforced(const confine_policy *policy, confine_runner runner,
                                          confine_unenforced *ret);

CONFINE_API void confine_strv_free(char **strv);

/* ------------------------------------------------------------------------ */
/* Finding programs on PATH                                                 */

/* The search path used wherever PATH is unset: by a spawned child's exec
 * search, by the runner lookup and by the confine command alike, so a check
 * made before a spawn finds what the child's exec will find. The system's
 * program directories, /usr/local/bin first (glibc's confstr(_CS_PATH) is
 * the narrower "/bin:/usr/bin"). */
#define CONFINE_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

typedef struct confine_find_options {
	/* Colon-separated; NULL: this process's $PATH, else CONFINE_DEFAULT_PATH. */
	const char *path;
	/* Where relative entries (and "", the current directory) and a relative
	 * name resolve, as they would for a child started there; NULL: the
	 * current directory. */
	const char *dir;
	/* Skip relative and empty entries (and refuse a relative name): a
	 * runner must not depend on the working directory, which a confined
	 * command may write. */
	bool absolute_entries_only;
	/* Skip a file not owned by root or the caller, or writable by group or
	 * others, it or a directory above it, along the path as given and along
	 * the path it resolves to (anyone else could plant it, or point a link
	 * at another program). */
	bool trusted_only;
	/* Optional: a found file for which it returns false is skipped as if
	 * absent. Gets the canonical path. */
	bool (*accept)(const char *path, void *data);
	void *accept_data;
} confine_find_options;

/*
 * Finds the program `name` the way execvp(3) does: a name containing a
 * slash is that file; otherwise each PATH entry in order, the first
 * executable regular file that passes `options` (NULL: all defaults) wins.
 * Returns 0 with *ret, the canonical (realpath) name of the file, malloc'd;
 * -ENOENT when nothing was found; -EACCES when only files that exist but
 * cannot be executed were (as execvp reports); -EINVAL; -ENOMEM.
 */
CONFINE_API int confine_find_program(const char *name, const confine_find_options *options,
                                     char **ret);

/*
 * Whether `path` (absolute) is the directory `root` or lies below it: by
 * name (as given, and against `root` resolved), and by identity, the device
 * and inode of `path` and of each directory above it against `root`'s, so
 * that the same directory reached by another name (a bind mount of it) is
 * `root` too (doc/SPEC.md 14, 16; red team round 5: a launcher and a
 * configuration under `/mnt/alias`, a bind mount of the workspace). A
 * `root` of "/" holds everything. A `path` that does not exist yet is
 * judged by the directories above it that do. Reads the file system; no
 * allocation.
 */
CONFINE_API bool confine_path_within(const char *path, const char *root);

/* ------------------------------------------------------------------------ */
/* Spawning (SPEC 9)                                                        */

typedef enum confine_stdio_kind {
	CONFINE_STDIO_INHERIT = 0, /* the caller's descriptor 0/1/2 */
	CONFINE_STDIO_FD,          /* dup2 of `fd` */
	CONFINE_STDIO_NULL,        /* /dev/null */
	CONFINE_STDIO_CAPTURE,     /* a pipe, kept up to the capture limit */
	CONFINE_STDIO_TEE,         /* captured and also copied to `fd` live */
} confine_stdio_kind;

typedef struct confine_stdio {
	confine_stdio_kind kind;
	int fd;
} confine_stdio;

#define CONFINE_DEFAULT_CAPTURE_LIMIT 64000
#define CONFINE_DEFAULT_TIMEOUT_MS 120000
#define CONFINE_MAX_TIMEOUT_MS 600000
#define CONFINE_KILL_GRACE_MS 3000

/* How long the library waits for a run's decider (ask_host) to answer
 * one question before it refuses the host (doc/SPEC.md 15, "Ask"): past
 * the packages' 20 s and the CLI's 25 s, inside the proxy's 30 s. */
#define CONFINE_ASK_HOST_SECONDS 28

typedef struct confine_spawn_options {
	/* What to run: exactly one of `confined` (a confine() result: its argv
	 * and facts are used) and `argv` (an unconfined run, danger-full-access). */
	const confine_argv *confined;
	const char *const *argv;
	const char *workdir;              /* NULL: confined->policy's root, else cwd */
	/* NULL: this process's environment. A confined run gets it through
	 * its policy's env filter (confine_env_filter), with TMPDIR set to the
	 * private temp area in read-only (doc/SPEC.md 15). */
	const char *const *envp;
	confine_stdio stdio[3];
	size_t capture_limit;             /* per stream; 0: the default 64000 */
	unsigned timeout_ms;              /* 0: no timeout */
	/* The decider for a policy with network_ask (doc/SPEC.md 15, "Ask"):
	 * called with a host on neither list and its port, on a thread the
	 * library starts for the question (all signals blocked), while
	 * confine_process_wait() / confine_process_poll() go on waiting; true
	 * allows it. It may write a reason (NUL-terminated, at most
	 * reason_size bytes, one line) the model reads in the refusal. The
	 * wait refuses the host when the decider has not answered within
	 * CONFINE_ASK_HOST_SECONDS, when the run's timeout is due, when a
	 * signal that ends the run (SIGTERM, SIGHUP, SIGQUIT, SIGKILL) was
	 * sent through confine_process_signal(), or when the run ends: the
	 * run is never held up by it, and an answer after that is dropped.
	 * So the callback may still be running after the run settled:
	 * ask_host_data must outlive every call. Each answer is kept for the
	 * run. NULL: such hosts are refused. */
	bool (*ask_host)(void *data, const char *host, unsigned port, char *reason,
	                 size_t reason_size);
	void *ask_host_data;
} confine_spawn_options;

/* Fills `options` with the defaults: inherit stdio, no timeout. */
CONFINE_API void confine_spawn_options_init(confine_spawn_options *options);

typedef struct confine_process confine_process;

/* A git hook or an executable git setting that appeared or changed under a
 * writable root during a workspace-write run the library spawned
 * (doc/SPEC.md 15: a snapshot before the run, compared after it): a person
 * running git there later would run it unconfined. */
typedef struct confine_git_hazard {
	/* The hook file, or the config file holding the setting; "" for
	 * "incomplete". */
	char *path;
	/* "hook"; the setting's key as git spells it ("core.hooksPath",
	 * "core.fsmonitor", "core.pager", "diff.external",
	 * "filter.<driver>.clean", "alias.<name>", "include.path", ...: the
	 * list is doc/SPEC.md 15's); "commondir": a commondir naming another
	 * repository; or "incomplete": a walk stopped at its bound. */
	char *kind;
} confine_git_hazard;

/* One clause of a resolved policy and how it held (doc/SPEC.md 15). */
typedef struct confine_clause {
	/* The clause: a policy key ("mode", "writableRoots", "protectedPaths",
	 * "defaultProtections", "denyRead", "network", "allowUnixSockets",
	 * "env", "privateTemp", "limits.pids" ... "limits.openFiles") or a
	 * mechanism every confined run has
	 * ("unix-sockets", "metadata", "setid", "devices", "signals",
	 * "abstract-unix-sockets"). */
	char *clause;
	/* What it is about: a path, a pattern, the mode's or network's value;
	 * NULL when the clause is the whole mechanism. */
	char *subject;
	confine_clause_status status;
	unsigned layers;  /* confine_layer bits that hold it; 0 when none */
	/* Why it is not (fully) enforced; for an enforced clause, what a
	 * harness should know (e.g. "does not exist at the start"); or NULL. */
	char *reason;
	/* What on this host would enforce it ("bubblewrap", "Landlock ABI
	 * 6", ...); NULL when nothing would or it is enforced. */
	char *needs;
} confine_clause;

/* At most this many denials are listed per run (doc/SPEC.md 9): the
 * first found, the supervisor's own first, then the output's in order. */
#define CONFINE_DENIALS_MAX 32

/* One refusal the sandbox made during a run, with its object (doc/SPEC.md
 * 8, 9): from the launcher's supervisor (exact), or read from a line of
 * the command's output that names a path or an address a clause covers. */
typedef struct confine_denial {
	/* What was refused: "read", "write", "chmod", "chown", "utimes",
	 * "setxattr", "removexattr", "setflags", "connect", "send",
	 * "resolve". */
	char *op;
	/* The file, absolute (a relative path in the output is taken from
	 * the run's working directory); NULL for a network denial. */
	char *path;
	/* "host:port", or the host alone; NULL for a file denial. */
	char *address;
	/* The clause that covers it: "mode" (a write outside the writable
	 * roots), "denyRead", "protectedPaths", "defaultProtections",
	 * "metadata", "setid", "unix-sockets" or "network". */
	char *clause;
	/* A network refusal by the run's decider (doc/SPEC.md 15, "Ask"):
	 * the reason it gave (possibly ""); NULL for every other denial. */
	char *reason;
} confine_denial;

/* What the network allowlist's proxy decided for one host and port
 * (doc/SPEC.md 15, "Ask"): each once per run, in the order decided. */
typedef struct confine_network_decision {
	char *host;
	unsigned port;
	bool allow;
	/* "allowlist", "denylist", "decider", "off", or "allowLocal": an
	 * allowed name whose address the local-address check refused (the
	 * decision is that deny, not the name's allow). */
	char *by;
} confine_network_decision;

/* How a run ended, classified with that run's own facts. */
typedef struct confine_outcome {
	bool signaled;
	int exit_code;          /* when !signaled */
	int signal;             /* when signaled */
	bool timed_out;
	char *stdout_data;      /* captured, NUL-terminated; NULL if not captured */
	size_t stdout_len;
	bool stdout_truncated;
	char *stderr_data;
	size_t stderr_len;
	bool stderr_truncated;
	/* Classification (confined runs only). */
	bool confined;
	confine_mode mode;
	confine_runner runner;
	confine_enforcement enforcement;
	/* The file marker (doc/SPEC.md 8, 9): a refused file access in the
	 * output, in the rung's dialect, or a file denial in `denials`. */
	bool denied;
	bool runner_failed;
	char *runner_failure_detail; /* the matched line, or NULL */
	/* The argv's `unenforced` list, copied; NULL when empty. */
	char **unenforced;
	/* workspace-write: what the after-run scan of the writable roots found
	 * (doc/SPEC.md 15); NULL and 0 when nothing. */
	confine_git_hazard *git_hazards;
	size_t n_git_hazards;
	/* The argv's clauses as this run held them: a layer the launcher said
	 * it did not apply (its status channel) is taken away, and a clause
	 * left with none is unenforced. NULL and 0 when unconfined. */
	confine_clause *clauses;
	size_t n_clauses;
	/* The refusals this run met, each with its object (doc/SPEC.md 8):
	 * at most CONFINE_DENIALS_MAX; NULL and 0 when none is known. A file
	 * denial (a `path`) also sets `denied`. */
	confine_denial *denials;
	size_t n_denials;
	/* A network refusal with the policy's network off: the rendering's
	 * "[sandbox: network access denied under <mode> mode]". */
	bool network_denied;
	/* A limit stopped the run (doc/SPEC.md 15, "Limits"), by its
	 * mechanism's own count: `limit` with its `limit_value`; killed (the
	 * memory limit's OOM kill, the CPU limit's signal) or reached (a fork
	 * refused at the process limit). The rendering's
	 * "[sandbox: limit reached: pids (256)]",
	 * "[sandbox: killed: memory limit (2 GiB)]". */
	bool limit_stopped;
	bool limit_killed;
	confine_limit limit;
	uint64_t limit_value;
	/* What the run used, where the mechanism can tell; -1: unknown. The
	 * run's cgroup's high-water mark of memory (bytes) and of processes;
	 * the CPU time of the run's processes (user + system, seconds, from
	 * the runner's rusage: every process reaped below it). */
	int64_t peak_memory;
	int64_t peak_pids;
	double cpu_seconds;
	/* The proxy's decisions (the network allowlist, doc/SPEC.md 15): at
	 * most 256 a run; NULL and 0 when none. */
	confine_network_decision *network_decisions;
	size_t n_network_decisions;
	/* The denials this run met past CONFINE_DENIALS_MAX: counted, not
	 * listed (one not listed that is met twice counts twice; doc/SPEC.md
	 * 9), the supervisor's past its own 32 records included. */
	size_t denials_dropped;
	/* The decisions past the 256 listed: counted, not listed
	 * (doc/SPEC.md 15, "Ask"). */
	size_t network_decisions_dropped;
} confine_outcome;

CONFINE_API void confine_outcome_free(confine_outcome *outcome);

/* The marker of a limit that stopped the run, into `buf`:
 * "[sandbox: limit reached: pids (256)]" or
 * "[sandbox: killed: memory limit (2 GiB)]" ("cpu limit (2 s)"). Returns
 * false (buf "") when no limit stopped it. */
CONFINE_API bool confine_outcome_limit_marker(const confine_outcome *outcome, char *buf,
                                              size_t size);

/*
 * Starts the child in a new session, in `workdir`, with every descriptor
 * above 2 closed. Nothing allocates between fork and exec; the child reports
 * the step that failed and its errno over a close-on-exec pipe. When starting
 * fails: a confined run whose exec of the runner failed with ENOENT/EACCES
 * (workdir usable) is CONFINE_E_SANDBOX_UNAVAILABLE with " Runner failure:
 * <detail>"; anything else is CONFINE_E_SPAWN naming the step and path.
 * A confined argv whose argv[0] (the runner) is not an absolute path is
 * refused with CONFINE_E_INVALID_ARGUMENT: it would be looked up from the
 * working directory, which the command may write.
 *
 * The run's processes are ended with it: a timeout, the end of the run and
 * confine_process_free() reach the child's process group and the descendant
 * tree found in /proc (Linux), so a descendant that called setsid is ended
 * as long as it is still attached below the run. One whose parent had
 * already ended was reparented away (to init) and is out of the library's
 * reach; a caller that must end those too can make itself a child subreaper
 * (prctl(PR_SET_CHILD_SUBREAPER, 1), Linux) so such orphans become its own
 * children, and kill and reap what remains after each run, as the confine
 * command does.
 */
CONFINE_API int confine_spawn(const confine_spawn_options *options, confine_process **ret,
                              confine_error *err);

CONFINE_API pid_t confine_process_pid(const confine_process *process);

/* Does not block: pumps captured output, reaps the child if it ended and
 * enforces the timeout. Returns 1 when settled, 0 when still running. */
CONFINE_API int confine_process_poll(confine_process *process, confine_error *err);

/* Blocks until the run settles. The outcome is classified: runner failure
 * first (then `runner_failed`, and the function still succeeds; see
 * confine_outcome_error()), denial second. Both read only the stderr that
 * was captured (CAPTURE or TEE): capture stderr of a confined run to have
 * it classified. When the child ends, what is left of its process group, and
 * what is still attached below the group's members, is killed. */
CONFINE_API int confine_process_wait(confine_process *process, confine_outcome **ret,
                                     confine_error *err);

/* Sends `sig` to the run: to every process group (and every process whose
 * group leader is not among them) found in the child's descendant tree, the
 * child's own group included. Under a runner that supervises the command
 * from a session of its own (CONFINE_RUNNER_FACT_SUPERVISES: bwrap, a
 * runnerCommand), the runner's group is left out whenever something below it can receive
 * the signal, so the command (not the runner) gets to handle it; SIGKILL
 * always goes to everything. Without /proc only the child's group is
 * signalled. 0 when delivered, -ESRCH once the child has ended, -EINVAL,
 * or kill(2)'s -errno. Allocates nothing and is async-signal-safe: it may be
 * called from a signal handler (to forward SIGINT, say) while another part
 * of the program waits on the process, though not while it is being freed. */
CONFINE_API int confine_process_signal(confine_process *process, int sig);

/* Sends `sig` to every process found below `root` in the process tree
 * (not to `root` itself), each on its own, and returns how many were
 * signalled. Linux reads the tree from /proc; elsewhere nothing is found
 * and 0 is returned. Allocates nothing and is async-signal-safe. For a
 * child subreaper (see confine_spawn) ending the orphans it inherited, as
 * the confine command does once its command settled. */
CONFINE_API int confine_signal_descendants(pid_t root, int sig);

/* Kills what is left of the run (its group and its descendant tree), reaps,
 * releases. Accepts NULL. */
CONFINE_API void confine_process_free(confine_process *process);

/*
 * Starts `options->argv` (the command; `options->confined` must be NULL)
 * confined by `policy` through `provider`, the way runs the library spawns
 * itself should be (doc/SPEC.md 12, 17): the local provider then runs its
 * sealed in-memory launcher with a status channel, so the command's stderr
 * is never mistaken for a runner's, and no probe runs first: when a runner
 * fails before the command started (nothing of it ran), the next rung of
 * the ladder is tried, and the rung that works is remembered by the
 * provider. Every other option is as for confine_spawn(). Where no rung can
 * start the command: CONFINE_E_SANDBOX_UNAVAILABLE with each rung's detail
 * joined by "; ".
 */
CONFINE_API int confine_spawn_through(confine_provider *provider, const confine_policy *policy,
                                      const confine_spawn_options *options,
                                      confine_process **ret, confine_error *err);

/* Runs to completion: spawn + wait. */
CONFINE_API int confine_run(const confine_spawn_options *options, confine_outcome **ret,
                            confine_error *err);

/* For an outcome whose runner failed, writes the SANDBOX_UNAVAILABLE error
 * with its detail into `err` and returns -EHOSTUNREACH; otherwise 0. */
CONFINE_API int confine_outcome_error(const confine_outcome *outcome, confine_error *err);

/* ------------------------------------------------------------------------ */
/* The bash consumer (SPEC 9)                                               */

typedef struct confine_bash_options {
	const char *command;         /* run as ["bash", "-c", command] */
	const confine_policy *policy;
	const char *workdir;         /* NULL: the policy's workspace root */
	const char *const *envp;     /* NULL: this process's environment */
	unsigned timeout_ms;         /* 0: 120000; more than 600000 is refused */
	size_t max_output;           /* per stream; 0: 64000 */
	/* The decider for a policy with network_ask: confine_spawn_options'
	 * ask_host and its data. NULL: none. */
	bool (*ask_host)(void *data, const char *host, unsigned port, char *reason,
	                 size_t reason_size);
	void *ask_host_data;
} confine_bash_options;

typedef struct confine_bash_result {
	confine_outcome *outcome;    /* exit, signal, output, facts */
	unsigned timeout_ms;         /* the bound that applied */
	/* CONFINE_OK, or CONFINE_E_SANDBOX_UNAVAILABLE when the runner failed
	 * (with " Runner failure: <detail>"). */
	confine_error error;
} confine_bash_result;

/*
 * Runs COMMAND with bash under `policy`. A confined mode consults `provider`
 * on every call (exactly ["bash","-c",COMMAND]); danger-full-access runs
 * plain `bash -c` and never calls it (`provider` may then be NULL). Returns
 * 0 with a result once the command started (a runner failure is then in
 * result->error); a negative errno when nothing ran (invalid input,
 * SANDBOX_UNAVAILABLE, a start failure).
 */
CONFINE_API int confine_bash_run(confine_provider *provider, const confine_bash_options *options,
                                 confine_bash_result **ret, confine_error *err);
CONFINE_API void confine_bash_result_free(confine_bash_result *result);

/* confine_bash_run() in two steps, for a caller that must see the child while
 * it runs (to forward signals to its process group, or to run several at
 * once): start returns the running process (free it with
 * confine_process_free), wait settles it into a result. */
CONFINE_API int confine_bash_start(confine_provider *provider,
                                   const confine_bash_options *options,
                                   confine_process **ret, confine_error *err);
CONFINE_API int confine_bash_wait(confine_process *process, confine_bash_result **ret,
                                  confine_error *err);

/* The model-facing rendering: stdout; "[stderr]" and stderr; "(no output)";
 * then the markers. For a runner failure: the error message. malloc'd. */
CONFINE_API char *confine_bash_render(const confine_bash_result *result);

/* The signal's name, "SIGKILL"; for a signal without one, "SIG<n>" formatted
 * into `buf` (at least 16 bytes) and `buf` returned. Thread-safe. */
CONFINE_API const char *confine_signal_name(int sig, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

/* ------------------------------------------------------------------------ */
/* The harness's own file operations, confined (doc/SPEC.md 19)             */

/*
 * An agent harness reads and writes the workspace itself too (its read,
 * write, edit and list tools). These apply the same resolved policy as a
 * run to those operations: every path is resolved beneath the root that
 * holds it (openat2 RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS; without
 * openat2, component by component with no symlink followed), so a link the
 * command planted never leads a harness write out; writes go only under the
 * writable roots of workspace-write, never onto a protected path (or a
 * directory holding one) or a denyRead path; reads never return a denyRead
 * path. A relative path is relative to the workspace root.
 *
 * Errors: CONFINE_E_DENIED (the policy refuses: the message names the path
 * and the clause, e.g. `write ".git/config": denied by defaultProtections:
 * /ws/.git/config is read-only`), CONFINE_E_FS (the filesystem refused:
 * ENOENT, EISDIR, ...; sys_errno set), CONFINE_E_INVALID_ARGUMENT,
 * CONFINE_E_SYSTEM (memory). Every call returns 0 or a negative errno.
 */
typedef struct confine_fs confine_fs;

/* Opens the roots of `policy` (a resolved, validated policy; copied) and
 * computes its protected and denied paths now (patterns expanded). Free
 * with confine_fs_free(). */
CONFINE_API int confine_fs_open(const confine_policy *policy, confine_fs **ret,
                                confine_error *err);
CONFINE_API void confine_fs_free(confine_fs *fs);

/* Frees memory the library handed over (confine_fs_read's data), for
 * callers that do not share the library's allocator (bindings). */
CONFINE_API void confine_free(void *memory);

/* Reads at most `max` bytes (0: no bound) of a regular file into a malloc'd
 * buffer (NUL-terminated, not counted in *ret_len). *ret_truncated (may be
 * NULL) says whether the file held more. */
CONFINE_API int confine_fs_read(confine_fs *fs, const char *path, size_t max, char **ret_data,
                                size_t *ret_len, bool *ret_truncated, confine_error *err);
/* The checks of confine_fs_read, and the regular file opened (O_RDONLY,
 * close-on-exec) into *ret_fd for the caller to read and close: for a
 * caller that streams (the CLI) rather than holding the file whole. */
CONFINE_API int confine_fs_open_read(confine_fs *fs, const char *path, int *ret_fd,
                                     confine_error *err);

/* Replaces (or creates) a regular file atomically: a new file in the same
 * directory, renamed over the name, keeping the old file's permission bits
 * (set-ID bits dropped; a new file gets 0644 less the umask). A name that is
 * a symlink is refused; a hard-linked file is not written through (the
 * rename gives the name a new inode, the other name keeps the old
 * content). */
CONFINE_API int confine_fs_write(confine_fs *fs, const char *path, const void *data, size_t len,
                                 confine_error *err);

/* Appends to a regular file, creating it (0644 less the umask) if missing.
 * Refuses a symlink, and a file with more than one hard link (appending
 * would write through to the other name). */
CONFINE_API int confine_fs_append(confine_fs *fs, const char *path, const void *data, size_t len,
                                  confine_error *err);

typedef enum confine_fs_type {
	CONFINE_FS_FILE = 'f',
	CONFINE_FS_DIRECTORY = 'd',
	CONFINE_FS_SYMLINK = 'l',
	CONFINE_FS_OTHER = 'o',
} confine_fs_type;

typedef struct confine_fs_entry {
	char *name;
	confine_fs_type type;
} confine_fs_entry;

/* The entries of a directory, sorted by name, "." and ".." and denyRead
 * paths left out. Free with confine_fs_entries_free(). */
CONFINE_API int confine_fs_list(confine_fs *fs, const char *path, confine_fs_entry **ret,
                                size_t *ret_n, confine_error *err);
CONFINE_API void confine_fs_entries_free(confine_fs_entry *entries, size_t n);

typedef struct confine_fs_info {
	confine_fs_type type;   /* of the name itself: a symlink is not followed */
	uint64_t size;
	unsigned mode;          /* permission bits */
	unsigned nlink;
	int64_t mtime_sec;
	long mtime_nsec;
} confine_fs_info;

CONFINE_API int confine_fs_stat(confine_fs *fs, const char *path, confine_fs_info *ret,
                                confine_error *err);

/* Makes one directory (its parent must exist). */
CONFINE_API int confine_fs_mkdir(confine_fs *fs, const char *path, confine_error *err);

/* Removes a file, a symlink (not what it points to) or an empty directory. */
CONFINE_API int confine_fs_remove(confine_fs *fs, const char *path, confine_error *err);

/* What git would run later that this handle's writes left under the
 * writable roots (doc/SPEC.md 19): before the first write operation since
 * the handle was opened or since the last call, the handle records what
 * git reads there (the walk of doc/SPEC.md 15's gitHazards); this call
 * walks again and hands over what differs, as a run's outcome reports it
 * (a hook, an executable setting in a config or included file, a foreign
 * commondir, "incomplete"). Free with confine_git_hazards_free(). */
CONFINE_API int confine_fs_git_hazards(confine_fs *fs, confine_git_hazard **ret, size_t *ret_n,
                                       confine_error *err);
CONFINE_API void confine_git_hazards_free(confine_git_hazard *hazards, size_t n);

/* Renames within the writable roots (replacing a file at `to`). Neither
 * end may be, or hold, a protected or denyRead path. */
CONFINE_API int confine_fs_rename(confine_fs *fs, const char *from, const char *to,
                                  confine_error *err);


/* ------------------------------------------------------------------------ */
/* The stage: a run's writes held for review (doc/SPEC.md 21)               */

/*
 * A staged run (confine_policy.stage_dir) writes nowhere but its stage: an
 * overlayfs upper directory per staged root (the workspace root, then each
 * writable root) and a manifest of what the real tree held when the run
 * began. These read it, list the changes, render a patch, and apply or
 * discard them. Paths in changes are relative to the workspace root where
 * it holds them, else absolute.
 *
 * Errors: CONFINE_E_INVALID_ARGUMENT (no stage there, a bad manifest),
 * CONFINE_E_FS (the filesystem refused; sys_errno set), CONFINE_E_DENIED
 * (apply only: the policy refuses a path), CONFINE_E_SYSTEM (memory).
 */
typedef struct confine_stage confine_stage;

/* Makes the stage `dir` (absent or empty; made 0700) for a run under
 * `policy` (resolved, workspace-write): one upper and work directory per
 * writable root and manifest.json, written last and atomically, recording
 * the roots, the protections and each entry's identity (type, inode,
 * size, mtime, ctime) now. Copies nothing of the caller's. */
CONFINE_API int confine_stage_create(const char *dir, const confine_policy *policy,
                                     confine_error *err);

/* Sets `policy->stage_dir` to a copy of `dir` (absolute; NULL clears it),
 * for a run after confine_stage_create(). -EINVAL, -ENOMEM. */
CONFINE_API int confine_policy_set_stage(confine_policy *policy, const char *dir,
                                         confine_error *err);

/* Opens the stage `dir` (reads its manifest). Free with confine_stage_free(). */
CONFINE_API int confine_stage_open(const char *dir, confine_stage **ret, confine_error *err);
CONFINE_API void confine_stage_free(confine_stage *stage);

typedef enum confine_change_kind {
	CONFINE_CHANGE_ADDED = 'A',
	CONFINE_CHANGE_MODIFIED = 'M',
	CONFINE_CHANGE_DELETED = 'D',
	CONFINE_CHANGE_RENAMED = 'R',
	CONFINE_CHANGE_MODE = 'P',    /* the permission bits alone */
	CONFINE_CHANGE_SYMLINK = 'L', /* a symbolic link made or re-pointed */
} confine_change_kind;

/* "added", "modified", "deleted", "renamed", "mode", "symlink"; static. */
CONFINE_API const char *confine_change_kind_name(confine_change_kind kind);

typedef struct confine_stage_change {
	char *path;          /* relative to the workspace root, else absolute */
	char *from;          /* RENAMED: the old path; else NULL */
	confine_change_kind change;
	char type;           /* what the stage holds: 'f', 'd', 'l', 'o'; the real one's for DELETED */
	uint64_t size;
	unsigned mode;       /* permission bits */
	bool binary;         /* a NUL byte in the first 8000 bytes of either side */
	bool git;            /* under a `.git` directory (listed apart, never patched) */
} confine_stage_change;

/* Every change the stage holds against the real tree as it is now, sorted
 * by path (a change already applied is no longer one). Free with
 * confine_stage_changes_free(). */
CONFINE_API int confine_stage_changes(confine_stage *stage, confine_stage_change **ret,
                                      size_t *ret_n, confine_error *err);
CONFINE_API void confine_stage_changes_free(confine_stage_change *changes, size_t n);

/* A unified diff (`git apply` format, paths a/ and b/ relative to the
 * workspace root) of the changes to text files, links and modes in the
 * workspace; binary files, `.git` and other roots are left out. Free with
 * confine_free(). */
CONFINE_API int confine_stage_patch(confine_stage *stage, char **ret_text, size_t *ret_len,
                                    confine_error *err);

typedef enum confine_apply_outcome {
	CONFINE_APPLY_APPLIED = 0,
	CONFINE_APPLY_CONFLICT,  /* the real path changed since the run began */
	CONFINE_APPLY_REFUSED,   /* the policy refuses it (a protected path, a link out) */
	CONFINE_APPLY_FAILED,    /* the filesystem refused */
} confine_apply_outcome;

typedef struct confine_apply_entry {
	char *path;
	confine_apply_outcome outcome;
	char *message;           /* NULL when applied */
} confine_apply_entry;

/*
 * Applies the changes at or under `paths` (NULL: all; each relative to the
 * workspace root or absolute) to the real tree: each file atomically (a
 * temp in the same directory renamed over the name), modes kept (set-ID
 * bits dropped), every path resolved beneath its root with no link
 * followed out, never onto a protected path or a directory holding one (the
 * run's protections, from the manifest). A path whose real file changed
 * since the run began is a conflict and left alone unless `overwrite`; the
 * rest is applied. The stage is never modified. Returns 0 when every entry
 * applied, 1 when some did not (see *ret), or a negative errno. Free with
 * confine_apply_entries_free().
 */
CONFINE_API int confine_stage_apply(confine_stage *stage, const char *const *paths,
                                    bool overwrite, confine_apply_entry **ret, size_t *ret_n,
                                    confine_error *err);
CONFINE_API void confine_apply_entries_free(confine_apply_entry *entries, size_t n);

/* Removes the stage `dir` and everything in it (it must hold a manifest:
 * nothing else is removed). */
CONFINE_API int confine_stage_discard(const char *dir, confine_error *err);

#endif /* CONFINE_H */
