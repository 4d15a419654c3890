/* SPDX-License-Identifier: MIT */
/* The confine command line parser (src/cli/args.c), apart from main(). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "args.h"

#define MAX_ARGS 40

/* Room for "confine", MAX_ARGS words and the NULL terminator. */
#define ARGV_SLOTS (MAX_ARGS + 2)

/* Parses a NULL-terminated list of words after the program name. The parser
 * keeps pointers into argv (program_argv is argv + index), so the caller owns
 * the argv storage and it must outlive every use of *args: a local array here
 * would leave program_argv pointing into a dead stack frame. */
static int parse_words(cli_args *args, char *argv[ARGV_SLOTS], const char *const *words) {
	int argc = 0;
	argv[argc++] = (char *)"confine";
	for (size_t i = 0; words[i]; i++) {
		assert_true(argc < MAX_ARGS + 1);
		argv[argc++] = (char *)words[i];
	}
	argv[argc] = NULL;
	return cli_args_parse(argc, argv, args);
}

#define W(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ---- usage errors: one line naming the problem ---- */

typedef struct error_case {
	const char *const *words;
	cli_command command;      /* the command the error belongs to */
	const char *message_part; /* a substring the message must contain */
} error_case;

static void test_usage_errors(void **state) {
	const error_case cases[] = {
		{ (const char *const[]){NULL}, CLI_COMMAND_NONE, "missing command" },
		{ W("frob"), CLI_COMMAND_NONE, "unknown command 'frob'" },
		{ W("--frob"), CLI_COMMAND_NONE, "unknown option '--frob'" },
		{ W("--config", "c.json", "run", "--", "ls"), CLI_COMMAND_NONE, "unknown option '--config'" },
		{ W("run"), CLI_COMMAND_RUN, "missing '-- PROGRAM [ARG...]'" },
		{ W("run", "ls"), CLI_COMMAND_RUN, "missing '--' before the command" },
		{ W("wrap", "-m", "read-only", "ls", "-l"), CLI_COMMAND_WRAP, "missing '--' before the command" },
		{ W("run", "--"), CLI_COMMAND_RUN, "missing PROGRAM after '--'" },
		{ W("run", "--", ""), CLI_COMMAND_RUN, "PROGRAM after '--' is an empty string" },
		{ W("run", "--frob", "--", "ls"), CLI_COMMAND_RUN, "unknown option '--frob' for 'confine run'" },
		{ W("run", "-x", "--", "ls"), CLI_COMMAND_RUN, "unknown option '-x' for 'confine run'" },
		{ W("wrap", "--json", "--", "ls"), CLI_COMMAND_WRAP, "unknown option '--json' for 'confine wrap'" },
		{ W("wrap", "--timeout", "5", "--", "ls"), CLI_COMMAND_WRAP, "unknown option '--timeout' for 'confine wrap'" },
		{ W("probe", "-m", "read-only"), CLI_COMMAND_PROBE, "unknown option '-m' for 'confine probe'" },
		{ W("export"), CLI_COMMAND_EXPORT, "missing export target" },
		{ W("export", "docker", "--bundle", "b", "--", "ls"), CLI_COMMAND_EXPORT, "unknown export target 'docker' (expected oci or k8s)" },
		{ W("export", "--bundle", "b", "--", "ls"), CLI_COMMAND_EXPORT, "missing export target" },
		{ W("export", "oci", "--", "ls"), CLI_COMMAND_EXPORT, "missing --bundle DIR" },
		{ W("export", "oci", "--bundle", "", "--", "ls"), CLI_COMMAND_EXPORT, "option '--bundle' requires a directory" },
		{ W("export", "oci", "--bundle", "b", "ls"), CLI_COMMAND_EXPORT, "missing '--' before the command" },
		{ W("export", "oci", "--bundle", "b"), CLI_COMMAND_EXPORT, "missing '-- PROGRAM [ARG...]'" },
		{ W("export", "oci", "--bundle", "b", "--runner", "bwrap", "--", "ls"), CLI_COMMAND_EXPORT, "unknown option '--runner' for 'confine export'" },
		{ W("export", "oci", "--bundle", "b", "--runtime", "kata", "--", "ls"), CLI_COMMAND_EXPORT, "invalid --runtime \"kata\": expected runc, crun or runsc" },
		{ W("export", "k8s", "--bundle", "b", "--runtime", "runsc", "--", "ls"), CLI_COMMAND_EXPORT, "--runtime is for confine export oci" },
		{ W("run", "--bundle", "b", "--", "ls"), CLI_COMMAND_RUN, "unknown option '--bundle' for 'confine run'" },
		{ W("fs"), CLI_COMMAND_FS, "missing OPERATION" },
		{ W("fs", "frob", "x"), CLI_COMMAND_FS, "unknown operation 'frob'" },
		{ W("fs", "read"), CLI_COMMAND_FS, "confine fs read takes one PATH" },
		{ W("fs", "rename", "a"), CLI_COMMAND_FS, "confine fs rename takes two paths: FROM TO" },
		{ W("fs", "read", "a", "b", "c"), CLI_COMMAND_FS, "unexpected argument 'c'" },
		{ W("fs", "write", "--max-bytes", "5", "x"), CLI_COMMAND_FS, "--max-bytes is for fs read" },
		{ W("fs", "read", "--max-bytes", "0", "x"), CLI_COMMAND_FS, "invalid --max-bytes \"0\"" },
		{ W("fs", "--runner", "bwrap", "read", "x"), CLI_COMMAND_FS, "unknown option '--runner' for 'confine fs'" },
		{ W("fs", "read", ""), CLI_COMMAND_FS, "PATH is an empty string" },
		{ W("probe", "-w", "/tmp"), CLI_COMMAND_PROBE, "unknown option '-w' for 'confine probe'" },
		{ W("probe", "extra"), CLI_COMMAND_PROBE, "unexpected argument 'extra'" },
		{ W("probe", "--", "ls"), CLI_COMMAND_PROBE, "takes no '-- PROGRAM'" },
		{ W("run", "-m"), CLI_COMMAND_RUN, "option '-m' requires a value" },
		{ W("run", "--mode"), CLI_COMMAND_RUN, "option '--mode' requires a value" },
		{ W("run", "-m", "bogus", "--", "ls"), CLI_COMMAND_RUN, "unknown sandbox mode \"bogus\"" },
		{ W("run", "--mode=", "--", "ls"), CLI_COMMAND_RUN, "unknown sandbox mode \"\"" },
		{ W("run", "--runner", "podman", "--", "ls"), CLI_COMMAND_RUN, "unknown runner \"podman\"" },
		{ W("run", "--runner", "runnerCommand", "--", "ls"), CLI_COMMAND_RUN, "unknown runner \"runnerCommand\"" },
		{ W("run", "--config", "", "--", "ls"), CLI_COMMAND_RUN, "option '--config' requires a file name" },
		{ W("run", "--help=yes"), CLI_COMMAND_RUN, "option '--help' takes no value" },
		{ W("bash"), CLI_COMMAND_BASH, "missing -c COMMAND" },
		{ W("bash", "-c"), CLI_COMMAND_BASH, "option '-c' requires a value" },
		{ W("bash", "-c", ""), CLI_COMMAND_BASH, "-c COMMAND is an empty string" },
		{ W("bash", "echo hi"), CLI_COMMAND_BASH, "unexpected argument 'echo hi'; give the command with -c" },
		{ W("bash", "--", "echo"), CLI_COMMAND_BASH, "give the command with -c COMMAND" },
		{ W("bash", "--json=1", "-c", "x"), CLI_COMMAND_BASH, "option '--json' takes no value" },
		{ W("bash", "--timeout", "0", "-c", "x"), CLI_COMMAND_BASH, "--timeout \"0\": timeout 0 ms is below the minimum of 1 ms" },
		{ W("bash", "--timeout", "600001", "-c", "x"), CLI_COMMAND_BASH, "--timeout \"600001\": timeout 600001 ms exceeds the maximum of 600000 ms" },
		{ W("bash", "--timeout", "99999999999999999999", "-c", "x"), CLI_COMMAND_BASH, "timeout 99999999999999999999 ms exceeds the maximum of 600000 ms" },
		{ W("bash", "--timeout", "-5", "-c", "x"), CLI_COMMAND_BASH, "invalid --timeout \"-5\"" },
		{ W("bash", "--timeout", "+5", "-c", "x"), CLI_COMMAND_BASH, "invalid --timeout \"+5\"" },
		{ W("bash", "--timeout", "5s", "-c", "x"), CLI_COMMAND_BASH, "invalid --timeout \"5s\"" },
		{ W("bash", "--timeout", "", "-c", "x"), CLI_COMMAND_BASH, "invalid --timeout \"\"" },
		{ W("bash", "--timeout=1.5", "-c", "x"), CLI_COMMAND_BASH, "--timeout \"1.5\": timeout 1.5 ms is not a whole number of milliseconds" },
		{ W("bash", "--timeout=1.0", "-c", "x"), CLI_COMMAND_BASH, "invalid --timeout \"1.0\"" },
		{ W("bash", "--timeout=.5", "-c", "x"), CLI_COMMAND_BASH, "invalid --timeout \".5\"" },
		{ W("bash", "--timeout=1.", "-c", "x"), CLI_COMMAND_BASH, "invalid --timeout \"1.\"" },
		{ W("bash", "--timeout=1.5x", "-c", "x"), CLI_COMMAND_BASH, "invalid --timeout \"1.5x\"" },
		/* a value option right before `--` lacks its value: the message says
		 * so, not "missing '--'" (the `--` is never taken as the value) */
		{ W("run", "--config", "--", "true"), CLI_COMMAND_RUN,
		  "option '--config' is missing its FILE: the '--' after it ends confine's options and "
		  "cannot be a value" },
		{ W("wrap", "-m", "read-only", "-w", "--", "ls"), CLI_COMMAND_WRAP,
		  "option '-w' is missing its DIR: the '--' after it ends" },
		{ W("run", "--writable", "--", "ls"), CLI_COMMAND_RUN, "option '--writable' is missing its DIR" },
		{ W("bash", "-c", "--"), CLI_COMMAND_BASH, "option '-c' is missing its COMMAND" },
		{ W("probe", "--runner", "--"), CLI_COMMAND_PROBE, "option '--runner' is missing its NAME" },
		/* one COMMAND: a second -c would silently drop the first */
		{ W("bash", "-c", "echo a", "-c", "echo b"), CLI_COMMAND_BASH,
		  "option '-c' is given twice: confine bash runs one COMMAND (join commands with ';' or "
		  "'&&' in one -c)" },
		{ W("bash", "-cecho a", "--json", "-c", "echo a"), CLI_COMMAND_BASH, "option '-c' is given twice" },
		/* an error earlier on the line wins over a later --help */
		{ W("run", "-m", "bogus", "--help"), CLI_COMMAND_RUN, "unknown sandbox mode \"bogus\"" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cli_args args;
		char *argv[ARGV_SLOTS];
		int r = parse_words(&args, argv, cases[i].words);
		if (r != -EINVAL || args.action != CLI_ACTION_USAGE_ERROR ||
		    args.command != cases[i].command || !strstr(args.error, cases[i].message_part))
			fail_msg("case %zu: r=%d action=%d command=%d error=\"%s\", expected \"%s\"", i, r,
			         (int)args.action, (int)args.command, args.error, cases[i].message_part);
		/* One line: main adds the help pointer itself. */
		assert_null(strchr(args.error, '\n'));
	}
}

/* ---- help and version ---- */

static void test_help_and_version(void **state) {
	const struct {
		const char *const *words;
		cli_action action;
		cli_command command;
	} cases[] = {
		{ W("--help"), CLI_ACTION_HELP, CLI_COMMAND_NONE },
		{ W("-h"), CLI_ACTION_HELP, CLI_COMMAND_NONE },
		{ W("--version"), CLI_ACTION_VERSION, CLI_COMMAND_NONE },
		{ W("-V"), CLI_ACTION_VERSION, CLI_COMMAND_NONE },
		{ W("run", "--help"), CLI_ACTION_HELP, CLI_COMMAND_RUN },
		{ W("bash", "-h"), CLI_ACTION_HELP, CLI_COMMAND_BASH },
		{ W("wrap", "-m", "read-only", "--help"), CLI_ACTION_HELP, CLI_COMMAND_WRAP },
		{ W("probe", "--help"), CLI_ACTION_HELP, CLI_COMMAND_PROBE },
		/* --help wins over a missing -c or `--` after it */
		{ W("bash", "--help", "--frob"), CLI_ACTION_HELP, CLI_COMMAND_BASH },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cli_args args;
		char *argv[ARGV_SLOTS];
		assert_int_equal(parse_words(&args, argv, cases[i].words), 0);
		assert_int_equal(args.action, cases[i].action);
		assert_int_equal(args.command, cases[i].command);
	}
}

static void test_help_texts_name_their_synopsis(void **state) {
	(void)state;
	assert_non_null(strstr(cli_help_text(CLI_COMMAND_NONE), "Usage: confine COMMAND"));
	assert_non_null(strstr(cli_help_text(CLI_COMMAND_RUN), "Usage: confine run [-m MODE] [-w DIR] [--runner NAME] [--config FILE] [--json]\n"
	                                                         "                   [--timeout MS] [--cwd DIR] -- PROGRAM [ARG...]"));
	assert_non_null(strstr(cli_help_text(CLI_COMMAND_BASH), "Usage: confine bash [-m MODE] [-w DIR] [--runner NAME] [--config FILE] [--json]"));
	assert_non_null(strstr(cli_help_text(CLI_COMMAND_WRAP), "Usage: confine wrap [-m MODE] [-w DIR] [--runner NAME] [--config FILE] -- PROGRAM [ARG...]"));
	assert_non_null(strstr(cli_help_text(CLI_COMMAND_PROBE), "Usage: confine probe [--runner NAME] [--config FILE] [--json]"));
	assert_string_equal(cli_help_hint(CLI_COMMAND_NONE), "Try 'confine --help' for more information.");
	assert_string_equal(cli_help_hint(CLI_COMMAND_RUN), "Try 'confine run --help' for more information.");
	assert_string_equal(cli_help_hint(CLI_COMMAND_PROBE), "Try 'confine probe --help' for more information.");
	assert_string_equal(cli_command_name(CLI_COMMAND_WRAP), "wrap");
	assert_null(cli_command_name(CLI_COMMAND_NONE));
}

/* ---- accepted command lines ---- */

static void test_run_defaults(void **state) {
	cli_args args;
	char *argv[ARGV_SLOTS];
	(void)state;
	assert_int_equal(parse_words(&args, argv, W("run", "--", "ls", "-l")), 0);
	assert_int_equal(args.action, CLI_ACTION_EXECUTE);
	assert_int_equal(args.command, CLI_COMMAND_RUN);
	assert_false(args.has_mode);
	assert_null(args.workspace);
	assert_false(args.has_runner);
	assert_null(args.config);
	assert_false(args.json);
	assert_int_equal(args.program_argc, 2);
	assert_string_equal(args.program_argv[0], "ls");
	assert_string_equal(args.program_argv[1], "-l");
	assert_null(args.program_argv[2]);

	/* run --json (its object goes to stderr: output.c) */
	assert_int_equal(parse_words(&args, argv, W("run", "--json", "--", "ls")), 0);
	assert_true(args.json);
}

/* A usage error still knows the caller asked for JSON, wherever --json
 * stood among the options; a value that reads "--json" is not the flag. */
static void test_usage_error_keeps_json(void **state) {
	cli_args args;
	char *argv[ARGV_SLOTS];
	(void)state;
	assert_int_equal(parse_words(&args, argv, W("run", "--frob", "--json", "--", "ls")), -EINVAL);
	assert_true(args.json);
	assert_int_equal(parse_words(&args, argv, W("probe", "--runner", "podman", "--json")), -EINVAL);
	assert_true(args.json);
	assert_int_equal(parse_words(&args, argv, W("bash", "-m", "bogus", "-c", "--json")), -EINVAL);
	assert_false(args.json);
	assert_int_equal(parse_words(&args, argv, W("run", "--frob", "--", "--json")), -EINVAL);
	assert_false(args.json);
	/* wrap has no --json: it always prints JSON (output.c) */
	assert_int_equal(parse_words(&args, argv, W("wrap", "--frob", "--json", "--", "ls")), -EINVAL);
	assert_false(args.json);
}

static void test_run_all_options(void **state) {
	cli_args args;
	char *argv[ARGV_SLOTS];
	(void)state;
	assert_int_equal(parse_words(&args, argv, W("run", "-m", "workspace-write", "-w", "proj",
	                                            "--runner", "landlock", "--config", "c.json", "--",
	                                            "make", "test")),
	                 0);
	assert_true(args.has_mode);
	assert_int_equal(args.mode, CONFINE_MODE_WORKSPACE_WRITE);
	assert_string_equal(args.workspace, "proj");
	assert_true(args.has_runner);
	assert_int_equal(args.runner, CONFINE_RUNNER_LANDLOCK);
	assert_string_equal(args.config, "c.json");
	assert_int_equal(args.program_argc, 2);
	assert_string_equal(args.program_argv[0], "make");
}

static void test_option_spellings(void **state) {
	const char *const *const spellings[] = {
		W("wrap", "-m", "danger-full-access", "--", "x"),
		W("wrap", "-mdanger-full-access", "--", "x"),
		W("wrap", "--mode", "danger-full-access", "--", "x"),
		W("wrap", "--mode=danger-full-access", "--", "x"),
		/* the last occurrence wins, as with getopt */
		W("wrap", "-m", "read-only", "--mode=danger-full-access", "--", "x"),
	};
	(void)state;
	for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
		cli_args args;
		char *argv[ARGV_SLOTS];
		assert_int_equal(parse_words(&args, argv, spellings[i]), 0);
		assert_true(args.has_mode);
		assert_int_equal(args.mode, CONFINE_MODE_DANGER_FULL_ACCESS);
	}
}

static void test_words_after_separator_are_the_program(void **state) {
	cli_args args;
	char *argv[ARGV_SLOTS];
	(void)state;
	/* Options after `--` belong to the program, never to confine. */
	assert_int_equal(parse_words(&args, argv, W("run", "--", "prog", "-m", "bogus", "--help", "--")), 0);
	assert_int_equal(args.action, CLI_ACTION_EXECUTE);
	assert_false(args.has_mode);
	assert_int_equal(args.program_argc, 5);
	assert_string_equal(args.program_argv[1], "-m");
	assert_string_equal(args.program_argv[3], "--help");
	assert_string_equal(args.program_argv[4], "--");
}

static void test_bash_options(void **state) {
	cli_args args;
	char *argv[ARGV_SLOTS];
	(void)state;
	assert_int_equal(parse_words(&args, argv, W("bash", "--json", "--timeout", "600000", "-c",
	                                      "echo hi > x", "-w", "/tmp", "--runner=bwrap")),
	                 0);
	assert_int_equal(args.command, CLI_COMMAND_BASH);
	assert_true(args.json);
	assert_true(args.has_timeout);
	assert_int_equal(args.timeout_ms, 600000);
	assert_string_equal(args.bash_command, "echo hi > x");
	assert_string_equal(args.workspace, "/tmp");
	assert_int_equal(args.runner, CONFINE_RUNNER_BWRAP);
	assert_null(args.program_argv);

	assert_int_equal(parse_words(&args, argv, W("bash", "--timeout=1", "-cexit 3")), 0);
	assert_int_equal(args.timeout_ms, 1);
	assert_string_equal(args.bash_command, "exit 3");

	/* -c takes the next word whatever it looks like, as getopt does (but
	 * `--`, which ends the options: a usage error above) */
	assert_int_equal(parse_words(&args, argv, W("bash", "-c", "--json")), 0);
	assert_string_equal(args.bash_command, "--json");
	assert_false(args.json);
}

static void test_probe_options(void **state) {
	cli_args args;
	char *argv[ARGV_SLOTS];
	(void)state;
	assert_int_equal(parse_words(&args, argv, W("probe")), 0);
	assert_int_equal(args.command, CLI_COMMAND_PROBE);
	assert_false(args.json);
	assert_int_equal(parse_words(&args, argv, W("probe", "--json", "--runner", "seatbelt", "--config=f")), 0);
	assert_true(args.json);
	assert_int_equal(args.runner, CONFINE_RUNNER_SEATBELT);
	assert_string_equal(args.config, "f");
}

static void test_fs_options(void **state) {
	cli_args args;
	char *argv[ARGV_SLOTS];
	(void)state;
	assert_int_equal(parse_words(&args, argv, W("fs", "-m", "workspace-write", "--deny-read",
	                                            "**/.env", "rename", "a", "b", "--json")),
	                 0);
	assert_int_equal(args.command, CLI_COMMAND_FS);
	assert_string_equal(args.fs_op, "rename");
	assert_int_equal(args.fs_n_paths, 2);
	assert_string_equal(args.fs_paths[0], "a");
	assert_string_equal(args.fs_paths[1], "b");
	assert_true(args.json);
	assert_string_equal(args.deny_read[0], "**/.env");
	cli_args_clear(&args);
	assert_int_equal(parse_words(&args, argv, W("fs", "read", "--max-bytes", "100", "f")), 0);
	assert_true(args.has_max_bytes);
	assert_int_equal(args.max_bytes, 100);
	cli_args_clear(&args);
}

static void test_empty_workspace_is_kept_for_the_policy_to_refuse(void **state) {
	cli_args args;
	char *argv[ARGV_SLOTS];
	(void)state;
	assert_int_equal(parse_words(&args, argv, W("wrap", "-w", "", "--", "x")), 0);
	assert_non_null(args.workspace);
	assert_string_equal(args.workspace, "");
}

static void test_json_seen_before_an_error_is_kept(void **state) {
	cli_args args;
	char *argv[ARGV_SLOTS];
	(void)state;
	/* so main can print the error as the JSON object too */
	assert_int_equal(parse_words(&args, argv, W("bash", "--json", "--frob")), -EINVAL);
	assert_true(args.json);
	/* and one after it too (test_usage_error_keeps_json) */
	assert_int_equal(parse_words(&args, argv, W("bash", "--frob", "--json")), -EINVAL);
	assert_true(args.json);
}

/* ---- the policy options (issue 16) ---- */

static void assert_list(const char **got, const char *const *want) {
	size_t i;
	assert_non_null(got);
	for (i = 0; want[i]; i++) {
		assert_non_null(got[i]);
		assert_string_equal(got[i], want[i]);
	}
	assert_null(got[i]);
}

static void test_policy_options(void **state) {
	static const cli_command commands[] = { CLI_COMMAND_RUN, CLI_COMMAND_BASH, CLI_COMMAND_WRAP };
	(void)state;
	for (size_t c = 0; c < 3; c++) {
		char *argv[ARGV_SLOTS];
		cli_args args;
		const char *name = cli_command_name(commands[c]);
		const char *const *words =
			commands[c] == CLI_COMMAND_BASH
				? W(name, "--writable", "/home/u/.npm", "--writable=rel/cache",
				    "--protect", ".env", "--no-default-protections", "--deny-read",
				    "/home/u/.ssh", "--network", "off", "--allow-unix-socket",
				    "/run/s.sock", "--env-inherit", "none", "--env-include", "PATH",
				    "--env-include=LC_*", "--env-exclude", "AWS_*", "--env-set", "CI=1",
				    "--env-set", "EMPTY=", "--no-default-env-excludes", "--require-full",
				    "-c", "true")
				: W(name, "--writable", "/home/u/.npm", "--writable=rel/cache",
				    "--protect", ".env", "--no-default-protections", "--deny-read",
				    "/home/u/.ssh", "--network", "off", "--allow-unix-socket",
				    "/run/s.sock", "--env-inherit", "none", "--env-include", "PATH",
				    "--env-include=LC_*", "--env-exclude", "AWS_*", "--env-set", "CI=1",
				    "--env-set", "EMPTY=", "--no-default-env-excludes", "--require-full",
				    "--", "true");
		assert_int_equal(parse_words(&args, argv, words), 0);
		assert_int_equal(args.action, CLI_ACTION_EXECUTE);
		assert_true(args.has_policy_options);
		assert_list(args.writable, W("/home/u/.npm", "rel/cache"));
		assert_list(args.protect, W(".env"));
		assert_true(args.no_default_protections);
		assert_list(args.deny_read, W("/home/u/.ssh"));
		assert_true(args.has_network);
		assert_int_equal(args.network, CONFINE_NETWORK_OFF);
		assert_list(args.allow_unix_sockets, W("/run/s.sock"));
		assert_true(args.has_env_inherit);
		assert_int_equal(args.env_inherit, CONFINE_ENV_INHERIT_NONE);
		assert_list(args.env_include, W("PATH", "LC_*"));
		assert_list(args.env_exclude, W("AWS_*"));
		assert_list(args.env_set, W("CI=1", "EMPTY="));
		assert_true(args.no_default_env_excludes);
		assert_true(args.require_full);
		cli_args_clear(&args);
		assert_null(args.writable);
		cli_args_clear(&args); /* twice is fine */
	}
}

static void test_no_policy_options(void **state) {
	char *argv[ARGV_SLOTS];
	cli_args args;
	(void)state;
	assert_int_equal(parse_words(&args, argv, W("run", "--network", "on", "--", "ls")), 0);
	assert_true(args.has_policy_options);
	assert_int_equal(args.network, CONFINE_NETWORK_ON);
	cli_args_clear(&args);
	assert_int_equal(parse_words(&args, argv, W("run", "--", "ls")), 0);
	assert_false(args.has_policy_options);
	assert_null(args.writable);
	assert_null(args.protect);
	assert_null(args.deny_read);
	assert_null(args.allow_unix_sockets);
	assert_null(args.env_include);
	assert_null(args.env_exclude);
	assert_null(args.env_set);
	assert_false(args.has_network);
	assert_false(args.has_env_inherit);
	assert_false(args.no_default_protections);
	assert_false(args.no_default_env_excludes);
	assert_false(args.require_full);
	cli_args_clear(&args);
	cli_args_clear(NULL);
}

static void test_policy_option_errors(void **state) {
	const error_case cases[] = {
		{ W("run", "--network", "offline", "--", "ls"), CLI_COMMAND_RUN,
		  "invalid --network: network \"offline\" is not a network setting (expected on or off)" },
		{ W("run", "--env-inherit", "some", "--", "ls"), CLI_COMMAND_RUN,
		  "invalid --env-inherit: env.inherit \"some\"" },
		{ W("run", "--env-include", "A=B", "--", "ls"), CLI_COMMAND_RUN,
		  "invalid --env-include: env.include pattern \"A=B\" is malformed" },
		{ W("run", "--env-exclude", "", "--", "ls"), CLI_COMMAND_RUN,
		  "invalid --env-exclude: env.exclude pattern \"\" is empty" },
		{ W("run", "--env-set", "NOVALUE", "--", "ls"), CLI_COMMAND_RUN,
		  "invalid --env-set: env.set entry \"NOVALUE\" is malformed: expected NAME=VALUE" },
		/* An empty --writable or --deny-read is the library's to refuse,
		 * in its words at every door (tests/golden/bad-inputs.json). */
		{ W("run", "--require-full=yes", "--", "ls"), CLI_COMMAND_RUN,
		  "option '--require-full' takes no value" },
		{ W("run", "--protect"), CLI_COMMAND_RUN, "option '--protect' requires a value" },
		{ W("probe", "--writable", "/x"), CLI_COMMAND_PROBE,
		  "unknown option '--writable' for 'confine probe'" },
		{ W("probe", "--network", "off"), CLI_COMMAND_PROBE,
		  "unknown option '--network' for 'confine probe'" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *argv[ARGV_SLOTS];
		cli_args args;
		int r = parse_words(&args, argv, cases[i].words);
		if (r != -EINVAL || args.action != CLI_ACTION_USAGE_ERROR ||
		    !strstr(args.error, cases[i].message_part))
			fail_msg("case %zu: r=%d, message \"%s\", expected \"%s\"", i, r, args.error,
			         cases[i].message_part);
		assert_int_equal(args.command, cases[i].command);
		cli_args_clear(&args);
	}
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_help_and_version),
		cmocka_unit_test(test_help_texts_name_their_synopsis),
		cmocka_unit_test(test_run_defaults),
		cmocka_unit_test(test_usage_error_keeps_json),
		cmocka_unit_test(test_run_all_options),
		cmocka_unit_test(test_option_spellings),
		cmocka_unit_test(test_words_after_separator_are_the_program),
		cmocka_unit_test(test_bash_options),
		cmocka_unit_test(test_probe_options),
		cmocka_unit_test(test_fs_options),
		cmocka_unit_test(test_empty_workspace_is_kept_for_the_policy_to_refuse),
		cmocka_unit_test(test_json_seen_before_an_error_is_kept),
		cmocka_unit_test(test_policy_options),
		cmocka_unit_test(test_no_policy_options),
		cmocka_unit_test(test_policy_option_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
