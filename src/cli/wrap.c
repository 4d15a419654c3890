/* SPDX-License-Identifier: MIT */
/* confine wrap: the confined argv as one JSON object; runs nothing. Every
 * outcome is exactly one JSON object on stdout: the wrap, or (main.c,
 * context.c and here, through output.c) {"error":{...}} with exit 125. */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "launcher-args.h"

#include "context.h"
#include "output.h"
#include "policy-json.h"
#include "probe.h"

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
		json_array_append_new(array, cli_json_string_lossy(strv[i], strlen(strv[i])));
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

/* Long on purpose: it builds one JSON object field by field, in the order
 * the contract lists them (doc/SPEC.md 10). */
/* The library names the calling process as the argv's spawner (its
 * lifeline, doc/SPEC.md 13, "The wrap argv's lifeline"); this process
 * only prints the argv and exits: the harness that spawns it is our parent.
 * Only a --starter before the runner's first "--" is the launcher's (the
 * command after it is the caller's, untouched). */
static int name_the_harness(confine_argv *confined) {
	char pid[16];
	snprintf(pid, sizeof pid, "%ld", (long)getppid());
	for (size_t i = 0; confined->argv[i] && strcmp(confined->argv[i], LAUNCHER_ARG_END) != 0;
	     i++) {
		char *copy;
		if (strcmp(confined->argv[i], LAUNCHER_ARG_STARTER) != 0 || !confined->argv[i + 1])
			continue;
		if (!(copy = strdup(pid)))
			return -ENOMEM;
		free(confined->argv[i + 1]);
		confined->argv[i + 1] = copy;
		return 0;
	}
	return 0;
}

int cli_command_wrap(cli_context *ctx) {
	const cli_args *args = ctx->args;
	confine_argv *confined = NULL;
	confine_error err;
	json_t *object, *argv_json = NULL, *denial = NULL, *rules, *env_json = NULL;
	const char *bad = NULL;
	int r;
	json_t *root_check = json_string(ctx->policy->workspace_root);
	if (!root_check)
		return cli_report(ctx, CONFINE_E_INVALID_POLICY,
		                  "the workspace root \"%s\" is not valid UTF-8 and cannot be written "
		                  "as JSON",
		                  ctx->policy->workspace_root);
	json_decref(root_check);
	/* The environment to spawn with (doc/SPEC.md 15): the filter is the
	 * spawner's, and here the spawner is the caller. */
	{
		char *bad_name = NULL;
		r = cli_env_json(ctx->policy, &env_json, &bad_name);
		if (r == -EILSEQ) {
			int status = cli_report(ctx, CONFINE_E_INVALID_POLICY,
			                        "environment variable \"%s\" is not valid UTF-8 and cannot be "
			                        "written as JSON (drop it with --env-exclude)",
			                        bad_name);
			free(bad_name);
			return status;
		}
		if (r < 0)
			return cli_report(ctx, CONFINE_E_SYSTEM, "out of memory");
	}

	/* The command's own words first: an argument JSON cannot carry is a
	 * usage error whatever the host's runners (the argv's other words are
	 * checked below). */
	r = strict_string_array(args->program_argv, &argv_json, &bad);
	if (r == -EILSEQ) {
		int status = cli_report(ctx, CLI_E_USAGE,
		                        "argument \"%s\" is not valid UTF-8 and cannot be written as "
		                        "JSON",
		                        bad);
		json_decref(env_json);
		return status;
	}
	json_decref(argv_json);
	argv_json = NULL;
	if (r < 0) {
		json_decref(env_json);
		return cli_report(ctx, CONFINE_E_SYSTEM, "out of memory");
	}

	if (confine_mode_is_confined(ctx->policy->mode)) {
		if (args->has_runner) {
			/* A pinned runner is selected unprobed; an argv handed to
			 * another process gets the probe first (doc/SPEC.md 17), so a
			 * runner that cannot run is SANDBOX_UNAVAILABLE here and not a
			 * surprise in the harness. */
			cli_probe_result probe;
			int status = cli_probe_pinned(ctx, &probe);
			cli_probe_result_clear(&probe);
			if (status != 0) {
				json_decref(env_json);
				return status;
			}
			if (!probe.verdict.usable) {
				json_decref(env_json);
				confine_error_pinned_unavailable(&err, args->runner, ctx->policy->mode,
				                                 probe.runner_failed ? probe.reason : NULL);
				return cli_report_error(ctx, &err);
			}
		}
		if (confine_confine(ctx->provider, (const char *const *)args->program_argv, ctx->policy,
		                    &confined, &err) < 0) {
			json_decref(env_json);
			return cli_report_error(ctx, &err);
		}
		if (name_the_harness(confined) < 0) {
			json_decref(env_json);
			confine_argv_free(confined);
			return cli_report(ctx, CONFINE_E_SYSTEM, "out of memory");
		}
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
		int status = cli_report(ctx, CLI_E_USAGE,
		                        "argument \"%s\" is not valid UTF-8 and cannot be written as "
		                        "JSON",
		                        bad);
		json_decref(argv_json);
		json_decref(env_json);
		confine_argv_free(confined);
		return status;
	}
	if (r < 0 || !denial) {
		json_decref(argv_json);
		json_decref(denial);
		json_decref(env_json);
		confine_argv_free(confined);
		return cli_report(ctx, CONFINE_E_SYSTEM, "out of memory");
	}

	object = json_object();
	rules = json_array();
	if (!object || !rules) {
		json_decref(object);
		json_decref(rules);
		json_decref(argv_json);
		json_decref(denial);
		json_decref(env_json);
		confine_argv_free(confined);
		return cli_report(ctx, CONFINE_E_SYSTEM, "out of memory");
	}
	json_object_set_new(object, "argv", argv_json);
	if (confined) {
		json_object_set_new(object, "runner", json_string(confine_runner_name(confined->runner)));
		json_object_set_new(object, "enforcement",
		                    json_string(confine_enforcement_name(confined->enforcement)));
		json_object_set_new(object, "unenforced", lossy_string_array(confined->unenforced));
		{
			/* What holds the clauses, and what the launcher in the argv will
			 * apply as predicted here (its seccomp deny-list holds no clause
			 * of its own): doc/SPEC.md 10, 14, 15; in SPEC 15's order. */
			json_t *layers = cli_layers_json_with(confined->clauses, confined->n_clauses,
			                                      confined->layers);
			json_object_set_new(object, "layers", layers);
		}
		json_object_set_new(object, "clauses",
		                    cli_clauses_json(confined->clauses, confined->n_clauses));
		for (size_t i = 0; i < confined->n_rules; i++)
			json_array_append_new(rules, rule_json(&confined->rules[i]));
	} else {
		json_object_set_new(object, "runner", json_null());
		json_object_set_new(object, "unenforced", json_array());
		json_object_set_new(object, "layers", json_array());
		json_object_set_new(object, "clauses", json_array());
	}
	json_object_set_new(object, "denialSignatures", denial);
	json_object_set_new(object, "runnerFailureRules", rules);
	json_object_set_new(object, "env", env_json);
	env_json = NULL;
	json_object_set_new(object, "policy", cli_policy_json(ctx->policy));
	confine_argv_free(confined);

	if ((r = cli_emit_json(object)) < 0)
		return cli_report_output_failure(ctx, r);
	return 0;
}
