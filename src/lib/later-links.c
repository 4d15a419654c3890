/* SPDX-License-Identifier: MIT */
/*
 * The other names of a protected file (later.h, cf_later_links; issue 28,
 * the outside red team's follow-up, finding 1, and round 4 session 8's
 * R28c-dir-links).
 *
 * A hard link is the file itself under a second name. `~/.bashrc` (or
 * `~/.gitconfig`, a file `~/.gitconfig` includes, a root's `.envrc`, a
 * file below `~/.local/bin/`) with a second name inside a writable root is
 * written through that name: the home stays read-only, the file does not.
 * So the files the default protections hold are collected here, by device
 * and inode, and the walk of the writable roots (profiles/protect.c) holds
 * every other name it meets, or reports it where a rung cannot.
 *
 * Which files: every entry that is a file, wherever it is (not only where
 * a root holds it: the home's own `~/.bashrc` is read-only, its other name
 * is not), each resolved (a dotfiles link leads to the file a tool
 * reads), when it has more than one name. And, for the plan, every regular
 * file below an entry that is a directory (`~/.ssh/`, `~/.config/fish/`,
 * a root's `.husky/`): listed, not examined (the listing's inode number,
 * the directory's device; a stat each would cost what `~/.rustup` holds),
 * within a budget per directory and in all. Where the budget cuts a
 * listing, the walk cannot tell a file with names outside the roots from
 * a protected one on that device, and says so (profiles/protect.c).
 */
#include "later.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirstack.h"
#include "git-dir.h"
#include "policy-internal.h"

size_t cf_later_below_budget = CF_LATER_BELOW_MAX;

struct collect_ctx {
	cf_later_links *l;
	char *const *roots; /* the writable roots */
	bool below;
	size_t spent;   /* entries listed below directories, in all */
	char **pending; /* directories a listed symlink leads to, to list */
};

static int add_item(cf_later_links *l, dev_t dev, ino_t ino, char *path) {
	struct cf_later_link *grown = realloc(l->items, (l->n + 1) * sizeof *grown);
	if (!grown) {
		free(path);
		return -ENOMEM;
	}
	l->items = grown;
	grown[l->n].dev = dev;
	grown[l->n].ino = ino;
	grown[l->n].path = path;
	l->n++;
	return 0;
}

static bool was_cut(const cf_later_links *l, const char *dir) {
	for (size_t i = 0; i < l->n_cut; i++)
		if (strcmp(l->cut[i].path, dir) == 0)
			return true;
	return false;
}

/* Whether `dir` lies at or below a directory listed whole (a listing cut
 * short does not count: a protected directory below it, or reached again
 * through a link, is listed on its own). */
/* Whether a root lies between the listed `top` and `dir` below it (its
 * tree was left out of that listing). */
static bool root_between(const cf_later_links *l, const char *top, const char *dir) {
	for (size_t k = 0; l->roots && l->roots[k]; k++)
		if (cf_path_at_or_under(dir, l->roots[k]) && cf_path_at_or_under(l->roots[k], top))
			return true;
	return false;
}

static bool covers(const cf_later_links *l, const char *top, const char *dir) {
	return cf_path_at_or_under(dir, top) && !was_cut(l, top) && !root_between(l, top, dir);
}

static bool listed(const cf_later_links *l, const char *dir) {
	for (size_t i = 0; i < l->n_dirs; i++)
		if (covers(l, l->dirs[i], dir))
			return true;
	for (size_t i = 0; l->via && l->via[i]; i++)
		if (covers(l, l->via[i], dir))
			return true;
	return false;
}

/* Whether `dir` itself was listed already (whole or cut). */
static bool listed_itself(const cf_later_links *l, const char *dir) {
	for (size_t i = 0; i < l->n_dirs; i++)
		if (strcmp(dir, l->dirs[i]) == 0)
			return true;
	for (size_t i = 0; l->via && l->via[i]; i++)
		if (strcmp(dir, l->via[i]) == 0)
			return true;
	return false;
}

/* Whether `dir` is at or below a writable root. */
static bool under_root(const struct collect_ctx *c, const char *dir) {
	for (size_t k = 0; c->roots && c->roots[k]; k++)
		if (cf_path_at_or_under(dir, c->roots[k]))
			return true;
	return false;
}

/* Whether `dir` is a writable root, or lies below one that lies inside
 * the tree `top` being listed: what lies there is that root's (the
 * walk's), a grant asked for by name (`--writable ~/.local/bin`,
 * `--writable ~/.vim/pack/mine`), not the protected directory's. */
static bool root_inside(const struct collect_ctx *c, const char *top, const char *dir) {
	for (size_t k = 0; c->roots && c->roots[k]; k++)
		if (cf_path_at_or_under(dir, c->roots[k]) &&
		    (strcmp(dir, c->roots[k]) == 0 || cf_path_at_or_under(c->roots[k], top)))
			return true;
	return false;
}

static int cut_at(cf_later_links *l, const char *dir) {
	struct cf_later_cut *grown = realloc(l->cut, (l->n_cut + 1) * sizeof *grown);
	if (!grown)
		return -ENOMEM;
	l->cut = grown;
	if (!(grown[l->n_cut].path = strdup(dir)))
		return -ENOMEM;
	l->n_cut++;
	return 0;
}

/* `dir`/`n`, a symbolic link in a protected directory (a dotfiles
 * manager's `~/.config/fish/config.fish -> ~/dotfiles/fish/...`): what
 * it leads to is what is read later, taken as the listing's own files
 * are (a directory listed after this tree, once). */
static int symlinked(struct collect_ctx *c, int dirfd_, const char *dir, const char *n) {
	char path[PATH_MAX], *real;
	struct stat st;
	int r = 0;
	if ((size_t)snprintf(path, sizeof path, "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", n) >=
	    sizeof path)
		return 1; /* not taken */
	if (fstatat(dirfd_, n, &st, 0) < 0)
		return errno == ENOENT || errno == ELOOP || errno == ENOTDIR ? 0 : 1; /* dangling: nothing */
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return 0;
	if (!(real = realpath(path, NULL)))
		return errno == ENOMEM ? -ENOMEM : 1;
	if (S_ISREG(st.st_mode)) {
		/* the file read later; inside a root, the file itself is held
		 * (cf_later_links.in_roots), as a home entry's target is */
		if (under_root(c, real) && (r = cf_strv_push(&c->l->in_roots, real)) < 0) {
			free(real);
			return r;
		}
		return add_item(c->l, st.st_dev, st.st_ino, real);
	}
	/* a directory inside a root (a plugin linked into the workspace,
	 * `~/.vim/pack/dev/start/plug -> WS`) is the user's project there,
	 * the walk's: not listed */
	if (!listed(c->l, real) && !under_root(c, real))
		r = cf_strv_push(&c->pending, real);
	free(real);
	return r;
}

/* One directory of a protected directory's tree: its regular files taken
 * by their listing, its subdirectories pushed. 1 when the budget cut it. */
static int list_one(struct collect_ctx *c, cf_dirstack *stack, const char *top, int fd,
                    const char *dir, dev_t dev, size_t *spent_here) {
	DIR *d = fdopendir(fd);
	struct dirent *e;
	int r = 0;
	if (!d) {
		close(fd);
		return errno == ENOMEM ? -ENOMEM : 1;
	}
	while (r == 0 && (e = readdir(d))) {
		const char *n = e->d_name;
		unsigned char type = e->d_type;
		char *path;
		if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0')))
			continue;
		if (++*spent_here > CF_LATER_BELOW_DIR_MAX || ++c->spent > cf_later_below_budget) {
			r = 1;
			break;
		}
		if (type == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) < 0) {
				if (errno != ENOENT)
					r = 1; /* not taken */
				continue;
			}
			type = S_ISDIR(st.st_mode)   ? DT_DIR
			       : S_ISREG(st.st_mode) ? DT_REG
			       : S_ISLNK(st.st_mode) ? DT_LNK
			                             : DT_FIFO;
		}
		if (type == DT_DIR) {
			int p;
			if (asprintf(&path, "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", n) < 0) {
				r = -ENOMEM;
				break;
			}
			p = root_inside(c, top, path) ? 0 : cf_dirstack_push_child(stack, dirfd(d), dir, n);
			free(path);
			if (p == -ENOMEM)
				r = -ENOMEM;
			else if (p < 0)
				r = 1; /* too long to list: not taken */
			continue;
		}
		if (type == DT_LNK) {
			r = symlinked(c, dirfd(d), dir, n);
			continue;
		}
		if (type != DT_REG)
			continue;
		if (asprintf(&path, "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", n) < 0)
			r = -ENOMEM;
		else
			r = add_item(c->l, dev, (ino_t)e->d_ino, path);
	}
	closedir(d);
	return r;
}

/* Every regular file below the protected directory `path` (resolved),
 * within the budgets. A listing cut short (the budget, a directory that
 * cannot be listed or changed while it was) is recorded: files below it
 * may not all be taken. */
static int list_tree(struct collect_ctx *c, const char *path, bool via) {
	cf_dirstack stack = { 0 };
	char *real = realpath(path, NULL), *dir = NULL;
	size_t spent_here = 0;
	struct stat st;
	dev_t dev = 0;
	int fd, r = 0;
	if (!real)
		return errno == ENOMEM ? -ENOMEM : 0;
	if (listed(c->l, real) || listed_itself(c->l, real) || root_inside(c, real, real) ||
	    (via && under_root(c, real)) ||
	    stat(real, &st) < 0 ||
	    !S_ISDIR(st.st_mode)) {
		free(real);
		return 0;
	}
	/* a copy: `real` is this walk's; a directory reached through a
	 * symbolic link is listed, not a protected directory's own name */
	if ((r = cf_strv_push(via ? &c->l->via : &c->l->dirs, real)) < 0) {
		free(real);
		return r;
	}
	if (!via)
		c->l->n_dirs++;
	if ((fd = cf_dirstack_push_root(&stack, real)) < 0)
		r = fd == -ENOMEM ? -ENOMEM : 1;
	while (r == 0 && (fd = cf_dirstack_pop_open(&stack, &dir, &dev)) != -ENOENT) {
		if (fd >= 0)
			r = list_one(c, &stack, real, fd, dir, dev, &spent_here);
		else if (fd == -ENOMEM)
			r = -ENOMEM;
		else if (fd != -ENXIO)
			r = 1; /* EACCES (chmod 111), ESTALE: its files not taken */
		free(dir);
		dir = NULL;
	}
	free(dir);
	if (r == 1)
		r = cut_at(c->l, real);
	free(real);
	cf_dirstack_clear(&stack);
	return r;
}

/* `path`'s tree, then each directory a symbolic link in it led to. */
static int list_below(struct collect_ctx *c, const char *path) {
	int r = list_tree(c, path, false);
	while (r == 0 && c->pending && c->pending[0]) {
		size_t n = cf_strv_length((const char *const *)c->pending);
		char *next = c->pending[n - 1];
		c->pending[n - 1] = NULL;
		r = list_tree(c, next, true);
		free(next);
	}
	return r;
}

static int collect_visit(void *ctx, const char *root, const char *path,
                         const cf_later_entry *e) {
	struct collect_ctx *c = ctx;
	cf_later_links *l = c->l;
	struct stat st;
	char *real;
	(void)root;
	if (e->dir)
		return c->below ? list_below(c, path) : 0;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink < 2)
		return 0;
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].dev == st.st_dev && l->items[i].ino == st.st_ino)
			return 0; /* the same file by another entry's name */
	if (!(real = realpath(path, NULL)))
		return errno == ENOMEM ? -ENOMEM : 0;
	return add_item(l, st.st_dev, st.st_ino, real);
}

/* What git obeys in the gitdir `gitdir`: its config (and
 * config.worktree), hooks and info. */
static int gitdir_files(struct collect_ctx *c, const char *gitdir) {
	static const cf_later_entry file = { .name = "config" };
	static const cf_later_entry dir = { .name = "hooks", .dir = true };
	static const char *const files[] = { "config", "config.worktree" };
	static const char *const dirs[] = { "hooks", "info" };
	char path[PATH_MAX];
	int r = 0;
	for (size_t i = 0; r == 0 && i < sizeof files / sizeof *files; i++)
		if ((size_t)snprintf(path, sizeof path, "%s/%s", gitdir, files[i]) < sizeof path)
			r = collect_visit(c, gitdir, path, &file);
	for (size_t i = 0; r == 0 && i < sizeof dirs / sizeof *dirs; i++)
		if ((size_t)snprintf(path, sizeof path, "%s/%s", gitdir, dirs[i]) < sizeof path)
			r = collect_visit(c, gitdir, path, &dir);
	return r;
}

/* The repository a root lies in (its own `.git`, or one above it: `-w
 * repo/sub`), through a `.git` file to a linked worktree's gitdir and its
 * common directory: what git obeys there. */
/* The repository at `dir` whose `.git` is `path` (a directory, or a file
 * naming a linked worktree's gitdir, then also its common directory). */
static int repository_at(struct collect_ctx *c, const char *dir, const char *path,
                         const struct stat *st) {
	char line[PATH_MAX + 16], target[PATH_MAX * 2];
	char *gitdir = NULL, *common = NULL;
	const char *g;
	bool got;
	int fd, r;
	if (S_ISDIR(st->st_mode))
		return gitdir_files(c, path);
	/* `gitdir: X`, X relative to the work tree; then its commondir */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	got = fd >= 0 && cf_git_read_line(fd, ".git", line, sizeof line) &&
	      strncmp(line, "gitdir:", 7) == 0;
	if (fd >= 0)
		close(fd);
	if (!got)
		return 0;
	for (g = line + 7; *g == ' ' || *g == '\t'; g++)
		;
	if ((size_t)snprintf(target, sizeof target, "%s%s%s", g[0] == '/' ? "" : dir,
	                     g[0] == '/' ? "" : "/", g) >= sizeof target ||
	    !(gitdir = realpath(target, NULL)))
		return errno == ENOMEM ? -ENOMEM : 0;
	r = gitdir_files(c, gitdir);
	if (r == 0 && (fd = open(gitdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		got = cf_git_read_line(fd, "commondir", line, sizeof line);
		close(fd);
		if (got &&
		    (size_t)snprintf(target, sizeof target, "%s%s%s", line[0] == '/' ? "" : gitdir,
		                     line[0] == '/' ? "" : "/", line) < sizeof target &&
		    (common = realpath(target, NULL)) && strcmp(common, gitdir) != 0)
			r = gitdir_files(c, common);
	}
	free(common);
	free(gitdir);
	return r;
}

/* Every repository a root lies in (its own `.git`, each one above it:
 * `-w repo/sub`, `-w outer/inner`): what git obeys there. */
static int root_repository(struct collect_ctx *c, const char *root) {
	char dir[PATH_MAX], path[PATH_MAX + 8];
	int r = 0;
	if ((size_t)snprintf(dir, sizeof dir, "%s", root) >= sizeof dir)
		return 0;
	for (;;) {
		struct stat st;
		char *slash;
		if ((size_t)snprintf(path, sizeof path, "%s%s.git", dir, strcmp(dir, "/") ? "/" : "") <
		        sizeof path &&
		    lstat(path, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) &&
		    (r = repository_at(c, dir, path, &st)) < 0)
			return r;
		if (strcmp(dir, "/") == 0)
			return 0;
		slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

int cf_later_links_add(cf_later_links *links, const struct stat *st, const char *path) {
	size_t at = 0;
	char *copy = strdup(path);
	int r;
	if (!copy)
		return -ENOMEM;
	if ((r = add_item(links, st->st_dev, st->st_ino, copy)) < 0)
		return r;
	/* kept in order: moved to its place */
	{
		struct cf_later_link item = links->items[links->n - 1];
		while (at < links->n - 1 &&
		       (links->items[at].ino < item.ino ||
		        (links->items[at].ino == item.ino && links->items[at].dev <= item.dev)))
			at++;
		memmove(&links->items[at + 1], &links->items[at],
		        (links->n - 1 - at) * sizeof *links->items);
		links->items[at] = item;
	}
	return 0;
}

/* The system's start-up files a login or interactive shell (and every
 * dynamically linked program: ld.so.preload) reads, wherever the roots
 * are: root may write them, and so a run as root through another name
 * (R28c-system-links). Not entries (a root that holds /etc is that grant
 * asked for by name); their other names only. */
static const char *const system_files[] = {
	"/etc/profile",      "/etc/bash.bashrc",  "/etc/bash.bash_logout", "/etc/environment",
	"/etc/zsh/zshenv",   "/etc/zsh/zprofile", "/etc/zsh/zshrc",        "/etc/zsh/zlogin",
	"/etc/zsh/zlogout",  "/etc/zshenv",       "/etc/zprofile",         "/etc/zshrc",
	"/etc/zlogin",       "/etc/inputrc",      "/etc/ld.so.preload",    "/etc/security/pam_env.conf",
};
static const char *const system_dirs[] = { "/etc/profile.d" };

static int system_startup(struct collect_ctx *c) {
	static const cf_later_entry file = { .name = "profile" };
	static const cf_later_entry dir = { .name = "profile.d", .dir = true };
	int r = 0;
	for (size_t i = 0; r == 0 && i < sizeof system_files / sizeof *system_files; i++)
		r = collect_visit(c, "/", system_files[i], &file);
	for (size_t i = 0; r == 0 && c->below && i < sizeof system_dirs / sizeof *system_dirs; i++)
		r = collect_visit(c, "/", system_dirs[i], &dir);
	return r;
}

static int by_inode(const void *a, const void *b) {
	const struct cf_later_link *x = a, *y = b;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

int cf_later_links_collect(const confine_policy *policy, char *const *roots, bool below,
                           cf_later_links *out) {
	struct collect_ctx c = { out, roots, below, 0, NULL };
	size_t n = 0;
	char **all;
	int r = 0;
	memset(out, 0, sizeof *out);
	out->roots = roots;
	if (!policy->default_protections)
		return 0;
	/* The roots, then "/": every entry at a root's top, and every home
	 * entry and git include target wherever it lies (below "/" each is
	 * "held"), through the one walk of where entries are (later-walk.c). */
	while (roots && roots[n])
		n++;
	if (!(all = calloc(n + 2, sizeof *all)))
		return -ENOMEM;
	memcpy(all, roots, n * sizeof *all);
	all[n] = (char *)"/";
	/* First (their listings are small, and budgeted too), what git obeys
	 * in each root's own repository, the plan's binds
	 * (profiles/protect.c): its config, hooks and info (a link of
	 * `.git/hooks/pre-commit` elsewhere in the workspace is the hook;
	 * R28c-link-report). A nested repository's are met by the walk
	 * itself, too late for its other names. */
	for (size_t k = 0; r == 0 && below && k < n; k++)
		r = root_repository(&c, roots[k]);
	if (r == 0)
		r = system_startup(&c);
	if (r == 0)
		r = cf_later_each(policy, all, collect_visit, &c);
	free(all);
	confine_strv_free(c.pending);
	if (r < 0)
		cf_later_links_clear(out);
	else if (out->n > 1)
		qsort(out->items, out->n, sizeof *out->items, by_inode);
	return r < 0 ? r : 0;
}

/* The first item with inode number `ino`, or links->n. */
static size_t first_of(const cf_later_links *links, ino_t ino) {
	size_t lo = 0, hi = links->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (links->items[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < links->n && links->items[lo].ino == ino ? lo : links->n;
}

bool cf_later_links_may(const cf_later_links *links, ino_t ino) {
	return links && first_of(links, ino) < links->n;
}

const char *cf_later_links_of(const cf_later_links *links, const struct stat *st) {
	if (!links || !S_ISREG(st->st_mode) || st->st_nlink < 2)
		return NULL;
	for (size_t i = first_of(links, st->st_ino); i < links->n && links->items[i].ino == st->st_ino;
	     i++)
		if (links->items[i].dev == st->st_dev)
			return links->items[i].path;
	return NULL;
}

bool cf_later_links_in_dir(const cf_later_links *links, const char *path) {
	for (size_t i = 0; links && i < links->n_dirs; i++) {
		bool granted = false;
		if (!cf_path_at_or_under(path, links->dirs[i]))
			continue;
		/* a root inside it (`--writable ~/.vim/pack/mine`) is granted */
		for (size_t k = 0; links->roots && links->roots[k] && !granted; k++)
			granted = cf_path_at_or_under(path, links->roots[k]) &&
			          cf_path_at_or_under(links->roots[k], links->dirs[i]);
		if (!granted)
			return true;
	}
	return false;
}

const char *cf_later_links_cut(const cf_later_links *links) {
	return links && links->n_cut ? links->cut[0].path : NULL;
}

void cf_later_links_clear(cf_later_links *links) {
	if (!links)
		return;
	for (size_t i = 0; i < links->n; i++)
		free(links->items[i].path);
	free(links->items);
	confine_strv_free(links->dirs);
	confine_strv_free(links->via);
	confine_strv_free(links->in_roots);
	for (size_t i = 0; i < links->n_cut; i++)
		free(links->cut[i].path);
	free(links->cut);
	memset(links, 0, sizeof *links);
}
