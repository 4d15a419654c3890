/* SPDX-License-Identifier: MIT */
/*
 * The gVisor rung's report per clause (doc/SPEC.md 15, 22). The rung
 * applies bwrap's mount plan (the same profile, read back as an OCI
 * bundle), so its clauses start as those of a bwrap argv without the
 * launcher inside: no Landlock, no supervisor (its on-behalf rules:
 * metadata, unix-sockets, setid), no launcher rlimits, no placeholders for
 * protected paths missing at the start. What holds them here is gVisor's
 * kernel (the `gvisor` layer) instead of the host's mounts; then what
 * gVisor holds differently is said clause by clause.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rungs/gvisor/gvisor.h"

static int set_reason(confine_clause *c, confine_clause_status status, const char *reason,
                      const char *needs) {
	char *r = reason ? strdup(reason) : NULL, *n = needs ? strdup(needs) : NULL;
	if ((reason && !r) || (needs && !n)) {
		free(r);
		free(n);
		return -ENOMEM;
	}
	free(c->reason);
	free(c->needs);
	c->reason = r;
	c->needs = n;
	c->status = status;
	return 0;
}

/* A limit as the bundle carries it (rungs/gvisor/rung.c). */
static int limit_clause(confine_clause *c, bool root) {
	const char *name = c->clause + 7;
	c->layers = CONFINE_LAYER_GVISOR;
	if (strcmp(name, "pids") == 0)
		return set_reason(c, CONFINE_CLAUSE_ENFORCED,
		                  "RLIMIT_NPROC in gVisor's kernel: every task of the sandbox, whose one "
		                  "user is the command's",
		                  NULL);
	if (strcmp(name, "cpuSeconds") == 0)
		return set_reason(c, CONFINE_CLAUSE_ENFORCED, "RLIMIT_CPU in gVisor's kernel", NULL);
	if (strcmp(name, "fileSize") == 0)
		return set_reason(c, CONFINE_CLAUSE_ENFORCED,
		                  "RLIMIT_FSIZE in gVisor's kernel: a write past it fails with EFBIG", NULL);
	if (strcmp(name, "openFiles") == 0)
		return set_reason(c, CONFINE_CLAUSE_ENFORCED,
		                  "RLIMIT_NOFILE in gVisor's kernel: descriptors per process", NULL);
	if (strcmp(name, "memory") == 0 && root) {
		c->layers = CONFINE_LAYER_CGROUP;
		return set_reason(c, CONFINE_CLAUSE_PARTIAL,
		                  "the sandbox's cgroup (runsc's own): gVisor's kernel and gofer count with "
		                  "the command",
		                  NULL);
	}
	c->layers = 0;
	if (strcmp(name, "memory") == 0)
		return set_reason(c, CONFINE_CLAUSE_UNENFORCED,
		                  "rootless runsc runs without cgroups (--ignore-cgroups)",
		                  "runsc as root (its own cgroup)");
	return set_reason(c, CONFINE_CLAUSE_UNENFORCED, c->reason, c->needs);
}

int cf_gvisor_clauses(const confine_policy *policy, const cf_clause_facts *facts,
                      confine_clause **ret, size_t *n) {
	cf_clause_facts bwrap = *facts;
	confine_clause *clauses = NULL;
	size_t count = 0;
	int r;
	bwrap.runner = CONFINE_RUNNER_BWRAP;
	bwrap.layered = false;     /* no launcher inside */
	bwrap.spawned_here = false; /* no placeholders, no protected-file check */
	bwrap.supervisor = false;
	bwrap.landlock_abi = 0;
	/* The spawner's cgroup does not hold the sandbox: as root runsc moves
	 * it into a cgroup of its own; not root, a low process bound there
	 * would count gVisor's host threads. The bundle carries the limits
	 * (rungs/gvisor/rung.c). */
	bwrap.cgroup_holds = 0;
	bwrap.cgroup_kind = NULL;
	if ((r = cf_clauses_make(policy, &bwrap, &clauses, &count)) < 0)
		return r;
	for (size_t i = 0; i < count && r == 0; i++) {
		confine_clause *c = &clauses[i];
		if (c->layers & CONFINE_LAYER_BWRAP)
			c->layers = (c->layers & ~CONFINE_LAYER_BWRAP) | CONFINE_LAYER_GVISOR;
		if (c->needs && strcmp(c->needs, "bubblewrap") == 0) {
			free(c->needs);
			c->needs = NULL;
		}
		if (strcmp(c->clause, "network") == 0 && policy->network == CONFINE_NETWORK_OFF &&
		    c->status == CONFINE_CLAUSE_ENFORCED)
			/* runsc --network=none: gVisor's own network stack with
			 * loopback only; the host's is never reached. */
			c->layers = CONFINE_LAYER_GVISOR;
		else if (strcmp(c->clause, "unix-sockets") == 0) {
			/* runsc without --host-uds: found running it here, a connect
			 * to a host socket under the read-only root is EPERM. */
			c->layers = CONFINE_LAYER_GVISOR;
			r = set_reason(c, CONFINE_CLAUSE_ENFORCED,
			               "runsc without --host-uds: no connect reaches a socket on the host "
			               "(EPERM); the command's own sockets work inside the sandbox",
			               NULL);
		} else if (strcmp(c->clause, "allowUnixSockets") == 0) {
			c->layers = 0;
			r = set_reason(c, CONFINE_CLAUSE_UNENFORCED,
			               "runsc without --host-uds refuses every host socket: the allowed one "
			               "is not reached either",
			               "the bwrap or landlock rung (runsc's --host-uds=open would open every "
			               "socket, not one)");
		} else if (strcmp(c->clause, "abstract-unix-sockets") == 0) {
			c->layers = CONFINE_LAYER_GVISOR;
			r = set_reason(c, CONFINE_CLAUSE_ENFORCED,
			               "gVisor's kernel keeps its own abstract socket namespace: the host's "
			               "are not reached, network on or off",
			               NULL);
		} else if (strncmp(c->clause, "limits.", 7) == 0)
			r = limit_clause(c, facts->root);
		else if (strcmp(c->clause, "denyRead") == 0 && c->status == CONFINE_CLAUSE_PARTIAL) {
			r = set_reason(c, CONFINE_CLAUSE_PARTIAL,
			               "held by its name: a mount inside gVisor masks the path; a hard link "
			               "made before the run, or a save on the host over the name, still reads "
			               "the file (no Landlock under gVisor)",
			               NULL);
		}
		else if (c->status != CONFINE_CLAUSE_ENFORCED && c->needs &&
		         strncmp(c->needs, "the launcher", 12) == 0)
			/* The launcher (its supervisor's on-behalf rules, Landlock)
			 * does not run under gVisor: another rung holds it. */
			r = set_reason(c, c->status, c->reason,
			               "the bwrap or landlock rung (the launcher does not run under gVisor)");
	}
	if (r < 0) {
		cf_clauses_free(clauses, count);
		return r;
	}
	*ret = clauses;
	*n = count;
	return 0;
}
