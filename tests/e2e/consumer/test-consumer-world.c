/* SPDX-License-Identifier: MIT */
/*
 * The bash consumer end to end, on the real kernel, one rung at a time,
 * through the real local provider pinned to that rung (SPEC 9 and 11):
 *
 *   test-consumer-world bwrap
 *   test-consumer-world landlock
 *
 * Proves, with effects checked on disk in work directories under $HOME
 * (outside every temp area): a denied write renders the exact denial marker
 * and leaves no file; a workspace-write write lands; BASH_ENV runs after
 * confinement (its write outside the workspace is denied, while the same
 * run under danger-full-access does write); a timeout ends the whole
 * confined tree; exit 126/127 stay ordinary; a launcher that is missing or
 * not executable is SANDBOX_UNAVAILABLE naming it.
 *
 * Exit 0 (pass), 1 (a check failed) or 77 (the rung is absent here); with
 * CONFINE_MUST_WORK=1 an absent rung is a failure. Environment:
 * CONFINE_TEST_LAUNCHER, the build tree's landlock-run.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "testlib-confine.h"

extern char **environ;

static char base[512];       /* $HOME/.cache/confine-tests/consumer-XXXXXX, canonical */
static char workspace[600];  /* base/ws */
static char sibling[600];    /* base/sibling: outside the workspace */
static const char *rung_name;
static const char *dialect_text; /* how bash reports this rung's denial */

static int make_dirs(void) {
	if (tl_make_workdir("consumer", base, sizeof base) < 0)
		return -1;
	snprintf(workspace, sizeof workspace, "%s/ws", base);
	snprintf(sibling, sizeof sibling, "%s/sibling", base);
	if (mkdir(workspace, 0755) < 0 || mkdir(sibling, 0755) < 0)
		return -1;
	return 0;
}

/* Runs COMMAND through the consumer; returns the result (NULL when nothing
 * started, with `err` filled) and its rendering in *text. */
static confine_bash_result *bash(confine_provider *p, confine_mode mode, const char *command,
                                 const char *const *envp, unsigned timeout_ms, char **text,
                                 confine_error *err) {
	confine_policy *policy = NULL;
	confine_bash_options o = { 0 };
	confine_bash_result *r = NULL;
	*text = NULL;
	if (confine_policy_new(mode, workspace, &policy, err) < 0)
		return NULL;
	o.command = command;
	o.policy = policy;
	o.envp = envp;
	o.timeout_ms = timeout_ms;
	if (confine_bash_run(p, &o, &r, err) < 0)
		r = NULL;
	confine_policy_free(policy);
	if (r) {
		*text = confine_bash_render(r);
		printf("# `%s` under %s renders:\n# ", command, confine_mode_name(mode));
		/* every line a TAP comment */
		for (const char *c = *text ? *text : "(null)"; *c; c++)
			fputs(*c == '\n' ? "\n# " : (char[2]){ *c, 0 }, stdout);
		printf("\n");
	} else {
		printf("# `%s` under %s did not start: %s\n", command, confine_mode_name(mode),
		       err->message);
	}
	return r;
}

/* The rendering without its "[sandbox: not enforced on this run: ...]"
 * line, which must be there exactly when a clause did not hold (doc/SPEC.md
 * 15): the cases below are about the other markers. In place. */
static bool strip_unenforced_line(char *text, const confine_outcome *o) {
	static const char prefix[] = "\n[sandbox: not enforced on this run: ";
	bool all = true;
	char *line = text ? strstr(text, prefix) : NULL;
	for (size_t i = 0; o && i < o->n_clauses; i++)
		all = all && o->clauses[i].status == CONFINE_CLAUSE_ENFORCED;
	if (!line)
		return all;
	{
		char *end = strchr(line + 1, '\n');
		memmove(line, end ? end : line + strlen(line), strlen(end ? end : line + strlen(line)) + 1);
	}
	return !all;
}


/* ---- the checks ---- */

static void denied_write_renders_the_marker(confine_provider *p) {
	char path[700], command[800], want[2000];
	char *text;
	confine_error err = { 0 };
	confine_bash_result *r;

	snprintf(path, sizeof path, "%s/ro-denied.txt", workspace);
	snprintf(command, sizeof command, "printf x > '%s'", path);
	r = bash(p, CONFINE_MODE_READ_ONLY, command, NULL, 0, &text, &err);
	tl_check(r != NULL, "read-only write starts");
	if (!r)
		return;
	snprintf(want, sizeof want,
	         "[stderr]\nbash: line 1: %s: %s\n"
	         "[sandbox: file access denied under read-only mode]\n"
	         "[denied: write %s (mode)]\n[exit code: 1]",
	         path, dialect_text, path);
	tl_check(text && strcmp(text, want) == 0, "read-only write renders exactly the denial marker");
	tl_check(r->outcome->denied && !r->outcome->runner_failed, "read-only write is a denial");
	tl_check(r->outcome->n_denials == 1 && strcmp(r->outcome->denials[0].op, "write") == 0 &&
	                 strcmp(r->outcome->denials[0].path, path) == 0 &&
	                 !r->outcome->denials[0].address &&
	                 strcmp(r->outcome->denials[0].clause, "mode") == 0,
	         "read-only write is a denial of its path, under the mode");
	tl_check(!tl_exists(path), "read-only write left no file");
	free(text);
	confine_bash_result_free(r);

	/* workspace-write: inside the workspace lands, the sibling is denied */
	snprintf(path, sizeof path, "%s/ww-allowed.txt", workspace);
	snprintf(command, sizeof command, "printf inside > '%s'", path);
	r = bash(p, CONFINE_MODE_WORKSPACE_WRITE, command, NULL, 0, &text, &err);
	tl_check(r && text && strip_unenforced_line(text, r->outcome) &&
	         strcmp(text, "(no output)") == 0 && !r->outcome->denied,
	      "workspace-write write inside the workspace succeeds");
	tl_check(tl_file_holds(path, "inside"), "workspace-write write inside the workspace landed");
	free(text);
	confine_bash_result_free(r);

	snprintf(path, sizeof path, "%s/ww-denied.txt", sibling);
	snprintf(command, sizeof command, "printf x > '%s'", path);
	r = bash(p, CONFINE_MODE_WORKSPACE_WRITE, command, NULL, 0, &text, &err);
	snprintf(want, sizeof want,
	         "[stderr]\nbash: line 1: %s: %s\n"
	         "[sandbox: file access denied under workspace-write mode]\n"
	         "[denied: write %s (mode)]\n[exit code: 1]",
	         path, dialect_text, path);
	tl_check(r && text && strip_unenforced_line(text, r->outcome) && strcmp(text, want) == 0,
	      "workspace-write write to a sibling renders exactly the denial marker");
	tl_check(!tl_exists(path), "workspace-write write to a sibling left no file");
	free(text);
	confine_bash_result_free(r);
}

/* The environment plus BASH_ENV=script. */
static char **env_with(const char *assignment) {
	size_t n = 0;
	char **envp;
	while (environ[n])
		n++;
	envp = calloc(n + 2, sizeof *envp);
	if (!envp)
		return NULL;
	for (size_t i = 0, j = 0; i < n; i++)
		if (strncmp(environ[i], "BASH_ENV=", 9) != 0)
			envp[j++] = environ[i];
	for (size_t j = 0;; j++)
		if (!envp[j]) {
			envp[j] = (char *)assignment;
			break;
		}
	return envp;
}

static void bash_env_runs_after_confinement(confine_provider *p) {
	char script[700], target[700], body[1600], assignment[720];
	char **envp;
	char *text;
	confine_error err = { 0 };
	confine_bash_result *r;
	FILE *f;

	snprintf(script, sizeof script, "%s/bash-env.sh", base);
	snprintf(target, sizeof target, "%s/from-bash-env.txt", sibling);
	snprintf(body, sizeof body, "echo bash-env-ran\nprintf escaped > '%s'\n", target);
	f = fopen(script, "w");
	if (!f || fputs(body, f) < 0 || fclose(f) != 0) {
		tl_check(false, "write the BASH_ENV script");
		return;
	}
	snprintf(assignment, sizeof assignment, "BASH_ENV=%s", script);
	envp = env_with(assignment);

	r = bash(p, CONFINE_MODE_READ_ONLY, "echo command-ran", (const char *const *)envp, 0,
	         &text, &err);
	tl_check(r && r->outcome->stdout_data &&
	              strcmp(r->outcome->stdout_data, "bash-env-ran\ncommand-ran\n") == 0,
	      "BASH_ENV ran inside the confined bash");
	tl_check(!tl_exists(target), "BASH_ENV's write outside the workspace was denied");
	free(text);
	confine_bash_result_free(r);

	/* Control: the same run unconfined does write, so the check above can fail. */
	r = bash(p, CONFINE_MODE_DANGER_FULL_ACCESS, "echo command-ran",
	         (const char *const *)envp, 0, &text, &err);
	tl_check(r && tl_file_holds(target, "escaped"),
	      "control: under danger-full-access BASH_ENV's write lands");
	unlink(target);
	free(text);
	confine_bash_result_free(r);
	free(envp);
}

static void timeout_ends_the_tree(confine_provider *p) {
	char seconds[32], command[128], want_tail[128];
	char *text;
	confine_error err = { 0 };
	confine_bash_result *r;
	long long start, took, until;
	bool gone;

	/* a duration no other process on the machine is sleeping */
	snprintf(seconds, sizeof seconds, "%ld", 900000L + (long)(getpid() % 99991));
	snprintf(command, sizeof command, "sleep %s & sleep %s & sleep %s", seconds, seconds,
	         seconds);
	start = tl_now_ms();
	r = bash(p, CONFINE_MODE_READ_ONLY, command, NULL, 500, &text, &err);
	took = tl_now_ms() - start;
	tl_check(r && r->outcome->timed_out, "a sleeping tree times out");
	/* only proves the timeout fired (the tree sleeps 900000 s): wide margin */
	tl_check(took < 60000, "the timed-out run returned in %lld ms", took);
	/* The SIGTERM reaches the command, and its death by that signal reads
	 * the same on every rung: the launcher reports it on the status
	 * channel (bwrap alone would say exit 128+N). */
	snprintf(want_tail, sizeof want_tail, "[timed out after 500ms]\n%s",
	         "[killed by signal: SIGTERM]");
	tl_check(text && strncmp(text, "(no output)\n", 12) == 0 && strstr(text, want_tail),
	      "the timeout renders its markers");
	/* the bound only proves the kill fired (the tree sleeps 900000 s) */
	until = tl_now_ms() + TL_GONE_BOUND_MS;
	while ((gone = !tl_sleep_running(seconds)) == false && tl_now_ms() < until)
		usleep(20000);
	tl_check(gone, "no process of the confined tree is left");
	free(text);
	confine_bash_result_free(r);
}

/* The timeout's SIGTERM reaches the command itself, under bwrap too (not
 * bwrap, which would die of it and take the command down): a command that
 * traps TERM cleans up, and its exit status is the result. */
static void timeout_lets_the_command_clean_up(confine_provider *p) {
	char marker[700], command[1600];
	char *text;
	confine_error err = { 0 };
	confine_bash_result *r;
	snprintf(marker, sizeof marker, "%s/cleaned-up", workspace);
	unlink(marker);
	snprintf(command, sizeof command, "trap 'echo cleaned > \"%s\"; exit 3' TERM; sleep 30",
	         marker);
	r = bash(p, CONFINE_MODE_WORKSPACE_WRITE, command, NULL, 500, &text, &err);
	tl_check(r && r->outcome->timed_out, "the trapping command timed out");
	tl_check(r && !r->outcome->signaled && r->outcome->exit_code == 3,
	      "its TERM trap ran and its exit status (3) is the result");
	tl_check(tl_file_holds(marker, "cleaned\n"), "its TERM trap wrote %s", marker);
	unlink(marker);
	free(text);
	confine_bash_result_free(r);
}

static void exit_codes_stay_ordinary(confine_provider *p) {
	static const char *const commands[] = { "exit 2", "exit 126", "confine-no-such-command" };
	static const char *const wants[] = {
		"(no output)\n[exit code: 2]",
		"(no output)\n[exit code: 126]",
		"[stderr]\nbash: line 1: confine-no-such-command: command not found\n[exit code: 127]",
	};
	for (size_t i = 0; i < 3; i++) {
		char *text;
		confine_error err = { 0 };
		confine_bash_result *r = bash(p, CONFINE_MODE_READ_ONLY, commands[i], NULL, 0, &text,
		                              &err);
		tl_check(r && text && strcmp(text, wants[i]) == 0 && r->error.code == CONFINE_OK,
		      "`%s` is an ordinary result", commands[i]);
		free(text);
		confine_bash_result_free(r);
	}
}

/* A Landlock rung whose launcher is missing or lost its execute bit fails
 * closed at execution: SANDBOX_UNAVAILABLE naming the launcher. */
static void broken_launcher_is_unavailable(const char *launcher) {
	char missing[700], stripped[700], cmd[2000], suffix[1000];
	const char *paths[2];
	const char *why[2] = { "No such file or directory", "Permission denied" };
	snprintf(missing, sizeof missing, "%s/missing-landlock-run", base);
	snprintf(stripped, sizeof stripped, "%s/landlock-run-0644", base);
	snprintf(cmd, sizeof cmd, "cp '%s' '%s' && chmod 0644 '%s'", launcher, stripped, stripped);
	if (system(cmd) != 0) {
		tl_check(false, "copy the launcher");
		return;
	}
	paths[0] = missing;
	paths[1] = stripped;
	for (int i = 0; i < 2; i++) {
		confine_provider *p = tl_pinned(CONFINE_RUNNER_LANDLOCK, paths[i]);
		confine_error err = { 0 };
		char *text;
		char marker[700];
		confine_bash_result *r;
		snprintf(marker, sizeof marker, "%s/ran-unconfined", workspace);
		snprintf(cmd, sizeof cmd, "touch '%s'", marker);
		r = bash(p, CONFINE_MODE_READ_ONLY, cmd, NULL, 0, &text, &err);
		snprintf(suffix, sizeof suffix, " Runner failure: cannot execute %s: %s", paths[i],
		         why[i]);
		tl_check(!r && err.code == CONFINE_E_SANDBOX_UNAVAILABLE &&
		              strlen(err.message) > strlen(suffix) &&
		              strcmp(err.message + strlen(err.message) - strlen(suffix), suffix) == 0,
		      "launcher %s is SANDBOX_UNAVAILABLE naming it", i ? "mode 0644" : "missing");
		tl_check(!tl_exists(marker), "nothing ran with a broken launcher");
		free(text);
		confine_bash_result_free(r);
		confine_provider_free(p);
	}
}

/* The runner's word comes from its status channel, never from the
 * command's stderr (doc/SPEC.md 12): lines a command prints that look like
 * a runner's, and exit statuses a runner uses, are the command's own. And a
 * signal death reads the same on every rung. */
static void command_output_is_never_runner_evidence(confine_provider *p) {
	static const struct {
		const char *command;
		const char *rendering;
	} cases[] = {
		{ "echo 'bwrap: this is just my script talking' >&2; exit 1",
		  "[stderr]\nbwrap: this is just my script talking\n[exit code: 1]" },
		{ "echo 'landlock-run: landlock ruleset error: Invalid argument' >&2; exit 125",
		  "[stderr]\nlandlock-run: landlock ruleset error: Invalid argument\n[exit code: 125]" },
		{ "cat src/bwrap", "[stderr]\ncat: src/bwrap: No such file or directory\n[exit code: 1]" },
		{ "kill -TERM $$", "(no output)\n[killed by signal: SIGTERM]" },
		{ "kill -KILL $$", "(no output)\n[killed by signal: SIGKILL]" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		confine_error err = { 0 };
		char *text = NULL;
		confine_bash_result *r =
			bash(p, CONFINE_MODE_WORKSPACE_WRITE, cases[i].command, NULL, 0, &text, &err);
		tl_check(r && r->error.code == CONFINE_OK && !r->outcome->runner_failed && text &&
		              strip_unenforced_line(text, r->outcome) &&
		              strcmp(text, cases[i].rendering) == 0,
		         "`%s` is the command's own outcome", cases[i].command);
		free(text);
		confine_bash_result_free(r);
	}
	{
		confine_error err = { 0 };
		char *text = NULL;
		confine_bash_result *r = bash(p, CONFINE_MODE_READ_ONLY, "sleep 30", NULL, 300, &text,
		                              &err);
		tl_check(r && text && strip_unenforced_line(text, r->outcome) &&
		         strcmp(text, "(no output)\n[timed out after 300ms]\n"
		                                   "[killed by signal: SIGTERM]") == 0,
		         "a timeout renders the same on every rung");
		free(text);
		confine_bash_result_free(r);
	}
}

static void run_rung(confine_provider *p) {
	command_output_is_never_runner_evidence(p);
	denied_write_renders_the_marker(p);
	bash_env_runs_after_confinement(p);
	timeout_ends_the_tree(p);
	timeout_lets_the_command_clean_up(p);
	exit_codes_stay_ordinary(p);
}

static int test_bwrap(void) {
	confine_provider *p;
	confine_verdict v;
	int rc = tl_require_rung(CONFINE_RUNNER_BWRAP, NULL, &v);
	if (rc != 0)
		return rc;
	p = tl_pinned(CONFINE_RUNNER_BWRAP, NULL);
	if (!p)
		return 1;
	dialect_text = "Read-only file system";
	run_rung(p);
	confine_provider_free(p);
	return 0;
}

static int test_landlock(const char *launcher) {
	confine_provider *p;
	confine_verdict v;
	int rc = tl_require_rung(CONFINE_RUNNER_LANDLOCK, launcher, &v);
	if (rc != 0)
		return rc;
	/* The library's own launcher (the sealed copy it carries), as a
	 * default provider uses it: the checkout may lie anywhere, /tmp too. */
	p = tl_pinned(CONFINE_RUNNER_LANDLOCK, NULL);
	if (!p)
		return 1;
	dialect_text = "Permission denied";
	run_rung(p);
	confine_provider_free(p);
	broken_launcher_is_unavailable(launcher);
	return 0;
}

/* A provider whose bwrap is a fake that fails the way a bwrap without user
 * namespaces does, before it runs anything. */
static confine_provider *provider_with_failing_bwrap(confine_runner pin, char *fakebin,
                                                     size_t size) {
	confine_local_config config;
	confine_provider *p = NULL;
	char bwrap[700];
	FILE *f;
	snprintf(fakebin, size, "%s/fakebin", base);
	snprintf(bwrap, sizeof bwrap, "%s/bwrap", fakebin);
	if (mkdir(fakebin, 0755) < 0 && errno != EEXIST)
		return NULL;
	f = fopen(bwrap, "w");
	if (!f)
		return NULL;
	fputs("#!/bin/sh\necho 'bwrap: Creating new namespace failed: Operation not permitted' >&2\n"
	      "exit 1\n",
	      f);
	fclose(f);
	chmod(bwrap, 0755);
	confine_local_config_init(&config);
	config.path = fakebin;
	config.pin = pin;
	if (confine_local_provider_new(&config, &p, NULL) < 0)
		return NULL;
	return p;
}

/* The optimistic ladder (doc/SPEC.md 17): no probe; bwrap fails before the
 * command starts, so the command runs on the next rung, exactly once. */
static int test_ladder(void) {
	char fakebin[700], count[700], cmd[900], *text = NULL;
	confine_error err = { 0 };
	confine_bash_result *r;
	confine_provider *p;
	confine_verdict v;
	int rc = tl_require_rung(CONFINE_RUNNER_LANDLOCK, tl_launcher(), &v);
	if (rc != 0)
		return rc;
	snprintf(count, sizeof count, "%s/count", workspace);
	snprintf(cmd, sizeof cmd, "echo ran >> '%s'", count);

	p = provider_with_failing_bwrap(CONFINE_RUNNER_NONE, fakebin, sizeof fakebin);
	r = p ? bash(p, CONFINE_MODE_WORKSPACE_WRITE, cmd, NULL, 0, &text, &err) : NULL;
	tl_check(r && r->error.code == CONFINE_OK && r->outcome->exit_code == 0 &&
	              r->outcome->runner == CONFINE_RUNNER_LANDLOCK,
	         "bwrap failed before the command: it ran under Landlock");
	tl_check(tl_file_holds(count, "ran\n"), "the command ran exactly once");
	free(text);
	confine_bash_result_free(r);
	/* the working rung is remembered: bwrap is not tried again */
	r = p ? bash(p, CONFINE_MODE_WORKSPACE_WRITE, cmd, NULL, 0, &text, &err) : NULL;
	tl_check(r && r->outcome->runner == CONFINE_RUNNER_LANDLOCK &&
	              tl_file_holds(count, "ran\nran\n"),
	         "the second run goes straight to Landlock, once");
	free(text);
	confine_bash_result_free(r);
	confine_provider_free(p);

	/* pinned to the failing bwrap: its own line is the runner failure */
	unlink(count);
	p = provider_with_failing_bwrap(CONFINE_RUNNER_BWRAP, fakebin, sizeof fakebin);
	memset(&err, 0, sizeof err);
	r = p ? bash(p, CONFINE_MODE_WORKSPACE_WRITE, cmd, NULL, 0, &text, &err) : NULL;
	tl_check(!r && err.code == CONFINE_E_SANDBOX_UNAVAILABLE &&
	              strstr(err.message, " Runner failure: bwrap: Creating new namespace failed: "
	                                  "Operation not permitted"),
	         "pinned to a failing bwrap: SANDBOX_UNAVAILABLE with bwrap's line");
	tl_check(!tl_exists(count), "and nothing ran");
	free(text);
	confine_bash_result_free(r);
	confine_provider_free(p);
	return 0;
}

int main(int argc, char **argv) {
	int rc;
	if (argc != 2 || (strcmp(argv[1], "bwrap") != 0 && strcmp(argv[1], "landlock") != 0 &&
	                  strcmp(argv[1], "ladder") != 0)) {
		fprintf(stderr, "usage: %s bwrap|landlock|ladder\n", argv[0]);
		return 2;
	}
	rung_name = argv[1];
	tl_check_label(rung_name);
#if !defined(__linux__)
	printf("# SKIP %s is a Linux rung\n", rung_name);
	return TL_SKIP;
#endif
	if (make_dirs() < 0)
		return 1;
	if (strcmp(rung_name, "bwrap") == 0)
		rc = test_bwrap();
	else if (strcmp(rung_name, "ladder") == 0)
		rc = test_ladder();
	else
		rc = test_landlock(tl_launcher());
	tl_remove_tree(base);
	if (rc != 0)
		return rc;
	return tl_checks_done();
}
