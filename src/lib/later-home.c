/* SPDX-License-Identifier: MIT */
/*
 * A home entry reached through a link (later.h, cf_later_visit_home), and
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
 */
#include "later.h"

#include "canonical.h"

#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How many links a resolution follows, as the kernel's bound. */
#define LINKS_MAX 40

bool cf_later_resolve(const char *path, char *out, size_t size) {
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

int cf_later_visit_home(char *const *roots, const char *path, cf_later_visit visit, void *ctx,
                        const cf_later_entry *e) {
	char resolved[PATH_MAX];
	int r = cf_later_visit_held(roots, path, visit, ctx, e);
	if (r == 0 && cf_later_resolve(path, resolved, sizeof resolved) && strcmp(resolved, path) != 0)
		r = cf_later_visit_held(roots, resolved, visit, ctx, e);
	return r;
}
