/* SPDX-License-Identifier: MIT */
/*
 * The stage (doc/SPEC.md 21): what a staged run wrote, held apart from the
 * real tree. stage.c makes, reads and removes a stage (the manifest),
 * diff.c compares it with the real tree and renders the patch, apply.c
 * writes it into the real tree under the run's protections.
 *
 * On disk, DIR (0700, the caller's):
 *   manifest.json      the roots, the protections, each entry's identity
 *   roots/N/upper      overlayfs's upper directory for root N
 *   roots/N/work       overlayfs's work directory for root N
 * The upper directory is in overlayfs's own format: a deleted name is a
 * 0/0 character device (or an empty file with the user.overlay.whiteout
 * attribute), a directory whose lower contents are gone has
 * user.overlay.opaque (trusted.overlay.opaque for a mount made with the
 * host's privileges) set to "y".
 */
#ifndef CONFINE_STAGE_INTERNAL_H
#define CONFINE_STAGE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "util.h"

/* More entries than this in the staged roots and the stage is refused
 * (-E2BIG): past it a host-side change could not be told. */
#define CF_STAGE_MAX_ENTRIES 1000000

/* What the real tree held at one path when the run began. */
typedef struct cf_stage_entry {
	char *path; /* relative to its root; "" is the root itself */
	char type;  /* 'f', 'd', 'l', 'o' */
	uint64_t ino;
	uint64_t size;
	int64_t mtime_ns;
	int64_t ctime_ns;
} cf_stage_entry;

typedef struct cf_stage_root {
	char *real;  /* canonical */
	char *upper; /* DIR/roots/N/upper */
	cf_stage_entry *entries; /* sorted by path */
	size_t n_entries;
	/* its identity when the stage was made (has_id: the manifest says) */
	bool has_id;
	uint64_t dev, ino;
	/* during apply: the root as apply's file handle opened it and checked
	 * it against dev/ino (borrowed), which every check starts from; -1 */
	int fd;
} cf_stage_root;

struct confine_stage {
	char *dir;
	int64_t started_ns;
	bool default_protections;
	char **protected_paths; /* as the run's policy had them */
	char **deny_read;
	cf_stage_root *roots;   /* roots[0] is the workspace root */
	size_t n_roots;
};

/* A change, with where it is: `root` and `rel` (relative to the root). */
typedef struct cf_change {
	confine_stage_change pub;
	size_t root;
	char *rel;
	char *from_rel; /* RENAMED */
	bool real_is_dir; /* DELETED of a directory / a directory replaced */
	bool left_out;    /* patch.c: apply would refuse it */
} cf_change;

/* diff.c: every change, sorted by path; `binary`: each file's `binary`
 * told (a read of its first 8000 bytes), else false. */
int cf_stage_collect(confine_stage *stage, bool binary, cf_change **ret, size_t *ret_n,
                     confine_error *err) CONFINE_HIDDEN;
void cf_stage_changes_clear(cf_change *changes, size_t n) CONFINE_HIDDEN;

/* stage.c: whether the real `rel` under root `root` is not what the
 * manifest says it was when the run began (absent then and now: same). */
bool cf_stage_real_changed(const confine_stage *stage, size_t root, const char *rel) CONFINE_HIDDEN;

/* stage.c: the manifest's record of `rel` under root `root` (NULL: none),
 * and whether a stat (NULL: absent) is what it recorded (type, inode,
 * size of a non-directory, mtime, ctime; none and absent: the same). */
const cf_stage_entry *cf_stage_entry_of(const confine_stage *stage, size_t root,
                                        const char *rel) CONFINE_HIDDEN;
bool cf_stage_entry_matches(const cf_stage_entry *e, const struct stat *st) CONFINE_HIDDEN;

/* guard.c: apply's checks against the manifest. The directory holding
 * `rel` below root `root`, opened component by component from the root
 * (O_NOFOLLOW: a link at a component is refused, never followed), each
 * component the manifest knows checked to be the directory it recorded
 * (same inode), and with `before_apply` one it does not know refused (the
 * host made it: nothing of this apply has landed yet, so no component is
 * new yet); 0 with *ret_fd and `name`, 1 when a component differs
 * (`which` its real path), 2 when a component is absent now and was then
 * (the path is new), else a negative errno. */
int cf_stage_open_parent(const confine_stage *stage, size_t root, const char *rel,
                         bool before_apply, int *ret_fd, char *name, size_t name_size,
                         char *which, size_t which_size) CONFINE_HIDDEN;
/* 1 when the real `rel` (and with `deep`, anything below it) or a
 * component on the way to it is not what the manifest recorded when the
 * run began (`before_apply` as above), `which` the real path of the first
 * that differs; 0 when all is as it was; a negative errno. */
int cf_stage_conflict(const confine_stage *stage, size_t root, const char *rel, bool deep,
                      bool before_apply, char *which, size_t which_size) CONFINE_HIDDEN;
/* Removes `name` at `at` (the real `rel`) and all below it, each entry
 * compared with the manifest just before it goes, through directory fds
 * (O_NOFOLLOW), a directory removed only once empty: -ESTALE with `which`
 * when one differs or the host made one meanwhile (it, and each directory
 * holding it, stay; `*removed` counts what went). */
int cf_stage_remove_checked(const confine_stage *stage, size_t root, int at, const char *name,
                            const char *rel, char *which, size_t which_size,
                            size_t *removed) CONFINE_HIDDEN;

/* place.c: at `dirfd`, `name` and all below it removed (no check: the
 * --overwrite path); the staged file or link `src` placed as `name`
 * atomically; the permission bits of `name` set, never through a link.
 * 0 or a negative errno. */
int cf_stage_remove_tree(int dirfd, const char *name) CONFINE_HIDDEN;
int cf_stage_place_file(int dirfd, const char *name, const char *src) CONFINE_HIDDEN;
int cf_stage_place_link(int dirfd, const char *name, const char *src) CONFINE_HIDDEN;
int cf_stage_set_mode(int dirfd, const char *name, unsigned mode) CONFINE_HIDDEN;

/* moves.c: 1 when the real directory `real_rel` and the staged one at
 * `up_rel` (both below root `root`) hold the same tree (names, types,
 * permission bits, bytes, link targets: the run moved it, as `mv` does
 * through an overlay, by copying), 0 when not, else a negative errno. */
int cf_stage_moved(const confine_stage *s, size_t root, const char *real_rel,
                   const char *up_rel) CONFINE_HIDDEN;
/* 1 when the real regular file `real_rel` and the staged one at `up_rel`
 * hold the same permission bits and bytes (a deleted file moved onto a
 * name that existed: `mv -f notes.txt .envrc`), 0 when not, else a
 * negative errno. */
int cf_stage_moved_file(const confine_stage *s, size_t root, const char *real_rel,
                        const char *up_rel) CONFINE_HIDDEN;

/* Whether `name` (at `dirfd`) is an overlayfs whiteout. */
bool cf_stage_is_whiteout(int dirfd, const char *name, const struct stat *st) CONFINE_HIDDEN;

/* git-state.c: with the run's defaultProtections, whether `rel` below
 * root `root` lies in a gitdir (a `.git`, or a bare repository in the
 * stage or the real tree) at git's config, hooks, info, commondir or its
 * rebase/sequencer state: the gitdir's real path to `gitdir`, the
 * component to `*which`. */
/* The policy apply writes under: the stage's roots, their protections and
 * denyRead, as the run had them (apply.c). */
int cf_stage_run_policy(const confine_stage *s, confine_policy **ret,
                        confine_error *err) CONFINE_HIDDEN;

bool cf_stage_git_state(const confine_stage *s, size_t root, const char *rel, char *gitdir,
                        size_t gitdir_size, const char **which) CONFINE_HIDDEN;

/* "a/b" joined: `root` (absolute) and `rel` ("" allowed), into `out`. */
int cf_stage_join(char *out, size_t size, const char *root, const char *rel) CONFINE_HIDDEN;

/* git-binary.c: git's blob id (40 hex digits; all zeros for an absent
 * side) and the `GIT binary patch` hunks, a to b. */
void cf_git_blob_id(const char *data, size_t len, bool exists, char out[41]) CONFINE_HIDDEN;
int cf_git_binary_hunks(cf_buf *out, const char *a, size_t alen, const char *b,
                        size_t blen) CONFINE_HIDDEN;

#endif
