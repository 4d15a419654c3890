/* SPDX-License-Identifier: MIT */
/* The stage's format on its own, with no run and no rung (doc/SPEC.md 21):
 * an upper directory written by hand in overlayfs's format (a whiteout as
 * an empty file with user.overlay.whiteout, the form an upper layer that
 * cannot hold a device gets; an opaque directory) is listed, patched and
 * applied; a link out of the root and a protected path are refused at
 * apply; a host-side change is a conflict; the stage is never modified. */
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
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "confine.h"
#include "testlib.h"

static char base[1024], ws[1100], stage[1100], upper[1200];

static char *at(const char *dir, const char *rel) {
	static char bufs[4][2600];
	static int k;
	char *b = bufs[k++ % 4];
	snprintf(b, sizeof bufs[0], "%s/%s", dir, rel);
	return b;
}

static void put(const char *path, const char *content) {
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static int setup(void **state) {
	confine_policy *policy = NULL;
	confine_error err = { 0 };
	(void)state;
	snprintf(base, sizeof base, "/tmp/cf-unit-stage-XXXXXX");
	assert_non_null(mkdtemp(base));
	snprintf(ws, sizeof ws, "%s/ws", base);
	snprintf(stage, sizeof stage, "%s/stage", base);
	snprintf(upper, sizeof upper, "%s/roots/0/upper", stage);
	assert_int_equal(mkdir(ws, 0755), 0);
	put(at(ws, "keep.txt"), "keep\n");
	put(at(ws, "gone.txt"), "gone\n");
	put(at(ws, "edit.txt"), "one\n");
	assert_int_equal(mkdir(at(ws, "d"), 0755), 0);
	put(at(ws, "d/old.txt"), "old\n");
	assert_int_equal(mkdir(at(ws, ".git"), 0755), 0);
	assert_int_equal(mkdir(at(ws, ".git/hooks"), 0755), 0);
	assert_int_equal(mkdir(at(base, "outside"), 0755), 0);
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, ws, &policy, &err), 0);
	if (confine_stage_create(stage, policy, &err) < 0)
		fail_msg("confine_stage_create: %s", err.message);
	confine_policy_free(policy);
	return 0;
}

static int teardown(void **state) {
	char cmd[2200];
	(void)state;
	snprintf(cmd, sizeof cmd, "chmod -R u+rwX '%s' 2>/dev/null; rm -rf '%s'", base, base);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* What a run would have left: written by hand in overlayfs's format. */
static bool write_upper(void) {
	put(at(upper, "new.txt"), "new\n");
	put(at(upper, "edit.txt"), "one\ntwo\n");
	put(at(upper, "gone.txt"), "");
	if (setxattr(at(upper, "gone.txt"), "user.overlay.whiteout", "", 0, 0) < 0)
		return false; /* this filesystem keeps no user xattrs */
	assert_int_equal(mkdir(at(upper, "d"), 0755), 0);
	assert_int_equal(setxattr(at(upper, "d"), "user.overlay.opaque", "y", 1, 0), 0);
	put(at(upper, "d/fresh.txt"), "fresh\n");
	assert_int_equal(mkdir(at(upper, ".git"), 0755), 0);
	assert_int_equal(mkdir(at(upper, ".git/hooks"), 0755), 0);
	put(at(upper, ".git/hooks/pre-commit"), "evil\n");
	assert_int_equal(mkdir(at(upper, "via"), 0755), 0);
	put(at(upper, "via/x.txt"), "x\n");
	return true;
}

static const char *kind_of(const confine_stage_change *c, size_t n, const char *path) {
	for (size_t i = 0; i < n; i++)
		if (strcmp(c[i].path, path) == 0)
			return confine_change_kind_name(c[i].change);
	return NULL;
}

static void test_the_format_listed_patched_applied(void **state) {
	confine_stage *s = NULL;
	confine_stage_change *ch = NULL;
	confine_apply_entry *res = NULL;
	confine_error err = { 0 };
	char *patch = NULL;
	size_t n = 0, len = 0, nres = 0;
	struct stat st;
	(void)state;
	if (!write_upper())
		skip();
	assert_int_equal(confine_stage_open(stage, &s, &err), 0);
	assert_int_equal(confine_stage_changes(s, &ch, &n, &err), 0);
	assert_string_equal(kind_of(ch, n, "new.txt"), "added");
	assert_string_equal(kind_of(ch, n, "edit.txt"), "modified");
	assert_string_equal(kind_of(ch, n, "gone.txt"), "deleted");
	assert_string_equal(kind_of(ch, n, "d/old.txt"), "deleted"); /* the opaque directory */
	assert_string_equal(kind_of(ch, n, "d/fresh.txt"), "added");
	assert_null(kind_of(ch, n, "d"));
	assert_null(kind_of(ch, n, "keep.txt"));
	for (size_t i = 0; i < n; i++)
		if (strcmp(ch[i].path, ".git/hooks/pre-commit") == 0)
			assert_true(ch[i].git);
	confine_stage_changes_free(ch, n);

	assert_int_equal(confine_stage_patch(s, &patch, &len, &err), 0);
	assert_non_null(strstr(patch, "+++ b/new.txt"));
	assert_non_null(strstr(patch, "deleted file mode 100644\n--- a/gone.txt"));
	/* listed apart, never patched: named in a note before the first diff */
	assert_null(strstr(patch, "diff --git a/.git/"));
	assert_non_null(strstr(patch, "# confine: not in this patch (under .git): .git/hooks/pre-commit\n"));
	assert_true(strstr(patch, "# confine:") < strstr(patch, "diff --git"));
	confine_free(patch);

	/* The host: edits keep.txt (not staged: no conflict), and turns the
	 * staged directory `via` into a link out of the workspace. */
	put(at(ws, "keep.txt"), "host\n");
	assert_int_equal(symlink(at(base, "outside"), at(ws, "via")), 0);
	assert_int_equal(confine_stage_apply(s, NULL, false, &res, &nres, &err), 1);
	for (size_t i = 0; i < nres; i++) {
		if (strcmp(res[i].path, ".git/hooks/pre-commit") == 0)
			assert_int_equal(res[i].outcome, CONFINE_APPLY_REFUSED);
		else if (strcmp(res[i].path, "via") == 0)
			assert_int_equal(res[i].outcome, CONFINE_APPLY_CONFLICT);
		else if (strcmp(res[i].path, "via/x.txt") == 0)
			assert_int_not_equal(res[i].outcome, CONFINE_APPLY_APPLIED);
		else
			assert_int_equal(res[i].outcome, CONFINE_APPLY_APPLIED);
	}
	confine_apply_entries_free(res, nres);
	assert_true(tl_file_holds(at(ws, "new.txt"), "new\n"));
	assert_true(tl_file_holds(at(ws, "edit.txt"), "one\ntwo\n"));
	assert_true(tl_file_holds(at(ws, "keep.txt"), "host\n"));
	assert_true(tl_file_holds(at(ws, "d/fresh.txt"), "fresh\n"));
	assert_int_equal(lstat(at(ws, "gone.txt"), &st), -1);
	assert_int_equal(lstat(at(ws, "d/old.txt"), &st), -1);
	assert_int_equal(lstat(at(ws, ".git/hooks/pre-commit"), &st), -1);
	assert_int_equal(lstat(at(base, "outside/x.txt"), &st), -1); /* never followed out */
	/* The stage is only read. */
	assert_true(tl_file_holds(at(upper, "edit.txt"), "one\ntwo\n"));
	confine_stage_free(s);

	assert_int_equal(confine_stage_discard(stage, &err), 0);
	assert_int_equal(lstat(stage, &st), -1);
}

static void test_no_stage_without_a_manifest(void **state) {
	confine_stage *s = NULL;
	confine_error err = { 0 };
	(void)state;
	assert_int_equal(unlink(at(stage, "manifest.json")), 0);
	assert_int_equal(confine_stage_open(stage, &s, &err), -ENOENT);
	assert_int_equal(err.code, CONFINE_E_INVALID_ARGUMENT);
	assert_int_equal(confine_stage_discard(stage, &err), -ENOENT);
	assert_int_equal(access(stage, F_OK), 0); /* nothing removed */
}

/* F4: a deleted directory (a whiteout in the upper layer) over what the
 * host edited below it after the run began: a conflict, nothing removed;
 * the control: unchanged, it goes whole. */
static void apply_deleted_dir(bool host_edit) {
	confine_stage *s = NULL;
	confine_apply_entry *res = NULL;
	confine_error err = { 0 };
	size_t nres = 0;
	struct stat st;
	put(at(upper, "d"), "");
	if (setxattr(at(upper, "d"), "user.overlay.whiteout", "", 0, 0) < 0)
		skip(); /* no user xattrs on this filesystem */
	if (host_edit) {
		FILE *f = fopen(at(ws, "d/old.txt"), "a");
		assert_non_null(f);
		fputs("host edit\n", f);
		fclose(f);
	}
	assert_int_equal(confine_stage_open(stage, &s, &err), 0);
	assert_int_equal(confine_stage_apply(s, NULL, false, &res, &nres, &err), host_edit ? 1 : 0);
	assert_int_equal(nres, 1);
	assert_string_equal(res[0].path, "d");
	if (host_edit) {
		assert_int_equal(res[0].outcome, CONFINE_APPLY_CONFLICT);
		assert_non_null(strstr(res[0].message, "/ws/d/old.txt changed on the host since the run"));
		assert_true(tl_file_holds(at(ws, "d/old.txt"), "old\nhost edit\n"));
	} else {
		assert_int_equal(res[0].outcome, CONFINE_APPLY_APPLIED);
		assert_int_equal(lstat(at(ws, "d"), &st), -1);
	}
	confine_apply_entries_free(res, nres);
	confine_stage_free(s);
}

static void test_deleted_dir_over_a_host_edit(void **state) {
	(void)state;
	apply_deleted_dir(true);
}

static void test_deleted_dir_control(void **state) {
	(void)state;
	apply_deleted_dir(false);
}

/* A link the host plants at a component after the run began (d -> the
 * outside directory) is never followed: the staged d/old.txt is a
 * conflict and the outside file keeps its bytes; the control lands. */
static void apply_through(bool plant) {
	confine_stage *s = NULL;
	confine_apply_entry *res = NULL;
	confine_error err = { 0 };
	size_t nres = 0;
	assert_int_equal(mkdir(at(upper, "d"), 0755), 0);
	put(at(upper, "d/old.txt"), "staged\n");
	put(at(base, "outside/old.txt"), "outside\n");
	if (plant) {
		assert_int_equal(rename(at(ws, "d"), at(ws, "d.moved")), 0);
		assert_int_equal(symlink(at(base, "outside"), at(ws, "d")), 0);
	}
	assert_int_equal(confine_stage_open(stage, &s, &err), 0);
	assert_int_equal(confine_stage_apply(s, NULL, false, &res, &nres, &err), plant ? 1 : 0);
	for (size_t i = 0; i < nres; i++)
		assert_int_equal(res[i].outcome, plant ? CONFINE_APPLY_CONFLICT : CONFINE_APPLY_APPLIED);
	assert_true(tl_file_holds(at(base, "outside/old.txt"), "outside\n"));
	if (!plant)
		assert_true(tl_file_holds(at(ws, "d/old.txt"), "staged\n"));
	else
		assert_true(tl_file_holds(at(ws, "d.moved/old.txt"), "old\n"));
	confine_apply_entries_free(res, nres);
	confine_stage_free(s);
}

static void test_link_planted_at_a_component(void **state) {
	(void)state;
	apply_through(true);
}

static void test_component_control(void **state) {
	(void)state;
	apply_through(false);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_the_format_listed_patched_applied, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_stage_without_a_manifest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deleted_dir_over_a_host_edit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deleted_dir_control, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_planted_at_a_component, setup, teardown),
		cmocka_unit_test_setup_teardown(test_component_control, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
