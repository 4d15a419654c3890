/* SPDX-License-Identifier: MIT */
/* git config: the settings that run programs (git-hazards-internal.h). */
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
	/* the templates `git init` and `git clone` copy: hooks among them */
	{ "init", 0, "templatedir", "templateDir", ANY },
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

char *cf_git_trim(char *s) {
	char *end;
	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}


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
	cf_git_record_setting(s, r, spelled, value);
	if (strcmp(key, "path") == 0 &&
	    (strcmp(section, "include") == 0 || strcmp(section, "includeif") == 0)) {
		if (depth < INCLUDE_DEPTH_MAX && resolve_relative(target, sizeof target, path, true, value) &&
		    (real = realpath(target, NULL))) {
			cf_git_scan_config(s, real, worktree, depth + 1);
			free(real);
		}
	} else if (strcmp(section, "core") == 0 && strcmp(key, "hookspath") == 0) {
		/* Relative to where hooks run: the worktree's top. */
		if (resolve_relative(target, sizeof target, worktree, false, value) &&
		    (real = realpath(target, NULL))) {
			cf_git_scan_hooks_dir(s, real);
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

void cf_git_scan_config(cf_git_snapshot *s, const char *path, const char *worktree, int depth) {
	struct fingerprint fp;
	struct record *r;
	char *text = NULL;
	size_t len = 0;
	bool whole = true;
	int got = cf_git_fingerprint_file(path, &fp, &text, &len, CF_GIT_CONFIG_MAX, &whole);
	if (got < 0)
		s->oom = true;
	if (got <= 0)
		return;
	r = cf_git_record_add(s, path, RECORD_CONFIG, &fp);
	if (r) {
		scan_config_text(s, r, path, worktree, depth, text, len);
		/* More than the bound: a setting past it is not read. Said as a
		 * setting of its own, so a file that grows past it is reported. */
		if (!whole)
			cf_git_record_setting(s, r, "incomplete", "config larger than the scan reads");
	}
	free(text);
}

