/*
 * Grant paths resolved without links (grant-open.h). The library passes
 * canonical paths (realpath'd roots, its own listings), so a symbolic link
 * in a component means the path was swapped after validation: the grant
 * would land on the link's target. openat2's RESOLVE_NO_SYMLINKS refuses
 * that in one step; where openat2 is refused (ENOSYS: under an outer
 * supervisor), the path is opened with O_NOFOLLOW and its resolved name
 * read back from /proc/self/fd, which must be the path itself.
 */
#include "grant-open.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

static int same_name(int fd, const char *path)
{
	char proc[64], resolved[PATH_MAX];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, resolved, sizeof(resolved) - 1);
	if (n < 0)
		return -errno;
	resolved[n] = '\0';
	return strcmp(resolved, path) == 0 ? 0 : -ELOOP;
}

int grant_open(const char *path)
{
	struct open_how how;
	int fd, err;

	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_CLOEXEC;
	how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (fd >= 0)
		return fd;
	if (errno != ENOSYS)
		return -errno;
	fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = same_name(fd, path);
	if (err != 0) {
		close(fd);
		return err;
	}
	return fd;
}
