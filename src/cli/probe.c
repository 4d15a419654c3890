/* SPDX-License-Identifier: MIT */
/* confine probe: the ladder's verdict. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "context.h"
#include "output.h"

int cli_command_probe(cli_context *ctx) {
	confine_verdict verdict;
	confine_error err;
	int r;

	if (confine_provider_verdict(ctx->provider, &verdict, &err) < 0)
		return cli_report_error(ctx, &err);

	if (ctx->args->json) {
		json_t *object = json_object();
		if (!object)
			return cli_report(ctx, CONFINE_E_SYSTEM, "out of memory");
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
			                    cli_json_string_lossy(verdict.runner_path, strlen(verdict.runner_path)));
		if (!verdict.usable && verdict.runner_failure[0])
			json_object_set_new(object, "runnerFailure",
			                    cli_json_string_lossy(verdict.runner_failure,
			                                      strlen(verdict.runner_failure)));
		r = cli_emit_json(object);
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
		return cli_report_output_failure(ctx, r);
	if (!verdict.usable) {
		fprintf(stderr, "confine: no sandbox backend is usable on this host: a confined mode "
		                "would fail closed with SANDBOX_UNAVAILABLE\n");
		return CLI_EXIT_FAILURE;
	}
	return 0;
}
