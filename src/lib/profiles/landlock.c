/* SPDX-License-Identifier: MIT */
/*
 * The landlock-run grants (SPEC 5): a pure function from a confined policy to
 * the launcher's --ro / --rw arguments. The writable sink is the file
 * /dev/null, never the directory /dev: a /dev grant would open the host's
 * /dev/shm. Under Landlock /tmp is the host's /tmp, not a private one.
 */
#include <errno.h>
#include <stdlib.h>

#include "util.h"

int confine_profile_landlock(const confine_policy *policy, char ***ret) {
	const char *grants[9];
	size_t n = 0;
	char **tokens;

	if (!policy || !ret || !confine_mode_is_confined(policy->mode))
		return -EINVAL;
	if (policy->mode == CONFINE_MODE_WORKSPACE_WRITE &&
	    (!policy->workspace_root || policy->workspace_root[0] != '/'))
		return -EINVAL;

	grants[n++] = "--ro";
	grants[n++] = "/";
	grants[n++] = "--rw";
	grants[n++] = "/dev/null";
	if (policy->mode == CONFINE_MODE_WORKSPACE_WRITE) {
		grants[n++] = "--rw";
		grants[n++] = "/tmp";
		grants[n++] = "--rw";
		grants[n++] = policy->workspace_root;
	}
	grants[n] = NULL;

	tokens = cf_strv_copy(grants);
	if (!tokens)
		return -ENOMEM;
	*ret = tokens;
	return 0;
}
