/* SPDX-License-Identifier: MIT */
/*
 * `confine stage diff|apply|discard DIR` (doc/SPEC.md 21): a staged run's
 * changes listed, applied or thrown away, over confine_stage_*. Its own
 * small parser: the words are few and none of run's options apply.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "output.h"
#include "path-quote.h"
#include "stage.h"

/* An answer that is not "all of it" (a conflict, a refused path): 1. */
#define STAGE_EXIT_PARTIAL 1

static const char stage_help[] =
	"Usage: confine stage diff DIR [--json] [--patch]\n"
	"       confine stage apply DIR [--overwrite] [--json] [PATH...]\n"
	"       confine stage discard DIR\n"
	"\n"
	"A staged run (confine run|bash --stage DIR) writes nowhere but DIR.\n"
	"  diff      every change: added, modified, deleted, renamed, mode, symlink\n"
	"            (changes under .git listed apart); --patch prints a unified\n"
	"            diff of the text files that 'git apply' accepts\n"
	"  apply     write the changes (all, or those at or under each PATH) into\n"
	"            the real tree; a change onto what the host changed since the run\n"
	"            began (for a deleted directory: anything below it) is a conflict\n"
	"            and left alone unless --overwrite; exit 1 when some change was\n"
	"            not applied\n"
	"  discard   remove DIR\n";

static int fail(bool json, const confine_error *err) {
	return cli_report_failure(json, err->code, err->message);
}

/* `name` under `key`, exact (JSON's escapes); a name that is not UTF-8,
 * which JSON cannot hold, as valid UTF-8 (each invalid byte U+FFFD) with
 * its exact bytes git-quoted under `key`Quoted (doc/SPEC.md 21). */
static void set_name(json_t *o, const char *key, const char *name) {
	json_t *exact = json_string(name);
	if (exact) {
		json_object_set_new(o, key, exact);
		return;
	}
	json_object_set_new(o, key, cli_json_string_lossy(name, strlen(name)));
	{
		size_t need = cf_quote_path(NULL, 0, NULL, name);
		char *text = malloc(need + 1), quoted_key[32];
		snprintf(quoted_key, sizeof quoted_key, "%sQuoted", key);
		if (text) {
			cf_quote_path(text, need + 1, NULL, name);
			json_object_set_new(o, quoted_key, json_string(text));
			free(text);
		}
	}
}

static json_t *change_json(const confine_stage_change *c) {
	json_t *o = json_object();
	char type[2] = { c->type, 0 };
	set_name(o, "path", c->path);
	json_object_set_new(o, "change", json_string(confine_change_kind_name(c->change)));
	if (c->from)
		set_name(o, "from", c->from);
	json_object_set_new(o, "type", json_string(type));
	json_object_set_new(o, "size", json_integer((json_int_t)c->size));
	json_object_set_new(o, "mode", json_integer((json_int_t)c->mode));
	json_object_set_new(o, "binary", json_boolean(c->binary));
	return o;
}

/* `name` as git quotes a path (path-quote.h, red team round 5: a name
 * holding a newline or a terminal escape must not forge a line or reach
 * the terminal); the JSON output keeps names exact. */
static void put_name(FILE *to, const char *name) {
	size_t need = cf_quote_path(NULL, 0, NULL, name);
	char *text = malloc(need + 1);
	if (!text) {
		fputs("\"(out of memory)\"", to);
		return;
	}
	cf_quote_path(text, need + 1, NULL, name);
	fputs(text, to);
	free(text);
}

static int emit(json_t *value) {
	int r = json_dumpf(value, stdout, JSON_COMPACT) < 0 ? -1 : 0;
	json_decref(value);
	if (r == 0 && fputc('\n', stdout) == EOF)
		r = -1;
	return fflush(stdout) == 0 && r == 0 ? 0 : CLI_EXIT_FAILURE;
}

static int stage_diff(confine_stage *s, bool json, bool patch) {
	confine_error err = { 0 };
	confine_stage_change *ch = NULL;
	char *text = NULL;
	size_t n = 0, len = 0;
	int status = 0;
	if (confine_stage_changes(s, &ch, &n, &err) < 0 ||
	    (patch && confine_stage_patch(s, &text, &len, &err) < 0)) {
		confine_stage_changes_free(ch, n);
		return fail(json, &err);
	}
	if (json) {
		json_t *o = json_object(), *list = json_array(), *git = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(ch[i].git ? git : list, change_json(&ch[i]));
		json_object_set_new(o, "changes", list);
		json_object_set_new(o, "git", git);
		if (patch)
			json_object_set_new(o, "patch", json_stringn(text, len));
		status = emit(o);
	} else if (patch) {
		/* The patch alone: what `git apply` reads. */
		if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
			status = CLI_EXIT_FAILURE;
	} else {
		for (int pass = 0; pass < 2; pass++)
			for (size_t i = 0; i < n; i++) {
				if (ch[i].git != (pass == 1))
					continue;
				printf("%-8s ", confine_change_kind_name(ch[i].change));
				if (ch[i].from) {
					put_name(stdout, ch[i].from);
					fputs(" -> ", stdout);
				}
				put_name(stdout, ch[i].path);
				printf("%s\n", !ch[i].from && ch[i].binary ? " (binary)" : "");
			}
		status = fflush(stdout) == 0 ? 0 : CLI_EXIT_FAILURE;
	}
	free(text);
	confine_stage_changes_free(ch, n);
	return status;
}

static const char *outcome_name(confine_apply_outcome o) {
	switch (o) {
	case CONFINE_APPLY_APPLIED: return "applied";
	case CONFINE_APPLY_CONFLICT: return "conflict";
	case CONFINE_APPLY_REFUSED: return "refused";
	case CONFINE_APPLY_FAILED: return "failed";
	}
	return "failed";
}

static int stage_apply(confine_stage *s, const char *const *paths, bool overwrite, bool json) {
	confine_error err = { 0 };
	confine_apply_entry *e = NULL;
	size_t n = 0;
	int r = confine_stage_apply(s, paths, overwrite, &e, &n, &err), status;
	if (r < 0)
		return fail(json, &err);
	if (json) {
		json_t *o = json_object(), *list = json_array();
		for (size_t i = 0; i < n; i++) {
			json_t *item = json_object();
			set_name(item, "path", e[i].path);
			json_object_set_new(item, "outcome", json_string(outcome_name(e[i].outcome)));
			if (e[i].message)
				json_object_set_new(item, "message", json_string(e[i].message));
			json_array_append_new(list, item);
		}
		json_object_set_new(o, "results", list);
		status = emit(o);
	} else {
		for (size_t i = 0; i < n; i++) {
			FILE *to = e[i].outcome == CONFINE_APPLY_APPLIED ? stdout : stderr;
			fprintf(to, "%s ", outcome_name(e[i].outcome));
			put_name(to, e[i].path);
			fprintf(to, "%s%s\n", e[i].message ? ": " : "", e[i].message ? e[i].message : "");
		}
		status = fflush(stdout) == 0 ? 0 : CLI_EXIT_FAILURE;
	}
	confine_apply_entries_free(e, n);
	return status ? status : r == 1 ? STAGE_EXIT_PARTIAL : 0;
}

int cli_stage_main(int argc, char **argv) {
	const char *verb = argc > 0 ? argv[0] : NULL, *dir = NULL;
	const char **paths = calloc((size_t)argc + 1, sizeof *paths);
	bool json = false, patch = false, overwrite = false, options_end = false;
	size_t n_paths = 0;
	confine_stage *s = NULL;
	confine_error err = { 0 };
	int status;
	if (!paths)
		return cli_report_failure(false, CONFINE_E_SYSTEM, "out of memory");
	if (verb && (strcmp(verb, "--help") == 0 || strcmp(verb, "-h") == 0)) {
		free(paths);
		fputs(stage_help, stdout);
		return fflush(stdout) == 0 ? 0 : CLI_EXIT_FAILURE;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!options_end && strcmp(a, "--") == 0)
			options_end = true;
		else if (!options_end && strcmp(a, "--json") == 0)
			json = true;
		else if (!options_end && strcmp(a, "--patch") == 0 && strcmp(verb, "diff") == 0)
			patch = true;
		else if (!options_end && strcmp(a, "--overwrite") == 0 && strcmp(verb, "apply") == 0)
			overwrite = true;
		else if (!options_end && a[0] == '-' && a[1]) {
			char msg[512];
			snprintf(msg, sizeof msg, "unknown option for confine stage %s: %s", verb, a);
			free(paths);
			return cli_report_failure(json, CONFINE_E_INVALID_ARGUMENT, msg);
		} else if (!dir)
			dir = a;
		else
			paths[n_paths++] = a;
	}
	if (!verb || (strcmp(verb, "diff") != 0 && strcmp(verb, "apply") != 0 &&
	              strcmp(verb, "discard") != 0) ||
	    !dir || (n_paths && strcmp(verb, "apply") != 0)) {
		free(paths);
		fputs("confine: usage: confine stage diff|apply|discard DIR (see confine stage --help)\n",
		      stderr);
		return CLI_EXIT_FAILURE;
	}
	if (strcmp(verb, "discard") == 0) {
		free(paths);
		return confine_stage_discard(dir, &err) < 0 ? fail(json, &err) : 0;
	}
	if (confine_stage_open(dir, &s, &err) < 0) {
		free(paths);
		return fail(json, &err);
	}
	if (strcmp(verb, "diff") == 0)
		status = stage_diff(s, json, patch);
	else
		status = stage_apply(s, n_paths ? paths : NULL, overwrite, json);
	confine_stage_free(s);
	free(paths);
	return status;
}
