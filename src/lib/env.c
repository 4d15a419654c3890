/* SPDX-License-Identifier: MIT */
/*
 * The command's environment (issue 16): a pure filter from the caller's
 * envp and the env policy to the envp a confined command starts with. By
 * default confined modes drop names that look like secrets (API keys,
 * tokens): a model-driven command printing `env` must not hand them to its
 * transcript. danger-full-access passes everything unchanged.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "launcher-args.h"
#include "policy-internal.h"
#include "util.h"

#define STAGE "policy"
#define PATTERN_MAX 255

/* doc/SPEC.md 15, "Environment": the first five the origin's; the rest
 * names outside red teams found passed (round 3: MYSQL_PWD, GITHUB_PAT,
 * NPM_AUTH, DOCKER_AUTH_CONFIG, CI_JOB_JWT, SENTRY_DSN, SLACK_WEBHOOK_URL,
 * DATABASE_URL with its password, ...; round 4, R4-F5: BW_SESSION,
 * OP_SESSION_*, AZURE_STORAGE_CONNECTION_STRING, SMTP_PASS, DB_PW; round 5,
 * R5-env: DBPASS, *AUTH* (HTTP_AUTHORIZATION, AUTH_HEADER), *BEARER*,
 * *BASIC*; R5-F4: BUNDLE_*__*, Bundler's per-host credentials
 * BUNDLE_GEMS__EXAMPLE__COM). *AUTH* spares git's author names, XAUTHORITY
 * and SSH_AUTH_SOCK by name (default_keeps). */
static const char *const default_excludes[] = {
	"*KEY*",      "*SECRET*",     "*TOKEN*", "*PASSWORD*", "*CREDENTIAL*",  "*PASSWD*",
	"*PASSPHRASE*", "*_PWD",      "*_PAT",   "*_AUTH",     "*AUTH_CONFIG*", "*JWT*",
	"*COOKIE*",   "*WEBHOOK*",    "*DSN*",   "*DATABASE_URL*", "*SESSION*",
	"*CONNECTION_STRING*", "*_PASS", "*_PW", "*PASS", "*AUTH*", "*BEARER*", "*BASIC*",
	"BUNDLE_*__*", NULL,
};

/* Names *SESSION* matches that name the login session, not a credential:
 * D-Bus's bus address (authenticated by uid), logind's session
 * (XDG_SESSION_ID, _TYPE, _CLASS, _DESKTOP), the desktop's name and X11's
 * session manager address. Then the names *AUTH* and *PASS match that
 * hold no secret: git's author (a commit needs it), XAUTHORITY and
 * SSH_AUTH_SOCK (paths: the file and the socket are the filesystem
 * policy's to keep, doc/SPEC.md 15), and words ending in "pass". Each
 * keep explains one exclude only (R5-F4): a name another exclude matches
 * too (API_KEY_BYPASS, ADMIN_PASSWORD_COMPASS, XDG_SESSION_TOKEN) is
 * dropped. An exclude the caller gives drops them all. */
static const struct {
	const char *keep, *explains;
} default_keeps[] = {
	{ "DBUS_SESSION_BUS_ADDRESS", "*SESSION*" }, { "XDG_SESSION_*", "*SESSION*" },
	{ "DESKTOP_SESSION", "*SESSION*" },          { "GDMSESSION", "*SESSION*" },
	{ "SESSION_MANAGER", "*SESSION*" },          { "GIT_AUTHOR_NAME", "*AUTH*" },
	{ "GIT_AUTHOR_EMAIL", "*AUTH*" },            { "GIT_AUTHOR_DATE", "*AUTH*" },
	{ "XAUTHORITY", "*AUTH*" },                  { "SSH_AUTH_SOCK", "*AUTH*" },
	{ "*COMPASS", "*PASS" },                     { "*BYPASS", "*PASS" },
};

/* Whether a default exclude drops name: one matches it that no keep
 * matching the name explains. */
static bool default_excluded(const char *name, size_t len) {
	for (size_t i = 0; default_excludes[i]; i++) {
		bool explained = false;
		if (!cf_env_pattern_match(default_excludes[i], name, len))
			continue;
		for (size_t k = 0; k < sizeof default_keeps / sizeof default_keeps[0]; k++)
			if (strcmp(default_keeps[k].explains, default_excludes[i]) == 0 &&
			    cf_env_pattern_match(default_keeps[k].keep, name, len))
				explained = true;
		if (!explained)
			return true;
	}
	return false;
}

const char *const *confine_env_default_excludes(void) {
	return default_excludes;
}

static char lower(char c) {
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* Iterative glob with one backtrack point: linear in practice, and no
 * recursion a hostile pattern could deepen. */
bool cf_env_pattern_match(const char *pattern, const char *name, size_t name_len) {
	const char *p = pattern;
	size_t i = 0;
	const char *star = NULL;
	size_t star_i = 0;
	while (i < name_len) {
		if (*p == '*') {
			star = p++;
			star_i = i;
		} else if (*p && (*p == '?' || lower(*p) == lower(name[i]))) {
			p++;
			i++;
		} else if (star) {
			p = star + 1;
			i = ++star_i;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

int cf_env_check_pattern(const char *what, const char *pattern, bool allow_wildcards,
                         confine_error *err) {
	const char *word = allow_wildcards ? "pattern" : "name";
	size_t len = strlen(pattern);
	if (len == 0)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
		                    "%s %s \"\" is empty", what, word);
	if (len > PATTERN_MAX)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
		                    "%s %s \"%.40s...\" is longer than %d characters", what, word,
		                    pattern, PATTERN_MAX);
	for (const char *c = pattern; *c; c++) {
		unsigned char u = (unsigned char)*c;
		if (u <= ' ' || u >= 0x7f || u == '=')
			return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
			                    "%s %s \"%s\" is malformed: a variable name %s is "
			                    "printable ASCII without spaces or '='",
			                    what, word, pattern, word);
		/* Only `*` and `?` are wildcards: a bracket, brace or backslash
		 * would be read literally here and as glob syntax by whoever wrote
		 * it, so the pattern would not mean what it says. */
		if (allow_wildcards && strchr("[]{}\\", u))
			return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
			                    "%s pattern \"%s\" holds \"%c\": a pattern's only wildcards "
			                    "are '*' and '?'",
			                    what, pattern, u);
		if (!allow_wildcards && (u == '*' || u == '?'))
			return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
			                    "%s name \"%s\" is malformed: a name has no '*' or '?'", what,
			                    pattern);
	}
	return 0;
}

int cf_env_check_assignment(const char *assignment, confine_error *err) {
	const char *eq = strchr(assignment, '=');
	char name[PATTERN_MAX + 1];
	size_t len;
	/* the table's bound (env.set's length): past it execve would refuse
	 * the entry, so it is refused here in one text (red team F6) */
	if (strlen(assignment) > LAUNCHER_ENV_ENTRY_LENGTH_MAX)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
		                    "env.set entry \"%.64s...\" is %zu bytes long, more than the %d an "
		                    "environment entry may hold",
		                    assignment, strlen(assignment), LAUNCHER_ENV_ENTRY_LENGTH_MAX);
	if (!eq)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
		                    "env.set entry \"%s\" is malformed: expected NAME=VALUE",
		                    assignment);
	len = (size_t)(eq - assignment);
	if (len == 0 || len > PATTERN_MAX)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0,
		                    "env.set entry \"%s\" is malformed: the name before '=' must be 1 "
		                    "to %d characters",
		                    assignment, PATTERN_MAX);
	memcpy(name, assignment, len);
	name[len] = '\0';
	return cf_env_check_pattern("env.set", name, false, err);
}

static bool is_scheme_char(char c) {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '+' || c == '-' || c == '.';
}

/* The schemes whose user part is a login name, not a secret
 * (`ssh://git@host`, `git+ssh://git@host`). */
static bool login_scheme(const char *s, const char *end) {
	static const char *const names[] = { "ssh", "git+ssh", "ssh+git", "sftp", NULL };
	for (size_t i = 0; names[i]; i++) {
		size_t n = strlen(names[i]);
		if ((size_t)(end - s) == n && strncasecmp(s, names[i], n) == 0)
			return true;
	}
	return false;
}

/* Whether `value` holds a URL with credentials in it (doc/SPEC.md 15,
 * "Environment"; R4-F5: DATABASE_URL under any name, a proxy's
 * credentials; R5-env: `https://TOKEN@host`, a password holding `/?#`).
 * The scheme is a letter then letters, digits, + - .; the URL runs to the
 * first white space. Credentials: an '@' before the first '/', '?' or '#'
 * after "://" (a user with or without a password; on a login scheme, ssh,
 * only with a password), or an '@' after it when a ':' before it is
 * followed by something other than a port's digits (`user:pa/ss@host`,
 * not `host:8080/pkg@1.0`). */
bool cf_env_value_has_credentials(const char *value) {
	for (const char *at = strstr(value, "://"); at; at = strstr(at + 1, "://")) {
		const char *s = at, *auth = at + 3, *delim, *c, *colon = NULL;
		size_t url_len;
		while (s > value && is_scheme_char(s[-1]))
			s--;
		if (s == at || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
			continue;
		url_len = strcspn(auth, " \t\n\r\f\v");
		delim = auth + strcspn(auth, "/?#");
		if (delim > auth + url_len)
			delim = auth + url_len;
		for (c = auth; c < delim && *c != '@'; c++)
			if (*c == ':')
				colon = c;
		if (c < delim) { /* an '@' in the authority */
			if (c > auth && (colon || !login_scheme(s, at)))
				return true;
			continue;
		}
		if (!colon || !memchr(delim, '@', (size_t)(auth + url_len - delim)))
			continue;
		for (c = colon + 1; c < delim && *c >= '0' && *c <= '9'; c++)
			;
		if (c < delim || c == colon + 1)
			return true; /* not a port: a password running past '/', '?' or '#' */
	}
	return false;
}

static bool matches_any(char *const *patterns, const char *name, size_t len) {
	for (size_t i = 0; patterns && patterns[i]; i++)
		if (cf_env_pattern_match(patterns[i], name, len))
			return true;
	return false;
}

static bool keep_variable(const confine_env_policy *env, const char *name, size_t len) {
	bool included = matches_any(env->include, name, len);
	if (env->inherit == CONFINE_ENV_INHERIT_NONE && !included)
		return false;
	if (included)
		return true; /* include wins */
	if (matches_any(env->exclude, name, len))
		return false;
	if (env->default_excludes && default_excluded(name, len))
		return false;
	if (env->default_excludes && cf_env_value_has_secret(name + len + 1))
		return false;
	return true;
}

/* The n of "GIT_CONFIG_KEY_n" (is_key) or "GIT_CONFIG_VALUE_n", or NULL;
 * *digits its length. */
static const char *git_config_index(const char *entry, bool *is_key, size_t *digits) {
	const char *n;
	if (strncmp(entry, "GIT_CONFIG_KEY_", 15) == 0)
		n = entry + 15, *is_key = true;
	else if (strncmp(entry, "GIT_CONFIG_VALUE_", 17) == 0)
		n = entry + 17, *is_key = false;
	else
		return NULL;
	*digits = strspn(n, "0123456789");
	return *digits > 0 && n[*digits] == '=' ? n : NULL;
}

/* R5-F4: git reads GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n as one setting
 * (`http.extraHeader` and its bearer): when either is dropped the other
 * is too, and GIT_CONFIG_COUNT with them (git stops at a missing pair),
 * unless an include names it. */
static void drop_git_config_pairs(const char *const *envp, const confine_env_policy *env,
                                  bool *keep) {
	bool dropped_any = false;
	for (size_t i = 0; envp[i]; i++) {
		bool is_key, other_key;
		size_t d, e;
		const char *n = git_config_index(envp[i], &is_key, &d);
		if (!n || keep[i])
			continue;
		dropped_any = true;
		for (size_t j = 0; envp[j]; j++) {
			const char *m = git_config_index(envp[j], &other_key, &e);
			if (m && other_key != is_key && e == d && memcmp(m, n, d) == 0 &&
			    !matches_any(env->include, envp[j], strcspn(envp[j], "=")))
				keep[j] = false;
		}
	}
	for (size_t i = 0; dropped_any && envp[i]; i++)
		if (strncmp(envp[i], "GIT_CONFIG_COUNT=", 17) == 0 &&
		    !matches_any(env->include, envp[i], 16))
			keep[i] = false;
}

/* Whether envp entry `entry` sets the variable of assignment `set`. */
static bool same_name(const char *entry, const char *set) {
	size_t n = (size_t)(strchr(set, '=') - set) + 1;
	return strncmp(entry, set, n) == 0;
}

int confine_env_filter(const char *const *envp, const confine_env_policy *env,
                       confine_mode mode, char ***ret) {
	static const confine_env_policy defaults = { .default_excludes = true };
	char **out = NULL;
	bool *keep = NULL;
	size_t n = 0, cap;

	if (!ret || !confine_mode_name(mode))
		return -EINVAL;
	if (!env)
		env = &defaults;
	if (mode == CONFINE_MODE_DANGER_FULL_ACCESS) {
		out = cf_strv_copy(envp);
		if (!out)
			return -ENOMEM;
		*ret = out;
		return 0;
	}
	for (size_t i = 0; env->include && env->include[i]; i++)
		if (cf_env_check_pattern("env.include", env->include[i], true, NULL) < 0)
			return -EINVAL;
	for (size_t i = 0; env->exclude && env->exclude[i]; i++)
		if (cf_env_check_pattern("env.exclude", env->exclude[i], true, NULL) < 0)
			return -EINVAL;
	for (size_t i = 0; env->set && env->set[i]; i++)
		if (cf_env_check_assignment(env->set[i], NULL) < 0)
			return -EINVAL;

	cap = cf_strv_length(envp) + cf_strv_length((const char *const *)env->set) + 1;
	out = calloc(cap, sizeof *out);
	keep = calloc(cap, sizeof *keep);
	if (!out || !keep)
		goto oom;
	for (size_t i = 0; envp && envp[i]; i++) {
		const char *eq = strchr(envp[i], '=');
		/* not NAME=VALUE: nothing a program could look up */
		keep[i] = eq && eq != envp[i] && keep_variable(env, envp[i], (size_t)(eq - envp[i]));
	}
	if (envp)
		drop_git_config_pairs(envp, env, keep);
	for (size_t i = 0; envp && envp[i]; i++) {
		bool overridden = false;
		if (!keep[i])
			continue;
		for (size_t j = 0; env->set && env->set[j] && !overridden; j++)
			overridden = same_name(envp[i], env->set[j]);
		if (overridden)
			continue; /* `set` replaces it below */
		if (!(out[n++] = strdup(envp[i])))
			goto oom;
	}
	for (size_t j = 0; env->set && env->set[j]; j++) {
		bool later = false;
		/* The last entry for a name wins (a list built by hand may repeat). */
		for (size_t k = j + 1; env->set[k] && !later; k++)
			later = same_name(env->set[k], env->set[j]);
		if (later)
			continue;
		if (!(out[n++] = strdup(env->set[j])))
			goto oom;
	}
	out[n] = NULL;
	free(keep);
	*ret = out;
	return 0;
oom:
	free(keep);
	confine_strv_free(out);
	return -ENOMEM;
}
