/* SPDX-License-Identifier: MIT */
/*
 * The confine command's subcommands: run, bash, wrap, probe (SPEC 10).
 *
 * Every command first builds the same context, in an order where each step
 * can fail before anything runs: the configuration file, the local provider
 * (which validates the SPEC 4 settings), then the policy. A failure of
 * confine itself is one `confine: MESSAGE` line on stderr and exit 125; a
 * confined mode never runs its command unconfined.
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "config-file.h"
#include "config.h"
#include "spawn-internal.h"

#if HAVE_PR_SET_CHILD_SUBREAPER
#include <sys/prctl.h>
#endif

typedef struct cli_context {
	const cli_args *args;
	cli_config config;          /* empty when no file was given */
	confine_provider *provider;
	confine_policy *policy;     /* NULL for probe */
} cli_context;

/* ------------------------------------------------------------------------ */
/* Output                                                                   */

/* Length of the well-formed UTF-8 sequence at s[0..n), 0 when it is not one.
 * Strict like jansson's own check (no overlongs, surrogates or code points
 * above U+10FFFF), so whatever passes here jansson accepts. */
static size_t utf8_sequence_length(const unsigned char *s, size_t n) {
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xBF;
	size_t len, i;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return len;
}

/* A JSON string from bytes that may not be UTF-8 (a command's output): each
 * byte that does not start a well-formed sequence becomes U+FFFD. NUL bytes
 * are kept (jansson writes them as \u0000). */
static json_t *json_string_lossy(const char *data, size_t len) {
	const unsigned char *s = (const unsigned char *)data;
	char *clean;
	size_t out = 0, i = 0;
	json_t *value;
	if (!data)
		return json_string("");
	if (len > (SIZE_MAX - 1) / 3)
		return NULL;
	clean = malloc(len * 3 + 1); /* each invalid byte grows to 3 */
	if (!clean)
		return NULL;
	while (i < len) {
		size_t seq = utf8_sequence_length(s + i, len - i);
		if (seq == 0) {
			memcpy(clean + out, "\xEF\xBF\xBD", 3);
			out += 3;
			i++;
		} else {
			memcpy(clean + out, s + i, seq);
			out += seq;
			i += seq;
		}
	}
	value = json_stringn(clean, out);
	free(clean);
	return value;
}

/* Prints `value` as one compact line on stdout and releases it. */
static int emit_json(json_t *value) {
	char *text;
	int r = 0;
	if (!value)
		return -ENOMEM;
	text = json_dumps(value, JSON_COMPACT);
	json_decref(value);
	if (!text)
		return -ENOMEM;
	if (fputs(text, stdout) == EOF || fputc('\n', stdout) == EOF)
		r = -EIO;
	free(text);
	if (fflush(stdout) == EOF)
		r = -errno;
	return r;
}

static json_t *error_object(confine_error_code code, const char *message) {
	json_t *error = json_object();
	if (!error)
		return NULL;
	json_object_set_new(error, "code", json_string(confine_error_code_name(code)));
	json_object_set_new(error, "message", json_string_lossy(message, strlen(message)));
	return error;
}

int cli_report_failure(bool json, confine_error_code code, const char *message) {
	fprintf(stderr, "confine: %s\n", message);
	fflush(stderr);
	if (json) {
		json_t *object = json_object();
		if (object)
			json_object_set_new(object, "error", error_object(code, message));
		(void)emit_json(object);
	}
	return CLI_EXIT_FAILURE;
}

static int report_error(const cli_context *ctx, const confine_error *err) {
	return cli_report_failure(ctx->args->json, err->code, err->message);
}

static int report(const cli_context *ctx, confine_error_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int report(const cli_context *ctx, confine_error_code code, const char *fmt, ...) {
	char message[CONFINE_ERROR_MESSAGE_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	return cli_report_failure(ctx->args->json, code, message);
}

static int report_output_failure(const cli_context *ctx, int r) {
	return report(ctx, CONFINE_E_SYSTEM, "cannot write to standard output: %s", strerror(-r));
}

/* ------------------------------------------------------------------------ */
/* Context: configuration, provider, policy                                 */

static int load_config(cli_context *ctx) {
	const char *path = cli_config_pick_path(ctx->args->config, getenv("CONFINE_CONFIG"));
	char message[CONFINE_ERROR_MESSAGE_MAX];
	if (!path)
		return 0;
	if (cli_config_load(path, &ctx->config, message, sizeof message) < 0)
		return cli_report_failure(ctx->args->json, CONFINE_E_INVALID_CONFIG, message);
	return 0;
}

/* Made for every command, danger-full-access included, so an invalid
 * configuration is refused the same way whatever the mode. Probing waits for
 * the first confined call. */
static int make_provider(cli_context *ctx) {
	confine_local_config local;
	confine_error err;
	confine_local_config_init(&local);
	local.runner_command = (const char *const *)ctx->config.runner_command;
	local.runner_failure_signatures = (const char *const *)ctx->config.runner_failure_signatures;
	if (ctx->config.has_probe_timeout)
		local.probe_timeout_ms = ctx->config.probe_timeout_ms;
	local.landlock_launcher = ctx->config.landlock_launcher;
	if (ctx->args->has_runner)
		local.pin = ctx->args->runner;
	if (confine_local_provider_new(&local, &ctx->provider, &err) < 0) {
		/* Only the file can hold what the provider refuses: name it. */
		if (ctx->config.path && err.code == CONFINE_E_INVALID_CONFIG)
			return report(ctx, err.code, "%s: %s", ctx->config.path, err.message);
		return report_error(ctx, &err);
	}
	return 0;
}

/* Mode: -m (the explicitly approved mode), else the configuration's mode
 * (the deployment default), else read-only. Root: -w (the session's cwd),
 * else the configuration's workspaceRoot (the deployment fallback), else
 * the current directory. */
static int resolve_policy(cli_context *ctx) {
	const cli_args *args = ctx->args;
	confine_deployment deployment = {
		.default_mode = ctx->config.has_mode ? ctx->config.mode : CONFINE_MODE_READ_ONLY,
		.fallback_root = ctx->config.workspace_root,
	};
	confine_session session = {0};
	confine_error err;
	char *joined = NULL;
	int r;

	if (args->workspace && args->workspace[0] != '/' && args->workspace[0] != '\0') {
		/* The library refuses a relative root; a user means the directory
		 * relative to where they typed the command. */
		char *cwd = getcwd(NULL, 0);
		if (!cwd)
			return report(ctx, CONFINE_E_INVALID_POLICY,
			              "cannot resolve the relative workspace \"%s\": the current "
			              "directory is unavailable: %s",
			              args->workspace, strerror(errno));
		if (asprintf(&joined, "%s/%s", cwd, args->workspace) < 0)
			joined = NULL;
		free(cwd);
		if (!joined)
			return report(ctx, CONFINE_E_SYSTEM, "out of memory");
	}
	session.cwd = joined ? joined : args->workspace;

	r = confine_policy_resolve(&deployment, &session, args->has_mode ? &args->mode : NULL,
	                           &ctx->policy, &err);
	free(joined);
	if (r < 0) {
		if (!args->workspace && ctx->config.workspace_root && ctx->config.path)
			return report(ctx, err.code, "%s: key \"workspaceRoot\": %s", ctx->config.path,
			              err.message);
		return report_error(ctx, &err);
	}
	return 0;
}

static int context_open(cli_context *ctx, const cli_args *args, bool with_policy) {
	int status;
	memset(ctx, 0, sizeof *ctx);
	ctx->args = args;
	if ((status = load_config(ctx)) != 0)
		return status;
	if ((status = make_provider(ctx)) != 0)
		return status;
	if (with_policy && (status = resolve_policy(ctx)) != 0)
		return status;
	return 0;
}

static void context_close(cli_context *ctx) {
	confine_policy_free(ctx->policy);
	confine_provider_free(ctx->provider);
	cli_config_clear(&ctx->config);
}

/* ------------------------------------------------------------------------ */
/* Supervising a child: signal forwarding                                   */

/* The child runs in its own session, so a terminal's Ctrl-C reaches only
 * confine: these handlers pass SIGINT, SIGTERM and SIGHUP on to the
 * command through confine_process_signal(), which reaches every process
 * group of the run's tree (under bwrap the command's, not bwrap's own) and
 * is async-signal-safe: it allocates nothing and only reads /proc and calls
 * kill(2). The pointer is set once the child exists and cleared before the
 * process is freed, with the forwarded signals blocked around both. */
static confine_process *volatile supervised_process;

static void forward_signal(int sig) {
	int saved = errno;
	confine_process *process = supervised_process;
	if (process)
		(void)confine_process_signal(process, sig);
	errno = saved;
}

static const int forwarded_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define N_FORWARDED (sizeof forwarded_signals / sizeof forwarded_signals[0])

/* As a child subreaper confine becomes the parent of the command's orphans;
 * those that end during the run are reaped as they end, so a long run that
 * leaves many behind does not pile up zombies. The command's own process is
 * never touched here: the library waits for it. waitid(WNOWAIT) peeks at the
 * next ended child first; a running command is not waitable, so it does not
 * stand in the way. */
static void reap_orphans(int sig) {
	int saved = errno;
	confine_process *process = supervised_process;
	(void)sig;
	if (process) {
		pid_t leader = confine_process_pid(process);
		for (;;) {
			siginfo_t info;
			memset(&info, 0, sizeof info);
			if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) < 0 ||
			    info.si_pid == 0 || info.si_pid == leader)
				break;
			if (waitpid(info.si_pid, NULL, WNOHANG) <= 0)
				break;
		}
	}
	errno = saved;
}
static struct sigaction saved_sigchld;

/*
 * Supervision brackets a start and a wait: supervise_begin() blocks the
 * forwarded signals and installs the forwarding handlers before the child
 * exists; supervise_started() records its group (or, when the start failed,
 * puts the old handlers back) and lifts the mask, so a signal that arrived
 * in between is delivered (and forwarded) right then; supervise_end() puts
 * the old handlers back once the run settled. The library resets the
 * child's own mask and handlers.
 */
static struct sigaction saved_handlers[N_FORWARDED];
static bool handlers_replaced;

static void supervise_begin(sigset_t *old_mask) {
	struct sigaction forward;
	sigset_t block;
	size_t i;
	memset(&forward, 0, sizeof forward);
	forward.sa_handler = forward_signal;
	sigemptyset(&block);
	for (i = 0; i < N_FORWARDED; i++)
		sigaddset(&block, forwarded_signals[i]);
	/* One forwarding at a time: a second signal waits for the first walk. */
	forward.sa_mask = block;
	forward.sa_flags = SA_RESTART;
	sigprocmask(SIG_BLOCK, &block, old_mask);
	for (i = 0; i < N_FORWARDED; i++)
		sigaction(forwarded_signals[i], &forward, &saved_handlers[i]);
	handlers_replaced = true;
	{
		struct sigaction reap;
		memset(&reap, 0, sizeof reap);
		reap.sa_handler = reap_orphans;
		reap.sa_mask = block;
		reap.sa_flags = SA_RESTART | SA_NOCLDSTOP;
		sigaction(SIGCHLD, &reap, &saved_sigchld);
	}
}

static void supervise_end(void) {
	sigset_t block, old;
	size_t i;
	sigemptyset(&block);
	for (i = 0; i < N_FORWARDED; i++)
		sigaddset(&block, forwarded_signals[i]);
	sigaddset(&block, SIGCHLD);
	/* No handler may be using the process when the caller frees it. The
	 * forwarding handlers stay, doing nothing now, until supervise_release():
	 * a signal arriving while confine cleans up after the command (ending
	 * orphans, printing) must not kill confine half way and lose the
	 * command's status. */
	sigprocmask(SIG_BLOCK, &block, &old);
	supervised_process = NULL;
	sigaction(SIGCHLD, &saved_sigchld, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Puts back the handlers supervise_begin() replaced; after the cleanup. */
static void supervise_release(void) {
	if (!handlers_replaced)
		return;
	for (size_t i = 0; i < N_FORWARDED; i++)
		sigaction(forwarded_signals[i], &saved_handlers[i], NULL);
	handlers_replaced = false;
}

static void supervise_started(confine_process *process, const sigset_t *old_mask) {
	if (process)
		supervised_process = process;
	else
		supervise_end();
	sigprocmask(SIG_SETMASK, old_mask, NULL);
}

/* ------------------------------------------------------------------------ */
/* Orphans: nothing the command started outlives confine                  */

/*
 * The library ends the run's process group and what is still attached
 * below it; a descendant that called setsid and whose parent had already
 * ended is out of its reach (it was reparented away). confine itself can do
 * better: as a child subreaper (Linux) it becomes the parent of every such
 * orphan, and when the command has settled it kills and reaps whatever is
 * left below it. Under bwrap the PID namespace and --die-with-parent
 * already end such processes; this covers Landlock and danger-full-access.
 */
static void adopt_orphans(void) {
#if HAVE_PR_SET_CHILD_SUBREAPER
	/* Best effort: without it, orphans stay as the library leaves them. */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL);
#endif
}

/* How long to wait for killed orphans to die (one stuck in an
 * uninterruptible sleep dies when the kernel lets it, reparented to init). */
#define ORPHAN_REAP_MS 3000

static long long monotonic_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Kills every process still below confine and reaps its children, until
 * none is left. Called once the command settled and was reaped. */
static void end_orphans(void) {
	long long deadline = monotonic_ms() + ORPHAN_REAP_MS;
	for (;;) {
		int status;
		pid_t w;
		bool reaped = false;
		int found = cf_signal_descendants(getpid(), SIGKILL);
		while ((w = waitpid(-1, &status, WNOHANG)) > 0)
			reaped = true;
		if (w < 0 && errno == ECHILD)
			return; /* no child left */
		/* Children exist that the walk cannot see (no /proc): nothing
		 * more can be done for them. */
		if (found == 0 && !reaped)
			return;
		if (monotonic_ms() >= deadline)
			return;
		{
			struct timespec pause = { 0, 5 * 1000 * 1000 };
			nanosleep(&pause, NULL);
		}
	}
}

/* Spawns `options` under supervision and returns its outcome. */
static int spawn_supervised(const confine_spawn_options *options, confine_outcome **ret,
                            confine_error *err) {
	confine_process *process = NULL;
	sigset_t old_mask;
	int r;

	supervise_begin(&old_mask);
	r = confine_spawn(options, &process, err);
	supervise_started(r == 0 ? process : NULL, &old_mask);
	if (r < 0)
		return r;
	r = confine_process_wait(process, ret, err);
	supervise_end();
	confine_process_free(process);
	return r;
}

/* The shell's convention: the exit code, or 128+N for death by signal N. */
static int exit_status_of(const confine_outcome *outcome) {
	if (outcome->signaled)
		return 128 + outcome->signal;
	return outcome->exit_code;
}

/* Confines `argv` under the context's policy, or (danger-full-access) takes
 * it as it is. `*ret_confined` is NULL for an unconfined run. */
static int prepare(cli_context *ctx, const char *const *argv, confine_spawn_options *options,
                   confine_argv **ret_confined) {
	confine_error err;
	*ret_confined = NULL;
	confine_spawn_options_init(options);
	if (confine_mode_is_confined(ctx->policy->mode)) {
		if (confine_confine(ctx->provider, argv, ctx->policy, ret_confined, &err) < 0)
			return report_error(ctx, &err);
		options->confined = *ret_confined;
	} else {
		options->argv = argv;
	}
	/* The workspace root is the session's cwd (SPEC 10's -w): commands run
	 * there, as the bash consumer's do. */
	options->workdir = ctx->policy->workspace_root;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* run                                                                      */

/* The conventions of env(1) and timeout(1) for a program that cannot run. */
#define CLI_EXIT_CANNOT_EXECUTE 126
#define CLI_EXIT_NOT_FOUND 127

/* Whether canonical `path` is `dir` or below it. */
static bool path_inside(const char *path, const char *dir) {
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Whether `path` (relative ones from the workspace root `root`) names a
 * file the sandbox's exec can run: 0, or ENOENT / EACCES. With
 * `private_tmp` (bwrap's workspace-write profile mounts an empty /tmp), a
 * file under the host's /tmp, outside the workspace, is not there. */
static int check_executable(const char *root, const char *path, bool private_tmp,
                            bool *hidden_by_private_tmp) {
	struct stat st;
	char *joined = NULL;
	const char *full = path;
	int e = 0;
	if (path[0] != '/') {
		if (asprintf(&joined, "%s/%s", root, path) < 0)
			return ENOMEM;
		full = joined;
	}
	if (stat(full, &st) < 0)
		e = errno == ENOTDIR || errno == ELOOP || errno == ENAMETOOLONG ? ENOENT : errno;
	else if (S_ISDIR(st.st_mode) || access(full, X_OK) < 0)
		e = EACCES;
	if (e == 0 && private_tmp) {
		char *real = realpath(full, NULL);
		if (real && path_inside(real, "/tmp") && !path_inside(real, root)) {
			e = ENOENT;
			*hidden_by_private_tmp = true;
		}
		free(real);
	}
	free(joined);
	return e == ENOENT || e == EACCES || e == ENOMEM ? e : (e ? EACCES : 0);
}

/*
 * Resolves PROGRAM the way the sandbox's exec will (execvp(3): a name with
 * a slash is a path, relative ones from the workspace root where the
 * command starts; a bare name is searched on $PATH, an empty entry meaning
 * that directory too) before anything is confined. Otherwise a missing
 * program reaches the runner, and bwrap's "bwrap: execvp ...: No such file
 * or directory" is indistinguishable from bwrap itself failing: the user
 * would be told to install bubblewrap. Returns 0 when it resolves, else the
 * exit status after printing `confine: PROGRAM: ...`.
 */
static int resolve_program(const cli_context *ctx, const confine_argv *confined,
                           const char *program) {
	const char *root = ctx->policy->workspace_root;
	/* bwrap-shaped runners give workspace-write a private, empty /tmp */
	bool private_tmp = confined && confined->policy.mode == CONFINE_MODE_WORKSPACE_WRITE &&
	                   (confined->runner == CONFINE_RUNNER_BWRAP ||
	                    confined->runner == CONFINE_RUNNER_RUNNER_COMMAND);
	bool hidden = false;
	int e;
	if (strchr(program, '/')) {
		e = check_executable(root, program, private_tmp, &hidden);
	} else {
		const char *path = getenv("PATH");
		char fallback[256];
		bool denied = false, found = false;
		if (!path) {
			/* execvp's default search path */
			size_t n = confstr(_CS_PATH, fallback, sizeof fallback);
			path = n > 0 && n <= sizeof fallback ? fallback : "/bin:/usr/bin";
		}
		e = 0;
		for (const char *p = path; !found && e != ENOMEM;) {
			const char *end = p + strcspn(p, ":");
			char *candidate = NULL;
			int r;
			if (asprintf(&candidate, "%.*s%s%s", (int)(end - p), p, end > p ? "/" : "",
			             program) < 0) {
				e = ENOMEM;
				break;
			}
			r = check_executable(root, candidate, private_tmp, &hidden);
			free(candidate);
			if (r == 0)
				found = true;
			else if (r == EACCES)
				denied = true;
			else if (r == ENOMEM)
				e = ENOMEM;
			if (!*end)
				break;
			p = end + 1;
		}
		if (e != ENOMEM)
			e = found ? 0 : denied ? EACCES : ENOENT;
	}
	if (e == 0)
		return 0;
	if (e == ENOMEM)
		return report(ctx, CONFINE_E_SYSTEM, "out of memory");
	/* Not a failure of confine (125): the command's own, as a shell or
	 * env(1) reports it; nothing ran. */
	fprintf(stderr, "confine: %s: %s%s\n", program,
	        e == EACCES ? "Permission denied" : "command not found",
	        e == ENOENT && hidden ? " (in the sandbox, /tmp is private and empty)" : "");
	fflush(stderr);
	return e == EACCES ? CLI_EXIT_CANNOT_EXECUTE : CLI_EXIT_NOT_FOUND;
}

static int command_run(cli_context *ctx) {
	const cli_args *args = ctx->args;
	confine_spawn_options options;
	confine_argv *confined = NULL;
	confine_outcome *outcome = NULL;
	confine_error err;
	int status;

	/* Before confining: a missing program is not a sandbox problem. Once
	 * the runner is known, again where its view differs (bwrap's /tmp). */
	if ((status = resolve_program(ctx, NULL, args->program_argv[0])) != 0)
		return status;
	if ((status = prepare(ctx, (const char *const *)args->program_argv, &options, &confined)) != 0)
		return status;
	if (confined && (status = resolve_program(ctx, confined, args->program_argv[0])) != 0) {
		confine_argv_free(confined);
		return status;
	}
	/* stdin and stdout are the caller's; stderr goes to the caller live and
	 * is kept (bounded) so a runner's pre-exec failure is recognised. */
	options.stdio[2].kind = CONFINE_STDIO_TEE;
	options.stdio[2].fd = STDERR_FILENO;

	if (spawn_supervised(&options, &outcome, &err) < 0) {
		confine_argv_free(confined);
		return report_error(ctx, &err);
	}
	confine_argv_free(confined);
	if (confine_outcome_error(outcome, &err) < 0) {
		confine_outcome_free(outcome);
		return report_error(ctx, &err);
	}
	status = exit_status_of(outcome);
	confine_outcome_free(outcome);
	return status;
}

/* ------------------------------------------------------------------------ */
/* bash                                                                     */

static json_t *bash_json(const confine_bash_result *result) {
	const confine_outcome *o = result->outcome;
	json_t *object = json_object(), *sandbox = json_object();
	char name[32];
	if (!object || !sandbox) {
		json_decref(object);
		json_decref(sandbox);
		return NULL;
	}
	if (o->signaled)
		json_object_set_new(object, "signal",
		                    json_string(confine_signal_name(o->signal, name, sizeof name)));
	else
		json_object_set_new(object, "exitCode", json_integer(o->exit_code));
	json_object_set_new(object, "timedOut", json_boolean(o->timed_out));
	json_object_set_new(object, "stdout", json_string_lossy(o->stdout_data, o->stdout_len));
	json_object_set_new(object, "stderr", json_string_lossy(o->stderr_data, o->stderr_len));
	json_object_set_new(object, "truncated",
	                    json_boolean(o->stdout_truncated || o->stderr_truncated));

	json_object_set_new(sandbox, "mode", json_string(confine_mode_name(o->mode)));
	json_object_set_new(sandbox, "denied", json_boolean(o->denied));
	if (o->confined) {
		json_object_set_new(sandbox, "enforcement",
		                    json_string(confine_enforcement_name(o->enforcement)));
		json_object_set_new(sandbox, "runner", json_string(confine_runner_name(o->runner)));
	}
	json_object_set_new(sandbox, "runnerFailed", json_boolean(o->runner_failed));
	json_object_set_new(object, "sandbox", sandbox);

	if (result->error.code != CONFINE_OK)
		json_object_set_new(object, "error",
		                    error_object(result->error.code, result->error.message));
	else
		json_object_set_new(object, "error", json_null());
	return object;
}

/*
 * Runs COMMAND through the library's bash consumer (SPEC 9), in its two-step
 * form so that an interrupted `confine bash` passes the signal on to its
 * command instead of leaving it running unsupervised.
 */
static int command_bash(cli_context *ctx) {
	const cli_args *args = ctx->args;
	confine_bash_options options;
	confine_process *process = NULL;
	confine_bash_result *result = NULL;
	confine_error err;
	sigset_t old_mask;
	int status, r;

	memset(&options, 0, sizeof options);
	options.command = args->bash_command;
	options.policy = ctx->policy;
	options.timeout_ms = args->has_timeout ? args->timeout_ms : CONFINE_DEFAULT_TIMEOUT_MS;
	options.max_output = CONFINE_DEFAULT_CAPTURE_LIMIT;

	supervise_begin(&old_mask);
	r = confine_bash_start(ctx->provider, &options, &process, &err);
	supervise_started(r == 0 ? process : NULL, &old_mask);
	if (r < 0)
		return report_error(ctx, &err);
	r = confine_bash_wait(process, &result, &err);
	supervise_end();
	confine_process_free(process);
	if (r < 0)
		return report_error(ctx, &err);

	if (args->json) {
		r = emit_json(bash_json(result));
	} else {
		char *text = confine_bash_render(result);
		if (!text) {
			r = -ENOMEM;
		} else {
			size_t len = strlen(text);
			r = 0;
			if (fputs(text, stdout) == EOF ||
			    ((len == 0 || text[len - 1] != '\n') && fputc('\n', stdout) == EOF))
				r = -EIO;
			if (fflush(stdout) == EOF)
				r = -errno;
			free(text);
		}
	}

	if (result->error.code != CONFINE_OK) {
		/* The object (or rendering) already carries the error; stderr gets
		 * the one line every failure of confine gets. */
		fprintf(stderr, "confine: %s\n", result->error.message);
		status = CLI_EXIT_FAILURE;
	} else if (r < 0) {
		status = report(ctx, CONFINE_E_SYSTEM, "cannot write the result: %s", strerror(-r));
	} else {
		status = exit_status_of(result->outcome);
	}
	confine_bash_result_free(result);
	return status;
}

/* ------------------------------------------------------------------------ */
/* wrap                                                                     */

/* A JSON array of strings that must arrive intact (an argv to spawn): a
 * string that is not UTF-8 cannot be written as JSON without changing it,
 * so it is an error rather than a lossy copy. */
static int strict_string_array(char *const *strv, json_t **ret, const char **ret_bad) {
	json_t *array = json_array();
	if (!array)
		return -ENOMEM;
	for (size_t i = 0; strv && strv[i]; i++) {
		json_t *item = json_string(strv[i]);
		if (!item) {
			json_decref(array);
			*ret_bad = strv[i];
			return -EILSEQ;
		}
		json_array_append_new(array, item);
	}
	*ret = array;
	return 0;
}

/* The library's own strings (signatures, rule lines) are ASCII; a lossy
 * copy only guards against a configured signature that is not UTF-8. */
static json_t *lossy_string_array(char *const *strv) {
	json_t *array = json_array();
	for (size_t i = 0; array && strv && strv[i]; i++)
		json_array_append_new(array, json_string_lossy(strv[i], strlen(strv[i])));
	return array;
}

static json_t *rule_json(const confine_rule *rule) {
	json_t *object = json_object();
	if (!object)
		return NULL;
	if (rule->allowed_exit_codes && rule->n_allowed_exit_codes > 0) {
		json_t *codes = json_array();
		for (size_t i = 0; codes && i < rule->n_allowed_exit_codes; i++)
			json_array_append_new(codes, json_integer(rule->allowed_exit_codes[i]));
		json_object_set_new(object, "allowedExitCodes", codes);
	}
	json_object_set_new(object, "fatalSignatures", lossy_string_array(rule->fatal_signatures));
	if (rule->informational_lines && rule->informational_lines[0])
		json_object_set_new(object, "informationalLines",
		                    lossy_string_array(rule->informational_lines));
	return object;
}

static json_t *policy_json(const confine_policy *policy) {
	json_t *object = json_object();
	if (!object)
		return NULL;
	json_object_set_new(object, "mode", json_string(confine_mode_name(policy->mode)));
	json_object_set_new(object, "workspaceRoot", json_string(policy->workspace_root));
	return object;
}

static int command_wrap(cli_context *ctx) {
	const cli_args *args = ctx->args;
	confine_argv *confined = NULL;
	confine_error err;
	json_t *object, *argv_json = NULL, *denial = NULL, *rules;
	const char *bad = NULL;
	int r;
	json_t *root_check = json_string(ctx->policy->workspace_root);
	if (!root_check)
		return report(ctx, CONFINE_E_INVALID_ARGUMENT,
		              "the workspace root \"%s\" is not valid UTF-8 and cannot be written as "
		              "JSON",
		              ctx->policy->workspace_root);
	json_decref(root_check);

	if (confine_mode_is_confined(ctx->policy->mode)) {
		if (confine_confine(ctx->provider, (const char *const *)args->program_argv, ctx->policy,
		                    &confined, &err) < 0)
			return report_error(ctx, &err);
		r = strict_string_array(confined->argv, &argv_json, &bad);
		if (r == 0)
			denial = lossy_string_array(confined->denial_signatures);
	} else {
		/* danger-full-access never reaches a provider: the argv to spawn is
		 * the command itself, with no runner and nothing to classify. */
		r = strict_string_array(args->program_argv, &argv_json, &bad);
		if (r == 0)
			denial = json_array();
	}
	if (r == -EILSEQ) {
		/* `bad` may point into `confined`: report before releasing it. */
		int status = report(ctx, CONFINE_E_INVALID_ARGUMENT,
		                    "argument \"%s\" is not valid UTF-8 and cannot be written as JSON",
		                    bad);
		json_decref(argv_json);
		confine_argv_free(confined);
		return status;
	}
	if (r < 0 || !denial) {
		json_decref(argv_json);
		json_decref(denial);
		confine_argv_free(confined);
		return report(ctx, CONFINE_E_SYSTEM, "out of memory");
	}

	object = json_object();
	rules = json_array();
	if (!object || !rules) {
		json_decref(object);
		json_decref(rules);
		json_decref(argv_json);
		json_decref(denial);
		confine_argv_free(confined);
		return report(ctx, CONFINE_E_SYSTEM, "out of memory");
	}
	json_object_set_new(object, "argv", argv_json);
	if (confined) {
		json_object_set_new(object, "runner", json_string(confine_runner_name(confined->runner)));
		json_object_set_new(object, "enforcement",
		                    json_string(confine_enforcement_name(confined->enforcement)));
		for (size_t i = 0; i < confined->n_rules; i++)
			json_array_append_new(rules, rule_json(&confined->rules[i]));
	} else {
		json_object_set_new(object, "runner", json_null());
	}
	json_object_set_new(object, "denialSignatures", denial);
	json_object_set_new(object, "runnerFailureRules", rules);
	json_object_set_new(object, "policy", policy_json(ctx->policy));
	confine_argv_free(confined);

	if ((r = emit_json(object)) < 0)
		return report_output_failure(ctx, r);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* probe                                                                    */

static int command_probe(cli_context *ctx) {
	confine_verdict verdict;
	confine_error err;
	int r;

	if (confine_provider_verdict(ctx->provider, &verdict, &err) < 0)
		return report_error(ctx, &err);

	if (ctx->args->json) {
		json_t *object = json_object();
		if (!object)
			return report(ctx, CONFINE_E_SYSTEM, "out of memory");
		json_object_set_new(object, "usable", json_boolean(verdict.usable));
		if (verdict.usable) {
			json_object_set_new(object, "runner", json_string(confine_runner_name(verdict.runner)));
			json_object_set_new(object, "enforcement",
			                    json_string(confine_enforcement_name(verdict.enforcement)));
		} else {
			json_object_set_new(object, "runner", json_null());
		}
		if (verdict.landlock_abi >= 0)
			json_object_set_new(object, "landlockAbi", json_integer(verdict.landlock_abi));
		if (verdict.usable && verdict.runner_path[0])
			json_object_set_new(object, "runnerPath",
			                    json_string_lossy(verdict.runner_path, strlen(verdict.runner_path)));
		if (!verdict.usable && verdict.runner_failure[0])
			json_object_set_new(object, "runnerFailure",
			                    json_string_lossy(verdict.runner_failure,
			                                      strlen(verdict.runner_failure)));
		r = emit_json(object);
	} else {
		r = 0;
		if (verdict.usable) {
			if (printf("runner: %s\nenforcement: %s\n", confine_runner_name(verdict.runner),
			           confine_enforcement_name(verdict.enforcement)) < 0)
				r = -EIO;
			if (verdict.runner_path[0] && printf("runner path: %s\n", verdict.runner_path) < 0)
				r = -EIO;
		} else {
			if (printf("runner: none (no sandbox backend is usable on this host)\n") < 0)
				r = -EIO;
			if (verdict.runner_failure[0] &&
			    printf("runner failure: %s\n", verdict.runner_failure) < 0)
				r = -EIO;
		}
		if (verdict.landlock_abi >= 0 && printf("landlock ABI: %d\n", verdict.landlock_abi) < 0)
			r = -EIO;
		if (fflush(stdout) == EOF)
			r = -errno;
	}
	if (r < 0)
		return report_output_failure(ctx, r);
	if (!verdict.usable) {
		fprintf(stderr, "confine: no sandbox backend is usable on this host: a confined mode "
		                "would fail closed with SANDBOX_UNAVAILABLE\n");
		return CLI_EXIT_FAILURE;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */

int cli_execute(const cli_args *args) {
	cli_context ctx;
	int status;
	bool with_policy = args->command != CLI_COMMAND_PROBE;

	status = context_open(&ctx, args, with_policy);
	if (status == 0) {
		switch (args->command) {
		case CLI_COMMAND_RUN:
			adopt_orphans();
			status = command_run(&ctx);
			end_orphans();
			supervise_release();
			break;
		case CLI_COMMAND_BASH:
			adopt_orphans();
			status = command_bash(&ctx);
			end_orphans();
			supervise_release();
			break;
		case CLI_COMMAND_WRAP: status = command_wrap(&ctx); break;
		case CLI_COMMAND_PROBE: status = command_probe(&ctx); break;
		case CLI_COMMAND_NONE:
			status = cli_report_failure(false, CONFINE_E_INVALID_ARGUMENT, "missing command");
			break;
		}
	}
	context_close(&ctx);
	return status;
}
