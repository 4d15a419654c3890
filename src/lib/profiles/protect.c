/* SPDX-License-Identifier: MIT */
/*
 * What bwrap keeps read-only inside the writable roots (doc/SPEC.md 15,
 * issue 21.3), as a plan:
 *
 * - each protectedPaths entry, resolved (a symlink protects what it points
 *   to), under each writable root for a relative one;
 * - with the default protections, in every repository a walk of the
 *   writable roots finds (no depth bound; a budget of directory entries) (a `.git` directory, the gitdir a `.git` file
 *   names, a bare repository, the submodules in `modules/`, the repository
 *   a `commondir` names), what git reads and runs code from: `config`,
 *   `config.worktree`, `commondir`, `hooks`, `info`, each
 *   `worktrees/<name>/commondir` and `config.worktree`, and the `.git` file
 *   itself;
 * - every directory between a writable root and a protected path (a pin:
 *   bound onto itself, so inside the sandbox it is a mount point, which
 *   cannot be renamed or removed: `mv .git .git.old && cp -a .git.old .git`
 *   and `mv conf conf.old && mkdir conf` fail with EBUSY);
 * - a protected path that does not exist yet, under CF_PLAN_PLACEHOLDERS:
 *   the first missing component of it, to be made by the spawner for the
 *   time of the run (spawn/placeholders.c) and bound read-only, so it cannot
 *   be created. Without the flag (an argv others spawn) it is reported.
 *
 * Reads the filesystem (lstat, realpath, directory listings, the first
 * bytes of config and `.git` files); changes nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "canonical.h"
#include "dirstack.h"
#include "git-dir.h"
#include "git-hazards.h"
#include "later.h"
#include "policy-internal.h"
#include "profiles/plan.h"
#include "profiles/protect-internal.h"



/* The writable root `path` lies at or under, or NULL (read-only there). */
const char *cf_protect_root_of(const cf_plan *plan, const char *path) {
	for (size_t i = 0; plan->writable[i]; i++)
		if (cf_path_at_or_under(path, plan->writable[i]))
			return plan->writable[i];
	return NULL;
}

void cf_protect_add_item(struct collect *c, const char *path, cf_placeholder_kind kind, bool exists) {
	const char *root = cf_protect_root_of(c->plan, path);
	if (c->oom || !root || strcmp(root, path) == 0)
		return; /* read-only already, or a root itself (never protected) */
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->items[i].path, path) == 0) {
			if (c->items[i].kind == CF_PLACEHOLDER_NONE)
				c->items[i].kind = kind;
			c->items[i].explicit_entry |= c->explicit_now;
			return;
		}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		cf_protected *grown = realloc(c->items, cap * sizeof *grown);
		if (!grown) {
			c->oom = true;
			return;
		}
		c->items = grown;
		c->cap = cap;
	}
	if (!(c->items[c->n].path = strdup(path))) {
		c->oom = true;
		return;
	}
	c->items[c->n].kind = kind;
	c->items[c->n].exists = exists;
	c->items[c->n].explicit_entry = c->explicit_now;
	c->items[c->n].link_of = NULL;
	c->n++;
}

/* `text` kept once in `list` (no memory: c->oom). */
static void keep_once(struct collect *c, char ***list, size_t *n, const char *text) {
	char **grown;
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*list)[i], text) == 0)
			return;
	if (!(grown = realloc(*list, (*n + 1) * sizeof *grown))) {
		c->oom = true;
		return;
	}
	*list = grown;
	if (!(grown[*n] = strdup(text))) {
		c->oom = true;
		return;
	}
	(*n)++;
}

/* A default protection that does not hold: every reason is kept (each
 * once), naming its path; the report names the first
 * CF_PROTECT_REASONS_SHOWN and counts the rest (reasons_text()). */
void cf_protect_defaults_unprotected(struct collect *c, const char *fmt, ...) {
	va_list ap;
	char text[PATH_MAX + 256];
	c->plan->defaults_unprotected = true;
	if (c->oom)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	keep_once(c, &c->reasons, &c->n_reasons, text);
}

void cf_protect_defaults_missing(struct collect *c, const char *path) {
	c->plan->defaults_unprotected = true;
	if (!c->oom)
		keep_once(c, &c->missing, &c->n_missing, path);
}

/* `list` joined with `sep` into `b`, the first CF_PROTECT_REASONS_SHOWN,
 * then "and K more" (the exact count): never cut silently. 0 or -ENOMEM. */
static int put_bounded(cf_buf *b, char *const *list, size_t n, const char *sep) {
	size_t shown = n < CF_PROTECT_REASONS_SHOWN ? n : CF_PROTECT_REASONS_SHOWN;
	int r = 0;
	for (size_t i = 0; r == 0 && i < shown; i++)
		r = cf_buf_printf(b, "%s%s", i ? sep : "", list[i]);
	if (r == 0 && n > shown)
		r = cf_buf_printf(b, "%sand %zu more", sep, n - shown);
	return r;
}

/* The report's reason (doc/SPEC.md 15, "An argv another process
 * spawns"): the missing entries, then the other reasons. NULL on no
 * memory. */
static char *reasons_text(const struct collect *c) {
	cf_buf b = { 0 };
	int r = 0;
	if (c->n_missing) {
		r = cf_buf_printf(&b, "%zu %s not exist (or cannot be examined), and an argv another "
		                      "process spawns has nothing to stand in for %s: ",
		                  c->n_missing, c->n_missing == 1 ? "path does" : "paths do",
		                  c->n_missing == 1 ? "it" : "them");
		if (r == 0)
			r = put_bounded(&b, c->missing, c->n_missing, ", ");
		if (r == 0 && c->n_reasons)
			r = cf_buf_puts(&b, "; ");
	}
	if (r == 0)
		r = put_bounded(&b, c->reasons, c->n_reasons, "; ");
	if (r < 0) {
		cf_buf_free(&b);
		return NULL;
	}
	return cf_buf_steal(&b);
}

/* One directory entry read by the walk: false once the budget is spent
 * (then the report names `dir`, where it ran out). */
bool cf_protect_spend(struct collect *c, const char *dir) {
	if (++c->entries <= cf_git_scan_budget)
		return true;
	if (c->entries == cf_git_scan_budget + 1)
		cf_protect_defaults_unprotected(c,
		                     "the walk's budget of %zu directory entries ran out in %s: "
		                     "repositories there and after it were not looked for%s",
		                     cf_git_scan_budget, dir,
		                     c->links.n || c->links.n_cut
		                         ? ", nor other names (hard links) of protected files"
		                         : "");
	return false;
}

/* Whether the canonical `path`, below a writable root, is another run's
 * stand-in (spawn/placeholders.c): 16 runs at once in one workspace make
 * and remove `.vscode` and the like while each plans. Taken for missing,
 * it gets this run's own placeholder (adopted while it lasts, under a
 * shared lock), never a pin or an identity of an inode about to go. */
static bool in_stand_in(struct collect *c, const char *path) {
	const char *root = cf_protect_root_of(c->plan, path);
	return (c->flags & CF_PLAN_PLACEHOLDERS) && root && strcmp(root, path) != 0 &&
	       cf_later_is_stand_in(path);
}

/*
 * `candidate` (absolute; its directory need not be canonical) is to stay
 * read-only. Existing: its resolved path is protected (a symlink protects
 * what it points to). Missing: the first missing component below the
 * deepest existing directory is what the command would have to create;
 * with placeholders it gets one (`leaf_kind` when it is the candidate
 * itself, a directory otherwise), without, `*unprotected` is set. A path
 * that exists but cannot be resolved (a dangling symlink, a loop, no
 * permission) cannot be reasoned about: `*unprotected`.
 */
void cf_protect_path(struct collect *c, const char *candidate, cf_placeholder_kind leaf_kind,
                         bool *unprotected) {
	char prefix[PATH_MAX], missing[PATH_MAX];
	char *real = cf_realpath(candidate), *existing = NULL, *slash;
	struct stat st;
	size_t len;

	if (real) {
		cf_protect_add_item(c, real, leaf_kind, true);
		free(real);
		return;
	}
	if (errno == ENOMEM) {
		c->oom = true;
		return;
	}
	/* The deepest existing ancestor, resolved, and the component after it
	 * in the candidate: the first one the command would have to create. */
	len = strlen(candidate);
	if (candidate[0] != '/' || len >= sizeof prefix) {
		*unprotected = true;
		return;
	}
	memcpy(prefix, candidate, len + 1);
	for (;;) {
		slash = strrchr(prefix, '/');
		if (slash == prefix) {
			prefix[1] = '\0';
			existing = strdup("/");
			break;
		}
		*slash = '\0';
		if ((existing = cf_realpath(prefix)) && in_stand_in(c, existing)) {
			/* another run's stand-in: missing as far as this run goes */
			free(existing);
			existing = NULL;
			continue;
		}
		if (existing || errno == ENOMEM)
			break;
	}
	if (!existing) {
		c->oom = true;
		return;
	}
	{
		const char *first = candidate + strlen(prefix) + (strcmp(prefix, "/") == 0 ? 0 : 1);
		size_t first_len = strcspn(first, "/");
		bool leaf = first[first_len] == '\0';
		int n = snprintf(missing, sizeof missing, "%s%s%.*s", existing,
		                 strcmp(existing, "/") == 0 ? "" : "/", (int)first_len, first);
		if (n < 0 || (size_t)n >= sizeof missing || strstr(first, "/..") ||
		    strncmp(first, "..", 2) == 0 ||
		    ((lstat(missing, &st) == 0 || errno != ENOENT) && !in_stand_in(c, missing))) {
			/* too long; a `..` after a missing component (which one the
			 * command would create depends on what it creates first); or
			 * there after all but unresolvable (a dangling symlink the
			 * command could make resolve, a loop, EACCES) */
			*unprotected = true;
		} else if (cf_protect_root_of(c->plan, existing)) {
			/* the command could create it: stand something in for it */
			if (c->flags & CF_PLAN_PLACEHOLDERS)
				cf_protect_add_item(c, missing, leaf ? leaf_kind : CF_PLACEHOLDER_DIR, false);
			else
				*unprotected = true;
		}
		/* else: it would be created in a read-only place, i.e. never */
	}
	free(existing);
}

/* A path inside a gitdir (the gitdir canonical, the name fixed): protected
 * as it is, or by what it points to when it is a symlink (then the name
 * itself could be re-pointed: reported), or by a placeholder of `kind`
 * when missing (CF_PLACEHOLDER_NONE: nothing when missing). */
static void protect_git_entry(struct collect *c, const char *gitdir, const char *name,
                              cf_placeholder_kind kind) {
	char path[PATH_MAX];
	struct stat st;
	if ((size_t)snprintf(path, sizeof path, "%s/%s", gitdir, name) >= sizeof path) {
		cf_protect_defaults_unprotected(c, "%s/%s: the path is too long", gitdir, name);
		return;
	}
	if (lstat(path, &st) < 0) {
		/* Missing from a canonical, existing gitdir: the entry itself is
		 * the first missing component. */
		if (errno != ENOENT)
			cf_protect_defaults_unprotected(c, "%s cannot be examined: %s", path, strerror(errno));
		else if (kind != CF_PLACEHOLDER_NONE && (c->flags & CF_PLAN_PLACEHOLDERS))
			cf_protect_add_item(c, path, kind, false);
		else if (kind != CF_PLACEHOLDER_NONE && cf_protect_root_of(c->plan, gitdir))
			cf_protect_defaults_missing(c, path);
		/* CF_PLACEHOLDER_NONE: git does not read it while it is missing */
		return;
	}
	if (!S_ISLNK(st.st_mode)) {
		cf_protect_add_item(c, path, kind, true); /* the gitdir is canonical: so is this */
		return;
	}
	/* the link could be re-pointed */
	cf_protect_defaults_unprotected(c, "%s is a symbolic link, which the command could re-point", path);
	cf_protect_path(c, path, kind, &c->plan->defaults_unprotected);
}

static bool seen(struct collect *c, const char *gitdir) {
	for (size_t i = 0; i < c->n_gitdirs; i++)
		if (strcmp(c->gitdirs[i], gitdir) == 0)
			return true;
	if (cf_strv_push(&c->gitdirs, gitdir) < 0)
		c->oom = true;
	else
		c->n_gitdirs++;
	return false;
}

static void gitdir_surface(struct collect *c, const char *gitdir);

/* Submodules' gitdirs under `dir` (a gitdir's `modules/`, whose names may
 * hold slashes): each directory holding HEAD is one. */
static void modules_walk(struct collect *c, const char *dir) {
	cf_dirstack stack = { 0 };
	char *at = NULL;
	int fd;
	if (cf_dirstack_push_root(&stack, dir) < 0)
		return; /* no modules/ */
	while (!c->oom && (fd = cf_dirstack_pop_open(&stack, &at, NULL)) != -ENOENT) {
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		struct dirent *e;
		if (fd == -ESTALE)
			cf_protect_defaults_unprotected(c, "%s changed while it was walked", at);
		if (fd >= 0 && !d)
			close(fd);
		while (d && !c->oom && (e = readdir(d))) {
			char head[PATH_MAX + 8];
			struct stat st;
			if (e->d_name[0] == '.' &&
			    (e->d_name[1] == '\0' || (e->d_name[1] == '.' && e->d_name[2] == '\0')))
				continue;
			if (!cf_protect_spend(c, at))
				break;
			if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			    !S_ISDIR(st.st_mode))
				continue;
			if ((size_t)snprintf(head, sizeof head, "%s/%s/HEAD", at, e->d_name) < sizeof head &&
			    access(head, F_OK) == 0) {
				head[strlen(head) - 5] = '\0';
				gitdir_surface(c, head);
			} else if (cf_dirstack_push_child(&stack, dirfd(d), at, e->d_name) == -ENOMEM) {
				c->oom = true;
			}
		}
		if (d)
			closedir(d);
		free(at);
		at = NULL;
	}
	free(at);
	cf_dirstack_clear(&stack);
}

/* What git reads and runs code from in the gitdir `gitdir` (canonical). */
static void gitdir_surface(struct collect *c, const char *gitdir) {
	char line[PATH_MAX], path[PATH_MAX * 2], *common = NULL;
	bool full = true, worktree_config;
	DIR *d;
	struct dirent *e;
	int fd;

	if (!c->oom && !cf_protect_root_of(c->plan, gitdir)) {
		/* read-only already; its hooks and config may still have other
		 * names in the roots (protect-links.c, cf_protect_late_links) */
		if (cf_strv_push(&c->outside_gitdirs, gitdir) < 0)
			c->oom = true;
		return;
	}
	if (c->oom || seen(c, gitdir))
		return; /* done */
	if (c->n_gitdirs > CF_PLAN_MAX_GITDIRS) {
		cf_protect_defaults_unprotected(c, "more than %d repositories: %s and those after it are not "
		                        "protected",
		                     CF_PLAN_MAX_GITDIRS, gitdir);
		return;
	}
	fd = open(gitdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* A commondir that names another directory makes this a linked
	 * worktree's gitdir: config and hooks are the common one's. A
	 * commondir naming this gitdir itself (".", a placeholder) does not. */
	if (cf_git_read_line(fd, "commondir", line, sizeof line)) {
		int n = line[0] == '/' ? snprintf(path, sizeof path, "%s", line)
		                       : snprintf(path, sizeof path, "%s/%s", gitdir, line);
		if (n > 0 && (size_t)n < sizeof path)
			common = realpath(path, NULL);
		if (!common || strcmp(common, gitdir) != 0)
			full = false;
	}
	close(fd);

	protect_git_entry(c, gitdir, "commondir", full ? CF_PLACEHOLDER_COMMONDIR : CF_PLACEHOLDER_NONE);
	/* A linked worktree's gitdir has none of these (git reads the common
	 * directory's); a gitdir whose commondir was planted before the run
	 * keeps its own for the day it is removed. */
	protect_git_entry(c, gitdir, "config", full ? CF_PLACEHOLDER_FILE : CF_PLACEHOLDER_NONE);
	protect_git_entry(c, gitdir, "hooks", full ? CF_PLACEHOLDER_DIR : CF_PLACEHOLDER_NONE);
	protect_git_entry(c, gitdir, "info", full ? CF_PLACEHOLDER_DIR : CF_PLACEHOLDER_NONE);
	/* config.worktree is read only under extensions.worktreeConfig, which
	 * lives in the (protected) common config: a placeholder only then. */
	if ((size_t)snprintf(path, sizeof path, "%s/config", full || !common ? gitdir : common) <
	    sizeof path)
		worktree_config = cf_git_mentions_worktree_config(path);
	else
		worktree_config = true;
	protect_git_entry(c, gitdir, "config.worktree",
	                  worktree_config ? CF_PLACEHOLDER_FILE : CF_PLACEHOLDER_NONE);

	/* Linked worktrees: what git reads in each worktrees/<name>/. */
	if ((size_t)snprintf(path, sizeof path, "%s/worktrees", gitdir) < sizeof path &&
	    (fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)) >= 0) {
		if (!(d = fdopendir(fd))) {
			close(fd);
		} else {
			while (!c->oom && (e = readdir(d))) {
				char sub[PATH_MAX * 2 + 16];
				struct stat st;
				if (e->d_name[0] == '.')
					continue;
				if (!cf_protect_spend(c, path))
					break;
				if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
				    !S_ISDIR(st.st_mode))
					continue;
				if ((size_t)snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) >= sizeof sub)
					continue;
				protect_git_entry(c, sub, "commondir", CF_PLACEHOLDER_NONE);
				protect_git_entry(c, sub, "config.worktree",
				                  worktree_config ? CF_PLACEHOLDER_FILE : CF_PLACEHOLDER_NONE);
			}
			closedir(d);
		}
	}
	/* Submodules, checked out or not. */
	if ((size_t)snprintf(path, sizeof path, "%s/modules", gitdir) < sizeof path)
		modules_walk(c, path);
	if (common) {
		if (!full)
			gitdir_surface(c, common);
		free(common);
	}
}

/* `dir`'s `.git` is a file: it is protected itself (re-pointed, it would
 * make git use another gitdir), and so is the gitdir it names, or what
 * would stand there while it does not exist. */
static void gitfile(struct collect *c, int dirfd_, const char *dir) {
	char buf[PATH_MAX + 16], path[PATH_MAX * 2];
	const char *line;
	char *real;
	int n;
	if ((size_t)snprintf(path, sizeof path, "%s/.git", dir) >= sizeof path)
		return;
	cf_protect_add_item(c, path, CF_PLACEHOLDER_NONE, true);
	if (!cf_git_read_line(dirfd_, ".git", buf, sizeof buf) || strncmp(buf, "gitdir:", 7) != 0)
		return;
	line = buf + 7;
	while (*line == ' ' || *line == '\t')
		line++;
	if (!*line)
		return;
	n = line[0] == '/' ? snprintf(path, sizeof path, "%s", line)
	                   : snprintf(path, sizeof path, "%s/%s", dir, line);
	if (n < 0 || (size_t)n >= sizeof path)
		return;
	if ((real = cf_realpath(path))) {
		gitdir_surface(c, real);
		free(real);
	} else if (errno == ENOENT) {
		/* Named but missing: the command must not be able to make it. */
		cf_protect_path(c, path, CF_PLACEHOLDER_DIR, &c->plan->defaults_unprotected);
	}
}

/* One directory of the walk: a repository's marks, its `.git`, and its
 * subdirectories pushed to visit (a bare repository is not entered). */
static void walk_dir(struct collect *c, cf_dirstack *stack, int fd, const char *dir) {
	DIR *d = fdopendir(fd);
	struct dirent *e;
	bool head = false, objects = false, config = false, dot_git = false;
	char **subdirs = NULL;
	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		const char *n = e->d_name;
		if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0')))
			continue;
		if (!cf_protect_spend(c, dir))
			break;
		if (strcmp(n, "HEAD") == 0)
			head = true;
		else if (strcmp(n, "objects") == 0)
			objects = true;
		else if (strcmp(n, "config") == 0)
			config = true;
		else if (strcmp(n, ".git") == 0) {
			dot_git = true;
			continue;
		}
		if ((c->links.n || c->links.n_cut) && e->d_type != DT_DIR && e->d_type != DT_LNK)
			cf_protect_hard_link(c, dirfd(d), dir, n, (ino_t)e->d_ino, false);
#ifdef DT_DIR
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
#endif
		if (cf_strv_push(&subdirs, n) < 0) {
			c->oom = true;
			break;
		}
	}
	if (head && objects && config) {
		gitdir_surface(c, dir); /* a bare repository: not entered further */
		goto done;
	}
	if (dot_git) {
		char path[PATH_MAX];
		struct stat st;
		if (fstatat(dirfd(d), ".git", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    (size_t)snprintf(path, sizeof path, "%s/.git", dir) < sizeof path) {
			/* a work tree: what git reads at its top */
			cf_protect_later(c, dir, true);
			if (S_ISDIR(st.st_mode)) {
				gitdir_surface(c, path);
			} else if (S_ISREG(st.st_mode)) {
				gitfile(c, dirfd(d), dir);
			} else if (S_ISLNK(st.st_mode)) {
				/* the link itself could be re-pointed */
				char *real = realpath(path, NULL);
				cf_protect_defaults_unprotected(c, "%s is a symbolic link, which the command could "
				                        "re-point",
				                     path);
				if (real && stat(real, &st) == 0 && S_ISDIR(st.st_mode))
					gitdir_surface(c, real);
				free(real);
			}
		}
	}
	/* Pushed in reverse, so they are visited in the order listed. */
	for (size_t i = cf_strv_length((const char *const *)subdirs); i-- > 0 && !c->oom;) {
		int r = cf_dirstack_push_child(stack, dirfd(d), dir, subdirs[i]);
		if (r == -ENOMEM)
			c->oom = true;
		else if (r == -ENAMETOOLONG)
			cf_protect_defaults_unprotected(c, "%s/%s: the path is too long to walk", dir, subdirs[i]);
	}
done:
	confine_strv_free(subdirs);
	closedir(d);
}

/* The walk of one writable root: every directory, at any depth, within
 * the entry budget; no symlinked directory followed (O_NOFOLLOW, and each
 * directory's identity checked against its parent's listing); directories
 * on the heap, not the call stack. */
static void walk(struct collect *c, const char *root) {
	cf_dirstack stack = { 0 };
	char *dir = NULL;
	int fd;
	if ((fd = cf_dirstack_push_root(&stack, root)) < 0) {
		if (fd == -ENOMEM)
			c->oom = true;
		return;
	}
	while (!c->oom && c->entries <= cf_git_scan_budget &&
	       (fd = cf_dirstack_pop_open(&stack, &dir, NULL)) != -ENOENT) {
		if (fd >= 0)
			walk_dir(c, &stack, fd, dir);
		else if (fd == -ESTALE)
			cf_protect_defaults_unprotected(c, "%s changed while it was walked", dir);
		else if (fd == -EACCES)
			cf_protect_unlistable(c, dir);
		else if (fd != -ENXIO && fd != -ENOMEM)
			cf_protect_defaults_unprotected(c, "%s could not be opened to walk: %s", dir,
			                                strerror(-fd));
		else if (fd == -ENOMEM)
			c->oom = true;
		free(dir);
		dir = NULL;
	}
	free(dir);
	cf_dirstack_clear(&stack);
}

int cf_protect_join(char *out, size_t size, const char *root, const char *rel) {
	int n = snprintf(out, size, "%s%s%s", root, strcmp(root, "/") == 0 ? "" : "/", rel);
	return (n < 0 || (size_t)n >= size) ? -ENAMETOOLONG : 0;
}

/* A relative protected path under `root`: a symlink on its way inside the
 * root could be re-pointed by the command, so the name is not held. */
bool cf_protect_symlink_on_the_way(const char *root, const char *rel) {
	char path[PATH_MAX];
	size_t off = 0;
	while (rel[off]) {
		struct stat st;
		size_t len = strcspn(rel + off, "/");
		if (cf_protect_join(path, sizeof path, root, rel) < 0)
			return true;
		path[strlen(root) + (strcmp(root, "/") == 0 ? 0 : 1) + off + len] = '\0';
		if (lstat(path, &st) < 0)
			return false; /* missing from here on */
		if (S_ISLNK(st.st_mode))
			return true;
		off += len;
		while (rel[off] == '/')
			off++;
	}
	return false;
}

int cf_plan_bwrap_protections(const confine_policy *policy, unsigned flags, cf_plan *plan) {
	struct collect c;
	char path[PATH_MAX];
	int r;

	memset(&c, 0, sizeof c);
	c.policy = policy;
	c.plan = plan;
	c.flags = flags;
	c.explicit_now = true;
	for (size_t i = 0; policy->protected_paths && policy->protected_paths[i]; i++) {
		const char *p = policy->protected_paths[i];
		if (p[0] == '/') {
			cf_protect_path(&c, p, CF_PLACEHOLDER_FILE, &plan->explicit_unprotected);
			continue;
		}
		for (size_t k = 0; plan->writable[k]; k++) {
			if (cf_protect_join(path, sizeof path, plan->writable[k], p) < 0) {
				plan->explicit_unprotected = true;
				continue;
			}
			if (cf_protect_symlink_on_the_way(plan->writable[k], p))
				plan->explicit_unprotected = true;
			cf_protect_path(&c, path, CF_PLACEHOLDER_FILE, &plan->explicit_unprotected);
		}
	}
	c.explicit_now = false;
	if (policy->default_protections &&
	    cf_later_links_collect(policy, plan->writable, true, &c.links) < 0)
		c.oom = true;
	/* A file a symlink in a protected directory leads to inside a root
	 * (`~/.local/bin/tool -> WS/bin/tool`): what runs later, held. */
	for (size_t i = 0; !c.oom && c.links.in_roots && c.links.in_roots[i]; i++)
		cf_protect_add_item(&c, c.links.in_roots[i], CF_PLACEHOLDER_NONE, true);
	if (policy->default_protections && !c.oom) {
		for (size_t k = 0; plan->writable[k] && !c.oom; k++) {
			c.root = k;
			cf_protect_later(&c, plan->writable[k], false);
			walk(&c, plan->writable[k]);
		}
		cf_protect_git_trees(&c);
		cf_protect_late_links(&c);
		cf_protect_links_report(&c);
	}
	if (!c.oom && (c.n_reasons || c.n_missing) && !plan->defaults_reason &&
	    !(plan->defaults_reason = reasons_text(&c)))
		c.oom = true;
	if (!c.oom && plan->defaults_unprotected && !plan->defaults_reason &&
	    !(plan->defaults_reason = strdup("part of a repository could not be protected: a "
	                                      "symbolic link on its way, or missing with nothing "
	                                      "to stand in")))
		c.oom = true;
	r = c.oom ? -ENOMEM : cf_protect_finish(&c);
	for (size_t i = 0; i < c.n; i++) {
		free(c.items[i].path);
		free(c.items[i].link_of);
	}
	cf_protect_links_clear(&c);
	cf_later_links_clear(&c.links);
	free(c.items);
	for (size_t i = 0; i < c.n_reasons; i++)
		free(c.reasons[i]);
	free(c.reasons);
	for (size_t i = 0; i < c.n_missing; i++)
		free(c.missing[i]);
	free(c.missing);
	confine_strv_free(c.gitdirs);
	confine_strv_free(c.outside_gitdirs);
	return r;
}
