/* SPDX-License-Identifier: MIT */
/*
 * The env filter's value rules (doc/SPEC.md 15, "Environment"; R4-F5,
 * R5-env, R5-F4): a variable whose value holds a secret is dropped under
 * any name, because a secret travels in values no name pattern sees
 * (`http_proxy=user:pw@proxy:3128`, `PG=...?password=...`, an ADO
 * connection string, `JAVA_TOOL_OPTIONS=-Dx.password=...`, a PEM key).
 */
#include <string.h>
#include <strings.h>

#include "policy-internal.h"

static bool in_list(const char *const *list, const char *s, size_t len) {
	for (size_t i = 0; list[i]; i++)
		if (strlen(list[i]) == len && strncasecmp(list[i], s, len) == 0)
			return true;
	return false;
}

/* `user:pass@host` at the start (a proxy given without its scheme): a
 * ':' with something after it before an '@' with something after it, and
 * none of white space / ? # [ ] \ ; , before the '@' (so `host:8080/pkg@1.0`,
 * `git@host:repo` and a PS1 with `\u@\h` are not credentials). */
static bool leading_userinfo(const char *v) {
	size_t n = strcspn(v, " \t\n\r\f\v/?#[]\\;,@");
	const char *colon = memchr(v, ':', n);
	return v[n] == '@' && v[n + 1] != '\0' && colon && colon + 1 < v + n;
}

/* A query key naming a secret with a value: `?password=x`, `&sig=x`. */
static bool secret_query(const char *v) {
	static const char *const keys[] = {
		"password", "passwd", "pwd", "pass", "secret", "client_secret", "token",
		"access_token", "refresh_token", "id_token", "auth_token", "api_key",
		"apikey", "key", "sig", "signature", "x-amz-signature", "x-amz-security-token",
		"x-goog-signature", "sharedaccesssignature", NULL,
	};
	for (const char *c = v; (c = strpbrk(c, "?&")); c++) {
		size_t k = strcspn(c + 1, "=&#? \t\n");
		if (c[1 + k] == '=' && in_list(keys, c + 1, k) &&
		    !strchr("&#; \t\n", c[2 + k]))
			return true;
	}
	return false;
}

/* A `;`-separated segment `Password=x` (ADO, ODBC, Azure's connection
 * strings: `Pwd=`, `AccountKey=`, `SharedAccessKey=`), spaces allowed
 * around the key. */
static bool secret_segment(const char *v) {
	static const char *const keys[] = {
		"password", "pwd", "accountkey", "sharedaccesskey", "sharedaccesssignature", NULL,
	};
	for (const char *c = v; c; c = strchr(c, ';')) {
		const char *k, *eq;
		size_t len;
		if (*c == ';')
			c++;
		k = c + strspn(c, " \t");
		eq = k + strcspn(k, "=;");
		if (*eq != '=')
			continue;
		for (len = (size_t)(eq - k); len > 0 && (k[len - 1] == ' ' || k[len - 1] == '\t');)
			len--;
		eq++;
		eq += strspn(eq, " \t");
		if (in_list(keys, k, len) && *eq != '\0' && *eq != ';')
			return true;
	}
	return false;
}

/* A Java system property `-Dname=value` (at the start or after white
 * space or a quote) whose name holds a secret word. */
static bool secret_java_property(const char *v) {
	static const char *const words[] = { "password", "passwd", "passphrase", "secret",
		                             "token",    "credential", "apikey", "api_key",
		                             "api.key",  NULL };
	for (const char *c = v; (c = strstr(c, "-D")); c += 2) {
		const char *name = c + 2;
		size_t len = strcspn(name, "= \t\n\"'");
		if (c != v && !strchr(" \t\n\"'", c[-1]))
			continue;
		if (name[len] != '=' || name[len + 1] == '\0' || strchr(" \t\n", name[len + 1]))
			continue;
		for (size_t i = 0; i < len; i++)
			for (size_t w = 0; words[w]; w++)
				if (strncasecmp(name + i, words[w], strlen(words[w])) == 0 &&
				    i + strlen(words[w]) <= len)
					return true;
	}
	return false;
}

/* A PEM private key (`-----BEGIN RSA PRIVATE KEY-----`, OPENSSH, PGP's
 * `PRIVATE KEY BLOCK`) or a cloud credential file's JSON. */
static bool secret_document(const char *v) {
	const char *begin = strstr(v, "-----BEGIN ");
	return (begin && strstr(begin, "PRIVATE KEY")) || strstr(v, "\"private_key\"") ||
	       strstr(v, "\"client_secret\"") || strstr(v, "\"refresh_token\"");
}

bool cf_env_value_has_secret(const char *value) {
	return cf_env_value_has_credentials(value) || leading_userinfo(value) ||
	       secret_query(value) || secret_segment(value) || secret_java_property(value) ||
	       secret_document(value);
}
