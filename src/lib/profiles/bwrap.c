/* SPDX-License-Identifier: MIT */
/*
 * The bubblewrap profile (SPEC 5): a pure function from a confined policy to
 * bwrap's arguments. Why each hardening token is there:
 *  --unshare-pid      a private PID namespace hides host processes, whose
 *                     /proc/<pid>/root would otherwise be a way out of the
 *                     read-only bind;
 *  --new-session      stops a confined command from pushing keystrokes into
 *                     the caller's terminal (TIOCSTI, CVE-2017-5226);
 *  --cap-drop ALL     matters when the caller is root: without it
 *                     `mount -o remount,rw /` undoes the read-only bind.
 */
#include <errno.h>
#include <stdlib.h>

#include "util.h"

/* The read-only profile, shared by both modes. */
static const char *const bwrap_read_only[] = {
	"--ro-bind", "/", "/",
	"--dev", "/dev",
	"--unshare-pid",
	"--unshare-ipc",
	"--proc", "/proc",
	"--ro-bind", "/proc/sys", "/proc/sys",
	"--die-with-parent",
	"--new-session",
	"--cap-drop", "ALL",
	NULL,
};

int confine_profile_bwrap(const confine_policy *policy, char ***ret) {
	char **tokens;
	int r;

	if (!policy || !ret || !confine_mode_is_confined(policy->mode))
		return -EINVAL;
	if (policy->mode == CONFINE_MODE_WORKSPACE_WRITE &&
	    (!policy->workspace_root || policy->workspace_root[0] != '/'))
		return -EINVAL;

	tokens = cf_strv_copy(bwrap_read_only);
	if (!tokens)
		return -ENOMEM;
	if (policy->mode == CONFINE_MODE_WORKSPACE_WRITE) {
		/* The private tmpfs comes first: bound afterwards, a workspace that
		 * lives under /tmp stays visible and writable on top of it. */
		const char *const extra[] = {
			"--tmpfs", "/tmp",
			"--bind", policy->workspace_root, policy->workspace_root,
		};
		for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
			r = cf_strv_push(&tokens, extra[i]);
			if (r < 0) {
				confine_strv_free(tokens);
				return r;
			}
		}
	}
	*ret = tokens;
	return 0;
}
