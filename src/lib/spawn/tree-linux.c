/* SPDX-License-Identifier: MIT */
/*
 * Finding the run's process tree in /proc (Linux): the children files
 * (CONFIG_PROC_CHILDREN), else parent links in every /proc/<pid>/stat.
 * Nothing here allocates, and every call is async-signal-safe (open, read,
 * close, getdents64, readlink): confine_process_signal() runs it from
 * signal handlers. Meson compiles this file on Linux; tree-other.c
 * elsewhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "spawn/spawn.h"

static bool tree_force_scan;

void cf_process_tree_force_scan(bool on) {
	tree_force_scan = on;
}

/* Calls `fn` for each numeric entry of the directory `path`. */
bool cf_for_each_number(const char *path, void (*fn)(pid_t, void *), void *data) {
	char dents[4096] __attribute__((aligned(8)));
	long n;
	int dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return false;
	while ((n = syscall(SYS_getdents64, dir, dents, sizeof dents)) > 0) {
		long off = 0;
		while (off < n) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (void *)(dents + off);
			long value = 0;
			const char *c = d->name;
			bool numeric = *c != '\0';
			for (; *c; c++) {
				if (*c < '0' || *c > '9' || value > INT_MAX / 10) {
					numeric = false;
					break;
				}
				value = value * 10 + (*c - '0');
			}
			if (numeric && value > 0)
				fn((pid_t)value, data);
			off += d->reclen;
		}
	}
	close(dir);
	return n == 0;
}

static size_t put_str(char *buf, size_t size, size_t len, const char *s) {
	for (; *s && len + 1 < size; s++)
		buf[len++] = *s;
	buf[len] = '\0';
	return len;
}

static size_t put_num(char *buf, size_t size, size_t len, pid_t value) {
	char digits[24];
	size_t n = 0;
	unsigned long v = (unsigned long)value;
	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0 && n < sizeof digits);
	while (n > 0 && len + 1 < size)
		buf[len++] = digits[--n];
	buf[len] = '\0';
	return len;
}

/* "/proc/<pid>[/task/<tid>]<tail>", without snprintf (not
 * async-signal-safe). */
static void proc_path(char *buf, size_t size, pid_t pid, pid_t tid, const char *tail) {
	size_t len = put_str(buf, size, 0, "/proc/");
	len = put_num(buf, size, len, pid);
	if (tid > 0) {
		len = put_str(buf, size, len, "/task/");
		len = put_num(buf, size, len, tid);
	}
	(void)put_str(buf, size, len, tail);
}

/* Parent and group of `pid` from /proc/<pid>/stat. */
static bool proc_stat(pid_t pid, pid_t *ppid, pid_t *pgid) {
	char path[64], buf[1024];
	ssize_t n;
	char *p;
	long fields[2] = { 0, 0 };
	int fd;
	proc_path(path, sizeof path, pid, 0, "/stat");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	do
		n = read(fd, buf, sizeof buf - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "pid (comm) S ppid pgrp ...": comm may hold spaces and parentheses,
	 * so parse from the last ')'. */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return false;
	p += 4;
	for (int k = 0; k < 2; k++) {
		bool digits = false;
		while (*p >= '0' && *p <= '9') {
			fields[k] = fields[k] * 10 + (*p++ - '0');
			digits = true;
		}
		if (!digits || (k == 0 && *p++ != ' '))
			return false;
	}
	*ppid = (pid_t)fields[0];
	*pgid = (pid_t)fields[1];
	return true;
}

struct children_walk {
	struct cf_proc_tree *t;
	pid_t parent;
	bool unsupported; /* no children file: the kernel lacks CONFIG_PROC_CHILDREN */
};

/* A child found in a children file joins the tree if /proc still shows it
 * below the same parent. */
static void add_child(struct children_walk *w, pid_t child) {
	pid_t ppid, pgid;
	if (child > 0 && proc_stat(child, &ppid, &pgid) && ppid == w->parent)
		(void)cf_tree_add(w->t, child, pgid);
}

/* One thread's children file: space-separated pids. */
static void read_children_of_task(pid_t tid, void *data) {
	struct children_walk *w = data;
	char path[96], buf[512];
	long value = 0;
	bool in_number = false;
	ssize_t n;
	int fd;
	proc_path(path, sizeof path, w->parent, tid, "/children");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT && tid == w->parent)
			w->unsupported = true; /* the main thread exists: the file does not */
		return;
	}
	for (;;) {
		do
			n = read(fd, buf, sizeof buf);
		while (n < 0 && errno == EINTR);
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] >= '0' && buf[i] <= '9') {
				if (value < INT_MAX / 10)
					value = value * 10 + (buf[i] - '0');
				in_number = true;
			} else if (in_number) {
				add_child(w, (pid_t)value);
				value = 0;
				in_number = false;
			}
		}
	}
	if (in_number)
		add_child(w, (pid_t)value);
	close(fd);
}

struct scan {
	struct cf_proc_tree *t;
	pid_t want_pgid; /* > 0: collect the members of this group instead */
	/* With after > 0: only pids handed out after `after` up to `last`
	 * (wrapping around when last < after) can match. */
	pid_t after, last;
	bool added;
};

static void scan_one(pid_t pid, void *data) {
	struct scan *s = data;
	pid_t ppid, pgid;
	if (s->after > 0 && (s->last >= s->after ? pid <= s->after || pid > s->last
	                                         : pid <= s->after && pid > s->last))
		return;
	if (cf_tree_has(s->t, pid) || !proc_stat(pid, &ppid, &pgid))
		return;
	if (s->want_pgid > 0 ? pgid == s->want_pgid : cf_tree_has(s->t, ppid))
		s->added |= cf_tree_add(s->t, pid, pgid);
}

/* Whether /proc shows this process's own PID namespace: under a PID
 * namespace with another namespace's /proc mounted, the pids read there are
 * not ours to signal. readlink is async-signal-safe; nothing allocates. */
static bool proc_is_our_namespace(void) {
	char buf[32];
	ssize_t n = readlink("/proc/self", buf, sizeof buf - 1);
	long value = 0;
	if (n <= 0)
		return false;
	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return false;
		value = value * 10 + (buf[i] - '0');
	}
	return value == (long)getpid();
}

/* Extends the tree with every descendant of the processes in it (nothing
 * where /proc belongs to another PID namespace: the process groups alone
 * are then signalled). */
void cf_tree_expand(struct cf_proc_tree *t) {
	if (!proc_is_our_namespace())
		return;
	if (!tree_force_scan) {
		bool unsupported = false;
		for (size_t i = 0; i < t->n && !unsupported; i++) {
			char path[64];
			struct children_walk w = { t, t->pid[i], false };
			proc_path(path, sizeof path, t->pid[i], 0, "/task");
			(void)cf_for_each_number(path, read_children_of_task, &w);
			unsupported = w.unsupported;
		}
		if (!unsupported)
			return;
	}
	/* No children files: follow parent links through all of /proc until a
	 * pass adds nothing. */
	for (;;) {
		struct scan s = { t, 0, 0, 0, false };
		if (!cf_for_each_number("/proc", scan_one, &s) || !s.added || t->n >= CF_TREE_MAX)
			return;
	}
}

/* The pid most recently handed out in our PID namespace, or 0. */
static pid_t last_pid(void) {
	char buf[32];
	ssize_t n;
	long value = 0;
	int fd = open("/proc/sys/kernel/ns_last_pid", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	do
		n = read(fd, buf, sizeof buf - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9' && value < INT_MAX / 10; i++)
		value = value * 10 + (buf[i] - '0');
	return (pid_t)value;
}

/* Adds the live members of the group led by `leader` (which has ended,
 * unreaped). Its members were started after it, so only the /proc entries
 * whose pids were handed out since are read: those after the leader's up to
 * the last one handed out (pids are handed out in increasing order, wrapping
 * around at pid_max). A run pays for the processes started since, not for
 * every process on the host: reading each stat costs microseconds, and this
 * runs at the end of every run. Without ns_last_pid every entry is read. */
void cf_tree_add_group(struct cf_proc_tree *t, pid_t leader) {
	pid_t last = last_pid();
	struct scan s = { t, leader, last > 0 ? leader : 0, last, false };
	if (last == leader)
		return; /* nothing was started since the leader */
	(void)cf_for_each_number("/proc", scan_one, &s);
}
