/* SPDX-License-Identifier: MIT */
/* The clause engine (clauses.h, doc/SPEC.md 15): the clauses of files,
 * reading the rung's clause table (cf_rung_holds, rung.h). */
#include "rungs/clauses-internal.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dirstack.h"
#include "path.h"
#include "patterns.h"
#include "policy-internal.h"
#include "profiles/plan.h"

#define add cf_clause_add

void cf_clause_add(struct cf_clause_list *l, const char *clause, const char *subject,
                   confine_clause_status status, unsigned layers, const char *needs,
                   const char *reason_fmt, ...) {
	confine_clause *c;
	if (l->oom)
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		confine_clause *grown = realloc(l->items, cap * sizeof *grown);
		if (!grown) {
			l->oom = true;
			return;
		}
		l->items = grown;
		l->cap = cap;
	}
	c = &l->items[l->n];
	memset(c, 0, sizeof *c);
	c->status = status;
	c->layers = layers;
	if (!(c->clause = strdup(clause)) || (subject && !(c->subject = strdup(subject))) ||
	    (needs && !(c->needs = strdup(needs)))) {
		l->oom = true;
		free(c->clause);
		free(c->subject);
		free(c->needs);
		return;
	}
	if (reason_fmt) {
		va_list ap;
		int r;
		va_start(ap, reason_fmt);
		r = vasprintf(&c->reason, reason_fmt, ap);
		va_end(ap);
		if (r < 0) {
			c->reason = NULL;
			l->oom = true;
		}
	}
	l->n++;
}

static bool listed(char *const *list, const char *s) {
	for (size_t i = 0; list && list[i]; i++)
		if (strcmp(list[i], s) == 0)
			return true;
	return false;
}

bool cf_clause_has_launcher(const struct cf_clause_list *l) {
	return l->h->launcher == CF_RUNG_IS_LAUNCHER ||
	       (l->h->launcher == CF_RUNG_LAUNCHER_INSIDE && l->f->layered);
}

unsigned cf_clause_mode_layers(const struct cf_clause_list *l) {
	bool inner_landlock = l->h->launcher == CF_RUNG_LAUNCHER_INSIDE && l->f->layered &&
	                      l->f->landlock_abi > 0;
	return l->h->layer | (inner_landlock ? CONFINE_LAYER_LANDLOCK : 0);
}

static void clause_mode(struct cf_clause_list *l, const confine_policy *p) {
	const char *mode = confine_mode_name(p->mode);
	unsigned layers = cf_clause_mode_layers(l);
	if (l->h->landlock_files && l->f->landlock_abi < CF_ABI_FULL) {
		int abi = l->f->landlock_abi;
		add(l, "mode", mode, CONFINE_CLAUSE_PARTIAL, layers, l->h->mode_gap.needs,
		    "Landlock ABI %d does not restrict %s%s%s", abi, abi < 2 ? "refer, " : "",
		    abi < 3 ? "truncate, " : "", "ioctl on devices");
	} else {
		add(l, "mode", mode, CONFINE_CLAUSE_ENFORCED, layers, NULL, NULL);
	}
	for (size_t i = 0; p->writable_roots && p->writable_roots[i]; i++) {
		if (p->mode == CONFINE_MODE_WORKSPACE_WRITE)
			add(l, "writableRoots", p->writable_roots[i], CONFINE_CLAUSE_ENFORCED, layers, NULL,
			    NULL);
		else
			/* Accepted (a config shared by every mode lists it) and said:
			 * the stricter mode wins. */
			add(l, "writableRoots", p->writable_roots[i], CONFINE_CLAUSE_ENFORCED, 0, NULL,
			    "not granted: read-only writes nowhere");
	}
	/* Nothing to write there (issue 27): narrower, never wider, so held. */
	for (size_t i = 0; p->writable_roots_missing && p->writable_roots_missing[i]; i++)
		add(l, "writableRoots", p->writable_roots_missing[i], CONFINE_CLAUSE_ENFORCED, 0, NULL,
		    "not granted: it does not exist at the start (made during the run, it stays "
		    "unwritable)");
}

static int join(char *out, size_t size, const char *root, const char *rel) {
	int n = snprintf(out, size, "%s%s%s", root, strcmp(root, "/") == 0 ? "" : "/", rel);
	return (n < 0 || (size_t)n >= size) ? -ENAMETOOLONG : 0;
}

/* The entry of the binds' plan for `path` (canonical where it exists), or
 * NULL when nothing protects it. */
static const cf_protected *bound_entry(const cf_plan *plan, const char *path, bool *via_link) {
	char *real = realpath(path, NULL);
	const cf_protected *found = NULL;
	/* An entry at the path, or above it (a stand-in for a missing parent
	 * covers everything below it). */
	for (size_t i = 0; i < plan->n_protected && !found; i++)
		if (cf_path_at_or_under(path, plan->protected_paths[i].path) ||
		    (real && cf_path_at_or_under(real, plan->protected_paths[i].path)))
			found = &plan->protected_paths[i];
	/* Resolved through a symlink: what it points to is bound, the link
	 * itself (no mount sits on one) could be re-pointed. */
	*via_link = real && strcmp(real, path) != 0;
	free(real);
	return found;
}

/* One protectedPaths entry inside the writable roots, held by binds. */
static void protect_bound(struct cf_clause_list *l, const char *path, const cf_plan *plan) {
	unsigned layer = l->h->binds_layer;
	bool via_link = false;
	const cf_protected *e = bound_entry(plan, path, &via_link);
	if (e && via_link)
		add(l, "protectedPaths", path, CONFINE_CLAUSE_PARTIAL, layer, NULL,
		    "a symbolic link on its way (or the path itself) leads to what is bound; the "
		    "link can be re-pointed, as no mount sits on a link");
	else if (!e)
		add(l, "protectedPaths", path, CONFINE_CLAUSE_UNENFORCED, 0, NULL,
		    "it does not exist at the start and nothing stands in for it (an argv for "
		    "another process gets no stand-in), or a symbolic link on its way could be "
		    "re-pointed");
	else if (!(l->f->spawned_here && l->h->placeholders))
		/* A mount sits on a name: a save on the host (a rename over it)
		 * detaches it, and nothing of confine's is there to notice. */
		add(l, "protectedPaths", path, CONFINE_CLAUSE_PARTIAL, layer, NULL,
		    "held by its name: a save on the host over it detaches the read-only bind, "
		    "and an argv for another process has no spawner of confine's to notice");
	else
		add(l, "protectedPaths", path, CONFINE_CLAUSE_ENFORCED, layer, NULL,
		    e->exists ? NULL
		              : "it does not exist at the start: a stand-in is bound read-only "
		                "for the run (visible on the host until it ends)");
}

static void clause_protect_one(struct cf_clause_list *l, const char *path, const cf_plan *plan) {
	switch (l->h->protect) {
	case CF_RUNG_HOLDS_BINDS:
		protect_bound(l, path, plan);
		break;
	case CF_RUNG_HOLDS_OWN:
		add(l, "protectedPaths", path, CONFINE_CLAUSE_ENFORCED, l->h->layer, NULL, NULL);
		break;
	case CF_RUNG_HOLDS_NOT:
	default:
		add(l, "protectedPaths", path, CONFINE_CLAUSE_UNENFORCED, 0, l->h->protect_gap.needs,
		    "%s", l->h->protect_gap.why);
		break;
	}
}

static void clause_protections(struct cf_clause_list *l, const confine_policy *p,
                               const cf_plan *plan) {
	const cf_rung_holds *h = l->h;
	char path[PATH_MAX];
	bool any_default = false;
	if (p->mode != CONFINE_MODE_WORKSPACE_WRITE) {
		/* Nothing is writable: every protected path holds by the mode. */
		for (size_t i = 0; p->protected_paths && p->protected_paths[i]; i++)
			add(l, "protectedPaths", p->protected_paths[i], CONFINE_CLAUSE_ENFORCED,
			    cf_clause_mode_layers(l), NULL, NULL);
		return;
	}
	for (size_t i = 0; p->protected_paths && p->protected_paths[i]; i++) {
		const char *pp = p->protected_paths[i];
		if (pp[0] == '/') {
			clause_protect_one(l, pp, plan);
			continue;
		}
		for (size_t k = 0; plan->writable[k]; k++)
			if (join(path, sizeof path, plan->writable[k], pp) == 0)
				clause_protect_one(l, path, plan);
	}
	if (!p->default_protections)
		return;
	/* The git surface of every repository the bounded walk found (the plan
	 * is the binds' on every rung, so a rung without them names what it
	 * leaves open). */
	for (size_t i = 0; i < plan->n_protected; i++) {
		const cf_protected *e = &plan->protected_paths[i];
		if (e->explicit_entry)
			continue;
		any_default = true;
		if (e->link_of && h->defaults != CF_RUNG_HOLDS_BINDS)
			/* held by its name alone (bwrap's bind); a write through it
			 * changes the protected file, read-only or not where it is */
			add(l, "defaultProtections", e->path, CONFINE_CLAUSE_UNENFORCED, 0,
			    h->defaults_gap.needs,
			    "a hard link of %s: a write through it changes that file, and this rung "
			    "cannot keep one name of a file read-only inside a writable grant",
			    e->link_of);
		else if (h->defaults == CF_RUNG_HOLDS_BINDS)
			add(l, "defaultProtections", e->path, CONFINE_CLAUSE_ENFORCED, h->binds_layer, NULL,
			    e->exists ? NULL : "a stand-in is bound read-only for the run");
		else if (h->defaults == CF_RUNG_HOLDS_OWN)
			add(l, "defaultProtections", e->path, CONFINE_CLAUSE_ENFORCED, h->layer, NULL, NULL);
		else
			add(l, "defaultProtections", e->path, CONFINE_CLAUSE_UNENFORCED, 0,
			    h->defaults_gap.needs, "%s", h->defaults_gap.why);
	}
	if (h->defaults == CF_RUNG_HOLDS_BINDS && plan->defaults_unprotected)
		add(l, "defaultProtections", NULL, CONFINE_CLAUSE_UNENFORCED, 0, NULL,
		    "%s", plan->defaults_reason ? plan->defaults_reason
		                                : "part of a repository could not be protected");
	else if (!any_default && h->defaults_none_gap.why)
		/* A repository the run creates is not protected either. */
		add(l, "defaultProtections", NULL, CONFINE_CLAUSE_UNENFORCED, 0,
		    h->defaults_none_gap.needs, "%s", h->defaults_none_gap.why);
}

/* One existing denyRead entry (canonical `real`) on a rung with binds: a
 * mask sits on a name; a save on the host (a rename over it) detaches it,
 * and only the inner Landlock layer, whose rules follow inodes, keeps the
 * new file out: outside its write grants. The binds' private /tmp hides the
 * host's: an entry there is hidden by the binds alone (no Landlock rule
 * reaches a file of the host's /tmp inside) unless a root bound into the
 * sandbox holds it (a workspace under /tmp: `bound`), where it is masked by
 * name like any other. */
static void deny_masked(struct cf_clause_list *l, const char *d, const char *real,
                        bool in_writable, bool bound) {
	bool in_tmp = !bound && cf_path_at_or_under(real, "/tmp");
	bool follows = l->h->launcher == CF_RUNG_LAUNCHER_INSIDE && l->f->layered;
	unsigned layers = l->h->binds_layer | (in_tmp ? 0 : cf_clause_mode_layers(l) & CONFINE_LAYER_LANDLOCK);
	if (!in_tmp && (in_writable || !follows))
		add(l, "denyRead", d, CONFINE_CLAUSE_PARTIAL, layers, NULL, "%s%s", l->h->deny_by_name,
		    in_writable ? "it lies inside a writable root, where no Landlock rule can follow"
		                : "an argv without the launcher's Landlock layer has nothing that "
		                  "follows the file");
	else
		add(l, "denyRead", d, CONFINE_CLAUSE_ENFORCED, layers, NULL, NULL);
}

/* Entries a denied directory's walk for hard links reads at most. */
#define DENY_LINK_WALK_MAX 20000

struct links_walk {
	unsigned long most;
	size_t seen;
	char *which;
	size_t which_size;
};

static int count_links(void *ctx, int dirfd, const char *dir, const char *name,
                       const struct stat *st) {
	struct links_walk *w = ctx;
	(void)dirfd;
	if (++w->seen > DENY_LINK_WALK_MAX)
		return -E2BIG;
	if (S_ISREG(st->st_mode) && (unsigned long)st->st_nlink > w->most) {
		w->most = (unsigned long)st->st_nlink;
		snprintf(w->which, w->which_size, "%s/%s", dir, name);
	}
	return 0;
}

/* The names of a regular file `real` (st_nlink), or of the most-linked
 * regular file below a directory `real` (`*which` that file; red team,
 * round 5: a file inside a denied directory, linked elsewhere, read
 * while the report said enforced); 1 for anything else; 0 when the
 * directory holds more than the walk reads (then it cannot be told). */
static unsigned long hard_links(const char *real, char *which, size_t which_size) {
	struct links_walk w = { 1, 0, which, which_size };
	struct stat st;
	snprintf(which, which_size, "%s", real);
	if (stat(real, &st) < 0)
		return 1;
	if (S_ISREG(st.st_mode))
		return (unsigned long)st.st_nlink;
	if (!S_ISDIR(st.st_mode))
		return 1;
	/* a walk cut short (the bound, memory, a name too long) cannot tell */
	return cf_dirstack_walk(real, count_links, &w) == 0 ? w.most : 0;
}

static void clause_deny_read(struct cf_clause_list *l, const confine_policy *p,
                             const cf_plan *plan) {
	for (size_t i = 0; p->deny_read && p->deny_read[i]; i++) {
		const char *d = p->deny_read[i];
		char *real = realpath(d, NULL);
		bool exists = real && listed(plan->deny, real);
		bool in_writable = false;
		unsigned long links = 1;
		int alias;
		char which[PATH_MAX + NAME_MAX + 2];
		for (size_t k = 0; exists && plan->writable[k] && !in_writable; k++)
			in_writable = cf_path_at_or_under(real, plan->writable[k]);
		if (!exists)
			/* Nothing to hide now; but a file made there during the run
			 * (by the host, or by the command) is not hidden: the red
			 * team read one the host created (issue 21). */
			add(l, "denyRead", d, CONFINE_CLAUSE_PARTIAL, 0, NULL,
			    "it does not exist at the start: nothing to hide now, and a file created "
			    "there during the run is not hidden");
		else if (l->h->deny_read_open && l->h->deny_read_open(p, plan, real))
			add(l, "denyRead", d, CONFINE_CLAUSE_UNENFORCED, 0, l->h->deny_read_gap.needs, "%s",
			    l->h->deny_read_gap.why);
		else if ((alias = cf_path_mount_alias(real, (const char *const *)plan->deny, plan->n_deny,
		                                      which, sizeof which)) != 0)
			/* Every rung denies by path: the same place mounted at
			 * another path is another path (review, round 4 session 8). */
			add(l, "denyRead", d, CONFINE_CLAUSE_PARTIAL,
			    l->h->binds_layer ? l->h->binds_layer |
			                            (cf_clause_mode_layers(l) & CONFINE_LAYER_LANDLOCK)
			                      : cf_clause_mode_layers(l),
			    NULL, "%s%s%s", alias > 0 ? "it is also reachable at " : "", alias > 0 ? which : "",
			    alias > 0 ? " (its directory, or a part of it, is mounted a second time there: a "
			                "bind mount), which neither a mask on its name nor a Landlock rule on "
			                "its path covers"
			              : "whether it is reachable at another path through a mount could not "
			                "be told (a mount line too long to read)");
		else if ((links = hard_links(real, which, sizeof which)) != 1) {
			/* Every rung denies by path (a mask, a rule on the
			 * directories above): another name of the same file is
			 * another path, read as its own place allows (R4-F8). */
			char why[sizeof which + 160];
			if (links == 0)
				snprintf(why, sizeof why,
				         "it holds more than %d entries, or could not be read whole: what lies "
				         "below it was not looked through for files with other names (hard "
				         "links) that read their content",
				         DENY_LINK_WALK_MAX);
			else if (strcmp(which, real) == 0)
				snprintf(why, sizeof why,
				         "it has %lu hard links: another name of the file, outside the denied "
				         "path (in the workspace, say), reads its content",
				         links);
			else
				snprintf(why, sizeof why,
				         "%s, below it, has %lu hard links: another name of that file, "
				         "outside the denied path, reads its content",
				         which, links);
			add(l, "denyRead", d, CONFINE_CLAUSE_PARTIAL,
			    l->h->binds_layer ? l->h->binds_layer |
			                            (cf_clause_mode_layers(l) & CONFINE_LAYER_LANDLOCK)
			                      : cf_clause_mode_layers(l),
			    NULL, "%s", why);
		}
		else if (l->h->binds_layer)
			deny_masked(l, d, real, in_writable,
			            in_writable || (p->workspace_root &&
			                            cf_path_at_or_under(real, p->workspace_root)));
		else
			add(l, "denyRead", d, CONFINE_CLAUSE_ENFORCED, cf_clause_mode_layers(l), NULL, NULL);
		free(real);
	}
}

/* A pattern: what it matched at the start is listed path by path (as
 * literal entries); what it would match later is not covered. */
static void clause_patterns(struct cf_clause_list *l, const char *key,
                            const cf_pattern_report *reports, size_t n) {
	for (size_t i = 0; i < n; i++) {
		const cf_pattern_report *p = &reports[i];
		if (strcmp(p->key, key) != 0)
			continue;
		add(l, key, p->pattern, CONFINE_CLAUSE_PARTIAL,
		    l->h->binds_layer ? l->h->layer : cf_clause_mode_layers(l), NULL,
		    "expanded at the start: %zu match%s, each its own clause%s; a match made during "
		    "the run is not covered",
		    p->matches, p->matches == 1 ? "" : "es",
		    p->incomplete ? " (the scan stopped at its bound: some may be missing)" : "");
	}
}

int cf_clauses_make(const confine_policy *policy, const cf_clause_facts *facts,
                    confine_clause **ret, size_t *n) {
	struct cf_clause_list l = { 0 };
	const cf_runner_def *def;
	confine_policy *expanded = NULL;
	cf_pattern_report *reports = NULL;
	size_t n_reports = 0;
	cf_plan plan;
	int r;
	if (!policy || !facts || !ret || !n)
		return -EINVAL;
	if (!confine_mode_is_confined(policy->mode))
		return -EINVAL;
	if (!(def = cf_runner_find(facts->runner)) || !def->holds)
		return -EINVAL;
	l.h = def->holds;
	l.f = facts;
	if ((r = cf_patterns_expand(policy, &expanded, &reports, &n_reports)) < 0)
		return r;
	/* The binds' plan on every rung: what binds hold, and on the others
	 * the repositories whose git surface they leave open. Asked for the
	 * raw policy (cf_plan_make expands it the same way), so that the argv's
	 * request for the same policy finds this plan (plan-memo.c). */
	if ((r = cf_plan_make(policy,
	                      CF_PLAN_BWRAP | (facts->spawned_here && l.h->placeholders
	                                               ? CF_PLAN_PLACEHOLDERS
	                                               : 0),
	                      &plan)) < 0) {
		cf_pattern_reports_free(reports, n_reports);
		if (expanded) {
			cf_policy_clear(expanded);
			free(expanded);
		}
		return r;
	}
	clause_mode(&l, policy);
	clause_patterns(&l, "protectedPaths", reports, n_reports);
	clause_protections(&l, expanded ? expanded : policy, &plan);
	clause_patterns(&l, "denyRead", reports, n_reports);
	clause_deny_read(&l, expanded ? expanded : policy, &plan);
	cf_pattern_reports_free(reports, n_reports);
	if (expanded) {
		cf_policy_clear(expanded);
		free(expanded);
	}
	cf_clause_network(&l, policy);
	cf_clause_unix_sockets(&l, policy);
	add(&l, "env", NULL, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_LIBRARY, NULL, NULL);
	cf_clause_temp(&l, policy);
	cf_clause_stage(&l, policy);
	cf_clause_mechanisms(&l, policy);
	cf_clause_limits(&l, policy);
	cf_plan_clear(&plan);
	if (!l.oom && l.h->refine && (r = l.h->refine(policy, facts, l.items, l.n)) < 0) {
		cf_clauses_free(l.items, l.n);
		return r;
	}
	if (l.oom) {
		cf_clauses_free(l.items, l.n);
		return -ENOMEM;
	}
	*ret = l.items;
	*n = l.n;
	return 0;
}
