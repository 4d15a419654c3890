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

#include "launcher-args.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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

/* The recorded identities: no allocation. */
static struct {
	const char *path;
	unsigned long long dev, ino;
} recorded[LAUNCHER_IDENTITIES_MAX];
static size_t n_recorded;

bool grant_same_inode(int fd, unsigned long long dev, unsigned long long ino)
{
	struct stat st;

	return fstat(fd, &st) == 0 && (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

void grant_identity_record(const char *path, unsigned long long dev, unsigned long long ino)
{
	if (n_recorded < LAUNCHER_IDENTITIES_MAX) {
		recorded[n_recorded].path = path;
		recorded[n_recorded].dev = dev;
		recorded[n_recorded++].ino = ino;
	}
}

void grant_identity_renew(const char *path)
{
	struct stat st;
	int fd = grant_open(path);

	if (fd < 0)
		return; /* the grant's own open then fails with its line */
	if (fstat(fd, &st) == 0)
		for (size_t i = 0; i < n_recorded; i++)
			if (strcmp(recorded[i].path, path) == 0) {
				recorded[i].dev = (unsigned long long)st.st_dev;
				recorded[i].ino = (unsigned long long)st.st_ino;
			}
	close(fd);
}

bool grant_identity_matches(const char *path, int fd)
{
	for (size_t i = 0; i < n_recorded; i++)
		if (strcmp(recorded[i].path, path) == 0)
			return grant_same_inode(fd, recorded[i].dev, recorded[i].ino);
	return true;
}
