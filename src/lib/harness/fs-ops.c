/* SPDX-License-Identifier: MIT */
/*
 * The harness's file operations themselves (doc/SPEC.md 19): read, write,
 * append, list, stat, mkdir, remove, rename and the gitHazards a handle's
 * writes left, each on a path fs.c resolved and checked against the
 * policy.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs-internal.h"
#include "git-hazards.h"
#include "policy-internal.h"
#include "util.h"

#define STAGE "fs"

/* ---- operations ---- */

int confine_fs_open_read(confine_fs *fs, const char *path, int *ret_fd, confine_error *err) {
	char canon[PATH_MAX];
	struct stat st;
	int fd, r;
	if (!fs || !ret_fd)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "confine_fs_open_read needs a handle and a result pointer");
	if ((r = cf_fs_open_for_read(fs, "read", path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, &fd,
	                       canon, sizeof canon, err)) < 0)
		return r;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int e = errno;
		if (e == 0 || !S_ISREG(st.st_mode))
			e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		close(fd);
		return cf_fs_error(err, "read", path, e);
	}
	*ret_fd = fd;
	return 0;
}

int confine_fs_read(confine_fs *fs, const char *path, size_t max, char **ret_data,
                    size_t *ret_len, bool *ret_truncated, confine_error *err) {
	struct stat st;
	cf_buf buf = { 0 };
	bool truncated = false;
	int fd, r;
	if (!fs || !ret_data || !ret_len)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "confine_fs_read needs a handle and result pointers");
	if ((r = confine_fs_open_read(fs, path, &fd, err)) < 0)
		return r;
	for (;;) {
		char chunk[65536];
		size_t want = sizeof chunk;
		ssize_t n;
		if (max && buf.len + want > max)
			want = max - buf.len;
		if (want == 0) {
			/* At most `max` bytes are read: whether the file holds more
			 * is its size's word (issue 28.6). */
			truncated = fstat(fd, &st) == 0 && (uint64_t)st.st_size > (uint64_t)buf.len;
			break;
		}
		n = read(fd, chunk, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			cf_buf_free(&buf);
			return cf_fs_error(err, "read", path, e);
		}
		if (n == 0)
			break;
		if (cf_buf_append(&buf, chunk, (size_t)n) < 0) {
			close(fd);
			cf_buf_free(&buf);
			return cf_fs_oom(err);
		}
	}
	close(fd);
	*ret_len = buf.len;
	if (!(*ret_data = cf_buf_steal(&buf)))
		return cf_fs_oom(err);
	if (ret_truncated)
		*ret_truncated = truncated;
	return 0;
}

/* ---- what git would run later ---- */

/* Before a write: what git reads under the writable roots, once per
 * confine_fs_git_hazards() period (the walk of doc/SPEC.md 15's
 * gitHazards). Only confined workspace-write handles have roots to walk. */
static int git_snapshot_before(confine_fs *fs, confine_error *err) {
	int r;
	if (!fs->have_plan || !fs->plan.writable || !fs->plan.writable[0] || fs->git_before)
		return 0;
	if ((r = cf_git_snapshot_take(fs->plan.writable, &fs->git_before)) < 0)
		return cf_fs_oom(err);
	return 0;
}

int confine_fs_git_hazards(confine_fs *fs, confine_git_hazard **ret, size_t *ret_n,
                           confine_error *err) {
	cf_git_snapshot *after = NULL;
	confine_git_hazard *h = NULL;
	size_t n = 0;
	int r;
	if (!fs || !ret || !ret_n)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "confine_fs_git_hazards needs a handle and result pointers");
	if (!fs->git_before) {
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	if ((r = cf_git_snapshot_take(fs->plan.writable, &after)) < 0 ||
	    (r = cf_git_snapshot_diff(fs->git_before, after, &h, &n)) < 0) {
		cf_git_snapshot_free(after);
		cf_git_hazards_free(h, n);
		return cf_fs_oom(err);
	}
	cf_git_snapshot_free(after);
	cf_git_snapshot_free(fs->git_before);
	fs->git_before = NULL;
	*ret = h;
	*ret_n = n;
	return 0;
}

void confine_git_hazards_free(confine_git_hazard *hazards, size_t n) {
	cf_git_hazards_free(hazards, n);
}

static int write_all(int fd, const void *data, size_t len) {
	const char *p = data;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int confine_fs_write(confine_fs *fs, const char *path, const void *data, size_t len,
                     confine_error *err) {
	struct target t;
	struct stat st;
	char tmp[NAME_MAX + 1];
	mode_t keep = 0;
	bool exists;
	int fd = -1, r;
	if (!fs || (!data && len))
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "confine_fs_write needs a handle and data");
	if ((r = cf_fs_resolve(fs, "write", path, false, &t, err)) < 0 ||
	    (r = git_snapshot_before(fs, err)) < 0)
		goto out;
	exists = fstatat(t.dirfd, t.name, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (exists && S_ISLNK(st.st_mode)) {
		r = cf_fs_denied(err, "write", path, "mode",
		           "it is a symbolic link: a harness write does not follow it");
		goto out;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		r = cf_fs_error(err, "write", path, S_ISDIR(st.st_mode) ? EISDIR : EINVAL);
		goto out;
	}
	/* Keep the old permission bits, never a set-ID bit. */
	keep = exists ? (st.st_mode & 0777) : 0;
	for (unsigned attempt = 0; attempt < 100; attempt++) {
		snprintf(tmp, sizeof tmp, ".%.*s.confine-%06x", 200, t.name,
		         (unsigned)((unsigned)getpid() * 2654435761u + attempt * 40503u) & 0xffffff);
		fd = openat(t.dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		r = cf_fs_error(err, "write", path, errno);
		goto out;
	}
	if ((exists && fchmod(fd, keep) < 0) || (r = write_all(fd, data, len)) < 0 ||
	    renameat(t.dirfd, tmp, t.dirfd, t.name) < 0) {
		int e = r < 0 ? -r : errno;
		(void)unlinkat(t.dirfd, tmp, 0);
		r = cf_fs_error(err, "write", path, e);
		goto out;
	}
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	if (t.dirfd >= 0)
		close(t.dirfd);
	return r;
}

int confine_fs_append(confine_fs *fs, const char *path, const void *data, size_t len,
                      confine_error *err) {
	struct target t;
	struct stat st;
	int fd = -1, r;
	if (!fs || (!data && len))
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "confine_fs_append needs a handle and data");
	if ((r = cf_fs_resolve(fs, "append", path, false, &t, err)) < 0 ||
	    (r = git_snapshot_before(fs, err)) < 0)
		goto out;
	fd = openat(t.dirfd, t.name, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
	                                 O_NONBLOCK,
	            0644);
	if (fd < 0) {
		r = errno == ELOOP ? cf_fs_denied(err, "append", path, "mode",
		                            "it is a symbolic link: a harness write does not follow it")
		                   : cf_fs_error(err, "append", path, errno);
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		r = cf_fs_error(err, "append", path, errno);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = cf_fs_error(err, "append", path, S_ISDIR(st.st_mode) ? EISDIR : EINVAL);
		goto out;
	}
	/* Another name for the same inode may lie anywhere: appending would
	 * write there too. */
	if (st.st_nlink > 1) {
		r = cf_fs_denied(err, "append", path, "mode",
		           "it has %lu hard links: appending would write through to the others",
		           (unsigned long)st.st_nlink);
		goto out;
	}
	if ((r = write_all(fd, data, len)) < 0)
		r = cf_fs_error(err, "append", path, -r);
out:
	if (fd >= 0)
		close(fd);
	if (t.dirfd >= 0)
		close(t.dirfd);
	return r;
}

static confine_fs_type type_of(mode_t mode) {
	if (S_ISREG(mode))
		return CONFINE_FS_FILE;
	if (S_ISDIR(mode))
		return CONFINE_FS_DIRECTORY;
	if (S_ISLNK(mode))
		return CONFINE_FS_SYMLINK;
	return CONFINE_FS_OTHER;
}

static int entry_compare(const void *a, const void *b) {
	return strcmp(((const confine_fs_entry *)a)->name, ((const confine_fs_entry *)b)->name);
}

int confine_fs_list(confine_fs *fs, const char *path, confine_fs_entry **ret, size_t *ret_n,
                    confine_error *err) {
	char canon[PATH_MAX];
	confine_fs_entry *entries = NULL;
	size_t n = 0;
	struct dirent *e;
	DIR *d;
	int fd, r;
	if (!fs || !ret || !ret_n)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "confine_fs_list needs a handle and result pointers");
	if ((r = cf_fs_open_for_read(fs, "list", path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, &fd, canon,
	                       sizeof canon, err)) < 0)
		return r;
	if (!(d = fdopendir(fd))) {
		int e2 = errno;
		close(fd);
		return cf_fs_error(err, "list", path, e2);
	}
	while ((e = readdir(d))) {
		char child[PATH_MAX + NAME_MAX + 2];
		const char *what;
		struct stat st;
		confine_fs_entry *grown;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(child, sizeof child, "%s/%s", strcmp(canon, "/") == 0 ? "" : canon, e->d_name);
		if (cf_fs_deny_clause(fs, child, &what))
			continue;
		if (!(grown = realloc(entries, (n + 1) * sizeof *grown)) ||
		    !(grown[n].name = strdup(e->d_name))) {
			if (grown)
				entries = grown;
			closedir(d);
			confine_fs_entries_free(entries, n);
			return cf_fs_oom(err);
		}
		entries = grown;
		grown[n].type = fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0
		                        ? type_of(st.st_mode)
		                        : CONFINE_FS_OTHER;
		n++;
	}
	closedir(d);
	if (n > 1)
		qsort(entries, n, sizeof *entries, entry_compare);
	*ret = entries;
	*ret_n = n;
	return 0;
}

void confine_fs_entries_free(confine_fs_entry *entries, size_t n) {
	for (size_t i = 0; entries && i < n; i++)
		free(entries[i].name);
	free(entries);
}

int confine_fs_stat(confine_fs *fs, const char *path, confine_fs_info *ret, confine_error *err) {
	char canon[PATH_MAX];
	struct stat st;
	int fd, r;
	if (!fs || !ret)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "confine_fs_stat needs a handle and a result pointer");
	/* The name itself (O_PATH|O_NOFOLLOW at the last step: a symlink is
	 * reported as one, not followed). */
	if ((r = cf_fs_open_for_read(fs, "stat", path, O_PATH | O_NOFOLLOW | O_CLOEXEC, &fd, canon,
	                       sizeof canon, err)) < 0)
		return r;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return cf_fs_error(err, "stat", path, e);
	}
	close(fd);
	memset(ret, 0, sizeof *ret);
	ret->type = type_of(st.st_mode);
	ret->size = (uint64_t)st.st_size;
	ret->mode = st.st_mode & 07777;
	ret->nlink = (unsigned)st.st_nlink;
	ret->mtime_sec = (int64_t)st.st_mtim.tv_sec;
	ret->mtime_nsec = st.st_mtim.tv_nsec;
	return 0;
}

int confine_fs_mkdir(confine_fs *fs, const char *path, confine_error *err) {
	struct target t;
	int r;
	if (!fs)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "confine_fs_mkdir needs a handle");
	if ((r = cf_fs_resolve(fs, "mkdir", path, false, &t, err)) == 0 &&
	    (r = git_snapshot_before(fs, err)) == 0 && mkdirat(t.dirfd, t.name, 0777) < 0)
		r = cf_fs_error(err, "mkdir", path, errno);
	if (t.dirfd >= 0)
		close(t.dirfd);
	return r;
}

int confine_fs_remove(confine_fs *fs, const char *path, confine_error *err) {
	struct target t;
	struct stat st;
	int r;
	if (!fs)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "confine_fs_remove needs a handle");
	/* Removing a directory that holds a protected path removes the
	 * protection with it. */
	if ((r = cf_fs_resolve(fs, "remove", path, true, &t, err)) == 0 &&
	    (r = git_snapshot_before(fs, err)) == 0) {
		if (fstatat(t.dirfd, t.name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			r = cf_fs_error(err, "remove", path, errno);
		else if (unlinkat(t.dirfd, t.name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) < 0)
			r = cf_fs_error(err, "remove", path, errno);
	}
	if (t.dirfd >= 0)
		close(t.dirfd);
	return r;
}

int confine_fs_rename(confine_fs *fs, const char *from, const char *to, confine_error *err) {
	struct target a, b;
	int r;
	if (!fs)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "confine_fs_rename needs a handle");
	b.dirfd = -1;
	/* Both ends, and what each holds: `mv .git .git.old` moves the
	 * protections away (issue 21). */
	if ((r = cf_fs_resolve(fs, "rename", from, true, &a, err)) == 0 &&
	    (r = cf_fs_resolve(fs, "rename", to, true, &b, err)) == 0 &&
	    (r = git_snapshot_before(fs, err)) == 0 && renameat(a.dirfd, a.name, b.dirfd, b.name) < 0)
		r = cf_fs_error(err, "rename", from, errno);
	if (a.dirfd >= 0)
		close(a.dirfd);
	if (b.dirfd >= 0)
		close(b.dirfd);
	return r;
}
