/* SPDX-License-Identifier: MIT */
/*
 * What a stage changed (doc/SPEC.md 21): its upper directories read
 * against the real tree as it is now, and the patch for `git apply`. A
 * name the stage holds but whose real counterpart is the same (a file
 * copied up by an open for writing that wrote nothing, a change already
 * applied) is no change.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "stage/stage-internal.h"

#define STAGE "stage"

/* git's own test for binary: a NUL byte in the first 8000. */
#define BINARY_PROBE 8000

const char *confine_change_kind_name(confine_change_kind kind) {
	switch (kind) {
	case CONFINE_CHANGE_ADDED: return "added";
	case CONFINE_CHANGE_MODIFIED: return "modified";
	case CONFINE_CHANGE_DELETED: return "deleted";
	case CONFINE_CHANGE_RENAMED: return "renamed";
	case CONFINE_CHANGE_MODE: return "mode";
	case CONFINE_CHANGE_SYMLINK: return "symlink";
	}
	return "modified";
}

typedef struct collector {
	confine_stage *stage;
	size_t root;
	cf_change *changes;
	size_t n;
	bool binary; /* tell binary files (apply has no use for it) */
} collector;

static char type_of(mode_t mode) {
	return S_ISREG(mode) ? 'f' : S_ISDIR(mode) ? 'd' : S_ISLNK(mode) ? 'l' : 'o';
}

static int rel_join(char *out, size_t size, const char *rel, const char *name) {
	int n = rel[0] ? snprintf(out, size, "%s/%s", rel, name) : snprintf(out, size, "%s", name);
	return (n < 0 || (size_t)n >= size) ? -ENAMETOOLONG : 0;
}

static bool under_git(const char *rel) {
	return strcmp(rel, ".git") == 0 || strncmp(rel, ".git/", 5) == 0 || strstr(rel, "/.git/") ||
	       (strlen(rel) >= 5 && strcmp(rel + strlen(rel) - 5, "/.git") == 0);
}

/* Whether a NUL lies in the first BINARY_PROBE bytes of the file at `path`. */
static bool looks_binary(const char *path) {
	char buf[BINARY_PROBE];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	ssize_t n;
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof buf);
	close(fd);
	return n > 0 && memchr(buf, '\0', (size_t)n) != NULL;
}

/* Whether two regular files hold the same bytes. */
static bool same_content(const char *a, const char *b) {
	int fa = open(a, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), fb = -1;
	bool same = fa >= 0 && (fb = open(b, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0;
	while (same) {
		char x[65536], y[65536];
		ssize_t n = read(fa, x, sizeof x), m;
		if (n < 0) {
			same = false;
			break;
		}
		m = n ? read(fb, y, (size_t)n) : read(fb, y, 1);
		if (n == 0) {
			same = m == 0;
			break;
		}
		same = m == n && memcmp(x, y, (size_t)n) == 0;
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

static bool same_link(const char *a, const char *b) {
	char x[PATH_MAX], y[PATH_MAX];
	ssize_t n = readlink(a, x, sizeof x), m = readlink(b, y, sizeof y);
	return n >= 0 && n == m && memcmp(x, y, (size_t)n) == 0;
}

static int add(collector *c, const char *rel, confine_change_kind kind, const struct stat *st,
               const char *stage_path, const char *real_path, bool real_is_dir) {
	cf_change *grown = realloc(c->changes, (c->n + 1) * sizeof *grown);
	const cf_stage_root *root = &c->stage->roots[c->root];
	cf_change *ch;
	char shown[PATH_MAX];
	if (!grown)
		return -ENOMEM;
	c->changes = grown;
	ch = &grown[c->n];
	memset(ch, 0, sizeof *ch);
	if (c->root == 0)
		snprintf(shown, sizeof shown, "%s", rel);
	else if (cf_stage_join(shown, sizeof shown, root->real, rel) < 0)
		return -ENAMETOOLONG;
	ch->root = c->root;
	ch->real_is_dir = real_is_dir;
	ch->pub.change = kind;
	ch->pub.type = type_of(st->st_mode);
	ch->pub.size = S_ISDIR(st->st_mode) ? 0 : (uint64_t)st->st_size;
	ch->pub.mode = st->st_mode & 07777;
	ch->pub.git = under_git(rel);
	ch->pub.binary = c->binary && S_ISREG(st->st_mode) &&
	                 (looks_binary(stage_path) || (real_path && looks_binary(real_path)));
	if (!(ch->rel = strdup(rel)) || !(ch->pub.path = strdup(shown))) {
		free(ch->rel);
		return -ENOMEM;
	}
	c->n++;
	return 0;
}

static int mark_deleted(collector *c, const char *rel, const char *real_path) {
	struct stat real;
	if (lstat(real_path, &real) < 0)
		return 0; /* gone on both sides: nothing to do */
	return add(c, rel, CONFINE_CHANGE_DELETED, &real, real_path, NULL, S_ISDIR(real.st_mode));
}

static bool is_opaque(const char *path) {
	char value[4];
	ssize_t n = lgetxattr(path, "user.overlay.opaque", value, sizeof value);
	if (n < 0)
		n = lgetxattr(path, "trusted.overlay.opaque", value, sizeof value);
	return n >= 1 && value[0] == 'y';
}

/* The real entries of an opaque directory the stage does not hold are gone. */
static int opaque_deletions(collector *c, const char *rel, const char *real_dir,
                            const char *upper_dir) {
	DIR *d = opendir(real_dir);
	struct dirent *e;
	int r = 0;
	if (!d)
		return 0;
	while (r == 0 && (e = readdir(d))) {
		char child_rel[PATH_MAX], child_upper[PATH_MAX], child_real[PATH_MAX];
		struct stat st;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (rel_join(child_rel, sizeof child_rel, rel, e->d_name) < 0 ||
		    cf_stage_join(child_upper, sizeof child_upper, upper_dir, e->d_name) < 0 ||
		    cf_stage_join(child_real, sizeof child_real, real_dir, e->d_name) < 0) {
			r = -ENAMETOOLONG;
			break;
		}
		if (lstat(child_upper, &st) == 0)
			continue; /* the stage holds it: the walk judges it */
		r = mark_deleted(c, child_rel, child_real);
	}
	closedir(d);
	return r;
}

static int walk(collector *c, const char *rel);

/* One name the upper directory holds. */
static int judge(collector *c, int at, const char *name, const char *rel) {
	const cf_stage_root *root = &c->stage->roots[c->root];
	char up[PATH_MAX], real_path[PATH_MAX];
	struct stat st, real;
	bool real_exists;
	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (cf_stage_join(up, sizeof up, root->upper, rel) < 0 ||
	    cf_stage_join(real_path, sizeof real_path, root->real, rel) < 0)
		return -ENAMETOOLONG;
	real_exists = lstat(real_path, &real) == 0;
	if (cf_stage_is_whiteout(at, name, &st))
		return real_exists ? mark_deleted(c, rel, real_path) : 0;
	if (S_ISDIR(st.st_mode)) {
		int r = 0;
		if (!real_exists || !S_ISDIR(real.st_mode)) {
			r = add(c, rel, CONFINE_CHANGE_ADDED, &st, up, NULL, false);
			if (r == 0 && real_exists)
				c->changes[c->n - 1].real_is_dir = false;
		} else {
			if ((st.st_mode & 07777) != (real.st_mode & 07777))
				r = add(c, rel, CONFINE_CHANGE_MODE, &st, up, NULL, true);
			if (r == 0 && is_opaque(up))
				r = opaque_deletions(c, rel, real_path, up);
		}
		return r == 0 ? walk(c, rel) : r;
	}
	if (S_ISLNK(st.st_mode)) {
		if (real_exists && S_ISLNK(real.st_mode) && same_link(up, real_path))
			return 0;
		return add(c, rel, CONFINE_CHANGE_SYMLINK, &st, up, NULL,
		           real_exists && S_ISDIR(real.st_mode));
	}
	if (!real_exists)
		return add(c, rel, CONFINE_CHANGE_ADDED, &st, up, NULL, false);
	if (S_ISREG(st.st_mode) && S_ISREG(real.st_mode) && same_content(up, real_path))
		return (st.st_mode & 07777) == (real.st_mode & 07777)
		               ? 0
		               : add(c, rel, CONFINE_CHANGE_MODE, &st, up, real_path, false);
	return add(c, rel, CONFINE_CHANGE_MODIFIED, &st, up, S_ISREG(real.st_mode) ? real_path : NULL,
	           S_ISDIR(real.st_mode));
}

static int walk(collector *c, const char *rel) {
	const cf_stage_root *root = &c->stage->roots[c->root];
	char up[PATH_MAX];
	DIR *d;
	struct dirent *e;
	int r = 0;
	if (cf_stage_join(up, sizeof up, root->upper, rel) < 0)
		return -ENAMETOOLONG;
	if (!(d = opendir(up)))
		return errno == ENOENT ? 0 : -errno;
	while (r == 0 && (e = readdir(d))) {
		char child[PATH_MAX];
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (rel_join(child, sizeof child, rel, e->d_name) < 0)
			r = -ENAMETOOLONG;
		else
			r = judge(c, dirfd(d), e->d_name, child);
	}
	closedir(d);
	return r;
}

static int change_cmp(const void *a, const void *b) {
	const cf_change *x = a, *y = b;
	int r = strcmp(x->pub.path, y->pub.path);
	return r ? r : (int)x->pub.change - (int)y->pub.change;
}

/* A deleted file whose bytes and mode an added file of the same root
 * holds is a rename: one change, at the new path. */
static void find_renames(confine_stage *stage, cf_change *ch, size_t n) {
	for (size_t i = 0; i < n; i++) {
		cf_change *del = &ch[i];
		char real_path[PATH_MAX];
		if (del->pub.change != CONFINE_CHANGE_DELETED || del->pub.type != 'f')
			continue;
		if (cf_stage_join(real_path, sizeof real_path, stage->roots[del->root].real, del->rel) < 0)
			continue;
		for (size_t j = 0; j < n; j++) {
			cf_change *a = &ch[j];
			char up[PATH_MAX];
			if (a->pub.change != CONFINE_CHANGE_ADDED || a->pub.type != 'f' ||
			    a->root != del->root || a->pub.size != del->pub.size ||
			    a->pub.mode != del->pub.mode)
				continue;
			if (cf_stage_join(up, sizeof up, stage->roots[a->root].upper, a->rel) < 0 ||
			    !same_content(up, real_path))
				continue;
			a->pub.change = CONFINE_CHANGE_RENAMED;
			a->pub.from = del->pub.path;
			a->from_rel = del->rel;
			del->pub.path = NULL;
			del->rel = NULL;
			del->pub.change = 0; /* dropped below */
			break;
		}
	}
}

int cf_stage_collect(confine_stage *stage, bool binary, cf_change **ret, size_t *ret_n,
                     confine_error *err) {
	collector c = { .stage = stage, .binary = binary };
	size_t kept = 0;
	int r = 0;
	for (size_t i = 0; r == 0 && i < stage->n_roots; i++) {
		c.root = i;
		r = walk(&c, "");
	}
	if (r < 0) {
		cf_stage_changes_clear(c.changes, c.n);
		return r == -ENOMEM
		               ? cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, STAGE, ENOMEM, "out of memory")
		               : cf_error_set(err, -r, CONFINE_E_FS, STAGE, -r, "stage: reading %s: %s",
		                              stage->dir, strerror(-r));
	}
	find_renames(stage, c.changes, c.n);
	for (size_t i = 0; i < c.n; i++)
		if (c.changes[i].pub.change)
			c.changes[kept++] = c.changes[i];
	if (kept > 1)
		qsort(c.changes, kept, sizeof *c.changes, change_cmp);
	*ret = c.changes;
	*ret_n = kept;
	return 0;
}

void cf_stage_changes_clear(cf_change *changes, size_t n) {
	for (size_t i = 0; changes && i < n; i++) {
		free(changes[i].pub.path);
		free(changes[i].pub.from);
		free(changes[i].rel);
		free(changes[i].from_rel);
	}
	free(changes);
}

int confine_stage_changes(confine_stage *stage, confine_stage_change **ret, size_t *ret_n,
                          confine_error *err) {
	cf_change *ch;
	confine_stage_change *out;
	size_t n;
	int r;
	if (!stage || !ret || !ret_n)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "confine_stage_changes needs a stage and result pointers");
	if ((r = cf_stage_collect(stage, true, &ch, &n, err)) < 0)
		return r;
	if (!(out = calloc(n ? n : 1, sizeof *out))) {
		cf_stage_changes_clear(ch, n);
		return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, STAGE, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		out[i] = ch[i].pub;
		ch[i].pub.path = ch[i].pub.from = NULL;
	}
	cf_stage_changes_clear(ch, n);
	*ret = out;
	*ret_n = n;
	return 0;
}

void confine_stage_changes_free(confine_stage_change *changes, size_t n) {
	for (size_t i = 0; changes && i < n; i++) {
		free(changes[i].path);
		free(changes[i].from);
	}
	free(changes);
}
