/* SPDX-License-Identifier: MIT */
/* The policy beyond mode and root in confine's JSON (doc/SPEC.md 15):
 * the canonical echo of a whole policy, the environment to spawn with,
 * the unenforced list (policy-json.c). */
#ifndef CONFINE_CLI_POLICY_JSON_H
#define CONFINE_CLI_POLICY_JSON_H

#include <jansson.h>

#include "confine.h"

/* Every config key with its value, defaults included, in config order:
 * mode, workspaceRoot, writableRoots, protectedPaths, defaultProtections,
 * denyRead, network, allowUnixSockets, env {inherit, include, exclude, set
 * (an object), defaultExcludes}, requireFull. NULL when out of memory. */
json_t *cli_policy_json(const confine_policy *policy);

/* A JSON array of strings (NULL: empty), lossy for non-UTF-8 bytes. */
json_t *cli_string_list_json(char *const *strv);

/* The environment a command spawned under `policy` gets, from this
 * process's environment, as one object {"NAME": "VALUE"} (a name given
 * twice keeps its first value) whose strings must arrive intact:
 * 0; -EILSEQ with *ret_bad naming the variable (up to its '=') when one is
 * not UTF-8 (*ret_bad is malloc'd); -ENOMEM. */
int cli_env_json(const confine_policy *policy, json_t **ret, char **ret_bad);

/* A report per clause (doc/SPEC.md 15) as
 * [{"clause","subject","status","layers","reason","needs"}]. */
json_t *cli_clauses_json(const confine_clause *clauses, size_t n);

/* The union of the clauses' layers as words, in confine_layer order. */
json_t *cli_layers_json(const confine_clause *clauses, size_t n);
/* The same with the launcher's predicted `layers` words (confine_argv's
 * `layers`, NULL-terminated, or NULL) merged in, in the same order. */
json_t *cli_layers_json_with(const confine_clause *clauses, size_t n, char *const *words);

/* For `confine run`: one `confine: warning:` line on stderr when a clause
 * did not hold on this run, naming them. */
void cli_warn_unenforced(const confine_outcome *outcome);

/* The outcome's git hazards as [{"path","kind"}] (doc/SPEC.md 15). */
json_t *cli_git_hazards_json(const confine_git_hazard *hazards, size_t n);

/* The outcome's denials as [{"op","path"|"address","clause"}] (doc/SPEC.md
 * 9, 10). */
json_t *cli_denials_json(const confine_outcome *outcome);
/* The outcome's "network": {"decisions": [{host, port, decision, by}]}
 * (doc/SPEC.md 15, "Ask"). */
json_t *cli_network_json(const confine_outcome *outcome);

/* For `confine run`: one `confine: warning: ...` line on stderr per git
 * hazard the run left. */
void cli_warn_git_hazards(const char *who, const confine_git_hazard *hazards, size_t n);

#endif
