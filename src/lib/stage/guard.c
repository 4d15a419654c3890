/* SPDX-License-Identifier: MIT */
/*
 * What apply checks against the manifest (doc/SPEC.md 21) before it
 * changes the real tree, and the removal that checks again as it goes.
 * A change is applied only onto what the run started from: the entry it
 * replaces, and for a change that removes a real directory every entry
 * below it, must be what the manifest recorded (type, inode, size, mtime,
 * ctime). Everything is reached through directory fds opened from the
 * root with O_NOFOLLOW, so a link the host plants at a component is never
 * followed: it is a change.
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

/* Deeper than this and the subtree is a conflict (never a partial check). */
#define GUARD_MAX_DEPTH 4096

static void name_it(char *which, size_t size, const confine_stage *s, size_t root,
                    const char *rel) {
	if (cf_stage_join(which, size, s->roots[root].real, rel) < 0)
		snprintf(which, size, "%s", s->roots[root].real);
}

static int rel_join(char *out, size_t size, const char *rel, const char *name) {
	int n = rel[0] ? snprintf(out, size, "%s/%s", rel, name) : snprintf(out, size, "%s", name);
	return (n < 0 || (size_t)n >= size) ? -ENAMETOOLONG : 0;
}

int cf_stage_open_parent(const confine_stage *s, size_t root, const char *rel, bool before_apply,
                         int *ret_fd, char *name, size_t name_size, char *which,
                         size_t which_size) {
	char prefix[PATH_MAX];
	const char *p = rel, *slash;
	/* during apply, the root it checked (apply.c's hold_roots) */
	int fd = s->roots[root].fd >= 0
	                 ? openat(s->roots[root].fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
	                 : open(s->roots[root].real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((slash = strchr(p, '/'))) {
		size_t len = (size_t)(slash - p), plen = (size_t)(slash - rel);
		char comp[NAME_MAX + 1];
		struct stat st;
		const cf_stage_entry *e;
		int next;
		if (len == 0 || len > NAME_MAX || plen >= sizeof prefix) {
			close(fd);
			return -ENAMETOOLONG;
		}
		memcpy(comp, p, len);
		comp[len] = '\0';
		memcpy(prefix, rel, plen);
		prefix[plen] = '\0';
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		e = cf_stage_entry_of(s, root, prefix);
		if (next < 0 && errno != ENOENT && errno != ENOTDIR && errno != ELOOP) {
			int r = -errno;
			close(fd);
			return r;
		}
		if (next < 0 && errno == ENOENT && !e) {
			close(fd); /* new below here: absent then, absent now */
			return 2;
		}
		/* Gone, no longer a directory, a link, or another directory than
		 * the one the run began with: what the change lands in changed. */
		if (next < 0 || fstat(next, &st) < 0 || (!e && before_apply) ||
		    (e && (e->type != 'd' || e->ino != (uint64_t)st.st_ino))) {
			if (next >= 0)
				close(next);
			close(fd);
			name_it(which, which_size, s, root, prefix);
			return 1;
		}
		close(fd);
		fd = next;
		p = slash + 1;
	}
	if (strlen(p) >= name_size || !p[0]) {
		close(fd);
		return -ENAMETOOLONG;
	}
	snprintf(name, name_size, "%s", p);
	*ret_fd = fd;
	return 0;
}

/* Whether the entry `name` at `at` (the real `rel`), and with `deep` all
 * below it, is as the manifest recorded. */
/* The directory `name` under `at`, opened without following a link, as
 * the inode `st` that was just examined: -ESTALE when another is there
 * now (swapped under us), else 0 and *ret, or -errno. */
static int open_same_dir(int at, const char *name, const struct stat *st, DIR **ret) {
	struct stat fst;
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &fst) < 0 || fst.st_ino != st->st_ino || fst.st_dev != st->st_dev) {
		if (fd >= 0)
			close(fd);
		return -ESTALE;
	}
	if (!(*ret = fdopendir(fd))) {
		int e = errno;
		close(fd);
		return -e;
	}
	return 0;
}

static int check_entry(const confine_stage *s, size_t root, int at, const char *name,
                       const char *rel, bool deep, unsigned depth, char *which, size_t size) {
	struct stat st;
	bool exists = fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
	int r = 0;
	DIR *d;
	struct dirent *ent;
	if (!exists && errno != ENOENT)
		return -errno;
	if (!cf_stage_entry_matches(cf_stage_entry_of(s, root, rel), exists ? &st : NULL) ||
	    (deep && depth > GUARD_MAX_DEPTH)) {
		name_it(which, size, s, root, rel);
		return 1;
	}
	if (!deep || !exists || !S_ISDIR(st.st_mode))
		return 0;
	if ((r = open_same_dir(at, name, &st, &d)) != 0) {
		if (r == -ESTALE) {
			name_it(which, size, s, root, rel); /* swapped under us */
			return 1;
		}
		return r;
	}
	while (r == 0 && (ent = readdir(d))) {
		char child[PATH_MAX];
		if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
			continue;
		if ((r = rel_join(child, sizeof child, rel, ent->d_name)) == 0)
			r = check_entry(s, root, dirfd(d), ent->d_name, child, true, depth + 1, which, size);
	}
	closedir(d);
	return r;
}

int cf_stage_conflict(const confine_stage *s, size_t root, const char *rel, bool deep,
                      bool before_apply, char *which, size_t which_size) {
	char name[NAME_MAX + 1];
	int fd = -1, r = cf_stage_open_parent(s, root, rel, before_apply, &fd, name, sizeof name,
	                                      which, which_size);
	if (r != 0)
		return r == 2 ? 0 : r;
	r = check_entry(s, root, fd, name, rel, deep, 0, which, which_size);
	close(fd);
	return r;
}

static int remove_at(const confine_stage *s, size_t root, int at, const char *name, const char *rel,
                     unsigned depth, char *which, size_t size, size_t *removed) {
	struct stat st;
	int r = 0;
	DIR *d;
	struct dirent *ent;
	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			return -errno;
		/* Gone meanwhile: the host's doing; nothing of ours to remove,
		 * but what held it changed. */
		name_it(which, size, s, root, rel);
		return -ESTALE;
	}
	if (!cf_stage_entry_matches(cf_stage_entry_of(s, root, rel), &st) || depth > GUARD_MAX_DEPTH) {
		name_it(which, size, s, root, rel);
		return -ESTALE;
	}
	if (S_ISDIR(st.st_mode)) {
		if ((r = open_same_dir(at, name, &st, &d)) != 0) {
			if (r == -ESTALE)
				name_it(which, size, s, root, rel);
			return r;
		}
		while (r == 0 && (ent = readdir(d))) {
			char child[PATH_MAX];
			if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
				continue;
			if ((r = rel_join(child, sizeof child, rel, ent->d_name)) == 0)
				r = remove_at(s, root, dirfd(d), ent->d_name, child, depth + 1, which, size,
				              removed);
		}
		closedir(d);
		if (r < 0)
			return r;
	}
	if (unlinkat(at, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) < 0) {
		if (errno != ENOTEMPTY && errno != EEXIST)
			return -errno;
		/* The host made an entry in it after it was read. */
		name_it(which, size, s, root, rel);
		return -ESTALE;
	}
	(*removed)++;
	return 0;
}

int cf_stage_remove_checked(const confine_stage *s, size_t root, int at, const char *name,
                            const char *rel, char *which, size_t which_size, size_t *removed) {
	*removed = 0;
	return remove_at(s, root, at, name, rel, 0, which, which_size, removed);
}
