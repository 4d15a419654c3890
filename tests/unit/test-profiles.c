/* SPDX-License-Identifier: MIT */
/* Profiles (SPEC 5): each generator's exact tokens or text. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "confine.h"

static const char *const read_only_tokens[] = {
	"--ro-bind", "/", "/", "--dev", "/dev", "--unshare-pid", "--unshare-ipc",
	"--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys",
	"--die-with-parent", "--new-session", "--cap-drop", "ALL", NULL,
};

static void assert_strv_equal(char **got, const char *const *want) {
	size_t i;
	for (i = 0; want[i]; i++) {
		assert_non_null(got[i]);
		assert_string_equal(got[i], want[i]);
	}
	assert_null(got[i]);
}

static confine_policy policy_of(confine_mode mode, const char *root) {
	confine_policy p = { .mode = mode, .workspace_root = (char *)root };
	return p;
}

static void test_bwrap_read_only_is_the_16_tokens(void **state) {
	confine_policy p = policy_of(CONFINE_MODE_READ_ONLY, "/home/u/project");
	char **tokens = NULL;
	size_t n = 0;
	(void)state;
	assert_int_equal(confine_profile_bwrap(&p, &tokens), 0);
	assert_strv_equal(tokens, read_only_tokens);
	while (tokens[n])
		n++;
	assert_int_equal(n, 16);
	confine_strv_free(tokens);
}

static void test_bwrap_workspace_write_adds_tmpfs_before_bind(void **state) {
	confine_policy p = policy_of(CONFINE_MODE_WORKSPACE_WRITE, "/home/u/my project");
	static const char *const want[] = {
		"--ro-bind", "/", "/", "--dev", "/dev", "--unshare-pid", "--unshare-ipc",
		"--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys",
		"--die-with-parent", "--new-session", "--cap-drop", "ALL",
		"--tmpfs", "/tmp", "--bind", "/home/u/my project", "/home/u/my project", NULL,
	};
	char **tokens = NULL;
	(void)state;
	assert_int_equal(confine_profile_bwrap(&p, &tokens), 0);
	/* The 16 tokens, then --tmpfs /tmp, then --bind <root> <root>. */
	assert_strv_equal(tokens, want);
	confine_strv_free(tokens);
}

static void test_bwrap_workspace_under_tmp_is_bound_after_the_tmpfs(void **state) {
	confine_policy p = policy_of(CONFINE_MODE_WORKSPACE_WRITE, "/tmp/ws");
	char **tokens = NULL;
	(void)state;
	assert_int_equal(confine_profile_bwrap(&p, &tokens), 0);
	assert_string_equal(tokens[16], "--tmpfs");
	assert_string_equal(tokens[18], "--bind");
	assert_string_equal(tokens[19], "/tmp/ws");
	confine_strv_free(tokens);
}

/* read-only: a root the sandbox's own mounts would hide (below the private
 * /tmp, below /dev/shm under --dev) is bound back read-only, so the command
 * sees it and starts there; a root elsewhere adds nothing (doc/SPEC.md 5). */
static void test_bwrap_read_only_binds_back_a_hidden_root(void **state) {
	static const char *const roots[] = { "/tmp/ws", "/dev/shm/ws", NULL };
	static const char *const visible[] = { "/tmp", "/dev/shm", "/home/u/tmp/ws", NULL };
	(void)state;
	for (size_t i = 0; roots[i]; i++) {
		confine_policy p = policy_of(CONFINE_MODE_READ_ONLY, roots[i]);
		char **tokens = NULL;
		p.private_temp = true;
		assert_int_equal(confine_profile_bwrap(&p, &tokens), 0);
		assert_string_equal(tokens[16], "--tmpfs");
		assert_string_equal(tokens[17], "/tmp");
		assert_string_equal(tokens[18], "--ro-bind");
		assert_string_equal(tokens[19], roots[i]);
		assert_string_equal(tokens[20], roots[i]);
		assert_null(tokens[21]);
		confine_strv_free(tokens);
	}
	for (size_t i = 0; visible[i]; i++) {
		confine_policy p = policy_of(CONFINE_MODE_READ_ONLY, visible[i]);
		char **tokens = NULL;
		p.private_temp = true;
		assert_int_equal(confine_profile_bwrap(&p, &tokens), 0);
		assert_string_equal(tokens[16], "--tmpfs");
		assert_null(tokens[18]);
		confine_strv_free(tokens);
	}
}

/* A denyRead inside a read-only workspace under /tmp (bound back over the
 * private tmpfs) gets its mask: it is there to read (issue 28 finding: the
 * mask was dropped as "the host's /tmp", and the file was read while the
 * report said enforced). */
static void test_bwrap_read_only_masks_a_denied_file_in_a_root_under_tmp(void **state) {
	char dir[] = "/tmp/confine-profiles-XXXXXX", env[64];
	char *deny[] = { env, NULL };
	char **tokens = NULL;
	bool masked = false;
	FILE *f;
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(env, sizeof env, "%s/.env", dir);
	assert_non_null(f = fopen(env, "w"));
	fclose(f);
	{
		confine_policy p = policy_of(CONFINE_MODE_READ_ONLY, dir);
		p.private_temp = true;
		p.deny_read = deny;
		assert_int_equal(confine_profile_bwrap(&p, &tokens), 0);
	}
	for (size_t i = 0; tokens[i] && tokens[i + 1] && tokens[i + 2]; i++)
		masked |= strcmp(tokens[i], "--ro-bind") == 0 && strcmp(tokens[i + 1], "/dev/null") == 0 &&
		          strcmp(tokens[i + 2], env) == 0;
	confine_strv_free(tokens);
	unlink(env);
	rmdir(dir);
	assert_true(masked);
}

static void test_landlock_grants(void **state) {
	confine_policy ro = policy_of(CONFINE_MODE_READ_ONLY, "/home/u/p");
	confine_policy ww = policy_of(CONFINE_MODE_WORKSPACE_WRITE, "/home/u/p");
	static const char *const want_ro[] = { "--ro", "/", "--rw", "/dev/null", NULL };
	static const char *const want_ww[] = { "--ro", "/", "--rw", "/dev/null", "--rw-shared",
		                               "/dev/shm", "--rw", "/home/u/p", NULL };
	static const char *const want_ww_no_shm[] = { "--ro", "/", "--rw", "/dev/null", "--rw",
		                                      "/home/u/p", NULL };
	static const char *const want_ww_temp[] = { "--ro", "/", "--rw", "/dev/null", "--rw",
		                                    "/tmp/confine-tmp.1", "--rw-shared", "/dev/shm",
		                                    "--rw", "/home/u/p", NULL };
	static const char *const want_ww_temp_no_shm[] = { "--ro", "/", "--rw", "/dev/null", "--rw",
		                                           "/tmp/confine-tmp.1", "--rw", "/home/u/p",
		                                           NULL };
	struct stat shm;
	bool have_shm = stat("/dev/shm", &shm) == 0;
	char **tokens = NULL;
	(void)state;
	assert_int_equal(confine_profile_landlock(&ro, &tokens), 0);
	assert_strv_equal(tokens, want_ro);
	confine_strv_free(tokens);
	assert_int_equal(confine_profile_landlock(&ww, &tokens), 0);
	/* /dev/shm (POSIX semaphores), where the host has it, shared: no
	 * socket under it is reached. The host's /tmp is never granted. */
	assert_strv_equal(tokens, have_shm ? want_ww : want_ww_no_shm);
	/* The grant is the file /dev/null, never the directory /dev. */
	for (char **t = tokens; *t; t++) {
		assert_string_not_equal(*t, "/dev");
		assert_string_not_equal(*t, "/tmp");
	}
	confine_strv_free(tokens);
	/* The run's own temp dir, in workspace-write too. */
	ww.private_temp = true;
	ww.temp_dir = (char *)"/tmp/confine-tmp.1";
	assert_int_equal(confine_profile_landlock(&ww, &tokens), 0);
	assert_strv_equal(tokens, have_shm ? want_ww_temp : want_ww_temp_no_shm);
	confine_strv_free(tokens);
}

static void test_seatbelt_read_only_exact(void **state) {
	confine_policy p = policy_of(CONFINE_MODE_READ_ONLY, "/home/u/p");
	char *text = NULL;
	(void)state;
	assert_int_equal(confine_profile_seatbelt(&p, "/var/folders/x", &text), 0);
	assert_string_equal(text, "(version 1) (allow default) (deny file-write*) "
	                          "(allow file-write* (literal \"/dev/null\"))");
	free(text);
}

/* A fresh directory whose canonical path we know. */
static char *make_dir(const char *name) {
	char tmpl[] = "/tmp/confine-profiles-XXXXXX";
	char *base = mkdtemp(tmpl);
	char *real;
	char path[PATH_MAX];
	assert_non_null(base);
	snprintf(path, sizeof path, "%s/%s", base, name);
	assert_int_equal(mkdir(path, 0700), 0);
	real = realpath(path, NULL);
	assert_non_null(real);
	return real;
}

static void remove_dir(char *path) {
	char *slash;
	rmdir(path);
	slash = strrchr(path, '/');
	*slash = '\0';
	rmdir(path);
	free(path);
}

static void test_seatbelt_workspace_write_quotes_root(void **state) {
	char *root = make_dir("we\"ird\\dir");
	char *tmp = realpath("/tmp", NULL);
	confine_policy p = policy_of(CONFINE_MODE_WORKSPACE_WRITE, root);
	char *text = NULL;
	char want[4 * PATH_MAX + 512];
	char escaped[PATH_MAX];
	size_t k = 0;
	(void)state;
	for (const char *s = root; *s && k + 2 < sizeof escaped; s++) {
		if (*s == '"' || *s == '\\')
			escaped[k++] = '\\';
		escaped[k++] = *s;
	}
	escaped[k] = '\0';
	assert_non_null(strstr(escaped, "we\\\"ird\\\\dir"));
	/* $TMPDIR equal to /tmp: it appears once. */
	assert_int_equal(confine_profile_seatbelt(&p, "/tmp", &text), 0);
	snprintf(want, sizeof want,
	         "(version 1) (allow default) (deny file-write*) "
	         "(allow file-write* (literal \"/dev/null\")) "
	         "(allow file-write* (subpath \"%s\") (subpath \"%s\"))",
	         escaped, tmp);
	assert_string_equal(text, want);
	free(text);
	/* NULL tmpdir means /tmp too. */
	assert_int_equal(confine_profile_seatbelt(&p, NULL, &text), 0);
	assert_string_equal(text, want);
	free(text);
	free(tmp);
	remove_dir(root);
}

static void test_seatbelt_workspace_equal_to_temp_dir_appears_once(void **state) {
	char *dir = make_dir("tmpdir");
	char link_path[PATH_MAX];
	char *tmp = realpath("/tmp", NULL);
	confine_policy p;
	char *text = NULL;
	char want[4 * PATH_MAX + 512];
	(void)state;
	/* $TMPDIR given through a symlink and with a trailing slash, as macOS
	 * gives it: canonicalized, it is the workspace and is listed once. */
	snprintf(link_path, sizeof link_path, "%s-link", dir);
	assert_int_equal(symlink(dir, link_path), 0);
	strcat(link_path, "/");
	p = policy_of(CONFINE_MODE_WORKSPACE_WRITE, dir);
	assert_int_equal(confine_profile_seatbelt(&p, link_path, &text), 0);
	snprintf(want, sizeof want,
	         "(version 1) (allow default) (deny file-write*) "
	         "(allow file-write* (literal \"/dev/null\")) "
	         "(allow file-write* (subpath \"%s\") (subpath \"%s\"))",
	         dir, tmp);
	assert_string_equal(text, want);
	free(text);
	link_path[strlen(link_path) - 1] = '\0';
	unlink(link_path);
	free(tmp);
	remove_dir(dir);
}

static void test_seatbelt_tmpdir_canonicalized_and_listed_third(void **state) {
	char *tmpdir = make_dir("per-user");
	char link_path[PATH_MAX];
	confine_policy p = policy_of(CONFINE_MODE_WORKSPACE_WRITE, "/nonexistent/ws");
	char *tmp = realpath("/tmp", NULL);
	char *text = NULL;
	char want[4 * PATH_MAX + 512];
	(void)state;
	snprintf(link_path, sizeof link_path, "%s-alias", tmpdir);
	assert_int_equal(symlink(tmpdir, link_path), 0);
	assert_int_equal(confine_profile_seatbelt(&p, link_path, &text), 0);
	/* A root that does not resolve is used as given. */
	snprintf(want, sizeof want,
	         "(version 1) (allow default) (deny file-write*) "
	         "(allow file-write* (literal \"/dev/null\")) "
	         "(allow file-write* (subpath \"/nonexistent/ws\") (subpath \"%s\") "
	         "(subpath \"%s\"))",
	         tmp, tmpdir);
	assert_string_equal(text, want);
	free(text);
	unlink(link_path);
	free(tmp);
	remove_dir(tmpdir);
}

static void test_refuses_unconfined_and_bad_input(void **state) {
	confine_policy danger = policy_of(CONFINE_MODE_DANGER_FULL_ACCESS, "/home/u/p");
	confine_policy relative = policy_of(CONFINE_MODE_WORKSPACE_WRITE, "rel/p");
	confine_policy no_root = policy_of(CONFINE_MODE_WORKSPACE_WRITE, NULL);
	char **tokens = (char **)0x1;
	char *text = (char *)0x1;
	(void)state;
	assert_int_equal(confine_profile_bwrap(&danger, &tokens), -EINVAL);
	assert_int_equal(confine_profile_landlock(&danger, &tokens), -EINVAL);
	assert_int_equal(confine_profile_seatbelt(&danger, NULL, &text), -EINVAL);
	assert_int_equal(confine_profile_bwrap(&relative, &tokens), -EINVAL);
	assert_int_equal(confine_profile_landlock(&no_root, &tokens), -EINVAL);
	assert_int_equal(confine_profile_seatbelt(&relative, NULL, &text), -EINVAL);
	assert_int_equal(confine_profile_bwrap(NULL, &tokens), -EINVAL);
	/* ret untouched on failure */
	assert_ptr_equal(tokens, (char **)0x1);
	assert_ptr_equal(text, (char *)0x1);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bwrap_read_only_is_the_16_tokens),
		cmocka_unit_test(test_bwrap_workspace_write_adds_tmpfs_before_bind),
		cmocka_unit_test(test_bwrap_workspace_under_tmp_is_bound_after_the_tmpfs),
		cmocka_unit_test(test_bwrap_read_only_binds_back_a_hidden_root),
		cmocka_unit_test(test_bwrap_read_only_masks_a_denied_file_in_a_root_under_tmp),
		cmocka_unit_test(test_landlock_grants),
		cmocka_unit_test(test_seatbelt_read_only_exact),
		cmocka_unit_test(test_seatbelt_workspace_write_quotes_root),
		cmocka_unit_test(test_seatbelt_workspace_equal_to_temp_dir_appears_once),
		cmocka_unit_test(test_seatbelt_tmpdir_canonicalized_and_listed_third),
		cmocka_unit_test(test_refuses_unconfined_and_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
