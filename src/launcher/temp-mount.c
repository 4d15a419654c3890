/* The sized temp area (temp-mount.h). */
#include "temp-mount.h"

#include <errno.h>
#include <limits.h>
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

int temp_mount(const struct invocation *invocation)
{
	const char *path = invocation->temp_path;
	char options[64];
	int r;

	if (path == NULL)
		return 0;
	snprintf(options, sizeof(options), "size=%llu", invocation->temp_size);
	if (is_tmpfs_root(path)) {
		/* bwrap's /tmp: the same tmpfs, its binds below kept, sized. */
		if (mount(NULL, path, NULL, MS_REMOUNT | kept_flags(path), options) < 0) {
			report_failure("temp: cannot size the temp area %s (%s): %s", path, options,
				       strerror(errno));
			return LAUNCHER_EXIT_FAILURE;
		}
		return 0;
	}
	/* A directory of the host's: a tmpfs of its own over it, in a mount
	 * namespace nothing else sees (the staged run's, when there is one). */
	if (invocation->stage == NULL) {
		r = private_mount_namespace("temp");
		if (r != 0)
			return r;
	}
	snprintf(options, sizeof(options), "size=%llu,mode=0700", invocation->temp_size);
	if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, options) < 0) {
		report_failure("temp: cannot mount a tmpfs of %llu bytes over the temp area %s: %s",
			       invocation->temp_size, path, strerror(errno));
		return LAUNCHER_EXIT_FAILURE;
	}
	return 0;
}
