/* SPDX-License-Identifier: MIT */
/*
 * Other names of protected files met by the walk of the writable roots
 * (protect-internal.h; later-links.c collects the protected files; issue
 * 28's R28b-links and R28c-dir-links).
 *
 * A name the walk meets whose device and inode are a protected file's is
 * held as that file is. Where the listing of a protected directory was
 * cut by its budget, a file on that device could be one the listing did
 * not reach: a regular file with more names (st_nlink) than the walk of
 * the roots meets is one with a name elsewhere, and with one such the
 * defaults do not hold in full, and the report names it and the listing
 * cut. A file whose names all lie in the roots (cargo's `target/`, `cp
 * -al` inside the workspace) is nobody's other name.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "later.h"
#include "policy-internal.h"
#include "profiles/protect-internal.h"

/* The first names noted keep their paths, for the report. */
#define NAMED_PATHS 16

struct cf_protect_named {
	dev_t dev;
	ino_t ino;
	nlink_t nlink;
	size_t order;
	char *path; /* the first NAMED_PATHS only */
};

/* Whether `path`, in root c->root, lies in an earlier root too (then the
 * walk of that one counted this name already). */
static bool counted_before(const struct collect *c, const char *path) {
	for (size_t k = 0; k < c->root; k++)
		if (cf_path_at_or_under(path, c->plan->writable[k]))
			return true;
	return false;
}

static void note(struct collect *c, const char *path, const struct stat *st) {
	struct cf_protect_named *grown;
	if (counted_before(c, path))
		return;
	if (!(grown = realloc(c->named, (c->n_named + 1) * sizeof *grown))) {
		c->oom = true;
		return;
	}
	c->named = grown;
	grown[c->n_named] = (struct cf_protect_named){ st->st_dev, st->st_ino, st->st_nlink,
		                                          c->n_named, NULL };
	if (c->n_named < NAMED_PATHS && !(grown[c->n_named].path = strdup(path))) {
		c->oom = true;
		return;
	}
	c->n_named++;
}

void cf_protect_hard_link(struct collect *c, int dirfd_, const char *dir, const char *name,
                          ino_t ino) {
	char path[PATH_MAX];
	const char *of;
	struct stat st;
	bool maybe = cf_later_links_may(&c->links, ino);
	if (!maybe && !c->links.n_cut)
		return; /* the cheap look: no protected file has this number */
	if (fstatat(dirfd_, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_nlink < 2)
		return;
	of = maybe ? cf_later_links_of(&c->links, &st) : NULL;
	if (cf_protect_join(path, sizeof path, dir, name) < 0) {
		if (of)
			cf_protect_defaults_unprotected(c, "%s/%s, another name of %s: the path is too long",
			                                dir, name, of);
		else if (cf_later_links_cut_on(&c->links, st.st_dev))
			cf_protect_defaults_unprotected(c, "%s/%s has %lu names: the path is too long to "
			                                   "count them", dir, name,
			                                (unsigned long)st.st_nlink);
		return;
	}
	if (!of) {
		if (cf_later_links_cut_on(&c->links, st.st_dev))
			note(c, path, &st);
		return;
	}
	if (strcmp(path, of) == 0 || cf_later_links_in_dir(&c->links, path))
		return; /* the file itself, or a name in a protected directory: held with it */
	cf_protect_add_item(c, path, CF_PLACEHOLDER_NONE, true);
	for (size_t i = 0; i < c->n && !c->oom; i++)
		if (strcmp(c->items[i].path, path) == 0 && !c->items[i].link_of &&
		    !(c->items[i].link_of = strdup(of)))
			c->oom = true;
}

static int by_file(const void *a, const void *b) {
	const struct cf_protect_named *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

void cf_protect_links_report(struct collect *c) {
	const struct cf_protect_named *first = NULL;
	size_t files = 0;
	if (!c->n_named || c->oom)
		return;
	qsort(c->named, c->n_named, sizeof *c->named, by_file);
	for (size_t i = 0, j; i < c->n_named; i = j) {
		for (j = i + 1; j < c->n_named && c->named[j].dev == c->named[i].dev &&
		                c->named[j].ino == c->named[i].ino;
		     j++)
			;
		if ((nlink_t)(j - i) >= c->named[i].nlink)
			continue; /* every name in the roots */
		files++;
		if (c->named[i].path && (!first || c->named[i].order < first->order))
			first = &c->named[i];
	}
	if (!files)
		return;
	{
		const struct cf_later_cut *cut =
		    cf_later_links_cut_on(&c->links, first ? first->dev : c->named[0].dev);
		char others[64] = "";
		if (files > 1)
			snprintf(others, sizeof others, " (and %zu more such files)", files - 1);
		cf_protect_defaults_unprotected(
		    c,
		    "%s%s has a name the walk of the writable roots did not meet, and the listing of %s stopped at its "
		    "budget (%d entries there, %zu in all): a write through it could change a "
		    "protected file there",
		    first ? first->path : "a file in the writable roots", others,
		    cut ? cut->path : c->links.cut[0].path, CF_LATER_BELOW_DIR_MAX,
		    cf_later_below_budget);
	}
}

void cf_protect_links_clear(struct collect *c) {
	for (size_t i = 0; i < c->n_named; i++)
		free(c->named[i].path);
	free(c->named);
	c->named = NULL;
	c->n_named = 0;
}
