/* SPDX-License-Identifier: MIT */
/*
 * Inside the git-hazards snapshot (git-hazards.h): its records, shared by
 * the three files that make it.
 *   git-hazards.c         fingerprints, records, the snapshot and the diff
 *   git-hazards-config.c  git config: the settings that run programs
 *   git-hazards-walk.c    git directories, and the walk that finds them
 */
#ifndef CONFINE_GIT_HAZARDS_INTERNAL_H
#define CONFINE_GIT_HAZARDS_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>

#include "git-hazards.h"

/* include.path inside an included file inside ...: git stops at 10. */
#define INCLUDE_DEPTH_MAX 10

enum record_kind { RECORD_HOOK, RECORD_CONFIG, RECORD_COMMONDIR, RECORD_TODO };

/* Who a file is and what it holds: any difference is a change. */
struct fingerprint {
	dev_t dev;
	ino_t ino;
	mode_t mode;
	off_t size;
	long long mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
	uint64_t hash; /* FNV-1a of the first CF_GIT_READ_MAX bytes */
};

struct record {
	char *path;
	enum record_kind kind;
	struct fingerprint fp;
	/* RECORD_CONFIG: each executable setting as "key\nvalue".
	 * RECORD_COMMONDIR: the canonical directory it names (one entry). */
	char **settings;
	bool foreign; /* RECORD_COMMONDIR: names another repository than its own */
};

struct cf_git_snapshot {
	struct record *records;
	size_t n, cap;
	char **visited; /* git directories already recorded */
	size_t entries;
	bool incomplete; /* the entry budget ran out: the walk stopped */
	char *unreached; /* where it ran out */
	char **changed;  /* directories that changed while walked: not seen */
	char **worktrees; /* each directory holding a `.git`: a work tree's top */
	char **marks;     /* each `<dir>/<name>` whose name cf_later_marks() */
	bool oom;
};

/* Opens what git would open at `path` and fingerprints it (git-hazards.c). */
int cf_git_fingerprint_file(const char *path, struct fingerprint *fp, char **text, size_t *ret_len,
                            size_t max, bool *whole) CONFINE_HIDDEN;
/* A record of `path` once (NULL when already there, or out of memory). */
struct record *cf_git_record_add(cf_git_snapshot *s, const char *path, enum record_kind kind,
                                 const struct fingerprint *fp) CONFINE_HIDDEN;
void cf_git_record_setting(cf_git_snapshot *s, struct record *r, const char *key,
                           const char *value) CONFINE_HIDDEN;
/* git-hazards-config.c */
char *cf_git_trim(char *s) CONFINE_HIDDEN;
void cf_git_scan_config(cf_git_snapshot *s, const char *path, const char *worktree,
                        int depth) CONFINE_HIDDEN;
/* git-hazards-walk.c */
void cf_git_scan_hooks_dir(cf_git_snapshot *s, const char *dir) CONFINE_HIDDEN;
void cf_git_walk(cf_git_snapshot *s, const char *root) CONFINE_HIDDEN;

#endif
