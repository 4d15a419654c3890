/* SPDX-License-Identifier: MIT */
/* The confined-argv result: ownership and deep copy. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy-internal.h"
#include "clause-list.h"
#include "util.h"

void confine_argv_free(confine_argv *confined) {
	if (!confined)
		return;
	confine_strv_free(confined->argv);
	confine_strv_free(confined->denial_signatures);
	for (size_t i = 0; i < confined->n_rules; i++) {
		free(confined->rules[i].allowed_exit_codes);
		confine_strv_free(confined->rules[i].fatal_signatures);
		confine_strv_free(confined->rules[i].informational_lines);
	}
	free(confined->rules);
	confine_strv_free(confined->unenforced);
	cf_clauses_free(confined->clauses, confined->n_clauses);
	confine_strv_free(confined->layers);
	cf_policy_clear(&confined->policy);
	free(confined);
}

int confine_argv_copy(const confine_argv *src, confine_argv **ret) {
	confine_argv *c;
	if (!src || !ret)
		return -EINVAL;
	c = calloc(1, sizeof *c);
	if (!c)
		return -ENOMEM;
	c->runner = src->runner;
	c->runner_facts = src->runner_facts;
	c->enforcement = src->enforcement;
	c->argc = src->argc;
	c->spawn_flags = src->spawn_flags;
	c->exec_fd = src->exec_fd;
	c->inherit_fd = src->inherit_fd;
	c->inherit_fd_at = src->inherit_fd_at;
	c->status_fd_at = src->status_fd_at;
	if (src->unenforced && !(c->unenforced = cf_strv_copy((const char *const *)src->unenforced)))
		goto oom;
	if (cf_clauses_copy(src->clauses, src->n_clauses, &c->clauses) < 0)
		goto oom;
	c->n_clauses = src->n_clauses;
	if (src->layers && !(c->layers = cf_strv_copy((const char *const *)src->layers)))
		goto oom;
	c->argv = cf_strv_copy((const char *const *)src->argv);
	c->denial_signatures = cf_strv_copy((const char *const *)src->denial_signatures);
	if (!c->argv || !c->denial_signatures || cf_policy_copy_into(&c->policy, &src->policy) < 0)
		goto oom;
	if (src->n_rules) {
		c->rules = calloc(src->n_rules, sizeof *c->rules);
		if (!c->rules)
			goto oom;
		c->n_rules = src->n_rules;
		for (size_t i = 0; i < src->n_rules; i++) {
			const confine_rule *r = &src->rules[i];
			confine_rule *d = &c->rules[i];
			if (r->n_allowed_exit_codes) {
				d->allowed_exit_codes = malloc(r->n_allowed_exit_codes * sizeof(int));
				if (!d->allowed_exit_codes)
					goto oom;
				memcpy(d->allowed_exit_codes, r->allowed_exit_codes,
				       r->n_allowed_exit_codes * sizeof(int));
				d->n_allowed_exit_codes = r->n_allowed_exit_codes;
			}
			d->fatal_signatures = cf_strv_copy((const char *const *)r->fatal_signatures);
			if (!d->fatal_signatures)
				goto oom;
			if (r->informational_lines) {
				d->informational_lines =
					cf_strv_copy((const char *const *)r->informational_lines);
				if (!d->informational_lines)
					goto oom;
			}
		}
	}
	*ret = c;
	return 0;
oom:
	confine_argv_free(c);
	return -ENOMEM;
}
