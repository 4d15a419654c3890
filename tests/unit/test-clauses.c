/* SPDX-License-Identifier: MIT */
/* The report per clause (doc/SPEC.md 15): one table, each case a rung's
 * facts and a policy, and the status and layers every named clause must
 * get; then the summaries agree with the clauses. */
#include <errno.h>
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

#include <cmocka.h>

#include "confine.h"
#include "rungs/clauses.h"
#include "rungs/rung.h"
#include "testlib.h"

#define BW CONFINE_RUNNER_BWRAP
#define LL CONFINE_RUNNER_LANDLOCK
#define SB CONFINE_RUNNER_SEATBELT
#define RC CONFINE_RUNNER_RUNNER_COMMAND
#define E CONFINE_CLAUSE_ENFORCED
#define P CONFINE_CLAUSE_PARTIAL
#define U CONFINE_CLAUSE_UNENFORCED
#define L_BWRAP CONFINE_LAYER_BWRAP
#define L_LL CONFINE_LAYER_LANDLOCK
#define L_SC CONFINE_LAYER_SECCOMP
#define L_SV CONFINE_LAYER_SUPERVISOR

/* Subjects are relative to the fixture's workspace ("" = none; "=x" the
 * literal value x). */
typedef struct want {
	const char *clause, *subject;
	confine_clause_status status;
	unsigned layers;
	const char *needs; /* NULL: not checked */
} want;

typedef struct clause_case {
	const char *name;
	confine_runner runner;
	bool layered;
	bool spawned_here;
	int abi;
	bool supervisor;
	confine_mode mode;
	bool network_off;
	bool deny_env;      /* denyRead ws/.env */
	bool deny_missing;  /* denyRead ws/not-there */
	bool protect_conf;  /* protectedPaths conf (exists) and later.txt (missing) */
	want wants[8];
} clause_case;

#define RO CONFINE_MODE_READ_ONLY
#define WW CONFINE_MODE_WORKSPACE_WRITE

static const clause_case cases[] = {
	{ "layered bwrap, workspace-write: everything holds but a name-held mask", BW, true, true, 7,
	  true, WW, false, true, false, true,
	  { { "mode", "=workspace-write", E, L_BWRAP | L_LL, NULL },
	    { "protectedPaths", "conf", E, L_BWRAP, NULL },
	    { "protectedPaths", "later.txt", E, L_BWRAP, NULL }, /* a stand-in, for the run */
	    { "defaultProtections", ".git/hooks", E, L_BWRAP, NULL },
	    /* a save on the host over the name detaches bwrap's mask */
	    { "denyRead", ".env", P, L_BWRAP | L_LL, NULL },
	    { "unix-sockets", "", E, L_BWRAP | L_SV, NULL },
	    { "setid", "", E, L_SV, NULL },
	    { "signals", "", E, L_BWRAP, NULL } } },
	{ "plain bwrap (wrap): no launcher, no supervisor", BW, false, false, 7, true, WW, false, false,
	  false, false,
	  { { "mode", "=workspace-write", E, L_BWRAP, NULL },
	    { "unix-sockets", "", U, 0, "the launcher inside bubblewrap" },
	    { "setid", "", U, 0, NULL },
	    { "abstract-unix-sockets", "", U, 0, NULL },
	    { "metadata", "", E, L_BWRAP, NULL } } },
	{ "plain bwrap with the network off: abstract sockets in its namespace", BW, false, false, 7, true,
	  WW, true, false, false, false,
	  { { "network", "=off", E, L_BWRAP, NULL },
	    { "abstract-unix-sockets", "", E, L_BWRAP, NULL } } },
	{ "Landlock ABI 7, workspace-write", LL, false, false, 7, true, WW, true, true, true, true,
	  { { "mode", "=workspace-write", E, L_LL, NULL },
	    { "protectedPaths", "conf", U, 0, "bubblewrap" },
	    { "defaultProtections", ".git/config", U, 0, "bubblewrap" },
	    { "denyRead", ".env", U, 0, "bubblewrap" },
	    { "denyRead", "not-there", P, 0, NULL }, /* a file made later is not hidden */
	    /* the refusing proxy's one way out: the supervisor's */
	    { "network", "=off", E, L_SC | L_SV, NULL },
	    { "unix-sockets", "", E, L_SV, NULL },
	    { "signals", "", E, L_LL, NULL } } },
	{ "Landlock ABI 4: the mode partial, no scopes", LL, false, false, 4, true, RO, false, false, false,
	  false,
	  { { "mode", "=read-only", P, L_LL, "Landlock ABI 5 or bubblewrap" },
	    { "signals", "", U, 0, "Landlock ABI 6 or bubblewrap" },
	    { "abstract-unix-sockets", "", U, 0, NULL },
	    { "setid", "", E, L_LL, NULL } } },
	{ "Landlock without a supervisor", LL, false, false, 7, false, WW, false, false, false, false,
	  { { "metadata", "", U, 0, "bubblewrap" },
	    { "unix-sockets", "", U, 0, "seccomp user notification" },
	    { "setid", "", U, 0, NULL } } },
	{ "read-only: protected paths hold by the mode", LL, false, false, 7, true, RO, false, false, false,
	  true,
	  { { "protectedPaths", "conf", E, L_LL, NULL }, { "denyRead", "not-there", P, 0, NULL } } },
	{ "Seatbelt holds the file clauses", SB, false, false, 0, false, WW, false, true, false, true,
	  { { "protectedPaths", "conf", E, CONFINE_LAYER_SEATBELT, NULL },
	    { "denyRead", ".env", E, CONFINE_LAYER_SEATBELT, NULL } } },
	{ "runnerCommand: bwrap-shaped, no launcher", RC, false, false, 7, true, WW, false, false, false,
	  false,
	  { { "mode", "=workspace-write", E, CONFINE_LAYER_RUNNER_COMMAND, NULL },
	    { "setid", "", U, 0, NULL } } },
};

static char workspace[2048];

static int group_setup(void **state) {
	char *f;
	(void)state;
	if (tl_make_workdir("clauses", workspace, sizeof workspace) < 0)
		return -1;
	{
		char d[2200];
		snprintf(d, sizeof d, "%s/.git", workspace);
		mkdir(d, 0755);
		snprintf(d, sizeof d, "%s/.git/hooks", workspace);
		mkdir(d, 0755);
		snprintf(d, sizeof d, "%s/conf", workspace);
		mkdir(d, 0755);
	}
	f = tl_write_file(workspace, ".git/config", "[core]\n", 0644);
	free(f);
	f = tl_write_file(workspace, ".env", "SECRET=1\n", 0600);
	free(f);
	return 0;
}

static int group_teardown(void **state) {
	(void)state;
	tl_remove_tree(workspace);
	return 0;
}

static const confine_clause *find(const confine_clause *c, size_t n, const char *clause,
                                  const char *subject) {
	for (size_t i = 0; i < n; i++) {
		if (strcmp(c[i].clause, clause) != 0)
			continue;
		if (!subject && !c[i].subject)
			return &c[i];
		if (subject && c[i].subject && strcmp(c[i].subject, subject) == 0)
			return &c[i];
	}
	return NULL;
}

static void test_table(void **state) {
	(void)state;
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		const clause_case *t = &cases[k];
		char env[2200], missing[2200], conf[2200], later[2200];
		char *deny[3] = { NULL }, *protect[3] = { NULL };
		size_t nd = 0;
		confine_policy policy = { .mode = t->mode, .workspace_root = workspace,
			                  .default_protections = true, .private_temp = true };
		cf_clause_facts facts = { .runner = t->runner, .layered = t->layered,
			                  .spawned_here = t->spawned_here, .landlock_abi = t->abi,
			                  .supervisor = t->supervisor };
		confine_clause *clauses = NULL;
		size_t n = 0;
		char **summary = NULL;
		bool all = true;
		snprintf(env, sizeof env, "%s/.env", workspace);
		snprintf(missing, sizeof missing, "%s/not-there", workspace);
		snprintf(conf, sizeof conf, "%s/conf", workspace);
		snprintf(later, sizeof later, "%s/later.txt", workspace);
		if (t->deny_env)
			deny[nd++] = env;
		if (t->deny_missing || t->mode == RO)
			deny[nd++] = missing;
		policy.deny_read = deny;
		if (t->protect_conf) {
			protect[0] = conf;
			protect[1] = later;
		}
		policy.protected_paths = protect;
		policy.network = t->network_off ? CONFINE_NETWORK_OFF : CONFINE_NETWORK_ON;
		assert_int_equal(cf_clauses_make(&policy, &facts, &clauses, &n), 0);
		for (size_t w = 0; w < 8 && t->wants[w].clause; w++) {
			const want *x = &t->wants[w];
			char subject[2400];
			const char *s = NULL;
			const confine_clause *c;
			if (x->subject[0] == '=')
				s = x->subject + 1;
			else if (x->subject[0]) {
				snprintf(subject, sizeof subject, "%s/%s", workspace, x->subject);
				s = subject;
			}
			c = find(clauses, n, x->clause, s);
			if (!c)
				fail_msg("%s: no clause %s %s", t->name, x->clause, s ? s : "");
			if (c->status != x->status || c->layers != x->layers)
				fail_msg("%s: %s %s is %s with layers %#x, want %s with %#x (%s)", t->name,
				         x->clause, s ? s : "", confine_clause_status_name(c->status), c->layers,
				         confine_clause_status_name(x->status), x->layers,
				         c->reason ? c->reason : "");
			if (x->needs && (!c->needs || strcmp(c->needs, x->needs) != 0))
				fail_msg("%s: %s needs '%s', want '%s'", t->name, x->clause,
				         c->needs ? c->needs : "", x->needs);
			/* Not enforced always says why. */
			if (c->status != E && !c->reason)
				fail_msg("%s: %s is not enforced without a reason", t->name, x->clause);
		}
		/* The summary names exactly the clauses not enforced. */
		assert_int_equal(cf_clauses_unenforced(clauses, n, &summary), 0);
		for (size_t i = 0; i < n; i++) {
			bool listed = false;
			for (size_t j = 0; summary && summary[j]; j++)
				listed |= strcmp(summary[j], clauses[i].clause) == 0;
			if (clauses[i].status != E && !listed)
				fail_msg("%s: %s is not in the summary", t->name, clauses[i].clause);
			all = all && clauses[i].status == E;
		}
		assert_int_equal(cf_clauses_all_enforced(clauses, n), all);
		assert_int_equal(summary == NULL, all);
		confine_strv_free(summary);
		cf_clauses_free(clauses, n);
	}
}

/* privateTemp (issue 21): the run's own directory on Landlock, never the
 * host's /tmp; in workspace-write the host's /dev/shm is granted too,
 * shared, so the clause is partial there and says why. */
static void test_private_temp(void **state) {
	static const struct {
		confine_runner runner;
		confine_mode mode;
		bool temp_dir;
		const char *subject; /* NULL: none; "@": the temp dir */
		confine_clause_status status; /* P: P where /dev/shm exists, else E */
		unsigned layers;
		const char *reason_has; /* NULL: no reason */
	} temps[] = {
		{ LL, WW, true, "@", P, L_LL | CONFINE_LAYER_LIBRARY, "/dev/shm" },
		{ LL, RO, true, "@", E, L_LL | CONFINE_LAYER_LIBRARY, NULL },
		{ LL, WW, false, NULL, P, 0, "none:" },
		{ LL, RO, false, NULL, E, 0, "none:" },
		{ BW, WW, true, "/tmp", E, L_BWRAP, NULL },
		{ SB, WW, true, "/tmp", U, 0, "per-user temp directory" },
		{ SB, RO, true, "@", E, CONFINE_LAYER_SEATBELT | CONFINE_LAYER_LIBRARY, NULL },
	};
	struct stat st;
	bool shm = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode);
	(void)state;
	for (size_t k = 0; k < sizeof temps / sizeof temps[0]; k++) {
		confine_policy policy = { .mode = temps[k].mode, .workspace_root = workspace,
			                  .private_temp = true,
			                  .temp_dir = temps[k].temp_dir ? (char *)"/tmp/confine-tmp.t"
			                                                : NULL };
		cf_clause_facts facts = { .runner = temps[k].runner, .landlock_abi = 7,
			                  .supervisor = true };
		confine_clause_status expect = temps[k].status == P && !shm ? E : temps[k].status;
		const char *subject = temps[k].subject && temps[k].subject[0] == '@'
		                          ? "/tmp/confine-tmp.t"
		                          : temps[k].subject;
		confine_clause *clauses = NULL;
		const confine_clause *c;
		size_t n = 0;
		assert_int_equal(cf_clauses_make(&policy, &facts, &clauses, &n), 0);
		c = find(clauses, n, "privateTemp", subject);
		if (!c)
			fail_msg("case %zu: no privateTemp clause %s", k, subject ? subject : "");
		if (c->status != expect || c->layers != temps[k].layers)
			fail_msg("case %zu: privateTemp is %s with layers %#x (%s)", k,
			         confine_clause_status_name(c->status), c->layers,
			         c->reason ? c->reason : "");
		if (temps[k].reason_has && expect != E &&
		    (!c->reason || !strstr(c->reason, temps[k].reason_has)))
			fail_msg("case %zu: reason '%s' lacks '%s'", k, c->reason ? c->reason : "",
			         temps[k].reason_has);
		if (temps[k].reason_has && !strcmp(temps[k].reason_has, "none:") &&
		    (!c->reason || strncmp(c->reason, "none:", 5) != 0))
			fail_msg("case %zu: reason '%s' is not none:", k, c->reason ? c->reason : "");
		/* the host's /tmp is never Landlock's temp area */
		if (temps[k].runner == LL && c->subject && !strcmp(c->subject, "/tmp"))
			fail_msg("case %zu: Landlock's temp area is the host's /tmp", k);
		cf_clauses_free(clauses, n);
	}
}

/* limits.temp (doc/SPEC.md 15, "Limits"): the launcher's sized tmpfs where
 * a launcher runs and there is a temp area of the run's own; else
 * unenforced, naming what would hold it. */
static void test_limit_temp(void **state) {
	static const struct {
		confine_runner runner;
		bool layered, temp_dir, private_temp, shm_socket;
		confine_mode mode;
		confine_clause_status status;
		unsigned layers;
		const char *needs_has; /* NULL: no needs */
	} rows[] = {
		{ BW, true, false, true, false, WW, E, L_BWRAP, NULL },
		{ BW, true, false, true, false, RO, E, L_BWRAP, NULL },
		{ BW, false, false, true, false, WW, U, 0, "the launcher inside bubblewrap" },
		{ RC, false, false, true, false, WW, U, 0, "the launcher inside bubblewrap" },
		/* F6: the granted /dev/shm is made a private sized tmpfs too
		 * (--private-shm)... */
		{ LL, false, true, true, false, WW, E, L_LL, NULL },
		/* ...but not where a socket the policy allows lies in it: the
		 * host's, not sized (partial where /dev/shm exists: the status
		 * is adjusted below) */
		{ LL, false, true, true, true, WW, P, L_LL, "bubblewrap" },
		{ LL, false, true, true, false, RO, E, L_LL, NULL },
		{ LL, false, false, true, false, WW, U, 0, "a run confine spawns" },
		{ SB, false, true, true, false, RO, U, 0, "sized tmpfs" },
		/* read-only without a temp area: nothing to fill */
		{ LL, false, false, false, false, RO, E, 0, NULL },
	};
	(void)state;
	for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
		confine_policy policy = { .mode = rows[k].mode, .workspace_root = workspace,
			                  .private_temp = rows[k].private_temp,
			                  .temp_dir = rows[k].temp_dir ? (char *)"/tmp/confine-tmp.t"
			                                               : NULL };
		char *shm_socket[] = { (char *)"/dev/shm/agent.sock", NULL };
		/* root: the Landlock rung needs no user namespace for the mount */
		cf_clause_facts facts = { .runner = rows[k].runner, .layered = rows[k].layered,
			                  .landlock_abi = 7, .supervisor = true, .root = true };
		confine_clause *clauses = NULL;
		const confine_clause *c;
		size_t n = 0;
		struct stat st;
		bool shm = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode);
		confine_clause_status expect_status = rows[k].status == P && !shm ? E : rows[k].status;
		const char *needs_has = rows[k].status == P && !shm ? NULL : rows[k].needs_has;
		policy.limits[CONFINE_LIMIT_TEMP] = 10u << 20;
		policy.limits_given = 1u << CONFINE_LIMIT_TEMP;
		if (rows[k].shm_socket)
			policy.allow_unix_sockets = shm_socket;
		assert_int_equal(cf_clauses_make(&policy, &facts, &clauses, &n), 0);
		c = find(clauses, n, "limits.temp", "10 MiB");
		if (!c)
			fail_msg("case %zu: no limits.temp clause", k);
		if (c->status != expect_status || c->layers != rows[k].layers)
			fail_msg("case %zu: limits.temp is %s with layers %#x (%s)", k,
			         confine_clause_status_name(c->status), c->layers,
			         c->reason ? c->reason : "");
		if (expect_status == P && (!c->reason || !strstr(c->reason, "/dev/shm")))
			fail_msg("case %zu: reason '%s' does not name /dev/shm", k,
			         c->reason ? c->reason : "");
		if (needs_has && (!c->needs || !strstr(c->needs, needs_has)))
			fail_msg("case %zu: needs '%s' lacks '%s'", k, c->needs ? c->needs : "",
			         needs_has);
		if (!needs_has && c->needs)
			fail_msg("case %zu: needs '%s' on an enforced clause", k, c->needs);
		cf_clauses_free(clauses, n);
	}
}

/* A layer a run did not apply is taken away; a clause left with none is
 * unenforced with the reason given. */
static void test_drop_layers(void **state) {
	confine_policy policy = { .mode = WW, .workspace_root = workspace, .private_temp = true };
	cf_clause_facts facts = { .runner = LL, .landlock_abi = 7, .supervisor = true };
	confine_clause *clauses = NULL, *copy = NULL;
	size_t n = 0;
	const confine_clause *c;
	(void)state;
	assert_int_equal(cf_clauses_make(&policy, &facts, &clauses, &n), 0);
	assert_int_equal(cf_clauses_copy(clauses, n, &copy), 0);
	assert_int_equal(cf_clauses_drop_layers(copy, n, L_SV, "no supervisor on this run"), 0);
	c = find(copy, n, "metadata", NULL);
	assert_non_null(c);
	assert_int_equal(c->status, U);
	assert_string_equal(c->reason, "no supervisor on this run");
	c = find(copy, n, "devices", NULL); /* Landlock still holds it */
	assert_int_equal(c->status, E);
	assert_int_equal(c->layers, L_LL);
	c = find(clauses, n, "metadata", NULL); /* the original is untouched */
	assert_int_equal(c->status, E);
	cf_clauses_free(clauses, n);
	cf_clauses_free(copy, n);
}

/* The network allowlist (doc/SPEC.md 15): enforced by the supervisor on
 * Landlock and in a run the library spawns on layered bwrap (which then
 * keeps the host's network: abstract sockets are Landlock's to scope);
 * unenforced in a bwrap argv for others, and once the supervisor is gone. */
static void test_network_allowlist(void **state) {
	static char host[] = "example.org";
	char *allow[] = { host, NULL };
	confine_policy policy = { .mode = WW, .workspace_root = workspace, .private_temp = true,
	                          .network = CONFINE_NETWORK_OFF, .network_allow = allow };
	static const struct {
		cf_clause_facts facts;
		confine_clause_status status;
		confine_clause_status abstract;
	} rows[] = {
		{ { .runner = LL, .landlock_abi = 7, .supervisor = true }, E, E },
		{ { .runner = LL, .landlock_abi = 7, .supervisor = false }, U, E },
		{ { .runner = LL, .landlock_abi = 3, .supervisor = true }, U, U },
		{ { .runner = BW, .layered = true, .spawned_here = true, .landlock_abi = 7,
		    .supervisor = true }, E, E },
		{ { .runner = BW, .layered = true, .spawned_here = false, .landlock_abi = 7,
		    .supervisor = true }, E, E },
		{ { .runner = BW, .layered = false, .spawned_here = false, .landlock_abi = 7,
		    .supervisor = true }, U, E },
	};
	(void)state;
	for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
		confine_clause *clauses = NULL;
		size_t n = 0;
		const confine_clause *c, *a;
		assert_int_equal(cf_clauses_make(&policy, &rows[k].facts, &clauses, &n), 0);
		c = find(clauses, n, "network", "allowlist");
		a = find(clauses, n, "abstract-unix-sockets", NULL);
		assert_non_null(c);
		assert_non_null(a);
		if (c->status != rows[k].status || a->status != rows[k].abstract)
			fail_msg("row %zu: network %d abstract %d", k, (int)c->status, (int)a->status);
		if (rows[k].status == E) {
			assert_int_equal(c->layers, L_SV);
			assert_int_equal(cf_clauses_drop_layers(clauses, n, L_SV, "no supervisor"), 0);
			assert_int_equal(c->status, U);
		}
		cf_clauses_free(clauses, n);
	}
}

/* On layered bwrap the network off is bwrap's namespace alone: the launcher
 * inside is given the network on (no --deny-network, so no seccomp filter
 * of families), and a denyRead under /tmp is hidden by bwrap's private
 * /tmp, which no Landlock rule of the launcher reaches. */
static void test_layered_bwrap_truths(void **state) {
	char tmp_file[] = "/tmp/confine-clauses-XXXXXX";
	char *deny[2] = { tmp_file, NULL };
	int fd = mkstemp(tmp_file);
	confine_policy policy = { .mode = RO, .workspace_root = workspace, .deny_read = deny,
		                  .network = CONFINE_NETWORK_OFF, .private_temp = true };
	cf_clause_facts facts = { .runner = BW, .layered = true, .spawned_here = true,
		                  .landlock_abi = 7, .supervisor = true };
	confine_clause *clauses = NULL;
	const confine_clause *c;
	size_t n = 0;
	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(cf_clauses_make(&policy, &facts, &clauses, &n), 0);
	assert_non_null(c = find(clauses, n, "network", "off"));
	assert_int_equal(c->status, E);
	assert_int_equal(c->layers, L_BWRAP);
	assert_non_null(c = find(clauses, n, "denyRead", tmp_file));
	assert_int_equal(c->status, E);
	assert_int_equal(c->layers, L_BWRAP);
	/* the mode's layers do include the launcher's Landlock */
	assert_non_null(c = find(clauses, n, "mode", "read-only"));
	assert_int_equal(c->layers, L_BWRAP | L_LL);
	cf_clauses_free(clauses, n);
	unlink(tmp_file);
}

/* Every row of the rung table has a clause table, and every clause it can
 * leave open says why and names its own layer (a new rung cannot leave a
 * reason out: the engine prints the row's words). */
static void test_every_row_says_why(void **state) {
	(void)state;
	for (size_t i = 0; cf_runners[i]; i++) {
		const cf_runner_def *def = cf_runners[i];
		const cf_rung_holds *h = def->holds;
		if (!h)
			fail_msg("%s: no clause table", confine_runner_name(def->id));
		if (!h->layer)
			fail_msg("%s: no layer of its own", confine_runner_name(def->id));
		if (h->protect == CF_RUNG_HOLDS_NOT && !h->protect_gap.why)
			fail_msg("%s: protectedPaths left open without a reason", confine_runner_name(def->id));
		if (h->defaults == CF_RUNG_HOLDS_NOT && !h->defaults_gap.why)
			fail_msg("%s: defaultProtections left open without a reason", confine_runner_name(def->id));
		if ((h->protect == CF_RUNG_HOLDS_BINDS || h->defaults == CF_RUNG_HOLDS_BINDS ||
		     h->temp == CF_RUNG_TEMP_TMPFS) && !h->binds_layer)
			fail_msg("%s: binds without a binds layer", confine_runner_name(def->id));
		if (h->binds_layer && !h->deny_by_name)
			fail_msg("%s: a mask by name without its reason", confine_runner_name(def->id));
		if (h->deny_read_open && !h->deny_read_gap.why)
			fail_msg("%s: denyRead left open without a reason", confine_runner_name(def->id));
		if (!h->metadata && !h->metadata_gap.why)
			fail_msg("%s: metadata left open without a reason", confine_runner_name(def->id));
		if (!h->unix_alone && !h->unix_gap.why)
			fail_msg("%s: unix-sockets left open without a reason", confine_runner_name(def->id));
		if (h->launcher != CF_RUNG_IS_LAUNCHER && !h->allowlist_needs)
			fail_msg("%s: the allowlist left open without what it needs", confine_runner_name(def->id));
		if (!h->limit_temp_gap.why)
			fail_msg("%s: limits.temp left open without a reason", confine_runner_name(def->id));
	}
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_network_allowlist),
		cmocka_unit_test(test_drop_layers),
		cmocka_unit_test(test_private_temp),
		cmocka_unit_test(test_layered_bwrap_truths),
		cmocka_unit_test(test_every_row_says_why),
		cmocka_unit_test(test_limit_temp),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
