/* SPDX-License-Identifier: MIT */
/*
 * Other names of protected files met by the walk of the writable roots
 * (protect-internal.h; later-links.c collects the protected files; issue
 * 28's R28b-links and R28c-dir-links).
 *
 * A name the walk meets whose device and inode are a protected file's is
 * held as that file is. Where the listing of a protected directory was
 * cut by its budget, a file on that device could be one the listing did
 * not reach: a regular file with more names (st_nlink) than the walk of
 * the roots meets is one with a name elsewhere, and with one such the
 * defaults do not hold in full, and the report names it and the listing
 * cut. A file whose names all lie in the roots (cargo's `target/`, `cp
 * -al` inside the workspace) is nobody's other name.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirstack.h"
#include "git-hazards.h"
#include "later.h"
#include "policy-internal.h"
#include "profiles/protect-internal.h"

/* Noted names keep their paths up to this many; past it the report says
 * the count could not be kept (never a silent cut). */
#define NOTED_MAX 4096

struct cf_protect_named {
	dev_t dev;
	ino_t ino;
	nlink_t nlink;
	size_t order;
	bool protected_name; /* below a protected directory, or a protected item */
	char *path;          /* NULL past NOTED_MAX */
};

/* Whether `path`, in root c->root, lies in an earlier root too (then the
 * walk of that one counted this name already). */
static bool counted_before(const struct collect *c, const char *path) {
	for (size_t k = 0; k < c->root; k++)
		if (cf_path_at_or_under(path, c->plan->writable[k]))
			return true;
	return false;
}

static void note(struct collect *c, const char *path, const struct stat *st, bool protected_name) {
	struct cf_protect_named *e;
	if (counted_before(c, path))
		return;
	if (c->n_named == c->cap_named) {
		size_t cap = c->cap_named ? c->cap_named * 2 : 64;
		struct cf_protect_named *grown = realloc(c->named, cap * sizeof *grown);
		if (!grown) {
			c->oom = true;
			return;
		}
		c->named = grown;
		c->cap_named = cap;
	}
	e = &c->named[c->n_named];
	*e = (struct cf_protect_named){ st->st_dev, st->st_ino, st->st_nlink, c->n_named,
		                        protected_name, NULL };
	if (c->n_named < NOTED_MAX && !(e->path = strdup(path))) {
		c->oom = true;
		return;
	}
	c->n_named++;
}

static bool under_item(const struct collect *c, const char *path);

/* `path` another name of the protected `of`: held as it is. */
static void hold(struct collect *c, const char *path, const char *of) {
	cf_protect_add_item(c, path, CF_PLACEHOLDER_NONE, true);
	for (size_t i = 0; i < c->n && !c->oom; i++)
		if (strcmp(c->items[i].path, path) == 0 && !c->items[i].link_of &&
		    !(c->items[i].link_of = strdup(of)))
			c->oom = true;
}

void cf_protect_hard_link(struct collect *c, int dirfd_, const char *dir, const char *name,
                          ino_t ino, bool git_object) {
	char path[PATH_MAX];
	const char *of;
	struct stat st;
	bool maybe = cf_later_links_may(&c->links, ino), cut = cf_later_links_cut(&c->links);
	if (!maybe && !cut)
		return; /* the cheap look: no protected file has this number */
	if (fstatat(dirfd_, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_nlink < 2)
		return;
	of = maybe ? cf_later_links_of(&c->links, &st) : NULL;
	if (cf_protect_join(path, sizeof path, dir, name) < 0) {
		if (of || cut)
			cf_protect_defaults_unprotected(c, "%s/%s has %lu names: the path is too long to "
			                                   "hold or count them", dir, name,
			                                (unsigned long)st.st_nlink);
		return;
	}
	if (!of) {
		/* Where a listing was cut, every name is counted; one below a
		 * protected directory (past the cut) or a protected path (a
		 * nested repository's hooks) is a protected file's. */
		/* A git object (below a gitdir's objects/, no write bit: git
		 * writes each 0444, and `git clone` of a local path links them
		 * to the source's) is content, never run or obeyed: not counted,
		 * or every such clone would read partial while a listing is cut. */
		if (cut && !c->rewalk && !(git_object && !(st.st_mode & 0222)))
			note(c, path, &st, cf_later_links_in_dir(&c->links, path) || under_item(c, path));
		return;
	}
	if (strcmp(path, of) == 0)
		return; /* the file itself, held as an entry (or a grant asked for by name) */
	/* (a name inside a held protected directory is dropped as covered) */
	hold(c, path, of);
}

/* Whether `dir`, in the tree of `gitdir`, is an objects/ directory or
 * below one (its own, or a submodule's in modules/). */
static bool objects_below(const char *gitdir, const char *dir) {
	size_t n = strlen(gitdir), len;
	const char *rest = dir + n;
	if (strncmp(dir, gitdir, n) != 0)
		return false;
	len = strlen(rest);
	return strstr(rest, "/objects/") ||
	       (len >= 8 && strcmp(rest + len - 8, "/objects") == 0);
}

/* One of the repositories' own directories (a `.git/`, a bare
 * repository), which the walk does not enter: every name in it looked at
 * as the walk's are (a link planted in `.git/objects/` is written as any
 * other), within the walk's budget. */
static void git_tree(struct collect *c, const char *gitdir, bool skip_top) {
	cf_dirstack stack = { 0 };
	char *dir = NULL;
	int fd;
	if ((fd = cf_dirstack_push_root(&stack, gitdir)) < 0) {
		if (fd == -ENOMEM)
			c->oom = true;
		return;
	}
	while (!c->oom && c->entries <= cf_git_scan_budget &&
	       (fd = cf_dirstack_pop_open(&stack, &dir, NULL)) != -ENOENT) {
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		struct dirent *e;
		if (fd >= 0 && !d)
			close(fd);
		while (d && (e = readdir(d))) {
			const char *n = e->d_name;
			if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0')))
				continue;
			if (!cf_protect_spend(c, dir))
				break;
			if (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN) {
				int r = cf_dirstack_push_child(&stack, dirfd(d), dir, n);
				if (r == -ENOMEM)
					c->oom = true;
				else if (r == -ENAMETOOLONG)
					cf_protect_defaults_unprotected(c, "%s/%s: the path is too long to walk",
					                                dir, n);
				if (e->d_type == DT_DIR || r == 1)
					continue;
			}
			if (e->d_type != DT_LNK && !(skip_top && strcmp(dir, gitdir) == 0))
				cf_protect_hard_link(c, dirfd(d), dir, n, (ino_t)e->d_ino,
				                     objects_below(gitdir, dir));
		}
		if (d)
			closedir(d);
		if (fd == -ESTALE)
			cf_protect_defaults_unprotected(c, "%s changed while it was walked", dir);
		else if (fd == -EACCES)
			cf_protect_unlistable(c, dir);
		else if (fd != -ENXIO && fd < 0)
			cf_protect_defaults_unprotected(c, "%s could not be opened to walk: %s", dir,
			                                strerror(-fd));
		free(dir);
		dir = NULL;
	}
	free(dir);
	cf_dirstack_clear(&stack);
}

/* What walk_dir takes for a bare repository (and does not enter). */
static bool bare(const char *dir) {
	static const char *const marks[] = { "HEAD", "objects", "config" };
	char path[PATH_MAX];
	struct stat st;
	for (size_t i = 0; i < sizeof marks / sizeof *marks; i++)
		if (cf_protect_join(path, sizeof path, dir, marks[i]) < 0 || lstat(path, &st) < 0)
			return false;
	return true;
}

/* Whether git_tree looks at the gitdir `g` (in a root): one named `.git`,
 * which the walk does not enter, whole; one taken for a bare repository,
 * whose top the walk read, below its top. One not named `.git` the walk
 * entered it saw whole itself. */
static bool looked_at(const char *g, bool *skip_top) {
	const char *top = strrchr(g, '/');
	*skip_top = !(top && strcmp(top, "/.git") == 0);
	return !*skip_top || bare(g);
}

void cf_protect_git_trees(struct collect *c) {
	if (!c->links.n && !cf_later_links_cut(&c->links))
		return;
	for (size_t i = 0; i < c->n_gitdirs && !c->oom; i++) {
		const char *g = c->gitdirs[i];
		bool inside = false, skip_top, outer_top;
		if (!cf_protect_root_of(c->plan, g) || !looked_at(g, &skip_top))
			continue;
		/* a gitdir inside another one looked at (a submodule's in
		 * `modules/`, a repository below a bare one): walked with it,
		 * each name counted once */
		for (size_t j = 0; j < c->n_gitdirs && !inside; j++)
			inside = j != i && strcmp(c->gitdirs[j], g) != 0 &&
			         cf_path_at_or_under(g, c->gitdirs[j]) &&
			         cf_protect_root_of(c->plan, c->gitdirs[j]) &&
			         looked_at(c->gitdirs[j], &outer_top);
		if (inside)
			continue;
		/* its names counted as the first root holding it walked them */
		for (c->root = 0; c->plan->writable[c->root] &&
		                  !cf_path_at_or_under(g, c->plan->writable[c->root]);
		     c->root++)
			;
		git_tree(c, g, skip_top);
	}
}

/* The files below `top` (a nested repository's hooks/ or info/, at any
 * depth: a hook's sourced library in hooks/lib/) with other names, added
 * to the protected files; within the walk's budget. Whether any was. */
static bool late_tree(struct collect *c, const char *top) {
	char **stack = NULL;
	bool added = false;
	if (cf_strv_push(&stack, top) < 0) {
		c->oom = true;
		return false;
	}
	while (!c->oom && stack && stack[0]) {
		size_t n = cf_strv_length((const char *const *)stack);
		char *dir = stack[n - 1];
		DIR *d;
		struct dirent *e;
		stack[n - 1] = NULL;
		if (!(d = opendir(dir)) && errno != ENOENT && errno != ENOTDIR && strcmp(dir, top) != 0)
			cf_protect_defaults_unprotected(c, "%s could not be listed: %s", dir, strerror(errno));
		if (d) {
			while (!c->oom && (e = readdir(d))) {
				char file[PATH_MAX];
				struct stat st;
				if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
					continue;
				if (!cf_protect_spend(c, dir))
					break;
				/* followed: a hook linked to a shared script is that
				 * script (the budget bounds a cycle) */
				if (cf_protect_join(file, sizeof file, dir, e->d_name) < 0 ||
				    stat(file, &st) < 0)
					continue;
				if (S_ISDIR(st.st_mode)) {
					if (cf_strv_push(&stack, file) < 0)
						c->oom = true;
					continue;
				}
				if (!S_ISREG(st.st_mode) || st.st_nlink < 2 || cf_later_links_of(&c->links, &st))
					continue;
				{
					char *real = realpath(file, NULL);
					if (!real) {
						c->oom = c->oom || errno == ENOMEM;
						continue;
					}
					if (cf_later_links_add(&c->links, &st, real) < 0)
						c->oom = true;
					free(real);
				}
				added = true;
			}
			closedir(d);
		}
		free(dir);
	}
	confine_strv_free(stack);
	return added;
}

/* A nested repository's (or a submodule's) config and hooks with other
 * names: found after the walk met the repository, so the roots are looked
 * at again for those names (rare: only when one has more than one). */
void cf_protect_late_links(struct collect *c) {
	static const char *const files[] = { "config", "config.worktree" };
	static const char *const dirs[] = { "hooks", "info" };
	size_t n_out = cf_strv_length((const char *const *)c->outside_gitdirs);
	bool added = false;
	for (size_t i = 0; i < c->n_gitdirs + n_out && !c->oom; i++) {
		const char *g = i < c->n_gitdirs ? c->gitdirs[i] : c->outside_gitdirs[i - c->n_gitdirs];
		char path[PATH_MAX];
		struct stat st;
		for (size_t k = 0; k < sizeof files / sizeof *files; k++)
			if (cf_protect_join(path, sizeof path, g, files[k]) == 0 &&
			    stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 1 &&
			    !cf_later_links_of(&c->links, &st)) {
				if (cf_later_links_add(&c->links, &st, path) < 0)
					c->oom = true;
				added = true;
			}
		for (size_t k = 0; k < sizeof dirs / sizeof *dirs && !c->oom; k++)
			if (cf_protect_join(path, sizeof path, g, dirs[k]) == 0)
				added |= late_tree(c, path);
	}
	if (!added || c->oom)
		return;
	c->rewalk = true;
	for (c->root = 0; c->plan->writable[c->root] && !c->oom; c->root++)
		git_tree(c, c->plan->writable[c->root], false);
	c->rewalk = false;
}

static int by_file(const void *a, const void *b) {
	const struct cf_protect_named *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Whether `path` is at or below a protected item (a hooks directory, a
 * gitdir's config) that is not itself another name. */
static bool under_item(const struct collect *c, const char *path) {
	for (size_t i = 0; i < c->n; i++)
		if (!c->items[i].link_of && cf_path_at_or_under(path, c->items[i].path))
			return true;
	return false;
}

void cf_protect_links_report(struct collect *c) {
	const struct cf_protect_named *first = NULL;
	size_t files = 0;
	bool lost = false;
	if (!c->n_named || c->oom)
		return;
	qsort(c->named, c->n_named, sizeof *c->named, by_file);
	for (size_t i = 0, j; i < c->n_named && !c->oom; i = j) {
		const struct cf_protect_named *prot = NULL;
		size_t names = 0;
		for (j = i; j < c->n_named && c->named[j].dev == c->named[i].dev &&
		            c->named[j].ino == c->named[i].ino;
		     j++) {
			const struct cf_protect_named *e = &c->named[j];
			bool again = false;
			if (!prot && e->protected_name)
				prot = e;
			/* a name met twice counts once (each is met once:
			 * cf_protect_git_trees; this keeps it so) */
			for (size_t k = i; k < j && e->path && !again; k++)
				again = c->named[k].path && strcmp(c->named[k].path, e->path) == 0;
			names += !again;
		}
		if (prot) {
			/* a protected file past a cut listing, or below a
			 * repository's protected part: its other names held */
			for (size_t k = i; k < j && !c->oom; k++) {
				if (&c->named[k] == prot || c->named[k].protected_name)
					continue;
				if (!c->named[k].path)
					lost = true;
				else
					hold(c, c->named[k].path,
					     prot->path ? prot->path : cf_later_links_cut(&c->links));
			}
			continue;
		}
		if ((nlink_t)names >= c->named[i].nlink)
			continue; /* every name met in the roots */
		files++;
		if (c->named[i].path && (!first || c->named[i].order < first->order))
			first = &c->named[i];
	}
	if (lost)
		cf_protect_defaults_unprotected(
		    c, "more than %d files with several names were met: the other names of protected "
		       "files among them were not all held",
		    NOTED_MAX);
	if (files) {
		char others[64] = "";
		if (files > 1)
			snprintf(others, sizeof others, " (and %zu more such files)", files - 1);
		cf_protect_defaults_unprotected(
		    c,
		    "%s%s has a name the walk of the writable roots did not meet, and the listing of "
		    "%s stopped short (a budget of %d entries there, %zu in all, or a directory it "
		    "could not list): a write through it could change a protected file there",
		    first ? first->path : "a file in the writable roots", others,
		    cf_later_links_cut(&c->links), CF_LATER_BELOW_DIR_MAX, cf_later_below_budget);
	}
}

void cf_protect_links_clear(struct collect *c) {
	for (size_t i = 0; i < c->n_named; i++)
		free(c->named[i].path);
	free(c->named);
	c->named = NULL;
	c->n_named = c->cap_named = 0;
}

void cf_protect_unlistable(struct collect *c, const char *dir) {
	struct stat st;
	/* one the command can neither search nor chmod (another user's, a
	 * container's root-owned directory) it cannot reach inside either */
	if (access(dir, X_OK) != 0 && (lstat(dir, &st) < 0 || st.st_uid != geteuid()))
		return;
	cf_protect_defaults_unprotected(c, "%s cannot be listed, but the command can reach inside "
	                                   "it: repositories and other names of protected files "
	                                   "there were not looked for",
	                                dir);
}
