/* SPDX-License-Identifier: MIT */
/*
 * The per-clause report of an export (doc/SPEC.md 20): one record per
 * clause, in the library's clause order, each saying what the target holds
 * (enforced), holds differently (partial, with the gap in `reason`) or
 * cannot hold (unenforced). Built here once, from the plan the target is
 * written from; the command prints it and --require-full reads it. A
 * record never says more than the target holds: where the library's own
 * runs lean on a layer an engine has no field for (Landlock, the
 * supervisor acting on the command's behalf), the clause is partial or
 * unenforced and says which layer is missing.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "export.h"

/* What holds a clause on a target: words of the report's `layers`. */
#define L_MOUNTS "mounts"         /* OCI mounts / k8s volumes and readOnlyRootFilesystem */
#define L_NAMESPACES "namespaces" /* the runtime's namespaces / the pod's sandbox */
#define L_MASKS "maskedPaths"     /* linux.maskedPaths */
#define L_PROCESS "process"       /* process.env, capabilities, noNewPrivileges */
#define L_POLICY "networkPolicy"  /* a k8s NetworkPolicy */
#define L_RESOURCES "resources"   /* OCI linux.resources (a cgroup) / k8s resources.limits */

#define NO_LANDLOCK "the runtime-spec has no Landlock field"
#define NO_SUPERVISOR                                                                          \
	"the supervisor's rule (seccomp notify, acting on the command's behalf) has no "           \
	"engine field, and a notify profile is refused by Kubernetes"

static void add(json_t *report, const char *clause, const char *subject, const char *status,
                const char *layer1, const char *layer2, const char *reason, const char *needs) {
	json_t *layers = json_array();
	json_t *record = json_object();
	if (layer1)
		json_array_append_new(layers, json_string(layer1));
	if (layer2)
		json_array_append_new(layers, json_string(layer2));
	json_object_set_new(record, "clause", json_string(clause));
	json_object_set_new(record, "subject", subject ? json_string(subject) : json_null());
	json_object_set_new(record, "status", json_string(status));
	json_object_set_new(record, "layers", layers);
	json_object_set_new(record, "reason", reason ? json_string(reason) : json_null());
	json_object_set_new(record, "needs", needs ? json_string(needs) : json_null());
	json_array_append_new(report, record);
}

static bool exists(const char *path) {
	struct stat st;
	return lstat(path, &st) == 0;
}

static bool under(const char *path, const char *root) {
	size_t n = strlen(root);
	return strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0' || n == 1);
}

static bool pattern(const char *entry) {
	return strpbrk(entry, "*?[") != NULL;
}

/* Whether a read-only bind of the plan is a protected path the policy
 * names (absolute, or relative under a writable root). */
static bool named_protected(const confine_policy *p, const char *path) {
	for (size_t i = 0; p->protected_paths && p->protected_paths[i]; i++) {
		const char *e = p->protected_paths[i];
		char joined[4096];
		if (e[0] == '/') {
			if (strcmp(e, path) == 0)
				return true;
			continue;
		}
		snprintf(joined, sizeof joined, "%s/%s", p->workspace_root, e);
		if (strcmp(joined, path) == 0)
			return true;
		for (size_t k = 0; p->writable_roots && p->writable_roots[k]; k++) {
			snprintf(joined, sizeof joined, "%s/%s", p->writable_roots[k], e);
			if (strcmp(joined, path) == 0)
				return true;
		}
	}
	return false;
}

static bool allowed_socket(const confine_policy *p, const char *path) {
	for (size_t i = 0; p->allow_unix_sockets && p->allow_unix_sockets[i]; i++)
		if (strcmp(p->allow_unix_sockets[i], path) == 0)
			return true;
	return false;
}

static void report_mode_and_roots(json_t *r, const export_plan *plan, export_target target) {
	const confine_policy *p = plan->policy;
	bool ww = p->mode == CONFINE_MODE_WORKSPACE_WRITE;
	add(r, "mode", confine_mode_name(p->mode),
	    target == EXPORT_TARGET_OCI ? "enforced" : "partial", L_MOUNTS, NULL,
	    target == EXPORT_TARGET_OCI
	            ? NULL
	            : "the pod's root is its image, not the host's /: readOnlyRootFilesystem holds "
	              "the image read-only, and what the command reads is the image's",
	    NULL);
	if (!ww)
		return;
	add(r, "writableRoots", p->workspace_root, "enforced", L_MOUNTS, NULL, NULL, NULL);
	for (size_t i = 0; p->writable_roots && p->writable_roots[i]; i++)
		add(r, "writableRoots", p->writable_roots[i], "enforced", L_MOUNTS, NULL, NULL, NULL);
}

static void missing_protected(json_t *r, const char *path) {
	if (!exists(path))
		add(r, "protectedPaths", path, "unenforced", NULL, NULL,
		    "does not exist at export: a protected path created during the run is writable (an "
		    "engine binds only what exists)",
		    NULL);
}

/* Protected paths and the default protections: a read-only bind each,
 * held by name from the start (a file the host replaces during the run
 * is no longer the bound one); one missing at export is not bound at all
 * (confine's own runs stand a placeholder in, an engine cannot). */
static void report_protections(json_t *r, const export_plan *plan) {
	const confine_policy *p = plan->policy;
	bool any_default = false;
	if (p->mode != CONFINE_MODE_WORKSPACE_WRITE)
		return;
	for (size_t i = 0; p->protected_paths && p->protected_paths[i]; i++) {
		const char *e = p->protected_paths[i];
		if (pattern(e))
			add(r, "protectedPaths", e, "partial", L_MOUNTS, NULL,
			    "a pattern: what it matched at export is bound read-only; a match made during "
			    "the run is not",
			    NULL);
		else if (e[0] == '/')
			missing_protected(r, e);
		else {
			char joined[4096];
			snprintf(joined, sizeof joined, "%s/%s", p->workspace_root, e);
			missing_protected(r, joined);
			for (size_t k = 0; p->writable_roots && p->writable_roots[k]; k++) {
				snprintf(joined, sizeof joined, "%s/%s", p->writable_roots[k], e);
				missing_protected(r, joined);
			}
		}
	}
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const export_mount *m = &plan->mounts[i];
		bool named;
		if (m->kind != EXPORT_MOUNT_BIND_RO || strcmp(m->destination, p->workspace_root) == 0 ||
		    allowed_socket(p, m->destination))
			continue;
		named = named_protected(p, m->destination);
		any_default |= !named;
		add(r, named ? "protectedPaths" : "defaultProtections", m->destination, "partial",
		    L_MOUNTS, NULL,
		    "a read-only bind held by name from the start: a replacement the host makes during "
		    "the run is not covered",
		    NULL);
	}
	if (p->default_protections)
		add(r, "defaultProtections", NULL, "partial", any_default ? L_MOUNTS : NULL, NULL,
		    "a repository's protected surface, or an entry of what runs later (.bashrc, .envrc, "
		    "CLAUDE.md, ...), missing at export is not bound, and one created during the run is "
		    "writable; nothing reports a change after the run",
		    NULL);
}

static void report_deny_read(json_t *r, const export_plan *plan, export_target target) {
	const confine_policy *p = plan->policy;
	for (size_t i = 0; p->deny_read && p->deny_read[i]; i++) {
		const char *e = p->deny_read[i];
		/* A relative entry is a pattern under every root (SPEC 15). */
		bool is_pattern = pattern(e) || e[0] != '/';
		bool masked = false;
		for (size_t k = 0; k < plan->n_masked && !masked; k++)
			masked = strcmp(plan->masked[k], e) == 0;
		if (target == EXPORT_TARGET_K8S) {
			bool inside = under(e, p->workspace_root);
			for (size_t k = 0; p->writable_roots && p->writable_roots[k] && !inside; k++)
				inside = under(e, p->writable_roots[k]);
			add(r, "denyRead", e, inside ? "unenforced" : "partial", inside ? NULL : L_MOUNTS,
			    NULL,
			    inside ? "inside a volume: a pod spec has no masked path for a file in a volume"
			           : "the host's file is not in the pod (its root is the image); the image's "
			             "own file at that path is readable",
			    NULL);
			continue;
		}
		if (!masked && !is_pattern && plan->private_tmp && under(e, "/tmp") && exists(e))
			add(r, "denyRead", e, "enforced", L_MOUNTS, NULL,
			    "under the private /tmp: the host's file is not there", NULL);
		else if (is_pattern || !masked)
			add(r, "denyRead", e, is_pattern ? "partial" : "unenforced",
			    is_pattern ? (plan->runsc ? L_MOUNTS : L_MASKS) : NULL, NULL,
			    is_pattern ? "a pattern: what it matched at export is masked; a match made during "
			                 "the run is readable"
			               : "does not exist at export: a file created there during the run is "
			                 "readable",
			    NULL);
		else
			add(r, "denyRead", e, "partial", plan->runsc ? L_MOUNTS : L_MASKS, NULL,
			    "masked by a mount over the path (" NO_LANDLOCK "): another name for the same "
			    "file (a hard link made before the run) still reads it",
			    "Landlock inside the runtime");
	}
}

static void report_network(json_t *r, const export_plan *plan, export_target target) {
	const confine_policy *p = plan->policy;
	if (confine_policy_network_allowlist(p)) {
		for (size_t i = 0; p->network_allow[i]; i++)
			add(r, "network", p->network_allow[i], "unenforced",
			    target == EXPORT_TARGET_K8S ? L_POLICY : NULL, NULL,
			    target == EXPORT_TARGET_K8S
			            ? "a host allowlist needs an egress proxy: the NetworkPolicy allows only "
			              "the proxy, which the cluster must run (a sidecar with confine's proxy)"
			            : "a host allowlist needs a proxy, which the runtime-spec has no field for: "
			              "exported as network off (loopback only), so no allowed host is reached",
			    "an egress proxy");
		return;
	}
	if (p->network == CONFINE_NETWORK_OFF && target == EXPORT_TARGET_OCI && plan->runsc)
		add(r, "network", "off", "partial", L_NAMESPACES, NULL,
		    "runsc keeps a network stack of its own whatever the bundle's namespaces say: off "
		    "holds when runsc runs it with --network=none",
		    "runsc --network=none");
	else if (p->network == CONFINE_NETWORK_OFF)
		add(r, "network", "off", target == EXPORT_TARGET_OCI ? "enforced" : "partial",
		    target == EXPORT_TARGET_OCI ? L_NAMESPACES : L_POLICY, NULL,
		    target == EXPORT_TARGET_OCI
		            ? NULL
		            : "a NetworkPolicy denying all egress and ingress: it holds only where the "
		              "cluster's network plugin enforces NetworkPolicy, and the pod keeps DNS to "
		              "nothing",
		    NULL);
	else
		add(r, "network", "on", "enforced", NULL, NULL, NULL, NULL);
}

static void report_mechanisms(json_t *r, const export_plan *plan, export_target target) {
	const confine_policy *p = plan->policy;
	bool ww = p->mode == CONFINE_MODE_WORKSPACE_WRITE;
	const char *sockets_reason =
		"a pathname socket the mounts show can be connected to: " NO_SUPERVISOR;
	add(r, "unix-sockets", NULL, "unenforced", NULL, NULL, sockets_reason, "confine's supervisor");
	for (size_t i = 0; p->allow_unix_sockets && p->allow_unix_sockets[i]; i++)
		add(r, "allowUnixSockets", p->allow_unix_sockets[i], "unenforced", NULL, NULL,
		    sockets_reason, "confine's supervisor");
	add(r, "env", NULL, "enforced", L_PROCESS, NULL,
	    "the environment after the filter is written into the export: a value set with env.set "
	    "is readable by whoever reads the file",
	    NULL);
	if (ww || p->private_temp)
		add(r, "privateTemp", "/tmp", plan->private_tmp ? "enforced" : "unenforced",
		    plan->private_tmp ? L_MOUNTS : NULL, NULL, NULL, NULL);
	else
		add(r, "privateTemp", NULL, "enforced", NULL, NULL,
		    "none: privateTemp is off, so the command has no writable temp area", NULL);
	add(r, "metadata", NULL, "enforced", L_MOUNTS, NULL, NULL, NULL);
	if (ww)
		add(r, "setid", NULL, "unenforced", NULL, NULL,
		    "a set-ID bit on a file in a writable root is not refused: the file keeps it after "
		    "the run (nosuid binds keep it from acting inside the run only); " NO_SUPERVISOR,
		    "confine's supervisor");
	else
		add(r, "setid", NULL, "enforced", L_MOUNTS, NULL, NULL, NULL);
	add(r, "devices", NULL, "enforced", L_PROCESS, L_MOUNTS, NULL, NULL);
	add(r, "signals", NULL, "enforced", L_NAMESPACES, NULL, NULL, NULL);
	if (p->network == CONFINE_NETWORK_OFF || target == EXPORT_TARGET_K8S)
		add(r, "abstract-unix-sockets", NULL, "enforced", L_NAMESPACES, NULL, NULL, NULL);
	else
		add(r, "abstract-unix-sockets", NULL, "unenforced", NULL, NULL,
		    "the host's abstract unix sockets (X11, D-Bus) are reachable with the network on "
		    "(the host's network namespace)",
		    "network off");
}

/* One requested limit on the OCI target (oci.c): a cgroup as root, an
 * rlimit in the process, the temp area's tmpfs size. */
static void limit_oci(json_t *r, const export_plan *plan, confine_limit limit, const char *clause,
                      const char *value) {
	bool cgroup = export_oci_cgroup_limits(plan);
	switch (limit) {
	case CONFINE_LIMIT_PIDS:
		if (export_oci_cgroup_pids(plan))
			add(r, clause, value, "enforced", L_RESOURCES, NULL,
			    "linux.resources.pids: the container's cgroup", NULL);
		else
			add(r, clause, value, "enforced", L_PROCESS, NULL,
			    plan->runsc ? "RLIMIT_NPROC in gVisor's kernel: every task of the sandbox"
			                : "RLIMIT_NPROC: the tasks of the container's user namespace's user",
			    NULL);
		return;
	case CONFINE_LIMIT_MEMORY:
		if (cgroup && plan->runsc)
			add(r, clause, value, "partial", L_RESOURCES, NULL,
			    "linux.resources.memory: runsc's own cgroup, where gVisor's kernel and gofer "
			    "count with the command",
			    NULL);
		else if (cgroup)
			add(r, clause, value, "enforced", L_RESOURCES, NULL,
			    "linux.resources.memory: the container's cgroup", NULL);
		else
			add(r, clause, value, "unenforced", NULL, NULL,
			    "not root: a rootless runtime makes no cgroup to hold it, so it is not written",
			    "the runtime run as root");
		return;
	case CONFINE_LIMIT_TEMP:
		add(r, clause, value, plan->private_tmp ? "enforced" : "unenforced",
		    plan->private_tmp ? L_MOUNTS : NULL, NULL,
		    plan->private_tmp ? "the size of the private /tmp's tmpfs"
		                      : "no private temp area: privateTemp is off",
		    plan->private_tmp ? NULL : "privateTemp");
		return;
	case CONFINE_LIMIT_CPU_SECONDS:
	case CONFINE_LIMIT_FILE_SIZE:
	case CONFINE_LIMIT_OPEN_FILES:
		break;
	}
	add(r, clause, value, "enforced", L_PROCESS, NULL, "process.rlimits", NULL);
}

/* One requested limit on the k8s target (k8s.c). */
static void limit_k8s(json_t *r, const export_plan *plan, confine_limit limit, const char *clause,
                      const char *value) {
	switch (limit) {
	case CONFINE_LIMIT_MEMORY:
		add(r, clause, value, "partial", L_RESOURCES, NULL,
		    "resources.limits.memory: the container's cgroup, which under a sandboxed runtime "
		    "class also counts the sandbox's own kernel",
		    NULL);
		return;
	case CONFINE_LIMIT_TEMP:
		add(r, clause, value, plan->private_tmp ? "partial" : "unenforced",
		    plan->private_tmp ? L_MOUNTS : NULL, NULL,
		    plan->private_tmp ? "the /tmp emptyDir's sizeLimit: the kubelet evicts the pod past "
		                        "it rather than refusing the write"
		                      : "no private temp area: privateTemp is off",
		    plan->private_tmp ? NULL : "privateTemp");
		return;
	case CONFINE_LIMIT_PIDS:
		add(r, clause, value, "unenforced", NULL, NULL,
		    "a pod spec has no process bound: the kubelet's podPidsLimit, set for the node, is "
		    "the nearest",
		    "the kubelet's podPidsLimit");
		return;
	case CONFINE_LIMIT_CPU_SECONDS:
	case CONFINE_LIMIT_FILE_SIZE:
	case CONFINE_LIMIT_OPEN_FILES:
		break;
	}
	add(r, clause, value, "unenforced", NULL, NULL, "a pod spec has no rlimits", NULL);
}

/* The limits the policy sets, each a clause "limits.<key>" (doc/SPEC.md
 * 15), the value its subject. */
static void report_limits(json_t *r, const export_plan *plan, export_target target) {
	for (unsigned i = 0; i < CONFINE_LIMIT_COUNT; i++) {
		confine_limit limit = (confine_limit)i;
		char clause[64], value[64];
		if (!export_limit_given(plan->policy, limit))
			continue;
		snprintf(clause, sizeof clause, "limits.%s", confine_limit_name(limit));
		confine_limit_format(limit, plan->policy->limits[i], value, sizeof value);
		if (target == EXPORT_TARGET_OCI)
			limit_oci(r, plan, limit, clause, value);
		else
			limit_k8s(r, plan, limit, clause, value);
	}
}

/* Whether a record makes the export partial (and --require-full refuse
 * it): any clause not enforced, but the default protections and
 * allowUnixSockets, which are listed and never make a run partial
 * (doc/SPEC.md 15). */
static bool counts(json_t *record) {
	const char *clause = json_string_value(json_object_get(record, "clause"));
	return strcmp(json_string_value(json_object_get(record, "status")), "enforced") != 0 &&
	       strcmp(clause, "defaultProtections") != 0 && strcmp(clause, "allowUnixSockets") != 0;
}

json_t *export_report(const export_plan *plan, export_target target, bool *ret_full) {
	json_t *report = json_array();
	if (!report)
		return NULL;
	report_mode_and_roots(report, plan, target);
	report_protections(report, plan);
	report_deny_read(report, plan, target);
	report_network(report, plan, target);
	report_mechanisms(report, plan, target);
	report_limits(report, plan, target);
	*ret_full = true;
	for (size_t i = 0; i < json_array_size(report); i++)
		if (counts(json_array_get(report, i)))
			*ret_full = false;
	return report;
}

void export_report_describe_lost(json_t *report, char *out, size_t size) {
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < json_array_size(report); i++) {
		json_t *record = json_array_get(report, i);
		const char *clause = json_string_value(json_object_get(record, "clause"));
		const char *subject = json_string_value(json_object_get(record, "subject"));
		int n;
		if (!counts(record))
			continue;
		n = snprintf(out + used, size - used, "%s%s%s%s%s", used ? ", " : "", clause,
		             subject ? " (" : "", subject ? subject : "", subject ? ")" : "");
		if (n < 0 || (size_t)n >= size - used)
			return;
		used += (size_t)n;
	}
}
