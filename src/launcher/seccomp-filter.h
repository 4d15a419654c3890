/*
 * The seccomp deny-list every confined command runs under (SPEC 7,
 * DESIGN D3): raw BPF, no library, built from one table of syscalls.
 */
#ifndef LAUNCHER_SECCOMP_FILTER_H
#define LAUNCHER_SECCOMP_FILTER_H

#include <stdbool.h>

#include <linux/filter.h>

/* Room for the program: the two ABIs of the largest table, with slack. */
#define SECCOMP_FILTER_MAX 200

struct seccomp_program {
	struct sock_filter code[SECCOMP_FILTER_MAX];
	unsigned short length;
};

/* Builds the program for this architecture. deny_network: socket() of
 * every family but AF_UNIX fails with ECONNREFUSED. Returns 0, -EAFNOSUPPORT
 * when this build has no syscall table for its architecture (the launcher
 * then refuses to run: never unfiltered), or -E2BIG. Pure. */
int seccomp_filter_build(bool deny_network, struct seccomp_program *ret_program);
/* Before seccomp_filter_build: the network allowlist's one way out, a TCP
 * socket (AF_INET or AF_INET6, SOCK_STREAM, protocol 0 or TCP) despite
 * --deny-network. */
void seccomp_filter_allow_tcp(void);

/* Installs program on this thread; no_new_privs must be set. Returns 0 or
 * -errno. Allocates nothing: safe between fork and exec. */
int seccomp_filter_install(const struct seccomp_program *program);

#endif
