/*
 * The staged run's mounts (doc/SPEC.md 21). The order is important:
 *  1. note the uid and gid, then unshare a user and a mount namespace
 *     (the launcher is one thread: the proxy and the command come later);
 *  2. map the uid and gid onto themselves, so files the command makes
 *     are the caller's;
 *  3. make every mount private, so nothing below reaches the host;
 *  4. per staged root: open the mounts below it (bwrap's denyRead masks,
 *     its read-only protections, a host mount inside the workspace) while
 *     the path still names them, mount overlayfs over the root, then bind
 *     each of them back on top, read-only; a writable bind of the root's
 *     own filesystem (bwrap's pins) is left to the overlay, or a write
 *     there would reach the real tree;
 *  5. enter the working directory again by its path (now the overlay);
 *  6. cover the stage itself (and bwrap's lower views) with an empty read-only tmpfs: the command
 *     never edits its own record.
 * The grants are opened afterwards (main.c), so Landlock's rules name the
 * overlay, not the tree below it.
 */
#include "grant-open.h"
#include "stage-mount.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "channel.h"
#include "launcher-protocol.h"

/* Mounts below one root re-made over its overlay; more is a failure. */
#define STAGE_MAX_SUBMOUNTS 256

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int e;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	e = errno;
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -(n < 0 ? e : EIO);
}

static bool has_sys_admin(void)
{
	struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &header, data) < 0)
		return false;
	return (data[CAP_SYS_ADMIN / 32].effective & (1U << (CAP_SYS_ADMIN % 32))) != 0;
}

static int map_ids(uid_t uid, gid_t gid)
{
	char line[64];
	int r;

	snprintf(line, sizeof(line), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	r = write_file("/proc/self/uid_map", line);
	if (r == 0)
		r = write_file("/proc/self/setgroups", "deny\n");
	if (r == 0) {
		snprintf(line, sizeof(line), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
		r = write_file("/proc/self/gid_map", line);
	}
	return r;
}

/* mountinfo's octal escapes (\040 for a space) undone in place. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

static bool strictly_under(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return path[0] == '/' && path[1] != '\0';
	return strncmp(path, root, n) == 0 && path[n] == '/';
}

struct submount {
	char path[PATH_MAX];
	int fd;
};

/* The mounts strictly below `root`, in mount order, each opened now
 * (O_PATH names the mount on top); the pins (writable binds of the root's
 * own device) are left out. */
static int open_submounts(const char *root, struct submount *out, size_t *ret_n)
{
	static char line[3 * PATH_MAX];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	struct stat root_st;
	size_t n = 0;

	if (!f)
		return -errno;
	if (stat(root, &root_st) < 0) {
		fclose(f);
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		char *fields[7] = { 0 };
		char *save = NULL, *p = line;
		unsigned major_id = 0, minor_id = 0;
		size_t k;
		bool rw;

		for (k = 0; k < 7 && (fields[k] = strtok_r(p, " ", &save)); k++)
			p = NULL;
		if (k < 7)
			continue;
		unescape(fields[4]);
		if (!strictly_under(fields[4], root))
			continue;
		sscanf(fields[2], "%u:%u", &major_id, &minor_id);
		rw = strncmp(fields[5], "rw", 2) == 0 && (fields[5][2] == ',' || fields[5][2] == '\0');
		if (rw && makedev(major_id, minor_id) == root_st.st_dev)
			continue;
		if (n == STAGE_MAX_SUBMOUNTS) {
			fclose(f);
			return -E2BIG;
		}
		snprintf(out[n].path, sizeof(out[n].path), "%s", fields[4]);
		out[n].fd = open(fields[4], O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (out[n].fd < 0)
			continue; /* covered by a later mount: that one is kept */
		n++;
	}
	fclose(f);
	*ret_n = n;
	return 0;
}

/* A bind mount made read-only, keeping the flags it has: a mount from a
 * namespace of another owner has them locked (nosuid, nodev, ...), and a
 * remount that dropped one would be refused. */
static int make_read_only(const char *path)
{
	static const struct {
		unsigned long st, ms;
	} keep[] = {
		{ ST_NOSUID, MS_NOSUID },     { ST_NODEV, MS_NODEV },
		{ ST_NOEXEC, MS_NOEXEC },     { ST_NOATIME, MS_NOATIME },
		{ ST_NODIRATIME, MS_NODIRATIME }, { ST_RELATIME, MS_RELATIME },
	};
	struct statvfs sv;
	unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY;
	size_t i;

	if (statvfs(path, &sv) < 0)
		return -1;
	if (sv.f_flag & ST_RDONLY)
		return 0;
	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		if (sv.f_flag & keep[i].st)
			flags |= keep[i].ms;
	return mount(NULL, path, NULL, flags, NULL);
}

/* An overlay option value may hold none of , : \ (they separate). */
static bool option_safe(const char *path)
{
	return strpbrk(path, ",:\\") == NULL;
}

static int mount_root(const char *stage, unsigned index, const char *root)
{
	static struct submount subs[STAGE_MAX_SUBMOUNTS];
	char options[3 * PATH_MAX + 64], upper[PATH_MAX], work[PATH_MAX], lower[PATH_MAX];
	struct stat st;
	size_t n = 0, i;
	int r;

	snprintf(upper, sizeof(upper), "%s/roots/%u/upper", stage, index);
	snprintf(work, sizeof(work), "%s/roots/%u/work", stage, index);
	if (!option_safe(root) || !option_safe(upper)) {
		report_failure("stage: %s: a path holding ',', ':' or '\\' cannot be staged", root);
		return LAUNCHER_EXIT_FAILURE;
	}
	r = open_submounts(root, subs, &n);
	if (r < 0) {
		report_failure("stage: cannot list the mounts below %s: %s", root, strerror(-r));
		return LAUNCHER_EXIT_FAILURE;
	}
	/* bwrap's childless read-only view of the root, where it made one. */
	snprintf(lower, sizeof(lower), "%s/%u", LAUNCHER_STAGE_LOWER, index);
	if (stat(lower, &st) < 0 || !S_ISDIR(st.st_mode))
		snprintf(lower, sizeof(lower), "%s", root);
	snprintf(options, sizeof(options), "lowerdir=%s,upperdir=%s,workdir=%s,userxattr", lower,
		 upper, work);
	if (mount("overlay", root, "overlay", 0, options) < 0) {
		report_failure("stage: cannot mount overlayfs over %s: %s (the kernel's overlayfs "
			       "in a user namespace, 5.11 or later, is needed)",
			       root, strerror(errno));
		return LAUNCHER_EXIT_FAILURE;
	}
	/* The grant's rule and the supervisor name the overlay now: bwrap's
	 * bind was checked before it (identity.c). */
	grant_identity_renew(root);
	for (i = 0; i < n; i++) {
		char source[64];

		snprintf(source, sizeof(source), "/proc/self/fd/%d", subs[i].fd);
		if (mount(source, subs[i].path, NULL, MS_BIND, NULL) < 0 ||
		    make_read_only(subs[i].path) < 0) {
			report_failure("stage: cannot keep the mount %s over the overlay: %s",
				       subs[i].path, strerror(errno));
			return LAUNCHER_EXIT_FAILURE;
		}
		close(subs[i].fd);
	}
	return 0;
}

int private_mount_namespace(const char *what)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	int r = 0;

	/* With CAP_SYS_ADMIN here (root on the Landlock rung; bwrap's
	 * --cap-add on its rung), a mount namespace is enough. */
	if (has_sys_admin()) {
		if (unshare(CLONE_NEWNS) < 0) {
			report_failure("%s: cannot make a mount namespace: %s", what, strerror(errno));
			return LAUNCHER_EXIT_FAILURE;
		}
	} else if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0) {
		report_failure("%s: cannot make a user and mount namespace: %s (a %s run "
			       "needs unprivileged user namespaces)",
			       what, strerror(errno), strcmp(what, "stage") == 0 ? "staged" : "sized temp");
		return LAUNCHER_EXIT_FAILURE;
	} else {
		r = map_ids(uid, gid);
	}
	if (r == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		r = -errno;
	if (r < 0) {
		report_failure("%s: cannot set up the namespace: %s", what, strerror(-r));
		return LAUNCHER_EXIT_FAILURE;
	}
	return 0;
}

int stage_mount(const struct invocation *invocation)
{
	const char *root;
	struct stat st;
	size_t cursor = 0;
	unsigned index = 0;
	int r = 0;

	if (invocation->stage == NULL)
		return 0;
	r = private_mount_namespace("stage");
	if (r != 0)
		return r;
	while (next_stage_root(invocation, &cursor, &root)) {
		r = mount_root(invocation->stage, index++, root);
		if (r != 0)
			return r;
	}
	/* The working directory was the real one: the same path, anew, is
	 * the overlay (else a relative write would aim at the tree below). */
	{
		static char cwd[PATH_MAX];

		if (getcwd(cwd, sizeof(cwd)) != NULL && chdir(cwd) < 0) {
			report_failure("stage: cannot enter %s again: %s", cwd, strerror(errno));
			return LAUNCHER_EXIT_FAILURE;
		}
	}
	if (stat(LAUNCHER_STAGE_LOWER, &st) == 0 &&
	    mount("tmpfs", LAUNCHER_STAGE_LOWER, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "size=4k,mode=0500") < 0) {
		report_failure("stage: cannot cover %s: %s", LAUNCHER_STAGE_LOWER, strerror(errno));
		return LAUNCHER_EXIT_FAILURE;
	}
	if (mount("tmpfs", invocation->stage, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "size=4k,mode=0500") < 0) {
		report_failure("stage: cannot cover the stage %s: %s", invocation->stage,
			       strerror(errno));
		return LAUNCHER_EXIT_FAILURE;
	}
	return 0;
}
