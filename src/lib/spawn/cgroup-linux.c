/* SPDX-License-Identifier: MIT */
/*
 * The run's own cgroup on Linux (cgroup.h, doc/SPEC.md 15 "Limits").
 * Where: cgroup v2 when the caller's own cgroup (/proc/self/cgroup's "0::")
 * is a directory it may write whose subtree has the pids and memory
 * controllers (a delegated subtree: the user's systemd service, or root);
 * else cgroup v1's pids and memory hierarchies at the caller's own place in
 * each, where writable (root, usually). A limit neither holds is left to
 * the launcher's rlimits (rungs/landlock/argv.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "spawn/cgroup.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/*
 * Where cgroupfs and the caller's /proc/self/cgroup are. A unit test
 * (tests/unit/test-cgroup-v2.c) compiles this file itself with
 * CF_CGROUP_FAKE_TREE and points both at a tree of plain files it made
 * (this host's cgroup v2 has no controllers: v1 holds them), so the v2 path
 * runs there: a directory with a file ".cgroup2" stands for a cgroup2
 * mount, and a new cgroup gets the control files the kernel would make.
 * Never in the library: it has only the real paths.
 */
#ifdef CF_CGROUP_FAKE_TREE
static char fake_root[1024];          /* stands for /sys/fs/cgroup */
static char fake_self[1024];          /* stands for /proc/self/cgroup */
#define CGROUP_ROOT fake_root
#define SELF_CGROUP fake_self
#else
#define CGROUP_ROOT "/sys/fs/cgroup"
#define SELF_CGROUP "/proc/self/cgroup"
#endif

/* Rounds of "kill what is listed" before a removal is given up. */
#define KILL_ROUNDS 50

enum { H_PIDS, H_MEMORY, H_COUNT };

/* Where runs' cgroups go, per hierarchy: v2 has one for both. */
static struct {
	bool looked;
	bool v2;
	char base[H_COUNT][PATH_MAX]; /* "" where none */
	unsigned holds;
} host;

struct cf_cgroup {
	bool v2;
	char path[H_COUNT][PATH_MAX]; /* "" where none */
	int lock_fd[H_COUNT];
	int procs_fd[H_COUNT];
	uint64_t pids, memory;
	bool removed;
};

static int read_text(const char *path, char *buf, size_t size) {
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	return 0;
}

static int write_text(const char *dir, const char *file, const char *text) {
	char path[PATH_MAX + 64];
	int fd, r = 0;
	snprintf(path, sizeof path, "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* The value after `key ` in a flat-keyed file (memory.events, pids.events,
 * memory.oom_control); -1 when absent. */
static int64_t keyed_value(const char *dir, const char *file, const char *key) {
	char path[PATH_MAX + 64], buf[4096];
	size_t n = strlen(key);
	snprintf(path, sizeof path, "%s/%s", dir, file);
	if (read_text(path, buf, sizeof buf) < 0)
		return -1;
	for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (strncmp(line, key, n) == 0 && line[n] == ' ')
			return strtoll(line + n + 1, NULL, 10);
	return -1;
}

static int64_t number_file(const char *dir, const char *file) {
	char path[PATH_MAX + 64], buf[64];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	if (read_text(path, buf, sizeof buf) < 0 || buf[0] < '0' || buf[0] > '9')
		return -1;
	return strtoll(buf, NULL, 10);
}

static bool has_word(const char *list, const char *word) {
	size_t n = strlen(word);
	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

/* The caller's place in the hierarchy named `name` ("" for v2's "0::"). */
static bool own_path(const char *self, const char *name, char *out, size_t size) {
	char want[64];
	const char *p = self;
	snprintf(want, sizeof want, ":%s:", name);
	while (p && *p) {
		const char *colon = strchr(p, ':');
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (colon && (size_t)(colon - p) < len) {
			/* "N:controllers:/path" */
			const char *second = memchr(colon + 1, ':', len - (size_t)(colon - p) - 1);
			if (second && (size_t)(second - colon + 1) == strlen(want) &&
			    strncmp(colon, want, strlen(want)) == 0 && (size_t)(second - p) < len) {
				size_t plen = len - (size_t)(second + 1 - p);
				if (plen + 1 > size)
					return false;
				memcpy(out, second + 1, plen);
				out[plen] = '\0';
				return true;
			}
			/* v1 lists joined controllers with commas: "4:cpu,cpuacct:/" */
			if (second && name[0]) {
				char controllers[256];
				size_t clen = (size_t)(second - colon - 1);
				if (clen < sizeof controllers) {
					memcpy(controllers, colon + 1, clen);
					controllers[clen] = '\0';
					for (char *c = strtok(controllers, ","); c; c = strtok(NULL, ","))
						if (strcmp(c, name) == 0) {
							size_t plen = len - (size_t)(second + 1 - p);
							if (plen + 1 > size)
								return false;
							memcpy(out, second + 1, plen);
							out[plen] = '\0';
							return true;
						}
				}
			}
		}
		p = end ? end + 1 : NULL;
	}
	return false;
}

static bool is_cgroup2(const char *path) {
#ifdef CF_CGROUP_FAKE_TREE
	char mark[PATH_MAX * 3];
	snprintf(mark, sizeof mark, "%s/.cgroup2", path);
	return access(mark, F_OK) == 0;
#else
	struct statfs fs;
	return statfs(path, &fs) == 0 && (unsigned long)fs.f_type == (unsigned long)CGROUP2_SUPER_MAGIC;
#endif
}

static void look_v2(const char *self) {
	char mounts[2][PATH_MAX + 16];
	char place[PATH_MAX], dir[PATH_MAX], list[1024], file[PATH_MAX + 32];
	snprintf(mounts[0], sizeof mounts[0], "%s", CGROUP_ROOT);
	snprintf(mounts[1], sizeof mounts[1], "%s/unified", CGROUP_ROOT);
	if (!own_path(self, "", place, sizeof place))
		return;
	for (size_t m = 0; m < 2; m++) {
		if (!is_cgroup2(mounts[m]))
			continue;
		if ((size_t)snprintf(dir, sizeof dir, "%s%s", mounts[m],
		                     strcmp(place, "/") == 0 ? "" : place) >= sizeof dir)
			return;
		snprintf(file, sizeof file, "%s/cgroup.subtree_control", dir);
		/* Delegated: the subtree is ours to write and already has (or,
		 * at the root, may be given) both controllers. */
		if (access(dir, W_OK) != 0 || access(file, W_OK) != 0)
			return;
		if (read_text(file, list, sizeof list) < 0)
			return;
		if (!has_word(list, "pids") || !has_word(list, "memory")) {
			if (write_text(dir, "cgroup.subtree_control", "+pids +memory") < 0 ||
			    read_text(file, list, sizeof list) < 0 || !has_word(list, "pids") ||
			    !has_word(list, "memory"))
				return;
		}
		host.v2 = true;
		snprintf(host.base[H_PIDS], PATH_MAX, "%s", dir);
		snprintf(host.base[H_MEMORY], PATH_MAX, "%s", dir);
		host.holds = (1u << CONFINE_LIMIT_PIDS) | (1u << CONFINE_LIMIT_MEMORY);
		return;
	}
}

static void look_v1(const char *self) {
	static const char *const names[H_COUNT] = { "pids", "memory" };
	for (int h = 0; h < H_COUNT; h++) {
		char place[PATH_MAX], dir[PATH_MAX], mount[1100];
		struct statfs fs;
		snprintf(mount, sizeof mount, "%s/%s", CGROUP_ROOT, names[h]);
		if (!own_path(self, names[h], place, sizeof place) || statfs(mount, &fs) != 0 ||
		    is_cgroup2(mount))
			continue;
		if ((size_t)snprintf(dir, sizeof dir, "%s%s", mount,
		                     strcmp(place, "/") == 0 ? "" : place) >= sizeof dir)
			continue;
		if (access(dir, W_OK) != 0)
			continue;
		snprintf(host.base[h], PATH_MAX, "%s", dir);
		host.holds |= 1u << (h == H_PIDS ? CONFINE_LIMIT_PIDS : CONFINE_LIMIT_MEMORY);
	}
}

static void look_once(void) {
	char self[4096];
	host.looked = true;
	/* Test builds and harnesses can take the cgroup away to reach the
	 * rlimit path (doc/SPEC.md 15): it can only remove a mechanism. */
	if (getenv("CONFINE_NO_CGROUP"))
		return;
	if (read_text(SELF_CGROUP, self, sizeof self) < 0)
		return;
	look_v2(self);
	if (!host.holds)
		look_v1(self);
}

/* Once per process, whichever thread asks first. */
static void look(void) {
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	(void)pthread_once(&once, look_once);
}

unsigned cf_cgroup_holds(void) {
	look();
	return host.holds;
}

const char *cf_cgroup_kind(void) {
	look();
	return !host.holds ? NULL : host.v2 ? "cgroup v2" : "cgroup v1";
}

/* Kills every process listed in `dir`, round after round, until none is
 * (or the rounds run out). */
static void kill_members(const char *dir) {
	char path[PATH_MAX + 32], buf[8192];
	snprintf(path, sizeof path, "%s/cgroup.procs", dir);
	if (write_text(dir, "cgroup.kill", "1") == 0) {
		/* v2 (5.14): the kernel does it in one go */
	}
	for (int round = 0; round < KILL_ROUNDS; round++) {
		bool any = false;
		if (read_text(path, buf, sizeof buf) < 0)
			return;
		for (char *p = buf; *p;) {
			char *end;
			long pid = strtol(p, &end, 10);
			if (end == p)
				break;
			if (pid > 0) {
				(void)kill((pid_t)pid, SIGKILL);
				any = true;
			}
			p = end;
			while (*p == '\n')
				p++;
		}
		if (!any)
			return;
		{
			struct timespec ts = { 0, 2000000 };
			nanosleep(&ts, NULL);
		}
	}
}

/* What is left of the run once its leader has ended: every process the
 * cgroup lists now, killed once (no rounds, no wait: the removal after the
 * run does those). The list is short (the run's own), where the group walk
 * reads every /proc entry handed out since the leader. false where it
 * cannot be read whole: the caller then walks /proc. */
bool cf_cgroup_kill_members_now(const struct cf_cgroup *cg) {
	char path[PATH_MAX + 32], buf[8192];
	int fd;
	ssize_t n;
	const char *dir = NULL;
	if (!cg || cg->removed)
		return false;
	for (int h = 0; h < H_COUNT && !dir; h++)
		if (cg->path[h][0])
			dir = cg->path[h];
	if (!dir)
		return false;
	snprintf(path, sizeof path, "%s/cgroup.procs", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof buf - 1);
	if (n >= 0 && (size_t)n < sizeof buf - 1) {
		/* whole only if the next read finds the end */
		char more;
		if (read(fd, &more, 1) != 0)
			n = -1;
	}
	close(fd);
	if (n < 0 || (size_t)n >= sizeof buf - 1)
		return false;
	buf[n] = '\0';
	for (char *p = buf; *p;) {
		char *end;
		long pid = strtol(p, &end, 10);
		if (end == p)
			break;
		if (pid > 0)
			(void)kill((pid_t)pid, SIGKILL);
		p = end;
		while (*p == '\n')
			p++;
	}
	return true;
}

#ifdef CF_CGROUP_FAKE_TREE
/* The control files a kernel makes in a new v2 cgroup, as plain files. */
static const char *const fake_files[] = {
	"cgroup.procs", "cgroup.kill", "pids.max", "pids.peak", "pids.events", "memory.max",
	"memory.swap.max", "memory.peak", "memory.events", "memory.limit_in_bytes",
	"memory.memsw.limit_in_bytes", "memory.max_usage_in_bytes", "memory.oom_control",
};
static int fake_mkdir(const char *dir, mode_t mode) {
	if (mkdir(dir, mode) < 0)
		return -1;
	for (size_t i = 0; i < sizeof fake_files / sizeof fake_files[0]; i++) {
		char file[PATH_MAX + 32];
		int fd;
		snprintf(file, sizeof file, "%s/%s", dir, fake_files[i]);
		fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
	}
	return 0;
}
/* A cgroup goes with its control files (rmdir of a real one takes them). */
static int fake_rmdir(const char *dir) {
	char file[PATH_MAX + 32], buf[64];
	snprintf(file, sizeof file, "%s/cgroup.procs", dir);
	if (read_text(file, buf, sizeof buf) == 0 && buf[0]) {
		errno = EBUSY;
		return -1;
	}
	for (size_t i = 0; i < sizeof fake_files / sizeof fake_files[0]; i++) {
		snprintf(file, sizeof file, "%s/%s", dir, fake_files[i]);
		(void)unlink(file);
	}
	return rmdir(dir);
}
#define mkdir fake_mkdir
#define rmdir fake_rmdir
#endif

static void remove_dir(const char *dir) {
	for (int round = 0; round < KILL_ROUNDS; round++) {
		struct timespec ts = { 0, 2000000 };
		kill_members(dir);
		if (rmdir(dir) == 0 || errno == ENOENT)
			return;
		if (errno != EBUSY)
			return;
		nanosleep(&ts, NULL);
	}
}

/* A dead run's cgroup: its lock is free (its owner is gone). Its members
 * (if any outlived the owner and its launcher) are killed, then it goes. */
static void sweep(const char *base) {
	DIR *d = opendir(base);
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d))) {
		char dir[PATH_MAX];
		int fd;
		if (strncmp(e->d_name, CF_CGROUP_PREFIX, strlen(CF_CGROUP_PREFIX)) != 0)
			continue;
		if ((size_t)snprintf(dir, sizeof dir, "%s/%s", base, e->d_name) >= sizeof dir)
			continue;
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			remove_dir(dir);
		close(fd);
	}
	closedir(d);
}

static int make_one(const char *base, const char *name, struct cf_cgroup *cg, int h) {
	char file[PATH_MAX + 32];
	if ((size_t)snprintf(cg->path[h], PATH_MAX, "%s/%s", base, name) >= PATH_MAX)
		return -ENAMETOOLONG;
	if (mkdir(cg->path[h], 0755) < 0) {
		int e = errno;
		cg->path[h][0] = '\0';
		return -e;
	}
	/* Locked before anything else can see it as unowned: a sweep that
	 * finds it between mkdir and flock finds no member and an empty
	 * directory (its rmdir then fails the make below, never a live run). */
	cg->lock_fd[h] = open(cg->path[h], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->lock_fd[h] < 0 || flock(cg->lock_fd[h], LOCK_EX | LOCK_NB) < 0)
		return -errno;
	snprintf(file, sizeof file, "%s/cgroup.procs", cg->path[h]);
	cg->procs_fd[h] = open(file, O_WRONLY | O_CLOEXEC);
	return cg->procs_fd[h] < 0 ? -errno : 0;
}

/* Undoes a make_one that failed or is not wanted. */
static void drop_one(struct cf_cgroup *cg, int h) {
	if (cg->procs_fd[h] >= 0)
		close(cg->procs_fd[h]);
	cg->procs_fd[h] = -1;
	if (cg->path[h][0])
		(void)rmdir(cg->path[h]);
	cg->path[h][0] = '\0';
	if (cg->lock_fd[h] >= 0)
		close(cg->lock_fd[h]);
	cg->lock_fd[h] = -1;
}

static int make_run(const confine_policy *policy, unsigned holds, struct cf_cgroup **ret);

void cf_cgroup_sweep(void) {
	look();
	for (int h = 0; h < H_COUNT; h++)
		if (host.base[h][0] && !(h == H_MEMORY && host.v2))
			sweep(host.base[h]);
}

int cf_cgroup_make(const confine_policy *policy, unsigned holds, struct cf_cgroup **ret) {
	struct cf_cgroup *cg = NULL;
	int r = -ENOTSUP;
	look();
	if ((holds & host.holds) != holds || !holds)
		return -ENOTSUP;
	cf_cgroup_sweep();
	/* Another run's sweep can take a cgroup between its mkdir and its
	 * lock (it then removes it, empty): a new name, a few times. */
	for (int attempt = 0; attempt < 3; attempt++) {
		r = make_run(policy, holds, &cg);
		if (r != -EWOULDBLOCK && r != -ENOENT)
			break;
	}
	if (r < 0)
		return r;
	*ret = cg;
	return 0;
}

static int make_run(const confine_policy *policy, unsigned holds, struct cf_cgroup **ret) {
	static unsigned counter;
	struct cf_cgroup *cg;
	char name[64], value[32];
	int r = 0;
	if (!(cg = calloc(1, sizeof *cg)))
		return -ENOMEM;
	cg->v2 = host.v2;
	for (int h = 0; h < H_COUNT; h++)
		cg->lock_fd[h] = cg->procs_fd[h] = -1;
	cg->pids = holds & (1u << CONFINE_LIMIT_PIDS) ? policy->limits[CONFINE_LIMIT_PIDS] : 0;
	cg->memory = holds & (1u << CONFINE_LIMIT_MEMORY) ? policy->limits[CONFINE_LIMIT_MEMORY] : 0;
	snprintf(name, sizeof name, CF_CGROUP_PREFIX "%ld.%u", (long)getpid(),
	         __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
	if (cg->v2) {
		r = make_one(host.base[H_PIDS], name, cg, H_PIDS);
		if (r == 0 && cg->pids) {
			snprintf(value, sizeof value, "%" PRIu64, cg->pids);
			r = write_text(cg->path[H_PIDS], "pids.max", value);
		}
		if (r == 0 && cg->memory) {
			snprintf(value, sizeof value, "%" PRIu64, cg->memory);
			r = write_text(cg->path[H_PIDS], "memory.max", value);
			/* Swap is memory too: none beyond the bound. */
			if (r == 0)
				(void)write_text(cg->path[H_PIDS], "memory.swap.max", "0");
		}
	} else {
		if (cg->pids) {
			r = make_one(host.base[H_PIDS], name, cg, H_PIDS);
			snprintf(value, sizeof value, "%" PRIu64, cg->pids);
			if (r == 0)
				r = write_text(cg->path[H_PIDS], "pids.max", value);
		}
		if (r == 0 && cg->memory) {
			r = make_one(host.base[H_MEMORY], name, cg, H_MEMORY);
			snprintf(value, sizeof value, "%" PRIu64, cg->memory);
			if (r == 0)
				r = write_text(cg->path[H_MEMORY], "memory.limit_in_bytes", value);
			/* memsw (swap accounting) where the kernel has it. */
			if (r == 0)
				(void)write_text(cg->path[H_MEMORY], "memory.memsw.limit_in_bytes", value);
		} else if (r == 0 && host.base[H_MEMORY][0]) {
			/* No memory limit: a memory cgroup without a bound all the
			 * same, for the run's peak (doc/SPEC.md 15; about 0.25 ms a
			 * run). Only a figure: where it cannot be made the run goes
			 * on without it, its peakMemory unknown. */
			if (make_one(host.base[H_MEMORY], name, cg, H_MEMORY) < 0)
				drop_one(cg, H_MEMORY);
		}
	}
	if (r < 0) {
		cf_cgroup_free(cg);
		return r;
	}
	*ret = cg;
	return 0;
}

size_t cf_cgroup_join_fds(const struct cf_cgroup *cg, int fds[2]) {
	size_t n = 0;
	for (int h = 0; cg && h < H_COUNT; h++)
		if (cg->procs_fd[h] >= 0)
			fds[n++] = cg->procs_fd[h];
	return n;
}

static void remove_all(struct cf_cgroup *cg) {
	if (cg->removed)
		return;
	cg->removed = true;
	for (int h = 0; h < H_COUNT; h++) {
		if (cg->procs_fd[h] >= 0)
			close(cg->procs_fd[h]);
		cg->procs_fd[h] = -1;
		if (cg->path[h][0])
			remove_dir(cg->path[h]);
		if (cg->lock_fd[h] >= 0)
			close(cg->lock_fd[h]);
		cg->lock_fd[h] = -1;
	}
}

void cf_cgroup_finish(struct cf_cgroup *cg, confine_outcome *o) {
	const char *pids_dir, *memory_dir;
	int64_t v;
	if (!cg || cg->removed)
		return;
	pids_dir = cg->path[H_PIDS][0] ? cg->path[H_PIDS] : NULL;
	memory_dir = cg->v2 ? pids_dir : cg->path[H_MEMORY][0] ? cg->path[H_MEMORY] : NULL;
	if (memory_dir) {
		v = number_file(memory_dir, cg->v2 ? "memory.peak" : "memory.max_usage_in_bytes");
		if (v >= 0)
			o->peak_memory = v;
		v = cg->v2 ? keyed_value(memory_dir, "memory.events", "oom_kill")
		           : keyed_value(memory_dir, "memory.oom_control", "oom_kill");
		if (cg->memory && v > 0) {
			o->limit_stopped = true;
			o->limit_killed = true;
			o->limit = CONFINE_LIMIT_MEMORY;
			o->limit_value = cg->memory;
		}
	}
	if (pids_dir) {
		v = number_file(pids_dir, "pids.peak");
		if (v >= 0)
			o->peak_pids = v;
		v = keyed_value(pids_dir, "pids.events", "max");
		if (cg->pids && v > 0 && !o->limit_stopped) {
			o->limit_stopped = true;
			o->limit_killed = false;
			o->limit = CONFINE_LIMIT_PIDS;
			o->limit_value = cg->pids;
		}
	}
	remove_all(cg);
}

void cf_cgroup_free(struct cf_cgroup *cg) {
	if (!cg)
		return;
	remove_all(cg);
	free(cg);
}
