/* SPDX-License-Identifier: MIT */
/*
 * The spawner's placeholders (src/lib/spawn/placeholders.c, doc/SPEC.md
 * 15): what stands in for a protected path that does not exist yet is made
 * before a layered bwrap run, held with a shared lock while it runs, and
 * removed after it, unless another run still relies on it or it was
 * changed; one left by a run that died is adopted and removed by the next.
 * The argv is the one the library builds (the bwrap profile with
 * placeholders), so the test also proves the two agree.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "confine.h"
#include "policy-internal.h"
#include "spawn/spawn.h"
#include "testlib.h"
#include "rungs/bwrap/bwrap.h"

static char base[256];

static const char *at(const char *suffix) {
	static char buf[16][PATH_MAX];
	static unsigned next;
	char *p = buf[next++ % 16];
	snprintf(p, sizeof buf[0], "%s/%s", base, suffix);
	return p;
}

static int setup(void **state) {
	(void)state;
	if (tl_make_workdir("placeholders", base, sizeof base) < 0)
		return -1;
	/* a repository without commondir, and no .claude yet */
	if (mkdir(at("ws"), 0755) < 0 || mkdir(at("ws/.git"), 0755) < 0 ||
	    mkdir(at("ws/.git/hooks"), 0755) < 0 || mkdir(at("ws/.git/info"), 0755) < 0)
		return -1;
	free(tl_write_file(base, "ws/.git/config", "[core]\n", 0644));
	free(tl_write_file(base, "ws/.git/HEAD", "ref: refs/heads/main\n", 0644));
	return 0;
}

static int teardown(void **state) {
	(void)state;
	return tl_remove_tree(base);
}

/* The argv the library spawns on the bwrap rung, as far as placeholders go:
 * "bwrap", the profile with placeholders, "--", the command. */
static confine_argv *layered_argv_protecting(const char *protect) {
	confine_argv *c = calloc(1, sizeof *c);
	confine_policy *p = NULL;
	char **tokens = NULL;
	assert_non_null(c);
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("ws"), &p, NULL), 0);
	assert_int_equal(confine_policy_add_protected_path(p, protect, NULL), 0);
	assert_int_equal(confine_profile_bwrap_flags(p, CF_PROFILE_PLACEHOLDERS, &tokens), 0);
	assert_int_equal(cf_strv_push(&c->argv, "/usr/bin/bwrap"), 0);
	for (size_t i = 0; tokens[i]; i++)
		assert_int_equal(cf_strv_push(&c->argv, tokens[i]), 0);
	assert_int_equal(cf_strv_push(&c->argv, "--"), 0);
	assert_int_equal(cf_strv_push(&c->argv, "true"), 0);
	c->argc = cf_strv_length((const char *const *)c->argv);
	c->runner = CONFINE_RUNNER_BWRAP;
	c->spawn_flags = CONFINE_SPAWN_STATUS_CHANNEL;
	assert_int_equal(cf_policy_copy_into(&c->policy, p), 0);
	confine_strv_free(tokens);
	confine_policy_free(p);
	return c;
}

static confine_argv *layered_argv(void) {
	return layered_argv_protecting(".claude/settings.json");
}

static bool bound(const confine_argv *c, const char *path) {
	for (size_t i = 1; c->argv[i] && c->argv[i + 1]; i++)
		if (strcmp(c->argv[i], "--ro-bind") == 0 && strcmp(c->argv[i + 1], path) == 0)
			return true;
	return false;
}

static char *slurp(const char *path) {
	static char buf[64];
	FILE *f = fopen(path, "r");
	size_t n;
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static bool exists(const char *path) {
	struct stat st;
	return lstat(path, &st) == 0;
}

static void test_made_before_removed_after(void **state) {
	confine_argv *c = layered_argv();
	struct cf_placeholders *ph = NULL;
	struct stat st;
	(void)state;
	/* the profile binds what does not exist yet */
	assert_true(bound(c, at("ws/.git/commondir")));
	assert_true(bound(c, at("ws/.claude")));
	assert_false(exists(at("ws/.git/commondir")));
	assert_int_equal(cf_placeholders_make(c, &ph, NULL), 0);
	/* commondir names the repository itself; .claude is an empty directory */
	assert_string_equal(slurp(at("ws/.git/commondir")), ".\n");
	assert_int_equal(lstat(at("ws/.claude"), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	cf_placeholders_release(ph);
	assert_false(exists(at("ws/.git/commondir")));
	assert_false(exists(at("ws/.claude")));
	confine_argv_free(c);
}

/* Removing one while another run's mount sits on it would detach that
 * mount: the last run to let go removes it. */
static void test_two_runs_at_once(void **state) {
	confine_argv *a = layered_argv(), *b;
	struct cf_placeholders *pa = NULL, *pb = NULL;
	(void)state;
	assert_int_equal(cf_placeholders_make(a, &pa, NULL), 0);
	b = layered_argv(); /* built while A's placeholders exist */
	assert_true(bound(b, at("ws/.git/commondir")));
	assert_int_equal(cf_placeholders_make(b, &pb, NULL), 0);
	cf_placeholders_release(pa); /* A ends first */
	assert_string_equal(slurp(at("ws/.git/commondir")), ".\n");
	assert_true(exists(at("ws/.claude")));
	cf_placeholders_release(pb);
	assert_false(exists(at("ws/.git/commondir")));
	assert_false(exists(at("ws/.claude")));
	confine_argv_free(a);
	confine_argv_free(b);
}

static bool pinned(const confine_argv *c, const char *path) {
	for (size_t i = 1; c->argv[i] && c->argv[i + 1]; i++)
		if (strcmp(c->argv[i], "--bind") == 0 && strcmp(c->argv[i + 1], path) == 0)
			return true;
	return false;
}

/* 16 runs at once in one workspace: B plans while A's stand-in `.claude`
 * is there, and takes it for missing: B's own placeholder at `.claude`,
 * not a pin of A's directory with one inside it. A ending before B's
 * spawner holds it removes it; B then makes its own (before, B's profile
 * named an inode that was gone: "the filesystem could not be read"). */
static void test_another_runs_stand_in_is_missing(void **state) {
	confine_argv *a = layered_argv(), *b;
	struct cf_placeholders *pa = NULL, *pb = NULL;
	char v[4];
	(void)state;
	assert_int_equal(cf_placeholders_make(a, &pa, NULL), 0);
	if (getxattr(at("ws/.claude"), "user.confine.placeholder", v, sizeof v) < 0) {
		print_message("# this filesystem keeps no user extended attribute: no mark to read\n");
		cf_placeholders_release(pa);
		confine_argv_free(a);
		return;
	}
	b = layered_argv();
	assert_true(bound(b, at("ws/.claude")));
	assert_false(pinned(b, at("ws/.claude")));
	assert_false(bound(b, at("ws/.claude/settings.json")));
	cf_placeholders_release(pa);
	assert_false(exists(at("ws/.claude")));
	assert_int_equal(cf_placeholders_make(b, &pb, NULL), 0);
	assert_true(exists(at("ws/.claude")));
	cf_placeholders_release(pb);
	assert_false(exists(at("ws/.claude")));
	confine_argv_free(a);
	confine_argv_free(b);
}

/* Changed on the host meanwhile: the user's now, kept. */
static void test_a_changed_placeholder_is_kept(void **state) {
	confine_argv *c = layered_argv();
	struct cf_placeholders *ph = NULL;
	char *p;
	(void)state;
	assert_int_equal(cf_placeholders_make(c, &ph, NULL), 0);
	p = tl_write_file(base, "ws/.claude/settings.local.json", "{}\n", 0644);
	free(p);
	cf_placeholders_release(ph);
	assert_true(exists(at("ws/.claude/settings.local.json")));
	assert_false(exists(at("ws/.git/commondir")));
	confine_argv_free(c);
}

/* A run killed with SIGKILL leaves them; the next adopts and removes them
 * (where the filesystem keeps the mark). An unmarked empty file the user
 * made is protected as it is, and never removed. */
static void test_left_by_a_dead_run(void **state) {
	confine_argv *c = layered_argv(), *next;
	struct cf_placeholders *ph = NULL, *pn = NULL;
	char v[4];
	bool markable;
	(void)state;
	assert_int_equal(cf_placeholders_make(c, &ph, NULL), 0);
	markable = getxattr(at("ws/.git/commondir"), "user.confine.placeholder", v, sizeof v) >= 0;
	/* what SIGKILL leaves: the files, no lock (this run's descriptors stay
	 * open, its locks are dropped) */
	next = layered_argv();
	{
		int fd;
		for (fd = 3; fd < 1024; fd++) {
			struct stat st;
			char link[64], target[PATH_MAX];
			ssize_t n;
			snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
			n = readlink(link, target, sizeof target - 1);
			if (n <= 0 || fstat(fd, &st) < 0)
				continue;
			target[n] = '\0';
			if (strncmp(target, base, strlen(base)) == 0)
				(void)flock(fd, LOCK_UN);
		}
	}
	assert_int_equal(cf_placeholders_make(next, &pn, NULL), 0);
	cf_placeholders_release(pn);
	if (markable) {
		assert_false(exists(at("ws/.git/commondir")));
		assert_false(exists(at("ws/.claude")));
	} else {
		print_message("# this filesystem keeps no user extended attribute: left as they are\n");
	}
	/* the dead run's set, kept above to hold its descriptors open: released
	 * now that the next run has adopted its placeholders */
	cf_placeholders_release(ph);
	confine_argv_free(c);
	confine_argv_free(next);
}

static void test_the_users_empty_file_is_not_removed(void **state) {
	confine_argv *c;
	struct cf_placeholders *ph = NULL;
	(void)state;
	free(tl_write_file(base, "ws/.git/commondir", ".\n", 0644));
	c = layered_argv();
	assert_true(bound(c, at("ws/.git/commondir")));
	assert_int_equal(cf_placeholders_make(c, &ph, NULL), 0);
	cf_placeholders_release(ph);
	assert_string_equal(slurp(at("ws/.git/commondir")), ".\n");
	unlink(at("ws/.git/commondir"));
	confine_argv_free(c);
}

/* Where this process cannot create (a directory it cannot write), the
 * command cannot either: the bind is dropped, nothing is made. */
static void test_uncreatable_is_dropped(void **state) {
	confine_argv *c;
	struct cf_placeholders *ph = NULL;
	(void)state;
	if (geteuid() == 0)
		skip(); /* root creates anywhere */
	assert_int_equal(chmod(at("ws/.git"), 0555), 0);
	c = layered_argv();
	assert_true(bound(c, at("ws/.git/commondir")));
	assert_int_equal(cf_placeholders_make(c, &ph, NULL), 0);
	assert_false(bound(c, at("ws/.git/commondir")));
	assert_int_equal(c->argc, cf_strv_length((const char *const *)c->argv));
	cf_placeholders_release(ph);
	assert_int_equal(chmod(at("ws/.git"), 0755), 0);
	confine_argv_free(c);
}

/* A protected path replaced on the host while the run lives (a save:
 * write a temporary file, rename it over the name) is no longer what the
 * mount sat on: reported, by origin. */
static void test_a_replacement_is_noticed(void **state) {
	confine_argv *c = layered_argv();
	struct cf_placeholders *ph = NULL;
	bool explicit_replaced, default_replaced;
	(void)state;
	assert_int_equal(cf_placeholders_make(c, &ph, NULL), 0);
	cf_placeholders_replaced(ph, &explicit_replaced, &default_replaced);
	assert_false(explicit_replaced || default_replaced);
	/* a default protection: .git/config saved over */
	free(tl_write_file(base, "ws/.git/config.tmp", "[core]\n", 0644));
	assert_int_equal(rename(at("ws/.git/config.tmp"), at("ws/.git/config")), 0);
	cf_placeholders_replaced(ph, &explicit_replaced, &default_replaced);
	assert_false(explicit_replaced);
	assert_true(default_replaced);
	/* the placeholder for .claude/settings.json's parent, removed */
	assert_int_equal(rmdir(at("ws/.claude")), 0);
	cf_placeholders_replaced(ph, &explicit_replaced, &default_replaced);
	assert_true(explicit_replaced);
	cf_placeholders_release(ph);
	confine_argv_free(c);
}

/* The library may be root and a concurrent run's command may write the
 * workspace: a directory on the way to a placeholder swapped for a symlink
 * between the argv and the spawn must not lead the placeholder elsewhere.
 * The run fails plainly and nothing is made outside. (A swap in the
 * narrower window between the spawner's own plan and its mkdir meets the
 * component-by-component O_NOFOLLOW walk, which a test cannot time.) */
static void test_a_symlink_swapped_in_is_not_followed(void **state) {
	confine_argv *c;
	struct cf_placeholders *ph = NULL;
	(void)state;
	assert_int_equal(mkdir(at("ws/a"), 0755), 0);
	assert_int_equal(mkdir(at("outside"), 0755), 0);
	c = layered_argv_protecting("a/b/c/file.txt");
	assert_true(bound(c, at("ws/a/b")));
	assert_int_equal(rmdir(at("ws/a")), 0);
	assert_int_equal(symlink(at("outside"), at("ws/a")), 0);
	assert_true(cf_placeholders_make(c, &ph, NULL) < 0);
	assert_false(exists(at("outside/b")));
	confine_argv_free(c);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_made_before_removed_after, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_runs_at_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_another_runs_stand_in_is_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_changed_placeholder_is_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_left_by_a_dead_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_the_users_empty_file_is_not_removed, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_uncreatable_is_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_replacement_is_noticed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_symlink_swapped_in_is_not_followed, setup,
		                                teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
