/* SPDX-License-Identifier: MIT */
/*
 * The stage's changes as a unified diff `git apply` accepts (doc/SPEC.md
 * 21). Each changed text file is one hunk replacing the whole file: exact,
 * if not minimal; a binary file is git's binary patch (git-binary.c).
 * `.git`, roots other than the workspace and what is neither a file nor a
 * link are left out, each named in a `# confine:` line before the first
 * diff (text `git apply` skips; the JSON listing has them).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/fs-internal.h"
#include "path-quote.h"
#include "stage/stage-internal.h"

#define STAGE "stage"

static char type_of_mode(mode_t mode) {
	return S_ISLNK(mode) ? 'l' : 'f';
}

/* The file's bytes (a link's target), malloc'd; NULL with *len 0 when it
 * is absent. -errno on a read failure. */
static int slurp(const char *path, bool link, char **ret, size_t *len) {
	cf_buf b = { 0 };
	*ret = NULL;
	*len = 0;
	if (link) {
		char target[PATH_MAX];
		ssize_t n = readlink(path, target, sizeof target);
		if (n < 0)
			return errno == ENOENT ? 0 : -errno;
		if (cf_buf_append(&b, target, (size_t)n) < 0)
			return -ENOMEM;
	} else {
		int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return errno == ENOENT ? 0 : -errno;
		for (;;) {
			char chunk[65536];
			ssize_t n = read(fd, chunk, sizeof chunk);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0 || cf_buf_append(&b, chunk, (size_t)n) < 0) {
				int e = n < 0 ? errno : n > 0 ? ENOMEM : 0;
				close(fd);
				if (e) {
					cf_buf_free(&b);
					return -e;
				}
				break;
			}
		}
	}
	*len = b.len;
	if (!(*ret = cf_buf_steal(&b)))
		return -ENOMEM;
	return 0;
}

static size_t count_lines(const char *s, size_t len) {
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	return n + (len && s[len - 1] != '\n');
}

static int put_lines(cf_buf *b, char sign, const char *s, size_t len) {
	size_t start = 0;
	int r = 0;
	for (size_t i = 0; r == 0 && i <= len; i++) {
		if (i < len && s[i] != '\n')
			continue;
		if (i == len && start == len)
			break;
		r = cf_buf_append(b, &sign, 1);
		if (r == 0)
			r = cf_buf_append(b, s + start, i - start);
		if (r == 0)
			r = cf_buf_puts(b, i < len ? "\n" : "\n\\ No newline at end of file\n");
		start = i + 1;
	}
	return r;
}

static const char *git_mode(char type, unsigned mode) {
	if (type == 'l')
		return "120000";
	return (mode & 0100) ? "100755" : "100644";
}

/* git's rule: a NUL in the first 8000 bytes. */
static bool is_binary(const char *s, size_t len) {
	return memchr(s, 0, len < 8000 ? len : 8000) != NULL;
}

/* `prefix` and `name` as git quotes a path (path-quote.h: a name holding a
 * newline or an escape cannot forge a line of the patch). */
static int put_path(cf_buf *b, const char *prefix, const char *name) {
	size_t need = cf_quote_path(NULL, 0, prefix, name);
	char *text = malloc(need + 1);
	int r;
	if (!text)
		return -ENOMEM;
	cf_quote_path(text, need + 1, prefix, name);
	r = cf_buf_puts(b, text);
	free(text);
	return r;
}

/* "diff --git A B\n" for the paths `a` and `b`. */
static int put_diff_line(cf_buf *out, const char *a, const char *b) {
	int r = cf_buf_puts(out, "diff --git ");
	if (r == 0)
		r = put_path(out, "a/", a);
	if (r == 0)
		r = cf_buf_puts(out, " ");
	if (r == 0)
		r = put_path(out, "b/", b);
	return r == 0 ? cf_buf_puts(out, "\n") : r;
}

/* One file's diff, old (`a`, may be absent) to new (`b`, may be absent). */
static int file_diff(cf_buf *out, const char *path, const char *a, size_t alen, bool a_exists,
                     const char *a_mode, const char *b, size_t blen, bool b_exists,
                     const char *b_mode) {
	size_t na = count_lines(a, alen), nb = count_lines(b, blen);
	bool same = alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
	int r = put_diff_line(out, path, path);
	if (r == 0 && !a_exists)
		r = cf_buf_printf(out, "new file mode %s\n", b_mode);
	else if (r == 0 && !b_exists)
		r = cf_buf_printf(out, "deleted file mode %s\n", a_mode);
	else if (r == 0 && strcmp(a_mode, b_mode) != 0)
		r = cf_buf_printf(out, "old mode %s\nnew mode %s\n", a_mode, b_mode);
	if (r < 0 || (same && a_exists && b_exists))
		return r;
	if (is_binary(a, alen) || is_binary(b, blen)) {
		/* git applies a binary patch only against the blob it names. */
		char ida[41], idb[41];
		cf_git_blob_id(a, alen, a_exists, ida);
		cf_git_blob_id(b, blen, b_exists, idb);
		r = cf_buf_printf(out, "index %s..%s\n", ida, idb);
		return r == 0 ? cf_git_binary_hunks(out, a, alen, b, blen) : r;
	}
	if (same)
		return r; /* an empty file made or removed */
	/* As git writes them: a name holding a space ends in a tab (GNU
	 * patch's rule for where the name stops). */
	r = cf_buf_puts(out, "--- ");
	if (r == 0)
		r = a_exists ? put_path(out, "a/", path) : cf_buf_puts(out, "/dev/null");
	if (r == 0)
		r = cf_buf_puts(out, a_exists && strchr(path, ' ') ? "\t\n+++ " : "\n+++ ");
	if (r == 0)
		r = b_exists ? put_path(out, "b/", path) : cf_buf_puts(out, "/dev/null");
	if (r == 0)
		r = cf_buf_puts(out, b_exists && strchr(path, ' ') ? "\t\n" : "\n");
	if (r == 0)
		r = cf_buf_printf(out, "@@ -%d,%zu +%d,%zu @@\n", na ? 1 : 0, na, nb ? 1 : 0, nb);
	if (r == 0)
		r = put_lines(out, '-', a, alen);
	if (r == 0)
		r = put_lines(out, '+', b, blen);
	return r;
}

/* The diff of one side: a file or link at `real` (old) and `up` (new). */
static int side_diff(cf_buf *out, const char *path, const char *real, const struct stat *rst,
                     const char *up, const struct stat *ust) {
	char *a = NULL, *b = NULL;
	size_t alen = 0, blen = 0;
	const char *am = rst ? git_mode(type_of_mode(rst->st_mode), rst->st_mode) : "";
	const char *bm = ust ? git_mode(type_of_mode(ust->st_mode), ust->st_mode) : "";
	int r = 0;
	if (rst)
		r = slurp(real, S_ISLNK(rst->st_mode), &a, &alen);
	if (r == 0 && ust)
		r = slurp(up, S_ISLNK(ust->st_mode), &b, &blen);
	/* A file turned link (or back) is two changes to git: a delete, an add. */
	if (r == 0 && rst && ust && S_ISLNK(rst->st_mode) != S_ISLNK(ust->st_mode)) {
		r = file_diff(out, path, a, alen, true, am, "", 0, false, "");
		if (r == 0)
			r = file_diff(out, path, "", 0, false, "", b, blen, true, bm);
	} else if (r == 0) {
		r = file_diff(out, path, a ? a : "", alen, rst != NULL, am, b ? b : "", blen,
		              ust != NULL, bm);
	}
	free(a);
	free(b);
	return r;
}

/* Every file below the real directory `real` (at `rel`) deleted. */
static int tree_deleted(cf_buf *out, const char *rel, const char *real) {
	DIR *d = opendir(real);
	struct dirent *e;
	int r = 0;
	if (!d)
		return 0;
	while (r == 0 && (e = readdir(d))) {
		char child_rel[PATH_MAX], child_real[PATH_MAX];
		struct stat st;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(child_rel, sizeof child_rel, "%s/%s", rel, e->d_name);
		snprintf(child_real, sizeof child_real, "%s/%s", real, e->d_name);
		if (lstat(child_real, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode))
			r = tree_deleted(out, child_rel, child_real);
		else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
			r = side_diff(out, child_rel, child_real, &st, NULL, NULL);
	}
	closedir(d);
	return r;
}

/* A change the patch leaves out, named (quoted as git would: a path with a
 * newline would end the line). */
static int note(cf_buf *notes, const char *path, const char *why) {
	int r = cf_buf_puts(notes, "# confine: not in this patch (");
	if (r == 0)
		r = cf_buf_puts(notes, why);
	if (r == 0)
		r = cf_buf_puts(notes, "): ");
	if (r == 0)
		r = put_path(notes, NULL, path);
	return r == 0 ? cf_buf_puts(notes, "\n") : r;
}

/* Whether apply would refuse the change (its own rules: git's state in
 * the stage, and what the policy's protections deny): a patch that
 * carried it would land through `git apply` what apply holds back (red
 * team, round 5). */
static bool apply_refuses(const confine_stage *stage, confine_fs *fs, const cf_change *c) {
	char real[PATH_MAX], gitdir[PATH_MAX], name[NAME_MAX + 1];
	const char *which = NULL;
	confine_error fe = { 0 };
	int dirfd = -1;
	if (cf_stage_git_state(stage, c->root, c->rel, gitdir, sizeof gitdir, &which))
		return true;
	if (cf_stage_join(real, sizeof real, stage->roots[c->root].real, c->rel) < 0)
		return false;
	(void)cf_fs_resolve_for_write(fs, "apply", real, false, &dirfd, name, sizeof name, &fe);
	if (dirfd >= 0)
		close(dirfd);
	return fe.code == CONFINE_E_DENIED;
}

int confine_stage_patch(confine_stage *stage, char **ret_text, size_t *ret_len,
                        confine_error *err) {
	confine_policy *policy = NULL;
	confine_fs *fs = NULL;
	cf_change *ch;
	size_t n;
	cf_buf out = { 0 }, notes = { 0 };
	int r;
	if (!stage || !ret_text || !ret_len)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "confine_stage_patch needs a stage and result pointers");
	if ((r = cf_stage_run_policy(stage, &policy, err)) < 0)
		return r;
	r = confine_fs_open(policy, &fs, err);
	confine_policy_free(policy);
	if (r < 0)
		return r;
	if ((r = cf_stage_collect(stage, false, &ch, &n, err)) < 0) {
		confine_fs_free(fs);
		return r;
	}
	for (size_t i = 0; r == 0 && i < n; i++) {
		if (ch[i].root != 0 || ch[i].pub.git)
			r = note(&notes, ch[i].pub.path,
			         ch[i].pub.git ? "under .git" : "outside the workspace root");
		else if ((ch[i].left_out = apply_refuses(stage, fs, &ch[i])))
			r = note(&notes, ch[i].pub.path, "apply refuses it: a protected path");
	}
	confine_fs_free(fs);
	for (size_t i = 0; r == 0 && i < n; i++) {
		const cf_change *c = &ch[i];
		const cf_stage_root *root = &stage->roots[0];
		char real[PATH_MAX], up[PATH_MAX];
		struct stat rst, ust;
		bool has_real, has_up, special = false;
		if (c->root != 0 || c->pub.git || c->left_out)
			continue;
		if (cf_stage_join(real, sizeof real, root->real, c->rel) < 0 ||
		    cf_stage_join(up, sizeof up, root->upper, c->rel) < 0)
			continue;
		has_real = lstat(real, &rst) == 0;
		has_up = c->pub.change != CONFINE_CHANGE_DELETED && lstat(up, &ust) == 0;
		if (c->pub.change == CONFINE_CHANGE_RENAMED) {
			r = put_diff_line(&out, c->from_rel, c->rel);
			if (r == 0)
				r = cf_buf_puts(&out, "similarity index 100%\nrename from ");
			if (r == 0)
				r = put_path(&out, NULL, c->from_rel);
			if (r == 0)
				r = cf_buf_puts(&out, "\nrename to ");
			if (r == 0)
				r = put_path(&out, NULL, c->rel);
			if (r == 0)
				r = cf_buf_puts(&out, "\n");
			continue;
		}
		if (has_real && S_ISDIR(rst.st_mode)) {
			if (c->pub.change == CONFINE_CHANGE_MODE)
				continue; /* git has no directory modes */
			r = tree_deleted(&out, c->rel, real);
			has_real = false;
		}
		if (r < 0 || (has_up && S_ISDIR(ust.st_mode)))
			continue; /* a new directory: its files are changes of their own */
		if (has_real && !S_ISREG(rst.st_mode) && !S_ISLNK(rst.st_mode)) {
			has_real = false;
			special = true;
		}
		if (has_up && !S_ISREG(ust.st_mode) && !S_ISLNK(ust.st_mode)) {
			has_up = false;
			special = true;
		}
		if (special)
			r = note(&notes, c->pub.path, "neither a file nor a link");
		if (has_real || has_up)
			r = side_diff(&out, c->rel, real, has_real ? &rst : NULL, up, has_up ? &ust : NULL);
	}
	cf_stage_changes_clear(ch, n);
	/* The notes first: before the first diff, git apply skips them. */
	if (r == 0 && notes.len) {
		r = cf_buf_append(&notes, out.data ? out.data : "", out.len);
		cf_buf_free(&out);
		out = notes;
		notes = (cf_buf){ 0 };
	}
	cf_buf_free(&notes);
	if (r < 0) {
		cf_buf_free(&out);
		return r == -ENOMEM
		               ? cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, STAGE, ENOMEM, "out of memory")
		               : cf_error_set(err, -r, CONFINE_E_FS, STAGE, -r, "stage: patch: %s",
		                              strerror(-r));
	}
	*ret_len = out.len;
	if (!out.data && cf_buf_puts(&out, "") < 0)
		return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, STAGE, ENOMEM, "out of memory");
	*ret_text = cf_buf_steal(&out);
	return 0;
}
