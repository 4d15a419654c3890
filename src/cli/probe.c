/* SPDX-License-Identifier: MIT */
/*
 * confine probe: the ladder's verdict, or with --runner the pinned runner
 * probed for real. Exit 0 usable, 1 not usable (a verdict), 125 when
 * confine itself failed (doc/SPEC.md 10, 16).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "output.h"
#include "policy-json.h"
#include "probe.h"

/* The exit status of a verdict of "not usable". */
#define CLI_EXIT_UNUSABLE 1

static void set_reason(cli_probe_result *ret, bool runner_failed, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_reason(cli_probe_result *ret, bool runner_failed, const char *fmt, ...) {
	va_list ap;
	ret->verdict.usable = false;
	ret->runner_failed = runner_failed;
	va_start(ap, fmt);
	vsnprintf(ret->reason, sizeof ret->reason, fmt, ap);
	va_end(ap);
}

/* An error from confining or starting the probe: a runner failure or a
 * start failure makes the runner unusable; anything else is confine's. */
static int judge_error(cli_context *ctx, const confine_error *err, cli_probe_result *ret) {
	const char *detail;
	if (err->code == CONFINE_E_SANDBOX_UNAVAILABLE) {
		detail = cli_runner_failure_of(err->code, err->message);
		if (detail)
			set_reason(ret, true, "%s", detail);
		else
			set_reason(ret, false, "%s cannot confine on this host",
			           confine_runner_name(ctx->args->runner));
		return 0;
	}
	if (err->code == CONFINE_E_SPAWN) {
		set_reason(ret, false, "%s", err->message);
		return 0;
	}
	return cli_report_error(ctx, err);
}

void cli_probe_result_clear(cli_probe_result *result) {
	for (size_t i = 0; result && i < result->n_clauses; i++) {
		free(result->clauses[i].clause);
		free(result->clauses[i].subject);
		free(result->clauses[i].reason);
		free(result->clauses[i].needs);
	}
	if (result) {
		free(result->clauses);
		result->clauses = NULL;
		result->n_clauses = 0;
		confine_strv_free(result->layers);
		result->layers = NULL;
	}
}

/* The launcher words of `confined` into the result (keep_clauses first:
 * it clears the result). */
static int keep_layers(cli_probe_result *ret, const confine_argv *confined) {
	size_t n = 0;
	while (confined->layers && confined->layers[n])
		n++;
	if (!confined->layers)
		return 0;
	ret->layers = calloc(n + 1, sizeof *ret->layers);
	for (size_t i = 0; ret->layers && i < n; i++)
		if (!(ret->layers[i] = strdup(confined->layers[i]))) {
			confine_strv_free(ret->layers);
			ret->layers = NULL;
		}
	return ret->layers ? 0 : -ENOMEM;
}

/* A copy of `clauses` into the result, replacing any it held. */
static int keep_clauses(cli_probe_result *ret, const confine_clause *clauses, size_t n) {
	confine_clause *copy = n ? calloc(n, sizeof *copy) : NULL;
	if (n && !copy)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		copy[i] = clauses[i];
		copy[i].clause = clauses[i].clause ? strdup(clauses[i].clause) : NULL;
		copy[i].subject = clauses[i].subject ? strdup(clauses[i].subject) : NULL;
		copy[i].reason = clauses[i].reason ? strdup(clauses[i].reason) : NULL;
		copy[i].needs = clauses[i].needs ? strdup(clauses[i].needs) : NULL;
		if (!copy[i].clause || (clauses[i].subject && !copy[i].subject) ||
		    (clauses[i].reason && !copy[i].reason) || (clauses[i].needs && !copy[i].needs)) {
			cli_probe_result tmp = { .clauses = copy, .n_clauses = i + 1 };
			cli_probe_result_clear(&tmp);
			return -ENOMEM;
		}
	}
	cli_probe_result_clear(ret);
	ret->clauses = copy;
	ret->n_clauses = n;
	/* `full` only when every clause holds (doc/SPEC.md 15). */
	for (size_t i = 0; i < n; i++)
		if (copy[i].status != CONFINE_CLAUSE_ENFORCED)
			ret->verdict.enforcement = CONFINE_ENFORCEMENT_PARTIAL;
	return 0;
}

/* The first line of `text` (at most `len` bytes), or "". */
static int first_line_length(const char *text, size_t len) {
	size_t n = 0;
	while (text && n < len && n < 400 && text[n] != '\n' && text[n] != '\r')
		n++;
	return (int)n;
}

int cli_probe_pinned(cli_context *ctx, cli_probe_result *ret) {
	static const char *const fallback_argv[] = { "true", NULL };
	const char *argv[] = { NULL, NULL };
	confine_policy *policy = NULL;
	confine_argv *confined = NULL;
	confine_outcome *outcome = NULL;
	confine_spawn_options options;
	confine_error err;
	char *true_path = NULL;
	double bound;
	int status = 0;

	memset(ret, 0, sizeof *ret);
	if (confine_provider_verdict(ctx->provider, &ret->verdict, &err) < 0)
		return cli_report_error(ctx, &err);
	if (!ret->verdict.usable) {
		/* Nothing that could run: the program is not there (bwrap off
		 * PATH), or the mechanism does not exist on this platform. */
		if (ret->verdict.runner_failure[0])
			set_reason(ret, true, "%s", ret->verdict.runner_failure);
		else
			set_reason(ret, false, "%s cannot run on this host (not found, or not this "
			                       "platform's mechanism)",
			           confine_runner_name(ctx->args->runner));
		return 0;
	}

	if (confine_policy_new(CONFINE_MODE_READ_ONLY, "/", &policy, &err) < 0)
		return cli_report_error(ctx, &err);
	/* `true` by its path where one is found, so the probe does not depend
	 * on a search inside the sandbox; the runner's own lookup otherwise. */
	argv[0] = confine_find_program("true", NULL, &true_path) == 0 ? true_path
	                                                               : fallback_argv[0];
	if (confine_confine(ctx->provider, argv, policy, &confined, &err) < 0) {
		status = judge_error(ctx, &err, ret);
		goto out;
	}
	ret->verdict.enforcement = confined->enforcement;
	if (keep_clauses(ret, confined->clauses, confined->n_clauses) < 0 ||
	    keep_layers(ret, confined) < 0) {
		status = cli_report(ctx, CONFINE_E_SYSTEM, "out of memory");
		goto out;
	}

	confine_spawn_options_init(&options);
	options.confined = confined;
	options.workdir = "/";
	options.stdio[0].kind = CONFINE_STDIO_NULL;
	options.stdio[1].kind = CONFINE_STDIO_NULL;
	options.stdio[2].kind = CONFINE_STDIO_CAPTURE; /* the runner's failure line */
	options.capture_limit = 4096;
	/* The bound every probe has (probeTimeoutMs, validated by the
	 * provider), rounded up; the spawn API counts whole milliseconds. */
	bound = ceil(ctx->config.has_probe_timeout ? ctx->config.probe_timeout_ms
	                                           : CONFINE_DEFAULT_PROBE_TIMEOUT_MS);
	options.timeout_ms = bound >= (double)CONFINE_MAX_TIMEOUT_MS ? CONFINE_MAX_TIMEOUT_MS
	                                                             : (unsigned)bound;
	if (confine_run(&options, &outcome, &err) < 0) {
		status = judge_error(ctx, &err, ret);
		goto out;
	}
	if (outcome->n_clauses && (keep_clauses(ret, outcome->clauses, outcome->n_clauses) < 0 ||
	                           keep_layers(ret, confined) < 0)) {
		status = cli_report(ctx, CONFINE_E_SYSTEM, "out of memory");
		goto out;
	}
	if (outcome->runner_failed) {
		set_reason(ret, true, "%s",
		           outcome->runner_failure_detail ? outcome->runner_failure_detail
		                                          : "the runner failed before the command ran");
	} else if (outcome->timed_out) {
		set_reason(ret, true, "the probe did not finish within %u ms", options.timeout_ms);
	} else if (outcome->signaled) {
		char name[32];
		set_reason(ret, true, "the probe was killed by signal %s",
		           confine_signal_name(outcome->signal, name, sizeof name));
	} else if (outcome->exit_code != 0) {
		int n = first_line_length(outcome->stderr_data, outcome->stderr_len);
		set_reason(ret, true, "the probe exited with status %d%s%.*s", outcome->exit_code,
		           n ? ": " : "", n, n ? outcome->stderr_data : "");
	}
out:
	confine_outcome_free(outcome);
	confine_argv_free(confined);
	confine_policy_free(policy);
	free(true_path);
	return status;
}

/* The ladder's verdict, as cli_probe_pinned() reports one. */
static int probe_ladder(cli_context *ctx, cli_probe_result *ret) {
	confine_error err;
	memset(ret, 0, sizeof *ret);
	if (confine_provider_verdict(ctx->provider, &ret->verdict, &err) < 0)
		return cli_report_error(ctx, &err);
	if (!ret->verdict.usable) {
		if (ret->verdict.runner_failure[0])
			set_reason(ret, true, "%s", ret->verdict.runner_failure);
		else
			set_reason(ret, false, "no sandbox backend is usable on this host");
		return 0;
	}
	{
		/* What the chosen rung holds of read-only on /, as `wrap` hands
		 * it out: building the argv runs nothing. */
		static const char *const argv[] = { "true", NULL };
		confine_policy *policy = NULL;
		confine_argv *confined = NULL;
		int r = 0;
		if (confine_policy_new(CONFINE_MODE_READ_ONLY, "/", &policy, &err) < 0)
			return cli_report_error(ctx, &err);
		if (confine_confine(ctx->provider, argv, policy, &confined, &err) == 0) {
			r = keep_clauses(ret, confined->clauses, confined->n_clauses);
			if (r == 0)
				r = keep_layers(ret, confined);
		}
		confine_argv_free(confined);
		confine_policy_free(policy);
		if (r < 0)
			return cli_report(ctx, CONFINE_E_SYSTEM, "out of memory");
	}
	return 0;
}

static json_t *probe_json(const cli_probe_result *p) {
	const confine_verdict *v = &p->verdict;
	json_t *object = json_object();
	if (!object)
		return NULL;
	json_object_set_new(object, "usable", json_boolean(v->usable));
	if (v->usable) {
		json_object_set_new(object, "runner", json_string(confine_runner_name(v->runner)));
		json_object_set_new(object, "enforcement",
		                    json_string(confine_enforcement_name(v->enforcement)));
	} else {
		json_object_set_new(object, "runner", json_null());
	}
	if (v->landlock_abi >= 0)
		json_object_set_new(object, "landlockAbi", json_integer(v->landlock_abi));
	{
		/* The summary: each clause name not enforced, once. */
		json_t *unenforced = json_array();
		for (size_t i = 0; unenforced && i < p->n_clauses; i++) {
			bool seen = false;
			if (p->clauses[i].status == CONFINE_CLAUSE_ENFORCED)
				continue;
			for (size_t k = 0; k < json_array_size(unenforced) && !seen; k++)
				seen = strcmp(json_string_value(json_array_get(unenforced, k)),
				              p->clauses[i].clause) == 0;
			if (!seen)
				json_array_append_new(unenforced, json_string(p->clauses[i].clause));
		}
		json_object_set_new(object, "unenforced", unenforced);
	}
	json_object_set_new(object, "supervisor", json_boolean(confine_supervisor_available()));
	/* the same list `wrap` gives for the same argv (doc/SPEC.md 10) */
	json_object_set_new(object, "layers", cli_layers_json_with(p->clauses, p->n_clauses,
	                                                           p->layers));
	json_object_set_new(object, "clauses", cli_clauses_json(p->clauses, p->n_clauses));
	if (v->usable && v->runner_path[0])
		json_object_set_new(object, "runnerPath",
		                    cli_json_string_lossy(v->runner_path, strlen(v->runner_path)));
	if (!v->usable) {
		json_object_set_new(object, "reason", cli_json_string_lossy(p->reason, strlen(p->reason)));
		if (p->runner_failed)
			json_object_set_new(object, "runnerFailure",
			                    cli_json_string_lossy(p->reason, strlen(p->reason)));
	}
	return object;
}

static int probe_words(const cli_probe_result *p, const char *pinned) {
	const confine_verdict *v = &p->verdict;
	int r = 0;
	if (v->usable) {
		if (printf("runner: %s\nenforcement: %s\n", confine_runner_name(v->runner),
		           confine_enforcement_name(v->enforcement)) < 0)
			r = -EIO;
		if (v->runner_path[0] && printf("runner path: %s\n", v->runner_path) < 0)
			r = -EIO;
	} else {
		if ((pinned ? printf("runner: none (%s is not usable)\n", pinned)
		            : printf("runner: none (no sandbox backend is usable on this host)\n")) < 0)
			r = -EIO;
		if (printf("%s: %s\n", p->runner_failed ? "runner failure" : "reason", p->reason) < 0)
			r = -EIO;
	}
	if (v->landlock_abi >= 0 && printf("landlock ABI: %d\n", v->landlock_abi) < 0)
		r = -EIO;
	if (printf("supervisor: %s\n", confine_supervisor_available() ? "available" : "not available") < 0)
		r = -EIO;
	if (p->n_clauses) {
		json_t *layers = cli_layers_json_with(p->clauses, p->n_clauses, p->layers);
		if (printf("layers:") < 0)
			r = -EIO;
		for (size_t i = 0; layers && i < json_array_size(layers); i++)
			if (printf(" %s", json_string_value(json_array_get(layers, i))) < 0)
				r = -EIO;
		json_decref(layers);
		if (printf("\n") < 0)
			r = -EIO;
		for (size_t i = 0; i < p->n_clauses; i++) {
			const confine_clause *c = &p->clauses[i];
			if (c->status != CONFINE_CLAUSE_ENFORCED &&
			    printf("not enforced: %s%s%s: %s%s%s%s\n", c->clause, c->subject ? " " : "",
			           c->subject ? c->subject : "", c->reason ? c->reason : "",
			           c->needs ? " (needs " : "", c->needs ? c->needs : "",
			           c->needs ? ")" : "") < 0)
				r = -EIO;
		}
	}
	if (fflush(stdout) == EOF)
		r = -errno;
	return r;
}

int cli_command_probe(cli_context *ctx) {
	const char *pinned = ctx->args->has_runner ? confine_runner_name(ctx->args->runner) : NULL;
	cli_probe_result result;
	int status, r;

	status = pinned ? cli_probe_pinned(ctx, &result) : probe_ladder(ctx, &result);
	if (status != 0) {
		cli_probe_result_clear(&result);
		return status;
	}
	r = ctx->args->json ? cli_emit_json(probe_json(&result)) : probe_words(&result, pinned);
	cli_probe_result_clear(&result);
	if (r < 0)
		return cli_report_output_failure(ctx, r);
	if (!result.verdict.usable) {
		if (pinned)
			fprintf(stderr, "confine: the runner %s is not usable: %s\n", pinned, result.reason);
		else
			fprintf(stderr, "confine: no sandbox backend is usable on this host: a confined "
			                "mode would fail closed with SANDBOX_UNAVAILABLE\n");
		return CLI_EXIT_UNUSABLE;
	}
	return 0;
}
