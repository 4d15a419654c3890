/*
 * Whether the launcher's supervisor (SPEC 13) can run in this process: one
 * copy of the check, shared by the launcher (supervise.c, before it
 * restricts itself) and the library (which predicts, for an argv another
 * process will spawn, the `layers` the launcher will apply: doc/SPEC.md 10,
 * 14). Linux only; a header of static functions so that it adds no object
 * to either build.
 *
 * The answer depends on the kernel (seccomp user notification, pidfd_open,
 * pidfd_getfd, process_vm_readv), on /proc, and on the seccomp filters this
 * process already carries (an outer supervisor refuses a second listener):
 * a process spawned from this one inherits the same filters, so the check
 * made here holds for it unless something changes in between.
 */
#ifndef CONFINE_SUPERVISOR_PROBE_H
#define CONFINE_SUPERVISOR_PROBE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/seccomp.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SECCOMP_GET_NOTIF_SIZES
#define SECCOMP_GET_NOTIF_SIZES 3
#endif
#ifndef SECCOMP_RET_USER_NOTIF
#define SECCOMP_RET_USER_NOTIF 0x7fc00000U
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif

/*
 * Returns 0 when every piece the supervisor needs works here, else a
 * negative errno with *ret_missing naming the first missing piece (one of
 * the words SPEC 13 lists: "user-notification", "pidfd_open",
 * "pidfd_getfd", "process_vm_readv", "proc", "nested-listener").
 * Installs nothing.
 */
static inline int launcher_supervisor_probe(const char **ret_missing)
{
	struct seccomp_notif_sizes sizes;
	uint32_t action = SECCOMP_RET_USER_NOTIF;
	const char *missing = NULL;
	int err = 0;
	int pidfd;
	char byte = 0;
	char copy = 1;
	struct iovec local = { &copy, 1 };
	struct iovec remote = { &byte, 1 };

	if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) != 0 ||
	    syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) {
		missing = "user-notification";
		err = -errno;
	} else if ((pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0)) < 0) {
		missing = "pidfd_open";
		err = -errno;
	} else {
		int dup_fd = (int)syscall(SYS_pidfd_getfd, pidfd, pidfd, 0);

		if (dup_fd < 0) {
			missing = "pidfd_getfd";
			err = -errno;
		} else {
			close(dup_fd);
		}
		close(pidfd);
	}
	if (missing == NULL &&
	    process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != 1) {
		missing = "process_vm_readv";
		err = -errno;
	}
	if (missing == NULL && access("/proc/self/fd", X_OK) != 0) {
		missing = "proc";
		err = -errno;
	}
	/* Under another supervisor (a nested launcher), its filter refuses
	 * a second listener. Asking with no program tells without installing
	 * anything: the filter answers EPERM before the kernel would find
	 * the NULL program (EFAULT). */
	if (missing == NULL &&
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER, NULL) != 0 && errno == EPERM) {
		missing = "nested-listener";
		err = -EPERM;
	}
	if (ret_missing != NULL)
		*ret_missing = missing;
	return err;
}

#endif
