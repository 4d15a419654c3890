/* SPDX-License-Identifier: MIT */
/*
 * A list of clauses (confine_clause, doc/SPEC.md 15) once made: what a run
 * did not apply taken away, the summary, the description, copies. The
 * report is made by the clause engine of the rungs (rungs/clauses.h).
 */
#ifndef CONFINE_CLAUSE_LIST_H
#define CONFINE_CLAUSE_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* Takes `layers` away from every clause (a layer the run did not apply);
 * a clause left with none becomes unenforced with `reason`. -ENOMEM. */
int cf_clauses_drop_layers(confine_clause *clauses, size_t n, unsigned layers,
                           const char *reason) CONFINE_HIDDEN;

/* Every `clause` enforced by `layer` with other layers too becomes
 * partial with `reason`: what is left holds it, but not whole. -ENOMEM. */
int cf_clauses_weaken(confine_clause *clauses, size_t n, const char *clause, unsigned layer,
                      const char *reason) CONFINE_HIDDEN;

/* The summary: each clause name not enforced, once, in clause order
 * (NULL when all hold). 0 or -ENOMEM. */
int cf_clauses_unenforced(const confine_clause *clauses, size_t n, char ***ret) CONFINE_HIDDEN;

/* The clauses not enforced, each name once with its subjects, or the
 * reason of one without a subject: "denyRead (/ws/.env),
 * defaultProtections (the walk's budget of ... ran out in /ws/x: ...)";
 * "" when all hold. Cut to fit `size`. */
void cf_clauses_describe_unenforced(const confine_clause *clauses, size_t n, char *out,
                                    size_t size) CONFINE_HIDDEN;

/* Whether every clause is enforced. */
bool cf_clauses_all_enforced(const confine_clause *clauses, size_t n) CONFINE_HIDDEN;

/* A deep copy. 0 or -ENOMEM. */
int cf_clauses_copy(const confine_clause *clauses, size_t n, confine_clause **ret) CONFINE_HIDDEN;

void cf_clauses_free(confine_clause *clauses, size_t n) CONFINE_HIDDEN;

#endif
