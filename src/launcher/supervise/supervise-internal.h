/*
 * Shared by the supervisor's files (supervise.h is the interface):
 *   supervise-filter.c  the child's filter
 *   supervise.c         setup, the notification loop step, the command's
 *                       memory and descriptors
 *   supervise-resolve.c resolving a path as the command would, pinning
 *                       its inode
 *   supervise-decide.c  the grant decision on that inode
 *   supervise-perform.c the metadata calls, decoded and done on its behalf
 *                       on the pinned descriptor
 *   supervise-net.c     connect/sendto/sendmsg/sendmmsg done on its behalf
 *   supervise-wait.c    a call that would block: a waiter process performs
 *                       it while the supervisor goes on answering
 */
#ifndef CONFINE_LAUNCHER_SUPERVISE_INTERNAL_H
#define CONFINE_LAUNCHER_SUPERVISE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

#include "supervise.h"

/* Generous: the table compiles to about 130 instructions. */
#define SUPERVISE_FILTER_MAX 256

/* Writes the filter into insns; returns its length, 0 if cap is too small.
 * sockets: whether connect and the sends are notified; listen: whether
 * listen is (the allowlist's proxy). */
size_t supervise_build_filter(struct sock_filter *insns, size_t cap, bool sockets, bool listen);

struct sv_identity {
	dev_t dev;
	ino_t ino;
	bool shared; /* a --rw-shared grant: no socket is reached under it */
};

/* An inode known to lie inside a writable grant. The birth time tells a
 * reused inode number from the inode that was cached. */
struct sv_cached_inode {
	dev_t dev;
	ino_t ino;
	int64_t btime_sec;
	uint32_t btime_nsec;
	bool used;
};

#define SV_INODE_CACHE_SLOTS 4096
#define SV_PIDFD_CACHE_SLOTS 64

/* pidfds by thread number: a pidfd names one task for good, so a stale
 * entry fails (ESRCH) instead of reaching another task; it is then
 * reopened. */
struct sv_cached_pidfd {
	pid_t tid;
	int pidfd;
};

/* Calls waiting at once (supervise-wait.c): each holds three descriptors
 * (the waiter's result pipe and pidfd, the notifying thread's pidfd). */
#define SV_WAIT_SLOTS 128

/* One call that would have blocked, performed by a waiter process. */
struct sv_wait {
	bool used;
	uint64_t id;            /* the notification, answered when it ends */
	pid_t tid;              /* the notifying thread */
	int thread_pidfd;       /* readable when that thread exits; or -1 */
	int worker_pidfd;       /* the waiter, to SIGKILL when dropped */
	int result_fd;          /* the waiter's int64 result (read end) */
	int64_t done;           /* bytes a stream send had sent before */
	bool sigpipe;           /* EPIPE raises SIGPIPE on the thread */
	bool is_mmsg;           /* sendmmsg: the answer is a message count */
	unsigned int mmsg_index;
	uint64_t msglen_addr;   /* sendmmsg: the command's msg_len to fill */
};

struct supervise {
	struct sv_identity *grants; /* writable grants, directories or files */
	size_t n_grants;
	char **sockets;             /* allowed pathname sockets, as given */
	size_t n_sockets;
	bool mediate_sockets;       /* false: Landlock decides (ABI 9) */
	/* The network allowlist's proxy (supervise_set_proxy): when set, an
	 * AF_INET or AF_INET6 connect or send with an address reaches it
	 * and nothing else. Network byte order. */
	bool proxy;
	uint32_t proxy_addr;
	uint16_t proxy_port;
	int proxy_refusal; /* the errno of a refused IP address */
	/* Transparent capture: the run's secret for the preamble, or "". */
	char capture_token[33];
	int listener;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	size_t req_size;
	size_t resp_size;
	struct sv_cached_inode cache[SV_INODE_CACHE_SLOTS];
	struct sv_cached_pidfd pidfds[SV_PIDFD_CACHE_SLOTS];
	/* supervise-wait.c: an epoll set of the waits' descriptors and the
	 * recheck timer, which the launcher polls beside the listener. */
	int wait_epoll;
	int wait_timer;
	size_t n_waits;
	struct sv_wait waits[SV_WAIT_SLOTS];
};

/* One notification being answered. */
struct sv_call {
	struct supervise *sv;
	const struct seccomp_notif *req;
	pid_t tid;   /* the notifying thread, in our PID namespace */
	int pidfd;   /* from the cache, on first use; -1 before (not ours to close) */
};

/* The command's memory: copies `size` bytes at `addr`. Returns 0, or
 * -EFAULT when any of it is unreadable. */
int sv_read_memory(struct sv_call *call, uint64_t addr, void *buf, size_t size);
/* Copies a NUL-terminated string of at most size-1 bytes. Returns its
 * length, -EFAULT, or -ENAMETOOLONG. */
int sv_read_string(struct sv_call *call, uint64_t addr, char *buf, size_t size);
/* sendmsg(2) itself, not the C library's wrapper (musl's copies and caps
 * the control data at 1 KiB): the kernel gets the message as we copied it.
 * Returns what sendmsg returns, errno set. */
ssize_t sv_sendmsg(int sock, const struct msghdr *msg, int flags);
/* Writes into the command's memory; returns 0 or -errno. */
int sv_write_memory(struct sv_call *call, uint64_t addr, const void *buf, size_t size);
/* A duplicate of the command's descriptor `fd` (same open file
 * description), close-on-exec. Returns it, or -errno. */
int sv_command_fd(struct sv_call *call, int fd);
/* The command's thread's working directory, O_PATH. Returns it or -errno. */
int sv_command_cwd(struct sv_call *call);
/* Whether the notification is still pending: after this, every lookup
 * made by the thread's number (memory, /proc/<tid>) is known to have
 * reached the thread that asked, not a reused number. */
bool sv_call_valid(struct sv_call *call);

/* A path resolved the way the command's syscall would, and pinned. */
struct sv_target {
	int fd;          /* O_PATH (or a duplicate of the command's fd) */
	int parent;      /* O_PATH directory holding `name`, or -1 */
	char name[256];  /* the last component in parent, when parent >= 0 */
	struct stat st;  /* mode, dev, ino, nlink */
	bool has_btime;
	int64_t btime_sec;
	uint32_t btime_nsec;
};

void sv_target_init(struct sv_target *t);
void sv_target_close(struct sv_target *t);

/* Resolves `path` (already copied) relative to the command's `dirfd`
 * (AT_FDCWD for its cwd). follow: whether a final symlink is followed.
 * An empty path means dirfd itself when empty_ok, else -ENOENT. */
int sv_resolve(struct sv_call *call, int dirfd, const char *path, bool follow,
	       bool empty_ok, struct sv_target *ret);
/* Pins the command's descriptor `fd`. */
int sv_pin_fd(struct sv_call *call, int fd, struct sv_target *ret);
/* "/proc/self/fd/<fd>" into buf: a pinned descriptor by name. */
void sv_proc_fd_path(char *buf, size_t size, int fd);
/* Whether the pinned inode lies inside a writable grant. */
bool sv_inside_grants(struct supervise *sv, const struct sv_target *t);
/* Whether the pinned socket lies inside a writable grant that is not
 * shared (the workspace, a writable root, the run's private temp area):
 * where a socket is the command's own, never another program's. */
bool sv_socket_inside_grants(struct supervise *sv, const struct sv_target *t);
/* Whether the pinned inode is one of the allowed sockets. */
bool sv_allowed_socket(const struct supervise *sv, const struct sv_target *t);

/* A pidfd naming the thread `tid` itself (PIDFD_THREAD, Linux 6.9), else
 * its process when it leads one; close-on-exec. Returns it or -errno. */
int sv_open_thread_pidfd(pid_t tid);
/* Answers notification `id` with `result` (>= 0, or -errno). Returns 0 (a
 * notification whose thread is gone counts as answered) or -errno. */
int sv_respond(struct supervise *sv, uint64_t id, int64_t result);

/* What a handler returns when the call waits (supervise-wait.c answers it
 * later). */
#define SV_RESULT_PENDING INT64_MIN

/* A socket call the supervisor cannot finish without blocking. */
struct sv_blocking_op {
	int sock;                     /* our duplicate of the command's socket */
	bool connect;                 /* connect(addr) rather than sendmsg(msg) */
	const struct sockaddr *addr;
	socklen_t addrlen;
	const struct msghdr *msg;     /* what is left to send */
	int flags;                    /* the command's send flags */
	int64_t done;                 /* bytes already sent (a stream's head) */
	bool is_mmsg;
	unsigned int mmsg_index;
	uint64_t msglen_addr;
	/* A captured connect: once connected (a non-blocking socket waited
	 * for, at most SV_CAPTURE_SECONDS), these bytes are sent first. */
	const unsigned char *preamble;
	size_t preamble_len;
};
#define SV_CAPTURE_SECONDS 10

/* Sets up the wait set (supervise_new); returns 0 or -errno. */
int sv_waits_init(struct supervise *sv);
/* Hands `op` to a waiter process: returns SV_RESULT_PENDING, -ENOENT when
 * the notification is gone, or -EAGAIN when it cannot (SV_WAIT_SLOTS calls
 * already wait, or no descriptor or process could be had); the call is
 * then answered with that error. */
int64_t sv_wait_start(struct sv_call *call, const struct sv_blocking_op *op);
/* Ends every waiter and closes the set (supervise_free). */
void sv_waits_free(struct supervise *sv);

/* The handlers: each returns the syscall's result (>= 0) or -errno, or
 * SV_RESULT_PENDING, and never lets the kernel run the call itself. */
int64_t sv_handle_metadata(struct sv_call *call);
int64_t sv_handle_network(struct sv_call *call);
bool sv_is_network_call(long nr);

#endif /* CONFINE_LAUNCHER_SUPERVISE_INTERNAL_H */
