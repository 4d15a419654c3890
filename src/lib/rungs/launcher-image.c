/* SPDX-License-Identifier: MIT */
/* The launcher the library carries, exec'd from a sealed memfd (SPEC 14):
 * runc's answer to CVE-2019-5736. A confined run that could write where an
 * on-disk launcher lies could replace it for the next run; a sealed memfd
 * cannot be written by anyone, and needs no trust in the file system. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#if CONFINE_HAVE_LAUNCHER_MEMFD
#include <sys/mman.h>
#endif

#include "launcher-image.h"

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U /* Linux 6.3: ask for an executable memfd */
#endif

#if CONFINE_HAVE_LAUNCHER_IMAGE
/* Defined by the assembly file scripts/embed-launcher.sh writes. */
extern const unsigned char cf_launcher_image[];
extern const uint64_t cf_launcher_image_size;
#endif

static pthread_once_t image_once = PTHREAD_ONCE_INIT;
static int image_fd = -ENOSYS;

bool cf_launcher_image_available(void) {
	return CONFINE_HAVE_LAUNCHER_IMAGE && CONFINE_HAVE_LAUNCHER_MEMFD;
}

#if CONFINE_HAVE_LAUNCHER_IMAGE && CONFINE_HAVE_LAUNCHER_MEMFD
static int write_all(int fd, const unsigned char *data, size_t len) {
	while (len) {
		ssize_t n = write(fd, data, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

static int make_image(void) {
	int fd, r;
	/* MFD_EXEC is needed where vm.memfd_noexec = 1; kernels before 6.3
	 * refuse the unknown flag, and then every memfd is executable. */
	fd = memfd_create("landlock-run", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
	if (fd < 0 && errno == EINVAL)
		fd = memfd_create("landlock-run", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	r = write_all(fd, cf_launcher_image, (size_t)cf_launcher_image_size);
	/* Sealed for good: no write, no resize, no further change of seals. */
	if (r == 0 && fcntl(fd, F_ADD_SEALS,
	                    F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) < 0)
		r = -errno;
	if (r < 0) {
		close(fd);
		return r;
	}
	/* exec refuses a file open for writing (ETXTBSY), which the memfd is
	 * until reopened read-only; the writable descriptor is then closed, so
	 * no descriptor that could write it exists at all. */
	{
		char path[64];
		int ro;
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		ro = open(path, O_RDONLY | O_CLOEXEC);
		r = ro < 0 ? -errno : ro;
		close(fd);
	}
	return r;
}
#else
static int make_image(void) {
	return -ENOSYS;
}
#endif

static void init_image(void) {
	image_fd = make_image();
}

int cf_launcher_image_fd(void) {
	if (pthread_once(&image_once, init_image) != 0)
		return -EAGAIN;
	return image_fd;
}
