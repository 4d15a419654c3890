/* SPDX-License-Identifier: MIT */
/* gitHazards (doc/SPEC.md 15): which git settings run programs (a table
 * derived from git-config(1), key by key), and the snapshot-and-diff that
 * reports what a run left, decided by fingerprints, never by a clock. */
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "confine.h"
#include "git-hazards.h"
#include "testlib.h"

/* ---- the key table ---- */

typedef struct key_case {
	const char *section, *subsection, *key, *value;
	const char *want; /* git's spelling when it runs something, NULL when not */
} key_case;

static const key_case key_cases[] = {
	/* Settings whose value git runs, or that point git at other code. */
	{ "core", NULL, "hookspath", ".husky", "core.hooksPath" },
	{ "core", NULL, "fsmonitor", "./watch.sh", "core.fsmonitor" },
	{ "core", NULL, "sshcommand", "ssh -i k", "core.sshCommand" },
	{ "core", NULL, "pager", "less", "core.pager" },
	{ "core", NULL, "editor", "vi", "core.editor" },
	{ "core", NULL, "askpass", "/bin/pass", "core.askPass" },
	{ "core", NULL, "gitproxy", "proxy.sh", "core.gitProxy" },
	{ "core", NULL, "alternaterefscommand", "x", "core.alternateRefsCommand" },
	{ "core", NULL, "worktree", "/home/me", "core.worktree" },
	{ "sequence", NULL, "editor", "x", "sequence.editor" },
	{ "diff", NULL, "external", "x", "diff.external" },
	{ "diff", "pdf", "textconv", "pdftotext", "diff.pdf.textconv" },
	{ "diff", "pdf", "command", "x", "diff.pdf.command" },
	{ "filter", "lfs", "clean", "x", "filter.lfs.clean" },
	{ "filter", "lfs", "smudge", "x", "filter.lfs.smudge" },
	{ "filter", "lfs", "process", "x", "filter.lfs.process" },
	{ "merge", "ours", "driver", "true", "merge.ours.driver" },
	{ "mergetool", "kd", "cmd", "x", "mergetool.kd.cmd" },
	{ "mergetool", "kd", "path", "/x", "mergetool.kd.path" },
	{ "difftool", "kd", "cmd", "x", "difftool.kd.cmd" },
	{ "difftool", "kd", "path", "/x", "difftool.kd.path" },
	{ "credential", NULL, "helper", "store", "credential.helper" },
	{ "credential", "https://example.org", "helper", "x", "credential.https://example.org.helper" },
	{ "gpg", NULL, "program", "x", "gpg.program" },
	{ "gpg", "ssh", "program", "x", "gpg.ssh.program" },
	{ "gpg", "x509", "program", "x", "gpg.x509.program" },
	{ "gpg", "ssh", "defaultkeycommand", "x", "gpg.ssh.defaultKeyCommand" },
	{ "alias", NULL, "st", "!sh -c evil", "alias.st" },
	{ "pager", NULL, "log", "evil", "pager.log" },
	{ "remote", "origin", "uploadpack", "x", "remote.origin.uploadpack" },
	{ "remote", "origin", "receivepack", "x", "remote.origin.receivepack" },
	{ "remote", "origin", "vcs", "x", "remote.origin.vcs" },
	{ "remote", "origin", "url", "ext::sh -c evil", "remote.origin.url" },
	{ "remote", "origin", "pushurl", "EXT::sh", "remote.origin.pushurl" },
	{ "url", "ext::sh -c evil", "insteadof", "https://x", "url.ext::sh -c evil.insteadOf" },
	{ "protocol", NULL, "allow", "always", "protocol.allow" },
	{ "protocol", "ext", "allow", "user", "protocol.ext.allow" },
	{ "include", NULL, "path", "../x", "include.path" },
	{ "includeif", "gitdir:/x/", "path", "../x", "includeIf.gitdir:/x/.path" },
	{ "browser", "ff", "cmd", "x", "browser.ff.cmd" },
	{ "browser", "ff", "path", "/x", "browser.ff.path" },
	{ "man", "m", "cmd", "x", "man.m.cmd" },
	{ "man", "m", "path", "/x", "man.m.path" },
	{ "guitool", "t", "cmd", "x", "guitool.t.cmd" },
	{ "imap", NULL, "tunnel", "x", "imap.tunnel" },
	{ "instaweb", NULL, "httpd", "x", "instaweb.httpd" },
	{ "interactive", NULL, "difffilter", "x", "interactive.diffFilter" },
	{ "sendemail", NULL, "sendmailcmd", "x", "sendemail.sendmailCmd" },
	{ "sendemail", NULL, "smtpserver", "/usr/bin/evil", "sendemail.smtpServer" },
	{ "sendemail", NULL, "tocmd", "x", "sendemail.toCmd" },
	{ "sendemail", NULL, "cccmd", "x", "sendemail.ccCmd" },
	{ "sendemail", NULL, "headercmd", "x", "sendemail.headerCmd" },
	{ "sendemail", "work", "tocmd", "x", "sendemail.work.toCmd" },
	{ "submodule", "s", "update", "!evil", "submodule.s.update" },
	{ "trailer", "t", "cmd", "x", "trailer.t.cmd" },
	{ "trailer", "t", "command", "x", "trailer.t.command" },
	{ "uploadpack", NULL, "packobjectshook", "x", "uploadpack.packObjectsHook" },
	/* Settings that run nothing, or values that make them harmless. */
	{ "core", NULL, "fsmonitor", "true", NULL },
	{ "core", NULL, "fsmonitor", "false", NULL },
	{ "core", NULL, "filemode", "true", NULL },
	{ "pager", NULL, "log", "false", NULL },
	{ "alias", NULL, "co", "checkout", NULL },
	{ "remote", "origin", "url", "https://example.org/r.git", NULL },
	{ "url", "https://mirror/", "insteadof", "https://x", NULL },
	{ "protocol", "ext", "allow", "never", NULL },
	{ "sendemail", NULL, "smtpserver", "smtp.example.org", NULL },
	{ "submodule", "s", "update", "rebase", NULL },
	{ "user", NULL, "name", "me", NULL },
	{ "diff", NULL, "textconv", "x", NULL },   /* textconv needs a driver */
	{ "filter", NULL, "clean", "x", NULL },    /* so does a filter */
	{ "core", "x", "pager", "less", NULL },    /* core has no subsections */
};

static void test_executable_keys(void **state) {
	(void)state;
	for (size_t i = 0; i < sizeof key_cases / sizeof key_cases[0]; i++) {
		const key_case *c = &key_cases[i];
		char spelled[640] = "";
		bool got = cf_git_executable_setting(c->section, c->subsection, c->key, c->value, spelled,
		                                     sizeof spelled);
		if (got != (c->want != NULL) || (got && strcmp(spelled, c->want) != 0))
			fail_msg("%s.%s.%s = %s: got %d '%s', want %s", c->section,
			         c->subsection ? c->subsection : "", c->key, c->value, got, spelled,
			         c->want ? c->want : "(nothing)");
	}
}

/* ---- snapshot and diff on a real tree ---- */

typedef struct fixture {
	char root[2048];
	char *roots[2];
	cf_git_snapshot *before;
	confine_git_hazard *hazards;
	size_t n;
} fixture;

static int setup(void **state) {
	fixture *f = calloc(1, sizeof *f);
	if (!f || tl_make_workdir("git-hazards", f->root, sizeof f->root) < 0)
		return -1;
	f->roots[0] = f->root;
	*state = f;
	return 0;
}

static void reset(fixture *f) {
	cf_git_hazards_free(f->hazards, f->n);
	f->hazards = NULL;
	f->n = 0;
	cf_git_snapshot_free(f->before);
	f->before = NULL;
}

static int teardown(void **state) {
	fixture *f = *state;
	reset(f);
	tl_remove_tree(f->root);
	free(f);
	return 0;
}

static void before(fixture *f) {
	reset(f);
	assert_int_equal(cf_git_snapshot_take(f->roots, &f->before), 0);
}

static void after(fixture *f) {
	cf_git_snapshot *now = NULL;
	assert_int_equal(cf_git_snapshot_take(f->roots, &now), 0);
	assert_int_equal(cf_git_snapshot_diff(f->before, now, &f->hazards, &f->n), 0);
	cf_git_snapshot_free(now);
}

/* Rotating buffers: two calls may be the arguments of one call (rename). */
static char *at(fixture *f, const char *rel) {
	static char paths[4][PATH_MAX];
	static unsigned next;
	char *path = paths[next++ % 4];
	snprintf(path, PATH_MAX, "%s/%s", f->root, rel);
	return path;
}

static void put(fixture *f, const char *rel, const char *content, mode_t mode) {
	char *p = tl_write_file(f->root, rel, content, mode);
	assert_non_null(p);
	free(p);
}

static void dir(fixture *f, const char *rel) {
	char path[PATH_MAX], *slash;
	snprintf(path, sizeof path, "%s/%s", f->root, rel);
	for (slash = path + strlen(f->root) + 1; (slash = strchr(slash, '/')); slash++) {
		*slash = '\0';
		(void)mkdir(path, 0755);
		*slash = '/';
	}
	assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
}

static void repo(fixture *f, const char *rel) {
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/.git/hooks", rel);
	dir(f, p);
	snprintf(p, sizeof p, "%s/.git/objects", rel);
	dir(f, p);
	snprintf(p, sizeof p, "%s/.git/HEAD", rel);
	put(f, p, "ref: refs/heads/main\n", 0644);
	snprintf(p, sizeof p, "%s/.git/config", rel);
	put(f, p, "[core]\n\trepositoryformatversion = 0\n\tbare = false\n", 0644);
	snprintf(p, sizeof p, "%s/.git/hooks/pre-commit.sample", rel);
	put(f, p, "#!/bin/sh\n", 0755);
}

/* Whether the diff reported exactly these (path relative to the root, kind)
 * pairs, in any order. */
static void want(fixture *f, size_t count, ...) {
	va_list ap;
	bool ok = f->n == count;
	va_start(ap, count);
	for (size_t i = 0; ok && i < count; i++) {
		const char *rel = va_arg(ap, const char *), *kind = va_arg(ap, const char *);
		char path[PATH_MAX];
		bool found = false;
		if (*rel)
			snprintf(path, sizeof path, "%s/%s", f->root, rel);
		else
			path[0] = '\0';
		for (size_t j = 0; j < f->n; j++)
			found |= strcmp(f->hazards[j].path, path) == 0 && strcmp(f->hazards[j].kind, kind) == 0;
		ok = found;
	}
	va_end(ap);
	if (!ok) {
		for (size_t j = 0; j < f->n; j++)
			print_message("# reported: %s %s\n", f->hazards[j].path, f->hazards[j].kind);
		fail_msg("want %zu hazards, got %zu (listed above)", count, f->n);
	}
}

static void test_a_quiet_run_after_a_hook_run_reports_nothing(void **state) {
	fixture *f = *state;
	repo(f, "r");
	/* Back to back, 50 times: the run that writes reports it; the quiet
	 * run right after it reports nothing, however fine the clock. */
	for (int i = 0; i < 50; i++) {
		char content[64];
		snprintf(content, sizeof content, "#!/bin/sh\necho %d\n", i);
		before(f);
		put(f, "r/.git/hooks/post-commit", content, 0755);
		after(f);
		want(f, 1, "r/.git/hooks/post-commit", "hook");
		before(f);
		after(f);
		want(f, 0);
	}
}

static void test_a_same_size_rewrite_with_its_times_put_back_is_reported(void **state) {
	fixture *f = *state;
	struct stat st;
	struct timespec times[2];
	repo(f, "r");
	put(f, "r/.git/hooks/pre-push", "#!/bin/sh\necho aaaa\n", 0755);
	assert_int_equal(stat(at(f, "r/.git/hooks/pre-push"), &st), 0);
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	before(f);
	/* Same size, same mtime: only the content tells. */
	put(f, "r/.git/hooks/pre-push", "#!/bin/sh\necho bbbb\n", 0755);
	assert_int_equal(utimensat(AT_FDCWD, at(f, "r/.git/hooks/pre-push"), times, 0), 0);
	after(f);
	want(f, 1, "r/.git/hooks/pre-push", "hook");
}

static void test_a_hook_made_executable_is_reported(void **state) {
	fixture *f = *state;
	repo(f, "r");
	put(f, "r/.git/hooks/pre-commit", "#!/bin/sh\n", 0644);
	before(f);
	assert_int_equal(chmod(at(f, "r/.git/hooks/pre-commit"), 0755), 0);
	after(f);
	want(f, 1, "r/.git/hooks/pre-commit", "hook");
}

static void test_only_new_settings_of_a_changed_config_are_reported(void **state) {
	fixture *f = *state;
	repo(f, "r");
	put(f, "r/.git/config", "[core]\n\thooksPath = .husky\n", 0644);
	before(f);
	/* An unrelated edit: the setting that was there is not news. */
	put(f, "r/.git/config", "[core]\n\thooksPath = .husky\n[user]\n\tname = me\n", 0644);
	after(f);
	want(f, 0);
	before(f);
	put(f, "r/.git/config",
	    "[core]\n\thooksPath = .evil\n\tpager = \"sh -c evil\" ; a comment\n"
	    "[alias]\n\tst = !sh -c evil\n\tco = checkout\n[diff]\n\texternal = evil\n",
	    0644);
	after(f);
	want(f, 4, "r/.git/config", "core.hooksPath", "r/.git/config", "core.pager", "r/.git/config",
	     "alias.st", "r/.git/config", "diff.external");
}

static void test_a_planted_commondir_is_reported_with_what_it_names(void **state) {
	fixture *f = *state;
	repo(f, "r");
	before(f);
	/* git reads hooks and config from the directory commondir names. */
	dir(f, "r/.evil/hooks");
	put(f, "r/.evil/hooks/pre-commit", "#!/bin/sh\n", 0755);
	put(f, "r/.evil/config", "[core]\n\tfsmonitor = ./evil.sh\n", 0644);
	put(f, "r/.git/commondir", "../.evil\n", 0644);
	after(f);
	want(f, 3, "r/.git/commondir", "commondir", "r/.evil/hooks/pre-commit", "hook",
	     "r/.evil/config", "core.fsmonitor");
}

static void test_a_linked_worktree_commondir_is_not_a_hazard(void **state) {
	fixture *f = *state;
	repo(f, "r");
	before(f);
	/* What `git worktree add` writes: commondir names its own repository. */
	dir(f, "r/.git/worktrees/wt");
	put(f, "r/.git/worktrees/wt/commondir", "../..\n", 0644);
	put(f, "r/.git/worktrees/wt/HEAD", "ref: refs/heads/wt\n", 0644);
	after(f);
	want(f, 0);
	before(f);
	put(f, "r/.git/worktrees/wt/config.worktree", "[core]\n\tsshCommand = evil\n", 0644);
	after(f);
	want(f, 1, "r/.git/worktrees/wt/config.worktree", "core.sshCommand");
}

/* bwrap's placeholder for a missing commondir (doc/SPEC.md 15): ".",
 * the repository itself, which changes nothing git reads. */
static void test_a_commondir_naming_its_own_repository_is_not_a_hazard(void **state) {
	fixture *f = *state;
	repo(f, "r");
	before(f);
	put(f, "r/.git/commondir", ".\n", 0644);
	after(f);
	want(f, 0);
	before(f);
	put(f, "r/.git/commondir", "../.evil\n", 0644);
	dir(f, "r/.evil");
	after(f);
	want(f, 1, "r/.git/commondir", "commondir");
}

/* A submodule's gitdir in modules/ is git's even when it is not checked
 * out: `git submodule update` checks it out and runs its hooks. */
static void test_a_submodule_gitdir_in_modules_is_walked(void **state) {
	fixture *f = *state;
	repo(f, "r");
	dir(f, "r/.git/modules/lib/x/hooks");
	put(f, "r/.git/modules/lib/x/HEAD", "ref: refs/heads/main\n", 0644);
	put(f, "r/.git/modules/lib/x/config", "[core]\n", 0644);
	before(f);
	put(f, "r/.git/modules/lib/x/hooks/post-checkout", "#!/bin/sh\n", 0755);
	put(f, "r/.git/modules/lib/x/config", "[core]\n\tpager = evil\n", 0644);
	after(f);
	want(f, 2, "r/.git/modules/lib/x/hooks/post-checkout", "hook", "r/.git/modules/lib/x/config",
	     "core.pager");
}

static void test_a_replaced_git_directory_is_compared_by_path(void **state) {
	fixture *f = *state;
	repo(f, "r");
	put(f, "r/.git/config", "[core]\n\tbare = false\n[diff \"x\"]\n\ttextconv = cat\n", 0644);
	before(f);
	/* mv .git .git.old && cp -a .git.old .git, then a new setting. */
	assert_int_equal(rename(at(f, "r/.git"), at(f, "r/.git.old")), 0);
	repo(f, "r");
	put(f, "r/.git/config",
	    "[core]\n\tbare = false\n[diff \"x\"]\n\ttextconv = cat\n[diff]\n\texternal = evil\n", 0644);
	after(f);
	/* The copy's new setting, compared by path; and the moved-away
	 * directory is a repository the run made (HEAD, objects, config), its
	 * settings new at that path. */
	want(f, 2, "r/.git/config", "diff.external", "r/.git.old/config", "diff.x.textconv");
}

static void test_hooks_in_the_hooks_path_directory_are_reported(void **state) {
	fixture *f = *state;
	repo(f, "r");
	dir(f, "r/.husky");
	put(f, "r/.git/config", "[core]\n\thooksPath = .husky\n", 0644);
	before(f);
	put(f, "r/.husky/pre-commit", "#!/bin/sh\nevil\n", 0755);
	after(f);
	want(f, 1, "r/.husky/pre-commit", "hook");
}

static void test_included_files_are_followed(void **state) {
	fixture *f = *state;
	repo(f, "r");
	put(f, "r/shared.gitconfig", "[user]\n\tname = me\n", 0644);
	put(f, "r/.git/config", "[include]\n\tpath = ../shared.gitconfig\n", 0644);
	before(f);
	put(f, "r/shared.gitconfig", "[user]\n\tname = me\n[core]\n\tpager = evil\n", 0644);
	after(f);
	want(f, 1, "r/shared.gitconfig", "core.pager");
}

static void test_a_git_file_and_its_gitdir(void **state) {
	fixture *f = *state;
	repo(f, "store/sub");
	dir(f, "w");
	before(f);
	put(f, "w/.git", "gitdir: ../store/sub/.git\n", 0644);
	put(f, "store/sub/.git/hooks/post-checkout", "#!/bin/sh\n", 0755);
	after(f);
	want(f, 1, "store/sub/.git/hooks/post-checkout", "hook");
}

static void test_a_hook_through_a_symlink_counts_by_its_target(void **state) {
	fixture *f = *state;
	repo(f, "r");
	put(f, "r/scripts-hook", "#!/bin/sh\necho ok\n", 0755);
	assert_int_equal(symlink("../../scripts-hook", at(f, "r/.git/hooks/pre-commit")), 0);
	before(f);
	after(f);
	want(f, 0);
	before(f);
	put(f, "r/scripts-hook", "#!/bin/sh\necho evil\n", 0755);
	after(f);
	want(f, 1, "r/.git/hooks/pre-commit", "hook");
}

/* No depth bound (issue 28.3): a repository 12 levels down is walked. */
static void test_a_deep_tree_is_walked_whole(void **state) {
	fixture *f = *state;
	const char *deep = "node_modules/a/node_modules/b/node_modules/c/node_modules/d/x/y/z/w";
	char path[512];
	dir(f, deep);
	snprintf(path, sizeof path, "%s/r", deep);
	repo(f, path);
	before(f);
	snprintf(path, sizeof path, "%s/r/.git/hooks/pre-commit", deep);
	put(f, path, "#!/bin/sh\n", 0755);
	after(f);
	want(f, 1, path, "hook");
}

/* The budget, when really spent, says where it ran out. */
static void test_the_budget_names_where_it_ran_out(void **state) {
	fixture *f = *state;
	dir(f, "a/b");
	put(f, "a/b/one", "1", 0644);
	put(f, "a/b/two", "2", 0644);
	cf_git_scan_budget = 3; /* a, b, then one of a/b's two */
	before(f);
	after(f);
	cf_git_scan_budget = CF_GIT_SCAN_MAX_ENTRIES;
	want(f, 1, "a/b", "incomplete");
}

static void test_a_removed_hook_is_not_a_hazard(void **state) {
	fixture *f = *state;
	repo(f, "r");
	put(f, "r/.git/hooks/pre-commit", "#!/bin/sh\n", 0755);
	before(f);
	assert_int_equal(unlink(at(f, "r/.git/hooks/pre-commit")), 0);
	after(f);
	want(f, 0);
}


/* The red team's ways to hide a key from a line reader (issue 21): each is
 * a setting git reads, so each is reported. */
static void put_bytes(fixture *f, const char *rel, const char *data, size_t len) {
	FILE *out = fopen(at(f, rel), "w");
	assert_non_null(out);
	assert_int_equal(fwrite(data, 1, len, out), len);
	fclose(out);
}

static void test_keys_hidden_from_a_line_reader_are_read(void **state) {
	fixture *f = *state;
	static const char header_line[] = "[core] fsmonitor = \"touch /m; false #\"\n";
	static const char bom[] = "\xef\xbb\xbf[core]\n\tpager = evil\n";
	static const char nul[] = "[core]\n# x\0y\n\teditor = evil\n";
	repo(f, "a");
	repo(f, "b");
	repo(f, "c");
	repo(f, "d");
	before(f);
	put_bytes(f, "a/.git/config", header_line, sizeof header_line - 1);
	put_bytes(f, "b/.git/config", bom, sizeof bom - 1);
	put_bytes(f, "c/.git/config", nul, sizeof nul - 1);
	{
		/* 300 KiB of comments, then the key */
		size_t pad = 300 * 1024, n = 0;
		char *big = malloc(pad + 64);
		assert_non_null(big);
		n += (size_t)sprintf(big, "[core]\n");
		while (n < pad) {
			memcpy(big + n, "# padding padding padding\n", 26);
			n += 26;
		}
		n += (size_t)sprintf(big + n, "\tsshCommand = evil\n");
		put_bytes(f, "d/.git/config", big, n);
		free(big);
	}
	after(f);
	want(f, 4, "a/.git/config", "core.fsmonitor", "b/.git/config", "core.pager", "c/.git/config",
	     "core.editor", "d/.git/config", "core.sshCommand");
}

static void test_a_symlinked_or_split_gitdir_is_followed(void **state) {
	fixture *f = *state;
	dir(f, "store/hooks");
	dir(f, "store/objects");
	dir(f, "sub");
	put(f, "store/HEAD", "ref: refs/heads/main\n", 0644);
	put(f, "store/config", "[core]\n", 0644);
	before(f);
	/* .git -> a full gitdir elsewhere in the root */
	assert_int_equal(symlink("../store", at(f, "sub/.git")), 0);
	put(f, "store/hooks/post-commit", "#!/bin/sh\n", 0755);
	/* a split gitdir: HEAD and a commondir, the rest where it names */
	dir(f, "split/g");
	dir(f, "split/c/hooks");
	dir(f, "split/c/objects");
	put(f, "split/g/HEAD", "ref: refs/heads/main\n", 0644);
	put(f, "split/g/commondir", "../c\n", 0644);
	put(f, "split/c/config", "[core]\n", 0644);
	put(f, "split/c/hooks/pre-commit", "#!/bin/sh\n", 0755);
	after(f);
	want(f, 3, "store/hooks/post-commit", "hook", "split/c/hooks/pre-commit", "hook",
	     "split/g/commondir", "commondir");
}

static void test_a_planted_rebase_todo_and_a_home_config(void **state) {
	fixture *f = *state;
	repo(f, "r");
	before(f);
	dir(f, "r/.git/rebase-merge");
	put(f, "r/.git/rebase-merge/git-rebase-todo", "exec touch /m\n", 0644);
	put(f, ".gitconfig", "[core]\n\tfsmonitor = evil\n", 0644);
	after(f);
	want(f, 2, "r/.git/rebase-merge/git-rebase-todo", "rebase-todo", ".gitconfig",
	     "core.fsmonitor");
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_executable_keys),
		T(test_a_quiet_run_after_a_hook_run_reports_nothing),
		T(test_a_same_size_rewrite_with_its_times_put_back_is_reported),
		T(test_a_hook_made_executable_is_reported),
		T(test_only_new_settings_of_a_changed_config_are_reported),
		T(test_a_planted_commondir_is_reported_with_what_it_names),
		T(test_a_linked_worktree_commondir_is_not_a_hazard),
		T(test_a_commondir_naming_its_own_repository_is_not_a_hazard),
		T(test_a_submodule_gitdir_in_modules_is_walked),
		T(test_a_replaced_git_directory_is_compared_by_path),
		T(test_hooks_in_the_hooks_path_directory_are_reported),
		T(test_included_files_are_followed),
		T(test_a_git_file_and_its_gitdir),
		T(test_a_hook_through_a_symlink_counts_by_its_target),
		T(test_a_deep_tree_is_walked_whole),
		T(test_the_budget_names_where_it_ran_out),
		T(test_a_removed_hook_is_not_a_hazard),
		T(test_keys_hidden_from_a_line_reader_are_read),
		T(test_a_symlinked_or_split_gitdir_is_followed),
		T(test_a_planted_rebase_todo_and_a_home_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
