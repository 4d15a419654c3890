/* SPDX-License-Identifier: MIT */
/* The policy beyond mode and root in confine's JSON (policy-json.h). */
#include "policy-json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

extern char **environ;

json_t *cli_string_list_json(char *const *strv) {
	json_t *array = json_array();
	for (size_t i = 0; array && strv && strv[i]; i++)
		if (json_array_append_new(array, cli_json_string_lossy(strv[i], strlen(strv[i]))) < 0) {
			json_decref(array);
			return NULL;
		}
	return array;
}

/* env.set's NAME=VALUE entries as {"NAME": "VALUE"}, the config's shape. */
static json_t *env_set_json(char *const *set) {
	json_t *object = json_object();
	for (size_t i = 0; object && set && set[i]; i++) {
		const char *eq = strchr(set[i], '=');
		char *name;
		if (!eq)
			continue;
		if (!(name = strndup(set[i], (size_t)(eq - set[i])))) {
			json_decref(object);
			return NULL;
		}
		json_object_set_new(object, name, cli_json_string_lossy(eq + 1, strlen(eq + 1)));
		free(name);
	}
	return object;
}

json_t *cli_policy_json(const confine_policy *p) {
	json_t *object = json_object(), *env = json_object();
	if (!object || !env) {
		json_decref(object);
		json_decref(env);
		return NULL;
	}
	json_object_set_new(object, "mode", json_string(confine_mode_name(p->mode)));
	json_object_set_new(object, "workspaceRoot",
	                    p->workspace_root ? cli_json_string_lossy(p->workspace_root,
	                                                              strlen(p->workspace_root))
	                                      : json_null());
	json_object_set_new(object, "writableRoots", cli_string_list_json(p->writable_roots));
	json_object_set_new(object, "protectedPaths", cli_string_list_json(p->protected_paths));
	json_object_set_new(object, "defaultProtections", json_boolean(p->default_protections));
	json_object_set_new(object, "unprotect", cli_string_list_json(p->unprotect));
	json_object_set_new(object, "denyRead", cli_string_list_json(p->deny_read));
	if ((p->network_allow && p->network_allow[0]) || (p->network_deny && p->network_deny[0]) ||
	    p->network_allow_local) {
		json_t *network = json_object();
		json_object_set_new(network, "allow", cli_string_list_json(p->network_allow));
		json_object_set_new(network, "deny", cli_string_list_json(p->network_deny));
		json_object_set_new(network, "allowLocal", json_boolean(p->network_allow_local));
		json_object_set_new(object, "network", network);
	} else {
		json_object_set_new(object, "network", json_string(confine_network_name(p->network)));
	}
	json_object_set_new(object, "allowUnixSockets", cli_string_list_json(p->allow_unix_sockets));
	json_object_set_new(env, "inherit", json_string(confine_env_inherit_name(p->env.inherit)));
	json_object_set_new(env, "include", cli_string_list_json(p->env.include));
	json_object_set_new(env, "exclude", cli_string_list_json(p->env.exclude));
	json_object_set_new(env, "set", env_set_json(p->env.set));
	json_object_set_new(env, "defaultExcludes", json_boolean(p->env.default_excludes));
	json_object_set_new(object, "env", env);
	json_object_set_new(object, "requireFull", json_boolean(p->require_full));
	{
		/* Each limit in force, in its unit (bytes, seconds, a count). */
		json_t *limits = json_object();
		for (unsigned i = 0; limits && i < CONFINE_LIMIT_COUNT; i++)
			if (p->limits[i])
				json_object_set_new(limits, confine_limit_name((confine_limit)i),
				                    json_integer((json_int_t)p->limits[i]));
		json_object_set_new(object, "limits", limits);
	}
	return object;
}

int cli_env_json(const confine_policy *policy, json_t **ret, char **ret_bad) {
	char **env = NULL;
	json_t *object;
	int r = confine_env_filter((const char *const *)environ, &policy->env, policy->mode, &env);
	if (r < 0)
		return r;
	if (!(object = json_object())) {
		confine_strv_free(env);
		return -ENOMEM;
	}
	/* {"NAME": "VALUE"} (doc/SPEC.md 10): what a harness hands its spawn
	 * call. A name given twice keeps its first value, the one getenv(3)
	 * and the command would read. */
	for (size_t i = 0; env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		size_t name_len = eq ? (size_t)(eq - env[i]) : strlen(env[i]);
		char *name = strndup(env[i], name_len);
		json_t *value;
		if (!name) {
			json_decref(object);
			confine_strv_free(env);
			return -ENOMEM;
		}
		value = json_string(eq ? eq + 1 : "");
		if (json_object_get(object, name)) {
			json_decref(value); /* not UTF-8 either way: checked the first time */
		} else if (!value || json_object_set_new(object, name, value) < 0) {
			/* (set_new releases `value` when it fails: a key not UTF-8) */
			json_decref(object);
			confine_strv_free(env);
			*ret_bad = name;
			return -EILSEQ;
		}
		free(name);
	}
	confine_strv_free(env);
	*ret = object;
	return 0;
}

static json_t *string_or_null(const char *s) {
	return s ? cli_json_string_lossy(s, strlen(s)) : json_null();
}

json_t *cli_layers_json(const confine_clause *clauses, size_t n) {
	return cli_layers_json_with(clauses, n, NULL);
}

/* One list in doc/SPEC.md 15's order (the confine_layer bits' order):
 * the clauses' layers and the launcher's predicted words together, so
 * `wrap` and `probe` say the same of the same argv. "landlock-partial",
 * a launcher word with no bit of its own, stands where landlock does. */
json_t *cli_layers_json_with(const confine_clause *clauses, size_t n, char *const *words) {
	json_t *array = json_array();
	unsigned layers = 0;
	bool partial = false;
	for (size_t i = 0; i < n; i++)
		layers |= clauses[i].layers;
	for (size_t i = 0; words && words[i]; i++) {
		partial = partial || strcmp(words[i], "landlock-partial") == 0;
		for (unsigned b = 0; b < CONFINE_LAYER_COUNT; b++)
			if (strcmp(words[i], confine_layer_name(b)) == 0)
				layers |= 1u << b;
	}
	for (unsigned b = 0; array && b < CONFINE_LAYER_COUNT; b++) {
		if (layers & (1u << b))
			json_array_append_new(array, json_string(confine_layer_name(b)));
		if (partial && (1u << b) == CONFINE_LAYER_LANDLOCK)
			json_array_append_new(array, json_string("landlock-partial"));
	}
	return array;
}

json_t *cli_clauses_json(const confine_clause *clauses, size_t n) {
	json_t *array = json_array();
	for (size_t i = 0; array && i < n; i++) {
		const confine_clause *c = &clauses[i];
		json_t *item = json_object(), *layers = cli_layers_json(c, 1);
		if (!item || !layers) {
			json_decref(item);
			json_decref(layers);
			json_decref(array);
			return NULL;
		}
		json_object_set_new(item, "clause", json_string(c->clause));
		json_object_set_new(item, "subject", string_or_null(c->subject));
		json_object_set_new(item, "status", json_string(confine_clause_status_name(c->status)));
		json_object_set_new(item, "layers", layers);
		json_object_set_new(item, "reason", string_or_null(c->reason));
		json_object_set_new(item, "needs", string_or_null(c->needs));
		json_array_append_new(array, item);
	}
	return array;
}

void cli_warn_unenforced(const confine_outcome *o) {
	bool any = false;
	for (size_t i = 0; i < o->n_clauses && !any; i++)
		any = o->clauses[i].status != CONFINE_CLAUSE_ENFORCED;
	if (!any)
		return;
	fprintf(stderr, "confine: warning: not enforced on this run:");
	for (size_t i = 0; i < o->n_clauses; i++) {
		const confine_clause *c = &o->clauses[i];
		if (c->status == CONFINE_CLAUSE_ENFORCED)
			continue;
		fprintf(stderr, " %s%s%s%s (%s%s%s);", c->clause, c->subject ? " " : "",
		        c->subject ? c->subject : "", c->status == CONFINE_CLAUSE_PARTIAL ? " partly" : "",
		        c->reason ? c->reason : "no reason given", c->needs ? "; needs " : "",
		        c->needs ? c->needs : "");
	}
	fputc('\n', stderr);
}

json_t *cli_git_hazards_json(const confine_git_hazard *hazards, size_t n) {
	json_t *array = json_array();
	for (size_t i = 0; array && i < n; i++) {
		json_t *item = json_object();
		if (!item) {
			json_decref(array);
			return NULL;
		}
		json_object_set_new(item, "path",
		                    cli_json_string_lossy(hazards[i].path, strlen(hazards[i].path)));
		json_object_set_new(item, "kind", json_string(hazards[i].kind));
		json_array_append_new(array, item);
	}
	return array;
}

json_t *cli_denials_json(const confine_outcome *o) {
	json_t *array = json_array();
	for (size_t i = 0; array && i < o->n_denials; i++) {
		const confine_denial *d = &o->denials[i];
		json_t *item = json_object();
		if (!item) {
			json_decref(array);
			return NULL;
		}
		json_object_set_new(item, "op", json_string(d->op));
		if (d->path)
			json_object_set_new(item, "path", cli_json_string_lossy(d->path, strlen(d->path)));
		else
			json_object_set_new(item, "address",
			                    cli_json_string_lossy(d->address, strlen(d->address)));
		json_object_set_new(item, "clause", json_string(d->clause));
		if (d->reason)
			json_object_set_new(item, "reason",
			                    cli_json_string_lossy(d->reason, strlen(d->reason)));
		json_array_append_new(array, item);
	}
	return array;
}

json_t *cli_network_json(const confine_outcome *o) {
	json_t *network = json_object(), *array = json_array();
	if (!network || !array) {
		json_decref(network);
		json_decref(array);
		return NULL;
	}
	for (size_t i = 0; i < o->n_network_decisions; i++) {
		const confine_network_decision *d = &o->network_decisions[i];
		json_t *item = json_object();
		if (!item)
			break;
		json_object_set_new(item, "host", json_string(d->host));
		json_object_set_new(item, "port", json_integer(d->port));
		json_object_set_new(item, "decision", json_string(d->allow ? "allow" : "deny"));
		json_object_set_new(item, "by", json_string(d->by));
		json_array_append_new(array, item);
	}
	json_object_set_new(network, "decisions", array);
	json_object_set_new(network, "decisionsDropped",
	                    json_integer((json_int_t)o->network_decisions_dropped));
	return network;
}

void cli_warn_git_hazards(const char *who, const confine_git_hazard *hazards, size_t n) {
	for (size_t i = 0; i < n; i++) {
		const confine_git_hazard *h = &hazards[i];
		if (strcmp(h->kind, "incomplete") == 0)
			fprintf(stderr, "confine: warning: the scan for git hooks and settings %s left "
			                "stopped at its bound%s%s; check the writable roots before running "
			                "git there\n",
			        who, h->path[0] ? " before " : "", h->path);
		else if (strcmp(h->kind, "commondir") == 0)
			fprintf(stderr, "confine: warning: %s pointed %s at another repository; git "
			                "would read hooks and settings from there unconfined\n",
			        who, h->path);
		else if (strcmp(h->kind, "planted") == 0)
			fprintf(stderr, "confine: warning: %s created, changed or removed %s, which "
			                "shells, editors, git or agent tools read or run later "
			                "unconfined\n",
			        who, h->path);
		else if (strcmp(h->kind, "hook") == 0)
			fprintf(stderr, "confine: warning: %s created or changed the git hook %s; git "
			                "would run it unconfined\n",
			        who, h->path);
		else
			fprintf(stderr, "confine: warning: %s set %s in %s; git would run it "
			                "unconfined\n",
			        who, h->kind, h->path);
	}
	fflush(stderr);
}
