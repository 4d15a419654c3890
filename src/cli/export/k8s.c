/* SPDX-License-Identifier: MIT */
/*
 * The k8s target (doc/SPEC.md 20): a core/v1 List holding a Pod and, with
 * the network off, a networking.k8s.io/v1 NetworkPolicy, from the same
 * plan as the OCI bundle. Field by field:
 *   the OCI root read-only        -> readOnlyRootFilesystem (of the image)
 *   noNewPrivileges, no caps      -> allowPrivilegeEscalation false,
 *                                    capabilities.drop [ALL], privileged false
 *   the seccomp deny-list         -> seccompProfile Localhost (seccomp.json,
 *                                    placed under the kubelet's seccomp root)
 *   writable roots                -> hostPath volumes, mounted read-write
 *   protected paths in them       -> the same volume again, subPath, readOnly
 *   the private /tmp              -> an emptyDir in memory
 *   network off                   -> a NetworkPolicy with no ingress or egress
 *   an allowlist                  -> egress only to the proxy's pods (the
 *                                    proxy itself is the cluster's to run)
 *   process env, args, cwd, user  -> env, command, workingDir, runAsUser
 *   limits.memory, limits.temp    -> resources.limits.memory, the /tmp
 *                                    emptyDir's sizeLimit (the others have
 *                                    no pod field: the report says so)
 * runtimeClassName is gvisor (--runtime-class: another RuntimeClass of the
 * cluster's) so the pod gets a kernel of its own; the image is a
 * placeholder, annotated to be replaced, unless --image names one. With
 * --kind SandboxTemplate the List holds agent-sandbox's SandboxTemplate
 * instead: the same pod spec as its podTemplate, the network as its own
 * networkPolicy (below).
 */
#include <stdio.h>
#include <string.h>

#include "export.h"

#define RUNTIME_CLASS "gvisor"
#define IMAGE "debian:bookworm-slim"
#define PROXY_LABEL "confine-egress-proxy"
#define PROXY_PORT 3128

static json_t *security_context(const char *profile) {
	return json_pack("{s:b,s:b,s:b,s:{s:[s]},s:{s:s,s:s}}", "readOnlyRootFilesystem", 1,
	                 "allowPrivilegeEscalation", 0, "privileged", 0, "capabilities", "drop", "ALL",
	                 "seccompProfile", "type", "Localhost", "localhostProfile", profile);
}

static json_t *env_list(const export_plan *plan) {
	json_t *array = json_array();
	for (size_t i = 0; array && plan->env[i]; i++) {
		const char *eq = strchr(plan->env[i], '=');
		json_t *name = json_stringn(plan->env[i], (size_t)(eq - plan->env[i]));
		json_array_append_new(array, json_pack("{s:o,s:s}", "name", name, "value", eq + 1));
	}
	return array;
}

/* The volume holding `path` (a writable root, by index), or -1. */
static long volume_of(const confine_policy *p, const char *path, const char **ret_root) {
	const char *roots_0 = p->workspace_root;
	size_t n = strlen(roots_0);
	if (strncmp(path, roots_0, n) == 0 && path[n] == '/') {
		*ret_root = roots_0;
		return 0;
	}
	for (size_t i = 0; p->writable_roots && p->writable_roots[i]; i++) {
		n = strlen(p->writable_roots[i]);
		if (strncmp(path, p->writable_roots[i], n) == 0 && path[n] == '/') {
			*ret_root = p->writable_roots[i];
			return (long)i + 1;
		}
	}
	return -1;
}

static void volume_name(long index, char *out, size_t size) {
	if (index == 0)
		snprintf(out, size, "workspace");
	else
		snprintf(out, size, "writable-%ld", index);
}

static void add_volumes(const export_plan *plan, json_t *volumes, json_t *mounts) {
	const confine_policy *p = plan->policy;
	bool ww = p->mode == CONFINE_MODE_WORKSPACE_WRITE;
	char name[32];
	json_array_append_new(volumes, json_pack("{s:s,s:{s:s,s:s}}", "name", "workspace", "hostPath",
	                                         "path", p->workspace_root, "type", "Directory"));
	json_array_append_new(mounts, json_pack("{s:s,s:s,s:b}", "name", "workspace", "mountPath",
	                                        p->workspace_root, "readOnly", !ww));
	for (size_t i = 0; ww && p->writable_roots && p->writable_roots[i]; i++) {
		volume_name((long)i + 1, name, sizeof name);
		json_array_append_new(volumes, json_pack("{s:s,s:{s:s,s:s}}", "name", name, "hostPath",
		                                         "path", p->writable_roots[i], "type", "Directory"));
		json_array_append_new(mounts, json_pack("{s:s,s:s,s:b}", "name", name, "mountPath",
		                                        p->writable_roots[i], "readOnly", 0));
	}
	if (plan->private_tmp) {
		json_t *empty = json_pack("{s:s}", "medium", "Memory");
		if (empty && export_limit_given(p, CONFINE_LIMIT_TEMP)) {
			char size[32];
			snprintf(size, sizeof size, "%llu", (unsigned long long)p->limits[CONFINE_LIMIT_TEMP]);
			json_object_set_new(empty, "sizeLimit", json_string(size));
		}
		json_array_append_new(volumes, json_pack("{s:s,s:o}", "name", "tmp", "emptyDir", empty));
		json_array_append_new(mounts, json_pack("{s:s,s:s}", "name", "tmp", "mountPath", "/tmp"));
	}
	/* Protected paths and default protections inside a volume: the same
	 * volume again over them, read-only. */
	for (size_t i = 0; ww && i < plan->n_mounts; i++) {
		const export_mount *m = &plan->mounts[i];
		const char *root = NULL;
		long index;
		if (m->kind != EXPORT_MOUNT_BIND_RO || (index = volume_of(p, m->destination, &root)) < 0)
			continue;
		volume_name(index, name, sizeof name);
		json_array_append_new(mounts, json_pack("{s:s,s:s,s:s,s:b}", "name", name, "mountPath",
		                                        m->destination, "subPath",
		                                        m->destination + strlen(root) + 1, "readOnly", 1));
	}
}

static json_t *pod_spec(const export_plan *plan, const char *profile) {
	json_t *command = json_array(), *volumes = json_array(), *mounts = json_array();
	json_t *container;
	for (size_t i = 0; command && plan->argv[i]; i++)
		json_array_append_new(command, json_string(plan->argv[i]));
	add_volumes(plan, volumes, mounts);
	container = json_pack("{s:s,s:s,s:o,s:s,s:o,s:o,s:o}", "name", "command", "image",
	                      plan->image ? plan->image : IMAGE,
	                      "command", command, "workingDir", plan->policy->workspace_root, "env",
	                      env_list(plan), "securityContext", security_context(profile),
	                      "volumeMounts", mounts);
	/* A quantity is a string; plain digits are bytes. */
	if (container && export_limit_given(plan->policy, CONFINE_LIMIT_MEMORY)) {
		char memory[32];
		snprintf(memory, sizeof memory, "%llu",
		         (unsigned long long)plan->policy->limits[CONFINE_LIMIT_MEMORY]);
		json_object_set_new(container, "resources",
		                    json_pack("{s:{s:s}}", "limits", "memory", memory));
	}
	return json_pack("{s:s,s:s,s:b,s:b,s:b,s:b,s:b,s:{s:I,s:I,s:b},s:[o],s:o}", "runtimeClassName",
	                 plan->runtime_class ? plan->runtime_class : RUNTIME_CLASS, "restartPolicy", "Never", "automountServiceAccountToken", 0,
	                 "enableServiceLinks", 0, "hostNetwork", 0, "hostPID", 0, "hostIPC", 0,
	                 "securityContext", "runAsUser", (json_int_t)plan->uid, "runAsGroup",
	                 (json_int_t)plan->gid, "runAsNonRoot", plan->uid != 0, "containers", container,
	                 "volumes", volumes);
}

/* --image names the image: no note to replace it. */
static json_t *image_noted(const export_plan *plan, json_t *metadata) {
	if (metadata && plan->image)
		json_object_del(json_object_get(metadata, "annotations"), "confine.run/image");
	return metadata;
}

static json_t *pod(const export_plan *plan, const char *name, const char *profile) {
	json_t *object = json_pack("{s:s,s:s,s:{s:s,s:{s:s},s:{s:s,s:s}},s:o}", "apiVersion", "v1", "kind", "Pod",
	                 "metadata", "name", name, "labels", "confine.run/name", name, "annotations",
	                 "confine.run/mode", confine_mode_name(plan->policy->mode),
	                 "confine.run/image", "replace with the image the command needs", "spec",
	                 pod_spec(plan, profile));
	image_noted(plan, json_object_get(object, "metadata"));
	return object;
}

/* The egress rules of the policy's network: none for the network off,
 * the proxy's pods for an allowlist. */
static json_t *egress_rules(const export_plan *plan) {
	json_t *egress = json_array();
	if (egress && confine_policy_network_allowlist(plan->policy))
		json_array_append_new(
			egress, json_pack("{s:[{s:{s:{s:s}}}],s:[{s:s,s:I}]}", "to", "podSelector",
			                  "matchLabels", "app.kubernetes.io/name", PROXY_LABEL, "ports",
			                  "protocol", "TCP", "port", (json_int_t)PROXY_PORT));
	return egress;
}

/* kubernetes-sigs/agent-sandbox's SandboxTemplate
 * (extensions.agents.x-k8s.io/v1alpha1): the same pod as its podTemplate;
 * the network as the template's own NetworkPolicy, which its controller
 * makes and selects for every sandbox of the template (no podSelector or
 * policyTypes of ours: the controller's, default deny). The network on:
 * Unmanaged, since the controller's default for a Managed template without
 * rules (public egress only) is not the policy's. Environment injection
 * by a claim is refused: the env filter's result is the environment. */
static json_t *sandbox_template(const export_plan *plan, const char *name, const char *profile) {
	json_t *spec = json_pack("{s:{s:{s:{s:s},s:{s:s,s:s}},s:o},s:s}", "podTemplate", "metadata",
	                         "labels", "confine.run/name", name, "annotations", "confine.run/mode",
	                         confine_mode_name(plan->policy->mode), "confine.run/image",
	                         "replace with the image the command needs", "spec",
	                         pod_spec(plan, profile), "envVarsInjectionPolicy", "Disallowed");
	if (!spec)
		return NULL;
	image_noted(plan, json_object_get(json_object_get(spec, "podTemplate"), "metadata"));
	if (plan->policy->network == CONFINE_NETWORK_OFF) {
		json_object_set_new(spec, "networkPolicyManagement", json_string("Managed"));
		json_object_set_new(spec, "networkPolicy", json_pack("{s:[],s:o}", "ingress", "egress",
		                                                     egress_rules(plan)));
	} else {
		json_object_set_new(spec, "networkPolicyManagement", json_string("Unmanaged"));
	}
	return json_pack("{s:s,s:s,s:{s:s,s:{s:s}},s:o}", "apiVersion",
	                 "extensions.agents.x-k8s.io/v1alpha1", "kind", "SandboxTemplate", "metadata",
	                 "name", name, "labels", "confine.run/name", name, "spec", spec);
}

static json_t *network_policy(const export_plan *plan, const char *name) {
	char policy_name[128];
	json_t *egress = egress_rules(plan);
	bool allowlist = confine_policy_network_allowlist(plan->policy);
	snprintf(policy_name, sizeof policy_name, "%s-network", name);
	return json_pack("{s:s,s:s,s:{s:s,s:{s:s}},s:{s:{s:{s:s}},s:[ss],s:[],s:o}}", "apiVersion",
	                 "networking.k8s.io/v1", "kind", "NetworkPolicy", "metadata", "name",
	                 policy_name, "annotations", "confine.run/note",
	                 allowlist ? "egress only to the egress proxy's pods: run confine's proxy "
	                             "there with the allowlist of this export"
	                           : "network off: no ingress, no egress",
	                 "spec", "podSelector", "matchLabels", "confine.run/name", name, "policyTypes",
	                 "Ingress", "Egress", "ingress", "egress", egress);
}

json_t *export_k8s_objects(const export_plan *plan, const char *name, const char *profile,
                           export_k8s_kind kind) {
	json_t *items = json_array();
	if (!items)
		return NULL;
	if (kind == EXPORT_K8S_SANDBOX_TEMPLATE) {
		json_array_append_new(items, sandbox_template(plan, name, profile));
		return json_pack("{s:s,s:s,s:o}", "apiVersion", "v1", "kind", "List", "items", items);
	}
	json_array_append_new(items, pod(plan, name, profile));
	if (plan->policy->network == CONFINE_NETWORK_OFF)
		json_array_append_new(items, network_policy(plan, name));
	return json_pack("{s:s,s:s,s:o}", "apiVersion", "v1", "kind", "List", "items", items);
}
