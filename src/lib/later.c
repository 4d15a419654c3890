/* SPDX-License-Identifier: MIT */
/*
 * What runs later, beyond git (doc/SPEC.md 15, "What runs later"): the
 * table, the `unprotect` opt-out, and the before/after fingerprint that
 * reports a change where a rung cannot keep an entry read-only.
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
#include "policy-internal.h"

#define STAGE "policy"

/* doc/SPEC.md 15 gives each entry's reason; keep the two in step. */
#define R CF_LATER_AT_ROOT
#define H CF_LATER_AT_HOME
#define RH (CF_LATER_AT_ROOT | CF_LATER_AT_HOME)
#define DIR_ CF_LATER_STAND_DIR
#define FILE_ CF_LATER_STAND_FILE
#define NONE_ CF_LATER_STAND_NONE
#define BELOW_ CF_LATER_STAND_BELOW
#define LEAF_ CF_LATER_STAND_LEAF
const cf_later_entry cf_later_entries[] = {
	{ ".gitmodules", false, true, R, DIR_ },
	{ ".gitattributes", false, true, R, DIR_ },
	{ ".bashrc", false, false, RH, DIR_ },
	{ ".bash_profile", false, false, RH, DIR_ },
	{ ".bash_login", false, false, RH, DIR_ },
	{ ".bash_logout", false, false, RH, DIR_ },
	{ ".profile", false, false, RH, DIR_ },
	{ ".zshrc", false, false, RH, DIR_ },
	{ ".zprofile", false, false, RH, DIR_ },
	{ ".zshenv", false, false, RH, DIR_ },
	{ ".zlogin", false, false, RH, DIR_ },
	{ ".envrc", false, false, R, DIR_ },
	{ ".npmrc", false, false, RH, DIR_ },
	{ ".ripgreprc", false, false, R, DIR_ },
	{ ".mcp.json", false, false, R, DIR_ },
	{ ".vscode/settings.json", false, false, R, DIR_ },
	{ ".vscode/tasks.json", false, false, R, DIR_ },
	{ ".vscode/launch.json", false, false, R, DIR_ },
	{ ".idea", true, false, R, DIR_ },
	{ ".claude/settings.json", false, false, R, DIR_ },
	{ ".claude/settings.local.json", false, false, R, DIR_ },
	{ ".claude/commands", true, false, R, DIR_ },
	{ ".claude/agents", true, false, R, DIR_ },
	{ ".claude/skills", true, false, R, DIR_ },
	{ "CLAUDE.md", false, false, R, DIR_ },
	{ "AGENTS.md", false, false, R, DIR_ },
	{ ".pre-commit-config.yaml", false, false, R, DIR_ },
	{ ".yarnrc.yml", false, false, R, DIR_ },
	{ ".yarnrc", false, false, R, DIR_ },
	{ ".husky", true, false, R, DIR_ },
	{ ".codex/config.toml", false, false, R, DIR_ },
	{ ".cursor", true, false, R, DIR_ },
	/* red team round 3, F11, and their kind (issue 28) */
	{ ".hg/hgrc", false, false, R, FILE_ },
	{ ".cargo/config.toml", false, false, R, FILE_ },
	{ ".cargo/config", false, false, R, NONE_ },
	{ ".mise.toml", false, false, R, NONE_ },
	{ "mise.toml", false, false, R, NONE_ },
	{ ".pnpmfile.cjs", false, false, R, NONE_ },
	{ ".python-version", false, false, R, NONE_ },
	/* the user's global configuration, at the home (issue 28) */
	{ ".gitconfig", false, false, H, FILE_ },
	{ ".config/git/config", false, false, H, FILE_ },
	{ ".hgrc", false, false, H, FILE_ },
	/* red team round 4, F3: agents' instructions and hooks, editors' MCP
	 * servers, zsh's log-out file; the home's keys, PATH, units, helpers */
	{ "CLAUDE.local.md", false, false, R, DIR_ },
	{ ".claude/CLAUDE.md", false, false, R, DIR_ },
	{ ".claude/rules", true, false, R, DIR_ },
	{ ".claude/hooks", true, false, R, DIR_ },
	{ ".vscode/mcp.json", false, false, R, DIR_ },
	{ ".gemini", true, false, R, DIR_ },
	{ "GEMINI.md", false, false, R, DIR_ },
	{ ".github/copilot-instructions.md", false, false, R, BELOW_ },
	{ ".cursorrules", false, false, R, DIR_ },
	{ ".windsurfrules", false, false, R, DIR_ },
	{ ".clinerules", true, false, R, DIR_ },
	{ ".zlogout", false, false, RH, DIR_ },
	{ ".ssh", true, false, H, DIR_ },
	{ ".local/bin", true, false, H, BELOW_ },
	{ ".bash_aliases", false, false, H, DIR_ },
	{ ".config/systemd/user", true, false, H, BELOW_ },
	{ ".docker/config.json", false, false, H, FILE_ },
	{ ".gnupg", true, false, H, NONE_ },
	{ ".claude.json", false, false, H, NONE_ },
	/* issue 28, the outside red team: what else runs from a home */
	{ ".local/lib", true, false, H, LEAF_ },
	{ ".vimrc", false, false, H, FILE_ },
	{ ".gvimrc", false, false, H, FILE_ },
	{ ".exrc", false, false, H, FILE_ },
	{ ".vim", true, false, H, LEAF_ },
	{ ".config/nvim", true, false, H, LEAF_ },
	{ ".local/share/nvim/site", true, false, H, LEAF_ },
	{ ".emacs", false, false, H, FILE_ },
	{ ".emacs.el", false, false, H, FILE_ },
	{ ".emacs.d", true, false, H, LEAF_ },
	{ ".config/emacs", true, false, H, LEAF_ },
	{ ".bash_completion", false, false, H, FILE_ },
	{ ".local/share/bash-completion", true, false, H, LEAF_ },
	{ ".inputrc", false, false, H, FILE_ },
	{ ".tmux.conf", false, false, H, FILE_ },
	{ ".config/tmux", true, false, H, LEAF_ },
	{ ".config/fish", true, false, H, LEAF_ },
	{ ".config/starship.toml", false, false, H, LEAF_ },
	{ ".config/direnv", true, false, H, LEAF_ },
	{ ".local/share/direnv/allow", true, false, H, LEAF_ },
	{ ".config/autostart", true, false, H, LEAF_ },
	{ ".xprofile", false, false, H, FILE_ },
	{ ".xsessionrc", false, false, H, FILE_ },
	{ ".xsession", false, false, H, FILE_ },
	{ ".xinitrc", false, false, H, FILE_ },
	{ ".config/environment.d", true, false, H, LEAF_ },
	{ ".config/systemd/user.conf", false, false, H, LEAF_ },
	{ ".config/git/attributes", false, false, H, LEAF_ },
	{ ".lessfilter", false, false, H, FILE_ },
	{ ".gdbinit", false, false, H, FILE_ },
	{ ".config/gdb", true, false, H, LEAF_ },
	{ ".ipython", true, false, H, LEAF_ },
	{ ".config/Code/User/settings.json", false, false, H, LEAF_ },
	{ ".config/Code/User/tasks.json", false, false, H, LEAF_ },
	{ ".config/Code/User/mcp.json", false, false, H, LEAF_ },
	{ ".vscode/extensions", true, false, H, DIR_ },
	{ ".codex/AGENTS.md", false, false, H, DIR_ },
	{ ".cargo/env", false, false, H, FILE_ },
	{ ".cargo/bin", true, false, H, LEAF_ },
	{ ".pip/pip.conf", false, false, H, FILE_ },
	{ ".config/pip/pip.conf", false, false, H, FILE_ },
#include "later-entries-more.inc"
};
#undef R
#undef H
#undef RH
#undef DIR_
#undef FILE_
#undef NONE_
#undef BELOW_
#undef LEAF_
const size_t cf_later_count = sizeof cf_later_entries / sizeof cf_later_entries[0];

bool cf_later_project(const cf_later_entry *entry) {
	return (entry->where & CF_LATER_AT_ROOT) != 0;
}

/* The length of `name`'s first component. */
static size_t first_len(const char *name) {
	return strcspn(name, "/");
}

bool cf_later_marks(const char *name) {
	size_t len;
	/* Every project entry starts with '.', 'A', 'C', 'G' or 'm': most of
	 * a tree's names (a node_modules) are turned away by one compare. */
	if (name[0] != '.' && name[0] != 'A' && name[0] != 'C' && name[0] != 'G' && name[0] != 'm')
		return false;
	len = strlen(name);
	for (size_t i = 0; i < cf_later_count; i++)
		if (cf_later_project(&cf_later_entries[i]) &&
		    first_len(cf_later_entries[i].name) == len &&
		    memcmp(cf_later_entries[i].name, name, len) == 0)
			return true;
	return false;
}

const cf_later_entry *cf_later_lookup(const char *name) {
	size_t len;
	if (!name)
		return NULL;
	len = strlen(name);
	if (len && name[len - 1] == '/')
		len--;
	for (size_t i = 0; i < cf_later_count; i++)
		if (strlen(cf_later_entries[i].name) == len &&
		    strncmp(cf_later_entries[i].name, name, len) == 0)
			return &cf_later_entries[i];
	return NULL;
}

bool cf_later_protected(const confine_policy *policy, const cf_later_entry *entry) {
	if (!policy->default_protections)
		return false;
	for (size_t i = 0; policy->unprotect && policy->unprotect[i]; i++)
		if (cf_later_lookup(policy->unprotect[i]) == entry)
			return false;
	return true;
}

/* The caller's home, canonical (realpath of $HOME), or NULL. */
static char *home_dir(void) {
	const char *home = cf_later_home_env();
	return home && home[0] == '/' ? realpath(home, NULL) : NULL;
}

/* `$XDG_CONFIG_HOME/git/config` where it is set (absolute) and is not
 * `<home>/.config`: git reads it instead of `<home>/.config/git/config`. */
static char *xdg_git_config(const char *home) {
	const char *xdg = getenv("XDG_CONFIG_HOME");
	char *real, *out = NULL;
	if (!xdg || xdg[0] != '/' || !(real = realpath(xdg, NULL)))
		return NULL;
	if (home && strncmp(real, home, strlen(home)) == 0 &&
	    strcmp(real + strlen(home), "/.config") == 0) {
		free(real);
		return NULL;
	}
	if (asprintf(&out, "%s/git/config", real) < 0)
		out = NULL;
	free(real);
	return out;
}

/* The writable root that holds `path` strictly below its top, or NULL (a
 * root that is an entry itself, or lies inside one, is that grant asked
 * for by name: doc/SPEC.md 15). */
static const char *holding_root(char *const *roots, const char *path) {
	for (size_t k = 0; roots && roots[k]; k++)
		if (cf_path_at_or_under(path, roots[k]) && strcmp(path, roots[k]) != 0)
			return roots[k];
	return NULL;
}

int cf_later_visit_held(char *const *roots, const char *path, cf_later_visit visit, void *ctx,
                        const cf_later_entry *e) {
	const char *root = holding_root(roots, path);
	return root ? visit(ctx, root, path, e) : 0;
}

int cf_later_each(const confine_policy *policy, char *const *roots, cf_later_visit visit,
                  void *ctx) {
	char path[PATH_MAX], *home, *xdg;
	int r = 0;
	if (!policy->default_protections)
		return 0;
	for (size_t k = 0; r == 0 && roots && roots[k]; k++)
		for (size_t i = 0; r == 0 && i < cf_later_count; i++) {
			const cf_later_entry *e = &cf_later_entries[i];
			if (!(e->where & CF_LATER_AT_ROOT) || !cf_later_protected(policy, e) ||
			    (size_t)snprintf(path, sizeof path, "%s%s%s", roots[k],
			                     strcmp(roots[k], "/") == 0 ? "" : "/", e->name) >= sizeof path)
				continue;
			r = visit(ctx, roots[k], path, e);
		}
	/* Every entry at the caller's home, wherever its own path lies in a
	 * writable root: the home, a root above it or one below it
	 * (`--writable ~/.config` holds `~/.config/git/config`). */
	home = home_dir();
	xdg = home ? xdg_git_config(home) : NULL;
	for (size_t i = 0; r == 0 && home && i < cf_later_count; i++) {
		const cf_later_entry *e = &cf_later_entries[i];
		if (!cf_later_protected(policy, e))
			continue;
		if ((size_t)snprintf(path, sizeof path, "%s%s%s", home, strcmp(home, "/") == 0 ? "" : "/",
		                     e->name) < sizeof path)
			r = cf_later_visit_home(roots, path, visit, ctx, e);
		if (r == 0 && xdg && strcmp(e->name, ".config/git/config") == 0)
			r = cf_later_visit_home(roots, xdg, visit, ctx, e);
	}
	/* What the user's git configuration includes, and its hooks directory
	 * (later-git.c), where a writable root holds them. */
	if (r == 0)
		r = cf_later_git_each(policy, home, xdg, roots, visit, ctx);
	free(xdg);
	free(home);
	return r;
}

struct refused_ctx {
	const char *path;
	bool refused;
};

static int refused_visit(void *ctx, const char *root, const char *path,
                         const cf_later_entry *entry) {
	struct refused_ctx *c = ctx;
	(void)root;
	(void)entry;
	if (cf_path_at_or_under(c->path, path))
		c->refused = true;
	return 0;
}

/* Whether `rel` (relative to a directory) is at or under a project entry
 * the policy protects. */
static bool project_entry_at(const confine_policy *policy, const char *rel) {
	for (size_t i = 0; i < cf_later_count; i++) {
		const cf_later_entry *e = &cf_later_entries[i];
		size_t len = strlen(e->name);
		if (cf_later_project(e) && strncmp(rel, e->name, len) == 0 &&
		    (rel[len] == '\0' || rel[len] == '/') && cf_later_protected(policy, e))
			return true;
	}
	return false;
}

bool cf_later_name_refused(const confine_policy *policy, const char *root, const char *path) {
	size_t n = strlen(root);
	if (!policy->default_protections)
		return false;
	if (strcmp(root, "/") != 0 && (strncmp(path, root, n) != 0 || (path[n] && path[n] != '/')))
		return false;
	{
		/* an entry at this root's top, or at the home it holds */
		char *const roots[2] = { (char *)root, NULL };
		struct refused_ctx c = { path, false };
		(void)cf_later_each(policy, roots, refused_visit, &c);
		if (c.refused)
			return true;
	}
	/* A project entry in any directory below the root: a nested
	 * repository's (one made after the plan too) or a sub-project's. A run
	 * reports these after it; the file API, with no after, refuses them by
	 * name, which costs no walk (doc/SPEC.md 15, "Nested projects"). */
	for (const char *p = path + n; *p; p++)
		if (*p == '/' && p > path + n && p[1] && project_entry_at(policy, p + 1))
			return true;
	return false;
}

int cf_later_check_unprotect(const char *name, confine_error *err) {
	char list[4096]; /* every name, ~1,700 bytes today: room for more, never cut */
	size_t off = 0;
	if (name && cf_later_lookup(name))
		return 0;
	list[0] = '\0';
	for (size_t i = 0; i < cf_later_count && off < sizeof list; i++) {
		int n = snprintf(list + off, sizeof list - off, "%s%s%s", i ? ", " : "",
		                 cf_later_entries[i].name, cf_later_entries[i].dir ? "/" : "");
		if (n < 0)
			break;
		off += (size_t)n;
	}
	return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
	                    "unprotect entry \"%s\" is not a default protection for what runs "
	                    "later (one of %s)",
	                    name ? name : "(null)", list);
}

/* ---- the fingerprint ---- */

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
		    (first && (first_len(e->name) != strlen(first) ||
		               strncmp(e->name, first, strlen(first)) != 0)) ||
		    (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->name) >= sizeof path)
			continue;
		r = take_one(s, roots, path, e->dir);
	}
	return r;
}

int cf_later_snapshot_take(const confine_policy *policy, char *const *roots,
                           char *const *worktrees, char *const *const *marks,
                           cf_later_snapshot **ret) {
	cf_later_snapshot *s = calloc(1, sizeof *s);
	struct take_ctx t = { s, roots };
	char dir[PATH_MAX];
	int r = 0;
	if (!s)
		return -ENOMEM;
	s->roots = roots;
	r = cf_later_each(policy, roots, take_visit, &t);
	/* A nested repository's work tree: a project, as a root is. */
	for (size_t k = 0; r == 0 && worktrees && worktrees[k]; k++)
		if (!is_root(roots, worktrees[k]) && in_roots(roots, worktrees[k]))
			r = take_project(s, policy, roots, worktrees[k], NULL);
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
