/* SPDX-License-Identifier: MIT */
/* realpath(3)'s answer in one openat2(2) where it can be: canonical.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if HAVE_SYS_OPENAT2
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

#include "canonical.h"

/* Absolute, no empty, "." or ".." component, no trailing slash. */
static bool lexically_canonical(const char *p) {
	if (p[0] != '/')
		return false;
	if (p[1] == '\0')
		return true;
	for (p++;; p++) {
		size_t len = strcspn(p, "/");
		if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += len;
		if (*p == '\0')
			return true;
	}
}

/* `path` opened with no symlink followed: 1 resolved; 0 not proved (no
 * openat2 here); -errno: a component missing or not a directory. */
#if HAVE_SYS_OPENAT2
static int open_plainly(const char *path) {
	struct open_how how;
	long fd;
	memset(&how, 0, sizeof how);
	how.flags = O_PATH | O_CLOEXEC;
	how.resolve = RESOLVE_NO_SYMLINKS;
	fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
	if (fd >= 0) {
		close((int)fd);
		return 1;
	}
	if (errno == ENOENT || errno == ENOTDIR)
		return -errno;
	return 0;
}
#else
static int open_plainly(const char *path) {
	(void)path;
	return 0;
}
#endif

/* 1: no symlink on the way, the path resolved; 0: not proved; -errno: a
 * component is missing or not a directory (found before any symlink). */
static int resolve_plainly(const char *path) {
	return lexically_canonical(path) ? open_plainly(path) : 0;
}

bool cf_canonical_fast(const char *path) {
	return resolve_plainly(path) == 1;
}

char *cf_realpath(const char *path) {
	int r = resolve_plainly(path);
	char *copy;
	if (r == 1) {
		if (!(copy = strdup(path)))
			errno = ENOMEM;
		return copy;
	}
	if (r < 0) {
		errno = -r;
		return NULL;
	}
	return realpath(path, NULL);
}
