/* SPDX-License-Identifier: MIT */
/*
 * seccomp-deny [--no-landlock] [--no-listener] -- PROGRAM [ARG...]
 *
 * Runs PROGRAM (PATH search) under a seccomp filter that makes this host
 * look like another, for tests of what confine predicts and what the
 * launcher then applies there (doc/SPEC.md 10, 14):
 *   --no-landlock   a kernel without Landlock: landlock_create_ruleset,
 *                   landlock_add_rule and landlock_restrict_self fail with
 *                   ENOSYS (what the launcher's --best-effort is for);
 *   --no-listener   a process under another supervisor: seccomp(2)
 *                   installing a filter with SECCOMP_FILTER_FLAG_NEW_LISTENER
 *                   fails with EPERM (the launcher's "nested-listener").
 * Everything else is allowed, other architectures included. Sets
 * no_new_privs first (a filter needs it without CAP_SYS_ADMIN). Exit 127
 * when PROGRAM cannot be run, 2 on a usage error, 1 when the filter cannot
 * be installed.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "seccomp-deny: add this architecture's AUDIT_ARCH"
#endif

#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif

/* The landlock syscalls have the same numbers on every architecture. */
#define NR_LANDLOCK_CREATE_RULESET 444
#define NR_LANDLOCK_ADD_RULE 445
#define NR_LANDLOCK_RESTRICT_SELF 446

#define LOAD(field) \
	((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field)))
#define RET(value) ((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, (value)))

int main(int argc, char **argv) {
	int no_landlock = 0, no_listener = 0, i = 1;
	struct sock_filter code[32];
	unsigned n = 0;
	struct sock_fprog program;

	for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--no-landlock") == 0)
			no_landlock = 1;
		else if (strcmp(argv[i], "--no-listener") == 0)
			no_listener = 1;
		else
			break;
	}
	if (i >= argc || strcmp(argv[i], "--") != 0 || i + 1 >= argc) {
		fprintf(stderr, "usage: seccomp-deny [--no-landlock] [--no-listener] -- PROGRAM [ARG...]\n");
		return 2;
	}

	code[n++] = LOAD(arch);
	code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0);
	code[n++] = RET(SECCOMP_RET_ALLOW);
	code[n++] = LOAD(nr);
	if (no_landlock) {
		code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K,
		                                         NR_LANDLOCK_CREATE_RULESET, 0, 3);
		code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K,
		                                         NR_LANDLOCK_RESTRICT_SELF, 1, 0);
		code[n++] = RET(SECCOMP_RET_ERRNO | ENOSYS);
		code[n++] = LOAD(nr); /* a no-op landing spot: nr is still loaded */
	}
	if (no_listener) {
		code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_seccomp, 0, 5);
		code[n++] = LOAD(args[0]);
		code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		                                         SECCOMP_SET_MODE_FILTER, 0, 3);
		code[n++] = LOAD(args[1]);
		code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
		                                         SECCOMP_FILTER_FLAG_NEW_LISTENER, 0, 1);
		code[n++] = RET(SECCOMP_RET_ERRNO | EPERM);
	}
	code[n++] = RET(SECCOMP_RET_ALLOW);

	program.len = (unsigned short)n;
	program.filter = code;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) {
		perror("seccomp-deny: cannot install the filter");
		return 1;
	}
	execvp(argv[i + 1], &argv[i + 1]);
	fprintf(stderr, "seccomp-deny: %s: %s\n", argv[i + 1], strerror(errno));
	return 127;
}
