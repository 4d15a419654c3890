/* SPDX-License-Identifier: MIT */
/*
 * What runs later (later.c; doc/SPEC.md 15, "What runs later") in bwrap's
 * protections plan: each entry under a writable root, at its home, and at
 * every repository's work tree (every project entry), existing or not, stood in for as the entry
 * says; and what the links inside a protected directory resolve to.
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
#include "later.h"
#include "policy-internal.h"
#include "profiles/protect-internal.h"


/* The links in an existing protected directory's tree (`.husky`,
 * `.claude/commands`, ...): a later tool follows them, so what each
 * resolves to inside a writable root is held as well (a dangling one, which
 * the command could make resolve, is reported). Within the walk's budget. */
static void protect_links_in(struct collect *c, const char *top) {
	cf_dirstack stack = { 0 };
	char *at = NULL;
	int fd;
	if (cf_dirstack_push_root(&stack, top) < 0)
		return;
	while (!c->oom && (fd = cf_dirstack_pop_open(&stack, &at, NULL)) != -ENOENT) {
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		struct dirent *e;
		if (fd == -ESTALE)
			cf_protect_defaults_unprotected(c, "%s changed while it was walked", at);
		if (fd >= 0 && !d)
			close(fd);
		while (d && !c->oom && (e = readdir(d))) {
			char link[PATH_MAX * 2 + 2];
			struct stat st;
			bool unprotected = false;
			if (e->d_name[0] == '.' &&
			    (e->d_name[1] == '\0' || (e->d_name[1] == '.' && e->d_name[2] == '\0')))
				continue;
			if (!cf_protect_spend(c, at))
				break;
			if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			if (S_ISDIR(st.st_mode)) {
				if (cf_dirstack_push_child(&stack, dirfd(d), at, e->d_name) == -ENOMEM)
					c->oom = true;
				continue;
			}
			if (!S_ISLNK(st.st_mode) ||
			    (size_t)snprintf(link, sizeof link, "%s/%s", at, e->d_name) >= sizeof link)
				continue;
			cf_protect_path(c, link, CF_PLACEHOLDER_NONE, &unprotected);
			if (unprotected)
				cf_protect_defaults_unprotected(c, "%s is a symbolic link that does not resolve, which the "
				                        "command could make resolve", link);
		}
		if (d)
			closedir(d);
		free(at);
		at = NULL;
	}
	free(at);
	cf_dirstack_clear(&stack);
}

/* Whether `path` (under `base`, its root or home) is missing somewhere:
 * *top_dir set when the first missing component is a directory right
 * below `base` (not the entry's leaf); *on_way when it is any directory
 * (not the leaf). */
static bool missing_below(const char *base, const char *path, bool *top_dir, bool *on_way) {
	char part[PATH_MAX];
	size_t off = strlen(base) + (strcmp(base, "/") == 0 ? 0 : 1), depth = 0;
	struct stat st;
	*top_dir = *on_way = false;
	if (strlen(path) >= sizeof part)
		return false;
	while (path[off]) {
		size_t len = strcspn(path + off, "/");
		memcpy(part, path, off + len);
		part[off + len] = '\0';
		if (lstat(part, &st) < 0 || cf_later_is_stand_in(part)) {
			*top_dir = depth == 0 && path[off + len] != '\0';
			*on_way = path[off + len] != '\0';
			return true;
		}
		off += len;
		while (path[off] == '/')
			off++;
		depth++;
	}
	return false;
}

/* One entry of what runs later at `path` (`base`: the root or home it sits
 * at the top of), as a protectedPaths entry is; a missing one is stood in
 * for as the entry says (later.h), or left to the report. */
static void protect_later_one(struct collect *c, const char *base, const char *path,
                              const cf_later_entry *e) {
	struct stat st;
	bool unprotected = false, top_dir = false, on_way = false;
	cf_later_stand stand = cf_later_stand_at(e, base);
	cf_placeholder_kind kind = stand == CF_LATER_STAND_DIR || stand == CF_LATER_STAND_BELOW ||
	                                   (stand == CF_LATER_STAND_LEAF && e->dir)
	                                  ? CF_PLACEHOLDER_DIR
	                                  : CF_PLACEHOLDER_FILE;
	/* A staged run's writes land in the stage, and applying one to an
	 * entry is refused (doc/SPEC.md 21): no stand-in needed. */
	if (c->policy->stage_dir && lstat(path, &st) < 0 && errno == ENOENT)
		return;
	if (cf_protect_symlink_on_the_way(base, path + strlen(base) + (strcmp(base, "/") == 0 ? 0 : 1)))
		cf_protect_defaults_unprotected(c, "%s: a symbolic link on its way could be re-pointed by the "
		                        "command", path);
	/* Where a stand-in would break the tool that reads the entry, a run
	 * the library spawns stands nothing in and reports a plant instead
	 * (later.c; an argv for others cannot, and lists the entry). */
	if ((c->flags & CF_PLAN_PLACEHOLDERS) && stand != CF_LATER_STAND_DIR &&
	    missing_below(base, path, &top_dir, &on_way) &&
	    (stand == CF_LATER_STAND_NONE || top_dir || (stand == CF_LATER_STAND_LEAF && on_way)))
		return;
	cf_protect_path(c, path, kind, &unprotected);
	if (unprotected)
		cf_protect_defaults_missing(c, path);
	else if (e->dir && lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
		protect_links_in(c, path);
}

static int later_visit(void *ctx, const char *root, const char *path,
                       const cf_later_entry *e) {
	struct collect *c = ctx;
	/* the entry's own base: the root, or the home (a path below the root);
	 * for `$XDG_CONFIG_HOME/git/config` (`$PYTHONUSERBASE/lib`, a
	 * resolved link), the directory above that one, so its `git/` is a
	 * directory on the way as in `~/.config/git/` */
	size_t len = strlen(path), name_len = strlen(e->name), base_len;
	char base[PATH_MAX];
	(void)root;
	if (c->oom)
		return -ENOMEM;
	if (len > name_len && path[len - name_len - 1] == '/' &&
	    strcmp(path + len - name_len, e->name) == 0) {
		base_len = len - name_len - 1;
	} else {
		/* relocated or resolved: as many components up as the name has */
		const char *slash = path + len;
		int parts = 1;
		for (const char *p = e->name; *p; p++)
			parts += *p == '/';
		for (int up = 0; up < parts && slash > path; up++)
			while (--slash > path && *slash != '/')
				;
		base_len = (size_t)(slash - path);
	}
	if (base_len >= sizeof base)
		return 0;
	memcpy(base, path, base_len);
	base[base_len] = '\0';
	if (!base_len)
		strcpy(base, "/");
	protect_later_one(c, base, path, e);
	return c->oom ? -ENOMEM : 0;
}

void cf_protect_later(struct collect *c, const char *dir, bool work_tree) {
	char path[PATH_MAX];
	if (!work_tree) {
		char *const roots[2] = { (char *)dir, NULL };
		(void)cf_later_each(c->policy, roots, later_visit, c);
		return;
	}
	/* What git obeys there beyond the entries (its configuration's
	 * programs and template directory, a relative hooks directory). */
	if (cf_later_worktree_each(c->policy, dir, c->plan->writable, later_visit, c) < 0)
		c->oom = true;
	/* A repository's work tree below a root is a project as the root is:
	 * every project entry at its top (a root's own are placed above). */
	for (size_t k = 0; c->plan->writable && c->plan->writable[k]; k++)
		if (strcmp(c->plan->writable[k], dir) == 0)
			return;
	for (size_t i = 0; i < cf_later_count && !c->oom; i++) {
		const cf_later_entry *e = &cf_later_entries[i];
		if (!cf_later_project(e) || !cf_later_protected(c->policy, e))
			continue;
		if (cf_protect_join(path, sizeof path, dir, e->name) < 0) {
			cf_protect_defaults_unprotected(c, "%s/%s: the path is too long", dir, e->name);
			continue;
		}
		protect_later_one(c, dir, path, e);
	}
}
