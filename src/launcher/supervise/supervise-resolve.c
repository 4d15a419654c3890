/* SPDX-License-Identifier: MIT */
/*
 * Resolving a path as the command's syscall would, and pinning the inode
 * with an O_PATH descriptor (supervise-internal.h; supervise-perform.c says
 * why).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

#include <linux/fs.h>
#include <linux/openat2.h>

#include "statx-compat.h"
#include "supervise-internal.h"
#include "supervise-report.h"

void sv_target_init(struct sv_target *t)
{
	t->fd = -1;
	t->parent = -1;
	t->name[0] = '\0';
	memset(&t->st, 0, sizeof(t->st));
}

void sv_target_close(struct sv_target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	if (t->parent >= 0)
		close(t->parent);
	sv_target_init(t);
}

void sv_proc_fd_path(char *buf, size_t size, int fd)
{
	snprintf(buf, size, "/proc/self/fd/%d", fd);
}

/* openat2 with RESOLVE_NO_MAGICLINKS: a magic link in a path we resolve
 * would be followed in *our* /proc view (our own descriptors), not the
 * command's. Under an outer supervisor (a nested launcher) openat2 fails
 * with ENOSYS: plain openat then, which is still safe (we decide on what
 * we pin), only less faithful for such paths. */
static int open_path(int dirfd, const char *path, int flags)
{
	struct open_how how;
	static bool no_openat2;
	int fd;

	if (!no_openat2) {
		memset(&how, 0, sizeof(how));
		how.flags = (uint64_t)(flags | O_PATH | O_CLOEXEC);
		how.resolve = RESOLVE_NO_MAGICLINKS;
		fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
		if (fd >= 0)
			return fd;
		if (errno != ENOSYS)
			return -errno;
		no_openat2 = true;
	}
	fd = openat(dirfd, path, flags | O_PATH | O_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

/*
 * The command's names for its own process: /proc/self, /proc/thread-self,
 * /dev/fd, /dev/std{in,out,err}. Returns the fd number N when the path is
 * /proc/<P>/fd/N[/rest] for the command (rest copied to *rest), -1 when
 * the path was rewritten into `out` for ordinary resolution.
 */
static int command_view(const struct sv_call *call, const char *path, char *out,
			size_t size, const char **rest, pid_t *ret_pid)
{
	static const struct {
		const char *prefix;
		const char *under_pid; /* what follows /proc/<thread> */
	} names[] = {
		{ "/proc/self", "" },
		{ "/proc/thread-self", "" },
		{ "/dev/fd", "/fd" },
		{ "/dev/stdin", "/fd/0" },
		{ "/dev/stdout", "/fd/1" },
		{ "/dev/stderr", "/fd/2" },
	};
	char clean[PATH_MAX];
	size_t i, j = 0;
	long pid, fd;
	char *end;

	/* collapse "//" and "/./" so the prefixes below cannot be dodged */
	for (i = 0; path[i] != '\0' && j + 1 < sizeof(clean); i++) {
		bool after_slash = j > 0 && clean[j - 1] == '/';

		if (after_slash && path[i] == '/')
			continue;
		if (after_slash && path[i] == '.' && path[i + 1] == '/') {
			i++;
			continue;
		}
		clean[j++] = path[i];
	}
	clean[j] = '\0';
	snprintf(out, size, "%s", clean);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i].prefix);

		if (strncmp(clean, names[i].prefix, n) == 0 &&
		    (clean[n] == '/' || clean[n] == '\0')) {
			snprintf(out, size, "/proc/%d%s%s", (int)call->tid,
				 names[i].under_pid, clean + n);
			break;
		}
	}
	if (strncmp(out, "/proc/", 6) != 0)
		return -1;
	pid = strtol(out + 6, &end, 10);
	if (end == out + 6 || pid <= 0 || strncmp(end, "/fd/", 4) != 0)
		return -1;
	fd = strtol(end + 4, &end, 10);
	if (fd < 0 || fd > INT_MAX || (*end != '/' && *end != '\0'))
		return -1;
	*rest = *end == '/' ? end + 1 : end;
	*ret_pid = (pid_t)pid;
	return (int)fd;
}

/* The descriptor `fd` of process `pid` as seen by the command. */
static int foreign_fd(struct sv_call *call, pid_t pid, int fd)
{
	int pidfd, dup_fd;

	if (pid == call->tid)
		return sv_command_fd(call, fd);
	/* Another process: the kernel lets the command follow its magic
	 * link only with ptrace access, which pidfd_getfd checks for us. */
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return -errno;
	dup_fd = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (dup_fd < 0)
		dup_fd = -errno;
	close(pidfd);
	return dup_fd;
}

/* One statx gives what the decision needs, the birth time included. */
static int finish_target(struct sv_target *t)
{
	struct statx sx;

	if (statx(t->fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
		  STATX_TYPE | STATX_MODE | STATX_INO | STATX_NLINK | STATX_BTIME, &sx) != 0)
		return -errno;
	t->st.st_mode = sx.stx_mode;
	t->st.st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	t->st.st_ino = sx.stx_ino;
	t->st.st_nlink = sx.stx_nlink;
	t->has_btime = (sx.stx_mask & STATX_BTIME) != 0;
	t->btime_sec = sx.stx_btime.tv_sec;
	t->btime_nsec = sx.stx_btime.tv_nsec;
	return 0;
}

int sv_pin_fd(struct sv_call *call, int fd, struct sv_target *ret)
{
	sv_target_init(ret);
	ret->fd = sv_command_fd(call, fd);
	if (ret->fd < 0)
		return ret->fd;
	return finish_target(ret);
}

int sv_resolve(struct sv_call *call, int dirfd, const char *path, bool follow,
	       bool empty_ok, struct sv_target *ret)
{
	char view[PATH_MAX + 64];
	const char *rest = NULL;
	const char *name;
	const char *slash;
	pid_t pid = 0;
	int base = AT_FDCWD;
	int own_base = -1;
	int nofollow = follow ? 0 : O_NOFOLLOW;
	int fd_number;
	size_t len;
	int r;

	sv_target_init(ret);
	if (path[0] == '\0') {
		if (!empty_ok)
			return -ENOENT;
		ret->fd = dirfd == AT_FDCWD ? sv_command_cwd(call)
					    : sv_command_fd(call, dirfd);
		return ret->fd < 0 ? ret->fd : finish_target(ret);
	}
	fd_number = command_view(call, path, view, sizeof(view), &rest, &pid);
	if (fd_number >= 0) {
		/* the command's descriptor N, then what follows it */
		own_base = foreign_fd(call, pid, fd_number);
		if (own_base < 0)
			return own_base;
		if (*rest == '\0') {
			ret->fd = own_base;
			return finish_target(ret);
		}
		memmove(view, rest, strlen(rest) + 1);
		base = own_base;
	} else if (view[0] != '/') {
		own_base = dirfd == AT_FDCWD ? sv_command_cwd(call)
					     : sv_command_fd(call, dirfd);
		if (own_base < 0)
			return own_base;
		base = own_base;
	}

	/* Split off the last component; "x/", "x/." and "x/.." name a
	 * directory, resolved whole (it decides on itself). */
	len = strlen(view);
	slash = strrchr(view, '/');
	name = slash == NULL ? view : slash + 1;
	if (view[len - 1] == '/' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    (slash == view && name[0] == '\0')) {
		r = open_path(base, view, 0);
		if (own_base >= 0)
			close(own_base);
		if (r < 0)
			return r;
		ret->fd = r;
		return finish_target(ret);
	}
	if (strlen(name) >= sizeof(ret->name)) {
		if (own_base >= 0)
			close(own_base);
		return -ENAMETOOLONG;
	}
	snprintf(ret->name, sizeof(ret->name), "%s", name);
	if (slash == NULL && own_base >= 0) {
		/* A bare name under the command's dirfd or cwd (chmod -R's
		 * fchmodat(dirfd, "name")): our duplicate is the directory
		 * itself, no need to reopen it. A non-directory fails the
		 * lookup below with ENOTDIR, as the command's call would. */
		ret->parent = own_base;
		own_base = -1;
		r = 0;
	} else if (slash == NULL) {
		r = open_path(base, ".", O_DIRECTORY);
	} else if (slash == view) {
		r = open_path(base, "/", O_DIRECTORY);
	} else {
		view[slash - view] = '\0';
		r = open_path(base, view, O_DIRECTORY);
	}
	if (own_base >= 0)
		close(own_base);
	if (r < 0)
		return r;
	if (ret->parent < 0)
		ret->parent = r;
	r = open_path(ret->parent, ret->name, O_NOFOLLOW);
	if (r < 0) {
		sv_target_close(ret);
		return r;
	}
	ret->fd = r;
	r = finish_target(ret);
	if (r < 0) {
		sv_target_close(ret);
		return r;
	}
	if (S_ISLNK(ret->st.st_mode) && !nofollow) {
		/* followed: the final inode's own directory is unknown here */
		close(ret->fd);
		ret->fd = -1;
		r = open_path(ret->parent, ret->name, 0);
		close(ret->parent);
		ret->parent = -1;
		ret->name[0] = '\0';
		if (r < 0)
			return r;
		ret->fd = r;
		return finish_target(ret);
	}
	return 0;
}

