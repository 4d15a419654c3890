/* The sized temp area (temp-mount.h). */
#include "temp-mount.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "channel.h"
#include "launcher-protocol.h"
#include "stage-mount.h"

/* Mounts on the temp area bound back over its tmpfs; more is a failure. */
#define TEMP_MAX_CHILD_MOUNTS 256

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

/* Whether `path` is the root of a tmpfs mount (bwrap's --tmpfs /tmp). */
static bool is_tmpfs_root(const char *path)
{
	char parent[PATH_MAX + 4];
	struct stat st, up;
	struct statfs fs;

	if (statfs(path, &fs) < 0 || (unsigned long)fs.f_type != (unsigned long)TMPFS_MAGIC)
		return false;
	snprintf(parent, sizeof(parent), "%s/..", path);
	return stat(path, &st) == 0 && stat(parent, &up) == 0 &&
	       (st.st_dev != up.st_dev || st.st_ino == up.st_ino);
}

/* The mount's own flags, kept: a remount that dropped one (nosuid, nodev,
 * locked in a namespace of another owner) is refused. */
static unsigned long kept_flags(const char *path)
{
	static const struct {
		unsigned long st, ms;
	} keep[] = {
		{ ST_NOSUID, MS_NOSUID },     { ST_NODEV, MS_NODEV },
		{ ST_NOEXEC, MS_NOEXEC },     { ST_NOATIME, MS_NOATIME },
		{ ST_NODIRATIME, MS_NODIRATIME }, { ST_RELATIME, MS_RELATIME },
		{ ST_RDONLY, MS_RDONLY },
	};
	struct statvfs sv;
	unsigned long flags = 0;
	size_t i;

	if (statvfs(path, &sv) < 0)
		return 0;
	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		if (sv.f_flag & keep[i].st)
			flags |= keep[i].ms;
	return flags;
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

struct child_mount {
	char path[PATH_MAX];
	int fd;
};

/* The mounts directly on the mount at `path` (bwrap's binds below /tmp:
 * a workspace there, an allowed socket), in mount order, each opened now
 * (O_PATH names the mount on top). */
static int open_children(const char *path, struct child_mount *out, size_t *ret_n)
{
	static char line[3 * PATH_MAX];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	long parent = -1;
	size_t n = 0;

	if (!f)
		return -errno;
	/* Two passes: the mount at `path` (the last one listed: on top), then
	 * the mounts whose parent it is. */
	for (int pass = 0; pass < 2; pass++) {
		rewind(f);
		while (fgets(line, sizeof(line), f)) {
			char *fields[5] = { 0 };
			char *save = NULL, *p = line;
			size_t k;

			for (k = 0; k < 5 && (fields[k] = strtok_r(p, " ", &save)); k++)
				p = NULL;
			if (k < 5)
				continue;
			unescape(fields[4]);
			if (pass == 0) {
				if (strcmp(fields[4], path) == 0)
					parent = strtol(fields[0], NULL, 10);
				continue;
			}
			if (strtol(fields[1], NULL, 10) != parent || strcmp(fields[4], path) == 0)
				continue;
			if (n == TEMP_MAX_CHILD_MOUNTS) {
				fclose(f);
				return -E2BIG;
			}
			snprintf(out[n].path, sizeof(out[n].path), "%s", fields[4]);
			out[n].fd = open(fields[4], O_PATH | O_NOFOLLOW | O_CLOEXEC);
			if (out[n].fd >= 0)
				n++; /* else covered by a later mount: that one is kept */
		}
		if (parent < 0)
			break;
	}
	fclose(f);
	*ret_n = n;
	return 0;
}

/* Makes `path` (below the fresh tmpfs) a mount point like the one `fd`
 * names: its directories on the way, then a directory or an empty file. */
static int make_mount_point(const char *path, int fd)
{
	char dir[PATH_MAX];
	struct stat st;
	int made;

	if (fstat(fd, &st) < 0)
		return -errno;
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *slash = strchr(dir + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -errno;
		*slash = '/';
	}
	if (S_ISDIR(st.st_mode))
		return mkdir(path, 0755) < 0 && errno != EEXIST ? -errno : 0;
	made = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (made < 0)
		return errno == EEXIST ? 0 : -errno;
	close(made);
	return 0;
}

/* A fresh tmpfs of `options` over `path`, the mounts that were on it bound
 * back on top (each with what is below it, flags kept). In a mount
 * namespace of the launcher's own. */
static int fresh_tmpfs(const char *path, const char *options)
{
	static struct child_mount children[TEMP_MAX_CHILD_MOUNTS];
	size_t n = 0, i;
	int r = open_children(path, children, &n);

	if (r < 0) {
		report_failure("temp: cannot list the mounts on %s: %s", path, strerror(-r));
		return LAUNCHER_EXIT_FAILURE;
	}
	if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, options) < 0) {
		report_failure("temp: cannot mount a tmpfs (%s) over the temp area %s: %s", options,
			       path, strerror(errno));
		return LAUNCHER_EXIT_FAILURE;
	}
	for (i = 0; i < n; i++) {
		char source[64];

		snprintf(source, sizeof(source), "/proc/self/fd/%d", children[i].fd);
		r = make_mount_point(children[i].path, children[i].fd);
		if (r == 0 && mount(source, children[i].path, NULL, MS_BIND | MS_REC, NULL) < 0)
			r = -errno;
		close(children[i].fd);
		if (r < 0) {
			report_failure("temp: cannot keep the mount %s over the sized tmpfs: %s",
				       children[i].path, strerror(-r));
			return LAUNCHER_EXIT_FAILURE;
		}
	}
	return 0;
}

int temp_mount(const struct invocation *invocation)
{
	const char *path = invocation->temp_path;
	char options[96];
	struct stat st;
	int r;

	if (path == NULL)
		return 0;
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		report_failure("temp: the temp area %s is not a directory", path);
		return LAUNCHER_EXIT_FAILURE;
	}
	snprintf(options, sizeof(options), "size=%llu", invocation->temp_size);
	/* bwrap's /tmp, where its superblock is ours to change (root): the
	 * same tmpfs, its binds below kept, sized. As a user it is bwrap's
	 * outer namespace's: a fresh one instead, below. */
	if (!invocation->private_shm && is_tmpfs_root(path) &&
	    mount(NULL, path, NULL, MS_REMOUNT | kept_flags(path), options) == 0)
		return 0;
	/* A tmpfs of the run's own over it, in a mount namespace nothing else
	 * sees (the staged run's, when there is one). */
	if (invocation->stage == NULL) {
		r = private_mount_namespace("temp");
		if (r != 0)
			return r;
	}
	snprintf(options, sizeof(options), "size=%llu,mode=%o", invocation->temp_size,
		 (unsigned)(st.st_mode & 07777));
	r = fresh_tmpfs(path, options);
	if (r != 0 || !invocation->private_shm)
		return r;
	/* The second temp area (the Landlock rung's workspace-write grant of
	 * /dev/shm): a tmpfs of the same size, in the same private namespace,
	 * so what the command leaves there is sized and gone with the run. */
	if (stat("/dev/shm", &st) < 0 || !S_ISDIR(st.st_mode)) {
		report_failure("temp: /dev/shm is not a directory");
		return LAUNCHER_EXIT_FAILURE;
	}
	snprintf(options, sizeof(options), "size=%llu,mode=%o", invocation->temp_size,
		 (unsigned)(st.st_mode & 07777));
	return fresh_tmpfs("/dev/shm", options);
}
