/* SPDX-License-Identifier: MIT */
/*
 * The launcher's deny-list (src/launcher/seccomp-filter.c, whose opening
 * comment says why each row is there) as a runtime-spec LinuxSeccomp
 * object: everything allowed but the rows below, by name, so the runtime's
 * libseccomp finds each call's number on every architecture it lists (a
 * name an architecture lacks is skipped there). Argument checks compare
 * the low 32 bits, as the launcher does (SCMP_CMP_MASKED_EQ): junk in the
 * upper half must not slip past. Not carried: the supervisor's notify
 * rules (doc/SPEC.md 13; Kubernetes refuses a notify profile), the
 * launcher's kill of an unknown architecture (the runtime's own
 * bad-architecture action decides), and the network-off refusal of
 * non-unix sockets (the network namespace holds network off instead).
 * tests/e2e/export/ checks that this table names every row of the
 * launcher's.
 */
#include <errno.h>
#include <stddef.h>

#include "export.h"

enum arg_rule {
	ARG_NONE,         /* whatever the arguments */
	ARG_TTY_IOCTL,    /* ioctl(fd, TIOCSTI | TIOCLINUX) */
	ARG_VSOCK,        /* socket(AF_VSOCK, ...) */
	ARG_NEW_LISTENER, /* seccomp(SET_MODE_FILTER, flags with NEW_LISTENER) */
	ARG_SOCKETCALL,   /* socketcall(SYS_SOCKET, ...): the family is in memory */
};

static const struct deny_row {
	const char *name;
	enum arg_rule rule;
} deny_rows[] = {
	{ "ioctl", ARG_TTY_IOCTL },
	{ "socket", ARG_VSOCK },
	{ "seccomp", ARG_NEW_LISTENER },
	{ "shmget", ARG_NONE },
	{ "shmat", ARG_NONE },
	{ "shmctl", ARG_NONE },
	{ "msgget", ARG_NONE },
	{ "msgsnd", ARG_NONE },
	{ "msgrcv", ARG_NONE },
	{ "msgctl", ARG_NONE },
	{ "semget", ARG_NONE },
	{ "semctl", ARG_NONE },
	{ "semop", ARG_NONE },
	{ "semtimedop", ARG_NONE },
	{ "semtimedop_time64", ARG_NONE },
	{ "mq_open", ARG_NONE },
	{ "mq_unlink", ARG_NONE },
	{ "mq_timedsend", ARG_NONE },
	{ "mq_timedreceive", ARG_NONE },
	{ "mq_timedsend_time64", ARG_NONE },
	{ "mq_timedreceive_time64", ARG_NONE },
	{ "mq_notify", ARG_NONE },
	{ "mq_getsetattr", ARG_NONE },
	{ "add_key", ARG_NONE },
	{ "request_key", ARG_NONE },
	{ "keyctl", ARG_NONE },
	{ "io_uring_setup", ARG_NONE },
	{ "ipc", ARG_NONE },
	{ "socketcall", ARG_SOCKETCALL },
};

/* The values the arguments are compared with (the kernel's ABI numbers,
 * the same on every architecture this build runs on). */
#define TIOCSTI_NR 0x5412u
#define TIOCLINUX_NR 0x541Cu
#define AF_VSOCK_NR 40u
#define SECCOMP_SET_MODE_FILTER_NR 1u
#define SECCOMP_FILTER_FLAG_NEW_LISTENER_NR 8u
#define SYS_SOCKET_NR 1u

static json_t *low_word(unsigned index, json_int_t mask, json_int_t value) {
	return json_pack("{s:I,s:I,s:I,s:s}", "index", (json_int_t)index, "value", mask, "valueTwo",
	                 value, "op", "SCMP_CMP_MASKED_EQ");
}

static json_t *rule(const char *name, json_t *args) {
	json_t *object = json_pack("{s:[s],s:s,s:I}", "names", name, "action", "SCMP_ACT_ERRNO",
	                           "errnoRet", (json_int_t)EPERM);
	if (object && args)
		json_object_set_new(object, "args", args);
	else
		json_decref(args);
	return object;
}

/* The architectures a process of this build's machine can enter: the
 * native ABI and the compat ones the launcher has tables for. */
static json_t *architectures(void) {
#if defined(__x86_64__)
	return json_pack("[sss]", "SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32");
#elif defined(__aarch64__)
	return json_pack("[ss]", "SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM");
#elif defined(__riscv)
	return json_pack("[s]", "SCMP_ARCH_RISCV64");
#elif defined(__powerpc64__)
	return json_pack("[s]", "SCMP_ARCH_PPC64LE");
#elif defined(__s390x__)
	return json_pack("[s]", "SCMP_ARCH_S390X");
#else
	return json_array();
#endif
}

json_t *export_seccomp_profile(void) {
	json_t *syscalls = json_array();
	json_t *profile;
	for (size_t i = 0; syscalls && i < sizeof deny_rows / sizeof deny_rows[0]; i++) {
		const struct deny_row *row = &deny_rows[i];
		const json_int_t low = 0xffffffff;
		switch (row->rule) {
		case ARG_NONE:
			json_array_append_new(syscalls, rule(row->name, NULL));
			break;
		case ARG_TTY_IOCTL:
			json_array_append_new(syscalls,
			                      rule(row->name, json_pack("[o]", low_word(1, low, TIOCSTI_NR))));
			json_array_append_new(syscalls,
			                      rule(row->name, json_pack("[o]", low_word(1, low, TIOCLINUX_NR))));
			break;
		case ARG_VSOCK:
			json_array_append_new(syscalls,
			                      rule(row->name, json_pack("[o]", low_word(0, low, AF_VSOCK_NR))));
			break;
		case ARG_NEW_LISTENER:
			/* Both checks in one rule: libseccomp ANDs a rule's args. */
			json_array_append_new(
				syscalls,
				rule(row->name,
				     json_pack("[oo]", low_word(0, low, SECCOMP_SET_MODE_FILTER_NR),
				               low_word(1, SECCOMP_FILTER_FLAG_NEW_LISTENER_NR,
				                        SECCOMP_FILTER_FLAG_NEW_LISTENER_NR))));
			break;
		case ARG_SOCKETCALL:
			json_array_append_new(syscalls,
			                      rule(row->name, json_pack("[o]", low_word(0, low, SYS_SOCKET_NR))));
			break;
		}
	}
	profile = json_pack("{s:s,s:o,s:o}", "defaultAction", "SCMP_ACT_ALLOW", "architectures",
	                    architectures(), "syscalls", syscalls);
	return profile;
}
