/* SPDX-License-Identifier: MIT */
/*
 * The landlock-run grants (SPEC 5, 12, 15; doc/POLICY.md): a function from a
 * confined policy to the launcher's --ro / --rw arguments. The writable sink
 * is the file /dev/null, never the directory /dev. The temp area is the
 * run's own directory (policy->temp_dir), never the host's /tmp, where
 * other programs keep their sockets (tmux, X11, ssh-agent). workspace-write
 * also grants the host's /dev/shm (POSIX semaphores: Python
 * multiprocessing), as --rw-shared: writable, but no pathname socket under
 * it is reached (SPEC 15, "Temp areas").
 *
 * denyRead: Landlock only grants, and a right on a directory covers its
 * whole tree, so "everything but D" is expressed by granting read on every
 * sibling along the path from / down to D instead of on / (see
 * read_grants). Entries inside a writable grant cannot be carved out and
 * are reported unenforced.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "launcher-limits.h"
#include "policy-limits.h"
#include "launcher-args.h"
#include "policy-internal.h"
#include "profiles/plan.h"
#include "profiles/stage-roots.h"
#include "rungs/landlock/landlock.h"
#include "test-hooks.h"
#include "util.h"

static bool dev_shm_exists(void) {
	struct stat st;
	return stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode);
}

/* The host's /dev/shm, granted --rw-shared under workspace-write. */
static bool grants_dev_shm(const confine_policy *policy) {
	return policy->mode == CONFINE_MODE_WORKSPACE_WRITE && dev_shm_exists();
}

/* The command's rlimits (doc/SPEC.md 15, "Limits"; the words are
 * src/common/launcher-limits.h's): every limit with one, but the default
 * process limit (RLIMIT_NPROC counts the user's other processes: applied
 * only when asked for) and temp (no rlimit). */
static int limit_tokens(const confine_policy *policy, char ***tokens) {
	static const char *const words[CONFINE_LIMIT_COUNT] = {
		[CONFINE_LIMIT_PIDS] = LAUNCHER_RLIMIT_NPROC,
		[CONFINE_LIMIT_MEMORY] = LAUNCHER_RLIMIT_AS,
		[CONFINE_LIMIT_CPU_SECONDS] = LAUNCHER_RLIMIT_CPU,
		[CONFINE_LIMIT_FILE_SIZE] = LAUNCHER_RLIMIT_FSIZE,
		[CONFINE_LIMIT_OPEN_FILES] = LAUNCHER_RLIMIT_NOFILE,
	};
	int r = 0;
	for (unsigned i = 0; r == 0 && i < CONFINE_LIMIT_COUNT; i++) {
		char word[64];
		if (!words[i] || !policy->limits[i] ||
		    (i == CONFINE_LIMIT_PIDS && !cf_limit_requested(policy, CONFINE_LIMIT_PIDS)))
			continue;
		snprintf(word, sizeof word, "%s=%" PRIu64, words[i], policy->limits[i]);
		r = cf_strv_push(tokens, LAUNCHER_RLIMIT_FLAG);
		if (r == 0)
			r = cf_strv_push(tokens, word);
	}
	return r;
}

/* The --rw grants, in order, and the position of the --rw-shared
 * /dev/shm among them (*shared_at; SIZE_MAX: none). */
static int writable_grants(const confine_policy *policy, const cf_plan *plan, char ***ret,
                           size_t *shared_at) {
	int r = cf_strv_push(ret, "/dev/null");
	*shared_at = SIZE_MAX;
	if (r == 0 && policy->private_temp && policy->temp_dir)
		r = cf_strv_push(ret, policy->temp_dir);
	if (r == 0 && grants_dev_shm(policy)) {
		*shared_at = cf_strv_length((const char *const *)*ret);
		r = cf_strv_push(ret, "/dev/shm");
	}
	for (size_t i = 0; r == 0 && plan->writable[i]; i++)
		r = cf_strv_push(ret, plan->writable[i]);
	return r;
}

bool cf_landlock_under_write_grant(const confine_policy *policy, const cf_plan *plan,
                                   const char *path) {
	char **grants = NULL;
	size_t shared_at;
	bool under = false;
	if (writable_grants(policy, plan, &grants, &shared_at) < 0) {
		confine_strv_free(grants);
		return true; /* out of memory: claim the worst, never "enforced" */
	}
	for (size_t i = 0; grants[i] && !under; i++)
		under = cf_path_at_or_under(path, grants[i]);
	confine_strv_free(grants);
	return under;
}

typedef struct expansion {
	char *const *deny; /* the enforceable entries */
	char ***grants;
	size_t count;
} expansion;

static bool is_strict_ancestor(const char *dir, const char *path) {
	return strcmp(dir, path) != 0 && cf_path_at_or_under(path, dir);
}

/* Grants read on everything in `dir` except the denied entries, descending
 * into the directories that lie on the way to one. Symlinks get no rule of
 * their own: the launcher opens a rule path following links, so a link to a
 * denied directory would grant it; what a link points to is granted (or
 * not) where it lives. A directory that cannot be listed fails the whole
 * profile: -errno (never a silently wider grant). */
static int by_name(const struct dirent **a, const struct dirent **b) {
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int read_grants(expansion *x, const char *dir) {
	struct dirent **entries = NULL;
	int n_entries;
	int r;
	/* The directory on the way stays listable (issue 28.4): read-directory
	 * alone, which the kernel inherits downward, so the denied entry's
	 * names show too, never its files (SPEC 15, "denyRead"). */
	if (++x->count > LAUNCHER_READ_GRANTS_MAX)
		return -E2BIG;
	r = cf_strv_push(x->grants, LAUNCHER_ARG_RO_LIST);
	if (r == 0)
		r = cf_strv_push(x->grants, dir);
	if (r < 0)
		return r;
	n_entries = scandir(dir, &entries, NULL, by_name); /* sorted: stable tokens */
	if (n_entries < 0)
		return errno == ENOMEM ? -ENOMEM : -errno;
	for (int k = 0; k < n_entries && r == 0; k++) {
		const struct dirent *entry = entries[k];
		char path[PATH_MAX];
		bool denied = false, on_the_way = false;
		struct stat st;
		int n;
		if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
			continue;
		n = snprintf(path, sizeof path, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir,
		             entry->d_name);
		if (n < 0 || (size_t)n >= sizeof path) {
			r = -ENAMETOOLONG;
			break;
		}
		for (size_t i = 0; x->deny[i]; i++) {
			denied = denied || strcmp(path, x->deny[i]) == 0;
			on_the_way = on_the_way || is_strict_ancestor(path, x->deny[i]);
		}
		if (denied)
			continue;
		if (lstat(path, &st) < 0 || S_ISLNK(st.st_mode))
			continue; /* vanished, or a link (see above) */
		if (on_the_way && S_ISDIR(st.st_mode)) {
			r = read_grants(x, path);
			continue;
		}
		if (++x->count > LAUNCHER_READ_GRANTS_MAX) {
			r = -E2BIG;
			break;
		}
		/* an entry of a directory listed now may be gone when the launcher
		 * opens it: --ro-try skips it then (narrower, never wider) */
		r = cf_strv_push(x->grants, LAUNCHER_ARG_RO_TRY);
		if (r == 0)
			r = cf_strv_push(x->grants, path);
	}
	for (int k = 0; k < n_entries; k++)
		free(entries[k]);
	free(entries);
	return r;
}

int cf_landlock_read_grants(const char *top, char *const *deny, char ***tokens) {
	expansion x = { .deny = deny, .grants = tokens, .count = 0 };
	return read_grants(&x, top);
}

static int landlock_tokens(const confine_policy *policy, const cf_plan *plan, char ***tokens) {
	char **writable = NULL;
	char **enforceable = NULL;
	size_t shared_at = SIZE_MAX;
	int r = 0;

	for (size_t i = 0; r == 0 && i < plan->n_deny; i++)
		if (strcmp(plan->deny[i], "/") != 0 &&
		    !cf_landlock_under_write_grant(policy, plan, plan->deny[i]))
			r = cf_strv_push(&enforceable, plan->deny[i]);
	if (r == 0) {
		if (enforceable) {
			r = cf_landlock_read_grants("/", enforceable, tokens);
		} else {
			r = cf_strv_push(tokens, LAUNCHER_ARG_RO);
			if (r == 0)
				r = cf_strv_push(tokens, "/");
		}
	}
	if (r == 0)
		r = writable_grants(policy, plan, &writable, &shared_at);
	for (size_t i = 0; r == 0 && writable[i]; i++) {
		r = cf_strv_push(tokens, i == shared_at ? LAUNCHER_ARG_RW_SHARED : LAUNCHER_ARG_RW);
		if (r == 0)
			r = cf_strv_push(tokens, writable[i]);
	}
	/* Landlock's TCP rights with no rule, plus seccomp refusing every socket
	 * family but AF_UNIX (the launcher's D3 option). */
	if (r == 0 && policy->network == CONFINE_NETWORK_OFF)
		r = cf_strv_push(tokens, LAUNCHER_ARG_DENY_NETWORK);
	/* Off fails fast (doc/SPEC.md 15): the launcher's proxy with no host
	 * answers every request 403 "network is off", where the supervisor
	 * and Landlock ABI 4 can hold it; else the network is off as before. */
	if (r == 0 && policy->network == CONFINE_NETWORK_OFF &&
	    !confine_policy_network_allowlist(policy))
		r = cf_strv_push(tokens, LAUNCHER_ARG_PROXY_OFF);
	/* The network allowlist: the launcher hosts the proxy and lets the
	 * command reach it alone (doc/SPEC.md 15, "Network allowlist"). */
	if (r == 0 && confine_policy_network_allowlist(policy)) {
		const char *hosts = cf_test_proxy_hosts(); /* NULL but in test builds */
		for (size_t i = 0; r == 0 && policy->network_allow && policy->network_allow[i]; i++) {
			r = cf_strv_push(tokens, LAUNCHER_ARG_PROXY_ALLOW);
			if (r == 0)
				r = cf_strv_push(tokens, policy->network_allow[i]);
		}
		for (size_t i = 0; r == 0 && policy->network_deny && policy->network_deny[i]; i++) {
			r = cf_strv_push(tokens, LAUNCHER_ARG_PROXY_DENY);
			if (r == 0)
				r = cf_strv_push(tokens, policy->network_deny[i]);
		}
		if (r == 0 && policy->network_allow_local)
			r = cf_strv_push(tokens, LAUNCHER_ARG_PROXY_ALLOW_LOCAL);
		/* Test-only (doc/SPEC.md 15): a hosts-format file the proxy reads
		 * as it reads /etc/hosts, so the tests' names reach a loopback
		 * origin. It only says where names are; the allowlist and the
		 * local-address check still decide. */
		if (r == 0 && hosts) {
			r = cf_strv_push(tokens, LAUNCHER_ARG_PROXY_HOSTS);
			if (r == 0)
				r = cf_strv_push(tokens, hosts);
		}
	}
	/* The supervisor's allowances (pathname sockets outside the grants),
	 * and requireFull: no run without the supervisor (doc/SPEC.md 13). */
	for (size_t i = 0; r == 0 && policy->allow_unix_sockets && policy->allow_unix_sockets[i];
	     i++) {
		r = cf_strv_push(tokens, LAUNCHER_ARG_ALLOW_UNIX_SOCKET);
		if (r == 0)
			r = cf_strv_push(tokens, policy->allow_unix_sockets[i]);
	}
	if (r == 0 && policy->require_full)
		r = cf_strv_push(tokens, LAUNCHER_ARG_REQUIRE_SUPERVISOR);
	/* A staged run: the launcher mounts overlayfs over each writable root
	 * (one inside another is covered by the outer one), the upper layer
	 * in the stage (doc/SPEC.md 21). Same roots as confine_stage_create. */
	if (r == 0 && policy->stage_dir && policy->mode == CONFINE_MODE_WORKSPACE_WRITE) {
		char **roots = NULL;
		r = cf_strv_push(tokens, LAUNCHER_ARG_STAGE);
		if (r == 0)
			r = cf_strv_push(tokens, policy->stage_dir);
		if (r == 0)
			r = cf_stage_roots(plan, &roots);
		for (size_t i = 0; r == 0 && roots && roots[i]; i++) {
			r = cf_strv_push(tokens, LAUNCHER_ARG_STAGE_ROOT);
			if (r == 0)
				r = cf_strv_push(tokens, roots[i]);
		}
		confine_strv_free(roots);
	}
	if (r == 0)
		r = limit_tokens(policy, tokens);
	/* limits.temp: the launcher makes the temp area a tmpfs of that size
	 * (bwrap's /tmp inside bwrap, else the run's own directory). */
	if (r == 0 && policy->limits[CONFINE_LIMIT_TEMP] && policy->private_temp &&
	    policy->temp_dir) {
		char word[PATH_MAX + 32];
		if ((size_t)snprintf(word, sizeof word, "%" PRIu64 ":%s",
		                     policy->limits[CONFINE_LIMIT_TEMP], policy->temp_dir) >= sizeof word)
			r = -ENAMETOOLONG;
		if (r == 0)
			r = cf_strv_push(tokens, LAUNCHER_ARG_TEMP_SIZE);
		if (r == 0)
			r = cf_strv_push(tokens, word);
		/* The granted /dev/shm sized and private too, where no path of
		 * the policy lies in it (F6). */
		if (r == 0 && grants_dev_shm(policy) && cf_policy_private_shm(policy))
			r = cf_strv_push(tokens, LAUNCHER_ARG_PRIVATE_SHM);
	}
	confine_strv_free(writable);
	confine_strv_free(enforceable);
	return r;
}

int confine_profile_landlock(const confine_policy *policy, char ***ret) {
	cf_plan plan;
	char **tokens = NULL;
	int r;

	if (!ret)
		return -EINVAL;
	r = cf_plan_make(policy, 0, &plan);
	if (r < 0)
		return r;
	r = landlock_tokens(policy, &plan, &tokens);
	cf_plan_clear(&plan);
	if (r < 0) {
		confine_strv_free(tokens);
		return r;
	}
	*ret = tokens;
	return 0;
}
