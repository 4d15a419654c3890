/*
 * The deny-list. Each row of a syscall table names one syscall and what
 * happens to it; everything not listed runs untouched.
 *
 *   ioctl(TIOCSTI), ioctl(TIOCLINUX)   EPERM: no keystrokes pushed into the
 *       caller's terminal (CVE-2017-5226); other ioctls are untouched.
 *   SysV IPC, POSIX message queues     EPERM: the host's IPC namespace is
 *       shared, so segments and queues of host programs were writable (N3).
 *   add_key, request_key, keyctl       EPERM: keys added to the caller's
 *       keyrings outlived the run (N4).
 *   socket(AF_VSOCK)                   EPERM: a virtual machine's host
 *       services are outside every sandbox, and no namespace stops vsock.
 *       With --deny-network, every family but AF_UNIX fails with
 *       ECONNREFUSED: what a connect to the host gets from bubblewrap's
 *       network namespace, so both rungs read alike (doc/SPEC.md 15).
 *   seccomp(SET_MODE_FILTER, NEW_LISTENER)   EPERM: with stacked filters the
 *       newest listener answers, so a command's own listener could approve
 *       (CONTINUE) what the supervisor's filter sends it. prctl(PR_SET_SECCOMP)
 *       passes no flags and cannot create a listener.
 *   io_uring_setup                     EPERM: io_uring creates sockets
 *       (IORING_OP_SOCKET) where no seccomp filter sees the family.
 *
 * The filter checks the audit arch first, because a syscall number means
 * nothing without it: a 64-bit process can enter the 32-bit table (int 0x80)
 * where every number differs. Each ABI a kernel family runs has its own
 * table below; a syscall from any other arch kills the process, since we
 * could not tell which call it is. A build for an architecture with no
 * table refuses to run anything.
 */
#include "seccomp-filter.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <sys/syscall.h>

#include <linux/audit.h>
#include <linux/seccomp.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef SECCOMP_SET_MODE_FILTER
#define SECCOMP_SET_MODE_FILTER 1
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
/* socketcall(2)'s first argument for socket(2). */
#define SOCKETCALL_SOCKET 1

enum rule {
	RULE_DENY,       /* EPERM, whatever the arguments */
	RULE_TTY_IOCTL,  /* EPERM for TIOCSTI and TIOCLINUX */
	RULE_SOCKET,     /* EPERM for AF_VSOCK; --deny-network: ECONNREFUSED but AF_UNIX */
	RULE_SECCOMP,    /* EPERM for a filter carrying NEW_LISTENER */
	RULE_SOCKETCALL, /* EPERM for socketcall(SYS_SOCKET): the family is in memory */
	RULE_COUNT
};

struct syscall_rule {
	uint32_t nr;
	enum rule rule;
};

/* This build's own ABI: the numbers come from its headers. */
static const struct syscall_rule native_rules[] = {
	{ __NR_ioctl, RULE_TTY_IOCTL },
	{ __NR_socket, RULE_SOCKET },
	{ __NR_seccomp, RULE_SECCOMP },
	{ __NR_shmget, RULE_DENY },
	{ __NR_shmat, RULE_DENY },
	{ __NR_shmctl, RULE_DENY },
	{ __NR_msgget, RULE_DENY },
	{ __NR_msgsnd, RULE_DENY },
	{ __NR_msgrcv, RULE_DENY },
	{ __NR_msgctl, RULE_DENY },
	{ __NR_semget, RULE_DENY },
	{ __NR_semctl, RULE_DENY },
#ifdef __NR_semop
	{ __NR_semop, RULE_DENY },
#endif
#ifdef __NR_semtimedop
	{ __NR_semtimedop, RULE_DENY },
#endif
#ifdef __NR_semtimedop_time64
	{ __NR_semtimedop_time64, RULE_DENY },
#endif
	{ __NR_mq_open, RULE_DENY },
	{ __NR_mq_unlink, RULE_DENY },
	{ __NR_mq_timedsend, RULE_DENY },
	{ __NR_mq_timedreceive, RULE_DENY },
#ifdef __NR_mq_timedsend_time64
	{ __NR_mq_timedsend_time64, RULE_DENY },
	{ __NR_mq_timedreceive_time64, RULE_DENY },
#endif
	{ __NR_mq_notify, RULE_DENY },
	{ __NR_mq_getsetattr, RULE_DENY },
	{ __NR_add_key, RULE_DENY },
	{ __NR_request_key, RULE_DENY },
	{ __NR_keyctl, RULE_DENY },
	{ __NR_io_uring_setup, RULE_DENY },
	/* Multiplexers some ABIs still have (s390x, ppc64): SysV IPC entirely;
	 * socket creation through socketcall. */
#ifdef __NR_ipc
	{ __NR_ipc, RULE_DENY },
#endif
#ifdef __NR_socketcall
	{ __NR_socketcall, RULE_SOCKETCALL },
#endif
#if defined(__x86_64__) && !defined(__ILP32__)
	/* x32 numbers, compared after the x32 bit is cleared: the two x32
	 * entries of these calls that differ from x86_64's (ioctl, mq_notify). */
	{ 514, RULE_TTY_IOCTL },
	{ 527, RULE_DENY },
#endif
};

#if defined(__x86_64__) && !defined(__ILP32__)
/* i386 (int 0x80 from a 64-bit kernel), from arch/x86/entry/syscalls/
 * syscall_32.tbl. socket() is socketcall there for most libcs. */
static const struct syscall_rule compat_rules[] = {
	{ 54, RULE_TTY_IOCTL },  { 359, RULE_SOCKET },    { 354, RULE_SECCOMP },
	{ 102, RULE_SOCKETCALL }, { 117, RULE_DENY } /* ipc */,
	{ 393, RULE_DENY } /* semget */, { 394, RULE_DENY } /* semctl */,
	{ 395, RULE_DENY } /* shmget */, { 396, RULE_DENY } /* shmctl */,
	{ 397, RULE_DENY } /* shmat */,  { 399, RULE_DENY } /* msgget */,
	{ 400, RULE_DENY } /* msgsnd */, { 401, RULE_DENY } /* msgrcv */,
	{ 402, RULE_DENY } /* msgctl */, { 420, RULE_DENY } /* semtimedop_time64 */,
	{ 277, RULE_DENY } /* mq_open */, { 278, RULE_DENY } /* mq_unlink */,
	{ 279, RULE_DENY } /* mq_timedsend */, { 280, RULE_DENY } /* mq_timedreceive */,
	{ 281, RULE_DENY } /* mq_notify */, { 282, RULE_DENY } /* mq_getsetattr */,
	{ 418, RULE_DENY } /* mq_timedsend_time64 */,
	{ 419, RULE_DENY } /* mq_timedreceive_time64 */,
	{ 286, RULE_DENY } /* add_key */, { 287, RULE_DENY } /* request_key */,
	{ 288, RULE_DENY } /* keyctl */,  { 425, RULE_DENY } /* io_uring_setup */,
};
#define COMPAT_ARCH AUDIT_ARCH_I386
#define NATIVE_ARCH AUDIT_ARCH_X86_64
/* x32 shares AUDIT_ARCH_X86_64 and marks its numbers with bit 30. */
#define NATIVE_NR_CLEAR 0x40000000U
#elif defined(__aarch64__)
/* 32-bit ARM EABI processes on arm64, from arch/arm/tools/syscall.tbl
 * (no socketcall or ipc there: those are OABI only). */
static const struct syscall_rule compat_rules[] = {
	{ 54, RULE_TTY_IOCTL },  { 281, RULE_SOCKET },    { 383, RULE_SECCOMP },
	{ 298, RULE_DENY } /* semop */,  { 299, RULE_DENY } /* semget */,
	{ 300, RULE_DENY } /* semctl */, { 301, RULE_DENY } /* msgsnd */,
	{ 302, RULE_DENY } /* msgrcv */, { 303, RULE_DENY } /* msgget */,
	{ 304, RULE_DENY } /* msgctl */, { 305, RULE_DENY } /* shmat */,
	{ 307, RULE_DENY } /* shmget */, { 308, RULE_DENY } /* shmctl */,
	{ 312, RULE_DENY } /* semtimedop */, { 420, RULE_DENY } /* semtimedop_time64 */,
	{ 274, RULE_DENY } /* mq_open */, { 275, RULE_DENY } /* mq_unlink */,
	{ 276, RULE_DENY } /* mq_timedsend */, { 277, RULE_DENY } /* mq_timedreceive */,
	{ 278, RULE_DENY } /* mq_notify */, { 279, RULE_DENY } /* mq_getsetattr */,
	{ 418, RULE_DENY } /* mq_timedsend_time64 */,
	{ 419, RULE_DENY } /* mq_timedreceive_time64 */,
	{ 309, RULE_DENY } /* add_key */, { 310, RULE_DENY } /* request_key */,
	{ 311, RULE_DENY } /* keyctl */,  { 425, RULE_DENY } /* io_uring_setup */,
};
#define COMPAT_ARCH AUDIT_ARCH_ARM
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#define NATIVE_NR_CLEAR 0U
#elif defined(__riscv) && __riscv_xlen == 64
#define NATIVE_ARCH AUDIT_ARCH_RISCV64
#define NATIVE_NR_CLEAR 0U
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_ARCH AUDIT_ARCH_PPC64LE
#define NATIVE_NR_CLEAR 0U
#elif defined(__s390x__)
#define NATIVE_ARCH AUDIT_ARCH_S390X
#define NATIVE_NR_CLEAR 0U
#endif

/* Arguments are 64-bit slots; every argument checked here is an int, and
 * the kernel ignores the upper half, so the filter compares the low word
 * only (junk in the high bits must not slip past). */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LOW_WORD(n) (offsetof(struct seccomp_data, args[n]))
#else
#define ARG_LOW_WORD(n) (offsetof(struct seccomp_data, args[n]) + 4)
#endif

#define RET_ALLOW SECCOMP_RET_ALLOW
#define RET_ERRNO(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

/* ---- a tiny assembler: forward jumps to named labels ------------------- */

#define MAX_LABELS 64
#define NEXT 0xffffU /* a jump target meaning "the next instruction" */

struct assembler {
	struct seccomp_program *program;
	unsigned short jt_label[SECCOMP_FILTER_MAX];
	unsigned short jf_label[SECCOMP_FILTER_MAX];
	unsigned short label_at[MAX_LABELS];
	unsigned labels;
	bool overflow;
};

static unsigned new_label(struct assembler *as)
{
	if (as->labels >= MAX_LABELS) {
		as->overflow = true;
		return 0;
	}
	return as->labels++;
}

static void place(struct assembler *as, unsigned label)
{
	as->label_at[label] = as->program->length;
}

static void emit(struct assembler *as, uint16_t code, uint32_t k, unsigned jt, unsigned jf)
{
	unsigned short at = as->program->length;

	if (at >= SECCOMP_FILTER_MAX) {
		as->overflow = true;
		return;
	}
	as->program->code[at] = (struct sock_filter){ code, 0, 0, k };
	as->jt_label[at] = (unsigned short)jt;
	as->jf_label[at] = (unsigned short)jf;
	as->program->length++;
}

static void load(struct assembler *as, uint32_t offset)
{
	emit(as, BPF_LD | BPF_W | BPF_ABS, offset, NEXT, NEXT);
}

static void ret(struct assembler *as, uint32_t value)
{
	emit(as, BPF_RET | BPF_K, value, NEXT, NEXT);
}

/* if (A == value) goto jt else goto jf */
static void jump_if_equal(struct assembler *as, uint32_t value, unsigned jt, unsigned jf)
{
	emit(as, BPF_JMP | BPF_JEQ | BPF_K, value, jt, jf);
}

/* Turns labels into the 8-bit forward offsets BPF jumps carry. */
static int resolve(struct assembler *as)
{
	unsigned short i;

	if (as->overflow)
		return -E2BIG;
	for (i = 0; i < as->program->length; i++) {
		struct sock_filter *insn = &as->program->code[i];
		unsigned short targets[2] = { as->jt_label[i], as->jf_label[i] };
		uint8_t *fields[2] = { &insn->jt, &insn->jf };
		int t;

		if (BPF_CLASS(insn->code) != BPF_JMP)
			continue;
		for (t = 0; t < 2; t++) {
			long offset;

			if (targets[t] == NEXT)
				continue;
			offset = (long)as->label_at[targets[t]] - i - 1;
			if (offset < 0 || offset > 255)
				return -E2BIG;
			*fields[t] = (uint8_t)offset;
		}
	}
	return 0;
}

/* ---- the program --------------------------------------------------------- */

/* The network allowlist (seccomp_filter_allow_tcp): with --deny-network,
 * socket(AF_INET or AF_INET6, SOCK_STREAM, 0 or IPPROTO_TCP) is let
 * through for the proxy; the supervisor decides where it may connect. */
static bool allow_tcp;

void seccomp_filter_allow_tcp(void)
{
	allow_tcp = true;
}

/* The instructions deciding one rule; the syscall number was matched. */
static void emit_rule(struct assembler *as, enum rule rule, bool deny_network)
{
	unsigned deny = new_label(as), allow = new_label(as);

	switch (rule) {
	case RULE_DENY:
		ret(as, RET_ERRNO(EPERM));
		return;
	case RULE_TTY_IOCTL:
		load(as, ARG_LOW_WORD(1));
		jump_if_equal(as, TIOCSTI, deny, NEXT);
		jump_if_equal(as, TIOCLINUX, deny, allow);
		break;
	case RULE_SOCKET: {
		unsigned refuse = new_label(as);

		load(as, ARG_LOW_WORD(0));
		jump_if_equal(as, AF_UNIX, allow, NEXT);
		if (!deny_network) {
			jump_if_equal(as, AF_VSOCK, deny, allow);
			break;
		}
		if (allow_tcp) {
			unsigned inet = new_label(as);

			jump_if_equal(as, AF_VSOCK, deny, NEXT);
			jump_if_equal(as, AF_INET, inet, NEXT);
			jump_if_equal(as, AF_INET6, inet, refuse);
			place(as, inet);
			/* the type without SOCK_NONBLOCK and SOCK_CLOEXEC */
			load(as, ARG_LOW_WORD(1));
			emit(as, BPF_ALU | BPF_AND | BPF_K, 0xf, NEXT, NEXT);
			jump_if_equal(as, SOCK_STREAM, NEXT, refuse);
			load(as, ARG_LOW_WORD(2));
			jump_if_equal(as, 0, allow, NEXT);
			jump_if_equal(as, IPPROTO_TCP, allow, refuse);
		} else {
			jump_if_equal(as, AF_VSOCK, deny, refuse);
		}
		place(as, refuse);
		ret(as, RET_ERRNO(ECONNREFUSED));
		break;
	}
	case RULE_SECCOMP:
		load(as, ARG_LOW_WORD(0));
		jump_if_equal(as, SECCOMP_SET_MODE_FILTER, NEXT, allow);
		load(as, ARG_LOW_WORD(1));
		emit(as, BPF_JMP | BPF_JSET | BPF_K, SECCOMP_FILTER_FLAG_NEW_LISTENER,
		     deny, allow);
		break;
	case RULE_SOCKETCALL:
		load(as, ARG_LOW_WORD(0));
		jump_if_equal(as, SOCKETCALL_SOCKET, deny, allow);
		break;
	case RULE_COUNT:
		break;
	}
	place(as, allow);
	ret(as, RET_ALLOW);
	place(as, deny);
	ret(as, RET_ERRNO(EPERM));
}

/* One ABI: match the number against each row, then each rule used once. */
static void emit_table(struct assembler *as, const struct syscall_rule *rules,
		       size_t count, uint32_t nr_clear, bool deny_network)
{
	unsigned rule_label[RULE_COUNT];
	bool used[RULE_COUNT] = { false };
	size_t i;
	int r;

	for (r = 0; r < RULE_COUNT; r++)
		rule_label[r] = new_label(as);
	load(as, offsetof(struct seccomp_data, nr));
	if (nr_clear != 0)
		emit(as, BPF_ALU | BPF_AND | BPF_K, ~nr_clear, NEXT, NEXT);
	for (i = 0; i < count; i++) {
		jump_if_equal(as, rules[i].nr, rule_label[rules[i].rule], NEXT);
		used[rules[i].rule] = true;
	}
	ret(as, RET_ALLOW);
	for (r = 0; r < RULE_COUNT; r++) {
		if (!used[r])
			continue;
		place(as, rule_label[r]);
		emit_rule(as, (enum rule)r, deny_network);
	}
}

int seccomp_filter_build(bool deny_network, struct seccomp_program *ret_program)
{
#ifdef NATIVE_ARCH
	static struct assembler as; /* large; the launcher is single-threaded */
	unsigned native = 0;
#ifdef COMPAT_ARCH
	unsigned compat = 0;
#endif

	memset(&as, 0, sizeof(as));
	memset(ret_program, 0, sizeof(*ret_program));
	as.program = ret_program;
	native = new_label(&as);
#ifdef COMPAT_ARCH
	compat = new_label(&as);
#endif
	load(&as, offsetof(struct seccomp_data, arch));
	jump_if_equal(&as, NATIVE_ARCH, native, NEXT);
#ifdef COMPAT_ARCH
	jump_if_equal(&as, COMPAT_ARCH, compat, NEXT);
#endif
	ret(&as, SECCOMP_RET_KILL_PROCESS);
	place(&as, native);
	emit_table(&as, native_rules, sizeof(native_rules) / sizeof(native_rules[0]),
		   NATIVE_NR_CLEAR, deny_network);
#ifdef COMPAT_ARCH
	place(&as, compat);
	emit_table(&as, compat_rules, sizeof(compat_rules) / sizeof(compat_rules[0]), 0,
		   deny_network);
#endif
	return resolve(&as);
#else
	(void)deny_network;
	(void)ret_program;
	return -EAFNOSUPPORT;
#endif
}

int seccomp_filter_install(const struct seccomp_program *program)
{
	struct sock_fprog fprog = {
		.len = program->length,
		.filter = (struct sock_filter *)program->code,
	};

	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) == 0 ? 0 : -errno;
}
