/*
 * A supervised call that would block (issue 21): the supervisor never
 * blocks on the command's behalf.
 *
 * The supervisor performs every mediated socket call itself, on a
 * pidfd_getfd duplicate of the command's socket (supervise-net.c). It used
 * to make that call as the command asked, so on a blocking socket a full
 * buffer or listen queue (or a TCP handshake) blocked the supervisor with
 * it: no other notification was answered, no signal forwarded, and the
 * lifeline was not read, so after a `kill -9` of confine the whole tree ran
 * on. Now the supervisor tries each send without waiting (MSG_DONTWAIT on
 * that call only: the open file description the command shares is never
 * made non-blocking), and a call that would block, on a socket the command
 * left blocking and without MSG_DONTWAIT of its own, is handed to a
 * *waiter*: a child process forked from the supervisor that makes the same
 * call on the same duplicate, blocking, and writes the result to a pipe.
 * A connect on a blocking stream socket goes to a waiter at once: connect
 * has no per-call non-blocking flag, and the only other way (O_NONBLOCK on
 * the shared description) would show to the command's other threads.
 *
 * Why a waiter process rather than polling the socket for POLLOUT in the
 * loop: the kernel's own blocking call keeps every rule of the command's
 * blocking semantics that a poll loop would have to imitate and gets
 * wrong somewhere: SO_SNDTIMEO, a datagram sent to an unconnected peer
 * whose queue is full (POLLOUT says writable and the send still fails: a
 * busy loop), a stream send that completes in pieces, a listen queue that
 * frees up (no poll event for the connecting socket). Why a process rather
 * than a thread: it can be ended with SIGKILL when the call is dropped,
 * whatever it is blocked in, and shares no memory with the loop. It costs
 * one fork per call that waits, and one per connect on a blocking stream
 * socket.
 *
 * Meanwhile the notifying thread sleeps in the kernel. Because the listener
 * is made with SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV where the kernel has
 * it, only a fatal signal wakes it once the supervisor holds the
 * notification; its handlers for other signals run after the call ends
 * (SPEC 13). Each wait ends in one of three ways:
 *   - the waiter writes its result: the notification is answered with it
 *     (if still valid);
 *   - the notifying thread dies (its pidfd becomes readable) or the
 *     notification is found no longer valid (SECCOMP_IOCTL_NOTIF_ID_VALID,
 *     checked once a second while any call waits: a safety net for kernels
 *     without thread pidfds or killable waits): the waiter is SIGKILLed
 *     and the wait dropped, so nothing is sent for a process that is gone;
 *   - the run ends (lifeline, the command's exit): the launcher SIGKILLs
 *     its whole tree, the waiters included (they are its children, in its
 *     own Landlock domain), and each has PR_SET_PDEATHSIG(SIGKILL).
 *
 * The waiter is a copy of the supervisor: non-dumpable, in the launcher's
 * Landlock domain, without capabilities; it holds the same duplicate and
 * the same pinned target (a connect to /proc/self/fd/N reaches the inode
 * the supervisor decided on, through the waiter's copy of that
 * descriptor), so it can do nothing the supervisor could not. Credentials
 * it sends (SCM_CREDENTIALS) and a peer's SO_PEERCRED of a connect it made
 * carry its pid: the kernel takes the sender's, as it took the
 * supervisor's before.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <linux/seccomp.h>

#include "supervise-internal.h"

/* epoll data: the slot times 4 plus what became readable. */
#define EV_RESULT 1U
#define EV_THREAD 2U
#define EV_TIMER UINT64_MAX

/* The safety net's period: how long a dropped call's waiter may outlive
 * its thread where nothing else tells. */
#define RECHECK_SECONDS 1

static int pidfd_signal(int pidfd, int sig)
{
	return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

int sv_waits_init(struct supervise *sv)
{
	struct epoll_event event = { .events = EPOLLIN, .data.u64 = EV_TIMER };

	sv->wait_epoll = epoll_create1(EPOLL_CLOEXEC);
	if (sv->wait_epoll < 0)
		return -errno;
	sv->wait_timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (sv->wait_timer < 0)
		return -errno;
	if (epoll_ctl(sv->wait_epoll, EPOLL_CTL_ADD, sv->wait_timer, &event) != 0)
		return -errno;
	return 0;
}

static void arm_timer(struct supervise *sv, bool on)
{
	struct itimerspec spec;

	memset(&spec, 0, sizeof(spec));
	if (on) {
		spec.it_value.tv_sec = RECHECK_SECONDS;
		spec.it_interval.tv_sec = RECHECK_SECONDS;
	}
	(void)timerfd_settime(sv->wait_timer, 0, &spec, NULL);
}

static void forget(struct supervise *sv, int *fd)
{
	if (*fd < 0)
		return;
	/* Explicitly: the waiters hold copies of our descriptors, and an epoll
	 * entry lives as long as its open file description does. */
	(void)epoll_ctl(sv->wait_epoll, EPOLL_CTL_DEL, *fd, NULL);
	close(*fd);
	*fd = -1;
}

/* Ends a wait; kill: SIGKILL its waiter first (a dropped call). */
static void release(struct supervise *sv, struct sv_wait *w, bool kill)
{
	if (kill && w->worker_pidfd >= 0)
		(void)pidfd_signal(w->worker_pidfd, SIGKILL);
	forget(sv, &w->result_fd);
	forget(sv, &w->thread_pidfd);
	if (w->worker_pidfd >= 0)
		close(w->worker_pidfd);
	w->worker_pidfd = -1;
	w->used = false;
	if (--sv->n_waits == 0)
		arm_timer(sv, false);
}

void sv_waits_free(struct supervise *sv)
{
	size_t i;

	for (i = 0; i < SV_WAIT_SLOTS; i++)
		if (sv->waits[i].used)
			release(sv, &sv->waits[i], true);
	if (sv->wait_timer >= 0)
		close(sv->wait_timer);
	if (sv->wait_epoll >= 0)
		close(sv->wait_epoll);
	sv->wait_timer = sv->wait_epoll = -1;
}

/* A captured connect (supervise-net.c): waits for the handshake on a
 * non-blocking socket too (bounded), then sends the preamble before the
 * command can. Returns 0 or -errno. */
static int64_t send_preamble(const struct sv_blocking_op *op, int64_t result)
{
	struct pollfd p = { .fd = op->sock, .events = POLLOUT };
	int error = 0;
	socklen_t len = sizeof(error);
	size_t sent = 0;

	if (result == -EINPROGRESS) {
		if (poll(&p, 1, SV_CAPTURE_SECONDS * 1000) != 1)
			return -ETIMEDOUT;
		if (getsockopt(op->sock, SOL_SOCKET, SO_ERROR, &error, &len) != 0 || error != 0)
			return error != 0 ? -error : -errno;
		result = 0;
	}
	while (result == 0 && sent < op->preamble_len) {
		ssize_t n = send(op->sock, op->preamble + sent, op->preamble_len - sent,
				 MSG_NOSIGNAL);

		if (n > 0)
			sent += (size_t)n;
		else if (n < 0 && errno == EAGAIN && poll(&p, 1, SV_CAPTURE_SECONDS * 1000) == 1)
			continue;
		else if (n < 0 && errno != EINTR)
			return -errno;
	}
	return result;
}

/* The waiter: the call, blocking as the command asked, then its result. */
static void waiter(const struct sv_blocking_op *op, int out, pid_t parent)
    __attribute__((noreturn));

static void waiter(const struct sv_blocking_op *op, int out, pid_t parent)
{
	int64_t result;
	ssize_t n;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent)
		_exit(1);
	if (op->connect) {
		result = connect(op->sock, op->addr, op->addrlen) == 0 ? 0 : -errno;
		if (op->preamble != NULL)
			result = send_preamble(op, result);
	} else {
		/* Our copy of the message: credentials name the sender, which
		 * the kernel checks against the sending process (this one). */
		struct msghdr *msg = (struct msghdr *)op->msg;
		struct cmsghdr *c;

		for (c = CMSG_FIRSTHDR(msg); c != NULL; c = CMSG_NXTHDR(msg, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
			    c->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
				struct ucred cred;

				memcpy(&cred, CMSG_DATA(c), sizeof(cred));
				cred.pid = getpid();
				memcpy(CMSG_DATA(c), &cred, sizeof(cred));
			}
		n = sv_sendmsg(op->sock, msg, (op->flags & ~MSG_DONTWAIT) | MSG_NOSIGNAL);
		result = n >= 0 ? n : -errno;
	}
	do
		n = write(out, &result, sizeof(result));
	while (n < 0 && errno == EINTR);
	_exit(0);
}

int64_t sv_wait_start(struct sv_call *call, const struct sv_blocking_op *op)
{
	struct supervise *sv = call->sv;
	struct sv_wait *w = NULL;
	struct epoll_event event;
	pid_t parent = getpid();
	int pipe_fds[2];
	size_t slot;
	pid_t pid;
	int err;

	for (slot = 0; slot < SV_WAIT_SLOTS; slot++)
		if (!sv->waits[slot].used) {
			w = &sv->waits[slot];
			break;
		}
	/* Resources of our own that fail (a slot, descriptors, a process at
	 * RLIMIT_NPROC) answer EAGAIN, an error both calls may return. */
	if (w == NULL)
		return -EAGAIN; /* as many calls wait as the supervisor keeps */
	if (pipe2(pipe_fds, O_CLOEXEC) != 0)
		return -EAGAIN;
	memset(w, 0, sizeof(*w));
	w->id = call->req->id;
	w->tid = call->tid;
	w->result_fd = pipe_fds[0];
	w->worker_pidfd = -1;
	w->done = op->done;
	w->sigpipe = !op->connect && (op->flags & MSG_NOSIGNAL) == 0;
	w->is_mmsg = op->is_mmsg;
	w->mmsg_index = op->mmsg_index;
	w->msglen_addr = op->msglen_addr;
	/* A pidfd of the thread, then the notification still pending: so it
	 * names the thread that asked, not a reused number. */
	w->thread_pidfd = sv_open_thread_pidfd(call->tid);
	if (!sv_call_valid(call)) {
		err = -ENOENT;
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		err = -EAGAIN;
		goto fail;
	}
	if (pid == 0) {
		close(pipe_fds[0]);
		waiter(op, pipe_fds[1], parent);
	}
	close(pipe_fds[1]);
	pipe_fds[1] = -1;
	/* Our child, not reaped before the loop runs again: the number is
	 * still this waiter's. */
	w->worker_pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (w->worker_pidfd < 0) {
		err = -EAGAIN;
		kill(pid, SIGKILL);
		goto fail;
	}
	event.events = EPOLLIN;
	event.data.u64 = (uint64_t)slot * 4 + EV_RESULT;
	if (epoll_ctl(sv->wait_epoll, EPOLL_CTL_ADD, w->result_fd, &event) != 0) {
		err = -EAGAIN;
		(void)pidfd_signal(w->worker_pidfd, SIGKILL);
		goto fail;
	}
	if (w->thread_pidfd >= 0) {
		event.data.u64 = (uint64_t)slot * 4 + EV_THREAD;
		if (epoll_ctl(sv->wait_epoll, EPOLL_CTL_ADD, w->thread_pidfd, &event) != 0) {
			close(w->thread_pidfd); /* the timer still checks */
			w->thread_pidfd = -1;
		}
	}
	w->used = true;
	if (sv->n_waits++ == 0)
		arm_timer(sv, true);
	return SV_RESULT_PENDING;
fail:
	if (pipe_fds[1] >= 0)
		close(pipe_fds[1]);
	forget(sv, &w->result_fd);
	if (w->thread_pidfd >= 0)
		close(w->thread_pidfd);
	if (w->worker_pidfd >= 0)
		close(w->worker_pidfd);
	memset(w, 0, sizeof(*w));
	return err;
}

static bool still_pending(struct supervise *sv, uint64_t id)
{
	return ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* The waiter wrote its result (or died without one). */
static int finish(struct supervise *sv, struct sv_wait *w)
{
	int64_t r = 0, result;
	ssize_t n;
	int err;

	do
		n = read(w->result_fd, &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return 0;
	if (n != (ssize_t)sizeof(r))
		r = -EINTR; /* killed before it could tell: nothing known sent */
	if (r >= 0)
		result = w->done + r;
	else
		result = w->done > 0 ? w->done : r;
	if (!still_pending(sv, w->id)) {
		release(sv, w, false); /* the thread is gone: nothing to tell */
		return 0;
	}
	if (w->is_mmsg) {
		if (result >= 0) {
			struct sv_call call = { sv, NULL, w->tid, -1 };
			unsigned int count = (unsigned int)result;

			/* pending, so w->tid still names the thread */
			(void)sv_write_memory(&call, w->msglen_addr, &count, sizeof(count));
			result = (int64_t)w->mmsg_index + 1;
		} else if (w->mmsg_index > 0) {
			result = w->mmsg_index;
		}
	}
	if (result == -EPIPE && w->sigpipe && w->thread_pidfd >= 0)
		(void)pidfd_signal(w->thread_pidfd, SIGPIPE);
	err = sv_respond(sv, w->id, result);
	release(sv, w, false);
	return err;
}

/* The thread's pidfd became readable, or the timer fired: drop the call if
 * its notification is gone. */
static void recheck(struct supervise *sv, struct sv_wait *w, bool thread_ended)
{
	if (!still_pending(sv, w->id)) {
		release(sv, w, true);
		return;
	}
	/* Readable and still pending (a process pidfd of a leader whose
	 * thread lives on): leave it to the timer. */
	if (thread_ended)
		forget(sv, &w->thread_pidfd);
}

int supervise_handle_waits(struct supervise *sv)
{
	struct epoll_event events[16];
	int n, i;

	n = epoll_wait(sv->wait_epoll, events, 16, 0);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (i = 0; i < n; i++) {
		uint64_t data = events[i].data.u64;
		struct sv_wait *w;
		int err;

		if (data == EV_TIMER) {
			uint64_t ticks;
			size_t slot;

			if (read(sv->wait_timer, &ticks, sizeof(ticks)) < 0) {
				/* EAGAIN: already read */
			}
			for (slot = 0; slot < SV_WAIT_SLOTS; slot++)
				if (sv->waits[slot].used)
					recheck(sv, &sv->waits[slot], false);
			continue;
		}
		if (data / 4 >= SV_WAIT_SLOTS)
			continue;
		w = &sv->waits[data / 4];
		/* An event of a wait released earlier in this batch. */
		if (!w->used)
			continue;
		if ((data & 3) == EV_RESULT) {
			err = finish(sv, w);
			if (err < 0)
				return err;
		} else if ((data & 3) == EV_THREAD && w->thread_pidfd >= 0) {
			recheck(sv, w, true);
		}
	}
	return 0;
}
