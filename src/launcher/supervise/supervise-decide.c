/* SPDX-License-Identifier: MIT */
/*
 * The decision on a pinned inode: inside a writable grant or not, and
 * whether a socket may be reached (supervise-internal.h; supervise-perform.c
 * says why the answer is stable for the run).
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

#define WALK_DEPTH_LIMIT 512

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

	sv_proc_fd_path(link, sizeof(link), t->fd);
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

