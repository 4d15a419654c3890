/* SPDX-License-Identifier: MIT */
/* The clause engine (clauses.h, doc/SPEC.md 15): the clauses of the run's
 * mechanisms (network, sockets, temp, stage, scopes, limits), reading the
 * rung's clause table (cf_rung_holds, rung.h). */
#include "rungs/clauses-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policy-internal.h"
#include "policy-limits.h"

#define add cf_clause_add

/* With the network off the launcher runs a proxy that refuses every host
 * where the supervisor and Landlock ABI 4 are there; a TCP socket is then
 * let through to reach it, and the supervisor's connect decision keeps it
 * there. Elsewhere seccomp refuses every family but AF_UNIX alone. */
static unsigned off_proxy_layer(const cf_clause_facts *f) {
	return f->supervisor && f->landlock_abi >= CF_ABI_NET ? CONFINE_LAYER_SUPERVISOR : 0;
}

void cf_clause_network(struct cf_clause_list *l, const confine_policy *p) {
	const cf_clause_facts *f = l->f;
	unsigned layers;
	if (p->network != CONFINE_NETWORK_OFF) {
		add(l, "network", "on", CONFINE_CLAUSE_ENFORCED, 0, NULL, NULL);
		return;
	}
	if (confine_policy_network_allowlist(p)) {
		/* doc/SPEC.md 15, "Network allowlist": the launcher's proxy the
		 * only way out, which only the supervisor's connect decision
		 * holds (Landlock's TCP rules know ports, not addresses). */
		if (cf_clause_has_launcher(l) && f->supervisor && f->landlock_abi >= CF_ABI_NET)
			add(l, "network", "allowlist", CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_SUPERVISOR,
			    NULL,
			    "only the launcher's proxy is reachable (the supervisor decides connect by "
			    "address; Landlock allows its TCP port only; seccomp refuses other "
			    "families); the proxy checks each name");
		else if (cf_clause_has_launcher(l))
			add(l, "network", "allowlist", CONFINE_CLAUSE_UNENFORCED, 0,
			    "seccomp user notification and Landlock ABI 4",
			    "without the supervisor deciding connect by address the allowlist cannot "
			    "hold: the network is off instead (no host is reachable)");
		else
			add(l, "network", "allowlist", CONFINE_CLAUSE_UNENFORCED, 0, l->h->allowlist_needs,
			    "this argv has no proxy: the network is off instead (no host is "
			    "reachable)");
		return;
	}
	/* The launcher's seccomp filter (--deny-network) and its refusing
	 * proxy, or the rung's own layer: a launcher inside a rung that cuts
	 * the network itself is given the network on (no filter there). */
	if (l->h->network_off_by_launcher)
		layers = CONFINE_LAYER_SECCOMP | off_proxy_layer(f);
	else
		layers = l->h->layer;
	add(l, "network", "off", CONFINE_CLAUSE_ENFORCED, layers, NULL, NULL);
}

void cf_clause_unix_sockets(struct cf_clause_list *l, const confine_policy *p) {
	confine_clause_status status = CONFINE_CLAUSE_ENFORCED;
	unsigned layers = 0;
	const char *needs = NULL, *reason = NULL;
	if (cf_clause_has_launcher(l) && l->f->supervisor) {
		layers = CONFINE_LAYER_SUPERVISOR | l->h->unix_with_supervisor;
	} else if (l->h->unix_alone) {
		layers = l->h->unix_alone;
	} else {
		status = CONFINE_CLAUSE_UNENFORCED;
		reason = l->h->unix_gap.why;
		needs = l->h->unix_gap.needs;
	}
	add(l, "unix-sockets", NULL, status, layers, needs, reason ? "%s" : NULL, reason);
	for (size_t i = 0; p->allow_unix_sockets && p->allow_unix_sockets[i]; i++)
		add(l, "allowUnixSockets", p->allow_unix_sockets[i], status, layers, needs,
		    reason ? "%s" : NULL, reason);
}

/* Issue 21: without a mount namespace the temp area is the run's own
 * directory, never the host's /tmp. workspace-write on a rung that grants
 * the host's /dev/shm (POSIX semaphores), shared: a gap, stated. */
static bool host_allows_userns(void);

/* The rung grants the host's /dev/shm (Landlock's workspace-write), and
 * the launcher does not make it a private sized tmpfs (--private-shm with
 * limits.temp: cf_policy_private_shm, where the temp area itself is sized
 * in a namespace of its own; limit_temp's other branches say when not). */
static bool host_shm_granted(const struct cf_clause_list *l, const confine_policy *p) {
	struct stat st;
	if (p->mode != CONFINE_MODE_WORKSPACE_WRITE || !l->h->host_dev_shm ||
	    stat("/dev/shm", &st) < 0 || !S_ISDIR(st.st_mode))
		return false;
	return !(l->h->limit_temp_sized && l->h->limit_temp_own_dir && cf_clause_has_launcher(l) &&
	         (l->f->root || host_allows_userns()) && cf_policy_private_shm(p));
}

static void temp_run_dir(struct cf_clause_list *l, const confine_policy *p, bool ww) {
	const cf_rung_holds *h = l->h;
	bool shm = ww && host_shm_granted(l, p);
	const char *gap = shm ? "; the host's /dev/shm is granted writable too (POSIX "
	                        "semaphores) and shared with other programs: their shared-memory "
	                        "files there are the command's to touch (no socket there is "
	                        "reached), and files the command leaves there outlive the run"
	                      : "";
	confine_clause_status status = shm ? CONFINE_CLAUSE_PARTIAL : CONFINE_CLAUSE_ENFORCED;
	unsigned layers = cf_clause_mode_layers(l) | CONFINE_LAYER_LIBRARY;
	if (ww && h->temp_shared_gap.why)
		add(l, "privateTemp", "/tmp", CONFINE_CLAUSE_UNENFORCED, 0, h->temp_shared_gap.needs,
		    "%s", h->temp_shared_gap.why);
	else if (p->temp_dir && !ww && h->host_dev_shm)
		/* No private /dev/shm without a mount namespace: read-only
		 * grants none, so POSIX semaphores fail here. */
		add(l, "privateTemp", p->temp_dir, status, layers, NULL,
		    "the run's own directory; no /dev/shm (the host's is shared, and read-only "
		    "grants none): POSIX shared memory and semaphores (Python multiprocessing) "
		    "fail read-only here, not on bubblewrap");
	else if (p->temp_dir)
		add(l, "privateTemp", p->temp_dir, status, layers, shm ? h->temp_shared_gap.needs : NULL,
		    shm ? "the run's own directory%s" : NULL, gap);
	else
		add(l, "privateTemp", NULL, status, 0, shm ? h->temp_shared_gap.needs : NULL,
		    "none: an argv for another process to spawn has no temp area (a writable "
		    "root can serve as one)%s",
		    gap);
}

void cf_clause_temp(struct cf_clause_list *l, const confine_policy *p) {
	bool ww = p->mode == CONFINE_MODE_WORKSPACE_WRITE;
	if (!ww && !p->private_temp)
		add(l, "privateTemp", NULL, CONFINE_CLAUSE_ENFORCED, 0, NULL,
		    "none: privateTemp is off, so the command has no writable temp area");
	else if (l->h->temp == CF_RUNG_TEMP_TMPFS)
		add(l, "privateTemp", "/tmp", CONFINE_CLAUSE_ENFORCED, l->h->binds_layer, NULL, NULL);
	else
		temp_run_dir(l, p, ww);
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

/* A staged run (doc/SPEC.md 21): the launcher's overlay on both Linux
 * rungs, each said as the rung holds it (stage_how); nothing else holds it
 * (no copy-on-write fallback through the supervisor yet): refused, never
 * written through. */
void cf_clause_stage(struct cf_clause_list *l, const confine_policy *p) {
	if (!p->stage_dir || p->mode != CONFINE_MODE_WORKSPACE_WRITE)
		return;
	if (!cf_clause_has_launcher(l))
		add(l, "stage", p->stage_dir, CONFINE_CLAUSE_UNENFORCED, 0, "the launcher (landlock-run)",
		    "this rung has no launcher to mount the overlay: writes would reach the real tree");
	else if (!host_allows_userns())
		add(l, "stage", p->stage_dir, CONFINE_CLAUSE_UNENFORCED, 0,
		    "unprivileged user namespaces (user.max_user_namespaces)",
		    "the host allows no user namespace for the overlay, and there is no copy-on-write "
		    "fallback: writes would reach the real tree");
	else
		add(l, "stage", p->stage_dir, CONFINE_CLAUSE_ENFORCED, cf_clause_mode_layers(l), NULL,
		    "%s", l->h->stage_how ? l->h->stage_how
		                          : "overlayfs, mounted by the launcher in a namespace of its "
		                            "own: writes land in the stage");
}

/* signals and abstract-unix-sockets: the rung's namespaces, or Landlock's
 * scopes (ABI 6) in the launcher. */
static void clause_scopes(struct cf_clause_list *l, const confine_policy *p) {
	const cf_rung_holds *h = l->h;
	int abi = l->f->landlock_abi;
	if (!h->scopes)
		return;
	/* signals: no signal reaches a process outside the run. */
	if (h->signals)
		add(l, "signals", NULL, CONFINE_CLAUSE_ENFORCED, h->signals, NULL, NULL);
	else if (abi >= CF_ABI_SCOPES)
		add(l, "signals", NULL, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_LANDLOCK, NULL, NULL);
	else
		add(l, "signals", NULL, CONFINE_CLAUSE_UNENFORCED, 0, h->signals_needs,
		    "Landlock ABI %d has no signal scope: the command can signal the caller's other "
		    "processes",
		    abi);

	/* abstract-unix-sockets: no abstract socket of the host reachable. A
	 * network namespace of the rung's own cuts them with the network off,
	 * unless the launcher hosts the allowlist (the host's namespace kept). */
	if (h->abstract_off && p->network == CONFINE_NETWORK_OFF &&
	    !(confine_policy_network_allowlist(p) && cf_clause_has_launcher(l)))
		add(l, "abstract-unix-sockets", NULL, CONFINE_CLAUSE_ENFORCED, h->abstract_off, NULL,
		    NULL);
	else if (cf_clause_has_launcher(l) && abi >= CF_ABI_SCOPES)
		add(l, "abstract-unix-sockets", NULL, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_LANDLOCK, NULL,
		    NULL);
	else
		add(l, "abstract-unix-sockets", NULL, CONFINE_CLAUSE_UNENFORCED, 0, h->abstract_needs,
		    "the host's abstract unix sockets (X11, D-Bus) are reachable with the network on");
}

/* The mechanisms every confined run has, beyond the file rules. */
void cf_clause_mechanisms(struct cf_clause_list *l, const confine_policy *p) {
	const cf_rung_holds *h = l->h;
	bool ww = p->mode == CONFINE_MODE_WORKSPACE_WRITE;
	bool supervised = cf_clause_has_launcher(l) && l->f->supervisor;

	/* metadata: chmod, chown, utimes and xattrs outside the writable roots. */
	if (h->metadata)
		add(l, "metadata", NULL, CONFINE_CLAUSE_ENFORCED, h->metadata, NULL, NULL);
	else if (supervised)
		add(l, "metadata", NULL, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_SUPERVISOR, NULL, NULL);
	else
		add(l, "metadata", NULL, CONFINE_CLAUSE_UNENFORCED, 0, h->metadata_gap.needs, "%s",
		    h->metadata_gap.why);

	/* setid: no set-user/group-ID file made where the command may write. */
	if (!ww)
		add(l, "setid", NULL, CONFINE_CLAUSE_ENFORCED, cf_clause_mode_layers(l), NULL, NULL);
	else if (supervised)
		add(l, "setid", NULL, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_SUPERVISOR, NULL, NULL);
	else
		add(l, "setid", NULL, CONFINE_CLAUSE_UNENFORCED, 0, h->launcher_needs,
		    "a set-ID bit on a file in a writable root is not refused: the file keeps it "
		    "after the run");

	/* devices: no device node made (capabilities dropped; the supervisor's
	 * filter refuses mknod of one). */
	add(l, "devices", NULL, CONFINE_CLAUSE_ENFORCED,
	    h->devices | (h->devices_supervisor && supervised ? CONFINE_LAYER_SUPERVISOR : 0), NULL,
	    NULL);

	clause_scopes(l, p);
}

#define NEEDS_CGROUP "a cgroup of the run's own (cgroup v2 delegated to the user, or a writable " \
                     "cgroup v1 hierarchy as root) for a run confine spawns"

/* limits.temp: the launcher's sized tmpfs over the temp area (temp-mount.c)
 * where the rung has one and a launcher runs, the run has a temp area of
 * its own where the rung needs one, and a caller without CAP_SYS_ADMIN
 * may make a user namespace; else unenforced, naming what would hold it. */
static void limit_temp(struct cf_clause_list *l, const confine_policy *p, const char *clause,
                       const char *value) {
	const cf_rung_holds *h = l->h;
	if (p->mode != CONFINE_MODE_WORKSPACE_WRITE && !p->private_temp)
		add(l, clause, value, CONFINE_CLAUSE_ENFORCED, 0, NULL,
		    "none: privateTemp is off, so the command has no writable temp area");
	else if (!h->limit_temp_sized || !cf_clause_has_launcher(l))
		add(l, clause, value, CONFINE_CLAUSE_UNENFORCED, 0, h->limit_temp_gap.needs, "%s",
		    h->limit_temp_gap.why);
	else if (h->limit_temp_own_dir && !p->temp_dir)
		add(l, clause, value, CONFINE_CLAUSE_UNENFORCED, 0,
		    "a run confine spawns (its private temp directory)",
		    "an argv for another process to spawn has no temp area of its own to size");
	else if (h->limit_temp_own_dir && !l->f->root && !host_allows_userns())
		add(l, clause, value, CONFINE_CLAUSE_UNENFORCED, 0,
		    "unprivileged user namespaces (user.max_user_namespaces)",
		    "the launcher needs a mount namespace for a sized tmpfs: the temp area is a "
		    "directory on the host's filesystem");
	else if (host_shm_granted(l, p))
		/* F6: the host's /dev/shm is the second temp area, and no mount
		 * sizes it (section 7, "/dev/shm on Landlock"). */
		add(l, clause, value, CONFINE_CLAUSE_PARTIAL, h->limit_temp_sized, "bubblewrap",
		    "a tmpfs of that size mounted by the launcher over the temp area%s: filling it "
		    "fails with ENOSPC; the host's /dev/shm, granted writable too, is not sized: "
		    "files the command leaves there escape the limit and outlive the run",
		    h->limit_temp_own_dir ? " (the run's own directory, in a mount namespace of its own)"
		                          : " (bwrap's /tmp)");
	else
		add(l, clause, value, CONFINE_CLAUSE_ENFORCED, h->limit_temp_sized, NULL,
		    "a tmpfs of that size mounted by the launcher over the temp area%s: filling it "
		    "fails with ENOSPC",
		    h->limit_temp_own_dir ? " (the run's own directory, in a mount namespace of its own)"
		                          : " (bwrap's /tmp)");
}

/* The limits (doc/SPEC.md 15, "Limits"): the run's cgroup where it holds
 * one (pids, memory), else the launcher's rlimits with their gaps, else
 * nothing. The default process limit is listed only where the cgroup
 * holds it (it is applied nowhere else). */
void cf_clause_limits(struct cf_clause_list *l, const confine_policy *p) {
	const cf_clause_facts *f = l->f;
	bool launcher = cf_clause_has_launcher(l);
	for (unsigned i = 0; i < CONFINE_LIMIT_COUNT; i++) {
		confine_limit limit = (confine_limit)i;
		const cf_limit_def *d = cf_limit_def_of(limit);
		bool cgroup = !l->h->spawner_cgroup_outside && (f->cgroup_holds & (1u << i)) != 0;
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
			limit_temp(l, p, clause, value);
			continue;
		}
		if (!launcher) {
			add(l, clause, value, CONFINE_CLAUSE_UNENFORCED, 0,
			    limit == CONFINE_LIMIT_PIDS || limit == CONFINE_LIMIT_MEMORY
			            ? NEEDS_CGROUP
			            : (l->h->launcher_needs ? l->h->launcher_needs : "the launcher"),
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
			/* Per process: N processes may each use the bound (issue 30);
			 * nothing bounds the run's total yet. */
			add(l, clause, value, CONFINE_CLAUSE_PARTIAL, CONFINE_LAYER_RLIMIT, NULL,
			    "RLIMIT_CPU bounds each process's CPU time (SIGXCPU, then SIGKILL a second "
			    "later), not the run's total: each of several processes may use the bound");
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
