/* SPDX-License-Identifier: MIT */
/* A report per clause (clauses.h, doc/SPEC.md 15). */
#include "profiles/clauses.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policy-limits.h"
#include "patterns.h"
#include "policy-internal.h"
#include "profiles/plan.h"

/* The Landlock ABIs that matter to a report (the launcher's table). */
#define ABI_FULL 5   /* refer (2), truncate (3), ioctl-dev (5): every file right */
#define ABI_SCOPES 6 /* signal and abstract-socket scopes */

/* "needs" for a clause only the bwrap rung holds. */
#define NEEDS_BWRAP "bubblewrap"

struct list {
	confine_clause *items;
	size_t n, cap;
	bool oom;
};

static void add(struct list *l, const char *clause, const char *subject,
                confine_clause_status status, unsigned layers, const char *needs,
                const char *reason_fmt, ...) __attribute__((format(printf, 7, 8)));

static void add(struct list *l, const char *clause, const char *subject,
                confine_clause_status status, unsigned layers, const char *needs,
                const char *reason_fmt, ...) {
	confine_clause *c;
	if (l->oom)
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		confine_clause *grown = realloc(l->items, cap * sizeof *grown);
		if (!grown) {
			l->oom = true;
			return;
		}
		l->items = grown;
		l->cap = cap;
	}
	c = &l->items[l->n];
	memset(c, 0, sizeof *c);
	c->status = status;
	c->layers = layers;
	if (!(c->clause = strdup(clause)) || (subject && !(c->subject = strdup(subject))) ||
	    (needs && !(c->needs = strdup(needs)))) {
		l->oom = true;
		free(c->clause);
		free(c->subject);
		free(c->needs);
		return;
	}
	if (reason_fmt) {
		va_list ap;
		int r;
		va_start(ap, reason_fmt);
		r = vasprintf(&c->reason, reason_fmt, ap);
		va_end(ap);
		if (r < 0) {
			c->reason = NULL;
			l->oom = true;
		}
	}
	l->n++;
}

static bool listed(char *const *list, const char *s) {
	for (size_t i = 0; list && list[i]; i++)
		if (strcmp(list[i], s) == 0)
			return true;
	return false;
}

/* The layers that hold the mode's file rules on this rung. */
static unsigned mode_layers(const cf_clause_facts *f) {
	switch (f->runner) {
	case CONFINE_RUNNER_BWRAP:
		return CONFINE_LAYER_BWRAP | (f->layered && f->landlock_abi > 0 ? CONFINE_LAYER_LANDLOCK : 0);
	case CONFINE_RUNNER_LANDLOCK:
		return CONFINE_LAYER_LANDLOCK;
	case CONFINE_RUNNER_SEATBELT:
		return CONFINE_LAYER_SEATBELT;
	case CONFINE_RUNNER_RUNNER_COMMAND:
		return CONFINE_LAYER_RUNNER_COMMAND;
	case CONFINE_RUNNER_NONE:
	default:
		return 0;
	}
}

/* Whether the launcher (and so seccomp, maybe the supervisor) confines the
 * command on this rung. */
static bool has_launcher(const cf_clause_facts *f) {
	return f->runner == CONFINE_RUNNER_LANDLOCK || (f->runner == CONFINE_RUNNER_BWRAP && f->layered);
}

static bool bwrap_shaped(const cf_clause_facts *f) {
	return f->runner == CONFINE_RUNNER_BWRAP || f->runner == CONFINE_RUNNER_RUNNER_COMMAND;
}

/* The network allowlist held by the launcher inside bwrap (doc/SPEC.md 15):
 * the layered rung (a run the library spawns, and the wrap argv with the
 * on-disk launcher inside) keeps the host's network namespace (no
 * --unshare-net) and the launcher hosts the proxy. */
static bool allowlist_in_bwrap(const confine_policy *p, const cf_clause_facts *f) {
	return confine_policy_network_allowlist(p) && f->runner == CONFINE_RUNNER_BWRAP &&
	       f->layered;
}

static void clause_mode(struct list *l, const confine_policy *p, const cf_clause_facts *f) {
	const char *mode = confine_mode_name(p->mode);
	unsigned layers = mode_layers(f);
	if (f->runner == CONFINE_RUNNER_LANDLOCK && f->landlock_abi < ABI_FULL) {
		int abi = f->landlock_abi;
		add(l, "mode", mode, CONFINE_CLAUSE_PARTIAL, layers, "Landlock ABI 5 or " NEEDS_BWRAP,
		    "Landlock ABI %d does not restrict %s%s%s", abi, abi < 2 ? "refer, " : "",
		    abi < 3 ? "truncate, " : "", "ioctl on devices");
	} else {
		add(l, "mode", mode, CONFINE_CLAUSE_ENFORCED, layers, NULL, NULL);
	}
	for (size_t i = 0; p->writable_roots && p->writable_roots[i]; i++) {
		if (p->mode == CONFINE_MODE_WORKSPACE_WRITE)
			add(l, "writableRoots", p->writable_roots[i], CONFINE_CLAUSE_ENFORCED, layers, NULL,
			    NULL);
		else
			/* Accepted (a config shared by every mode lists it) and said:
			 * the stricter mode wins. */
			add(l, "writableRoots", p->writable_roots[i], CONFINE_CLAUSE_ENFORCED, 0, NULL,
			    "not granted: read-only writes nowhere");
	}
	/* Nothing to write there (issue 27): narrower, never wider, so held. */
	for (size_t i = 0; p->writable_roots_missing && p->writable_roots_missing[i]; i++)
		add(l, "writableRoots", p->writable_roots_missing[i], CONFINE_CLAUSE_ENFORCED, 0, NULL,
		    "not granted: it does not exist at the start (made during the run, it stays "
		    "unwritable)");
}

static int join(char *out, size_t size, const char *root, const char *rel) {
	int n = snprintf(out, size, "%s%s%s", root, strcmp(root, "/") == 0 ? "" : "/", rel);
	return (n < 0 || (size_t)n >= size) ? -ENAMETOOLONG : 0;
}

/* The entry of bwrap's plan for `path` (canonical where it exists), or
 * NULL when nothing protects it. */
static const cf_protected *bound_entry(const cf_plan *plan, const char *path, bool *via_link) {
	char *real = realpath(path, NULL);
	const cf_protected *found = NULL;
	/* An entry at the path, or above it (a stand-in for a missing parent
	 * covers everything below it). */
	for (size_t i = 0; i < plan->n_protected && !found; i++)
		if (cf_path_at_or_under(path, plan->protected_paths[i].path) ||
		    (real && cf_path_at_or_under(real, plan->protected_paths[i].path)))
			found = &plan->protected_paths[i];
	/* Resolved through a symlink: what it points to is bound, the link
	 * itself (no mount sits on one) could be re-pointed. */
	*via_link = real && strcmp(real, path) != 0;
	free(real);
	return found;
}

/* One protectedPaths entry inside the writable roots. */
static void clause_protect_one(struct list *l, const char *path, const cf_plan *plan,
                               const cf_clause_facts *f) {
	const cf_protected *e;
	bool via_link = false;
	switch (f->runner) {
	case CONFINE_RUNNER_BWRAP:
	case CONFINE_RUNNER_RUNNER_COMMAND:
		e = bound_entry(plan, path, &via_link);
		if (e && via_link)
			add(l, "protectedPaths", path, CONFINE_CLAUSE_PARTIAL, CONFINE_LAYER_BWRAP, NULL,
			    "a symbolic link on its way (or the path itself) leads to what is bound; the "
			    "link can be re-pointed, as no mount sits on a link");
		else if (!e)
			add(l, "protectedPaths", path, CONFINE_CLAUSE_UNENFORCED, 0, NULL,
			    "it does not exist at the start and nothing stands in for it (an argv for "
			    "another process gets no stand-in), or a symbolic link on its way could be "
			    "re-pointed");
		else if (!f->spawned_here || f->runner != CONFINE_RUNNER_BWRAP)
			/* A mount sits on a name: a save on the host (a rename over it)
			 * detaches it, and nothing of confine's is there to notice. */
			add(l, "protectedPaths", path, CONFINE_CLAUSE_PARTIAL, CONFINE_LAYER_BWRAP, NULL,
			    "held by its name: a save on the host over it detaches the read-only bind, "
			    "and an argv for another process has no spawner of confine's to notice");
		else
			add(l, "protectedPaths", path, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_BWRAP, NULL,
			    e->exists ? NULL
			              : "it does not exist at the start: a stand-in is bound read-only "
			                "for the run (visible on the host until it ends)");
		break;
	case CONFINE_RUNNER_LANDLOCK:
		add(l, "protectedPaths", path, CONFINE_CLAUSE_UNENFORCED, 0, NEEDS_BWRAP,
		    "Landlock cannot keep a path read-only inside a directory it grants writable");
		break;
	case CONFINE_RUNNER_SEATBELT:
		add(l, "protectedPaths", path, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_SEATBELT, NULL, NULL);
		break;
	case CONFINE_RUNNER_NONE:
	default:
		break;
	}
}

static void clause_protections(struct list *l, const confine_policy *p, const cf_plan *plan,
                               const cf_clause_facts *f) {
	char path[PATH_MAX];
	bool any_default = false;
	if (p->mode != CONFINE_MODE_WORKSPACE_WRITE) {
		/* Nothing is writable: every protected path holds by the mode. */
		for (size_t i = 0; p->protected_paths && p->protected_paths[i]; i++)
			add(l, "protectedPaths", p->protected_paths[i], CONFINE_CLAUSE_ENFORCED,
			    mode_layers(f), NULL, NULL);
		return;
	}
	for (size_t i = 0; p->protected_paths && p->protected_paths[i]; i++) {
		const char *pp = p->protected_paths[i];
		if (pp[0] == '/') {
			clause_protect_one(l, pp, plan, f);
			continue;
		}
		for (size_t k = 0; plan->writable[k]; k++)
			if (join(path, sizeof path, plan->writable[k], pp) == 0)
				clause_protect_one(l, path, plan, f);
	}
	if (!p->default_protections)
		return;
	/* The git surface of every repository the bounded walk found (the plan
	 * is bwrap's on every rung, so Landlock names what it leaves open). */
	for (size_t i = 0; i < plan->n_protected; i++) {
		const cf_protected *e = &plan->protected_paths[i];
		if (e->explicit_entry)
			continue;
		any_default = true;
		if (bwrap_shaped(f))
			add(l, "defaultProtections", e->path, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_BWRAP,
			    NULL, e->exists ? NULL : "a stand-in is bound read-only for the run");
		else if (f->runner == CONFINE_RUNNER_LANDLOCK)
			add(l, "defaultProtections", e->path, CONFINE_CLAUSE_UNENFORCED, 0, NEEDS_BWRAP,
			    "Landlock cannot keep a repository's git files read-only inside a writable "
			    "grant: gitHazards reports what the run changes there");
		else
			add(l, "defaultProtections", e->path, CONFINE_CLAUSE_ENFORCED,
			    CONFINE_LAYER_SEATBELT, NULL, NULL);
	}
	if (bwrap_shaped(f) && plan->defaults_unprotected)
		add(l, "defaultProtections", NULL, CONFINE_CLAUSE_UNENFORCED, 0, NULL,
		    "%s", plan->defaults_reason ? plan->defaults_reason
		                                : "part of a repository could not be protected");
	else if (f->runner == CONFINE_RUNNER_LANDLOCK && !any_default)
		/* A repository the run creates is not protected either. */
		add(l, "defaultProtections", NULL, CONFINE_CLAUSE_UNENFORCED, 0, NEEDS_BWRAP,
		    "Landlock keeps no repository's hooks and config read-only, one the run creates "
		    "included: gitHazards reports what the run leaves");
}

static void clause_deny_read(struct list *l, const confine_policy *p, const cf_plan *plan,
                             const cf_clause_facts *f) {
	for (size_t i = 0; p->deny_read && p->deny_read[i]; i++) {
		const char *d = p->deny_read[i];
		char *real = realpath(d, NULL);
		bool exists = real && listed(plan->deny, real);
		bool in_writable = false;
		for (size_t k = 0; exists && plan->writable[k] && !in_writable; k++)
			in_writable = cf_path_at_or_under(real, plan->writable[k]);
		if (!exists) {
			/* Nothing to hide now; but a file made there during the run
			 * (by the host, or by the command) is not hidden: the red
			 * team read one the host created (issue 21). */
			add(l, "denyRead", d, CONFINE_CLAUSE_PARTIAL, 0, NULL,
			    "it does not exist at the start: nothing to hide now, and a file created "
			    "there during the run is not hidden");
		} else if (f->runner == CONFINE_RUNNER_LANDLOCK &&
		           (strcmp(real, "/") == 0 || cf_landlock_under_write_grant(p, plan, real))) {
			add(l, "denyRead", d, CONFINE_CLAUSE_UNENFORCED, 0, NEEDS_BWRAP,
			    "it lies inside a directory Landlock grants writable, and Landlock cannot take "
			    "read access away below a grant");
		} else if (bwrap_shaped(f) && !cf_path_at_or_under(real, "/tmp") &&
		           (in_writable || !(f->layered && f->runner == CONFINE_RUNNER_BWRAP))) {
			/* bwrap masks a name; a save on the host (a rename over it)
			 * detaches the mask, and only the inner Landlock layer, whose
			 * rules follow inodes, keeps the new file out: outside its
			 * write grants. */
			add(l, "denyRead", d, CONFINE_CLAUSE_PARTIAL,
			    CONFINE_LAYER_BWRAP | (f->layered ? CONFINE_LAYER_LANDLOCK : 0), NULL,
			    "held by its name: a save on the host over it (a rename onto the name) "
			    "detaches bwrap's mask, and %s",
			    in_writable ? "it lies inside a writable root, where no Landlock rule can follow"
			                : "an argv without the launcher's Landlock layer has nothing that "
			                  "follows the file");
		} else {
			add(l, "denyRead", d, CONFINE_CLAUSE_ENFORCED,
			    bwrap_shaped(f) ? (CONFINE_LAYER_BWRAP | (f->layered ? CONFINE_LAYER_LANDLOCK : 0))
			                    : mode_layers(f),
			    NULL, NULL);
		}
		free(real);
	}
}

/* With the network off the Landlock rung's launcher runs a proxy that
 * refuses every host where the supervisor and Landlock ABI 4 are there; a
 * TCP socket is then let through to reach it, and the supervisor's connect
 * decision keeps it there. Elsewhere seccomp refuses every family but
 * AF_UNIX alone. */
static unsigned off_proxy_layer(const cf_clause_facts *f) {
	return f->supervisor && f->landlock_abi >= 4 ? CONFINE_LAYER_SUPERVISOR : 0;
}

static void clause_network(struct list *l, const confine_policy *p, const cf_clause_facts *f) {
	unsigned layers;
	if (p->network != CONFINE_NETWORK_OFF) {
		add(l, "network", "on", CONFINE_CLAUSE_ENFORCED, 0, NULL, NULL);
		return;
	}
	if (confine_policy_network_allowlist(p)) {
		/* doc/SPEC.md 15, "Network allowlist": the launcher's proxy the
		 * only way out, which only the supervisor's connect decision
		 * holds (Landlock's TCP rules know ports, not addresses). */
		if ((f->runner == CONFINE_RUNNER_LANDLOCK || allowlist_in_bwrap(p, f)) &&
		    f->supervisor && f->landlock_abi >= 4)
			add(l, "network", "allowlist", CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_SUPERVISOR,
			    NULL,
			    "only the launcher's proxy is reachable (the supervisor decides connect by "
			    "address; Landlock allows its TCP port only; seccomp refuses other "
			    "families); the proxy checks each name");
		else if (f->runner == CONFINE_RUNNER_LANDLOCK || allowlist_in_bwrap(p, f))
			add(l, "network", "allowlist", CONFINE_CLAUSE_UNENFORCED, 0,
			    "seccomp user notification and Landlock ABI 4",
			    "without the supervisor deciding connect by address the allowlist cannot "
			    "hold: the network is off instead (no host is reachable)");
		else
			add(l, "network", "allowlist", CONFINE_CLAUSE_UNENFORCED, 0,
			    f->runner == CONFINE_RUNNER_BWRAP
			            ? "the launcher inside bubblewrap"
			            : "the landlock runner (confine --runner landlock)",
			    "this argv has no proxy: the network is off instead (no host is "
			    "reachable)");
		return;
	}
	switch (f->runner) {
	case CONFINE_RUNNER_BWRAP:
		/* A namespace of its own (the refusing proxy lives in it); the
		 * launcher inside refuses families too. */
		layers = CONFINE_LAYER_BWRAP | (f->layered ? CONFINE_LAYER_SECCOMP : 0);
		break;
	case CONFINE_RUNNER_LANDLOCK:
		layers = CONFINE_LAYER_SECCOMP | off_proxy_layer(f);
		break;
	case CONFINE_RUNNER_SEATBELT:
	case CONFINE_RUNNER_RUNNER_COMMAND:
	case CONFINE_RUNNER_NONE:
	default:
		layers = mode_layers(f);
		break;
	}
	add(l, "network", "off", CONFINE_CLAUSE_ENFORCED, layers, NULL, NULL);
}

static void clause_unix_sockets(struct list *l, const confine_policy *p, const cf_clause_facts *f) {
	confine_clause_status status = CONFINE_CLAUSE_ENFORCED;
	unsigned layers = 0;
	const char *needs = NULL, *reason = NULL;
	if (has_launcher(f) && f->supervisor) {
		layers = CONFINE_LAYER_SUPERVISOR | (f->runner == CONFINE_RUNNER_BWRAP ? CONFINE_LAYER_BWRAP : 0);
	} else if (f->runner == CONFINE_RUNNER_SEATBELT) {
		layers = CONFINE_LAYER_SEATBELT;
	} else {
		status = CONFINE_CLAUSE_UNENFORCED;
		if (bwrap_shaped(f)) {
			reason = "a socket another program made under a read-only bind (/run, /var/run) "
			         "is reachable: only the launcher's supervisor decides connects";
			needs = "the launcher inside bubblewrap";
		} else {
			reason = "the launcher's supervisor cannot run here (seccomp user notification)";
			needs = "seccomp user notification";
		}
	}
	add(l, "unix-sockets", NULL, status, layers, needs, reason ? "%s" : NULL, reason);
	for (size_t i = 0; p->allow_unix_sockets && p->allow_unix_sockets[i]; i++)
		add(l, "allowUnixSockets", p->allow_unix_sockets[i], status, layers, needs,
		    reason ? "%s" : NULL, reason);
}

static void clause_temp(struct list *l, const confine_policy *p, const cf_clause_facts *f) {
	bool ww = p->mode == CONFINE_MODE_WORKSPACE_WRITE;
	if (!ww && !p->private_temp) {
		add(l, "privateTemp", NULL, CONFINE_CLAUSE_ENFORCED, 0, NULL,
		    "none: privateTemp is off, so the command has no writable temp area");
		return;
	}
	switch (f->runner) {
	case CONFINE_RUNNER_BWRAP:
	case CONFINE_RUNNER_RUNNER_COMMAND:
		add(l, "privateTemp", "/tmp", CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_BWRAP, NULL, NULL);
		break;
	case CONFINE_RUNNER_SEATBELT:
	case CONFINE_RUNNER_LANDLOCK: {
		/* Issue 21: the temp area is the run's own directory, never the
		 * host's /tmp. workspace-write on Landlock also grants the host's
		 * /dev/shm (POSIX semaphores), shared: a gap, stated. */
		struct stat st;
		bool shm = ww && f->runner == CONFINE_RUNNER_LANDLOCK && stat("/dev/shm", &st) == 0 &&
		           S_ISDIR(st.st_mode);
		const char *gap = shm ? "; the host's /dev/shm is granted writable too (POSIX "
		                        "semaphores) and shared with other programs: their shared-memory "
		                        "files there are the command's to touch (no socket there is "
		                        "reached)"
		                      : "";
		confine_clause_status status = shm ? CONFINE_CLAUSE_PARTIAL : CONFINE_CLAUSE_ENFORCED;
		if (ww && f->runner == CONFINE_RUNNER_SEATBELT) {
			add(l, "privateTemp", "/tmp", CONFINE_CLAUSE_UNENFORCED, 0, NEEDS_BWRAP,
			    "the host's /tmp and the per-user temp directory are granted writable and "
			    "shared with other programs: their files are the command's to touch");
			break;
		}
		if (p->temp_dir && !ww && f->runner == CONFINE_RUNNER_LANDLOCK)
			/* No private /dev/shm without a mount namespace: read-only
			 * grants none, so POSIX semaphores fail here (bwrap has its own). */
			add(l, "privateTemp", p->temp_dir, status, mode_layers(f) | CONFINE_LAYER_LIBRARY,
			    NULL,
			    "the run's own directory; no /dev/shm (the host's is shared, and read-only "
			    "grants none): POSIX shared memory and semaphores (Python multiprocessing) "
			    "fail read-only here, not on bubblewrap");
		else if (p->temp_dir)
			add(l, "privateTemp", p->temp_dir, status, mode_layers(f) | CONFINE_LAYER_LIBRARY,
			    shm ? NEEDS_BWRAP : NULL, shm ? "the run's own directory%s" : NULL, gap);
		else
			add(l, "privateTemp", NULL, status, 0, shm ? NEEDS_BWRAP : NULL,
			    "none: an argv for another process to spawn has no temp area (a writable "
			    "root can serve as one)%s",
			    gap);
		break;
	}
	case CONFINE_RUNNER_NONE:
	default:
		break;
	}
}

/* Whether this host lets an unprivileged process make a user namespace
 * (the staged run's overlay needs one). */
static bool host_allows_userns(void) {
	char buf[32];
	FILE *f;
	bool allowed = true;
	if ((f = fopen("/proc/sys/user/max_user_namespaces", "re"))) {
		allowed = fgets(buf, sizeof buf, f) && atol(buf) > 0;
		fclose(f);
	} else {
		allowed = false; /* not Linux, or no /proc: nothing says it can */
	}
	if (allowed && (f = fopen("/proc/sys/kernel/unprivileged_userns_clone", "re"))) {
		allowed = fgets(buf, sizeof buf, f) && atol(buf) != 0;
		fclose(f);
	}
	return allowed;
}

/* A staged run (doc/SPEC.md 21): the launcher's overlay, in a user
 * namespace of its own, on both Linux rungs; nothing else holds it. */
static void clause_stage(struct list *l, const confine_policy *p, const cf_clause_facts *f) {
	if (!p->stage_dir || p->mode != CONFINE_MODE_WORKSPACE_WRITE)
		return;
	if (!has_launcher(f))
		add(l, "stage", p->stage_dir, CONFINE_CLAUSE_UNENFORCED, 0, "the launcher (landlock-run)",
		    "this rung has no launcher to mount the overlay: writes would reach the real tree");
	else if (!host_allows_userns())
		add(l, "stage", p->stage_dir, CONFINE_CLAUSE_UNENFORCED, 0,
		    "unprivileged user namespaces (user.max_user_namespaces)",
		    "the host allows no user namespace for the overlay: writes would reach the real "
		    "tree");
	else
		add(l, "stage", p->stage_dir, CONFINE_CLAUSE_ENFORCED, mode_layers(f), NULL,
		    "overlayfs, mounted by the launcher in a mount namespace of its own: writes land in the stage");
}

/* The mechanisms every confined run has, beyond the file rules. */
static void clause_mechanisms(struct list *l, const confine_policy *p, const cf_clause_facts *f) {
	bool ww = p->mode == CONFINE_MODE_WORKSPACE_WRITE;
	bool supervised = has_launcher(f) && f->supervisor;
	int abi = f->landlock_abi;

	/* metadata: chmod, chown, utimes and xattrs outside the writable roots. */
	if (bwrap_shaped(f))
		add(l, "metadata", NULL, CONFINE_CLAUSE_ENFORCED,
		    mode_layers(f) & ~CONFINE_LAYER_LANDLOCK, NULL, NULL);
	else if (f->runner == CONFINE_RUNNER_SEATBELT)
		add(l, "metadata", NULL, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_SEATBELT, NULL, NULL);
	else if (supervised)
		add(l, "metadata", NULL, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_SUPERVISOR, NULL, NULL);
	else
		add(l, "metadata", NULL, CONFINE_CLAUSE_UNENFORCED, 0, NEEDS_BWRAP,
		    "Landlock does not restrict chmod, chown, utimes or xattrs, and the supervisor "
		    "cannot run here");

	/* setid: no set-user/group-ID file made where the command may write. */
	if (!ww)
		add(l, "setid", NULL, CONFINE_CLAUSE_ENFORCED, mode_layers(f), NULL, NULL);
	else if (supervised)
		add(l, "setid", NULL, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_SUPERVISOR, NULL, NULL);
	else
		add(l, "setid", NULL, CONFINE_CLAUSE_UNENFORCED, 0,
		    bwrap_shaped(f) ? "the launcher inside bubblewrap" : NULL,
		    "a set-ID bit on a file in a writable root is not refused: the file keeps it "
		    "after the run");

	/* devices: no device node made (capabilities dropped; the supervisor's
	 * filter refuses mknod of one). */
	if (bwrap_shaped(f))
		add(l, "devices", NULL, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_BWRAP, NULL, NULL);
	else if (f->runner == CONFINE_RUNNER_SEATBELT)
		add(l, "devices", NULL, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_SEATBELT, NULL, NULL);
	else
		add(l, "devices", NULL, CONFINE_CLAUSE_ENFORCED,
		    CONFINE_LAYER_LANDLOCK | (supervised ? CONFINE_LAYER_SUPERVISOR : 0), NULL, NULL);

	if (f->runner == CONFINE_RUNNER_SEATBELT)
		return;
	/* signals: no signal reaches a process outside the run. */
	if (bwrap_shaped(f))
		add(l, "signals", NULL, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_BWRAP, NULL, NULL);
	else if (abi >= ABI_SCOPES)
		add(l, "signals", NULL, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_LANDLOCK, NULL, NULL);
	else
		add(l, "signals", NULL, CONFINE_CLAUSE_UNENFORCED, 0, "Landlock ABI 6 or " NEEDS_BWRAP,
		    "Landlock ABI %d has no signal scope: the command can signal the caller's other "
		    "processes",
		    abi);

	/* abstract-unix-sockets: no abstract socket of the host reachable. */
	if (bwrap_shaped(f) && p->network == CONFINE_NETWORK_OFF && !allowlist_in_bwrap(p, f))
		add(l, "abstract-unix-sockets", NULL, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_BWRAP, NULL,
		    NULL);
	else if (has_launcher(f) && abi >= ABI_SCOPES)
		add(l, "abstract-unix-sockets", NULL, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_LANDLOCK, NULL,
		    NULL);
	else
		add(l, "abstract-unix-sockets", NULL, CONFINE_CLAUSE_UNENFORCED, 0,
		    bwrap_shaped(f) ? "the launcher inside bubblewrap with Landlock ABI 6"
		                    : "Landlock ABI 6 or " NEEDS_BWRAP,
		    "the host's abstract unix sockets (X11, D-Bus) are reachable with the network on");
}

/* "needs" for a limit a cgroup of the run's own would hold. */
#define NEEDS_CGROUP "a cgroup of the run's own (cgroup v2 delegated to the user, or a writable " \
                     "cgroup v1 hierarchy as root) for a run confine spawns"

/* The limits (doc/SPEC.md 15, "Limits"): the run's cgroup where it holds
 * one (pids, memory), else the launcher's rlimits with their gaps, else
 * nothing. The default process limit is listed only where the cgroup
 * holds it (it is applied nowhere else). */
static void clause_limits(struct list *l, const confine_policy *p, const cf_clause_facts *f) {
	bool launcher = has_launcher(f);
	for (unsigned i = 0; i < CONFINE_LIMIT_COUNT; i++) {
		confine_limit limit = (confine_limit)i;
		const cf_limit_def *d = cf_limit_def_of(limit);
		bool cgroup = (f->cgroup_holds & (1u << i)) != 0;
		char clause[64], value[64];
		if (!p->limits[i])
			continue;
		if (limit == CONFINE_LIMIT_PIDS && !cf_limit_requested(p, limit) && !cgroup)
			continue;
		snprintf(clause, sizeof clause, "limits.%s", d->key);
		confine_limit_format(limit, p->limits[i], value, sizeof value);
		if (cgroup) {
			add(l, clause, value, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_CGROUP, NULL,
			    "the run's own cgroup (%s)", f->cgroup_kind ? f->cgroup_kind : "cgroup");
			continue;
		}
		if (limit == CONFINE_LIMIT_TEMP) {
			if (bwrap_shaped(f))
				add(l, clause, value, CONFINE_CLAUSE_UNENFORCED, 0,
				    "bubblewrap 0.9 (--size for its /tmp)",
				    "bwrap's /tmp is a tmpfs without a size (half of RAM, host memory)");
			else
				add(l, clause, value, CONFINE_CLAUSE_UNENFORCED, 0,
				    "a temp area of the run's own filesystem (a sized tmpfs)",
				    "the temp area is a directory on the host's filesystem");
			continue;
		}
		if (!launcher) {
			add(l, clause, value, CONFINE_CLAUSE_UNENFORCED, 0,
			    limit == CONFINE_LIMIT_PIDS || limit == CONFINE_LIMIT_MEMORY
			            ? NEEDS_CGROUP
			            : (bwrap_shaped(f) ? "the launcher inside bubblewrap" : "the launcher"),
			    "no launcher sets the command's resource limits on this rung");
			continue;
		}
		switch (limit) {
		case CONFINE_LIMIT_PIDS:
			if (f->root)
				add(l, clause, value, CONFINE_CLAUSE_UNENFORCED, 0, NEEDS_CGROUP,
				    "RLIMIT_NPROC, the only bound without a cgroup, does not bind root");
			else
				add(l, clause, value, CONFINE_CLAUSE_PARTIAL, CONFINE_LAYER_RLIMIT, NEEDS_CGROUP,
				    "RLIMIT_NPROC counts every process of the user, the run's and the "
				    "user's others alike");
			break;
		case CONFINE_LIMIT_MEMORY:
			add(l, clause, value, CONFINE_CLAUSE_PARTIAL, CONFINE_LAYER_RLIMIT, NEEDS_CGROUP,
			    "RLIMIT_AS bounds each process's address space, not the run's total (a runtime "
			    "that reserves address space, V8 or Go, may fail under it)");
			break;
		case CONFINE_LIMIT_CPU_SECONDS:
			add(l, clause, value, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_RLIMIT, NULL,
			    "RLIMIT_CPU: each process's CPU time (SIGXCPU, then SIGKILL a second later)");
			break;
		case CONFINE_LIMIT_FILE_SIZE:
			add(l, clause, value, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_RLIMIT, NULL,
			    "RLIMIT_FSIZE: a write past it fails with EFBIG");
			break;
		case CONFINE_LIMIT_OPEN_FILES:
			add(l, clause, value, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_RLIMIT, NULL,
			    "RLIMIT_NOFILE: descriptors per process");
			break;
		case CONFINE_LIMIT_TEMP:
		default:
			break;
		}
	}
}

/* A pattern: what it matched at the start is listed path by path (as
 * literal entries); what it would match later is not covered. */
static void clause_patterns(struct list *l, const char *key, const cf_pattern_report *reports,
                            size_t n, const cf_clause_facts *f) {
	for (size_t i = 0; i < n; i++) {
		const cf_pattern_report *p = &reports[i];
		if (strcmp(p->key, key) != 0)
			continue;
		add(l, key, p->pattern, CONFINE_CLAUSE_PARTIAL,
		    bwrap_shaped(f) ? (mode_layers(f) & ~CONFINE_LAYER_LANDLOCK) : mode_layers(f),
		    NULL,
		    "expanded at the start: %zu match%s, each its own clause%s; a match made during "
		    "the run is not covered",
		    p->matches, p->matches == 1 ? "" : "es",
		    p->incomplete ? " (the scan stopped at its bound: some may be missing)" : "");
	}
}

int cf_clauses_make(const confine_policy *policy, const cf_clause_facts *facts,
                    confine_clause **ret, size_t *n) {
	struct list l = { 0 };
	confine_policy *expanded = NULL;
	cf_pattern_report *reports = NULL;
	size_t n_reports = 0;
	cf_plan plan;
	int r;
	if (!policy || !facts || !ret || !n)
		return -EINVAL;
	if (!confine_mode_is_confined(policy->mode))
		return -EINVAL;
	if ((r = cf_patterns_expand(policy, &expanded, &reports, &n_reports)) < 0)
		return r;
	/* bwrap's plan on every rung: what bwrap holds, and on the others
	 * the repositories whose git surface they leave open. */
	if ((r = cf_plan_make(expanded ? expanded : policy,
	                      CF_PLAN_BWRAP | (facts->runner == CONFINE_RUNNER_BWRAP && facts->spawned_here
	                                               ? CF_PLAN_PLACEHOLDERS
	                                               : 0),
	                      &plan)) < 0) {
		cf_pattern_reports_free(reports, n_reports);
		if (expanded) {
			cf_policy_clear(expanded);
			free(expanded);
		}
		return r;
	}
	clause_mode(&l, policy, facts);
	clause_patterns(&l, "protectedPaths", reports, n_reports, facts);
	clause_protections(&l, expanded ? expanded : policy, &plan, facts);
	clause_patterns(&l, "denyRead", reports, n_reports, facts);
	clause_deny_read(&l, expanded ? expanded : policy, &plan, facts);
	cf_pattern_reports_free(reports, n_reports);
	if (expanded) {
		cf_policy_clear(expanded);
		free(expanded);
	}
	clause_network(&l, policy, facts);
	clause_unix_sockets(&l, policy, facts);
	add(&l, "env", NULL, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_LIBRARY, NULL, NULL);
	clause_temp(&l, policy, facts);
	clause_stage(&l, policy, facts);
	clause_mechanisms(&l, policy, facts);
	clause_limits(&l, policy, facts);
	cf_plan_clear(&plan);
	if (l.oom) {
		cf_clauses_free(l.items, l.n);
		return -ENOMEM;
	}
	*ret = l.items;
	*n = l.n;
	return 0;
}

int cf_clauses_drop_layers(confine_clause *clauses, size_t n, unsigned layers, const char *reason) {
	for (size_t i = 0; i < n; i++) {
		confine_clause *c = &clauses[i];
		if (!(c->layers & layers))
			continue;
		c->layers &= ~layers;
		if (c->layers == 0 && c->status != CONFINE_CLAUSE_UNENFORCED) {
			char *copy = strdup(reason);
			if (!copy)
				return -ENOMEM;
			free(c->reason);
			c->reason = copy;
			c->status = CONFINE_CLAUSE_UNENFORCED;
		}
	}
	return 0;
}

int cf_clauses_unenforced(const confine_clause *clauses, size_t n, char ***ret) {
	char **names = NULL;
	for (size_t i = 0; i < n; i++) {
		if (clauses[i].status == CONFINE_CLAUSE_ENFORCED || listed(names, clauses[i].clause))
			continue;
		if (cf_strv_push(&names, clauses[i].clause) < 0) {
			confine_strv_free(names);
			return -ENOMEM;
		}
	}
	*ret = names;
	return 0;
}

void cf_clauses_describe_unenforced(const confine_clause *clauses, size_t n, char *out,
                                    size_t size) {
	size_t len = 0;
	bool first = true;
	if (size)
		out[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++) {
		bool seen = false, any_subject = false;
		if (clauses[i].status == CONFINE_CLAUSE_ENFORCED)
			continue;
		for (size_t k = 0; k < i && !seen; k++)
			seen = clauses[k].status != CONFINE_CLAUSE_ENFORCED &&
			       strcmp(clauses[k].clause, clauses[i].clause) == 0;
		if (seen)
			continue;
		len += (size_t)snprintf(out + len, size - len, "%s%s", first ? "" : ", ",
		                        clauses[i].clause);
		first = false;
		for (size_t k = i; k < n && len < size; k++) {
			/* a subject names what is not held; without one, the reason
			 * says why (the walk's budget, a symbolic link, ...) */
			const char *what = clauses[k].subject ? clauses[k].subject : clauses[k].reason;
			if (clauses[k].status == CONFINE_CLAUSE_ENFORCED || !what ||
			    strcmp(clauses[k].clause, clauses[i].clause) != 0)
				continue;
			len += (size_t)snprintf(out + len, size - len, "%s%s", any_subject ? ", " : " (",
			                        what);
			any_subject = true;
		}
		if (any_subject && len < size)
			len += (size_t)snprintf(out + len, size - len, ")");
	}
}

bool cf_clauses_all_enforced(const confine_clause *clauses, size_t n) {
	for (size_t i = 0; i < n; i++)
		if (clauses[i].status != CONFINE_CLAUSE_ENFORCED)
			return false;
	return true;
}

static int dup_or_null(const char *s, char **out) {
	*out = NULL;
	return s && !(*out = strdup(s)) ? -ENOMEM : 0;
}

int cf_clauses_copy(const confine_clause *clauses, size_t n, confine_clause **ret) {
	confine_clause *c;
	*ret = NULL;
	if (n == 0)
		return 0;
	if (!(c = calloc(n, sizeof *c)))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		c[i].status = clauses[i].status;
		c[i].layers = clauses[i].layers;
		if (dup_or_null(clauses[i].clause, &c[i].clause) < 0 ||
		    dup_or_null(clauses[i].subject, &c[i].subject) < 0 ||
		    dup_or_null(clauses[i].reason, &c[i].reason) < 0 ||
		    dup_or_null(clauses[i].needs, &c[i].needs) < 0) {
			cf_clauses_free(c, n);
			return -ENOMEM;
		}
	}
	*ret = c;
	return 0;
}

static void clause_clear(confine_clause *c) {
	free(c->clause);
	free(c->subject);
	free(c->reason);
	free(c->needs);
}

void cf_clauses_free(confine_clause *clauses, size_t n) {
	for (size_t i = 0; clauses && i < n; i++)
		clause_clear(&clauses[i]);
	free(clauses);
}
