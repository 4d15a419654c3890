/* SPDX-License-Identifier: MIT */
/* No cgroups outside Linux (cgroup.h): every limit is the launcher's or
 * unenforced. */
#include <errno.h>

#include "spawn/cgroup.h"

unsigned cf_cgroup_holds(void) {
	return 0;
}

const char *cf_cgroup_kind(void) {
	return NULL;
}

void cf_cgroup_sweep(void) {
}

int cf_cgroup_make(const confine_policy *policy, unsigned holds, struct cf_cgroup **ret) {
	(void)policy;
	(void)holds;
	(void)ret;
	return -ENOTSUP;
}

size_t cf_cgroup_join_fds(const struct cf_cgroup *cgroup, int fds[2]) {
	(void)cgroup;
	(void)fds;
	return 0;
}

bool cf_cgroup_kill_members_now(const struct cf_cgroup *cgroup) {
	(void)cgroup;
	return false;
}

void cf_cgroup_finish(struct cf_cgroup *cgroup, confine_outcome *o) {
	(void)cgroup;
	(void)o;
}

void cf_cgroup_free(struct cf_cgroup *cgroup) {
	(void)cgroup;
}
