/* SPDX-License-Identifier: MIT */
/*
 * `--ask-host COMMAND` (ask-host.h). The library calls it on a thread of
 * its own (doc/SPEC.md 15, "Ask"); COMMAND's pid is kept from the
 * subreaper's handler (supervise.c), which would otherwise reap it first:
 * COMMAND waits on a pipe until its pid is kept, so it cannot end before.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ask-host.h"
#include "ask-trust.h"
#include "output.h"
#include "supervise.h"

/* The decider's environment (ask-trust.h), made once by resolve. */
static char **decider_env;

static long long now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One read of the decider's output into got; false at its end (or an
 * error, or nothing more to read now). */
static bool take_output(int fd, char *got, size_t size, size_t *n) {
	char scratch[512];
	ssize_t r = read(fd, scratch, sizeof scratch);
	if (r > 0) {
		size_t k = (size_t)r < size - 1 - *n ? (size_t)r : size - 1 - *n;
		memcpy(got + *n, scratch, k);
		*n += k;
		return true;
	}
	return r < 0 && errno == EINTR;
}

/* The run's own deadline (monotonic ms; 0: none): a question the decider
 * has not answered by then is refused, so the run's timeout is not held
 * up by it (red team R3-F2). */
static long long run_deadline_ms;

void cli_ask_host_deadline(long long timeout_ms) {
	run_deadline_ms = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
}

bool cli_ask_host(void *data, const char *host, unsigned port, char *reason, size_t size) {
	const char *command = data;
	char port_text[16], got[1024];
	char *argv[4];
	size_t n = 0;
	sigset_t none;
	long long until;
	int out[2], hold[2], devnull, status = 0;
	bool done = false, ended = false;
	const char *cut = NULL; /* why the decider was not waited for */
	pid_t pid;

	snprintf(port_text, sizeof port_text, "%u", port);
	argv[0] = (char *)command;
	argv[1] = (char *)host;
	argv[2] = port_text;
	argv[3] = NULL;
	if (size)
		reason[0] = '\0';
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0 || pipe2(out, O_CLOEXEC) < 0) {
		if (devnull >= 0)
			close(devnull);
		snprintf(reason, size, "the decider cannot be run: %s", strerror(errno));
		return false;
	}
	if (pipe2(hold, O_CLOEXEC) < 0) {
		close(devnull);
		close(out[0]);
		close(out[1]);
		snprintf(reason, size, "the decider cannot be run: %s", strerror(errno));
		return false;
	}
	sigemptyset(&none);
	pid = fork();
	if (pid == 0) {
		char go;
		/* the library's thread blocks every signal: COMMAND takes them */
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* a group of its own: what it leaves behind is killed with it */
		(void)setpgid(0, 0);
		close(hold[1]);
		while (read(hold[0], &go, 1) < 0 && errno == EINTR)
			;
		/* Never in the workspace, with what the run may plant out of
		 * its environment (R4-F1). */
		if (dup2(devnull, 0) < 0 || dup2(out[1], 1) < 0 || chdir("/") < 0)
			_exit(127);
		if (decider_env)
			execve(command, argv, decider_env);
		_exit(127);
	}
	close(hold[0]);
	close(out[1]);
	close(devnull);
	if (pid < 0) {
		close(hold[1]);
		close(out[0]);
		snprintf(reason, size, "the decider cannot be run: %s", strerror(errno));
		return false;
	}
	if (!cli_supervise_keep_child(pid)) {
		close(hold[1]);
		close(out[0]);
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		snprintf(reason, size, "the decider %s has too many questions open", command);
		return false;
	}
	close(hold[1]); /* COMMAND goes on */
	/* Its output until it ends (or the bound): the answer is taken when
	 * the decider exits, not when its stdout closes (a child it leaves
	 * behind may hold that open, R3-F7); then its process group is
	 * killed. */
	until = now_ms() + CLI_ASK_HOST_SECONDS * 1000LL;
	while (!ended) {
		struct pollfd pfd = { .fd = out[0], .events = POLLIN };
		long long left = until - now_ms();
		siginfo_t si;
		if (left <= 0)
			break;
		/* The run's end comes first (R3-F2): a signal that ends it was
		 * forwarded, or its timeout is due; the question is refused so
		 * the wait goes on to end the run within its bound. */
		if (cli_supervise_ending()) {
			cut = "the run is ending (a signal ended it)";
			break;
		}
		if (run_deadline_ms && now_ms() >= run_deadline_ms) {
			cut = "the run's timeout came first";
			break;
		}
		si.si_pid = 0;
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid) {
			ended = true;
			break;
		}
		if (done) {
			usleep(10000);
			continue;
		}
		if (poll(&pfd, 1, (int)(left > 50 ? 50 : left)) <= 0)
			continue;
		done = !take_output(out[0], got, sizeof got, &n);
	}
	if (ended && !done) {
		/* what it wrote before it ended is all there is */
		int fl = fcntl(out[0], F_GETFL);
		if (fl >= 0)
			(void)fcntl(out[0], F_SETFL, fl | O_NONBLOCK);
		while (take_output(out[0], got, sizeof got, &n))
			;
	}
	close(out[0]);
	kill(-pid, SIGKILL); /* the group: what it left behind */
	if (!ended)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	cli_supervise_let_child_go(pid);
	if (!ended) {
		if (cut)
			snprintf(reason, size, "the decider %s was not waited for: %s", command, cut);
		else
			snprintf(reason, size, "the decider %s did not answer within %d s", command,
			         CLI_ASK_HOST_SECONDS);
		return false;
	}
	got[n] = '\0';
	got[strcspn(got, "\r\n")] = '\0';
	snprintf(reason, size, "%s", got);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && !got[0])
		snprintf(reason, size, "the decider %s cannot be run", command);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The words of `real`'s `#!` line, the interpreter first (the kernel
 * passes the rest of the line as one argument; `env -S` splits it, so
 * every word counts): how many, 0 when it is no script. */
static size_t shebang_words(const char *real, char line[PATH_MAX + 3], char *words[16]) {
	size_t n, count = 0;
	char *save = NULL, *w;
	FILE *f = fopen(real, "re");
	if (!f)
		return 0;
	n = fread(line, 1, PATH_MAX + 2, f);
	fclose(f);
	line[n] = '\0';
	if (n < 2 || line[0] != '#' || line[1] != '!')
		return 0;
	line[strcspn(line, "\r\n")] = '\0';
	for (w = strtok_r(line + 2, " \t", &save); w && count < 16; w = strtok_r(NULL, " \t", &save))
		words[count++] = w;
	return count;
}

/* `real` (the decider, or its interpreter) is one the command cannot
 * replace: 0, else the exit status cli_report() gave. */
static int refuse_unsafe(const cli_context *ctx, const char *command, const char *what,
                         const char *real) {
	char why[PATH_MAX + 128];
	struct stat st;
	const char *area = cli_trust_writable_area(ctx->policy, real);
	if (area)
		return cli_report(ctx, CONFINE_E_INVALID_CONFIG,
		                  "--ask-host \"%s\": %s%s lies inside the run's writable root \"%s\": "
		                  "the confined command could replace the decider that judges it",
		                  command, what, real, area);
	if (!cli_trust_owned_safely(real, why, sizeof why))
		return cli_report(ctx, CONFINE_E_INVALID_CONFIG,
		                  "--ask-host \"%s\": %s%s: another user could replace the decider",
		                  command, what, why);
	/* A second name of the same file may lie where the run writes: the
	 * run would rewrite the decider through it (R4-F6). A link shares the
	 * file's filesystem, so only a writable place there can hold one. */
	if (stat(real, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 1 &&
	    (area = cli_trust_writable_on_device(ctx->policy, st.st_dev)) != NULL)
		return cli_report(ctx, CONFINE_E_INVALID_CONFIG,
		                  "--ask-host \"%s\": %s%s has %lu hard links, and the run may write "
		                  "\"%s\" on the same filesystem: a link there would let the confined "
		                  "command rewrite the decider that judges it (use a copy with one link)",
		                  command, what, real, (unsigned long)st.st_nlink, area);
	return 0;
}

/* One path an argument of a `#!` line names (`/x`, `-I/x`, `a=/x`, or a
 * relative one, which the decider's cwd `/` resolves): one the command
 * could write or replace is refused like the interpreter (red team,
 * round 5: `#!/bin/sh WORKSPACE/evil` ran a planted script unconfined). */
static int refuse_unsafe_word(const cli_context *ctx, const char *command, const char *word) {
	char segment[PATH_MAX], path[PATH_MAX + 1], real[PATH_MAX], what[PATH_MAX + 48];
	const char *p = word;
	while (*p) {
		size_t len = strcspn(p, ":=,;");
		const char *start = p;
		if (len > 0 && len < sizeof segment && memchr(p, '/', len)) {
			memcpy(segment, p, len);
			segment[len] = '\0';
			start = segment[0] == '-' ? strchr(segment, '/') : segment;
			snprintf(path, sizeof path, "%s%s", start[0] == '/' ? "" : "/", start);
			snprintf(what, sizeof what, "its #! line's argument %s, ", word);
			if (cli_trust_writable_area(ctx->policy, path))
				return cli_report(ctx, CONFINE_E_INVALID_CONFIG,
				                  "--ask-host \"%s\": %s%s lies inside the run's writable "
				                  "root \"%s\": the confined command could replace what the "
				                  "decider runs",
				                  command, what, path, cli_trust_writable_area(ctx->policy, path));
			if (realpath(path, real)) {
				int status = refuse_unsafe(ctx, command, what, real);
				if (status != 0)
					return status;
			} else {
				/* missing: where it would be made, its directory resolved */
				char *slash = strrchr(path, '/');
				*slash = '\0';
				if (realpath(path[0] ? path : "/", real) &&
				    cli_trust_writable_area(ctx->policy, real))
					return cli_report(ctx, CONFINE_E_INVALID_CONFIG,
					                  "--ask-host \"%s\": %s%s lies inside the run's "
					                  "writable root \"%s\": the confined command could "
					                  "make what the decider runs",
					                  command, what, real,
					                  cli_trust_writable_area(ctx->policy, real));
			}
		}
		p += len;
		if (*p)
			p++;
	}
	return 0;
}

/* A script's interpreter runs it, with its `#!` line's arguments, and an
 * interpreter may be a script in turn (the kernel follows four): each the
 * same rule as the decider (R4-F1; red team, round 5). */
static int refuse_unsafe_script(const cli_context *ctx, const char *command, const char *real,
                                int depth) {
	char line[PATH_MAX + 3], interp[PATH_MAX], what[PATH_MAX + 32];
	char *words[16];
	size_t n = shebang_words(real, line, words);
	int status;
	if (n == 0)
		return 0;
	if (depth >= 4)
		return cli_report(ctx, CONFINE_E_INVALID_CONFIG,
		                  "--ask-host \"%s\": its interpreters nest deeper than the kernel "
		                  "follows",
		                  command);
	if (words[0][0] != '/' || !realpath(words[0], interp))
		return cli_report(ctx, CONFINE_E_INVALID_CONFIG,
		                  "--ask-host \"%s\": its interpreter \"%s\" is not found", command,
		                  words[0]);
	snprintf(what, sizeof what, "its interpreter %s, ", words[0]);
	if ((status = refuse_unsafe(ctx, command, what, interp)) != 0)
		return status;
	for (size_t i = 1; i < n; i++)
		if ((status = refuse_unsafe_word(ctx, command, words[i])) != 0)
			return status;
	return refuse_unsafe_script(ctx, command, interp, depth + 1);
}

int cli_ask_host_resolve(const cli_context *ctx, const char *command, char resolved[PATH_MAX]) {
	const char *path_env = getenv("PATH");
	char candidate[PATH_MAX];
	bool found = false;
	int status;
	if (strchr(command, '/')) {
		found = realpath(command, resolved) != NULL;
	} else {
		const char *p = path_env && *path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
		while (!found && *p) {
			const char *end = strchr(p, ':');
			size_t len = end ? (size_t)(end - p) : strlen(p);
			struct stat st;
			if (len == 0)
				snprintf(candidate, sizeof candidate, "./%s", command);
			else
				snprintf(candidate, sizeof candidate, "%.*s/%s", (int)len, p, command);
			if (stat(candidate, &st) == 0 && S_ISREG(st.st_mode) && access(candidate, X_OK) == 0)
				found = realpath(candidate, resolved) != NULL;
			p += len + (end ? 1 : 0);
		}
	}
	if (!found)
		return cli_report(ctx, CONFINE_E_INVALID_CONFIG,
		                  "--ask-host \"%s\": not found%s (the decider runs unconfined: give "
		                  "a program outside the run's writable roots)",
		                  command, strchr(command, '/') ? "" : " on PATH");
	if ((status = refuse_unsafe(ctx, command, "", resolved)) != 0)
		return status;
	/* A script's interpreter runs it: the same rule (R4-F1). */
	if ((status = refuse_unsafe_script(ctx, command, resolved, 0)) != 0)
		return status;
	if (!decider_env && cli_ask_env_make(ctx->policy, &decider_env) < 0)
		return cli_report(ctx, CONFINE_E_INVALID_CONFIG,
		                  "--ask-host \"%s\": out of memory", command);
	return 0;
}
