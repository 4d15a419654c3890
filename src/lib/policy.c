/* SPDX-License-Identifier: MIT */
/*
 * Policy resolution (SPEC 3): which mode and which workspace root one call
 * runs under, and whether a working directory can be entered.
 *
 * The root is canonicalized with realpath(3) *before* any lexical
 * normalization: `/a/link/..` with link -> /b/c must be /b, the directory a
 * process that chdir()s there lands in. Collapsing `link/..` lexically first
 * would give /a and widen (or misplace) the writable area.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "fs-place.h"
#include "policy-internal.h"
#include "util.h"

#define STAGE "policy"

static int policy_oom(confine_error *err) {
	return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, STAGE, ENOMEM,
	                    "out of memory while resolving the workspace root");
}

/*
 * Lexical normalization of an absolute path: drops empty and `.` segments,
 * lets `..` remove the previous segment (never climbing above `/`), and
 * removes repeated and trailing slashes. Only safe on a path whose symlinks
 * are already resolved, which is why it runs after realpath(3).
 */
char *cf_normalize_lexically(const char *path) {
	size_t len = strlen(path);
	char *out = malloc(len + 2);
	size_t n = 0;
	const char *p = path;
	if (!out)
		return NULL;
	while (*p) {
		const char *seg;
		size_t seg_len;
		while (*p == '/')
			p++;
		seg = p;
		while (*p && *p != '/')
			p++;
		seg_len = (size_t)(p - seg);
		if (seg_len == 0 || (seg_len == 1 && seg[0] == '.'))
			continue;
		if (seg_len == 2 && seg[0] == '.' && seg[1] == '.') {
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--; /* the slash before the dropped segment */
			continue;
		}
		out[n++] = '/';
		memcpy(out + n, seg, seg_len);
		n += seg_len;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	return out;
}

/* `a` + `b`, malloc'd. */
static char *concat(const char *a, const char *b) {
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 2);
	if (!s)
		return NULL;
	memcpy(s, a, la);
	s[la] = '/'; /* harmless when doubled: normalized away afterwards */
	memcpy(s + la + 1, b, lb + 1);
	return s;
}

/*
 * Best-effort canonical form of a path that need not exist (danger-full-access
 * only, where the root is merely the default working directory): the deepest
 * ancestor that realpath(3) resolves is resolved, the rest is appended and the
 * whole normalized lexically. Returns NULL only when out of memory.
 */
char *cf_canonicalize_loosely(const char *path) {
	size_t cut = strlen(path);
	for (;;) {
		char *prefix, *real, *joined, *normal;
		prefix = strndup(path, cut);
		if (!prefix)
			return NULL;
		real = realpath(prefix, NULL);
		free(prefix);
		if (real) {
			joined = concat(real, path + cut);
			free(real);
			if (!joined)
				return NULL;
			normal = cf_normalize_lexically(joined);
			free(joined);
			return normal;
		}
		if (errno == ENOMEM)
			return NULL;
		if (cut <= 1) /* not even "/" resolved: keep the path as given */
			return cf_normalize_lexically(path);
		/* Step back over trailing slashes and the last segment; `cut` then
		 * ends just after a slash (path[0] is one), so the prefix is at
		 * least "/". */
		while (cut > 1 && path[cut - 1] == '/')
			cut--;
		while (cut > 1 && path[cut - 1] != '/')
			cut--;
	}
}

/* A directory below /dev/shm: an ordinary tmpfs place (doc/SPEC.md 18),
 * unlike /dev/shm itself, the host's shared memory of every user. Whether
 * it is a tmpfs of its own is the filesystem check's business: on /dev's
 * devtmpfs it is refused there. */
static bool below_dev_shm(const char *canonical) {
	return strncmp(canonical, "/dev/shm/", 9) == 0 && canonical[9] != '\0';
}

/*
 * Refuses a canonical root that is not a place (SPEC 12.6, doc/SPEC.md 18):
 * at or under /dev (a directory below /dev/shm aside), /proc or /sys on
 * every platform, or on (or, when `writable`, holding a mount of) a
 * pseudo-filesystem.
 */
static int check_place(const char *label, const char *given, const char *canonical,
                       const char *origin, bool writable, confine_error *err) {
	static const char *const trees[] = { "/dev", "/proc", "/sys" };
	char resolved[PATH_MAX + 32] = "";
	char why[PATH_MAX + 64];
	int r;

	if (strcmp(given, canonical) != 0)
		snprintf(resolved, sizeof resolved, " (resolved \"%s\")", canonical);
	for (size_t i = 0; i < sizeof trees / sizeof trees[0]; i++) {
		size_t n = strlen(trees[i]);
		if (strncmp(canonical, trees[i], n) == 0 &&
		    (canonical[n] == '\0' || canonical[n] == '/') && !below_dev_shm(canonical))
			return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
			                    "%s \"%s\"%s%s lies in %s: a device, process or kernel tree "
			                    "is not a place to work in",
			                    label, given, resolved, origin, trees[i]);
	}
	r = cf_fs_not_a_place(canonical, writable, why, sizeof why);
	if (r < 0)
		return policy_oom(err);
	if (r > 0)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
		                    "%s \"%s\"%s%s %s: a pseudo-filesystem is not a place to work in",
		                    label, given, resolved, origin, why);
	return 0;
}

/*
 * Validates and canonicalizes `root` for `mode`. `label` names the value
 * ("workspace root", "writableRoots entry"); `origin` says where it came from
 * ("" or " (the session's cwd)") so the message helps the user find it.
 * `refuse_slash` refuses `/` whatever the mode (writable roots).
 */
int cf_canonicalize_root(confine_mode mode, const char *label, const char *root,
                         const char *origin, bool refuse_slash, char **ret, confine_error *err) {
	char *real, *normal;
	struct stat st;
	int bound;

	if (!root)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
		                    "%s is NULL%s: it must be an absolute path to a directory",
		                    label, origin);
	if (root[0] == '\0')
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
		                    "%s \"\"%s is empty: it must be an absolute path to a "
		                    "directory",
		                    label, origin);
	if (root[0] != '/')
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
		                    "%s \"%s\"%s is relative: it must be an absolute path to "
		                    "a directory",
		                    label, root, origin);
	/* Past the bound: its text, at every door, before resolving would
	 * give ENAMETOOLONG (or PATH_MAX's) in other words. */
	bound = cf_policy_check_path_length(strcmp(label, "workspace root") == 0 ? "workspaceRoot"
	                                                                          : "writableRoots",
	                                    label, root, err);
	if (bound < 0)
		return bound;

	if (mode == CONFINE_MODE_DANGER_FULL_ACCESS) {
		/* Nothing is confined to the root here; it is only the default
		 * working directory, and starting the command reports its own error
		 * if it cannot be entered. So it need not exist: it is made as
		 * canonical as the filesystem allows and otherwise kept as given. */
		normal = cf_canonicalize_loosely(root);
		if (!normal)
			return policy_oom(err);
		*ret = normal;
		return 0;
	}

	real = realpath(root, NULL);
	if (!real) {
		int e = errno;
		switch (e) {
		case ENOMEM:
			return policy_oom(err);
		case ENOENT:
			return cf_error_set(err, ENOENT, CONFINE_E_INVALID_POLICY, STAGE, e,
			                    "%s \"%s\"%s does not exist: %s", label, root, origin,
			                    strerror(e));
		case ENOTDIR:
			return cf_error_set(err, ENOTDIR, CONFINE_E_INVALID_POLICY, STAGE, e,
			                    "%s \"%s\"%s is not a directory: %s", label, root, origin,
			                    strerror(e));
		default:
			return cf_error_set(err, e, CONFINE_E_INVALID_POLICY, STAGE, e,
			                    "%s \"%s\"%s cannot be resolved: %s", label, root, origin,
			                    strerror(e));
		}
	}
	if (stat(real, &st) < 0) {
		int e = errno;
		free(real);
		return cf_error_set(err, e, CONFINE_E_INVALID_POLICY, STAGE, e,
		                    "%s \"%s\"%s cannot be examined: %s", label, root, origin,
		                    strerror(e));
	}
	if (!S_ISDIR(st.st_mode)) {
		free(real);
		return cf_error_set(err, ENOTDIR, CONFINE_E_INVALID_POLICY, STAGE, ENOTDIR,
		                    "%s \"%s\"%s is not a directory", label, root, origin);
	}
	/* realpath's result is already absolute and collapsed; normalizing it
	 * again costs nothing and keeps the promise independent of libc. */
	normal = cf_normalize_lexically(real);
	free(real);
	if (!normal)
		return policy_oom(err);

	if ((refuse_slash || mode == CONFINE_MODE_WORKSPACE_WRITE) && strcmp(normal, "/") == 0) {
		int r;
		if (strcmp(root, "/") == 0)
			r = cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
			                 "%s \"/\"%s is refused under workspace-write: writing "
			                 "everywhere is danger-full-access in disguise",
			                 label, origin);
		else
			r = cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
			                 "%s \"%s\"%s resolves to \"/\", which is refused under "
			                 "workspace-write: writing everywhere is danger-full-access in "
			                 "disguise",
			                 label, root, origin);
		free(normal);
		return r;
	}
	{
		int r = check_place(label, root, normal, origin,
		                    refuse_slash || mode == CONFINE_MODE_WORKSPACE_WRITE, err);
		if (r < 0) {
			free(normal);
			return r;
		}
	}
	*ret = normal;
	return 0;
}

static int check_mode(confine_mode mode, const char *origin, confine_error *err) {
	if (confine_mode_name(mode))
		return 0;
	return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
	                    "unknown sandbox mode value \"%d\"%s (expected read-only, workspace-write "
	                    "or danger-full-access)",
	                    (int)mode, origin);
}

static int policy_build(confine_mode mode, const char *mode_origin, const char *root,
                        const char *root_origin, confine_policy **ret, confine_error *err) {
	confine_policy *policy;
	char *canonical = NULL;
	int r = check_mode(mode, mode_origin, err);
	if (r < 0)
		return r;
	r = cf_canonicalize_root(mode, "workspace root", root, root_origin, false, &canonical, err);
	if (r < 0)
		return r;
	policy = calloc(1, sizeof *policy);
	if (!policy) {
		free(canonical);
		return policy_oom(err);
	}
	cf_policy_set_defaults(policy);
	policy->mode = mode;
	policy->workspace_root = canonical;
	*ret = policy;
	return 0;
}

int confine_policy_new(confine_mode mode, const char *workspace_root, confine_policy **ret,
                       confine_error *err) {
	if (!ret)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "confine_policy_new needs somewhere to return the policy");
	return policy_build(mode, "", workspace_root, "", ret, err);
}

int confine_policy_resolve(const confine_deployment *deployment, const confine_session *session,
                           const confine_mode *approved_mode, confine_policy **ret,
                           confine_error *err) {
	confine_mode mode = CONFINE_MODE_READ_ONLY;
	const char *mode_origin = " (the deployment default)";
	const char *root, *root_origin;
	char *cwd = NULL;
	int r;

	if (!ret)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "confine_policy_resolve needs somewhere to return the policy");

	/* Mode: explicit approval > the session's standing mode > the default. */
	if (deployment)
		mode = deployment->default_mode;
	if (session && session->has_mode) {
		mode = session->mode;
		mode_origin = " (the session's mode)";
	}
	if (approved_mode) {
		mode = *approved_mode;
		mode_origin = " (the approved mode)";
	}

	/* Root: the session's cwd > the deployment fallback > the current
	 * directory. An empty string is a value (and an error), not "unset". */
	if (session && session->cwd) {
		root = session->cwd;
		root_origin = " (the session's cwd)";
	} else if (deployment && deployment->fallback_root) {
		root = deployment->fallback_root;
		root_origin = " (the deployment's fallback root)";
	} else {
		cwd = getcwd(NULL, 0);
		if (!cwd) {
			int e = errno;
			if (e == ENOMEM)
				return policy_oom(err);
			return cf_error_set(err, e, CONFINE_E_INVALID_POLICY, STAGE, e,
			                    "the current directory cannot be the workspace root: %s",
			                    strerror(e));
		}
		root = cwd;
		root_origin = " (the current directory)";
	}

	r = policy_build(mode, mode_origin, root, root_origin, ret, err);
	free(cwd);
	return r;
}

bool confine_workdir_usable(const char *path) {
	struct stat st;
	if (!path || !path[0])
		return false;
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return false;
	/* Searchable with the effective IDs, which are what chdir() checks. */
	return faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) == 0;
}

static bool any_under_dev_shm(char *const *paths) {
	for (size_t i = 0; paths && paths[i]; i++)
		if (paths[i][0] == '/' && cf_path_at_or_under(paths[i], "/dev/shm"))
			return true;
	return false;
}

bool cf_policy_private_shm(const confine_policy *policy) {
	struct stat st;
	if (policy->mode != CONFINE_MODE_WORKSPACE_WRITE || !policy->limits[CONFINE_LIMIT_TEMP] ||
	    !policy->private_temp || !policy->temp_dir)
		return false;
	if (stat("/dev/shm", &st) < 0 || !S_ISDIR(st.st_mode))
		return false;
	if (policy->workspace_root && cf_path_at_or_under(policy->workspace_root, "/dev/shm"))
		return false;
	/* A denyRead entry there is hidden all the more: no reason to keep
	 * the host's. */
	return !any_under_dev_shm(policy->writable_roots) &&
	       !any_under_dev_shm(policy->protected_paths) &&
	       !any_under_dev_shm(policy->allow_unix_sockets) &&
	       !any_under_dev_shm(policy->writable_roots_missing);
}
