/* SPDX-License-Identifier: MIT */
/*
 * bwrap's protections plan (protect.c), shared with the part that plans
 * what runs later (protect-later.c).
 */
#ifndef CONFINE_PROFILES_PROTECT_INTERNAL_H
#define CONFINE_PROFILES_PROTECT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "confine.h"
#include "later.h"
#include "profiles/plan.h"
#include "util.h"

struct collect {
	const confine_policy *policy;
	cf_plan *plan;
	unsigned flags;
	cf_protected *items;
	size_t n, cap;
	char **gitdirs; /* visited */
	char **outside_gitdirs; /* named from a root, lying outside the roots */
	size_t n_gitdirs;
	size_t entries;
	bool explicit_now; /* adding protectedPaths entries (not defaults) */
	char **reasons;    /* why default protections do not hold, each once */
	size_t n_reasons;
	char **missing;    /* default entries missing with nothing to stand in */
	size_t n_missing;
	cf_later_links links; /* the protected files with other names */
	size_t root;          /* the writable root the walk is in */
	bool rewalk;          /* looking again for late other names */
	struct cf_protect_named *named; /* files with other names met, where a */
	size_t n_named, cap_named;      /* listing was cut (protect-links.c) */
	bool oom;
};

/* The writable root `path` lies at or under, or NULL (read-only there). */
const char *cf_protect_root_of(const cf_plan *plan, const char *path) CONFINE_HIDDEN;
/* `path` (canonical) is to be bound read-only; `kind` stands in if missing. */
void cf_protect_add_item(struct collect *c, const char *path, cf_placeholder_kind kind,
              bool exists) CONFINE_HIDDEN;
/* A default protection that does not hold: each reason is kept, once;
 * the report names the first CF_PROTECT_REASONS_SHOWN and counts the
 * rest ("; and K more"). */
#define CF_PROTECT_REASONS_SHOWN 16
void cf_protect_defaults_unprotected(struct collect *c, const char *fmt, ...) CONFINE_HIDDEN
	__attribute__((format(printf, 2, 3)));
/* One directory entry read by a walk: false once the budget is spent. */
bool cf_protect_spend(struct collect *c, const char *dir) CONFINE_HIDDEN;
/* A default entry missing (or that cannot be examined) with nothing to
 * stand in for it: named, once, in the reason's list of such paths. */
void cf_protect_defaults_missing(struct collect *c, const char *path) CONFINE_HIDDEN;
/* `candidate` stays read-only: resolved, or its first missing component
 * stood in for (`leaf_kind` for the candidate itself); else *unprotected. */
void cf_protect_path(struct collect *c, const char *candidate, cf_placeholder_kind leaf_kind,
                  bool *unprotected) CONFINE_HIDDEN;
int cf_protect_join(char *out, size_t size, const char *root, const char *rel) CONFINE_HIDDEN;
/* A symlink on the way from `root` to `rel` (which the command could re-point). */
bool cf_protect_symlink_on_the_way(const char *root, const char *rel) CONFINE_HIDDEN;

/* protect-links.c: the walk met `dir`/`name` (not a directory, its
 * listing's inode number `ino`): when it is another name of a protected
 * file (later-links.c), it is held as that file is (bwrap binds it
 * read-only, a rung without binds reports it, the file API refuses it).
 * Where the listing of a protected directory on its device was cut, a
 * file with more names than the roots hold is noted, for
 * cf_protect_links_report (not a git object: `git_object`, a name below
 * a gitdir's objects/, read-only). */
void cf_protect_hard_link(struct collect *c, int dirfd_, const char *dir, const char *name,
                          ino_t ino, bool git_object) CONFINE_HIDDEN;
/* After the walks: every name in the repositories' own directories the
 * walk found inside a root (`.git/`, a bare repository), looked at so. */
void cf_protect_git_trees(struct collect *c) CONFINE_HIDDEN;
/* After the walks: the noted files whose other names are not all in the
 * writable roots make the defaults partial, naming one and the listing
 * cut. */
void cf_protect_links_report(struct collect *c) CONFINE_HIDDEN;
void cf_protect_links_clear(struct collect *c) CONFINE_HIDDEN;
/* After the walks: a nested repository's config and hooks with other
 * names, which the walk met too late, held by looking at the roots again. */
void cf_protect_late_links(struct collect *c) CONFINE_HIDDEN;
/* `dir`, which the walk could not list (EACCES), is reported when the
 * command could still reach inside it (it may search it, or owns it). */
void cf_protect_unlistable(struct collect *c, const char *dir) CONFINE_HIDDEN;

/* protect-finish.c: the items sorted, covered ones dropped, pins listed;
 * the items move to the plan. 0 or -ENOMEM. */
int cf_protect_finish(struct collect *c) CONFINE_HIDDEN;

/* protect-later.c: what runs later (later.c) under `dir`, a writable root
 * or a repository's work tree below one (`work_tree`: every project entry
 * at its top, as at a root's). */
void cf_protect_later(struct collect *c, const char *dir, bool work_tree) CONFINE_HIDDEN;

#endif
