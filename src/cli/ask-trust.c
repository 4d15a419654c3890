/* SPDX-License-Identifier: MIT */
/*
 * What the decider may trust (ask-trust.h): the places the confined
 * command may write, whether a path could be replaced by another user,
 * and the environment the decider runs with (red team R4-F1: a decider
 * script ran `grep` from a `.venv/bin` on the caller's PATH that the run
 * had planted, unconfined, during the run).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ask-trust.h"

extern char **environ;

bool cli_trust_at_or_under(const char *path, const char *root) {
	size_t n = strlen(root);
	if (n == 1 && root[0] == '/')
		return true;
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* `path` at or under `root`: by name and by identity (a bind mount of the
 * root is the root), the library's one rule (confine_path_within). */
static bool under_root(const char *path, const char *root) {
	return confine_path_within(path, root);
}

const char *cli_trust_writable_area(const confine_policy *policy, const char *path) {
	bool granted = policy->mode == CONFINE_MODE_WORKSPACE_WRITE;
	if (granted && policy->workspace_root && under_root(path, policy->workspace_root))
		return policy->workspace_root;
	/* Writable roots are granted under workspace-write alone (under
	 * read-only they are "not granted", doc/SPEC.md 10). */
	for (size_t i = 0; granted && policy->writable_roots && policy->writable_roots[i]; i++)
		if (under_root(path, policy->writable_roots[i]))
			return policy->writable_roots[i];
	for (size_t i = 0; granted && policy->writable_roots_missing && policy->writable_roots_missing[i];
	     i++)
		if (under_root(path, policy->writable_roots_missing[i]))
			return policy->writable_roots_missing[i];
	if (policy->temp_dir && under_root(path, policy->temp_dir))
		return policy->temp_dir;
	/* The Landlock rung's workspace-write grants the host's /dev/shm
	 * (doc/SPEC.md 15): one more place the command may write. */
	if (policy->mode == CONFINE_MODE_WORKSPACE_WRITE && under_root(path, "/dev/shm"))
		return "/dev/shm";
	return NULL;
}

static bool on_device(const char *path, dev_t dev) {
	struct stat st;
	return path && stat(path, &st) == 0 && st.st_dev == dev;
}

const char *cli_trust_writable_on_device(const confine_policy *policy, dev_t dev) {
	if (policy->mode == CONFINE_MODE_WORKSPACE_WRITE && on_device(policy->workspace_root, dev))
		return policy->workspace_root;
	for (size_t i = 0; policy->mode == CONFINE_MODE_WORKSPACE_WRITE && policy->writable_roots &&
	                   policy->writable_roots[i];
	     i++)
		if (on_device(policy->writable_roots[i], dev))
			return policy->writable_roots[i];
	if (on_device(policy->temp_dir, dev))
		return policy->temp_dir;
	if (policy->mode == CONFINE_MODE_WORKSPACE_WRITE && on_device("/dev/shm", dev))
		return "/dev/shm";
	return NULL;
}

bool cli_trust_owned_safely(const char *real, char *why, size_t size) {
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s", real);
	for (;;) {
		struct stat st;
		char *slash;
		bool sticky_root, foreign;
		if (stat(path, &st) < 0) {
			snprintf(why, size, "%s cannot be examined: %s", path, strerror(errno));
			return false;
		}
		/* A sticky directory of root's writable by all (/tmp) lets no
		 * one but an entry's owner rename or remove it: an ancestor
		 * that cannot be swapped under the decider. */
		sticky_root = strcmp(path, real) != 0 && st.st_uid == 0 && S_ISDIR(st.st_mode) &&
		              (st.st_mode & S_ISVTX);
		foreign = st.st_uid != 0 && st.st_uid != geteuid();
		if (!sticky_root && foreign) {
			snprintf(why, size, "%s is owned by uid %u, neither root nor the caller", path,
			         (unsigned)st.st_uid);
			return false;
		}
		if (!sticky_root && (st.st_mode & (S_IWGRP | S_IWOTH))) {
			snprintf(why, size, "%s is writable by group or others", path);
			return false;
		}
		if (strcmp(path, "/") == 0)
			return true;
		slash = strrchr(path, '/');
		if (slash == path)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

/* A PATH entry the decider may search: absolute, an existing directory,
 * in no place the command may write, replaceable by no other user. */
static bool path_entry_kept(const confine_policy *policy, const char *entry) {
	char real[PATH_MAX], why[PATH_MAX + 128];
	struct stat st;
	if (entry[0] != '/' || !realpath(entry, real) || stat(real, &st) < 0 || !S_ISDIR(st.st_mode))
		return false;
	return !cli_trust_writable_area(policy, entry) && !cli_trust_writable_area(policy, real) &&
	       cli_trust_owned_safely(real, why, sizeof why);
}

/* Whether some absolute path in `value` (split at ':', '=', ',', ';' and
 * white space) lies where the command may write. */
static bool names_writable_place(const confine_policy *policy, const char *value) {
	char token[PATH_MAX], real[PATH_MAX];
	const char *p = value;
	while (*p) {
		size_t len = strcspn(p, ":=,; \t\n");
		if (len > 0 && p[0] == '/' && len < sizeof token) {
			memcpy(token, p, len);
			token[len] = '\0';
			if (cli_trust_writable_area(policy, token) ||
			    (realpath(token, real) && cli_trust_writable_area(policy, real)))
				return true;
		}
		p += len;
		if (*p)
			p++;
	}
	return false;
}

/* PATH's kept entries, "PATH=" first (the system's own directories when
 * none is kept); NULL when out of memory. */
static char *filtered_path(const confine_policy *policy, const char *value) {
	static const char fallback[] = "PATH=/usr/bin:/bin";
	size_t cap = strlen(value) + sizeof fallback, n = 5;
	char *out = malloc(cap), entry[PATH_MAX];
	const char *p = value;
	if (!out)
		return NULL;
	memcpy(out, "PATH=", 6);
	while (*p) {
		size_t len = strcspn(p, ":");
		if (len < sizeof entry) {
			memcpy(entry, p, len);
			entry[len] = '\0';
			if (path_entry_kept(policy, entry)) {
				if (n > 5)
					out[n++] = ':';
				memcpy(out + n, entry, len + 1);
				n += len;
			}
		}
		p += len;
		if (*p)
			p++;
	}
	if (n == 5)
		memcpy(out, fallback, sizeof fallback);
	return out;
}

int cli_ask_env_make(const confine_policy *policy, char ***ret) {
	size_t count = 0, k = 0;
	char **env;
	bool path_seen = false;
	for (char **e = environ; e && *e; e++)
		count++;
	env = calloc(count + 3, sizeof *env);
	if (!env)
		return -ENOMEM;
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		char *kept;
		if (!eq)
			continue;
		if (strncmp(*e, "PATH=", 5) == 0) {
			kept = filtered_path(policy, eq + 1);
			path_seen = true;
		} else if (strncmp(*e, "PWD=", 4) == 0 || strncmp(*e, "OLDPWD=", 7) == 0 ||
		           names_writable_place(policy, eq + 1)) {
			continue; /* PWD is set below; the rest is the run's to plant */
		} else {
			kept = strdup(*e);
		}
		if (!kept)
			goto oom;
		env[k++] = kept;
	}
	if (!path_seen && !(env[k++] = strdup("PATH=/usr/bin:/bin")))
		goto oom;
	if (!(env[k++] = strdup("PWD=/")))
		goto oom;
	env[k] = NULL;
	*ret = env;
	return 0;
oom:
	for (size_t i = 0; i < k; i++)
		free(env[i]);
	free(env);
	return -ENOMEM;
}
