/* SPDX-License-Identifier: MIT */
/*
 * The local provider (SPEC 4): configuration and its validation, the ladder
 * wired to this host's probes, and building the confined argv of each rung
 * with its dialect (SPEC 6). Portable: what is OS-specific is in the
 * probe-<os>.c file Meson picks.
 */
#include "local/local-provider.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "local/probe.h"

typedef struct local_provider {
	char **runner_command;        /* NULL: not configured */
	char **signatures;            /* with runner_command */
	double probe_timeout_ms;
	char *launcher;               /* landlock-run, absolute */
	confine_runner pin;
	char *platform;               /* whose chain */
	char *bwrap_path;             /* absolute, or NULL: not on PATH */
	char *tmpdir;                 /* $TMPDIR when made, or NULL */
	cf_ladder_hooks hooks;        /* the ladder's, kept for the real ones' ctx */
	cf_ladder ladder;
	bool ladder_ready;
	/* Why the Landlock rung's probe could not even start its launcher
	 * (written under the ladder's lock while probing, read after the
	 * verdict): "" when it could. */
	char launcher_failure[512];
	/* runnerCommand[0] given as a name that no absolute PATH entry holds:
	 * every confined call fails closed naming it. */
	bool runner_command_not_found;
	/* Canonical paths of the runners, resolved once: a runner inside a
	 * call's writable workspace is refused for that call. NULL when the
	 * runner does not exist (it then fails closed at execution). */
	char *bwrap_real;
	char *launcher_real;
	char *runner_command_real;
} local_provider;

/* ---- dialects (SPEC 6) ---- */

static const char *const bwrap_denials[] = { "read-only file system", NULL };
static const char *const landlock_denials[] = { "permission denied", NULL };
static const char *const seatbelt_denials[] = { "operation not permitted", NULL };
static const char *const runner_command_denials[] = { "read-only file system",
	                                              "permission denied", NULL };

static const char *const bwrap_fatal[] = { "bwrap: ", NULL };
static const char *const landlock_fatal[] = { "landlock-run: ", NULL };
static const char *const landlock_informational[] = {
	"landlock-run: partial enforcement (older Landlock ABI)", NULL };
static const int landlock_exit_codes[] = { 125 };
static const char *const seatbelt_fatal[] = { "sandbox-exec: ", NULL };

/* ---- the default launcher ---- */

static char default_launcher[PATH_MAX];
static pthread_once_t default_launcher_once = PTHREAD_ONCE_INIT;

static void compute_default_launcher(void) {
	const char *chosen = CONFINE_INSTALLED_LAUNCHER;
	Dl_info info;

	/* A library loaded from its own build tree (tests, a developer's run)
	 * uses the launcher built next to it, not a possibly stale or absent
	 * installed one. */
	if (dladdr((void *)confine_default_landlock_launcher, &info) && info.dli_fname &&
	    info.dli_fname[0]) {
		char *root = realpath(CONFINE_BUILD_ROOT, NULL);
		/* A relative name is the main executable's argv[0], which the cwd
		 * may no longer resolve; Linux names it exactly. */
		char *object = NULL;
		if (info.dli_fname[0] != '/')
			object = realpath("/proc/self/exe", NULL);
		if (!object)
			object = realpath(info.dli_fname, NULL);
		if (root && object) {
			size_t n = strlen(root);
			if (strncmp(object, root, n) == 0 && object[n] == '/')
				chosen = CONFINE_BUILD_LAUNCHER;
		}
		free(root);
		free(object);
	}
	snprintf(default_launcher, sizeof default_launcher, "%s", chosen);
}

const char *confine_default_landlock_launcher(void) {
	pthread_once(&default_launcher_once, compute_default_launcher);
	return default_launcher;
}

/* ---- PATH search ---- */

/* Whether a runner found on PATH is one only root or the caller controls:
 * owned by one of them, and neither it nor its directory writable by group
 * or others (a world-writable PATH directory would let anyone plant the
 * "runner" that the probe then executes unconfined). */
static bool controlled_by_caller(const char *candidate, const struct stat *st) {
	uid_t me = geteuid();
	struct stat dir_st;
	char *dir, *slash;
	bool ok;
	if ((st->st_uid != 0 && st->st_uid != me) || (st->st_mode & (S_IWGRP | S_IWOTH)))
		return false;
	dir = strdup(candidate);
	if (!dir)
		return false;
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	ok = stat(dir, &dir_st) == 0 && (dir_st.st_uid == 0 || dir_st.st_uid == me) &&
	     !(dir_st.st_mode & (S_IWGRP | S_IWOTH));
	free(dir);
	return ok;
}

char *cf_find_program(const char *path, const char *name) {
	const char *p = path;
	if (!path || !name || !name[0])
		return NULL;
	while (*p) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		/* Relative (and empty, which means ".") entries are skipped: they
		 * would resolve against whatever cwd the caller has. */
		if (len > 0 && p[0] == '/') {
			char *candidate = malloc(len + 1 + strlen(name) + 1);
			struct stat st;
			if (!candidate)
				return NULL;
			memcpy(candidate, p, len);
			candidate[len] = '/';
			strcpy(candidate + len + 1, name);
			if (stat(candidate, &st) == 0 && S_ISREG(st.st_mode) &&
			    access(candidate, X_OK) == 0) {
				/* The file that will run is the symlink's target: judge
				 * and name that one, so swapping a link later changes
				 * nothing. */
				char *real = realpath(candidate, NULL);
				if (real && controlled_by_caller(real, &st)) {
					free(candidate);
					return real;
				}
				free(real);
			}
			free(candidate);
		}
		if (!end)
			break;
		p = end + 1;
	}
	return NULL;
}

/* ---- the real ladder hooks ---- */

static bool real_select_unprobed(void *ctx, confine_runner rung, confine_enforcement *ret) {
	local_provider *lp = ctx;
	/* A rung whose mechanism cannot exist on this host (seatbelt pinned on
	 * Linux, say) has nothing that could run: unavailable now. */
	if (!cf_host_has_runner(rung))
		return false;
	switch (rung) {
	case CONFINE_RUNNER_BWRAP:
		/* bwrap not on PATH: there is no absolute path to put in argv[0],
		 * and a bare "bwrap" would be looked up again by whoever spawns it,
		 * relative entries included. Refuse now (fail closed). */
		if (!lp->bwrap_path)
			return false;
		*ret = CONFINE_ENFORCEMENT_FULL;
		return true;
	case CONFINE_RUNNER_LANDLOCK: {
		/* Unprobed, the kernel's ABI says what the launcher will enforce: ABI
		 * < 5 does not govern device ioctls (SPEC 7). A kernel without
		 * Landlock makes the launcher refuse at execution (exit 125). */
		int abi = cf_host_landlock_abi();
		*ret = abi >= 5 ? CONFINE_ENFORCEMENT_FULL : CONFINE_ENFORCEMENT_PARTIAL;
		return true;
	}
	case CONFINE_RUNNER_SEATBELT:
		*ret = CONFINE_ENFORCEMENT_FULL;
		return true;
	case CONFINE_RUNNER_RUNNER_COMMAND:
	case CONFINE_RUNNER_NONE:
		return false;
	}
	return false;
}

static bool real_probe(void *ctx, confine_runner rung, confine_enforcement *ret) {
	local_provider *lp = ctx;
	cf_probe_target target = {
		.bwrap_path = lp->bwrap_path,
		.launcher_path = lp->launcher,
		.timeout_ms = lp->probe_timeout_ms,
	};
	bool passed = cf_host_probe(rung, &target, ret);
	if (rung == CONFINE_RUNNER_LANDLOCK)
		memcpy(lp->launcher_failure, target.unexecutable_detail, sizeof lp->launcher_failure);
	return passed;
}

/* ---- building the confined argv ---- */

static int set_rule(confine_rule *rule, const int *codes, size_t n_codes,
                    const char *const *fatal, const char *const *informational) {
	if (n_codes) {
		rule->allowed_exit_codes = malloc(n_codes * sizeof *codes);
		if (!rule->allowed_exit_codes)
			return -ENOMEM;
		memcpy(rule->allowed_exit_codes, codes, n_codes * sizeof *codes);
		rule->n_allowed_exit_codes = n_codes;
	}
	rule->fatal_signatures = cf_strv_copy(fatal);
	if (!rule->fatal_signatures)
		return -ENOMEM;
	if (informational) {
		rule->informational_lines = cf_strv_copy(informational);
		if (!rule->informational_lines)
			return -ENOMEM;
	}
	return 0;
}

static int push_all(char ***strv, const char *const *items) {
	for (size_t i = 0; items && items[i]; i++) {
		int r = cf_strv_push(strv, items[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The runner's profile for `runner` as argv tokens: everything between the
 * runner program and "--". */
static int profile_tokens(const local_provider *lp, confine_runner runner,
                          const confine_policy *policy, char ***ret) {
	switch (runner) {
	case CONFINE_RUNNER_BWRAP:
	case CONFINE_RUNNER_RUNNER_COMMAND:
		return confine_profile_bwrap(policy, ret);
	case CONFINE_RUNNER_LANDLOCK:
		return confine_profile_landlock(policy, ret);
	case CONFINE_RUNNER_SEATBELT: {
		char *text = NULL;
		char **tokens = NULL;
		int r = confine_profile_seatbelt(policy, lp->tmpdir, &text);
		if (r < 0)
			return r;
		r = cf_strv_push(&tokens, "-p");
		if (r == 0)
			r = cf_strv_push(&tokens, text);
		free(text);
		if (r < 0) {
			confine_strv_free(tokens);
			return r;
		}
		*ret = tokens;
		return 0;
	}
	case CONFINE_RUNNER_NONE:
		break;
	}
	return -EINVAL;
}

/* Whether canonical `path` is `dir` or lies below it. A root of "/" is
 * only ever read-only (workspace-write refuses it), so nothing under it is
 * writable and it contains no runner that matters here. */
static bool inside(const char *path, const char *dir) {
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return false;
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static int build(const local_provider *lp, confine_runner runner, confine_enforcement enforcement,
                 const char *const *argv, const confine_policy *policy, confine_argv **ret,
                 confine_error *err) {
	confine_argv *c = NULL;
	char **profile = NULL;
	const char *const *program;
	const char *single[2] = { NULL, NULL };
	int r;

	switch (runner) {
	case CONFINE_RUNNER_RUNNER_COMMAND:
		program = (const char *const *)lp->runner_command;
		break;
	case CONFINE_RUNNER_BWRAP:
		single[0] = lp->bwrap_path;
		program = single;
		break;
	case CONFINE_RUNNER_LANDLOCK:
		single[0] = lp->launcher;
		program = single;
		break;
	case CONFINE_RUNNER_SEATBELT:
		single[0] = CF_SANDBOX_EXEC;
		program = single;
		break;
	case CONFINE_RUNNER_NONE:
	default:
		program = single;
		break;
	}
	if (!program[0])
		/* Never hand back an argv without its runner. */
		return confine_error_sandbox_unavailable(err, policy->mode, NULL);
	{
		/* A runner inside the workspace could have been replaced by an
		 * earlier workspace-write run of a confined command: running it
		 * would run that command's choice unconfined. */
		const char *real = runner == CONFINE_RUNNER_BWRAP      ? lp->bwrap_real
		                   : runner == CONFINE_RUNNER_LANDLOCK ? lp->launcher_real
		                   : runner == CONFINE_RUNNER_RUNNER_COMMAND ? lp->runner_command_real
		                                                             : NULL;
		/* Under Landlock, workspace-write also grants the host's /tmp: a
		 * launcher there could be replaced by this very run. */
		if (real && runner == CONFINE_RUNNER_LANDLOCK &&
		    policy->mode == CONFINE_MODE_WORKSPACE_WRITE && inside(real, "/tmp") ) {
			char detail[PATH_MAX + 128];
			snprintf(detail, sizeof detail,
			         "runner %s lies under /tmp, which a workspace-write run under Landlock "
			         "may write; refusing to run it",
			         real);
			return confine_error_sandbox_unavailable(err, policy->mode, detail);
		}
		if (real && policy->workspace_root && inside(real, policy->workspace_root)) {
			char detail[PATH_MAX * 2 + 128];
			snprintf(detail, sizeof detail,
			         "runner %s lies inside the workspace %s, which confined commands may "
			         "write; refusing to run it",
			         real, policy->workspace_root);
			return confine_error_sandbox_unavailable(err, policy->mode, detail);
		}
	}

	r = profile_tokens(lp, runner, policy, &profile);
	if (r == -EINVAL)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, "confine", 0,
		                    "cannot build the %s profile for mode \"%s\" and workspace root "
		                    "\"%s\"",
		                    confine_runner_name(runner), confine_mode_name(policy->mode),
		                    policy->workspace_root ? policy->workspace_root : "");
	if (r < 0)
		goto oom;

	c = calloc(1, sizeof *c);
	if (!c)
		goto oom;
	c->runner = runner;
	c->runner_facts = runner == CONFINE_RUNNER_BWRAP || runner == CONFINE_RUNNER_RUNNER_COMMAND
	                          ? CONFINE_RUNNER_FACT_SUPERVISES | CONFINE_RUNNER_FACT_PRIVATE_TMP
	                  : runner == CONFINE_RUNNER_LANDLOCK ? CONFINE_RUNNER_FACT_HOST_TMP
	                                                      : 0u;
	c->enforcement = enforcement;
	c->policy.mode = policy->mode;
	if (policy->workspace_root) {
		c->policy.workspace_root = strdup(policy->workspace_root);
		if (!c->policy.workspace_root)
			goto oom;
	}
	/* runner program, its profile, "--", then the caller's argv unchanged */
	if (push_all(&c->argv, program) < 0 || push_all(&c->argv, (const char *const *)profile) < 0 ||
	    cf_strv_push(&c->argv, "--") < 0 || push_all(&c->argv, argv) < 0)
		goto oom;
	c->argc = cf_strv_length((const char *const *)c->argv);

	c->rules = calloc(1, sizeof *c->rules);
	if (!c->rules)
		goto oom;
	c->n_rules = 1;
	switch (runner) {
	case CONFINE_RUNNER_RUNNER_COMMAND:
		/* The mechanism is unknown, so both Linux dialects; its failures are
		 * the operator's signatures, with no exit gate. */
		c->denial_signatures = cf_strv_copy(runner_command_denials);
		r = set_rule(&c->rules[0], NULL, 0, (const char *const *)lp->signatures, NULL);
		break;
	case CONFINE_RUNNER_BWRAP:
		c->denial_signatures = cf_strv_copy(bwrap_denials);
		r = set_rule(&c->rules[0], NULL, 0, bwrap_fatal, NULL);
		break;
	case CONFINE_RUNNER_LANDLOCK:
		c->denial_signatures = cf_strv_copy(landlock_denials);
		r = set_rule(&c->rules[0], landlock_exit_codes, 1, landlock_fatal,
		             landlock_informational);
		break;
	case CONFINE_RUNNER_SEATBELT:
	case CONFINE_RUNNER_NONE:
	default:
		c->denial_signatures = cf_strv_copy(seatbelt_denials);
		r = set_rule(&c->rules[0], NULL, 0, seatbelt_fatal, NULL);
		break;
	}
	if (r < 0 || !c->denial_signatures)
		goto oom;
	confine_strv_free(profile);
	*ret = c;
	return 0;
oom:
	confine_strv_free(profile);
	confine_argv_free(c);
	return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "confine", ENOMEM, "out of memory");
}

/* ---- provider ops ---- */

static int local_confine(void *data, const char *const *argv, const confine_policy *policy,
                         confine_argv **ret, confine_error *err) {
	local_provider *lp = data;
	cf_ladder_choice choice;

	if (lp->runner_command_not_found) {
		char detail[PATH_MAX + 128];
		snprintf(detail, sizeof detail,
		         "runnerCommand \"%s\" was not found on PATH (absolute entries only)",
		         lp->runner_command[0]);
		return confine_error_sandbox_unavailable(err, policy->mode, detail);
	}
	if (lp->runner_command)
		/* The operator's assertion: ladder and probes are skipped. */
		return build(lp, CONFINE_RUNNER_RUNNER_COMMAND, CONFINE_ENFORCEMENT_FULL, argv, policy,
		             ret, err);
	choice = cf_ladder_select(&lp->ladder);
	if (!choice.usable)
		/* A launcher that exists but cannot be executed is reported as the
		 * runner failure it is; otherwise nothing here can confine. */
		return confine_error_sandbox_unavailable(
			err, policy->mode, lp->launcher_failure[0] ? lp->launcher_failure : NULL);
	return build(lp, choice.runner, choice.enforcement, argv, policy, ret, err);
}

static int local_verdict(void *data, confine_verdict *ret, confine_error *err) {
	local_provider *lp = data;
	confine_verdict v;
	const char *path = "";
	(void)err;

	memset(&v, 0, sizeof v);
	v.landlock_abi = cf_host_landlock_abi();
	if (lp->runner_command) {
		v.usable = true;
		v.runner = CONFINE_RUNNER_RUNNER_COMMAND;
		v.enforcement = CONFINE_ENFORCEMENT_FULL;
		path = lp->runner_command[0];
	} else {
		cf_ladder_choice choice = cf_ladder_select(&lp->ladder);
		v.usable = choice.usable;
		v.runner = choice.runner;
		v.enforcement = choice.enforcement;
		switch (choice.usable ? choice.runner : CONFINE_RUNNER_NONE) {
		case CONFINE_RUNNER_BWRAP:
			path = lp->bwrap_path ? lp->bwrap_path : "";
			break;
		case CONFINE_RUNNER_LANDLOCK:
			path = lp->launcher;
			break;
		case CONFINE_RUNNER_SEATBELT:
			path = CF_SANDBOX_EXEC;
			break;
		case CONFINE_RUNNER_RUNNER_COMMAND:
		case CONFINE_RUNNER_NONE:
			break;
		}
	}
	snprintf(v.runner_path, sizeof v.runner_path, "%s", path);
	if (!v.usable)
		memcpy(v.runner_failure, lp->launcher_failure, sizeof v.runner_failure);
	*ret = v;
	return 0;
}

static void local_destroy(void *data) {
	local_provider *lp = data;
	if (!lp)
		return;
	if (lp->ladder_ready)
		cf_ladder_destroy(&lp->ladder);
	confine_strv_free(lp->runner_command);
	free(lp->bwrap_real);
	free(lp->launcher_real);
	free(lp->runner_command_real);
	confine_strv_free(lp->signatures);
	free(lp->launcher);
	free(lp->platform);
	free(lp->bwrap_path);
	free(lp->tmpdir);
	free(lp);
}

/* ---- configuration ---- */

void confine_local_config_init(confine_local_config *config) {
	if (!config)
		return;
	memset(config, 0, sizeof *config);
	config->probe_timeout_ms = CONFINE_DEFAULT_PROBE_TIMEOUT_MS;
	config->pin = CONFINE_RUNNER_NONE;
}

static bool blank_after_trim(const char *s) {
	for (; *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r' && *s != '\v' && *s != '\f')
			return false;
	return true;
}

static int config_error(confine_error *err, const char *message) {
	return cf_error_set(err, EINVAL, CONFINE_E_INVALID_CONFIG, "config", 0, "%s", message);
}

/* SPEC 4's four validations, in their order, with their exact messages;
 * then the checks of what this C configuration adds. */
static int validate(const confine_local_config *c, confine_error *err) {
	bool has_runner = c->runner_command && c->runner_command[0];
	bool has_signatures = c->runner_failure_signatures && c->runner_failure_signatures[0];

	if (has_signatures && !has_runner)
		return config_error(err, "sandbox-local: runnerFailureSignatures requires runnerCommand");
	if (has_runner && !has_signatures)
		return config_error(err, "sandbox-local: runnerCommand requires at least one "
		                         "runnerFailureSignatures entry");
	for (size_t i = 0; has_signatures && c->runner_failure_signatures[i]; i++) {
		const char *s = c->runner_failure_signatures[i];
		if (blank_after_trim(s) || strchr(s, '\r') || strchr(s, '\n'))
			return config_error(err, "sandbox-local: runnerFailureSignatures entries must be "
			                         "non-empty single-line strings");
	}
	if (!(c->probe_timeout_ms > 0) || !isfinite(c->probe_timeout_ms))
		return config_error(err, "sandbox-local: probeTimeoutMs must be a positive finite number");

	if (has_runner && !c->runner_command[0][0])
		return config_error(err, "sandbox-local: runnerCommand[0] must be a non-empty program");
	/* A relative path would be looked up from the command's working
	 * directory, the workspace: a confined command could plant the
	 * "runner" there and run unconfined the next time. */
	if (has_runner && c->runner_command[0][0] != '/' && strchr(c->runner_command[0], '/'))
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_CONFIG, "config", 0,
		                    "sandbox-local: runnerCommand[0] must be an absolute path or a "
		                    "program name looked up on PATH (got \"%s\")",
		                    c->runner_command[0]);
	if (has_runner && c->pin != CONFINE_RUNNER_NONE)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_CONFIG, "config", 0,
		                    "sandbox-local: runnerCommand skips the ladder, so it cannot be "
		                    "combined with a pinned runner (%s)",
		                    confine_runner_name(c->pin) ? confine_runner_name(c->pin) : "?");
	switch (c->pin) {
	case CONFINE_RUNNER_NONE:
	case CONFINE_RUNNER_BWRAP:
	case CONFINE_RUNNER_LANDLOCK:
	case CONFINE_RUNNER_SEATBELT:
		break;
	case CONFINE_RUNNER_RUNNER_COMMAND:
	default:
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_CONFIG, "config", 0,
		                    "sandbox-local: pin must be bwrap, landlock or seatbelt (got %d)",
		                    (int)c->pin);
	}
	if (c->landlock_launcher && c->landlock_launcher[0] != '/')
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_CONFIG, "config", 0,
		                    "sandbox-local: landlockLauncher must be an absolute path (got \"%s\")",
		                    c->landlock_launcher);
	return 0;
}

/* When PATH is unset, the conventional default execvp(3) would use. */
#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

int cf_local_provider_new_with_hooks(const confine_local_config *config,
                                     const cf_ladder_hooks *hooks, confine_provider **ret,
                                     confine_error *err) {
	confine_local_config defaults;
	local_provider *lp;
	const char *path;
	const char *tmpdir;
	confine_runner chain[CF_LADDER_MAX];
	size_t n_chain;
	int r;

	if (!ret)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "provider", 0,
		                    "the local provider needs a result pointer");
	if (!config) {
		confine_local_config_init(&defaults);
		config = &defaults;
	}
	r = validate(config, err);
	if (r < 0)
		return r;

	lp = calloc(1, sizeof *lp);
	if (!lp)
		goto oom;
	lp->probe_timeout_ms = config->probe_timeout_ms;
	lp->pin = config->pin;
	if (config->runner_command && config->runner_command[0]) {
		lp->runner_command = cf_strv_copy(config->runner_command);
		lp->signatures = cf_strv_copy(config->runner_failure_signatures);
		if (!lp->runner_command || !lp->signatures)
			goto oom;
	}
	lp->launcher = strdup(config->landlock_launcher ? config->landlock_launcher
	                                                : confine_default_landlock_launcher());
	lp->platform = strdup(config->platform ? config->platform : cf_host_platform());
	if (!lp->launcher || !lp->platform)
		goto oom;
	/* Captured now: the provider's behaviour must not change with a later
	 * setenv(), and getenv() from many threads at confine time is unsafe. */
	path = config->path ? config->path : getenv("PATH");
	if (!path)
		path = DEFAULT_PATH;
	lp->bwrap_path = cf_find_program(path, "bwrap");
	if (lp->runner_command && !strchr(lp->runner_command[0], '/')) {
		/* A bare name is found like bwrap: on absolute PATH entries only,
		 * and placed in argv as an absolute path. */
		char *found = cf_find_program(path, lp->runner_command[0]);
		if (found) {
			free(lp->runner_command[0]);
			lp->runner_command[0] = found;
		} else {
			lp->runner_command_not_found = true;
		}
	}
	if (lp->bwrap_path)
		lp->bwrap_real = realpath(lp->bwrap_path, NULL);
	lp->launcher_real = realpath(lp->launcher, NULL);
	if (lp->runner_command)
		lp->runner_command_real = realpath(lp->runner_command[0], NULL);
	/* The argv names the resolved runners: what was checked is what runs,
	 * whatever happens later to a symlink on the way. */
	if (lp->launcher_real) {
		char *real = strdup(lp->launcher_real);
		if (!real)
			goto oom;
		free(lp->launcher);
		lp->launcher = real;
	}
	if (lp->runner_command_real) {
		char *real = strdup(lp->runner_command_real);
		if (!real)
			goto oom;
		free(lp->runner_command[0]);
		lp->runner_command[0] = real;
	}
	tmpdir = getenv("TMPDIR");
	if (tmpdir && tmpdir[0]) {
		lp->tmpdir = strdup(tmpdir);
		if (!lp->tmpdir)
			goto oom;
	}

	if (lp->pin != CONFINE_RUNNER_NONE) {
		/* Pinned: a chain of one, selected unprobed like any sole candidate. */
		chain[0] = lp->pin;
		n_chain = 1;
	} else {
		n_chain = cf_ladder_chain_for_platform(lp->platform, chain);
	}
	if (hooks) {
		lp->hooks = *hooks;
	} else {
		lp->hooks.probe = real_probe;
		lp->hooks.select_unprobed = real_select_unprobed;
		lp->hooks.ctx = lp;
	}
	r = cf_ladder_init(&lp->ladder, chain, n_chain, &lp->hooks);
	if (r < 0) {
		local_destroy(lp);
		return cf_error_set(err, -r, CONFINE_E_SYSTEM, "provider", -r,
		                    "cannot set up the runner ladder: %s", strerror(-r));
	}
	lp->ladder_ready = true;

	{
		static const confine_provider_ops ops = {
			.confine = local_confine,
			.verdict = local_verdict,
			.destroy = local_destroy,
		};
		return confine_provider_new(&ops, lp, ret, err);
	}
oom:
	local_destroy(lp);
	return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "provider", ENOMEM, "out of memory");
}

int confine_local_provider_new(const confine_local_config *config, confine_provider **ret,
                               confine_error *err) {
	return cf_local_provider_new_with_hooks(config, NULL, ret, err);
}
