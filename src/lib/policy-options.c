/* SPDX-License-Identifier: MIT */
/*
 * The policy beyond mode and root (issue 16, SPEC 12.7): writable roots,
 * protected paths, denyRead, network, unix sockets, the environment,
 * requireFull and the private temp area. Ownership, deep copy and the
 * appenders (copy, check, canonicalize); the whole-policy validation is
 * policy-validate.c's.
 * Messages name the config key and the value, so the same text serves the
 * library, the config file and the CLI.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "host-pattern.h"
#include "later.h"
#include "policy-internal.h"
#include "util.h"

#define STAGE "policy"

static int options_oom(confine_error *err) {
	return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, STAGE, ENOMEM,
	                    "out of memory while building the policy");
}

static int invalid(confine_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int invalid(confine_error *err, const char *fmt, ...) {
	char message[CONFINE_ERROR_MESSAGE_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0, "%s", message);
}

/* ------------------------------------------------------------------------ */
/* Names                                                                    */

const char *confine_network_name(confine_network network) {
	switch (network) {
	case CONFINE_NETWORK_ON: return "on";
	case CONFINE_NETWORK_OFF: return "off";
	}
	return NULL;
}

int confine_network_parse(const char *text, confine_network *ret, confine_error *err) {
	if (text && strcmp(text, "on") == 0) {
		*ret = CONFINE_NETWORK_ON;
		return 0;
	}
	if (text && strcmp(text, "off") == 0) {
		*ret = CONFINE_NETWORK_OFF;
		return 0;
	}
	return invalid(err, "network \"%s\" is not a network setting (expected on or off)",
	               text ? text : "(null)");
}

const char *confine_env_inherit_name(confine_env_inherit inherit) {
	switch (inherit) {
	case CONFINE_ENV_INHERIT_ALL: return "all";
	case CONFINE_ENV_INHERIT_NONE: return "none";
	}
	return NULL;
}

int confine_env_inherit_parse(const char *text, confine_env_inherit *ret, confine_error *err) {
	if (text && strcmp(text, "all") == 0) {
		*ret = CONFINE_ENV_INHERIT_ALL;
		return 0;
	}
	if (text && strcmp(text, "none") == 0) {
		*ret = CONFINE_ENV_INHERIT_NONE;
		return 0;
	}
	return invalid(err, "env.inherit \"%s\" is not an inherit setting (expected all or none)",
	               text ? text : "(null)");
}

/* ------------------------------------------------------------------------ */
/* Ownership                                                                */

void cf_policy_set_defaults(confine_policy *policy) {
	policy->default_protections = true;
	policy->env.default_excludes = true;
	/* read-only gets a private temp area on every rung (doc/SPEC.md 15). */
	policy->private_temp = true;
	/* A fork bomb stops at the run's own cgroup (doc/SPEC.md 15, "Limits"). */
	policy->limits[CONFINE_LIMIT_PIDS] = CONFINE_DEFAULT_MAX_PIDS;
}

void cf_policy_clear(confine_policy *policy) {
	if (!policy)
		return;
	free(policy->workspace_root);
	confine_strv_free(policy->writable_roots);
	confine_strv_free(policy->writable_roots_missing);
	confine_strv_free(policy->protected_paths);
	confine_strv_free(policy->unprotect);
	confine_strv_free(policy->deny_read);
	confine_strv_free(policy->allow_unix_sockets);
	confine_strv_free(policy->network_allow);
	confine_strv_free(policy->network_deny);
	confine_strv_free(policy->env.include);
	confine_strv_free(policy->env.exclude);
	confine_strv_free(policy->env.set);
	free(policy->temp_dir);
	free(policy->stage_dir);
	memset(policy, 0, sizeof *policy);
}

void confine_policy_free(confine_policy *policy) {
	if (!policy)
		return;
	cf_policy_clear(policy);
	free(policy);
}

/* A copy of a list that may be NULL (and stays NULL). */
static int copy_list(char ***dst, char *const *src) {
	if (!src)
		return 0;
	*dst = cf_strv_copy((const char *const *)src);
	return *dst ? 0 : -ENOMEM;
}

static int copy_string(char **dst, const char *src) {
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

int cf_policy_copy_into(confine_policy *dst, const confine_policy *src) {
	memset(dst, 0, sizeof *dst);
	dst->mode = src->mode;
	dst->default_protections = src->default_protections;
	dst->network = src->network;
	dst->env.inherit = src->env.inherit;
	dst->env.default_excludes = src->env.default_excludes;
	dst->require_full = src->require_full;
	dst->private_temp = src->private_temp;
	dst->network_allow_local = src->network_allow_local;
	dst->network_ask = src->network_ask;
	memcpy(dst->limits, src->limits, sizeof dst->limits);
	dst->limits_given = src->limits_given;
	if (copy_string(&dst->workspace_root, src->workspace_root) < 0 ||
	    copy_list(&dst->writable_roots, src->writable_roots) < 0 ||
	    copy_list(&dst->writable_roots_missing, src->writable_roots_missing) < 0 ||
	    copy_list(&dst->protected_paths, src->protected_paths) < 0 ||
	    copy_list(&dst->unprotect, src->unprotect) < 0 ||
	    copy_list(&dst->deny_read, src->deny_read) < 0 ||
	    copy_list(&dst->allow_unix_sockets, src->allow_unix_sockets) < 0 ||
	    copy_list(&dst->network_allow, src->network_allow) < 0 ||
	    copy_list(&dst->network_deny, src->network_deny) < 0 ||
	    copy_list(&dst->env.include, src->env.include) < 0 ||
	    copy_list(&dst->env.exclude, src->env.exclude) < 0 ||
	    copy_list(&dst->env.set, src->env.set) < 0 ||
	    copy_string(&dst->temp_dir, src->temp_dir) < 0 ||
	    copy_string(&dst->stage_dir, src->stage_dir) < 0) {
		cf_policy_clear(dst);
		return -ENOMEM;
	}
	return 0;
}

int confine_policy_copy(const confine_policy *policy, confine_policy **ret) {
	confine_policy *copy;
	if (!policy || !ret)
		return -EINVAL;
	copy = calloc(1, sizeof *copy);
	if (!copy)
		return -ENOMEM;
	if (cf_policy_copy_into(copy, policy) < 0) {
		free(copy);
		return -ENOMEM;
	}
	*ret = copy;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Appenders                                                                */

bool cf_path_at_or_under(const char *inner, const char *outer) {
	size_t n = strlen(outer);
	if (strcmp(outer, "/") == 0)
		return inner[0] == '/';
	return strncmp(inner, outer, n) == 0 && (inner[n] == '\0' || inner[n] == '/');
}

static bool list_has(char *const *list, const char *s) {
	for (size_t i = 0; list && list[i]; i++)
		if (strcmp(list[i], s) == 0)
			return true;
	return false;
}

/* Appends `owned` (taking it) unless already listed. */
static int append_owned(char ***list, char *owned, confine_error *err) {
	size_t n = cf_strv_length((const char *const *)*list);
	char **grown;
	if (list_has(*list, owned)) {
		free(owned);
		return 0;
	}
	grown = realloc(*list, (n + 2) * sizeof *grown);
	if (!grown) {
		free(owned);
		return options_oom(err);
	}
	grown[n] = owned;
	grown[n + 1] = NULL;
	*list = grown;
	return 0;
}

static int need_policy(const confine_policy *policy, const char *value, const char *what,
                       confine_error *err) {
	if (!policy)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "%s: the policy is NULL", what);
	if (!value)
		return invalid(err, "%s: the value is NULL", what);
	return 0;
}

int confine_policy_add_writable_root(confine_policy *policy, const char *path,
                                     confine_error *err) {
	char *canonical = NULL;
	int r = need_policy(policy, path, "writableRoots", err);
	if (r < 0)
		return r;
	r = cf_canonicalize_root(CONFINE_MODE_WORKSPACE_WRITE, "writableRoots entry", path, "", true,
	                         &canonical, err);
	if (r == -ENOENT) {
		/* Nothing there to write: skipped, and its clause says so (SPEC
		 * 15), the same at every door. Any other refusal stands. */
		canonical = cf_canonicalize_loosely(path);
		if (!canonical)
			return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, STAGE, ENOMEM,
			                    "out of memory");
		if (err)
			memset(err, 0, sizeof *err);
		return append_owned(&policy->writable_roots_missing, canonical, err);
	}
	if (r < 0)
		return r;
	return append_owned(&policy->writable_roots, canonical, err);
}

/* An absolute path, canonicalized as far as it exists. */
static int absolute_loosely(const char *key, const char *path, char **ret, confine_error *err) {
	if (!path[0])
		return invalid(err, "%s entry \"\" is empty: it must be an absolute path", key);
	if (path[0] != '/')
		return invalid(err, "%s entry \"%s\" is relative: it must be an absolute path", key,
		               path);
	*ret = cf_canonicalize_loosely(path);
	return *ret ? 0 : options_oom(err);
}

/* A relative pattern: no `..` component (it matches inside each root
 * only). */
int cf_check_relative_pattern(const char *key, const char *pattern, confine_error *err) {
	const char *p = pattern;
	/* "~/.ssh" is meant as the home directory, which no path here expands. */
	if (pattern[0] == '~')
		return invalid(err,
		               "%s entry \"%s\" starts with \"~\", which is not expanded: give the "
		               "absolute path",
		               key, pattern);
	while (*p) {
		const char *seg = p;
		while (*p && *p != '/')
			p++;
		if (p - seg == 2 && seg[0] == '.' && seg[1] == '.')
			return invalid(err,
			               "%s pattern \"%s\" climbs out with \"..\": a relative pattern "
			               "matches inside the workspace and writable roots",
			               key, pattern);
		while (*p == '/')
			p++;
	}
	return 0;
}

/* A relative protected path: no `..` (it must stay inside each root), not
 * the root itself; normalized (no `.`, repeated or trailing slashes). */
int cf_check_relative_protected(const char *path, confine_error *err) {
	const char *p = path;
	while (*p) {
		const char *seg = p;
		size_t len;
		while (*p && *p != '/')
			p++;
		len = (size_t)(p - seg);
		if (len == 2 && seg[0] == '.' && seg[1] == '.')
			return invalid(err,
			               "protectedPaths entry \"%s\" climbs out with \"..\": a relative "
			               "entry names a path inside each writable root",
			               path);
		while (*p == '/')
			p++;
	}
	return 0;
}

static int normalize_relative(const char *path, char **ret, confine_error *err) {
	char *rooted, *normal;
	int r = cf_check_relative_protected(path, err);
	if (r < 0)
		return r;
	if (asprintf(&rooted, "/%s", path) < 0)
		return options_oom(err);
	normal = cf_normalize_lexically(rooted);
	free(rooted);
	if (!normal)
		return options_oom(err);
	if (strcmp(normal, "/") == 0) {
		free(normal);
		return invalid(err,
		               "protectedPaths entry \"%s\" names the writable root itself: a root "
		               "that may not be written is not a writable root",
		               path);
	}
	/* Drop the leading slash again: relative to each root. */
	memmove(normal, normal + 1, strlen(normal));
	*ret = normal;
	return 0;
}

int confine_policy_add_protected_path(confine_policy *policy, const char *path,
                                      confine_error *err) {
	char *stored = NULL;
	int r = need_policy(policy, path, "protectedPaths", err);
	if (r < 0)
		return r;
	if (!path[0])
		return invalid(err, "protectedPaths entry \"\" is empty");
	r = path[0] == '/' ? absolute_loosely("protectedPaths", path, &stored, err)
	                   : normalize_relative(path, &stored, err);
	if (r < 0)
		return r;
	return append_owned(&policy->protected_paths, stored, err);
}

int confine_policy_add_unprotect(confine_policy *policy, const char *name, confine_error *err) {
	const cf_later_entry *e;
	int r = need_policy(policy, name, "unprotect", err);
	if (r < 0)
		return r;
	if ((r = cf_later_check_unprotect(name, err)) < 0)
		return r;
	e = cf_later_lookup(name);
	for (size_t i = 0; policy->unprotect && policy->unprotect[i]; i++)
		if (cf_later_lookup(policy->unprotect[i]) == e)
			return 0; /* named once already */
	return cf_strv_push(&policy->unprotect, e->name) < 0 ? options_oom(err) : 0;
}

int confine_policy_add_deny_read(confine_policy *policy, const char *path, confine_error *err) {
	char *stored = NULL;
	int r = need_policy(policy, path, "denyRead", err);
	if (r < 0)
		return r;
	if (!path[0])
		return invalid(err, "denyRead entry \"\" is empty: it must be a path or a pattern");
	/* `~/x` is that path under $HOME, at every door (doc/SPEC.md 15). */
	if (path[0] == '~' && path[1] == '/') {
		const char *home = getenv("HOME");
		char *joined;
		if (!home || home[0] != '/')
			return invalid(err, "denyRead entry \"%s\" starts with \"~/\", but $HOME is not "
			               "an absolute path: give the absolute path", path);
		if (asprintf(&joined, "%s%s", home, path + 1) < 0)
			return options_oom(err);
		r = absolute_loosely("denyRead", joined, &stored, err);
		free(joined);
		if (r < 0)
			return r;
		return append_owned(&policy->deny_read, stored, err);
	}
	/* A relative entry is a gitignore-style pattern under every root, at
	 * any depth when it has no slash (doc/SPEC.md 15): `.env`, `*.pem`,
	 * `secrets/`. No door joins it to a current directory. */
	if (path[0] != '/') {
		if ((r = cf_check_relative_pattern("denyRead", path, err)) < 0)
			return r;
		if (!(stored = strdup(path)))
			return options_oom(err);
	} else if ((r = absolute_loosely("denyRead", path, &stored, err)) < 0) {
		return r;
	}
	return append_owned(&policy->deny_read, stored, err);
}

int confine_policy_add_unix_socket(confine_policy *policy, const char *path, confine_error *err) {
	char *stored = NULL;
	int r = need_policy(policy, path, "allowUnixSockets", err);
	if (r == 0)
		r = absolute_loosely("allowUnixSockets", path, &stored, err);
	if (r < 0)
		return r;
	return append_owned(&policy->allow_unix_sockets, stored, err);
}

/* ---- network allowlist (doc/SPEC.md 15, "Network allowlist") ---- */

/* The decision is host-pattern.c's, shared with the launcher's proxy; the
 * words are the library's. */
int confine_host_pattern_check(const char *key, const char *pattern, confine_error *err) {
	char bad = '?';
	if (!pattern)
		pattern = "";
	switch (host_pattern_check(pattern, &bad)) {
	case HOST_PATTERN_OK:
		return 0;
	case HOST_PATTERN_EMPTY:
		return invalid(err, "%s entry \"\" is empty: name a host (example.org or "
		               "*.example.org)", key);
	case HOST_PATTERN_SCHEME:
		return invalid(err, "%s entry \"%s\" has a scheme: name the host only "
		               "(example.org)", key, pattern);
	case HOST_PATTERN_PATH:
		return invalid(err, "%s entry \"%s\" is an address range or a path: name a host "
		               "(example.org or *.example.org)", key, pattern);
	case HOST_PATTERN_IPV6:
		return invalid(err, "%s entry \"%s\" is an IPv6 address: name a host "
		               "(example.org)", key, pattern);
	case HOST_PATTERN_PORT:
		return invalid(err, "%s entry \"%s\" has a port: name the host only (every port "
		               "of an allowed host is reachable through the proxy)", key, pattern);
	case HOST_PATTERN_NOT_A_NAME:
		return invalid(err, "%s entry \"%s\" is not a host name (at most %d bytes)", key,
		               pattern, HOST_NAME_LENGTH_MAX);
	case HOST_PATTERN_ADDRESS:
		return invalid(err, "%s entry \"%s\" is an IP address: name a host (the proxy "
		               "allows names, and refuses addresses)", key, pattern);
	case HOST_PATTERN_EMPTY_LABEL:
		return invalid(err, "%s entry \"%s\" has an empty label", key, pattern);
	case HOST_PATTERN_WILDCARD:
		return invalid(err, "%s entry \"%s\": a wildcard is only \"*.\" at the start "
		               "(*.example.org)", key, pattern);
	case HOST_PATTERN_BAD_CHAR:
		return invalid(err, "%s entry \"%s\" holds \"%c\", which no host name has", key,
		               pattern, bad);
	case HOST_PATTERN_LONG_LABEL:
		return invalid(err, "%s entry \"%s\" has a label longer than %d", key, pattern,
		               HOST_LABEL_LENGTH_MAX);
	case HOST_PATTERN_TRAILING_DOT:
		return invalid(err, "%s entry \"%s\" ends with a dot", key, pattern);
	case HOST_PATTERN_HYPHEN_EDGE:
		return invalid(err, "%s entry \"%s\" has a label that begins or ends with \"-\", "
		               "which no host name has", key, pattern);
	}
	return invalid(err, "%s entry \"%s\" is not a host name", key, pattern);
}

bool confine_host_pattern_match(const char *pattern, const char *host) {
	return host_pattern_match(pattern, host);
}

bool confine_policy_network_allowlist(const confine_policy *policy) {
	return policy && policy->network == CONFINE_NETWORK_OFF &&
	       ((policy->network_allow && policy->network_allow[0]) || policy->network_ask);
}

static int add_host(char ***list, const char *key, confine_policy *policy, const char *pattern,
                    confine_error *err) {
	char *copy;
	int r = need_policy(policy, pattern, key, err);
	if (r == 0)
		r = confine_host_pattern_check(key, pattern, err);
	if (r < 0)
		return r;
	copy = strdup(pattern);
	if (!copy)
		return options_oom(err);
	for (char *c = copy; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	return append_owned(list, copy, err);
}

int confine_policy_add_allow_host(confine_policy *policy, const char *pattern,
                                  confine_error *err) {
	return add_host(policy ? &policy->network_allow : NULL, "network.allow", policy, pattern,
	                err);
}

int confine_policy_add_deny_host(confine_policy *policy, const char *pattern,
                                 confine_error *err) {
	return add_host(policy ? &policy->network_deny : NULL, "network.deny", policy, pattern,
	                err);
}

static int add_pattern(char ***list, const char *key, const confine_policy *policy,
                       const char *pattern, confine_error *err) {
	char *copy;
	int r = need_policy(policy, pattern, key, err);
	if (r == 0)
		r = cf_env_check_pattern(key, pattern, true, err);
	if (r < 0)
		return r;
	copy = strdup(pattern);
	if (!copy)
		return options_oom(err);
	return append_owned(list, copy, err);
}

int confine_policy_add_env_include(confine_policy *policy, const char *pattern,
                                   confine_error *err) {
	return add_pattern(policy ? &policy->env.include : NULL, "env.include", policy, pattern, err);
}

int confine_policy_add_env_exclude(confine_policy *policy, const char *pattern,
                                   confine_error *err) {
	return add_pattern(policy ? &policy->env.exclude : NULL, "env.exclude", policy, pattern, err);
}

int confine_policy_add_env_set(confine_policy *policy, const char *assignment,
                               confine_error *err) {
	size_t name_len;
	char *copy;
	int r = need_policy(policy, assignment, "env.set", err);
	if (r == 0)
		r = cf_env_check_assignment(assignment, err);
	if (r < 0)
		return r;
	copy = strdup(assignment);
	if (!copy)
		return options_oom(err);
	/* A later NAME=... replaces the earlier one, in place. */
	name_len = (size_t)(strchr(assignment, '=') - assignment) + 1;
	for (size_t i = 0; policy->env.set && policy->env.set[i]; i++)
		if (strncmp(policy->env.set[i], assignment, name_len) == 0) {
			free(policy->env.set[i]);
			policy->env.set[i] = copy;
			return 0;
		}
	return append_owned(&policy->env.set, copy, err);
}
