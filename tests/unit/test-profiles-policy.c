/* SPDX-License-Identifier: MIT */
/*
 * Profiles for the policy beyond mode and root (issue 16): each rung's exact
 * tokens or text per option, and the unenforced report, against a tree
 * whose contents decide what a bind can cover:
 *
 *   BASE/ws/            workspace: .git/hooks/, .git/config, src/, .env
 *   BASE/cache/         a writable root: .git/ without hooks or config
 *   BASE/home/          .ssh/ (denied), .npmrc (denied), docs/, link -> .ssh
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "confine.h"
#include "later.h"
#include "profiles/plan.h"
#include "rungs/landlock/landlock.h"
#include "testlib.h"

static char base[256];

static const char *at(const char *suffix) {
	static char buf[32][PATH_MAX];
	static unsigned next;
	char *p = buf[next++ % 32];
	snprintf(p, sizeof buf[0], "%s%s", base, suffix);
	return p;
}

static int setup(void **state) {
	static const char *const dirs[] = { "/ws", "/ws/.git", "/ws/.git/hooks", "/ws/src",
		                            "/cache", "/cache/.git", "/home", "/home/.ssh",
		                            "/home/docs" };
	(void)state;
	/* Not under /tmp: the bwrap profile hides the host's /tmp anyway. */
	if (tl_make_workdir("profiles-policy", base, sizeof base) < 0)
		return -1;
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
		if (mkdir(at(dirs[i]), 0755) < 0)
			return -1;
	{
		static const char *const files[][2] = {
			{ "ws/.git/config", "[core]\n" }, { "ws/.env", "KEY=1\n" },
			{ "home/.npmrc", "token\n" },
		};
		for (size_t i = 0; i < 3; i++) {
			char *written = tl_write_file(base, files[i][0], files[i][1], 0644);
			if (!written)
				return -1;
			free(written);
		}
	}
	return symlink(at("/home/.ssh"), at("/home/link"));
}

static int teardown(void **state) {
	(void)state;
	return tl_remove_tree(base);
}

static void assert_strv_equal(char **got, const char *const *want) {
	size_t i;
	for (i = 0; want[i]; i++) {
		if (!got[i])
			fail_msg("token %zu missing, expected \"%s\"", i, want[i]);
		if (strcmp(got[i], want[i]) != 0)
			fail_msg("token %zu is \"%s\", expected \"%s\"", i, got[i], want[i]);
	}
	if (got[i])
		fail_msg("unexpected token %zu \"%s\"", i, got[i]);
}

static confine_policy *policy_with_everything(confine_mode mode) {
	confine_policy *p = NULL;
	assert_int_equal(confine_policy_new(mode, at("/ws"), &p, NULL), 0);
	assert_int_equal(confine_policy_add_writable_root(p, at("/cache"), NULL), 0);
	assert_int_equal(confine_policy_add_protected_path(p, "src", NULL), 0);
	assert_int_equal(confine_policy_add_protected_path(p, "missing", NULL), 0);
	assert_int_equal(confine_policy_add_deny_read(p, at("/home/.ssh"), NULL), 0);
	assert_int_equal(confine_policy_add_deny_read(p, at("/home/.npmrc"), NULL), 0);
	assert_int_equal(confine_policy_add_deny_read(p, at("/ws/.env"), NULL), 0);
	assert_int_equal(confine_policy_add_deny_read(p, at("/home/absent"), NULL), 0);
	p->network = CONFINE_NETWORK_OFF;
	assert_int_equal(confine_policy_validate(p, NULL), 0);
	return p;
}

#define BASE16                                                                              \
	"--ro-bind", "/", "/", "--dev", "/dev", "--unshare-pid", "--unshare-ipc", "--proc",   \
	        "/proc", "--ro-bind", "/proc/sys", "/proc/sys", "--die-with-parent",           \
	        "--new-session", "--cap-drop", "ALL"

static void test_bwrap_workspace_write_every_option(void **state) {
	confine_policy *p = policy_with_everything(CONFINE_MODE_WORKSPACE_WRITE);
	const char *const want[] = {
		BASE16,
		"--unshare-net",
		"--tmpfs", "/tmp",
		"--bind", at("/ws"), at("/ws"),
		"--bind", at("/cache"), at("/cache"),
		/* the directory on the way to a protected path, pinned (a mount
		 * point cannot be renamed away) */
		"--bind", at("/ws/.git"), at("/ws/.git"),
		/* sorted by path: the default protections of ws's repository (its
		 * .git/hooks and .git/config; cache's .git has neither, and what
		 * is missing gets no placeholder in an argv for others), and
		 * protectedPaths "src" (under ws only; "missing" nowhere) */
		"--ro-bind", at("/ws/.git/config"), at("/ws/.git/config"),
		"--ro-bind", at("/ws/.git/hooks"), at("/ws/.git/hooks"),
		"--ro-bind", at("/ws/src"), at("/ws/src"),
		/* denyRead: a directory gets an empty read-only tmpfs, a file
		 * /dev/null; an absent entry nothing */
		"--tmpfs", at("/home/.ssh"), "--remount-ro", at("/home/.ssh"),
		"--ro-bind", "/dev/null", at("/home/.npmrc"),
		"--ro-bind", "/dev/null", at("/ws/.env"),
		NULL,
	};
	char **tokens = NULL;
	(void)state;
	assert_int_equal(confine_profile_bwrap(p, &tokens), 0);
	assert_strv_equal(tokens, want);
	confine_strv_free(tokens);
	confine_policy_free(p);
}

static void test_bwrap_without_die_with_parent(void **state) {
	confine_policy *p = NULL;
	static const char *const want[] = {
		"--ro-bind", "/", "/", "--dev", "/dev", "--unshare-pid", "--unshare-ipc", "--proc",
		"/proc", "--ro-bind", "/proc/sys", "/proc/sys", "--new-session", "--cap-drop", "ALL",
		NULL,
	};
	char **tokens = NULL;
	(void)state;
	assert_int_equal(confine_policy_new(CONFINE_MODE_READ_ONLY, at("/ws"), &p, NULL), 0);
	p->private_temp = false;
	assert_int_equal(confine_profile_bwrap_flags(p, CONFINE_PROFILE_NO_DIE_WITH_PARENT, &tokens),
	                 0);
	assert_strv_equal(tokens, want);
	confine_strv_free(tokens);
	assert_int_equal(confine_profile_bwrap_flags(p, 1u << 7, &tokens), -EINVAL);
	confine_policy_free(p);
}

static void test_bwrap_read_only_private_temp_and_network(void **state) {
	confine_policy *p = policy_with_everything(CONFINE_MODE_READ_ONLY);
	const char *const want[] = {
		BASE16,
		"--unshare-net",
		"--tmpfs", "/tmp", /* the private temp area (private_temp, set below) */
		/* read-only: no binds, no carve-outs; denyRead still masks */
		"--tmpfs", at("/home/.ssh"), "--remount-ro", at("/home/.ssh"),
		"--ro-bind", "/dev/null", at("/home/.npmrc"),
		"--ro-bind", "/dev/null", at("/ws/.env"),
		NULL,
	};
	static const char *const plain[] = { BASE16, NULL };
	confine_policy bare = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = (char *)"/" };
	char **tokens = NULL;
	(void)state;
	p->private_temp = true;
	assert_int_equal(confine_profile_bwrap(p, &tokens), 0);
	assert_strv_equal(tokens, want);
	confine_strv_free(tokens);
	/* A zeroed policy has every default off: the 16 tokens alone. */
	assert_int_equal(confine_profile_bwrap(&bare, &tokens), 0);
	assert_strv_equal(tokens, plain);
	confine_strv_free(tokens);
	confine_policy_free(p);
}

/* A listening socket at `path` (closed: the inode stays). */
static void make_socket(const char *path) {
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_true(strlen(path) < sizeof addr.sun_path);
	strcpy(addr.sun_path, path);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof addr), 0);
	close(fd);
}

/* allowUnixSockets: a socket the private /tmp hides (ssh-agent's default
 * place) is bound in read-only; one that stays visible, or that does not
 * exist, is not; without the tmpfs nothing is. */
static void test_bwrap_binds_allowed_sockets_the_private_tmp_hides(void **state) {
	char in_tmp[64], outside[PATH_MAX];
	char *sockets[4];
	confine_policy *p = NULL;
	char **tokens = NULL;
	(void)state;
	snprintf(in_tmp, sizeof in_tmp, "/tmp/confine-unit-%ld.sock", (long)getpid());
	snprintf(outside, sizeof outside, "%s", at("/outside.sock"));
	unlink(in_tmp);
	make_socket(in_tmp);
	make_socket(outside);
	sockets[0] = in_tmp;
	sockets[1] = outside;
	sockets[2] = (char *)"/tmp/confine-unit-missing.sock";
	sockets[3] = NULL;
	{
		const char *const want[] = {
			BASE16, "--tmpfs", "/tmp", "--bind", at("/ws"), at("/ws"),
			"--ro-bind-try", in_tmp, in_tmp, NULL,
		};
		assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("/ws"), &p, NULL),
		                 0);
		p->default_protections = false;
		p->allow_unix_sockets = sockets;
		assert_int_equal(confine_profile_bwrap(p, &tokens), 0);
		assert_strv_equal(tokens, want);
		confine_strv_free(tokens);
	}
	{
		const char *const want[] = { BASE16, NULL };
		p->mode = CONFINE_MODE_READ_ONLY;
		p->private_temp = false;
		assert_int_equal(confine_profile_bwrap(p, &tokens), 0);
		assert_strv_equal(tokens, want); /* the host's /tmp is visible */
		confine_strv_free(tokens);
	}
	p->allow_unix_sockets = NULL;
	confine_policy_free(p);
	unlink(in_tmp);
	unlink(outside);
}

static void test_bwrap_hides_nothing_the_private_tmp_already_hides(void **state) {
	confine_policy p = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = (char *)"/",
		             .private_temp = true };
	char *deny[] = { (char *)"/tmp", NULL };
	static const char *const want[] = { BASE16, "--tmpfs", "/tmp", NULL };
	char **tokens = NULL;
	(void)state;
	p.deny_read = deny;
	assert_int_equal(confine_profile_bwrap(&p, &tokens), 0);
	assert_strv_equal(tokens, want);
	confine_strv_free(tokens);
}

static bool have_dev_shm(void) {
	struct stat st;
	return stat("/dev/shm", &st) == 0;
}

static void test_landlock_workspace_write_options(void **state) {
	confine_policy *p = NULL;
	char **tokens = NULL;
	const char *const want[] = {
		"--ro", "/", "--rw", "/dev/null", "--rw-shared", "/dev/shm",
		"--rw", at("/ws"), "--rw", at("/cache"), "--deny-network", "--proxy-off",
		"--allow-unix-socket", "/run/agent.sock", "--require-supervisor", NULL,
	};
	(void)state;
	if (!have_dev_shm())
		skip();
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("/ws"), &p, NULL), 0);
	assert_int_equal(confine_policy_add_writable_root(p, at("/cache"), NULL), 0);
	assert_int_equal(confine_policy_add_protected_path(p, "src", NULL), 0);
	/* Inside a writable grant: not expressible, reported instead. */
	assert_int_equal(confine_policy_add_deny_read(p, at("/ws/.env"), NULL), 0);
	p->network = CONFINE_NETWORK_OFF;
	/* the supervisor's allowance, and requireFull: no run without it */
	assert_int_equal(confine_policy_add_unix_socket(p, "/run/agent.sock", NULL), 0);
	p->require_full = true;
	assert_int_equal(confine_profile_landlock(p, &tokens), 0);
	assert_strv_equal(tokens, want);
	confine_strv_free(tokens);
	confine_policy_free(p);
}

static void test_landlock_read_only_temp_dir(void **state) {
	confine_policy *p = NULL;
	static const char *const want[] = { "--ro", "/", "--rw", "/dev/null", "--rw",
		                            "/tmp/confine-run-1", NULL };
	static const char *const no_temp[] = { "--ro", "/", "--rw", "/dev/null", NULL };
	char **tokens = NULL;
	(void)state;
	assert_int_equal(confine_policy_new(CONFINE_MODE_READ_ONLY, at("/ws"), &p, NULL), 0);
	p->private_temp = true;
	assert_int_equal(confine_profile_landlock(p, &tokens), 0);
	assert_strv_equal(tokens, no_temp); /* no temp_dir made: nothing to grant */
	confine_strv_free(tokens);
	p->temp_dir = strdup("/tmp/confine-run-1");
	assert_int_equal(confine_profile_landlock(p, &tokens), 0);
	assert_strv_equal(tokens, want);
	confine_strv_free(tokens);
	p->private_temp = false;
	assert_int_equal(confine_profile_landlock(p, &tokens), 0);
	assert_strv_equal(tokens, no_temp);
	confine_strv_free(tokens);
	confine_policy_free(p);
}

static void test_landlock_deny_read_grants_the_siblings(void **state) {
	char *deny[] = { (char *)at("/home/.ssh"), NULL };
	const char *const want[] = {
		/* --ro-list: each directory on the way stays listable
		 * (read-directory alone; issue 28.4) */
		"--ro-list", base,
		/* --ro-try: an entry listed now may be gone when the launcher
		 * opens it (skipped then: narrower, never wider) */
		"--ro-try", at("/cache"),
		/* home is on the way: its entries but .ssh; the link to .ssh gets
		 * no rule (the launcher would follow it into .ssh) */
		"--ro-list", at("/home"),
		"--ro-try", at("/home/.npmrc"), "--ro-try", at("/home/docs"),
		"--ro-try", at("/ws"),
		NULL,
	};
	char **tokens = NULL;
	(void)state;
	assert_int_equal(cf_landlock_read_grants(base, deny, &tokens), 0);
	assert_strv_equal(tokens, want);
	confine_strv_free(tokens);
}

/* The real expansion from / for a denyRead outside every writable grant:
 * no `--ro /`, no rule on the denied path or an ancestor of it. Prints the
 * number of read grants (the cost: doc/POLICY.md). */
static void test_landlock_deny_read_from_the_root(void **state) {
	confine_policy *p = NULL;
	char **tokens = NULL;
	size_t n_ro = 0;
	(void)state;
	assert_int_equal(confine_policy_new(CONFINE_MODE_READ_ONLY, at("/ws"), &p, NULL), 0);
	assert_int_equal(confine_policy_add_deny_read(p, at("/home/.ssh"), NULL), 0);
	assert_int_equal(confine_profile_landlock(p, &tokens), 0);
	for (size_t i = 0; tokens[i]; i += 2) {
		if (strcmp(tokens[i], "--ro-list") == 0) {
			/* listing only, and only on the way to the denied path */
			if (strncmp(at("/home/.ssh"), tokens[i + 1], strlen(tokens[i + 1])) != 0)
				fail_msg("--ro-list %s is not on the way to the denied path",
				         tokens[i + 1]);
			continue;
		}
		if (strcmp(tokens[i], "--ro") != 0 && strcmp(tokens[i], "--ro-try") != 0)
			continue;
		n_ro++;
		assert_string_not_equal(tokens[i + 1], "/");
		if (strncmp(at("/home/.ssh"), tokens[i + 1], strlen(tokens[i + 1])) == 0)
			fail_msg("grant %s covers the denied path", tokens[i + 1]);
	}
	printf("# denyRead %s under Landlock: %zu read grants instead of `--ro /`\n",
	       at("/home/.ssh"), n_ro);
	assert_true(n_ro > 3);
	confine_strv_free(tokens);
	confine_policy_free(p);
}

static void test_seatbelt_every_option(void **state) {
	confine_policy *p = policy_with_everything(CONFINE_MODE_WORKSPACE_WRITE);
	char *tmp = realpath("/tmp", NULL);
	char *text = NULL;
	char want[32768], later[16384];
	size_t off = 0;
	(void)state;
	/* what runs later (later.c), under each root, existing or not (the
	 * home's own entries: $HOME is not under these roots) */
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < cf_later_count; i++)
			if (cf_later_entries[i].where & CF_LATER_AT_ROOT)
				off += (size_t)snprintf(later + off, sizeof later - off, "(subpath \"%s/%s/%s\") ",
				                        base, k ? "cache" : "ws", cf_later_entries[i].name);
	assert_int_equal(confine_policy_add_unix_socket(p, "/nonexistent/x.sock", NULL), 0);
	assert_int_equal(confine_profile_seatbelt(p, NULL, &text), 0);
	snprintf(want, sizeof want,
	         "(version 1) (allow default) (deny file-write*) "
	         "(allow file-write* (literal \"/dev/null\")) "
	         "(allow file-write* (subpath \"%s/ws\") (subpath \"%s\") (subpath \"%s/cache\")) "
	         /* protected paths whether they exist or not, then the defaults
	          * under each root with a .git directory */
	         "(deny file-write* (subpath \"%s/ws/src\") (subpath \"%s/cache/src\") "
	         "(subpath \"%s/ws/missing\") (subpath \"%s/cache/missing\") %s"
	         "(subpath \"%s/ws/.git/hooks\") (subpath \"%s/ws/.git/config\") "
	         "(subpath \"%s/cache/.git/hooks\") (subpath \"%s/cache/.git/config\")) "
	         "(deny file-read* (subpath \"%s/home/.ssh\") (subpath \"%s/home/.npmrc\") "
	         "(subpath \"%s/ws/.env\") (subpath \"%s/home/absent\")) "
	         "(deny file-write* (subpath \"%s/home/.ssh\") (subpath \"%s/home/.npmrc\") "
	         "(subpath \"%s/ws/.env\") (subpath \"%s/home/absent\")) "
	         "(deny network*) "
	         "(allow network-outbound (remote unix-socket (path-literal \"/nonexistent/x.sock\")))",
	         base, tmp, base, base, base, base, base, later, base, base, base, base, base, base,
	         base, base, base, base, base, base);
	if (strcmp(text, want) != 0) {
		size_t d = 0;
		while (text[d] && text[d] == want[d])
			d++;
		fail_msg("differs at %zu: got \"%.120s\", want \"%.120s\"", d, text + d, want + d);
	}
	free(text);
	free(tmp);
	confine_policy_free(p);
}

static void test_seatbelt_read_only_temp_dir(void **state) {
	confine_policy *p = NULL;
	char *text = NULL;
	(void)state;
	assert_int_equal(confine_policy_new(CONFINE_MODE_READ_ONLY, at("/ws"), &p, NULL), 0);
	p->private_temp = true;
	p->temp_dir = strdup("/nonexistent/run-1");
	assert_int_equal(confine_profile_seatbelt(p, NULL, &text), 0);
	assert_string_equal(text, "(version 1) (allow default) (deny file-write*) "
	                          "(allow file-write* (literal \"/dev/null\")) "
	                          "(allow file-write* (subpath \"/nonexistent/run-1\"))");
	free(text);
	confine_policy_free(p);
}

/* The unenforced report, per rung and option. */
typedef struct unenforced_case {
	const char *name;
	confine_mode mode;
	unsigned options; /* bits below */
	confine_runner runner;
	const char *keys[5];
	bool partial;
} unenforced_case;

enum {
	PROTECT = 1 << 0,         /* protectedPaths "src" (exists) */
	PROTECT_MISSING = 1 << 1, /* protectedPaths "missing" */
	DENY_OUTSIDE = 1 << 2,    /* denyRead BASE/home/.ssh */
	DENY_INSIDE = 1 << 3,     /* denyRead BASE/ws/.env */
	SOCKET = 1 << 4,          /* allowUnixSockets */
	NO_DEFAULTS = 1 << 5,     /* defaultProtections false */
	CACHE = 1 << 6,           /* writableRoots BASE/cache (.git without hooks) */
	TEMP_DIR = 1 << 7,        /* temp_dir set (a run the library spawns) */
};

#define RO CONFINE_MODE_READ_ONLY
#define WW CONFINE_MODE_WORKSPACE_WRITE
#define BW CONFINE_RUNNER_BWRAP
#define LL CONFINE_RUNNER_LANDLOCK
#define SB CONFINE_RUNNER_SEATBELT
#define RC CONFINE_RUNNER_RUNNER_COMMAND

static const unenforced_case unenforced_cases[] = {
	/* bwrap, for an argv another process spawns (the library's own layered
	 * run: tests/unit/test-profiles-protect.c) */
	{ "bwrap, protected paths existing: held by their names only (no spawner to notice a "
	  "replacement on the host)", WW, PROTECT | NO_DEFAULTS, BW, { "protectedPaths" }, true },
	{ "bwrap, denyRead held by its name only (no Landlock layer)", WW,
	  DENY_OUTSIDE | NO_DEFAULTS, BW, { "denyRead" }, true },
	{ "bwrap, denyRead inside the workspace", WW, DENY_INSIDE | NO_DEFAULTS, BW, { "denyRead" },
	  true },
	{ "bwrap, a protected path missing", WW, PROTECT_MISSING | NO_DEFAULTS, BW,
	  { "protectedPaths" }, true },
	{ "runnerCommand is bwrap-shaped", WW, PROTECT_MISSING | NO_DEFAULTS, RC,
	  { "protectedPaths" }, true },
	{ "bwrap, a repository without commondir: no placeholder for others", WW, 0, BW,
	  { "defaultProtections" }, false },
	{ "bwrap, sockets", WW, SOCKET | NO_DEFAULTS, BW, { "allowUnixSockets" }, false },
	{ "landlock, defaults alone are listed, not partial", WW, TEMP_DIR, LL,
	  { "defaultProtections" }, false },
	{ "landlock, defaults off", WW, NO_DEFAULTS | TEMP_DIR, LL, { NULL }, false },
	{ "landlock, protected", WW, PROTECT | NO_DEFAULTS | TEMP_DIR, LL, { "protectedPaths" },
	  true },
	{ "landlock, denyRead outside the grants", WW, DENY_OUTSIDE | NO_DEFAULTS | TEMP_DIR, LL,
	  { NULL }, false },
	{ "landlock, denyRead inside the workspace", WW, DENY_INSIDE | NO_DEFAULTS | TEMP_DIR, LL,
	  { "denyRead" }, true },
	/* workspace-write's temp area is the run's own dir too: never the
	 * host's /tmp, so an argv built without one (wrap) has none */
	{ "landlock, workspace-write without a temp_dir (wrap)", WW, NO_DEFAULTS, LL,
	  { "privateTemp" }, false },
	{ "landlock, read-only: nothing is writable", RO, PROTECT | DENY_INSIDE | TEMP_DIR, LL,
	  { NULL }, false },
	{ "landlock, read-only without a temp_dir (wrap)", RO, 0, LL, { "privateTemp" }, false },
	{ "seatbelt, read-only without a temp_dir (wrap)", RO, 0, SB, { "privateTemp" }, false },
	{ "seatbelt, read-only with a temp_dir", RO, TEMP_DIR, SB, { NULL }, false },
	{ "bwrap, read-only: its own tmpfs", RO, 0, BW, { NULL }, false },
	/* the launcher's supervisor mediates sockets: allowUnixSockets is enforced */
	{ "landlock, all of it", WW, PROTECT | DENY_INSIDE | SOCKET | TEMP_DIR, LL,
	  { "protectedPaths", "defaultProtections", "denyRead" }, true },
	{ "seatbelt, all of it", WW, PROTECT | PROTECT_MISSING | DENY_INSIDE | SOCKET | CACHE, SB,
	  { NULL }, false },
};

static void test_unenforced_table(void **state) {
	(void)state;
	for (size_t c = 0; c < sizeof unenforced_cases / sizeof unenforced_cases[0]; c++) {
		const unenforced_case *k = &unenforced_cases[c];
		confine_policy *p = NULL;
		confine_unenforced u;
		size_t i;
		assert_int_equal(confine_policy_new(k->mode, at("/ws"), &p, NULL), 0);
		if (k->options & PROTECT)
			assert_int_equal(confine_policy_add_protected_path(p, "src", NULL), 0);
		if (k->options & PROTECT_MISSING)
			assert_int_equal(confine_policy_add_protected_path(p, "missing", NULL), 0);
		if (k->options & DENY_OUTSIDE)
			assert_int_equal(confine_policy_add_deny_read(p, at("/home/.ssh"), NULL), 0);
		if (k->options & DENY_INSIDE)
			assert_int_equal(confine_policy_add_deny_read(p, at("/ws/.env"), NULL), 0);
		if (k->options & SOCKET)
			assert_int_equal(confine_policy_add_unix_socket(p, "/run/s.sock", NULL), 0);
		if (k->options & CACHE)
			assert_int_equal(confine_policy_add_writable_root(p, at("/cache"), NULL), 0);
		if (k->options & NO_DEFAULTS)
			p->default_protections = false;
		if (k->options & TEMP_DIR)
			assert_non_null(p->temp_dir = strdup("/nonexistent/run-1"));
		assert_int_equal(confine_policy_unenforced(p, k->runner, &u), 0);
		for (i = 0; k->keys[i]; i++)
			if (!u.keys[i] || strcmp(u.keys[i], k->keys[i]) != 0)
				fail_msg("%s: key %zu is %s, expected %s", k->name, i,
				         u.keys[i] ? u.keys[i] : "(end)", k->keys[i]);
		if (u.keys[i])
			fail_msg("%s: unexpected key %s", k->name, u.keys[i]);
		assert_int_equal(u.n_keys, i);
		if (u.partial != k->partial)
			fail_msg("%s: partial is %d", k->name, u.partial);
		confine_policy_free(p);
	}
}

static void test_unenforced_bad_input(void **state) {
	confine_policy danger = { .mode = CONFINE_MODE_DANGER_FULL_ACCESS };
	confine_policy ro = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = (char *)"/" };
	confine_unenforced u;
	(void)state;
	assert_int_equal(confine_policy_unenforced(&danger, BW, &u), -EINVAL);
	assert_int_equal(confine_policy_unenforced(&ro, CONFINE_RUNNER_NONE, &u), -EINVAL);
	assert_int_equal(confine_policy_unenforced(&ro, BW, NULL), -EINVAL);
	assert_int_equal(confine_policy_unenforced(&ro, BW, &u), 0);
	assert_int_equal(u.n_keys, 0);
	assert_null(u.keys[0]);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bwrap_workspace_write_every_option),
		cmocka_unit_test(test_bwrap_without_die_with_parent),
		cmocka_unit_test(test_bwrap_read_only_private_temp_and_network),
		cmocka_unit_test(test_bwrap_binds_allowed_sockets_the_private_tmp_hides),
		cmocka_unit_test(test_bwrap_hides_nothing_the_private_tmp_already_hides),
		cmocka_unit_test(test_landlock_workspace_write_options),
		cmocka_unit_test(test_landlock_read_only_temp_dir),
		cmocka_unit_test(test_landlock_deny_read_grants_the_siblings),
		cmocka_unit_test(test_landlock_deny_read_from_the_root),
		cmocka_unit_test(test_seatbelt_every_option),
		cmocka_unit_test(test_seatbelt_read_only_temp_dir),
		cmocka_unit_test(test_unenforced_table),
		cmocka_unit_test(test_unenforced_bad_input),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
