/* SPDX-License-Identifier: MIT */
/* denyRead and protectedPaths patterns (patterns.h, doc/SPEC.md 15). */
#include "patterns.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy-internal.h"

static bool has_glob(const char *s) {
	return strpbrk(s, "*?[") != NULL;
}

bool cf_entry_is_pattern(const char *key, const char *entry) {
	if (!entry || !entry[0])
		return false;
	if (has_glob(entry))
		return true;
	/* A relative denyRead entry means that name under every root. */
	return strcmp(key, "denyRead") == 0 && entry[0] != '/';
}

/* ---- matching ---- */

/* Does the component list `path` (n_path entries) match the segment list
 * `seg` (n_seg entries)? `**` matches zero or more components. */
static bool match_segments(char *const *seg, size_t n_seg, char *const *path, size_t n_path) {
	if (n_seg == 0)
		return n_path == 0;
	if (strcmp(seg[0], "**") == 0) {
		/* Zero components, or one more and try again. */
		for (size_t skip = 0; skip <= n_path; skip++)
			if (match_segments(seg + 1, n_seg - 1, path + skip, n_path - skip))
				return true;
		return false;
	}
	if (n_path == 0)
		return false;
	/* Within a component, no wildcard crosses '/': there is none left. */
	if (fnmatch(seg[0], path[0], 0) != 0)
		return false;
	return match_segments(seg + 1, n_seg - 1, path + 1, n_path - 1);
}

/* Splits `s` (a writable copy) at '/', dropping empty components. */
static size_t split(char *s, char **out, size_t max) {
	size_t n = 0;
	for (char *save = NULL, *tok = strtok_r(s, "/", &save); tok && n < max;
	     tok = strtok_r(NULL, "/", &save))
		out[n++] = tok;
	return n;
}

#define MAX_SEGMENTS 128

bool cf_pattern_match(const char *pattern, const char *relpath, bool is_dir) {
	char pat[PATH_MAX + 4], path[PATH_MAX];
	char *seg[MAX_SEGMENTS + 1], *comp[MAX_SEGMENTS];
	size_t n_seg, n_comp, len;
	bool dir_only = false, anchored;
	if (!pattern || !relpath || strlen(pattern) >= PATH_MAX || strlen(relpath) >= PATH_MAX)
		return false;
	len = strlen(pattern);
	while (len > 1 && pattern[len - 1] == '/') {
		dir_only = true;
		len--;
	}
	/* Anchored when a slash is left inside (a leading one only anchors). */
	anchored = memchr(pattern, '/', len) != NULL;
	snprintf(pat, sizeof pat, "%s%.*s", anchored ? "" : "**/", (int)len, pattern);
	snprintf(path, sizeof path, "%s", relpath);
	n_seg = split(pat, seg, MAX_SEGMENTS);
	n_comp = split(path, comp, MAX_SEGMENTS);
	if (n_seg == 0 || n_comp == 0 || (dir_only && !is_dir))
		return false;
	return match_segments(seg, n_seg, comp, n_comp);
}

/* ---- expansion ---- */

struct walk {
	const confine_policy *policy;
	const char *pattern;  /* relative to the walk's root */
	cf_pattern_report *report;
	char ***matches;
	size_t *entries;      /* shared budget */
	bool oom;
};

static bool listed(char *const *list, const char *s) {
	for (size_t i = 0; list && list[i]; i++)
		if (strcmp(list[i], s) == 0)
			return true;
	return false;
}

static void found(struct walk *w, const char *abs) {
	if (listed(*w->matches, abs))
		return;
	/* A root (or what holds one) stays what the policy made it: a match
	 * there would hide or freeze the workspace itself. */
	if (w->policy->workspace_root && cf_path_at_or_under(w->policy->workspace_root, abs))
		return;
	for (size_t i = 0; w->policy->writable_roots && w->policy->writable_roots[i]; i++)
		if (cf_path_at_or_under(w->policy->writable_roots[i], abs))
			return;
	if (cf_strv_push(w->matches, abs) < 0)
		w->oom = true;
	else
		w->report->matches++;
}

/* Walks `dir` (open as `fd`; `rel` its path below the walk's root, "" at
 * the root) on one filesystem, symlinks not followed. A matching
 * directory is taken whole and not entered. */
static void walk_dir(struct walk *w, int fd, const char *abs, const char *rel, dev_t dev,
                     int depth) {
	DIR *d = fdopendir(fd);
	struct dirent *e;
	if (!d) {
		close(fd);
		return;
	}
	while (!w->oom && (e = readdir(d))) {
		char child_rel[PATH_MAX], child_abs[PATH_MAX];
		struct stat st;
		bool is_dir;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (++*w->entries > CF_PATTERN_MAX_ENTRIES) {
			w->report->incomplete = true;
			break;
		}
		if ((size_t)snprintf(child_rel, sizeof child_rel, "%s%s%s", rel, rel[0] ? "/" : "",
		                     e->d_name) >= sizeof child_rel ||
		    (size_t)snprintf(child_abs, sizeof child_abs, "%s%s%s", abs,
		                     strcmp(abs, "/") == 0 ? "" : "/", e->d_name) >= sizeof child_abs)
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		is_dir = S_ISDIR(st.st_mode);
		if (cf_pattern_match(w->pattern, child_rel, is_dir)) {
			found(w, child_abs);
			continue;
		}
		if (!is_dir || st.st_dev != dev)
			continue; /* a mount point: not the root's tree */
		if (depth >= CF_PATTERN_MAX_DEPTH) {
			w->report->incomplete = true;
			continue;
		}
		{
			int child = openat(dirfd(d), e->d_name,
			                   O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
			if (child >= 0)
				walk_dir(w, child, child_abs, child_rel, dev, depth + 1);
		}
	}
	closedir(d);
}

static void walk_root(struct walk *w, const char *root) {
	struct stat st;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return;
	}
	walk_dir(w, fd, root, "", st.st_dev, 0);
}

/* An absolute pattern: from its literal leading directories, the rest
 * anchored there. */
static void expand_absolute(struct walk *w, const char *pattern) {
	char prefix[PATH_MAX], rest[PATH_MAX + 2], *real;
	const char *glob = pattern, *cut;
	/* The last '/' before the first wildcard ends the literal part. */
	while (*glob && !strchr("*?[", *glob))
		glob++;
	cut = glob;
	while (cut > pattern && *cut != '/')
		cut--;
	snprintf(prefix, sizeof prefix, "%.*s", cut == pattern ? 1 : (int)(cut - pattern), pattern);
	/* A leading '/' anchors what follows at the prefix. */
	snprintf(rest, sizeof rest, "/%s", cut + 1);
	if (!(real = realpath(prefix, NULL))) {
		if (errno == ENOMEM)
			w->oom = true;
		return;
	}
	w->pattern = rest;
	walk_root(w, real);
	free(real);
}

static int expand_list(const confine_policy *policy, const char *key, char *const *in,
                       char ***out, cf_pattern_report **reports, size_t *n, size_t *entries) {
	for (size_t i = 0; in && in[i]; i++) {
		cf_pattern_report *grown, *report;
		struct walk w = { .policy = policy, .matches = out, .entries = entries };
		if (!cf_entry_is_pattern(key, in[i])) {
			if (cf_strv_push(out, in[i]) < 0)
				return -ENOMEM;
			continue;
		}
		if (!(grown = realloc(*reports, (*n + 1) * sizeof *grown)))
			return -ENOMEM;
		*reports = grown;
		report = &grown[*n];
		memset(report, 0, sizeof *report);
		report->key = key;
		if (!(report->pattern = strdup(in[i])))
			return -ENOMEM;
		(*n)++;
		w.report = report;
		if (in[i][0] == '/') {
			expand_absolute(&w, in[i]);
		} else {
			/* Under the workspace root and every writable root. */
			w.pattern = in[i];
			if (policy->workspace_root)
				walk_root(&w, policy->workspace_root);
			for (size_t k = 0; !w.oom && policy->writable_roots && policy->writable_roots[k];
			     k++)
				walk_root(&w, policy->writable_roots[k]);
		}
		if (w.oom)
			return -ENOMEM;
	}
	return 0;
}

static bool any_pattern(const char *key, char *const *list) {
	for (size_t i = 0; list && list[i]; i++)
		if (cf_entry_is_pattern(key, list[i]))
			return true;
	return false;
}

int cf_patterns_expand(const confine_policy *policy, confine_policy **ret,
                       cf_pattern_report **reports, size_t *n) {
	confine_policy *copy = NULL;
	char **deny = NULL, **protect = NULL;
	size_t entries = 0;
	*ret = NULL;
	*reports = NULL;
	*n = 0;
	if (!any_pattern("denyRead", policy->deny_read) &&
	    !any_pattern("protectedPaths", policy->protected_paths))
		return 0;
	if (expand_list(policy, "denyRead", policy->deny_read, &deny, reports, n, &entries) < 0 ||
	    expand_list(policy, "protectedPaths", policy->protected_paths, &protect, reports, n,
	                &entries) < 0 ||
	    !(copy = calloc(1, sizeof *copy)) || cf_policy_copy_into(copy, policy) < 0)
		goto oom;
	confine_strv_free(copy->deny_read);
	confine_strv_free(copy->protected_paths);
	copy->deny_read = deny;
	copy->protected_paths = protect;
	*ret = copy;
	return 0;
oom:
	if (copy) {
		cf_policy_clear(copy);
		free(copy);
	}
	confine_strv_free(deny);
	confine_strv_free(protect);
	cf_pattern_reports_free(*reports, *n);
	*reports = NULL;
	*n = 0;
	return -ENOMEM;
}

void cf_pattern_reports_free(cf_pattern_report *reports, size_t n) {
	for (size_t i = 0; reports && i < n; i++)
		free(reports[i].pattern);
	free(reports);
}
