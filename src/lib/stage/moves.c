/* SPDX-License-Identifier: MIT */
/*
 * A directory the run moved (doc/SPEC.md 21, "a move is a pair"). In an
 * overlay a rename of a directory the real tree holds fails with EXDEV
 * and `mv` copies it and deletes the original, so the listing has an
 * added directory and a deleted one. Apply must not take the original
 * away when its copy does not land whole (a protected new name: `mv safe
 * .claude`), so it pairs them: a deleted real directory whose every name,
 * type, permission bits, bytes and link target the added directory in
 * the stage holds. Only read; the real side is opened beneath the root
 * fd apply holds, no link followed.
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

#include "stage/stage-internal.h"

static int same_bytes(int a, int b) {
	for (;;) {
		char x[65536], y[65536];
		ssize_t n = read(a, x, sizeof x), m = 0, got = 0;
		if (n < 0)
			return -errno;
		if (n == 0) {
			m = read(b, y, 1);
			return m < 0 ? -errno : m == 0;
		}
		while (got < n && (m = read(b, y + got, (size_t)(n - got))) > 0)
			got += m;
		if (got < n && m < 0)
			return -errno; /* not compared: the caller takes it for a move */
		if (got != n || memcmp(x, y, (size_t)n) != 0)
			return 0;
	}
}

static int same_entry(int real_at, int up_at, const char *name, int depth);

/* 1 when the directories hold the same entries (whiteouts in the upper
 * one make it differ: the copy is not whole), 0 when not, else -errno. */
static int same_dir(int real_fd, int up_fd, int depth) {
	DIR *real = fdopendir(real_fd), *up;
	struct dirent *e;
	size_t n_real = 0, n_up = 0;
	int r = 1;
	if (!real) {
		close(real_fd);
		close(up_fd);
		return -errno;
	}
	if (!(up = fdopendir(up_fd))) {
		r = -errno;
		close(up_fd);
		closedir(real);
		return r;
	}
	while ((e = readdir(real)))
		n_real += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	while (r == 1 && (e = readdir(up))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		n_up++;
		r = same_entry(dirfd(real), dirfd(up), e->d_name, depth + 1);
	}
	if (r == 1 && n_up != n_real)
		r = 0;
	closedir(up);
	closedir(real);
	return r;
}

static int same_entry(int real_at, int up_at, const char *name, int depth) {
	struct stat a, b;
	int fa, fb, r;
	if (depth > PATH_MAX / 2)
		return -ENAMETOOLONG;
	if (fstatat(real_at, name, &a, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstatat(up_at, name, &b, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if ((a.st_mode & S_IFMT) != (b.st_mode & S_IFMT) || (a.st_mode & 0777) != (b.st_mode & 0777))
		return 0;
	if (S_ISLNK(a.st_mode)) {
		char x[PATH_MAX], y[PATH_MAX];
		ssize_t n = readlinkat(real_at, name, x, sizeof x), m = readlinkat(up_at, name, y, sizeof y);
		if (n < 0 || m < 0)
			return -errno;
		return n == m && memcmp(x, y, (size_t)n) == 0;
	}
	if (!S_ISREG(a.st_mode) && !S_ISDIR(a.st_mode))
		return 0; /* a device, a whiteout: nothing a copy of a tree holds */
	if (S_ISREG(a.st_mode) && a.st_size != b.st_size)
		return 0;
	fa = openat(real_at, name,
	            O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (S_ISDIR(a.st_mode) ? O_DIRECTORY : 0));
	if (fa < 0)
		return -errno;
	fb = openat(up_at, name,
	            O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (S_ISDIR(a.st_mode) ? O_DIRECTORY : 0));
	if (fb < 0) {
		r = -errno;
		close(fa);
		return r;
	}
	if (S_ISDIR(a.st_mode))
		return same_dir(fa, fb, depth);
	r = same_bytes(fa, fb);
	close(fa);
	close(fb);
	return r;
}

int cf_stage_moved(const confine_stage *s, size_t root, const char *real_rel, const char *up_rel) {
	char name[NAME_MAX + 1], which[PATH_MAX], up[PATH_MAX], up_parent[PATH_MAX];
	const char *slash;
	int at = -1, up_at, r;
	if (cf_stage_join(up, sizeof up, s->roots[root].upper, up_rel) < 0)
		return -ENAMETOOLONG;
	slash = strrchr(up, '/');
	snprintf(up_parent, sizeof up_parent, "%.*s", (int)(slash - up), up);
	r = cf_stage_open_parent(s, root, real_rel, false, &at, name, sizeof name, which, sizeof which);
	if (r != 0)
		return r < 0 ? r : 0;
	if ((up_at = open(up_parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		r = -errno;
		close(at);
		return r;
	}
	{
		/* the two sides under one name: the upper's own last component */
		struct stat a;
		int fa, fb;
		if (fstatat(at, name, &a, AT_SYMLINK_NOFOLLOW) < 0) {
			r = errno == ENOENT ? 0 : -errno;
			goto out;
		}
		if (!S_ISDIR(a.st_mode)) {
			r = 0;
			goto out;
		}
		fa = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		fb = openat(up_at, slash + 1, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fa < 0 || fb < 0) {
			r = -errno;
			if (fa >= 0)
				close(fa);
			if (fb >= 0)
				close(fb);
			goto out;
		}
		r = same_dir(fa, fb, 0);
	}
out:
	close(up_at);
	close(at);
	return r;
}

int cf_stage_moved_file(const confine_stage *s, size_t root, const char *real_rel,
                        const char *up_rel) {
	char name[NAME_MAX + 1], which[PATH_MAX], up[PATH_MAX];
	struct stat a, b;
	int at = -1, fa = -1, fb = -1, r;
	if (cf_stage_join(up, sizeof up, s->roots[root].upper, up_rel) < 0)
		return -ENAMETOOLONG;
	r = cf_stage_open_parent(s, root, real_rel, false, &at, name, sizeof name, which, sizeof which);
	if (r != 0)
		return r < 0 ? r : 0;
	fa = openat(at, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(at);
	if (fa < 0)
		return errno == ENOENT ? 0 : -errno;
	if ((fb = open(up, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0) {
		r = errno == ENOENT ? 0 : -errno;
		close(fa);
		return r;
	}
	if (fstat(fa, &a) < 0 || fstat(fb, &b) < 0)
		r = -errno;
	else if (!S_ISREG(a.st_mode) || !S_ISREG(b.st_mode) || (a.st_mode & 07777) != (b.st_mode & 07777) ||
	         a.st_size != b.st_size)
		r = 0;
	else
		r = same_bytes(fa, fb);
	close(fa);
	close(fb);
	return r;
}
