/* SPDX-License-Identifier: MIT */
/* The provider seam: an opaque handle over a small backend table. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "call-scope.h"
#include "canonical.h"
#include "policy-internal.h"
#include "provider-internal.h"
#include "util.h"

struct confine_provider {
	confine_provider_ops ops;
	void *data;
};

int confine_provider_new(const confine_provider_ops *ops, void *data, confine_provider **ret,
                         confine_error *err) {
	confine_provider *p;
	if (!ops || !ops->confine || !ret) {
		if (ops && ops->destroy)
			ops->destroy(data);
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "provider", 0,
		                    "a provider needs a backend with a confine operation");
	}
	p = calloc(1, sizeof *p);
	if (!p) {
		if (ops->destroy)
			ops->destroy(data);
		return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "provider", ENOMEM, "out of memory");
	}
	p->ops = *ops;
	p->data = data;
	*ret = p;
	return 0;
}

void confine_provider_free(confine_provider *provider) {
	if (!provider)
		return;
	if (provider->ops.destroy)
		provider->ops.destroy(provider->data);
	free(provider);
}

/* What every confine call checks before a backend sees it. */
static int check_call(confine_provider *provider, const char *const *argv,
                      const confine_policy *policy, confine_argv **ret, confine_error *err) {
	int r;
	if (!provider || !ret)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "confine", 0,
		                    "confine needs a provider and a result pointer");
	if (!argv || !argv[0] || !argv[0][0])
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "confine", 0,
		                    "confine needs a non-empty argv (argv[0] is missing or empty)");
	if (!policy)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "confine", 0,
		                    "confine needs a policy");
	if (!confine_mode_is_confined(policy->mode)) {
		const char *name = confine_mode_name(policy->mode);
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "confine", 0,
		                    "mode \"%s\" is not a confined mode: danger-full-access never "
		                    "reaches a sandbox provider",
		                    name ? name : "?");
	}
	if (!policy->workspace_root || policy->workspace_root[0] != '/')
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, "confine", 0,
		                    "workspace root \"%s\" is not an absolute path",
		                    policy->workspace_root ? policy->workspace_root : "");
	/* A policy may be built by hand rather than by confine_policy_resolve():
	 * the grant must still be the directory itself, canonical, so "/tmp/..",
	 * a symlink or "/" cannot widen workspace-write to everything. */
	if (!cf_canonical_fast(policy->workspace_root)) {
		char *canonical = realpath(policy->workspace_root, NULL);
		int e = errno;
		bool resolved = canonical != NULL;
		bool same = resolved && strcmp(canonical, policy->workspace_root) == 0;
		free(canonical);
		if (!resolved)
			return cf_error_set(err, e, CONFINE_E_INVALID_POLICY, "confine", e,
			                    "workspace root \"%s\" cannot be resolved: %s",
			                    policy->workspace_root, strerror(e));
		if (!same)
			return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, "confine", 0,
			                    "workspace root \"%s\" is not canonical (resolve it with "
			                    "confine_policy_resolve or confine_policy_new)",
			                    policy->workspace_root);
	}
	/* A hand-built policy past a bound is refused here too: no door can
	 * hand the launcher a list it would cut (doc/SPEC.md 15, "Bounds"). */
	r = cf_policy_check_bounds(policy, err);
	if (r < 0)
		return r;
	if (policy->mode == CONFINE_MODE_WORKSPACE_WRITE && strcmp(policy->workspace_root, "/") == 0)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, "confine", 0,
		                    "workspace root \"/\" is refused under workspace-write: "
		                    "writing everywhere is danger-full-access in disguise");
	return 0;
}

int confine_confine(confine_provider *provider, const char *const *argv,
                    const confine_policy *policy, confine_argv **ret, confine_error *err) {
	int r = check_call(provider, argv, policy, ret, err);
	if (r < 0)
		return r;
	/* the clause report and the argv on one plan (profiles/plan-memo.c) */
	cf_call_open();
	r = provider->ops.confine(provider->data, argv, policy, ret, err);
	cf_call_close();
	return r;
}

int cf_provider_confine_for_spawn(confine_provider *provider, const char *const *argv,
                                  const confine_policy *policy, confine_argv **ret,
                                  confine_error *err) {
	int r = check_call(provider, argv, policy, ret, err);
	if (r < 0)
		return r;
	cf_call_open();
	if (provider->ops.confine_for_spawn)
		r = provider->ops.confine_for_spawn(provider->data, argv, policy, ret, err);
	else
		r = provider->ops.confine(provider->data, argv, policy, ret, err);
	cf_call_close();
	return r;
}

bool cf_provider_runner_failed(confine_provider *provider, const confine_argv *confined,
                               const char *detail) {
	return provider->ops.runner_failed &&
	       provider->ops.runner_failed(provider->data, confined, detail);
}

void cf_provider_runner_started(confine_provider *provider, const confine_argv *confined) {
	if (provider->ops.runner_started)
		provider->ops.runner_started(provider->data, confined);
}

int confine_provider_verdict(confine_provider *provider, confine_verdict *ret,
                             confine_error *err) {
	if (!provider || !ret)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "provider", 0,
		                    "verdict needs a provider and a result pointer");
	if (!provider->ops.verdict)
		return cf_error_set(err, EOPNOTSUPP, CONFINE_E_INVALID_ARGUMENT, "provider", 0,
		                    "this provider reports no verdict");
	return provider->ops.verdict(provider->data, ret, err);
}
