/* SPDX-License-Identifier: MIT */
/*
 * The one PATH search. cf_exec_candidates() lists what a child will try to
 * exec (the child itself walks the list: only its exec knows what runs);
 * confine_find_program() finds a program from this process, with the
 * hygiene a runner needs as options.
 */
#include "path.h"

#include <errno.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *cf_path_of(const char *const *envp) {
	const char *path;
	for (const char *const *e = envp; e && *e; e++)
		if (strncmp(*e, "PATH=", 5) == 0)
			return *e + 5;
	path = getenv("PATH");
	return path ? path : CONFINE_DEFAULT_PATH;
}

const char *cf_runner_path(void) {
	const char *path = getenv("CONFINE_RUNNER_PATH");
	return path && *path ? path : CONFINE_DEFAULT_PATH;
}

/* Calls `visit` with "<entry>/<name>" for each entry of `path` in order
 * ("./<name>" for an empty entry, as in execvp(3)), skipping entries that
 * are not absolute when `absolute_only`, until `visit` returns non-zero.
 * Returns that value, 0 when every entry was visited, or -ENOMEM. */
static int walk_path(const char *path, const char *name, bool absolute_only,
                     int (*visit)(const char *candidate, void *data), void *data) {
	for (const char *p = path;;) {
		const char *end = p + strcspn(p, ":"); /* the ':' or the final NUL */
		size_t len = (size_t)(end - p);
		if (!absolute_only || (len > 0 && p[0] == '/')) {
			cf_buf b = { 0 };
			int r;
			if ((len ? cf_buf_append(&b, p, len) : cf_buf_puts(&b, ".")) < 0 ||
			    cf_buf_printf(&b, "/%s", name) < 0) {
				cf_buf_free(&b);
				return -ENOMEM;
			}
			r = visit(b.data, data);
			cf_buf_free(&b);
			if (r != 0)
				return r;
		}
		if (!*end)
			return 0;
		p = end + 1;
	}
}

static int push_candidate(const char *candidate, void *data) {
	return cf_strv_push(data, candidate);
}

char **cf_exec_candidates(const char *program, const char *const *envp) {
	char **out = NULL;
	if (strchr(program, '/')) {
		if (cf_strv_push(&out, program) < 0)
			return NULL;
		return out;
	}
	out = calloc(1, sizeof *out);
	if (!out)
		return NULL;
	if (walk_path(cf_path_of(envp), program, false, push_candidate, &out) < 0) {
		confine_strv_free(out);
		return NULL;
	}
	return out;
}

/* ---- confine_find_program ---- */

/* Whether a file only root or the caller controls: owned by one of them,
 * and neither it nor its directory writable by group or others (a
 * world-writable PATH directory would let anyone plant the "runner" that is
 * then executed unconfined). `path` is canonical. */
static bool owner_and_mode_ok(const struct stat *st, uid_t me) {
	return (st->st_uid == 0 || st->st_uid == me) && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

bool cf_path_trusted(const char *path, char *why, size_t why_size) {
	uid_t me = geteuid();
	struct stat st;
	char *p;
	size_t n;
	if (why && why_size)
		why[0] = '\0';
	if (!path || path[0] != '/') {
		if (why)
			snprintf(why, why_size, "it is not an absolute path");
		return false;
	}
	p = strdup(path);
	if (!p) {
		if (why)
			snprintf(why, why_size, "out of memory");
		return false;
	}
	/* The file, then every directory up to /: whoever may write any of
	 * them could replace what runs (a sticky /tmp included: its children
	 * are only as safe as their owners). */
	for (n = strlen(p);;) {
		if (stat(p, &st) != 0) {
			if (why)
				snprintf(why, why_size, "%s cannot be examined: %s", p, strerror(errno));
			free(p);
			return false;
		}
		if (!owner_and_mode_ok(&st, me)) {
			if (why)
				snprintf(why, why_size, "%s is %s", p,
				         (st.st_uid != 0 && st.st_uid != me)
				                 ? "owned by another user"
				                 : "writable by group or others");
			free(p);
			return false;
		}
		if (n == 1)
			break;
		while (n > 1 && p[n - 1] != '/')
			n--;
		if (n > 1)
			n--;
		p[n] = '\0';
		if (n == 0) {
			p[0] = '/';
			p[1] = '\0';
			n = 1;
		}
	}
	free(p);
	return true;
}

/* Whether the candidate at canonical `path` (stat `st`) and every directory
 * above it belong to root or the caller and no one else may write them: a
 * PATH entry others can write would let them plant the "runner" that is
 * then executed unconfined. */
static bool controlled_by_caller(const char *path, const struct stat *st) {
	(void)st;
	return cf_path_trusted(path, NULL, 0);
}

struct find {
	const confine_find_options *options;
	bool saw_eacces;
	char *found;
};

/* 1 when `candidate` is the program (then in f->found), 0 to go on,
 * -ENOMEM. */
static int try_candidate(const char *candidate, void *data) {
	struct find *f = data;
	const confine_find_options *o = f->options;
	char *joined = NULL, *real;
	const char *full = candidate;
	struct stat st;
	bool given_ok;
	int e = 0;
	if (candidate[0] != '/' && o->dir) {
		cf_buf b = { 0 };
		if (cf_buf_printf(&b, "%s/%s", o->dir, candidate) < 0) {
			cf_buf_free(&b);
			return -ENOMEM;
		}
		full = joined = cf_buf_steal(&b);
	}
	if (stat(full, &st) < 0)
		e = errno == ENOTDIR || errno == ELOOP || errno == ENAMETOOLONG ? ENOENT : errno;
	else if (!S_ISREG(st.st_mode) || access(full, X_OK) < 0)
		e = EACCES;
	if (e != 0) {
		/* As execvp(3): a file that exists but cannot run is remembered. */
		if (e != ENOENT)
			f->saw_eacces = true;
		free(joined);
		return 0;
	}
	/* The file that will run is the symlink's target: judge and name that
	 * one, so swapping a link later changes nothing. The path as given is
	 * judged too (doc/SPEC.md 4): a link in a directory others may write
	 * could have been pointed at any trusted program under the runner's
	 * name. */
	real = realpath(full, NULL);
	given_ok = !o->trusted_only || full[0] != '/' || cf_path_trusted(full, NULL, 0);
	free(joined);
	if (!real)
		return errno == ENOMEM ? -ENOMEM : 0;
	if ((o->trusted_only && (!given_ok || !controlled_by_caller(real, &st))) ||
	    (o->accept && !o->accept(real, o->accept_data))) {
		free(real);
		return 0;
	}
	f->found = real;
	return 1;
}

int confine_find_program(const char *name, const confine_find_options *options, char **ret) {
	static const confine_find_options defaults = { 0 };
	struct find f = { options ? options : &defaults, false, NULL };
	const char *path;
	int r;
	if (!name || !name[0] || !ret)
		return -EINVAL;
	if (strchr(name, '/')) {
		/* A path is not searched (execvp(3)); a relative one is taken from
		 * `dir`, and refused when only absolute entries are wanted. */
		if (name[0] != '/' && f.options->absolute_entries_only)
			return -ENOENT;
		r = try_candidate(name, &f);
	} else {
		path = f.options->path ? f.options->path : cf_path_of(NULL);
		r = walk_path(path, name, f.options->absolute_entries_only, try_candidate, &f);
	}
	if (r < 0)
		return r;
	if (!f.found)
		return f.saw_eacces ? -EACCES : -ENOENT;
	*ret = f.found;
	return 0;
}

/* ---- confine_path_within ---- */

static bool lexically_within(const char *path, const char *root) {
	size_t n = strlen(root);
	if (n == 1 && root[0] == '/')
		return true;
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

bool confine_path_within(const char *path, const char *root) {
	char real[PATH_MAX], walk[PATH_MAX];
	struct stat rs;
	size_t len;
	if (!path || !root || !root[0])
		return false;
	if (lexically_within(path, root))
		return true;
	if (realpath(root, real) && lexically_within(path, real))
		return true;
	/* The same directory by another name, a bind mount of it: by its
	 * device and inode, on `path` and every directory above it. */
	len = strlen(path);
	if (path[0] != '/' || stat(root, &rs) != 0 || !S_ISDIR(rs.st_mode) || len >= sizeof walk)
		return false;
	memcpy(walk, path, len + 1);
	for (;;) {
		struct stat st;
		char *slash;
		if (stat(walk, &st) == 0 && st.st_dev == rs.st_dev && st.st_ino == rs.st_ino)
			return true;
		if (!(slash = strrchr(walk, '/')) || slash == walk)
			break;
		*slash = '\0';
	}
	/* A mount of a place below `root`, one inside it, an overlay over it
	 * (path-mounts.c). */
	return cf_path_within_by_mounts(path, root);
}
