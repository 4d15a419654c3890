/* SPDX-License-Identifier: MIT */
/*
 * The identities bwrap's binds are checked against (doc/SPEC.md 14, "What
 * bwrap binds is what was granted"; red team F3): bwrap follows symbolic
 * links in a bind's source and target, so a component of a granted path
 * swapped for a link between the argv and the spawn (or while bwrap
 * starts) moved a writable bind onto another tree, which the launcher
 * inside then granted. The library records the inode of each path it has
 * bwrap bind from the host, opened here without following a link in any
 * component, as `--identity DEV:INO:PATH` for the launcher, which compares
 * the mount it finds at PATH (a bind mount shows its source's st_dev and
 * st_ino) before anything is granted.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

#include "launcher-args.h"
#include "policy-internal.h"
#include "util.h"
#include "rungs/bwrap/bwrap.h"

#ifdef __linux__
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* Without openat2 (refused under an outer supervisor): one component at
 * a time, none followed. */
static int open_walk(const char *path) {
	char copy[PATH_MAX];
	char *save = NULL;
	int at = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (at < 0)
		return -errno;
	if (strlen(path) >= sizeof copy) {
		close(at);
		return -ENAMETOOLONG;
	}
	snprintf(copy, sizeof copy, "%s", path);
	for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		int fd = strcmp(c, "..") == 0 ? (errno = ELOOP, -1)
		                              : openat(at, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		int err = errno;
		struct stat st;
		close(at);
		if (fd < 0)
			return -err;
		if (fstat(fd, &st) == 0 && S_ISLNK(st.st_mode)) {
			close(fd);
			return -ELOOP;
		}
		at = fd;
	}
	return at;
}
#endif

/* The inode at the canonical `path`, no link followed: 0 or -errno. */
static int identity_of(const char *path, struct stat *st) {
#ifdef __linux__
	struct open_how how;
	int fd, r = 0;
	memset(&how, 0, sizeof how);
	how.flags = O_PATH | O_CLOEXEC;
	how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
	if (fd < 0 && errno == ENOSYS)
		fd = open_walk(path);
	else if (fd < 0)
		fd = -errno;
	if (fd < 0)
		return fd;
	if (fstat(fd, st) != 0)
		r = -errno;
	close(fd);
	return r;
#else
	return lstat(path, st) == 0 ? (S_ISLNK(st->st_mode) ? -ELOOP : 0) : -errno;
#endif
}

int cf_bwrap_identity_push(char ***ids, const char *path) {
	char value[LAUNCHER_PATH_LENGTH_MAX + 48];
	struct stat st;
	int r;
	if (!ids)
		return 0;
	if (*ids && cf_strv_length((const char *const *)*ids) / 2 >= LAUNCHER_IDENTITIES_MAX)
		return -E2BIG; /* refused, never a bind left unchecked */
	if (strlen(path) > LAUNCHER_PATH_LENGTH_MAX)
		return -ENAMETOOLONG;
	if ((r = identity_of(path, &st)) < 0)
		return r;
	snprintf(value, sizeof value, "%llu:%llu:%s", (unsigned long long)st.st_dev,
	         (unsigned long long)st.st_ino, path);
	if ((r = cf_strv_push(ids, LAUNCHER_ARG_IDENTITY)) < 0)
		return r;
	return cf_strv_push(ids, value);
}
