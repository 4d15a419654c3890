/* SPDX-License-Identifier: MIT */
/*
 * What apply never lands in a repository (doc/SPEC.md 21, "git's state
 * in the stage"; red team round 4, F4): below a gitdir, whether the real
 * tree held it when the run began or the stage made it (a `.git`, or a
 * bare repository, or a common directory: bare_gitdir, in the stage or
 * the real tree), what git reads and runs code from (config,
 * config.worktree, commondir, hooks, info) and the state a later `git
 * rebase --continue`, `cherry-pick --continue` or `revert --continue`
 * obeys (rebase-merge/, rebase-apply/, sequencer/: their todo's `exec`
 * lines are commands). The file handle's plan holds the existing
 * repositories' surface; this holds the rest, which only the stage shows.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "stage/stage-internal.h"

/* `rel` below root `root` as the command saw it: the stage's copy, else
 * the real one (a whiteout reads as absent). */
static bool seen(const confine_stage *s, size_t root, const char *rel, struct stat *st) {
	char path[PATH_MAX];
	if (cf_stage_join(path, sizeof path, s->roots[root].upper, rel) == 0 &&
	    lstat(path, st) == 0)
		return !(S_ISCHR(st->st_mode) && st->st_rdev == 0);
	return cf_stage_join(path, sizeof path, s->roots[root].real, rel) == 0 &&
	       lstat(path, st) == 0;
}

static bool seen_as(const confine_stage *s, size_t root, const char *dir, const char *name,
                    bool want_dir) {
	char rel[PATH_MAX];
	struct stat st;
	int n = dir[0] ? snprintf(rel, sizeof rel, "%s/%s", dir, name)
	               : snprintf(rel, sizeof rel, "%s", name);
	return n >= 0 && (size_t)n < sizeof rel && seen(s, root, rel, &st) &&
	       (want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
}

/* A bare repository's layout (git's is_git_directory, without the
 * validation of HEAD's content): HEAD beside objects/ and refs/, or HEAD
 * beside a `commondir` file (objects, refs, config and hooks are then
 * the common directory's); and that common directory itself, objects/
 * beside refs/ with no HEAD, whose config and hooks git reads for every
 * repository that names it (red team, round 5: a bare repository split
 * by commondir landed its hooks). */
static bool bare_gitdir(const confine_stage *s, size_t root, const char *dir) {
	if (seen_as(s, root, dir, "objects", true) && seen_as(s, root, dir, "refs", true))
		return true;
	return seen_as(s, root, dir, "HEAD", false) && seen_as(s, root, dir, "commondir", false);
}

static bool name_is(const char *p, size_t len, const char *name) {
	return strlen(name) == len && strncmp(p, name, len) == 0;
}

/* Whether `rest` (below a gitdir) is git's code-run surface or its
 * rebase/sequencer state, `*which` the component that is; objects, refs
 * and logs are data, never read as code. */
static bool surface_below(const char *rest, const char **which) {
	static const char *const names[] = { "config",       "config.worktree", "commondir",
		                             "hooks",        "info",            "rebase-merge",
		                             "rebase-apply", "sequencer" };
	static const char *const data[] = { "objects", "refs", "logs" };
	while (*rest) {
		size_t len = strcspn(rest, "/");
		for (size_t i = 0; i < sizeof data / sizeof data[0]; i++)
			if (name_is(rest, len, data[i]))
				return false;
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
			if (name_is(rest, len, names[i])) {
				*which = names[i];
				return true;
			}
		rest += len;
		while (*rest == '/')
			rest++;
	}
	return false;
}

bool cf_stage_git_state(const confine_stage *s, size_t root, const char *rel, char *gitdir,
                        size_t gitdir_size, const char **which) {
	char prefix[PATH_MAX];
	const char *p = rel;
	if (!s->default_protections || strlen(rel) >= sizeof prefix)
		return false;
	for (;;) {
		size_t plen = (size_t)(p - rel);
		const char *slash;
		/* the directory rel[0..plen) (the root itself first) */
		memcpy(prefix, rel, plen ? plen - 1 : 0);
		prefix[plen ? plen - 1 : 0] = '\0';
		{
			const char *base = strrchr(prefix, '/');
			base = base ? base + 1 : prefix;
			if ((strcmp(base, ".git") == 0 || bare_gitdir(s, root, prefix)) &&
			    surface_below(p, which)) {
				if (cf_stage_join(gitdir, gitdir_size, s->roots[root].real, prefix) < 0)
					snprintf(gitdir, gitdir_size, "%s", s->roots[root].real);
				return true;
			}
		}
		if (!(slash = strchr(p, '/')))
			return false;
		p = slash + 1;
	}
}
