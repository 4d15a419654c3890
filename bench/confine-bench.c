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
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-config.h"
#include "config.h"
#include "confine.h"
#include "git-hazards.h"       /* the two walks around a workspace-write run */
#include "profiles/plan.h"     /* the protections' walk (bwrap's plan) */
#include "provider-internal.h" /* the in-process argv, to spawn it raw */

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
	SECTION_GIT_SCAN = 1u << 5,
	SECTION_ALL = (1u << 6) - 1,
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
	        "                     [--only memory,spawn,cached,probe,scaling,gitscan]\n"
	        "                     [--caller-mib N]\n"
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
			             {"scaling", SECTION_SCALING}, {"gitscan", SECTION_GIT_SCAN}};
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
	/* Pinned rungs; NULL: unavailable. prov_landlock is given the on-disk
	 * launcher (--launcher), as a wrap consumer's configuration would;
	 * prov_landlock_self is not, so its in-process runs use the library's
	 * sealed in-memory launcher, as `confine run` does. prov_bwrap serves
	 * both paths: confine() builds the argv `wrap` prints (layered: the
	 * on-disk launcher, --launcher, bound inside bwrap; no status channel),
	 * a spawn through it the in-process one (the sealed launcher, a status
	 * channel). */
	confine_provider *prov_landlock, *prov_landlock_self, *prov_bwrap;
	char prov_landlock_why[CONFINE_ERROR_MESSAGE_MAX], prov_bwrap_why[CONFINE_ERROR_MESSAGE_MAX];
	confine_policy *ro, *ww;   /* root: base/ws */
	/* read-only with no limit (the default pids lifted), and with every
	 * limit that holds on a rung (issue 30: the cost of limits) */
	confine_policy *ro_unlimited, *ro_limits;
	int landlock_abi;
} bench_ctx;

/* `disk_launcher`: configure the on-disk launcher (--launcher); without it
 * the provider finds the build's or installed one for wrap and probes, and
 * runs its sealed in-memory copy for runs it spawns itself. */
static int make_local_provider(bench_ctx *ctx, confine_runner pin, const char *path,
                               bool disk_launcher, confine_provider **ret, confine_error *err) {
	confine_local_config cfg;
	confine_local_config_init(&cfg);
	cfg.pin = pin;
	cfg.landlock_launcher = disk_launcher ? ctx->opt.launcher : NULL;
	cfg.path = path;
	return confine_local_provider_new(&cfg, ret, err);
}

/* ------------------------------------------------------------------------ */
/* Variants of the spawn-and-wait measurement                               */

typedef enum variant_kind {
	KIND_FORK_EXEC,     /* fork + execve + wait4 of `argv` */
	KIND_POSIX_SPAWN,   /* posix_spawn + waitpid of `argv` */
	KIND_RUNNER,        /* a runner's argv spawned raw, as its spawner would (raw_spawn_wait) */
	KIND_LIB_PLAIN,     /* confine_run of `argv` unconfined (the spawn API alone) */
	KIND_LIB_WRAP,      /* confine_confine + confine_run: the argv `wrap` prints, run by the library */
	KIND_LIB_THROUGH,   /* confine_spawn_through + wait: a run the library spawns itself */
} variant_kind;

typedef struct variant {
	const char *id;
	char label[64];
	variant_kind kind;
	char **argv;                 /* exec kinds; owned */
	confine_argv *descriptors;   /* KIND_RUNNER: the spawn flags of an in-process argv; owned */
	confine_provider *provider;  /* library kinds; borrowed */
	const confine_policy *policy;
	bool capture;                /* capture stdout/stderr instead of inheriting */
	/* KIND_LIB_THROUGH: make the run's private temp dir first, as the CLI,
	 * the bash consumer and the bindings do (the spawner removes it) */
	bool temp_area;
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

static size_t strv_len(char *const *v) {
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

/* A copy of `v` without the first run of entries equal to `seq` (NULL when
 * it is not there, or out of memory): a runner argv less one token. */
static char **strv_without(char *const *v, const char *const *seq) {
	size_t n = strv_len(v), m = 0, at;
	char **out;
	while (seq[m])
		m++;
	for (at = 0; at + m <= n; at++) {
		size_t k = 0;
		while (k < m && !strcmp(v[at + k], seq[k]))
			k++;
		if (k == m)
			break;
	}
	if (!v || at + m > n || !(out = calloc(n - m + 1, sizeof *out)))
		return NULL;
	for (size_t i = 0, j = 0; i < n; i++) {
		if (i >= at && i < at + m)
			continue;
		if (!(out[j++] = strdup(v[i]))) {
			confine_strv_free(out);
			return NULL;
		}
	}
	return out;
}

/* The runner and its tokens from `v` (up to its first "--"), then "--" and
 * TRUE_PATH: the same sandbox around /bin/true with nothing inside it. */
static char **strv_runner_around_true(char *const *v) {
	size_t n = 0;
	char **out;
	while (v && v[n] && strcmp(v[n], "--"))
		n++;
	if (!v || !v[n] || !(out = calloc(n + 3, sizeof *out)))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!(out[i] = strdup(v[i]))) {
			confine_strv_free(out);
			return NULL;
		}
	if (!(out[n] = strdup("--")) || !(out[n + 1] = strdup(TRUE_PATH))) {
		confine_strv_free(out);
		return NULL;
	}
	return out;
}

/* Tokens between the runner and its first "--". */
static size_t runner_tokens(char *const *v) {
	size_t n = 1;
	while (v && v[0] && v[n] && strcmp(v[n], "--"))
		n++;
	return v && v[0] ? n - 1 : 0;
}

/*
 * fork, then what a careful spawner of a runner argv does (its own session,
 * every descriptor above 2 closed on exec, as `confine wrap --help` asks),
 * then exec, then wait4. With `c` (an in-process argv, doc/SPEC.md 12, 14)
 * it also places what that argv needs: a status pipe's write end at
 * status_fd_at, the launcher image at inherit_fd_at, and execs exec_fd
 * (execveat) instead of argv[0]. The status pipe's read end is held until
 * the runner is reaped (the launcher's lifeline is that reader) and then
 * closed unread: this is the very argv the library's own run spawns, without
 * the library. Returns the wait status or -errno.
 */
static int raw_spawn_wait(char *const *argv, const confine_argv *c) {
	unsigned flags = c ? c->spawn_flags : 0;
	int pipefd[2] = { -1, -1 }, status;
	pid_t pid;
	if ((flags & CONFINE_SPAWN_STATUS_CHANNEL) && pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int e = errno;
		if (pipefd[0] >= 0) {
			close(pipefd[0]);
			close(pipefd[1]);
		}
		return -e;
	}
	if (pid == 0) {
		int w = -1, in = -1, ex = -1;
		/* Above the target numbers first, so no dup2 clobbers a source. */
		if (pipefd[1] >= 0 && (w = fcntl(pipefd[1], F_DUPFD_CLOEXEC, 10)) < 0)
			_exit(127);
		if ((flags & CONFINE_SPAWN_INHERIT_FD) &&
		    (in = fcntl(c->inherit_fd, F_DUPFD_CLOEXEC, 10)) < 0)
			_exit(127);
		if ((flags & CONFINE_SPAWN_EXEC_FD) && (ex = fcntl(c->exec_fd, F_DUPFD_CLOEXEC, 10)) < 0)
			_exit(127);
		if (setsid() < 0)
			_exit(127);
#ifdef SYS_close_range
		(void)syscall(SYS_close_range, 3U, ~0U, 1U << 2 /* CLOSE_RANGE_CLOEXEC */);
#endif
		if (w >= 0 && dup2(w, c->status_fd_at) < 0)
			_exit(127);
		if (in >= 0 && dup2(in, c->inherit_fd_at) < 0)
			_exit(127);
#ifdef SYS_execveat
		if (ex >= 0)
			syscall(SYS_execveat, ex, "", argv, environ, AT_EMPTY_PATH);
		else
#endif
			execve(argv[0], argv, environ);
		_exit(127);
	}
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	for (;;) {
		struct rusage ru;
		if (wait4(pid, &status, 0, &ru) >= 0)
			break;
		if (errno != EINTR) {
			status = -errno;
			break;
		}
	}
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	return status;
}

static int check_outcome(const confine_outcome *out, char *why, size_t why_size) {
	if (out->runner_failed || out->signaled || out->exit_code != 0) {
		set_message(why, why_size, "run ended badly: exit %d, signal %d, runner failure %s",
		            out->exit_code, out->signaled ? out->signal : 0,
		            out->runner_failure_detail ? out->runner_failure_detail : "none");
		return -1;
	}
	return 0;
}

/* One run of a variant; 0 on success, else -1 with `why` filled. */
static int run_variant_once(const variant *v, char *why, size_t why_size) {
	static const char *const true_argv[] = {TRUE_PATH, NULL};
	confine_argv *confined = NULL;
	confine_process *proc = NULL;
	confine_spawn_options so;
	confine_outcome *out = NULL;
	confine_error err;
	int status, r = 0;
	switch (v->kind) {
	case KIND_FORK_EXEC:
	case KIND_POSIX_SPAWN:
	case KIND_RUNNER:
		status = v->kind == KIND_FORK_EXEC     ? fork_exec_wait(v->argv, false, NULL)
		         : v->kind == KIND_POSIX_SPAWN ? posix_spawn_wait(v->argv)
		                                       : raw_spawn_wait(v->argv, v->descriptors);
		if (exited_zero(status))
			return 0;
		describe_status(status, why, why_size);
		return -1;
	case KIND_LIB_PLAIN:
	case KIND_LIB_WRAP:
	case KIND_LIB_THROUGH:
		if (v->kind == KIND_LIB_WRAP &&
		    confine_confine(v->provider, true_argv, v->policy, &confined, &err) < 0) {
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
		if (v->kind == KIND_LIB_THROUGH) {
			const confine_policy *policy = v->policy;
			confine_policy *own = NULL;
			if (v->temp_area) {
				r = confine_policy_copy(v->policy, &own);
				if (r == 0)
					r = confine_policy_make_temp_dir(own, NULL, &err);
				if (r < 0) {
					set_message(why, why_size, "temp dir: %s",
					            own ? err.message : "out of memory");
					confine_policy_free(own);
					return -1;
				}
				policy = own;
			}
			r = confine_spawn_through(v->provider, policy, &so, &proc, &err);
			if (r == 0)
				r = confine_process_wait(proc, &out, &err);
			confine_process_free(proc);
			/* The spawner removes the dir once the run is over; a
			 * start that failed leaves it to the caller. */
			if (own && own->temp_dir && access(own->temp_dir, F_OK) == 0) {
				bool left_behind = r == 0;
				(void)rmdir(own->temp_dir);
				if (left_behind) {
					set_message(why, why_size, "the temp dir %s was left behind",
					            own->temp_dir);
					confine_policy_free(own);
					confine_outcome_free(out);
					return -1;
				}
			}
			confine_policy_free(own);
		} else {
			r = confine_run(&so, &out, &err);
		}
		if (r < 0)
			set_message(why, why_size, "%s failed: %s",
			            v->kind == KIND_LIB_THROUGH ? "confine_spawn_through/wait" : "confine_run",
			            err.message);
		else
			r = check_outcome(out, why, why_size);
		confine_outcome_free(out);
		confine_argv_free(confined);
		return r < 0 ? -1 : 0;
	}
	set_message(why, why_size, "unknown variant kind");
	return -1;
}

static variant *add_variant(variant *v, const char *id, variant_kind kind, const char *why,
                            const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static variant *add_variant(variant *v, const char *id, variant_kind kind, const char *why,
                            const char *fmt, ...) {
	va_list ap;
	memset(v, 0, sizeof *v);
	v->id = id;
	v->kind = kind;
	va_start(ap, fmt);
	vsnprintf(v->label, sizeof v->label, fmt, ap);
	va_end(ap);
	set_message(v->why, sizeof v->why, "%s", why);
	return v;
}

/* An exec kind; `argv` is owned from now on (NULL: out of memory, or a
 * source argv that was unavailable). */
static void add_exec_variant(variant *v, const char *id, const char *label, variant_kind kind,
                             char **argv, bool available, const char *why) {
	add_variant(v, id, kind, available && !argv ? "out of memory" : why, "%s", label);
	v->argv = argv;
	v->available = available && argv;
}

static void add_lib_variant(variant *v, const char *id, const char *label, variant_kind kind,
                            confine_provider *provider, const confine_policy *policy,
                            bool capture, const char *why) {
	add_variant(v, id, kind, why, "%s", label);
	v->provider = provider;
	v->policy = policy;
	v->capture = capture;
	v->available = kind == KIND_LIB_PLAIN || (provider != NULL && policy != NULL);
}

static variant *find_variant(variant *vs, size_t n, const char *id) {
	for (size_t i = 0; i < n; i++)
		if (!strcmp(vs[i].id, id))
			return &vs[i];
	return NULL;
}

static bool both_available(const variant *a, const variant *b) {
	return a && b && a->available && b->available;
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

/* Median over rounds of (a[r] - b[r]) / unit[r], or of a[r] - b[r] when
 * `unit` is NULL, using only rounds where all ran. */
static double paired_diff_median(const variant *a, const variant *b, const variant *unit,
                                 unsigned rounds) {
	double *r = malloc((rounds ? rounds : 1) * sizeof *r);
	double med;
	size_t n = 0;
	if (!r)
		return NAN;
	for (unsigned i = 0; i < rounds; i++) {
		if (a->samples[i] < 0 || b->samples[i] < 0 || (unit && !(unit->samples[i] > 0)))
			continue;
		r[n++] = (a->samples[i] - b->samples[i]) / (unit ? unit->samples[i] : 1.0);
	}
	qsort(r, n, sizeof *r, cmp_double);
	med = percentile(r, n, 50);
	free(r);
	return med;
}

static double median_of(const double *v, unsigned rounds) {
	return compute_stats(v, rounds).median;
}

static void print_ratio(variant *vs, size_t nv, unsigned rounds, const char *name,
                        const char *a_id, const char *b_id, double target) {
	variant *a = find_variant(vs, nv, a_id), *b = find_variant(vs, nv, b_id);
	double per_round, of_medians, cpu_ratio;
	if (!both_available(a, b)) {
		printf("  %-46s skipped (%s unavailable)\n", name,
		       (!a || !a->available) ? a_id : b_id);
		return;
	}
	per_round = paired_ratio_median(a, b, rounds);
	of_medians = median_of(a->samples, rounds) / median_of(b->samples, rounds);
	cpu_ratio = median_of(a->cpu, rounds) / median_of(b->cpu, rounds);
	printf("  %-46s %8.2fx %10.2fx %8.2fx", name, per_round, of_medians, cpu_ratio);
	if (target > 0)
		printf("   <= %.2fx  %s", target, per_round <= target ? "met" : "MISSED");
	printf("\n");
}

/* a - b, in ms (unit_id NULL) or in units of variant `unit_id`'s time. */
static void print_difference(variant *vs, size_t nv, unsigned rounds, const char *name,
                             const char *a_id, const char *b_id, const char *unit_id,
                             double target) {
	variant *a = find_variant(vs, nv, a_id), *b = find_variant(vs, nv, b_id);
	variant *u = unit_id ? find_variant(vs, nv, unit_id) : NULL;
	double per_round, of_medians, cpu;
	if (!both_available(a, b) || (unit_id && !(u && u->available))) {
		printf("  %-46s skipped (unavailable)\n", name);
		return;
	}
	per_round = paired_diff_median(a, b, u, rounds);
	of_medians = median_of(a->samples, rounds) - median_of(b->samples, rounds);
	cpu = median_of(a->cpu, rounds) - median_of(b->cpu, rounds);
	if (u) {
		of_medians /= median_of(u->samples, rounds);
		cpu /= median_of(u->cpu, rounds);
	}
	printf("  %-46s %9.3f %11.3f %9.3f", name, per_round, of_medians, cpu);
	if (target > 0)
		printf("   <= %.3f  %s", target, per_round <= target ? "met" : "MISSED");
	printf("\n");
}

/* The argv an in-process run of `provider` spawns (doc/SPEC.md 12, 14),
 * with its descriptors, for spawning it raw; NULL with `why` filled. */
static confine_argv *in_process_argv(confine_provider *provider, const confine_policy *policy,
                                     char *why, size_t why_size) {
	static const char *const true_argv[] = {TRUE_PATH, NULL};
	confine_argv *c = NULL;
	confine_error err;
	if (!provider || !policy) {
		set_message(why, why_size, "no provider");
		return NULL;
	}
	if (cf_provider_confine_for_spawn(provider, true_argv, policy, &c, &err) < 0) {
		set_message(why, why_size, "in-process argv: %s", err.message);
		return NULL;
	}
	if (!(c->spawn_flags & CONFINE_SPAWN_STATUS_CHANNEL)) {
		set_message(why, why_size, "the provider's in-process argv has no status channel");
		confine_argv_free(c);
		return NULL;
	}
	return c;
}

/* The argv `wrap` prints for `policy` on `provider`'s rung: confine() is
 * what `confine wrap` calls. */
static char **wrap_argv(confine_provider *provider, const confine_policy *policy) {
	static const char *const true_argv[] = {TRUE_PATH, NULL};
	confine_argv *c = NULL;
	confine_error err;
	char **argv;
	if (!provider || !policy || confine_confine(provider, true_argv, policy, &c, &err) < 0)
		return NULL;
	argv = c->argv;
	c->argv = NULL;
	confine_argv_free(c);
	return argv;
}

static void print_argv(const char *label, char *const *argv, const confine_argv *c) {
	printf("  %s:", label);
	for (size_t i = 0; argv && argv[i]; i++)
		printf(" %s", argv[i]);
	if (c && (c->spawn_flags & CONFINE_SPAWN_EXEC_FD))
		printf("  [argv[0] is the sealed memfd, execveat]");
	if (c && (c->spawn_flags & CONFINE_SPAWN_INHERIT_FD))
		printf("  [memfd launcher at fd %d]", c->inherit_fd_at);
	if (c && (c->spawn_flags & CONFINE_SPAWN_STATUS_CHANNEL))
		printf("  [status pipe at fd %d]", c->status_fd_at);
	printf("\n");
}

/* Long on purpose: the table of variants, the interleaved measurement and
 * the report read top to bottom as the one measurement they are. */
static void run_spawn_benchmark(bench_ctx *ctx) {
	static const char *const no_ipc[] = {"--unshare-ipc", NULL};
	static const char *const no_proc_sys[] = {"--ro-bind", "/proc/sys", "/proc/sys", NULL};
	const bench_options *o = &ctx->opt;
	char *ll = (char *)o->launcher, *cli = (char *)o->cli;
	const char *ll_why = ctx->launcher_why, *bw_why = ctx->bwrap_why;
	const char *pl_why = ctx->prov_landlock_why, *pb_why = ctx->prov_bwrap_why;
	char ws_arg[PATH_MAX], why_ll[512] = "", why_bw[512] = "";
	variant vs[40];
	size_t nv = 0;
	unsigned total = o->warmup + o->rounds;
	long long t_start;
	char **bw_ro = wrap_argv(ctx->prov_bwrap, ctx->ro);
	char **bw_ww = wrap_argv(ctx->prov_bwrap, ctx->ww);
	char **ll_ro = wrap_argv(ctx->prov_landlock, ctx->ro);
	confine_argv *in_ll = in_process_argv(ctx->prov_landlock_self, ctx->ro, why_ll, sizeof why_ll);
	confine_argv *in_bw = in_process_argv(ctx->prov_bwrap, ctx->ro, why_bw, sizeof why_bw);
	variant *v;

	set_message(ws_arg, sizeof ws_arg, "%s", ctx->ww ? ctx->ww->workspace_root : "/");

	add_exec_variant(&vs[nv++], "1a", "bare fork+execve", KIND_FORK_EXEC,
	                 strv_new(TRUE_PATH, NULL), true, "");
	add_exec_variant(&vs[nv++], "1b", "bare posix_spawn", KIND_POSIX_SPAWN,
	                 strv_new(TRUE_PATH, NULL), true, "");
	add_lib_variant(&vs[nv++], "1c", "library confine_run, unconfined", KIND_LIB_PLAIN, NULL,
	                NULL, false, "");
	/* The launcher's own cost: fork-and-stay, seccomp, Landlock, one exec. */
	add_exec_variant(&vs[nv++], "2a", "landlock-run --ro / -- true", KIND_RUNNER,
	                 strv_new(ll, "--ro", "/", "--", TRUE_PATH, NULL), ctx->launcher_ok, ll_why);
	add_exec_variant(&vs[nv++], "2w", "landlock-run as `wrap` prints it (read-only)",
	                 KIND_RUNNER, ctx->prov_landlock ? ll_ro : NULL,
	                 ctx->prov_landlock != NULL, pl_why);
	ll_ro = NULL;
	v = &vs[nv++];
	add_exec_variant(v, "2s", "in-process Landlock argv, spawned raw", KIND_RUNNER,
	                 in_ll ? cf_strv_copy((const char *const *)in_ll->argv) : NULL, in_ll != NULL,
	                 ctx->prov_landlock_self ? why_ll : pl_why);
	if (v->available) {
		v->descriptors = in_ll;
		in_ll = NULL;
	}
	add_lib_variant(&vs[nv++], "3a", "library, landlock rung, read-only", KIND_LIB_THROUGH,
	                ctx->prov_landlock_self, ctx->ro, false, pl_why);
	add_lib_variant(&vs[nv++], "3b", "library, landlock rung, workspace-write", KIND_LIB_THROUGH,
	                ctx->prov_landlock_self, ctx->ww, false, pl_why);
	v = &vs[nv++];
	add_lib_variant(v, "3t", "library, landlock, workspace-write, own temp dir",
	                KIND_LIB_THROUGH, ctx->prov_landlock_self, ctx->ww, false, pl_why);
	v->temp_area = true;
	add_lib_variant(&vs[nv++], "3c", "library, landlock rung, read-only, captured",
	                KIND_LIB_THROUGH, ctx->prov_landlock_self, ctx->ro, true, pl_why);
	add_lib_variant(&vs[nv++], "3w", "library, landlock, wrap path (confine+run)", KIND_LIB_WRAP,
	                ctx->prov_landlock, ctx->ro, false, pl_why);
	v = &vs[nv++];
	add_exec_variant(v, "4a", "", KIND_RUNNER, bw_ro ? cf_strv_copy((const char *const *)bw_ro) : NULL,
	                 ctx->prov_bwrap != NULL, pb_why);
	set_message(v->label, sizeof v->label, "bwrap layered, %zu read-only tokens (`wrap`'s)",
	            runner_tokens(bw_ro));
	v = &vs[nv++];
	add_exec_variant(v, "4b", "", KIND_RUNNER, bw_ww, ctx->prov_bwrap && ctx->ww, pb_why);
	set_message(v->label, sizeof v->label, "bwrap layered, %zu ww tokens (`wrap`'s)",
	            runner_tokens(bw_ww));
	bw_ww = NULL;
	v = &vs[nv++];
	add_exec_variant(v, "4c", "bwrap layered (in-process argv), spawned raw", KIND_RUNNER,
	                 in_bw ? cf_strv_copy((const char *const *)in_bw->argv) : NULL, in_bw != NULL,
	                 ctx->prov_bwrap ? why_bw : pb_why);
	if (v->available) {
		v->descriptors = in_bw;
		in_bw = NULL;
	}
	v = &vs[nv++];
	add_exec_variant(v, "4d", "", KIND_RUNNER,
	                 vs[nv - 2].available ? strv_runner_around_true(vs[nv - 2].argv) : NULL,
	                 vs[nv - 2].available, vs[nv - 2].why);
	set_message(v->label, sizeof v->label, "bwrap plain: 4c's %zu tokens around true",
	            runner_tokens(v->argv));
	v = &vs[nv++];
	add_exec_variant(v, "4e", "", KIND_RUNNER, strv_without(bw_ro, no_ipc), bw_ro != NULL, pb_why);
	set_message(v->label, sizeof v->label, "bwrap, 4a without --unshare-ipc (%zu tokens)",
	            runner_tokens(v->argv));
	v = &vs[nv++];
	add_exec_variant(v, "4f", "", KIND_RUNNER, strv_without(bw_ro, no_proc_sys), bw_ro != NULL,
	                 pb_why);
	set_message(v->label, sizeof v->label, "bwrap, 4a without --ro-bind /proc/sys (%zu)",
	            runner_tokens(v->argv));
	/* What `wrap` printed before it was layered: bwrap's read-only tokens
	 * (with --die-with-parent) around true, no launcher inside. */
	v = &vs[nv++];
	add_exec_variant(v, "4g", "", KIND_RUNNER,
	                 ctx->ro && ctx->bwrap_ok ? direct_argv(ctx->bwrap, confine_profile_bwrap, ctx->ro)
	                                          : NULL,
	                 ctx->ro && ctx->bwrap_ok, bw_why);
	set_message(v->label, sizeof v->label, "bwrap plain, %zu read-only tokens (old `wrap`)",
	            runner_tokens(v->argv));
	add_lib_variant(&vs[nv++], "5a", "library, bwrap rung (layered), read-only",
	                KIND_LIB_THROUGH, ctx->prov_bwrap, ctx->ro, false, pb_why);
	add_lib_variant(&vs[nv++], "5b", "library, bwrap rung (layered), workspace-write",
	                KIND_LIB_THROUGH, ctx->prov_bwrap, ctx->ww, false, pb_why);
	v = &vs[nv++];
	add_lib_variant(v, "5t", "library, bwrap, workspace-write, own temp dir",
	                KIND_LIB_THROUGH, ctx->prov_bwrap, ctx->ww, false, pb_why);
	v->temp_area = true;
	add_lib_variant(&vs[nv++], "5w", "library, bwrap, wrap path (confine+run)", KIND_LIB_WRAP,
	                ctx->prov_bwrap, ctx->ro, false, pb_why);
	/* Limits (issue 30): none at all, and every one (the run's cgroup
	 * where it can be made, else the launcher's rlimits). */
	add_lib_variant(&vs[nv++], "3n", "library, landlock, read-only, no limits", KIND_LIB_THROUGH,
	                ctx->prov_landlock_self, ctx->ro_unlimited, false, pl_why);
	add_lib_variant(&vs[nv++], "3l", "library, landlock, read-only, all limits", KIND_LIB_THROUGH,
	                ctx->prov_landlock_self, ctx->ro_limits, false, pl_why);
	add_lib_variant(&vs[nv++], "5n", "library, bwrap, read-only, no limits", KIND_LIB_THROUGH,
	                ctx->prov_bwrap, ctx->ro_unlimited, false, pb_why);
	add_lib_variant(&vs[nv++], "5l", "library, bwrap, read-only, all limits", KIND_LIB_THROUGH,
	                ctx->prov_bwrap, ctx->ro_limits, false, pb_why);
	add_exec_variant(&vs[nv++], "6a", "confine run --runner landlock -- true", KIND_FORK_EXEC,
	                 strv_new(cli, "run", "-w", ws_arg, "--runner", "landlock", "--", TRUE_PATH, NULL),
	                 ctx->cli_ok && ctx->launcher_ok, ctx->cli_ok ? ll_why : ctx->cli_why);
	add_exec_variant(&vs[nv++], "6b", "confine run --runner bwrap -- true", KIND_FORK_EXEC,
	                 strv_new(cli, "run", "-w", ws_arg, "--runner", "bwrap", "--", TRUE_PATH, NULL),
	                 ctx->cli_ok && ctx->bwrap_ok, ctx->cli_ok ? bw_why : ctx->cli_why);
	/* Unpinned: every `confine run` is a new process with a new provider;
	 * the optimistic ladder tries the first rung without a probe. */
	add_exec_variant(&vs[nv++], "6c", "confine run -- true (natural ladder)", KIND_FORK_EXEC,
	                 strv_new(cli, "run", "-w", ws_arg, "--", TRUE_PATH, NULL),
	                 ctx->cli_ok && (ctx->bwrap_ok || ctx->launcher_ok), ctx->cli_why);
	confine_strv_free(bw_ro);
	confine_strv_free(bw_ww);
	confine_strv_free(ll_ro);
	confine_argv_free(in_ll);
	confine_argv_free(in_bw);

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
	printf("  the runner argvs spawned raw (2*, 4*: fork, setsid, descriptors above 2 closed "
	       "on exec, exec, wait4):\n");
	for (const char *ids[] = {"2w", "2s", "4a", "4c", NULL}, **id = ids; *id; id++) {
		variant *x = find_variant(vs, nv, *id);
		if (x && x->available)
			print_argv(x->id, x->argv, x->descriptors);
	}
	fflush(stdout);
	t_start = now_ns();
	for (unsigned round = 0; round < total; round++) {
		for (size_t k = 0; k < nv; k++) {
			/* Rotate the starting variant so no variant always runs right
			 * after the same neighbour (cache and scheduler effects). */
			variant *x = &vs[(k + round) % nv];
			char why[512];
			long long t0, t1;
			double c0, c1;
			int r;
			if (!x->available)
				continue;
			c0 = cpu_ms();
			t0 = now_ns();
			r = run_variant_once(x, why, sizeof why);
			t1 = now_ns();
			c1 = cpu_ms();
			if (round < o->warmup)
				continue;
			if (r < 0) {
				if (!x->failures++)
					set_message(x->first_failure, sizeof x->first_failure, "%s", why);
				x->samples[round - o->warmup] = -1;
				x->cpu[round - o->warmup] = -1;
			} else {
				x->samples[round - o->warmup] = (double)(t1 - t0) / 1e6;
				x->cpu[round - o->warmup] = c1 - c0;
			}
		}
	}

	printf("  wall ms: median, p10, p90; cpu: median CPU ms per run of this process and its\n"
	       "  children (getrusage), which other load on the machine disturbs far less\n");
	printf("  %-4s %-46s %8s %8s %8s %8s %6s\n", "id", "variant", "median", "p10", "p90", "cpu",
	       "runs");
	for (size_t i = 0; i < nv; i++) {
		stats s;
		if (!vs[i].available) {
			printf("  %-4s %-46s skipped: %s\n", vs[i].id, vs[i].label, vs[i].why);
			continue;
		}
		s = compute_stats(vs[i].samples, o->rounds);
		printf("  %-4s %-46s %8.3f %8.3f %8.3f %8.3f %6zu\n", vs[i].id, vs[i].label, s.median,
		       s.p10, s.p90, median_of(vs[i].cpu, o->rounds), s.n);
		if (vs[i].failures)
			printf("       %u failed runs (excluded); first: %s\n", vs[i].failures,
			       vs[i].first_failure);
	}
	printf("  (whole measurement: %.1f s)\n", (double)(now_ns() - t_start) / 1e9);

	printf("\n  ratios, pair by pair. per-round: the median over rounds of a/b within one\n"
	       "  round (the figure judged against the target); of medians: median(a)/median(b)\n"
	       "  of wall time; cpu: the same of CPU time\n");
	printf("  %-46s %9s %11s %9s   %s\n", "ratio", "per-round", "of medians", "cpu",
	       "target (per-round)");
	print_ratio(vs, nv, o->rounds, "6c/6b confine run natural / pinned bwrap", "6c", "6b", 1.10);
	print_ratio(vs, nv, o->rounds, "3a/1a library landlock read-only / bare", "3a", "1a", 2.0);
	print_ratio(vs, nv, o->rounds, "3b/1a library landlock workspace-write / bare", "3b", "1a",
	            2.0);
	print_ratio(vs, nv, o->rounds, "5a/4c library bwrap / its argv raw", "5a", "4c", 1.10);
	print_ratio(vs, nv, o->rounds, "4c/4d layered bwrap / plain, same tokens", "4c", "4d", 0);
	print_ratio(vs, nv, o->rounds, "4a/4g wrap's argv: layered / plain bwrap", "4a", "4g", 0);
	print_ratio(vs, nv, o->rounds, "2a/1a landlock-run --ro / / bare", "2a", "1a", 0);
	print_ratio(vs, nv, o->rounds, "3t/3b landlock ww: own temp dir / none", "3t", "3b", 0);
	print_ratio(vs, nv, o->rounds, "3l/3n landlock: all limits / none", "3l", "3n", 1.05);
	print_ratio(vs, nv, o->rounds, "5l/5n bwrap: all limits / none", "5l", "5n", 1.05);
	print_ratio(vs, nv, o->rounds, "5t/5b bwrap ww: temp dir made (unused) / none", "5t",
	            "5b", 0);
	print_ratio(vs, nv, o->rounds, "4a/4e --unshare-ipc: bwrap with / without", "4a", "4e", 0);
	print_ratio(vs, nv, o->rounds, "4a/4f --ro-bind /proc/sys: with / without", "4a", "4f", 0);
	printf("  context:\n");
	print_ratio(vs, nv, o->rounds, "1b/1a posix_spawn / fork+execve", "1b", "1a", 0);
	print_ratio(vs, nv, o->rounds, "1c/1a library unconfined / bare", "1c", "1a", 0);
	print_ratio(vs, nv, o->rounds, "3a/2s library landlock / its argv raw", "3a", "2s", 0);
	print_ratio(vs, nv, o->rounds, "2s/2w in-process argv / wrap's (landlock)", "2s", "2w", 0);
	print_ratio(vs, nv, o->rounds, "3a/1b library landlock / bare posix_spawn", "3a", "1b", 0);
	print_ratio(vs, nv, o->rounds, "3c/3a captured / inherited stdio", "3c", "3a", 0);
	print_ratio(vs, nv, o->rounds, "3w/2w wrap path / its argv raw (landlock)", "3w", "2w", 0);
	print_ratio(vs, nv, o->rounds, "5a/4a library bwrap (layered) / wrap's bwrap", "5a", "4a", 0);
	print_ratio(vs, nv, o->rounds, "5b/4b the same, workspace-write", "5b", "4b", 0);
	print_ratio(vs, nv, o->rounds, "5w/4a wrap path / its argv raw (bwrap)", "5w", "4a", 0);
	print_ratio(vs, nv, o->rounds, "4d/4a plain bwrap: no / with --die-with-parent", "4d", "4a",
	            0);
	print_ratio(vs, nv, o->rounds, "6a/1a confine run (landlock) / bare", "6a", "1a", 0);
	print_ratio(vs, nv, o->rounds, "6b/1a confine run (bwrap) / bare", "6b", "1a", 0);

	printf("\n  differences, per round then the median; in ms, or in bare execs (units of\n"
	       "  1a, fork+exec of true, in the same round); cpu: of the CPU medians\n");
	printf("  %-46s %9s %11s %9s   %s\n", "difference", "per-round", "of medians", "cpu",
	       "target (per-round)");
	print_difference(vs, nv, o->rounds, "6a-2s confine's own cost, landlock (execs)", "6a", "2s",
	                 "1a", 1.3);
	print_difference(vs, nv, o->rounds, "6b-4c confine's own cost, bwrap (execs)", "6b", "4c",
	                 "1a", 1.3);
	print_difference(vs, nv, o->rounds, "6a-1a confine run (landlock) - bare (ms)", "6a", "1a",
	                 NULL, 2.0);
	printf("  context:\n");
	print_difference(vs, nv, o->rounds, "6a-2w against wrap's argv, landlock (execs)", "6a",
	                 "2w", "1a", 0);
	print_difference(vs, nv, o->rounds, "6b-4a against wrap's argv, bwrap (execs)", "6b", "4a",
	                 "1a", 0);
	print_difference(vs, nv, o->rounds, "3a-2s library's own cost, landlock (execs)", "3a",
	                 "2s", "1a", 0);
	print_difference(vs, nv, o->rounds, "5a-4c library's own cost, bwrap (execs)", "5a", "4c",
	                 "1a", 0);
	print_difference(vs, nv, o->rounds, "2a-1a launcher's added cost (execs)", "2a", "1a", "1a",
	                 0);
	print_difference(vs, nv, o->rounds, "4c-4d launcher inside bwrap (execs)", "4c", "4d", "1a",
	                 0);
	print_difference(vs, nv, o->rounds, "3t-3b the run's temp dir, landlock (ms)", "3t", "3b",
	                 NULL, 0);
	print_difference(vs, nv, o->rounds, "5t-5b the run's temp dir, bwrap (ms)", "5t", "5b",
	                 NULL, 0);
	print_difference(vs, nv, o->rounds, "4a-4g launcher inside `wrap`'s bwrap (execs)", "4a",
	                 "4g", "1a", 0);
	print_difference(vs, nv, o->rounds, "4a-4e --unshare-ipc (ms)", "4a", "4e", NULL, 0);
	print_difference(vs, nv, o->rounds, "4a-4f --ro-bind /proc/sys (ms)", "4a", "4f", NULL, 0);
	print_difference(vs, nv, o->rounds, "6c-6b natural - pinned bwrap (ms)", "6c", "6b", NULL, 0);

	for (size_t i = 0; i < nv; i++) {
		confine_strv_free(vs[i].argv);
		confine_argv_free(vs[i].descriptors);
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
		bool in_process;   /* the argv a run the library spawns itself uses */
	} cases[] = {
		{"landlock rung, read-only", ctx->prov_landlock, ctx->ro, ctx->prov_landlock_why, false},
		{"landlock rung, workspace-write", ctx->prov_landlock, ctx->ww, ctx->prov_landlock_why,
		 false},
		{"bwrap rung, read-only", ctx->prov_bwrap, ctx->ro, ctx->prov_bwrap_why, false},
		{"bwrap rung, workspace-write", ctx->prov_bwrap, ctx->ww, ctx->prov_bwrap_why, false},
		{"in-process argv, landlock, read-only", ctx->prov_landlock_self, ctx->ro,
		 ctx->prov_landlock_why, true},
		{"in-process argv, landlock, ws-write", ctx->prov_landlock_self, ctx->ww,
		 ctx->prov_landlock_why, true},
		{"in-process argv, bwrap, read-only", ctx->prov_bwrap, ctx->ro, ctx->prov_bwrap_why,
		 true},
		{"in-process argv, bwrap, ws-write", ctx->prov_bwrap, ctx->ww, ctx->prov_bwrap_why,
		 true},
	};
	unsigned long iters = ctx->opt.iterations;

	printf("\n== 2. cached confine() (argv building only; each call includes its "
	       "confine_argv_free) ==\n"
	       "  in-process argv: what confine_spawn_through builds before each spawn (the\n"
	       "  launcher's grants and status channel; the layered argv on bwrap)\n");
	printf("  %-34s %10s %12s  %s\n", "provider", "ns/call", "iterations", "target < 10000 ns");
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		int (*build)(confine_provider *, const char *const *, const confine_policy *,
		             confine_argv **, confine_error *) =
		        cases[c].in_process ? cf_provider_confine_for_spawn : confine_confine;
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
		if (build(cases[c].p, argv, cases[c].policy, &out, &err) < 0) {
			printf("  %-34s skipped: confine() failed: %s\n", cases[c].label, err.message);
			continue;
		}
		confine_argv_free(out);
		/* Best of three passes: the figure is the cost of the code, not of
		 * whatever else the machine did during one pass. */
		for (int pass = 0; pass < 3 && !failed; pass++) {
			t0 = now_ns();
			for (unsigned long i = 0; i < iters; i++) {
				if (build(cases[c].p, argv, cases[c].policy, &out, &err) < 0) {
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
			if (make_local_provider(ctx, cases[c].pin, cases[c].path, true, &p, &err) < 0) {
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
	char *cli_nat[] = {cli, (char *)"run", (char *)"-w", ws, (char *)"--", (char *)TRUE_PATH,
	                   NULL};
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
		{"confine run -- true (natural ladder)", cli_nat, ctx->cli_ok, ctx->cli_why, true},
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
		confine_process *proc = NULL;
		confine_outcome *out = NULL;
		confine_spawn_options so;
		confine_error err;
		char buf[8];
		ssize_t len = -1;
		int fd, r;
		unlink(w->file);
		confine_spawn_options_init(&so);
		so.argv = argv;
		so.workdir = w->policy->workspace_root;
		/* Confined: a run the library spawns itself, as the consumers'. */
		if (w->provider) {
			r = confine_spawn_through(w->provider, w->policy, &so, &proc, &err);
			if (r == 0)
				r = confine_process_wait(proc, &out, &err);
			confine_process_free(proc);
		} else {
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
		{"landlock", ctx->prov_landlock_self, ctx->prov_landlock_self != NULL,
		 ctx->prov_landlock_why},
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
	} else if (make_local_provider(ctx, CONFINE_RUNNER_LANDLOCK, NULL, true, &ctx->prov_landlock,
	                               &err) < 0 ||
	           make_local_provider(ctx, CONFINE_RUNNER_LANDLOCK, NULL, false,
	                               &ctx->prov_landlock_self, &err) < 0) {
		confine_provider_free(ctx->prov_landlock);
		ctx->prov_landlock = NULL;
		set_message(ctx->prov_landlock_why, sizeof ctx->prov_landlock_why,
		         "confine_local_provider_new: %s", err.message);
	} else if (confine_provider_verdict(ctx->prov_landlock, &v, &err) == 0) {
		ctx->landlock_abi = v.landlock_abi;
	}
	if (!ctx->bwrap_ok) {
		set_message(ctx->prov_bwrap_why, sizeof ctx->prov_bwrap_why, "%s", ctx->bwrap_why);
	} else if (make_local_provider(ctx, CONFINE_RUNNER_BWRAP, NULL, true, &ctx->prov_bwrap,
	                               &err) < 0) {
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
	    confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, ws, &ctx->ww, &err) < 0 ||
	    confine_policy_copy(ctx->ro, &ctx->ro_unlimited) < 0 ||
	    confine_policy_lift_limit(ctx->ro_unlimited, CONFINE_LIMIT_PIDS, &err) < 0 ||
	    confine_policy_copy(ctx->ro, &ctx->ro_limits) < 0 ||
	    confine_policy_set_limit_text(ctx->ro_limits, "pids", "256", &err) < 0 ||
	    confine_policy_set_limit_text(ctx->ro_limits, "memory", "2G", &err) < 0 ||
	    confine_policy_set_limit_text(ctx->ro_limits, "cpuSeconds", "600", &err) < 0 ||
	    confine_policy_set_limit_text(ctx->ro_limits, "fileSize", "1G", &err) < 0 ||
	    confine_policy_set_limit_text(ctx->ro_limits, "openFiles", "1024", &err) < 0) {
		fprintf(stderr, "confine-bench: policy for %s: %s\n", ws, err.message);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* 6. gitHazards: the snapshot before a workspace-write run and the walk and
 * diff after it (doc/SPEC.md 15), up to a deep tree of 30000 entries (a
 * node_modules 12 levels down, issue 28.3), and the protections' walk
 * (bwrap's plan) over the same trees. */

/* A tree of about `entries` directory entries: 40 repositories, each with
 * hooks and a config, and the rest plain files in 100 directories. */
static int make_scan_tree(const char *root, unsigned entries) {
	char path[8400];
	unsigned made = 0;
	for (unsigned r = 0; r < 40; r++) {
		FILE *f;
		snprintf(path, sizeof path, "%s/repo%u/.git/hooks", root, r);
		if (mkdir_p(path) < 0)
			return -1;
		snprintf(path, sizeof path, "%s/repo%u/.git/config", root, r);
		if (!(f = fopen(path, "we")))
			return -1;
		fputs("[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://x/r.git\n", f);
		fclose(f);
		snprintf(path, sizeof path, "%s/repo%u/.git/hooks/pre-commit", root, r);
		if (!(f = fopen(path, "we")))
			return -1;
		fputs("#!/bin/sh\nexit 0\n", f);
		fclose(f);
		made += 6;
	}
	for (unsigned d = 0; made < entries; d++) {
		int fd;
		snprintf(path, sizeof path, "%s/src/d%u", root, d % 100);
		if (d < 100 && mkdir_p(path) < 0)
			return -1;
		snprintf(path, sizeof path, "%s/src/d%u/f%u", root, d % 100, d);
		if ((fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0)
			return -1;
		close(fd);
		made++;
	}
	return 0;
}

/* node_modules 12 levels deep, `entries` files spread over the levels, a
 * repository at the bottom. */
static int make_deep_tree(const char *root, unsigned entries) {
	char path[8400], level[4096];
	FILE *f;
	if ((size_t)snprintf(level, sizeof level, "%s", root) >= sizeof level)
		return -1;
	for (unsigned d = 0; d < 12; d++) {
		size_t len = strlen(level);
		if ((size_t)snprintf(level + len, sizeof level - len, "/node_modules/pkg%u", d) >=
		        sizeof level - len ||
		    mkdir_p(level) < 0)
			return -1;
		for (unsigned k = 0; k < entries / 12; k++) {
			int fd;
			if ((size_t)snprintf(path, sizeof path, "%s/f%u.js", level, k) >= sizeof path ||
			    (fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0)
				return -1;
			close(fd);
		}
	}
	if ((size_t)snprintf(path, sizeof path, "%s/vendored/.git/hooks", level) >= sizeof path ||
	    mkdir_p(path) < 0)
		return -1;
	if ((size_t)snprintf(path, sizeof path, "%s/vendored/.git/config", level) >= sizeof path ||
	    !(f = fopen(path, "we")))
		return -1;
	fputs("[core]\n\tbare = false\n", f);
	fclose(f);
	return 0;
}

static void run_git_scan_cost(bench_ctx *ctx) {
	static const unsigned sizes[] = {1500, 10000, 19500, 30000};
	unsigned rounds = ctx->opt.quick ? 5 : 30;
	char *bare_true[] = {(char *)TRUE_PATH, NULL};
	printf("\n== 6. gitHazards: snapshot before + walk and diff after a workspace-write run "
	       "(ms; median of %u rounds, each beside a bare exec of true) ==\n", rounds);
	printf("  %-14s %12s %12s %12s %16s %14s\n", "tree entries", "before", "after+diff", "total",
	       "total/bare exec", "protect walk");
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		char root[8192];
		char *roots[2] = {root, NULL};
		double before_ms[64], after_ms[64], total_ms[64], bare_ms[64], ratio[64];
		bool ok = true;
		bool deep = sizes[i] == 30000;
		double plan_ms[64];
		snprintf(root, sizeof root, "%s/gitscan-%u", ctx->base, sizes[i]);
		if (mkdir_p(root) < 0 ||
		    (deep ? make_deep_tree(root, sizes[i]) : make_scan_tree(root, sizes[i])) < 0) {
			printf("  %-14u cannot make the tree: %s\n", sizes[i], strerror(errno));
			continue;
		}
		for (unsigned r = 0; r < rounds && ok; r++) {
			cf_git_snapshot *before = NULL, *after = NULL;
			confine_git_hazard *hazards = NULL;
			confine_policy *ww = NULL;
			cf_plan plan;
			size_t n = 0;
			long long t0, t1, t2, t3, p0 = now_ns();
			/* The protections' walk, as a bwrap argv plans it; it must
			 * find every repository (full). */
			ok = confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, root, &ww, NULL) == 0 &&
			     cf_plan_make(ww, CF_PLAN_BWRAP, &plan) == 0;
			plan_ms[r] = (double)(now_ns() - p0) / 1e6;
			if (ok) {
				ok = !plan.defaults_unprotected || !plan.defaults_reason ||
				     !strstr(plan.defaults_reason, "budget");
				cf_plan_clear(&plan);
			}
			confine_policy_free(ww);
			t0 = now_ns();
			ok = ok && cf_git_snapshot_take(roots, &before) == 0;
			t1 = now_ns();
			ok = ok && cf_git_snapshot_take(roots, &after) == 0 &&
			     cf_git_snapshot_diff(before, after, &hazards, &n) == 0;
			t2 = now_ns();
			(void)fork_exec_wait(bare_true, true, NULL);
			t3 = now_ns();
			ok = ok && n == 0; /* nothing changed: nothing to report */
			cf_git_hazards_free(hazards, n);
			cf_git_snapshot_free(before);
			cf_git_snapshot_free(after);
			before_ms[r] = (double)(t1 - t0) / 1e6;
			after_ms[r] = (double)(t2 - t1) / 1e6;
			total_ms[r] = (double)(t2 - t0) / 1e6;
			bare_ms[r] = (double)(t3 - t2) / 1e6;
			ratio[r] = total_ms[r] / bare_ms[r];
		}
		if (!ok) {
			printf("  %-14u the walk failed or reported a change nobody made\n", sizes[i]);
			continue;
		}
		printf("  %-9u%-5s %12.2f %12.2f %12.2f %15.1fx %14.2f\n", sizes[i], deep ? " deep" : "",
		       median_of(before_ms, rounds), median_of(after_ms, rounds),
		       median_of(total_ms, rounds), median_of(ratio, rounds), median_of(plan_ms, rounds));
		(void)bare_ms;
	}
	printf("  (no depth bound; each walk reads at most %d directory entries; \"deep\": "
	       "node_modules 12 levels down with a repository at the bottom)\n",
	       CF_GIT_SCAN_MAX_ENTRIES);
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
	if (ctx.opt.sections & SECTION_GIT_SCAN)
		run_git_scan_cost(&ctx);

	confine_provider_free(ctx.prov_landlock);
	confine_provider_free(ctx.prov_landlock_self);
	confine_provider_free(ctx.prov_bwrap);
	confine_policy_free(ctx.ro);
	confine_policy_free(ctx.ww);
	confine_policy_free(ctx.ro_unlimited);
	confine_policy_free(ctx.ro_limits);
	remove_tree(ctx.base);
	return 0;
}
