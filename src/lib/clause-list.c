/* SPDX-License-Identifier: MIT */
/* A list of clauses once made (clause-list.h, doc/SPEC.md 15). */
#include "clause-list.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy-internal.h"

static bool listed(char *const *list, const char *s) {
	for (size_t i = 0; list && list[i]; i++)
		if (strcmp(list[i], s) == 0)
			return true;
	return false;
}

int cf_clauses_drop_layers(confine_clause *clauses, size_t n, unsigned layers, const char *reason) {
	for (size_t i = 0; i < n; i++) {
		confine_clause *c = &clauses[i];
		if (!(c->layers & layers))
			continue;
		c->layers &= ~layers;
		if (c->layers == 0 && c->status != CONFINE_CLAUSE_UNENFORCED) {
			char *copy = strdup(reason);
			if (!copy)
				return -ENOMEM;
			free(c->reason);
			c->reason = copy;
			c->status = CONFINE_CLAUSE_UNENFORCED;
		}
	}
	return 0;
}

int cf_clauses_weaken(confine_clause *clauses, size_t n, const char *clause, unsigned layer,
                      const char *reason) {
	for (size_t i = 0; i < n; i++) {
		confine_clause *c = &clauses[i];
		char *copy;
		if (c->status != CONFINE_CLAUSE_ENFORCED || !(c->layers & layer) ||
		    !(c->layers & ~layer) || strcmp(c->clause, clause) != 0)
			continue;
		if (!(copy = strdup(reason)))
			return -ENOMEM;
		free(c->reason);
		c->reason = copy;
		c->status = CONFINE_CLAUSE_PARTIAL;
	}
	return 0;
}

int cf_clauses_unenforced(const confine_clause *clauses, size_t n, char ***ret) {
	char **names = NULL;
	for (size_t i = 0; i < n; i++) {
		if (clauses[i].status == CONFINE_CLAUSE_ENFORCED || listed(names, clauses[i].clause))
			continue;
		if (cf_strv_push(&names, clauses[i].clause) < 0) {
			confine_strv_free(names);
			return -ENOMEM;
		}
	}
	*ret = names;
	return 0;
}

void cf_clauses_describe_unenforced(const confine_clause *clauses, size_t n, char *out,
                                    size_t size) {
	size_t len = 0;
	bool first = true;
	if (size)
		out[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++) {
		bool seen = false, any_subject = false;
		if (clauses[i].status == CONFINE_CLAUSE_ENFORCED)
			continue;
		for (size_t k = 0; k < i && !seen; k++)
			seen = clauses[k].status != CONFINE_CLAUSE_ENFORCED &&
			       strcmp(clauses[k].clause, clauses[i].clause) == 0;
		if (seen)
			continue;
		len += (size_t)snprintf(out + len, size - len, "%s%s", first ? "" : ", ",
		                        clauses[i].clause);
		first = false;
		for (size_t k = i; k < n && len < size; k++) {
			/* a subject names what is not held; without one, the reason
			 * says why (the walk's budget, a symbolic link, ...) */
			const char *what = clauses[k].subject ? clauses[k].subject : clauses[k].reason;
			if (clauses[k].status == CONFINE_CLAUSE_ENFORCED || !what ||
			    strcmp(clauses[k].clause, clauses[i].clause) != 0)
				continue;
			len += (size_t)snprintf(out + len, size - len, "%s%s", any_subject ? ", " : " (",
			                        what);
			any_subject = true;
		}
		if (any_subject && len < size)
			len += (size_t)snprintf(out + len, size - len, ")");
	}
}

bool cf_clauses_all_enforced(const confine_clause *clauses, size_t n) {
	for (size_t i = 0; i < n; i++)
		if (clauses[i].status != CONFINE_CLAUSE_ENFORCED)
			return false;
	return true;
}

static int dup_or_null(const char *s, char **out) {
	*out = NULL;
	return s && !(*out = strdup(s)) ? -ENOMEM : 0;
}

int cf_clauses_copy(const confine_clause *clauses, size_t n, confine_clause **ret) {
	confine_clause *c;
	*ret = NULL;
	if (n == 0)
		return 0;
	if (!(c = calloc(n, sizeof *c)))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		c[i].status = clauses[i].status;
		c[i].layers = clauses[i].layers;
		if (dup_or_null(clauses[i].clause, &c[i].clause) < 0 ||
		    dup_or_null(clauses[i].subject, &c[i].subject) < 0 ||
		    dup_or_null(clauses[i].reason, &c[i].reason) < 0 ||
		    dup_or_null(clauses[i].needs, &c[i].needs) < 0) {
			cf_clauses_free(c, n);
			return -ENOMEM;
		}
	}
	*ret = c;
	return 0;
}

static void clause_clear(confine_clause *c) {
	free(c->clause);
	free(c->subject);
	free(c->reason);
	free(c->needs);
}

void cf_clauses_free(confine_clause *clauses, size_t n) {
	for (size_t i = 0; clauses && i < n; i++)
		clause_clear(&clauses[i]);
	free(clauses);
}
