/* SPDX-License-Identifier: MIT */
/*
 * wrap-harness: the escape suite's third path (run-escape.sh --paths wrap).
 *
 * It stands where the `confine` binary stands in a case's argv and runs the
 * case the way a harness that spawns commands itself would: it asks
 * `confine wrap` for the confined argv, then spawns that argv as doc/SPEC.md
 * 10 says (a new session, no descriptor above 2, cwd the workspace root,
 * exactly the wrap's `env`) and waits for it. Every attack then meets the
 * argv a harness gets, not the library's own spawn.
 *
 *   wrap-harness run  [OPTIONS] -- PROGRAM [ARG...]
 *   wrap-harness bash [OPTIONS] [--timeout MS] -c COMMAND
 *
 * `run` wraps PROGRAM with this process's stdin (a directory too: the
 * harness passes what it was given); `bash` wraps ["bash", "-c", COMMAND]
 * with /dev/null as stdin, as the bash consumer hands it to the provider
 * (doc/SPEC.md 9). OPTIONS go to `confine wrap` as they are (--json is
 * dropped). The harness ends its runs: --timeout MS, or SIGTERM, SIGINT,
 * SIGHUP or SIGQUIT to this process, sends SIGTERM to the argv's process
 * group and SIGKILL 3 s later; the harness dying (SIGKILL) is what
 * --die-with-parent and the launcher's lifeline are for.
 *
 * The configuration: the --config file, else $CONFINE_CONFIG; when it is a
 * JSON object naming no `landlockLauncher`, a copy with $LANDLOCK_RUN added
 * (itself copied out of /tmp first: confine runs no launcher from there)
 * is written to $CTL (else $HOME) and passed instead. Anything else is
 * passed as it is, for confine to judge.
 *
 * C, not a script: an interpreter run unconfined would meet the case's
 * environment first (BASH_ENV for a shell; Python refuses a directory as
 * stdin before any code of its own runs).
 *
 * Exit status: `confine wrap`'s when it refuses (125; its `confine: ` line
 * is on stderr); else the argv's own, 128+N for a death by signal N; 2 on a
 * usage error, 70 when the harness itself failed.
 * Environment: CONFINE (the confine binary, required), LANDLOCK_RUN, CTL;
 * WRAP_HARNESS_PLAIN_BWRAP=1, for measuring what the layering changed only:
 * spawn a bwrap argv without its launcher (from the bind of
 * /dev/.confine/landlock-run to the launcher's own "--"), which is what
 * `wrap` printed before issue 21 part 5.
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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#define GRACE_MS 3000
#define FAILED 70

static _Noreturn void die(const char *what) {
	fprintf(stderr, "wrap-harness: %s: %s\n", what, strerror(errno));
	exit(FAILED);
}

static long long now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int status_of(int wait_status) {
	return WIFSIGNALED(wait_status) ? 128 + WTERMSIG(wait_status) : WEXITSTATUS(wait_status);
}

static int copy_file(const char *from, const char *to) {
	char buffer[65536];
	ssize_t n;
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buffer, sizeof buffer)) > 0)
		if (write(out, buffer, (size_t)n) != n) {
			n = -1;
			break;
		}
	close(in);
	if (fchmod(out, 0755) != 0)
		n = -1;
	if (close(out) != 0)
		n = -1;
	return n < 0 ? -1 : 0;
}

/* The launcher to name in the config: canonical, and out of /tmp. */
static const char *trusted_launcher(const char *launcher) {
	static char copy[PATH_MAX];
	char dir[PATH_MAX - 32], tmp[PATH_MAX];
	const char *home = getenv("HOME");
	char *real = realpath(launcher, NULL);
	if (!real)
		die(launcher);
	if (strncmp(real, "/tmp/", 5) != 0) {
		snprintf(copy, sizeof copy, "%s", real);
		free(real);
		return copy;
	}
	snprintf(dir, sizeof dir, "%s/.cache/confine-escape/launcher", home ? home : "");
	snprintf(copy, sizeof copy, "%s/landlock-run", dir);
	snprintf(tmp, sizeof tmp, "%s/.landlock-run.%ld", dir, (long)getpid());
	{
		char parent[PATH_MAX];
		snprintf(parent, sizeof parent, "%s/.cache", home ? home : "");
		mkdir(parent, 0755);
		snprintf(parent, sizeof parent, "%s/.cache/confine-escape", home ? home : "");
		mkdir(parent, 0755);
		mkdir(dir, 0755);
	}
	if (copy_file(real, tmp) != 0 || rename(tmp, copy) != 0)
		die("cannot copy the launcher out of /tmp");
	free(real);
	return copy;
}

/* The config file to pass, or NULL for none (see the top). */
static const char *config_with_launcher(const char *given) {
	static char path[PATH_MAX];
	const char *launcher = getenv("LANDLOCK_RUN");
	const char *where = getenv("CTL");
	json_t *config;
	int fd;
	FILE *f;
	if (!launcher || !launcher[0])
		return given;
	if (given) {
		config = json_load_file(given, 0, NULL);
		if (!config || !json_is_object(config) || json_object_get(config, "landlockLauncher")) {
			json_decref(config);
			return given;
		}
	} else {
		config = json_object();
	}
	json_object_set_new(config, "landlockLauncher", json_string(trusted_launcher(launcher)));
	if (!where || !where[0])
		where = getenv("HOME");
	snprintf(path, sizeof path, "%s/wrap-config.XXXXXX", where ? where : ".");
	fd = mkstemp(path);
	if (fd < 0 || !(f = fdopen(fd, "w")))
		die("cannot write the config");
	if (json_dumpf(config, f, JSON_COMPACT) != 0 || fclose(f) != 0)
		die("cannot write the config");
	json_decref(config);
	return path;
}

/* Runs `confine wrap ...` with stdout read into *out; stderr passes. */
static int run_wrap(char **argv, char **out) {
	size_t size = 0, len = 0;
	char *text = NULL;
	int pipefd[2], status;
	pid_t pid;
	if (pipe2(pipefd, O_CLOEXEC) != 0)
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		if (null < 0 || dup2(null, 0) < 0 || dup2(pipefd[1], 1) < 0)
			_exit(FAILED);
		execv(argv[0], argv);
		fprintf(stderr, "wrap-harness: %s: %s\n", argv[0], strerror(errno));
		_exit(FAILED);
	}
	close(pipefd[1]);
	for (;;) {
		ssize_t n;
		if (len + 4096 + 1 > size) {
			size = size ? size * 2 : 65536;
			text = realloc(text, size);
			if (!text)
				die("memory");
		}
		n = read(pipefd[0], text + len, size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(pipefd[0]);
	text[len] = '\0';
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	*out = text;
	return status_of(status);
}

/* A NULL-terminated vector of the strings of a JSON array. */
static char **strings(const json_t *array) {
	size_t n = json_array_size(array);
	char **v = calloc(n + 1, sizeof *v);
	if (!v)
		die("memory");
	for (size_t i = 0; i < n; i++) {
		const char *s = json_string_value(json_array_get(array, i));
		if (!s) {
			errno = EINVAL;
			die("the wrap holds a non-string");
		}
		v[i] = (char *)s;
	}
	return v;
}

/* The wrap's env, an object {"NAME": "VALUE"} (doc/SPEC.md 10), as
 * NAME=VALUE strings; an array of them is taken as it is. */
static char **env_strings(const json_t *env) {
	const char *name;
	json_t *value;
	char **v;
	size_t n = 0;
	if (!json_is_object(env))
		return strings(env);
	v = calloc(json_object_size(env) + 1, sizeof *v);
	if (!v)
		die("memory");
	json_object_foreach((json_t *)env, name, value) {
		const char *s = json_string_value(value);
		if (!s) {
			errno = EINVAL;
			die("the wrap's env holds a non-string");
		}
		if (asprintf(&v[n], "%s=%s", name, s) < 0)
			die("memory");
		n++;
	}
	return v;
}

int main(int argc, char **argv) {
	const char *confine = getenv("CONFINE");
	const char *config = getenv("CONFINE_CONFIG");
	bool bash;
	long timeout_ms = -1;
	char **options, **command = NULL, **wrap_argv, **child_argv, **child_env;
	size_t n_options = 0, n = 0;
	char *out = NULL;
	const char *root;
	json_t *wrapped;
	sigset_t ending, old;
	long long deadline = -1, kill_at = -1;
	int status, child_status = 0;
	pid_t child;

	if (argc < 2 || (strcmp(argv[1], "run") != 0 && strcmp(argv[1], "bash") != 0) ||
	    !confine) {
		fprintf(stderr, "usage: CONFINE=... wrap-harness run|bash [OPTIONS] ...\n");
		return 2;
	}
	bash = strcmp(argv[1], "bash") == 0;
	if (config && !config[0])
		config = NULL;
	options = calloc((size_t)argc, sizeof *options);
	if (!options)
		die("memory");
	for (int i = 2; i < argc; i++) {
		if (!bash && strcmp(argv[i], "--") == 0) {
			command = &argv[i + 1];
			break;
		}
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
			config = argv[++i];
		} else if (bash && strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) {
			timeout_ms = strtol(argv[++i], NULL, 10);
		} else if (bash && strcmp(argv[i], "-c") == 0 && i + 1 < argc) {
			static char *bash_c[4];
			bash_c[0] = (char *)"bash";
			bash_c[1] = (char *)"-c";
			bash_c[2] = argv[++i];
			command = bash_c;
		} else if (strcmp(argv[i], "--json") != 0) {
			options[n_options++] = argv[i];
		}
	}
	if (!command || !command[0]) {
		fprintf(stderr, "wrap-harness: no command to wrap\n");
		return 2;
	}

	/* confine wrap [--config C] OPTIONS -- COMMAND */
	config = config_with_launcher(config);
	wrap_argv = calloc((size_t)argc + 8, sizeof *wrap_argv);
	if (!wrap_argv)
		die("memory");
	wrap_argv[n++] = (char *)confine;
	wrap_argv[n++] = (char *)"wrap";
	if (config) {
		wrap_argv[n++] = (char *)"--config";
		wrap_argv[n++] = (char *)config;
	}
	for (size_t i = 0; i < n_options; i++)
		wrap_argv[n++] = options[i];
	wrap_argv[n++] = (char *)"--";
	for (size_t i = 0; command[i]; i++)
		wrap_argv[n++] = command[i];
	status = run_wrap(wrap_argv, &out);
	if (status != 0)
		return status;
	wrapped = json_loads(out, 0, NULL);
	if (!wrapped) {
		errno = EINVAL;
		die("the wrap is not JSON");
	}
	child_argv = strings(json_object_get(wrapped, "argv"));
	child_env = env_strings(json_object_get(wrapped, "env"));
	root = json_string_value(json_object_get(json_object_get(wrapped, "policy"), "workspaceRoot"));
	if (!child_argv[0] || !root) {
		errno = EINVAL;
		die("the wrap has no argv or workspace root");
	}
	if (getenv("WRAP_HARNESS_PLAIN_BWRAP") && strcmp(getenv("WRAP_HARNESS_PLAIN_BWRAP"), "1") == 0) {
		/* ... --ro-bind L /dev/.confine/landlock-run -- /dev/.confine/landlock-run
		 * ARGS -- COMMAND: keep what precedes the bind, then "--" COMMAND */
		size_t bind = 0, end = 0;
		for (size_t i = 0; child_argv[i]; i++)
			if (i >= 2 && strcmp(child_argv[i], "/dev/.confine/landlock-run") == 0 &&
			    strcmp(child_argv[i - 2], "--ro-bind") == 0 && !bind)
				bind = i - 2;
		for (size_t i = bind ? bind + 5 : 0; bind && child_argv[i]; i++)
			if (strcmp(child_argv[i], "--") == 0) {
				end = i;
				break;
			}
		if (bind && end) {
			size_t k = bind;
			for (size_t i = end; child_argv[i]; i++)
				child_argv[k++] = child_argv[i];
			child_argv[k] = NULL;
		}
	}

	/* The ending signals wait for the loop below; the child gets the mask
	 * this process was given. */
	sigemptyset(&ending);
	sigaddset(&ending, SIGTERM);
	sigaddset(&ending, SIGINT);
	sigaddset(&ending, SIGHUP);
	sigaddset(&ending, SIGQUIT);
	sigaddset(&ending, SIGCHLD);
	sigprocmask(SIG_BLOCK, &ending, &old);
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (setsid() < 0 || chdir(root) != 0)
			_exit(FAILED);
		if (bash) {
			int null = open("/dev/null", O_RDONLY);
			if (null < 0 || dup2(null, 0) < 0)
				_exit(FAILED);
		}
		/* no descriptor above 2 */
		if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0)
			for (int fd = 3; fd < 65536; fd++)
				close(fd);
		/* a confined argv names its runner by absolute path; under
		 * danger-full-access it is the caller's own argv, found on PATH */
		execvpe(child_argv[0], child_argv, child_env);
		fprintf(stderr, "wrap-harness: %s: %s\n", child_argv[0], strerror(errno));
		_exit(127);
	}
	if (timeout_ms >= 0)
		deadline = now_ms() + timeout_ms;
	for (;;) {
		struct timespec wait = { 0, 100 * 1000000 };
		siginfo_t info;
		pid_t done = waitpid(child, &child_status, WNOHANG);
		int sig;
		if (done == child)
			break;
		if (deadline >= 0 && now_ms() >= deadline && kill_at < 0) {
			kill(-child, SIGTERM);
			kill_at = now_ms() + GRACE_MS;
		}
		if (kill_at >= 0 && now_ms() >= kill_at) {
			kill(-child, SIGKILL);
			kill_at = now_ms() + 60 * 1000;
		}
		sig = sigtimedwait(&ending, &info, &wait);
		if (sig > 0 && sig != SIGCHLD && kill_at < 0) {
			/* the run is to end: as a harness's own timeout does */
			kill(-child, SIGTERM);
			kill_at = now_ms() + GRACE_MS;
		}
	}
	json_decref(wrapped);
	return status_of(child_status);
}
