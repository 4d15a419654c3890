/* SPDX-License-Identifier: MIT */
/*
 * confine export (doc/SPEC.md 20): the resolved policy written for an
 * engine that is not ours. The room has four parts, read top to bottom:
 *   plan.c     the policy as one mount-and-process plan, read from the
 *              library's own bwrap profile (the mount plan a run gets), so
 *              no policy rule is restated here;
 *   report.c   the per-clause report for a target: what it holds, holds
 *              differently, cannot hold; --require-full decides on it;
 *   seccomp.c  the launcher's deny-list as a runtime-spec seccomp profile;
 *   oci.c, k8s.c  the targets: an OCI bundle's config.json, Kubernetes
 *              objects;
 * and command.c, the subcommand over them.
 */
#ifndef CONFINE_CLI_EXPORT_H
#define CONFINE_CLI_EXPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "confine.h"

typedef enum export_target {
	EXPORT_TARGET_OCI = 0, /* "oci": an OCI runtime bundle */
	EXPORT_TARGET_K8S,     /* "k8s": a Pod (and a NetworkPolicy) */
} export_target;

/* "oci" or "k8s"; NULL outside the enum. */
const char *export_target_name(export_target target);
/* 0 and *ret for "oci" or "k8s"; -EINVAL otherwise. */
int export_target_parse(const char *word, export_target *ret);

typedef enum export_mount_kind {
	EXPORT_MOUNT_BIND_RW, /* a writable root, or a pin on the way to a protected path */
	EXPORT_MOUNT_BIND_RO, /* a protected path, an allowed socket, a hidden read-only root */
	EXPORT_MOUNT_TMPFS,   /* the private temp area */
} export_mount_kind;

typedef struct export_mount {
	export_mount_kind kind;
	const char *source;      /* points into the plan's tokens */
	const char *destination; /* points into the plan's tokens */
} export_mount;

/* The policy as the engine must apply it. Paths point into `tokens`. */
typedef struct export_plan {
	const confine_policy *policy; /* borrowed */
	char *const *argv;            /* borrowed: the command */
	char **tokens;                /* the library's bwrap profile, owned */
	export_mount *mounts;         /* in the profile's order (it matters) */
	size_t n_mounts;
	const char **masked;          /* denyRead: an empty directory or /dev/null */
	bool *masked_is_dir;          /* per entry of `masked` */
	size_t n_masked;
	bool private_network;         /* network off: a namespace with loopback only */
	bool private_tmp;             /* a tmpfs at /tmp */
	char **env;                   /* after the env filter, a name once; owned */
	unsigned uid, gid;            /* who runs the export (the command's user) */
	bool runsc;                   /* oci: for gVisor's runsc, not runc */
	bool crun;                    /* oci: for crun: the host's / bound entry by entry */
	const char *runtime_class;    /* k8s: runtimeClassName; NULL: "gvisor" (borrowed) */
	const char *image;            /* k8s: the container's image; NULL: the placeholder
	                                 (borrowed) */
	const char *bundle;           /* the directory written (borrowed) */
} export_plan;

#define EXPORT_ERROR_MAX 512

/* A limit the policy sets (doc/SPEC.md 15, "Limits"): given by the caller,
 * not lifted. The default process bound is not exported: it is the
 * spawner's cgroup's, which an engine does not have. */
static inline bool export_limit_given(const confine_policy *p, confine_limit limit) {
	return (p->limits_given & (1u << limit)) && p->limits[limit] != 0;
}

/* oci --runtime runsc: an empty file in the bundle, bound read-only over
 * each denied file (runsc has no maskedPaths). */
#define EXPORT_EMPTY_FILE "denied-file"

/* Builds the plan of a confined, resolved `policy` for `argv`, with this
 * process's environment filtered. 0; or -EINVAL (a token the plan does not
 * translate: fails closed), -EILSEQ (a string JSON cannot carry), -ENOMEM,
 * with `error` saying which. Clear the plan either way. */
int export_plan_make(const confine_policy *policy, char *const *argv, export_plan *ret,
                     char *error, size_t size);
void export_plan_clear(export_plan *plan);
/* The part of export_plan_make() that reads a bwrap profile: takes
 * `tokens` (the plan owns them, also on failure); fills the mounts, masks
 * and namespaces. 0, -EINVAL naming the token it does not translate in
 * `error`, -ENOMEM. */
int export_plan_read(export_plan *plan, char **tokens, char *error, size_t size);

/* The per-clause report of `plan` on `target` (report.c), as
 * [{"clause","subject","status","layers","reason","needs"}] in the library's
 * clause order, and whether every clause holds as stated. NULL: out of
 * memory. */
json_t *export_report(const export_plan *plan, export_target target, bool *ret_full);
/* The clauses of a report that do not hold as stated, each name once with
 * its subjects, for --require-full's refusal. Cut to fit `size`. */
void export_report_describe_lost(json_t *report, char *out, size_t size);

/* The launcher's deny-list (src/launcher/seccomp-filter.c) as a
 * runtime-spec LinuxSeccomp object, without notify rules. */
json_t *export_seccomp_profile(void);

/* crun: the host's top-level symbolic links (/bin -> usr/bin) made again
 * in the bundle's `rootfs`, each entry of / that is a directory or a file
 * being a bind of its own (oci.c). 0 or -errno. */
int export_oci_root_links(const char *rootfs);
/* Whether the bundle carries limits as linux.resources (a cgroup the
 * runtime makes): for a root exporter; runsc's process bound is still an
 * rlimit (oci.c). */
bool export_oci_cgroup_limits(const export_plan *plan);
/* Whether the process bound is linux.resources.pids (else RLIMIT_NPROC). */
bool export_oci_cgroup_pids(const export_plan *plan);
/* The bundle's config.json (runtime-spec 1.0.2). NULL: out of memory. */
json_t *export_oci_config(const export_plan *plan);
typedef enum export_k8s_kind {
	EXPORT_K8S_POD = 0,          /* "Pod": a Pod and, network off, a NetworkPolicy */
	EXPORT_K8S_SANDBOX_TEMPLATE, /* "SandboxTemplate": kubernetes-sigs/agent-sandbox's */
} export_k8s_kind;

/* A Kubernetes v1 List of a Pod (and, for the network off, a
 * NetworkPolicy), or of one agent-sandbox SandboxTemplate, holding the same
 * policy; `profile` is the seccomp profile's path under the kubelet's
 * seccomp root. NULL: out of memory. */
json_t *export_k8s_objects(const export_plan *plan, const char *name, const char *profile,
                           export_k8s_kind kind);

/* words.c: NULL when `value` is a RuntimeClass name (`image` false) or an
 * image reference (`image` true) the k8s export takes, else why not
 * (`"<value>": expected ...`, written in `why`). */
const char *cli_export_value_refused(bool image, const char *value, char *why, size_t size);

#endif
