/*
 * Checking the recorded identities (identity.h). A bind mount keeps its
 * source's st_dev and st_ino, so the mount bwrap made at PATH shows the
 * inode it bound: the library's (nothing moved), or a link's target (a
 * component of the source swapped for a symbolic link while bwrap
 * resolved it, or a target created afresh on bwrap's own tmpfs). PATH is
 * opened as every grant is (grant-open.c: no link followed in any
 * component), so a link still in place fails closed as well.
 */
#include "identity.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "channel.h"
#include "grant-open.h"
#include "launcher-args.h"
#include "launcher-protocol.h"
#include "statx-compat.h"

#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000 /* Linux 5.8 */
#endif

/* Whether `fd` is the root of a mount, where the kernel says (statx's
 * STATX_ATTR_MOUNT_ROOT, Linux 5.8); true where it cannot tell. Every
 * recorded path is one of bwrap's binds: one it made elsewhere (its
 * target resolved through a link that was swapped back since) leaves the
 * host's inode at PATH, the right identity on the read-only root, and the
 * bind itself at the link target's place. */
static bool is_mount_root(int fd)
{
	struct statx stx;

	memset(&stx, 0, sizeof(stx));
	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_INO, &stx) != 0)
		return true; /* the identity was compared; nothing more to ask */
	if ((stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) == 0)
		return true;
	return (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
}

int identities_check(const struct invocation *invocation)
{
	unsigned long long dev, ino;
	const char *path;
	size_t cursor = 0;

	while (next_identity(invocation, &cursor, &path, &dev, &ino)) {
		int fd = grant_open(path);
		bool same;

		if (fd < 0) {
			report_failure("cannot open rule path: %s: %s", path, strerror(-fd));
			return LAUNCHER_EXIT_FAILURE;
		}
		same = grant_same_inode(fd, dev, ino) && is_mount_root(fd);
		close(fd);
		if (!same) {
			report_failure("a granted path is not what it was when the argv was made: %s",
				       path);
			return LAUNCHER_EXIT_FAILURE;
		}
		grant_identity_record(path, dev, ino);
	}
	return 0;
}
