/* SPDX-License-Identifier: MIT */
/*
 * The harness's own file operations under a run's policy (confine.h,
 * doc/SPEC.md 19). Each path is resolved beneath the root that holds it
 * with openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS), or, where openat2
 * is missing, one component at a time with no symlink followed at all; the
 * object is then named by the kernel (/proc/self/fd) and checked against
 * the protected and denied paths before anything is written. Every write is
 * relative to a directory descriptor that resolution produced, so a link
 * swapped in after the check changes nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fs-internal.h"
#include "git-hazards.h"
#include "later.h"
#include "policy-internal.h"
#include "profiles/plan.h"
#include "util.h"

#ifdef __linux__
#include <linux/openat2.h>
#endif

#ifndef O_PATH
#define O_PATH 0 /* not Linux: a plain descriptor does */
#endif

#define STAGE "fs"

bool cf_fs_force_fallback = false;

/* Whether absolute `path` is at or under an entry of what runs later that
 * the policy protects (existing or not), under the root holding it. */
static bool later_path(const confine_fs *fs, const char *path);

/* ---- errors ---- */

int cf_fs_denied(confine_error *err, const char *op, const char *path, const char *clause,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

int cf_fs_denied(confine_error *err, const char *op, const char *path, const char *clause,
                  const char *fmt, ...) {
	char why[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	return cf_error_set(err, EACCES, CONFINE_E_DENIED, STAGE, 0, "%s \"%s\": denied by %s: %s", op,
	                    path, clause, why);
}

int cf_fs_error(confine_error *err, const char *op, const char *path, int e) {
	if (e == ENOMEM)
		return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, STAGE, ENOMEM, "out of memory");
	return cf_error_set(err, e, CONFINE_E_FS, STAGE, e, "%s \"%s\": %s", op, path, strerror(e));
}

int cf_fs_oom(confine_error *err) {
	return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, STAGE, ENOMEM, "out of memory");
}

/* ---- opening ---- */

static int add_root(confine_fs *fs, const char *path, bool writable) {
	struct root *grown;
	int fd;
	for (size_t i = 0; i < fs->n_roots; i++)
		if (strcmp(fs->roots[i].path, path) == 0) {
			fs->roots[i].writable |= writable;
			return 0;
		}
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	grown = realloc(fs->roots, (fs->n_roots + 1) * sizeof *grown);
	if (!grown) {
		close(fd);
		return -ENOMEM;
	}
	fs->roots = grown;
	fs->roots[fs->n_roots].path = strdup(path);
	fs->roots[fs->n_roots].fd = fd;
	fs->roots[fs->n_roots].writable = writable;
	if (!fs->roots[fs->n_roots].path) {
		close(fd);
		return -ENOMEM;
	}
	fs->n_roots++;
	return 0;
}

int confine_fs_open(const confine_policy *policy, confine_fs **ret, confine_error *err) {
	confine_fs *fs;
	int r;
	if (!policy || !ret)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "confine_fs_open needs a policy and a result pointer");
	if ((r = confine_policy_validate(policy, err)) < 0)
		return r;
	if (!policy->workspace_root || policy->workspace_root[0] != '/')
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
		                    "confine_fs_open needs a resolved policy with a workspace root");
	if (!(fs = calloc(1, sizeof *fs)))
		return cf_fs_oom(err);
	fs->slash_fd = -1;
	fs->mode = policy->mode;
	if (!(fs->workspace = strdup(policy->workspace_root))) {
		confine_fs_free(fs);
		return cf_fs_oom(err);
	}
	fs->slash_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fs->slash_fd < 0) {
		r = -errno;
		confine_fs_free(fs);
		return cf_fs_error(err, "open", "/", -r);
	}
	if (confine_mode_is_confined(policy->mode)) {
		/* The same facts the profiles use: writable roots, protected and
		 * denied paths, patterns expanded now. */
		/* With placeholders: a protected path that does not exist yet (a
		 * repository's missing commondir, config.worktree under
		 * extensions.worktreeConfig, hooks) is listed as a run's bwrap
		 * would stand something in for it, so a write refuses it too
		 * (issue 28.1). Nothing is made: only runs make placeholders. */
		if ((r = cf_plan_make(policy, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS, &fs->plan)) < 0) {
			confine_fs_free(fs);
			return r == -ENOMEM ? cf_fs_oom(err)
			                    : cf_error_set(err, -r, CONFINE_E_INVALID_POLICY, STAGE, -r,
			                                   "cannot compute the policy's paths: %s",
			                                   strerror(-r));
		}
		fs->have_plan = true;
		fs->git_names = policy->default_protections;
		fs->later.default_protections = policy->default_protections;
		if (policy->unprotect &&
		    !(fs->later.unprotect = cf_strv_copy((const char *const *)policy->unprotect))) {
			confine_fs_free(fs);
			return cf_fs_oom(err);
		}
		r = add_root(fs, policy->workspace_root, false);
		for (size_t i = 0; r == 0 && fs->plan.writable[i]; i++)
			r = add_root(fs, fs->plan.writable[i], true);
		for (size_t i = 0; r == 0 && policy->writable_roots && policy->writable_roots[i]; i++)
			r = add_root(fs, policy->writable_roots[i], false);
	} else {
		r = add_root(fs, "/", true);
	}
	if (r < 0) {
		confine_fs_free(fs);
		return cf_fs_error(err, "open", policy->workspace_root, -r);
	}
	*ret = fs;
	return 0;
}

void confine_free(void *memory) {
	free(memory);
}

void confine_fs_free(confine_fs *fs) {
	if (!fs)
		return;
	for (size_t i = 0; i < fs->n_roots; i++) {
		free(fs->roots[i].path);
		close(fs->roots[i].fd);
	}
	free(fs->roots);
	if (fs->slash_fd >= 0)
		close(fs->slash_fd);
	if (fs->have_plan)
		cf_plan_clear(&fs->plan);
	cf_git_snapshot_free(fs->git_before);
	confine_strv_free(fs->later.unprotect);
	free(fs->workspace);
	free(fs);
}

/* ---- resolution ---- */

/* The root holding absolute `path` lexically (the longest), or NULL. */
static const struct root *root_of(const confine_fs *fs, const char *path, bool need_writable) {
	const struct root *best = NULL;
	for (size_t i = 0; i < fs->n_roots; i++) {
		const struct root *r = &fs->roots[i];
		size_t n = strlen(r->path);
		bool inside = strcmp(r->path, "/") == 0 ||
		              (strncmp(path, r->path, n) == 0 && (path[n] == '/' || path[n] == '\0'));
		if (!inside || (need_writable && !r->writable))
			continue;
		if (!best || strlen(best->path) < n)
			best = r;
	}
	return best;
}

/* The kernel's name for `fd`: what the object is, whatever path led there. */
static int fd_path(int fd, char *out, size_t size) {
	char link[64];
	ssize_t n;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	n = readlink(link, out, size - 1);
	if (n < 0)
		return -errno;
	if ((size_t)n >= size - 1)
		return -ENAMETOOLONG;
	out[n] = '\0';
	return 0;
}

static bool have_openat2(void) {
#if defined(__linux__) && defined(SYS_openat2)
	return !cf_fs_force_fallback;
#else
	return false;
#endif
}

/* Opens `rel` below `dirfd`: with openat2 beneath it (no magic link, no
 * escape by `..` or an absolute symlink); else component by component
 * refusing every symlink and `..`. `flags` for the last component. -errno;
 * -EXDEV for a path that leaves the root, -ELOOP for a symlink refused. */
static int open_beneath(int dirfd, const char *rel, int flags, mode_t mode, bool beneath) {
	if (!rel[0])
		rel = ".";
#if defined(__linux__) && defined(SYS_openat2)
	if (have_openat2()) {
		struct open_how how = { .flags = (uint64_t)flags, .mode = (flags & O_CREAT) ? mode : 0,
			                .resolve = RESOLVE_NO_MAGICLINKS | (beneath ? RESOLVE_BENEATH : 0) };
		long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
		if (fd >= 0 || errno != ENOSYS)
			return fd >= 0 ? (int)fd : -errno;
	}
#endif
	{
		/* Without openat2: no symlink is followed, and `..` never. */
		char copy[PATH_MAX];
		char *save = NULL, *comp, *next;
		int fd = -1, at = dirfd;
		if (strlen(rel) >= sizeof copy)
			return -ENAMETOOLONG;
		snprintf(copy, sizeof copy, "%s", rel);
		comp = strtok_r(copy, "/", &save);
		if (!comp)
			comp = (char *)".";
		for (; comp; comp = next) {
			int nfd;
			next = strtok_r(NULL, "/", &save);
			if (strcmp(comp, "..") == 0) {
				if (fd >= 0)
					close(fd);
				return -EXDEV;
			}
			if (next)
				nfd = openat(at, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			else
				nfd = openat(at, comp, flags | O_NOFOLLOW, mode);
			if (nfd < 0) {
				int e = errno;
				struct stat st;
				/* O_PATH|O_NOFOLLOW on a symlink gives ENOTDIR with O_DIRECTORY. */
				if (fstatat(at, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
					e = ELOOP;
				if (fd >= 0)
					close(fd);
				return -e;
			}
			if (fd >= 0)
				close(fd);
			fd = at = nfd;
		}
		return fd;
	}
}

/* A path as given, made absolute (relative: to the workspace root). */
static int absolute(const confine_fs *fs, const char *path, char *out, size_t size) {
	int n;
	if (!path || !path[0])
		return -EINVAL;
	n = path[0] == '/' ? snprintf(out, size, "%s", path)
	                   : snprintf(out, size, "%s/%s", fs->workspace, path);
	return (n < 0 || (size_t)n >= size) ? -ENAMETOOLONG : 0;
}

/* Whether canonical `path` names what git reads and runs code from in a
 * gitdir called `.git`, whether that repository exists yet or not: below
 * a `.git` component, a `config`, `config.worktree`, `commondir`, `hooks`
 * or `info` component (also in `worktrees/<name>/` and `modules/...`), or
 * the `.git` name itself when it is not a directory yet (a `.git` file
 * hands git any gitdir). The plan covers the repositories that exist when
 * the handle is opened; this covers those the harness would make. */
static bool git_surface_name(const char *path, bool *ret_dot_git_itself) {
	const char *p = path;
	*ret_dot_git_itself = false;
	while ((p = strstr(p, "/.git"))) {
		const char *rest = p + 5;
		if (*rest == '\0') {
			*ret_dot_git_itself = true;
			return true;
		}
		if (*rest != '/') {
			p = rest;
			continue;
		}
		while (*rest == '/') {
			static const char *const names[] = { "config", "config.worktree", "commondir",
				                             "hooks", "info" };
			/* git's data: what lies below is objects, refs and logs, never
			 * read as code (`.git/objects/info`, a branch named `config`) */
			static const char *const data[] = { "objects", "refs", "logs" };
			bool below_data = false;
			size_t len;
			rest++;
			len = strcspn(rest, "/");
			for (size_t i = 0; i < sizeof data / sizeof data[0]; i++)
				below_data |= strlen(data[i]) == len && strncmp(rest, data[i], len) == 0;
			if (below_data)
				break;
			for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
				if (strlen(names[i]) == len && strncmp(rest, names[i], len) == 0)
					return true;
			rest += len;
		}
		p += 5;
	}
	return false;
}

/* git_surface_name() under the default protections: an existing `.git`
 * directory may be entered (its objects and refs are writable), never
 * made, replaced or moved. */
static bool git_name_refused(const confine_fs *fs, const char *path, bool holds) {
	bool dot_git_itself;
	struct stat st;
	if (!fs->git_names || !git_surface_name(path, &dot_git_itself))
		return false;
	return !dot_git_itself || holds || lstat(path, &st) < 0 || !S_ISDIR(st.st_mode);
}

static bool later_path(const confine_fs *fs, const char *path) {
	const struct root *root = root_of(fs, path, true);
	return fs->have_plan && root && cf_later_name_refused(&fs->later, root->path, path);
}

/* What the policy says of canonical `path` for a write: NULL when it may
 * be written, else the clause and *ret_what the path that holds it. With
 * `holds`, also a path that lies below `path` (moving or removing `path`
 * would move the protection away). */
static const char *write_clause(const confine_fs *fs, const char *path, bool holds,
                                const char **ret_what) {
	if (!fs->have_plan)
		return NULL;
	for (size_t i = 0; i < fs->plan.n_deny; i++)
		if (cf_path_at_or_under(path, fs->plan.deny[i]) ||
		    (holds && cf_path_at_or_under(fs->plan.deny[i], path))) {
			*ret_what = fs->plan.deny[i];
			return "denyRead";
		}
	/* What bwrap keeps read-only (every repository's git surface, the
	 * protectedPaths, existing or not), then the literal list. */
	for (size_t i = 0; i < fs->plan.n_protected; i++) {
		const cf_protected *e = &fs->plan.protected_paths[i];
		if (cf_path_at_or_under(path, e->path) || (holds && cf_path_at_or_under(e->path, path))) {
			*ret_what = e->path;
			return e->explicit_entry ? "protectedPaths" : "defaultProtections";
		}
	}
	for (size_t i = 0; fs->plan.protect_all && fs->plan.protect_all[i]; i++)
		if (cf_path_at_or_under(path, fs->plan.protect_all[i]) ||
		    (holds && cf_path_at_or_under(fs->plan.protect_all[i], path))) {
			*ret_what = fs->plan.protect_all[i];
			return strstr(fs->plan.protect_all[i], "/.git/") || later_path(fs, fs->plan.protect_all[i])
			           ? "defaultProtections"
			           : "protectedPaths";
		}
	if (git_name_refused(fs, path, holds) || later_path(fs, path)) {
		*ret_what = path;
		return "defaultProtections";
	}
	return NULL;
}

const char *cf_fs_deny_clause(const confine_fs *fs, const char *path, const char **ret_what) {
	if (!fs->have_plan)
		return NULL;
	for (size_t i = 0; i < fs->plan.n_deny; i++)
		if (cf_path_at_or_under(path, fs->plan.deny[i])) {
			*ret_what = fs->plan.deny[i];
			return "denyRead";
		}
	return NULL;
}

int cf_fs_resolve(confine_fs *fs, const char *op, const char *path, bool holds,
                             struct target *t, confine_error *err) {
	const struct root *root;
	const char *slash, *rel, *clause, *what = NULL;
	char dir_rel[PATH_MAX], dir_canon[PATH_MAX];
	int r;
	t->dirfd = -1;
	if ((r = absolute(fs, path, t->given, sizeof t->given)) < 0)
		return r == -EINVAL ? cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                                   "%s: the path is empty", op)
		                    : cf_fs_error(err, op, path, -r);
	if (fs->mode == CONFINE_MODE_READ_ONLY)
		return cf_fs_denied(err, op, path, "mode", "read-only writes nowhere");
	if (!(root = root_of(fs, t->given, true)))
		return cf_fs_denied(err, op, path, "mode",
		              "it lies outside the workspace root %s and the writable roots",
		              fs->workspace);
	rel = t->given + strlen(root->path);
	while (*rel == '/')
		rel++;
	/* The last component: a name, never "", "." or "..". */
	{
		size_t len = strlen(rel);
		while (len && rel[len - 1] == '/')
			len--;
		slash = len ? memrchr(rel, '/', len) : NULL;
		snprintf(t->name, sizeof t->name, "%.*s", (int)(len - (slash ? (size_t)(slash + 1 - rel) : 0)),
		         slash ? slash + 1 : rel);
		snprintf(dir_rel, sizeof dir_rel, "%.*s", slash ? (int)(slash - rel) : 0, rel);
	}
	if (!t->name[0] || strcmp(t->name, ".") == 0 || strcmp(t->name, "..") == 0)
		return cf_fs_denied(err, op, path, "mode", "it names the root or a parent, not an entry in it");
	/* git's names, also where the directories on the way are missing (the
	 * canonical check below needs the parent to exist). */
	if (git_name_refused(fs, t->given, holds) || later_path(fs, t->given))
		return cf_fs_denied(err, op, path, "defaultProtections", "%s is read-only", t->given);
	/* Below a protected path that is missing (a placeholder in a run):
	 * refused as such, not as ENOENT (no `..`: the name is the path). */
	if (!strstr(t->given, "/..") && (clause = write_clause(fs, t->given, holds, &what)))
		return cf_fs_denied(err, op, path, clause, "%s is %s", what,
		              strcmp(clause, "denyRead") == 0 ? "neither readable nor writable"
		                                              : "read-only");
	r = open_beneath(root->fd, dir_rel, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, true);
	if (r == -EXDEV || r == -ELOOP)
		return cf_fs_denied(err, op, path, "mode",
		              "it resolves outside %s (a symbolic link or \"..\" leads out, or a link is "
		              "not followed)",
		              root->path);
	if (r < 0)
		return cf_fs_error(err, op, path, -r);
	t->dirfd = r;
	if ((r = fd_path(t->dirfd, dir_canon, sizeof dir_canon)) < 0)
		return cf_fs_error(err, op, path, -r);
	/* Beneath the root, as the kernel names it (belt and braces). */
	if (!cf_path_at_or_under(dir_canon, root->path))
		return cf_fs_denied(err, op, path, "mode", "it resolves to %s, outside %s", dir_canon,
		              root->path);
	if ((size_t)snprintf(t->canon, sizeof t->canon, "%s%s%s", dir_canon,
	                     strcmp(dir_canon, "/") == 0 ? "" : "/", t->name) >= sizeof t->canon)
		return cf_fs_error(err, op, path, ENAMETOOLONG);
	if ((clause = write_clause(fs, t->canon, holds, &what)))
		return cf_fs_denied(err, op, path, clause, "%s is %s", what,
		              strcmp(clause, "denyRead") == 0 ? "neither readable nor writable"
		                                              : "read-only");
	return 0;
}

/* Kernel trees a harness's file tools have no business reading: /proc
 * holds every process's environment and memory maps (the harness's own
 * secrets, which the env filter keeps from runs), /sys and /dev the
 * kernel's and devices'. */
static bool pseudo_tree(const char *canon) {
	return cf_path_at_or_under(canon, "/proc") || cf_path_at_or_under(canon, "/sys") ||
	       cf_path_at_or_under(canon, "/dev");
}

/* Opens a path to read: beneath its root when a root holds it (a link may
 * lead anywhere inside, never out), else from / without magic links; then
 * the kernel's name for it is checked against denyRead. */
int cf_fs_open_for_read(confine_fs *fs, const char *op, const char *path, int flags, int *ret_fd,
                         char *canon, size_t canon_size, confine_error *err) {
	char abs[PATH_MAX];
	const struct root *root;
	const char *rel, *clause, *what = NULL;
	int fd, r;
	if ((r = absolute(fs, path, abs, sizeof abs)) < 0)
		return r == -EINVAL ? cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                                   "%s: the path is empty", op)
		                    : cf_fs_error(err, op, path, -r);
	root = root_of(fs, abs, false);
	if (root && strcmp(root->path, "/") != 0) {
		rel = abs + strlen(root->path);
		while (*rel == '/')
			rel++;
		fd = open_beneath(root->fd, rel, flags, 0, true);
	} else {
		fd = open_beneath(fs->slash_fd, abs + 1, flags, 0, false);
	}
	if (fd == -EXDEV || fd == -ELOOP)
		return cf_fs_denied(err, op, path, "mode",
		              "it resolves outside %s (a symbolic link or \"..\" leads out, or a link is "
		              "not followed)",
		              root ? root->path : "/");
	if (fd < 0)
		return cf_fs_error(err, op, path, -fd);
	if ((r = fd_path(fd, canon, canon_size)) < 0) {
		close(fd);
		return cf_fs_error(err, op, path, -r);
	}
	if ((clause = cf_fs_deny_clause(fs, canon, &what))) {
		close(fd);
		return cf_fs_denied(err, op, path, clause, "%s is not readable", what);
	}
	if (pseudo_tree(canon)) {
		close(fd);
		return cf_fs_denied(err, op, path, "mode",
		              "%s lies in /proc, /sys or /dev: a kernel tree (processes' environments "
		              "and memory) is not a harness's to read",
		              canon);
	}
	*ret_fd = fd;
	return 0;
}


/* For the stage's apply (stage-apply.c): the same resolution and policy
 * decision a harness write gets, handing over the parent's descriptor. */
int cf_fs_root_fd(const confine_fs *fs, const char *path) {
	for (size_t i = 0; i < fs->n_roots; i++)
		if (strcmp(fs->roots[i].path, path) == 0)
			return fs->roots[i].fd;
	return -1;
}

int cf_fs_resolve_for_write(confine_fs *fs, const char *op, const char *path, bool holds,
                            int *ret_dirfd, char *name, size_t name_size, confine_error *err) {
	struct target t;
	int r = cf_fs_resolve(fs, op, path, holds, &t, err);
	if (r < 0) {
		if (t.dirfd >= 0)
			close(t.dirfd);
		return r;
	}
	snprintf(name, name_size, "%s", t.name);
	*ret_dirfd = t.dirfd;
	return 0;
}
