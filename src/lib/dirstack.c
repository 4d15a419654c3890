/* SPDX-License-Identifier: MIT */
/* The directories a walk still has to visit (dirstack.h). */
#include "dirstack.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int push(cf_dirstack *s, const char *path, const struct stat *st) {
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		cf_dirstack_entry *grown = realloc(s->items, cap * sizeof *grown);
		if (!grown)
			return -ENOMEM;
		s->items = grown;
		s->cap = cap;
	}
	if (!(s->items[s->n].path = strdup(path)))
		return -ENOMEM;
	s->items[s->n].dev = st->st_dev;
	s->items[s->n].ino = st->st_ino;
	s->n++;
	return 0;
}

int cf_dirstack_push_child(cf_dirstack *s, int dirfd, const char *dir, const char *name) {
	char path[PATH_MAX];
	struct stat st;
	int r;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	if ((size_t)snprintf(path, sizeof path, "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/",
	                     name) >= sizeof path)
		return -ENAMETOOLONG;
	r = push(s, path, &st);
	return r < 0 ? r : 1;
}

int cf_dirstack_push_root(cf_dirstack *s, const char *path) {
	struct stat st;
	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return push(s, path, &st);
}

int cf_dirstack_pop_open(cf_dirstack *s, char **ret_path, dev_t *ret_dev) {
	cf_dirstack_entry e;
	struct stat st;
	int fd;
	*ret_path = NULL;
	if (!s->n)
		return -ENOENT;
	e = s->items[--s->n];
	*ret_path = e.path;
	fd = open(e.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? -ENXIO : -errno;
	if (fstat(fd, &st) < 0 || st.st_dev != e.dev || st.st_ino != e.ino) {
		close(fd);
		return -ESTALE;
	}
	if (ret_dev)
		*ret_dev = st.st_dev;
	return fd;
}

const char *cf_dirstack_peek(const cf_dirstack *s) {
	return s->n ? s->items[s->n - 1].path : NULL;
}

void cf_dirstack_clear(cf_dirstack *s) {
	for (size_t i = 0; i < s->n; i++)
		free(s->items[i].path);
	free(s->items);
	s->items = NULL;
	s->n = s->cap = 0;
}

int cf_dirstack_walk(const char *root, cf_dirstack_visit visit, void *ctx) {
	cf_dirstack stack = { 0 };
	char *at = NULL;
	int fd, r = cf_dirstack_push_root(&stack, root);
	while (r == 0 && (fd = cf_dirstack_pop_open(&stack, &at, NULL)) != -ENOENT) {
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		struct dirent *e;
		if (fd >= 0 && !d)
			close(fd);
		while (r == 0 && d && (e = readdir(d))) {
			struct stat st;
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
			    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			r = visit(ctx, dirfd(d), at, e->d_name, &st);
			if (r == 0 && S_ISDIR(st.st_mode)) {
				int pushed = cf_dirstack_push_child(&stack, dirfd(d), at, e->d_name);
				r = pushed < 0 ? pushed : 0;
			} else if (r == 1) {
				r = 0;
			}
		}
		if (d)
			closedir(d);
		free(at);
		at = NULL;
	}
	free(at);
	cf_dirstack_clear(&stack);
	return r;
}
