/* SPDX-License-Identifier: MIT */
/* Git hooks and executable settings that appeared during a run (git-hazards.h). */
#include "git-hazards.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* A git config file read for settings is a handful of lines; a bigger one
 * is read up to this much. */
#define CONFIG_READ_MAX (256 * 1024)

struct scan {
	struct timespec since;
	confine_git_hazard *hazards;
	size_t n;
	size_t entries;
	bool incomplete; /* the entry bound: the walk stopped */
	bool pruned;     /* the depth bound: some directory was not entered */
	bool oom;
};

struct timespec cf_git_scan_clock(void) {
	struct timespec ts = { 0, 0 };
#ifdef CLOCK_REALTIME_COARSE
	/* File timestamps come from the coarse clock: a change just after the
	 * start can have a ctime below a fine-grained reading of it. */
	if (clock_gettime(CLOCK_REALTIME_COARSE, &ts) == 0)
		return ts;
#endif
	(void)clock_gettime(CLOCK_REALTIME, &ts);
	return ts;
}

static bool changed_since(const struct stat *st, struct timespec since) {
#ifdef __APPLE__
	struct timespec c = st->st_ctimespec;
#else
	struct timespec c = st->st_ctim;
#endif
	return c.tv_sec > since.tv_sec || (c.tv_sec == since.tv_sec && c.tv_nsec >= since.tv_nsec);
}

static void add(struct scan *s, const char *path, const char *kind) {
	confine_git_hazard *grown;
	char *p, *k;
	if (s->oom)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->hazards[i].path, path) == 0 && strcmp(s->hazards[i].kind, kind) == 0)
			return;
	grown = realloc(s->hazards, (s->n + 1) * sizeof *grown);
	p = strdup(path);
	k = strdup(kind);
	if (!grown || !p || !k) {
		if (grown)
			s->hazards = grown;
		free(p);
		free(k);
		s->oom = true;
		return;
	}
	s->hazards = grown;
	s->hazards[s->n].path = p;
	s->hazards[s->n].kind = k;
	s->n++;
}

/* ---- git config: the settings that run programs ---- */

static bool is_boolean_word(const char *v) {
	static const char *const words[] = { "true", "false", "yes", "no", "on", "off", "1", "0", "" };
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcasecmp(v, words[i]) == 0)
			return true;
	return false;
}

/* Whether `section` (lowercased name, subsection or NULL) and `key`
 * (lowercased) name a setting that runs a program; `value` is its text. */
static bool executable_setting(const char *section, const char *subsection, const char *key,
                               const char *value) {
	if (strcmp(section, "core") == 0 && !subsection)
		return strcmp(key, "hookspath") == 0 || strcmp(key, "sshcommand") == 0 ||
		       (strcmp(key, "fsmonitor") == 0 && !is_boolean_word(value));
	if (strcmp(section, "filter") == 0 && subsection)
		return strcmp(key, "clean") == 0 || strcmp(key, "smudge") == 0 ||
		       strcmp(key, "process") == 0;
	if (strcmp(section, "diff") == 0 && subsection)
		return strcmp(key, "textconv") == 0 || strcmp(key, "command") == 0;
	if (strcmp(section, "merge") == 0 && subsection)
		return strcmp(key, "driver") == 0;
	if (strcmp(section, "include") == 0 || strcmp(section, "includeif") == 0)
		return strcmp(key, "path") == 0;
	return false;
}

static char *trim(char *s) {
	char *end;
	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

static void lower(char *s) {
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* A lenient reader of git's config syntax: [section], [section "sub"],
 * [section.sub], `key = value` and bare `key`; comments after # or ;
 * outside quotes are dropped (close enough to report, never to run). */
static void scan_config_text(struct scan *s, const char *path, char *text) {
	char section[128] = "", subsection[256] = "";
	bool has_sub = false;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *l = trim(line), *eq, *value, *key;
		if (!*l || *l == '#' || *l == ';')
			continue;
		if (*l == '[') {
			char *close = strrchr(l, ']');
			char *q;
			if (!close)
				continue;
			*close = '\0';
			l = trim(l + 1);
			has_sub = false;
			if ((q = strchr(l, '"'))) {
				char *end = strrchr(q + 1, '"');
				*q = '\0';
				if (end)
					*end = '\0';
				snprintf(subsection, sizeof subsection, "%s", q + 1);
				has_sub = true;
			} else if ((q = strchr(l, '.'))) {
				*q = '\0';
				snprintf(subsection, sizeof subsection, "%s", q + 1);
				has_sub = true;
			}
			snprintf(section, sizeof section, "%s", trim(l));
			lower(section);
			continue;
		}
		if (!section[0])
			continue;
		eq = strchr(l, '=');
		if (eq) {
			*eq = '\0';
			value = trim(eq + 1);
		} else {
			value = (char *)"";
		}
		key = trim(l);
		lower(key);
		if (executable_setting(section, has_sub ? subsection : NULL, key, value)) {
			char name[512];
			/* Reported by git's own spelling of the key. */
			static const struct { const char *lower, *git; } spelled[] = {
				{ "hookspath", "hooksPath" }, { "sshcommand", "sshCommand" },
				{ "fsmonitor", "fsmonitor" }, { "includeif", "includeIf" },
			};
			const char *sec = section, *k = key;
			for (size_t i = 0; i < sizeof spelled / sizeof spelled[0]; i++) {
				if (strcmp(sec, spelled[i].lower) == 0)
					sec = spelled[i].git;
				if (strcmp(k, spelled[i].lower) == 0)
					k = spelled[i].git;
			}
			if (has_sub)
				snprintf(name, sizeof name, "%s.%s.%s", sec, subsection, k);
			else
				snprintf(name, sizeof name, "%s.%s", sec, k);
			add(s, path, name);
		}
	}
}

static void scan_config(struct scan *s, const char *path) {
	struct stat st;
	char *text;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !changed_since(&st, s->since)) {
		close(fd);
		return;
	}
	text = malloc(CONFIG_READ_MAX + 1);
	if (!text) {
		close(fd);
		s->oom = true;
		return;
	}
	n = read(fd, text, CONFIG_READ_MAX);
	close(fd);
	if (n > 0) {
		text[n] = '\0';
		scan_config_text(s, path, text);
	}
	free(text);
}

/* ---- git directories ---- */

static void scan_gitdir(struct scan *s, const char *gitdir) {
	char path[PATH_MAX];
	DIR *hooks;
	struct dirent *e;
	int fd;

	snprintf(path, sizeof path, "%s/config", gitdir);
	scan_config(s, path);
	snprintf(path, sizeof path, "%s/config.worktree", gitdir);
	scan_config(s, path);

	snprintf(path, sizeof path, "%s/hooks", gitdir);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	if (!(hooks = fdopendir(fd))) {
		close(fd);
		return;
	}
	while ((e = readdir(hooks))) {
		struct stat st;
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.' || (len > 7 && strcmp(e->d_name + len - 7, ".sample") == 0))
			continue;
		if (++s->entries > CF_GIT_SCAN_MAX_ENTRIES) {
			s->incomplete = true;
			break;
		}
		if (fstatat(dirfd(hooks), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    S_ISDIR(st.st_mode) || !changed_since(&st, s->since))
			continue;
		snprintf(path, sizeof path, "%s/hooks/%s", gitdir, e->d_name);
		add(s, path, "hook");
	}
	closedir(hooks);
}

/* `.git` as a file: "gitdir: <path>", relative to the file's directory. */
static void scan_gitfile(struct scan *s, int dirfd_, const char *dir) {
	char buf[PATH_MAX + 16], target[PATH_MAX * 2];
	char *line, *real;
	ssize_t n;
	int fd = openat(dirfd_, ".git", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
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
	line = trim(buf + 7);
	if (!*line)
		return;
	if (line[0] == '/')
		snprintf(target, sizeof target, "%s", line);
	else
		snprintf(target, sizeof target, "%s/%s", dir, line);
	if (!(real = realpath(target, NULL)))
		return;
	scan_gitdir(s, real);
	free(real);
}

/* ---- the walk ---- */

static void walk(struct scan *s, int fd, const char *dir, dev_t dev, int depth) {
	DIR *d = fdopendir(fd);
	struct dirent *e;
	bool has_head = false, has_objects = false, has_config = false, has_dot_git = false;
	bool dot_git_is_dir = false;
	char path[PATH_MAX];

	if (!d) {
		close(fd);
		return;
	}
	/* First pass: the names that make this directory a repository. */
	while ((e = readdir(d))) {
		const char *n = e->d_name;
		if (++s->entries > CF_GIT_SCAN_MAX_ENTRIES) {
			s->incomplete = true;
			closedir(d);
			return;
		}
		if (strcmp(n, "HEAD") == 0)
			has_head = true;
		else if (strcmp(n, "objects") == 0)
			has_objects = true;
		else if (strcmp(n, "config") == 0)
			has_config = true;
		else if (strcmp(n, ".git") == 0)
			has_dot_git = true;
	}
	if (has_dot_git) {
		struct stat st;
		if (fstatat(dirfd(d), ".git", &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (S_ISDIR(st.st_mode)) {
				dot_git_is_dir = true;
				snprintf(path, sizeof path, "%s/.git", dir);
				scan_gitdir(s, path);
			} else if (S_ISREG(st.st_mode)) {
				scan_gitfile(s, dirfd(d), dir);
			}
		}
	}
	if (has_head && has_objects && has_config)
		scan_gitdir(s, dir); /* a bare repository (or a gitdir) */
	(void)dot_git_is_dir;

	/* Second pass: descend. */
	rewinddir(d);
	while (!s->incomplete && (e = readdir(d))) {
		const char *n = e->d_name;
		struct stat st;
		int child;
		if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0')))
			continue;
		if (strcmp(n, ".git") == 0)
			continue; /* scanned above */
#ifdef DT_DIR
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
#endif
		if (fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (st.st_dev != dev)
			continue; /* a mount point: not the root's tree */
		if (depth >= CF_GIT_SCAN_MAX_DEPTH) {
			/* Not entered, but the rest of the tree still is. */
			s->pruned = true;
			continue;
		}
		child = openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (child < 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, n);
		walk(s, child, path, dev, depth + 1);
	}
	closedir(d);
}

int cf_git_hazards_scan(char *const *roots, struct timespec since, confine_git_hazard **hazards,
                        size_t *n) {
	struct scan s = { .since = since, .hazards = *hazards, .n = *n };
	for (size_t i = 0; roots && roots[i] && !s.incomplete; i++) {
		struct stat st;
		int fd = open(roots[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) < 0) {
			close(fd);
			continue;
		}
		walk(&s, fd, roots[i], st.st_dev, 0);
	}
	if (s.incomplete || s.pruned)
		add(&s, "", "incomplete");
	*hazards = s.hazards;
	*n = s.n;
	return s.oom ? -ENOMEM : 0;
}

void cf_git_hazards_free(confine_git_hazard *hazards, size_t n) {
	for (size_t i = 0; hazards && i < n; i++) {
		free(hazards[i].path);
		free(hazards[i].kind);
	}
	free(hazards);
}
