/* SPDX-License-Identifier: MIT */
/*
 * The other names of a protected file (later.h, cf_later_links; issue 28,
 * the outside red team's follow-up, finding 1).
 *
 * A hard link is the file itself under a second name. `~/.bashrc` (or
 * `~/.gitconfig`, a file `~/.gitconfig` includes, a root's `.envrc`) with
 * a second name inside a writable root is written through that name: the
 * home stays read-only, the file does not. So the files the default
 * protections hold that have more than one name (st_nlink > 1) are
 * collected here, by device and inode, and the walk of the writable roots
 * (profiles/protect.c) holds every other name it meets, or reports it
 * where a rung cannot.
 *
 * Which files: every entry that is a file, wherever it is (not only where
 * a root holds it: the home's own `~/.bashrc` is read-only, its other name
 * is not), each resolved (a dotfiles link leads to the file a tool
 * reads). The files inside a protected directory (`~/.ssh/`) are not
 * looked at: their count is unbounded, and a walk of them for every run
 * would cost what `.emacs.d/` holds.
 */
#include "later.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int collect_visit(void *ctx, const char *root, const char *path,
                         const cf_later_entry *e) {
	cf_later_links *l = ctx;
	struct cf_later_link *grown;
	struct stat st;
	char *real;
	(void)root;
	if (e->dir || stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink < 2)
		return 0;
	if (cf_later_links_of(l, &st))
		return 0; /* the same file by another entry's name */
	if (!(real = realpath(path, NULL)))
		return errno == ENOMEM ? -ENOMEM : 0;
	if (!(grown = realloc(l->items, (l->n + 1) * sizeof *grown))) {
		free(real);
		return -ENOMEM;
	}
	l->items = grown;
	grown[l->n].dev = st.st_dev;
	grown[l->n].ino = st.st_ino;
	grown[l->n].path = real;
	l->n++;
	return 0;
}

int cf_later_links_collect(const confine_policy *policy, char *const *roots,
                           cf_later_links *out) {
	size_t n = 0;
	char **all;
	int r;
	memset(out, 0, sizeof *out);
	if (!policy->default_protections)
		return 0;
	/* The roots, then "/": every entry at a root's top, and every home
	 * entry and git include target wherever it lies (below "/" each is
	 * "held"), through the one walk of where entries are (later-walk.c). */
	while (roots && roots[n])
		n++;
	if (!(all = calloc(n + 2, sizeof *all)))
		return -ENOMEM;
	memcpy(all, roots, n * sizeof *all);
	all[n] = (char *)"/";
	r = cf_later_each(policy, all, collect_visit, out);
	free(all);
	if (r < 0)
		cf_later_links_clear(out);
	return r;
}

const char *cf_later_links_of(const cf_later_links *links, const struct stat *st) {
	if (!links || !S_ISREG(st->st_mode) || st->st_nlink < 2)
		return NULL;
	for (size_t i = 0; i < links->n; i++)
		if (links->items[i].dev == st->st_dev && links->items[i].ino == st->st_ino)
			return links->items[i].path;
	return NULL;
}

void cf_later_links_clear(cf_later_links *links) {
	if (!links)
		return;
	for (size_t i = 0; i < links->n; i++)
		free(links->items[i].path);
	free(links->items);
	memset(links, 0, sizeof *links);
}
