/* SPDX-License-Identifier: MIT */
/* Finding the git directory a path lies in (git-dir.h). */
#include "git-dir.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static bool holds(const char *dir, const char *name, bool want_dir) {
	char p[PATH_MAX];
	struct stat st;
	if ((size_t)snprintf(p, sizeof p, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, name) >=
	    sizeof p)
		return false;
	/* followed: git takes a HEAD that is a link into refs/ and an
	 * objects/ that is a link elsewhere (red team, round 4) */
	if (stat(p, &st) < 0)
		return false;
	return want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
}

static bool is_git_dir(const char *dir) {
	const char *base = strrchr(dir, '/');
	if (base && strcmp(base + 1, ".git") == 0)
		return true;
	return holds(dir, "HEAD", false) && holds(dir, "objects", true) && holds(dir, "refs", true);
}

bool cf_git_dir_at_or_above(const char *path, char *out, size_t size) {
	char dir[PATH_MAX];
	if (!path || path[0] != '/' || strlen(path) >= sizeof dir)
		return false;
	memcpy(dir, path, strlen(path) + 1);
	for (;;) {
		char *slash;
		if (strcmp(dir, "/") != 0 && is_git_dir(dir)) {
			snprintf(out, size, "%s", dir);
			return true;
		}
		slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			return false;
		*slash = '\0';
	}
}

/* Whether the config file at `path` mentions extensions.worktreeConfig
 * (then git reads config.worktree): any mention counts. */
bool cf_git_mentions_worktree_config(const char *path) {
	char buf[65536];
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return false;
	got = read(fd, buf, sizeof buf);
	close(fd);
	return got > 0 && cf_contains_ci(buf, (size_t)got, "worktreeconfig", 14);
}

/* The first line of a small file (commondir, a `.git` file), or false. */
bool cf_git_read_line(int dirfd_, const char *name, char *out, size_t size) {
	ssize_t got;
	int fd = openat(dirfd_, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
	if (fd < 0)
		return false;
	got = read(fd, out, size - 1);
	close(fd);
	if (got <= 0)
		return false;
	out[got] = '\0';
	out[strcspn(out, "\r\n")] = '\0';
	return true;
}
