/*
 * The Landlock ruleset: which rights the kernel handles at each ABI, what
 * --ro and --rw grant, which scopes apply. Over the raw syscalls; Debian
 * 12's headers describe Landlock as of Linux 6.1 (ABI 2), so the newer
 * constants are defined here.
 */
#include "ruleset.h"

#include "grant-open.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/landlock.h>

#include "channel.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
/* Linux 7.1, ABI 9: connect(2)/sendmsg(2) to a pathname unix socket. */
#ifndef LANDLOCK_ACCESS_FS_RESOLVE_UNIX
#define LANDLOCK_ACCESS_FS_RESOLVE_UNIX (1ULL << 16)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#endif
#ifndef LANDLOCK_ACCESS_NET_CONNECT_TCP
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif

/*
 * The kernel's struct landlock_ruleset_attr as of ABI 6. Old headers stop
 * after handled_access_fs, so the layout is ours; the kernel reads only
 * the size we pass and requires any bytes beyond what it knows to be zero.
 */
struct ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4; only with --deny-network */
	uint64_t scoped;             /* ABI 6 */
};

#define FS_BASE_RIGHTS                                                      \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |        \
	 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |        \
	 LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |    \
	 LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |        \
	 LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |        \
	 LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |      \
	 LANDLOCK_ACCESS_FS_MAKE_SYM)

/* The one table of handled file rights: what each ABI adds, oldest first. */
static const struct {
	int abi;
	uint64_t adds;
} fs_rights_by_abi[] = {
	{ 1, FS_BASE_RIGHTS },                  /* the 13 base rights */
	{ 2, LANDLOCK_ACCESS_FS_REFER },        /* link/rename across directories */
	{ 3, LANDLOCK_ACCESS_FS_TRUNCATE },     /* truncate, O_TRUNC */
	{ 5, LANDLOCK_ACCESS_FS_IOCTL_DEV },    /* ioctl on device files */
	{ 9, LANDLOCK_ACCESS_FS_RESOLVE_UNIX }, /* connect to a pathname socket */
};
#define FS_RIGHTS_ROWS (sizeof(fs_rights_by_abi) / sizeof(fs_rights_by_abi[0]))

/* SPEC 7's "fully enforced": every right up to IOCTL_DEV. RESOLVE_UNIX
 * (ABI 9) closes pathname sockets, which the supervisor covers on older
 * kernels; its absence does not make a run partial. */
#define FULL_ENFORCEMENT_ABI 5
#define NET_RIGHTS_ABI 4
#define SCOPE_ABI 6
#define RESOLVE_UNIX_ABI 9

/* The only rights the kernel accepts on a rule for a non-directory. */
#define FS_FILE_RIGHTS                                                      \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |        \
	 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |        \
	 LANDLOCK_ACCESS_FS_IOCTL_DEV | LANDLOCK_ACCESS_FS_RESOLVE_UNIX)

#define RO_RIGHTS                                                           \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |         \
	 LANDLOCK_ACCESS_FS_READ_DIR)

/* Creating device nodes is never granted, not even under --rw. */
#define RW_EXCLUDED_RIGHTS                                                  \
	(LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK)

#ifdef CONFINE_TEST_ABI_CAP
/*
 * Test builds only (never installed): pretend the kernel is older so the
 * partial path runs on a new kernel. The cap can only lower the ABI and
 * never below 1, so at worst it reports "partial"; it can never turn
 * enforcement off or claim more than the kernel has.
 */
static int apply_test_abi_cap(int abi)
{
	const char *value = getenv("CONFINE_TEST_LANDLOCK_ABI_CAP");
	char *end;
	long cap;

	if (value == NULL || *value == '\0')
		return abi;
	errno = 0;
	cap = strtol(value, &end, 10);
	if (errno != 0 || *end != '\0' || cap < 1 || cap >= abi)
		return abi;
	return (int)cap;
}
#endif

int landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);

	if (abi < 1)
		return abi < 0 ? -errno : -EOPNOTSUPP;
	if (abi > INT_MAX)
		abi = INT_MAX;
#ifdef CONFINE_TEST_ABI_CAP
	return apply_test_abi_cap((int)abi);
#else
	return (int)abi;
#endif
}

bool landlock_abi_is_full(int abi)
{
	return abi >= FULL_ENFORCEMENT_ABI;
}

bool landlock_scopes_signals(int abi)
{
	return abi >= SCOPE_ABI;
}

bool landlock_resolves_unix(int abi)
{
	return abi >= RESOLVE_UNIX_ABI;
}

static uint64_t handled_fs_rights(int abi)
{
	uint64_t rights = 0;
	size_t row;

	for (row = 0; row < FS_RIGHTS_ROWS; row++)
		if (fs_rights_by_abi[row].abi <= abi)
			rights |= fs_rights_by_abi[row].adds;
	return rights;
}

/* Returns 0, or -1 after reporting why. A shared writable grant (the
 * host's /dev/shm) leaves RESOLVE_UNIX out: another program's socket there
 * is not the command's to reach (SPEC 7). */
static int add_grant(int ruleset_fd, uint64_t handled, const char *path, bool writable,
		     bool optional, bool shared, bool listing)
{
	struct landlock_path_beneath_attr rule;
	struct stat st;
	int saved_errno;
	int fd;

	fd = grant_open(path);
	if ((fd == -ENOENT || fd == -ELOOP) && optional)
		return 0; /* a --ro-try path gone, or a link now: nothing to grant */
	if (fd < 0 || fstat(fd, &st) < 0) {
		saved_errno = fd < 0 ? -fd : errno;
		if (fd >= 0)
			close(fd);
		report_failure("cannot open rule path: %s: %s", path, strerror(saved_errno));
		return -1;
	}
	if (writable && !grant_identity_matches(path, fd)) {
		close(fd);
		report_failure("a granted path is not what it was when the argv was made: %s", path);
		return -1;
	}
	rule.allowed_access = (writable ? handled & ~RW_EXCLUDED_RIGHTS : RO_RIGHTS) & handled;
	if (shared)
		rule.allowed_access &= ~(uint64_t)LANDLOCK_ACCESS_FS_RESOLVE_UNIX;
	if (listing)
		rule.allowed_access &= LANDLOCK_ACCESS_FS_READ_DIR;
	if (!S_ISDIR(st.st_mode))
		rule.allowed_access &= FS_FILE_RIGHTS;
	if (rule.allowed_access == 0) {
		close(fd); /* a --ro-list on what is no longer a directory: no right */
		return 0;
	}
	rule.parent_fd = fd;
	if (syscall(SYS_landlock_add_rule, ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0) {
		saved_errno = errno;
		close(fd);
		report_failure("landlock ruleset error: %s", strerror(saved_errno));
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * ABI 9: an --allow-unix-socket path gets RESOLVE_UNIX alone (connect and
 * sendmsg to it; --rw grants carry the right already, --ro grants never).
 * The rule names the socket's inode, so it must exist now: a path that is
 * not a socket at start is skipped, and connecting to it later fails with
 * EACCES (SPEC 13). The supervising parent shares this domain, so its own
 * connect on the command's behalf (older ABIs) gets the same answer.
 */
static int add_socket_grant(int ruleset_fd, uint64_t handled, const char *path)
{
	struct landlock_path_beneath_attr rule;
	struct stat st;
	int saved_errno;
	int fd;

	if ((handled & LANDLOCK_ACCESS_FS_RESOLVE_UNIX) == 0)
		return 0;
	/* followed: an allowed socket is named as the caller wrote it (a
	 * link to an agent's socket is common), and this rule grants that one
	 * inode RESOLVE_UNIX alone */
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) {
		close(fd);
		return 0;
	}
	rule.allowed_access = LANDLOCK_ACCESS_FS_RESOLVE_UNIX;
	rule.parent_fd = fd;
	if (syscall(SYS_landlock_add_rule, ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0) {
		saved_errno = errno;
		close(fd);
		report_failure("landlock ruleset error: %s", strerror(saved_errno));
		return -1;
	}
	close(fd);
	return 0;
}

int landlock_build_ruleset(int abi, const struct invocation *invocation)
{
	struct ruleset_attr attr = { 0, 0, 0 };
	size_t attr_size = offsetof(struct ruleset_attr, handled_access_net);
	const char *path;
	size_t cursor = 0;
	bool writable;
	int ruleset_fd;

	attr.handled_access_fs = handled_fs_rights(abi);
	/* Network rights handled with no rule for them: every TCP bind and
	 * connect is refused. (seccomp refuses the other families.) */
	if (invocation->deny_network && abi >= NET_RIGHTS_ABI) {
		attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP |
					  LANDLOCK_ACCESS_NET_CONNECT_TCP;
		attr_size = offsetof(struct ruleset_attr, scoped);
	}
	/* No signalling processes outside the sandbox, as bwrap's PID
	 * namespace gives; no reaching the host's abstract unix sockets
	 * (X11's @/tmp/.X11-unix/X0 means keystroke injection). */
	if (abi >= SCOPE_ABI) {
		attr.scoped = LANDLOCK_SCOPE_SIGNAL | LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
		attr_size = sizeof(attr);
	}
	/* The kernel returns the ruleset fd close-on-exec. */
	ruleset_fd = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
	if (ruleset_fd < 0) {
		report_failure("landlock ruleset error: %s", strerror(errno));
		return -1;
	}
	if (invocation->probe) {
		if (add_grant(ruleset_fd, attr.handled_access_fs, "/", false, false, false, false) != 0)
			goto fail;
		return ruleset_fd;
	}
	while (next_grant(invocation, &cursor, &path, &writable)) {
		/* A --ro-try path that is gone grants nothing: skipping it leaves
		 * the rules narrower, never wider. */
		if (add_grant(ruleset_fd, attr.handled_access_fs, path, writable,
			      grant_is_optional(invocation, cursor),
			      grant_is_shared(invocation, cursor),
			      grant_is_listing(invocation, cursor)) != 0)
			goto fail;
	}
	cursor = 0;
	while (next_allowed_socket(invocation, &cursor, &path))
		if (add_socket_grant(ruleset_fd, attr.handled_access_fs, path) != 0)
			goto fail;
	/* The allowlist's proxy: its port, on every address (Landlock knows
	 * no addresses; the supervisor refuses every other one). */
	if (invocation->proxy_port != 0 && attr.handled_access_net != 0) {
		struct { uint64_t allowed_access; uint64_t port; } __attribute__((packed)) net = {
			LANDLOCK_ACCESS_NET_CONNECT_TCP, invocation->proxy_port
		};
		if (syscall(SYS_landlock_add_rule, ruleset_fd, 2 /* LANDLOCK_RULE_NET_PORT */, &net,
			    0) != 0) {
			report_failure("landlock ruleset error: %s", strerror(errno));
			goto fail;
		}
	}
	return ruleset_fd;
fail:
	close(ruleset_fd);
	return -1;
}

int landlock_deny_all_files(int abi)
{
	struct ruleset_attr attr = { handled_fs_rights(abi), 0, 0 };
	int ruleset_fd = (int)syscall(SYS_landlock_create_ruleset, &attr,
				      offsetof(struct ruleset_attr, handled_access_net), 0);
	int r;

	if (ruleset_fd < 0)
		return -errno;
	r = landlock_enforce(ruleset_fd);
	close(ruleset_fd);
	return r;
}

int landlock_enforce(int ruleset_fd)
{
	return syscall(SYS_landlock_restrict_self, ruleset_fd, 0) == 0 ? 0 : -errno;
}

/*
 * REFER is the one right every Landlock domain denies unless a rule grants
 * it, handled or not: a nested domain without such a rule made every
 * rename and link across directories fail with EXDEV, inside the grants
 * too (pip wheel, Python's os.replace into a parent; mv hid it by copying).
 * So this domain handles REFER and grants it on "/": it adds no file
 * restriction, and the outer domain's grants still decide.
 */
int landlock_scope_command_signals(void)
{
	struct ruleset_attr attr = { LANDLOCK_ACCESS_FS_REFER, 0, LANDLOCK_SCOPE_SIGNAL };
	struct landlock_path_beneath_attr rule;
	int ruleset_fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	int r = 0;

	if (ruleset_fd < 0)
		return -errno;
	rule.allowed_access = LANDLOCK_ACCESS_FS_REFER;
	rule.parent_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rule.parent_fd < 0)
		r = -errno;
	else if (syscall(SYS_landlock_add_rule, ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
		r = -errno;
	if (rule.parent_fd >= 0)
		close(rule.parent_fd);
	if (r == 0)
		r = landlock_enforce(ruleset_fd);
	close(ruleset_fd);
	return r;
}
