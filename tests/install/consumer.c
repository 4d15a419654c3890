/* SPDX-License-Identifier: MIT */
/*
 * A plain C consumer of the *installed* libconfine: built by
 * packed-install.sh with nothing but `pkg-config --cflags --libs confine`
 * (no path into the source or build tree), the way a user's program is.
 *
 *   consumer [--launcher PATH] [--pin NAME] [--expect-version V]
 *            [--expect-default PATH] --expect denied|runner-failure WORKDIR
 *
 * It confines `echo hi > WORKDIR/denied.txt` under read-only through the
 * library's local provider and runs it with confine_run(), then prints one
 * "outcome: ..." line and checks it against --expect:
 *   denied          the write was denied by the sandbox and the file is
 *                   absent (exit 0); no backend on this host, or a kernel
 *                   that cannot enforce Landlock, is exit 77 (skip);
 *   runner-failure  nothing ran because the runner could not be executed:
 *                   SANDBOX_UNAVAILABLE with a "Runner failure:" detail that
 *                   names the runner, never the non-enforcing-kernel text.
 * Anything else, above all a write that landed, is exit 1.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <confine.h>

#define EXIT_SKIP 77

/* The launcher's own line for a kernel without Landlock (SPEC 7): the one
 * runner failure that means "cannot enforce here", not "broken install". */
static const char kernel_cannot_enforce[] =
	"landlock is not enforced by this kernel";

struct options {
	const char *launcher;
	const char *pin;
	const char *expect_version;
	const char *expect_default;
	const char *expect;
	const char *workdir;
};

static int usage(const char *problem, const char *value)
{
	fprintf(stderr, "consumer: %s%s%s\n", problem, value ? ": " : "", value ? value : "");
	return 2;
}

static int parse(int argc, char **argv, struct options *o)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char **slot = NULL;

		if (strcmp(argv[i], "--launcher") == 0)
			slot = &o->launcher;
		else if (strcmp(argv[i], "--pin") == 0)
			slot = &o->pin;
		else if (strcmp(argv[i], "--expect-version") == 0)
			slot = &o->expect_version;
		else if (strcmp(argv[i], "--expect-default") == 0)
			slot = &o->expect_default;
		else if (strcmp(argv[i], "--expect") == 0)
			slot = &o->expect;
		else if (argv[i][0] == '-')
			return usage("unknown option", argv[i]);
		else if (o->workdir == NULL) {
			o->workdir = argv[i];
			continue;
		} else
			return usage("unexpected argument", argv[i]);
		if (i + 1 >= argc)
			return usage("option needs a value", argv[i]);
		*slot = argv[++i];
	}
	if (o->workdir == NULL || o->expect == NULL)
		return usage("need --expect and WORKDIR", NULL);
	if (strcmp(o->expect, "denied") != 0 && strcmp(o->expect, "runner-failure") != 0)
		return usage("--expect must be denied or runner-failure", o->expect);
	/* The path goes into a shell command line in single quotes. */
	if (o->workdir[0] != '/' || strchr(o->workdir, '\'') != NULL)
		return usage("WORKDIR must be absolute and free of single quotes", o->workdir);
	return 0;
}

/* The version compiled against and the one linked must be the same
 * release: the packed install pairs this header with this library. */
static int check_version(const char *expected)
{
	printf("version: header %s, library %s\n", CONFINE_VERSION_STRING, confine_version());
	if (strcmp(confine_version(), CONFINE_VERSION_STRING) != 0) {
		fprintf(stderr, "consumer: header and library versions differ\n");
		return 1;
	}
	if (expected != NULL && strcmp(confine_version(), expected) != 0) {
		fprintf(stderr, "consumer: library version %s, expected %s\n", confine_version(),
			expected);
		return 1;
	}
	return 0;
}

static int check_default_launcher(const char *expected)
{
	const char *actual = confine_default_landlock_launcher();

	printf("default launcher: %s\n", actual);
	if (expected != NULL && strcmp(actual, expected) != 0) {
		fprintf(stderr, "consumer: default launcher is %s, expected %s\n", actual,
			expected);
		return 1;
	}
	return 0;
}

/* Proof on disk, independent of what any exit status claims. */
static int check_file_absent(const char *path)
{
	if (access(path, F_OK) == 0) {
		printf("outcome: UNCONFINED: %s was written\n", path);
		return 1;
	}
	if (errno != ENOENT) {
		fprintf(stderr, "consumer: cannot check %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

/* A SANDBOX_UNAVAILABLE error, judged against what was expected. */
static int judge_unavailable(const struct options *o, const confine_error *err)
{
	const char *detail = strstr(err->message, " Runner failure: ");

	if (detail == NULL) {
		printf("outcome: unavailable: %s\n", err->message);
		/* No backend at all: an honest refusal, but not the outcome
		 * this host was asked to prove. */
		return strcmp(o->expect, "denied") == 0 ? EXIT_SKIP : 1;
	}
	printf("outcome: runner-failure: %s\n", err->message);
	if (strstr(detail, kernel_cannot_enforce) != NULL)
		/* A kernel that cannot enforce is a skip for "denied", and the
		 * wrong reading of a stripped execute bit for "runner-failure". */
		return strcmp(o->expect, "denied") == 0 ? EXIT_SKIP : 1;
	if (strcmp(o->expect, "runner-failure") != 0)
		return 1;
	if (o->launcher != NULL && strstr(detail, o->launcher) == NULL) {
		fprintf(stderr, "consumer: the runner failure does not name %s\n", o->launcher);
		return 1;
	}
	return 0;
}

static int run(const struct options *o)
{
	char target[4096];
	char command[4200];
	const char *argv[] = { "sh", "-c", command, NULL };
	confine_local_config config;
	confine_provider *provider = NULL;
	confine_policy *policy = NULL;
	confine_argv *confined = NULL;
	confine_spawn_options spawn;
	confine_outcome *outcome = NULL;
	confine_error err;
	int status = 1;
	int r;

	snprintf(target, sizeof target, "%s/denied.txt", o->workdir);
	snprintf(command, sizeof command, "echo hi > '%s'", target);

	confine_local_config_init(&config);
	config.landlock_launcher = o->launcher;
	if (o->pin != NULL && confine_runner_parse(o->pin, &config.pin, &err) < 0)
		goto error;
	if (confine_local_provider_new(&config, &provider, &err) < 0 ||
	    confine_policy_new(CONFINE_MODE_READ_ONLY, o->workdir, &policy, &err) < 0)
		goto error;

	r = confine_confine(provider, argv, policy, &confined, &err);
	if (r < 0) {
		if (err.code == CONFINE_E_SANDBOX_UNAVAILABLE)
			status = judge_unavailable(o, &err);
		else
			goto error;
		goto out;
	}
	printf("runner: %s, enforcement %s, argv[0] %s\n", confine_runner_name(confined->runner),
	       confine_enforcement_name(confined->enforcement), confined->argv[0]);
	/* A Landlock run must go through the launcher this test points at (or
	 * the library's default one): that is the installed binary under test. */
	if (confined->runner == CONFINE_RUNNER_LANDLOCK) {
		const char *want = o->launcher ? o->launcher : confine_default_landlock_launcher();
		if (strcmp(confined->argv[0], want) != 0) {
			fprintf(stderr, "consumer: landlock argv[0] is %s, expected %s\n",
				confined->argv[0], want);
			goto out;
		}
	}

	confine_spawn_options_init(&spawn);
	spawn.confined = confined;
	spawn.stdio[1].kind = CONFINE_STDIO_CAPTURE;
	spawn.stdio[2].kind = CONFINE_STDIO_CAPTURE;
	spawn.timeout_ms = 60000;
	r = confine_run(&spawn, &outcome, &err);
	if (r < 0) {
		if (err.code == CONFINE_E_SANDBOX_UNAVAILABLE)
			status = judge_unavailable(o, &err);
		else
			goto error;
		goto out;
	}
	if (confine_outcome_error(outcome, &err) < 0) {
		status = judge_unavailable(o, &err);
		goto out;
	}
	if (!outcome->signaled && outcome->exit_code == 0) {
		printf("outcome: UNCONFINED: the write exited 0\n");
		goto out;
	}
	if (!outcome->denied) {
		printf("outcome: unexpected: %s %d, stderr: %s\n",
		       outcome->signaled ? "signal" : "exit",
		       outcome->signaled ? outcome->signal : outcome->exit_code,
		       outcome->stderr_data ? outcome->stderr_data : "");
		goto out;
	}
	printf("outcome: denied under %s by %s (exit %d): %s", confine_mode_name(outcome->mode),
	       confine_runner_name(outcome->runner), outcome->exit_code,
	       outcome->stderr_data ? outcome->stderr_data : "\n");
	status = strcmp(o->expect, "denied") == 0 ? 0 : 1;
	goto out;

error:
	fprintf(stderr, "consumer: %s (%s): %s\n", confine_error_code_name(err.code),
		err.stage ? err.stage : "?", err.message);
	status = 1;
out:
	if (check_file_absent(target) != 0)
		status = 1;
	confine_outcome_free(outcome);
	confine_argv_free(confined);
	confine_policy_free(policy);
	confine_provider_free(provider);
	return status;
}

int main(int argc, char **argv)
{
	struct options o = { NULL, NULL, NULL, NULL, NULL, NULL };
	int r = parse(argc, argv, &o);

	if (r != 0)
		return r;
	if (check_version(o.expect_version) != 0 || check_default_launcher(o.expect_default) != 0)
		return 1;
	r = run(&o);
	fflush(stdout);
	return r;
}
