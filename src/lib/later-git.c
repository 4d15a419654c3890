/* SPDX-License-Identifier: MIT */
/*
 * What the user's git configuration brings in from elsewhere (doc/SPEC.md
 * 15, "What runs later"; issue 28): the files its `include.path` and
 * `includeIf.<condition>.path` name, and the directory `core.hooksPath`
 * names, and the template directory `init.templateDir` names (what `git
 * init` and `git clone` copy into every new gitdir, `hooks/` among it),
 * and the program each command-valued setting names (program_setting),
 * read from `~/.gitconfig`, `~/.config/git/config` (or
 * `$XDG_CONFIG_HOME/git/config`, `$GIT_CONFIG_GLOBAL`) and the system's
 * `/etc/gitconfig` (`$GIT_CONFIG_SYSTEM`). Each is git configuration, or
 * git's hooks, for every repository the user touches later: where a
 * writable root holds one, it is held as the home's git configuration is
 * (later.c's visit, so bwrap, the fingerprint, the file API and stage
 * apply alike). Every condition counts as true (the next repository may
 * meet it); includes nest to git's own depth (10).
 *
 * At each repository's work tree (cf_later_worktree_each), what is
 * relative to it: the user's relative `core.hooksPath` and relative
 * programs, resolved there, and the programs the repository's own
 * configuration names (its includes and hooks directory are its
 * project's files: gitHazards reports what they come to set).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <pwd.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "git-hazards.h"
#include "later.h"
#include "policy-internal.h"

/* git's MAX_INCLUDE_DEPTH (config.c) */
#define INCLUDE_DEPTH 10
/* a configuration file read whole; a longer one is read to here */
#define CONFIG_MAX (1024 * 1024)

struct git_walk {
	char *const *roots;
	const char *home;
	cf_later_visit visit;
	void *ctx;
	int r;
	/* where a relative path git resolves at a work tree's top (a relative
	 * `core.hooksPath`, a driver `tools/clean`) is: this work tree, or
	 * (NULL) each root's top */
	const char *worktree;
	bool relative_only; /* the targets above alone (a work tree below a root) */
	bool repo;          /* reading a repository's own configuration */
};

static void visit_as(struct git_walk *w, const char *path, bool dir, cf_later_stand stand) {
	char canon[PATH_MAX];
	const char *base;
	cf_later_entry e;
	if (w->r || !cf_later_resolve(path, canon, sizeof canon) || !(base = strrchr(canon, '/')) ||
	    !base[1])
		return;
	e.name = base + 1; /* the entry's own base: the directory it lies in */
	e.dir = dir;
	e.repo = false;
	e.where = CF_LATER_AT_HOME;
	e.stand = stand;
	w->r = cf_later_visit_held(w->roots, canon, w->visit, w->ctx, &e);
}

static void visit_target(struct git_walk *w, const char *path, bool dir) {
	if (!w->relative_only)
		visit_as(w, path, dir, dir ? CF_LATER_STAND_DIR : CF_LATER_STAND_FILE);
}

/* `rel` at the work tree's top, or at each root's top; `program`: not a
 * directory there, and nothing stood in for it. */
static void visit_at_tops(struct git_walk *w, const char *rel, bool dir, bool program) {
	char path[PATH_MAX];
	struct stat st;
	for (size_t k = 0; w->worktree ? k == 0 : w->roots && w->roots[k]; k++) {
		const char *top = w->worktree ? w->worktree : w->roots[k];
		if (w->r || (size_t)snprintf(path, sizeof path, "%s/%s", top, rel) >= sizeof path)
			continue;
		if (!program)
			visit_as(w, path, dir, dir ? CF_LATER_STAND_DIR : CF_LATER_STAND_FILE);
		else if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
			visit_as(w, path, false, CF_LATER_STAND_NONE);
	}
}

/* A pathname value as git reads it (git-config(1), "pathname"): `~/`
 * is the home; a relative one is relative to `dir` (the including
 * file's directory), or NULL when git reads it relative to something
 * else. */
/* `~user/rest` (or `~user`) as git expands it: that user's home, then the
 * rest; -1 for no such user. Read from /etc/passwd itself (fgetpwent_r,
 * no NSS: the CLI is linked statically), so a user only a directory
 * service knows is not expanded (doc/SPEC.md 15). */
static int other_home(const char *value, char *out, size_t size) {
	const char *slash = strchr(value, '/');
	size_t len = slash ? (size_t)(slash - value - 1) : strlen(value + 1);
	char user[256], buf[4096];
	struct passwd pw, *found = NULL;
	int n = -1;
	FILE *f;
	if (len == 0 || len >= sizeof user)
		return -1;
	memcpy(user, value + 1, len);
	user[len] = '\0';
	if (!(f = fopen("/etc/passwd", "re")))
		return -1;
	while (fgetpwent_r(f, &pw, buf, sizeof buf, &found) == 0 && found)
		if (strcmp(found->pw_name, user) == 0) {
			if (found->pw_dir && found->pw_dir[0] == '/')
				n = snprintf(out, size, "%s%s", found->pw_dir, slash ? slash : "");
			break;
		}
	fclose(f);
	return n;
}

static bool expand(const struct git_walk *w, const char *value, const char *dir, char *out,
                   size_t size) {
	int n;
	if (value[0] == '~' && (value[1] == '/' || value[1] == '\0'))
		n = w->home ? snprintf(out, size, "%s%s", w->home, value + 1) : -1;
	else if (value[0] == '~')
		n = other_home(value, out, size); /* git's `~user/` (red team round 5) */
	else if (value[0] == '/')
		n = snprintf(out, size, "%s", value);
	else if (dir && value[0] && strncmp(value, "%(prefix)/", 10) != 0)
		n = snprintf(out, size, "%s/%s", dir, value);
	else
		n = -1;
	return n >= 0 && (size_t)n < size;
}

/* One value: quotes removed, escapes taken, a comment cut off. */
static void unquote(const char *in, char *out, size_t size) {
	bool quoted = false;
	size_t o = 0;
	while (*in == ' ' || *in == '\t')
		in++;
	for (; *in && o + 1 < size; in++) {
		if (*in == '"') {
			quoted = !quoted;
			continue;
		}
		if (!quoted && (*in == '#' || *in == ';'))
			break;
		if (*in == '\\' && in[1]) {
			in++;
			out[o++] = *in == 'n' ? '\n' : *in == 't' ? '\t' : *in;
			continue;
		}
		out[o++] = *in;
	}
	while (o && (out[o - 1] == ' ' || out[o - 1] == '\t'))
		o--;
	out[o] = '\0';
}

static void read_config(struct git_walk *w, const char *file, int depth);

/* `NAME=...` (a shell assignment before a command). */
static bool assignment(const char *word) {
	size_t i = 0;
	if (!((word[0] >= 'A' && word[0] <= 'Z') || (word[0] >= 'a' && word[0] <= 'z') || word[0] == '_'))
		return false;
	while ((word[i] >= 'A' && word[i] <= 'Z') || (word[i] >= 'a' && word[i] <= 'z') ||
	       (word[i] >= '0' && word[i] <= '9') || word[i] == '_')
		i++;
	return word[i] == '=';
}

/* Whether the program `word` runs the first argument that is no option
 * (a shell, an interpreter, the `.` builtin, a runner such as `env` or
 * `exec`): that argument is a program to hold too. pythonX.Y counts. */
static bool interpreter(const char *word) {
	static const char *const names[] = {
		"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "busybox", ".", "source",
		"python", "python2", "python3", "perl", "ruby", "node", "nodejs", "deno", "bun",
		"php", "lua", "tclsh", "env", "exec", "command", "nohup", "nice", "setsid", "xargs",
		"sudo", "doas",
	};
	const char *base = strrchr(word, '/');
	base = base ? base + 1 : word;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(base, names[i]) == 0)
			return true;
	if (strncmp(base, "python", 6) == 0 && base[6] >= '0' && base[6] <= '9')
		return strspn(base + 6, "0123456789.") == strlen(base + 6);
	return false;
}

/* The program a command-valued setting names (git-hazards-config.c's one
 * table, cf_git_executable_setting: `core.fsmonitor`, `diff.external`,
 * `filter.<d>.clean`, an `alias.<a>` of `!...`, `tar.<f>.command`, ...):
 * each command's program in its value (past a `!` or an `ext::`) that is
 * a path, and the script an interpreter there is handed (`!sh ~/w/s.sh`). An absolute (or `~/`) one is held where a root holds it, a
 * relative one with a slash (`tools/clean`: git runs drivers at the work
 * tree's top) at every root's top, as a relative `core.hooksPath` is. A
 * bare name is found on PATH, and a word with `$` or a backquote is the
 * shell's to expand: neither is a path to hold. Missing, nothing stands
 * in (an empty read-only program would fail the next git): made, it is
 * reported planted. A directory named (`core.worktree`) is no program. */
static void program_setting(struct git_walk *w, const char *section, const char *key,
                            const char *raw) {
	char name[PATH_MAX], lkey[64], value[PATH_MAX], spelled[640], word[PATH_MAX], path[PATH_MAX];
	char *sub, *v = value;
	size_t n = 0, klen = strlen(key);
	char quote = 0;
	struct stat st;
	if (klen >= sizeof lkey || strlen(section) >= sizeof name)
		return;
	for (size_t i = 0; i <= klen; i++)
		lkey[i] = (char)tolower((unsigned char)key[i]);
	strcpy(name, section);
	if ((sub = strchr(name, '.')))
		*sub++ = '\0';
	unquote(raw, value, sizeof value);
	if (!cf_git_executable_setting(name, sub, lkey, value, spelled, sizeof spelled))
		return;
	while (*v == ' ' || *v == '\t' || *v == '!')
		v++;
	if (strncasecmp(v, "ext::", 5) == 0)
		v += 5;
	/* Each command's program (the first word, and the first after a
	 * `;`, `|`, `&`, `(`, `{` or a newline: `!f() { WS/s.sh; }; f`), and
	 * where that program runs a script it is handed (`sh`, `python3`,
	 * `env`, `.`: interpreter()), the first word that is no option (`!sh
	 * WS/s.sh`, `env -S WS/interp`; the outside red team,
	 * R28c-program-args). Any other argument is data (`!git checkout --
	 * src/app.c` holds nothing), an assignment before a program
	 * (`X=1 cmd`) is skipped. */
	for (bool command = true, script = false; *v && !w->r;) {
		bool too_long = false;
		while (*v && strchr(" \t\n;|&(){}<>", *v)) {
			if (strchr("\n;|&({", *v))
				command = true, script = false;
			v++;
		}
		if (!*v)
			break;
		n = 0;
		quote = 0;
		if (*v == '\'' || *v == '"')
			quote = *v++;
		while (*v && (quote ? *v != quote : !strchr(" \t\n;|&(){}<>", *v))) {
			if (n + 1 < sizeof word)
				word[n++] = *v;
			else
				too_long = true; /* no path: never a cut one held */
			v++;
		}
		if (quote && *v)
			v++;
		word[n] = '\0';
		if ((command || script) && !quote && assignment(word))
			continue; /* `X=1 cmd`: the program is still to come */
		if (!command && (!script || word[0] == '-'))
			continue; /* an argument, or an option of a script's runner */
		/* a program: does it run a script it is handed next? */
		script = interpreter(word);
		command = false;
		if (!n || too_long || strpbrk(word, "$`") || !strchr(word, '/'))
			continue;
		if (expand(w, word, NULL, path, sizeof path)) {
			if (!w->relative_only && (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)))
				visit_as(w, path, false, CF_LATER_STAND_NONE);
		} else if (word[0] != '~') {
			visit_at_tops(w, word, false, true);
		}
	}
}

/* One `key = value` line in `section` (lower case; a subsection after a
 * dot, as git names it: `includeif.gitdir:~/w/.path`). */
static void one_setting(struct git_walk *w, const char *file, const char *section,
                        const char *line, int depth) {
	char key[64], value[PATH_MAX], path[PATH_MAX], dir[PATH_MAX];
	const char *eq = strchr(line, '=');
	size_t klen;
	bool include, hooks, templates;
	if (!eq)
		return;
	klen = (size_t)(eq - line);
	while (klen && (line[klen - 1] == ' ' || line[klen - 1] == '\t'))
		klen--;
	if (klen >= sizeof key)
		return;
	memcpy(key, line, klen);
	key[klen] = '\0';
	include = strcasecmp(key, "path") == 0 &&
	          (strcmp(section, "include") == 0 || strncmp(section, "includeif.", 10) == 0);
	hooks = strcasecmp(key, "hookspath") == 0 && strcmp(section, "core") == 0;
	/* git reads init.templateDir from the user's and the system's
	 * configuration only: `git init` and `git clone` run inside a
	 * repository ignore its own (git 2.39) */
	templates = strcasecmp(key, "templatedir") == 0 && strcmp(section, "init") == 0 && !w->repo;
	if (!include && !hooks && !templates) {
		program_setting(w, section, key, eq + 1);
		return;
	}
	/* A repository's own includes and hooks directory are its project's
	 * files, which the run may write: gitHazards reports what they come
	 * to set (git-hazards-config.c). Only its programs are held. */
	if (w->repo && !include)
		return;
	unquote(eq + 1, value, sizeof value);
	snprintf(dir, sizeof dir, "%s", file);
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = '\0';
	if (templates) {
		/* what `git init` and `git clone` copy into every new gitdir: its
		 * `hooks/` among them (a relative one is git's cwd: not known) */
		if (expand(w, value, NULL, path, sizeof path))
			visit_target(w, path, true);
		return;
	}
	if (hooks) {
		/* relative: in each repository's work tree, as `.husky` is */
		if (expand(w, value, NULL, path, sizeof path))
			visit_target(w, path, true);
		else if (value[0] && value[0] != '~')
			visit_at_tops(w, value, true, false);
		return;
	}
	if (!expand(w, value, dir, path, sizeof path))
		return;
	if (!w->repo)
		visit_target(w, path, false);
	read_config(w, path, depth + 1);
}

static void read_config(struct git_walk *w, const char *file, int depth) {
	char section[PATH_MAX] = "", *text, *line, *next;
	FILE *f;
	size_t n;
	if (w->r || depth > INCLUDE_DEPTH || !(f = fopen(file, "re")))
		return;
	text = malloc(CONFIG_MAX + 1);
	if (!text) {
		fclose(f);
		w->r = -ENOMEM;
		return;
	}
	n = fread(text, 1, CONFIG_MAX, f);
	fclose(f);
	text[n] = '\0';
	for (line = text; line && !w->r; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		while (*line == ' ' || *line == '\t')
			line++;
		while (*line == '[') {
			/* `[section]`, `[section "sub"]`, `[section.sub]`: lower-cased
			 * but for a quoted subsection; a setting may follow on the line */
			char *end = strchr(line, ']');
			size_t o = 0;
			bool quoted = false;
			if (!end)
				break;
			for (char *p = line + 1; p < end && o + 1 < sizeof section; p++) {
				if (*p == '"') {
					quoted = !quoted;
					continue;
				}
				if (*p == ' ' && !quoted) {
					section[o++] = '.';
					continue;
				}
				section[o++] = quoted ? *p : (char)tolower((unsigned char)*p);
			}
			section[o] = '\0';
			line = end + 1;
			while (*line == ' ' || *line == '\t')
				line++;
		}
		if (*line && *line != '#' && *line != ';')
			one_setting(w, file, section, line, depth);
	}
	free(text);
}

int cf_later_git_each(const confine_policy *policy, const char *home, const char *xdg,
                      const char *worktree, const char *repo_config, char *const *roots,
                      cf_later_visit visit, void *ctx) {
	const cf_later_entry *gitconfig = cf_later_lookup(".gitconfig");
	const cf_later_entry *xdg_entry = cf_later_lookup(".config/git/config");
	const char *global = getenv("GIT_CONFIG_GLOBAL"), *system = getenv("GIT_CONFIG_SYSTEM");
	char path[PATH_MAX];
	struct git_walk w = { roots, home, visit, ctx, 0, worktree, worktree != NULL, false };
	if (!policy->default_protections)
		return 0;
	/* A work tree's own configuration: the programs it names (its
	 * includes followed); then the user's, for what is relative to it. */
	if (worktree && repo_config) {
		w.relative_only = false;
		w.repo = true;
		read_config(&w, repo_config, 1);
		w.relative_only = true;
		w.repo = false;
	}
	if (cf_later_protected(policy, gitconfig)) {
		const char *sys = system && system[0] == '/' ? system : "/etc/gitconfig";
		visit_target(&w, sys, false);
		read_config(&w, sys, 1);
		if (global && global[0] == '/') {
			visit_target(&w, global, false);
			read_config(&w, global, 1);
		} else if (home && (size_t)snprintf(path, sizeof path, "%s/.gitconfig", home) <
		                       sizeof path) {
			read_config(&w, path, 1);
		}
	}
	if (!global && cf_later_protected(policy, xdg_entry)) {
		if (xdg)
			read_config(&w, xdg, 1);
		else if (home && (size_t)snprintf(path, sizeof path, "%s/.config/git/config", home) <
		                     sizeof path)
			read_config(&w, path, 1);
	}
	return w.r;
}
