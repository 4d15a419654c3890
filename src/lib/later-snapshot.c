/* SPDX-License-Identifier: MIT */
/*
 * What runs later (later.c): the before/after fingerprint of every
 * protected entry, which reports a change (a gitHazards entry of kind
 * "planted") where a rung cannot keep an entry read-only.
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
#ifdef __linux__
#include <sys/xattr.h>
#endif

#include "dirstack.h"
#include "later.h"

#include "call-scope.h"
#include "policy-internal.h"

/* Directory entries one snapshot reads in all (a bound on the work). */
#define LATER_BUDGET 20000

struct later_item {
	char *path;
	uint64_t print;
	bool incomplete;
};

struct cf_later_snapshot {
	struct later_item *items;
	size_t n;
	size_t spent;
	char *const *roots; /* while it is taken */
};

static uint64_t mix(uint64_t h, const void *data, size_t len) {
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

static uint64_t print_stat(const char *name, const struct stat *st) {
	uint64_t h = 14695981039346656037ull;
	int64_t t[4] = { st->st_mtim.tv_sec, st->st_mtim.tv_nsec, st->st_ctim.tv_sec,
		             st->st_ctim.tv_nsec };
	h = mix(h, name, strlen(name) + 1);
	h = mix(h, &st->st_dev, sizeof st->st_dev);
	h = mix(h, &st->st_ino, sizeof st->st_ino);
	h = mix(h, &st->st_mode, sizeof st->st_mode);
	h = mix(h, &st->st_size, sizeof st->st_size);
	h = mix(h, &st->st_nlink, sizeof st->st_nlink);
	h = mix(h, &st->st_uid, sizeof st->st_uid);
	h = mix(h, t, sizeof t);
	return h;
}

static int print_target(cf_later_snapshot *s, char *const *roots, const char *path, bool dir,
                        uint64_t *print, bool *incomplete);

/* A directory's whole tree: each entry's print summed (order-free), the
 * walk bounded by the snapshot's budget. With `roots`, a symbolic link in
 * it is printed with what it resolves to as well (a later tool follows
 * it: `.husky/pre-commit -> ../scripts/hook`), not further. */
static int print_tree(cf_later_snapshot *s, char *const *roots, const char *top, uint64_t *sum,
                      bool *incomplete) {
	cf_dirstack stack = { 0 };
	char *at = NULL;
	int fd, r = 0;
	if ((r = cf_dirstack_push_root(&stack, top)) < 0)
		return r == -ENOMEM ? r : 0;
	while ((fd = cf_dirstack_pop_open(&stack, &at, NULL)) != -ENOENT) {
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		struct dirent *e;
		if (fd >= 0 && !d)
			close(fd);
		if (fd == -ESTALE)
			*incomplete = true;
		while (d && (e = readdir(d))) {
			struct stat st;
			char rel[PATH_MAX * 2];
			if (e->d_name[0] == '.' &&
			    (e->d_name[1] == '\0' || (e->d_name[1] == '.' && e->d_name[2] == '\0')))
				continue;
			if (++s->spent > LATER_BUDGET) {
				*incomplete = true;
				break;
			}
			if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			snprintf(rel, sizeof rel, "%s/%s", at + strlen(top), e->d_name);
			if (roots && S_ISLNK(st.st_mode)) {
				char link[PATH_MAX * 2 + 2];
				uint64_t print = print_stat(rel, &st);
				snprintf(link, sizeof link, "%s/%s", at, e->d_name);
				if (print_target(s, NULL, link, true, &print, incomplete) == -ENOMEM)
					r = -ENOMEM;
				*sum += print;
				continue;
			}
			*sum += print_stat(rel, &st);
			if (S_ISDIR(st.st_mode) &&
			    cf_dirstack_push_child(&stack, dirfd(d), at, e->d_name) == -ENOMEM)
				r = -ENOMEM;
		}
		if (d)
			closedir(d);
		free(at);
		at = NULL;
		if (r < 0 || *incomplete)
			break;
	}
	free(at);
	cf_dirstack_clear(&stack);
	return r;
}

/* A run's stand-in (src/lib/spawn/placeholders.c): empty and marked. A
 * concurrent run in the same root makes and removes these while this one
 * lives; they hold nothing a later tool could run, so they read as
 * missing and are no plant. An empty file or directory carrying the mark
 * made by the command is as harmless. */
static bool stand_in(const char *path, const struct stat *st);

bool cf_later_is_marked(const char *path) {
#ifdef __linux__
	char mark;
	struct stat st;
	return lstat(path, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) &&
	       lgetxattr(path, "user.confine.placeholder", &mark, 1) == 1;
#else
	(void)path;
	return false;
#endif
}

bool cf_later_is_stand_in(const char *path) {
	struct stat st;
	return lstat(path, &st) == 0 && stand_in(path, &st);
}

static bool stand_in(const char *path, const struct stat *st) {
#ifdef __linux__
	char mark;
	if (!(S_ISREG(st->st_mode) && st->st_size == 0) && !S_ISDIR(st->st_mode))
		return false;
	if (lgetxattr(path, "user.confine.placeholder", &mark, 1) != 1)
		return false;
	if (S_ISDIR(st->st_mode)) {
		DIR *d = opendir(path);
		struct dirent *e;
		bool empty = d != NULL;
		while (empty && (e = readdir(d)))
			empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
		if (d)
			closedir(d);
		return empty;
	}
	return true;
#else
	(void)path;
	(void)st;
	return false;
#endif
}

/* Whether `path` lies at or under one of `roots`. */
static bool in_roots(char *const *roots, const char *path) {
	for (size_t k = 0; roots && roots[k]; k++)
		if (cf_path_at_or_under(path, roots[k]))
			return true;
	return false;
}

/* An entry that is a symbolic link (a dotfile manager's `.bashrc ->
 * dot/bashrc`), or a link inside an entry's tree: what it resolves to is
 * printed too when that lies in a writable root (`roots`; NULL: the
 * snapshot's), where the command could rewrite it through the other
 * name; the resolved name is part of the print, so re-pointing the link
 * (or a link on its chain) shows as well. A directory it resolves to is
 * printed whole, its own links as links. */
static int print_target(cf_later_snapshot *s, char *const *roots, const char *path, bool dir,
                        uint64_t *print, bool *incomplete) {
	char *real = realpath(path, NULL);
	struct stat st;
	int r = 0;
	if (!real) {
		*print = mix(*print, "dangling", 9);
		return errno == ENOMEM ? -ENOMEM : 0;
	}
	if (!roots)
		roots = s->roots;
	*print = mix(*print, real, strlen(real) + 1);
	if (in_roots(roots, real) && lstat(real, &st) == 0) {
		uint64_t sum = print_stat("->", &st);
		if (dir && S_ISDIR(st.st_mode))
			r = print_tree(s, NULL, real, &sum, incomplete);
		*print ^= sum;
	}
	free(real);
	return r;
}

static int take_one(cf_later_snapshot *s, char *const *roots, const char *path, bool dir) {
	struct later_item *grown = realloc(s->items, (s->n + 1) * sizeof *grown);
	struct stat st;
	uint64_t print = 0;
	bool incomplete = false;
	int r = 0;
	if (!grown)
		return -ENOMEM;
	s->items = grown;
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->items[i].path, path) == 0)
			return 0; /* a home that is a root */
	if (lstat(path, &st) == 0 && stand_in(path, &st)) {
		print = 1; /* as missing */
	} else if (lstat(path, &st) == 0) {
		print = print_stat("", &st);
		if (S_ISLNK(st.st_mode))
			r = print_target(s, roots, path, dir, &print, &incomplete);
		else if (dir && S_ISDIR(st.st_mode))
			r = print_tree(s, roots, path, &print, &incomplete);
	} else {
		print = errno == ENOENT ? 1 : 2; /* missing; cannot be examined */
	}
	if (r < 0 || !(s->items[s->n].path = strdup(path)))
		return -ENOMEM;
	s->items[s->n].print = print;
	s->items[s->n].incomplete = incomplete;
	s->n++;
	return 0;
}

static bool is_root(char *const *roots, const char *dir) {
	for (size_t k = 0; roots && roots[k]; k++)
		if (strcmp(roots[k], dir) == 0)
			return true;
	return false;
}

struct take_ctx {
	cf_later_snapshot *s;
	char *const *roots;
};

static int take_visit(void *ctx, const char *root, const char *path, const cf_later_entry *e) {
	struct take_ctx *t = ctx;
	(void)root;
	return take_one(t->s, t->roots, path, e->dir);
}

/* The project entries at `dir` (`first`: NULL for all of them, else only
 * those whose first component it is). */
static int take_project(cf_later_snapshot *s, const confine_policy *policy, char *const *roots,
                        const char *dir, const char *first) {
	char path[PATH_MAX];
	int r = 0;
	for (size_t i = 0; r == 0 && i < cf_later_count; i++) {
		const cf_later_entry *e = &cf_later_entries[i];
		if (!cf_later_project(e) || !cf_later_protected(policy, e) ||
		    (first && (strcspn(e->name, "/") != strlen(first) ||
		               strncmp(e->name, first, strlen(first)) != 0)) ||
		    (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->name) >= sizeof path)
			continue;
		r = take_one(s, roots, path, e->dir);
	}
	return r;
}

static int take(const confine_policy *policy, char *const *roots, char *const *worktrees,
                char *const *const *marks, cf_later_snapshot **ret);

/* One look: its several passes over the entries resolve each path once
 * (call-scope.h, later-home.c), before the run and after it alike. */
int cf_later_snapshot_take(const confine_policy *policy, char *const *roots,
                           char *const *worktrees, char *const *const *marks,
                           cf_later_snapshot **ret) {
	int r;
	cf_call_open();
	r = take(policy, roots, worktrees, marks, ret);
	cf_call_close();
	return r;
}

static int take(const confine_policy *policy, char *const *roots, char *const *worktrees,
                char *const *const *marks, cf_later_snapshot **ret) {
	cf_later_snapshot *s = calloc(1, sizeof *s);
	struct take_ctx t = { s, roots };
	char dir[PATH_MAX];
	int r = 0;
	if (!s)
		return -ENOMEM;
	s->roots = roots;
	r = cf_later_each(policy, roots, take_visit, &t);
	/* A nested repository's work tree: a project, as a root is; and what
	 * git obeys at each work tree beyond the entries. */
	for (size_t k = 0; r == 0 && worktrees && worktrees[k]; k++) {
		if (!is_root(roots, worktrees[k]) && in_roots(roots, worktrees[k]))
			r = take_project(s, policy, roots, worktrees[k], NULL);
		if (r == 0 && in_roots(roots, worktrees[k]))
			r = cf_later_worktree_each(policy, worktrees[k], roots, take_visit, &t);
	}
	/* A directory below a root holding an entry's first component (a
	 * sub-project's `CLAUDE.md`, `.claude/`, `.envrc`): those entries. */
	for (size_t l = 0; r == 0 && policy->default_protections && marks && marks[l]; l++)
		for (size_t k = 0; r == 0 && marks[l][k]; k++) {
			const char *slash = strrchr(marks[l][k], '/');
			size_t len = slash ? (size_t)(slash - marks[l][k]) : 0;
			if (!slash || len >= sizeof dir)
				continue;
			memcpy(dir, marks[l][k], len);
			dir[len] = '\0';
			if (!is_root(roots, dir) && in_roots(roots, dir))
				r = take_project(s, policy, roots, dir, slash + 1);
		}
	/* A protected file with other names (later-links.c): a write through
	 * one inside a root changes it, wherever it is (`~/.bashrc` with the
	 * home read-only), so it is printed too. */
	if (r == 0 && policy->default_protections) {
		cf_later_links links;
		if ((r = cf_later_links_collect(policy, roots, false, &links)) == 0)
			for (size_t i = 0; r == 0 && i < links.n; i++)
				r = take_one(s, roots, links.items[i].path, false);
		cf_later_links_clear(&links);
	}
	s->roots = NULL;
	if (r < 0) {
		cf_later_snapshot_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

static int push_hazard(confine_git_hazard **hazards, size_t *n, const char *path,
                       const char *kind) {
	confine_git_hazard *grown;
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*hazards)[i].path, path) == 0 && strcmp((*hazards)[i].kind, kind) == 0)
			return 0;
	if (!(grown = realloc(*hazards, (*n + 1) * sizeof *grown)))
		return -ENOMEM;
	*hazards = grown;
	grown[*n].path = strdup(path);
	grown[*n].kind = strdup(kind);
	if (!grown[*n].path || !grown[*n].kind) {
		free(grown[*n].path);
		free(grown[*n].kind);
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

int cf_later_snapshot_diff(const cf_later_snapshot *before, const cf_later_snapshot *after,
                           confine_git_hazard **hazards, size_t *n) {
	if (!before || !after)
		return 0;
	for (size_t i = 0; i < after->n; i++) {
		const struct later_item *a = &after->items[i];
		const struct later_item *b = NULL;
		int r = 0;
		for (size_t j = 0; j < before->n && !b; j++)
			if (strcmp(before->items[j].path, a->path) == 0)
				b = &before->items[j];
		if (!b && a->print == 1)
			continue; /* a work tree the run made, without the entry */
		if (!b || b->print != a->print)
			r = push_hazard(hazards, n, a->path, "planted");
		else if (a->incomplete || b->incomplete)
			r = push_hazard(hazards, n, a->path, "incomplete");
		if (r < 0)
			return r;
	}
	return 0;
}

void cf_later_snapshot_free(cf_later_snapshot *snapshot) {
	if (!snapshot)
		return;
	for (size_t i = 0; i < snapshot->n; i++)
		free(snapshot->items[i].path);
	free(snapshot->items);
	free(snapshot);
}
