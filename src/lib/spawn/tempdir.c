/* SPDX-License-Identifier: MIT */
/*
 * The private temp area of a confined run on the rungs without a mount
 * namespace (doc/SPEC.md 15): made before the argv is built (it must be
 * granted), exported as TMPDIR and removed with its contents by the
 * spawner once the run is over. Each is locked (flock on its directory,
 * held by this process until it removes it), so when its owner was
 * SIGKILLed the next temp dir made under the same base removes it: only
 * directories of ours whose lock is free, never a live run's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __APPLE__
#include <sys/random.h> /* getentropy */
#endif

#include "spawn/spawn.h"

/* Nesting deeper than this inside a temp dir is left behind rather than
 * recursed into without bound. */
#define TEMP_REMOVE_MAX_DEPTH 128

static const char *env_value(const char *const *envp, const char *name) {
	size_t n = strlen(name);
	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
			return envp[i] + n + 1;
	return NULL;
}

/* The locks this process holds, one per temp dir it made and has not
 * removed. */
struct held_lock {
	struct held_lock *next;
	int fd;
	char path[];
};
static struct held_lock *held;
static pthread_mutex_t held_mutex = PTHREAD_MUTEX_INITIALIZER;

static void hold(int fd, const char *path) {
	struct held_lock *h = malloc(sizeof *h + strlen(path) + 1);
	if (!h) {
		/* No record: the lock stays held until this process ends. */
		return;
	}
	h->fd = fd;
	strcpy(h->path, path);
	pthread_mutex_lock(&held_mutex);
	h->next = held;
	held = h;
	pthread_mutex_unlock(&held_mutex);
}

static void release(const char *path) {
	pthread_mutex_lock(&held_mutex);
	for (struct held_lock **p = &held; *p; p = &(*p)->next)
		if (strcmp((*p)->path, path) == 0) {
			struct held_lock *h = *p;
			*p = h->next;
			close(h->fd);
			free(h);
			break;
		}
	pthread_mutex_unlock(&held_mutex);
}

/* Removes the temp dirs under `base` whose owner is gone: ours (prefix,
 * owner, mode 0700), marked as locked by their maker (the sticky bit: a
 * library from before the locks made none, and its live runs' dirs must
 * not read as dead) and unlocked. */
static void sweep_dead_runs(const char *base) {
	DIR *d = opendir(base);
	struct dirent *e;
	struct stat st;
	uid_t me = geteuid();
	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		int fd;
		if (strncmp(e->d_name, CF_TEMP_DIR_PREFIX, strlen(CF_TEMP_DIR_PREFIX)) != 0 ||
		    (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
			continue;
		/* cf_temp_dir_is_ours() and the sticky mark from one lstat: a
		 * directory that fails them (a live pre-lock run's, another
		 * user's) costs no open. */
		if ((size_t)snprintf(path, sizeof path, "%s/%s", base, e->d_name) >= sizeof path ||
		    lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != me ||
		    (st.st_mode & 077) != 0 || !(st.st_mode & S_ISVTX))
			continue;
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && (st.st_mode & S_ISVTX) && flock(fd, LOCK_EX | LOCK_NB) == 0)
			cf_temp_dir_remove(path);
		close(fd);
	}
	closedir(d);
}

/* mkdtemp(3), but made 01700 in the one mkdir: the sticky bit (the mark of
 * a maker that locks, which the sweep requires) is there from the start, so
 * a maker killed before its flock leaves a directory the next sweep takes
 * (mkdtemp's 0700, then fchmod, left one no sweep would ever remove).
 * The trailing XXXXXX of `template` become random letters and digits. */
static int make_marked_dir(char *template) {
	static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t n = strlen(template);
	if (n < 6 || strcmp(template + n - 6, "XXXXXX") != 0) {
		errno = EINVAL;
		return -1;
	}
	for (int attempt = 0; attempt < 100; attempt++) {
		unsigned char random_bytes[6];
		if (getentropy(random_bytes, sizeof random_bytes) != 0) {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			for (size_t i = 0; i < sizeof random_bytes; i++)
				random_bytes[i] = (unsigned char)((ts.tv_nsec >> (i * 5)) ^ getpid() ^ attempt);
		}
		for (size_t i = 0; i < 6; i++)
			template[n - 6 + i] = chars[random_bytes[i] % (sizeof chars - 1)];
		if (mkdir(template, 01700) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

int confine_policy_make_temp_dir(confine_policy *policy, const char *const *envp,
                                 confine_error *err) {
	const char *base;
	char template[PATH_MAX];
	struct stat st;
	char *real;
	if (!policy)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
		                    "making a temp directory needs a policy");
	if (!confine_mode_is_confined(policy->mode) || !policy->private_temp || policy->temp_dir)
		return 0;
	base = envp ? env_value(envp, "TMPDIR") : getenv("TMPDIR");
	if (!base || base[0] != '/' || stat(base, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    strlen(base) > PATH_MAX - 32)
		base = "/tmp";
	sweep_dead_runs(base);
	for (int attempt = 0;; attempt++) {
		struct stat held_st;
		int fd;
		snprintf(template, sizeof template, "%s%s" CF_TEMP_DIR_PREFIX "XXXXXX", base,
		         base[strlen(base) - 1] == '/' ? "" : "/");
		if (make_marked_dir(template) < 0) {
			int e = errno;
			return cf_error_set(err, e, CONFINE_E_SYSTEM, "spawn", e,
			                    "cannot make the run's private temp directory under %s: %s",
			                    base, strerror(e));
		}
		/* Canonical: the grant names what the kernel resolves (macOS /var). */
		real = realpath(template, NULL);
		fd = real ? open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW) : -1;
		/* Locked, and still the one made: another process's sweep may
		 * have taken it in between (then a new one). */
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0 && fchmod(fd, 01700) == 0 &&
		    fstat(fd, &held_st) == 0 &&
		    stat(real, &st) == 0 && st.st_ino == held_st.st_ino && st.st_dev == held_st.st_dev) {
			hold(fd, real);
			policy->temp_dir = real;
			return 0;
		}
		{
			int e = real ? errno : ENOMEM;
			if (fd >= 0)
				close(fd);
			(void)rmdir(real ? real : template);
			free(real);
			if (attempt == 2)
				return cf_error_set(err, e ? e : EAGAIN, CONFINE_E_SYSTEM, "spawn",
				                    e ? e : EAGAIN,
				                    "cannot make and lock the run's private temp directory "
				                    "under %s: %s", base, strerror(e ? e : EAGAIN));
		}
	}
}

/* Empties the directory open as `fd` (consumed), without following a
 * symlink or leaving the directory's filesystem. */
static void empty_dir(int fd, dev_t dev, int depth) {
	DIR *d = fdopendir(fd);
	struct dirent *e;
	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		const char *n = e->d_name;
		struct stat st;
		int child;
		if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0')))
			continue;
		if (fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (!S_ISDIR(st.st_mode)) {
			(void)unlinkat(dirfd(d), n, 0);
			continue;
		}
		if (st.st_dev != dev || depth >= TEMP_REMOVE_MAX_DEPTH)
			continue;
		/* The run may have left a directory it cannot be entered. */
		(void)fchmodat(dirfd(d), n, 0700, 0);
		child = openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (child < 0)
			continue;
		empty_dir(child, dev, depth + 1);
		(void)unlinkat(dirfd(d), n, AT_REMOVEDIR);
		/* A directory removed while we read its parent: read on. */
	}
	closedir(d);
}

void cf_temp_dir_remove(const char *path) {
	struct stat st;
	int fd;
	if (!path)
		return;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return;
	}
	empty_dir(fd, st.st_dev, 0);
	(void)rmdir(path);
	/* Gone: the lock it held has nothing left to guard. */
	release(path);
}

bool cf_temp_dir_is_ours(const char *path) {
	const char *slash = path ? strrchr(path, '/') : NULL;
	struct stat st;
	return slash && strncmp(slash + 1, CF_TEMP_DIR_PREFIX, strlen(CF_TEMP_DIR_PREFIX)) == 0 &&
	       lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       (st.st_mode & 077) == 0;
}
