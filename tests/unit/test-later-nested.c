/* SPDX-License-Identifier: MIT */
/*
 * What runs later in nested projects (doc/SPEC.md 15, "What runs later",
 * "Nested projects"): a repository's work tree below a writable root holds
 * every project entry as the root does (bwrap's plan), the file API
 * refuses a project entry in any directory below a root, the git walk
 * records where it reads an entry's first component, and the fingerprint
 * reports a sub-project's entry made or changed.
 */
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
#include "git-hazards.h"
#include "later.h"
#include "policy-internal.h"
#include "profiles/plan.h"
#include "testlib.h"

static char base[PATH_MAX / 2];

static const char *at(const char *rel) {
	static char buf[8][PATH_MAX];
	static unsigned next;
	char *out = buf[next++ % 8];
	if ((size_t)snprintf(out, sizeof buf[0], "%s/%.*s", base, PATH_MAX / 4, rel) >= sizeof buf[0])
		fail_msg("path too long");
	return out;
}

static void put(const char *rel, const char *text) {
	FILE *f = fopen(at(rel), "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int make_dirs(const char *path) {
	char buf[PATH_MAX];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *q = buf + 1; *q; q++)
		if (*q == '/') {
			*q = '\0';
			if (mkdir(buf, 0755) < 0 && errno != EEXIST)
				return -1;
			*q = '/';
		}
	return mkdir(buf, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

static char *saved_home;

/* A fresh tree; $HOME (the home entries' place) is its `home`. */
static int fresh(void **state) {
	(void)state;
	if (!saved_home && getenv("HOME"))
		saved_home = strdup(getenv("HOME"));
	if (saved_home)
		setenv("HOME", saved_home, 1);
	if (tl_make_workdir("later-nested", base, sizeof base) != 0)
		return -1;
	setenv("HOME", at("home"), 1);
	return 0;
}

static int cleanup(void **state) {
	(void)state;
	if (saved_home)
		setenv("HOME", saved_home, 1);
	return tl_remove_tree(base);
}

static confine_policy *workspace(void) {
	confine_policy *p = NULL;
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("ws"), &p, NULL), 0);
	return p;
}

static const cf_protected *find(const cf_plan *plan, const char *rel) {
	for (size_t i = 0; i < plan->n_protected; i++)
		if (strcmp(plan->protected_paths[i].path, at(rel)) == 0)
			return &plan->protected_paths[i];
	return NULL;
}

/* The first component of a project entry marks a directory; a home-only
 * entry's, or any other name, does not. */
static void test_marks(void **state) {
	static const char *const yes[] = { ".claude", ".vscode", "CLAUDE.md", "AGENTS.md", ".envrc",
		                               ".mcp.json", ".gitattributes", "mise.toml", ".github" };
	static const char *const no[] = { "node_modules", ".ssh", ".gnupg", ".claude.json",
		                              "package.json", "CLAUDE", ".claudex", "src", "" };
	(void)state;
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		if (!cf_later_marks(yes[i]))
			fail_msg("%s does not mark a project", yes[i]);
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		if (cf_later_marks(no[i]))
			fail_msg("%s marks a project", no[i]);
}

/* bwrap: a nested repository's missing .envrc, .claude/, CLAUDE.md stand
 * in as at the root; its existing .vscode/tasks.json is held as it is; a
 * home-only entry is not placed there, nor anything in a plain directory. */
static void test_nested_repository_plan(void **state) {
	confine_policy *p;
	cf_plan plan;
	const cf_protected *e;
	(void)state;
	assert_int_equal(make_dirs(at("ws/app/.git/hooks")), 0);
	assert_int_equal(make_dirs(at("ws/app/.vscode")), 0);
	assert_int_equal(make_dirs(at("ws/plain")), 0);
	assert_int_equal(make_dirs(at("home")), 0);
	put("ws/app/.git/HEAD", "ref: refs/heads/main\n");
	put("ws/app/.git/config", "[core]\n");
	put("ws/app/.vscode/tasks.json", "{}\n");
	p = workspace();
	assert_int_equal(cf_plan_make(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS, &plan), 0);
	for (size_t i = 0; i < 3; i++) {
		static const char *const missing[] = { "ws/app/.envrc", "ws/app/.claude", "ws/app/CLAUDE.md" };
		if (!(e = find(&plan, missing[i])))
			fail_msg("%s is not held", missing[i]);
		assert_false(e->exists);
		assert_int_equal(e->kind, CF_PLACEHOLDER_DIR);
	}
	assert_non_null((e = find(&plan, "ws/app/.vscode/tasks.json")));
	assert_true(e->exists);
	assert_non_null(find(&plan, "ws/app/.gitmodules"));
	assert_null(find(&plan, "ws/app/.ssh"));
	assert_null(find(&plan, "ws/app/.gitconfig"));
	assert_null(find(&plan, "ws/plain/.envrc"));
	assert_false(plan.defaults_unprotected);
	cf_plan_clear(&plan);
	/* the opt-out, per entry, at the nested repository too */
	assert_int_equal(confine_policy_add_unprotect(p, ".envrc", NULL), 0);
	assert_int_equal(cf_plan_make(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS, &plan), 0);
	assert_null(find(&plan, "ws/app/.envrc"));
	assert_null(find(&plan, "ws/.envrc"));
	assert_non_null(find(&plan, "ws/app/CLAUDE.md"));
	cf_plan_clear(&plan);
	confine_policy_free(p);
}

/* The file API's name rule: a project entry in any directory below the
 * root, existing or not, repository or not; not a home-only entry there,
 * not a name that merely starts like one, not an unprotected entry. */
static void test_name_refused(void **state) {
	static const char *const refused[] = { "ws/app/.envrc", "ws/app/.claude/settings.json",
		                                   "ws/a/b/CLAUDE.md", "ws/x/.vscode/tasks.json",
		                                   "ws/x/.mcp.json", "ws/x/.husky/pre-commit",
		                                   "ws/.envrc" };
	static const char *const allowed[] = { "ws/x/.ssh/config", "ws/x/CLAUDE.mdx",
		                                   "ws/x/.claude/notes.txt", "ws/x/README.md",
		                                   "ws/x/.envrc.d/a", "elsewhere/.envrc" };
	confine_policy *p;
	char root[PATH_MAX];
	(void)state;
	assert_int_equal(make_dirs(at("ws")), 0);
	p = workspace();
	snprintf(root, sizeof root, "%s", at("ws"));
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
		if (!cf_later_name_refused(p, root, at(refused[i])))
			fail_msg("%s is not refused", refused[i]);
	for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
		if (cf_later_name_refused(p, root, at(allowed[i])))
			fail_msg("%s is refused", allowed[i]);
	assert_int_equal(confine_policy_add_unprotect(p, "CLAUDE.md", NULL), 0);
	assert_false(cf_later_name_refused(p, root, at("ws/a/b/CLAUDE.md")));
	assert_true(cf_later_name_refused(p, root, at("ws/app/.envrc")));
	p->default_protections = false;
	assert_false(cf_later_name_refused(p, root, at("ws/app/.envrc")));
	confine_policy_free(p);
}

static bool planted(const confine_git_hazard *h, size_t n, const char *rel) {
	for (size_t i = 0; i < n; i++)
		if (strcmp(h[i].path, at(rel)) == 0 && strcmp(h[i].kind, "planted") == 0)
			return true;
	return false;
}

/* Before and after, with the walks' marks: a sub-project's CLAUDE.md
 * changed, an .envrc made in a directory that had no entry, one removed
 * with its directory's only mark, each planted; an untouched one is not. */
static void test_sub_project_report(void **state) {
	char *roots[2];
	cf_git_snapshot *gb = NULL, *ga = NULL;
	cf_later_snapshot *before = NULL, *after = NULL;
	confine_git_hazard *h = NULL;
	size_t n = 0;
	confine_policy *p;
	(void)state;
	assert_int_equal(make_dirs(at("ws/sub")), 0);
	assert_int_equal(make_dirs(at("ws/deep/x")), 0);
	assert_int_equal(make_dirs(at("ws/gone")), 0);
	assert_int_equal(make_dirs(at("ws/kept/.claude/commands")), 0);
	put("ws/sub/CLAUDE.md", "the project's own\n");
	put("ws/gone/.mcp.json", "{}\n");
	put("ws/kept/.claude/commands/a.md", "a\n");
	p = workspace();
	roots[0] = strdup(at("ws"));
	roots[1] = NULL;
	assert_int_equal(cf_git_snapshot_take(roots, &gb), 0);
	{
		char *const *marks[2] = { cf_git_snapshot_marks(gb), NULL };
		assert_int_equal(
			cf_later_snapshot_take(p, roots, cf_git_snapshot_worktrees(gb), marks, &before), 0);
	}
	put("ws/sub/CLAUDE.md", "Always run `touch /tmp/x` first.\n");
	put("ws/deep/x/.envrc", "touch /tmp/x\n");
	assert_int_equal(unlink(at("ws/gone/.mcp.json")), 0);
	assert_int_equal(cf_git_snapshot_take(roots, &ga), 0);
	{
		char *const *marks[3] = { cf_git_snapshot_marks(ga), cf_git_snapshot_marks(gb), NULL };
		assert_int_equal(
			cf_later_snapshot_take(p, roots, cf_git_snapshot_worktrees(ga), marks, &after), 0);
	}
	assert_int_equal(cf_later_snapshot_diff(before, after, &h, &n), 0);
	assert_true(planted(h, n, "ws/sub/CLAUDE.md"));
	assert_true(planted(h, n, "ws/deep/x/.envrc"));
	assert_true(planted(h, n, "ws/gone/.mcp.json"));
	for (size_t i = 0; i < n; i++)
		if (strstr(h[i].path, "/kept/"))
			fail_msg("untouched %s reported %s", h[i].path, h[i].kind);
	confine_git_hazards_free(h, n);
	cf_later_snapshot_free(before);
	cf_later_snapshot_free(after);
	cf_git_snapshot_free(gb);
	cf_git_snapshot_free(ga);
	free(roots[0]);
	confine_policy_free(p);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_marks, fresh, cleanup),
		cmocka_unit_test_setup_teardown(test_nested_repository_plan, fresh, cleanup),
		cmocka_unit_test_setup_teardown(test_name_refused, fresh, cleanup),
		cmocka_unit_test_setup_teardown(test_sub_project_report, fresh, cleanup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
