/* SPDX-License-Identifier: MIT */
/*
 * The private temp area of a confined run on the rungs without a mount
 * namespace (doc/SPEC.md 15): made before the argv is built (it must be
 * granted), exported as TMPDIR and removed with its contents by the
 * spawner once the run is over.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spawn/spawn.h"

/* Nesting deeper than this inside a temp dir is left behind rather than
 * recursed into without bound. */
#define TEMP_REMOVE_MAX_DEPTH 128

static const char *env_value(const char *const *envp, const char *name) {
	size_t n = strlen(name);
	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
			return envp[i] + n + 1;
	return NULL;
}

int confine_policy_make_temp_dir(confine_policy *policy, const char *const *envp,
                                 confine_error *err) {
	const char *base;
	char template[PATH_MAX];
	struct stat st;
	char *real;
	if (!policy)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
		                    "making a temp directory needs a policy");
	if (!confine_mode_is_confined(policy->mode) || !policy->private_temp || policy->temp_dir)
		return 0;
	base = envp ? env_value(envp, "TMPDIR") : getenv("TMPDIR");
	if (!base || base[0] != '/' || stat(base, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    strlen(base) > PATH_MAX - 32)
		base = "/tmp";
	snprintf(template, sizeof template, "%s%s" CF_TEMP_DIR_PREFIX "XXXXXX", base,
	         base[strlen(base) - 1] == '/' ? "" : "/");
	if (!mkdtemp(template)) {
		int e = errno;
		return cf_error_set(err, e, CONFINE_E_SYSTEM, "spawn", e,
		                    "cannot make the run's private temp directory under %s: %s", base,
		                    strerror(e));
	}
	/* Canonical: the grant names what the kernel resolves (macOS /var). */
	real = realpath(template, NULL);
	if (!real) {
		int e = errno;
		(void)rmdir(template);
		return cf_error_set(err, e, CONFINE_E_SYSTEM, "spawn", e, "out of memory");
	}
	policy->temp_dir = real;
	return 0;
}

/* Empties the directory open as `fd` (consumed), without following a
 * symlink or leaving the directory's filesystem. */
static void empty_dir(int fd, dev_t dev, int depth) {
	DIR *d = fdopendir(fd);
	struct dirent *e;
	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		const char *n = e->d_name;
		struct stat st;
		int child;
		if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0')))
			continue;
		if (fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (!S_ISDIR(st.st_mode)) {
			(void)unlinkat(dirfd(d), n, 0);
			continue;
		}
		if (st.st_dev != dev || depth >= TEMP_REMOVE_MAX_DEPTH)
			continue;
		/* The run may have left a directory it cannot be entered. */
		(void)fchmodat(dirfd(d), n, 0700, 0);
		child = openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (child < 0)
			continue;
		empty_dir(child, dev, depth + 1);
		(void)unlinkat(dirfd(d), n, AT_REMOVEDIR);
		/* A directory removed while we read its parent: read on. */
	}
	closedir(d);
}

void cf_temp_dir_remove(const char *path) {
	struct stat st;
	int fd;
	if (!path)
		return;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return;
	}
	empty_dir(fd, st.st_dev, 0);
	(void)rmdir(path);
}

bool cf_temp_dir_is_ours(const char *path) {
	const char *slash = path ? strrchr(path, '/') : NULL;
	struct stat st;
	return slash && strncmp(slash + 1, CF_TEMP_DIR_PREFIX, strlen(CF_TEMP_DIR_PREFIX)) == 0 &&
	       lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       (st.st_mode & 077) == 0;
}
