/* SPDX-License-Identifier: MIT */
/*
 * The export's plan: the library's bwrap profile (confine.h,
 * confine_profile_bwrap) read back as mounts, masks and namespaces. The
 * profile is the mount plan a confined run gets (protected paths found,
 * default protections walked, denyRead split into directories and files,
 * patterns matched), so an export holds what a run holds without a second
 * copy of those rules. A token this reader does not know fails the export
 * (doc/SPEC.md 20): a new clause must not be dropped in silence.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "export.h"

extern char **environ;

const char *export_target_name(export_target target) {
	switch (target) {
	case EXPORT_TARGET_OCI: return "oci";
	case EXPORT_TARGET_K8S: return "k8s";
	}
	return NULL;
}

int export_target_parse(const char *word, export_target *ret) {
	if (word && strcmp(word, "oci") == 0)
		*ret = EXPORT_TARGET_OCI;
	else if (word && strcmp(word, "k8s") == 0)
		*ret = EXPORT_TARGET_K8S;
	else
		return -EINVAL;
	return 0;
}

static bool is(const char *token, const char *word) {
	return token && strcmp(token, word) == 0;
}

/* The tokens every profile opens with and that the targets express on
 * their own (a fresh /dev and /proc, pid and IPC namespaces, a session,
 * no capabilities, the runtime ends the run with its init). */
static int fixed_token(char **t, size_t *i) {
	static const char *const one[] = { "--unshare-pid", "--unshare-ipc", "--die-with-parent",
		                           "--new-session" };
	for (size_t k = 0; k < sizeof one / sizeof one[0]; k++)
		if (is(t[*i], one[k])) {
			*i += 1;
			return 1;
		}
	if ((is(t[*i], "--dev") && is(t[*i + 1], "/dev")) ||
	    (is(t[*i], "--proc") && is(t[*i + 1], "/proc")) ||
	    (is(t[*i], "--cap-drop") && is(t[*i + 1], "ALL"))) {
		*i += 2;
		return 1;
	}
	/* The root read-only, and /proc/sys read-only over the fresh /proc:
	 * both are part of every target's frame. */
	if (is(t[*i], "--ro-bind") && ((is(t[*i + 1], "/") && is(t[*i + 2], "/")) ||
	                               (is(t[*i + 1], "/proc/sys") && is(t[*i + 2], "/proc/sys")))) {
		*i += 3;
		return 1;
	}
	return 0;
}

static int add_mount(export_plan *plan, export_mount_kind kind, const char *source,
                     const char *destination) {
	export_mount *grown = realloc(plan->mounts, (plan->n_mounts + 1) * sizeof *grown);
	if (!grown)
		return -ENOMEM;
	plan->mounts = grown;
	plan->mounts[plan->n_mounts++] = (export_mount){ kind, source, destination };
	return 0;
}

static int add_mask(export_plan *plan, const char *path, bool is_dir) {
	const char **grown = realloc(plan->masked, (plan->n_masked + 1) * sizeof *grown);
	bool *kinds;
	if (!grown)
		return -ENOMEM;
	plan->masked = grown;
	if (!(kinds = realloc(plan->masked_is_dir, (plan->n_masked + 1) * sizeof *kinds)))
		return -ENOMEM;
	plan->masked_is_dir = kinds;
	plan->masked_is_dir[plan->n_masked] = is_dir;
	plan->masked[plan->n_masked++] = path;
	return 0;
}

/* Reads one variable token at t[*i]; 0 when taken, -EINVAL when unknown. */
static int read_token(export_plan *plan, char **t, size_t *i) {
	if (is(t[*i], "--unshare-net")) {
		plan->private_network = true;
		*i += 1;
		return 0;
	}
	if (is(t[*i], "--tmpfs") && t[*i + 1]) {
		/* `--tmpfs D --remount-ro D`: a denied directory, seen empty. */
		if (is(t[*i + 2], "--remount-ro") && is(t[*i + 3], t[*i + 1])) {
			*i += 4;
			return add_mask(plan, t[*i - 3], true);
		}
		if (is(t[*i + 1], "/tmp")) {
			plan->private_tmp = true;
			*i += 2;
			return add_mount(plan, EXPORT_MOUNT_TMPFS, "tmpfs", "/tmp");
		}
		return -EINVAL;
	}
	if ((is(t[*i], "--bind") || is(t[*i], "--ro-bind") || is(t[*i], "--ro-bind-try")) && t[*i + 1] &&
	    t[*i + 2]) {
		const char *source = t[*i + 1], *destination = t[*i + 2];
		bool writable = is(t[*i], "--bind");
		*i += 3;
		/* `--ro-bind /dev/null F`: a denied file, read as empty. */
		if (!writable && strcmp(source, "/dev/null") == 0 && strcmp(destination, "/dev/null") != 0)
			return add_mask(plan, destination, false);
		return add_mount(plan, writable ? EXPORT_MOUNT_BIND_RW : EXPORT_MOUNT_BIND_RO, source,
		                 destination);
	}
	return -EINVAL;
}

/* The environment after the policy's filter, each name once (the first
 * value: the one getenv(3) reads), every string UTF-8. */
static int make_env(export_plan *plan, char *error, size_t size) {
	char **filtered = NULL;
	size_t n = 0;
	int r = confine_env_filter((const char *const *)environ, &plan->policy->env,
	                           plan->policy->mode, &filtered);
	if (r < 0) {
		snprintf(error, size, "cannot filter the environment: %s", strerror(-r));
		return r;
	}
	for (size_t i = 0; filtered[i]; i++)
		n++;
	if (!(plan->env = calloc(n + 1, sizeof *plan->env))) {
		confine_strv_free(filtered);
		return -ENOMEM;
	}
	n = 0;
	for (size_t i = 0; filtered[i]; i++) {
		size_t name_len = strcspn(filtered[i], "=");
		bool seen = false;
		json_t *check = json_string(filtered[i]);
		if (!check) {
			snprintf(error, size,
			         "environment variable \"%.*s\" is not valid UTF-8 and cannot be written as "
			         "JSON (drop it with --env-exclude)",
			         (int)name_len, filtered[i]);
			confine_strv_free(filtered);
			return -EILSEQ;
		}
		json_decref(check);
		for (size_t k = 0; k < n && !seen; k++)
			seen = strncmp(plan->env[k], filtered[i], name_len + 1) == 0;
		if (!seen)
			plan->env[n++] = filtered[i];
		else
			free(filtered[i]);
		filtered[i] = NULL;
	}
	free(filtered);
	return 0;
}

int export_plan_read(export_plan *plan, char **tokens, char *error, size_t size) {
	size_t i = 0;
	int r;
	plan->tokens = tokens;
	while (tokens[i]) {
		if (fixed_token(tokens, &i))
			continue;
		if ((r = read_token(plan, tokens, &i)) == -EINVAL) {
			snprintf(error, size,
			         "the mount plan holds \"%s\", which the export does not translate (nothing "
			         "was written)",
			         tokens[i]);
			return r;
		}
		if (r < 0)
			return r;
	}
	return 0;
}

int export_plan_make(const confine_policy *policy, char *const *argv, export_plan *ret,
                     char *error, size_t size) {
	char **tokens = NULL;
	int r;

	memset(ret, 0, sizeof *ret);
	ret->policy = policy;
	ret->argv = argv;
	ret->uid = (unsigned)getuid();
	ret->gid = (unsigned)getgid();
	for (size_t k = 0; argv && argv[k]; k++) {
		json_t *check = json_string(argv[k]);
		if (!check) {
			snprintf(error, size, "argument \"%s\" is not valid UTF-8 and cannot be written as JSON",
			         argv[k]);
			return -EILSEQ;
		}
		json_decref(check);
	}
	if ((r = confine_profile_bwrap(policy, &tokens)) < 0) {
		snprintf(error, size, "cannot make the mount plan: %s", strerror(-r));
		return r;
	}
	if ((r = export_plan_read(ret, tokens, error, size)) < 0)
		return r;
	/* A path JSON cannot carry cannot be bound (the bundle would name
	 * another one). */
	for (size_t k = 0; ret->tokens[k]; k++) {
		json_t *check = json_string(ret->tokens[k]);
		if (!check) {
			snprintf(error, size, "the path \"%s\" is not valid UTF-8 and cannot be written as JSON",
			         ret->tokens[k]);
			return -EILSEQ;
		}
		json_decref(check);
	}
	return make_env(ret, error, size);
}

void export_plan_clear(export_plan *plan) {
	if (!plan)
		return;
	confine_strv_free(plan->tokens);
	confine_strv_free(plan->env);
	free(plan->mounts);
	free(plan->masked);
	free(plan->masked_is_dir);
	memset(plan, 0, sizeof *plan);
}
