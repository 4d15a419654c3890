/* SPDX-License-Identifier: MIT */
/*
 * The confine command line, parsed into a plain struct. The parser only
 * reads its input: it prints nothing, exits nothing and allocates only the
 * lists of repeatable options, so it is unit-tested on its own (tests/unit/test-cli-args.c) and main()
 * stays a thin dispatcher.
 */
#ifndef CONFINE_CLI_ARGS_H
#define CONFINE_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "confine.h"

typedef enum cli_command {
	CLI_COMMAND_NONE = 0, /* top level: `confine --help`, `confine --version` */
	CLI_COMMAND_RUN,
	CLI_COMMAND_BASH,
	CLI_COMMAND_WRAP,
	CLI_COMMAND_PROBE,
	CLI_COMMAND_FS,       /* the harness's own file operations (SPEC 19) */
	CLI_COMMAND_EXPORT,   /* the policy for another engine (SPEC 20) */
	CLI_COMMAND_OPTIONS,  /* the table of options (SPEC 15) */
} cli_command;

typedef enum cli_action {
	CLI_ACTION_EXECUTE = 0, /* run `command` with the parsed options */
	CLI_ACTION_HELP,        /* print the help of `command` (NONE: global) */
	CLI_ACTION_VERSION,
	CLI_ACTION_USAGE_ERROR, /* `error` says what is wrong */
} cli_action;

#define CLI_ERROR_MAX 1024

typedef struct cli_args {
	cli_action action;
	cli_command command;

	/* Options. Strings point into the argv given to cli_args_parse(). */
	bool has_mode;
	confine_mode mode;           /* -m/--mode */
	const char *workspace;       /* -w/--workspace, as given; NULL: absent */
	bool has_runner;
	confine_runner runner;       /* --runner */
	const char *config;          /* --config; NULL: absent */
	bool json;                   /* --json (run, bash, probe) */
	bool has_timeout;
	unsigned timeout_ms;         /* --timeout (bash) */
	const char *bash_command;    /* -c (bash) */
	char *const *program_argv;   /* after `--` (run, wrap); NULL-terminated */
	size_t program_argc;
	/* fs: the operation and its one or two paths (positional). */
	const char *fs_op;
	const char *fs_paths[2];
	size_t fs_n_paths;
	bool has_max_bytes;
	unsigned long long max_bytes; /* --max-bytes (fs read) */
	/* export: the target word after `export` and --bundle DIR. */
	const char *export_target;
	const char *bundle;
	const char *oci_runtime; /* --runtime runc|crun|runsc (export oci); NULL: runc */
	const char *k8s_kind;    /* --kind Pod|SandboxTemplate (export k8s); NULL: Pod */
	const char *k8s_runtime_class; /* --runtime-class NAME (export k8s); NULL: gvisor */
	const char *k8s_image;         /* --image IMAGE (export k8s); NULL: the placeholder */

	/* The policy options (issue 16; run, bash, wrap), the rows of
	 * src/common/options.def. Each list is a
	 * malloc'd NULL-terminated array of pointers into argv, in the order
	 * given, or NULL when the option is absent: release with
	 * cli_args_clear(). Paths are kept as given (relative ones are the
	 * caller's to resolve); patterns, assignments and words are checked. */
	bool has_policy_options;     /* any of the options below was given */
	const char **writable;       /* --writable DIR */
	const char **protect;        /* --protect PATH */
	const char **unprotect;      /* --unprotect NAME */
	bool no_default_protections; /* --no-default-protections */
	const char **deny_read;      /* --deny-read PATH */
	bool has_network;
	confine_network network;     /* --network on|off */
	const char **allow_unix_sockets; /* --allow-unix-socket PATH */
	const char **allow_hosts;    /* --allow-host HOST (checked) */
	const char **deny_hosts;     /* --deny-host HOST (checked) */
	bool allow_local_network;    /* --allow-local-network */
	bool has_env_inherit;
	confine_env_inherit env_inherit; /* --env-inherit all|none */
	const char **env_include;    /* --env-include PAT */
	const char **env_exclude;    /* --env-exclude PAT */
	const char **env_set;        /* --env-set NAME=VALUE */
	bool no_default_env_excludes; /* --no-default-env-excludes */
	bool require_full;           /* --require-full */
	const char *stage;           /* --stage DIR (run, bash), as given */
	const char *cwd;             /* --cwd DIR (run, bash), as given; NULL: the root */
	const char *ask_host;        /* --ask-host COMMAND (run, bash) */
	/* --max-pids N, --max-memory SIZE, ... (the flags are the library's
	 * limit table's, confine_limit_flag): the value as given, judged by
	 * the library when the policy is built; NULL: absent. */
	const char *limits[CONFINE_LIMIT_COUNT];

	/* For CLI_ACTION_USAGE_ERROR: one line naming the problem, without the
	 * "confine: " prefix and without the help pointer. */
	char error[CLI_ERROR_MAX];
	/* The error is a policy value the library refused (a -m, --network,
	 * --env-* value): INVALID_POLICY, as the same value is from a config
	 * file or a binding (doc/SPEC.md 16); else USAGE. */
	bool error_is_policy;
	/* The error is a provider setting the library refused (a --runner
	 * word): INVALID_CONFIG, as from a binding (doc/SPEC.md 16). */
	bool error_is_config;
} cli_args;

/* Parses argv[0..argc) (argv[0] is the program name and is ignored; argv
 * must be NULL-terminated at argc, as main's is). Always fills `ret`
 * (release it with cli_args_clear(), also after a usage error); returns 0
 * when the action is not a usage error, -EINVAL when it is. */
int cli_args_parse(int argc, char *const *argv, cli_args *ret);

/* Frees the lists of the policy options. Accepts NULL. */
void cli_args_clear(cli_args *args);

/* The word naming a command ("run"...), NULL for CLI_COMMAND_NONE. */
const char *cli_command_name(cli_command command);

/* The help text of `command` (CLI_COMMAND_NONE: the global help). Static. */
const char *cli_help_text(cli_command command);

/* The line that points a user at the right help after a usage error:
 * "Try 'confine run --help' for more information." Static per command. */
const char *cli_help_hint(cli_command command);

#endif
