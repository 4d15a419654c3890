/* SPDX-License-Identifier: MIT */
/*
 * The built `confine` command, end to end (SPEC 10): output shapes (JSON
 * parsed field by field), exit statuses, the exact SANDBOX_UNAVAILABLE line,
 * configuration errors, runner pinning, policy resolution, and world effects
 * on disk.
 *
 * Usage: test-cli GROUP (usage, config, wrap, run, bash, probe, unavailable).
 * Groups that need a runner exit 77 (skip) where it is absent, unless
 * CONFINE_MUST_WORK=1, which makes that a failure.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>

#include "testlib.h"
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

extern char **environ;

#define SKIP_STATUS 77

/* snprintf that must not truncate: a cut path would test the wrong file. */
#define FORMAT(buf, size, ...)                                                               \
	do {                                                                                     \
		int n_ = snprintf((buf), (size), __VA_ARGS__);                                       \
		if (n_ < 0 || (size_t)n_ >= (size_t)(size))                                          \
			fail_msg("text does not fit in %zu bytes", (size_t)(size));                      \
	} while (0)

static const char *confine_path;   /* $CONFINE_TEST_CLI */
static const char *launcher_path;  /* $CONFINE_TEST_LAUNCHER */
static bool have_bwrap, have_landlock, have_landlock_full;

static char base[PATH_MAX];        /* a fresh directory under $HOME */
static char work[PATH_MAX];        /* the workspace: base/ws */
static char outside[PATH_MAX];     /* a sibling, not under any temp area */

static const char unavailable_prefix[] =
	"sandbox mode \"%s\" is requested but no sandbox backend is usable on this host; "
	"refusing to run the command unconfined. Install bubblewrap or run a "
	"Landlock-enforcing kernel (Linux), ensure sandbox-exec is usable (macOS) "
	"\xe2\x80\x94 Windows has no confinement backend yet \xe2\x80\x94 or switch the "
	"consumer to danger-full-access.";

/* ------------------------------------------------------------------------ */
/* Running the command                                                      */

typedef struct result {
	int status; /* exit code, or 128+N for signal N */
	char *out;
	char *err;
} result;

static void result_free(result *r) {
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof *r);
}

/* environ with `overrides` applied: "NAME=value" sets, "NAME" unsets. */
static char **make_env(const char *const *overrides) {
	size_t n = 0, m = 0, k = 0;
	char **env;
	while (environ[n])
		n++;
	while (overrides && overrides[m])
		m++;
	env = calloc(n + m + 1, sizeof *env);
	assert_non_null(env);
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;
		for (size_t j = 0; j < m; j++) {
			const char *eq = strchr(overrides[j], '=');
			size_t len = eq ? (size_t)(eq - overrides[j]) : strlen(overrides[j]);
			if (strncmp(environ[i], overrides[j], len) == 0 && environ[i][len] == '=')
				replaced = true;
		}
		if (!replaced)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < m; j++)
		if (strchr(overrides[j], '='))
			env[k++] = (char *)overrides[j];
	env[k] = NULL;
	return env;
}

static void append(char **buf, size_t *len, const char *data, size_t n) {
	char *grown = realloc(*buf, *len + n + 1);
	assert_non_null(grown);
	memcpy(grown + *len, data, n);
	*len += n;
	grown[*len] = '\0';
	*buf = grown;
}

/* Starts confine with `args` in `cwd` (NULL: ours); its stdout and stderr
 * are pipes returned in out_fd/err_fd. */
/* Set by a test: confine starts with SIGCHLD ignored (inherited across exec). */
static bool start_with_sigchld_ignored;

static pid_t start_confine(const char *cwd, const char *const *env_overrides,
                           const char *const *args, int *out_fd, int *err_fd) {
	int out_pipe[2], err_pipe[2];
	char *argv[64];
	size_t argc = 0;
	char **env = make_env(env_overrides);
	pid_t pid;

	argv[argc++] = (char *)confine_path;
	for (size_t i = 0; args[i]; i++) {
		assert_true(argc < 63);
		argv[argc++] = (char *)args[i];
	}
	argv[argc] = NULL;
	assert_int_equal(pipe2(out_pipe, O_CLOEXEC), 0);
	assert_int_equal(pipe2(err_pipe, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out_pipe[1], 1) < 0 ||
		    dup2(err_pipe[1], 2) < 0)
			_exit(120);
		if (cwd && chdir(cwd) < 0)
			_exit(121);
		if (start_with_sigchld_ignored)
			signal(SIGCHLD, SIG_IGN);
		execve(confine_path, argv, env);
		_exit(122);
	}
	free(env);
	close(out_pipe[1]);
	close(err_pipe[1]);
	*out_fd = out_pipe[0];
	*err_fd = err_pipe[0];
	return pid;
}

static void collect(pid_t pid, int out_fd, int err_fd, result *r) {
	size_t out_len = 0, err_len = 0;
	int status;
	struct pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
	r->out = calloc(1, 1);
	r->err = calloc(1, 1);
	assert_non_null(r->out);
	assert_non_null(r->err);
	while (fds[0].fd >= 0 || fds[1].fd >= 0) {
		char chunk[65536];
		if (poll(fds, 2, -1) < 0) {
			assert_int_equal(errno, EINTR);
			continue;
		}
		for (int i = 0; i < 2; i++) {
			ssize_t n;
			if (fds[i].fd < 0 || !fds[i].revents)
				continue;
			n = read(fds[i].fd, chunk, sizeof chunk);
			if (n <= 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
				continue;
			}
			if (i == 0)
				append(&r->out, &out_len, chunk, (size_t)n);
			else
				append(&r->err, &err_len, chunk, (size_t)n);
		}
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void run_in(result *r, const char *cwd, const char *const *env, const char *const *args) {
	int out_fd, err_fd;
	pid_t pid = start_confine(cwd, env, args, &out_fd, &err_fd);
	collect(pid, out_fd, err_fd, r);
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define ENV(...) ((const char *const[]){__VA_ARGS__, NULL})
#define RUN(r, ...) run_in((r), NULL, NULL, ARGS(__VA_ARGS__))

/* ------------------------------------------------------------------------ */
/* Assertions                                                               */

static void expect_status(const result *r, int status) {
	if (r->status != status)
		fail_msg("exit status %d, expected %d\nstdout: %s\nstderr: %s", r->status, status,
		         r->out, r->err);
}

/* stdout is exactly one JSON object on one line. */
static json_t *json_of(const result *r) {
	json_error_t error;
	json_t *value;
	size_t len = strlen(r->out);
	if (len == 0 || r->out[len - 1] != '\n' || strchr(r->out, '\n') != r->out + len - 1)
		fail_msg("stdout is not one line: \"%s\" (stderr: %s)", r->out, r->err);
	value = json_loads(r->out, 0, &error);
	if (!value || !json_is_object(value))
		fail_msg("stdout is not a JSON object: %s (%s)", r->out, error.text);
	return value;
}

/* The last line of stderr (run --json puts its object there), parsed. */
static json_t *json_of_last_err_line(const result *r) {
	json_error_t error;
	json_t *value;
	size_t len = strlen(r->err);
	const char *line;
	if (len == 0 || r->err[len - 1] != '\n')
		fail_msg("stderr does not end a line: \"%s\"", r->err);
	line = r->err + len - 1;
	while (line > r->err && line[-1] != '\n')
		line--;
	value = json_loadb(line, (size_t)(r->err + len - line), 0, &error);
	if (!value || !json_is_object(value))
		fail_msg("stderr's last line is not a JSON object: %s (%s)", line, error.text);
	return value;
}

static const char *json_str(const json_t *object, const char *key) {
	const json_t *value = json_object_get(object, key);
	if (!json_is_string(value))
		fail_msg("\"%s\" is not a string", key);
	return json_string_value(value);
}

static bool json_bool(const json_t *object, const char *key) {
	const json_t *value = json_object_get(object, key);
	if (!json_is_boolean(value))
		fail_msg("\"%s\" is not a boolean", key);
	return json_is_true(value);
}

static json_int_t json_int(const json_t *object, const char *key) {
	const json_t *value = json_object_get(object, key);
	if (!json_is_integer(value))
		fail_msg("\"%s\" is not an integer", key);
	return json_integer_value(value);
}

static void expect_keys(const json_t *object, const char *const *keys) {
	size_t n = 0;
	for (; keys[n]; n++)
		if (!json_object_get(object, keys[n]))
			fail_msg("key \"%s\" is missing", keys[n]);
	if (json_object_size(object) != n) {
		char *text = json_dumps(object, JSON_COMPACT);
		fail_msg("unexpected keys in %s", text);
	}
}

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* The array of strings `array` equals `expected`. */
static void expect_strings(const json_t *array, const char *const *expected) {
	size_t n = 0;
	assert_true(json_is_array(array));
	for (; expected[n]; n++) {
		const json_t *item = json_array_get(array, n);
		if (!json_is_string(item) || strcmp(json_string_value(item), expected[n]) != 0)
			fail_msg("element %zu is not \"%s\"", n, expected[n]);
	}
	assert_int_equal(json_array_size(array), n);
}

/* Copies `from` to `to` with `mode` (the copy is created anew). */
static void copy_file(const char *from, const char *to, mode_t mode) {
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out;
	assert_true(in >= 0);
	unlink(to);
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	assert_true(out >= 0);
	while ((n = read(in, buf, sizeof buf)) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	assert_int_equal(n, 0);
	close(in);
	assert_int_equal(fchmod(out, mode), 0);
	close(out);
}

static bool exists(const char *path) {
	struct stat st;
	return lstat(path, &st) == 0;
}

static void path_in(char *buf, const char *dir, const char *name) {
	FORMAT(buf, PATH_MAX, "%s/%s", dir, name);
}

static void write_file(const char *path, const char *text) {
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

static char *read_text(const char *path) {
	FILE *f = fopen(path, "r");
	char *text = calloc(1, 4096);
	assert_non_null(text);
	if (!f)
		return text;
	assert_true(fread(text, 1, 4095, f) < 4095);
	fclose(f);
	return text;
}

/* A config file in base/ with `text`; returns its path (static buffer). */
static const char *config_file(const char *text) {
	static char path[PATH_MAX];
	static int counter;
	FORMAT(path, sizeof path, "%s/config-%d.json", base, counter++);
	write_file(path, text);
	return path;
}

/* ------------------------------------------------------------------------ */
/* Fixture                                                                  */

static void remove_tree(const char *path) {
	pid_t pid = fork();
	int status;
	if (pid == 0) {
		execlp("rm", "rm", "-rf", path, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
}

static int setup(void **state) {
	const char *home = getenv("HOME");
	char root[PATH_MAX];
	(void)state;
	/* Under $HOME, not /tmp: "outside" must be outside every temp area. */
	FORMAT(root, sizeof root, "%s/.cache/confine-tests", home && home[0] ? home : "/tmp");
	if (mkdir(root, 0700) < 0 && errno != EEXIST) {
		char parent[PATH_MAX];
		FORMAT(parent, sizeof parent, "%s/.cache", home && home[0] ? home : "/tmp");
		mkdir(parent, 0700);
		if (mkdir(root, 0700) < 0 && errno != EEXIST)
			return -1;
	}
	FORMAT(base, sizeof base, "%s/cli.XXXXXX", root);
	if (!mkdtemp(base))
		return -1;
	path_in(work, base, "ws");
	path_in(outside, base, "outside");
	if (mkdir(work, 0700) < 0 || mkdir(outside, 0700) < 0)
		return -1;
	return 0;
}

static int teardown(void **state) {
	(void)state;
	remove_tree(base);
	return 0;
}

static bool must_work(void) {
	const char *v = getenv("CONFINE_MUST_WORK");
	return v && strcmp(v, "1") == 0;
}

static bool program_on_path(const char *name) {
	const char *path = getenv("PATH");
	char *copy, *save = NULL;
	bool found = false;
	if (!path)
		return false;
	copy = strdup(path);
	for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char candidate[PATH_MAX];
		if (dir[0] != '/')
			continue;
		FORMAT(candidate, sizeof candidate, "%s/%s", dir, name);
		found = access(candidate, X_OK) == 0;
	}
	free(copy);
	return found;
}

/* Whether `argv` exits 0 (stdout and stderr discarded). */
static bool succeeds(const char *const *argv) {
	int status;
	pid_t pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);
		dup2(devnull, 1);
		dup2(devnull, 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

/* `landlock-run --probe` says "landlock: fully enforced" (ABI 5 and up). */
static bool landlock_fully_enforced(void) {
	char command[PATH_MAX + 32], line[128] = "";
	FILE *f;
	FORMAT(command, sizeof command, "'%s' --probe 2>/dev/null", launcher_path);
	f = popen(command, "r");
	if (!f)
		return false;
	if (!fgets(line, sizeof line, f))
		line[0] = '\0';
	pclose(f);
	return strcmp(line, "landlock: fully enforced\n") == 0;
}

#define NEED(flag, what)                                                                     \
	do {                                                                                     \
		if (!(flag)) {                                                                       \
			if (must_work())                                                                 \
				fail_msg("%s is absent but CONFINE_MUST_WORK=1", what);                      \
			skip();                                                                          \
		}                                                                                    \
	} while (0)

/* The confine config that pins the build tree's launcher. */
static const char *launcher_config(void) {
	static char text[PATH_MAX + 64];
	FORMAT(text, sizeof text, "{\"landlockLauncher\": \"%s\"}", launcher_path);
	return config_file(text);
}

/* ------------------------------------------------------------------------ */
/* usage                                                                    */

static void test_version(void **state) {
	result r;
	char expected[64];
	(void)state;
	RUN(&r, "--version");
	expect_status(&r, 0);
	FORMAT(expected, sizeof expected, "confine %s\n", CONFINE_TEST_VERSION);
	assert_string_equal(r.out, expected);
	assert_string_equal(r.err, "");
	result_free(&r);
}

static void test_help(void **state) {
	const struct {
		const char *const *args;
		const char *synopsis;
	} cases[] = {
		{ ARGS("--help"), "Usage: confine COMMAND" },
		{ ARGS("-h"), "Usage: confine COMMAND" },
		{ ARGS("run", "--help"), "Usage: confine run [-m MODE] [-w DIR] [--runner NAME] [--config FILE] [--json]\n"
		                        "                   [--timeout MS] [--cwd DIR] -- PROGRAM [ARG...]\n" },
		{ ARGS("bash", "--help"), "Usage: confine bash [-m MODE]" },
		{ ARGS("wrap", "--help"), "Usage: confine wrap [-m MODE]" },
		{ ARGS("probe", "--help"), "Usage: confine probe [--runner NAME] [--config FILE] [--json]\n" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		result r;
		run_in(&r, NULL, NULL, cases[i].args);
		expect_status(&r, 0);
		if (strncmp(r.out, cases[i].synopsis, strlen(cases[i].synopsis)) != 0)
			fail_msg("help starts \"%.80s\", expected \"%s\"", r.out, cases[i].synopsis);
		assert_string_equal(r.err, "");
		result_free(&r);
	}
}

static void test_usage_errors(void **state) {
	const struct {
		const char *const *args;
		const char *stderr_text;
		const char *stdout_text; /* NULL: empty */
	} cases[] = {
		{ ARGS("frob"),
		  "confine: unknown command 'frob' (expected run, bash, wrap or probe)\n"
		  "Try 'confine --help' for more information.\n", NULL },
		{ ARGS("run", "ls", "-l"),
		  "confine: missing '--' before the command: write 'confine run [OPTION...] -- ls ...'\n"
		  "Try 'confine run --help' for more information.\n", NULL },
		{ ARGS("wrap", "-m", "read-only"),
		  "confine: missing '-- PROGRAM [ARG...]': confine wrap needs a command after '--'\n"
		  "Try 'confine wrap --help' for more information.\n",
		  /* wrap prints one JSON object on stdout in every case */
		  "{\"error\":{\"code\":\"USAGE\",\"message\":\"missing '-- PROGRAM [ARG...]': "
		  "confine wrap needs a command after '--'\"}}\n" },
		{ ARGS("run", "--frob", "--", "true"),
		  "confine: unknown option '--frob' for 'confine run'\n"
		  "Try 'confine run --help' for more information.\n", NULL },
		{ ARGS("probe", "-m", "read-only"),
		  "confine: unknown option '-m' for 'confine probe'\n"
		  "Try 'confine probe --help' for more information.\n", NULL },
		/* a policy value the library refuses: INVALID_POLICY, as from a
		 * config file (doc/SPEC.md 16), with no help pointer */
		{ ARGS("bash", "-m", "sideways", "-c", "true"),
		  "confine: invalid -m: unknown sandbox mode \"sideways\" (expected read-only, "
		  "workspace-write or danger-full-access)\n", NULL },
		{ ARGS("bash", "--timeout", "600001", "-c", "true"),
		  "confine: --timeout \"600001\": timeout 600001 ms exceeds the maximum of 600000 ms\n"
		  "Try 'confine bash --help' for more information.\n", NULL },
		/* the value is what is missing, not the `--` */
		{ ARGS("run", "--config", "--", "true"),
		  "confine: option '--config' is missing its FILE: the '--' after it ends confine's "
		  "options and cannot be a value\n"
		  "Try 'confine run --help' for more information.\n", NULL },
		{ ARGS("bash", "-c", "true", "-c", "false"),
		  "confine: option '-c' is given twice: confine bash runs one COMMAND (join commands with "
		  "';' or '&&' in one -c)\n"
		  "Try 'confine bash --help' for more information.\n", NULL },
		{ ARGS(NULL), NULL, NULL },
	};
	(void)state;
	for (size_t i = 0; cases[i].args[0]; i++) {
		result r;
		run_in(&r, NULL, NULL, cases[i].args);
		expect_status(&r, 125);
		assert_string_equal(r.err, cases[i].stderr_text);
		/* no help dumped */
		assert_string_equal(r.out, cases[i].stdout_text ? cases[i].stdout_text : "");
		result_free(&r);
	}
}

static void test_usage_error_as_json(void **state) {
	result r;
	json_t *object, *error;
	(void)state;
	RUN(&r, "bash", "--json", "--timeout", "abc", "-c", "true");
	expect_status(&r, 125);
	object = json_of(&r);
	expect_keys(object, KEYS("error"));
	error = json_object_get(object, "error");
	expect_keys(error, KEYS("code", "message"));
	assert_string_equal(json_str(error, "code"), "USAGE");
	assert_string_equal(json_str(error, "message"),
	                    "invalid --timeout \"abc\": expected a whole number of milliseconds from "
	                    "1 to 600000");
	json_decref(object);
	result_free(&r);

	/* --json after the bad option still asks for JSON; a value that reads
	 * "--json" is a value, not the flag */
	RUN(&r, "probe", "--frob", "--json");
	expect_status(&r, 125);
	object = json_of(&r);
	assert_string_equal(json_str(json_object_get(object, "error"), "code"), "USAGE");
	json_decref(object);
	result_free(&r);
	RUN(&r, "bash", "-m", "sideways", "-c", "--json");
	expect_status(&r, 125);
	assert_string_equal(r.out, "");
	result_free(&r);

	/* run --json: stdout is the command's; the object is stderr's last line */
	RUN(&r, "run", "--json", "--frob", "--", "true");
	expect_status(&r, 125);
	assert_string_equal(r.out, "");
	/* the help pointer first: the object is the last line (doc/SPEC.md 10) */
	assert_string_equal(r.err, "confine: unknown option '--frob' for 'confine run'\n"
	                           "Try 'confine run --help' for more information.\n"
	                           "{\"error\":{\"code\":\"USAGE\",\"message\":\"unknown option "
	                           "'--frob' for 'confine run'\"}}\n");
	json_decref(json_of_last_err_line(&r));
	result_free(&r);
}

static void test_bad_workspace_is_a_policy_error(void **state) {
	char missing[PATH_MAX], file[PATH_MAX], side[PATH_MAX], cmd[PATH_MAX + 32];
	result r;
	(void)state;
	path_in(missing, base, "no-such-dir");
	path_in(file, base, "a-file");
	path_in(side, base, "side-effect");
	write_file(file, "x");
	FORMAT(cmd, sizeof cmd, "touch '%s'", side);
	run_in(&r, NULL, NULL, ARGS("run", "-m", "danger-full-access", "-w", missing, "--", "sh", "-c", cmd));
	expect_status(&r, 125);
	assert_true(strncmp(r.err, "confine: ", 9) == 0);
	assert_non_null(strstr(r.err, missing));
	assert_false(exists(side));
	result_free(&r);
	run_in(&r, NULL, NULL, ARGS("wrap", "-w", file, "--", "true"));
	expect_status(&r, 125);
	assert_non_null(strstr(r.err, file));
	{
		/* The error names the directory and the flag, not "the session's cwd". */
		char expected[PATH_MAX * 2];
		json_t *object = json_of(&r), *error = json_object_get(object, "error");
		FORMAT(expected, sizeof expected,
		       "workspace root \"%s\" (given with -w) is not a directory", file);
		expect_keys(error, KEYS("code", "message"));
		assert_string_equal(json_str(error, "code"), "INVALID_POLICY");
		assert_string_equal(json_str(error, "message"), expected);
		json_decref(object);
	}
	assert_null(strstr(r.err, "session's cwd"));
	result_free(&r);
	run_in(&r, NULL, NULL, ARGS("run", "-w", missing, "--", "true"));
	expect_status(&r, 125);
	{
		char expected[PATH_MAX * 2];
		FORMAT(expected, sizeof expected,
		       "confine: workspace root \"%s\" (given with -w) does not exist: No such file or "
		       "directory\n",
		       missing);
		assert_string_equal(r.err, expected);
	}
	result_free(&r);
	/* workspace-write of / would be full access in disguise */
	RUN(&r, "wrap", "-m", "workspace-write", "-w", "/", "--", "true");
	expect_status(&r, 125);
	assert_true(strncmp(r.err, "confine: ", 9) == 0);
	result_free(&r);
}

/* ------------------------------------------------------------------------ */
/* config                                                                   */

static void expect_config_error(const char *path, const char *const *env, const char *const *args,
                                const char *expected_after_path) {
	char side[PATH_MAX];
	char expected[PATH_MAX * 2];
	result r;
	path_in(side, base, "config-side-effect");
	unlink(side);
	run_in(&r, NULL, env, args);
	expect_status(&r, 125);
	FORMAT(expected, sizeof expected, "confine: %s%s\n", path, expected_after_path);
	assert_string_equal(r.err, expected);
	assert_false(exists(side)); /* nothing ran */
	result_free(&r);
}

/* A restriction danger-full-access cannot hold is INVALID_POLICY naming
 * the flag, and nothing runs (doc/SPEC.md 15, "Contradictions"); a
 * writable root under read-only is accepted and reported not granted. */
static void test_contradictions_are_refused(void **state) {
	char side[PATH_MAX], cmd[PATH_MAX + 32], secret[PATH_MAX];
	static const struct {
		const char *flag, *value;
	} flags[] = {
		{ "--network", "off" }, { "--deny-read", NULL }, { "--protect", "f" },
		{ "--require-full", NULL },
	};
	result r;
	(void)state;
	path_in(side, base, "contradiction-ran");
	path_in(secret, base, "secret");
	write_file(secret, "s");
	FORMAT(cmd, sizeof cmd, "touch '%s'", side);
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
		const char *value = flags[i].value ? flags[i].value
		                                   : (i == 1 ? secret : NULL);
		char want[64];
		if (value)
			run_in(&r, NULL, NULL, ARGS("run", "-m", "danger-full-access", flags[i].flag, value,
			                            "--", "sh", "-c", cmd));
		else
			run_in(&r, NULL, NULL, ARGS("run", "-m", "danger-full-access", flags[i].flag, "--",
			                            "sh", "-c", cmd));
		expect_status(&r, 125);
		FORMAT(want, sizeof want, "confine: %s", flags[i].flag);
		if (strncmp(r.err, want, strlen(want)) != 0)
			fail_msg("%s: %s", flags[i].flag, r.err);
		assert_non_null(strstr(r.err, "cannot hold under danger-full-access"));
		assert_false(exists(side));
		result_free(&r);
	}
	/* JSON callers read the same code. */
	run_in(&r, NULL, NULL, ARGS("wrap", "-m", "danger-full-access", "--network", "off", "--", "true"));
	expect_status(&r, 125);
	{
		json_t *object = json_of(&r), *error = json_object_get(object, "error");
		assert_string_equal(json_str(error, "code"), "INVALID_POLICY");
		assert_true(strncmp(json_str(error, "message"), "--network off: ", 15) == 0);
		json_decref(object);
	}
	result_free(&r);
	/* --writable under read-only: accepted, and said. */
	run_in(&r, NULL, NULL, ARGS("wrap", "--config", launcher_config(), "-m", "read-only", "--writable", base, "--", "true"));
	expect_status(&r, 0);
	{
		json_t *object = json_of(&r), *clauses = json_object_get(object, "clauses");
		bool said = false;
		for (size_t i = 0; i < json_array_size(clauses); i++) {
			json_t *c = json_array_get(clauses, i);
			if (strcmp(json_str(c, "clause"), "writableRoots") == 0 &&
			    strcmp(json_str(c, "subject"), base) == 0 &&
			    strcmp(json_str(c, "reason"), "not granted: read-only writes nowhere") == 0)
				said = true;
		}
		assert_true(said);
		json_decref(object);
	}
	result_free(&r);
	unlink(secret);
}

static void test_config_errors(void **state) {
	static const struct {
		const char *text;
		const char *message;
	} cases[] = {
		{ "{\"mdoe\": \"workspace-write\"}",
		  ": unknown key \"mdoe\" (expected mode, workspaceRoot, runner, runnerCommand, "
		  "runnerFailureSignatures, probeTimeoutMs, landlockLauncher, writableRoots, "
		  "protectedPaths, unprotect, defaultProtections, denyRead, network, allowUnixSockets, env, "
		  "requireFull, limits)" },
		{ "{\"mode\": 2}", ": mode must be a string, not a number 2" },
		{ "{\"mode\": \"wide-open\"}",
		  ": key \"mode\": unknown sandbox mode \"wide-open\" (expected read-only, "
		  "workspace-write or danger-full-access)" },
		{ "{\"workspaceRoot\": \"relative\"}",
		  ": key \"workspaceRoot\" must be an absolute path, got \"relative\"" },
		{ "{\"runnerCommand\": [\"x\", false]}",
		  ": runnerCommand must be a string, not a boolean false" },
		{ "{\"probeTimeoutMs\": \"soon\"}", ": probeTimeoutMs must be a number, not a string \"soon\"" },
		{ "[\"mode\"]", ": the configuration must be a JSON object, not an array" },
		{ "{\n  \"mode\": \"read-only\"\n  \"probeTimeoutMs\": 100\n}\n",
		  ":3:18: malformed JSON: '}' expected near '\"probeTimeoutMs\"'" },
		/* the provider's own validations: SPEC 4's exact messages */
		{ "{\"probeTimeoutMs\": 0}",
		  ": sandbox-local: probeTimeoutMs must be a positive finite number" },
		{ "{\"probeTimeoutMs\": -1}",
		  ": sandbox-local: probeTimeoutMs must be a positive finite number" },
		{ "{\"probeTimeoutMs\": 0.5}",
		  ": sandbox-local: probeTimeoutMs must be a positive finite number" },
		{ "{\"runnerFailureSignatures\": [\"x: \"]}",
		  ": sandbox-local: runnerFailureSignatures requires runnerCommand" },
		{ "{\"runnerCommand\": [\"/usr/bin/bwrap\"]}",
		  ": sandbox-local: runnerCommand requires at least one runnerFailureSignatures entry" },
		{ "{\"runnerCommand\": [\"/usr/bin/bwrap\"], \"runnerFailureSignatures\": [\"  \"]}",
		  ": sandbox-local: runnerFailureSignatures entries must be non-empty single-line strings" },
		{ "{\"runnerCommand\": [\"/usr/bin/bwrap\"], \"runnerFailureSignatures\": [\"a\\nb\"]}",
		  ": sandbox-local: runnerFailureSignatures entries must be non-empty single-line strings" },
		/* SPEC 4's order, whatever the file's: the signatures before the
		 * probe timeout */
		{ "{\"probeTimeoutMs\": 0.5, \"runnerFailureSignatures\": [\"x: \"]}",
		  ": sandbox-local: runnerFailureSignatures requires runnerCommand" },
		{ "{\"probeTimeoutMs\": 0, \"runnerCommand\": [\"/usr/bin/bwrap\"]}",
		  ": sandbox-local: runnerCommand requires at least one runnerFailureSignatures entry" },
		{ "{\"probeTimeoutMs\": -1, \"runnerCommand\": [\"/usr/bin/bwrap\"], "
		  "\"runnerFailureSignatures\": [\"\"]}",
		  ": sandbox-local: runnerFailureSignatures entries must be non-empty single-line strings" },
	};
	char cmd[PATH_MAX + 32], side[PATH_MAX];
	(void)state;
	path_in(side, base, "config-side-effect");
	FORMAT(cmd, sizeof cmd, "touch '%s'", side);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *path = config_file(cases[i].text);
		/* the mode is danger-full-access: the error must still stop the run */
		expect_config_error(path, NULL,
		                    ARGS("run", "-m", "danger-full-access", "--config", path, "--", "sh",
		                         "-c", cmd),
		                    cases[i].message);
	}
}

static void test_config_unreadable_and_env(void **state) {
	char missing[PATH_MAX], env[PATH_MAX + 32], cmd[PATH_MAX + 32], side[PATH_MAX];
	const char *good;
	result r;
	(void)state;
	path_in(missing, base, "missing.json");
	path_in(side, base, "config-side-effect");
	FORMAT(cmd, sizeof cmd, "touch '%s'", side);
	expect_config_error(missing, NULL,
	                    ARGS("run", "-m", "danger-full-access", "--config", missing, "--", "sh",
	                         "-c", cmd),
	                    ": cannot read config file: No such file or directory");
	/* $CONFINE_CONFIG is read when --config is absent */
	FORMAT(env, sizeof env, "CONFINE_CONFIG=%s", missing);
	expect_config_error(missing, ENV(env),
	                    ARGS("run", "-m", "danger-full-access", "--", "sh", "-c", cmd),
	                    ": cannot read config file: No such file or directory");
	/* --config wins over $CONFINE_CONFIG */
	good = config_file("{\"mode\": \"danger-full-access\"}");
	run_in(&r, NULL, ENV(env), ARGS("wrap", "--config", good, "--", "true"));
	expect_status(&r, 0);
	result_free(&r);
	expect_config_error(base, NULL, ARGS("probe", "--config", base),
	                    ": cannot read config file: not a regular file");
	/* A FIFO with no writer once blocked confine in open(2) for ever. */
	{
		char fifo[PATH_MAX];
		path_in(fifo, base, "config.fifo");
		assert_int_equal(mkfifo(fifo, 0600), 0);
		expect_config_error(fifo, NULL,
		                    ARGS("run", "-m", "danger-full-access", "--config", fifo, "--", "sh",
		                         "-c", cmd),
		                    ": cannot read config file: not a regular file");
		unlink(fifo);
	}
}

static void test_config_mode_and_root_defaults(void **state) {
	char other[PATH_MAX], text[PATH_MAX * 2 + 128];
	const char *path;
	json_t *object, *policy;
	result r;
	(void)state;
	path_in(other, base, "other-root");
	assert_int_equal(mkdir(other, 0700), 0);
	FORMAT(text, sizeof text,
	         "{\"mode\": \"danger-full-access\", \"workspaceRoot\": \"%s\", "
	         "\"landlockLauncher\": \"%s\"}",
	         other, launcher_path);
	path = config_file(text);

	/* the config's mode and root apply when -m and -w are absent */
	run_in(&r, work, NULL, ARGS("wrap", "--config", path, "--", "true"));
	expect_status(&r, 0);
	object = json_of(&r);
	policy = json_object_get(object, "policy");
	assert_string_equal(json_str(policy, "mode"), "danger-full-access");
	assert_string_equal(json_str(policy, "workspaceRoot"), other);
	json_decref(object);
	result_free(&r);

	/* -m and -w outrank them */
	run_in(&r, other, NULL,
	       ARGS("wrap", "--config", path, "-m", "read-only", "-w", work, "--", "true"));
	expect_status(&r, 0);
	object = json_of(&r);
	policy = json_object_get(object, "policy");
	assert_string_equal(json_str(policy, "mode"), "read-only");
	assert_string_equal(json_str(policy, "workspaceRoot"), work);
	json_decref(object);
	result_free(&r);

	/* without mode or root in the config: read-only in the current
	 * directory (the config only pins the launcher a wrap argv needs) */
	FORMAT(text, sizeof text, "CONFINE_CONFIG=%s", launcher_config());
	run_in(&r, work, ENV(text), ARGS("wrap", "--", "true"));
	expect_status(&r, 0);
	object = json_of(&r);
	policy = json_object_get(object, "policy");
	assert_string_equal(json_str(policy, "mode"), "read-only");
	assert_string_equal(json_str(policy, "workspaceRoot"), work);
	json_decref(object);
	result_free(&r);
}

static void test_config_missing_root_names_the_key(void **state) {
	char missing[PATH_MAX], text[PATH_MAX + 64], prefix[PATH_MAX * 2];
	const char *path;
	result r;
	(void)state;
	path_in(missing, base, "gone");
	FORMAT(text, sizeof text, "{\"workspaceRoot\": \"%s\"}", missing);
	path = config_file(text);
	RUN(&r, "wrap", "--config", path, "--", "true");
	expect_status(&r, 125);
	FORMAT(prefix, sizeof prefix, "confine: %s: key \"workspaceRoot\": ", path);
	assert_true(strncmp(r.err, prefix, strlen(prefix)) == 0);
	assert_non_null(strstr(r.err, missing));
	result_free(&r);
}

static void test_huge_probe_timeout_is_a_number(void **state) {
	const char *path = config_file("{\"probeTimeoutMs\": 1e308}");
	result r;
	(void)state;
	NEED(have_bwrap || have_landlock, "a Linux runner");
	/* A huge bound must not overflow into "no time at all": the probe
	 * passes as it would with the default. */
	RUN(&r, "probe", "--config", path);
	expect_status(&r, 0);
	result_free(&r);
}

/* ------------------------------------------------------------------------ */
/* wrap                                                                     */

/* wrap's env is the environment to spawn with as one object, NAME to
 * VALUE (doc/SPEC.md 10), the policy's filter applied (15). */
static void test_wrap_env_is_an_object(void **state) {
	const char *config = launcher_config();
	json_t *object, *env;
	result r;
	(void)state;
	run_in(&r, NULL, ENV("CONFINE_TEST_PLAIN=p=1", "CONFINE_TEST_API_KEY=k-1"),
	       ARGS("wrap", "-m", "danger-full-access", "--", "env"));
	expect_status(&r, 0);
	object = json_of(&r);
	env = json_object_get(object, "env");
	assert_true(json_is_object(env));
	/* the value is everything after the first '=' */
	assert_string_equal(json_str(env, "CONFINE_TEST_PLAIN"), "p=1");
	/* danger-full-access: no default excludes */
	assert_string_equal(json_str(env, "CONFINE_TEST_API_KEY"), "k-1");
	{
		const char *key;
		json_t *value;
		json_object_foreach(env, key, value) {
			(void)key;
			assert_true(json_is_string(value));
		}
	}
	json_decref(object);
	result_free(&r);

	NEED(have_bwrap || have_landlock, "a Linux runner");
	run_in(&r, NULL, ENV("CONFINE_TEST_PLAIN=p=1", "CONFINE_TEST_API_KEY=k-1"),
	       ARGS("wrap", "--config", config, "--runner", have_bwrap ? "bwrap" : "landlock",
	            "--env-include", "confine_test_plain", "--env-inherit", "none", "--", "env"));
	expect_status(&r, 0);
	object = json_of(&r);
	env = json_object_get(object, "env");
	assert_true(json_is_object(env));
	/* inherit none, one include: exactly that variable (and what set adds) */
	assert_int_equal(json_object_size(env), 1);
	assert_string_equal(json_str(env, "CONFINE_TEST_PLAIN"), "p=1");
	json_decref(object);
	result_free(&r);
}

/* The launcher's notices, never its failure (doc/SPEC.md 6): the lines of
 * its rule's informationalLines, on both rungs. */
#define NO_SUPERVISOR(what)                                                                   \
	"landlock-run: no supervisor (" what "): metadata changes and unix socket connects " \
	"outside the grants are not mediated"
#define LAUNCHER_NOTICES                                                                     \
	"landlock-run: partial enforcement (older Landlock ABI)",                                \
	    NO_SUPERVISOR("user-notification"), NO_SUPERVISOR("pidfd_open"),                     \
	    NO_SUPERVISOR("pidfd_getfd"), NO_SUPERVISOR("process_vm_readv"), NO_SUPERVISOR("proc"), \
	    NO_SUPERVISOR("nested-listener")

static bool strings_hold(const json_t *array, const char *item) {
	for (size_t i = 0; i < json_array_size(array); i++)
		if (strcmp(json_string_value(json_array_get(array, i)), item) == 0)
			return true;
	return false;
}

/* `layers` (doc/SPEC.md 10) as this host predicts them: seccomp always;
 * landlock where the launcher's probe says fully enforced; the supervisor
 * exactly when `unenforced` does not list what its absence leaves out. */
static void expect_launcher_layers(const json_t *object) {
	const json_t *layers = json_object_get(object, "layers");
	const json_t *unenforced = json_object_get(object, "unenforced");
	assert_true(strings_hold(layers, "seccomp"));
	assert_int_equal(strings_hold(layers, "landlock"), have_landlock_full);
	assert_int_equal(strings_hold(layers, "supervisor"), !strings_hold(unenforced, "metadata"));
	/* without it the run is partial (doc/SPEC.md 13) */
	if (!strings_hold(layers, "supervisor"))
		assert_string_equal(json_str(object, "enforcement"), "partial");
}

static void test_wrap_bwrap_shape(void **state) {
	const char *config = launcher_config();
	json_t *object, *argv, *rules, *rule, *policy;
	char *launcher_real = realpath(launcher_path, NULL);
	bool shm = access("/dev/shm", F_OK) == 0;
	result r;
	size_t n, at;
	(void)state;
	NEED(have_bwrap, "bwrap");
	assert_non_null(launcher_real);
	RUN(&r, "wrap", "--config", config, "--runner", "bwrap", "-m", "workspace-write", "-w", work,
	    "--", "sh", "-c", "echo hi");
	expect_status(&r, 0);
	assert_string_equal(r.err, "");
	object = json_of(&r);
	expect_keys(object, KEYS("argv", "runner", "enforcement", "denialSignatures",
	                         "runnerFailureRules", "unenforced", "layers", "clauses", "env",
	                         "policy"));
	argv = json_object_get(object, "argv");
	n = json_array_size(argv);
	/* bwrap, its 21 tokens, the launcher's bind (3), "--", the launcher,
	 * --best-effort, the workspace's --identity (2: doc/SPEC.md 14, "What
	 * bwrap binds is what was granted"), its grants (8, or 10 with
	 * /dev/shm), "--", argv */
	assert_int_equal(n, 1 + 21 + 3 + 3 + 2 + (shm ? 10 : 8) + 1 + 3);
	{
		const char *argv0 = json_string_value(json_array_get(argv, 0));
		assert_true(argv0[0] == '/');
		assert_string_equal(argv0 + strlen(argv0) - 6, "/bwrap");
	}
	{
		/* the layered argv for others (doc/SPEC.md 5, 14): the trusted
		 * on-disk launcher, bound read-only at a fixed path in bwrap's own
		 * /dev after every other mount, runs inside with the Landlock
		 * grants; no status channel */
		const char *expected[] = {"--ro-bind", "/", "/", "--dev", "/dev", "--unshare-pid",
		                          "--unshare-ipc", "--proc", "/proc", "--ro-bind", "/proc/sys",
		                          "/proc/sys", "--die-with-parent", "--new-session",
		                          "--cap-drop", "ALL", "--tmpfs", "/tmp", "--bind", work, work,
		                          "--ro-bind", launcher_real, "/dev/.confine/landlock-run", "--",
		                          "/dev/.confine/landlock-run", "--best-effort", "--identity",
		                          NULL};
		const char *grants[] = {"--ro", "/", "--rw", "/dev/null", "--rw", "/tmp", NULL};
		struct stat ws_st;
		char identity[PATH_MAX + 64];
		for (at = 0; expected[at]; at++)
			assert_string_equal(json_string_value(json_array_get(argv, at + 1)), expected[at]);
		at++;
		/* DEV:INO:PATH of the workspace, as the library opened it */
		assert_int_equal(stat(work, &ws_st), 0);
		snprintf(identity, sizeof identity, "%llu:%llu:%s", (unsigned long long)ws_st.st_dev,
		         (unsigned long long)ws_st.st_ino, work);
		assert_string_equal(json_string_value(json_array_get(argv, at++)), identity);
		for (size_t i = 0; grants[i]; i++)
			assert_string_equal(json_string_value(json_array_get(argv, at++)), grants[i]);
		if (shm) {
			/* granted, but no socket there is reached (issue 21) */
			assert_string_equal(json_string_value(json_array_get(argv, at++)), "--rw-shared");
			assert_string_equal(json_string_value(json_array_get(argv, at++)), "/dev/shm");
		}
		{
			const char *tail[] = {"--rw", work, "--", "sh", "-c", "echo hi", NULL};
			for (size_t i = 0; tail[i]; i++)
				assert_string_equal(json_string_value(json_array_get(argv, at++)), tail[i]);
		}
		assert_int_equal(at, n);
	}
	assert_string_equal(json_str(object, "runner"), "bwrap");
	/* `full` exactly when every clause is enforced (doc/SPEC.md 15). */
	{
		const json_t *clauses = json_object_get(object, "clauses");
		bool all = json_array_size(clauses) > 0;
		for (size_t i = 0; i < json_array_size(clauses); i++)
			all = all && strcmp(json_str(json_array_get(clauses, i), "status"), "enforced") == 0;
		assert_string_equal(json_str(object, "enforcement"), all ? "full" : "partial");
		assert_int_equal(json_array_size(json_object_get(object, "unenforced")) == 0, all);
	}
	expect_strings(json_object_get(object, "denialSignatures"),
	               KEYS("read-only file system", "permission denied", "operation not permitted"));
	rules = json_object_get(object, "runnerFailureRules");
	assert_int_equal(json_array_size(rules), 2);
	/* bwrap's own failures exit 1; no informational lines */
	rule = json_array_get(rules, 0);
	expect_keys(rule, KEYS("allowedExitCodes", "fatalSignatures"));
	assert_int_equal(json_array_size(json_object_get(rule, "allowedExitCodes")), 1);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(rule, "allowedExitCodes"), 0)), 1);
	expect_strings(json_object_get(rule, "fatalSignatures"), KEYS("bwrap: "));
	/* then the launcher's: exit 125 (bwrap returns it), its notices aside */
	rule = json_array_get(rules, 1);
	expect_keys(rule, KEYS("allowedExitCodes", "fatalSignatures", "informationalLines"));
	assert_int_equal(json_array_size(json_object_get(rule, "allowedExitCodes")), 1);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(rule, "allowedExitCodes"), 0)),
	                 125);
	expect_strings(json_object_get(rule, "fatalSignatures"), KEYS("landlock-run: "));
	expect_strings(json_object_get(rule, "informationalLines"), KEYS(LAUNCHER_NOTICES));
	/* Landlock's ABI does not lower bwrap's enforcement (its mounts govern
	 * the files); only a missing supervisor does */
	expect_launcher_layers(object);
	policy = json_object_get(object, "policy");
	expect_keys(policy, KEYS("mode", "workspaceRoot", "writableRoots", "protectedPaths",
	                         "defaultProtections", "unprotect", "denyRead", "network", "allowUnixSockets",
	                         "env", "requireFull", "limits"));
	assert_true(json_is_object(json_object_get(object, "env")));
	assert_string_equal(json_str(policy, "mode"), "workspace-write");
	assert_string_equal(json_str(policy, "workspaceRoot"), work);
	json_decref(object);
	result_free(&r);
	free(launcher_real);

	/* A launcher the trust rule refuses is never bound: the rung cannot
	 * hand an argv to others (the pinned rung is probed first). */
	{
		char dir[PATH_MAX], copy[PATH_MAX], text[PATH_MAX + 64];
		json_t *error;
		FORMAT(dir, sizeof dir, "%s/open-launcher", base);
		assert_int_equal(mkdir(dir, 0777), 0);
		assert_int_equal(chmod(dir, 0777), 0);
		FORMAT(copy, sizeof copy, "%s/landlock-run", dir);
		copy_file(launcher_path, copy, 0755);
		FORMAT(text, sizeof text, "{\"landlockLauncher\": \"%s\"}", copy);
		RUN(&r, "wrap", "--config", config_file(text), "--runner", "bwrap", "-w", work, "--",
		    "true");
		expect_status(&r, 125);
		object = json_of(&r);
		error = json_object_get(object, "error");
		assert_string_equal(json_str(error, "code"), "SANDBOX_UNAVAILABLE");
		assert_non_null(strstr(json_str(error, "runnerFailure"), "is not trusted"));
		assert_non_null(strstr(json_str(error, "runnerFailure"), dir));
		json_decref(object);
		result_free(&r);
	}
}

static void test_wrap_landlock_pinned(void **state) {
	const char *config = launcher_config();
	json_t *object, *rules, *rule;
	char me[16];
	result r;
	(void)state;
	RUN(&r, "wrap", "--config", config, "--runner", "landlock", "-m", "workspace-write", "-w",
	    work, "--", "true");
	expect_status(&r, 0);
	object = json_of(&r);
	/* /dev/shm (POSIX semaphores), where the host has it, shared: no
	 * socket there is reached. wrap makes no temp dir, and the host's
	 * /tmp is never granted: no temp area (privateTemp "none", partial
	 * for the shared /dev/shm, so in the unenforced summary). */
	/* Its spawner is named: the harness that ran `confine wrap`, this
	 * test (R4-F2, doc/SPEC.md 13). */
	snprintf(me, sizeof me, "%ld", (long)getpid());
	if (access("/dev/shm", F_OK) == 0)
		expect_strings(json_object_get(object, "argv"),
		               KEYS(launcher_path, "--starter", me, "--ro", "/", "--rw", "/dev/null",
		                    "--rw-shared", "/dev/shm", "--rw", work, "--", "true"));
	else
		expect_strings(json_object_get(object, "argv"),
		               KEYS(launcher_path, "--starter", me, "--ro", "/", "--rw", "/dev/null",
		                    "--rw", work, "--", "true"));
	assert_string_equal(json_str(object, "runner"), "landlock");
	assert_true(strcmp(json_str(object, "enforcement"), "full") == 0 ||
	            strcmp(json_str(object, "enforcement"), "partial") == 0);
	expect_strings(json_object_get(object, "denialSignatures"), KEYS("permission denied"));
	rules = json_object_get(object, "runnerFailureRules");
	assert_int_equal(json_array_size(rules), 1);
	rule = json_array_get(rules, 0);
	expect_keys(rule, KEYS("allowedExitCodes", "fatalSignatures", "informationalLines"));
	assert_int_equal(json_array_size(json_object_get(rule, "allowedExitCodes")), 1);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(rule, "allowedExitCodes"), 0)),
	                 125);
	expect_strings(json_object_get(rule, "fatalSignatures"), KEYS("landlock-run: "));
	expect_strings(json_object_get(rule, "informationalLines"), KEYS(LAUNCHER_NOTICES));
	if (access("/dev/shm", F_OK) == 0) {
		/* no temp dir in a wrap, and the shared /dev/shm beside it:
		 * privateTemp is partial, so it is in the summary */
		json_t *unenforced = json_object_get(object, "unenforced");
		bool listed = false;
		for (size_t i = 0; i < json_array_size(unenforced); i++)
			listed = listed || strcmp(json_string_value(json_array_get(unenforced, i)),
			                          "privateTemp") == 0;
		assert_true(listed);
	}
	json_decref(object);
	result_free(&r);

	/* read-only: only /dev/null is writable */
	RUN(&r, "wrap", "--config", config, "--runner", "landlock", "-w", work, "--", "true");
	expect_status(&r, 0);
	object = json_of(&r);
	expect_strings(json_object_get(object, "argv"),
	               KEYS(launcher_path, "--starter", me, "--ro", "/", "--rw", "/dev/null", "--",
	                    "true"));
	json_decref(object);
	result_free(&r);
}

static void test_wrap_runner_command(void **state) {
	const char *config = config_file("{\"runnerCommand\": [\"/opt/my-runner\", \"--flag\"], "
	                                 "\"runnerFailureSignatures\": [\"my-runner: \"]}");
	json_t *object, *argv, *rule;
	result r;
	(void)state;
	RUN(&r, "wrap", "--config", config, "-w", work, "--", "ls");
	expect_status(&r, 0);
	object = json_of(&r);
	argv = json_object_get(object, "argv");
	assert_string_equal(json_string_value(json_array_get(argv, 0)), "/opt/my-runner");
	assert_string_equal(json_string_value(json_array_get(argv, 1)), "--flag");
	assert_string_equal(json_string_value(json_array_get(argv, 2)), "--ro-bind");
	assert_string_equal(json_string_value(json_array_get(argv, json_array_size(argv) - 2)), "--");
	assert_string_equal(json_string_value(json_array_get(argv, json_array_size(argv) - 1)), "ls");
	assert_string_equal(json_str(object, "runner"), "runnerCommand");
	/* The operator's runner holds the files; what only the launcher adds
	 * (set-ID refusal, socket mediation) it does not: said per clause. */
	assert_string_equal(json_str(object, "enforcement"), "partial");
	expect_strings(json_object_get(object, "denialSignatures"),
	               KEYS("read-only file system", "permission denied"));
	rule = json_array_get(json_object_get(object, "runnerFailureRules"), 0);
	expect_keys(rule, KEYS("fatalSignatures"));
	expect_strings(json_object_get(rule, "fatalSignatures"), KEYS("my-runner: "));
	json_decref(object);
	result_free(&r);
}

static void test_wrap_danger_is_the_argv_unchanged(void **state) {
	json_t *object;
	result r;
	(void)state;
	RUN(&r, "wrap", "-m", "danger-full-access", "-w", work, "--", "echo", "a b", "--");
	expect_status(&r, 0);
	object = json_of(&r);
	expect_keys(object, KEYS("argv", "runner", "denialSignatures", "runnerFailureRules",
	                         "unenforced", "layers", "clauses", "env", "policy"));
	expect_strings(json_object_get(object, "argv"), KEYS("echo", "a b", "--"));
	assert_int_equal(json_array_size(json_object_get(object, "layers")), 0);
	assert_true(json_is_null(json_object_get(object, "runner")));
	assert_int_equal(json_array_size(json_object_get(object, "denialSignatures")), 0);
	assert_int_equal(json_array_size(json_object_get(object, "runnerFailureRules")), 0);
	assert_string_equal(json_str(json_object_get(object, "policy"), "mode"), "danger-full-access");
	json_decref(object);
	result_free(&r);
}

static void test_wrap_argument_not_utf8(void **state) {
	result r;
	(void)state;
	/* JSON cannot carry it unchanged, and a changed argv is a different
	 * command: refuse rather than print a lossy copy. */
	RUN(&r, "wrap", "-w", work, "--", "printf", "\xff\xfe");
	expect_status(&r, 125);
	assert_string_equal(r.err, "confine: argument \"\xff\xfe\" is not valid UTF-8 and "
	                           "cannot be written as JSON\n");
	{
		json_t *object = json_of(&r), *error = json_object_get(object, "error");
		assert_string_equal(json_str(error, "code"), "USAGE");
		/* the message itself is made valid: each bad byte is U+FFFD */
		assert_string_equal(json_str(error, "message"),
		                    "argument \"\xef\xbf\xbd\xef\xbf\xbd\" is not valid UTF-8 and "
		                    "cannot be written as JSON");
		json_decref(object);
	}
	result_free(&r);
}

static void test_wrap_workspace_link_dotdot(void **state) {
	char a[PATH_MAX], ab[PATH_MAX], link_path[PATH_MAX], given[PATH_MAX], real_a[PATH_MAX];
	json_t *object;
	result r;
	(void)state;
	/* ws/link -> base/a/b: ws/link/.. is base/a (where a chdir lands), not ws */
	path_in(a, base, "a");
	path_in(ab, a, "b");
	path_in(link_path, work, "link");
	assert_int_equal(mkdir(a, 0700), 0);
	assert_int_equal(mkdir(ab, 0700), 0);
	assert_int_equal(symlink(ab, link_path), 0);
	assert_non_null(realpath(a, real_a));
	FORMAT(given, sizeof given, "%s/..", link_path);
	RUN(&r, "wrap", "--config", launcher_config(), "-m", "workspace-write", "-w", given, "--",
	    "true");
	expect_status(&r, 0);
	object = json_of(&r);
	assert_string_equal(json_str(json_object_get(object, "policy"), "workspaceRoot"), real_a);
	json_decref(object);
	result_free(&r);

	/* relative: from confine's own current directory */
	run_in(&r, work, NULL, ARGS("wrap", "--config", launcher_config(), "-m", "workspace-write", "-w",
	                             "link/..", "--", "true"));
	expect_status(&r, 0);
	object = json_of(&r);
	assert_string_equal(json_str(json_object_get(object, "policy"), "workspaceRoot"), real_a);
	json_decref(object);
	result_free(&r);

	run_in(&r, base, NULL, ARGS("wrap", "--config", launcher_config(), "-w", "ws", "--", "true"));
	expect_status(&r, 0);
	object = json_of(&r);
	assert_string_equal(json_str(json_object_get(object, "policy"), "workspaceRoot"), work);
	json_decref(object);
	result_free(&r);
}

/* ------------------------------------------------------------------------ */
/* run                                                                      */

/* Runs the run-group checks with `pin` ("bwrap", "landlock" or NULL). */
static void run_checks(const char *pin) {
	const char *config = launcher_config();
	char inside[PATH_MAX], out_file[PATH_MAX], cmd[PATH_MAX * 3];
	char *text;
	result r;
#define RUN_CONFINED(r, mode, command)                                                       \
	run_in((r), NULL, NULL,                                                                  \
	       pin ? ARGS("run", "--config", config, "--runner", pin, "-m", mode, "-w", work, "--", \
	                  "sh", "-c", command)                                                   \
	           : ARGS("run", "--config", config, "-m", mode, "-w", work, "--", "sh", "-c",    \
	                  command))

	/* exit statuses: the child's, 128+N */
	RUN_CONFINED(&r, "read-only", "exit 7");
	expect_status(&r, 7);
	result_free(&r);
	RUN_CONFINED(&r, "read-only", "kill -TERM $$");
	expect_status(&r, 128 + SIGTERM);
	result_free(&r);

	/* stdout and stderr pass through; the command runs in the workspace */
	RUN_CONFINED(&r, "read-only", "pwd; echo to-stderr >&2");
	expect_status(&r, 0);
	{
		char expected[PATH_MAX + 2];
		FORMAT(expected, sizeof expected, "%s\n", work);
		assert_string_equal(r.out, expected);
	}
	assert_non_null(strstr(r.err, "to-stderr\n"));
	result_free(&r);

	/* read-only: the write is denied and the file is absent */
	path_in(inside, work, "ro-attempt");
	FORMAT(cmd, sizeof cmd, "echo x > '%s'", inside);
	RUN_CONFINED(&r, "read-only", cmd);
	assert_true(r.status != 0);
	assert_false(exists(inside));
	result_free(&r);

	/* workspace-write: inside lands, a sibling outside every temp area does not */
	path_in(inside, work, "ww-inside");
	path_in(out_file, outside, "ww-outside");
	FORMAT(cmd, sizeof cmd, "echo inside > '%s'; echo outside > '%s'", inside, out_file);
	RUN_CONFINED(&r, "workspace-write", cmd);
	assert_true(r.status != 0);
	text = read_text(inside);
	assert_string_equal(text, "inside\n");
	free(text);
	assert_false(exists(out_file));
	result_free(&r);
	unlink(inside);
#undef RUN_CONFINED
}

static void test_run_default_ladder(void **state) {
	(void)state;
	NEED(have_bwrap || have_landlock, "a Linux runner");
	run_checks(NULL);
}

static void test_run_pinned_bwrap(void **state) {
	(void)state;
	NEED(have_bwrap, "bwrap");
	run_checks("bwrap");
}

static void test_run_pinned_landlock(void **state) {
	(void)state;
	NEED(have_landlock, "Landlock");
	run_checks("landlock");
}

/* run --json: stdout stays the command's; the outcome object (bash's
 * without the captured output) is the last line of stderr, on its own line
 * even after stderr that did not end one. */
/* `run --timeout MS` ends the run's tree as bash's does (doc/SPEC.md 10). */
static void test_run_timeout(void **state) {
	json_t *object;
	result r;
	(void)state;
	RUN(&r, "run", "--json", "--timeout", "200", "-w", work, "--", "sleep", "30");
	expect_status(&r, 128 + 15);
	object = json_of_last_err_line(&r);
	assert_true(json_bool(object, "timedOut"));
	assert_string_equal(json_str(object, "signal"), "SIGTERM");
	json_decref(object);
	result_free(&r);
}

static void test_run_json(void **state) {
	char prog[PATH_MAX], expected[PATH_MAX * 2];
	json_t *object, *sandbox;
	result r;
	(void)state;
	RUN(&r, "run", "--json", "-w", work, "--", "sh", "-c", "echo out; printf err >&2; exit 3");
	expect_status(&r, 3);
	assert_string_equal(r.out, "out\n");
	assert_true(strncmp(r.err, "err\n{", 5) == 0);
	object = json_of_last_err_line(&r);
	expect_keys(object, KEYS("exitCode", "timedOut", "sandbox", "usage", "error"));
	assert_int_equal(json_int(object, "exitCode"), 3);
	assert_false(json_bool(object, "timedOut"));
	assert_true(json_is_null(json_object_get(object, "error")));
	sandbox = json_object_get(object, "sandbox");
	expect_keys(sandbox, KEYS("mode", "denied", "networkDenied", "denials", "denialsDropped", "network", "enforcement",
	                          "unenforced", "layers", "clauses", "runner", "runnerFailed",
	                          "gitHazards", "limit"));
	assert_string_equal(json_str(sandbox, "mode"), "read-only");
	assert_false(json_bool(sandbox, "runnerFailed"));
	json_decref(object);
	result_free(&r);

	/* a signal death is the signal's name */
	RUN(&r, "run", "--json", "-m", "danger-full-access", "-w", work, "--", "sh", "-c",
	    "kill -TERM $$");
	expect_status(&r, 128 + SIGTERM);
	object = json_of_last_err_line(&r);
	assert_null(json_object_get(object, "exitCode"));
	assert_string_equal(json_str(object, "signal"), "SIGTERM");
	expect_keys(json_object_get(object, "sandbox"),
	            KEYS("mode", "denied", "networkDenied", "denials", "denialsDropped", "network", "runnerFailed", "limit"));
	json_decref(object);
	result_free(&r);

	/* nothing ran: the error object alone, with env(1)'s statuses */
	RUN(&r, "run", "--json", "-w", work, "--", "no-such-program-for-confine");
	expect_status(&r, 127);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "confine: no-such-program-for-confine: command not found\n"
	                           "{\"error\":{\"code\":\"SPAWN_FAILED\",\"message\":"
	                           "\"no-such-program-for-confine: command not found\"}}\n");
	result_free(&r);
	path_in(prog, base, "not-executable");
	write_file(prog, "#!/bin/sh\nexit 0\n");
	RUN(&r, "run", "--json", "-w", work, "--", prog);
	expect_status(&r, 126);
	object = json_of_last_err_line(&r);
	FORMAT(expected, sizeof expected, "%s: Permission denied", prog);
	assert_string_equal(json_str(json_object_get(object, "error"), "code"), "SPAWN_FAILED");
	assert_string_equal(json_str(json_object_get(object, "error"), "message"), expected);
	json_decref(object);
	result_free(&r);

	/* a policy error: 125 */
	RUN(&r, "run", "--json", "-m", "workspace-write", "-w", "/", "--", "true");
	expect_status(&r, 125);
	object = json_of_last_err_line(&r);
	assert_string_equal(json_str(json_object_get(object, "error"), "code"), "INVALID_POLICY");
	json_decref(object);
	result_free(&r);
}

static void test_run_danger_is_unconfined(void **state) {
	char out_file[PATH_MAX], cmd[PATH_MAX + 64];
	char *text;
	result r;
	(void)state;
	path_in(out_file, outside, "danger-write");
	FORMAT(cmd, sizeof cmd, "echo landed > '%s'", out_file);
	/* PATH without bwrap and no launcher: danger never needs a runner */
	run_in(&r, NULL, ENV("PATH=/usr/bin:/bin", "CONFINE_CONFIG"),
	       ARGS("run", "-m", "danger-full-access", "-w", work, "--", "/bin/sh", "-c", cmd));
	expect_status(&r, 0);
	text = read_text(out_file);
	assert_string_equal(text, "landed\n");
	free(text);
	result_free(&r);
}

/* A program that cannot run is the command's failure, as env(1) and
 * timeout(1) report it (127 not found, 126 not executable), checked before
 * anything is confined: under bwrap it would otherwise be bwrap's own
 * "bwrap: execvp ..." line, read as a broken bwrap (SANDBOX_UNAVAILABLE,
 * "install bubblewrap"). Relative paths are from the workspace, where the
 * command starts. */
static void program_checks(const char *pin) {
	const char *config = launcher_config();
	char script[PATH_MAX], plain[PATH_MAX], ran[PATH_MAX], text[PATH_MAX + 64];
	result r;
#define RUN_PROGRAM(r, env, ...)                                                              \
	run_in((r), outside, (env),                                                              \
	       pin ? ARGS("run", "--config", config, "--runner", pin, "-m", "workspace-write",     \
	                  "-w", work, "--", __VA_ARGS__)                                          \
	           : ARGS("run", "-m", "danger-full-access", "-w", work, "--", __VA_ARGS__))
	path_in(ran, work, "program-ran");
	path_in(script, work, "script.sh");
	path_in(plain, work, "not-executable");
	FORMAT(text, sizeof text, "#!/bin/sh\necho ran > '%s'\n", ran);
	write_file(script, text);
	assert_int_equal(chmod(script, 0755), 0);
	write_file(plain, "#!/bin/sh\necho hi\n");
	assert_int_equal(chmod(plain, 0644), 0);

	RUN_PROGRAM(&r, NULL, "confine-no-such-program");
	expect_status(&r, 127);
	assert_string_equal(r.err, "confine: confine-no-such-program: command not found\n");
	assert_string_equal(r.out, "");
	result_free(&r);

	RUN_PROGRAM(&r, NULL, "/nonexistent/program");
	expect_status(&r, 127);
	assert_string_equal(r.err, "confine: /nonexistent/program: command not found\n");
	result_free(&r);

	RUN_PROGRAM(&r, NULL, "./not-executable");
	expect_status(&r, 126);
	assert_string_equal(r.err, "confine: ./not-executable: Permission denied\n");
	result_free(&r);

	RUN_PROGRAM(&r, NULL, "/etc");
	expect_status(&r, 126);
	assert_string_equal(r.err, "confine: /etc: Permission denied\n");
	result_free(&r);

	/* found only on the PATH it is looked up on; relative to the workspace
	 * (confine runs from `outside`) */
	RUN_PROGRAM(&r, ENV("PATH=/nonexistent"), "sh", "-c", "true");
	expect_status(&r, 127);
	assert_string_equal(r.err, "confine: sh: command not found\n");
	result_free(&r);
	assert_false(exists(ran));
	RUN_PROGRAM(&r, NULL, "./script.sh");
	expect_status(&r, 0);
	assert_true(exists(ran));
	result_free(&r);
	unlink(ran);
	/* an empty PATH entry is the working directory, the workspace */
	RUN_PROGRAM(&r, ENV("PATH=/usr/bin:/bin:"), "script.sh");
	expect_status(&r, 0);
	assert_true(exists(ran));
	result_free(&r);
	unlink(ran);
#undef RUN_PROGRAM
}

static void test_run_program_not_found(void **state) {
	(void)state;
	program_checks(NULL);
	if (have_bwrap)
		program_checks("bwrap");
	if (have_landlock)
		program_checks("landlock");
}

/* Under bwrap, workspace-write and read-only (its private temp area) mount
 * a private, empty /tmp: a program on the host's /tmp is not there, and
 * saying so beats letting bwrap's "execvp" failure read as bwrap itself
 * failing. Landlock sees the host's /tmp and runs it. */
/* A directory below /dev/shm is a workspace like any tmpfs directory
 * (doc/SPEC.md 18): under bwrap the command sees it and starts there in
 * both modes (bwrap's --dev hides the host's /dev/shm: it is bound back);
 * the Landlock rung refuses it under workspace-write (doc/SPEC.md 3). */
static void test_run_workspace_below_dev_shm(void **state) {
	char dir[] = "/dev/shm/confine-cli.XXXXXX", expected[PATH_MAX + 8], file[PATH_MAX];
	const char *config = launcher_config();
	result r;
	(void)state;
	NEED(have_bwrap, "bwrap");
	if (access("/dev/shm", W_OK) != 0 || !mkdtemp(dir))
		skip();
	FORMAT(expected, sizeof expected, "%s\n", dir);
	path_in(file, dir, "written");
	RUN(&r, "run", "--runner", "bwrap", "-w", dir, "--", "pwd");
	expect_status(&r, 0);
	assert_string_equal(r.out, expected);
	result_free(&r);
	RUN(&r, "run", "--runner", "bwrap", "-m", "workspace-write", "-w", dir, "--", "sh", "-c",
	    "pwd; echo hi > written");
	expect_status(&r, 0);
	assert_string_equal(r.out, expected);
	assert_true(exists(file));
	unlink(file);
	result_free(&r);
	if (have_landlock) {
		RUN(&r, "run", "--config", config, "--runner", "landlock", "-m", "workspace-write", "-w",
		    dir, "--", "sh", "-c", "echo hi > written");
		expect_status(&r, 125);
		FORMAT(expected, sizeof expected,
		       "confine: workspace root \"%s\" cannot be confined by Landlock under "
		       "workspace-write: it lies under /dev/shm, ",
		       dir);
		assert_true(strncmp(r.err, expected, strlen(expected)) == 0);
		assert_false(exists(file));
		result_free(&r);
	}
	/* /dev/shm itself is the host's shared memory: not a place */
	RUN(&r, "run", "-w", "/dev/shm", "--", "true");
	expect_status(&r, 125);
	assert_non_null(strstr(r.err, "lies in /dev: a device, process or kernel tree is not a place"));
	result_free(&r);
	rmdir(dir);
}

static void test_run_program_in_host_tmp(void **state) {
	char dir[] = "/tmp/confine-cli-prog-XXXXXX", prog[64], want[160];
	const char *config = launcher_config();
	result r;
	(void)state;
	NEED(have_bwrap && have_landlock, "both Linux runners");
	assert_non_null(mkdtemp(dir));
	FORMAT(prog, sizeof prog, "%s/prog", dir);
	write_file(prog, "#!/bin/sh\necho hi\n");
	assert_int_equal(chmod(prog, 0755), 0);
	FORMAT(want, sizeof want,
	       "confine: %s: command not found (in the sandbox, /tmp is private and empty)\n", prog);

	RUN(&r, "run", "--config", config, "--runner", "bwrap", "-m", "workspace-write", "-w", work,
	    "--", prog);
	expect_status(&r, 127);
	assert_string_equal(r.err, want);
	result_free(&r);

	RUN(&r, "run", "--config", config, "--runner", "bwrap", "-m", "read-only", "-w", work, "--",
	    prog);
	expect_status(&r, 127);
	assert_string_equal(r.err, want);
	result_free(&r);

	RUN(&r, "run", "--config", config, "--runner", "landlock", "-m", "read-only", "-w", work,
	    "--", prog);
	expect_status(&r, 0);
	assert_string_equal(r.out, "hi\n");
	result_free(&r);

	RUN(&r, "run", "--config", config, "--runner", "landlock", "-m", "workspace-write", "-w",
	    work, "--", prog);
	expect_status(&r, 0);
	assert_string_equal(r.out, "hi\n");
	result_free(&r);
	unlink(prog);
	rmdir(dir);
}

/* A signal to confine reaches the command itself, under bwrap too (not
 * bwrap, which would die of it and take the command down): the command's
 * trap runs and its exit status is confine's. */
static void trap_check(const char *pin, int sig, const char *name) {
	const char *config = launcher_config();
	char cmd[256];
	int out_fd, err_fd;
	char got[64] = "";
	size_t len = 0;
	pid_t pid;
	result r;
	/* bash runs a trap at once while in `wait`, not while a foreground
	 * child runs: the signal may arrive before that child exists, and only
	 * bash gets it (then, for TERM and HUP, confine's SIGKILL after the
	 * grace would be what ends it) */
	FORMAT(cmd, sizeof cmd, "trap \"echo got %s; exit 7\" %s; sleep 5 & echo ready; wait", name,
	       name);
	pid = start_confine(NULL, NULL,
	                    ARGS("run", "--config", config, "--runner", pin, "-w", work, "--", "bash",
	                         "-c", cmd),
	                    &out_fd, &err_fd);
	/* "ready": the trap is in place */
	while (len < 6) {
		struct pollfd pfd = { out_fd, POLLIN, 0 };
		ssize_t n;
		assert_true(poll(&pfd, 1, 10000) == 1);
		n = read(out_fd, got + len, 6 - len);
		assert_true(n > 0);
		len += (size_t)n;
	}
	assert_string_equal(got, "ready\n");
	assert_int_equal(kill(pid, sig), 0);
	memset(&r, 0, sizeof r);
	collect(pid, out_fd, err_fd, &r);
	{
		char want[32];
		FORMAT(want, sizeof want, "got %s\n", name);
		if (r.status != 7 || strcmp(r.out, want) != 0)
			fail_msg("%s under %s: exit %d, stdout after ready \"%s\", expected 7 and \"%s\"",
			         name, pin, r.status, r.out, want);
	}
	result_free(&r);
}

static void test_run_signal_reaches_the_commands_trap(void **state) {
	(void)state;
	NEED(have_bwrap || have_landlock, "a Linux runner");
	for (int i = 0; i < 2; i++) {
		const char *pin = i ? "landlock" : "bwrap";
		if (!(i ? have_landlock : have_bwrap))
			continue;
		trap_check(pin, SIGINT, "INT");
		trap_check(pin, SIGTERM, "TERM");
		trap_check(pin, SIGHUP, "HUP");
	}
}

/* Whether a live (not zombie) process runs exactly `sleep DURATION`. */
static bool sleep_alive(const char *duration) {
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool found = false;
	assert_non_null(d);
	while (!found && (e = readdir(d))) {
		char path[300], buf[256], want[64], stat[512], *paren;
		ssize_t n;
		int fd;
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		FORMAT(path, sizeof path, "/proc/%s/cmdline", e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		FORMAT(want, sizeof want, "sleep%c%s", '\0', duration);
		if (n != (ssize_t)(strlen("sleep") + 1 + strlen(duration) + 1) ||
		    memcmp(buf, want, (size_t)n - 1) != 0)
			continue;
		FORMAT(path, sizeof path, "/proc/%s/stat", e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, stat, sizeof stat - 1);
		close(fd);
		if (n <= 0)
			continue;
		stat[n] = '\0';
		paren = strrchr(stat, ')');
		if (paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X')
			found = true;
	}
	closedir(d);
	return found;
}

/* A descendant that starts its own session (out of the run's process
 * group) and whose parent has ended does not outlive confine: confine
 * adopts orphans and ends them with the run. Under each rung and unconfined,
 * through both `bash` and `run`. */
static void test_setsid_descendants_do_not_outlive_confine(void **state) {
	const char *config = launcher_config();
	const char *modes[3] = { "read-only", "read-only", "danger-full-access" };
	const char *pins[3] = { "landlock", "bwrap", NULL };
	(void)state;
	NEED(have_bwrap || have_landlock, "a Linux runner");
	for (int i = 0; i < 3; i++) {
		for (int sub = 0; sub < 2; sub++) {
			char duration[32], cmd[256];
			result r;
			if ((i == 0 && !have_landlock) || (i == 1 && !have_bwrap))
				continue;
			FORMAT(duration, sizeof duration, "%d", 77000 + (int)(getpid() % 1000) * 2 + sub);
			/* the sleep is running before its parent shell ends */
			FORMAT(cmd, sizeof cmd,
			       "setsid sleep %s </dev/null >/dev/null 2>&1 & "
			       "while ! pgrep -f '^sleep %s$' >/dev/null; do sleep 0.05; done; echo started",
			       duration, duration);
			if (sub == 0)
				run_in(&r, NULL, NULL,
				       pins[i] ? ARGS("bash", "--config", config, "--runner", pins[i], "-m",
				                      modes[i], "-w", work, "-c", cmd)
				               : ARGS("bash", "-m", modes[i], "-w", work, "-c", cmd));
			else
				run_in(&r, NULL, NULL,
				       pins[i] ? ARGS("run", "--config", config, "--runner", pins[i], "-m",
				                      modes[i], "-w", work, "--", "sh", "-c", cmd)
				               : ARGS("run", "-m", modes[i], "-w", work, "--", "sh", "-c",
				                      cmd));
			expect_status(&r, 0);
			assert_non_null(strstr(r.out, "started"));
			result_free(&r);
			if (sleep_alive(duration))
				fail_msg("`sleep %s` outlived `confine %s` (%s)", duration,
				         sub ? "run" : "bash", pins[i] ? pins[i] : "danger-full-access");
		}
	}
}

/* Orphans that end during the run are reaped as they end: a command that
 * leaves many short-lived orphans behind does not pile up zombies under
 * its subreaper (the launcher, the command's parent) while it runs. Counted
 * from inside the run, by rendezvous: 20 orphans wait for `go`; once all 20
 * are the launcher's children (adopted), `go` ends them, and then no child
 * of the launcher but the command may remain, live or zombie (a zombie is
 * a child until it is reaped). Each wait is bounded by 600 polls (60 s at
 * least), which only keeps a broken subreaper from hanging the test. */
static void test_orphans_are_reaped_during_the_run(void **state) {
	static const char cmd[] =
		"kids() { n=0; for f in /proc/[0-9]*/stat; do "
		"read -r pid comm state ppid rest < \"$f\" 2>/dev/null || continue; "
		"[ \"$ppid\" = \"$PPID\" ] && [ \"$pid\" != $$ ] && n=$((n+1)); done; }; "
		"for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do "
		"(while [ ! -e go ]; do sleep 0.05; done &); done; "
		"t=0; while kids; [ $n -lt 20 ] && [ $t -lt 600 ]; do t=$((t+1)); sleep 0.1; done; "
		"echo adopted=$n; touch go; "
		"t=0; while kids; [ $n -gt 0 ] && [ $t -lt 600 ]; do t=$((t+1)); sleep 0.1; done; "
		"echo left=$n; rm -f go";
	const char *config = launcher_config();
	result r;
	(void)state;
	NEED(have_landlock, "Landlock");
	run_in(&r, NULL, NULL,
	       ARGS("run", "--config", config, "--runner", "landlock", "-m", "workspace-write", "-w",
	            work, "--", "sh", "-c", cmd));
	expect_status(&r, 0);
	assert_string_equal(r.out, "adopted=20\nleft=0\n");
	result_free(&r);
}

/* A caller that ignores SIGCHLD passes that on across exec; confine still
 * collects its probe's and its command's exit statuses. */
static void test_inherited_ignored_sigchld(void **state) {
	result r;
	(void)state;
	NEED(have_bwrap || have_landlock, "a Linux runner");
	start_with_sigchld_ignored = true;
	run_in(&r, NULL, NULL,
	       ARGS("run", "--config", launcher_config(), "-m", "workspace-write", "-w", work, "--",
	            "sh", "-c", "exit 5"));
	expect_status(&r, 5);
	result_free(&r);
	run_in(&r, NULL, NULL,
	       ARGS("bash", "--config", launcher_config(), "-m", "read-only", "-w", work, "-c",
	            "exit 6"));
	start_with_sigchld_ignored = false;
	expect_status(&r, 6);
	assert_string_equal(r.out, "(no output)\n[exit code: 6]\n");
	result_free(&r);
}

/* SIGTERM to confine reaches the command: confine ends with 128+15 and the
 * command never gets to its next step. The command marks with a file that
 * it started (`confine bash` captures its output, so stdout cannot say).
 * Every process of the run carries CONFINE_TEST_TREE=<mark> in its
 * environment: the check is that none is left in the process table, after
 * which the command's next step can never come. */
static void forward_check(const char *subcommand, const char *pin) {
	char started[PATH_MAX], finished[PATH_MAX], cmd[2 * PATH_MAX + 64], mark[96];
	const char *config = launcher_config();
	bool bash = strcmp(subcommand, "bash") == 0;
	int out_fd, err_fd;
	pid_t pid;
	result r;
	path_in(started, work, "started");
	path_in(finished, work, "finished");
	unlink(started);
	unlink(finished);
	FORMAT(mark, sizeof mark, "CONFINE_TEST_TREE=forward-%s-%s-%d", subcommand, pin,
	       (int)getpid());
	FORMAT(cmd, sizeof cmd, "touch '%s'; sleep 120; touch '%s'", started, finished);
	if (bash)
		pid = start_confine(NULL, ENV(mark),
		                    ARGS("bash", "--config", config, "--runner", pin, "-m",
		                         "workspace-write", "-w", work, "-c", cmd),
		                    &out_fd, &err_fd);
	else
		pid = start_confine(NULL, ENV(mark),
		                    ARGS("run", "--config", config, "--runner", pin, "-m",
		                         "workspace-write", "-w", work, "--", "sh", "-c", cmd),
		                    &out_fd, &err_fd);
	/* until the command runs (the bound only proves it started) */
	for (long long until = tl_now_ms() + TL_GONE_BOUND_MS; !exists(started) && tl_now_ms() < until;)
		usleep(10000);
	assert_true(exists(started));
	/* The control: the scan below sees the run's processes. */
	assert_true(tl_marked_count(mark) > 0);
	assert_int_equal(kill(pid, SIGTERM), 0);
	memset(&r, 0, sizeof r);
	collect(pid, out_fd, err_fd, &r);
	/* bwrap's init reports a signalled child as exit 128+N; either way
	 * confine ends with 143. */
	expect_status(&r, 128 + SIGTERM);
	/* No process of the run is left (the bound only proves the signal
	 * ended them: the command would sleep 120 s), so the file can never
	 * appear. */
	assert_true(tl_marked_gone_within(mark, TL_GONE_BOUND_MS));
	assert_false(exists(finished));
	result_free(&r);
}

static void test_run_forwards_sigterm(void **state) {
	(void)state;
	if (have_landlock)
		forward_check("run", "landlock");
	if (have_bwrap)
		forward_check("run", "bwrap");
	NEED(have_bwrap || have_landlock, "a Linux runner");
}

static void test_bash_forwards_sigterm(void **state) {
	(void)state;
	if (have_landlock)
		forward_check("bash", "landlock");
	if (have_bwrap)
		forward_check("bash", "bwrap");
	NEED(have_bwrap || have_landlock, "a Linux runner");
}

/* ------------------------------------------------------------------------ */
/* bash                                                                     */

static void test_bash_json_denied(void **state) {
	json_t *object, *sandbox;
	result r;
	char denied_file[PATH_MAX];
	(void)state;
	NEED(have_bwrap || have_landlock, "a Linux runner");
	path_in(denied_file, work, "bash-denied");
	RUN(&r, "bash", "--json", "-w", work, "-c", "echo out; echo x > bash-denied");
	expect_status(&r, 1);
	object = json_of(&r);
	expect_keys(object, KEYS("exitCode", "timedOut", "stdout", "stderr", "truncated",
	                         "stdoutTruncated", "stderrTruncated", "sandbox", "usage", "error",
                         "rendering"));
	assert_int_equal(json_int(object, "exitCode"), 1);
	assert_false(json_bool(object, "timedOut"));
	assert_string_equal(json_str(object, "stdout"), "out\n");
	assert_true(strlen(json_str(object, "stderr")) > 0);
	assert_false(json_bool(object, "truncated"));
	assert_false(json_bool(object, "stdoutTruncated"));
	assert_false(json_bool(object, "stderrTruncated"));
	assert_true(json_is_null(json_object_get(object, "error")));
	sandbox = json_object_get(object, "sandbox");
	expect_keys(sandbox, KEYS("mode", "denied", "networkDenied", "denials", "denialsDropped", "network", "enforcement",
	                          "runner", "runnerFailed", "unenforced", "layers", "clauses",
	                          "gitHazards", "limit"));
	assert_string_equal(json_str(sandbox, "mode"), "read-only");
	assert_true(json_bool(sandbox, "denied"));
	assert_false(json_bool(sandbox, "networkDenied"));
	{
		/* the refusal with its object and clause (doc/SPEC.md 9) */
		json_t *denials = json_object_get(sandbox, "denials");
		json_t *d = json_array_get(denials, 0);
		assert_int_equal(json_array_size(denials), 1);
		expect_keys(d, KEYS("op", "path", "clause"));
		assert_string_equal(json_str(d, "op"), "write");
		assert_string_equal(json_str(d, "path"), denied_file);
		assert_string_equal(json_str(d, "clause"), "mode");
	}
	assert_string_equal(json_str(sandbox, "enforcement"), "full");
	assert_true(strcmp(json_str(sandbox, "runner"), "bwrap") == 0 ||
	            strcmp(json_str(sandbox, "runner"), "landlock") == 0);
	assert_false(json_bool(sandbox, "runnerFailed"));
	assert_false(exists(denied_file));
	json_decref(object);
	result_free(&r);
}

static void test_bash_json_signal_and_timeout(void **state) {
	json_t *object;
	result r;
	(void)state;
	NEED(have_bwrap || have_landlock, "a Linux runner");
	/* Unconfined, and under Landlock, the death by signal is seen as such.
	 * (bwrap's init turns it into exit 128+N, so it is not used here.) */
	RUN(&r, "bash", "--json", "-m", "danger-full-access", "-w", work, "-c", "kill -KILL $$");
	expect_status(&r, 128 + SIGKILL);
	object = json_of(&r);
	assert_null(json_object_get(object, "exitCode"));
	assert_string_equal(json_str(object, "signal"), "SIGKILL");
	assert_false(json_bool(object, "timedOut"));
	json_decref(object);
	result_free(&r);
	if (have_landlock) {
		RUN(&r, "bash", "--json", "--config", launcher_config(), "--runner", "landlock", "-w",
		    work, "-c", "kill -USR1 $$");
		expect_status(&r, 128 + SIGUSR1);
		object = json_of(&r);
		assert_null(json_object_get(object, "exitCode"));
		assert_string_equal(json_str(object, "signal"), "SIGUSR1");
		assert_string_equal(json_str(json_object_get(object, "sandbox"), "runner"), "landlock");
		json_decref(object);
		result_free(&r);
	}

	RUN(&r, "bash", "--json", "--timeout", "300", "-w", work, "-c", "sleep 20");
	assert_true(r.status == 128 + SIGTERM || r.status == 128 + SIGKILL);
	object = json_of(&r);
	assert_true(json_bool(object, "timedOut"));
	/* The timeout's SIGTERM reaches the command, not bwrap, and its death
	 * by that signal reads as a signal on every rung (the launcher's status
	 * channel, not bwrap's 128+N). */
	assert_null(json_object_get(object, "exitCode"));
	assert_string_equal(json_str(object, "signal"), "SIGTERM");
	json_decref(object);
	result_free(&r);
}

static void test_bash_json_truncated_and_not_utf8(void **state) {
	json_t *object;
	result r;
	(void)state;
	NEED(have_bwrap || have_landlock, "a Linux runner");
	RUN(&r, "bash", "--json", "-w", work, "-c", "head -c 70000 /dev/zero | tr '\\0' a; printf '\\377' >&2");
	expect_status(&r, 0);
	object = json_of(&r);
	assert_true(json_bool(object, "truncated"));
	assert_true(json_bool(object, "stdoutTruncated"));
	assert_false(json_bool(object, "stderrTruncated"));
	assert_int_equal(strlen(json_str(object, "stdout")), 64000);
	/* a byte that is not UTF-8 becomes U+FFFD rather than breaking the JSON */
	assert_string_equal(json_str(object, "stderr"), "\xef\xbf\xbd");
	json_decref(object);
	result_free(&r);
}

static void test_bash_json_danger(void **state) {
	char out_file[PATH_MAX], cmd[PATH_MAX + 64];
	json_t *object, *sandbox;
	result r;
	(void)state;
	path_in(out_file, outside, "bash-danger");
	FORMAT(cmd, sizeof cmd, "echo landed > '%s'; exit 3", out_file);
	RUN(&r, "bash", "--json", "-m", "danger-full-access", "-w", work, "-c", cmd);
	expect_status(&r, 3);
	object = json_of(&r);
	assert_int_equal(json_int(object, "exitCode"), 3);
	sandbox = json_object_get(object, "sandbox");
	expect_keys(sandbox, KEYS("mode", "denied", "networkDenied", "denials", "denialsDropped", "network", "runnerFailed", "limit"));
	assert_string_equal(json_str(sandbox, "mode"), "danger-full-access");
	assert_false(json_bool(sandbox, "denied"));
	assert_true(exists(out_file));
	json_decref(object);
	result_free(&r);
}

static void test_bash_rendering(void **state) {
	result r;
	(void)state;
	NEED(have_bwrap || have_landlock, "a Linux runner");
	RUN(&r, "bash", "-w", work, "-c", "echo x > bash-render");
	expect_status(&r, 1);
	assert_true(strncmp(r.out, "[stderr]\n", 9) == 0);
	{
		char tail[PATH_MAX + 200];
		size_t len, tail_len;
		FORMAT(tail, sizeof tail,
		       "\n[sandbox: file access denied under read-only mode]\n"
		       "[denied: write %s/bash-render (mode)]\n[exit code: 1]\n",
		       work);
		len = strlen(r.out);
		tail_len = strlen(tail);
		assert_true(len > tail_len);
		assert_string_equal(r.out + len - tail_len, tail);
	}
	assert_string_equal(r.err, "");
	result_free(&r);

	RUN(&r, "bash", "-w", work, "-c", "true");
	expect_status(&r, 0);
	assert_string_equal(r.out, "(no output)\n");
	result_free(&r);

	RUN(&r, "bash", "-m", "workspace-write", "-w", work, "-c", "echo kept > note && cat note");
	expect_status(&r, 0);
	assert_string_equal(r.out, "kept\n");
	result_free(&r);
}

/* --cwd DIR: the command starts there (run and bash), and writes there
 * land in DIR; a DIR that cannot be entered is confine's failure, nothing
 * run (doc/SPEC.md 10). */
static void test_cwd_is_where_the_command_starts(void **state) {
	result r;
	char sub[PATH_MAX], expected[PATH_MAX + 2], made[PATH_MAX];
	struct stat st;
	(void)state;
	NEED(have_bwrap || have_landlock, "a Linux runner");
	path_in(sub, work, "cwd-sub");
	assert_true(mkdir(sub, 0755) == 0 || errno == EEXIST);
	FORMAT(expected, sizeof expected, "%s\n", sub);
	RUN(&r, "bash", "-m", "workspace-write", "-w", work, "--cwd", sub, "-c", "pwd; touch made");
	expect_status(&r, 0);
	assert_string_equal(r.out, expected);
	result_free(&r);
	path_in(made, sub, "made");
	assert_int_equal(stat(made, &st), 0);
	RUN(&r, "run", "-w", work, "--cwd", sub, "--", "pwd");
	expect_status(&r, 0);
	assert_string_equal(r.out, expected);
	result_free(&r);
	/* the control: without --cwd, the workspace root */
	FORMAT(expected, sizeof expected, "%s\n", work);
	RUN(&r, "run", "-w", work, "--", "pwd");
	expect_status(&r, 0);
	assert_string_equal(r.out, expected);
	result_free(&r);
	RUN(&r, "bash", "-w", work, "--cwd", "/nonexistent-cwd", "-c", "touch /tmp/never");
	expect_status(&r, 125);
	result_free(&r);
	RUN(&r, "run", "-w", work, "--cwd", "/nonexistent-cwd", "--", "true");
	expect_status(&r, 125);
	assert_non_null(strstr(r.err, "--cwd"));
	result_free(&r);
}

/* ------------------------------------------------------------------------ */
/* probe                                                                    */

static void test_probe_json(void **state) {
	const char *config = launcher_config();
	json_t *object;
	result r;
	(void)state;
	NEED(have_bwrap || have_landlock, "a Linux runner");
	RUN(&r, "probe", "--json", "--config", config);
	expect_status(&r, 0);
	object = json_of(&r);
	assert_true(json_bool(object, "usable"));
	assert_string_equal(json_str(object, "runner"), have_bwrap ? "bwrap" : "landlock");
	assert_true(strcmp(json_str(object, "enforcement"), "full") == 0 ||
	            strcmp(json_str(object, "enforcement"), "partial") == 0);
	if (json_object_get(object, "landlockAbi"))
		assert_true(json_int(object, "landlockAbi") >= 1);
	assert_true(json_str(object, "runnerPath")[0] == '/');
	json_decref(object);
	result_free(&r);

	RUN(&r, "probe", "--json", "--config", config, "--runner", "landlock");
	expect_status(&r, 0);
	object = json_of(&r);
	assert_string_equal(json_str(object, "runner"), "landlock");
	assert_string_equal(json_str(object, "runnerPath"), launcher_path);
	json_decref(object);
	result_free(&r);
}

static void test_probe_words(void **state) {
	result r;
	(void)state;
	NEED(have_bwrap || have_landlock, "a Linux runner");
	RUN(&r, "probe", "--config", launcher_config());
	expect_status(&r, 0);
	assert_true(strncmp(r.out, have_bwrap ? "runner: bwrap\nenforcement: " : "runner: landlock\n",
	                    have_bwrap ? 27 : 17) == 0);
	assert_string_equal(r.err, "");
	result_free(&r);
}

/* ------------------------------------------------------------------------ */
/* unavailable: nothing can confine, so nothing runs                        */

static void test_unavailable_exact_line(void **state) {
	const char *config = config_file("{\"landlockLauncher\": \"/nonexistent/landlock-run\"}");
	char side[PATH_MAX], cmd[PATH_MAX + 32], expected[2048], message[2048];
	json_t *object, *error;
	result r;
	(void)state;
	path_in(side, work, "unavailable-side-effect");
	FORMAT(cmd, sizeof cmd, "touch '%s'", side);
	FORMAT(message, sizeof message, unavailable_prefix, "workspace-write");
	FORMAT(expected, sizeof expected, "confine: %s\n", message);

	/* PATH without bwrap, a launcher that does not exist: both rungs fail.
	 * A run the library spawns itself tried the launcher and says why. */
	FORMAT(expected, sizeof expected,
	       "confine: %s Runner failure: cannot execute /nonexistent/landlock-run: No such file "
	       "or directory\n",
	       message);
	run_in(&r, NULL, ENV("CONFINE_RUNNER_PATH=/nonexistent"),
	       ARGS("run", "--config", config, "-m", "workspace-write", "-w", work, "--", "/bin/sh",
	            "-c", cmd));
	expect_status(&r, 125);
	assert_string_equal(r.err, expected);
	assert_string_equal(r.out, "");
	assert_false(exists(side));
	result_free(&r);

	run_in(&r, NULL, ENV("CONFINE_RUNNER_PATH=/nonexistent"),
	       ARGS("bash", "--json", "--config", config, "-m", "workspace-write", "-w", work, "-c",
	            cmd));
	expect_status(&r, 125);
	assert_string_equal(r.err, expected);
	object = json_of(&r);
	expect_keys(object, KEYS("error"));
	error = json_object_get(object, "error");
	assert_string_equal(json_str(error, "code"), "SANDBOX_UNAVAILABLE");
	assert_true(strlen(r.err) > 9);
	assert_memory_equal(r.err + 9, json_str(error, "message"), strlen(r.err) - 10);
	json_decref(object);
	assert_false(exists(side));
	result_free(&r);

	run_in(&r, NULL, ENV("CONFINE_RUNNER_PATH=/nonexistent"),
	       ARGS("wrap", "--config", config, "-w", work, "--", "true"));
	expect_status(&r, 125);
	/* wrap probes: a chain whose rungs both fail is plainly unavailable */
	FORMAT(message, sizeof message, unavailable_prefix, "read-only");
	FORMAT(expected, sizeof expected, "confine: %s\n", message);
	assert_string_equal(r.err, expected);
	object = json_of(&r);
	expect_keys(object, KEYS("error"));
	error = json_object_get(object, "error");
	expect_keys(error, KEYS("code", "message")); /* no runner failed: nothing ran */
	assert_string_equal(json_str(error, "code"), "SANDBOX_UNAVAILABLE");
	assert_string_equal(json_str(error, "message"), message);
	json_decref(object);
	result_free(&r);

	/* a verdict, not a failure of confine: exit 1 */
	run_in(&r, NULL, ENV("CONFINE_RUNNER_PATH=/nonexistent"), ARGS("probe", "--config", config));
	expect_status(&r, 1);
	assert_true(strncmp(r.out, "runner: none", 12) == 0);
	result_free(&r);

	run_in(&r, NULL, ENV("CONFINE_RUNNER_PATH=/nonexistent"), ARGS("probe", "--json", "--config", config));
	expect_status(&r, 1);
	object = json_of(&r);
	assert_false(json_bool(object, "usable"));
	assert_true(json_is_null(json_object_get(object, "runner")));
	assert_null(json_object_get(object, "enforcement"));
	json_decref(object);
	result_free(&r);
}

/* probe --runner NAME probes that runner for real: a launcher that is
 * missing or cannot be executed is "not usable" with the reason (exit 1),
 * and so is a wrap of it (SANDBOX_UNAVAILABLE); a bad configuration is a
 * failure of confine (125) with the error object. */
static void test_probe_pinned_runner(void **state) {
	char stripped[PATH_MAX], json_text[PATH_MAX + 64], detail[PATH_MAX + 64];
	char missing[PATH_MAX];
	const char *config;
	json_t *object, *error;
	result r;
	(void)state;
	/* config_file() reuses its buffer */
	FORMAT(missing, sizeof missing, "%s",
	       config_file("{\"landlockLauncher\": \"/nonexistent/landlock-run\"}"));
	RUN(&r, "probe", "--runner", "landlock", "--config", missing);
	expect_status(&r, 1);
	assert_true(strncmp(r.out, "runner: none (landlock is not usable)\nrunner failure: cannot "
	                           "execute /nonexistent/landlock-run: No such file or directory\n",
	                    114) == 0);
	assert_string_equal(r.err, "confine: the runner landlock is not usable: cannot execute "
	                           "/nonexistent/landlock-run: No such file or directory\n");
	result_free(&r);

	RUN(&r, "probe", "--json", "--runner", "landlock", "--config", missing);
	expect_status(&r, 1);
	object = json_of(&r);
	assert_false(json_bool(object, "usable"));
	assert_true(json_is_null(json_object_get(object, "runner")));
	assert_string_equal(json_str(object, "reason"),
	                    "cannot execute /nonexistent/landlock-run: No such file or directory");
	assert_string_equal(json_str(object, "runnerFailure"), json_str(object, "reason"));
	json_decref(object);
	result_free(&r);

	path_in(stripped, base, "stripped-for-probe");
	copy_file(launcher_path, stripped, 0644);
	FORMAT(json_text, sizeof json_text, "{\"landlockLauncher\": \"%s\"}", stripped);
	config = config_file(json_text);
	FORMAT(detail, sizeof detail, "cannot execute %s: Permission denied", stripped);
	RUN(&r, "probe", "--json", "--runner", "landlock", "--config", config);
	expect_status(&r, 1);
	object = json_of(&r);
	assert_false(json_bool(object, "usable"));
	assert_string_equal(json_str(object, "reason"), detail);
	json_decref(object);
	result_free(&r);

	/* no such mechanism on this platform */
	RUN(&r, "probe", "--json", "--runner", "seatbelt");
	expect_status(&r, 1);
	object = json_of(&r);
	assert_false(json_bool(object, "usable"));
	assert_non_null(json_object_get(object, "reason"));
	assert_null(json_object_get(object, "runnerFailure"));
	json_decref(object);
	result_free(&r);

	/* a wrap pinned to it: the error object, with the runner's line */
	RUN(&r, "wrap", "--runner", "landlock", "--config", missing, "-w", work, "--", "true");
	expect_status(&r, 125);
	object = json_of(&r);
	expect_keys(object, KEYS("error"));
	error = json_object_get(object, "error");
	expect_keys(error, KEYS("code", "message", "runnerFailure"));
	assert_string_equal(json_str(error, "code"), "SANDBOX_UNAVAILABLE");
	assert_string_equal(json_str(error, "runnerFailure"),
	                    "cannot execute /nonexistent/landlock-run: No such file or directory");
	assert_non_null(strstr(json_str(error, "message"), " Runner failure: cannot execute "
	                                                     "/nonexistent/landlock-run"));
	json_decref(object);
	result_free(&r);

	/* confine's own failure: 125 and the error object */
	RUN(&r, "probe", "--json", "--config", config_file("{\"probeTimeoutMs\": -1}"));
	expect_status(&r, 125);
	object = json_of(&r);
	expect_keys(object, KEYS("error"));
	assert_string_equal(json_str(json_object_get(object, "error"), "code"), "INVALID_CONFIG");
	json_decref(object);
	result_free(&r);
}

/* A launcher whose execute bit was stripped is a broken runner, not a
 * kernel that cannot enforce (SPEC 7): even unpinned, with bwrap off PATH,
 * the refusal says so and names it, and nothing runs. */
static void test_stripped_launcher_is_a_runner_failure(void **state) {
	char stripped[PATH_MAX], side[PATH_MAX], cmd[PATH_MAX + 32], json_text[PATH_MAX + 64];
	char expected[4096], detail[PATH_MAX + 64], ws[PATH_MAX];
	const char *config;
	json_t *object;
	result r;
	(void)state;
	NEED(have_landlock, "Landlock");
	path_in(stripped, work, "stripped-landlock-run");
	path_in(side, work, "stripped-side-effect");
	FORMAT(cmd, sizeof cmd, "touch '%s'", side);
	copy_file(launcher_path, stripped, 0644);
	FORMAT(json_text, sizeof json_text, "{\"landlockLauncher\": \"%s\"}", stripped);
	config = config_file(json_text);
	FORMAT(detail, sizeof detail, "cannot execute %s: Permission denied", stripped);

	/* the workspace beside the launcher, not around it: a runner inside a
	 * writable workspace is refused for that reason first */
	path_in(ws, work, "stripped-ws");
	mkdir(ws, 0755);
	run_in(&r, NULL, ENV("CONFINE_RUNNER_PATH=/nonexistent"),
	       ARGS("run", "--config", config, "-m", "workspace-write", "-w", ws, "--", "/bin/sh",
	            "-c", cmd));
	expect_status(&r, 125);
	FORMAT(expected, sizeof expected, unavailable_prefix, "workspace-write");
	assert_true(strncmp(r.err, "confine: ", 9) == 0);
	assert_true(strncmp(r.err + 9, expected, strlen(expected)) == 0);
	assert_non_null(strstr(r.err, " Runner failure: "));
	assert_non_null(strstr(r.err, detail));
	assert_false(exists(side));
	result_free(&r);

	run_in(&r, NULL, ENV("CONFINE_RUNNER_PATH=/nonexistent"), ARGS("probe", "--json", "--config", config));
	expect_status(&r, 1);
	object = json_of(&r);
	assert_false(json_bool(object, "usable"));
	assert_string_equal(json_str(object, "runnerFailure"), detail);
	assert_string_equal(json_str(object, "reason"), detail);
	json_decref(object);
	result_free(&r);
}

/* A bwrap found only where others could write is named in the runner
 * failure with why (doc/SPEC.md 4's trust rule), never silently skipped. */
static void test_untrusted_bwrap_is_named(void **state) {
	char dir[PATH_MAX], bwrap[PATH_MAX], side[PATH_MAX], cmd[PATH_MAX + 32], env[PATH_MAX + 24];
	char detail[2 * PATH_MAX + 128], expected[4 * PATH_MAX];
	json_t *object;
	result r;
	(void)state;
	path_in(dir, base, "untrusted-bin");
	path_in(bwrap, dir, "bwrap");
	path_in(side, base, "untrusted-side-effect");
	FORMAT(cmd, sizeof cmd, "touch '%s'", side);
	assert_int_equal(mkdir(dir, 0755), 0);
	write_file(bwrap, "#!/bin/sh\nexit 0\n");
	assert_int_equal(chmod(bwrap, 0755), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	FORMAT(env, sizeof env, "CONFINE_RUNNER_PATH=%s", dir);
	FORMAT(detail, sizeof detail,
	       "runner %s is not trusted: %s is writable by group or others; refusing to run it",
	       bwrap, dir);

	run_in(&r, NULL, ENV(env), ARGS("run", "--runner", "bwrap", "--", "/bin/sh", "-c", cmd));
	expect_status(&r, 125);
	FORMAT(expected, sizeof expected, unavailable_prefix, "read-only");
	FORMAT(expected + strlen(expected), sizeof expected - strlen(expected),
	       " Runner failure: %s\n", detail);
	assert_true(strncmp(r.err, "confine: ", 9) == 0);
	assert_string_equal(r.err + 9, expected);
	assert_false(exists(side));
	result_free(&r);

	run_in(&r, NULL, ENV(env), ARGS("probe", "--runner", "bwrap", "--json"));
	expect_status(&r, 1);
	object = json_of(&r);
	assert_false(json_bool(object, "usable"));
	assert_string_equal(json_str(object, "runnerFailure"), detail);
	json_decref(object);
	result_free(&r);
	assert_int_equal(chmod(dir, 0755), 0);
}

static void test_pinned_runner_failure(void **state) {
	const char *config = config_file("{\"landlockLauncher\": \"/nonexistent/landlock-run\"}");
	char side[PATH_MAX], cmd[PATH_MAX + 32], expected[2048];
	json_t *object, *error;
	result r;
	(void)state;
	path_in(side, work, "pinned-side-effect");
	FORMAT(cmd, sizeof cmd, "touch '%s'", side);
	FORMAT(expected, sizeof expected, unavailable_prefix, "read-only");

	/* a chain of one is selected unprobed and fails closed at execution */
	RUN(&r, "run", "--config", config, "--runner", "landlock", "-w", work, "--", "sh", "-c", cmd);
	expect_status(&r, 125);
	assert_true(strncmp(r.err, "confine: ", 9) == 0);
	assert_true(strncmp(r.err + 9, expected, strlen(expected)) == 0);
	assert_true(strncmp(r.err + 9 + strlen(expected), " Runner failure: ", 17) == 0);
	assert_non_null(strstr(r.err, "/nonexistent/landlock-run"));
	assert_false(exists(side));
	result_free(&r);

	RUN(&r, "bash", "--json", "--config", config, "--runner", "landlock", "-w", work, "-c", cmd);
	expect_status(&r, 125);
	object = json_of(&r);
	error = json_object_get(object, "error");
	assert_string_equal(json_str(error, "code"), "SANDBOX_UNAVAILABLE");
	assert_non_null(strstr(json_str(error, "message"), " Runner failure: "));
	assert_non_null(strstr(json_str(error, "runnerFailure"), "/nonexistent/landlock-run"));
	assert_non_null(strstr(json_str(error, "message"), json_str(error, "runnerFailure")));
	json_decref(object);
	assert_false(exists(side));
	result_free(&r);

	RUN(&r, "run", "--json", "--config", config, "--runner", "landlock", "-w", work, "--", "sh",
	    "-c", cmd);
	expect_status(&r, 125);
	assert_string_equal(r.out, "");
	object = json_of_last_err_line(&r);
	error = json_object_get(object, "error");
	assert_string_equal(json_str(error, "code"), "SANDBOX_UNAVAILABLE");
	assert_non_null(strstr(json_str(error, "runnerFailure"), "/nonexistent/landlock-run"));
	json_decref(object);
	assert_false(exists(side));
	result_free(&r);
}

/* A runner that starts but refuses before running the command: its
 * pre-exec refusal line is the detail, and confine exits 125. */
static void test_runner_failure_after_start(void **state) {
	char script[PATH_MAX], text[PATH_MAX * 2], side[PATH_MAX], cmd[PATH_MAX + 32];
	const char *config;
	result r;
	(void)state;
	path_in(script, base, "refusing-runner");
	write_file(script, "#!/bin/sh\necho 'my-runner: cannot set up the sandbox' >&2\nexit 1\n");
	assert_int_equal(chmod(script, 0755), 0);
	FORMAT(text, sizeof text,
	         "{\"runnerCommand\": [\"%s\"], \"runnerFailureSignatures\": [\"my-runner: \"]}",
	         script);
	config = config_file(text);
	path_in(side, work, "refused-side-effect");
	FORMAT(cmd, sizeof cmd, "touch '%s'", side);
	RUN(&r, "run", "--config", config, "-w", work, "--", "sh", "-c", cmd);
	expect_status(&r, 125);
	/* stderr was live: the runner's own line, then confine's */
	assert_non_null(strstr(r.err, "my-runner: cannot set up the sandbox\nconfine: "));
	assert_non_null(strstr(r.err, " Runner failure: my-runner: cannot set up the sandbox\n"));
	assert_false(exists(side));
	result_free(&r);
}

/* ------------------------------------------------------------------------ */

int main(int argc, char **argv) {
	const struct CMUnitTest usage[] = {
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_usage_error_as_json),
		cmocka_unit_test(test_bad_workspace_is_a_policy_error),
		cmocka_unit_test(test_contradictions_are_refused),
	};
	const struct CMUnitTest config[] = {
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_config_unreadable_and_env),
		cmocka_unit_test(test_config_mode_and_root_defaults),
		cmocka_unit_test(test_config_missing_root_names_the_key),
		cmocka_unit_test(test_huge_probe_timeout_is_a_number),
	};
	const struct CMUnitTest wrap[] = {
		cmocka_unit_test(test_wrap_env_is_an_object),
		cmocka_unit_test(test_wrap_bwrap_shape),
		cmocka_unit_test(test_wrap_landlock_pinned),
		cmocka_unit_test(test_wrap_runner_command),
		cmocka_unit_test(test_wrap_danger_is_the_argv_unchanged),
		cmocka_unit_test(test_wrap_argument_not_utf8),
		cmocka_unit_test(test_wrap_workspace_link_dotdot),
	};
	const struct CMUnitTest run[] = {
		cmocka_unit_test(test_run_default_ladder),
		cmocka_unit_test(test_run_pinned_bwrap),
		cmocka_unit_test(test_run_pinned_landlock),
		cmocka_unit_test(test_run_json),
		cmocka_unit_test(test_run_timeout),
		cmocka_unit_test(test_run_danger_is_unconfined),
		cmocka_unit_test(test_run_program_not_found),
		cmocka_unit_test(test_run_program_in_host_tmp),
		cmocka_unit_test(test_run_workspace_below_dev_shm),
		cmocka_unit_test(test_run_forwards_sigterm),
		cmocka_unit_test(test_bash_forwards_sigterm),
		cmocka_unit_test(test_run_signal_reaches_the_commands_trap),
		cmocka_unit_test(test_setsid_descendants_do_not_outlive_confine),
		cmocka_unit_test(test_orphans_are_reaped_during_the_run),
		cmocka_unit_test(test_inherited_ignored_sigchld),
	};
	const struct CMUnitTest bash[] = {
		cmocka_unit_test(test_bash_json_denied),
		cmocka_unit_test(test_cwd_is_where_the_command_starts),
		cmocka_unit_test(test_bash_json_signal_and_timeout),
		cmocka_unit_test(test_bash_json_truncated_and_not_utf8),
		cmocka_unit_test(test_bash_json_danger),
		cmocka_unit_test(test_bash_rendering),
	};
	const struct CMUnitTest probe[] = {
		cmocka_unit_test(test_probe_json),
		cmocka_unit_test(test_probe_words),
	};
	const struct CMUnitTest unavailable[] = {
		cmocka_unit_test(test_unavailable_exact_line),
		cmocka_unit_test(test_probe_pinned_runner),
		cmocka_unit_test(test_stripped_launcher_is_a_runner_failure),
		cmocka_unit_test(test_untrusted_bwrap_is_named),
		cmocka_unit_test(test_pinned_runner_failure),
		cmocka_unit_test(test_runner_failure_after_start),
	};
	const char *group = argc > 1 ? argv[1] : "";

	confine_path = getenv("CONFINE_TEST_CLI");
	launcher_path = tl_launcher();
	if (!confine_path || !launcher_path) {
		fprintf(stderr, "test-cli: CONFINE_TEST_CLI and CONFINE_TEST_LAUNCHER must be set\n");
		return 1;
	}
	have_bwrap = program_on_path("bwrap") &&
	             succeeds((const char *const[]){"bwrap", "--ro-bind", "/", "/", "--dev", "/dev",
	                                            "--unshare-pid", "--proc", "/proc", "--", "true",
	                                            NULL});
	have_landlock = succeeds((const char *const[]){launcher_path, "--probe", NULL});
	have_landlock_full = have_landlock && landlock_fully_enforced();

	/* Groups that run commands confined need a runner of this host. */
	if ((strcmp(group, "run") == 0 || strcmp(group, "bash") == 0 ||
	     strcmp(group, "probe") == 0) &&
	    !have_bwrap && !have_landlock) {
		fprintf(stderr, "test-cli: neither bwrap nor Landlock works here\n");
		return must_work() ? 1 : SKIP_STATUS;
	}
	if (strcmp(group, "usage") == 0)
		return cmocka_run_group_tests_name("usage", usage, setup, teardown);
	if (strcmp(group, "config") == 0)
		return cmocka_run_group_tests_name("config", config, setup, teardown);
	if (strcmp(group, "wrap") == 0)
		return cmocka_run_group_tests_name("wrap", wrap, setup, teardown);
	if (strcmp(group, "run") == 0)
		return cmocka_run_group_tests_name("run", run, setup, teardown);
	if (strcmp(group, "bash") == 0)
		return cmocka_run_group_tests_name("bash", bash, setup, teardown);
	if (strcmp(group, "probe") == 0)
		return cmocka_run_group_tests_name("probe", probe, setup, teardown);
	if (strcmp(group, "unavailable") == 0)
		return cmocka_run_group_tests_name("unavailable", unavailable, setup, teardown);
	fprintf(stderr, "test-cli: unknown group \"%s\"\n", group);
	return 1;
}
