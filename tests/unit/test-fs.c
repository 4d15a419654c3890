/* SPDX-License-Identifier: MIT */
/* The harness's own file operations (doc/SPEC.md 19), on disk: each link a
 * command could plant is refused, with the unconfined control showing the
 * plain call would have escaped; writes land with their content; the
 * policy's clauses hold. Every case runs twice: with openat2 and on the
 * path a kernel without it takes. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
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
#include "harness/fs-internal.h"
#include "testlib.h"

static char base[2048], ws[2200], outside[2200];

static char *at(const char *dir, const char *rel) {
	static char bufs[4][4600];
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

static bool holds(const char *path, const char *content) {
	return tl_file_holds(path, content);
}

static confine_fs *open_fs(confine_mode mode, const char *const *deny) {
	confine_policy policy = { .mode = mode, .workspace_root = ws, .default_protections = true,
		                  .private_temp = true };
	confine_fs *fs = NULL;
	confine_error err = { 0 };
	policy.deny_read = (char **)deny;
	if (confine_fs_open(&policy, &fs, &err) < 0)
		fail_msg("confine_fs_open: %s", err.message);
	return fs;
}

static void expect_denied(int r, const confine_error *err, const char *clause) {
	char want[64];
	if (r >= 0 || err->code != CONFINE_E_DENIED)
		fail_msg("want DENIED by %s, got %d: %s", clause, r, err->message);
	snprintf(want, sizeof want, "denied by %s:", clause);
	if (!strstr(err->message, want))
		fail_msg("want \"%s\" in \"%s\"", want, err->message);
}

static int setup(void **state) {
	(void)state;
	if (tl_make_workdir("fs", base, sizeof base) < 0)
		return -1;
	snprintf(ws, sizeof ws, "%s/ws", base);
	snprintf(outside, sizeof outside, "%s/outside", base);
	mkdir(ws, 0755);
	mkdir(outside, 0755);
	mkdir(at(ws, ".git"), 0755);
	mkdir(at(ws, ".git/hooks"), 0755);
	put(at(ws, ".git/config"), "[core]\n");
	put(at(outside, "bashrc"), "original\n");
	return 0;
}

static int teardown(void **state) {
	(void)state;
	tl_remove_tree(base);
	return 0;
}

static void each_path(void (*body)(void)) {
	cf_fs_force_fallback = false;
	body();
	cf_fs_force_fallback = true;
	body();
	cf_fs_force_fallback = false;
}

/* ---- what lands ---- */

static void writes_land(void) {
	confine_fs *fs = open_fs(CONFINE_MODE_WORKSPACE_WRITE, NULL);
	confine_error err = { 0 };
	confine_fs_info info;
	char *data = NULL;
	size_t len = 0;
	bool cut = true;
	struct stat st;
	assert_int_equal(confine_fs_write(fs, "notes.md", "hello\n", 6, &err), 0);
	assert_true(holds(at(ws, "notes.md"), "hello\n"));
	assert_int_equal(confine_fs_append(fs, "notes.md", "more\n", 5, &err), 0);
	assert_true(holds(at(ws, "notes.md"), "hello\nmore\n"));
	assert_int_equal(confine_fs_read(fs, at(ws, "notes.md"), 0, &data, &len, &cut, &err), 0);
	assert_int_equal(len, 11);
	assert_string_equal(data, "hello\nmore\n");
	assert_false(cut);
	free(data);
	assert_int_equal(confine_fs_read(fs, "notes.md", 3, &data, &len, &cut, &err), 0);
	assert_int_equal(len, 3);
	assert_true(cut);
	free(data);
	/* The old permission bits are kept; a set-ID bit is not. */
	assert_int_equal(chmod(at(ws, "notes.md"), 04640), 0);
	assert_int_equal(confine_fs_write(fs, "notes.md", "x", 1, &err), 0);
	assert_int_equal(stat(at(ws, "notes.md"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(confine_fs_stat(fs, "notes.md", &info, &err), 0);
	assert_int_equal(info.type, CONFINE_FS_FILE);
	assert_int_equal(info.size, 1);
	assert_int_equal(confine_fs_mkdir(fs, "sub", &err), 0);
	assert_int_equal(confine_fs_rename(fs, "notes.md", "sub/notes.md", &err), 0);
	assert_true(holds(at(ws, "sub/notes.md"), "x"));
	assert_int_equal(confine_fs_remove(fs, "sub/notes.md", &err), 0);
	assert_int_equal(confine_fs_remove(fs, "sub", &err), 0);
	assert_false(tl_exists(at(ws, "sub")));
	/* Nothing of the atomic write is left behind. */
	{
		confine_fs_entry *e = NULL;
		size_t n = 0;
		assert_int_equal(confine_fs_list(fs, ".", &e, &n, &err), 0);
		for (size_t i = 0; i < n; i++)
			assert_null(strstr(e[i].name, ".confine-"));
		confine_fs_entries_free(e, n);
	}
	confine_fs_free(fs);
}

static void test_writes_land(void **state) {
	(void)state;
	each_path(writes_land);
}

/* ---- planted links ---- */

static void planted_links_are_refused(void) {
	confine_fs *fs = open_fs(CONFINE_MODE_WORKSPACE_WRITE, NULL);
	confine_error err = { 0 };
	char rel_target[4600];
	/* Absolute symlink to a file outside. */
	assert_int_equal(symlink(at(outside, "bashrc"), at(ws, "abs-link")), 0);
	expect_denied(confine_fs_write(fs, "abs-link", "pwned\n", 6, &err), &err, "mode");
	expect_denied(confine_fs_append(fs, "abs-link", "pwned\n", 6, &err), &err, "mode");
	/* Relative symlink climbing out. */
	snprintf(rel_target, sizeof rel_target, "../outside/bashrc");
	assert_int_equal(symlink(rel_target, at(ws, "rel-link")), 0);
	expect_denied(confine_fs_write(fs, "rel-link", "pwned\n", 6, &err), &err, "mode");
	/* A `..` path. */
	expect_denied(confine_fs_write(fs, "../outside/dotdot", "pwned\n", 6, &err), &err, "mode");
	/* A symlinked parent directory. */
	assert_int_equal(symlink(outside, at(ws, "dir-link")), 0);
	expect_denied(confine_fs_write(fs, "dir-link/through-dir", "pwned\n", 6, &err), &err,
	              "mode");
	expect_denied(confine_fs_mkdir(fs, "dir-link/newdir", &err), &err, "mode");
	/* /proc/self/root: outside every root for a write, a magic link for a read. */
	{
		char proc_path[4700];
		snprintf(proc_path, sizeof proc_path, "/proc/self/root%s/proc-root", outside);
		expect_denied(confine_fs_write(fs, proc_path, "p", 1, &err), &err, "mode");
	}
	{
		char *data = NULL;
		size_t len;
		expect_denied(confine_fs_read(fs, "/proc/self/root/etc/hostname", 0, &data, &len, NULL,
		                              &err),
		              &err, "mode");
	}
	/* /proc/self/environ (an ordinary symlink, not a magic link): the
	 * harness's own secrets, which runs never see (issue 21's red team). */
	{
		char *data = NULL;
		size_t len;
		expect_denied(confine_fs_read(fs, "/proc/self/environ", 0, &data, &len, NULL, &err),
		              &err, "mode");
	}
	/* Outside the workspace altogether. */
	expect_denied(confine_fs_write(fs, at(outside, "direct"), "p", 1, &err), &err, "mode");
	/* Nothing landed outside. */
	assert_true(holds(at(outside, "bashrc"), "original\n"));
	assert_false(tl_exists(at(outside, "dotdot")));
	assert_false(tl_exists(at(outside, "through-dir")));
	assert_false(tl_exists(at(outside, "newdir")));
	assert_false(tl_exists(at(outside, "proc-root")));
	assert_false(tl_exists(at(outside, "direct")));
	/* Removing the link removes the link, not what it points to. */
	assert_int_equal(confine_fs_remove(fs, "abs-link", &err), 0);
	assert_true(holds(at(outside, "bashrc"), "original\n"));
	unlink(at(ws, "rel-link"));
	unlink(at(ws, "dir-link"));
	confine_fs_free(fs);
}

static void test_planted_links_are_refused(void **state) {
	(void)state;
	each_path(planted_links_are_refused);
}

/* The unconfined control: the plain calls a harness would make do escape. */
static void test_the_plain_calls_escape(void **state) {
	(void)state;
	assert_int_equal(symlink(at(outside, "bashrc"), at(ws, "abs-link")), 0);
	put(at(ws, "abs-link"), "pwned\n");
	assert_true(holds(at(outside, "bashrc"), "pwned\n"));
	assert_int_equal(symlink(outside, at(ws, "dir-link")), 0);
	put(at(ws, "dir-link/through-dir"), "pwned\n");
	assert_true(tl_exists(at(outside, "through-dir")));
	assert_int_equal(link(at(outside, "bashrc"), at(ws, "hard")), 0);
	{
		FILE *f = fopen(at(ws, "hard"), "a");
		assert_non_null(f);
		fputs("appended\n", f);
		fclose(f);
	}
	assert_true(holds(at(outside, "bashrc"), "pwned\nappended\n"));
	/* put things back */
	unlink(at(ws, "abs-link"));
	unlink(at(ws, "dir-link"));
	unlink(at(ws, "hard"));
	unlink(at(outside, "through-dir"));
	put(at(outside, "bashrc"), "original\n");
}

static void hard_links_are_not_written_through(void) {
	confine_fs *fs = open_fs(CONFINE_MODE_WORKSPACE_WRITE, NULL);
	confine_error err = { 0 };
	assert_int_equal(link(at(outside, "bashrc"), at(ws, "hard")), 0);
	expect_denied(confine_fs_append(fs, "hard", "x\n", 2, &err), &err, "mode");
	assert_non_null(strstr(err.message, "hard links"));
	/* The atomic write gives the name a new inode: the other name keeps
	 * its content. */
	assert_int_equal(confine_fs_write(fs, "hard", "new\n", 4, &err), 0);
	assert_true(holds(at(ws, "hard"), "new\n"));
	assert_true(holds(at(outside, "bashrc"), "original\n"));
	unlink(at(ws, "hard"));
	confine_fs_free(fs);
}

static void test_hard_links_are_not_written_through(void **state) {
	(void)state;
	each_path(hard_links_are_not_written_through);
}

/* A link swapped by a racing thread between a real directory and one
 * pointing out: no write ever lands outside. */
static volatile int racing;

static void *swapper(void *arg) {
	(void)arg;
	while (racing) {
		(void)rename(at(ws, "swap-dir"), at(ws, "swap-aside"));
		(void)symlink(outside, at(ws, "swap"));
		(void)unlink(at(ws, "swap"));
		(void)rename(at(ws, "swap-aside"), at(ws, "swap-dir"));
		(void)symlink("swap-dir", at(ws, "swap"));
		(void)unlink(at(ws, "swap"));
	}
	return NULL;
}

static void a_racing_link_never_leads_out(void) {
	confine_fs *fs = open_fs(CONFINE_MODE_WORKSPACE_WRITE, NULL);
	confine_error err = { 0 };
	pthread_t t;
	int landed = 0, rounds = getenv("CONFINE_TEST_VALGRIND") ? 100 : 2000;
	mkdir(at(ws, "swap-dir"), 0755);
	racing = 1;
	assert_int_equal(pthread_create(&t, NULL, swapper, NULL), 0);
	/* Under valgrind (scripts/valgrind-unit.sh), which emulates each
	 * system call and reports every openat2 it does not know, 2000 writes
	 * each resolving every protected entry outlast the test's timeout: a
	 * hundred keep the memory check; the race is run in full natively and
	 * under ASan. */
	for (int i = 0; i < rounds; i++)
		if (confine_fs_write(fs, "swap/raced", "r", 1, &err) == 0)
			landed++;
	racing = 0;
	pthread_join(t, NULL);
	assert_false(tl_exists(at(outside, "raced")));
	(void)landed; /* some land inside (swap -> swap-dir), which is allowed */
	unlink(at(ws, "swap"));
	if (tl_exists(at(ws, "swap-dir")))
		tl_remove_tree(at(ws, "swap-dir"));
	if (tl_exists(at(ws, "swap-aside")))
		tl_remove_tree(at(ws, "swap-aside"));
	confine_fs_free(fs);
}

static void test_a_racing_link_never_leads_out(void **state) {
	(void)state;
	each_path(a_racing_link_never_leads_out);
}

/* ---- the policy's clauses ---- */

static void clauses_hold(void) {
	const char *deny[] = { "**/.env", NULL };
	confine_fs *fs = open_fs(CONFINE_MODE_WORKSPACE_WRITE, deny), *ro;
	confine_error err = { 0 };
	char *data = NULL;
	size_t len;
	confine_fs_entry *e = NULL;
	size_t n = 0;
	confine_fs_free(fs);
	put(at(ws, ".env"), "SECRET\n");
	fs = open_fs(CONFINE_MODE_WORKSPACE_WRITE, deny); /* patterns expand at open */
	expect_denied(confine_fs_write(fs, ".git/config", "[x]\n", 4, &err), &err,
	              "defaultProtections");
	expect_denied(confine_fs_write(fs, ".git/hooks/pre-commit", "#!/bin/sh\n", 10, &err), &err,
	              "defaultProtections");
	/* Moving or removing what holds a protected path is refused too. */
	expect_denied(confine_fs_rename(fs, ".git", ".git.old", &err), &err, "defaultProtections");
	expect_denied(confine_fs_remove(fs, ".git/hooks", &err), &err, "defaultProtections");
	assert_true(holds(at(ws, ".git/config"), "[core]\n"));
	expect_denied(confine_fs_read(fs, ".env", 0, &data, &len, NULL, &err), &err, "denyRead");
	expect_denied(confine_fs_write(fs, ".env", "x", 1, &err), &err, "denyRead");
	assert_int_equal(confine_fs_list(fs, ".", &e, &n, &err), 0);
	for (size_t i = 0; i < n; i++)
		assert_string_not_equal(e[i].name, ".env");
	confine_fs_entries_free(e, n);
	confine_fs_free(fs);
	ro = open_fs(CONFINE_MODE_READ_ONLY, NULL);
	expect_denied(confine_fs_write(ro, "new.txt", "x", 1, &err), &err, "mode");
	assert_false(tl_exists(at(ws, "new.txt")));
	assert_int_equal(confine_fs_read(ro, ".git/config", 0, &data, &len, NULL, &err), 0);
	free(data);
	confine_fs_free(ro);
	unlink(at(ws, ".env"));
}

/* What git reads and runs code from is refused whether it exists or not
 * (issue 28.1): a missing commondir (pointed at a planted repository, the
 * next git there runs its core.fsmonitor), config.worktree under
 * extensions.worktreeConfig, and git's names in a repository the harness
 * would make. Nothing is left on disk. */
static void git_surface_refused_existing_or_not(void) {
	static const char *const refused[] = {
		".git/commondir", ".git/config.worktree", ".git/info/attributes",
		"sub/.git", "sub/.git/config", "sub/.git/hooks/pre-commit",
		"sub/.git/worktrees/w/commondir", "sub/.git/modules/m/config",
	};
	confine_fs *fs;
	confine_error err = { 0 };
	put(at(ws, ".git/config"), "[core]\n\trepositoryformatversion = 1\n"
	                           "[extensions]\n\tworktreeConfig = true\n");
	fs = open_fs(CONFINE_MODE_WORKSPACE_WRITE, NULL);
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		expect_denied(confine_fs_write(fs, refused[i], "../evil\n", 8, &err), &err,
		              "defaultProtections");
		expect_denied(confine_fs_append(fs, refused[i], "x", 1, &err), &err,
		              "defaultProtections");
		assert_false(tl_exists(at(ws, refused[i])));
	}
	assert_int_equal(confine_fs_write(fs, "notes", "x", 1, &err), 0);
	expect_denied(confine_fs_rename(fs, "notes", ".git/commondir", &err), &err,
	              "defaultProtections");
	expect_denied(confine_fs_mkdir(fs, "sub/.git", &err), &err, "defaultProtections");
	expect_denied(confine_fs_rename(fs, "notes", "sub/.git", &err), &err, "defaultProtections");
	assert_false(tl_exists(at(ws, ".git/commondir")));
	/* Objects and refs stay writable; so do names that only look alike,
	 * below git's data too (`.git/objects/info`, a branch named config). */
	assert_int_equal(confine_fs_write(fs, ".git/description", "x", 1, &err), 0);
	mkdir(at(ws, ".git/objects"), 0755);
	mkdir(at(ws, ".git/objects/info"), 0755);
	mkdir(at(ws, ".git/refs"), 0755);
	mkdir(at(ws, ".git/refs/heads"), 0755);
	assert_int_equal(confine_fs_write(fs, ".git/objects/info/packs", "P\n", 2, &err), 0);
	assert_int_equal(confine_fs_write(fs, ".git/refs/heads/config", "x", 1, &err), 0);
	assert_int_equal(confine_fs_mkdir(fs, ".git/refs/heads/hooks", &err), 0);
	assert_int_equal(confine_fs_remove(fs, ".git/refs/heads/hooks", &err), 0);
	assert_int_equal(confine_fs_write(fs, ".gitlab", "x", 1, &err), 0);
	assert_int_equal(confine_fs_remove(fs, ".gitlab", &err), 0);
	assert_int_equal(confine_fs_remove(fs, "notes", &err), 0);
	confine_fs_free(fs);
	put(at(ws, ".git/config"), "[core]\n");
}

/* What runs later (doc/SPEC.md 15): refused existing or not, a missing
 * directory's whole tree included; a .gitattributes beside any .git; the
 * unprotect opt-out lets one through (issue 28.3). */
static void test_later_refused_existing_or_not(void **state) {
	static const char *const refused[] = {
		".bashrc", ".envrc", ".gitattributes", ".gitmodules", ".mcp.json", ".npmrc",
		".vscode/settings.json", ".vscode/tasks.json", ".claude/settings.json",
		".claude/commands/x.md", ".claude/other", ".idea/workspace.xml", ".husky/pre-commit",
		".codex/config.toml", ".cursor/rules", "sub/.gitattributes", ".claude/skills/x/SKILL.md",
		"CLAUDE.md", "AGENTS.md", ".pre-commit-config.yaml", ".yarnrc.yml", ".yarnrc",
		".hg/hgrc", ".cargo/config.toml", ".cargo/config", ".mise.toml", "mise.toml",
		".pnpmfile.cjs", ".python-version", "CLAUDE.local.md", ".claude/CLAUDE.md",
		".claude/rules/x.md", ".claude/hooks/x.sh", ".vscode/mcp.json", ".gemini/settings.json",
		"GEMINI.md", ".github/copilot-instructions.md", ".cursorrules", ".windsurfrules",
		".clinerules", ".clinerules/x.md", ".zlogout",
	};
	confine_policy policy = { .mode = CONFINE_MODE_WORKSPACE_WRITE, .workspace_root = ws,
		                  .default_protections = true, .private_temp = true };
	char *names[] = { (char *)".envrc", NULL };
	confine_fs *fs;
	confine_error err = { 0 };
	(void)state;
	mkdir(at(ws, "sub"), 0755);
	mkdir(at(ws, "sub/.git"), 0755);
	put(at(ws, ".bashrc"), "# mine\n");
	fs = open_fs(CONFINE_MODE_WORKSPACE_WRITE, NULL);
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		expect_denied(confine_fs_write(fs, refused[i], "x", 1, &err), &err, "defaultProtections");
		if (strcmp(refused[i], ".bashrc") != 0)
			assert_false(tl_exists(at(ws, refused[i])));
	}
	expect_denied(confine_fs_append(fs, ".bashrc", "touch x\n", 8, &err), &err,
	              "defaultProtections");
	expect_denied(confine_fs_mkdir(fs, ".claude", &err), &err, "defaultProtections");
	assert_true(holds(at(ws, ".bashrc"), "# mine\n"));
	/* a .gitattributes where no repository is, and look-alike names */
	assert_int_equal(confine_fs_write(fs, "docs.gitattributes", "x", 1, &err), 0);
	assert_int_equal(confine_fs_write(fs, ".bashrc.d", "x", 1, &err), 0);
	confine_fs_free(fs);
	policy.unprotect = names;
	assert_int_equal(confine_fs_open(&policy, &fs, &err), 0);
	assert_int_equal(confine_fs_write(fs, ".envrc", "x", 1, &err), 0);
	expect_denied(confine_fs_write(fs, ".bashrc", "x", 1, &err), &err, "defaultProtections");
	confine_fs_free(fs);
	assert_int_equal(unlink(at(ws, ".envrc")), 0);
	assert_int_equal(unlink(at(ws, ".bashrc")), 0);
	assert_int_equal(unlink(at(ws, "docs.gitattributes")), 0);
	assert_int_equal(unlink(at(ws, ".bashrc.d")), 0);
	assert_int_equal(rmdir(at(ws, "sub/.git")), 0);
	assert_int_equal(rmdir(at(ws, "sub")), 0);
}


/* $HOME as it was (a copy, or NULL), and back: the home tests set it. */
static char *home_saved(void) {
	return getenv("HOME") ? strdup(getenv("HOME")) : NULL;
}

static void home_restore(char *saved) {
	if (saved)
		setenv("HOME", saved, 1);
	else
		unsetenv("HOME");
	free(saved);
}

/* The home's entries (later.c: .gitconfig, .config/git/config, .hgrc and
 * the shell files) where a writable root holds $HOME, existing or not;
 * not at the top of a root that is no home. */
static void test_later_home_refused(void **state) {
	static const char *const refused[] = {
		"h/.gitconfig", "h/.config/git/config", "h/.hgrc", "h/.bashrc", "h/.profile",
		"h/.ssh/authorized_keys", "h/.ssh/config", "h/.local/bin/git", "h/.bash_aliases",
		"h/.config/systemd/user/x.service", "h/.docker/config.json", "h/.gnupg/gpg-agent.conf",
		"h/.claude.json", "h/.zlogout",
	};
	char *saved = home_saved();
	confine_error err = { 0 };
	confine_fs *fs;
	(void)state;
	mkdir(at(ws, "h"), 0755);
	put(at(ws, "h/.gitconfig"), "[user]\n");
	setenv("HOME", at(ws, "h"), 1);
	unsetenv("XDG_CONFIG_HOME");
	fs = open_fs(CONFINE_MODE_WORKSPACE_WRITE, NULL);
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
		expect_denied(confine_fs_write(fs, refused[i], "x", 1, &err), &err, "defaultProtections");
	assert_true(holds(at(ws, "h/.gitconfig"), "[user]\n"));
	assert_false(tl_exists(at(ws, "h/.config")));
	assert_int_equal(confine_fs_write(fs, ".gitconfig", "x", 1, &err), 0);
	/* the home's own entries are not at the top of a root that is no home */
	assert_int_equal(confine_fs_write(fs, ".claude.json", "x", 1, &err), 0);
	confine_fs_free(fs);
	home_restore(saved);
	assert_int_equal(unlink(at(ws, ".gitconfig")), 0);
	assert_int_equal(unlink(at(ws, ".claude.json")), 0);
	assert_int_equal(unlink(at(ws, "h/.gitconfig")), 0);
	assert_int_equal(rmdir(at(ws, "h")), 0);
}

/* A root above the home holds every entry at the home (.claude/ too), the
 * outside red team's home entries, and what the home's git configuration
 * includes (relative to the including file, `~/`, includeIf) or names as
 * core.hooksPath, existing or not; a file it includes itself ends; a file
 * nothing includes is writable (issue 28). */
static void test_later_home_includes_refused(void **state) {
	static const char *const refused[] = {
		"h/.claude/settings.json", "h/.claude/commands/x.md", "h/CLAUDE.md",
		"h/.codex/config.toml", "h/.vimrc", "h/.tmux.conf", "h/.inputrc",
		"h/.local/lib/python3.11/site-packages/x.pth", "h/.config/nvim/init.lua",
		"h/.config/autostart/x.desktop", "h/.local/share/bash-completion/completions/git",
		"h/inc/a", "h/inc/b", "h/inc/c", "h/hooks/pre-commit", "h/.config/fish/config.fish",
	};
	char *saved = home_saved();
	confine_error err = { 0 };
	confine_fs *fs;
	(void)state;
	mkdir(at(ws, "h"), 0755);
	mkdir(at(ws, "h/inc"), 0755);
	put(at(ws, "h/.gitconfig"), "[include]\n\tpath = inc/a ; a comment\n"
	                            "[core]\n\thooksPath = \"~/hooks\"\n"
	                            "[include]\n\tpath = .gitconfig\n");
	put(at(ws, "h/inc/a"), "[includeIf \"gitdir:~/w/\"]\n\tpath = b\n");
	put(at(ws, "h/inc/b"), "[include] path = ~/inc/c\n");
	setenv("HOME", at(ws, "h"), 1);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("GIT_CONFIG_GLOBAL");
	fs = open_fs(CONFINE_MODE_WORKSPACE_WRITE, NULL);
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
		expect_denied(confine_fs_write(fs, refused[i], "x", 1, &err), &err, "defaultProtections");
	assert_true(holds(at(ws, "h/inc/a"), "[includeIf \"gitdir:~/w/\"]\n\tpath = b\n"));
	assert_false(tl_exists(at(ws, "h/inc/c")));
	assert_int_equal(confine_fs_write(fs, "h/inc/d", "x", 1, &err), 0);
	confine_fs_free(fs);
	home_restore(saved);
	assert_int_equal(unlink(at(ws, "h/inc/d")), 0);
	assert_int_equal(unlink(at(ws, "h/inc/a")), 0);
	assert_int_equal(unlink(at(ws, "h/inc/b")), 0);
	assert_int_equal(rmdir(at(ws, "h/inc")), 0);
	assert_int_equal(unlink(at(ws, "h/.gitconfig")), 0);
	assert_int_equal(rmdir(at(ws, "h")), 0);
}

static void test_git_surface_refused_existing_or_not(void **state) {
	(void)state;
	each_path(git_surface_refused_existing_or_not);
}

/* A write that leaves git something to run is reported as a run's
 * gitHazards would (issue 28.1): an include file in the worktree is a
 * project file, writable, but what it sets is git's. */
static void test_writes_report_git_hazards(void **state) {
	confine_fs *fs;
	confine_error err = { 0 };
	confine_git_hazard *h = NULL;
	size_t n = 99;
	(void)state;
	put(at(ws, ".git/config"), "[include]\n\tpath = ../project.gitconfig\n");
	fs = open_fs(CONFINE_MODE_WORKSPACE_WRITE, NULL);
	assert_int_equal(confine_fs_git_hazards(fs, &h, &n, &err), 0);
	assert_int_equal(n, 0); /* nothing written yet */
	{
		const char *text = "[tar \"tgz\"]\n\tcommand = touch /tmp/x\n";
		assert_int_equal(confine_fs_write(fs, "project.gitconfig", text, strlen(text), &err), 0);
	}
	assert_int_equal(confine_fs_git_hazards(fs, &h, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(h[0].path, at(ws, "project.gitconfig"));
	assert_string_equal(h[0].kind, "tar.tgz.command");
	confine_git_hazards_free(h, n);
	/* A write that leaves nothing for git reports nothing. */
	assert_int_equal(confine_fs_write(fs, "notes", "x", 1, &err), 0);
	assert_int_equal(confine_fs_git_hazards(fs, &h, &n, &err), 0);
	assert_int_equal(n, 0);
	confine_git_hazards_free(h, n);
	confine_fs_free(fs);
	put(at(ws, ".git/config"), "[core]\n");
}

static void test_clauses_hold(void **state) {
	(void)state;
	each_path(clauses_hold);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_writes_land, setup, teardown),
		cmocka_unit_test_setup_teardown(test_the_plain_calls_escape, setup, teardown),
		cmocka_unit_test_setup_teardown(test_planted_links_are_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hard_links_are_not_written_through, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_racing_link_never_leads_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clauses_hold, setup, teardown),
		cmocka_unit_test_setup_teardown(test_git_surface_refused_existing_or_not, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_writes_report_git_hazards, setup, teardown),
		cmocka_unit_test_setup_teardown(test_later_refused_existing_or_not, setup, teardown),
		cmocka_unit_test_setup_teardown(test_later_home_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_later_home_includes_refused, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
