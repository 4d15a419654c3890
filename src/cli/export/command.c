/* SPDX-License-Identifier: MIT */
/*
 * confine export oci|k8s --bundle DIR [--runtime R | --kind K] [POLICY] -- PROGRAM [ARG...]
 * (doc/SPEC.md 20). The policy is the context's (resolved and validated
 * as for run and wrap); the plan, the report and the target's files
 * follow, in an order where every refusal comes before anything is
 * written: a danger-full-access policy, a bundle inside a writable root,
 * an untranslatable plan, --require-full with a clause lost.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "context.h"
#include "export.h"
#include "output.h"

/* Where the k8s seccomp profile goes under the kubelet's seccomp root. */
#define K8S_PROFILE_NAME "confine/deny-list.json"

/* The bundle's canonical path, its parent resolved (it need not exist
 * yet). 0, or the exit status after the report. */
static int bundle_path(const cli_context *ctx, const char *given, char **ret) {
	char *copy = strdup(given), *copy2 = strdup(given), *parent, *real;
	int status = 0;
	if (!copy || !copy2) {
		free(copy);
		free(copy2);
		return cli_report(ctx, CONFINE_E_SYSTEM, "out of memory");
	}
	parent = dirname(copy);
	/* `/`, `.`, `..`: a directory that exists, named by itself. */
	if (strcmp(basename(copy2), "/") == 0 || strcmp(basename(copy2), ".") == 0 ||
	    strcmp(basename(copy2), "..") == 0) {
		free(copy);
		free(copy2);
		if ((*ret = realpath(given, NULL)))
			return 0;
		return cli_report(ctx, CONFINE_E_INVALID_POLICY,
		                  "bundle directory \"%s\" (given with --bundle) cannot be resolved: %s",
		                  given, strerror(errno));
	}
	if (!(real = realpath(parent, NULL)))
		status = cli_report(ctx, CONFINE_E_INVALID_POLICY,
		                    "bundle directory \"%s\" (given with --bundle): its parent \"%s\" "
		                    "cannot be resolved: %s",
		                    given, parent, strerror(errno));
	else if (asprintf(ret, "%s/%s", strcmp(real, "/") == 0 ? "" : real, basename(copy2)) < 0)
		status = cli_report(ctx, CONFINE_E_SYSTEM, "out of memory");
	free(real);
	free(copy);
	free(copy2);
	return status;
}

static bool inside(const char *path, const char *root) {
	size_t n = strlen(root);
	return strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* A bundle the command can write is a policy the command can rewrite for
 * the next run: refused. */
static int check_bundle_place(const cli_context *ctx, const char *bundle) {
	const confine_policy *p = ctx->policy;
	const char *root = NULL;
	if (p->mode != CONFINE_MODE_WORKSPACE_WRITE)
		return 0;
	if (inside(bundle, p->workspace_root))
		root = p->workspace_root;
	for (size_t i = 0; !root && p->writable_roots && p->writable_roots[i]; i++)
		if (inside(bundle, p->writable_roots[i]))
			root = p->writable_roots[i];
	if (!root)
		return 0;
	return cli_report(ctx, CONFINE_E_INVALID_POLICY,
	                  "bundle directory \"%s\" (given with --bundle) lies inside the writable root "
	                  "\"%s\": the confined command could rewrite its own policy",
	                  bundle, root);
}

/* An existing DIR must be empty or hold only what an export writes: a
 * re-export replaces its own files, never anyone else's (`--bundle /`,
 * `--bundle ~` would otherwise put config.json there). */
static int check_bundle_contents(const cli_context *ctx, const char *bundle) {
	static const char *const ours[] = { "config.json", "rootfs", EXPORT_EMPTY_FILE, "k8s.json",
		                            "seccomp.json" };
	DIR *dir = opendir(bundle);
	struct dirent *entry;
	int status = 0;
	if (!dir)
		return 0; /* missing: made later; anything else: refused when written */
	while (status == 0 && (entry = readdir(dir))) {
		bool known = strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0 ||
		             entry->d_name[0] == '.'; /* our own temporary names */
		for (size_t i = 0; !known && i < sizeof ours / sizeof ours[0]; i++)
			known = strcmp(entry->d_name, ours[i]) == 0;
		if (!known)
			status = cli_report(ctx, CONFINE_E_INVALID_POLICY,
			                    "bundle directory \"%s\" (given with --bundle) holds \"%s\": give a "
			                    "new or empty directory, or one an export wrote",
			                    bundle, entry->d_name);
	}
	closedir(dir);
	return status;
}

static int make_dir(const char *path) {
	struct stat st;
	if (mkdir(path, 0755) == 0)
		return 0;
	if (errno == EEXIST && lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	return errno == EEXIST ? -ENOTDIR : -errno;
}

/* Writes `value` to DIR/NAME through a temporary file renamed over it, so
 * a reader never sees half a file. Releases `value`. 0 or -errno. */
static int write_json(const char *dir, const char *name, json_t *value, mode_t mode) {
	char tmp[PATH_MAX], path[PATH_MAX];
	int fd, r = 0;
	if (!value)
		return -ENOMEM;
	snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", dir, name);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
		json_decref(value);
		return -errno;
	}
	if (fchmod(fd, mode) < 0 || json_dumpfd(value, fd, JSON_INDENT(2) | JSON_ENSURE_ASCII) < 0 ||
	    write(fd, "\n", 1) != 1 || fsync(fd) < 0)
		r = errno ? -errno : -EIO;
	json_decref(value);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

/* runsc: the empty file bound over each denied file (export/oci.c). */
static int make_empty(const char *dir) {
	char path[PATH_MAX];
	int fd;
	snprintf(path, sizeof path, "%s/" EXPORT_EMPTY_FILE, dir);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0444)) < 0)
		return -errno;
	return close(fd) < 0 ? -errno : 0;
}

/* The target's files: DIR/config.json and DIR/rootfs (oci), or
 * DIR/k8s.json and DIR/seccomp.json (k8s). Their names go into `files`. */
static int write_target(const export_plan *plan, export_target target, export_k8s_kind kind,
                        const char *dir, json_t *files) {
	int r = make_dir(dir);
	char rootfs[PATH_MAX];
	if (r < 0)
		return r;
	if (target == EXPORT_TARGET_OCI) {
		snprintf(rootfs, sizeof rootfs, "%s/rootfs", dir);
		if ((r = make_dir(rootfs)) < 0 || (plan->runsc && (r = make_empty(dir)) < 0) ||
		    (plan->crun && (r = export_oci_root_links(rootfs)) < 0) ||
		    (r = write_json(dir, "config.json", export_oci_config(plan), 0600)) < 0)
			return r;
		json_array_append_new(files, json_string("config.json"));
		json_array_append_new(files, json_string("rootfs"));
		return 0;
	}
	if ((r = write_json(dir, "seccomp.json", export_seccomp_profile(), 0644)) < 0 ||
	    (r = write_json(dir, "k8s.json", export_k8s_objects(plan, "confine-run", K8S_PROFILE_NAME, kind),
	                    0600)) < 0)
		return r;
	json_array_append_new(files, json_string("k8s.json"));
	json_array_append_new(files, json_string("seccomp.json"));
	return 0;
}

/* Without --json: the report on stderr, one line per clause. */
static void print_report(export_target target, json_t *report) {
	for (size_t i = 0; i < json_array_size(report); i++) {
		json_t *record = json_array_get(report, i);
		const char *subject = json_string_value(json_object_get(record, "subject"));
		const char *reason = json_string_value(json_object_get(record, "reason"));
		fprintf(stderr, "confine: export %s: %s %s%s%s%s%s\n", export_target_name(target),
		        json_string_value(json_object_get(record, "status")),
		        json_string_value(json_object_get(record, "clause")), subject ? " " : "",
		        subject ? subject : "", reason ? ": " : "", reason ? reason : "");
	}
}

int cli_command_export(cli_context *ctx) {
	const cli_args *args = ctx->args;
	export_target target;
	export_plan plan;
	char error[EXPORT_ERROR_MAX], lost[CONFINE_ERROR_MESSAGE_MAX / 2];
	char *bundle = NULL;
	json_t *report, *files, *object;
	bool full = false;
	int status, r;

	if (export_target_parse(args->export_target, &target) < 0)
		return cli_fail(CLI_EXIT_FAILURE, CLI_E_USAGE, "unknown export target", NULL);
	if (!confine_mode_is_confined(ctx->policy->mode))
		return cli_report(ctx, CONFINE_E_INVALID_POLICY,
		                  "danger-full-access has no sandbox to export: give -m read-only or -m "
		                  "workspace-write");
	if ((status = bundle_path(ctx, args->bundle, &bundle)) != 0)
		return status;
	if ((status = check_bundle_place(ctx, bundle)) != 0 ||
	    (status = check_bundle_contents(ctx, bundle)) != 0) {
		free(bundle);
		return status;
	}
	r = export_plan_make(ctx->policy, args->program_argv, &plan, error, sizeof error);
	plan.runsc = args->oci_runtime && strcmp(args->oci_runtime, "runsc") == 0;
	plan.crun = args->oci_runtime && strcmp(args->oci_runtime, "crun") == 0;
	plan.bundle = bundle;
	plan.runtime_class = args->k8s_runtime_class;
	plan.image = args->k8s_image;
	if (r < 0) {
		export_plan_clear(&plan);
		free(bundle);
		return cli_report(ctx, r == -EILSEQ ? CLI_E_USAGE : CONFINE_E_SYSTEM, "%s",
		                  r == -ENOMEM ? "out of memory" : error);
	}
	if (!(report = export_report(&plan, target, &full))) {
		export_plan_clear(&plan);
		free(bundle);
		return cli_report(ctx, CONFINE_E_SYSTEM, "out of memory");
	}
	if (ctx->policy->require_full && !full) {
		export_report_describe_lost(report, lost, sizeof lost);
		if (!args->json)
			print_report(target, report);
		json_decref(report);
		export_plan_clear(&plan);
		free(bundle);
		return cli_report(ctx, CONFINE_E_SANDBOX_UNAVAILABLE,
		                  "requireFull: the %s export does not hold %s (nothing was written)",
		                  export_target_name(target), lost);
	}
	files = json_array();
	r = files ? write_target(&plan, target,
	                         args->k8s_kind && strcmp(args->k8s_kind, "SandboxTemplate") == 0
	                                 ? EXPORT_K8S_SANDBOX_TEMPLATE
	                                 : EXPORT_K8S_POD,
	                         bundle, files)
	          : -ENOMEM;
	export_plan_clear(&plan);
	if (r < 0) {
		json_decref(report);
		json_decref(files);
		status = cli_report(ctx, CONFINE_E_SYSTEM, "cannot write the bundle \"%s\": %s", bundle,
		                    strerror(-r));
		free(bundle);
		return status;
	}
	if (!args->json) {
		print_report(target, report);
		json_decref(report);
		json_decref(files);
		free(bundle);
		return 0;
	}
	object = json_pack("{s:s,s:s,s:o,s:s,s:o}", "target", export_target_name(target), "bundle",
	                   bundle, "files", files, "enforcement", full ? "full" : "partial", "clauses",
	                   report);
	free(bundle);
	if ((r = cli_emit_json(object)) < 0)
		return cli_report_output_failure(ctx, r);
	return 0;
}
