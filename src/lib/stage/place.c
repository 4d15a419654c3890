/* SPDX-License-Identifier: MIT */
/*
 * How one entry of a stage lands on disk (doc/SPEC.md 21, apply): a file
 * or a link atomically (a new `.NAME.confine-XXXXXX` in the same
 * directory, renamed over the name) with the staged permission bits
 * (set-ID dropped) and mtime, a mode set through an fd opened O_NOFOLLOW,
 * a real tree removed through directory fds. apply.c decides what lands;
 * these only do it, at a directory fd the policy resolution gave.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stage/stage-internal.h"

/* Removes `name` at `dirfd` and, for a directory, all it holds. */
int cf_stage_remove_tree(int at, const char *name) {
	struct stat st;
	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(st.st_mode)) {
		int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *d;
		struct dirent *e;
		int r = 0;
		if (fd < 0)
			return -errno;
		if (!(d = fdopendir(fd))) {
			close(fd);
			return -errno;
		}
		while (r == 0 && (e = readdir(d)))
			if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
				r = cf_stage_remove_tree(dirfd(d), e->d_name);
		closedir(d);
		if (r < 0)
			return r;
	}
	return unlinkat(at, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) < 0 ? -errno : 0;
}

static int temp_name(char *out, size_t size, const char *name, unsigned attempt) {
	snprintf(out, size, ".%.*s.confine-%06x", 200, name,
	         (unsigned)((unsigned)getpid() * 2654435761u + attempt * 40503u) & 0xffffff);
	return 0;
}

/* `size` bytes of `in` to `out`: in the kernel (copy_file_range: no copy
 * through user space, one call for a small file), else read and write. */
static int copy_bytes(int in, int out, off_t size) {
	off_t left = size;
	while (left > 0) {
		ssize_t n = copy_file_range(in, NULL, out, NULL, (size_t)left, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && left == size &&
		    (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP))
			break; /* not between these files: the plain way */
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0; /* shorter than it was: what there is */
		left -= n;
	}
	if (left == 0)
		return 0;
	for (;;) {
		char chunk[65536];
		ssize_t n = read(in, chunk, sizeof chunk), done = 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		while (done < n) {
			ssize_t w = write(out, chunk + done, (size_t)(n - done));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return -errno;
			done += w;
		}
	}
}

/* The staged file `src` as `name` at `dirfd`, atomically, with its mode
 * (no set-ID bit) and mtime. */
int cf_stage_place_file(int dirfd, const char *name, const char *src) {
	char tmp[NAME_MAX + 1];
	struct stat st;
	int in, out = -1, r = 0;
	if ((in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(in, &st) < 0) {
		r = -errno;
		close(in);
		return r;
	}
	for (unsigned attempt = 0; attempt < 100; attempt++) {
		temp_name(tmp, sizeof tmp, name, attempt);
		out = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (out >= 0 || errno != EEXIST)
			break;
	}
	if (out < 0) {
		r = -errno;
		close(in);
		return r;
	}
	r = copy_bytes(in, out, st.st_size);
	if (r == 0) {
		struct timespec times[2] = { st.st_atim, st.st_mtim };
		if (fchmod(out, st.st_mode & 0777) < 0 || futimens(out, times) < 0)
			r = -errno;
	}
	close(in);
	close(out);
	if (r == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		r = -errno;
	if (r < 0)
		(void)unlinkat(dirfd, tmp, 0);
	return r;
}

int cf_stage_place_link(int dirfd, const char *name, const char *src) {
	char target[PATH_MAX], tmp[NAME_MAX + 1];
	ssize_t n = readlink(src, target, sizeof target - 1);
	int r = -EEXIST;
	if (n < 0)
		return -errno;
	target[n] = '\0';
	for (unsigned attempt = 0; attempt < 100 && r == -EEXIST; attempt++) {
		temp_name(tmp, sizeof tmp, name, attempt);
		r = symlinkat(target, dirfd, tmp) < 0 ? -errno : 0;
	}
	if (r == 0 && renameat(dirfd, tmp, dirfd, name) < 0) {
		r = -errno;
		(void)unlinkat(dirfd, tmp, 0);
	}
	return r;
}

/* The permission bits of `name`, never through a link. */
int cf_stage_set_mode(int dirfd, const char *name, unsigned mode) {
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY), r = 0;
	if (fd < 0)
		return -errno;
	if (fchmod(fd, mode & 0777) < 0)
		r = -errno;
	close(fd);
	return r;
}
