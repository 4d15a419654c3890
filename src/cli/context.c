/* SPDX-License-Identifier: MIT */
/*
 * Every command first builds the same context, in an order where each step
 * can fail before anything runs: the configuration file, the local provider
 * (which validates the SPEC 4 settings), then the policy.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ask-trust.h"
#include "context.h"
#include "output.h"

/* ------------------------------------------------------------------------ */
/* Context: configuration, provider, policy                                 */

static int load_config(cli_context *ctx) {
	const char *path = cli_config_pick_path(ctx->args->config, getenv("CONFINE_CONFIG"));
	char message[CONFINE_ERROR_MESSAGE_MAX];
	int r;
	if (!path)
		return 0;
	r = cli_config_load(path, &ctx->config, message, sizeof message);
	if (r < 0)
		return cli_report_failure(ctx->args->json, cli_config_error_code(r), message);
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
	else if (ctx->config.has_runner)
		local.pin = ctx->config.runner;
	if (confine_local_provider_new(&local, &ctx->provider, &err) < 0) {
		/* Only the file can hold what the provider refuses: name it. */
		if (ctx->config.path && err.code == CONFINE_E_INVALID_CONFIG)
			return cli_report(ctx, err.code, "%s: %s", ctx->config.path, err.message);
		return cli_report_error(ctx, &err);
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
			return cli_report(ctx, CONFINE_E_INVALID_POLICY,
			              "cannot resolve the relative workspace \"%s\": the current "
			              "directory is unavailable: %s",
			              args->workspace, strerror(errno));
		if (asprintf(&joined, "%s/%s", cwd, args->workspace) < 0)
			joined = NULL;
		free(cwd);
		if (!joined)
			return cli_report(ctx, CONFINE_E_SYSTEM, "out of memory");
	}
	session.cwd = joined ? joined : args->workspace;

	r = confine_policy_resolve(&deployment, &session, args->has_mode ? &args->mode : NULL,
	                           &ctx->policy, &err);
	free(joined);
	if (r < 0) {
		if (!args->workspace && ctx->config.workspace_root && ctx->config.path)
			return cli_report(ctx, err.code, "%s: key \"workspaceRoot\": %s", ctx->config.path,
			              err.message);
		/* -w is the session's cwd: name the flag the user typed. */
		return cli_report_error_replacing(ctx, &err, " (the session's cwd)", " (given with -w)");
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The policy beyond mode and root (doc/SPEC.md 15)                         */

/* A CLI path as the library wants it: absolute as given, a relative one
 * joined to the current directory (where the user typed it). *ret is
 * `path` itself or a malloc'd join in *owned. */
static int absolute_cli_path(const cli_context *ctx, const char *flag, const char *path,
                             const char **ret, char **owned) {
	char *cwd;
	*owned = NULL;
	*ret = path;
	if (!path[0] || path[0] == '/')
		return 0;
	if (!(cwd = getcwd(NULL, 0)))
		return cli_report(ctx, CONFINE_E_INVALID_POLICY,
		                  "%s \"%s\": cannot resolve a relative path: the current directory is "
		                  "unavailable: %s",
		                  flag, path, strerror(errno));
	if (asprintf(owned, "%s/%s", cwd, path) < 0)
		*owned = NULL;
	free(cwd);
	if (!*owned)
		return cli_report(ctx, CONFINE_E_SYSTEM, "out of memory");
	*ret = *owned;
	return 0;
}

typedef int (*policy_adder)(confine_policy *, const char *, confine_error *);

/* Adds the configuration's entries of `key`, then the flag's (a list flag
 * adds to the configuration's list). A refusal names the file and key, or
 * the flag and its value. */
static int add_entries(cli_context *ctx, const char *key, char *const *from_config,
                       const char *flag, const char *const *from_flags, bool resolve_relative,
                       policy_adder add) {
	confine_error err;
	for (size_t i = 0; from_config && from_config[i]; i++)
		if (add(ctx->policy, from_config[i], &err) < 0)
			return cli_report(ctx, err.code, "%s: key \"%s\": %s", ctx->config.path, key,
			                  err.message);
	for (size_t i = 0; from_flags && from_flags[i]; i++) {
		const char *path = from_flags[i];
		char *owned = NULL;
		int status, r;
		/* A relative writable root or socket is where the user typed
		 * it; a glob is left for the library to refuse by name. */
		if (resolve_relative && !strpbrk(from_flags[i], "*?[") &&
		    (status = absolute_cli_path(ctx, flag, from_flags[i], &path, &owned)) != 0)
			return status;
		r = add(ctx->policy, path, &err);
		free(owned);
		if (r < 0)
			/* the value bounded: the library's text names it whole */
			return cli_report(ctx, err.code, "%s \"%.64s%s\": %s", flag, from_flags[i],
			                  strlen(from_flags[i]) > 64 ? "..." : "", err.message);
	}
	return 0;
}

/* --stage DIR: the stage made now, before the run, so its manifest holds
 * the real tree as the run began (doc/SPEC.md 21). */
static int make_stage(cli_context *ctx) {
	char cwd[PATH_MAX], path[PATH_MAX];
	confine_error err = { 0 };
	const char *dir = ctx->args->stage;
	if (dir[0] != '/') {
		if (!getcwd(cwd, sizeof cwd) ||
		    (size_t)snprintf(path, sizeof path, "%s/%s", cwd, dir) >= sizeof path)
			return cli_report(ctx, CONFINE_E_INVALID_ARGUMENT, "--stage %s: %s", dir,
			                  strerror(errno ? errno : ENAMETOOLONG));
		dir = path;
	}
	/* Without -m, a stage means workspace-write: its writes reach nothing
	 * real until applied, so it is no wider than read-only for the tree. */
	if (!ctx->args->has_mode && ctx->policy->mode == CONFINE_MODE_READ_ONLY)
		ctx->policy->mode = CONFINE_MODE_WORKSPACE_WRITE;
	if (confine_stage_create(dir, ctx->policy, &err) < 0)
		return cli_report(ctx, err.code, "--stage %s: %s", ctx->args->stage, err.message);
	free(ctx->policy->stage_dir);
	if (!(ctx->policy->stage_dir = realpath(dir, NULL)))
		return cli_report(ctx, CONFINE_E_SYSTEM, "--stage %s: %s", dir, strerror(errno));
	return 0;
}

/* Configuration keys first, then flags: list flags add to the lists, scalar
 * flags override; then the whole policy is validated (the cross-checks:
 * a denyRead covering the root, a writable root under a denyRead...). */
static int build_policy_options(cli_context *ctx) {
	const cli_args *a = ctx->args;
	const cli_config *c = &ctx->config;
	confine_policy *p = ctx->policy;
	confine_error err;
	int status;

	if ((status = add_entries(ctx, "writableRoots", c->writable_roots, "--writable",
	                          a->writable, true, confine_policy_add_writable_root)) != 0 ||
	    (status = add_entries(ctx, "protectedPaths", c->protected_paths, "--protect",
	                          a->protect, false, confine_policy_add_protected_path)) != 0 ||
	    (status = add_entries(ctx, "unprotect", c->unprotect, "--unprotect", a->unprotect,
	                          false, confine_policy_add_unprotect)) != 0 ||
	    /* A relative denyRead is a pattern at any depth under the roots,
	     * from every door (doc/SPEC.md 15): never joined to the cwd. */
	    (status = add_entries(ctx, "denyRead", c->deny_read, "--deny-read", a->deny_read, false,
	                          confine_policy_add_deny_read)) != 0 ||
	    (status = add_entries(ctx, "allowUnixSockets", c->allow_unix_sockets,
	                          "--allow-unix-socket", a->allow_unix_sockets, true,
	                          confine_policy_add_unix_socket)) != 0 ||
	    (status = add_entries(ctx, "env.include", c->env_include, "--env-include",
	                          a->env_include, false, confine_policy_add_env_include)) != 0 ||
	    (status = add_entries(ctx, "env.exclude", c->env_exclude, "--env-exclude",
	                          a->env_exclude, false, confine_policy_add_env_exclude)) != 0 ||
	    (status = add_entries(ctx, "env.set", c->env_set, "--env-set", a->env_set, false,
	                          confine_policy_add_env_set)) != 0)
		return status;
	if (c->has_default_protections)
		p->default_protections = c->default_protections;
	if (a->no_default_protections)
		p->default_protections = false;
	if (c->has_network)
		p->network = c->network;
	/* --network replaces the file's whole network key, allowlist and all;
	 * --allow-host makes (or adds to) an allowlist: the network off
	 * around it, unless --network on says otherwise (then refused);
	 * --deny-host and --allow-local-network too. */
	if (!a->has_network) {
		if ((status = add_entries(ctx, "network.allow", c->network_allow, NULL, NULL, false,
		                          confine_policy_add_allow_host)) != 0 ||
		    (status = add_entries(ctx, "network.deny", c->network_deny, NULL, NULL, false,
		                          confine_policy_add_deny_host)) != 0)
			return status;
		p->network_allow_local = c->network_allow_local;
	}
	if ((status = add_entries(ctx, "network.allow", NULL, "--allow-host", a->allow_hosts,
	                          false, confine_policy_add_allow_host)) != 0 ||
	    (status = add_entries(ctx, "network.deny", NULL, "--deny-host", a->deny_hosts, false,
	                          confine_policy_add_deny_host)) != 0)
		return status;
	if (a->allow_local_network)
		p->network_allow_local = true;
	/* Each part of the allowlist (--allow-host, --deny-host,
	 * --allow-local-network) is the network object's, which is the
	 * network off plus the proxy, as from a config file or a binding. */
	if (((a->allow_hosts && a->allow_hosts[0]) || (a->deny_hosts && a->deny_hosts[0]) ||
	     a->allow_local_network) && !a->has_network)
		p->network = CONFINE_NETWORK_OFF;
	/* --ask-host: the allowlist with a decider (doc/SPEC.md 15, "Ask"),
	 * an empty list when no --allow-host names one */
	if (a->ask_host) {
		p->network_ask = true;
		if (!a->has_network)
			p->network = CONFINE_NETWORK_OFF;
	}
	if (a->has_network)
		p->network = a->network;
	if (c->has_env_inherit)
		p->env.inherit = c->env_inherit;
	if (a->has_env_inherit)
		p->env.inherit = a->env_inherit;
	if (c->has_env_default_excludes)
		p->env.default_excludes = c->env_default_excludes;
	if (a->no_default_env_excludes)
		p->env.default_excludes = false;
	if (c->has_require_full)
		p->require_full = c->require_full;
	if (a->require_full)
		p->require_full = true;
	/* The file's limits, then the flags' (a flag replaces the file's). */
	for (unsigned i = 0; i < CONFINE_LIMIT_COUNT; i++) {
		confine_limit limit = (confine_limit)i;
		if (c->limits[i] &&
		    confine_policy_set_limit_text(p, confine_limit_name(limit), c->limits[i], &err) < 0)
			return cli_report(ctx, err.code, "%s: key \"limits.%s\": %s", c->path,
			                  confine_limit_name(limit), err.message);
		if (a->limits[i] &&
		    confine_policy_set_limit_text(p, confine_limit_name(limit), a->limits[i], &err) < 0)
			return cli_report(ctx, err.code, "%s \"%s\": %s", confine_limit_flag(limit),
			                  a->limits[i], err.message);
	}
	if (confine_policy_validate(p, &err) < 0) {
		/* A restriction the mode cannot hold, given as a flag: name the
		 * flag (doc/SPEC.md 15, "Contradictions"). */
		static const struct {
			const char *key, *flag;
		} contradictions[] = {
			{ "network \"off\" cannot hold", "--network off" },
			{ "denyRead entry", "--deny-read" },
			{ "protectedPaths entry", "--protect" },
			{ "requireFull cannot hold", "--require-full" },
		};
		for (size_t i = 0; i < sizeof contradictions / sizeof contradictions[0]; i++) {
			bool given = (i == 0 && a->has_network) || (i == 1 && a->deny_read && a->deny_read[0]) ||
			             (i == 2 && a->protect && a->protect[0]) || (i == 3 && a->require_full);
			if (given && strstr(err.message, "danger-full-access") &&
			    strncmp(err.message, contradictions[i].key, strlen(contradictions[i].key)) == 0)
				return cli_report(ctx, err.code, "%s: %s", contradictions[i].flag, err.message);
		}
		/* The message names the key and the value; without flags the
		 * value can only come from the file: name it. */
		if (c->path && !a->has_policy_options)
			return cli_report(ctx, err.code, "%s: %s", c->path, err.message);
		return cli_report_error(ctx, &err);
	}
	/* --cwd DIR: where the command starts (run, bash), a relative DIR
	 * taken from confine's current directory as -w's is; the library
	 * judges it as it judges a binding's cwd (doc/SPEC.md 10). */
	if (a->cwd && a->cwd[0] == '/' && !(ctx->workdir = strdup(a->cwd)))
		return cli_report(ctx, CONFINE_E_SYSTEM, "out of memory");
	if (a->cwd && a->cwd[0] != '/') {
		char here[PATH_MAX];
		if (!getcwd(here, sizeof here))
			return cli_report(ctx, CONFINE_E_SYSTEM, "--cwd %s: cannot read the current "
			                  "directory: %s", a->cwd, strerror(errno));
		if (asprintf(&ctx->workdir, "%s/%s", here, a->cwd) < 0) {
			ctx->workdir = NULL;
			return cli_report(ctx, CONFINE_E_SYSTEM, "out of memory");
		}
	}
	/* Last: a policy refused above leaves no stage behind. */
	if (a->stage && (status = make_stage(ctx)) != 0)
		return status;
	return 0;
}

void cli_stage_drop(cli_context *ctx) {
	if (ctx->policy && ctx->policy->stage_dir)
		(void)confine_stage_discard(ctx->policy->stage_dir, NULL);
}

/* The configuration is not the run's to change (doc/SPEC.md 16, "A
 * configuration the run may write"; R4-F11): a file inside a place the
 * confined command may write, or with a second name (a hard link) on a
 * filesystem where it may write, could be rewritten by this run and set
 * the next run's policy. Refused before anything runs. */
static int refuse_writable_config(cli_context *ctx) {
	const char *path = ctx->config.path;
	char real[PATH_MAX];
	const char *area;
	struct stat st;
	if (!path || !confine_mode_is_confined(ctx->policy->mode) || !realpath(path, real))
		return 0;
	if ((area = cli_trust_writable_area(ctx->policy, real)) != NULL)
		return cli_report(ctx, CONFINE_E_INVALID_CONFIG,
		                  "%s: the configuration lies inside the run's writable root \"%s\": "
		                  "the confined command could rewrite the policy of the next run",
		                  path, area);
	if (stat(real, &st) == 0 && st.st_nlink > 1 &&
	    (area = cli_trust_writable_on_device(ctx->policy, st.st_dev)) != NULL)
		return cli_report(ctx, CONFINE_E_INVALID_CONFIG,
		                  "%s: the configuration has %lu hard links, and the run may write "
		                  "\"%s\" on the same filesystem: the confined command could rewrite "
		                  "the policy of the next run through a link there",
		                  path, (unsigned long)st.st_nlink, area);
	return 0;
}

int cli_context_open(cli_context *ctx, const cli_args *args, bool with_policy) {
	int status;
	memset(ctx, 0, sizeof *ctx);
	ctx->args = args;
	if ((status = load_config(ctx)) != 0)
		return status;
	if ((status = make_provider(ctx)) != 0)
		return status;
	if (with_policy && (status = resolve_policy(ctx)) != 0)
		return status;
	if (with_policy && (status = build_policy_options(ctx)) != 0)
		return status;
	if (with_policy && (status = refuse_writable_config(ctx)) != 0)
		return status;
	return 0;
}

void cli_context_close(cli_context *ctx) {
	free(ctx->workdir);
	confine_policy_free(ctx->policy);
	confine_provider_free(ctx->provider);
	cli_config_clear(&ctx->config);
}
