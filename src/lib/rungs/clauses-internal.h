/* SPDX-License-Identifier: MIT */
/*
 * Inside the clause engine (clauses.h): the list it fills and what every
 * clause function reads. The clauses of files (mode, protected paths,
 * denyRead, patterns) are in clauses.c, those of the run's mechanisms
 * (network, sockets, temp, stage, signals, limits) in clauses-run.c.
 */
#ifndef CONFINE_RUNGS_CLAUSES_INTERNAL_H
#define CONFINE_RUNGS_CLAUSES_INTERNAL_H

#include "rungs/clauses.h"
#include "rungs/rung.h"

/* The Landlock ABIs that matter to a report (the launcher's table). */
#define CF_ABI_FULL 5   /* refer (2), truncate (3), ioctl-dev (5): every file right */
#define CF_ABI_NET 4    /* TCP port rules: the proxy's one way out */
#define CF_ABI_SCOPES 6 /* signal and abstract-socket scopes */

struct cf_clause_list {
	confine_clause *items;
	size_t n, cap;
	bool oom;
	const cf_rung_holds *h; /* the rung's clause table */
	const cf_clause_facts *f;
};

void cf_clause_add(struct cf_clause_list *l, const char *clause, const char *subject,
                   confine_clause_status status, unsigned layers, const char *needs,
                   const char *reason_fmt, ...) __attribute__((format(printf, 7, 8))) CONFINE_HIDDEN;

/* The layers that hold the mode's file rules on this rung: its own, and
 * the launcher's Landlock inside it where there is one. */
unsigned cf_clause_mode_layers(const struct cf_clause_list *l) CONFINE_HIDDEN;
/* Whether the launcher (and so seccomp, maybe the supervisor) confines the
 * command on this run. */
bool cf_clause_has_launcher(const struct cf_clause_list *l) CONFINE_HIDDEN;

void cf_clause_network(struct cf_clause_list *l, const confine_policy *p) CONFINE_HIDDEN;
void cf_clause_unix_sockets(struct cf_clause_list *l, const confine_policy *p) CONFINE_HIDDEN;
void cf_clause_temp(struct cf_clause_list *l, const confine_policy *p) CONFINE_HIDDEN;
void cf_clause_stage(struct cf_clause_list *l, const confine_policy *p) CONFINE_HIDDEN;
void cf_clause_mechanisms(struct cf_clause_list *l, const confine_policy *p) CONFINE_HIDDEN;
void cf_clause_limits(struct cf_clause_list *l, const confine_policy *p) CONFINE_HIDDEN;

#endif
