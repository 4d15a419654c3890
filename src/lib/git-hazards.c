/* SPDX-License-Identifier: MIT */
/* What a run left for git to run later: a snapshot before, a diff after
 * (git-hazards.h, doc/SPEC.md 15). */
#include "git-hazards.h"

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

size_t cf_git_scan_budget = CF_GIT_SCAN_MAX_ENTRIES;

/* include.path inside an included file inside ...: git stops at 10. */
#define INCLUDE_DEPTH_MAX 10

enum record_kind { RECORD_HOOK, RECORD_CONFIG, RECORD_COMMONDIR, RECORD_TODO };

/* Who a file is and what it holds: any difference is a change. */
struct fingerprint {
	dev_t dev;
	ino_t ino;
	mode_t mode;
	off_t size;
	long long mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
	uint64_t hash; /* FNV-1a of the first CF_GIT_READ_MAX bytes */
};

struct record {
	char *path;
	enum record_kind kind;
	struct fingerprint fp;
	/* RECORD_CONFIG: each executable setting as "key\nvalue".
	 * RECORD_COMMONDIR: the canonical directory it names (one entry). */
	char **settings;
	bool foreign; /* RECORD_COMMONDIR: names another repository than its own */
};

struct cf_git_snapshot {
	struct record *records;
	size_t n, cap;
	char **visited; /* git directories already recorded */
	size_t entries;
	bool incomplete; /* the entry budget ran out: the walk stopped */
	char *unreached; /* where it ran out */
	char **changed;  /* directories that changed while walked: not seen */
	bool oom;
};

/* ---- fingerprints ---- */

static uint64_t fnv1a(uint64_t h, const char *data, size_t len) {
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)data[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}
#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)

static void fingerprint_from_stat(struct fingerprint *fp, const struct stat *st) {
	fp->dev = st->st_dev;
	fp->ino = st->st_ino;
	fp->mode = st->st_mode;
	fp->size = st->st_size;
#ifdef __APPLE__
	fp->mtime_sec = st->st_mtimespec.tv_sec;
	fp->mtime_nsec = st->st_mtimespec.tv_nsec;
	fp->ctime_sec = st->st_ctimespec.tv_sec;
	fp->ctime_nsec = st->st_ctimespec.tv_nsec;
#else
	fp->mtime_sec = st->st_mtim.tv_sec;
	fp->mtime_nsec = st->st_mtim.tv_nsec;
	fp->ctime_sec = st->st_ctim.tv_sec;
	fp->ctime_nsec = st->st_ctim.tv_nsec;
#endif
}

static bool fingerprint_equal(const struct fingerprint *a, const struct fingerprint *b) {
	return a->dev == b->dev && a->ino == b->ino && a->mode == b->mode && a->size == b->size &&
	       a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec &&
	       a->ctime_sec == b->ctime_sec && a->ctime_nsec == b->ctime_nsec && a->hash == b->hash;
}

/* Opens what git would open at `path` (following a symlink, as git does;
 * never blocking on a FIFO), fingerprints a regular file and, when `text`
 * is given, hands over its first CF_GIT_READ_MAX bytes NUL-terminated.
 * 1 recorded, 0 nothing there (or not a regular file), -ENOMEM. */
static int fingerprint_file(const char *path, struct fingerprint *fp, char **text, size_t *ret_len,
                            size_t max, bool *whole) {
	struct stat st;
	char *buf;
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	fingerprint_from_stat(fp, &st);
	if (!(buf = malloc(max + 1))) {
		close(fd);
		return -ENOMEM;
	}
	while (len < max) {
		ssize_t got = read(fd, buf + len, max - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	if (whole) {
		char probe;
		*whole = len < max || read(fd, &probe, 1) <= 0;
	}
	close(fd);
	buf[len] = '\0';
	/* The hash covers what the first CF_GIT_READ_MAX bytes hold (with the
	 * status, enough to see a change); the config reader reads more. */
	fp->hash = fnv1a(FNV_OFFSET, buf, len < CF_GIT_READ_MAX ? len : CF_GIT_READ_MAX);
	if (ret_len)
		*ret_len = len;
	if (text)
		*text = buf;
	else
		free(buf);
	return 1;
}

/* ---- records ---- */

static struct record *record_add(cf_git_snapshot *s, const char *path, enum record_kind kind,
                                 const struct fingerprint *fp) {
	struct record *r;
	if (s->oom)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->records[i].path, path) == 0)
			return NULL; /* reached twice (a commondir, an include): once is enough */
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct record *grown = realloc(s->records, cap * sizeof *grown);
		if (!grown) {
			s->oom = true;
			return NULL;
		}
		s->records = grown;
		s->cap = cap;
	}
	r = &s->records[s->n];
	memset(r, 0, sizeof *r);
	if (!(r->path = strdup(path))) {
		s->oom = true;
		return NULL;
	}
	r->kind = kind;
	r->fp = *fp;
	s->n++;
	return r;
}

static void record_setting(cf_git_snapshot *s, struct record *r, const char *key,
                           const char *value) {
	char *entry;
	if (!r || s->oom)
		return;
	if (asprintf(&entry, "%s\n%s", key, value) < 0) {
		s->oom = true;
		return;
	}
	if (cf_strv_push(&r->settings, entry) < 0)
		s->oom = true;
	free(entry);
}

/* ---- git config: the settings that run programs ---- */

static bool is_boolean_word(const char *v) {
	static const char *const words[] = { "true", "false", "yes", "no", "on", "off", "1", "0", "" };
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcasecmp(v, words[i]) == 0)
			return true;
	return false;
}

/* When a listed key counts, by its value. */
enum value_rule {
	ANY,        /* any value */
	NOT_BOOL,   /* a value that is not a boolean names a program */
	BANG,       /* "!command": a shell command */
	EXT_URL,    /* "ext::command": the ext transport runs it */
	ABS_PATH,   /* an absolute path is a program (sendemail.smtpServer) */
	NOT_NEVER,  /* protocol.*.allow other than "never" lets ext:: run */
};

/* Sub: 0 no subsection, 1 a subsection, 2 either. Key "*" is any key.
 * Derived from the configuration sections of Debian 12's git 2.39 manuals
 * (git-config(1), git-archive(1), git-interpret-trailers(1), ...): every
 * setting whose value git runs as a program or shell command, or that
 * points git at other code (include files, a hooks directory, a transport)
 * or at a worktree elsewhere. tests/unit/git_config_keys.py reads the
 * installed manuals and fails on a command-valued key this table lacks. */
static const struct executable_key {
	const char *section;
	int sub;
	const char *key;
	const char *spelled; /* the key as git spells it */
	enum value_rule rule;
} executable_keys[] = {
	{ "alias", 0, "*", NULL, BANG },
	{ "browser", 1, "cmd", "cmd", ANY },
	{ "browser", 1, "path", "path", ANY },
	{ "core", 0, "alternaterefscommand", "alternateRefsCommand", ANY },
	{ "core", 0, "askpass", "askPass", ANY },
	{ "core", 0, "editor", "editor", ANY },
	{ "core", 0, "fsmonitor", "fsmonitor", NOT_BOOL },
	{ "core", 0, "gitproxy", "gitProxy", ANY },
	{ "core", 0, "hookspath", "hooksPath", ANY },
	{ "core", 0, "pager", "pager", ANY },
	{ "core", 0, "sshcommand", "sshCommand", ANY },
	{ "core", 0, "worktree", "worktree", ANY },
	{ "credential", 2, "helper", "helper", ANY },
	{ "diff", 0, "external", "external", ANY },
	{ "diff", 1, "command", "command", ANY },
	{ "diff", 1, "textconv", "textconv", ANY },
	{ "difftool", 1, "cmd", "cmd", ANY },
	{ "difftool", 1, "path", "path", ANY },
	{ "filter", 1, "clean", "clean", ANY },
	{ "filter", 1, "process", "process", ANY },
	{ "filter", 1, "smudge", "smudge", ANY },
	{ "gpg", 2, "program", "program", ANY },
	{ "gpg", 1, "defaultkeycommand", "defaultKeyCommand", ANY },
	{ "guitool", 1, "cmd", "cmd", ANY },
	{ "imap", 0, "tunnel", "tunnel", ANY },
	{ "include", 0, "path", "path", ANY },
	{ "includeif", 1, "path", "path", ANY },
	{ "instaweb", 0, "httpd", "httpd", ANY },
	{ "interactive", 0, "difffilter", "diffFilter", ANY },
	{ "man", 1, "cmd", "cmd", ANY },
	{ "man", 1, "path", "path", ANY },
	{ "merge", 1, "driver", "driver", ANY },
	{ "mergetool", 1, "cmd", "cmd", ANY },
	{ "mergetool", 1, "path", "path", ANY },
	{ "pager", 0, "*", NULL, NOT_BOOL },
	{ "protocol", 2, "allow", "allow", NOT_NEVER },
	{ "remote", 1, "pushurl", "pushurl", EXT_URL },
	{ "remote", 1, "receivepack", "receivepack", ANY },
	{ "remote", 1, "uploadpack", "uploadpack", ANY },
	{ "remote", 1, "url", "url", EXT_URL },
	{ "remote", 1, "vcs", "vcs", ANY },
	{ "sendemail", 2, "cccmd", "ccCmd", ANY },
	{ "sendemail", 2, "headercmd", "headerCmd", ANY },
	{ "sendemail", 2, "sendmailcmd", "sendmailCmd", ANY },
	{ "sendemail", 2, "smtpserver", "smtpServer", ABS_PATH },
	{ "sendemail", 2, "tocmd", "toCmd", ANY },
	{ "sequence", 0, "editor", "editor", ANY },
	{ "submodule", 1, "update", "update", BANG },
	/* git-archive(1): piped through by `git archive --format=<format>`. */
	{ "tar", 1, "command", "command", ANY },
	{ "trailer", 1, "cmd", "cmd", ANY },
	{ "trailer", 1, "command", "command", ANY },
	{ "uploadpack", 0, "packobjectshook", "packObjectsHook", ANY },
	/* A browser by name or path (git web--browse, instaweb). */
	{ "web", 0, "browser", "browser", ANY },
	{ "instaweb", 0, "browser", "browser", ANY },
	{ "help", 0, "browser", "browser", ANY },
};

/* git's spelling of the section names above that are not all lowercase. */
static const char *section_spelled(const char *section) {
	if (strcmp(section, "includeif") == 0)
		return "includeIf";
	return section;
}

bool cf_git_executable_setting(const char *section, const char *subsection, const char *key,
                               const char *value, char *spelled, size_t spelled_size) {
	/* url.<base>.insteadOf rewrites a URL into <base>: ext:: runs it. */
	if (strcmp(section, "url") == 0 && subsection && strncasecmp(subsection, "ext::", 5) == 0 &&
	    (strcmp(key, "insteadof") == 0 || strcmp(key, "pushinsteadof") == 0)) {
		snprintf(spelled, spelled_size, "url.%s.%s", subsection,
		         strcmp(key, "insteadof") == 0 ? "insteadOf" : "pushInsteadOf");
		return true;
	}
	for (size_t i = 0; i < sizeof executable_keys / sizeof executable_keys[0]; i++) {
		const struct executable_key *k = &executable_keys[i];
		const char *v = value;
		bool counts;
		if (strcmp(section, k->section) != 0)
			continue;
		if ((k->sub == 0 && subsection) || (k->sub == 1 && !subsection))
			continue;
		if (strcmp(k->key, "*") != 0 && strcmp(k->key, key) != 0)
			continue;
		while (*v == ' ' || *v == '\t')
			v++;
		switch (k->rule) {
		case ANY: counts = true; break;
		case NOT_BOOL: counts = !is_boolean_word(v); break;
		case BANG: counts = v[0] == '!'; break;
		case EXT_URL: counts = strncasecmp(v, "ext::", 5) == 0; break;
		case ABS_PATH: counts = v[0] == '/' || v[0] == '~'; break;
		case NOT_NEVER: counts = strcasecmp(v, "never") != 0; break;
		default: counts = false; break;
		}
		if (!counts)
			return false;
		if (subsection)
			snprintf(spelled, spelled_size, "%s.%s.%s", section_spelled(section), subsection,
			         k->spelled ? k->spelled : key);
		else
			snprintf(spelled, spelled_size, "%s.%s", section_spelled(section),
			         k->spelled ? k->spelled : key);
		return true;
	}
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

static void scan_config(cf_git_snapshot *s, const char *path, const char *worktree, int depth);
static void scan_hooks_dir(cf_git_snapshot *s, const char *dir);

/* `value` of a path setting, as the file `config` would resolve it
 * (relative to the config file's directory; "~/" under $HOME). */
static bool resolve_relative(char *out, size_t size, const char *base_file_or_dir, bool is_file,
                             const char *value) {
	if (!*value)
		return false;
	if (value[0] == '/')
		return (size_t)snprintf(out, size, "%s", value) < size;
	if (value[0] == '~' && value[1] == '/') {
		const char *home = getenv("HOME");
		return home && home[0] == '/' && (size_t)snprintf(out, size, "%s%s", home, value + 1) < size;
	}
	if (value[0] == '~' || !base_file_or_dir)
		return false;
	if (is_file) {
		const char *slash = strrchr(base_file_or_dir, '/');
		int dirlen = slash ? (int)(slash - base_file_or_dir) : 0;
		return (size_t)snprintf(out, size, "%.*s/%s", dirlen, base_file_or_dir, value) < size;
	}
	return (size_t)snprintf(out, size, "%s/%s", base_file_or_dir, value) < size;
}

/* A config setting found: record it if it runs a program, and follow what
 * it names for git to read (include files, the hooks directory). */
static void config_setting(cf_git_snapshot *s, struct record *r, const char *path,
                           const char *worktree, int depth, const char *section,
                           const char *subsection, const char *key, const char *value) {
	char spelled[640], target[PATH_MAX], *real;
	if (!cf_git_executable_setting(section, subsection, key, value, spelled, sizeof spelled))
		return;
	record_setting(s, r, spelled, value);
	if (strcmp(key, "path") == 0 &&
	    (strcmp(section, "include") == 0 || strcmp(section, "includeif") == 0)) {
		if (depth < INCLUDE_DEPTH_MAX && resolve_relative(target, sizeof target, path, true, value) &&
		    (real = realpath(target, NULL))) {
			scan_config(s, real, worktree, depth + 1);
			free(real);
		}
	} else if (strcmp(section, "core") == 0 && strcmp(key, "hookspath") == 0) {
		/* Relative to where hooks run: the worktree's top. */
		if (resolve_relative(target, sizeof target, worktree, false, value) &&
		    (real = realpath(target, NULL))) {
			scan_hooks_dir(s, real);
			free(real);
		}
	}
}

/* git's config syntax, read as git reads it (config.c), not by lines: a
 * UTF-8 byte-order mark is skipped; a section header `[name]`,
 * `[name "sub"]` (quoted, with escapes) or the old `[name.sub]` may be
 * followed by a setting on the same line; comments run from an unquoted
 * `#` or `;` to the end of the line, NUL bytes in them included; a value
 * is unquoted, unescaped and continued over a backslash-newline. Every
 * way the red team hid a key from a line reader (issue 21) is read. */
static void scan_config_text(cf_git_snapshot *s, struct record *r, const char *path,
                             const char *worktree, int depth, const char *text, size_t len) {
	char section[128] = "", subsection[256] = "";
	bool has_sub = false;
	size_t i = 0;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < len && !s->oom) {
		char c = text[i];
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\0') {
			i++;
			continue;
		}
		if (c == '#' || c == ';') {
			while (i < len && text[i] != '\n')
				i++;
			continue;
		}
		if (c == '[') {
			size_t n = 0;
			i++;
			has_sub = false;
			subsection[0] = '\0';
			while (i < len && (isalnum((unsigned char)text[i]) || text[i] == '-' || text[i] == '.')) {
				if (n + 1 < sizeof section)
					section[n++] = (char)tolower((unsigned char)text[i]);
				i++;
			}
			section[n] = '\0';
			{
				/* The old form: [section.sub], case-folded. */
				char *dot = strchr(section, '.');
				if (dot) {
					*dot = '\0';
					snprintf(subsection, sizeof subsection, "%s", dot + 1);
					has_sub = true;
				}
			}
			while (i < len && (text[i] == ' ' || text[i] == '\t'))
				i++;
			if (i < len && text[i] == '"') {
				size_t k = 0;
				i++;
				while (i < len && text[i] != '"' && text[i] != '\n') {
					if (text[i] == '\\' && i + 1 < len)
						i++;
					if (k + 1 < sizeof subsection)
						subsection[k++] = text[i];
					i++;
				}
				subsection[k] = '\0';
				has_sub = true;
				if (i < len && text[i] == '"')
					i++;
			}
			while (i < len && text[i] != ']' && text[i] != '\n')
				i++;
			if (i < len && text[i] == ']')
				i++;
			else
				section[0] = '\0'; /* a broken header: git stops; nothing counts */
			continue; /* a setting may follow on the same line */
		}
		if (isalpha((unsigned char)c)) {
			char key[128], value[4096];
			size_t n = 0, v = 0, end_v = 0;
			bool quoted = false;
			while (i < len && (isalnum((unsigned char)text[i]) || text[i] == '-')) {
				if (n + 1 < sizeof key)
					key[n++] = (char)tolower((unsigned char)text[i]);
				i++;
			}
			key[n] = '\0';
			while (i < len && (text[i] == ' ' || text[i] == '\t'))
				i++;
			if (i < len && text[i] == '=') {
				i++;
				while (i < len && (text[i] == ' ' || text[i] == '\t'))
					i++;
				while (i < len && text[i] != '\n') {
					char ch = text[i];
					if (ch == '\\' && i + 1 < len) {
						char e = text[i + 1];
						i += 2;
						if (e == '\n')
							continue; /* continued on the next line */
						ch = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'b' ? '\b' : e;
						if (v + 1 < sizeof value)
							value[v++] = ch;
						end_v = v;
						continue;
					}
					if (ch == '"') {
						quoted = !quoted;
						i++;
						end_v = v;
						continue;
					}
					if (!quoted && (ch == '#' || ch == ';'))
						break;
					if (v + 1 < sizeof value)
						value[v++] = ch == '\0' ? ' ' : ch;
					if (quoted || (ch != ' ' && ch != '\t' && ch != '\r'))
						end_v = v;
					i++;
				}
				value[end_v] = '\0';
			} else {
				value[0] = '\0'; /* a bare key: true */
			}
			while (i < len && text[i] != '\n')
				i++;
			if (section[0])
				config_setting(s, r, path, worktree, depth, section, has_sub ? subsection : NULL,
				               key, value);
			continue;
		}
		/* Anything else ends git's reading of the file (a syntax error):
		 * skip the line, never stop reading. */
		while (i < len && text[i] != '\n')
			i++;
	}
}

static void scan_config(cf_git_snapshot *s, const char *path, const char *worktree, int depth) {
	struct fingerprint fp;
	struct record *r;
	char *text = NULL;
	size_t len = 0;
	bool whole = true;
	int got = fingerprint_file(path, &fp, &text, &len, CF_GIT_CONFIG_MAX, &whole);
	if (got < 0)
		s->oom = true;
	if (got <= 0)
		return;
	r = record_add(s, path, RECORD_CONFIG, &fp);
	if (r) {
		scan_config_text(s, r, path, worktree, depth, text, len);
		/* More than the bound: a setting past it is not read. Said as a
		 * setting of its own, so a file that grows past it is reported. */
		if (!whole)
			record_setting(s, r, "incomplete", "config larger than the scan reads");
	}
	free(text);
}

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

static void scan_hooks_dir(cf_git_snapshot *s, const char *dir) {
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
		if ((got = fingerprint_file(path, &fp, NULL, NULL, CF_GIT_READ_MAX, NULL)) < 0)
			s->oom = true;
		if (got > 0)
			record_add(s, path, RECORD_HOOK, &fp);
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
	if ((got = fingerprint_file(path, &fp, &text, NULL, CF_GIT_READ_MAX, NULL)) < 0)
		s->oom = true;
	if (got <= 0)
		return;
	line = trim(text);
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
	r = record_add(s, path, RECORD_COMMONDIR, &fp);
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
		scan_config(s, path, worktree, 0);
	if ((size_t)snprintf(path, sizeof path, "%s/config.worktree", gitdir) < sizeof path)
		scan_config(s, path, worktree, 0);
	scan_commondir(s, gitdir, worktree);
	if ((size_t)snprintf(path, sizeof path, "%s/hooks", gitdir) < sizeof path)
		scan_hooks_dir(s, path);
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
			if ((got = fingerprint_file(path, &tfp, NULL, NULL, CF_GIT_READ_MAX, NULL)) < 0)
				s->oom = true;
			if (got > 0)
				record_add(s, path, RECORD_TODO, &tfp);
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
	line = trim(buf + 7);
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
 * mount points are not entered (not the root's tree), symlinked
 * directories not followed; directories on the heap (dirstack.h). */
static void walk(cf_git_snapshot *s, const char *root) {
	cf_dirstack stack = { 0 };
	char *dir = NULL;
	dev_t root_dev = 0, dev;
	int fd;
	bool first = true;
	if (cf_dirstack_push_root(&stack, root) < 0)
		return;
	while (!s->oom && !s->incomplete &&
	       (fd = cf_dirstack_pop_open(&stack, &dir, &dev)) != -ENOENT) {
		if (fd >= 0 && first)
			root_dev = dev;
		first = false;
		if (fd >= 0 && dev != root_dev)
			close(fd); /* a mount point */
		else if (fd >= 0)
			walk_dir(s, &stack, fd, dir);
		else if (fd == -ESTALE && cf_strv_push(&s->changed, dir) < 0)
			s->oom = true;
		free(dir);
		dir = NULL;
	}
	free(dir);
	cf_dirstack_clear(&stack);
}

static int record_compare(const void *a, const void *b) {
	return strcmp(((const struct record *)a)->path, ((const struct record *)b)->path);
}

int cf_git_snapshot_take(char *const *roots, cf_git_snapshot **ret) {
	cf_git_snapshot *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; roots && roots[i] && !s->incomplete && !s->oom; i++) {
		walk(s, roots[i]);
		/* A root that is (or holds) a home: git reads ~/.gitconfig and
		 * ~/.config/git/config for every repository of that user. */
		{
			static const char *const globals[] = { ".gitconfig", ".config/git/config" };
			for (size_t g = 0; g < 2; g++) {
				char path[PATH_MAX];
				if ((size_t)snprintf(path, sizeof path, "%s/%s", roots[i], globals[g]) < sizeof path)
					scan_config(s, path, NULL, 0);
			}
		}
	}
	if (s->oom) {
		cf_git_snapshot_free(s);
		return -ENOMEM;
	}
	/* Sorted by path, for the diff's lookups. */
	if (s->n > 1)
		qsort(s->records, s->n, sizeof *s->records, record_compare);
	*ret = s;
	return 0;
}

/* ---- the diff ---- */

struct hazard_list {
	confine_git_hazard *items;
	size_t n;
	bool oom;
};

static void hazard_add(struct hazard_list *h, const char *path, const char *kind) {
	confine_git_hazard *grown;
	char *p, *k;
	if (h->oom)
		return;
	for (size_t i = 0; i < h->n; i++)
		if (strcmp(h->items[i].path, path) == 0 && strcmp(h->items[i].kind, kind) == 0)
			return;
	grown = realloc(h->items, (h->n + 1) * sizeof *grown);
	p = strdup(path);
	k = strdup(kind);
	if (!grown || !p || !k) {
		if (grown)
			h->items = grown;
		free(p);
		free(k);
		h->oom = true;
		return;
	}
	h->items = grown;
	h->items[h->n].path = p;
	h->items[h->n].kind = k;
	h->n++;
}

static const struct record *find(const cf_git_snapshot *s, const struct record *like) {
	if (!s || s->n == 0)
		return NULL;
	return bsearch(like, s->records, s->n, sizeof *s->records, record_compare);
}

static bool strv_has(char *const *strv, const char *item) {
	for (size_t i = 0; strv && strv[i]; i++)
		if (strcmp(strv[i], item) == 0)
			return true;
	return false;
}

int cf_git_snapshot_diff(const cf_git_snapshot *before, const cf_git_snapshot *after,
                         confine_git_hazard **hazards, size_t *n) {
	struct hazard_list h = { .items = *hazards, .n = *n };
	for (size_t i = 0; after && i < after->n; i++) {
		const struct record *a = &after->records[i];
		const struct record *b = find(before, a);
		if (b && b->kind != a->kind)
			b = NULL; /* a hook became a config file: all of it is new */
		switch (a->kind) {
		case RECORD_HOOK:
			if (!b || !fingerprint_equal(&a->fp, &b->fp))
				hazard_add(&h, a->path, "hook");
			break;
		case RECORD_CONFIG:
			/* Only a setting that was not there before: an unrelated
			 * edit to a config that already held one reports nothing. */
			for (size_t j = 0; a->settings && a->settings[j]; j++) {
				if (b && strv_has(b->settings, a->settings[j]))
					continue;
				{
					char key[640];
					size_t len = strcspn(a->settings[j], "\n");
					snprintf(key, sizeof key, "%.*s", (int)len, a->settings[j]);
					hazard_add(&h, a->path, key);
				}
			}
			break;
		case RECORD_TODO:
			if (!b || !fingerprint_equal(&a->fp, &b->fp))
				hazard_add(&h, a->path, "rebase-todo");
			break;
		case RECORD_COMMONDIR:
			if (a->foreign && (!b || !fingerprint_equal(&a->fp, &b->fp) ||
			                   !b->settings || !a->settings ||
			                   strcmp(a->settings[0], b->settings[0]) != 0))
				hazard_add(&h, a->path, "commondir");
			break;
		}
	}
	/* A walk that ran out of its budget names the directory where it did. */
	if (before && before->incomplete)
		hazard_add(&h, before->unreached ? before->unreached : "", "incomplete");
	if (after && after->incomplete &&
	    !(before && before->incomplete && before->unreached && after->unreached &&
	      strcmp(before->unreached, after->unreached) == 0))
		hazard_add(&h, after->unreached ? after->unreached : "", "incomplete");
	for (size_t i = 0; before && before->changed && before->changed[i]; i++)
		hazard_add(&h, before->changed[i], "incomplete");
	for (size_t i = 0; after && after->changed && after->changed[i]; i++)
		hazard_add(&h, after->changed[i], "incomplete");
	*hazards = h.items;
	*n = h.n;
	return h.oom ? -ENOMEM : 0;
}

void cf_git_snapshot_free(cf_git_snapshot *s) {
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->records[i].path);
		confine_strv_free(s->records[i].settings);
	}
	free(s->records);
	confine_strv_free(s->visited);
	confine_strv_free(s->changed);
	free(s->unreached);
	free(s);
}

void cf_git_hazards_free(confine_git_hazard *hazards, size_t n) {
	for (size_t i = 0; hazards && i < n; i++) {
		free(hazards[i].path);
		free(hazards[i].kind);
	}
	free(hazards);
}
