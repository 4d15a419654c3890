/* SPDX-License-Identifier: MIT */
/*
 * What a policy means on this filesystem, computed once before any profile
 * is generated: the writable roots, which protected paths exist (a bind can
 * only cover what exists), which denyRead entries exist and whether each is
 * a directory. The generators turn a plan into tokens or text; the
 * unenforced report reads the same plan, so the two never disagree.
 */
#ifndef CONFINE_PROFILES_PLAN_H
#define CONFINE_PROFILES_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* What stands in, for the time of a run, for a protected path that does
 * not exist yet (bwrap, runs the library spawns: doc/SPEC.md 15). A mount
 * needs something to sit on, so the spawner makes it before bwrap starts
 * and removes it after the run (spawn/placeholders.c). */
typedef enum cf_placeholder_kind {
	CF_PLACEHOLDER_NONE = 0,  /* never made: the path stays as it is */
	CF_PLACEHOLDER_DIR,       /* an empty directory */
	CF_PLACEHOLDER_FILE,      /* an empty file */
	CF_PLACEHOLDER_COMMONDIR, /* a file holding ".\n": to git, "this repository itself" */
} cf_placeholder_kind;

/* One path bwrap keeps read-only (`--ro-bind P P`). */
typedef struct cf_protected {
	char *path;               /* canonical, inside a writable root */
	cf_placeholder_kind kind; /* what stands in for it when missing */
	bool exists;              /* false: a placeholder the spawner makes */
	bool explicit_entry;      /* from protectedPaths (else a default protection) */
	/* another name (a hard link) of this protected file, canonical, when
	 * that is why this path is held (profiles/protect.c), else NULL */
	char *link_of;
} cf_protected;

/* cf_plan_make flags. */
/* bwrap's protections: every repository under the writable roots found by
 * a bounded walk, the part of each that git reads and runs code from, the
 * directories on the way to every protected path (pins), and a `.git`
 * file's gitdir. */
#define CF_PLAN_BWRAP (1u << 0)
/* A protected path that does not exist gets a placeholder (the spawner
 * makes it) instead of being left unprotected. Only for an argv the
 * library spawns itself: nobody would remove one made for `wrap`. */
#define CF_PLAN_PLACEHOLDERS (1u << 1)

/* Bound on the repositories one plan protects; past it the default
 * protections are reported unenforced (naming the first one left out). */
#define CF_PLAN_MAX_GITDIRS 128

typedef struct cf_plan {
	/* workspace-write: the workspace root, then writableRoots; read-only:
	 * none. Canonical, NULL-terminated. */
	char **writable;
	/* Seatbelt: the paths to keep read-only whether they exist or not
	 * (protectedPaths, then `.git/hooks` and `.git/config` under each root
	 * holding a `.git` directory); Seatbelt denies by path. */
	char **protect_all;
	bool defaults_apply; /* some writable root holds a .git directory */
	/* CF_PLAN_BWRAP: what bwrap keeps read-only, sorted by path, none
	 * below another; the directories bound onto themselves first (each a
	 * mount point in the sandbox, so it cannot be renamed or removed there),
	 * shallow first; and what could not be protected. */
	cf_protected *protected_paths;
	size_t n_protected;
	char **pins;
	/* A protectedPaths entry that stays unprotected somewhere: missing
	 * without a placeholder, a symlink on its way inside a writable root
	 * (the link can be re-pointed), or a path that cannot be examined. */
	bool explicit_unprotected;
	/* The same for the default protections, or the walk ran out of its
	 * budget; defaults_reason names every missing entry and says every
	 * other reason, each list bounded with "and K more" (what the
	 * report's defaultProtections clause gives). */
	bool defaults_unprotected;
	char *defaults_reason;
	/* Existing denyRead entries, canonical, and whether each is a
	 * directory (masked with an empty tmpfs) or not (with /dev/null). */
	char **deny;
	bool *deny_is_dir;
	size_t n_deny;
} cf_plan;

/* 0, -EINVAL (not a confined policy with an absolute root), -ENOMEM.
 * Inside a call's scope (call-scope.h), a repeated request for the same
 * policy and flags is a copy of the first answer, so a call's clause
 * report, argv and placeholders stand on one look at the filesystem and
 * pay for it once (plan-memo.c). */
int cf_plan_make(const confine_policy *policy, unsigned flags, cf_plan *ret) CONFINE_HIDDEN;
/* The same, always looking at the filesystem anew. */
int cf_plan_make_fresh(const confine_policy *policy, unsigned flags, cf_plan *ret) CONFINE_HIDDEN;
void cf_plan_clear(cf_plan *plan) CONFINE_HIDDEN;

/* protect.c: fills protected_paths, pins and the two flags (CF_PLAN_BWRAP).
 * 0 or -ENOMEM. */
int cf_plan_bwrap_protections(const confine_policy *policy, unsigned flags,
                              cf_plan *plan) CONFINE_HIDDEN;


#endif
