/* SPDX-License-Identifier: MIT */
/*
 * The run's cgroup over cgroup v2 with a delegated subtree (doc/SPEC.md 15,
 * "Limits"), on a fake cgroupfs tree. This host's cgroup v2 (`unified`)
 * has no controllers (the v1 hierarchies hold pids and memory), so no real
 * v2 cgroup can be made here: spawn/cgroup-linux.c is compiled into this
 * test with CF_CGROUP_FAKE_TREE, which points its cgroupfs root and its
 * /proc/self/cgroup at files this test writes. What runs is the library's
 * own code: reading the caller's place ("0::"), the delegation check, the
 * cgroup's name and lock, the bounds written (pids.max, memory.max,
 * memory.swap.max), the one descriptor to join, the figures and the limit
 * that stopped the run read back (pids.peak, memory.peak, pids.events,
 * memory.events), the removal, and the sweep of a dead run's cgroup beside a
 * live one's. What does not: the kernel's enforcement of those files (the
 * world tests, tests/e2e/cli/limits.py, do that on v1 here).
 */
#define CF_CGROUP_FAKE_TREE 1
#include "../../src/lib/spawn/cgroup-linux.c"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "confine.h"

static char tree[512];

static void put(const char *path, const char *text) {
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void put_in(const char *dir, const char *file, const char *text) {
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	put(path, text);
}

static void get(const char *dir, const char *file, char *buf, size_t size) {
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	assert_int_equal(read_text(path, buf, size), 0);
}

static void mkdirs(const char *path) {
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", path);
	for (char *slash = strchr(dir + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		(void)mkdir(dir, 0755);
		*slash = '/';
	}
	(void)mkdir(dir, 0755);
}

/* A host whose cgroup v2 (at the root, or at unified/) delegates the
 * caller's place; subtree is what its cgroup.subtree_control lists. */
static void fake_host(const char *mount, const char *self, const char *place,
                      const char *subtree) {
	char path[PATH_MAX * 2];
	snprintf(tree, sizeof tree, "/tmp/confine-cgroup-v2-XXXXXX");
	assert_non_null(mkdtemp(tree));
	snprintf(fake_root, sizeof fake_root, "%s/sys/fs/cgroup", tree);
	snprintf(fake_self, sizeof fake_self, "%s/self-cgroup", tree);
	put(fake_self, self);
	snprintf(path, sizeof path, "%s%s", fake_root, mount);
	mkdirs(path);
	if (subtree) {
		strcat(path, "/.cgroup2");
		put(path, "");
		snprintf(path, sizeof path, "%s%s%s", fake_root, mount, place);
		mkdirs(path);
		strcat(path, "/cgroup.subtree_control");
		put(path, subtree);
	}
	memset(&host, 0, sizeof host);
	look_once();
	host.looked = true;
}

static void remove_tree(void) {
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tree);
	assert_int_equal(system(cmd), 0);
}

static confine_policy *policy_with(uint64_t pids, uint64_t memory) {
	confine_policy *p = NULL;
	assert_int_equal(confine_policy_new(CONFINE_MODE_READ_ONLY, "/", &p, NULL), 0);
	if (pids)
		assert_int_equal(confine_policy_set_limit(p, CONFINE_LIMIT_PIDS, pids, NULL), 0);
	if (memory)
		assert_int_equal(confine_policy_set_limit(p, CONFINE_LIMIT_MEMORY, memory, NULL), 0);
	return p;
}

static const unsigned BOTH = (1u << CONFINE_LIMIT_PIDS) | (1u << CONFINE_LIMIT_MEMORY);

/* systemd's user service, delegated, under unified/ (a hybrid host) and at
 * the root (a v2-only host): found, both limits held. */
static void delegated_subtree_is_found(void **state) {
	static const struct {
		const char *mount, *self;
	} hosts[] = {
		{ "/unified", "1:name=systemd:/user.slice\n0::/user.slice/user@1000.service/app.slice\n" },
		{ "", "0::/user.slice/user@1000.service/app.slice\n" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++) {
		char want[PATH_MAX * 2];
		fake_host(hosts[i].mount, hosts[i].self, "/user.slice/user@1000.service/app.slice",
		          "cpu io memory pids\n");
		assert_true(host.v2);
		assert_int_equal(host.holds, BOTH);
		assert_string_equal(cf_cgroup_kind(), "cgroup v2");
		snprintf(want, sizeof want, "%s%s/user.slice/user@1000.service/app.slice", fake_root,
		         hosts[i].mount);
		assert_string_equal(host.base[H_PIDS], want);
		assert_string_equal(host.base[H_MEMORY], want);
		remove_tree();
	}
}

/* A subtree without the controllers that cannot take them (here: a write
 * of "+pids +memory" that does not make them listed), or no cgroup2 mount
 * at all: no cgroup, and the rlimits take over (profiles/landlock.c). */
static void undelegated_subtree_is_not_used(void **state) {
	(void)state;
	fake_host("/unified", "0::/user.slice\n", "/user.slice", "cpu io\n");
	assert_false(host.v2);
	assert_int_equal(host.holds, 0);
	remove_tree();
	fake_host("/unified", "0::/user.slice\n", "/user.slice", NULL);
	assert_int_equal(host.holds, 0);
	remove_tree();
	/* The place in /proc/self/cgroup is not there. */
	fake_host("", "0::/gone.slice\n", "/user.slice", "memory pids\n");
	assert_int_equal(host.holds, 0);
	remove_tree();
}

/* The bounds written, one descriptor to join (v2 has one hierarchy), the
 * figures and the memory kill read back, the cgroup removed. */
static void a_run_in_the_delegated_subtree(void **state) {
	confine_policy *p = policy_with(64, 256u << 20);
	struct cf_cgroup *cg = NULL;
	confine_outcome o;
	char buf[256], dir[PATH_MAX];
	int fds[2] = { -1, -1 };
	(void)state;
	fake_host("/unified", "0::/user.slice/u.service\n", "/user.slice/u.service",
	          "memory pids\n");
	assert_int_equal(cf_cgroup_make(p, BOTH, &cg), 0);
	assert_non_null(cg);
	snprintf(dir, sizeof dir, "%s", cg->path[H_PIDS]);
	assert_non_null(strstr(dir, "/user.slice/u.service/" CF_CGROUP_PREFIX));
	get(dir, "pids.max", buf, sizeof buf);
	assert_string_equal(buf, "64");
	get(dir, "memory.max", buf, sizeof buf);
	assert_string_equal(buf, "268435456");
	get(dir, "memory.swap.max", buf, sizeof buf);
	assert_string_equal(buf, "0");
	assert_int_equal(cf_cgroup_join_fds(cg, fds), 1);
	assert_true(fds[0] >= 0 && (fcntl(fds[0], F_GETFD) & FD_CLOEXEC));
	/* Its owner holds it: another run's sweep leaves it. */
	sweep(host.base[H_PIDS]);
	assert_int_equal(access(dir, F_OK), 0);
	/* What the kernel would have counted. */
	put_in(dir, "memory.peak", "268431360\n");
	put_in(dir, "pids.peak", "12\n");
	put_in(dir, "memory.events", "low 0\nhigh 0\nmax 40\noom 1\noom_kill 1\noom_group_kill 0\n");
	memset(&o, 0, sizeof o);
	o.peak_memory = o.peak_pids = -1;
	cf_cgroup_finish(cg, &o);
	assert_true(o.limit_stopped);
	assert_true(o.limit_killed);
	assert_int_equal(o.limit, CONFINE_LIMIT_MEMORY);
	assert_true(o.limit_value == 256u << 20);
	assert_true(o.peak_memory == 268431360);
	assert_true(o.peak_pids == 12);
	assert_int_equal(access(dir, F_OK), -1);
	cf_cgroup_free(cg);
	confine_policy_free(p);
	remove_tree();
}

/* A fork refused at pids.max: "limit reached", not a kill. Only the
 * limits asked for are written. */
static void a_fork_refused_at_the_bound(void **state) {
	confine_policy *p = policy_with(64, 0);
	struct cf_cgroup *cg = NULL;
	confine_outcome o;
	char buf[256], dir[PATH_MAX];
	(void)state;
	fake_host("", "0::/user.slice/u.service\n", "/user.slice/u.service", "memory pids\n");
	assert_int_equal(cf_cgroup_make(p, 1u << CONFINE_LIMIT_PIDS, &cg), 0);
	snprintf(dir, sizeof dir, "%s", cg->path[H_PIDS]);
	get(dir, "memory.max", buf, sizeof buf);
	assert_string_equal(buf, ""); /* not asked for: the kernel's "max" stays */
	put_in(dir, "pids.events", "max 236\n");
	memset(&o, 0, sizeof o);
	cf_cgroup_finish(cg, &o);
	assert_true(o.limit_stopped);
	assert_false(o.limit_killed);
	assert_int_equal(o.limit, CONFINE_LIMIT_PIDS);
	assert_true(o.limit_value == 64);
	cf_cgroup_free(cg);
	confine_policy_free(p);
	remove_tree();
}

/* The next run removes a dead run's cgroup (its lock is free) and keeps a
 * live one's (locked), and touches nothing not named confine-run.*. */
static void the_sweep_takes_only_the_dead(void **state) {
	confine_policy *p = policy_with(64, 0);
	struct cf_cgroup *cg = NULL;
	char dead[PATH_MAX * 2], live[PATH_MAX * 2], other[PATH_MAX * 2];
	int live_fd;
	(void)state;
	fake_host("", "0::/u.service\n", "/u.service", "memory pids\n");
	snprintf(dead, sizeof dead, "%s/u.service/" CF_CGROUP_PREFIX "999991.1", fake_root);
	snprintf(live, sizeof live, "%s/u.service/" CF_CGROUP_PREFIX "999992.1", fake_root);
	snprintf(other, sizeof other, "%s/u.service/someone-else.scope", fake_root);
	assert_int_equal(fake_mkdir(dead, 0755), 0);
	assert_int_equal(fake_mkdir(live, 0755), 0);
	assert_int_equal(fake_mkdir(other, 0755), 0);
	live_fd = open(live, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(live_fd >= 0);
	assert_int_equal(flock(live_fd, LOCK_EX | LOCK_NB), 0);
	assert_int_equal(cf_cgroup_make(p, 1u << CONFINE_LIMIT_PIDS, &cg), 0);
	assert_int_equal(access(dead, F_OK), -1);
	assert_int_equal(access(live, F_OK), 0);
	assert_int_equal(access(other, F_OK), 0);
	cf_cgroup_free(cg);
	close(live_fd);
	confine_policy_free(p);
	remove_tree();
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(delegated_subtree_is_found),
		cmocka_unit_test(undelegated_subtree_is_not_used),
		cmocka_unit_test(a_run_in_the_delegated_subtree),
		cmocka_unit_test(a_fork_refused_at_the_bound),
		cmocka_unit_test(the_sweep_takes_only_the_dead),
	};
	/* CONFINE_NO_CGROUP would take the fake away too. */
	unsetenv("CONFINE_NO_CGROUP");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
