/* SPDX-License-Identifier: MIT */
/* The confine command line: subcommands and options. Parsing only; main.c
 * acts on the result, help.c holds the help texts. getopt(3) is not used:
 * it keeps global state, permutes arguments and prints its own messages,
 * and the `--` that ends confine's options must stay where the user put
 * it. The options of a run are the rows of the table of options
 * (src/common/options.def); the ones below it are the command line's own. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "args.h"
#include "export/export.h"
#include "option-rows.h"

typedef enum option_id {
#define CONFINE_OPTION(id, ...) OPT_##id,
#include "options.def"
#undef CONFINE_OPTION
	/* the command line's own */
	OPT_HELP,
	OPT_CONFIG,
	OPT_JSON,
	OPT_COMMAND,
	OPT_MAX_BYTES,
	OPT_BUNDLE,
	OPT_RUNTIME,
	OPT_KIND,
	OPT_RUNTIME_CLASS,
	OPT_IMAGE,
} option_id;

typedef struct option_spec {
	option_id id;
	char short_name;        /* 0: none */
	const char *flag;       /* "--mode"; NULL: none */
	const char *value_name; /* NULL: takes no value; else as the help says it */
	unsigned commands;      /* CMD() bits */
	const char *type;       /* the table's type; NULL: the command line's own */
} option_spec;

static const option_spec option_table[] = {
#define CONFINE_OPTION(id, key, short_name, flag, value, python, node, type, choices, min, max, \
                       length, dflt, spec, commands)                                            \
	{ OPT_##id, short_name, flag, value, commands, type },
#include "options.def"
#undef CONFINE_OPTION
	{ OPT_HELP, 'h', "--help", NULL, ON_POLICY | ON_PROVIDER | CMD(NONE) | CMD(OPTIONS), NULL },
	{ OPT_CONFIG, 0, "--config", "FILE", ON_POLICY | ON_PROVIDER, NULL },
	{ OPT_JSON, 0, "--json", NULL, CMD(RUN) | CMD(BASH) | CMD(PROBE) | CMD(FS) | CMD(EXPORT) |
	                                  CMD(OPTIONS), NULL },
	{ OPT_COMMAND, 'c', NULL, "COMMAND", CMD(BASH), NULL },
	{ OPT_MAX_BYTES, 0, "--max-bytes", "N", CMD(FS), NULL },
	{ OPT_BUNDLE, 0, "--bundle", "DIR", CMD(EXPORT), NULL },
	{ OPT_RUNTIME, 0, "--runtime", "runc|crun|runsc", CMD(EXPORT), NULL },
	{ OPT_KIND, 0, "--kind", "Pod|SandboxTemplate", CMD(EXPORT), NULL },
	{ OPT_RUNTIME_CLASS, 0, "--runtime-class", "NAME", CMD(EXPORT), NULL },
	{ OPT_IMAGE, 0, "--image", "IMAGE", CMD(EXPORT), NULL },
};

/* Which options each subcommand accepts (SPEC 10's synopsis). */
static bool command_accepts(cli_command command, const option_spec *spec) {
	return (spec->commands & (1u << command)) != 0;
}

static int usage_error(cli_args *args, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int usage_error(cli_args *args, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args->error, sizeof args->error, fmt, ap);
	va_end(ap);
	args->action = CLI_ACTION_USAGE_ERROR;
	return -EINVAL;
}

/* A value the library refused for the policy: the same text, and
 * INVALID_POLICY rather than USAGE (cli_args.error_is_policy). */
static int policy_value_error(cli_args *args, const char *shown, const confine_error *err) {
	usage_error(args, "invalid %s: %s", shown, err->message);
	args->error_is_policy = true;
	return -EINVAL;
}

/* A provider setting the library refused (--runner): INVALID_CONFIG, as
 * from a config file or a binding. */
static int config_value_error(cli_args *args, const char *shown, const confine_error *err) {
	usage_error(args, "invalid %s: %s", shown, err->message);
	args->error_is_config = true;
	return -EINVAL;
}

/* "confine run", or "confine" at the top level: used in messages. */
static const char *command_label(cli_command command) {
	switch (command) {
	case CLI_COMMAND_NONE: return "confine";
	case CLI_COMMAND_RUN: return "confine run";
	case CLI_COMMAND_BASH: return "confine bash";
	case CLI_COMMAND_WRAP: return "confine wrap";
	case CLI_COMMAND_PROBE: return "confine probe";
	case CLI_COMMAND_FS: return "confine fs";
	case CLI_COMMAND_EXPORT: return "confine export";
	case CLI_COMMAND_OPTIONS: return "confine options";
	}
	return "confine";
}

/* A whole number of milliseconds in [1, CONFINE_MAX_TIMEOUT_MS], digits
 * only: no sign, no spaces, no suffix, so a typo never becomes a bound.
 * NULL when it is one; else why not, in the words every door uses for
 * the timeout (doc/SPEC.md 16, "One text per refusal"): a bound passed or
 * a fraction of a millisecond (refused, never rounded), or NULL in *why
 * for text that is no number at all. */
#define CONFINE_STRINGIFY_(x) #x
#define CONFINE_STRINGIFY(x) CONFINE_STRINGIFY_(x)
static bool parse_timeout(const char *text, unsigned *ret, const char **why) {
	unsigned long value = 0;
	bool past = false;
	const char *p = text;
	*why = NULL;
	if (!text[0])
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		value = value * 10 + (unsigned long)(*p - '0');
		if (value > CONFINE_MAX_TIMEOUT_MS) {
			past = true;
			value = CONFINE_MAX_TIMEOUT_MS + 1;
		}
	}
	if (*p == '.' && p > text && p[1]) {
		bool fraction = false;
		for (const char *q = p + 1; *q; q++) {
			if (*q < '0' || *q > '9')
				return false;
			fraction |= *q != '0';
		}
		if (fraction)
			*why = "is not a whole number of milliseconds";
		return false;
	}
	if (*p)
		return false;
	if (past || value == 0) {
		/* the bound's number written once, as the header's */
		*why = past ? "exceeds the maximum of " CONFINE_STRINGIFY(CONFINE_MAX_TIMEOUT_MS) " ms"
		            : "is below the minimum of 1 ms";
		return false;
	}
	*ret = (unsigned)value;
	return true;
}

/* Appends `value` (a pointer into argv) to a NULL-terminated list. */
static int push_value(cli_args *args, const char ***list, const char *value) {
	size_t n = 0;
	const char **grown;
	while (*list && (*list)[n])
		n++;
	grown = realloc(*list, (n + 2) * sizeof *grown);
	if (!grown)
		return usage_error(args, "out of memory");
	grown[n] = value;
	grown[n + 1] = NULL;
	*list = grown;
	return 0;
}

/* An empty path is the library's to refuse, in its words, as at every
 * door (doc/SPEC.md 16, "One text per refusal"). */
static int push_path(cli_args *args, const char ***list, const char *shown, const char *value) {
	(void)shown;
	return push_value(args, list, value);
}

/* An env pattern or assignment, checked with the library's rules and
 * words (a scratch policy is the public way to reach them). */
static int push_env(cli_args *args, option_id id, const char ***list, const char *shown,
                    const char *value) {
	confine_policy scratch;
	confine_error err;
	int r;
	memset(&scratch, 0, sizeof scratch);
	r = id == OPT_ENV_INCLUDE   ? confine_policy_add_env_include(&scratch, value, &err)
	    : id == OPT_ENV_EXCLUDE ? confine_policy_add_env_exclude(&scratch, value, &err)
	                            : confine_policy_add_env_set(&scratch, value, &err);
	confine_strv_free(scratch.env.include);
	confine_strv_free(scratch.env.exclude);
	confine_strv_free(scratch.env.set);
	if (r < 0)
		return policy_value_error(args, shown, &err);
	return push_value(args, list, value);
}

void cli_args_clear(cli_args *args) {
	if (!args)
		return;
	free(args->writable);
	free(args->protect);
	free(args->unprotect);
	args->unprotect = NULL;
	free(args->deny_read);
	free(args->allow_unix_sockets);
	free(args->allow_hosts);
	free(args->deny_hosts);
	args->allow_hosts = args->deny_hosts = NULL;
	free(args->env_include);
	free(args->env_exclude);
	free(args->env_set);
	args->writable = args->protect = args->deny_read = args->allow_unix_sockets = NULL;
	args->env_include = args->env_exclude = args->env_set = NULL;
}

/* A value of a row whose type is text (a word, a host, a pattern, a name):
 * bytes that are not UTF-8 are USAGE, as from a binding (doc/SPEC.md 16). */
static bool text_type(const char *type) {
	return type && (strcmp(type, "enum") == 0 || strcmp(type, "host-list") == 0 ||
	                strcmp(type, "pattern-list") == 0);
}

static bool is_utf8(const char *value) {
	json_t *s = json_string(value); /* NULL: not UTF-8 */
	json_decref(s);
	return s != NULL;
}

/* Stores one option's value (or flag) into `args`. */
static int apply_option(cli_args *args, const option_spec *spec, const char *shown,
                        const char *value) {
	confine_error err;
	const char *why;
	if (value && text_type(spec->type) && !is_utf8(value))
		return usage_error(args, "invalid %s: \"%s\" is not valid UTF-8 text", shown, value);
	switch (spec->id) {
	case OPT_HELP:
		args->action = CLI_ACTION_HELP;
		return 0;
	case OPT_MODE:
		if (confine_mode_parse(value, &args->mode, &err) < 0)
			return policy_value_error(args, shown, &err);
		args->has_mode = true;
		return 0;
	case OPT_WORKSPACE:
		/* Kept as given: an empty or missing root is the policy's error,
		 * reported with the library's own message. */
		args->workspace = value;
		return 0;
	case OPT_RUNNER:
		/* A provider setting's word: INVALID_CONFIG, as from a binding
		 * (doc/SPEC.md 16). */
		if (confine_runner_parse(value, &args->runner, &err) < 0)
			return config_value_error(args, shown, &err);
		args->has_runner = true;
		return 0;
	case OPT_CONFIG:
		if (!value[0])
			return usage_error(args, "option '%s' requires a file name, got an empty string",
			                   shown);
		args->config = value;
		return 0;
	case OPT_JSON:
		args->json = true;
		return 0;
	case OPT_TIMEOUT:
		if (!parse_timeout(value, &args->timeout_ms, &why)) {
			if (why)
				return usage_error(args, "%s \"%s\": timeout %s ms %s", shown, value, value,
				                   why);
			return usage_error(args,
			                   "invalid %s \"%s\": expected a whole number of milliseconds "
			                   "from 1 to %u",
			                   shown, value, (unsigned)CONFINE_MAX_TIMEOUT_MS);
		}
		args->has_timeout = true;
		return 0;
	case OPT_BUNDLE:
		if (!value[0])
			return usage_error(args, "option '%s' requires a directory, got an empty string",
			                   shown);
		args->bundle = value;
		return 0;
	case OPT_RUNTIME:
		if (strcmp(value, "runc") != 0 && strcmp(value, "crun") != 0 &&
		    strcmp(value, "runsc") != 0)
			return usage_error(args, "invalid %s \"%s\": expected runc, crun or runsc", shown,
			                   value);
		args->oci_runtime = value;
		return 0;
	case OPT_KIND:
		if (strcmp(value, "Pod") != 0 && strcmp(value, "SandboxTemplate") != 0)
			return usage_error(args, "invalid %s \"%s\": expected Pod or SandboxTemplate", shown,
			                   value);
		args->k8s_kind = value;
		return 0;
	case OPT_RUNTIME_CLASS:
	case OPT_IMAGE: {
		char refused[256];
		bool image = spec->id == OPT_IMAGE;
		if (cli_export_value_refused(image, value, refused, sizeof refused))
			return usage_error(args, "invalid %s %s", shown, refused);
		*(image ? &args->k8s_image : &args->k8s_runtime_class) = value;
		return 0;
	}
	case OPT_MAX_BYTES: {
		char *end = NULL;
		errno = 0;
		args->max_bytes = strtoull(value, &end, 10);
		if (errno || !value[0] || *end || value[0] == '-' || args->max_bytes == 0)
			return usage_error(args, "invalid %s \"%s\": expected a whole number of bytes, 1 or more",
			                   shown, value);
		args->has_max_bytes = true;
		return 0;
	}
	case OPT_COMMAND:
		/* A second -c would silently drop the first command. */
		if (args->bash_command)
			return usage_error(args,
			                   "option '%s' is given twice: confine bash runs one COMMAND "
			                   "(join commands with ';' or '&&' in one -c)",
			                   shown);
		args->bash_command = value;
		return 0;
	case OPT_WRITABLE:
		args->has_policy_options = true;
		return push_path(args, &args->writable, shown, value);
	case OPT_PROTECT:
		args->has_policy_options = true;
		return push_path(args, &args->protect, shown, value);
	case OPT_UNPROTECT:
		args->has_policy_options = true;
		return push_value(args, &args->unprotect, value);
	case OPT_NO_DEFAULT_PROTECTIONS:
		args->has_policy_options = true;
		args->no_default_protections = true;
		return 0;
	case OPT_DENY_READ:
		args->has_policy_options = true;
		return push_path(args, &args->deny_read, shown, value);
	case OPT_NETWORK:
		args->has_policy_options = true;
		if (confine_network_parse(value, &args->network, &err) < 0)
			return policy_value_error(args, shown, &err);
		args->has_network = true;
		return 0;
	case OPT_ALLOW_UNIX_SOCKET:
		args->has_policy_options = true;
		return push_path(args, &args->allow_unix_sockets, shown, value);
	case OPT_ALLOW_HOST:
	case OPT_DENY_HOST:
		args->has_policy_options = true;
		/* Checked by the library when the policy is built: INVALID_POLICY
		 * naming the flag and the value. */
		return push_value(args, spec->id == OPT_ALLOW_HOST ? &args->allow_hosts : &args->deny_hosts,
		                  value);
	case OPT_ALLOW_LOCAL_NETWORK:
		args->has_policy_options = true;
		args->allow_local_network = true;
		return 0;
	case OPT_ENV_INHERIT:
		args->has_policy_options = true;
		if (confine_env_inherit_parse(value, &args->env_inherit, &err) < 0)
			return policy_value_error(args, shown, &err);
		args->has_env_inherit = true;
		return 0;
	case OPT_ENV_INCLUDE:
		args->has_policy_options = true;
		return push_env(args, spec->id, &args->env_include, shown, value);
	case OPT_ENV_EXCLUDE:
		args->has_policy_options = true;
		return push_env(args, spec->id, &args->env_exclude, shown, value);
	case OPT_ENV_SET:
		args->has_policy_options = true;
		return push_env(args, spec->id, &args->env_set, shown, value);
	case OPT_NO_DEFAULT_ENV_EXCLUDES:
		args->has_policy_options = true;
		args->no_default_env_excludes = true;
		return 0;
	case OPT_REQUIRE_FULL:
		args->has_policy_options = true;
		args->require_full = true;
		return 0;
	case OPT_STAGE:
		if (!value[0])
			return usage_error(args, "%s needs a directory", shown);
		args->stage = value;
		return 0;
	case OPT_ASK_HOST:
		if (!value[0])
			return usage_error(args, "option '%s' requires a command, got an empty string",
			                   shown);
		if (args->ask_host)
			return usage_error(args, "option '%s' is given twice: one decider per run", shown);
		args->has_policy_options = true;
		args->ask_host = value;
		return 0;
#define CONFINE_LIMIT(id, limit, ...)                                      \
	case OPT_##id:                                                     \
		args->has_policy_options = true;                           \
		/* The last one given wins, as for a scalar option. */      \
		args->limits[limit] = value;                               \
		return 0;
#define CONFINE_OPTION(...)
#include "options.def"
#undef CONFINE_OPTION
#undef CONFINE_LIMIT
	case OPT_CWD:
		if (!value[0])
			return usage_error(args, "%s needs a directory", shown);
		args->cwd = value;
		return 0;
	/* Options of the bindings alone (options.def: no flag). */
	case OPT_MAX_OUTPUT:
	case OPT_RUNNER_COMMAND:
	case OPT_RUNNER_FAILURE_SIGNATURES:
	case OPT_PROBE_TIMEOUT:
	case OPT_LANDLOCK_LAUNCHER:
		break;
	}
	return usage_error(args, "internal error: unhandled option %s", shown);
}

static const option_spec *find_long(const char *name, size_t len) {
	for (size_t i = 0; i < sizeof option_table / sizeof option_table[0]; i++) {
		const char *flag = option_table[i].flag;
		if (flag && strlen(flag) == len + 2 && strncmp(flag + 2, name, len) == 0)
			return &option_table[i];
	}
	return NULL;
}

static const option_spec *find_short(char name) {
	for (size_t i = 0; i < sizeof option_table / sizeof option_table[0]; i++)
		if (option_table[i].short_name && option_table[i].short_name == name)
			return &option_table[i];
	return NULL;
}

/* Parses the options of a subcommand from argv[*index]; stops after `--`
 * (run, wrap) with the program's argv recorded, or at the end. */
/* Long on purpose: a flat list of options, one short branch each. */
static int parse_command_options(int argc, char *const *argv, int index, cli_args *args) {
	cli_command command = args->command;
	bool saw_separator = false;

	while (index < argc) {
		const char *arg = argv[index++];
		const option_spec *spec;
		const char *value = NULL;
		char shown[64];

		if (strcmp(arg, "--") == 0) {
			if (command != CLI_COMMAND_RUN && command != CLI_COMMAND_WRAP &&
			    command != CLI_COMMAND_EXPORT)
				return usage_error(args,
				                   "%s takes no '-- PROGRAM'%s", command_label(command),
				                   command == CLI_COMMAND_BASH
				                           ? "; give the command with -c COMMAND"
				                           : "");
			saw_separator = true;
			args->program_argv = argv + index;
			args->program_argc = (size_t)(argc - index);
			break;
		}
		if (arg[0] != '-' || arg[1] == '\0') {
			/* A positional argument before `--`. */
			switch (command) {
			case CLI_COMMAND_RUN:
			case CLI_COMMAND_WRAP:
			case CLI_COMMAND_EXPORT:
				return usage_error(args,
				                   "missing '--' before the command: write '%s [OPTION...] "
				                   "-- %s ...'",
				                   command_label(command), arg);
			case CLI_COMMAND_BASH:
				return usage_error(args,
				                   "unexpected argument '%s'; give the command with -c COMMAND",
				                   arg);
			case CLI_COMMAND_FS:
				/* OP, then one or two paths. */
				if (!args->fs_op) {
					args->fs_op = arg;
					continue;
				}
				if (args->fs_n_paths < 2) {
					args->fs_paths[args->fs_n_paths++] = arg;
					continue;
				}
				return usage_error(args, "unexpected argument '%s': %s %s takes at most two paths",
				                   arg, command_label(command), args->fs_op);
			case CLI_COMMAND_NONE:
			case CLI_COMMAND_PROBE:
			case CLI_COMMAND_OPTIONS:
				break;
			}
			return usage_error(args, "unexpected argument '%s'", arg);
		}

		if (arg[1] == '-') {
			/* --name or --name=value */
			const char *name = arg + 2;
			const char *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			spec = find_long(name, len);
			snprintf(shown, sizeof shown, "--%.*s", (int)(len < 40 ? len : 40), name);
			if (!spec || !command_accepts(command, spec))
				return usage_error(args, "unknown option '%s' for '%s'", shown,
				                   command_label(command));
			if (eq) {
				if (!spec->value_name)
					return usage_error(args, "option '%s' takes no value", shown);
				value = eq + 1;
			}
		} else {
			/* -x or -xVALUE */
			spec = find_short(arg[1]);
			snprintf(shown, sizeof shown, "-%c", arg[1]);
			if (!spec || !command_accepts(command, spec))
				return usage_error(args, "unknown option '%s' for '%s'", arg,
				                   command_label(command));
			if (arg[2] != '\0') {
				if (!spec->value_name)
					return usage_error(args, "unknown option '%s' for '%s'", arg,
					                   command_label(command));
				value = arg + 2;
			}
		}
		if (spec->value_name && !value) {
			if (index >= argc)
				return usage_error(args, "option '%s' requires a value", shown);
			/* `--config -- true`: the value is missing, not the `--`. */
			if (strcmp(argv[index], "--") == 0)
				return usage_error(args,
				                   "option '%s' is missing its %s: the '--' after it ends "
				                   "confine's options and cannot be a value",
				                   shown, spec->value_name);
			value = argv[index++];
		}
		if (apply_option(args, spec, shown, value) < 0)
			return -EINVAL;
		if (args->action == CLI_ACTION_HELP)
			return 0; /* --help wins over whatever follows */
	}

	switch (command) {
	case CLI_COMMAND_RUN:
	case CLI_COMMAND_WRAP:
	case CLI_COMMAND_EXPORT:
		if (command == CLI_COMMAND_EXPORT && !args->bundle)
			return usage_error(args, "missing --bundle DIR: confine export writes a directory");
		if (command == CLI_COMMAND_EXPORT && args->oci_runtime &&
		    strcmp(args->export_target ? args->export_target : "", "oci") != 0)
			return usage_error(args, "--runtime is for confine export oci");
		if (command == CLI_COMMAND_EXPORT && args->k8s_kind &&
		    strcmp(args->export_target ? args->export_target : "", "k8s") != 0)
			return usage_error(args, "--kind is for confine export k8s");
		if (command == CLI_COMMAND_EXPORT && (args->k8s_runtime_class || args->k8s_image) &&
		    strcmp(args->export_target ? args->export_target : "", "k8s") != 0)
			return usage_error(args, "%s is for confine export k8s",
			                   args->k8s_runtime_class ? "--runtime-class" : "--image");
		if (!saw_separator)
			return usage_error(args, "missing '-- PROGRAM [ARG...]': %s needs a command after '--'",
			                   command_label(command));
		if (args->program_argc == 0)
			return usage_error(args, "missing PROGRAM after '--'");
		if (args->program_argv[0][0] == '\0')
			return usage_error(args, "PROGRAM after '--' is an empty string");
		break;
	case CLI_COMMAND_BASH:
		if (!args->bash_command)
			return usage_error(args, "missing -c COMMAND");
		if (args->bash_command[0] == '\0')
			return usage_error(args, "-c COMMAND is an empty string");
		break;
	case CLI_COMMAND_FS: {
		static const char *const ops[] = { "read", "write", "append", "list", "stat",
			                           "mkdir", "remove", "rename" };
		size_t want = 1;
		bool known = false;
		if (!args->fs_op)
			return usage_error(args, "missing OPERATION: read, write, append, list, stat, mkdir, "
			                         "remove or rename");
		for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
			known |= strcmp(args->fs_op, ops[i]) == 0;
		if (!known)
			return usage_error(args, "unknown operation '%s' (read, write, append, list, stat, "
			                         "mkdir, remove or rename)",
			                   args->fs_op);
		if (strcmp(args->fs_op, "rename") == 0)
			want = 2;
		if (args->fs_n_paths != want)
			return usage_error(args, "%s %s takes %s", command_label(command), args->fs_op,
			                   want == 2 ? "two paths: FROM TO" : "one PATH");
		for (size_t i = 0; i < args->fs_n_paths; i++)
			if (!args->fs_paths[i][0])
				return usage_error(args, "PATH is an empty string");
		if (args->has_max_bytes && strcmp(args->fs_op, "read") != 0)
			return usage_error(args, "--max-bytes is for fs read");
		break;
	}
	case CLI_COMMAND_NONE:
	case CLI_COMMAND_PROBE:
	case CLI_COMMAND_OPTIONS:
		break;
	}
	return 0;
}

/* Whether `--json` is one of the options argv[index..) (before any `--`),
 * stepping over the values of options that take one. For a usage error,
 * where parsing stopped before reaching it. */
static bool json_requested(int argc, char *const *argv, int index) {
	while (index < argc) {
		const char *arg = argv[index++];
		const option_spec *spec = NULL;
		if (strcmp(arg, "--") == 0)
			return false;
		if (strcmp(arg, "--json") == 0)
			return true;
		if (arg[0] != '-' || arg[1] == '\0')
			continue;
		if (arg[1] == '-') {
			if (!strchr(arg, '='))
				spec = find_long(arg + 2, strlen(arg + 2));
		} else if (arg[2] == '\0') {
			spec = find_short(arg[1]);
		}
		if (spec && spec->value_name && index < argc && strcmp(argv[index], "--") != 0)
			index++; /* its value, whatever it looks like but `--` */
	}
	return false;
}

int cli_args_parse(int argc, char *const *argv, cli_args *ret) {
	static const struct {
		const char *name;
		cli_command command;
	} commands[] = {
		{"run", CLI_COMMAND_RUN},
		{"bash", CLI_COMMAND_BASH},
		{"wrap", CLI_COMMAND_WRAP},
		{"probe", CLI_COMMAND_PROBE},
		{"fs", CLI_COMMAND_FS},
		{"export", CLI_COMMAND_EXPORT},
		{"options", CLI_COMMAND_OPTIONS},
	};
	const char *first;

	memset(ret, 0, sizeof *ret);
	ret->action = CLI_ACTION_EXECUTE;
	ret->command = CLI_COMMAND_NONE;

	if (argc < 2 || !argv[1])
		return usage_error(ret, "missing command (run, bash, wrap, probe or fs)");
	first = argv[1];
	if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
		ret->action = CLI_ACTION_HELP;
		return 0;
	}
	if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
		ret->action = CLI_ACTION_VERSION;
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(first, commands[i].name) == 0) {
			int r, at = 2;
			ret->command = commands[i].command;
			/* export's target word comes first: `confine export oci ...`. */
			if (ret->command == CLI_COMMAND_EXPORT &&
			    (argc <= 2 || (argv[2][0] == '-' && strcmp(argv[2], "--help") != 0 &&
			                   strcmp(argv[2], "-h") != 0))) {
				ret->json = json_requested(argc, argv, 2);
				return usage_error(ret, "missing export target: write 'confine export oci' or "
				                        "'confine export k8s'");
			}
			if (ret->command == CLI_COMMAND_EXPORT && argv[2][0] != '-') {
				export_target target;
				if (export_target_parse(argv[2], &target) < 0) {
					ret->json = json_requested(argc, argv, 3);
					return usage_error(ret, "unknown export target '%s' (expected oci or k8s)",
					                   argv[2]);
				}
				ret->export_target = argv[2];
				at = 3;
			}
			r = parse_command_options(argc, argv, at, ret);
			/* A program that asked for JSON gets its usage error as JSON
			 * too, wherever the --json stood among the options. */
			if (r < 0 && !ret->json && command_accepts(ret->command, find_long("json", 4)))
				ret->json = json_requested(argc, argv, 2);
			return r;
		}
	if (first[0] == '-')
		return usage_error(ret, "unknown option '%s' (a command comes first: run, bash, "
		                        "wrap or probe)",
		                   first);
	return usage_error(ret, "unknown command '%s' (expected run, bash, wrap or probe)", first);
}
