/* SPDX-License-Identifier: MIT */
/*
 * Where the entries of what runs later (later.c) lie under a policy's
 * writable roots (doc/SPEC.md 15, "What runs later"): at each root's top,
 * at the caller's home a root holds, and what the user's git
 * configuration brings in (later-git.c); and the file API's name rule.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "later.h"
#include "policy-internal.h"

/* The caller's home, canonical (realpath of $HOME), or NULL. */
static char *home_dir(void) {
	const char *home = cf_later_home_env();
	return home && home[0] == '/' ? realpath(home, NULL) : NULL;
}

/* The passwd entry's home, canonical, where it is another directory than
 * `home` (`HOME=/var/tmp/x`: a login or an ssh session later reads the
 * passwd one's `.bashrc`, `.ssh/authorized_keys`, `.gitconfig`), or NULL. */
static char *other_home(const char *home) {
	const char *pw = cf_later_passwd_home();
	char *real = pw && pw[0] == '/' ? realpath(pw, NULL) : NULL;
	if (real && home && strcmp(real, home) == 0) {
		free(real);
		return NULL;
	}
	return real;
}

/* Every home entry at `home` (and git's XDG config where `xdg` is set),
 * wherever its path lies in a writable root. */
static int each_at_home(const confine_policy *policy, char *const *roots, const char *home,
                        const char *xdg, cf_later_visit visit, void *ctx) {
	char path[PATH_MAX];
	int r = 0;
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
	return r;
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
	char path[PATH_MAX], *home, *xdg, *other;
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
	other = other_home(home);
	if (r == 0)
		r = each_at_home(policy, roots, home, xdg, visit, ctx);
	/* ... and at the passwd home where $HOME names another directory */
	if (r == 0 && other)
		r = each_at_home(policy, roots, other, NULL, visit, ctx);
	/* What the user's git configuration includes, and its hooks directory
	 * (later-git.c), where a writable root holds them: each home's. */
	if (r == 0)
		r = cf_later_git_each(policy, home, xdg, NULL, NULL, roots, visit, ctx);
	if (r == 0 && other)
		r = cf_later_git_each(policy, other, NULL, NULL, NULL, roots, visit, ctx);
	free(other);
	free(xdg);
	free(home);
	return r;
}

int cf_later_worktree_each(const confine_policy *policy, const char *worktree,
                           char *const *roots, cf_later_visit visit, void *ctx) {
	char config[PATH_MAX], *home, *xdg;
	int r;
	if (!policy->default_protections ||
	    (size_t)snprintf(config, sizeof config, "%s/.git/config", worktree) >= sizeof config)
		return 0;
	home = home_dir();
	xdg = home ? xdg_git_config(home) : NULL;
	r = cf_later_git_each(policy, home, xdg, worktree, config, roots, visit, ctx);
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
