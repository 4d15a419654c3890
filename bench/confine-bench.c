/* SPDX-License-Identifier: MIT */
/*
 * confine-bench: what confinement costs, measured side by side.
 *
 * One process measures the wall time to spawn and wait for /bin/true bare,
 * through each runner called directly, through the library on each rung and
 * through the `confine run` CLI. The variants are interleaved run by run
 * (round-robin, the starting variant rotating each round) so that drift in
 * the machine's speed (frequency scaling, page cache, other load) falls on
 * every variant alike. It also measures a cached confine() call, the
 * first-call probe of each rung, peak resident memory, and how confined runs
 * scale with concurrency. See doc/BENCHMARKS.md for the method and figures.
 *
 * Figures are printed, never asserted: timing belongs in a benchmark, not in
 * tests that fail on a loaded machine.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-config.h"
#include "config.h"
#include "confine.h"

extern char **environ;

#define TRUE_PATH "/bin/true"
#define SH_PATH "/bin/sh"
#define MIN_ROUNDS 200

/* ------------------------------------------------------------------------ */
/* Options                                                                  */

enum {
	SECTION_MEMORY = 1u << 0,
	SECTION_SPAWN = 1u << 1,
	SECTION_CACHED = 1u << 2,
	SECTION_PROBE = 1u << 3,
	SECTION_SCALING = 1u << 4,
	SECTION_ALL = (1u << 5) - 1,
};

typedef struct bench_options {
	unsigned rounds;
	unsigned warmup;
	unsigned long iterations;  /* cached confine() calls per measurement */
	unsigned probe_reps;
	double scale_seconds;      /* per concurrency level and variant */
	bool scaling;
	bool quick;
	/* Touch this much anonymous memory before the spawn section, to show
	 * how a large caller (an agent) changes spawn costs. */
	unsigned long caller_mib;
	/* Sections to run, as a set of SECTION_* bits (--only). */
	unsigned sections;
	const char *launcher;
	const char *cli;
	const char *bwrap;         /* NULL: search $PATH */
} bench_options;

static void usage(FILE *out) {
	fprintf(out,
	        "usage: confine-bench [--rounds N] [--warmup N] [--iterations N] [--probe-reps N]\n"
	        "                     [--scale-seconds S] [--no-scaling] [--quick]\n"
	        "                     [--launcher PATH] [--cli PATH] [--bwrap PATH]\n"
	        "                     [--only memory,spawn,cached,probe,scaling] [--caller-mib N]\n"
	        "\n"
	        "Defaults: %u rounds after 20 warm-up rounds, 200000 cached confine() calls,\n"
	        "10 probe repetitions, 1.0 s per scaling point, launcher %s,\n"
	        "CLI %s, bwrap from $PATH. --quick is for trying the program out:\n"
	        "it allows fewer than %u rounds and shortens everything. --caller-mib N makes\n"
	        "this process touch N MiB before the spawn section, as a large caller would.\n",
	        300u, CONFINE_BENCH_LAUNCHER, CONFINE_BENCH_CLI, MIN_ROUNDS);
}

static int parse_unsigned(const char *opt, const char *text, unsigned long max,
                          unsigned long *ret) {
	char *end;
	unsigned long v;
	errno = 0;
	if (!text || !*text || *text == '-') {
		fprintf(stderr, "confine-bench: %s needs a positive integer, got \"%s\"\n", opt,
		        text ? text : "");
		return -1;
	}
	v = strtoul(text, &end, 10);
	if (errno || *end || v == 0 || v > max) {
		fprintf(stderr, "confine-bench: %s needs a positive integer up to %lu, got \"%s\"\n",
		        opt, max, text);
		return -1;
	}
	*ret = v;
	return 0;
}

/* Long on purpose: one branch per option, in the order of the usage text. */
static int parse_options(int argc, char **argv, bench_options *o) {
	bool rounds_given = false;
	o->rounds = 300;
	o->warmup = 20;
	o->iterations = 200000;
	o->probe_reps = 10;
	o->scale_seconds = 1.0;
	o->scaling = true;
	o->quick = false;
	o->sections = SECTION_ALL;
	o->caller_mib = 0;
	o->launcher = CONFINE_BENCH_LAUNCHER;
	o->cli = CONFINE_BENCH_CLI;
	o->bwrap = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		unsigned long v;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--quick")) {
			o->quick = true;
		} else if (!strcmp(a, "--no-scaling")) {
			o->scaling = false;
		} else if (!strcmp(a, "--only")) {
			/* For profiling one section (perf, callgrind) without the rest. */
			static const struct {
				const char *name;
				unsigned bit;
			} names[] = {{"memory", SECTION_MEMORY}, {"spawn", SECTION_SPAWN},
			             {"cached", SECTION_CACHED}, {"probe", SECTION_PROBE},
			             {"scaling", SECTION_SCALING}};
			char list[256], *save = NULL;
			if (!val || !*val || strlen(val) >= sizeof list) {
				fprintf(stderr, "confine-bench: --only needs a list of sections, got \"%s\"\n",
				        val ? val : "");
				return -1;
			}
			memcpy(list, val, strlen(val) + 1);
			o->sections = 0;
			for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				size_t k;
				for (k = 0; k < sizeof names / sizeof names[0]; k++)
					if (!strcmp(tok, names[k].name))
						break;
				if (k == sizeof names / sizeof names[0]) {
					fprintf(stderr,
					        "confine-bench: --only: unknown section \"%s\" (memory, spawn, "
					        "cached, probe, scaling)\n",
					        tok);
					return -1;
				}
				o->sections |= names[k].bit;
			}
			if (!o->sections) {
				fprintf(stderr, "confine-bench: --only needs at least one section\n");
				return -1;
			}
			i++;
		} else if (!strcmp(a, "--rounds") || !strcmp(a, "--warmup") ||
		           !strcmp(a, "--iterations") || !strcmp(a, "--probe-reps")) {
			if (parse_unsigned(a, val, 100000000ul, &v) < 0)
				return -1;
			if (!strcmp(a, "--rounds")) {
				o->rounds = (unsigned)v;
				rounds_given = true;
			} else if (!strcmp(a, "--warmup")) {
				o->warmup = (unsigned)v;
			} else if (!strcmp(a, "--iterations")) {
				o->iterations = v;
			} else {
				o->probe_reps = (unsigned)v;
			}
			i++;
		} else if (!strcmp(a, "--caller-mib")) {
			if (parse_unsigned(a, val, 65536ul, &o->caller_mib) < 0)
				return -1;
			i++;
		} else if (!strcmp(a, "--scale-seconds")) {
			char *end;
			double d;
			errno = 0;
			d = val ? strtod(val, &end) : 0;
			if (!val || errno || *end || !(d > 0 && d <= 600)) {
				fprintf(stderr,
				        "confine-bench: --scale-seconds needs a number in (0, 600], got \"%s\"\n",
				        val ? val : "");
				return -1;
			}
			o->scale_seconds = d;
			i++;
		} else if (!strcmp(a, "--launcher") || !strcmp(a, "--cli") || !strcmp(a, "--bwrap")) {
			if (!val || !*val) {
				fprintf(stderr, "confine-bench: %s needs a path\n", a);
				return -1;
			}
			if (!strcmp(a, "--launcher"))
				o->launcher = val;
			else if (!strcmp(a, "--cli"))
				o->cli = val;
			else
				o->bwrap = val;
			i++;
		} else {
			fprintf(stderr, "confine-bench: unknown argument \"%s\"\n", a);
			usage(stderr);
			return -1;
		}
	}
	if (o->quick) {
		if (!rounds_given)
			o->rounds = 40;
		o->warmup = o->warmup < 5 ? o->warmup : 5;
		o->iterations = o->iterations < 20000 ? o->iterations : 20000;
		o->probe_reps = o->probe_reps < 3 ? o->probe_reps : 3;
		o->scale_seconds = o->scale_seconds < 0.3 ? o->scale_seconds : 0.3;
	} else if (o->rounds < MIN_ROUNDS) {
		fprintf(stderr, "confine-bench: --rounds %u is below the %u the method needs "
		                "(use --quick to try the program out)\n",
		        o->rounds, MIN_ROUNDS);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Clocks, statistics                                                       */

static long long now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* CPU time of this process and of its reaped children, ms. */
static double cpu_ms(void) {
	struct rusage self, children;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &children);
	return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + children.ru_utime.tv_sec +
	                children.ru_stime.tv_sec) * 1e3 +
	       (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + children.ru_utime.tv_usec +
	                children.ru_stime.tv_usec) / 1e3;
}

static int cmp_double(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Linear interpolation between closest ranks; `sorted` is ascending. */
static double percentile(const double *sorted, size_t n, double p) {
	double rank, frac;
	size_t lo;
	if (n == 0)
		return NAN;
	rank = p / 100.0 * (double)(n - 1);
	lo = (size_t)rank;
	frac = rank - (double)lo;
	if (lo + 1 >= n)
		return sorted[n - 1];
	return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

typedef struct stats {
	size_t n;
	double median, p10, p90, min, max;
} stats;

/* Statistics of the non-negative entries of `v` (negative ones are failed runs). */
static stats compute_stats(const double *v, size_t n) {
	stats s = {0, NAN, NAN, NAN, NAN, NAN};
	double *tmp = malloc((n ? n : 1) * sizeof *tmp);
	size_t k = 0;
	if (!tmp)
		return s;
	for (size_t i = 0; i < n; i++)
		if (v[i] >= 0)
			tmp[k++] = v[i];
	qsort(tmp, k, sizeof *tmp, cmp_double);
	s.n = k;
	if (k) {
		s.median = percentile(tmp, k, 50);
		s.p10 = percentile(tmp, k, 10);
		s.p90 = percentile(tmp, k, 90);
		s.min = tmp[0];
		s.max = tmp[k - 1];
	}
	free(tmp);
	return s;
}

/* snprintf for messages that embed other messages: truncation is expected
 * and harmless there, so it goes through vsnprintf, out of the compiler's
 * truncation analysis. */
static void set_message(char *dst, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_message(char *dst, size_t size, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, size, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------------------ */
/* Plain process helpers                                                    */

/* fork + execve + wait4; the child keeps this process's stdio unless
 * `quiet`, which sends stdout and stderr to /dev/null. Returns the wait
 * status, or -errno when the fork failed. */
static int fork_exec_wait(char *const *argv, bool quiet, struct rusage *ru) {
	int status;
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (quiet) {
			int fd = open("/dev/null", O_WRONLY);
			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
		}
		execve(argv[0], argv, environ);
		_exit(127);
	}
	for (;;) {
		struct rusage tmp;
		if (wait4(pid, &status, 0, ru ? ru : &tmp) >= 0)
			return status;
		if (errno != EINTR)
			return -errno;
	}
}

static int posix_spawn_wait(char *const *argv) {
	pid_t pid;
	int status, r = posix_spawn(&pid, argv[0], NULL, NULL, argv, environ);
	if (r)
		return -r;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return status;
}

static bool exited_zero(int status) {
	return status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void describe_status(int status, char *buf, size_t size) {
	if (status < 0)
		set_message(buf, size, "could not start: %s", strerror(-status));
	else if (WIFEXITED(status))
		set_message(buf, size, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		set_message(buf, size, "killed by signal %d", WTERMSIG(status));
	else
		set_message(buf, size, "wait status 0x%x", (unsigned)status);
}

static bool is_executable_file(const char *path) {
	struct stat st;
	return path && stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* A program on $PATH, found as the local provider finds its runners. */
static bool find_on_path(const char *name, char *out, size_t size) {
	confine_find_options options = { .absolute_entries_only = true, .trusted_only = true };
	char *found = NULL;
	bool ok = confine_find_program(name, &options, &found) == 0 && strlen(found) < size;
	if (ok)
		snprintf(out, size, "%s", found);
	free(found);
	return ok;
}

/* The read-only policy a direct runner variant uses when no workspace was
 * made: read-only profiles do not depend on the root. */
static const confine_policy read_only_root = { .mode = CONFINE_MODE_READ_ONLY,
                                               .workspace_root = (char *)"/" };

/* `runner`, the library's own profile for `policy` (the generator the
 * provider and its probe use: one copy of every token list), "--", then
 * TRUE_PATH. NULL when the policy is missing or out of memory. */
static char **direct_argv(const char *runner,
                          int (*profile)(const confine_policy *, char ***),
                          const confine_policy *policy) {
	char **argv, **tokens = NULL;
	size_t n = 0, k = 0;
	bool ok = true;
	if (!policy || profile(policy, &tokens) < 0)
		return NULL;
	while (tokens[n])
		n++;
	argv = calloc(n + 4, sizeof *argv);
	if (argv) {
		ok = (argv[k++] = strdup(runner)) != NULL;
		for (size_t i = 0; ok && i < n; i++)
			ok = (argv[k++] = strdup(tokens[i])) != NULL;
		ok = ok && (argv[k++] = strdup("--")) != NULL && (argv[k++] = strdup(TRUE_PATH)) != NULL;
	}
	confine_strv_free(tokens);
	if (!argv || !ok) {
		confine_strv_free(argv);
		return NULL;
	}
	return argv;
}

static int mkdir_p(const char *dir) {
	char tmp[PATH_MAX];
	size_t len = strlen(dir);
	if (len >= sizeof tmp)
		return -ENAMETOOLONG;
	memcpy(tmp, dir, len + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0700) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The benchmark's context                                                  */

typedef struct bench_ctx {
	bench_options opt;
	char base[PATH_MAX];       /* $HOME/.cache/confine-bench/run.XXXXXX */
	char bwrap[PATH_MAX];      /* "" when not found */
	bool launcher_ok, bwrap_ok, cli_ok;
	char launcher_why[256], bwrap_why[256], cli_why[256];
	confine_provider *prov_landlock, *prov_bwrap; /* pinned rungs; NULL: unavailable */
	char prov_landlock_why[CONFINE_ERROR_MESSAGE_MAX], prov_bwrap_why[CONFINE_ERROR_MESSAGE_MAX];
	confine_policy *ro, *ww;   /* root: base/ws */
	int landlock_abi;
} bench_ctx;

static int make_local_provider(bench_ctx *ctx, confine_runner pin, const char *path,
                               confine_provider **ret, confine_error *err) {
	confine_local_config cfg;
	confine_local_config_init(&cfg);
	cfg.pin = pin;
	cfg.landlock_launcher = ctx->opt.launcher;
	cfg.path = path;
	return confine_local_provider_new(&cfg, ret, err);
}

/* ------------------------------------------------------------------------ */
/* Variants of the spawn-and-wait measurement                               */

typedef enum variant_kind {
	KIND_FORK_EXEC,     /* fork + execve + wait4 of `argv` */
	KIND_POSIX_SPAWN,   /* posix_spawn + waitpid of `argv` */
	KIND_LIB_PLAIN,     /* confine_run of `argv` unconfined (the spawn API alone) */
	KIND_LIB_CONFINED,  /* confine_confine + confine_run */
} variant_kind;

typedef struct variant {
	const char *id;
	const char *label;
	variant_kind kind;
	char **argv;                 /* exec kinds; owned */
	confine_provider *provider;  /* KIND_LIB_CONFINED; borrowed */
	const confine_policy *policy;
	bool capture;                /* capture stdout/stderr instead of inheriting */
	bool available;
	char why[512];
	double *samples;             /* wall ms per round; < 0: failed run */
	double *cpu;                 /* CPU ms per round (this process + children) */
	unsigned failures;
	char first_failure[512];
} variant;

static char **strv_new(const char *first, ...) {
	/* Up to 32 entries is plenty for the argvs built here. */
	const char *items[33];
	size_t n = 0;
	va_list ap;
	char **v;
	va_start(ap, first);
	for (const char *s = first; s && n < 32; s = va_arg(ap, const char *))
		items[n++] = s;
	va_end(ap);
	v = calloc(n + 1, sizeof *v);
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!(v[i] = strdup(items[i]))) {
			confine_strv_free(v);
			return NULL;
		}
	return v;
}

/* One run of a variant; 0 on success, else -1 with `why` filled. */
static int run_variant_once(const variant *v, char *why, size_t why_size) {
	int status;
	switch (v->kind) {
	case KIND_FORK_EXEC:
	case KIND_POSIX_SPAWN:
		status = v->kind == KIND_FORK_EXEC ? fork_exec_wait(v->argv, false, NULL)
		                                   : posix_spawn_wait(v->argv);
		if (exited_zero(status))
			return 0;
		describe_status(status, why, why_size);
		return -1;
	case KIND_LIB_PLAIN:
	case KIND_LIB_CONFINED: {
		static const char *const true_argv[] = {TRUE_PATH, NULL};
		confine_argv *confined = NULL;
		confine_spawn_options so;
		confine_outcome *out = NULL;
		confine_error err;
		int r = 0;
		if (v->kind == KIND_LIB_CONFINED)
			r = confine_confine(v->provider, true_argv, v->policy, &confined, &err);
		if (r < 0) {
			set_message(why, why_size, "confine() failed: %s", err.message);
			return -1;
		}
		confine_spawn_options_init(&so);
		if (confined)
			so.confined = confined;
		else
			so.argv = true_argv;
		if (v->capture) {
			so.stdio[1].kind = CONFINE_STDIO_CAPTURE;
			so.stdio[2].kind = CONFINE_STDIO_CAPTURE;
		}
		r = confine_run(&so, &out, &err);
		if (r < 0) {
			set_message(why, why_size, "confine_run() failed: %s", err.message);
		} else if (out->runner_failed || out->signaled || out->exit_code != 0) {
			set_message(why, why_size, "run ended badly: exit %d, signal %d, runner failure %s",
			         out->exit_code, out->signaled ? out->signal : 0,
			         out->runner_failure_detail ? out->runner_failure_detail : "none");
			r = -1;
		}
		confine_outcome_free(out);
		confine_argv_free(confined);
		return r < 0 ? -1 : 0;
	}
	}
	set_message(why, why_size, "unknown variant kind");
	return -1;
}

static void add_exec_variant(variant *v, const char *id, const char *label, variant_kind kind,
                             char **argv, bool available, const char *why) {
	memset(v, 0, sizeof *v);
	v->id = id;
	v->label = label;
	v->kind = kind;
	v->argv = argv;
	v->available = available && argv;
	set_message(v->why, sizeof v->why, "%s", argv ? why : "out of memory");
}

static void add_lib_variant(variant *v, const char *id, const char *label,
                            confine_provider *provider, const confine_policy *policy,
                            bool capture, const char *why) {
	memset(v, 0, sizeof *v);
	v->id = id;
	v->label = label;
	v->kind = provider ? KIND_LIB_CONFINED : KIND_LIB_PLAIN;
	v->provider = provider;
	v->policy = policy;
	v->capture = capture;
	v->available = provider != NULL || policy == NULL;
	set_message(v->why, sizeof v->why, "%s", why);
}

static variant *find_variant(variant *vs, size_t n, const char *id) {
	for (size_t i = 0; i < n; i++)
		if (!strcmp(vs[i].id, id))
			return &vs[i];
	return NULL;
}

/* Median over rounds of a[r]/b[r], using only rounds where both ran. */
static double paired_ratio_median(const variant *a, const variant *b, unsigned rounds) {
	double *r = malloc((rounds ? rounds : 1) * sizeof *r);
	double med;
	size_t n = 0;
	if (!r)
		return NAN;
	for (unsigned i = 0; i < rounds; i++)
		if (a->samples[i] > 0 && b->samples[i] > 0)
			r[n++] = a->samples[i] / b->samples[i];
	qsort(r, n, sizeof *r, cmp_double);
	med = percentile(r, n, 50);
	free(r);
	return med;
}

static double paired_diff_median(const variant *a, const variant *b, unsigned rounds) {
	double *r = malloc((rounds ? rounds : 1) * sizeof *r);
	double med;
	size_t n = 0;
	if (!r)
		return NAN;
	for (unsigned i = 0; i < rounds; i++)
		if (a->samples[i] >= 0 && b->samples[i] >= 0)
			r[n++] = a->samples[i] - b->samples[i];
	qsort(r, n, sizeof *r, cmp_double);
	med = percentile(r, n, 50);
	free(r);
	return med;
}

static void print_ratio(variant *vs, size_t nv, unsigned rounds, const char *name,
                        const char *a_id, const char *b_id, double target) {
	variant *a = find_variant(vs, nv, a_id), *b = find_variant(vs, nv, b_id);
	stats sa, sb;
	double per_round, of_medians, cpu_ratio;
	if (!a || !b || !a->available || !b->available) {
		printf("  %-44s skipped (%s unavailable)\n", name,
		       (!a || !a->available) ? a_id : b_id);
		return;
	}
	sa = compute_stats(a->samples, rounds);
	sb = compute_stats(b->samples, rounds);
	per_round = paired_ratio_median(a, b, rounds);
	of_medians = sa.median / sb.median;
	cpu_ratio = compute_stats(a->cpu, rounds).median / compute_stats(b->cpu, rounds).median;
	printf("  %-44s %8.2fx %10.2fx %8.2fx", name, per_round, of_medians, cpu_ratio);
	if (target > 0)
		printf("   <= %.2fx  %s", target, per_round <= target ? "met" : "MISSED");
	printf("\n");
}

/* Long on purpose: the table of variants, the interleaved measurement and
 * the report read top to bottom as the one measurement they are. */
static void run_spawn_benchmark(bench_ctx *ctx) {
	const bench_options *o = &ctx->opt;
	char *ll = (char *)o->launcher, *bw = ctx->bwrap, *cli = (char *)o->cli;
	const char *ll_why = ctx->launcher_why, *bw_why = ctx->bwrap_why;
	char ws_arg[PATH_MAX];
	variant vs[16];
	size_t nv = 0;
	unsigned total = o->warmup + o->rounds;
	long long t_start;

	set_message(ws_arg, sizeof ws_arg, "%s", ctx->ww ? ctx->ww->workspace_root : "/");

	add_exec_variant(&vs[nv++], "1a", "bare fork+execve", KIND_FORK_EXEC,
	                 strv_new(TRUE_PATH, NULL), true, "");
	add_exec_variant(&vs[nv++], "1b", "bare posix_spawn", KIND_POSIX_SPAWN,
	                 strv_new(TRUE_PATH, NULL), true, "");
	add_lib_variant(&vs[nv++], "1c", "library confine_run, unconfined", NULL, NULL, false, "");
	add_exec_variant(&vs[nv++], "2", "landlock-run direct, read-only grants", KIND_FORK_EXEC,
	                 direct_argv(ll, confine_profile_landlock, &read_only_root),
	                 ctx->launcher_ok, ll_why);
	add_lib_variant(&vs[nv++], "3a", "library, landlock rung, read-only", ctx->prov_landlock,
	                ctx->ro, false, ctx->prov_landlock_why);
	add_lib_variant(&vs[nv++], "3b", "library, landlock rung, workspace-write",
	                ctx->prov_landlock, ctx->ww, false, ctx->prov_landlock_why);
	add_lib_variant(&vs[nv++], "3c", "library, landlock rung, read-only, captured",
	                ctx->prov_landlock, ctx->ro, true, ctx->prov_landlock_why);
	add_exec_variant(&vs[nv++], "4a", "bwrap direct, read-only profile", KIND_FORK_EXEC,
	                 direct_argv(bw, confine_profile_bwrap, &read_only_root),
	                 ctx->bwrap_ok, bw_why);
	add_exec_variant(&vs[nv++], "4b", "bwrap direct, workspace-write profile", KIND_FORK_EXEC,
	                 ctx->ww ? direct_argv(bw, confine_profile_bwrap, ctx->ww) : NULL,
	                 ctx->bwrap_ok && ctx->ww, ctx->ww ? bw_why : "no workspace");
	add_lib_variant(&vs[nv++], "5a", "library, bwrap rung, read-only", ctx->prov_bwrap, ctx->ro,
	                false, ctx->prov_bwrap_why);
	add_lib_variant(&vs[nv++], "5b", "library, bwrap rung, workspace-write", ctx->prov_bwrap,
	                ctx->ww, false, ctx->prov_bwrap_why);
	add_exec_variant(&vs[nv++], "6a", "confine run --runner landlock -- true", KIND_FORK_EXEC,
	                 strv_new(cli, "run", "-w", ws_arg, "--runner", "landlock", "--", TRUE_PATH, NULL),
	                 ctx->cli_ok && ctx->launcher_ok, ctx->cli_ok ? ll_why : ctx->cli_why);
	add_exec_variant(&vs[nv++], "6b", "confine run --runner bwrap -- true", KIND_FORK_EXEC,
	                 strv_new(cli, "run", "-w", ws_arg, "--runner", "bwrap", "--", TRUE_PATH, NULL),
	                 ctx->cli_ok && ctx->bwrap_ok, ctx->cli_ok ? bw_why : ctx->cli_why);
	/* Unpinned, every `confine run` is a new process with a new provider, so
	 * it pays the chain's probe each time: what a user typing it gets. */
	add_exec_variant(&vs[nv++], "6c", "confine run -- true (default chain, probes)",
	                 KIND_FORK_EXEC, strv_new(cli, "run", "-w", ws_arg, "--", TRUE_PATH, NULL),
	                 ctx->cli_ok && (ctx->bwrap_ok || ctx->launcher_ok), ctx->cli_why);

	/* A trial run per variant: a variant that cannot run is skipped, and
	 * the report says why, rather than timing a failure. */
	for (size_t i = 0; i < nv; i++) {
		char why[512];
		if (!vs[i].available)
			continue;
		if (run_variant_once(&vs[i], why, sizeof why) < 0) {
			vs[i].available = false;
			set_message(vs[i].why, sizeof vs[i].why, "trial run failed: %s", why);
		}
		vs[i].samples = malloc(o->rounds * sizeof *vs[i].samples);
		vs[i].cpu = malloc(o->rounds * sizeof *vs[i].cpu);
		if (!vs[i].samples || !vs[i].cpu) {
			vs[i].available = false;
			set_message(vs[i].why, sizeof vs[i].why, "out of memory");
		}
	}

	printf("\n== 1. spawn and wait for %s (ms; %u rounds after %u warm-up rounds, "
	       "interleaved) ==\n",
	       TRUE_PATH, o->rounds, o->warmup);
	fflush(stdout);
	t_start = now_ns();
	for (unsigned round = 0; round < total; round++) {
		for (size_t k = 0; k < nv; k++) {
			/* Rotate the starting variant so no variant always runs right
			 * after the same neighbour (cache and scheduler effects). */
			variant *v = &vs[(k + round) % nv];
			char why[512];
			long long t0, t1;
			double c0, c1;
			int r;
			if (!v->available)
				continue;
			c0 = cpu_ms();
			t0 = now_ns();
			r = run_variant_once(v, why, sizeof why);
			t1 = now_ns();
			c1 = cpu_ms();
			if (round < o->warmup)
				continue;
			if (r < 0) {
				if (!v->failures++)
					set_message(v->first_failure, sizeof v->first_failure, "%s", why);
				v->samples[round - o->warmup] = -1;
				v->cpu[round - o->warmup] = -1;
			} else {
				v->samples[round - o->warmup] = (double)(t1 - t0) / 1e6;
				v->cpu[round - o->warmup] = c1 - c0;
			}
		}
	}

	printf("  wall ms: median, p10, p90; cpu: median CPU ms per run of this process and its\n"
	       "  children (getrusage), which other load on the machine disturbs far less\n");
	printf("  %-4s %-44s %8s %8s %8s %8s %6s\n", "id", "variant", "median", "p10", "p90", "cpu",
	       "runs");
	for (size_t i = 0; i < nv; i++) {
		stats s;
		if (!vs[i].available) {
			printf("  %-4s %-44s skipped: %s\n", vs[i].id, vs[i].label, vs[i].why);
			continue;
		}
		s = compute_stats(vs[i].samples, o->rounds);
		printf("  %-4s %-44s %8.3f %8.3f %8.3f %8.3f %6zu\n", vs[i].id, vs[i].label, s.median,
		       s.p10, s.p90, compute_stats(vs[i].cpu, o->rounds).median, s.n);
		if (vs[i].failures)
			printf("       %u failed runs (excluded); first: %s\n", vs[i].failures,
			       vs[i].first_failure);
	}
	printf("  (whole measurement: %.1f s)\n", (double)(now_ns() - t_start) / 1e9);

	printf("\n  ratios, pair by pair. per-round: the median over rounds of a/b within one\n"
	       "  round (the figure judged against the target); of medians: median(a)/median(b)\n"
	       "  of wall time; cpu: the same of CPU time\n");
	printf("  %-44s %9s %11s %9s   %s\n", "ratio", "per-round", "of medians", "cpu",
	       "target (per-round)");
	print_ratio(vs, nv, o->rounds, "3/1  library landlock read-only / bare", "3a", "1a", 2.0);
	print_ratio(vs, nv, o->rounds, "3/1  library landlock workspace-write / bare", "3b", "1a",
	            2.0);
	print_ratio(vs, nv, o->rounds, "2/1  landlock-run direct / bare", "2", "1a", 0);
	print_ratio(vs, nv, o->rounds, "5/4  library bwrap read-only / bwrap direct", "5a", "4a",
	            1.10);
	print_ratio(vs, nv, o->rounds, "5/4  library bwrap workspace-write / direct", "5b", "4b",
	            1.10);
	print_ratio(vs, nv, o->rounds, "6/1  confine run (landlock) / bare", "6a", "1a", 0);
	print_ratio(vs, nv, o->rounds, "6/1  confine run (bwrap) / bare", "6b", "1a", 0);
	printf("  context:\n");
	print_ratio(vs, nv, o->rounds, "1b/1a posix_spawn / fork+execve", "1b", "1a", 0);
	print_ratio(vs, nv, o->rounds, "1c/1a library unconfined / bare", "1c", "1a", 0);
	print_ratio(vs, nv, o->rounds, "3a/1b library landlock / bare posix_spawn", "3a", "1b", 0);
	print_ratio(vs, nv, o->rounds, "3a/2  library landlock / landlock-run direct", "3a", "2", 0);
	print_ratio(vs, nv, o->rounds, "3c/3a captured / inherited stdio", "3c", "3a", 0);
	print_ratio(vs, nv, o->rounds, "6a/3a confine run / library (landlock)", "6a", "3a", 0);
	print_ratio(vs, nv, o->rounds, "6c/6b confine run unpinned / pinned bwrap", "6c", "6b", 0);

	{
		variant *a = find_variant(vs, nv, "6a"), *b = find_variant(vs, nv, "1a");
		variant *c = find_variant(vs, nv, "6b");
		printf("\n  %-44s %9s %11s %9s   %s\n", "difference (ms)", "per-round", "of medians",
		       "cpu", "target (per-round)");
		if (a && b && a->available && b->available) {
			double d = paired_diff_median(a, b, o->rounds);
			double dm = compute_stats(a->samples, o->rounds).median -
			            compute_stats(b->samples, o->rounds).median;
			double dc = compute_stats(a->cpu, o->rounds).median -
			            compute_stats(b->cpu, o->rounds).median;
			printf("  %-44s %8.3f %11.3f %9.3f   <= 2.000  %s\n",
			       "6-1  confine run (landlock) - bare", d, dm, dc, d <= 2.0 ? "met" : "MISSED");
		} else {
			printf("  %-44s skipped (unavailable)\n", "6-1  confine run (landlock) - bare");
		}
		if (c && b && c->available && b->available)
			printf("  %-44s %8.3f %11.3f %9.3f\n", "6-1  confine run (bwrap) - bare",
			       paired_diff_median(c, b, o->rounds),
			       compute_stats(c->samples, o->rounds).median -
			               compute_stats(b->samples, o->rounds).median,
			       compute_stats(c->cpu, o->rounds).median -
			               compute_stats(b->cpu, o->rounds).median);
	}

	for (size_t i = 0; i < nv; i++) {
		confine_strv_free(vs[i].argv);
		free(vs[i].samples);
		free(vs[i].cpu);
	}
}

/* ------------------------------------------------------------------------ */
/* Cached confine()                                                         */

static void run_cached_confine(bench_ctx *ctx) {
	static const char *const argv[] = {"bash", "-c", "make -j2 test", NULL};
	struct {
		const char *label;
		confine_provider *p;
		const confine_policy *policy;
		const char *why;
	} cases[] = {
		{"landlock rung, read-only", ctx->prov_landlock, ctx->ro, ctx->prov_landlock_why},
		{"landlock rung, workspace-write", ctx->prov_landlock, ctx->ww, ctx->prov_landlock_why},
		{"bwrap rung, read-only", ctx->prov_bwrap, ctx->ro, ctx->prov_bwrap_why},
		{"bwrap rung, workspace-write", ctx->prov_bwrap, ctx->ww, ctx->prov_bwrap_why},
	};
	unsigned long iters = ctx->opt.iterations;

	printf("\n== 2. cached confine() (argv building only; each call includes its "
	       "confine_argv_free) ==\n");
	printf("  %-34s %10s %12s  %s\n", "provider", "ns/call", "iterations", "target < 10000 ns");
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		confine_argv *out;
		confine_error err;
		long long t0, t1;
		double best = INFINITY;
		bool failed = false;
		if (!cases[c].p || !cases[c].policy) {
			printf("  %-34s skipped: %s\n", cases[c].label, cases[c].why);
			continue;
		}
		/* The first call selects the rung; everything after it is cached. */
		if (confine_confine(cases[c].p, argv, cases[c].policy, &out, &err) < 0) {
			printf("  %-34s skipped: confine() failed: %s\n", cases[c].label, err.message);
			continue;
		}
		confine_argv_free(out);
		/* Best of three passes: the figure is the cost of the code, not of
		 * whatever else the machine did during one pass. */
		for (int pass = 0; pass < 3 && !failed; pass++) {
			t0 = now_ns();
			for (unsigned long i = 0; i < iters; i++) {
				if (confine_confine(cases[c].p, argv, cases[c].policy, &out, &err) < 0) {
					failed = true;
					break;
				}
				confine_argv_free(out);
			}
			t1 = now_ns();
			if ((double)(t1 - t0) / (double)iters < best)
				best = (double)(t1 - t0) / (double)iters;
		}
		if (failed) {
			printf("  %-34s failed mid-run: %s\n", cases[c].label, err.message);
			continue;
		}
		printf("  %-34s %10.0f %12lu  %.3f of target, %s\n", cases[c].label, best, iters,
		       best / 10000.0, best < 10000.0 ? "met" : "MISSED");
	}
}

/* ------------------------------------------------------------------------ */
/* First-call probe cost                                                    */

static void run_probe_cost(bench_ctx *ctx) {
	static const char *const argv[] = {TRUE_PATH, NULL};
	struct {
		const char *label;
		confine_runner pin;
		const char *path;        /* NULL: $PATH */
		confine_runner expect;
		bool needs_bwrap;
	} cases[] = {
		/* The default Linux chain probes bwrap first; where it passes, the
		 * landlock rung is never probed. */
		{"chain bwrap,landlock -> bwrap (probed)", CONFINE_RUNNER_NONE, NULL,
		 CONFINE_RUNNER_BWRAP, true},
		/* A PATH without bwrap makes the chain fall through to landlock: the
		 * cost is the bwrap lookup plus the landlock probe. */
		{"chain bwrap,landlock -> landlock (probed)", CONFINE_RUNNER_NONE,
		 "/nonexistent-confine-bench", CONFINE_RUNNER_LANDLOCK, false},
		{"pinned bwrap (unprobed)", CONFINE_RUNNER_BWRAP, NULL, CONFINE_RUNNER_BWRAP, true},
		{"pinned landlock (unprobed)", CONFINE_RUNNER_LANDLOCK, NULL, CONFINE_RUNNER_LANDLOCK,
		 false},
	};
	unsigned reps = ctx->opt.probe_reps;
	double *t = malloc(reps * sizeof *t);

	printf("\n== 3. first confine() on a new provider (the probe), ms; %u repetitions ==\n",
	       reps);
	if (!t) {
		printf("  skipped: out of memory\n");
		return;
	}
	printf("  %-44s %8s %8s %8s  %s\n", "provider", "median", "min", "max", "selected");
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		confine_verdict verdict;
		confine_error err;
		char why[CONFINE_ERROR_MESSAGE_MAX + 64] = "";
		stats s;
		unsigned n = 0;
		if (cases[c].needs_bwrap && !ctx->bwrap_ok) {
			printf("  %-44s skipped: %s\n", cases[c].label, ctx->bwrap_why);
			continue;
		}
		if (cases[c].expect == CONFINE_RUNNER_LANDLOCK && !ctx->launcher_ok) {
			printf("  %-44s skipped: %s\n", cases[c].label, ctx->launcher_why);
			continue;
		}
		memset(&verdict, 0, sizeof verdict);
		for (unsigned r = 0; r < reps; r++) {
			confine_provider *p = NULL;
			confine_argv *out = NULL;
			long long t0, t1;
			int rc;
			if (make_local_provider(ctx, cases[c].pin, cases[c].path, &p, &err) < 0) {
				set_message(why, sizeof why, "provider: %s", err.message);
				break;
			}
			t0 = now_ns();
			rc = confine_confine(p, argv, ctx->ro, &out, &err);
			t1 = now_ns();
			if (rc < 0) {
				set_message(why, sizeof why, "confine(): %s", err.message);
				confine_provider_free(p);
				break;
			}
			if (confine_provider_verdict(p, &verdict, &err) < 0)
				verdict.runner = out->runner;
			confine_argv_free(out);
			confine_provider_free(p);
			t[n++] = (double)(t1 - t0) / 1e6;
		}
		if (n < reps) {
			printf("  %-44s skipped: %s\n", cases[c].label, why);
			continue;
		}
		s = compute_stats(t, n);
		printf("  %-44s %8.3f %8.3f %8.3f  %s%s\n", cases[c].label, s.median, s.min, s.max,
		       confine_runner_name(verdict.runner),
		       verdict.runner == cases[c].expect ? "" : " (unexpected)");
	}
	free(t);
}

/* ------------------------------------------------------------------------ */
/* Peak resident memory                                                     */

/* ru_maxrss from wait4 covers the child's whole life, including the forked
 * image before its execve (Linux keeps the larger high-water mark across
 * exec) and every descendant it reaped. So the figure of a program can never
 * be below that of the fork of this process, or below /bin/true's; the floor
 * row measures both at once. */
static long maxrss_kib(char *const *argv, char *why, size_t why_size) {
	long best = -1;
	for (int i = 0; i < 5; i++) {
		struct rusage ru;
		int status;
		memset(&ru, 0, sizeof ru);
		status = fork_exec_wait(argv, true, &ru);
		if (!exited_zero(status)) {
			describe_status(status, why, why_size);
			return -1;
		}
		/* The median is not needed: the figure barely moves; keep the
		 * smallest, the least disturbed by this process's own state. */
		if (best < 0 || ru.ru_maxrss < best)
			best = ru.ru_maxrss;
	}
#if CONFINE_OS_DARWIN
	best /= 1024; /* bytes there, KiB on Linux */
#endif
	return best;
}

static void run_peak_memory(bench_ctx *ctx) {
	char *ll = (char *)ctx->opt.launcher, *cli = (char *)ctx->opt.cli;
	char *true_argv[] = {(char *)TRUE_PATH, NULL};
	char **ll_argv = direct_argv(ll, confine_profile_landlock, &read_only_root);
	/* The bench's own workspace: run from a source checkout, the default
	 * (the current directory) would hold the build tree's launcher, which
	 * confine refuses to run from inside a workspace. */
	char *ws = ctx->ww ? ctx->ww->workspace_root : (char *)"/";
	char *cli_ll[] = {cli, (char *)"run", (char *)"-w", ws, (char *)"--runner",
	                  (char *)"landlock", (char *)"--", (char *)TRUE_PATH, NULL};
	char *cli_bw[] = {cli, (char *)"run", (char *)"-w", ws, (char *)"--runner",
	                  (char *)"bwrap", (char *)"--", (char *)TRUE_PATH, NULL};
	struct {
		const char *label;
		char **argv;
		bool ok;
		const char *why;
		bool target;
	} cases[] = {
		{"floor: fork of this process + /bin/true", true_argv, true, "", false},
		{"landlock-run <read-only grants> -- true", ll_argv, ctx->launcher_ok && ll_argv,
		 ctx->launcher_why, false},
		{"confine run --runner landlock -- true", cli_ll, ctx->cli_ok && ctx->launcher_ok,
		 ctx->cli_ok ? ctx->launcher_why : ctx->cli_why, true},
		{"confine run --runner bwrap -- true", cli_bw, ctx->cli_ok && ctx->bwrap_ok,
		 ctx->cli_ok ? ctx->bwrap_why : ctx->cli_why, true},
	};

	printf("\n== 4. peak resident memory (ru_maxrss from wait4; smallest of 5) ==\n");
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		char why[512];
		long kib;
		if (!cases[c].ok) {
			printf("  %-44s skipped: %s\n", cases[c].label, cases[c].why);
			continue;
		}
		kib = maxrss_kib(cases[c].argv, why, sizeof why);
		if (kib < 0) {
			printf("  %-44s skipped: %s\n", cases[c].label, why);
			continue;
		}
		printf("  %-44s %6ld KiB  %5.2f MiB", cases[c].label, kib, (double)kib / 1024.0);
		if (cases[c].target)
			printf("   target < 4 MiB: %s", kib < 4096 ? "met" : "MISSED");
		printf("\n");
	}
	confine_strv_free(ll_argv);
}

/* ------------------------------------------------------------------------ */
/* Scaling with concurrency                                                 */

typedef struct scale_worker {
	pthread_t thread;
	confine_provider *provider;   /* NULL: unconfined through the spawn API */
	confine_policy *policy;       /* workspace-write on this worker's workspace */
	char file[PATH_MAX];
	long long deadline;
	unsigned long runs, failures;
	char first_failure[512];
} scale_worker;

static void *scale_worker_main(void *arg) {
	static const char *const argv[] = {SH_PATH, "-c", "echo x > f", NULL};
	scale_worker *w = arg;
	while (now_ns() < w->deadline) {
		confine_argv *confined = NULL;
		confine_outcome *out = NULL;
		confine_spawn_options so;
		confine_error err;
		char buf[8];
		ssize_t len = -1;
		int fd, r = 0;
		unlink(w->file);
		if (w->provider)
			r = confine_confine(w->provider, argv, w->policy, &confined, &err);
		if (r >= 0) {
			confine_spawn_options_init(&so);
			if (confined)
				so.confined = confined;
			else
				so.argv = argv;
			so.workdir = w->policy->workspace_root;
			r = confine_run(&so, &out, &err);
		}
		/* Count a run only when its effect is on disk: a confined run that
		 * was denied (or never ran) must not look fast. */
		if (r >= 0 && !out->signaled && out->exit_code == 0 && !out->runner_failed &&
		    (fd = open(w->file, O_RDONLY | O_CLOEXEC)) >= 0) {
			len = read(fd, buf, sizeof buf);
			close(fd);
		}
		if (len == 2 && buf[0] == 'x' && buf[1] == '\n') {
			w->runs++;
		} else if (!w->failures++) {
			if (r < 0)
				set_message(w->first_failure, sizeof w->first_failure, "%s", err.message);
			else
				set_message(w->first_failure, sizeof w->first_failure,
				         "exit %d, signaled %d, runner failure %s, file %s", out->exit_code,
				         out->signaled, out->runner_failure_detail ? out->runner_failure_detail : "none",
				         len < 0 ? "absent" : "wrong");
		}
		confine_outcome_free(out);
		confine_argv_free(confined);
	}
	return NULL;
}

/* Runs `n` workers for `seconds`; returns runs per second, or -1. */
static double scale_point(bench_ctx *ctx, confine_provider *provider, unsigned n,
                          double seconds, char *why, size_t why_size) {
	scale_worker w[16];
	unsigned long runs = 0, failures = 0;
	long long t0, t1;
	unsigned started = 0;
	confine_error err;
	double rate = -1;
	why[0] = 0;
	memset(w, 0, sizeof w);
	for (unsigned i = 0; i < n; i++) {
		char dir[PATH_MAX];
		set_message(dir, sizeof dir, "%s/scale-%u", ctx->base, i);
		if (mkdir_p(dir) < 0 ||
		    confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, dir, &w[i].policy, &err) < 0) {
			set_message(why, why_size, "workspace %s: %s", dir, strerror(errno));
			goto out;
		}
		set_message(w[i].file, sizeof w[i].file, "%s/f", w[i].policy->workspace_root);
		w[i].provider = provider;
	}
	t0 = now_ns();
	for (unsigned i = 0; i < n; i++) {
		w[i].deadline = t0 + (long long)(seconds * 1e9);
		if (pthread_create(&w[i].thread, NULL, scale_worker_main, &w[i]) != 0) {
			set_message(why, why_size, "pthread_create failed");
			break;
		}
		started++;
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(w[i].thread, NULL);
	t1 = now_ns();
	for (unsigned i = 0; i < started; i++) {
		runs += w[i].runs;
		failures += w[i].failures;
		if (w[i].failures && !why[0])
			set_message(why, why_size, "%lu failed runs; first: %s", w[i].failures,
			         w[i].first_failure);
	}
	if (started == n && failures == 0)
		rate = (double)runs / ((double)(t1 - t0) / 1e9);
out:
	for (unsigned i = 0; i < n; i++) {
		if (w[i].file[0])
			unlink(w[i].file);
		confine_policy_free(w[i].policy);
	}
	return rate;
}

static void run_scaling(bench_ctx *ctx) {
	static const unsigned levels[] = {1, 2, 4, 8, 16};
	struct {
		const char *label;
		confine_provider *p;
		bool available;
		const char *why;
	} kinds[] = {
		{"unconfined", NULL, true, ""},
		{"landlock", ctx->prov_landlock, ctx->prov_landlock != NULL, ctx->prov_landlock_why},
		{"bwrap", ctx->prov_bwrap, ctx->prov_bwrap != NULL, ctx->prov_bwrap_why},
	};
	enum { N_KINDS = 3, N_LEVELS = 5 };
	double rate[N_KINDS][N_LEVELS];
	char why[N_KINDS][512];
	double secs = ctx->opt.scale_seconds;

	printf("\n== 5. scaling: concurrent workspace-write runs of sh -c 'echo x > f', each "
	       "worker in its own workspace ==\n");
	if (!ctx->opt.scaling) {
		printf("  skipped (--no-scaling)\n");
		return;
	}
	printf("  runs/s over %.1f s per point, counted only when f holds \"x\"; "
	       "the kinds alternate per point\n",
	       secs * 2);
	memset(why, 0, sizeof why);
	for (size_t l = 0; l < N_LEVELS; l++) {
		/* Two half-length passes in opposite order, so a kind measured
		 * first is also measured last at each level. */
		for (size_t k = 0; k < N_KINDS; k++)
			rate[k][l] = 0;
		for (int pass = 0; pass < 2; pass++) {
			for (size_t j = 0; j < N_KINDS; j++) {
				size_t k = pass ? N_KINDS - 1 - j : j;
				double r;
				char w[512];
				if (!kinds[k].available || rate[k][l] < 0)
					continue;
				r = scale_point(ctx, kinds[k].p, levels[l], secs, w, sizeof w);
				if (r < 0) {
					rate[k][l] = -1;
					set_message(why[k], sizeof why[k], "at %u workers: %s", levels[l], w);
				} else {
					rate[k][l] += r / 2;
				}
			}
		}
	}
	printf("  %-8s", "workers");
	for (size_t k = 0; k < N_KINDS; k++)
		printf(" %12s", kinds[k].label);
	printf(" %16s %16s\n", "landlock/unconf", "bwrap/unconf");
	for (size_t l = 0; l < N_LEVELS; l++) {
		printf("  %-8u", levels[l]);
		for (size_t k = 0; k < N_KINDS; k++) {
			if (!kinds[k].available || rate[k][l] < 0)
				printf(" %12s", "-");
			else
				printf(" %12.1f", rate[k][l]);
		}
		for (size_t k = 1; k < N_KINDS; k++) {
			if (!kinds[k].available || rate[k][l] < 0 || !(rate[0][l] > 0))
				printf(" %16s", "-");
			else
				printf(" %15.2fx", rate[k][l] / rate[0][l]);
		}
		printf("\n");
	}
	for (size_t k = 0; k < N_KINDS; k++) {
		if (!kinds[k].available)
			printf("  %s skipped: %s\n", kinds[k].label, kinds[k].why);
		else if (why[k][0])
			printf("  %s failed %s\n", kinds[k].label, why[k]);
	}
}

/* ------------------------------------------------------------------------ */
/* Setup                                                                    */

static void check_runners(bench_ctx *ctx) {
	char *probe_argv[] = {(char *)ctx->opt.launcher, (char *)"--probe", NULL};
	int status;
	char why[256];

	if (!is_executable_file(ctx->opt.launcher)) {
		set_message(ctx->launcher_why, sizeof ctx->launcher_why,
		         "landlock-run not found or not executable at %s", ctx->opt.launcher);
	} else if (!exited_zero(status = fork_exec_wait(probe_argv, true, NULL))) {
		describe_status(status, why, sizeof why);
		set_message(ctx->launcher_why, sizeof ctx->launcher_why,
		         "landlock-run --probe failed (%s): Landlock not enforced here", why);
	} else {
		ctx->launcher_ok = true;
	}

	if (ctx->opt.bwrap)
		set_message(ctx->bwrap, sizeof ctx->bwrap, "%s", ctx->opt.bwrap);
	else if (!find_on_path("bwrap", ctx->bwrap, sizeof ctx->bwrap))
		ctx->bwrap[0] = 0;
	if (!ctx->bwrap[0] || !is_executable_file(ctx->bwrap)) {
		set_message(ctx->bwrap_why, sizeof ctx->bwrap_why, "bwrap not found%s%s",
		         ctx->bwrap[0] ? " at " : " on $PATH", ctx->bwrap);
		ctx->bwrap[0] = 0;
	} else {
		char **argv = direct_argv(ctx->bwrap, confine_profile_bwrap, &read_only_root);
		status = argv ? fork_exec_wait(argv, true, NULL) : -1;
		confine_strv_free(argv);
		if (!exited_zero(status)) {
			describe_status(status, why, sizeof why);
			set_message(ctx->bwrap_why, sizeof ctx->bwrap_why,
			         "bwrap cannot run the read-only profile here (%s)", why);
		} else {
			ctx->bwrap_ok = true;
		}
	}

	if (!is_executable_file(ctx->opt.cli))
		set_message(ctx->cli_why, sizeof ctx->cli_why, "confine CLI not found at %s",
		         ctx->opt.cli);
	else
		ctx->cli_ok = true;
}

static void make_providers(bench_ctx *ctx) {
	confine_error err;
	confine_verdict v;
	if (!ctx->launcher_ok) {
		set_message(ctx->prov_landlock_why, sizeof ctx->prov_landlock_why, "%s", ctx->launcher_why);
	} else if (make_local_provider(ctx, CONFINE_RUNNER_LANDLOCK, NULL, &ctx->prov_landlock,
	                               &err) < 0) {
		set_message(ctx->prov_landlock_why, sizeof ctx->prov_landlock_why,
		         "confine_local_provider_new: %s", err.message);
	} else if (confine_provider_verdict(ctx->prov_landlock, &v, &err) == 0) {
		ctx->landlock_abi = v.landlock_abi;
	}
	if (!ctx->bwrap_ok) {
		set_message(ctx->prov_bwrap_why, sizeof ctx->prov_bwrap_why, "%s", ctx->bwrap_why);
	} else if (make_local_provider(ctx, CONFINE_RUNNER_BWRAP, NULL, &ctx->prov_bwrap, &err) < 0) {
		set_message(ctx->prov_bwrap_why, sizeof ctx->prov_bwrap_why,
		         "confine_local_provider_new: %s", err.message);
	}
}

static int make_workspace(bench_ctx *ctx) {
	const char *home = getenv("HOME");
	char dir[PATH_MAX], ws[PATH_MAX];
	confine_error err;
	int r;
	/* Under $HOME, outside every temp area, so a workspace-write run can
	 * write there only because the workspace grant allows it. */
	if (!home || home[0] != '/') {
		fprintf(stderr, "confine-bench: $HOME must be an absolute path, got \"%s\"\n",
		        home ? home : "");
		return -1;
	}
	set_message(dir, sizeof dir, "%s/.cache/confine-bench", home);
	if ((r = mkdir_p(dir)) < 0) {
		fprintf(stderr, "confine-bench: cannot create %s: %s\n", dir, strerror(-r));
		return -1;
	}
	set_message(ctx->base, sizeof ctx->base, "%s/run.XXXXXX", dir);
	if (!mkdtemp(ctx->base)) {
		fprintf(stderr, "confine-bench: cannot create %s: %s\n", ctx->base, strerror(errno));
		return -1;
	}
	set_message(ws, sizeof ws, "%s/ws", ctx->base);
	if (mkdir(ws, 0700) < 0) {
		fprintf(stderr, "confine-bench: cannot create %s: %s\n", ws, strerror(errno));
		return -1;
	}
	if (confine_policy_new(CONFINE_MODE_READ_ONLY, ws, &ctx->ro, &err) < 0 ||
	    confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, ws, &ctx->ww, &err) < 0) {
		fprintf(stderr, "confine-bench: policy for %s: %s\n", ws, err.message);
		return -1;
	}
	return 0;
}

static void remove_tree(const char *dir) {
	char *argv[] = {(char *)"/bin/rm", (char *)"-rf", (char *)dir, NULL};
	if (dir[0])
		(void)fork_exec_wait(argv, true, NULL);
}

static void print_header(const bench_ctx *ctx) {
	struct utsname u;
	char model[256] = "unknown";
	FILE *f = fopen("/proc/cpuinfo", "re");
	if (f) {
		char line[512];
		while (fgets(line, sizeof line, f)) {
			char *colon = strchr(line, ':');
			if (!strncmp(line, "model name", 10) && colon) {
				set_message(model, sizeof model, "%s", colon + 2);
				model[strcspn(model, "\n")] = 0;
				break;
			}
		}
		fclose(f);
	}
	printf("confine-bench %s\n", confine_version());
	if (uname(&u) == 0)
		printf("  host: %s %s %s, %ld CPUs online, %s\n", u.sysname, u.release, u.machine,
		       sysconf(_SC_NPROCESSORS_ONLN), model);
	printf("  landlock-run: %s (%s)\n", ctx->opt.launcher,
	       ctx->launcher_ok ? "enforcing" : ctx->launcher_why);
	if (ctx->launcher_ok && ctx->landlock_abi > 0)
		printf("  Landlock ABI: %d\n", ctx->landlock_abi);
	printf("  bwrap: %s\n", ctx->bwrap_ok ? ctx->bwrap : ctx->bwrap_why);
	printf("  confine CLI: %s%s%s\n", ctx->opt.cli, ctx->cli_ok ? "" : ": ",
	       ctx->cli_ok ? "" : ctx->cli_why);
	printf("  workspace: %s\n", ctx->ww ? ctx->ww->workspace_root : "-");
	if (ctx->opt.quick)
		printf("  --quick: fewer rounds than the method needs; figures are indicative only\n");
}

int main(int argc, char **argv) {
	bench_ctx ctx;
	memset(&ctx, 0, sizeof ctx);
	ctx.landlock_abi = -1;
	if (parse_options(argc, argv, &ctx.opt) < 0)
		return 2;
	/* Line-buffered so progress shows when the output is piped to a file. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (make_workspace(&ctx) < 0) {
		remove_tree(ctx.base);
		return 1;
	}
	check_runners(&ctx);
	make_providers(&ctx);
	print_header(&ctx);

	/* Memory first: this process is smallest now, and its forked image is
	 * part of every ru_maxrss figure (see maxrss_kib). */
	if (ctx.opt.sections & SECTION_MEMORY)
		run_peak_memory(&ctx);
	if (ctx.opt.sections & SECTION_SPAWN) {
		char *ballast = NULL;
		if (ctx.opt.caller_mib) {
			size_t bytes = (size_t)ctx.opt.caller_mib << 20;
			/* Touched, so the pages are resident and fork must copy their
			 * page tables, as it must for a real agent's heap. */
			if (!(ballast = malloc(bytes))) {
				fprintf(stderr, "confine-bench: cannot allocate --caller-mib %lu\n",
				        ctx.opt.caller_mib);
				return 1;
			}
			/* Through a volatile pointer: the compiler may not drop stores
			 * to memory that is never read again. */
			for (size_t off = 0; off < bytes; off += 4096)
				((volatile char *)ballast)[off] = 1;
			printf("\n  (this process now holds %lu MiB of touched memory, as a large "
			       "caller would)\n",
			       ctx.opt.caller_mib);
		}
		run_spawn_benchmark(&ctx);
		free(ballast);
	}
	if (ctx.opt.sections & SECTION_CACHED)
		run_cached_confine(&ctx);
	if (ctx.opt.sections & SECTION_PROBE)
		run_probe_cost(&ctx);
	if (ctx.opt.sections & SECTION_SCALING)
		run_scaling(&ctx);

	confine_provider_free(ctx.prov_landlock);
	confine_provider_free(ctx.prov_bwrap);
	confine_policy_free(ctx.ro);
	confine_policy_free(ctx.ww);
	remove_tree(ctx.base);
	return 0;
}
