/*
 * The supervisor's seccomp filter, installed by the command's side of the
 * launcher right before exec (supervise.h). One table says what happens to
 * each syscall; the BPF program is generated from it.
 *
 * What the filter decides alone, on register arguments (no TOCTOU: the
 * kernel has already copied the registers):
 *   - chmod/fchmod/fchmodat/fchmodat2 with S_ISUID or S_ISGID in the mode:
 *     EPERM; other modes are notified (the target decides).
 *   - creation with a mode carrying S_ISUID or S_ISGID: open/openat with
 *     O_CREAT or O_TMPFILE, creat, mkdir/mkdirat, mknod/mknodat: EPERM.
 *     openat2 hides its mode in memory (struct open_how): it fails with
 *     ENOSYS, which every caller of openat2 (libc never calls it for
 *     open/openat) treats as "fall back to openat". io_uring, which could
 *     open, connect, send and set xattrs with no syscall at all, fails the
 *     same way; so do setxattrat/removexattrat and file_setattr (Linux
 *     6.13/6.17 path-based metadata calls nobody needs yet).
 *   - sendto without an address (a connected send): allowed natively;
 *     with one: notified.
 *   - ioctl FS_IOC_SETFLAGS / FS_IOC32_SETFLAGS / FS_IOC_FSSETXATTR:
 *     notified; FS_IOC_SETVERSION and FS_IOC_ENABLE_VERITY (which makes a
 *     file permanently read-only): EPERM everywhere.
 *   - seccomp(SECCOMP_SET_MODE_FILTER) carrying
 *     SECCOMP_FILTER_FLAG_NEW_LISTENER: EPERM. The newest filter's listener
 *     gets a notification first, and could answer CONTINUE for our
 *     syscalls. (prctl(PR_SET_SECCOMP) cannot ask for a listener.)
 * Always notified: the chown, utime, xattr families, connect, sendmsg and
 * sendmmsg (their address, if any, is in memory); with the allowlist's
 * proxy, listen too (the socket's family is behind the descriptor). Where Landlock decides
 * pathname sockets itself (ABI 9, SUPERVISE_SOCKETS_BY_LANDLOCK) the four
 * socket calls are left out and run natively.
 *
 * Installed before the launcher's deny-list (which refuses any later
 * NEW_LISTENER); both filters see every syscall and the strictest answer
 * wins (an errno beats a notification), so the set-id and io_uring
 * refusals hold twice.
 *
 * Architecture: only this build's native syscall ABI is decided; a syscall
 * through any other ABI (i386 via int 0x80, x32, arm32) kills the process,
 * because its numbers mean other calls and its structures other layouts.
 * 32-bit programs therefore do not run under the supervisor.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/fsverity.h>
#include <linux/seccomp.h>

#include "supervise.h"
#include "supervise-internal.h"

#if defined(__x86_64__) && defined(__LP64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
/* x32 shares AUDIT_ARCH_X86_64 and marks its numbers with bit 30. */
#define X32_SYSCALL_BIT 0x40000000U
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "supervise: add this architecture's AUDIT_ARCH (x86_64 and aarch64 are known)"
#endif

/* Newer than Debian 12's headers; the numbers are shared by every 64-bit
 * architecture since the unified table (Linux 5.1). */
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef SYS_setxattrat
#define SYS_setxattrat 463
#endif
#ifndef SYS_removexattrat
#define SYS_removexattrat 466
#endif
#ifndef SYS_file_setattr
#define SYS_file_setattr 469
#endif
/* Linux 5.19; headers older than that lack it (the kernel says EINVAL,
 * and the listener is made without it). */
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif


/* The kernel reads int-sized arguments (mode_t, flags, ioctl cmd) from the
 * low 32 bits of the register and ignores the rest, so the filter compares
 * the low word only: junk in the high bits cannot slip past. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LOW(i) (offsetof(struct seccomp_data, args[i]))
#define ARG_HIGH(i) (offsetof(struct seccomp_data, args[i]) + 4)
#else
#define ARG_LOW(i) (offsetof(struct seccomp_data, args[i]) + 4)
#define ARG_HIGH(i) (offsetof(struct seccomp_data, args[i]))
#endif

#define SETID_BITS (S_ISUID | S_ISGID)
/* O_TMPFILE includes O_DIRECTORY; the bit of its own is what creates. */
#define CREATING_FLAGS (O_CREAT | (O_TMPFILE & ~O_DIRECTORY))
#define NO_ARG (-1)

/* connect, sendto, sendmsg, sendmmsg: left out when Landlock decides. */
static bool is_socket_call(long nr)
{
	return nr == SYS_connect || nr == SYS_sendto || nr == SYS_sendmsg ||
	       nr == SYS_sendmmsg;
}

enum rule_kind {
	RULE_NOTIFY,              /* every call goes to the supervisor */
	RULE_NOTIFY_IF_ARG,       /* notified when args[arg] != 0, else allowed */
	RULE_CHMOD,               /* setid bits in args[mode]: EPERM; else notified */
	RULE_CREATE,              /* creating (args[flags]) with setid bits in args[mode]: EPERM */
	RULE_IOCTL,               /* by command: notified, refused, or allowed */
	RULE_NO_LISTENER,         /* seccomp() asking for a listener: EPERM */
	RULE_ENOSYS,              /* fails with ENOSYS: callers fall back */
};

struct rule {
	long nr;
	enum rule_kind kind;
	int arg;  /* RULE_NOTIFY_IF_ARG: the address; RULE_CHMOD, RULE_CREATE: the mode */
	int flags_arg; /* RULE_CREATE: the open flags, or NO_ARG when the call always creates */
};

static const struct rule rules[] = {
	/* metadata: the target inode decides */
#ifdef SYS_chmod
	{ SYS_chmod, RULE_CHMOD, 1, NO_ARG },
#endif
	{ SYS_fchmod, RULE_CHMOD, 1, NO_ARG },
	{ SYS_fchmodat, RULE_CHMOD, 2, NO_ARG },
	{ SYS_fchmodat2, RULE_CHMOD, 2, NO_ARG },
#ifdef SYS_chown
	{ SYS_chown, RULE_NOTIFY, NO_ARG, NO_ARG },
#endif
#ifdef SYS_lchown
	{ SYS_lchown, RULE_NOTIFY, NO_ARG, NO_ARG },
#endif
	{ SYS_fchown, RULE_NOTIFY, NO_ARG, NO_ARG },
	{ SYS_fchownat, RULE_NOTIFY, NO_ARG, NO_ARG },
#ifdef SYS_utime
	{ SYS_utime, RULE_NOTIFY, NO_ARG, NO_ARG },
#endif
#ifdef SYS_utimes
	{ SYS_utimes, RULE_NOTIFY, NO_ARG, NO_ARG },
#endif
#ifdef SYS_futimesat
	{ SYS_futimesat, RULE_NOTIFY, NO_ARG, NO_ARG },
#endif
	{ SYS_utimensat, RULE_NOTIFY, NO_ARG, NO_ARG },
	{ SYS_setxattr, RULE_NOTIFY, NO_ARG, NO_ARG },
	{ SYS_lsetxattr, RULE_NOTIFY, NO_ARG, NO_ARG },
	{ SYS_fsetxattr, RULE_NOTIFY, NO_ARG, NO_ARG },
	{ SYS_removexattr, RULE_NOTIFY, NO_ARG, NO_ARG },
	{ SYS_lremovexattr, RULE_NOTIFY, NO_ARG, NO_ARG },
	{ SYS_fremovexattr, RULE_NOTIFY, NO_ARG, NO_ARG },
	{ SYS_ioctl, RULE_IOCTL, NO_ARG, NO_ARG },
	/* unix sockets: the address decides */
	{ SYS_connect, RULE_NOTIFY, NO_ARG, NO_ARG },
	{ SYS_sendto, RULE_NOTIFY_IF_ARG, 4, NO_ARG },
	{ SYS_sendmsg, RULE_NOTIFY, NO_ARG, NO_ARG },
	{ SYS_sendmmsg, RULE_NOTIFY, NO_ARG, NO_ARG },
	/* the allowlist: no listening IP socket (an unbound one autobinds on
	 * 0.0.0.0 in the host's network); only with a proxy */
	{ SYS_listen, RULE_NOTIFY, NO_ARG, NO_ARG },
	/* no set-user-ID or set-group-ID file is created */
#ifdef SYS_open
	{ SYS_open, RULE_CREATE, 2, 1 },
#endif
	{ SYS_openat, RULE_CREATE, 3, 2 },
#ifdef SYS_creat
	{ SYS_creat, RULE_CREATE, 1, NO_ARG },
#endif
#ifdef SYS_mkdir
	{ SYS_mkdir, RULE_CREATE, 1, NO_ARG },
#endif
	{ SYS_mkdirat, RULE_CREATE, 2, NO_ARG },
#ifdef SYS_mknod
	{ SYS_mknod, RULE_CREATE, 1, NO_ARG },
#endif
	{ SYS_mknodat, RULE_CREATE, 2, NO_ARG },
	/* what the filter cannot see into: refused so callers fall back */
	{ SYS_openat2, RULE_ENOSYS, NO_ARG, NO_ARG },
	{ SYS_io_uring_setup, RULE_ENOSYS, NO_ARG, NO_ARG },
	{ SYS_io_uring_enter, RULE_ENOSYS, NO_ARG, NO_ARG },
	{ SYS_io_uring_register, RULE_ENOSYS, NO_ARG, NO_ARG },
	{ SYS_setxattrat, RULE_ENOSYS, NO_ARG, NO_ARG },
	{ SYS_removexattrat, RULE_ENOSYS, NO_ARG, NO_ARG },
	{ SYS_file_setattr, RULE_ENOSYS, NO_ARG, NO_ARG },
	/* no listener of the command's own (newest listener answers first) */
	{ SYS_seccomp, RULE_NO_LISTENER, NO_ARG, NO_ARG },
};
#define RULE_COUNT (sizeof(rules) / sizeof(rules[0]))

/* ioctl commands: the inode-flag setters are decided on the target; the
 * generation and verity setters are refused outright. */
static const uint32_t notified_ioctls[] = {
	(uint32_t)FS_IOC_SETFLAGS, (uint32_t)FS_IOC32_SETFLAGS,
	(uint32_t)FS_IOC_FSSETXATTR,
};
static const uint32_t refused_ioctls[] = {
	(uint32_t)FS_IOC_SETVERSION, (uint32_t)FS_IOC32_SETVERSION,
	(uint32_t)FS_IOC_ENABLE_VERITY,
};
#define NOTIFIED_IOCTLS (sizeof(notified_ioctls) / sizeof(notified_ioctls[0]))
#define REFUSED_IOCTLS (sizeof(refused_ioctls) / sizeof(refused_ioctls[0]))

#define RET_ALLOW SECCOMP_RET_ALLOW
#define RET_NOTIFY SECCOMP_RET_USER_NOTIF
#define RET_ERRNO(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

struct program {
	struct sock_filter *insns;
	size_t len;
	size_t cap;
	bool overflow;
};

static void emit(struct program *p, struct sock_filter insn)
{
	if (p->len >= p->cap) {
		p->overflow = true;
		return;
	}
	p->insns[p->len++] = insn;
}

static void emit_load(struct program *p, uint32_t offset)
{
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset));
}

static void emit_ret(struct program *p, uint32_t action)
{
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action));
}

static void emit_jump(struct program *p, uint16_t op, uint32_t k, uint8_t jt, uint8_t jf)
{
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | op | BPF_K, k, jt, jf));
}

/* The body for one rule; runs with the syscall number in A and ends in a
 * return on every path. The caller learns its length by emitting it into
 * a scratch program first. */
static void emit_body(struct program *p, const struct rule *rule)
{
	size_t i;

	switch (rule->kind) {
	case RULE_NOTIFY:
		emit_ret(p, RET_NOTIFY);
		break;
	case RULE_ENOSYS:
		emit_ret(p, RET_ERRNO(ENOSYS));
		break;
	case RULE_NOTIFY_IF_ARG:
		/* a pointer: both words must be zero for "no address" */
		emit_load(p, ARG_LOW(rule->arg));
		emit_jump(p, BPF_JEQ, 0, 0, 2);
		emit_load(p, ARG_HIGH(rule->arg));
		emit_jump(p, BPF_JEQ, 0, 1, 0);
		emit_ret(p, RET_NOTIFY);
		emit_ret(p, RET_ALLOW);
		break;
	case RULE_CHMOD:
		emit_load(p, ARG_LOW(rule->arg));
		emit_jump(p, BPF_JSET, SETID_BITS, 0, 1);
		emit_ret(p, RET_ERRNO(EPERM));
		emit_ret(p, RET_NOTIFY);
		break;
	case RULE_CREATE:
		if (rule->flags_arg != NO_ARG) {
			emit_load(p, ARG_LOW(rule->flags_arg));
			emit_jump(p, BPF_JSET, CREATING_FLAGS, 0, 3);
		}
		emit_load(p, ARG_LOW(rule->arg));
		emit_jump(p, BPF_JSET, SETID_BITS, 0, 1);
		emit_ret(p, RET_ERRNO(EPERM));
		emit_ret(p, RET_ALLOW);
		break;
	case RULE_IOCTL: {
		/* [load] [notified...] [refused...] allow notify eperm */
		size_t n = NOTIFIED_IOCTLS + REFUSED_IOCTLS;

		emit_load(p, ARG_LOW(1));
		for (i = 0; i < NOTIFIED_IOCTLS; i++)
			emit_jump(p, BPF_JEQ, notified_ioctls[i],
				  (uint8_t)(n - i), 0);
		for (i = 0; i < REFUSED_IOCTLS; i++)
			emit_jump(p, BPF_JEQ, refused_ioctls[i],
				  (uint8_t)(REFUSED_IOCTLS - i + 1), 0);
		emit_ret(p, RET_ALLOW);
		emit_ret(p, RET_NOTIFY);
		emit_ret(p, RET_ERRNO(EPERM));
		break;
	}
	case RULE_NO_LISTENER:
		emit_load(p, ARG_LOW(0));
		emit_jump(p, BPF_JEQ, SECCOMP_SET_MODE_FILTER, 0, 3);
		emit_load(p, ARG_LOW(1));
		emit_jump(p, BPF_JSET, SECCOMP_FILTER_FLAG_NEW_LISTENER, 0, 1);
		emit_ret(p, RET_ERRNO(EPERM));
		emit_ret(p, RET_ALLOW);
		break;
	}
}

size_t supervise_build_filter(struct sock_filter *insns, size_t cap, bool sockets, bool listen)
{
	struct program p = { insns, 0, cap, false };
	size_t i;

	emit_load(&p, offsetof(struct seccomp_data, arch));
	emit_jump(&p, BPF_JEQ, NATIVE_ARCH, 1, 0);
	emit_ret(&p, SECCOMP_RET_KILL_PROCESS);
	emit_load(&p, offsetof(struct seccomp_data, nr));
#ifdef X32_SYSCALL_BIT
	emit_jump(&p, BPF_JSET, X32_SYSCALL_BIT, 0, 1);
	emit_ret(&p, SECCOMP_RET_KILL_PROCESS);
#endif
	for (i = 0; i < RULE_COUNT; i++) {
		struct sock_filter scratch[32];
		struct program body = { scratch, 0, 32, false };

		if (!sockets && is_socket_call(rules[i].nr))
			continue;
		if (!listen && rules[i].nr == SYS_listen)
			continue;
		emit_body(&body, &rules[i]);
		if (body.overflow || body.len > 255)
			return 0;
		emit_jump(&p, BPF_JEQ, (uint32_t)rules[i].nr, 0, (uint8_t)body.len);
		emit_body(&p, &rules[i]);
		/* every body ends in a return, so A (the number) is reloaded
		 * only by the next comparison's fallthrough path: bodies that
		 * load an argument never fall through. */
	}
	emit_ret(&p, RET_ALLOW);
	return p.overflow ? 0 : p.len;
}

int supervise_child_install(const struct supervise *sv, int channel)
{
	struct sock_filter insns[SUPERVISE_FILTER_MAX];
	struct sock_fprog prog;
	unsigned char ack;
	int listener;
	ssize_t n;

	prog.len = (unsigned short)supervise_build_filter(insns, SUPERVISE_FILTER_MAX,
							  sv->mediate_sockets || sv->proxy, sv->proxy);
	prog.filter = insns;
	if (prog.len == 0)
		return -E2BIG;
	/* WAIT_KILLABLE_RECV (5.19): once the supervisor holds a
	 * notification, only a fatal signal interrupts the caller, so an
	 * operation done on its behalf is not followed by a restart of the
	 * same syscall (a signal handled meanwhile runs when the call
	 * returns; one that arrives before the supervisor receives it
	 * restarts the call, or fails it with EINTR for a handler without
	 * SA_RESTART, as the kernel does for any interrupted syscall).
	 * Older kernels reject the flag (EINVAL): retry without. */
	listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				SECCOMP_FILTER_FLAG_NEW_LISTENER |
					SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
				&prog);
	if (listener < 0 && errno == EINVAL)
		listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
					SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (listener < 0)
		return -errno;
	/* The number, not the descriptor: sendmsg is notified now, and the
	 * parent cannot answer before it has the listener. It takes it with
	 * pidfd_getfd. write/read are not notified. */
	do
		n = write(channel, &listener, sizeof(listener));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(listener)) {
		close(listener);
		return n < 0 ? -errno : -EPIPE;
	}
	do
		n = read(channel, &ack, 1);
	while (n < 0 && errno == EINTR);
	close(listener);
	close(channel);
	if (n != 1)
		return n < 0 ? -errno : -EPIPE;
	return 0;
}
