/* SPDX-License-Identifier: MIT */
/* statx(2) where the C library has none (musl before 1.2.5, which the
 * launcher is built with where musl-gcc is found, src/launcher/meson.build):
 * the kernel's struct and the call itself. With glibc this is empty. */
#ifndef CONFINE_LAUNCHER_STATX_COMPAT_H
#define CONFINE_LAUNCHER_STATX_COMPAT_H

#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef STATX_TYPE
#include <linux/stat.h>
static inline int statx(int dirfd, const char *path, int flags, unsigned int mask,
			struct statx *buf)
{
	return (int)syscall(SYS_statx, dirfd, path, flags, mask, buf);
}
#endif

#endif
