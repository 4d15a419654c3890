/*
 * The supervisor's parent side: setup, one notification at a time, and
 * access to the command's memory and descriptors (supervise.h).
 *
 * Every lookup by the thread's number (process_vm_readv, /proc/<tid>) is
 * followed by SECCOMP_IOCTL_NOTIF_ID_VALID before anything is decided: a
 * pending notification means the thread is alive and blocked, so the
 * number still names it. Memory is read once, into our buffers; the
 * kernel never reads it again for the call, because the answer is the
 * result of the call we made ourselves.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/seccomp.h>

#include "supervise.h"

#include "grant-open.h"
#include "supervise-internal.h"
#include "supervisor-probe.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9 */
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

static long pidfd_open_syscall(pid_t pid, unsigned int flags)
{
	return syscall(SYS_pidfd_open, pid, flags);
}

static long pidfd_getfd_syscall(int pidfd, int fd)
{
	return syscall(SYS_pidfd_getfd, pidfd, fd, 0);
}

/* The check is shared with the library, which predicts the launcher's
 * `layers` for an argv another process spawns (supervisor-probe.h). */
int supervise_probe(const char **ret_missing)
{
	return launcher_supervisor_probe(ret_missing);
}

static int identity_of(const char *path, struct sv_identity *ret)
{
	struct stat st;
	int fd = grant_open(path);
	int err = 0;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) != 0)
		err = -errno;
	else if (!grant_identity_matches(path, fd))
		err = -ESTALE; /* not the inode the library recorded (identity.h) */
	close(fd);
	if (err == 0) {
		ret->dev = st.st_dev;
		ret->ino = st.st_ino;
	}
	return err;
}

int supervise_new(const char *const *writable, const bool *shared, size_t n_writable,
		  const char *const *allowed_sockets, size_t n_allowed, unsigned flags,
		  struct supervise **ret, const char **ret_failed)
{
	struct seccomp_notif_sizes sizes;
	struct supervise *sv;
	size_t i;
	int err;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0)
		return -errno;
	sv = calloc(1, sizeof(*sv));
	if (sv == NULL)
		return -ENOMEM;
	sv->listener = -1;
	sv->wait_epoll = -1;
	sv->wait_timer = -1;
	sv->mediate_sockets = (flags & SUPERVISE_SOCKETS_BY_LANDLOCK) == 0;
	for (i = 0; i < SV_PIDFD_CACHE_SLOTS; i++)
		sv->pidfds[i].pidfd = -1;
	/* The kernel's structures may be larger than our headers' */
	sv->req_size = sizes.seccomp_notif > sizeof(struct seccomp_notif)
			       ? sizes.seccomp_notif : sizeof(struct seccomp_notif);
	sv->resp_size = sizes.seccomp_notif_resp > sizeof(struct seccomp_notif_resp)
				? sizes.seccomp_notif_resp
				: sizeof(struct seccomp_notif_resp);
	sv->req = calloc(1, sv->req_size);
	sv->resp = calloc(1, sv->resp_size);
	sv->grants = calloc(n_writable + 1, sizeof(*sv->grants));
	sv->sockets = calloc(n_allowed + 1, sizeof(*sv->sockets));
	if (sv->req == NULL || sv->resp == NULL || sv->grants == NULL ||
	    sv->sockets == NULL) {
		supervise_free(sv);
		return -ENOMEM;
	}
	err = sv_waits_init(sv);
	if (err < 0) {
		supervise_free(sv);
		return err;
	}
	for (i = 0; i < n_writable; i++) {
		err = identity_of(writable[i], &sv->grants[i]);
		sv->grants[i].shared = shared != NULL && shared[i];
		if (err < 0) {
			if (ret_failed != NULL)
				*ret_failed = writable[i];
			supervise_free(sv);
			return err;
		}
		sv->n_grants++;
	}
	for (i = 0; i < n_allowed; i++) {
		sv->sockets[i] = strdup(allowed_sockets[i]);
		if (sv->sockets[i] == NULL) {
			supervise_free(sv);
			return -ENOMEM;
		}
		sv->n_sockets++;
	}
	*ret = sv;
	return 0;
}

int supervise_attach(struct supervise *sv, int channel, pid_t child)
{
	unsigned char ack = 1;
	int number = -1;
	int pidfd;
	int listener;
	ssize_t n;

	do
		n = read(channel, &number, sizeof(number));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(number)) {
		close(channel);
		return n < 0 ? -errno : -EPIPE;
	}
	pidfd = (int)pidfd_open_syscall(child, 0);
	if (pidfd < 0) {
		int err = -errno;

		close(channel);
		return err;
	}
	listener = (int)pidfd_getfd_syscall(pidfd, number);
	if (listener < 0) {
		int err = -errno;

		close(pidfd);
		close(channel);
		return err;
	}
	close(pidfd);
	/* Same uid and same Landlock domain as the command: without this
	 * the command could ptrace its supervisor or take its listener. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		int err = -errno;

		close(listener);
		close(channel);
		return err;
	}
	/* Linux 6.6: wake the supervisor on the notifier's CPU, which
	 * roughly halves the round trip. Optional. */
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
		    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	sv->listener = listener;
	do
		n = write(channel, &ack, 1);
	while (n < 0 && errno == EINTR);
	close(channel);
	return n == 1 ? 0 : -EPIPE;
}

int supervise_listener_fd(const struct supervise *sv)
{
	return sv == NULL ? -1 : sv->listener;
}

int supervise_wait_fd(const struct supervise *sv)
{
	return sv == NULL ? -1 : sv->wait_epoll;
}

void supervise_free(struct supervise *sv)
{
	size_t i;

	if (sv == NULL)
		return;
	sv_waits_free(sv);
	if (sv->listener >= 0)
		close(sv->listener);
	for (i = 0; i < SV_PIDFD_CACHE_SLOTS; i++)
		if (sv->pidfds[i].pidfd >= 0)
			close(sv->pidfds[i].pidfd);
	for (i = 0; i < sv->n_sockets; i++)
		free(sv->sockets[i]);
	free(sv->sockets);
	free(sv->grants);
	free(sv->req);
	free(sv->resp);
	free(sv);
}

/* ---- the command's memory and descriptors ---- */

#define PAGE_CHUNK 4096U

/* Splits [addr, addr+size) at page boundaries, so a partial read stops at
 * the first unreadable page instead of failing the whole element. */
static ssize_t read_chunked(pid_t tid, uint64_t addr, void *buf, size_t size)
{
	struct iovec local[8];
	struct iovec remote[8];
	size_t done = 0;

	while (done < size) {
		size_t count = 0;
		size_t batch = 0;
		ssize_t n;

		while (count < 8 && done + batch < size) {
			uint64_t at = addr + done + batch;
			size_t room = PAGE_CHUNK - (size_t)(at % PAGE_CHUNK);
			size_t len = size - done - batch < room ? size - done - batch : room;

			remote[count].iov_base = (void *)(uintptr_t)at;
			remote[count].iov_len = len;
			local[count].iov_base = (char *)buf + done + batch;
			local[count].iov_len = len;
			batch += len;
			count++;
		}
		n = process_vm_readv(tid, local, count, remote, count, 0);
		if (n <= 0)
			return done > 0 ? (ssize_t)done : (n < 0 ? -errno : 0);
		done += (size_t)n;
		if ((size_t)n < batch)
			break;
	}
	return (ssize_t)done;
}

int sv_read_memory(struct sv_call *call, uint64_t addr, void *buf, size_t size)
{
	struct iovec local = { buf, size };
	struct iovec remote = { (void *)(uintptr_t)addr, size };
	ssize_t n;

	if (size == 0)
		return 0;
	n = process_vm_readv(call->tid, &local, 1, &remote, 1, 0);
	if (n == (ssize_t)size)
		return 0;
	n = read_chunked(call->tid, addr, buf, size);
	return n == (ssize_t)size ? 0 : -EFAULT;
}

int sv_read_string(struct sv_call *call, uint64_t addr, char *buf, size_t size)
{
	ssize_t n = read_chunked(call->tid, addr, buf, size);
	void *end;

	if (n <= 0)
		return -EFAULT;
	end = memchr(buf, '\0', (size_t)n);
	if (end == NULL)
		return (size_t)n == size ? -ENAMETOOLONG : -EFAULT;
	return (int)((char *)end - buf);
}

int sv_write_memory(struct sv_call *call, uint64_t addr, const void *buf, size_t size)
{
	struct iovec local = { (void *)buf, size };
	struct iovec remote = { (void *)(uintptr_t)addr, size };

	return process_vm_writev(call->tid, &local, 1, &remote, 1, 0) == (ssize_t)size
		       ? 0 : -EFAULT;
}

int sv_open_thread_pidfd(pid_t tid)
{
	/* The thread's own descriptor table (it may have unshared it). */
	int pidfd = (int)pidfd_open_syscall(tid, PIDFD_THREAD);

	/* EINVAL: no PIDFD_THREAD; then only a thread-group leader has one */
	if (pidfd < 0 && errno == EINVAL)
		pidfd = (int)pidfd_open_syscall(tid, 0);
	return pidfd >= 0 ? pidfd : -errno;
}

static int call_pidfd(struct sv_call *call, bool fresh)
{
	struct sv_cached_pidfd *slot =
		&call->sv->pidfds[(size_t)call->tid % SV_PIDFD_CACHE_SLOTS];

	if (call->pidfd >= 0 && !fresh)
		return call->pidfd;
	if (slot->tid == call->tid && slot->pidfd >= 0 && !fresh) {
		call->pidfd = slot->pidfd;
		return call->pidfd;
	}
	if (slot->pidfd >= 0)
		close(slot->pidfd);
	slot->tid = call->tid;
	slot->pidfd = sv_open_thread_pidfd(call->tid);
	call->pidfd = slot->pidfd;
	return call->pidfd;
}

int sv_command_fd(struct sv_call *call, int fd)
{
	int pidfd = call_pidfd(call, false);
	int dup_fd;

	if (pidfd < 0)
		return pidfd;
	dup_fd = (int)pidfd_getfd_syscall(pidfd, fd);
	if (dup_fd < 0 && errno == ESRCH) {
		/* a cached pidfd of a thread that ended: this number is
		 * another thread now */
		pidfd = call_pidfd(call, true);
		if (pidfd < 0)
			return pidfd;
		dup_fd = (int)pidfd_getfd_syscall(pidfd, fd);
	}
	return dup_fd >= 0 ? dup_fd : -errno;
}

int sv_command_cwd(struct sv_call *call)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cwd", (int)call->tid);
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

bool sv_call_valid(struct sv_call *call)
{
	uint64_t id = call->req->id;

	return ioctl(call->sv->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* ---- one notification ---- */

int sv_respond(struct supervise *sv, uint64_t id, int64_t result)
{
	struct seccomp_notif_resp *resp = sv->resp;

	memset(resp, 0, sv->resp_size);
	resp->id = id;
	if (result < 0) {
		resp->error = (int32_t)result;
		resp->val = 0;
	} else {
		resp->error = 0;
		resp->val = result;
	}
	resp->flags = 0; /* never SECCOMP_USER_NOTIF_FLAG_CONTINUE */
	if (ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_SEND, resp) == 0)
		return 0;
	/* ENOENT: the thread was killed or interrupted meanwhile. */
	return errno == ENOENT ? 0 : -errno;
}

int supervise_handle(struct supervise *sv)
{
	struct sv_call call;
	int64_t result;

	memset(sv->req, 0, sv->req_size);
	if (ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_RECV, sv->req) != 0) {
		/* ENOENT: the notifier went away between poll and here */
		if (errno == ENOENT || errno == EINTR)
			return 0;
		return -errno;
	}
	call.sv = sv;
	call.req = sv->req;
	call.tid = (pid_t)sv->req->pid;
	call.pidfd = -1;
	if (call.tid <= 0) {
		/* The notifier is outside our PID namespace: we could not
		 * reach its memory or descriptors. Refuse. */
		result = -EPERM;
	} else if (sv_is_network_call(sv->req->data.nr)) {
		result = sv_handle_network(&call);
	} else {
		result = sv_handle_metadata(&call);
	}
	if (result == SV_RESULT_PENDING)
		return 0; /* a waiter performs it; supervise_handle_waits answers */
	return sv_respond(sv, sv->req->id, result);
}
