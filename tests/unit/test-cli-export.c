/* SPDX-License-Identifier: MIT */
/*
 * confine export's plan and targets (doc/SPEC.md 20), apart from the
 * command: a bwrap profile read back as mounts, masks and namespaces (the
 * whole list asserted), a token the reader does not know refused by name,
 * and the OCI config's frame (root, order, seccomp, capabilities).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "export/export.h"

static char **strv(const char *const *words) {
	size_t n = 0;
	char **out;
	while (words[n])
		n++;
	out = calloc(n + 1, sizeof *out);
	assert_non_null(out);
	for (size_t i = 0; i < n; i++)
		assert_non_null(out[i] = strdup(words[i]));
	return out;
}

#define T(...) strv((const char *const[]){__VA_ARGS__, NULL})

static const char *const bwrap_frame[] = {
	"--ro-bind", "/", "/", "--dev", "/dev", "--unshare-pid", "--unshare-ipc",
	"--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys", "--die-with-parent",
	"--new-session", "--cap-drop", "ALL", NULL,
};

static char **frame_and(const char *const *more) {
	const char *words[64];
	size_t n = 0;
	for (size_t i = 0; bwrap_frame[i]; i++)
		words[n++] = bwrap_frame[i];
	for (size_t i = 0; more[i]; i++)
		words[n++] = more[i];
	words[n] = NULL;
	return strv(words);
}

static void test_a_workspace_write_profile_reads_back_as_its_mounts_in_order(void **state) {
	export_plan plan;
	char error[EXPORT_ERROR_MAX];
	(void)state;
	memset(&plan, 0, sizeof plan);
	assert_int_equal(export_plan_read(&plan,
	                                  frame_and((const char *const[]){
	                                          "--unshare-net", "--tmpfs", "/tmp", "--bind", "/ws",
	                                          "/ws", "--bind", "/ws/.git", "/ws/.git", "--ro-bind",
	                                          "/ws/.git/hooks", "/ws/.git/hooks", "--tmpfs",
	                                          "/ws/secrets", "--remount-ro", "/ws/secrets",
	                                          "--ro-bind", "/dev/null", "/ws/.env", NULL }),
	                                  error, sizeof error),
	                 0);
	assert_true(plan.private_network);
	assert_true(plan.private_tmp);
	assert_int_equal(plan.n_mounts, 4);
	assert_int_equal(plan.mounts[0].kind, EXPORT_MOUNT_TMPFS);
	assert_string_equal(plan.mounts[0].destination, "/tmp");
	assert_int_equal(plan.mounts[1].kind, EXPORT_MOUNT_BIND_RW);
	assert_string_equal(plan.mounts[1].destination, "/ws");
	assert_int_equal(plan.mounts[2].kind, EXPORT_MOUNT_BIND_RW);
	assert_string_equal(plan.mounts[2].destination, "/ws/.git");
	assert_int_equal(plan.mounts[3].kind, EXPORT_MOUNT_BIND_RO);
	assert_string_equal(plan.mounts[3].destination, "/ws/.git/hooks");
	assert_int_equal(plan.n_masked, 2);
	assert_string_equal(plan.masked[0], "/ws/secrets");
	assert_true(plan.masked_is_dir[0]);
	assert_string_equal(plan.masked[1], "/ws/.env");
	assert_false(plan.masked_is_dir[1]);
	export_plan_clear(&plan);
}

static void test_a_token_the_reader_does_not_know_is_refused_by_name(void **state) {
	const char *const *cases[] = {
		(const char *const[]){ "--symlink", "/a", "/b", NULL },
		(const char *const[]){ "--tmpfs", "/var", NULL },           /* a tmpfs not at /tmp, not a mask */
		(const char *const[]){ "--bind", "/ws", NULL },             /* cut short */
		(const char *const[]){ "--chmod", "0700", "/ws", NULL },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		export_plan plan;
		char error[EXPORT_ERROR_MAX];
		memset(&plan, 0, sizeof plan);
		assert_int_equal(export_plan_read(&plan, frame_and(cases[i]), error, sizeof error), -EINVAL);
		assert_non_null(strstr(error, cases[i][0]));
		assert_non_null(strstr(error, "nothing was written"));
		export_plan_clear(&plan);
	}
}

static json_t *mount_at(json_t *mounts, size_t i) {
	return json_array_get(mounts, i);
}

static void test_the_oci_config_binds_the_host_root_recursively_read_only_first(void **state) {
	export_plan plan;
	confine_policy policy;
	char error[EXPORT_ERROR_MAX];
	char *argv[] = { (char *)"true", NULL };
	char *env[] = { strdup("PATH=/usr/bin"), NULL };
	json_t *config, *mounts, *caps, *seccomp;
	(void)state;
	memset(&plan, 0, sizeof plan);
	memset(&policy, 0, sizeof policy);
	policy.mode = CONFINE_MODE_WORKSPACE_WRITE;
	policy.workspace_root = (char *)"/ws";
	assert_int_equal(export_plan_read(&plan,
	                                  frame_and((const char *const[]){ "--bind", "/ws", "/ws",
	                                                                   "--ro-bind", "/dev/null",
	                                                                   "/ws/.env", NULL }),
	                                  error, sizeof error),
	                 0);
	plan.policy = &policy;
	plan.argv = argv;
	plan.env = calloc(2, sizeof *plan.env);
	plan.env[0] = env[0];
	plan.uid = 0;
	config = export_oci_config(&plan);
	assert_non_null(config);
	assert_string_equal(json_string_value(json_object_get(config, "ociVersion")), "1.0.2");
	assert_true(json_is_true(json_object_get(json_object_get(config, "root"), "readonly")));
	mounts = json_object_get(config, "mounts");
	assert_string_equal(json_string_value(json_object_get(mount_at(mounts, 0), "destination")), "/");
	assert_string_equal(json_string_value(json_array_get(
	                            json_object_get(mount_at(mounts, 0), "options"), 1)),
	                    "rro");
	/* the workspace after the frame's /proc, /dev, /dev/pts, /dev/shm */
	assert_string_equal(json_string_value(json_object_get(mount_at(mounts, 5), "destination")),
	                    "/ws");
	assert_int_equal(json_array_size(mounts), 6);
	/* denyRead is a masked path, last of them */
	{
		json_t *masked = json_object_get(json_object_get(config, "linux"), "maskedPaths");
		assert_string_equal(json_string_value(json_array_get(masked, json_array_size(masked) - 1)),
		                    "/ws/.env");
	}
	caps = json_object_get(json_object_get(config, "process"), "capabilities");
	assert_int_equal(json_object_size(caps), 5);
	assert_int_equal(json_array_size(json_object_get(caps, "bounding")), 0);
	assert_true(json_is_true(json_object_get(json_object_get(config, "process"), "noNewPrivileges")));
	seccomp = json_object_get(json_object_get(config, "linux"), "seccomp");
	assert_string_equal(json_string_value(json_object_get(seccomp, "defaultAction")),
	                    "SCMP_ACT_ALLOW");
	json_decref(config);
	/* runsc: no rro, and denyRead as a mount of the bundle's empty file */
	plan.runsc = true;
	plan.bundle = "/b";
	config = export_oci_config(&plan);
	mounts = json_object_get(config, "mounts");
	assert_string_equal(json_string_value(json_array_get(
	                            json_object_get(mount_at(mounts, 0), "options"), 1)),
	                    "ro");
	assert_string_equal(json_string_value(json_object_get(mount_at(mounts, 6), "source")),
	                    "/b/" EXPORT_EMPTY_FILE);
	json_decref(config);
	export_plan_clear(&plan);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_workspace_write_profile_reads_back_as_its_mounts_in_order),
		cmocka_unit_test(test_a_token_the_reader_does_not_know_is_refused_by_name),
		cmocka_unit_test(test_the_oci_config_binds_the_host_root_recursively_read_only_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
