/* SPDX-License-Identifier: MIT */
/*
 * The policy beyond mode and root (issue 16) and roots that are not places
 * (issue 14, N8): defaults, the appenders (copy, canonicalize, refuse with
 * the key and the value named), the whole-policy validation, deep copy.
 *
 *   BASE/ws/               the workspace root
 *   BASE/ws/.git/          (hooks/, config)
 *   BASE/cache/            an extra writable root
 *   BASE/alias -> cache    a symlink to it
 *   BASE/file              a regular file
 *   BASE/secret/           a directory to deny
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/vfs.h>
#endif

#include <cmocka.h>

#include "config.h"
#include "confine.h"
#include "launcher-args.h"
#include "fs-place.h"

static char base[PATH_MAX];

static char *at(const char *suffix) {
	static char buf[8][PATH_MAX + 64];
	static unsigned next;
	char *p = buf[next++ % 8];
	snprintf(p, sizeof buf[0], "%s%s", base, suffix);
	return p;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state) {
	char tmpl[] = "/tmp/confine-test-policy-options-XXXXXX";
	FILE *f;
	(void)state;
	if (!mkdtemp(tmpl) || !realpath(tmpl, base))
		return -1;
	if (mkdir(at("/ws"), 0755) < 0 || mkdir(at("/ws/.git"), 0755) < 0 ||
	    mkdir(at("/ws/.git/hooks"), 0755) < 0 || mkdir(at("/cache"), 0755) < 0 ||
	    mkdir(at("/secret"), 0755) < 0 || symlink(at("/cache"), at("/alias")) < 0)
		return -1;
	if (!(f = fopen(at("/file"), "w")))
		return -1;
	fclose(f);
	return 0;
}

static int teardown(void **state) {
	(void)state;
	return nftw(base, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static confine_policy *new_policy(confine_mode mode) {
	confine_policy *p = NULL;
	confine_error err = { 0 };
	if (confine_policy_new(mode, at("/ws"), &p, &err) < 0)
		fail_msg("policy: %s", err.message);
	return p;
}

/* `r` failed with INVALID_POLICY and a message holding every part. (A
 * missing path is -ENOENT, a file -ENOTDIR, as for the workspace root.) */
static void expect_refusal(int r, const confine_error *err, const char *part1, const char *part2) {
	assert_true(r < 0);
	assert_int_equal(err->code, CONFINE_E_INVALID_POLICY);
	if (!strstr(err->message, part1) || (part2 && !strstr(err->message, part2)))
		fail_msg("message \"%s\" lacks \"%s\"%s%s", err->message, part1, part2 ? " or " : "",
		         part2 ? part2 : "");
}

static void test_defaults(void **state) {
	confine_policy *p = new_policy(CONFINE_MODE_WORKSPACE_WRITE);
	(void)state;
	assert_true(p->default_protections);
	assert_true(p->env.default_excludes);
	assert_true(p->private_temp); /* read-only gets a private temp area */
	assert_false(p->require_full);
	assert_int_equal(p->network, CONFINE_NETWORK_ON);
	assert_int_equal(p->env.inherit, CONFINE_ENV_INHERIT_ALL);
	assert_null(p->writable_roots);
	assert_null(p->protected_paths);
	assert_null(p->deny_read);
	assert_null(p->allow_unix_sockets);
	assert_null(p->env.include);
	assert_null(p->env.exclude);
	assert_null(p->env.set);
	assert_null(p->temp_dir);
	assert_int_equal(confine_policy_validate(p, NULL), 0);
	confine_policy_free(p);
}

static void test_names_parse_and_print(void **state) {
	confine_network n;
	confine_env_inherit i;
	confine_error err;
	(void)state;
	assert_int_equal(confine_network_parse("off", &n, NULL), 0);
	assert_int_equal(n, CONFINE_NETWORK_OFF);
	assert_string_equal(confine_network_name(n), "off");
	assert_int_equal(confine_network_parse("on", &n, NULL), 0);
	assert_string_equal(confine_network_name(n), "on");
	expect_refusal(confine_network_parse("Off", &n, &err), &err, "network \"Off\"", "on or off");
	assert_int_equal(confine_env_inherit_parse("none", &i, NULL), 0);
	assert_string_equal(confine_env_inherit_name(i), "none");
	expect_refusal(confine_env_inherit_parse("some", &i, &err), &err, "env.inherit \"some\"",
	               NULL);
	assert_null(confine_network_name((confine_network)7));
}

static void test_writable_root_is_canonicalized_and_deduplicated(void **state) {
	confine_policy *p = new_policy(CONFINE_MODE_WORKSPACE_WRITE);
	(void)state;
	assert_int_equal(confine_policy_add_writable_root(p, at("/alias/"), NULL), 0);
	assert_int_equal(confine_policy_add_writable_root(p, at("/cache"), NULL), 0);
	assert_int_equal(confine_policy_add_writable_root(p, at("/secret/../cache"), NULL), 0);
	assert_string_equal(p->writable_roots[0], at("/cache"));
	assert_null(p->writable_roots[1]);
	assert_int_equal(confine_policy_validate(p, NULL), 0);
	confine_policy_free(p);
}

/* A writable root that does not exist is no error (issue 27, doc/SPEC.md
 * 15): it is granted nothing and its clause says so, in every mode. */
static void test_missing_writable_root_is_skipped_and_said(void **state) {
	confine_policy *p = new_policy(CONFINE_MODE_READ_ONLY);
	confine_error err = { 0 };
	(void)state;
	assert_int_equal(confine_policy_add_writable_root(p, at("/missing/deeper"), &err), 0);
	assert_null(p->writable_roots);
	assert_non_null(p->writable_roots_missing);
	assert_string_equal(p->writable_roots_missing[0], at("/missing/deeper"));
	assert_null(p->writable_roots_missing[1]);
	assert_int_equal(confine_policy_validate(p, NULL), 0);
	/* relative stays refused: only "not there" is skipped */
	expect_refusal(confine_policy_add_writable_root(p, "missing/rel", &err), &err,
	               "writableRoots entry", "is relative");
	{
		confine_policy *copy = NULL;
		assert_int_equal(confine_policy_copy(p, &copy), 0);
		assert_string_equal(copy->writable_roots_missing[0], at("/missing/deeper"));
		confine_policy_free(copy);
	}
	confine_policy_free(p);
}

/* A writable root inside a git directory is refused while default
 * protections are on (issue 28.7): they exist to keep it read-only. */
static void test_writable_root_in_a_git_dir_is_refused(void **state) {
	confine_policy *p = new_policy(CONFINE_MODE_WORKSPACE_WRITE);
	confine_error err = { 0 };
	char hooks[PATH_MAX];
	(void)state;
	snprintf(hooks, sizeof hooks, "%s", at("/other/.git/hooks"));
	assert_int_equal(mkdir(at("/other"), 0755) == 0 || errno == EEXIST, 1);
	assert_int_equal(mkdir(at("/other/.git"), 0755), 0);
	assert_int_equal(mkdir(hooks, 0755), 0);
	assert_int_equal(confine_policy_add_writable_root(p, hooks, &err), 0);
	expect_refusal(confine_policy_validate(p, &err), &err, "lies in the git directory",
	               at("/other/.git"));
	p->default_protections = false;
	assert_int_equal(confine_policy_validate(p, &err), 0);
	p->default_protections = true;
	p->mode = CONFINE_MODE_READ_ONLY; /* granted nothing there: no harm */
	assert_int_equal(confine_policy_validate(p, &err), 0);
	confine_policy_free(p);
	rmdir(hooks);
	rmdir(at("/other/.git"));
	/* a bare repository whose HEAD and objects/ are links (git takes both) */
	{
		char bare_hooks[PATH_MAX];
		p = new_policy(CONFINE_MODE_WORKSPACE_WRITE);
		assert_int_equal(mkdir(at("/bare"), 0755), 0);
		assert_int_equal(mkdir(at("/bare/refs"), 0755), 0);
		assert_int_equal(mkdir(at("/bare/refs/heads"), 0755), 0);
		assert_int_equal(mkdir(at("/store"), 0755), 0);
		assert_int_equal(symlink("../store", at("/bare/objects")), 0);
		assert_int_equal(symlink("refs/heads/main", at("/bare/HEAD")), 0);
		{
			FILE *f = fopen(at("/bare/refs/heads/main"), "w");
			assert_non_null(f);
			fputs("0000000000000000000000000000000000000000\n", f);
			fclose(f);
		}
		snprintf(bare_hooks, sizeof bare_hooks, "%s", at("/bare/hooks"));
		assert_int_equal(mkdir(bare_hooks, 0755), 0);
		assert_int_equal(confine_policy_add_writable_root(p, bare_hooks, &err), 0);
		expect_refusal(confine_policy_validate(p, &err), &err, "lies in the git directory",
		               at("/bare"));
		confine_policy_free(p);
	}
}

static void test_bad_writable_roots_are_refused(void **state) {
	static const struct {
		const char *path;   /* "@" prefix: under BASE */
		const char *part;
	} cases[] = {
		{ "@/file", "is not a directory" },
		{ "relative/dir", "is relative" },
		{ "", "is empty" },
		{ "/", "\"/\"" },
		{ "/proc", "lies in /proc" },
		{ "/proc/sys", "lies in /proc" },
		{ "/sys", "lies in /sys" },
		{ "/dev", "lies in /dev" },
		/* /dev/shm itself is the host's shared memory, every user's: not a
		 * workspace (a directory below it is, doc/SPEC.md 18). */
		{ "/dev/shm", "lies in /dev" },
		{ "/dev/pts", "lies in /dev" },
	};
	confine_policy *p = new_policy(CONFINE_MODE_WORKSPACE_WRITE);
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *path = cases[i].path[0] == '@' ? at(cases[i].path + 1) : cases[i].path;
		confine_error err = { 0 };
		struct stat st;
		if (strncmp(path, "/dev/", 5) == 0 && stat(path, &st) < 0)
			continue; /* not on this host */
		expect_refusal(confine_policy_add_writable_root(p, path, &err), &err,
		               "writableRoots entry", cases[i].part);
		assert_null(p->writable_roots); /* unchanged */
	}
	confine_policy_free(p);
}

static void test_workspace_roots_that_are_not_places(void **state) {
	static const char *const roots[] = { "/proc", "/proc/self/cwd/../../proc", "/sys/kernel",
		                             "/dev", "/dev/shm" };
	static const confine_mode modes[] = { CONFINE_MODE_READ_ONLY, CONFINE_MODE_WORKSPACE_WRITE };
	(void)state;
	for (size_t m = 0; m < 2; m++)
		for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
			confine_policy *p = NULL;
			confine_error err = { 0 };
			int r = confine_policy_new(modes[m], roots[i], &p, &err);
			if (r == -ENOENT)
				continue; /* e.g. no /dev/shm here */
			expect_refusal(r, &err, "workspace root", "is not a place to work in");
			assert_null(p);
		}
}

/* A directory below /dev/shm is an ordinary tmpfs place (doc/SPEC.md 18),
 * as a workspace root in both modes and as a writable root; /dev/shm itself
 * and the rest of /dev are not. */
static void test_a_directory_below_dev_shm_is_a_place(void **state) {
	static const confine_mode modes[] = { CONFINE_MODE_READ_ONLY, CONFINE_MODE_WORKSPACE_WRITE };
	char dir[] = "/dev/shm/confine-place.XXXXXX";
	confine_policy *ww;
	confine_error err = { 0 };
	(void)state;
#ifdef __linux__
	{
		struct statfs st;
		char why[PATH_MAX + 64];
		if (access("/dev/shm", W_OK) != 0 || !mkdtemp(dir))
			skip();
		/* a tmpfs of its own, not /dev's devtmpfs (then refused, rightly) */
		if (statfs(dir, &st) != 0 || st.f_type != 0x01021994 ||
		    cf_fs_not_a_place("/dev/shm", false, why, sizeof why) != 0) {
			rmdir(dir);
			skip();
		}
	}
#else
	skip();
#endif
	for (size_t m = 0; m < 2; m++) {
		confine_policy *p = NULL;
		if (confine_policy_new(modes[m], dir, &p, &err) != 0)
			fail_msg("%s refused: %s", dir, err.message);
		assert_string_equal(p->workspace_root, dir);
		confine_policy_free(p);
	}
	ww = new_policy(CONFINE_MODE_WORKSPACE_WRITE);
	if (confine_policy_add_writable_root(ww, dir, &err) != 0)
		fail_msg("%s refused as a writable root: %s", dir, err.message);
	assert_string_equal(ww->writable_roots[0], dir);
	confine_policy_free(ww);
	rmdir(dir);
}

static void test_pseudo_filesystems_by_statfs_and_mountinfo(void **state) {
	char why[PATH_MAX + 64];
	(void)state;
	if (!CONFINE_OS_LINUX)
		skip();
	assert_int_equal(cf_fs_not_a_place("/proc", false, why, sizeof why), 1);
	assert_string_equal(why, "is on procfs");
	assert_int_equal(cf_fs_not_a_place("/proc/sys", false, why, sizeof why), 1);
	assert_string_equal(why, "is on procfs");
	/* nsfs, SPEC 18's last row: a namespace handle is on nsfs, not procfs */
	if (access("/proc/self/ns/net", F_OK) == 0) {
		assert_int_equal(cf_fs_not_a_place("/proc/self/ns/net", false, why, sizeof why), 1);
		assert_string_equal(why, "is on nsfs");
	}
	assert_int_equal(cf_fs_not_a_place("/sys", false, why, sizeof why), 1);
	assert_string_equal(why, "is on sysfs");
	assert_int_equal(cf_fs_not_a_place(base, true, why, sizeof why), 0);
	/* A writable root holding a procfs mount would bring it along (bwrap
	 * binds recursively): "/" holds /proc. */
	assert_int_equal(cf_fs_not_a_place("/", true, why, sizeof why), 1);
	assert_non_null(strstr(why, "mount at \"/"));
	assert_int_equal(cf_fs_not_a_place("/", false, why, sizeof why), 0);
}

static void test_protected_paths(void **state) {
	confine_policy *p = new_policy(CONFINE_MODE_WORKSPACE_WRITE);
	confine_error err = { 0 };
	(void)state;
	assert_int_equal(confine_policy_add_protected_path(p, "./.git//hooks/", NULL), 0);
	assert_int_equal(confine_policy_add_protected_path(p, ".git/hooks", NULL), 0);
	assert_int_equal(confine_policy_add_protected_path(p, "a/./b", NULL), 0);
	assert_int_equal(confine_policy_add_protected_path(p, at("/ws/../ws/not-yet/x"), NULL), 0);
	assert_string_equal(p->protected_paths[0], ".git/hooks");
	assert_string_equal(p->protected_paths[1], "a/b");
	assert_string_equal(p->protected_paths[2], at("/ws/not-yet/x"));
	assert_null(p->protected_paths[3]);
	expect_refusal(confine_policy_add_protected_path(p, "../up", &err), &err,
	               "protectedPaths entry \"../up\"", "\"..\"");
	expect_refusal(confine_policy_add_protected_path(p, "a/../../b", &err), &err,
	               "protectedPaths entry \"a/../../b\"", NULL);
	expect_refusal(confine_policy_add_protected_path(p, "./", &err), &err,
	               "protectedPaths entry \"./\"", "the writable root itself");
	expect_refusal(confine_policy_add_protected_path(p, "", &err), &err, "protectedPaths", "empty");
	assert_int_equal(confine_policy_validate(p, NULL), 0);
	confine_policy_free(p);
}

static void test_deny_read_and_unix_sockets_are_absolute(void **state) {
	confine_policy *p = new_policy(CONFINE_MODE_READ_ONLY);
	confine_error err = { 0 };
	(void)state;
	assert_int_equal(confine_policy_add_deny_read(p, at("/alias/../secret//"), NULL), 0);
	assert_string_equal(p->deny_read[0], at("/secret"));
	assert_int_equal(confine_policy_add_deny_read(p, at("/alias/id_rsa"), NULL), 0);
	assert_string_equal(p->deny_read[1], at("/cache/id_rsa"));
	/* ~/x is x under $HOME, at every door (doc/SPEC.md 15); ~user is not
	 * expanded, and refused */
	expect_refusal(confine_policy_add_deny_read(p, "~user/.ssh", &err), &err,
	               "denyRead entry \"~user/.ssh\" starts with \"~\"", NULL);
	{
		const char *saved = getenv("HOME");
		char *home = saved ? strdup(saved) : NULL;
		size_t n = 0;
		setenv("HOME", "/nonexistent-home", 1);
		assert_int_equal(confine_policy_add_deny_read(p, "~/.ssh", NULL), 0);
		while (p->deny_read[n])
			n++;
		assert_string_equal(p->deny_read[n - 1], "/nonexistent-home/.ssh");
		setenv("HOME", "relative", 1);
		expect_refusal(confine_policy_add_deny_read(p, "~/.ssh", &err), &err,
		               "but $HOME is not an absolute path", NULL);
		if (home)
			setenv("HOME", home, 1);
		else
			unsetenv("HOME");
		free(home);
	}
	/* Other relative entries are patterns under every root (doc/SPEC.md 15);
	 * one that climbs out is refused. */
	assert_int_equal(confine_policy_add_deny_read(p, "**/.env", NULL), 0);
	expect_refusal(confine_policy_add_deny_read(p, "../.env", &err), &err,
	               "denyRead pattern \"../.env\" climbs out", NULL);
	assert_int_equal(confine_policy_add_unix_socket(p, "/run/x.sock", NULL), 0);
	expect_refusal(confine_policy_add_unix_socket(p, "x.sock", &err), &err,
	               "allowUnixSockets entry \"x.sock\"", NULL);
	assert_int_equal(confine_policy_validate(p, NULL), 0);
	confine_policy_free(p);
}

/* The network allowlist (doc/SPEC.md 15, "Network allowlist"). */
static void test_network_allowlist(void **state) {
	confine_policy *p = new_policy(CONFINE_MODE_READ_ONLY);
	confine_policy *copy = NULL;
	confine_error err = { 0 };
	static const struct {
		const char *value, *part;
	} bad[] = {
		{ "", "is empty" },
		{ "https://example.org", "has a scheme" },
		{ "10.0.0.0/8", "is an address range" },
		{ "example.org:8080", "has a port" },
		{ "example.org:99999", "has a port" },
		{ "1.2.3.4", "is an IP address" },
		{ "::1", "is an IPv6 address" },
		{ "[::1]:80", "is an IPv6 address" },
		{ "a..b", "empty label" },
		{ "ex*ample.org", "a wildcard is only" },
		{ "*.", "is not a host name" },
		{ "exa mple.org", "holds \" \"" },
		{ "example.org.", "ends with a dot" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		expect_refusal(confine_policy_add_allow_host(p, bad[i].value, &err), &err, bad[i].part,
		               bad[i].value[0] ? bad[i].value : NULL);
	expect_refusal(confine_policy_add_deny_host(p, "", &err), &err, "network.deny entry", NULL);
	/* A deny entry with the network on would hold nothing: refused. */
	assert_int_equal(confine_policy_add_deny_host(p, "evil.org", NULL), 0);
	expect_refusal(confine_policy_validate(p, &err), &err,
	               "network.deny entry \"evil.org\" cannot hold with the network on", NULL);
	confine_strv_free(p->network_deny);
	p->network_deny = NULL;
	/* Entries on with the network on: refused, never an open network. */
	assert_int_equal(confine_policy_add_allow_host(p, "Registry.NPMJS.org", NULL), 0);
	assert_string_equal(p->network_allow[0], "registry.npmjs.org");
	assert_false(confine_policy_network_allowlist(p));
	expect_refusal(confine_policy_validate(p, &err), &err,
	               "network.allow entry \"registry.npmjs.org\" needs the network off", NULL);
	p->network = CONFINE_NETWORK_OFF;
	assert_true(confine_policy_network_allowlist(p));
	assert_int_equal(confine_policy_add_allow_host(p, "*.pypi.org", NULL), 0);
	assert_int_equal(confine_policy_add_deny_host(p, "evil.pypi.org", NULL), 0);
	assert_int_equal(confine_policy_validate(p, NULL), 0);
	assert_true(confine_host_pattern_match("*.pypi.org", "files.PYPI.org"));
	assert_false(confine_host_pattern_match("*.pypi.org", "pypi.org"));
	assert_false(confine_host_pattern_match("*.pypi.org", "notpypi.org"));
	assert_true(confine_host_pattern_match("registry.npmjs.org", "REGISTRY.npmjs.org"));
	assert_false(confine_host_pattern_match("registry.npmjs.org", "registry.npmjs.org.evil"));
	p->network_allow_local = true;
	assert_int_equal(confine_policy_copy(p, &copy), 0);
	assert_string_equal(copy->network_allow[1], "*.pypi.org");
	assert_string_equal(copy->network_deny[0], "evil.pypi.org");
	assert_true(copy->network_allow_local);
	confine_policy_free(copy);
	/* Under danger-full-access the network off is refused, allowlist too. */
	p->mode = CONFINE_MODE_DANGER_FULL_ACCESS;
	expect_refusal(confine_policy_validate(p, &err), &err, "network \"off\" cannot hold", NULL);
	confine_policy_free(p);
}

static void test_env_entries(void **state) {
	static const char *const bad_patterns[] = { "", "A=B", "A B", "tab\there", "\x7f" };
	confine_policy *p = new_policy(CONFINE_MODE_READ_ONLY);
	confine_error err = { 0 };
	(void)state;
	assert_int_equal(confine_policy_add_env_include(p, "GITHUB_*", NULL), 0);
	assert_int_equal(confine_policy_add_env_exclude(p, "AWS_?*", NULL), 0);
	assert_int_equal(confine_policy_add_env_set(p, "CI=1", NULL), 0);
	assert_int_equal(confine_policy_add_env_set(p, "EMPTY=", NULL), 0);
	assert_int_equal(confine_policy_add_env_set(p, "CI=2", NULL), 0); /* replaces */
	assert_string_equal(p->env.set[0], "CI=2");
	assert_string_equal(p->env.set[1], "EMPTY=");
	assert_null(p->env.set[2]);
	for (size_t i = 0; i < sizeof bad_patterns / sizeof bad_patterns[0]; i++) {
		expect_refusal(confine_policy_add_env_include(p, bad_patterns[i], &err), &err,
		               "env.include pattern", NULL);
		expect_refusal(confine_policy_add_env_exclude(p, bad_patterns[i], &err), &err,
		               "env.exclude pattern", NULL);
	}
	expect_refusal(confine_policy_add_env_set(p, "NOEQUALS", &err), &err,
	               "env.set entry \"NOEQUALS\"", "NAME=VALUE");
	expect_refusal(confine_policy_add_env_set(p, "=x", &err), &err, "env.set entry \"=x\"", NULL);
	expect_refusal(confine_policy_add_env_set(p, "A*=x", &err), &err, "env.set name \"A*\"", NULL);
	assert_null(p->env.include[1]);
	assert_null(p->env.exclude[1]);
	assert_int_equal(confine_policy_validate(p, NULL), 0);
	confine_policy_free(p);
}

/* Puts a malloc'd one-entry list into *slot (as a caller assigning fields
 * directly would). */
static void put(char ***slot, const char *value) {
	*slot = calloc(2, sizeof **slot);
	assert_non_null(*slot);
	(*slot)[0] = strdup(value);
}

static void test_validation_names_key_and_value(void **state) {
	typedef enum { DENY, WRITABLE, PROTECT, SOCKET, INCLUDE, SET } slot;
	static const struct {
		slot first;
		const char *first_value; /* "@": under BASE */
		int has_second;
		slot second;
		const char *second_value;
		const char *part1;
		const char *part2;
	} cases[] = {
		{ DENY, "@", 0, DENY, NULL, "denyRead entry", "covers the workspace root" },
		{ DENY, "@/ws", 0, DENY, NULL, "denyRead entry", "covers the workspace root" },
		{ DENY, "/", 0, DENY, NULL, "denyRead entry \"/\" covers the workspace root", NULL },
		{ DENY, "@/cache", 1, WRITABLE, "@/cache", "writableRoots entry", "lies under denyRead" },
		{ PROTECT, "/etc/passwd", 0, DENY, NULL, "protectedPaths entry \"/etc/passwd\"",
		  "outside every writable root" },
		{ PROTECT, "../x", 0, DENY, NULL, "protectedPaths entry \"../x\"", NULL },
		{ DENY, "a/../../x", 0, DENY, NULL, "denyRead pattern \"a/../../x\" climbs out", NULL },
		{ SOCKET, "x.sock", 0, DENY, NULL, "allowUnixSockets entry \"x.sock\"", NULL },
		{ WRITABLE, "@/alias", 0, DENY, NULL, "writableRoots entry", "is not canonical" },
		{ WRITABLE, "/proc", 0, DENY, NULL, "writableRoots entry \"/proc\"", "lies in /proc" },
		{ INCLUDE, "A=B", 0, DENY, NULL, "env.include pattern \"A=B\"", NULL },
		{ SET, "A", 0, DENY, NULL, "env.set entry \"A\"", NULL },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		confine_policy *p = new_policy(CONFINE_MODE_WORKSPACE_WRITE);
		confine_error err = { 0 };
		for (int k = 0; k < 1 + cases[i].has_second; k++) {
			slot s = k ? cases[i].second : cases[i].first;
			const char *v = k ? cases[i].second_value : cases[i].first_value;
			char ***target = s == DENY       ? &p->deny_read
			                 : s == WRITABLE ? &p->writable_roots
			                 : s == PROTECT  ? &p->protected_paths
			                 : s == SOCKET   ? &p->allow_unix_sockets
			                 : s == INCLUDE  ? &p->env.include
			                                 : &p->env.set;
			put(target, v[0] == '@' ? at(v + 1) : v);
		}
		expect_refusal(confine_policy_validate(p, &err), &err, cases[i].part1, cases[i].part2);
		confine_policy_free(p);
	}
}

static void test_deny_read_inside_a_writable_root_is_fine(void **state) {
	confine_policy *p = new_policy(CONFINE_MODE_WORKSPACE_WRITE);
	(void)state;
	/* A secret inside the workspace: masked (bwrap) or reported (Landlock). */
	assert_int_equal(confine_policy_add_deny_read(p, at("/ws/.env"), NULL), 0);
	assert_int_equal(confine_policy_add_protected_path(p, at("/ws/.git/config"), NULL), 0);
	assert_int_equal(confine_policy_add_writable_root(p, at("/cache"), NULL), 0);
	assert_int_equal(confine_policy_add_protected_path(p, at("/cache/locked"), NULL), 0);
	assert_int_equal(confine_policy_validate(p, NULL), 0);
	confine_policy_free(p);
}

static void test_copy_is_deep(void **state) {
	confine_policy *p = new_policy(CONFINE_MODE_WORKSPACE_WRITE), *c = NULL;
	(void)state;
	assert_int_equal(confine_policy_add_writable_root(p, at("/cache"), NULL), 0);
	assert_int_equal(confine_policy_add_deny_read(p, at("/secret"), NULL), 0);
	assert_int_equal(confine_policy_add_protected_path(p, ".git/hooks", NULL), 0);
	assert_int_equal(confine_policy_add_unix_socket(p, "/run/s", NULL), 0);
	assert_int_equal(confine_policy_add_env_include(p, "X", NULL), 0);
	assert_int_equal(confine_policy_add_env_exclude(p, "Y", NULL), 0);
	assert_int_equal(confine_policy_add_env_set(p, "Z=1", NULL), 0);
	p->network = CONFINE_NETWORK_OFF;
	p->require_full = true;
	p->default_protections = false;
	p->env.inherit = CONFINE_ENV_INHERIT_NONE;
	p->temp_dir = strdup("/tmp/run-1");
	p->private_temp = true;
	assert_int_equal(confine_policy_copy(p, &c), 0);
	assert_ptr_not_equal(c->writable_roots, p->writable_roots);
	assert_ptr_not_equal(c->writable_roots[0], p->writable_roots[0]);
	assert_string_equal(c->workspace_root, p->workspace_root);
	assert_string_equal(c->writable_roots[0], at("/cache"));
	assert_string_equal(c->deny_read[0], at("/secret"));
	assert_string_equal(c->protected_paths[0], ".git/hooks");
	assert_string_equal(c->allow_unix_sockets[0], "/run/s");
	assert_string_equal(c->env.include[0], "X");
	assert_string_equal(c->env.exclude[0], "Y");
	assert_string_equal(c->env.set[0], "Z=1");
	assert_string_equal(c->temp_dir, "/tmp/run-1");
	assert_int_equal(c->network, CONFINE_NETWORK_OFF);
	assert_true(c->require_full);
	assert_false(c->default_protections);
	assert_true(c->env.default_excludes);
	assert_true(c->private_temp);
	assert_int_equal(c->env.inherit, CONFINE_ENV_INHERIT_NONE);
	confine_policy_free(p);
	assert_string_equal(c->writable_roots[0], at("/cache")); /* survives the original */
	confine_policy_free(c);
	confine_policy_free(NULL);
	assert_int_equal(confine_policy_copy(NULL, &c), -EINVAL);
}

static int never_reached(void *data, const char *const *argv, const confine_policy *policy,
                         confine_argv **ret, confine_error *err) {
	(void)data, (void)argv, (void)policy, (void)ret, (void)err;
	fail_msg("a policy past a bound reached the backend");
	return -EINVAL;
}

static const confine_provider_ops backend_never_reached = { .confine = never_reached };

/* A list past the launcher's bound is refused naming the bound and the
 * count, never cut: with 256 deny entries before it, a 257th was once
 * dropped and its host reached (issue 27). The same at the run's gate
 * (confine_confine), for a policy built by hand. */
static void test_bounds_refuse_never_truncate(void **state) {
	confine_policy *p = new_policy(CONFINE_MODE_WORKSPACE_WRITE);
	confine_provider *provider = NULL;
	confine_argv *argv = NULL;
	const char *const command[] = { "true", NULL };
	confine_error err;
	char host[32];
	(void)state;
	p->network = CONFINE_NETWORK_OFF;
	assert_int_equal(confine_policy_add_allow_host(p, "*.test", NULL), 0);
	for (int i = 0; i < LAUNCHER_PROXY_HOSTS_MAX; i++) {
		snprintf(host, sizeof host, "filler%d.test", i);
		assert_int_equal(confine_policy_add_deny_host(p, host, NULL), 0);
	}
	assert_int_equal(confine_policy_validate(p, NULL), 0);
	assert_int_equal(confine_policy_add_deny_host(p, "bad.test", NULL), 0);
	expect_refusal(confine_policy_validate(p, &err), &err,
	               "network.deny has 257 entries, more than the 256", "\"bad.test\"");
	assert_int_equal(confine_provider_new(&backend_never_reached, NULL, &provider, NULL), 0);
	memset(&err, 0, sizeof err);
	assert_true(confine_confine(provider, command, p, &argv, &err) < 0);
	assert_int_equal(err.code, CONFINE_E_INVALID_POLICY);
	assert_non_null(strstr(err.message, "network.deny has 257 entries"));
	assert_null(argv);
	confine_provider_free(provider);
	confine_policy_free(p);
}

/* A path longer than the launcher's buffers hold is refused by name. */
static void test_bounds_refuse_a_path_too_long(void **state) {
	confine_policy *p = new_policy(CONFINE_MODE_WORKSPACE_WRITE);
	char *path = malloc(LAUNCHER_PATH_LENGTH_MAX + 2);
	confine_error err;
	(void)state;
	assert_non_null(path);
	memset(path, 'a', LAUNCHER_PATH_LENGTH_MAX + 1);
	path[0] = '/';
	path[LAUNCHER_PATH_LENGTH_MAX + 1] = '\0';
	assert_int_equal(confine_policy_add_unix_socket(p, path, NULL), 0);
	expect_refusal(confine_policy_validate(p, &err), &err, "allowUnixSockets entry",
	               "is 4096 bytes long, more than the 4095");
	free(path);
	confine_policy_free(p);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_names_parse_and_print),
		cmocka_unit_test(test_writable_root_is_canonicalized_and_deduplicated),
		cmocka_unit_test(test_bad_writable_roots_are_refused),
		cmocka_unit_test(test_writable_root_in_a_git_dir_is_refused),
		cmocka_unit_test(test_missing_writable_root_is_skipped_and_said),
		cmocka_unit_test(test_workspace_roots_that_are_not_places),
		cmocka_unit_test(test_a_directory_below_dev_shm_is_a_place),
		cmocka_unit_test(test_pseudo_filesystems_by_statfs_and_mountinfo),
		cmocka_unit_test(test_protected_paths),
		cmocka_unit_test(test_deny_read_and_unix_sockets_are_absolute),
		cmocka_unit_test(test_network_allowlist),
		cmocka_unit_test(test_env_entries),
		cmocka_unit_test(test_validation_names_key_and_value),
		cmocka_unit_test(test_deny_read_inside_a_writable_root_is_fine),
		cmocka_unit_test(test_copy_is_deep),
		cmocka_unit_test(test_bounds_refuse_never_truncate),
		cmocka_unit_test(test_bounds_refuse_a_path_too_long),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
