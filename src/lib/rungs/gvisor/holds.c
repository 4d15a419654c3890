/* SPDX-License-Identifier: MIT */
/*
 * What the gVisor rung holds of each clause (doc/SPEC.md 15, 22), read by
 * the clause engine (../clauses.c). The rung applies bwrap's mount plan
 * (the same profile, read back as an OCI bundle), so its row reads like a
 * bwrap argv's without the launcher inside: no Landlock, no supervisor (its
 * on-behalf rules: metadata, unix-sockets, setid), no launcher rlimits; a
 * run the library spawns gets bwrap's stand-ins for protected paths missing
 * at the start (spawn/placeholders.c), an argv for others none. What holds the
 * rest is gVisor's kernel (the `gvisor` layer) instead of the host's
 * mounts; the spawner's cgroup does not hold the sandbox (as root runsc
 * moves it into a cgroup of its own; not root, a low process bound there
 * would count gVisor's host threads): the bundle carries the limits
 * (rung.c), said by `refine` with what else gVisor holds its own way.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rungs/gvisor/gvisor.h"

#define NEEDS_OTHER_RUNG "the bwrap or landlock rung (the launcher does not run under gVisor)"

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

/* The clauses gVisor holds otherwise than a row can say. */
static int refine(const confine_policy *policy, const cf_clause_facts *facts,
                  confine_clause *clauses, size_t n) {
	int r = 0;
	(void)policy;
	for (size_t i = 0; i < n && r == 0; i++) {
		confine_clause *c = &clauses[i];
		if (strcmp(c->clause, "unix-sockets") == 0)
			/* runsc without --host-uds: found running it here, a connect
			 * to a host socket under the read-only root is EPERM. */
			r = set_reason(c, CONFINE_CLAUSE_ENFORCED,
			               "runsc without --host-uds: no connect reaches a socket on the host "
			               "(EPERM); the command's own sockets work inside the sandbox",
			               NULL);
		else if (strcmp(c->clause, "allowUnixSockets") == 0) {
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
		else if (c->status != CONFINE_CLAUSE_ENFORCED && c->needs &&
		         strncmp(c->needs, "the launcher", 12) == 0)
			/* The launcher (its overlay, its proxy) does not run under
			 * gVisor: another rung holds it. */
			r = set_reason(c, c->status, c->reason, NEEDS_OTHER_RUNG);
	}
	return r;
}

const cf_rung_holds cf_gvisor_holds = {
	.layer = CONFINE_LAYER_GVISOR,
	.launcher = CF_RUNG_NO_LAUNCHER,
	.binds_layer = CONFINE_LAYER_GVISOR,
	.placeholders = true, /* a run the library spawns: its spawner makes the stand-ins */
	.protect = CF_RUNG_HOLDS_BINDS,
	.defaults = CF_RUNG_HOLDS_BINDS,
	.deny_by_name = "held by its name: a mount inside gVisor masks the path; a hard link made "
	                "before the run, or a save on the host over the name, still reads the "
	                "file, as ",
	.allowlist_needs = NEEDS_OTHER_RUNG,
	.allowlist_refused = true, /* no proxy inside the sandbox (rung.c) */
	.network_off_by_launcher = false, /* runsc --network=none: its own stack, loopback only */
	.unix_alone = CONFINE_LAYER_GVISOR,
	.temp = CF_RUNG_TEMP_TMPFS,
	.metadata = CONFINE_LAYER_GVISOR,
	.devices = CONFINE_LAYER_GVISOR,
	.launcher_needs = NEEDS_OTHER_RUNG,
	.scopes = true,
	.signals = CONFINE_LAYER_GVISOR,
	.abstract_off = CONFINE_LAYER_GVISOR,
	.abstract_needs = NEEDS_OTHER_RUNG,
	.spawner_cgroup_outside = true,
	.limit_temp_gap = { "the bwrap or landlock rung (the launcher sizes the temp area)",
	                    "the bundle's /tmp is a tmpfs of gVisor's without a size (its memory, "
	                    "the host's)" },
	.refine = refine,
};
