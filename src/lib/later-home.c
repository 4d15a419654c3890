/* SPDX-License-Identifier: MIT */
/*
 * A home entry reached through a link or moved by a variable (later.h,
 * cf_later_visit_home), the home when `$HOME` is unset, and
 * the resolution it and later-git.c's targets use (cf_later_resolve).
 *
 * The home's entries are held where their own path lies in a writable
 * root. A dotfiles manager (stow, chezmoi's symlink mode, a hand-made
 * `~/.bashrc -> dotfiles/bashrc`) or a relocated directory
 * (`~/.config -> /data/cfg`) puts the file the next shell or git reads
 * somewhere else: a run that may write `dotfiles/` or `/data/cfg` rewrote
 * `~/.bashrc`'s content, unreported (red team round 5, second attack,
 * F1). So each entry is also held at the place its path resolves to:
 * the deepest existing part resolved (links followed, a dangling one
 * too: the run could create its target), the rest appended.
 *
 * A variable can move a home directory too: `$XDG_CONFIG_HOME` every
 * tool's `~/.config`, `$PYTHONUSERBASE` python's `~/.local` (the outside
 * red team, F5). An entry below one is held at both places. And the home
 * itself is the passwd entry's where `$HOME` is unset (cf_later_home_env).
 */
#include "later.h"

#include "call-scope.h"
#include "canonical.h"

#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How many links a resolution follows, as the kernel's bound. */
#define LINKS_MAX 40

/* One call's resolutions (call-scope.h): a `run` resolves every home
 * entry in each of its looks (the clause plan, the protected trees' listing,
 * the snapshot before the run), each several system calls for a path that
 * does not exist; within one call they are the same answers. Outside a
 * call's scope every resolution looks anew. */
typedef struct memo_resolution {
	char *path;  /* NULL: an empty slot */
	char *found; /* NULL: the path does not resolve */
} memo_resolution;

static _Thread_local struct {
	size_t n, cap; /* cap: 0 or a power of two */
	memo_resolution *slots;
} memo;

static void memo_release(void) {
	for (size_t i = 0; i < memo.cap; i++) {
		free(memo.slots[i].path);
		free(memo.slots[i].found);
	}
	free(memo.slots);
	memset(&memo, 0, sizeof memo);
}

static size_t path_hash(const char *s) {
	size_t h = 1469598103934665603u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static memo_resolution *memo_slot(memo_resolution *slots, size_t cap, const char *path) {
	size_t i = path_hash(path) & (cap - 1);
	while (slots[i].path && strcmp(slots[i].path, path) != 0)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

/* Keeps `found` (taken, may be NULL) for `path`; on any failure keeps
 * nothing (the next look resolves anew). */
static void memo_keep(const char *path, char *found) {
	memo_resolution *slot;
	if (memo.n + 1 > memo.cap / 2) {
		size_t cap = memo.cap ? memo.cap * 2 : 256;
		memo_resolution *slots = calloc(cap, sizeof *slots);
		if (!slots || (memo.cap == 0 && cf_call_on_close(memo_release) < 0)) {
			free(slots);
			free(found);
			return;
		}
		for (size_t i = 0; i < memo.cap; i++)
			if (memo.slots[i].path)
				*memo_slot(slots, cap, memo.slots[i].path) = memo.slots[i];
		free(memo.slots);
		memo.slots = slots;
		memo.cap = cap;
	}
	slot = memo_slot(memo.slots, memo.cap, path);
	if (!(slot->path = strdup(path))) {
		free(found);
		return;
	}
	slot->found = found;
	memo.n++;
}

static bool resolve(const char *path, char *out, size_t size);

bool cf_later_resolve(const char *path, char *out, size_t size) {
	char found[PATH_MAX];
	bool ok;
	if (!cf_call_is_open())
		return resolve(path, out, size);
	if (memo.cap) {
		const memo_resolution *slot = memo_slot(memo.slots, memo.cap, path);
		if (slot->path)
			return slot->found && (size_t)snprintf(out, size, "%s", slot->found) < size;
	}
	ok = resolve(path, found, sizeof found);
	memo_keep(path, ok ? strdup(found) : NULL);
	return ok && (size_t)snprintf(out, size, "%s", found) < size;
}

static bool resolve(const char *path, char *out, size_t size) {
	char prefix[PATH_MAX], rest[PATH_MAX] = "";
	int links = 0;
	if (path[0] != '/' || strlen(path) >= sizeof prefix)
		return false;
	strcpy(prefix, path);
	for (;;) {
		struct stat st;
		char *slash;
		char *found = cf_realpath(prefix); /* one openat2 where no link is on the way */
		if (found) {
			bool fits = (size_t)snprintf(out, size, "%s%s",
			                             strcmp(found, "/") == 0 && rest[0] ? "" : found,
			                             rest) < size;
			free(found);
			return fits;
		}
		if (lstat(prefix, &st) == 0 && S_ISLNK(st.st_mode)) {
			char target[PATH_MAX], joined[PATH_MAX * 2];
			ssize_t n = readlink(prefix, target, sizeof target - 1);
			if (n < 0 || ++links > LINKS_MAX)
				return false;
			target[n] = '\0';
			if (target[0] == '/') {
				snprintf(joined, sizeof joined, "%s", target);
			} else {
				*strrchr(prefix, '/') = '\0';
				snprintf(joined, sizeof joined, "%s/%s", prefix[0] ? prefix : "", target);
			}
			if (strlen(joined) >= sizeof prefix)
				return false;
			strcpy(prefix, joined);
			continue;
		}
		if (!(slash = strrchr(prefix, '/')) || slash == prefix)
			return false;
		{
			char tail[PATH_MAX * 2];
			if ((size_t)snprintf(tail, sizeof tail, "%s%s", slash, rest) >= sizeof rest)
				return false;
			strcpy(rest, tail);
		}
		*slash = '\0';
	}
}

/* A variable that moves a home directory's entries elsewhere (doc/SPEC.md
 * 15, "Relocated"): an entry whose name starts with `entry` (a whole
 * component) is also at the variable's value with the name's first
 * `strip` bytes replaced by it. */
static const struct relocation {
	const char *entry;
	size_t strip;
	const char *var;
} relocations[] = {
	{ ".config", 7, "XDG_CONFIG_HOME" },   /* every tool of ~/.config */
	{ ".local/lib", 6, "PYTHONUSERBASE" }, /* python's user site */
};

/* Whether absolute `path` has a `.` or `..` component (a missing tail
 * with one cannot be resolved: such a value is not followed). */
static bool dotted(const char *path) {
	for (const char *p = path; (p = strstr(p, "/.")); p++)
		if (p[2] == '/' || p[2] == '\0' || (p[2] == '.' && (p[3] == '/' || p[3] == '\0')))
			return true;
	return false;
}

static int visit_one(char *const *roots, const char *path, cf_later_visit visit, void *ctx,
                     const cf_later_entry *e) {
	char resolved[PATH_MAX];
	int r = cf_later_visit_held(roots, path, visit, ctx, e);
	if (r == 0 && cf_later_resolve(path, resolved, sizeof resolved) && strcmp(resolved, path) != 0)
		r = cf_later_visit_held(roots, resolved, visit, ctx, e);
	return r;
}

int cf_later_visit_home(char *const *roots, const char *path, cf_later_visit visit, void *ctx,
                        const cf_later_entry *e) {
	int r = visit_one(roots, path, visit, ctx, e);
	for (size_t i = 0; r == 0 && i < sizeof relocations / sizeof relocations[0]; i++) {
		const struct relocation *m = &relocations[i];
		size_t len = strlen(m->entry);
		const char *value = getenv(m->var);
		char base[PATH_MAX], moved[PATH_MAX];
		if (strncmp(e->name, m->entry, len) != 0 || (e->name[len] && e->name[len] != '/') ||
		    !value || value[0] != '/' || dotted(value) ||
		    !cf_later_resolve(value, base, sizeof base) ||
		    (size_t)snprintf(moved, sizeof moved, "%s%s", strcmp(base, "/") == 0 ? "" : base,
		                     e->name + m->strip) >= sizeof moved ||
		    strcmp(moved, path) == 0)
			continue;
		r = visit_one(roots, moved, visit, ctx, e);
	}
	return r;
}

/* Read from /etc/passwd itself (fgetpwent_r, no NSS: the CLI is linked
 * statically), as later-git.c's `~user/`. */
const char *cf_later_passwd_home(void) {
	static _Thread_local char from_passwd[PATH_MAX];
	struct passwd pw, *found = NULL;
	char scratch[4096];
	uid_t uid = getuid();
	bool got = false;
	FILE *f;
	if (!(f = fopen("/etc/passwd", "re")))
		return NULL;
	while (!got && fgetpwent_r(f, &pw, scratch, sizeof scratch, &found) == 0 && found)
		if (found->pw_uid == uid) {
			got = found->pw_dir && found->pw_dir[0] == '/' &&
			      strlen(found->pw_dir) < sizeof from_passwd;
			if (got)
				strcpy(from_passwd, found->pw_dir);
			break;
		}
	fclose(f);
	return got ? from_passwd : NULL;
}

const char *cf_later_home_env(void) {
	const char *home = getenv("HOME");
	return home && home[0] == '/' ? home : cf_later_passwd_home();
}

cf_later_stand cf_later_stand_at(const cf_later_entry *e, const char *base) {
	const char *home;
	char *real;
	bool at_home;
	if (e->stand != CF_LATER_STAND_DIR || !cf_later_project(e) || !strchr(e->name, '/') ||
	    !(home = cf_later_home_env()))
		return e->stand;
	real = realpath(home, NULL);
	at_home = real && strcmp(real, base) == 0;
	free(real);
	return at_home ? CF_LATER_STAND_BELOW : e->stand;
}
