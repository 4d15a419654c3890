/* SPDX-License-Identifier: MIT */
/*
 * The bubblewrap profile (SPEC 5, 12; doc/POLICY.md): a function from a
 * confined policy (and the plan of what exists on disk) to bwrap's
 * arguments. Why each hardening token is there:
 *  --unshare-pid      a private PID namespace hides host processes, whose
 *                     /proc/<pid>/root would otherwise be a way out of the
 *                     read-only bind;
 *  --unshare-ipc      SysV shared memory, semaphores and message queues of
 *                     the host are out of reach (issue 14, N3);
 *  --ro-bind /proc/sys /proc/sys
 *                     bwrap 0.8 leaves /proc/sys writable to a root caller
 *                     (its own remount is skipped when access(W_OK) fails
 *                     on the directory): core_pattern was a full escape;
 *  --die-with-parent  the command dies with its starter (dropped for
 *                     in-process runs: PR_SET_PDEATHSIG follows the
 *                     spawning *thread*; the launcher's lifeline replaces it);
 *  --new-session      stops a confined command from pushing keystrokes into
 *                     the caller's terminal (TIOCSTI, CVE-2017-5226);
 *  --cap-drop ALL     matters when the caller is root: without it
 *                     `mount -o remount,rw /` undoes the read-only bind.
 * Order after those: network, the private /tmp, the writable binds, the
 * pins (the directories on the way to each protected path bound onto
 * themselves: mount points cannot be renamed or removed in the sandbox),
 * allowed sockets the private /tmp would hide, then the read-only
 * carve-outs and the denyRead masks on top of them (a later mount covers an
 * earlier one).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "later.h"
#include "policy-internal.h"
#include "profiles/plan.h"
#include "profiles/stage-roots.h"
#include "launcher-protocol.h"
#include "util.h"
#include "rungs/bwrap/bwrap.h"

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

static int push(char ***tokens, const char *a, const char *b, const char *c) {
	int r = cf_strv_push(tokens, a);
	if (r == 0 && b)
		r = cf_strv_push(tokens, b);
	if (r == 0 && c)
		r = cf_strv_push(tokens, c);
	return r;
}

/* Whether `path` is still visible in the sandbox once /tmp is a private
 * tmpfs: outside /tmp, or inside a writable root bound back on top, or
 * inside the read-only workspace root bound back (`bound_back`, or NULL):
 * a denyRead there needs its mask like anywhere else (a read-only run in
 * a workspace under /tmp read a denied .env that the report called
 * enforced). */
static bool visible(const cf_plan *plan, const char *path, bool private_tmp,
                    const char *bound_back) {
	if (!private_tmp || !cf_path_at_or_under(path, "/tmp"))
		return true;
	if (bound_back && cf_path_at_or_under(path, bound_back))
		return true;
	for (size_t i = 0; plan->writable[i]; i++)
		if (cf_path_at_or_under(path, plan->writable[i]))
			return true;
	return false;
}

static bool is_socket(const char *path) {
	struct stat st;
	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* Whether the canonical `root` lies strictly below a directory the sandbox
 * mounts afresh: /tmp (when private) or /dev/shm (--dev /dev). */
static bool hidden_by_sandbox(const char *root, bool private_tmp) {
	return (private_tmp && strncmp(root, "/tmp/", 5) == 0 && root[5]) ||
	       (strncmp(root, "/dev/shm/", 9) == 0 && root[9]);
}

static bool cf_bwrap_sizes_temp(const confine_policy *policy, unsigned flags) {
	return (flags & CF_PROFILE_LAUNCHER_INSIDE) && policy->limits[CONFINE_LIMIT_TEMP] &&
	       (policy->mode == CONFINE_MODE_WORKSPACE_WRITE || policy->private_temp);
}

/* The writable roots in the order they are bound: shorter paths first, so
 * a root inside another (`-w D/ws --writable D`) is bound after it, on top
 * of it: bound before, the outer bind would hide it, and the launcher's
 * identity check (the path must be a mount's root) would refuse the run.
 * After `prev` (SIZE_MAX to start) the next by (length, index); SIZE_MAX
 * when none is left. No allocation: the list is short (bounded). */
static size_t next_outer(char *const *roots, size_t prev) {
	size_t prev_len = prev == SIZE_MAX ? 0 : strlen(roots[prev]);
	size_t best = SIZE_MAX, best_len = 0;

	for (size_t i = 0; roots[i]; i++) {
		size_t len = strlen(roots[i]);
		bool after = prev == SIZE_MAX || len > prev_len || (len == prev_len && i > prev);
		if (after && (best == SIZE_MAX || len < best_len))
			best = i, best_len = len;
	}
	return best;
}

/* `ids`: where the launcher's --identity pairs go, or NULL (identity.c). */
static int bwrap_tokens(const confine_policy *policy, const cf_plan *plan, unsigned flags,
                        char ***tokens, char ***ids) {
	bool private_tmp = policy->mode == CONFINE_MODE_WORKSPACE_WRITE || policy->private_temp;
	const char *bound_back = NULL;
	int r = 0;

	for (size_t i = 0; r == 0 && bwrap_read_only[i]; i++) {
		if ((flags & CONFINE_PROFILE_NO_DIE_WITH_PARENT) &&
		    strcmp(bwrap_read_only[i], "--die-with-parent") == 0)
			continue;
		r = cf_strv_push(tokens, bwrap_read_only[i]);
	}
	/* Network off: a namespace of its own holds only loopback. */
	if (r == 0 && policy->network == CONFINE_NETWORK_OFF)
		r = push(tokens, "--unshare-net", NULL, NULL);
	/* The private tmpfs comes before the binds: bound afterwards, a root
	 * that lives under /tmp stays visible and writable on top of it. */
	if (r == 0 && private_tmp)
		r = push(tokens, "--tmpfs", "/tmp", NULL);
	/* read-only: a root the sandbox's own mounts hide (below /tmp under the
	 * private tmpfs, below /dev/shm under --dev) is bound back, read-only,
	 * so the command sees its workspace and starts there (doc/SPEC.md 5). */
	if (r == 0 && policy->mode == CONFINE_MODE_READ_ONLY && policy->workspace_root &&
	    hidden_by_sandbox(policy->workspace_root, private_tmp)) {
		bound_back = policy->workspace_root;
		r = push(tokens, "--ro-bind", policy->workspace_root, policy->workspace_root);
		if (r == 0)
			r = cf_bwrap_identity_push(ids, policy->workspace_root);
	}
	/* Each bind from the host with the identity of its source, checked
	 * inside by the launcher: bwrap follows links in both of a bind's
	 * paths (red team F3). */
	for (size_t i = SIZE_MAX; r == 0 && (i = next_outer(plan->writable, i)) != SIZE_MAX;)
		if ((r = push(tokens, "--bind", plan->writable[i], plan->writable[i])) == 0)
			r = cf_bwrap_identity_push(ids, plan->writable[i]);
	/* Pins: each directory on the way to a protected path bound onto
	 * itself (writable as before), so that in the sandbox it is a mount
	 * point the command can neither rename nor remove; shallow first. */
	for (size_t i = 0; r == 0 && plan->pins && plan->pins[i]; i++)
		if ((r = push(tokens, "--bind", plan->pins[i], plan->pins[i])) == 0)
			r = cf_bwrap_identity_push(ids, plan->pins[i]);
	/* An allowed socket the private /tmp hides (ssh-agent's default
	 * /tmp/ssh-XXXX/agent.N) is bound in, read-only (a socket on a
	 * read-only mount still accepts connect), so allowUnixSockets means
	 * the same on both rungs; -try: one gone by then binds nothing. */
	for (size_t i = 0; r == 0 && policy->allow_unix_sockets && policy->allow_unix_sockets[i];
	     i++) {
		const char *s = policy->allow_unix_sockets[i];
		if (!visible(plan, s, private_tmp, bound_back) && is_socket(s))
			r = push(tokens, "--ro-bind-try", s, s);
	}
	/* The protected paths, an existing one or (in-process) the placeholder
	 * the spawner makes for a missing one. */
	for (size_t i = 0; r == 0 && i < plan->n_protected; i++) {
		const cf_protected *p = &plan->protected_paths[i];
		r = push(tokens, "--ro-bind", p->path, p->path);
		/* A placeholder is made after the argv (spawn/placeholders.c):
		 * no identity yet; a protected path swapped for a link lands
		 * the read-only bind elsewhere and leaves itself writable. Nor
		 * for another run's stand-in there now (marked), which that run
		 * removes while this one starts (16 runs at once in one
		 * workspace). */
		if (r == 0 && p->exists && !cf_later_is_marked(p->path)) {
			r = cf_bwrap_identity_push(ids, p->path);
			/* gone since the plan (another run's stand-in, removed):
			 * nothing to compare; bwrap's bind then finds no source and
			 * the run fails closed */
			if (r == -ENOENT)
				r = 0;
		}
	}
	for (size_t i = 0; r == 0 && i < plan->n_deny; i++) {
		const char *d = plan->deny[i];
		if (!visible(plan, d, private_tmp, bound_back))
			continue; /* the host's /tmp is not there to read */
		if (plan->deny_is_dir[i]) {
			/* An empty directory, and read-only so nothing lands in it. */
			r = push(tokens, "--tmpfs", d, NULL);
			if (r == 0)
				r = push(tokens, "--remount-ro", d, NULL);
		} else {
			r = push(tokens, "--ro-bind", "/dev/null", d);
		}
	}
	/* A staged run: the stage is bound in (after the private /tmp, which
	 * would hide it) for the launcher, which mounts the overlay and then
	 * covers it (doc/SPEC.md 21). */
	/* CAP_SYS_ADMIN and CAP_DAC_OVERRIDE (in bwrap's namespaces) are the launcher's for the mount
	 * alone: it drops every capability before it restricts itself and
	 * execs. A namespace of its own would not do for root: mapping uid 0
	 * into a child namespace needs CAP_SETFCAP, which --cap-drop took. */
	if (r == 0 && policy->stage_dir && policy->mode == CONFINE_MODE_WORKSPACE_WRITE)
		r = push(tokens, "--bind", policy->stage_dir, policy->stage_dir);
	/* Each staged root again, read-only, where nothing is mounted below
	 * it: overlayfs cannot take a lower layer with mounts under it from a
	 * namespace of another owner (bwrap's pins and protections, as a
	 * non-root caller's), so this is the lower layer. */
	if (r == 0 && policy->stage_dir && policy->mode == CONFINE_MODE_WORKSPACE_WRITE) {
		char **roots = NULL;
		r = cf_stage_roots(plan, &roots);
		for (size_t i = 0; r == 0 && roots && roots[i]; i++) {
			char lower[64];
			snprintf(lower, sizeof lower, "%s/%zu", LAUNCHER_STAGE_LOWER, i);
			r = push(tokens, "--ro-bind", roots[i], lower);
		}
		confine_strv_free(roots);
	}
	if (r == 0 && ((policy->stage_dir && policy->mode == CONFINE_MODE_WORKSPACE_WRITE) ||
	               cf_bwrap_sizes_temp(policy, flags)))
		r = push(tokens, "--cap-add", "CAP_SYS_ADMIN", NULL);
	/* overlayfs makes its work directory 0000 and enters it with the
	 * mounter's credentials. */
	if (r == 0 && policy->stage_dir && policy->mode == CONFINE_MODE_WORKSPACE_WRITE)
		r = push(tokens, "--cap-add", "CAP_DAC_OVERRIDE", NULL);
	return r;
}

int cf_profile_bwrap_layered(const confine_policy *policy, unsigned flags, char ***ret,
                             char ***ids) {
	cf_plan plan;
	char **tokens = NULL, **pairs = NULL;
	int r;

	if (!ret || (flags & ~(CONFINE_PROFILE_NO_DIE_WITH_PARENT | CF_PROFILE_PLACEHOLDERS |
	                       CF_PROFILE_LAUNCHER_INSIDE)))
		return -EINVAL;
	r = cf_plan_make(policy,
	                 CF_PLAN_BWRAP |
	                         ((flags & CF_PROFILE_PLACEHOLDERS) ? CF_PLAN_PLACEHOLDERS : 0),
	                 &plan);
	if (r < 0)
		return r;
	r = bwrap_tokens(policy, &plan, flags, &tokens, ids ? &pairs : NULL);
	cf_plan_clear(&plan);
	if (r == 0 && ids && !pairs && !(pairs = calloc(1, sizeof *pairs)))
		r = -ENOMEM;
	if (r < 0) {
		confine_strv_free(tokens);
		confine_strv_free(pairs);
		return r;
	}
	*ret = tokens;
	if (ids)
		*ids = pairs;
	return 0;
}

int confine_profile_bwrap_flags(const confine_policy *policy, unsigned flags, char ***ret) {
	return cf_profile_bwrap_layered(policy, flags, ret, NULL);
}

int confine_profile_bwrap(const confine_policy *policy, char ***ret) {
	return confine_profile_bwrap_flags(policy, 0, ret);
}
