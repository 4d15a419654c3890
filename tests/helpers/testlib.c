/* SPDX-License-Identifier: MIT */
/* Scaffolding shared by the test programs; see testlib.h. */
#include "testlib.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int checks;
static int failures;
static const char *check_label;

void tl_check(bool ok, const char *fmt, ...) {
	va_list ap;
	checks++;
	if (!ok)
		failures++;
	printf("%s - ", ok ? "ok" : "not ok");
	if (check_label)
		printf("%s: ", check_label);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	/* a test that dies later must still show what it proved */
	fflush(stdout);
}

void tl_check_label(const char *label) {
	check_label = label;
}

/* A test meson reads as TAP (CONFINE_TEST_TAP=1 in its environment). */
static bool tap_mode(void) {
	const char *v = getenv("CONFINE_TEST_TAP");
	return v && strcmp(v, "1") == 0;
}

int tl_checks_done(void) {
	printf("# %d checks, %d failed\n", checks, failures);
	if (checks == 0)
		tl_check(false, "no check ran");
	if (tap_mode())
		printf("1..%d\n", checks);
	return failures ? 1 : 0;
}

bool tl_must_work(void) {
	const char *v = getenv("CONFINE_MUST_WORK");
	return v && strcmp(v, "1") == 0;
}

int tl_skip_or_fail(const char *why) {
	if (tl_must_work()) {
		tl_check(false, "%s, but CONFINE_MUST_WORK=1", why);
		return tl_checks_done();
	}
	/* TAP's skip of the whole (tl_exit() makes it exit 0) */
	printf(tap_mode() ? "1..0 # SKIP %s\n" : "# SKIP %s\n", why);
	fflush(stdout);
	return TL_SKIP;
}

int tl_exit(int status) {
	/* meson fails a TAP test's exit 77: its skip is the plan's */
	return status == TL_SKIP && tap_mode() ? 0 : status;
}

long long tl_now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool tl_exists(const char *path) {
	struct stat st;
	return lstat(path, &st) == 0;
}

bool tl_file_holds(const char *path, const char *want) {
	char buf[256];
	FILE *f = fopen(path, "re");
	size_t n;
	if (!f)
		return false;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strcmp(buf, want) == 0;
}

/* Reads /proc/<pid>/stat's state and process group; false when the process
 * is gone or the line cannot be parsed. */
static bool proc_stat(const char *pid, char *state, int *pgrp) {
	char path[300], buf[512], *close_paren;
	FILE *f;
	snprintf(path, sizeof path, "/proc/%s/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(buf, sizeof buf, f)) {
		fclose(f);
		return false;
	}
	fclose(f);
	/* pid (comm) state ppid pgrp ...; comm may hold spaces and parens */
	close_paren = strrchr(buf, ')');
	return close_paren && sscanf(close_paren + 1, " %c %*d %d", state, pgrp) == 2;
}

static bool is_live(char state) {
	return state != 'Z' && state != 'X';
}

static bool is_pid(const char *name) {
	return name[0] >= '0' && name[0] <= '9';
}

bool tl_group_alive(pid_t pgid) {
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool alive = false;
	if (!d)
		return kill(-pgid, 0) == 0;
	while (!alive && (e = readdir(d))) {
		char state;
		int pgrp;
		if (is_pid(e->d_name) && proc_stat(e->d_name, &state, &pgrp) && pgrp == (int)pgid &&
		    is_live(state))
			alive = true;
	}
	closedir(d);
	return alive;
}

bool tl_group_gone_within(pid_t pgid, long long ms) {
	long long until = tl_now_ms() + ms;
	bool alive;
	while ((alive = tl_group_alive(pgid)) && tl_now_ms() < until)
		usleep(5000);
	return !alive;
}

/* Whether /proc/<pid>/cmdline is `sleep <duration>` (argv[0] may be a path). */
static bool runs_sleep(const char *pid, const char *duration) {
	char path[300], buf[256];
	const char *arg0, *slash;
	size_t len0;
	ssize_t n;
	int fd;
	snprintf(path, sizeof path, "/proc/%s/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	len0 = strlen(buf);
	slash = strrchr(buf, '/');
	arg0 = slash ? slash + 1 : buf;
	return strcmp(arg0, "sleep") == 0 && (ssize_t)len0 + 1 < n &&
	       strcmp(buf + len0 + 1, duration) == 0;
}

bool tl_sleep_running(const char *duration) {
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool found = false;
	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		char state;
		int pgrp;
		if (is_pid(e->d_name) && proc_stat(e->d_name, &state, &pgrp) && is_live(state) &&
		    runs_sleep(e->d_name, duration))
			found = true;
	}
	closedir(d);
	return found;
}

/* Whether /proc/<pid>/environ holds exactly `entry` among its strings. */
static bool environ_holds(const char *pid, const char *entry) {
	char path[300];
	char *buf = NULL;
	size_t len = 0, cap = 0, want = strlen(entry);
	bool found = false;
	int fd;
	snprintf(path, sizeof path, "/proc/%s/environ", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	for (;;) {
		ssize_t n;
		if (len == cap) {
			char *bigger = realloc(buf, cap ? cap * 2 : 16384);
			if (!bigger)
				break;
			buf = bigger;
			cap = cap ? cap * 2 : 16384;
		}
		n = read(fd, buf + len, cap - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	for (size_t at = 0; at < len && !found;) {
		size_t end = at;
		while (end < len && buf[end] != '\0')
			end++;
		found = end - at == want && memcmp(buf + at, entry, want) == 0;
		at = end + 1;
	}
	free(buf);
	return found;
}

/* Calls fn(pid) for each live process carrying `entry`; returns the count. */
static int for_each_marked(const char *entry, void (*fn)(pid_t)) {
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char state;
		int pgrp;
		if (is_pid(e->d_name) && proc_stat(e->d_name, &state, &pgrp) && is_live(state) &&
		    environ_holds(e->d_name, entry)) {
			n++;
			if (fn)
				fn((pid_t)atoi(e->d_name));
		}
	}
	closedir(d);
	return n;
}

int tl_marked_count(const char *entry) {
	return for_each_marked(entry, NULL);
}

static void kill_and_list(pid_t pid) {
	char path[64], argv0[128] = "";
	FILE *f;
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	if ((f = fopen(path, "re"))) {
		if (!fgets(argv0, sizeof argv0, f))
			argv0[0] = '\0';
		fclose(f);
	}
	printf("# left: %d %s\n", (int)pid, argv0);
	(void)kill(pid, SIGKILL);
}

bool tl_marked_gone_within(const char *entry, long long ms) {
	long long until = tl_now_ms() + ms;
	while (tl_marked_count(entry) > 0) {
		if (tl_now_ms() >= until) {
			(void)for_each_marked(entry, kill_and_list);
			fflush(stdout);
			return false;
		}
		usleep(20000);
	}
	return true;
}

int tl_make_workdir(const char *prefix, char *out, size_t size) {
	const char *home = getenv("HOME");
	char dir[512], tmpl[PATH_MAX];
	char *real;
	if (!home || home[0] != '/' || strlen(home) > 400) {
		printf("# HOME is not a short absolute path\n");
		return -1;
	}
	snprintf(dir, sizeof dir, "%s/.cache", home);
	mkdir(dir, 0755);
	snprintf(dir, sizeof dir, "%s/.cache/confine-tests", home);
	mkdir(dir, 0755);
	snprintf(tmpl, sizeof tmpl, "%s/%s-XXXXXX", dir, prefix);
	if (!mkdtemp(tmpl)) {
		printf("# mkdtemp %s: %s\n", tmpl, strerror(errno));
		return -1;
	}
	/* canonical, so paths the sandbox reports compare equal to ours */
	real = realpath(tmpl, NULL);
	if (!real || strlen(real) >= size) {
		printf("# %s: no canonical path that fits %zu bytes\n", tmpl, size);
		free(real);
		return -1;
	}
	memcpy(out, real, strlen(real) + 1);
	free(real);
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

int tl_remove_tree(const char *path) {
	if (!path || !path[0])
		return 0;
	if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0) {
		printf("# could not remove %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

char *tl_write_file(const char *dir, const char *name, const char *content, mode_t mode) {
	char *path = NULL;
	size_t len = strlen(content);
	bool wrote;
	int fd;
	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return NULL;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(path);
		return NULL;
	}
	wrote = write(fd, content, len) == (ssize_t)len;
	if (close(fd) != 0 || !wrote || chmod(path, mode) != 0) {
		free(path);
		return NULL;
	}
	return path;
}

/* ---- the launcher on disk ---- */

static bool under_tmp(const char *path) {
	return strncmp(path, "/tmp/", 5) == 0;
}

/* The per-process copy tl_launcher() made, removed at exit (by the process
 * that made it, not by a forked child that calls exit()). */
static char launcher_dir[1100];
static pid_t launcher_owner;

static void remove_launcher_copy(void) {
	char cmd[1200];
	if (launcher_dir[0] && getpid() == launcher_owner) {
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", launcher_dir);
		if (system(cmd) != 0)
			fprintf(stderr, "testlib: could not remove %s\n", launcher_dir);
		launcher_dir[0] = '\0';
	}
}

const char *tl_launcher(void) {
	static char copy[1200];
	const char *built = getenv("CONFINE_TEST_LAUNCHER");
	const char *home = getenv("HOME");
	char *real, cmd[8192];
	if (!built || !built[0])
		return NULL;
	if (copy[0])
		return copy;
	real = realpath(built, NULL);
	if (!real || !under_tmp(real) || !home || home[0] != '/' || strlen(home) > 900 ||
	    strlen(real) > 1000) {
		free(real);
		return built;
	}
	/* This process's own copy, in a directory of its own: tests running
	 * at once never see a half-written launcher, and nothing stays. */
	snprintf(cmd, sizeof cmd, "mkdir -p '%s/.cache/confine-tests'", home);
	snprintf(launcher_dir, sizeof launcher_dir, "%s/.cache/confine-tests/launcher.XXXXXX", home);
	if (system(cmd) != 0 || !mkdtemp(launcher_dir)) {
		launcher_dir[0] = '\0';
		free(real);
		return built;
	}
	launcher_owner = getpid();
	atexit(remove_launcher_copy);
	snprintf(copy, sizeof copy, "%s/landlock-run", launcher_dir);
	snprintf(cmd, sizeof cmd, "chmod 0755 '%s' && cp '%s' '%s' && chmod 0755 '%s'",
	         launcher_dir, real, copy, copy);
	free(real);
	if (system(cmd) != 0) {
		copy[0] = '\0';
		return built;
	}
	return copy;
}

/* ---- copies another user can run ---- */

static char stage_dir[PATH_MAX];
static pid_t stage_owner;

static void stage_remove(void) {
	/* a forked child that exits must not take the copies with it */
	if (stage_dir[0] && getpid() == stage_owner)
		tl_remove_tree(stage_dir);
}

static bool copy_file(const char *from, const char *to, mode_t mode) {
	char buf[65536];
	ssize_t n = 0;
	bool ok = true;
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	if (in < 0)
		return false;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0) {
		close(in);
		return false;
	}
	while (ok && (n = read(in, buf, sizeof buf)) > 0)
		ok = write(out, buf, (size_t)n) == n;
	close(in);
	ok = ok && n == 0 && fchown(out, 0, 0) == 0 && fchmod(out, mode) == 0;
	return close(out) == 0 && ok;
}

const char *tl_stage_for_others(const char *path) {
	static char copies[8][PATH_MAX];
	static unsigned used;
	const char *parent = getenv("CONFINE_TEST_STAGE_PARENT");
	const char *name = strrchr(path, '/');
	char *copy;
	if (used == sizeof copies / sizeof copies[0]) {
		printf("# tl_stage_for_others: more than %u copies\n", used);
		return NULL;
	}
	if (!stage_dir[0]) {
		if (!parent || !parent[0])
			parent = "/var/lib";
		if ((size_t)snprintf(stage_dir, sizeof stage_dir, "%s/confine-stage.XXXXXX", parent) >=
		        sizeof stage_dir ||
		    !mkdtemp(stage_dir)) {
			printf("# cannot make a directory under %s: %s\n", parent, strerror(errno));
			stage_dir[0] = '\0';
			return NULL;
		}
		stage_owner = getpid();
		atexit(stage_remove);
		if (chown(stage_dir, 0, 0) != 0 || chmod(stage_dir, 0755) != 0) {
			printf("# cannot make %s root-owned, mode 0755: %s\n", stage_dir, strerror(errno));
			return NULL;
		}
	}
	copy = copies[used];
	if ((size_t)snprintf(copy, PATH_MAX, "%s/%s", stage_dir, name ? name + 1 : path) >= PATH_MAX ||
	    !copy_file(path, copy, 0755)) {
		printf("# cannot copy %s to %s: %s\n", path, copy, strerror(errno));
		return NULL;
	}
	used++;
	return copy;
}
