/* SPDX-License-Identifier: MIT */
/*
 * Metadata calls done on the command's behalf: resolve the path as the
 * command's syscall would, pin the inode with an O_PATH descriptor, decide
 * on that inode (inside a writable grant or not), and perform the call on
 * the pinned descriptor, so a path swapped meanwhile (a symlink raced in)
 * changes nothing: the inode decided on is the inode changed.
 *
 * Inside a writable grant: a directory is inside when walking its `..`
 * chain meets a grant's device and inode; any other inode is inside when it
 * is a file grant or has a name in a directory that is inside. The command
 * cannot move an inode across a grant boundary (Landlock refuses renames
 * and links out of or into the writable tree that would change its
 * rights), so the answer is stable for the run.
 *
 * Device nodes are refused everywhere, inside a grant too: the command
 * cannot make one, so each is the host's (or bwrap's bind of the host's).
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

#include "supervise-internal.h"
#include "supervise-report.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

#define XATTR_NAME_LIMIT 255
#define XATTR_VALUE_LIMIT 65536


/* ---- the operations, on the pinned descriptor ---- */

enum operation {
	OP_CHMOD,
	OP_CHOWN,
	OP_UTIMENS,
	OP_SETXATTR,
	OP_REMOVEXATTR,
	OP_IOCTL,
};

/* The word a `denied` record names each operation by, in enum order. */
static const char *const operation_word[] = { "chmod",    "chown",       "utimes",
					      "setxattr", "removexattr", "setflags" };

struct request {
	enum operation op;
	bool by_fd;           /* f* call: use the command's open file itself */
	mode_t mode;
	uid_t uid;
	gid_t gid;
	bool has_times;
	struct timespec times[2];
	char xattr_name[XATTR_NAME_LIMIT + 1];
	void *xattr_value;
	size_t xattr_size;
	int xattr_flags;
	unsigned int ioctl_cmd;
	unsigned char ioctl_arg[64];
};

static int64_t result_of(int r)
{
	return r < 0 ? -errno : r;
}

static int64_t perform(const struct request *rq, const struct sv_target *t)
{
	char path[PATH_MAX + 64];

	sv_proc_fd_path(path, sizeof(path), t->fd);
	switch (rq->op) {
	case OP_CHMOD:
		if (rq->by_fd)
			return result_of(fchmod(t->fd, rq->mode));
		if (S_ISLNK(t->st.st_mode))
			return -EOPNOTSUPP;
		if (syscall(SYS_fchmodat2, t->fd, "", rq->mode, AT_EMPTY_PATH) == 0)
			return 0;
		if (errno != ENOSYS && errno != EINVAL)
			return -errno;
		return result_of(fchmodat(AT_FDCWD, path, rq->mode, 0));
	case OP_CHOWN:
		if (rq->by_fd)
			return result_of(fchown(t->fd, rq->uid, rq->gid));
		return result_of(fchownat(t->fd, "", rq->uid, rq->gid, AT_EMPTY_PATH));
	case OP_UTIMENS:
		if (rq->by_fd)
			return result_of(futimens(t->fd, rq->has_times ? rq->times : NULL));
		if (utimensat(t->fd, "", rq->has_times ? rq->times : NULL, AT_EMPTY_PATH) == 0)
			return 0;
		if (errno != EINVAL)
			return -errno;
		return result_of(utimensat(AT_FDCWD, path, rq->has_times ? rq->times : NULL, 0));
	case OP_SETXATTR:
	case OP_REMOVEXATTR:
		if (rq->by_fd)
			return rq->op == OP_SETXATTR
				       ? result_of(fsetxattr(t->fd, rq->xattr_name, rq->xattr_value,
							     rq->xattr_size, rq->xattr_flags))
				       : result_of(fremovexattr(t->fd, rq->xattr_name));
		if (S_ISLNK(t->st.st_mode)) {
			/* the link itself: through its pinned directory */
			if (t->parent < 0)
				return -EPERM;
			snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", t->parent, t->name);
			return rq->op == OP_SETXATTR
				       ? result_of(lsetxattr(path, rq->xattr_name, rq->xattr_value,
							     rq->xattr_size, rq->xattr_flags))
				       : result_of(lremovexattr(path, rq->xattr_name));
		}
		return rq->op == OP_SETXATTR
			       ? result_of(setxattr(path, rq->xattr_name, rq->xattr_value,
						    rq->xattr_size, rq->xattr_flags))
			       : result_of(removexattr(path, rq->xattr_name));
	case OP_IOCTL:
		return result_of(ioctl(t->fd, rq->ioctl_cmd, (void *)rq->ioctl_arg));
	}
	return -ENOSYS;
}

/* ---- decoding each call ---- */

/* utime(2)'s struct utimbuf, utimes(2)'s struct timeval[2]: to timespecs. */
static int read_times(struct sv_call *call, long nr, uint64_t addr, struct request *rq)
{
	int r;

	rq->has_times = addr != 0;
	if (addr == 0)
		return 0;
#ifdef SYS_utime
	if (nr == SYS_utime) {
		struct utimbuf tb;

		r = sv_read_memory(call, addr, &tb, sizeof(tb));
		if (r < 0)
			return r;
		rq->times[0].tv_sec = tb.actime;
		rq->times[0].tv_nsec = 0;
		rq->times[1].tv_sec = tb.modtime;
		rq->times[1].tv_nsec = 0;
		return 0;
	}
#endif
	if (nr == SYS_utimensat)
		return sv_read_memory(call, addr, rq->times, sizeof(rq->times));
	{
		struct timeval tv[2];
		int i;

		r = sv_read_memory(call, addr, tv, sizeof(tv));
		if (r < 0)
			return r;
		for (i = 0; i < 2; i++) {
			if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
				return -EINVAL;
			rq->times[i].tv_sec = tv[i].tv_sec;
			rq->times[i].tv_nsec = tv[i].tv_usec * 1000;
		}
	}
	return 0;
}

static int read_xattr(struct sv_call *call, uint64_t name, uint64_t value, uint64_t size,
		      struct request *rq)
{
	int r = sv_read_string(call, name, rq->xattr_name, sizeof(rq->xattr_name));

	if (r == -ENAMETOOLONG)
		return -ERANGE;
	if (r < 0)
		return r;
	if (r == 0)
		return -ERANGE;
	if (rq->op != OP_SETXATTR)
		return 0;
	if (size > XATTR_VALUE_LIMIT)
		return -E2BIG;
	rq->xattr_size = (size_t)size;
	rq->xattr_value = malloc(size > 0 ? (size_t)size : 1);
	if (rq->xattr_value == NULL)
		return -ENOMEM;
	return size > 0 ? sv_read_memory(call, value, rq->xattr_value, (size_t)size) : 0;
}

/* How each metadata syscall names its target. */
enum naming {
	BY_PATH,        /* path in args[0] */
	BY_FD,          /* fd in args[0] */
	BY_DIRFD_PATH,  /* dirfd args[0], path args[1] */
};

struct shape {
	enum naming naming;
	bool follow;
	bool empty_ok;
	int flags_arg;  /* AT_* flags, or -1 */
};

static int64_t metadata(struct sv_call *call, struct request *rq, struct shape shape)
{
	const __u64 *args = call->req->data.args;
	char path[PATH_MAX];
	struct sv_target t;
	int64_t result;
	int r;

	if (shape.flags_arg >= 0) {
		unsigned int flags = (unsigned int)args[shape.flags_arg];

		if (flags & ~(unsigned int)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
			return -EINVAL;
		shape.follow = !(flags & AT_SYMLINK_NOFOLLOW);
		shape.empty_ok = (flags & AT_EMPTY_PATH) != 0;
	}
	if (shape.naming == BY_FD) {
		rq->by_fd = true;
		r = sv_pin_fd(call, (int)args[0], &t);
	} else {
		int dirfd = shape.naming == BY_PATH ? AT_FDCWD : (int)args[0];
		uint64_t addr = shape.naming == BY_PATH ? args[0] : args[1];

		if (addr == 0 && call->req->data.nr == SYS_utimensat && dirfd != AT_FDCWD) {
			/* utimensat(fd, NULL, ...) is futimens(fd, ...) */
			if (!shape.follow)
				return -EINVAL;
			rq->by_fd = true;
			r = sv_pin_fd(call, dirfd, &t);
		} else {
			r = sv_read_string(call, addr, path, sizeof(path));
			if (r < 0)
				return r;
			r = sv_resolve(call, dirfd, path, shape.follow, shape.empty_ok, &t);
		}
	}
	if (r < 0)
		return r;
	if (!sv_call_valid(call))
		result = -ENOENT; /* nobody is waiting for the answer */
	else if (S_ISCHR(t.st.st_mode) || S_ISBLK(t.st.st_mode))
		/* A device node is never the command's own (it cannot create
		 * one: Landlock's MAKE_CHAR/MAKE_BLOCK are never granted), and
		 * under bwrap `--dev /dev` binds the host's nodes: a writable
		 * grant of /dev/null lets it write there, not chmod the host's
		 * /dev/null (SECURITY.md limit 7). */
		result = sv_refuse("metadata", operation_word[rq->op], &t, -EPERM);
	else if (!sv_inside_grants(call->sv, &t))
		result = sv_refuse("metadata", operation_word[rq->op], &t, -EPERM);
	else
		result = perform(rq, &t);
	sv_target_close(&t);
	return result;
}

/* Long on purpose: one switch over every mediated metadata call, each case
 * a few lines of resolve-pin-decide-perform; split, the cases would hide
 * that they share one order of checks. */
int64_t sv_handle_metadata(struct sv_call *call)
{
	const __u64 *args = call->req->data.args;
	long nr = call->req->data.nr;
	struct shape path_follow = { BY_PATH, true, false, -1 };
	struct shape path_nofollow = { BY_PATH, false, false, -1 };
	struct shape by_fd = { BY_FD, true, false, -1 };
	struct shape at_follow = { BY_DIRFD_PATH, true, false, -1 };
	struct request rq;
	int64_t result;
	int r = 0;

	memset(&rq, 0, sizeof(rq));
	switch (nr) {
#ifdef SYS_chmod
	case SYS_chmod:
#endif
	case SYS_fchmod:
	case SYS_fchmodat:
	case SYS_fchmodat2:
		rq.op = OP_CHMOD;
		rq.mode = (mode_t)(unsigned int)args[nr == SYS_fchmodat ||
						     nr == SYS_fchmodat2 ? 2 : 1];
		/* no set-user-ID or set-group-ID file, inside or out (the
		 * filter refuses these already; the mode is a register) */
		if (rq.mode & (S_ISUID | S_ISGID))
			return -EPERM;
		if (nr == SYS_fchmod)
			return metadata(call, &rq, by_fd);
		if (nr == SYS_fchmodat)
			return metadata(call, &rq, at_follow);
		if (nr == SYS_fchmodat2) {
			struct shape s = { BY_DIRFD_PATH, true, false, 3 };

			return metadata(call, &rq, s);
		}
		return metadata(call, &rq, path_follow);
#ifdef SYS_chown
	case SYS_chown:
#endif
#ifdef SYS_lchown
	case SYS_lchown:
#endif
	case SYS_fchown:
	case SYS_fchownat: {
		int first = nr == SYS_fchownat ? 2 : 1;
		struct shape s = { BY_DIRFD_PATH, true, false, 4 };

		rq.op = OP_CHOWN;
		rq.uid = (uid_t)(unsigned int)args[first];
		rq.gid = (gid_t)(unsigned int)args[first + 1];
		if (nr == SYS_fchown)
			return metadata(call, &rq, by_fd);
		if (nr == SYS_fchownat)
			return metadata(call, &rq, s);
#ifdef SYS_lchown
		if (nr == SYS_lchown)
			return metadata(call, &rq, path_nofollow);
#endif
		return metadata(call, &rq, path_follow);
	}
#ifdef SYS_utime
	case SYS_utime:
#endif
#ifdef SYS_utimes
	case SYS_utimes:
#endif
#ifdef SYS_futimesat
	case SYS_futimesat:
#endif
	case SYS_utimensat: {
		bool at = nr == SYS_utimensat
#ifdef SYS_futimesat
			  || nr == SYS_futimesat
#endif
			;
		struct shape s = { BY_DIRFD_PATH, true, false,
				   nr == SYS_utimensat ? 3 : -1 };

		rq.op = OP_UTIMENS;
		r = read_times(call, nr, args[at ? 2 : 1], &rq);
		if (r < 0)
			return r;
		/* the kernel's shortcut, before it looks at the path */
		if (rq.has_times && rq.times[0].tv_nsec == UTIME_OMIT &&
		    rq.times[1].tv_nsec == UTIME_OMIT)
			return 0;
#ifdef SYS_futimesat
		if (nr == SYS_futimesat && args[1] == 0) {
			rq.by_fd = true;
			return metadata(call, &rq, by_fd);
		}
#endif
		return metadata(call, &rq, at ? s : path_follow);
	}
	case SYS_setxattr:
	case SYS_lsetxattr:
	case SYS_fsetxattr:
		rq.op = OP_SETXATTR;
		rq.xattr_flags = (int)args[4];
		r = read_xattr(call, args[1], args[2], args[3], &rq);
		if (r == 0)
			result = metadata(call, &rq, nr == SYS_fsetxattr ? by_fd
						     : nr == SYS_lsetxattr ? path_nofollow
									   : path_follow);
		else
			result = r;
		free(rq.xattr_value);
		return result;
	case SYS_removexattr:
	case SYS_lremovexattr:
	case SYS_fremovexattr:
		rq.op = OP_REMOVEXATTR;
		r = read_xattr(call, args[1], 0, 0, &rq);
		if (r < 0)
			return r;
		return metadata(call, &rq, nr == SYS_fremovexattr ? by_fd
					 : nr == SYS_lremovexattr ? path_nofollow
								  : path_follow);
	case SYS_ioctl:
		rq.op = OP_IOCTL;
		rq.ioctl_cmd = (unsigned int)args[1];
		r = sv_read_memory(call, args[2], rq.ioctl_arg,
				   rq.ioctl_cmd == (unsigned int)FS_IOC_FSSETXATTR
					   ? sizeof(struct fsxattr) : sizeof(int));
		if (r < 0)
			return r;
		return metadata(call, &rq, by_fd);
	default:
		/* a syscall the filter notifies but nobody decodes: refuse */
		return -ENOSYS;
	}
}

