/* SPDX-License-Identifier: MIT */
/*
 * bwrap's protections (doc/SPEC.md 15, issue 21.3) as a table: a tree, a
 * policy, and exactly which directories are pinned (bound onto themselves
 * so that they cannot be renamed in the sandbox), which paths are kept
 * read-only (existing, or a placeholder of which kind), and what is left
 * unprotected. Then the unenforced report per rung for the same trees, and
 * the bwrap tokens of one tree in full.
 *
 * Tree lines: "d PATH" a directory, "f PATH=TEXT" a file, "l PATH=TARGET" a
 * symlink (TARGET relative to the link's directory, as ln -s writes it).
 * Expected paths are relative to the case's base; a protected path is
 * prefixed with its state: "=" exists, "D" "F" "C" a placeholder (an empty
 * directory, an empty file, a ".\n" commondir).
 */
#include <dirent.h>
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
#include "rungs/rung.h"
#include "testlib.h"

#define MAX_ITEMS 48

/* A repository as `git init` leaves it, the part that matters here. */
#define REPO(p) "d " p "/.git", "d " p "/.git/hooks", "d " p "/.git/info", "d " p "/.git/objects", \
	        "f " p "/.git/HEAD=ref: refs/heads/main\n", "f " p "/.git/config=[core]\n"

typedef struct protect_case {
	const char *name;
	const char *tree[24];
	const char *protect[4];   /* protectedPaths */
	bool no_defaults;
	bool placeholders;        /* CF_PLAN_PLACEHOLDERS: an argv the library spawns */
	const char *pins[MAX_ITEMS];
	const char *protected_paths[MAX_ITEMS];
	bool explicit_unprotected;
	bool defaults_unprotected;
} protect_case;

/* Every entry of what runs later, missing in an empty root: the first
 * missing component of each, an empty directory (doc/SPEC.md 15). */
#define LATER_PLACEHOLDERS(p) "D" p "/.bash_login", "D" p "/.bash_logout", \
	"D" p "/.bash_profile", "D" p "/.bashrc", "D" p "/.claude", "D" p "/.clinerules", \
	"D" p "/.codex", "D" p "/.cursor", "D" p "/.cursorrules", "D" p "/.devcontainer.json", \
	"D" p "/.envrc", "D" p "/.gemini", \
	"D" p "/.gitattributes", "D" p "/.gitmodules", "D" p "/.husky", "D" p "/.idea", \
	"D" p "/.mcp.json", "D" p "/.npmrc", "D" p "/.pre-commit-config.yaml", "D" p "/.profile", \
	"D" p "/.ripgreprc", "D" p "/.vscode", "D" p "/.windsurfrules", "D" p "/.yarnrc", \
	"D" p "/.yarnrc.yml", "D" p "/.zlogin", "D" p "/.zlogout", "D" p "/.zprofile", \
	"D" p "/.zshenv", "D" p "/.zshrc", "D" p "/AGENTS.md", "D" p "/CLAUDE.local.md", \
	"D" p "/CLAUDE.md", "D" p "/GEMINI.md"


static const protect_case cases[] = {
	{ "a repository, argv for others: commondir missing and unprotectable",
	  { REPO("ws") }, { NULL }, false, false,
	  { "ws/.git", NULL },
	  { "=ws/.git/config", "=ws/.git/hooks", "=ws/.git/info", NULL },
	  false, true },
	{ "a repository, run by the library: a commondir placeholder",
	  { REPO("ws") }, { NULL }, false, true,
	  { "ws/.git", NULL },
	  { "Cws/.git/commondir", "=ws/.git/config", "=ws/.git/hooks", "=ws/.git/info", NULL },
	  false, false },
	{ "git init without templates: hooks and info stand in too",
	  { "d ws/.git", "f ws/.git/HEAD=x", "f ws/.git/config=[core]\n" }, { NULL }, false, true,
	  { "ws/.git", NULL },
	  { "Cws/.git/commondir", "=ws/.git/config", "Dws/.git/hooks", "Dws/.git/info", NULL },
	  false, false },
	{ "a nested repository: every directory on the way is pinned",
	  { REPO("ws"), REPO("ws/a/b") }, { NULL }, false, true,
	  { "ws/.git", "ws/a", "ws/a/b", "ws/a/b/.git", NULL },
	  { "Cws/.git/commondir", "=ws/.git/config", "=ws/.git/hooks", "=ws/.git/info",
	    "Cws/a/b/.git/commondir", "=ws/a/b/.git/config", "=ws/a/b/.git/hooks",
	    "=ws/a/b/.git/info", NULL },
	  false, false },
	{ "a submodule: its .git file, and its gitdir in modules/",
	  { REPO("ws"), "d ws/.git/modules/sub/hooks", "d ws/.git/modules/sub/info",
	    "f ws/.git/modules/sub/HEAD=x", "f ws/.git/modules/sub/config=[core]\n",
	    "d ws/sub", "f ws/sub/.git=gitdir: ../.git/modules/sub\n" },
	  { NULL }, false, true,
	  { "ws/.git", "ws/sub", "ws/.git/modules", "ws/.git/modules/sub", NULL },
	  { "Cws/.git/commondir", "=ws/.git/config", "=ws/.git/hooks", "=ws/.git/info",
	    "Cws/.git/modules/sub/commondir", "=ws/.git/modules/sub/config",
	    "=ws/.git/modules/sub/hooks", "=ws/.git/modules/sub/info", "=ws/sub/.git", NULL },
	  false, false },
	{ "a submodule not checked out: found in modules/ all the same",
	  { REPO("ws"), "d ws/.git/modules/lib/x/hooks", "f ws/.git/modules/lib/x/HEAD=x",
	    "f ws/.git/modules/lib/x/config=[core]\n", "d ws/.git/modules/lib/x/info" },
	  { NULL }, false, true,
	  { "ws/.git", "ws/.git/modules", "ws/.git/modules/lib", "ws/.git/modules/lib/x", NULL },
	  { "Cws/.git/commondir", "=ws/.git/config", "=ws/.git/hooks", "=ws/.git/info",
	    "Cws/.git/modules/lib/x/commondir", "=ws/.git/modules/lib/x/config",
	    "=ws/.git/modules/lib/x/hooks", "=ws/.git/modules/lib/x/info", NULL },
	  false, false },
	{ "a .git file naming a gitdir that does not exist yet",
	  { "d ws/wt", "f ws/wt/.git=gitdir: ../gitdirs/wt\n" }, { NULL }, false, true,
	  { "ws/wt", NULL },
	  { "Dws/gitdirs", "=ws/wt/.git", NULL },
	  false, false },
	{ "a linked worktree: its gitdir's commondir, and the repository it names",
	  { REPO("ws/main"), "d ws/main/.git/worktrees/wt", "f ws/main/.git/worktrees/wt/HEAD=x",
	    "f ws/main/.git/worktrees/wt/commondir=../..\n", "d ws/wt",
	    "f ws/wt/.git=gitdir: ../main/.git/worktrees/wt\n" },
	  { NULL }, false, true,
	  { "ws/main", "ws/wt", "ws/main/.git", "ws/main/.git/worktrees",
	    "ws/main/.git/worktrees/wt", NULL },
	  { "Cws/main/.git/commondir", "=ws/main/.git/config", "=ws/main/.git/hooks",
	    "=ws/main/.git/info", "=ws/main/.git/worktrees/wt/commondir", "=ws/wt/.git", NULL },
	  false, false },
	{ "extensions.worktreeConfig: config.worktree stands in too",
	  { "d ws/.git/hooks", "d ws/.git/info", "f ws/.git/HEAD=x",
	    "f ws/.git/config=[extensions]\n\tworktreeConfig = true\n" },
	  { NULL }, false, true,
	  { "ws/.git", NULL },
	  { "Cws/.git/commondir", "=ws/.git/config", "Fws/.git/config.worktree", "=ws/.git/hooks",
	    "=ws/.git/info", NULL },
	  false, false },
	{ "a commondir left by a killed run (\".\"): the repository itself",
	  { REPO("ws"), "f ws/.git/commondir=.\n" }, { NULL }, false, true,
	  { "ws/.git", NULL },
	  { "=ws/.git/commondir", "=ws/.git/config", "=ws/.git/hooks", "=ws/.git/info", NULL },
	  false, false },
	{ "a commondir planted before: protected as it is, and what it names",
	  { REPO("ws"), "f ws/.git/commondir=../evil\n", "d ws/evil/hooks",
	    "f ws/evil/config=[core]\n" },
	  { NULL }, false, true,
	  { "ws/.git", "ws/evil", NULL },
	  { "=ws/.git/commondir", "=ws/.git/config", "=ws/.git/hooks", "=ws/.git/info",
	    "Cws/evil/commondir", "=ws/evil/config", "=ws/evil/hooks", "Dws/evil/info", NULL },
	  false, false },
	{ "a bare repository in the workspace",
	  { "d ws/r.git/hooks", "d ws/r.git/objects", "f ws/r.git/HEAD=x",
	    "f ws/r.git/config=[core]\n" },
	  { NULL }, false, true,
	  { "ws/r.git", NULL },
	  { "Cws/r.git/commondir", "=ws/r.git/config", "=ws/r.git/hooks", "Dws/r.git/info", NULL },
	  false, false },
	{ "hooks as a symlink: what it points to, and the name is reported",
	  { "d ws/.git/info", "f ws/.git/HEAD=x", "f ws/.git/config=[core]\n", "d ws/githooks",
	    "l ws/.git/hooks=../githooks" },
	  { NULL }, false, true,
	  { "ws/.git", NULL },
	  { "Cws/.git/commondir", "=ws/.git/config", "=ws/.git/info", "=ws/githooks", NULL },
	  false, true },
	{ "protectedPaths: an ancestor is pinned",
	  { "f ws/conf/prod.yaml=x" }, { "conf/prod.yaml" }, true, false,
	  { "ws/conf", NULL }, { "=ws/conf/prod.yaml", NULL }, false, false },
	{ "protectedPaths missing, argv for others: unprotected",
	  { "d ws" }, { ".claude/settings.json", "a/b/c/file.txt" }, true, false,
	  { NULL }, { NULL }, true, false },
	{ "protectedPaths missing, run by the library: the first missing component",
	  { "d ws/.claude/agents", "d ws/a" }, { ".claude/settings.json", "a/b/c/file.txt" }, true,
	  true,
	  { "ws/.claude", "ws/a", NULL }, { "Fws/.claude/settings.json", "Dws/a/b", NULL },
	  false, false },
	{ "protectedPaths through a symlink: the target, and the name is reported",
	  { "f ws/real/x=1", "l ws/link=real" }, { "link/x" }, true, true,
	  { "ws/real", NULL }, { "=ws/real/x", NULL }, true, false },
	{ "protectedPaths with a dangling symlink on the way",
	  { "l ws/link=nowhere" }, { "link/x" }, true, true,
	  { NULL }, { NULL }, true, false },
	{ "protectedPaths: a directory covers what lies below it",
	  { REPO("ws") }, { ".git", ".git/hooks/pre-commit" }, false, true,
	  { NULL }, { "=ws/.git", NULL }, false, false },
	{ "default protections off",
	  { REPO("ws") }, { NULL }, true, true, { NULL }, { NULL }, false, false },
};

/* What runs later (later.c, issue 28.3): kept protected in these cases
 * (the cases above unprotect every entry, to look at git's alone). */
static const protect_case later_cases[] = {
	{ "what runs later, an empty root run by the library: a placeholder for each",
	  { "d ws" }, { NULL }, false, true,
	  { NULL }, { LATER_PLACEHOLDERS("ws"), NULL }, false, false },
	{ "what runs later, argv for others: the existing ones, the missing ones reported",
	  { "f ws/.bashrc=echo hi\n", "f ws/.vscode/settings.json={}", "d ws/.claude/commands",
	    "f ws/.claude/commands/x.md=x", "d ws/.idea" },
	  { NULL }, false, false,
	  { "ws/.claude", "ws/.vscode", NULL },
	  { "=ws/.bashrc", "=ws/.claude/commands", "=ws/.idea", "=ws/.vscode/settings.json", NULL },
	  false, true },
	{ "what runs later: a nested repository's .gitattributes and .gitmodules",
	  { REPO("ws/sub"), "f ws/sub/.gitattributes=* filter=x\n", "f ws/sub/.gitmodules=",
	    "f ws/sub/deeper/.gitattributes=" },
	  { NULL }, false, false,
	  { "ws/sub", "ws/sub/.git", NULL },
	  { "=ws/sub/.git/config", "=ws/sub/.git/hooks", "=ws/sub/.git/info", "=ws/sub/.gitattributes",
	    "=ws/sub/.gitmodules", NULL },
	  false, true },
	{ "what runs later, argv for others: a link inside a protected directory holds its target",
	  { "f ws/scripts/hook=x", "d ws/.husky", "l ws/.husky/pre-commit=../scripts/hook",
	    "l ws/.husky/dangling=../nowhere" },
	  { NULL }, false, false,
	  { "ws/scripts", NULL }, { "=ws/.husky", "=ws/scripts/hook", NULL }, false, true },
	{ "what runs later, run by the library: a file stands in where a directory would break "
	  "the tool, nothing where a stand-in would",
	  { "d ws/.hg", "d ws/.cargo" }, { NULL }, false, true,
	  { "ws/.cargo", "ws/.hg", NULL },
	  { "Dws/.bash_login", "Dws/.bash_logout", "Dws/.bash_profile", "Dws/.bashrc",
	    "Fws/.cargo/config.toml", "Dws/.claude", "Dws/.clinerules", "Dws/.codex", "Dws/.cursor",
	    "Dws/.cursorrules", "Dws/.devcontainer.json", "Dws/.envrc", "Dws/.gemini",
	    "Dws/.gitattributes", "Dws/.gitmodules",
	    "Fws/.hg/hgrc", "Dws/.husky", "Dws/.idea", "Dws/.mcp.json", "Dws/.npmrc",
	    "Dws/.pre-commit-config.yaml", "Dws/.profile", "Dws/.ripgreprc", "Dws/.vscode",
	    "Dws/.windsurfrules", "Dws/.yarnrc", "Dws/.yarnrc.yml", "Dws/.zlogin", "Dws/.zlogout",
	    "Dws/.zprofile", "Dws/.zshenv", "Dws/.zshrc", "Dws/AGENTS.md", "Dws/CLAUDE.local.md",
	    "Dws/CLAUDE.md", "Dws/GEMINI.md", NULL },
	  false, false },
	{ "what runs later, a symlinked .bashrc: its target, and the name reported",
	  { "f ws/dotfiles/bashrc=x", "l ws/.bashrc=dotfiles/bashrc" }, { NULL }, false, false,
	  { "ws/dotfiles", NULL }, { "=ws/dotfiles/bashrc", NULL }, false, true },
};

static char base[256];

static const char *at(const char *suffix) {
	static char buf[32][PATH_MAX];
	static unsigned next;
	char *p = buf[next++ % 32];
	snprintf(p, sizeof buf[0], "%s/%s", base, suffix);
	return p;
}

static void mkdir_p(const char *path) {
	char buf[PATH_MAX];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *s = buf + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			(void)mkdir(buf, 0755);
			*s = '/';
		}
	(void)mkdir(buf, 0755);
}

static void make_tree(const char *const *tree) {
	for (size_t i = 0; tree[i]; i++) {
		char path[PATH_MAX], *eq;
		snprintf(path, sizeof path, "%s/%s", base, tree[i] + 2);
		eq = strchr(path, '=');
		if (eq)
			*eq = '\0';
		if (tree[i][0] == 'd') {
			mkdir_p(path);
			continue;
		}
		{
			char dir[PATH_MAX];
			snprintf(dir, sizeof dir, "%s", path);
			*strrchr(dir, '/') = '\0';
			mkdir_p(dir);
		}
		if (tree[i][0] == 'l') {
			assert_int_equal(symlink(eq + 1, path), 0);
		} else {
			FILE *f = fopen(path, "w");
			assert_non_null(f);
			fputs(eq ? eq + 1 : "", f);
			fclose(f);
		}
	}
}

static const char *kind_mark(const cf_protected *p) {
	if (p->exists)
		return "=";
	switch (p->kind) {
	case CF_PLACEHOLDER_DIR: return "D";
	case CF_PLACEHOLDER_FILE: return "F";
	case CF_PLACEHOLDER_COMMONDIR: return "C";
	case CF_PLACEHOLDER_NONE: break;
	}
	return "?";
}

static void check_case(const protect_case *k, bool later) {
	confine_policy *p = NULL;
	cf_plan plan;
	size_t i;
	make_tree(k->tree);
	mkdir_p(at("ws"));
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("ws"), &p, NULL), 0);
	for (i = 0; k->protect[i]; i++)
		assert_int_equal(confine_policy_add_protected_path(p, k->protect[i], NULL), 0);
	p->default_protections = !k->no_defaults;
	for (i = 0; !later && i < cf_later_count; i++)
		assert_int_equal(confine_policy_add_unprotect(p, cf_later_entries[i].name, NULL), 0);
	assert_int_equal(cf_plan_make(p, CF_PLAN_BWRAP | (k->placeholders ? CF_PLAN_PLACEHOLDERS : 0),
	                              &plan),
	                 0);
	for (i = 0; k->pins[i] || (plan.pins && plan.pins[i]); i++) {
		if (!k->pins[i] || !plan.pins || !plan.pins[i] || strcmp(plan.pins[i], at(k->pins[i])) != 0)
			fail_msg("%s: pin %zu is %s, expected %s", k->name, i,
			         plan.pins && plan.pins[i] ? plan.pins[i] + strlen(base) + 1 : "(end)",
			         k->pins[i] ? k->pins[i] : "(end)");
	}
	for (i = 0; k->protected_paths[i] || i < plan.n_protected; i++) {
		char got[PATH_MAX];
		if (i < plan.n_protected)
			snprintf(got, sizeof got, "%s%s", kind_mark(&plan.protected_paths[i]),
			         plan.protected_paths[i].path + strlen(base) + 1);
		else
			snprintf(got, sizeof got, "(end)");
		if (!k->protected_paths[i] || strcmp(got, k->protected_paths[i]) != 0)
			fail_msg("%s: protected %zu is %s, expected %s", k->name, i, got,
			         k->protected_paths[i] ? k->protected_paths[i] : "(end)");
	}
	if (plan.explicit_unprotected != k->explicit_unprotected)
		fail_msg("%s: explicit_unprotected is %d", k->name, plan.explicit_unprotected);
	if (plan.defaults_unprotected != k->defaults_unprotected)
		fail_msg("%s: defaults_unprotected is %d", k->name, plan.defaults_unprotected);
	cf_plan_clear(&plan);
	confine_policy_free(p);
}

static int fresh(void **state) {
	(void)state;
	return tl_make_workdir("profiles-protect", base, sizeof base);
}

static int cleanup(void **state) {
	(void)state;
	return tl_remove_tree(base);
}

static void test_protection_table(void **state) {
	(void)state;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		assert_int_equal(tl_remove_tree(base), 0);
		assert_int_equal(mkdir(base, 0755), 0);
		check_case(&cases[c], false);
	}
	for (size_t c = 0; c < sizeof later_cases / sizeof later_cases[0]; c++) {
		assert_int_equal(tl_remove_tree(base), 0);
		assert_int_equal(mkdir(base, 0755), 0);
		check_case(&later_cases[c], true);
	}
}

/* Read-only writes nowhere: nothing to protect, nothing pinned. */
/* The home's own entries (later.c: `.gitconfig`, `.config/git/config`,
 * `.hgrc`, and the shell files) wherever a writable root holds $HOME. */
static const cf_protected *find(const cf_plan *plan, const char *rel) {
	for (size_t i = 0; i < plan->n_protected; i++)
		if (strcmp(plan->protected_paths[i].path, at(rel)) == 0)
			return &plan->protected_paths[i];
	return NULL;
}

static void test_home_entries(void **state) {
	static const char *const tree[] = { "f ws/h/.gitconfig=[core]\n", "f ws/h/.bashrc=x",
		                                "d ws/h/.config", NULL };
	char *saved = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	confine_policy *p = NULL;
	cf_plan plan;
	const cf_protected *e;
	(void)state;
	make_tree(tree);
	setenv("HOME", at("ws/h"), 1);
	unsetenv("XDG_CONFIG_HOME");
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("ws"), &p, NULL), 0);
	assert_int_equal(cf_plan_make(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS, &plan), 0);
	assert_non_null((e = find(&plan, "ws/h/.gitconfig")));
	assert_true(e->exists);
	assert_non_null((e = find(&plan, "ws/h/.bashrc")));
	assert_non_null((e = find(&plan, "ws/h/.hgrc")));
	assert_int_equal(e->kind, CF_PLACEHOLDER_FILE); /* a file: a directory breaks hg */
	assert_false(e->exists);
	assert_non_null((e = find(&plan, "ws/h/.config/git")));
	assert_int_equal(e->kind, CF_PLACEHOLDER_DIR);
	assert_non_null((e = find(&plan, "ws/h/.profile"))); /* shell files at the home too */
	assert_null(find(&plan, "ws/.gitconfig")); /* not at a root's top */
	assert_false(plan.defaults_unprotected);
	cf_plan_clear(&plan);
	/* a missing ~/.config is not stood in (it would keep every tool from
	 * making its configuration there): left to the report */
	assert_int_equal(rmdir(at("ws/h/.config")), 0);
	assert_int_equal(cf_plan_make(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS, &plan), 0);
	assert_null(find(&plan, "ws/h/.config"));
	assert_false(plan.defaults_unprotected);
	cf_plan_clear(&plan);
	/* an argv for others: listed */
	assert_int_equal(cf_plan_make(p, CF_PLAN_BWRAP, &plan), 0);
	assert_true(plan.defaults_unprotected);
	cf_plan_clear(&plan);
	confine_policy_free(p);
	if (saved)
		setenv("HOME", saved, 1);
	else
		unsetenv("HOME");
	free(saved);
}

/* Another name (a hard link) of a protected file, anywhere in a writable
 * root, is held as the file is (issue 28, the outside red team's
 * follow-up, 1): `~/.bashrc` read-only at the home, written through its
 * second name in the workspace. Two names of a file nobody protects are
 * not; a walk cut short says what it did not look for. */
static void test_hard_links(void **state) {
	static const char *const tree[] = { "f home/.bashrc=x", "f home/.gitconfig=[core]\n",
		                            "f ws/plain=y", "d ws/a/b", "d ws/c", NULL };
	char *saved = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	confine_policy *p = NULL;
	cf_plan plan;
	const cf_protected *e;
	(void)state;
	make_tree(tree);
	assert_int_equal(link(at("home/.bashrc"), at("ws/a/b/rc")), 0);
	assert_int_equal(link(at("home/.gitconfig"), at("ws/c/gc")), 0);
	assert_int_equal(link(at("ws/plain"), at("ws/c/plain2")), 0);
	setenv("HOME", at("home"), 1);
	unsetenv("XDG_CONFIG_HOME");
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("ws"), &p, NULL), 0);
	assert_int_equal(cf_plan_make(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS, &plan), 0);
	assert_non_null((e = find(&plan, "ws/a/b/rc")));
	assert_true(e->exists);
	assert_string_equal(e->link_of, at("home/.bashrc"));
	assert_non_null((e = find(&plan, "ws/c/gc")));
	assert_string_equal(e->link_of, at("home/.gitconfig"));
	assert_null(find(&plan, "ws/c/plain2"));
	assert_null(find(&plan, "ws/plain"));
	assert_false(plan.defaults_unprotected);
	cf_plan_clear(&plan);
	/* the walk's budget spent before it reached them: said */
	cf_git_scan_budget = 2;
	assert_int_equal(cf_plan_make(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS, &plan), 0);
	cf_git_scan_budget = CF_GIT_SCAN_MAX_ENTRIES;
	assert_true(plan.defaults_unprotected);
	assert_non_null(strstr(plan.defaults_reason, "hard links"));
	cf_plan_clear(&plan);
	confine_policy_free(p);
	if (saved)
		setenv("HOME", saved, 1);
	else
		unsetenv("HOME");
	free(saved);
}

/* The entries below `path` (recursively, symlinks not followed): what
 * the listing of the system's start-up directory spends of the budget
 * before the home's directories are listed, which differs per machine. */
static size_t entries_below(const char *path) {
	DIR *d = opendir(path);
	struct dirent *e;
	size_t n = 0;
	while (d && (e = readdir(d))) {
		char sub[PATH_MAX];
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		n++;
		snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
		if (e->d_type == DT_DIR)
			n += entries_below(sub);
	}
	if (d)
		closedir(d);
	return n;
}

/* A file below a protected directory (`~/.local/bin/`, deep in `~/.vim/`)
 * with another name in a root: held (R28c-dir-links). With the listing cut
 * by its budget, a file whose other name lies outside the roots makes the
 * defaults partial, naming it and the listing; one whose names are all in
 * the roots (cargo's `target/`) does not. */
static void test_links_below_directories(void **state) {
	static const char *const tree[] = { "f home/.local/bin/tool=x", "f home/.vim/a/b/c/run.sh=y",
		                            "f home/.vim/z1=", "f home/.vim/z2=", "f home/.vim/z3=",
		                            "f ws/t/deps/app=z", "f out/o=o", "d ws/d",
		                            "f ws/.git/hooks/pre-commit=h", "f ws/.git/config=c", NULL };
	char *saved = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	confine_policy *p = NULL;
	cf_plan plan;
	const cf_protected *e;
	(void)state;
	make_tree(tree);
	assert_int_equal(link(at("home/.local/bin/tool"), at("ws/d/tool")), 0);
	assert_int_equal(link(at("home/.vim/a/b/c/run.sh"), at("ws/run.sh")), 0);
	assert_int_equal(link(at("ws/t/deps/app"), at("ws/t/app")), 0);
	/* the root's repository's hook and config (R28c-link-report) */
	assert_int_equal(link(at("ws/.git/hooks/pre-commit"), at("ws/d/h")), 0);
	assert_int_equal(link(at("ws/.git/config"), at("ws/d/c")), 0);
	setenv("HOME", at("home"), 1);
	unsetenv("XDG_CONFIG_HOME");
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("ws"), &p, NULL), 0);
	assert_int_equal(cf_plan_make(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS, &plan), 0);
	assert_non_null((e = find(&plan, "ws/d/tool")));
	assert_string_equal(e->link_of, at("home/.local/bin/tool"));
	assert_non_null((e = find(&plan, "ws/run.sh")));
	assert_string_equal(e->link_of, at("home/.vim/a/b/c/run.sh"));
	assert_non_null((e = find(&plan, "ws/d/h")));
	assert_string_equal(e->link_of, at("ws/.git/hooks/pre-commit"));
	assert_non_null((e = find(&plan, "ws/d/c")));
	assert_string_equal(e->link_of, at("ws/.git/config"));
	assert_null(find(&plan, "ws/t/app"));
	assert_null(find(&plan, "ws/t/deps/app"));
	assert_false(plan.defaults_unprotected);
	cf_plan_clear(&plan);

	/* the listing cut (the system's, the repository's hook, ~/.local/bin's
	 * one, two of ~/.vim's): names all in the roots say nothing */
	cf_later_below_budget = entries_below("/etc/profile.d") + 4;
	assert_int_equal(unlink(at("ws/run.sh")), 0);
	assert_int_equal(cf_plan_make(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS, &plan), 0);
	assert_false(plan.defaults_unprotected);
	assert_non_null(find(&plan, "ws/d/tool"));
	cf_plan_clear(&plan);
	/* ... a name outside them does */
	assert_int_equal(link(at("out/o"), at("ws/o")), 0);
	assert_int_equal(cf_plan_make(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS, &plan), 0);
	cf_later_below_budget = CF_LATER_BELOW_MAX;
	assert_true(plan.defaults_unprotected);
	assert_non_null(strstr(plan.defaults_reason, at("ws/o")));
	assert_non_null(strstr(plan.defaults_reason, at("home/.vim")));
	assert_null(strstr(plan.defaults_reason, at("ws/t/app")));
	cf_plan_clear(&plan);
	confine_policy_free(p);
	if (saved)
		setenv("HOME", saved, 1);
	else
		unsetenv("HOME");
	free(saved);
}

/* The red team's follow-up (round 4 session 10): a symbolic link in a
 * protected directory (a dotfiles manager's) leads to what is read later;
 * a link planted in `.git/objects/` is written as any other; a protected
 * directory inside a root whose listing was cut still has its files'
 * other names in the root held (the walk meets both). */
static void test_links_below_more(void **state) {
	static const char *const tree[] = { "f dot/fish/config.fish=f", "f dot/vimplug/p.vim=v",
		                            "f home/.local/bin/tool=x", "f ws/.git/HEAD=ref",
		                            "d ws/.git/objects/ab", "d ws/d", "f home/.vim/z1=",
		                            "f home/.vim/z2=", "f home/.vim/z3=", "f home/.vim/z4=",
		                            NULL };
	char *saved = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	confine_policy *p = NULL;
	cf_plan plan;
	const cf_protected *e;
	(void)state;
	make_tree(tree);
	assert_int_equal(mkdir(at("home/.config"), 0755), 0);
	assert_int_equal(mkdir(at("home/.config/fish"), 0755), 0);
	assert_int_equal(symlink(at("dot/fish/config.fish"), at("home/.config/fish/config.fish")), 0);
	assert_int_equal(symlink(at("dot/vimplug"), at("home/.vim/plugin")), 0);
	assert_int_equal(link(at("dot/fish/config.fish"), at("ws/d/cf")), 0);
	assert_int_equal(link(at("dot/vimplug/p.vim"), at("ws/d/pv")), 0);
	assert_int_equal(link(at("home/.local/bin/tool"), at("ws/.git/objects/ab/x")), 0);
	setenv("HOME", at("home"), 1);
	unsetenv("XDG_CONFIG_HOME");
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("ws"), &p, NULL), 0);
	assert_int_equal(cf_plan_make(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS, &plan), 0);
	assert_non_null((e = find(&plan, "ws/d/cf")));
	assert_string_equal(e->link_of, at("dot/fish/config.fish"));
	assert_non_null((e = find(&plan, "ws/d/pv")));
	assert_string_equal(e->link_of, at("dot/vimplug/p.vim"));
	assert_non_null((e = find(&plan, "ws/.git/objects/ab/x")));
	assert_string_equal(e->link_of, at("home/.local/bin/tool"));
	assert_false(plan.defaults_unprotected);
	cf_plan_clear(&plan);
	confine_policy_free(p);

	/* the home a root, ~/.vim's listing cut after two of its five: the
	 * other names in the root of those listed and of those not are held */
	assert_int_equal(link(at("home/.vim/z4"), at("home/lnk")), 0);
	assert_int_equal(link(at("home/.vim/z1"), at("home/lnk1")), 0);
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("home"), &p, NULL), 0);
	cf_later_below_budget = entries_below("/etc/profile.d") + 3; /* tool, two of ~/.vim's */
	assert_int_equal(cf_plan_make(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS, &plan), 0);
	cf_later_below_budget = CF_LATER_BELOW_MAX;
	assert_non_null((e = find(&plan, "home/lnk")));
	assert_non_null(e->link_of);
	assert_non_null((e = find(&plan, "home/lnk1")));
	assert_non_null(e->link_of);
	cf_plan_clear(&plan);
	confine_policy_free(p);
	if (saved)
		setenv("HOME", saved, 1);
	else
		unsetenv("HOME");
	free(saved);
}

/* The second red team's holes (round 4 session 10): a symlink in a
 * protected directory into the workspace is not a protected directory
 * (names below it are not "held with it"); a root asked for by name
 * holding another protected file's name; a root inside a repository (its
 * hook); a nested repository's hook and config (no cut); a file a symlink
 * in a protected directory leads to inside a root, held itself. */
static void test_links_second_attack(void **state) {
	static const char *const tree[] = { "f home/.ssh/rc=r", "f home/.bashrc=b", "d home/.vim",
		                            "d home/.local/bin", "f ws/bin/tool=t", "d ws/d",
		                            "d repo/sub", "f repo/.git/hooks/pre-commit=h",
		                            "f repo/.git/HEAD=ref", "f ws/n/.git/hooks/pre-push=p",
		                            "f ws/n/.git/config=c", "f ws/n/.git/HEAD=ref", NULL };
	char *saved = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	confine_policy *p = NULL;
	cf_plan plan;
	const cf_protected *e;
	(void)state;
	make_tree(tree);
	assert_int_equal(symlink(at("ws"), at("home/.vim/plug")), 0);
	assert_int_equal(symlink(at("ws/bin/tool"), at("home/.vim/tool.vim")), 0);
	assert_int_equal(link(at("home/.ssh/rc"), at("ws/d/rc")), 0);
	assert_int_equal(link(at("home/.ssh/rc"), at("home/.local/bin/r")), 0);
	assert_int_equal(link(at("repo/.git/hooks/pre-commit"), at("repo/sub/h")), 0);
	assert_int_equal(link(at("ws/n/.git/hooks/pre-push"), at("ws/d/hk")), 0);
	assert_int_equal(link(at("ws/n/.git/config"), at("ws/d/cf")), 0);
	setenv("HOME", at("home"), 1);
	unsetenv("XDG_CONFIG_HOME");
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("ws"), &p, NULL), 0);
	assert_int_equal(confine_policy_add_writable_root(p, at("home/.local/bin"), NULL), 0);
	assert_int_equal(confine_policy_add_writable_root(p, at("repo/sub"), NULL), 0);
	assert_int_equal(cf_plan_make(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS, &plan), 0);
	assert_non_null((e = find(&plan, "ws/d/rc")));
	assert_string_equal(e->link_of, at("home/.ssh/rc"));
	assert_non_null((e = find(&plan, "home/.local/bin/r")));
	assert_string_equal(e->link_of, at("home/.ssh/rc"));
	assert_non_null((e = find(&plan, "repo/sub/h")));
	assert_string_equal(e->link_of, at("repo/.git/hooks/pre-commit"));
	assert_non_null((e = find(&plan, "ws/d/hk")));
	assert_string_equal(e->link_of, at("ws/n/.git/hooks/pre-push"));
	assert_non_null((e = find(&plan, "ws/d/cf")));
	assert_string_equal(e->link_of, at("ws/n/.git/config"));
	assert_non_null((e = find(&plan, "ws/bin/tool")));
	assert_null(e->link_of);
	assert_false(plan.defaults_unprotected);
	cf_plan_clear(&plan);
	confine_policy_free(p);
	if (saved)
		setenv("HOME", saved, 1);
	else
		unsetenv("HOME");
	free(saved);
}

/* The third attack (round 4 session 10): a gitdir inside one the walk
 * entered; a symlink in a protected directory to `/` (a cut listing that
 * must not hide the protected directories after it); a nested hook's
 * sourced library; a repository above a root that is a repository itself;
 * a root inside a protected directory whose listing was cut. */
static void test_links_third_attack(void **state) {
	static const char *const tree[] = { "f home/.bashrc=b", "f home/.config/fish/conf.d/x.fish=f",
		                            "d home/.vim", "f ws/a/.git=gitdir: ../j",
		                            "f ws/j/HEAD=ref", "d ws/j/k/.git/objects",
		                            "f ws/n/.git/hooks/lib/common.sh=s", "f ws/n/.git/HEAD=r",
		                            "f outer/.git/hooks/pre-commit=h", "f outer/inner/.git/HEAD=r",
		                            "d ws/d", NULL };
	char *saved = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	confine_policy *p = NULL;
	cf_plan plan;
	const cf_protected *e;
	(void)state;
	make_tree(tree);
	assert_int_equal(symlink("/", at("home/.vim/up")), 0);
	assert_int_equal(link(at("home/.bashrc"), at("ws/j/k/.git/objects/evil")), 0);
	assert_int_equal(link(at("home/.config/fish/conf.d/x.fish"), at("ws/d/fish")), 0);
	assert_int_equal(link(at("ws/n/.git/hooks/lib/common.sh"), at("ws/d/lib")), 0);
	assert_int_equal(link(at("outer/.git/hooks/pre-commit"), at("outer/inner/h")), 0);
	setenv("HOME", at("home"), 1);
	unsetenv("XDG_CONFIG_HOME");
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("ws"), &p, NULL), 0);
	assert_int_equal(confine_policy_add_writable_root(p, at("outer/inner"), NULL), 0);
	assert_int_equal(cf_plan_make(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS, &plan), 0);
	assert_non_null((e = find(&plan, "ws/j/k/.git/objects/evil")));
	assert_string_equal(e->link_of, at("home/.bashrc"));
	assert_non_null((e = find(&plan, "ws/d/fish")));
	assert_string_equal(e->link_of, at("home/.config/fish/conf.d/x.fish"));
	assert_non_null((e = find(&plan, "ws/d/lib")));
	assert_string_equal(e->link_of, at("ws/n/.git/hooks/lib/common.sh"));
	assert_non_null((e = find(&plan, "outer/inner/h")));
	assert_string_equal(e->link_of, at("outer/.git/hooks/pre-commit"));
	cf_plan_clear(&plan);
	confine_policy_free(p);

	/* a root inside ~/.vim, whose listing is cut (by `/`): a name there of
	 * a file past the cut is the grant's, not held with ~/.vim, and its
	 * other name outside the roots makes the defaults partial */
	assert_int_equal(unlink(at("home/.vim/up")), 0);
	mkdir_p(at("home/.vim/pack/mine"));
	for (int i = 0; i < 12; i++) {
		char name[64], other[64];
		FILE *f;
		snprintf(name, sizeof name, "home/.vim/f%d.vim", i);
		snprintf(other, sizeof other, "home/.vim/pack/mine/x%d", i);
		assert_non_null((f = fopen(at(name), "w")));
		fclose(f);
		assert_int_equal(link(at(name), at(other)), 0);
	}
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("home/.vim/pack/mine"),
	                                    &p, NULL),
	                 0);
	/* two of ~/.vim's 13 entries listed: most of its files past the cut */
	cf_later_below_budget = entries_below("/etc/profile.d") + 2;
	assert_int_equal(cf_plan_make(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS, &plan), 0);
	cf_later_below_budget = CF_LATER_BELOW_MAX;
	assert_true(plan.defaults_unprotected);
	assert_non_null(strstr(plan.defaults_reason, at("home/.vim")));
	cf_plan_clear(&plan);
	confine_policy_free(p);
	if (saved)
		setenv("HOME", saved, 1);
	else
		unsetenv("HOME");
	free(saved);
}

/* The fourth attack (round 4 session 10), with no listing cut (the
 * passwd home's `~/.rustup` unprotected: a cut makes the walk count every
 * name, which would hide these): a symlink in the root's hooks to a
 * directory above the root, which must not stand for the root's own
 * protected directories; a nested repository whose gitdir lies outside
 * the roots; a nested hook that is a symlink to a shared script. */
static void test_links_fourth_attack(void **state) {
	static const char *const tree[] = { "d home", "f ws/.husky/pre-commit=h", "d ws/.git/hooks",
		                            "f ws/.git/HEAD=ref", "f ext/.git/hooks/pre-commit=e",
		                            "f ext/.git/HEAD=ref", "f shared/hook=s",
		                            "f ws/sub2/.git/HEAD=ref", "d ws/sub2/.git/hooks", "d ws/sub",
		                            NULL };
	char *saved = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	char gitfile[PATH_MAX + 16];
	confine_policy *p = NULL;
	cf_plan plan;
	const cf_protected *e;
	FILE *f;
	(void)state;
	make_tree(tree);
	assert_int_equal(symlink(at("shared"), at("ws/.git/hooks/up")), 0);
	assert_int_equal(symlink(base, at("shared/up")), 0); /* the tree above the root */
	assert_int_equal(link(at("ws/.husky/pre-commit"), at("ws/x")), 0);
	snprintf(gitfile, sizeof gitfile, "gitdir: %s\n", at("ext/.git"));
	assert_non_null((f = fopen(at("ws/sub/.git"), "w")));
	fputs(gitfile, f);
	fclose(f);
	assert_int_equal(link(at("ext/.git/hooks/pre-commit"), at("ws/y")), 0);
	assert_int_equal(symlink(at("shared/hook"), at("ws/sub2/.git/hooks/pre-commit")), 0);
	assert_int_equal(link(at("shared/hook"), at("ws/z")), 0);
	setenv("HOME", at("home"), 1);
	unsetenv("XDG_CONFIG_HOME");
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("ws"), &p, NULL), 0);
	assert_int_equal(confine_policy_add_unprotect(p, ".rustup", NULL), 0);
	assert_int_equal(cf_plan_make(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS, &plan), 0);
	assert_non_null((e = find(&plan, "ws/x")));
	assert_string_equal(e->link_of, at("ws/.husky/pre-commit"));
	assert_non_null((e = find(&plan, "ws/y")));
	assert_string_equal(e->link_of, at("ext/.git/hooks/pre-commit"));
	assert_non_null((e = find(&plan, "ws/z")));
	assert_string_equal(e->link_of, at("shared/hook"));
	cf_plan_clear(&plan);
	confine_policy_free(p);
	if (saved)
		setenv("HOME", saved, 1);
	else
		unsetenv("HOME");
	free(saved);
}

/* An unknown `unprotect` name is refused naming every entry, the last
 * one included (the list is never cut as the table grows). */
static void test_unprotect_names_every_entry(void **state) {
	const cf_later_entry *last = &cf_later_entries[cf_later_count - 1];
	confine_error err = { 0 };
	char tail[128];
	(void)state;
	assert_int_equal(cf_later_check_unprotect(".nope", &err), -EINVAL);
	assert_int_equal(err.code, CONFINE_E_INVALID_POLICY);
	for (size_t i = 0; i < cf_later_count; i++)
		assert_non_null(strstr(err.message, cf_later_entries[i].name));
	snprintf(tail, sizeof tail, "%s%s)", last->name, last->dir ? "/" : "");
	assert_non_null(strstr(err.message, tail));
}

/* An argv for others cannot hold a missing entry: the report's reason
 * names every such path, never only the first (review, round 4 session
 * 8), and past CF_PROTECT_REASONS_SHOWN (16) says how many more, exactly. */
static void test_unheld_reason_names_every_path(void **state) {
	static const char *const kept[] = { ".bashrc", ".envrc", ".mcp.json", NULL };
	confine_policy *p = NULL;
	cf_plan plan;
	char want[PATH_MAX + 64];
	size_t n = 0, listed = 0, more = 0;
	const char *list;
	(void)state;
	mkdir_p(at("ws"));
	/* three entries missing: all three named */
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("ws"), &p, NULL), 0);
	for (size_t i = 0; i < cf_later_count; i++) {
		bool keep = false;
		for (size_t k = 0; kept[k]; k++)
			keep = keep || strcmp(cf_later_entries[i].name, kept[k]) == 0;
		if (!keep)
			assert_int_equal(confine_policy_add_unprotect(p, cf_later_entries[i].name, NULL), 0);
	}
	assert_int_equal(cf_plan_make(p, CF_PLAN_BWRAP, &plan), 0);
	assert_true(plan.defaults_unprotected);
	assert_non_null(plan.defaults_reason);
	assert_non_null(strstr(plan.defaults_reason, "3 paths do not exist"));
	for (size_t k = 0; kept[k]; k++) {
		snprintf(want, sizeof want, "%s/ws/%s", base, kept[k]);
		if (!strstr(plan.defaults_reason, want))
			fail_msg("%s is not named: %s", want, plan.defaults_reason);
	}
	assert_null(strstr(plan.defaults_reason, "more"));
	cf_plan_clear(&plan);
	confine_policy_free(p);
	/* all of them missing: sixteen named, then the exact count of the rest */
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("ws"), &p, NULL), 0);
	assert_int_equal(cf_plan_make(p, CF_PLAN_BWRAP, &plan), 0);
	assert_non_null(plan.defaults_reason);
	assert_int_equal(sscanf(plan.defaults_reason, "%zu paths do not exist", &n), 1);
	assert_true(n > 16);
	assert_non_null(list = strstr(plan.defaults_reason, "for them: "));
	for (const char *at_ws = list; (at_ws = strstr(at_ws, "/ws/")); at_ws++)
		listed++;
	assert_int_equal(listed, 16);
	snprintf(want, sizeof want, ", and %zu more", n - 16);
	if (!strstr(plan.defaults_reason, want) ||
	    sscanf(strstr(plan.defaults_reason, want), ", and %zu more", &more) != 1 || more != n - 16)
		fail_msg("no \"%s\": %s", want, plan.defaults_reason);
	cf_plan_clear(&plan);
	confine_policy_free(p);
}

static void test_read_only_protects_nothing(void **state) {
	static const char *const tree[] = { REPO("ws"), NULL };
	confine_policy *p = NULL;
	cf_plan plan;
	(void)state;
	make_tree(tree);
	assert_int_equal(confine_policy_new(CONFINE_MODE_READ_ONLY, at("ws"), &p, NULL), 0);
	assert_int_equal(confine_policy_add_protected_path(p, "missing", NULL), 0);
	assert_int_equal(cf_plan_make(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS, &plan), 0);
	assert_int_equal(plan.n_protected, 0);
	assert_null(plan.pins);
	assert_false(plan.explicit_unprotected || plan.defaults_unprotected);
	cf_plan_clear(&plan);
	confine_policy_free(p);
}

/* The exact bwrap tokens for a nested repository and a protected file:
 * the writable root, the pins shallow first, the read-only binds. */
static void test_bwrap_tokens(void **state) {
	static const char *const tree[] = { REPO("ws"), REPO("ws/sub"), "f ws/conf/prod.yaml=x",
		                            NULL };
	confine_policy *p = NULL;
	char **tokens = NULL;
	const char *const want[] = {
		"--tmpfs", "/tmp", "--bind", at("ws"), at("ws"),
		"--bind", at("ws/.git"), at("ws/.git"),
		"--bind", at("ws/conf"), at("ws/conf"),
		"--bind", at("ws/sub"), at("ws/sub"),
		"--bind", at("ws/sub/.git"), at("ws/sub/.git"),
		NULL,
	};
	const char *const binds[] = { "ws/.git/config", "ws/.git/hooks", "ws/.git/info",
		                      "ws/conf/prod.yaml", "ws/sub/.git/config",
		                      "ws/sub/.git/hooks", "ws/sub/.git/info", NULL };
	size_t i = 0, w;
	(void)state;
	make_tree(tree);
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("ws"), &p, NULL), 0);
	assert_int_equal(confine_policy_add_protected_path(p, "conf/prod.yaml", NULL), 0);
	assert_int_equal(confine_profile_bwrap(p, &tokens), 0);
	while (tokens[i] && strcmp(tokens[i], "--tmpfs") != 0)
		i++;
	for (w = 0; want[w]; w++, i++) {
		if (!tokens[i] || strcmp(tokens[i], want[w]) != 0)
			fail_msg("token %zu is %s, expected %s", i, tokens[i] ? tokens[i] : "(end)", want[w]);
	}
	/* the argv for others: no placeholder, so commondir is not bound */
	for (w = 0; binds[w]; w++, i += 3) {
		if (!tokens[i] || strcmp(tokens[i], "--ro-bind") != 0 ||
		    strcmp(tokens[i + 1], at(binds[w])) != 0 || strcmp(tokens[i + 2], at(binds[w])) != 0)
			fail_msg("bind %zu: %s %s, expected --ro-bind %s", w, tokens[i] ? tokens[i] : "(end)",
			         tokens[i] ? tokens[i + 1] : "", binds[w]);
	}
	assert_null(tokens[i]);
	confine_strv_free(tokens);
	confine_policy_free(p);
}

#define LAYERED (CF_ARGV_INNER_LAYER | CF_ARGV_SPAWNED_HERE)

/* The unenforced report follows the same plan, per rung and argv. */
static void test_unenforced(void **state) {
	static const char *const tree[] = { REPO("ws"), "f ws/.env=SECRET", "f home/.npmrc=t",
		                            NULL };
	confine_policy *p = NULL;
	confine_unenforced u;
	(void)state;
	make_tree(tree);
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("ws"), &p, NULL), 0);
	/* argv for others: commondir cannot stand in: defaults listed */
	assert_int_equal(confine_policy_unenforced(p, CONFINE_RUNNER_BWRAP, &u), 0);
	assert_int_equal(u.n_keys, 1);
	assert_string_equal(u.keys[0], "defaultProtections");
	assert_false(u.partial);
	/* the library's layered run: placeholders, nothing left */
	assert_int_equal(cf_policy_unenforced_for(p, CONFINE_RUNNER_BWRAP, LAYERED, &u), 0);
	assert_int_equal(u.n_keys, 0);
	/* a protected path that exists: its mount holds while nobody on the
	 * host replaces the name; the library's run notices a replacement
	 * (its outcome reports it), an argv for others cannot */
	assert_int_equal(confine_policy_add_protected_path(p, ".git/HEAD", NULL), 0);
	assert_int_equal(cf_policy_unenforced_for(p, CONFINE_RUNNER_BWRAP, LAYERED, &u), 0);
	assert_int_equal(u.n_keys, 0);
	assert_int_equal(confine_policy_unenforced(p, CONFINE_RUNNER_BWRAP, &u), 0);
	assert_int_equal(u.n_keys, 2);
	assert_string_equal(u.keys[0], "protectedPaths");
	assert_true(u.partial);
	confine_policy_free(p);
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("ws"), &p, NULL), 0);
	/* denyRead inside the workspace: a mask on a dentry, which a rename
	 * over the name on the host detaches (issue 21.4): partial, layered or
	 * not; outside the writable roots the inner Landlock layer holds it */
	assert_int_equal(confine_policy_add_deny_read(p, at("ws/.env"), NULL), 0);
	assert_int_equal(cf_policy_unenforced_for(p, CONFINE_RUNNER_BWRAP, LAYERED, &u), 0);
	assert_int_equal(u.n_keys, 1);
	assert_string_equal(u.keys[0], "denyRead");
	assert_true(u.partial);
	confine_policy_free(p);
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("ws"), &p, NULL), 0);
	assert_int_equal(confine_policy_add_deny_read(p, at("home/.npmrc"), NULL), 0);
	assert_int_equal(cf_policy_unenforced_for(p, CONFINE_RUNNER_BWRAP, LAYERED, &u), 0);
	assert_int_equal(u.n_keys, 0);
	assert_false(u.partial);
	/* ... but an argv without the layer holds it by name only */
	assert_int_equal(confine_policy_unenforced(p, CONFINE_RUNNER_BWRAP, &u), 0);
	assert_int_equal(u.n_keys, 2);
	assert_string_equal(u.keys[0], "defaultProtections");
	assert_string_equal(u.keys[1], "denyRead");
	assert_true(u.partial);
	assert_int_equal(confine_policy_unenforced(p, CONFINE_RUNNER_RUNNER_COMMAND, &u), 0);
	assert_true(u.partial);
	/* a layered argv spawned by another process (the launcher inside, no
	 * spawner of ours): the layer holds the denyRead; no placeholder for
	 * the missing commondir */
	assert_int_equal(
		cf_policy_unenforced_for(p, CONFINE_RUNNER_BWRAP, CF_ARGV_INNER_LAYER, &u), 0);
	assert_int_equal(u.n_keys, 1);
	assert_string_equal(u.keys[0], "defaultProtections");
	assert_false(u.partial);
	/* Landlock enforces no default protection, repository or not (a
	 * nested one, one the run makes): listed whenever they are on */
	{
		confine_policy *q = NULL;
		assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("home"), &q, NULL),
		                 0);
		assert_int_equal(confine_policy_unenforced(q, CONFINE_RUNNER_LANDLOCK, &u), 0);
		/* (and, in an argv without a temp_dir, no temp area: privateTemp) */
		assert_int_equal(u.n_keys, 2);
		assert_string_equal(u.keys[0], "defaultProtections");
		assert_string_equal(u.keys[1], "privateTemp");
		assert_false(u.partial);
		confine_policy_free(q);
	}
	/* read-only: the workspace is not writable, yet the host can still
	 * rename over a name: the layer holds it in-process */
	p->mode = CONFINE_MODE_READ_ONLY;
	assert_int_equal(confine_policy_add_deny_read(p, at("ws/.env"), NULL), 0);
	assert_int_equal(cf_policy_unenforced_for(p, CONFINE_RUNNER_BWRAP, LAYERED, &u), 0);
	assert_int_equal(u.n_keys, 0);
	assert_int_equal(confine_policy_unenforced(p, CONFINE_RUNNER_BWRAP, &u), 0);
	assert_true(u.partial);
	confine_policy_free(p);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_protection_table, fresh, cleanup),
		cmocka_unit_test_setup_teardown(test_home_entries, fresh, cleanup),
		cmocka_unit_test_setup_teardown(test_hard_links, fresh, cleanup),
		cmocka_unit_test_setup_teardown(test_links_below_directories, fresh, cleanup),
		cmocka_unit_test_setup_teardown(test_links_below_more, fresh, cleanup),
		cmocka_unit_test_setup_teardown(test_links_second_attack, fresh, cleanup),
		cmocka_unit_test_setup_teardown(test_links_third_attack, fresh, cleanup),
		cmocka_unit_test_setup_teardown(test_links_fourth_attack, fresh, cleanup),
		cmocka_unit_test_setup_teardown(test_unprotect_names_every_entry, fresh, cleanup),
		cmocka_unit_test_setup_teardown(test_unheld_reason_names_every_path, fresh, cleanup),
		cmocka_unit_test_setup_teardown(test_read_only_protects_nothing, fresh, cleanup),
		cmocka_unit_test_setup_teardown(test_bwrap_tokens, fresh, cleanup),
		cmocka_unit_test_setup_teardown(test_unenforced, fresh, cleanup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
