/* SPDX-License-Identifier: MIT */
/*
 * The Seatbelt (SBPL) profile (SPEC 5, 12; doc/POLICY.md): allow by default,
 * deny every file write, then allow exactly what the policy promises, and
 * carve out protected paths, denyRead and the network after the allows. Pure apart from
 * realpath(3), which is portable: Seatbelt matches resolved paths (on macOS
 * /tmp is /private/tmp), so a root given through a symlink would otherwise
 * allow nothing.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "profiles/plan.h"
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

/* Appends canonical_or_given(path) to `list` unless already there. */
static int add_canonical(char ***list, const char *path) {
	char *c = canonical_or_given(path);
	int r = 0;
	bool seen = false;
	if (!c)
		return -ENOMEM;
	for (size_t j = 0; *list && (*list)[j]; j++)
		seen = seen || strcmp((*list)[j], c) == 0;
	if (!seen)
		r = cf_strv_push(list, c);
	free(c);
	return r;
}

/* " (<op> <filter> (subpath "a") (subpath "b") ...)" over `paths`; nothing
 * for an empty list. */
static int append_rule(cf_buf *buf, const char *head, char *const *paths) {
	int r = 0;
	if (!paths || !paths[0])
		return 0;
	r = cf_buf_printf(buf, " (%s", head);
	for (size_t i = 0; r == 0 && paths[i]; i++) {
		r = cf_buf_puts(buf, " (subpath ");
		if (r == 0)
			r = append_literal(buf, paths[i]);
		if (r == 0)
			r = cf_buf_puts(buf, ")");
	}
	if (r == 0)
		r = cf_buf_puts(buf, ")");
	return r;
}

/*
 * Forms after the read-only base, in order (SBPL: the last matching rule
 * wins, so the carve-outs come after the allows):
 *   (allow file-write* (subpath ROOT) (subpath /tmp) (subpath TMPDIR)
 *     (subpath W)...)                                   workspace-write
 *   (allow file-write* (subpath TEMP_DIR))              read-only private temp
 *   (deny file-write* (subpath P)...)                   protected paths
 *   (deny file-read* (subpath D)...) (deny file-write* (subpath D)...)   denyRead
 *   (deny network*) (allow network-outbound (remote unix-socket
 *     (path-literal S)))...                             network off
 */
static int seatbelt_text(const confine_policy *policy, const cf_plan *plan, const char *tmpdir,
                         cf_buf *buf) {
	char **roots = NULL, **protect = NULL, **deny = NULL;
	int r = cf_buf_puts(buf, SEATBELT_READ_ONLY);

	if (r == 0 && policy->mode == CONFINE_MODE_WORKSPACE_WRITE) {
		/* De-duplicated keeping the first occurrence: a workspace that is
		 * the temp dir is listed once, where the workspace stands. */
		r = add_canonical(&roots, policy->workspace_root);
		if (r == 0)
			r = add_canonical(&roots, "/tmp");
		if (r == 0)
			r = add_canonical(&roots, tmpdir && tmpdir[0] ? tmpdir : "/tmp");
		for (size_t i = 0; r == 0 && policy->writable_roots && policy->writable_roots[i]; i++)
			r = add_canonical(&roots, policy->writable_roots[i]);
		for (size_t i = 0; r == 0 && plan->protect_all && plan->protect_all[i]; i++)
			r = add_canonical(&protect, plan->protect_all[i]);
	}
	if (r == 0 && policy->mode == CONFINE_MODE_READ_ONLY && policy->private_temp &&
	    policy->temp_dir)
		r = add_canonical(&roots, policy->temp_dir);
	for (size_t i = 0; r == 0 && policy->deny_read && policy->deny_read[i]; i++)
		r = add_canonical(&deny, policy->deny_read[i]);

	if (r == 0)
		r = append_rule(buf, "allow file-write*", roots);
	if (r == 0)
		r = append_rule(buf, "deny file-write*", protect);
	if (r == 0)
		r = append_rule(buf, "deny file-read*", deny);
	if (r == 0)
		r = append_rule(buf, "deny file-write*", deny);
	if (r == 0 && policy->network == CONFINE_NETWORK_OFF) {
		r = cf_buf_puts(buf, " (deny network*)");
		for (size_t i = 0; r == 0 && policy->allow_unix_sockets &&
		                   policy->allow_unix_sockets[i];
		     i++) {
			char *c = canonical_or_given(policy->allow_unix_sockets[i]);
			if (!c) {
				r = -ENOMEM;
				break;
			}
			r = cf_buf_puts(buf, " (allow network-outbound (remote unix-socket (path-literal ");
			if (r == 0)
				r = append_literal(buf, c);
			if (r == 0)
				r = cf_buf_puts(buf, ")))");
			free(c);
		}
	}
	confine_strv_free(roots);
	confine_strv_free(protect);
	confine_strv_free(deny);
	return r;
}

int confine_profile_seatbelt(const confine_policy *policy, const char *tmpdir, char **ret) {
	cf_buf buf = { 0 };
	cf_plan plan;
	char *text;
	int r;

	if (!ret)
		return -EINVAL;
	r = cf_plan_make(policy, 0, &plan);
	if (r < 0)
		return r;
	r = seatbelt_text(policy, &plan, tmpdir, &buf);
	cf_plan_clear(&plan);
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
