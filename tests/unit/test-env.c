/* SPDX-License-Identifier: MIT */
/* The env filter (issue 16): one table, each case an env policy, a mode,
 * the caller's environment and exactly the environment the command gets. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "confine.h"
#include "launcher-args.h"
#include "policy-internal.h"

#define MAX 24

typedef struct env_case {
	const char *name;
	confine_mode mode;
	confine_env_inherit inherit;
	bool no_default_excludes;
	const char *include[MAX];
	const char *exclude[MAX];
	const char *set[MAX];
	const char *envp[MAX];
	const char *want[MAX];
} env_case;

#define RO CONFINE_MODE_READ_ONLY
#define WW CONFINE_MODE_WORKSPACE_WRITE
#define DFA CONFINE_MODE_DANGER_FULL_ACCESS
#define NONE CONFINE_ENV_INHERIT_NONE

static const env_case cases[] = {
	{ .name = "default excludes drop secret-looking names, case-insensitively",
	  .mode = RO,
	  .envp = { "PATH=/bin", "OPENAI_API_KEY=sk", "github_token=t", "DB_Password=p",
	            "AWS_SECRET_ACCESS_KEY=s", "GOOGLE_APPLICATION_CREDENTIALS=/c", "HOME=/h" },
	  .want = { "PATH=/bin", "HOME=/h" } },
	{ .name = "the names the red team found passing are dropped; look-alikes are kept",
	  .mode = WW,
	  .envp = { "MYSQL_PWD=p", "GITHUB_PAT=g", "npm_auth=n", "DOCKER_AUTH_CONFIG=d",
	            "CI_JOB_JWT=j", "SENTRY_DSN=s", "SLACK_WEBHOOK_URL=w", "DATABASE_URL=u",
	            "PASSPHRASE=x", "MY_PASSWD=y", "SESSION_COOKIE=c", "GIT_AUTHOR_NAME=a",
	            "OLDPWD=/o", "LD_LIBRARY_PATH=/l", "SSH_AUTH_SOCK=/s", "XDG_SESSION_ID=1" },
	  .want = { "GIT_AUTHOR_NAME=a", "OLDPWD=/o", "LD_LIBRARY_PATH=/l", "SSH_AUTH_SOCK=/s",
	            "XDG_SESSION_ID=1" } },
	{ .name = "round 4 (R4-F5): session secrets, connection strings, _PASS, _PW; the login "
	          "session's names kept",
	  .mode = RO,
	  .envp = { "BW_SESSION=b", "OP_SESSION_my=o", "APP_SESSION_ID=a",
	            "AZURE_STORAGE_CONNECTION_STRING=c", "SMTP_PASS=p", "DB_PW=w",
	            "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/0/bus", "XDG_SESSION_ID=3",
	            "XDG_SESSION_TYPE=tty", "DESKTOP_SESSION=gnome", "GDMSESSION=gnome",
	            "SESSION_MANAGER=local/h:@/tmp/.ICE-unix/1", "PASSENGER=x", "COMPASS=y" },
	  .want = { "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/0/bus", "XDG_SESSION_ID=3",
	            "XDG_SESSION_TYPE=tty", "DESKTOP_SESSION=gnome", "GDMSESSION=gnome",
	            "SESSION_MANAGER=local/h:@/tmp/.ICE-unix/1", "PASSENGER=x", "COMPASS=y" } },
	{ .name = "a value holding a URL with a password is dropped under any name (R4-F5)",
	  .mode = WW,
	  .envp = { "PG_URL=postgres://app:hunter2@db:5432/x", "http_proxy=http://u:p@proxy:3128",
	            "BROKER=redis://:pw@cache", "ARGS=--db=mysql://root:r@h/d",
	            "REMOTE=ssh://git@github.com/a/b", "SITE=https://example.com/a:b@c",
	            "SERVER=http://[::1]:8080/", "NOTE=a://b:c", "ODD=1://u:p@h" },
	  .want = { "REMOTE=ssh://git@github.com/a/b", "SITE=https://example.com/a:b@c",
	            "SERVER=http://[::1]:8080/", "NOTE=a://b:c", "ODD=1://u:p@h" } },
	{ .name = "round 5 (R5-env): DBPASS, *AUTH*, *BEARER*, *BASIC*; git's author, XAUTHORITY, "
	          "SSH_AUTH_SOCK and words ending in pass kept",
	  .mode = WW,
	  .envp = { "DBPASS=p", "MYSQLPASS=q", "HTTP_AUTHORIZATION=Bearer x", "AUTH_HEADER=h",
	            "OAUTH2_CLIENT=c", "BEARER=b", "API_BEARER_VALUE=v", "BASIC_AUTH_USER=u",
	            "HTTPBASIC=h", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=e", "GIT_AUTHOR_DATE=d",
	            "XAUTHORITY=/home/u/.Xauthority", "SSH_AUTH_SOCK=/s", "COMPASS=y",
	            "PROXY_BYPASS=z", "PATH=/bin", "HOME=/h", "LANG=C.UTF-8", "TERM=xterm" },
	  .want = { "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=e", "GIT_AUTHOR_DATE=d",
	            "XAUTHORITY=/home/u/.Xauthority", "SSH_AUTH_SOCK=/s", "COMPASS=y",
	            "PROXY_BYPASS=z", "PATH=/bin", "HOME=/h", "LANG=C.UTF-8", "TERM=xterm" } },
	{ .name = "round 5 (R5-env): a user-only credential, a password holding / ? #; ssh's login "
	          "name, ports and @ in a path kept",
	  .mode = RO,
	  .envp = { "REPO=https://ghp_abc123@github.com/o/r.git", "MIRROR=git clone http://tok@h/x",
	            "U1=postgres://app:pa/ss@db/x", "U2=redis://:p?w@cache", "U3=amqp://u:p#w@mq",
	            "U4=mysql://root:p@ss@h/d", "REMOTE=ssh://git@github.com/a/b",
	            "REMOTE2=git+ssh://git@host/r", "REG=https://npm.pkg.github.com/@org",
	            "CDN=https://unpkg.com:443/react@18", "LOCAL=http://localhost:8080/a@b",
	            "EMPTY=https://@host/x", "TWO=see https://x.org/ and a@b" },
	  .want = { "REMOTE=ssh://git@github.com/a/b", "REMOTE2=git+ssh://git@host/r",
	            "REG=https://npm.pkg.github.com/@org", "CDN=https://unpkg.com:443/react@18",
	            "LOCAL=http://localhost:8080/a@b", "EMPTY=https://@host/x",
	            "TWO=see https://x.org/ and a@b" } },
	{ .name = "include wins over the value rule",
	  .mode = RO,
	  .include = { "PG_URL" },
	  .envp = { "PG_URL=postgres://app:hunter2@db/x", "OTHER_URL=postgres://a:b@db/x" },
	  .want = { "PG_URL=postgres://app:hunter2@db/x" } },
	{ .name = "the same under workspace-write",
	  .mode = WW,
	  .envp = { "KEYBOARD=us", "TERM=xterm" },
	  .want = { "TERM=xterm" } },
	{ .name = "danger-full-access passes everything unchanged",
	  .mode = DFA, .inherit = NONE,
	  .exclude = { "PATH" },
	  .set = { "X=1" },
	  .envp = { "PATH=/bin", "OPENAI_API_KEY=sk", "odd-entry" },
	  .want = { "PATH=/bin", "OPENAI_API_KEY=sk", "odd-entry" } },
	{ .name = "include wins over the default excludes",
	  .mode = RO,
	  .include = { "GITHUB_TOKEN" },
	  .envp = { "GITHUB_TOKEN=g", "NPM_TOKEN=n" },
	  .want = { "GITHUB_TOKEN=g" } },
	{ .name = "include wins over an explicit exclude",
	  .mode = RO,
	  .include = { "LC_ALL" },
	  .exclude = { "LC_*" },
	  .envp = { "LC_ALL=C", "LC_CTYPE=C", "LANG=C" },
	  .want = { "LC_ALL=C", "LANG=C" } },
	{ .name = "default excludes off",
	  .mode = RO, .no_default_excludes = true,
	  .envp = { "API_KEY=k" },
	  .want = { "API_KEY=k" } },
	{ .name = "inherit none keeps only includes, and set",
	  .mode = WW, .inherit = NONE,
	  .include = { "PATH", "h?me" },
	  .set = { "CI=true" },
	  .envp = { "PATH=/bin", "HOME=/h", "USER=u", "SHELL=/bin/sh" },
	  .want = { "PATH=/bin", "HOME=/h", "CI=true" } },
	{ .name = "set replaces an inherited value and adds new names",
	  .mode = RO,
	  .set = { "HOME=/sandbox", "NEW=", "API_KEY=mine" },
	  .envp = { "HOME=/h", "PATH=/bin" },
	  .want = { "PATH=/bin", "HOME=/sandbox", "NEW=", "API_KEY=mine" } },
	{ .name = "the last set entry for a name wins",
	  .mode = RO,
	  .set = { "A=1", "A=2" },
	  .envp = { NULL },
	  .want = { "A=2" } },
	{ .name = "round 5 (R5-F4): secrets in values under any name",
	  .mode = WW,
	  .envp = { "http_proxy=user:pw@proxy:3128", "PG=postgresql://db/app?user=u&password=p",
	            "J=jdbc:postgresql://db/app?password=p", "SAS=https://a.blob/c?sv=1&sig=abc",
	            "U=https://h/x?token=t", "A=https://h/x?access_token=t",
	            "ADO=Server=db;Database=app;Password=p", "ODBC=Server=db; Pwd = p;",
	            "JAVA_TOOL_OPTIONS=-Xmx1g -Djavax.net.ssl.keyStorePassword=p",
	            "K=-----BEGIN RSA PRIVATE KEY-----\nMII\n-----END RSA PRIVATE KEY-----",
	            "GCP={\"type\":\"service_account\",\"private_key\":\"x\"}", "PATH=/bin",
	            "HOME=/h", "LANG=C.UTF-8", "NO_PROXY=localhost,127.0.0.1",
	            "REG=https://registry.npmjs.org/", "PKG=host:8080/pkg@1.0",
	            "EMAIL=me@example.com", "Q=https://h/s?q=token&page=2", "E=https://h/?token=",
	            "JOPTS=-Dfile.encoding=UTF-8", "PS=\\u@\\h:\\w", "REPO=git@github.com:o/r" },
	  .want = { "PATH=/bin", "HOME=/h", "LANG=C.UTF-8", "NO_PROXY=localhost,127.0.0.1",
	            "REG=https://registry.npmjs.org/", "PKG=host:8080/pkg@1.0",
	            "EMAIL=me@example.com", "Q=https://h/s?q=token&page=2", "E=https://h/?token=",
	            "JOPTS=-Dfile.encoding=UTF-8", "PS=\\u@\\h:\\w", "REPO=git@github.com:o/r" } },
	{ .name = "round 5 (R5-F4): Bundler's host credentials; a keep explains one word only",
	  .mode = RO,
	  .envp = { "BUNDLE_GEMS__EXAMPLE__COM=u:s", "BUNDLE_GITHUB__COM=u:s", "BUNDLE_PATH=/b",
	            "API_KEY_BYPASS=k", "ADMIN_PASSWORD_COMPASS=p", "XDG_SESSION_TOKEN=t",
	            "XDG_SESSION_TYPE=tty", "PROXY_BYPASS=z", "COMPASS=y", "GIT_AUTHOR_NAME=a",
	            "XAUTHORITY=/x", "SSH_AUTH_SOCK=/s" },
	  .want = { "BUNDLE_PATH=/b", "XDG_SESSION_TYPE=tty", "PROXY_BYPASS=z", "COMPASS=y",
	            "GIT_AUTHOR_NAME=a", "XAUTHORITY=/x", "SSH_AUTH_SOCK=/s" } },
	{ .name = "round 5 (R5-F4): a git config pair goes whole, GIT_CONFIG_COUNT with it",
	  .mode = WW,
	  .envp = { "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.extraHeader",
	            "GIT_CONFIG_VALUE_0=Authorization: Bearer t", "GIT_CONFIG_VALUE_10=v",
	            "GIT_CONFIG_VALUE_1=w", "PATH=/bin" },
	  .want = { "GIT_CONFIG_VALUE_10=v", "GIT_CONFIG_VALUE_1=w", "PATH=/bin" } },
	{ .name = "round 5 (R5-F4): a git config value with credentials takes its key along",
	  .mode = WW,
	  .include = { "GIT_CONFIG_KEY_*", "GIT_CONFIG_COUNT" },
	  .envp = { "GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=url.x.insteadOf",
	            "GIT_CONFIG_VALUE_0=https://u:p@h/", "GIT_CONFIG_KEY_1=core.pager",
	            "GIT_CONFIG_VALUE_1=less" },
	  .want = { "GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=url.x.insteadOf",
	            "GIT_CONFIG_KEY_1=core.pager", "GIT_CONFIG_VALUE_1=less" } },
	{ .name = "entries without a name are dropped",
	  .mode = RO,
	  .envp = { "noequals", "=value", "OK=1" },
	  .want = { "OK=1" } },
	{ .name = "patterns match whole names",
	  .mode = RO,
	  .exclude = { "PATH", "*_DIR", "X?" },
	  .envp = { "PATH=/bin", "MANPATH=/m", "CACHE_DIR=/c", "DIRECTORY=/d", "XY=1", "XYZ=1" },
	  .want = { "MANPATH=/m", "DIRECTORY=/d", "XYZ=1" } },
	{ .name = "empty environment",
	  .mode = RO,
	  .envp = { NULL },
	  .want = { NULL } },
};

static char **list_of(const char *const *items) {
	size_t n = 0;
	char **out;
	while (n < MAX && items[n])
		n++;
	if (n == 0)
		return NULL;
	out = calloc(n + 1, sizeof *out);
	assert_non_null(out);
	for (size_t i = 0; i < n; i++)
		out[i] = strdup(items[i]);
	return out;
}

static void test_env_table(void **state) {
	(void)state;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		const env_case *k = &cases[c];
		confine_env_policy env = {
			.inherit = k->inherit,
			.include = list_of(k->include),
			.exclude = list_of(k->exclude),
			.set = list_of(k->set),
			.default_excludes = !k->no_default_excludes,
		};
		char **got = NULL;
		size_t i;
		if (confine_env_filter(k->envp, &env, k->mode, &got) != 0)
			fail_msg("%s: filter failed", k->name);
		for (i = 0; k->want[i]; i++)
			if (!got[i] || strcmp(got[i], k->want[i]) != 0)
				fail_msg("%s: entry %zu is \"%s\", expected \"%s\"", k->name, i,
				         got[i] ? got[i] : "(end)", k->want[i]);
		if (got[i])
			fail_msg("%s: unexpected entry \"%s\"", k->name, got[i]);
		confine_strv_free(got);
		confine_strv_free(env.include);
		confine_strv_free(env.exclude);
		confine_strv_free(env.set);
	}
}

static void test_null_env_means_the_defaults(void **state) {
	static const char *const envp[] = { "PATH=/bin", "MY_SECRET=x", NULL };
	char **got = NULL;
	(void)state;
	assert_int_equal(confine_env_filter(envp, NULL, CONFINE_MODE_READ_ONLY, &got), 0);
	assert_string_equal(got[0], "PATH=/bin");
	assert_null(got[1]);
	confine_strv_free(got);
	assert_int_equal(confine_env_filter(NULL, NULL, CONFINE_MODE_READ_ONLY, &got), 0);
	assert_null(got[0]);
	confine_strv_free(got);
}

static void test_bad_input(void **state) {
	static const char *const envp[] = { "A=1", NULL };
	char *bad[] = { (char *)"A=B", NULL };
	confine_env_policy env = { .include = bad };
	char **got = (char **)0x1;
	(void)state;
	assert_int_equal(confine_env_filter(envp, &env, CONFINE_MODE_READ_ONLY, &got), -EINVAL);
	assert_int_equal(confine_env_filter(envp, NULL, (confine_mode)9, &got), -EINVAL);
	assert_int_equal(confine_env_filter(envp, NULL, CONFINE_MODE_READ_ONLY, NULL), -EINVAL);
	assert_ptr_equal(got, (char **)0x1);
}

static void test_default_excludes_are_published(void **state) {
	const char *const *d = confine_env_default_excludes();
	(void)state;
	assert_string_equal(d[0], "*KEY*");
	assert_string_equal(d[1], "*SECRET*");
	assert_string_equal(d[2], "*TOKEN*");
	assert_string_equal(d[3], "*PASSWORD*");
	assert_string_equal(d[4], "*CREDENTIAL*");
	assert_string_equal(d[5], "*PASSWD*");
	assert_string_equal(d[6], "*PASSPHRASE*");
	assert_string_equal(d[7], "*_PWD");
	assert_string_equal(d[8], "*_PAT");
	assert_string_equal(d[9], "*_AUTH");
	assert_string_equal(d[10], "*AUTH_CONFIG*");
	assert_string_equal(d[11], "*JWT*");
	assert_string_equal(d[12], "*COOKIE*");
	assert_string_equal(d[13], "*WEBHOOK*");
	assert_string_equal(d[14], "*DSN*");
	assert_string_equal(d[15], "*DATABASE_URL*");
	assert_string_equal(d[16], "*SESSION*");
	assert_string_equal(d[17], "*CONNECTION_STRING*");
	assert_string_equal(d[18], "*_PASS");
	assert_string_equal(d[19], "*_PW");
	assert_string_equal(d[20], "*PASS");
	assert_string_equal(d[21], "*AUTH*");
	assert_string_equal(d[22], "*BEARER*");
	assert_string_equal(d[23], "*BASIC*");
	assert_string_equal(d[24], "BUNDLE_*__*");
	assert_null(d[25]);
}

static void test_glob(void **state) {
	static const struct {
		const char *pattern, *name;
		bool match;
	} cases_glob[] = {
		{ "*", "", true },     { "*", "ANY", true },  { "?", "", false },
		{ "a*b*c", "AxxBxxC", true }, { "a*b*c", "AxxBxx", false },
		{ "**KEY**", "KEY", true }, { "K?Y", "KEY", true }, { "K?Y", "KY", false },
		{ "*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases_glob / sizeof cases_glob[0]; i++)
		if (cf_env_pattern_match(cases_glob[i].pattern, cases_glob[i].name,
		                         strlen(cases_glob[i].name)) != cases_glob[i].match)
			fail_msg("%s vs %s", cases_glob[i].pattern, cases_glob[i].name);
}

/* An env.set entry past execve's bound is refused in the bound's text,
 * not left to fail the spawn (red team F6); one at it is taken. */
static void test_set_entry_bound(void **state) {
	size_t at = LAUNCHER_ENV_ENTRY_LENGTH_MAX;
	char *entry = malloc(at + 2);
	confine_policy *p = NULL;
	confine_error err;
	(void)state;
	assert_non_null(entry);
	memcpy(entry, "BIG=", 4);
	memset(entry + 4, 'x', at - 4);
	entry[at] = '\0';
	assert_int_equal(confine_policy_new(CONFINE_MODE_DANGER_FULL_ACCESS, "/", &p, NULL), 0);
	assert_int_equal(confine_policy_add_env_set(p, entry, NULL), 0);
	entry[at] = 'x';
	entry[at + 1] = '\0';
	assert_true(confine_policy_add_env_set(p, entry, &err) < 0);
	assert_int_equal(err.code, CONFINE_E_INVALID_POLICY);
	assert_non_null(strstr(err.message, "is 131072 bytes long, more than the 131071 an "
	                                    "environment entry may hold"));
	confine_policy_free(p);
	free(entry);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_entry_bound),
		cmocka_unit_test(test_env_table),
		cmocka_unit_test(test_null_env_means_the_defaults),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_default_excludes_are_published),
		cmocka_unit_test(test_glob),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
