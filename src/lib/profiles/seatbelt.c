/* SPDX-License-Identifier: MIT */
/*
 * The Seatbelt (SBPL) profile (SPEC 5): allow by default, deny every file
 * write, then allow exactly what the mode promises. Pure apart from
 * realpath(3), which is portable: Seatbelt matches resolved paths (on macOS
 * /tmp is /private/tmp), so a root given through a symlink would otherwise
 * allow nothing.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define SEATBELT_READ_ONLY \
	"(version 1) (allow default) (deny file-write*) (allow file-write* (literal \"/dev/null\"))"

/* An SBPL string literal: double quotes, with \ and " escaped. */
static int append_literal(cf_buf *buf, const char *s) {
	int r = cf_buf_puts(buf, "\"");
	for (const char *p = s; r == 0 && *p; p++) {
		if (*p == '\\' || *p == '"')
			r = cf_buf_append(buf, "\\", 1);
		if (r == 0)
			r = cf_buf_append(buf, p, 1);
	}
	if (r == 0)
		r = cf_buf_puts(buf, "\"");
	return r;
}

/* realpath(3) of `path`, or a copy of it as given when it does not resolve
 * (a root that does not exist yet still names what the caller meant). */
static char *canonical_or_given(const char *path) {
	char *resolved = realpath(path, NULL);
	if (resolved)
		return resolved;
	return strdup(path);
}

int confine_profile_seatbelt(const confine_policy *policy, const char *tmpdir, char **ret) {
	cf_buf buf = { 0 };
	char *roots[3] = { NULL, NULL, NULL };
	size_t n_roots = 0;
	char *text;
	int r;

	if (!policy || !ret || !confine_mode_is_confined(policy->mode))
		return -EINVAL;
	if (policy->mode == CONFINE_MODE_WORKSPACE_WRITE &&
	    (!policy->workspace_root || policy->workspace_root[0] != '/'))
		return -EINVAL;

	r = cf_buf_puts(&buf, SEATBELT_READ_ONLY);
	if (r == 0 && policy->mode == CONFINE_MODE_WORKSPACE_WRITE) {
		const char *given[3];
		given[0] = policy->workspace_root;
		given[1] = "/tmp";
		given[2] = tmpdir && tmpdir[0] ? tmpdir : "/tmp";
		for (size_t i = 0; r == 0 && i < 3; i++) {
			char *c = canonical_or_given(given[i]);
			bool seen = false;
			if (!c) {
				r = -ENOMEM;
				break;
			}
			/* De-duplicated keeping the first occurrence: a workspace that is
			 * the temp dir is listed once, where the workspace stands. */
			for (size_t j = 0; j < n_roots; j++)
				if (strcmp(roots[j], c) == 0)
					seen = true;
			if (seen)
				free(c);
			else
				roots[n_roots++] = c;
		}
		if (r == 0)
			r = cf_buf_puts(&buf, " (allow file-write*");
		for (size_t i = 0; r == 0 && i < n_roots; i++) {
			r = cf_buf_puts(&buf, " (subpath ");
			if (r == 0)
				r = append_literal(&buf, roots[i]);
			if (r == 0)
				r = cf_buf_puts(&buf, ")");
		}
		if (r == 0)
			r = cf_buf_puts(&buf, ")");
	}
	for (size_t i = 0; i < n_roots; i++)
		free(roots[i]);
	if (r < 0) {
		cf_buf_free(&buf);
		return r;
	}
	text = cf_buf_steal(&buf);
	if (!text)
		return -ENOMEM;
	*ret = text;
	return 0;
}
