/*
 * The launcher's seccomp user-notification supervisor (issue 15).
 *
 * Landlock cannot stop a confined command from changing the metadata of a
 * file it owns outside its grants (chmod, chown, times, xattrs, inode
 * flags), nor from connecting to a host daemon's pathname unix socket. The
 * command's child installs a seccomp filter that hands exactly those
 * syscalls to a listener; the launcher's parent, which holds the listener,
 * decides each one on the inode it resolved and pinned itself, performs the
 * operation on that pinned descriptor (acting on behalf: the command's
 * memory is read once and never re-read by the kernel), and answers with
 * the operation's own result. SECCOMP_USER_NOTIF_FLAG_CONTINUE is never
 * used.
 *
 * Sequence (the launcher, main.c):
 *   supervise_probe(...)           at start; on failure the run goes on
 *                                  without the supervisor and `layers`
 *                                  says so (or --require-supervisor fails)
 *   sv = supervise_new(...)        before Landlock: opens the grants O_PATH
 *   ... no_new_privs, Landlock, capabilities dropped ...
 *   socketpair(AF_UNIX, SOCK_STREAM) -> channel[2]; fork
 *   child:  supervise_child_install(sv, channel[1]), then the launcher's
 *           deny-list (which refuses any later NEW_LISTENER), then exec
 *   parent: supervise_attach(sv, channel[0], child), then poll
 *           supervise_listener_fd(sv) and supervise_wait_fd(sv) with the
 *           rest of its loop, calling supervise_handle(sv) and
 *           supervise_handle_waits(sv) when each is readable;
 *           supervise_free(sv) at the end.
 *
 * The supervisor never blocks on the command's behalf (issue 21): a socket
 * call that would wait (a full socket buffer or listen queue, a TCP
 * handshake) is performed by a waiter process while the loop goes on
 * answering, forwarding signals and watching its lifeline; see
 * supervise-wait.c.
 *
 * Functions return 0 (or a value) on success and a negative errno on
 * failure; none prints or exits.
 */
#ifndef CONFINE_LAUNCHER_SUPERVISE_H
#define CONFINE_LAUNCHER_SUPERVISE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

struct supervise;

/*
 * Whether this kernel can run the supervisor: seccomp user notification
 * (SECCOMP_GET_NOTIF_SIZES, SECCOMP_RET_USER_NOTIF), pidfd_open,
 * pidfd_getfd, process_vm_readv and /proc. Returns 0, or a negative errno
 * with *ret_missing (when not NULL) set to a static word naming the first
 * missing piece ("user-notification", "pidfd_getfd", "proc", ...). Where it
 * fails the launcher records `layers` without `supervisor`: metadata and
 * unix-socket mediation are then absent and the run is partial. Never run
 * a command as if it were supervised when this fails.
 */
int supervise_probe(const char **ret_missing);

/* supervise_new flags. */
enum {
	/* Landlock decides pathname unix sockets itself (ABI 9,
	 * LANDLOCK_ACCESS_FS_RESOLVE_UNIX): connect, sendto, sendmsg and
	 * sendmmsg are left out of the filter and run natively. */
	SUPERVISE_SOCKETS_BY_LANDLOCK = 1U << 0,
};

/*
 * Opens each writable grant O_PATH and records its device and inode (and
 * whether it is shared: `shared` NULL, or one flag per grant; a shared
 * grant counts for metadata but never for a pathname socket), and
 * copies each allowed unix socket path. Call before the launcher restricts
 * itself (a grant must still be openable). Arrays and strings are copied;
 * either count may be 0. Returns 0 and *ret, or -errno with *ret_failed
 * (when not NULL) set to the grant that could not be opened, if that was
 * the failure.
 */
int supervise_new(const char *const *writable, const bool *shared, size_t n_writable,
		  const char *const *allowed_sockets, size_t n_allowed, unsigned flags,
		  struct supervise **ret, const char **ret_failed);

/*
 * Child side, after no_new_privs, Landlock and the capability drop, and
 * BEFORE the launcher's deny-list: that list refuses
 * SECCOMP_FILTER_FLAG_NEW_LISTENER (so that no later filter, the
 * command's own included, can own a listener), so this filter must be in
 * place first. Installs the notifying filter, tells the parent the
 * listener's descriptor number over `channel` and waits for its
 * acknowledgement, then closes the listener and `channel`. Async-signal
 * safe, allocates nothing (sv is only read). Returns 0, or -errno: the
 * child must then not exec (the parent's supervise_attach fails too).
 */
int supervise_child_install(const struct supervise *sv, int channel);

/*
 * Parent side, after fork: takes the child's listener (pidfd_getfd on the
 * number the child sent), acknowledges, closes `channel`, and makes this
 * process non-dumpable so the command (same uid, same Landlock domain)
 * cannot ptrace or pidfd_getfd its supervisor. Returns 0, or -errno (the
 * child failed to install, or died).
 */
int supervise_attach(struct supervise *sv, int channel, pid_t child);

/* The listener to poll for POLLIN; -1 before supervise_attach. */
int supervise_listener_fd(const struct supervise *sv);

/*
 * Receives one notification and answers it, or hands it to a waiter when
 * performing it would block (answered later, by supervise_handle_waits).
 * Never blocks. Call when poll(2) reports POLLIN on the listener; POLLHUP
 * without POLLIN means no process is left under the filter: stop polling
 * it. Returns 0 (answered, waiting, or the notifying thread went away,
 * which is normal), or -errno on a failure of the listener itself (the
 * caller should then end the run: nothing answers anymore, and every
 * mediated syscall of the command would wait).
 */
int supervise_handle(struct supervise *sv);

/* An epoll descriptor, readable when a waiting call has finished, when the
 * thread it waits for has died, or when the waits are due a check (once a
 * second while any waits). -1 before supervise_new. */
int supervise_wait_fd(const struct supervise *sv);

/*
 * Answers the waiting calls that finished and drops those whose thread is
 * gone (SECCOMP_IOCTL_NOTIF_ID_VALID; the waiter is SIGKILLed). Never
 * blocks. Returns 0, or -errno as supervise_handle does.
 */
int supervise_handle_waits(struct supervise *sv);

/* Closes everything and SIGKILLs the waiters; accepts NULL. */
void supervise_free(struct supervise *sv);

/* The network allowlist (doc/SPEC.md 15): from now on connect and sends
 * with an address are notified, and an IPv4 or IPv6 one is refused
 * (with `refusal`, a positive errno: EACCES for the allowlist, ECONNREFUSED
 * with the network off) unless it is exactly addr:port (IPv4, network byte
 * order): the proxy; and listen on an IP socket is refused. With
 * capture_token (the run's secret; NULL: none), a TCP connect to any other
 * IPv4 address is carried to the proxy instead, which decides it by the
 * name the client sends (doc/SPEC.md 15, "Transparent capture"). Call
 * before supervise_child_install. */
void supervise_set_proxy(struct supervise *sv, uint32_t addr, uint16_t port, int refusal,
			 const char *capture_token);

#endif /* CONFINE_LAUNCHER_SUPERVISE_H */
