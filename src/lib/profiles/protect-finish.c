/* SPDX-License-Identifier: MIT */
/*
 * bwrap's protections plan, its last step (protect-internal.h): the items
 * sorted, what lies below another item dropped, an explicit entry's
 * covering item made explicit, and the directories to pin listed. Every
 * step near n log n: 40 repositories' entries of what runs later are a
 * thousand items or more (doc/SPEC.md 15, "Nested projects").
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "policy-internal.h"
#include "profiles/protect-internal.h"

static int by_path(const void *a, const void *b) {
	return strcmp(((const cf_protected *)a)->path, ((const cf_protected *)b)->path);
}

static size_t depth_of(const char *path) {
	size_t n = 0;
	for (; *path; path++)
		n += *path == '/';
	return n;
}

static int by_depth(const void *a, const void *b) {
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t dx = depth_of(x), dy = depth_of(y);
	return dx != dy ? (dx < dy ? -1 : 1) : strcmp(x, y);
}

/* Paths as a walk of the tree meets them ('/' below every other byte):
 * everything under a path comes right after it. */
static int tree_order(const void *a, const void *b) {
	const unsigned char *x = (const unsigned char *)(*(cf_protected *const *)a)->path;
	const unsigned char *y = (const unsigned char *)(*(cf_protected *const *)b)->path;
	for (; *x && *x == *y; x++, y++)
		;
	return (*x == '/' ? 1 : *x ? *x + 1 : 0) - (*y == '/' ? 1 : *y ? *y + 1 : 0);
}

/* The item at exactly `path` (the items sorted by_path), or NULL. */
static cf_protected *item_at(struct collect *c, const char *path) {
	cf_protected key = { .path = (char *)path };
	return c->n ? bsearch(&key, c->items, c->n, sizeof *c->items, by_path) : NULL;
}

/* The item `path` is at or under (each of its prefixes looked up: the
 * work stays near n log n with a thousand items, 40 repositories' worth
 * of what runs later), or NULL; `strict`: under only. */
static cf_protected *item_above(struct collect *c, const char *path, bool strict) {
	char dir[PATH_MAX];
	cf_protected *hit = NULL;
	size_t len = strlen(path);
	if (len >= sizeof dir)
		return NULL;
	memcpy(dir, path, len + 1);
	for (char *end = dir + len; !hit && end > dir; end--) {
		if (*end != '/' && (strict || *end != '\0'))
			continue;
		*end = '\0';
		hit = item_at(c, dir);
	}
	return hit;
}

/* Drops what lies below another protected path (covered by it), then
 * lists every directory between a root and a protected path, none at or
 * below a protected path (they are read-only already). */
int cf_protect_finish(struct collect *c) {
	cf_plan *plan = c->plan;
	cf_protected **order = NULL, *top = NULL;
	bool *covered = NULL;
	size_t kept = 0;
	if (c->n > 1)
		qsort(c->items, c->n, sizeof *c->items, by_path);
	/* An explicit entry covered by another protected path makes that one
	 * explicit: its being replaced is then the entry's business. */
	for (size_t i = 0; i < c->n; i++) {
		cf_protected *up = c->items[i].explicit_entry ? &c->items[i] : NULL;
		while (up && (up = item_above(c, up->path, true)))
			up->explicit_entry = true;
	}
	if (c->n && (!(order = malloc(c->n * sizeof *order)) ||
	             !(covered = calloc(c->n, sizeof *covered)))) {
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->n; i++)
		order[i] = &c->items[i];
	if (c->n > 1)
		qsort(order, c->n, sizeof *order, tree_order);
	for (size_t i = 0; i < c->n; i++) {
		if (top && cf_path_at_or_under(order[i]->path, top->path))
			covered[order[i] - c->items] = true;
		else
			top = order[i];
	}
	free(order);
	for (size_t i = 0; i < c->n; i++) {
		if (covered[i]) {
			free(c->items[i].path);
			free(c->items[i].link_of);
		} else {
			c->items[kept++] = c->items[i];
		}
	}
	free(covered);
	c->n = kept;
	for (size_t i = 0; i < c->n; i++) {
		const char *root = cf_protect_root_of(plan, c->items[i].path);
		char dir[PATH_MAX];
		char *slash;
		if (!root || strlen(c->items[i].path) >= sizeof dir)
			continue;
		strcpy(dir, c->items[i].path);
		while ((slash = strrchr(dir, '/')) && slash > dir) {
			*slash = '\0';
			if (!cf_path_at_or_under(dir, root) || strcmp(dir, root) == 0)
				break;
			if (item_above(c, dir, false))
				continue;
			{
				bool listed = false;
				for (size_t k = 0; plan->pins && plan->pins[k] && !listed; k++)
					listed = strcmp(plan->pins[k], dir) == 0;
				if (!listed && cf_strv_push(&plan->pins, dir) < 0)
					return -ENOMEM;
			}
		}
	}
	if (plan->pins)
		qsort(plan->pins, cf_strv_length((const char *const *)plan->pins), sizeof *plan->pins,
		      by_depth);
	plan->protected_paths = c->items;
	plan->n_protected = c->n;
	c->items = NULL;
	c->n = c->cap = 0;
	return 0;
}
