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

#ifndef STATX_TYPE
/* A C library without statx() (musl before 1.2.5, which the launcher is
 * built with where musl-gcc is found): the kernel's struct and the call. */
#include <linux/stat.h>
static int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *buf)
{
	return (int)syscall(SYS_statx, dirfd, path, flags, mask, buf);
}
#endif

#include "supervise-internal.h"
#include "supervise-report.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

#define XATTR_NAME_LIMIT 255
#define XATTR_VALUE_LIMIT 65536
#define WALK_DEPTH_LIMIT 512

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

static void proc_fd_path(char *buf, size_t size, int fd)
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

/* ---- the decision ---- */

struct dir_id {
	dev_t dev;
	ino_t ino;
	int64_t btime_sec;
	uint32_t btime_nsec;
	bool has_btime;
};

static int dir_identity(int fd, struct dir_id *id)
{
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_BTIME,
		  &sx) != 0)
		return -errno;
	id->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	id->ino = sx.stx_ino;
	id->has_btime = (sx.stx_mask & STATX_BTIME) != 0;
	id->btime_sec = sx.stx_btime.tv_sec;
	id->btime_nsec = sx.stx_btime.tv_nsec;
	return 0;
}

/* sockets: only the grants where a socket is the command's own count (a
 * shared grant, the host's /dev/shm, holds other programs' too). */
static bool is_grant(const struct supervise *sv, dev_t dev, ino_t ino, bool sockets)
{
	size_t i;

	for (i = 0; i < sv->n_grants; i++)
		if (sv->grants[i].dev == dev && sv->grants[i].ino == ino &&
		    !(sockets && sv->grants[i].shared))
			return true;
	return false;
}

static size_t cache_slot(dev_t dev, ino_t ino)
{
	uint64_t h = (uint64_t)ino * 0x9e3779b97f4a7c15ULL ^ (uint64_t)dev;

	return (size_t)(h >> 32) % SV_INODE_CACHE_SLOTS;
}

static bool cache_has(const struct supervise *sv, const struct dir_id *id)
{
	const struct sv_cached_inode *c = &sv->cache[cache_slot(id->dev, id->ino)];

	return id->has_btime && c->used && c->dev == id->dev && c->ino == id->ino &&
	       c->btime_sec == id->btime_sec && c->btime_nsec == id->btime_nsec;
}

static void cache_add(struct supervise *sv, const struct dir_id *id)
{
	struct sv_cached_inode *c = &sv->cache[cache_slot(id->dev, id->ino)];

	/* Without a birth time a reused inode number could pass for a
	 * removed directory: such file systems are walked every time. */
	if (!id->has_btime)
		return;
	c->dev = id->dev;
	c->ino = id->ino;
	c->btime_sec = id->btime_sec;
	c->btime_nsec = id->btime_nsec;
	c->used = true;
}

/* Walks `..` from the directory `dirfd` (not consumed). sockets: the
 * socket decision (is_grant's), which neither reads nor fills the cache of
 * the metadata decision. */
static bool dir_inside(struct supervise *sv, int dirfd, bool sockets)
{
	struct dir_id seen[16];
	size_t n_seen = 0;
	struct dir_id id;
	bool inside = false;
	int cur = dirfd;
	int depth;
	size_t i;

	for (depth = 0; depth < WALK_DEPTH_LIMIT; depth++) {
		struct dir_id up_id;
		int up;

		if (dir_identity(cur, &id) < 0)
			break;
		if (is_grant(sv, id.dev, id.ino, sockets) || (!sockets && cache_has(sv, &id))) {
			inside = true;
			break;
		}
		if (n_seen < sizeof(seen) / sizeof(seen[0]))
			seen[n_seen++] = id;
		up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (up < 0)
			break;
		if (dir_identity(up, &up_id) < 0 ||
		    (up_id.dev == id.dev && up_id.ino == id.ino)) {
			close(up); /* the root: no grant above */
			break;
		}
		if (cur != dirfd)
			close(cur);
		cur = up;
	}
	if (cur != dirfd)
		close(cur);
	if (inside && !sockets)
		for (i = 0; i < n_seen; i++)
			cache_add(sv, &seen[i]);
	return inside;
}

/* An inode that is not a directory and whose directory we did not pin
 * (a descriptor, a followed symlink): find a name for it through the
 * kernel's path of the descriptor, check that the name still holds this
 * inode, and decide on that directory. */
static bool named_inside(struct supervise *sv, const struct sv_target *t, bool sockets)
{
	char link[64];
	char path[PATH_MAX + 1];
	const char *deleted = " (deleted)";
	int attempt;

	proc_fd_path(link, sizeof(link), t->fd);
	for (attempt = 0; attempt < 3; attempt++) {
		ssize_t n = readlink(link, path, sizeof(path) - 1);
		size_t dlen = strlen(deleted);
		struct stat st;
		char *slash;
		bool inside;
		int parent;

		if (n <= 0 || (size_t)n >= sizeof(path) - 1)
			return false;
		path[n] = '\0';
		if (path[0] != '/')
			/* pipe:[..], socket:[..]: no name, nothing to protect */
			return S_ISFIFO(t->st.st_mode) || S_ISSOCK(t->st.st_mode);
		if (t->st.st_nlink == 0) {
			/* Unlinked: decide on the directory it was last in,
			 * on the same file system. */
			if ((size_t)n <= dlen || strcmp(path + n - dlen, deleted) != 0)
				return false;
			path[n - dlen] = '\0';
		}
		slash = strrchr(path, '/');
		*slash = '\0';
		parent = open(slash == path ? "/" : path,
			      O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (parent < 0)
			continue;
		if (t->st.st_nlink == 0) {
			inside = fstat(parent, &st) == 0 && st.st_dev == t->st.st_dev &&
				 dir_inside(sv, parent, sockets);
			close(parent);
			return inside;
		}
		if (fstatat(parent, slash + 1, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    st.st_dev == t->st.st_dev && st.st_ino == t->st.st_ino) {
			inside = dir_inside(sv, parent, sockets);
			close(parent);
			return inside;
		}
		close(parent); /* renamed meanwhile: look again */
	}
	return false;
}

/*
 * A file found inside is cached too (tar sets owner, mode and times on
 * each new file: one decision, then two lookups). The command cannot move
 * it out; a hard link it already had outside (made before the run) keeps
 * the answer "inside" while the command still holds it, as Landlock lets
 * the command write such a file's contents through its inside name.
 */
bool sv_inside_grants(struct supervise *sv, const struct sv_target *t)
{
	struct dir_id id = { t->st.st_dev, t->st.st_ino, t->btime_sec, t->btime_nsec,
			     t->has_btime };
	bool inside;

	if (S_ISDIR(t->st.st_mode))
		return dir_inside(sv, t->fd, false);
	if (is_grant(sv, t->st.st_dev, t->st.st_ino, false) || cache_has(sv, &id))
		return true;
	if (t->parent >= 0)
		inside = dir_inside(sv, t->parent, false);
	else
		inside = named_inside(sv, t, false);
	if (inside && t->st.st_nlink > 0)
		cache_add(sv, &id);
	return inside;
}

/* Uncached: a connect is rarer than tar's chmods, and the answer differs
 * from the metadata one under a shared grant. */
bool sv_socket_inside_grants(struct supervise *sv, const struct sv_target *t)
{
	if (S_ISDIR(t->st.st_mode))
		return dir_inside(sv, t->fd, true);
	if (is_grant(sv, t->st.st_dev, t->st.st_ino, true))
		return true;
	if (t->parent >= 0)
		return dir_inside(sv, t->parent, true);
	return named_inside(sv, t, true);
}

bool sv_allowed_socket(const struct supervise *sv, const struct sv_target *t)
{
	struct stat st;
	size_t i;

	/* Looked up now, not at start: the daemon may create it later. */
	for (i = 0; i < sv->n_sockets; i++)
		if (stat(sv->sockets[i], &st) == 0 && S_ISSOCK(st.st_mode) &&
		    st.st_dev == t->st.st_dev && st.st_ino == t->st.st_ino)
			return true;
	return false;
}

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

	proc_fd_path(path, sizeof(path), t->fd);
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
