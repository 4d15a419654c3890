/* SPDX-License-Identifier: MIT */
/* git directories, and the walk that finds them (git-hazards-internal.h). */
#include "git-hazards-internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirstack.h"
#include "later.h"

/* ---- git directories ---- */

/* One directory entry read: false once the budget is spent, then the
 * snapshot names `dir`, where it ran out. */
static bool spend(cf_git_snapshot *s, const char *dir) {
	if (++s->entries <= cf_git_scan_budget)
		return true;
	if (!s->incomplete) {
		s->incomplete = true;
		if (!(s->unreached = strdup(dir)))
			s->oom = true;
	}
	return false;
}

void cf_git_scan_hooks_dir(cf_git_snapshot *s, const char *dir) {
	char path[PATH_MAX];
	DIR *hooks;
	struct dirent *e;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (!(hooks = fdopendir(fd))) {
		close(fd);
		return;
	}
	while ((e = readdir(hooks))) {
		struct fingerprint fp;
		size_t len = strlen(e->d_name);
		int got;
		if (e->d_name[0] == '.' || (len > 7 && strcmp(e->d_name + len - 7, ".sample") == 0))
			continue;
		if (!spend(s, dir))
			break;
		if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path)
			continue;
		/* git runs a hook through a symlink too: the target is what counts. */
		if ((got = cf_git_fingerprint_file(path, &fp, NULL, NULL, CF_GIT_READ_MAX, NULL)) < 0)
			s->oom = true;
		if (got > 0)
			cf_git_record_add(s, path, RECORD_HOOK, &fp);
	}
	closedir(hooks);
}

static bool visited(cf_git_snapshot *s, const char *gitdir) {
	for (size_t i = 0; s->visited && s->visited[i]; i++)
		if (strcmp(s->visited[i], gitdir) == 0)
			return true;
	if (cf_strv_push(&s->visited, gitdir) < 0)
		s->oom = true;
	return false;
}

static void scan_gitdir(cf_git_snapshot *s, const char *gitdir, const char *worktree);

/* A gitdir's `modules/`: each directory holding HEAD is a submodule's
 * gitdir, checked out or not (`git submodule update` runs its hooks);
 * names may hold slashes, so any depth. */
static void scan_modules(cf_git_snapshot *s, const char *dir) {
	cf_dirstack stack = { 0 };
	char *at = NULL;
	int fd;
	if (cf_dirstack_push_root(&stack, dir) < 0)
		return;
	while (!s->oom && !s->incomplete && (fd = cf_dirstack_pop_open(&stack, &at, NULL)) != -ENOENT) {
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		struct dirent *e;
		if (fd >= 0 && !d)
			close(fd);
		while (d && !s->oom && (e = readdir(d))) {
			char head[PATH_MAX + 8];
			struct stat st;
			if (e->d_name[0] == '.' &&
			    (e->d_name[1] == '\0' || (e->d_name[1] == '.' && e->d_name[2] == '\0')))
				continue;
			if (!spend(s, at))
				break;
			if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			    !S_ISDIR(st.st_mode))
				continue;
			if ((size_t)snprintf(head, sizeof head, "%s/%s/HEAD", at, e->d_name) < sizeof head &&
			    access(head, F_OK) == 0) {
				head[strlen(head) - 5] = '\0';
				scan_gitdir(s, head, NULL);
			} else if (cf_dirstack_push_child(&stack, dirfd(d), at, e->d_name) == -ENOMEM) {
				s->oom = true;
			}
		}
		if (d)
			closedir(d);
		free(at);
		at = NULL;
	}
	free(at);
	cf_dirstack_clear(&stack);
}

/* `commondir`: git reads config and hooks from the directory it names
 * (relative to the gitdir). A linked worktree's gitdir,
 * <repo>/worktrees/<name>, names <repo>; anything else is foreign. */
static void scan_commondir(cf_git_snapshot *s, const char *gitdir, const char *worktree) {
	char path[PATH_MAX], target[PATH_MAX * 2], *text = NULL, *line, *real, *own = NULL;
	struct fingerprint fp;
	struct record *r;
	int got;
	if ((size_t)snprintf(path, sizeof path, "%s/commondir", gitdir) >= sizeof path)
		return;
	if ((got = cf_git_fingerprint_file(path, &fp, &text, NULL, CF_GIT_READ_MAX, NULL)) < 0)
		s->oom = true;
	if (got <= 0)
		return;
	line = cf_git_trim(text);
	line[strcspn(line, "\r\n")] = '\0';
	if (line[0] == '/')
		snprintf(target, sizeof target, "%s", line);
	else
		snprintf(target, sizeof target, "%s/%s", gitdir, line);
	real = realpath(target, NULL);
	{
		/* The repository this gitdir belongs to, if it is a linked worktree's. */
		char up[PATH_MAX];
		const char *slash = strrchr(gitdir, '/');
		if (slash && slash > gitdir) {
			int parent_len = (int)(slash - gitdir);
			const char *pslash = gitdir + parent_len;
			while (pslash > gitdir && pslash[-1] != '/')
				pslash--;
			if (strncmp(pslash, "worktrees/", 10) == 0 && pslash > gitdir + 1) {
				snprintf(up, sizeof up, "%.*s", (int)(pslash - 1 - gitdir), gitdir);
				own = realpath(up, NULL);
			}
		}
	}
	r = cf_git_record_add(s, path, RECORD_COMMONDIR, &fp);
	if (r) {
		/* Naming the gitdir itself (".": bwrap's placeholder, doc/SPEC.md
		 * 15) changes nothing either. */
		char *self = realpath(gitdir, NULL);
		r->foreign = !real || ((!own || strcmp(real, own) != 0) &&
		                       (!self || strcmp(real, self) != 0));
		free(self);
		if (cf_strv_push(&r->settings, real ? real : line) < 0)
			s->oom = true;
	}
	free(text);
	free(own);
	if (real) {
		scan_gitdir(s, real, worktree);
		free(real);
	}
}

static void scan_gitdir(cf_git_snapshot *s, const char *gitdir, const char *worktree) {
	char path[PATH_MAX];
	DIR *d;
	struct dirent *e;
	int fd;

	if (s->oom || visited(s, gitdir))
		return;
	if ((size_t)snprintf(path, sizeof path, "%s/config", gitdir) < sizeof path)
		cf_git_scan_config(s, path, worktree, 0);
	if ((size_t)snprintf(path, sizeof path, "%s/config.worktree", gitdir) < sizeof path)
		cf_git_scan_config(s, path, worktree, 0);
	scan_commondir(s, gitdir, worktree);
	if ((size_t)snprintf(path, sizeof path, "%s/hooks", gitdir) < sizeof path)
		cf_git_scan_hooks_dir(s, path);
	/* A rebase in progress: `git rebase --continue` runs the todo's `exec`
	 * lines (issue 21's red team planted one). */
	{
		static const char *const todos[] = { "rebase-merge/git-rebase-todo",
			                             "rebase-merge/git-rebase-todo.backup",
			                             "rebase-apply/git-rebase-todo" };
		for (size_t t = 0; t < sizeof todos / sizeof todos[0]; t++) {
			struct fingerprint tfp;
			int got;
			if ((size_t)snprintf(path, sizeof path, "%s/%s", gitdir, todos[t]) >= sizeof path)
				continue;
			if ((got = cf_git_fingerprint_file(path, &tfp, NULL, NULL, CF_GIT_READ_MAX, NULL)) < 0)
				s->oom = true;
			if (got > 0)
				cf_git_record_add(s, path, RECORD_TODO, &tfp);
		}
	}

	/* Submodules' gitdirs. */
	if ((size_t)snprintf(path, sizeof path, "%s/modules", gitdir) < sizeof path)
		scan_modules(s, path);
	/* Linked worktrees: each worktrees/<name> is a gitdir of its own. */
	if ((size_t)snprintf(path, sizeof path, "%s/worktrees", gitdir) >= sizeof path)
		return;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		char sub[PATH_MAX];
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		if (!spend(s, path))
			break;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if ((size_t)snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) < sizeof sub)
			scan_gitdir(s, sub, NULL); /* its worktree lies elsewhere */
	}
	closedir(d);
}

/* `.git` as a file: "gitdir: <path>", relative to the file's directory. */
static void scan_gitfile(cf_git_snapshot *s, int dirfd_, const char *dir) {
	char buf[PATH_MAX + 16], target[PATH_MAX * 2];
	char *line, *real;
	ssize_t n;
	/* Followed: git reads a `.git` that is a symlink to such a file. */
	int fd = openat(dirfd_, ".git", O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (strncmp(buf, "gitdir:", 7) != 0)
		return;
	buf[7 + strcspn(buf + 7, "\r\n")] = '\0';
	line = cf_git_trim(buf + 7);
	if (!*line)
		return;
	if (line[0] == '/')
		snprintf(target, sizeof target, "%s", line);
	else
		snprintf(target, sizeof target, "%s/%s", dir, line);
	if (!(real = realpath(target, NULL)))
		return;
	scan_gitdir(s, real, dir);
	free(real);
}

/* ---- the walk ---- */

/* One directory of the walk: what makes it a repository, then its
 * subdirectories pushed to visit. */
static void walk_dir(cf_git_snapshot *s, cf_dirstack *stack, int fd, const char *dir) {
	DIR *d = fdopendir(fd);
	struct dirent *e;
	bool has_head = false, has_objects = false, has_config = false, has_dot_git = false;
	bool has_commondir = false;
	char path[PATH_MAX];
	char **subdirs = NULL;

	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		const char *n = e->d_name;
		if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0')))
			continue;
		if (!spend(s, dir)) {
			closedir(d);
			confine_strv_free(subdirs);
			return;
		}
		if (strcmp(n, "HEAD") == 0)
			has_head = true;
		else if (strcmp(n, "objects") == 0)
			has_objects = true;
		else if (strcmp(n, "config") == 0)
			has_config = true;
		else if (strcmp(n, ".git") == 0) {
			has_dot_git = true;
			continue; /* scanned below, not walked */
		} else if (strcmp(n, "commondir") == 0)
			has_commondir = true;
		/* What runs later in a sub-project (later.c reads these). */
		if (cf_later_marks(n) &&
		    (size_t)snprintf(path, sizeof path, "%s/%s", dir, n) < sizeof path &&
		    cf_strv_push(&s->marks, path) < 0)
			s->oom = true;
#ifdef DT_DIR
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
#endif
		if (cf_strv_push(&subdirs, n) < 0) {
			s->oom = true;
			break;
		}
	}
	if (has_dot_git) {
		struct stat st;
		/* A work tree's top: what runs later there (later.c) is printed
		 * from this list. */
		if (cf_strv_push(&s->worktrees, dir) < 0)
			s->oom = true;
		if (fstatat(dirfd(d), ".git", &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (S_ISDIR(st.st_mode)) {
				if ((size_t)snprintf(path, sizeof path, "%s/.git", dir) < sizeof path)
					scan_gitdir(s, path, dir);
			} else if (S_ISREG(st.st_mode)) {
				scan_gitfile(s, dirfd(d), dir);
			} else if (S_ISLNK(st.st_mode) &&
			           (size_t)snprintf(path, sizeof path, "%s/.git", dir) < sizeof path) {
				/* git follows a `.git` symlink (issue 21's red team): to a
				 * gitdir, or to a `.git` file elsewhere. */
				char *real = realpath(path, NULL);
				struct stat target;
				if (real && stat(real, &target) == 0) {
					if (S_ISDIR(target.st_mode))
						scan_gitdir(s, real, dir);
					else if (S_ISREG(target.st_mode))
						scan_gitfile(s, dirfd(d), dir);
				}
				free(real);
			}
		}
	}
	/* A bare repository or a gitdir: HEAD with objects and config, or with
	 * a commondir that holds them (git's own test: a split gitdir). */
	if (has_head && ((has_objects && has_config) || has_commondir))
		scan_gitdir(s, dir, dir);
	/* Pushed in reverse, so they are visited in the order listed. */
	for (size_t i = cf_strv_length((const char *const *)subdirs); i-- > 0 && !s->oom;)
		if (cf_dirstack_push_child(stack, dirfd(d), dir, subdirs[i]) == -ENOMEM)
			s->oom = true;
	confine_strv_free(subdirs);
	closedir(d);
}

/* Every directory below `root` at any depth, within the entry budget:
 * mount points entered (the run writes below them: bwrap binds a root
 * with its submounts, Landlock grants by hierarchy; red team round 5: a
 * hook planted in a repository on a tmpfs inside the workspace went
 * unreported), symlinked directories not followed; directories on the
 * heap (dirstack.h). */
void cf_git_walk(cf_git_snapshot *s, const char *root) {
	cf_dirstack stack = { 0 };
	char *dir = NULL;
	dev_t dev;
	int fd;
	if (cf_dirstack_push_root(&stack, root) < 0)
		return;
	while (!s->oom && !s->incomplete &&
	       (fd = cf_dirstack_pop_open(&stack, &dir, &dev)) != -ENOENT) {
		if (fd >= 0)
			walk_dir(s, &stack, fd, dir);
		else if (fd == -ESTALE && cf_strv_push(&s->changed, dir) < 0)
			s->oom = true;
		free(dir);
		dir = NULL;
	}
	free(dir);
	cf_dirstack_clear(&stack);
}

