/* SPDX-License-Identifier: MIT */
/*
 * What runs later, beyond git (doc/SPEC.md 15, "What runs later"; issue
 * 28.3): the files and directories that shells, editors, direnv, git and
 * agent tools execute or obey when a person next works in a writable root.
 * They are default protections: read-only on bwrap (existing or not,
 * unless a stand-in would break the tool that reads one: cf_later_stand),
 * refused by the file API, and, where a rung cannot hold them (Landlock,
 * or nothing stood in), reported after the run as a gitHazards entry of
 * kind "planted".
 */
#ifndef CONFINE_LATER_H
#define CONFINE_LATER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "confine.h"
#include "git-hazards.h"
#include "util.h"

/* How bwrap holds an entry that is missing when a run the library spawns
 * starts (doc/SPEC.md 15, "What runs later"). */
typedef enum cf_later_stand {
	/* the first missing component: an empty directory */
	CF_LATER_STAND_DIR = 0,
	/* the missing leaf: an empty file; a missing directory on its way: an
	 * empty directory, unless it sits right at its root (or home), where
	 * nothing is stood in and a plant is reported */
	CF_LATER_STAND_FILE,
	/* nothing stood in: made during the run, it is reported (planted) */
	CF_LATER_STAND_NONE,
	/* the first missing component: an empty directory, as _DIR, unless it
	 * sits right at its root (or home), where nothing is stood in and a
	 * plant is reported (a read-only `.github/` or `~/.local/` would stop
	 * the run making `.github/workflows/` or `~/.local/share/`) */
	CF_LATER_STAND_BELOW,
	/* the entry itself (an empty directory, or file) when the directory it
	 * lies in exists; nothing when a directory on its way is missing (a
	 * read-only `~/.local/share/` or `~/.config/Code/` would stop the run
	 * making its siblings), where a plant is reported */
	CF_LATER_STAND_LEAF,
} cf_later_stand;

/* Where an entry is: at the top of every writable root, and/or at the
 * caller's home ($HOME) wherever a writable root holds it. */
#define CF_LATER_AT_ROOT 1u
#define CF_LATER_AT_HOME 2u

typedef struct cf_later_entry {
	const char *name;     /* relative to a writable root, no trailing slash */
	bool dir;             /* a directory: everything in it is protected */
	bool repo;            /* git's own (.gitmodules, .gitattributes); where an
	                       * entry is held reads cf_later_project() */
	unsigned where;       /* CF_LATER_AT_* */
	cf_later_stand stand; /* what stands in for it, missing, on bwrap */
} cf_later_entry;

/* The entries, in doc/SPEC.md's order. */
extern const cf_later_entry cf_later_entries[] CONFINE_HIDDEN;
extern const size_t cf_later_count CONFINE_HIDDEN;

/* Each place an entry the policy protects lies under `roots` (canonical,
 * NULL-terminated): `<root>/<name>` for CF_LATER_AT_ROOT entries, and for
 * CF_LATER_AT_HOME ones `<home>/<name>` where a root holds the caller's
 * home (and `$XDG_CONFIG_HOME/git/config` for `.config/git/config`).
 * `visit` gets the holding root, the absolute path and the entry; a
 * non-zero return stops the walk and is returned. A path may come twice
 * (a home that is a root). */
typedef int (*cf_later_visit)(void *ctx, const char *root, const char *path,
                              const cf_later_entry *entry);
int cf_later_each(const confine_policy *policy, char *const *roots, cf_later_visit visit,
                  void *ctx) CONFINE_HIDDEN;

/* `visit(ctx, root, path, e)` when a root in `roots` holds `path` strictly
 * below its top; else 0. */
int cf_later_visit_held(char *const *roots, const char *path, cf_later_visit visit, void *ctx,
                        const cf_later_entry *e) CONFINE_HIDDEN;

/* later-home.c: `out` = absolute `path` resolved as far as it exists (the
 * longest existing prefix through realpath, a dangling link on the way
 * followed too: the run could create its target), the rest appended;
 * false when it cannot be told (too long, more than 40 links). */
bool cf_later_resolve(const char *path, char *out, size_t size) CONFINE_HIDDEN;

/* later-home.c: cf_later_visit_held of a home entry's `path`, and of the
 * place it resolves to when a link on its way leads elsewhere (a dotfiles
 * directory, a relocated `~/.config`: red team round 5); the same for the
 * place a variable moves it to (`$XDG_CONFIG_HOME/...` for a `.config/`
 * entry, `$PYTHONUSERBASE/lib` for `.local/lib`; absolute values only). */
int cf_later_visit_home(char *const *roots, const char *path, cf_later_visit visit, void *ctx,
                        const cf_later_entry *e) CONFINE_HIDDEN;

/* later-home.c: the caller's home as a later login sees it: `$HOME` when
 * it is absolute, else the passwd entry's (getpwuid_r), else NULL. The
 * string is `$HOME`'s or the calling thread's own (until its next call). */
const char *cf_later_home_env(void) CONFINE_HIDDEN;
/* The passwd entry's home (read from /etc/passwd, no NSS), or NULL; the
 * calling thread's own string until its next call. Where `$HOME` names
 * another directory, what runs later at the passwd home (a login shell,
 * an ssh session) is protected too (cf_later_each; R28c-home-env). */
const char *cf_later_passwd_home(void) CONFINE_HIDDEN;

/* later-home.c: how a missing `e` is stood in for at `base` (canonical:
 * the root or home it lies at the top of). At the caller's home, a
 * project entry below a directory (`.claude/settings.json`,
 * `.vscode/tasks.json`) stands in as CF_LATER_STAND_BELOW: a read-only
 * empty `~/.claude/` would stop the run (and the agent) making
 * `~/.claude/projects/`; elsewhere, the entry's own. */
cf_later_stand cf_later_stand_at(const cf_later_entry *e, const char *base) CONFINE_HIDDEN;

/* later-git.c: the files the user's (and the system's) git configuration
 * includes, its `core.hooksPath` and `init.templateDir`, and the program
 * each command-valued setting names (cf_git_executable_setting), each
 * visited (an entry of its own basename, at the home) where a root holds
 * it; `home` and `xdg` (the `$XDG_CONFIG_HOME/git/config` git reads
 * instead, or NULL) canonical. A relative hooks directory or program is
 * looked for at each root's top, or, with `worktree`, at that work tree's
 * alone: then only those are visited, and the repository's own
 * configuration `repo_config` (NULL: none) is read as well, everything it
 * names visited. */
int cf_later_git_each(const confine_policy *policy, const char *home, const char *xdg,
                      const char *worktree, const char *repo_config, char *const *roots,
                      cf_later_visit visit, void *ctx) CONFINE_HIDDEN;

/* later-walk.c: what git at the work tree `worktree` (a repository the
 * walk found below a root, or a root) obeys beyond the entries: the
 * relative hooks directory and programs the user's configuration names,
 * resolved there, and what `<worktree>/.git/config` names (its
 * `init.templateDir`, its programs, its includes); cf_later_git_each. */
int cf_later_worktree_each(const confine_policy *policy, const char *worktree,
                           char *const *roots, cf_later_visit visit, void *ctx) CONFINE_HIDDEN;

/* Whether `entry` is a project's (everything not home-only): held at the
 * top of every writable root and of every repository's work tree the git
 * walk finds below one, reported below a root wherever a directory holds
 * its first component (doc/SPEC.md 15, "What runs later", "Nested
 * projects"). */
bool cf_later_project(const cf_later_entry *entry) CONFINE_HIDDEN;

/* Whether a directory entry named `name` is the first component of a
 * project entry (`.claude` for `.claude/settings.json`, `.envrc`): the git
 * walk records where it sees one (cf_git_snapshot_marks). Cheap: it runs
 * on every entry the walk reads. */
bool cf_later_marks(const char *name) CONFINE_HIDDEN;

/* The entry named `name` (a trailing slash allowed), or NULL. */
const cf_later_entry *cf_later_lookup(const char *name) CONFINE_HIDDEN;

/* Whether `path` carries a run's stand-in mark (spawn/placeholders.c),
 * empty or not (another run's stand-ins may be inside it): a concurrent
 * run in the same root makes and removes it while this one starts. */
bool cf_later_is_marked(const char *path) CONFINE_HIDDEN;

/* Whether `path` is a run's stand-in as made (marked; an empty file or an
 * empty directory): it holds nothing, and the run that made it removes it
 * at any moment, so a plan takes it for missing. */
bool cf_later_is_stand_in(const char *path) CONFINE_HIDDEN;

/* Whether the policy protects `entry` (defaultProtections on, and the
 * entry not in `unprotect`). */
bool cf_later_protected(const confine_policy *policy, const cf_later_entry *entry) CONFINE_HIDDEN;

/* The file API's name rule (doc/SPEC.md 19), for `path` (canonical or as
 * given, absolute) under the writable root `root`: at or under an entry
 * the policy protects (at its top, or at the home it holds), existing or
 * not, or at or under a project entry in any directory below the root (a
 * nested repository, one made after the plan, a sub-project: the file API
 * has no after-run report, so it refuses where a run reports). */
bool cf_later_name_refused(const confine_policy *policy, const char *root,
                           const char *path) CONFINE_HIDDEN;

/* A fingerprint of every protected entry under each root (NULL-terminated
 * canonical directories): identity, type, size and times to the
 * nanosecond, a directory's entries walked within a budget. */
typedef struct cf_later_snapshot cf_later_snapshot;
/* `worktrees` (NULL or NULL-terminated: the git walk's work trees, see
 * cf_git_snapshot_worktrees) adds, below the roots, every project entry
 * at a work tree's top. `marks` (NULL-terminated lists, each NULL or
 * NULL-terminated: cf_git_snapshot_marks of the walks before and after)
 * adds, for each `<dir>/<first>` a walk saw, the project entries at
 * `<dir>` whose first component is `<first>` (a sub-project's). */
int cf_later_snapshot_take(const confine_policy *policy, char *const *roots,
                           char *const *worktrees, char *const *const *marks,
                           cf_later_snapshot **ret) CONFINE_HIDDEN;
/* Appends {path, "planted"} for each entry whose fingerprint differs
 * (made, changed, replaced or removed). 0 or -ENOMEM. */
int cf_later_snapshot_diff(const cf_later_snapshot *before, const cf_later_snapshot *after,
                           confine_git_hazard **hazards, size_t *n) CONFINE_HIDDEN;
void cf_later_snapshot_free(cf_later_snapshot *snapshot) CONFINE_HIDDEN;

/* The `unprotect` entry check every door shares: 0, or -EINVAL with
 * INVALID_POLICY naming the value. */
int cf_later_check_unprotect(const char *name, confine_error *err) CONFINE_HIDDEN;

/* later-links.c: the files the default protections hold that have other
 * names (hard links: st_nlink > 1), by device and inode, each with its
 * canonical path; and, for a plan, every regular file below a protected
 * directory (`~/.local/bin/`, `~/.ssh/`, a root's `.claude/hooks/`), by
 * its listing's device and inode number, within a budget. */
struct cf_later_link {
	dev_t dev;
	ino_t ino;
	char *path;
};
/* A protected directory whose listing was cut (its budget, a directory in
 * it that could not be listed): files below it may not all be taken, on
 * any device (a mount below it is listed as its own files are). */
struct cf_later_cut {
	char *path;
};
typedef struct cf_later_links {
	struct cf_later_link *items; /* sorted by inode number, then device */
	size_t n;
	char **dirs; /* the protected directories listed, canonical */
	size_t n_dirs;
	char *const *roots; /* the writable roots it was collected for */
	char **via;      /* directories listed that a symlink in one led to */
	char **in_roots; /* files a symlink in one leads to, inside a root */
	struct cf_later_cut *cut;
	size_t n_cut;
} cf_later_links;
/* The budgets of the listing of protected directories: entries in each
 * directory entry's tree, and in all (CF_LATER_BELOW_MAX, lowered by
 * tests through cf_later_below_budget). */
#define CF_LATER_BELOW_DIR_MAX 1024
#define CF_LATER_BELOW_MAX 8192
extern size_t cf_later_below_budget CONFINE_HIDDEN;
/* Every file entry at the top of each of `roots` and at the caller's home,
 * and each file the user's git configuration includes, wherever it lies
 * (held by a root or not), resolved: those with more than one name. With
 * `below`, also every regular file below each directory entry, wherever
 * it lies, resolved (listed, not examined: its count of names is the
 * walk's to read). 0 or -ENOMEM (then `out` is empty). */
int cf_later_links_collect(const confine_policy *policy, char *const *roots, bool below,
                           cf_later_links *out) CONFINE_HIDDEN;
/* Adds the protected file `st` (a stat of it) at `path`, in order. 0 or
 * -ENOMEM. */
int cf_later_links_add(cf_later_links *links, const struct stat *st,
                       const char *path) CONFINE_HIDDEN;
/* Whether a file listed with inode number `ino` could be one of `links`
 * (a cheap look before an lstat). */
bool cf_later_links_may(const cf_later_links *links, ino_t ino) CONFINE_HIDDEN;
/* The protected file `st` (an lstat of a regular file) is another name
 * of, or NULL. Cheap when `st` has one name. */
const char *cf_later_links_of(const cf_later_links *links, const struct stat *st) CONFINE_HIDDEN;
/* Whether the canonical `path` lies at or below a protected directory
 * listed (held with it). */
bool cf_later_links_in_dir(const cf_later_links *links, const char *path) CONFINE_HIDDEN;
/* The first protected directory whose listing was cut, or NULL. */
const char *cf_later_links_cut(const cf_later_links *links) CONFINE_HIDDEN;
void cf_later_links_clear(cf_later_links *links) CONFINE_HIDDEN;

#endif
