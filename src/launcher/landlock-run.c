/*
 * landlock-run: restrict this process with Landlock, then exec the command.
 *
 *   landlock-run [--ro PATH]... [--rw PATH]... -- PROGRAM [ARG...]
 *   landlock-run --probe
 *
 * The contract is SPEC section 7. Plain C over the raw syscalls, libc only,
 * no environment inputs (PATH is read by execvp, as for any exec), and no
 * allocation: argv is parsed in place and walked twice.
 *
 * Every launcher failure prints exactly one line starting "landlock-run: "
 * and exits 125 before the command runs; once exec succeeds the status is
 * the command's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <linux/securebits.h>

#define LAUNCHER_FAILURE 125

/* Debian 12's headers describe Landlock as of Linux 6.1 (ABI 2). */
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
	uint64_t handled_access_net; /* ABI 4; left 0: network is not confined */
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
	{ 1, FS_BASE_RIGHTS },               /* the 13 base rights */
	{ 2, LANDLOCK_ACCESS_FS_REFER },     /* link/rename across directories */
	{ 3, LANDLOCK_ACCESS_FS_TRUNCATE },  /* truncate, O_TRUNC */
	{ 5, LANDLOCK_ACCESS_FS_IOCTL_DEV }, /* ioctl on device files */
};
#define FS_RIGHTS_ROWS (sizeof(fs_rights_by_abi) / sizeof(fs_rights_by_abi[0]))

/* Below the ABI of the newest row some file access stays unconfined. */
#define FULL_ENFORCEMENT_ABI (fs_rights_by_abi[FS_RIGHTS_ROWS - 1].abi)
#define SIGNAL_SCOPE_ABI 6

/* The only rights the kernel accepts on a rule for a non-directory. */
#define FS_FILE_RIGHTS                                                      \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |        \
	 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |        \
	 LANDLOCK_ACCESS_FS_IOCTL_DEV)

#define RO_RIGHTS                                                           \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |         \
	 LANDLOCK_ACCESS_FS_READ_DIR)

/* Creating device nodes is never granted, not even under --rw. */
#define RW_EXCLUDED_RIGHTS                                                  \
	(LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK)

/*
 * Seccomp: ioctl(TIOCSTI) pushes bytes into a terminal's input queue and
 * ioctl(TIOCLINUX) can paste the console selection; either lets a confined
 * command type commands into the caller's shell (CVE-2017-5226). Both fail
 * with EPERM; every other syscall is untouched.
 *
 * The filter checks the audit arch first, because a syscall number means
 * nothing without it: a 64-bit process can enter the 32-bit table (int 0x80)
 * where ioctl has another number. The ABIs each kernel family can run are
 * listed below; a syscall from any other arch kills the process, because we
 * cannot tell which of its calls is ioctl and letting it through would leave
 * the injection open. No legitimate command here uses a third ABI.
 */
#if defined(__x86_64__) || defined(__i386__)
#define FILTER_ARCH_A AUDIT_ARCH_X86_64
#define FILTER_ARCH_A_IOCTL 16
/* x32 shares AUDIT_ARCH_X86_64 and marks its numbers with bit 30. */
#define FILTER_X32_BIT 0x40000000U
#define FILTER_X32_IOCTL (FILTER_X32_BIT | 514U)
#define FILTER_ARCH_B AUDIT_ARCH_I386
#define FILTER_ARCH_B_IOCTL 54
#elif defined(__aarch64__) || defined(__arm__)
#define FILTER_ARCH_A AUDIT_ARCH_AARCH64
#define FILTER_ARCH_A_IOCTL 29
#define FILTER_ARCH_B AUDIT_ARCH_ARM
#define FILTER_ARCH_B_IOCTL 54
#elif defined(__riscv) && defined(__LP64__)
#define FILTER_ARCH_A AUDIT_ARCH_RISCV64
#define FILTER_ARCH_A_IOCTL 29
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FILTER_ARCH_A AUDIT_ARCH_PPC64LE
#define FILTER_ARCH_A_IOCTL 54
#elif defined(__s390x__)
#define FILTER_ARCH_A AUDIT_ARCH_S390X
#define FILTER_ARCH_A_IOCTL 54
#else
#error "landlock-run: add this architecture's AUDIT_ARCH and ioctl number"
#endif

_Static_assert(SYS_ioctl == FILTER_ARCH_A_IOCTL
#ifdef FILTER_ARCH_B
		       || SYS_ioctl == FILTER_ARCH_B_IOCTL
#endif
#ifdef FILTER_X32_BIT
		       || SYS_ioctl == FILTER_X32_IOCTL
#endif
	       , "the seccomp filter must know this build's ioctl number");

/* ioctl's cmd is an unsigned int: the kernel ignores the upper 32 bits of
 * the register, so the filter must compare the low word only, or a cmd
 * with junk in the high bits would slip past. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define IOCTL_CMD_LOW_WORD offsetof(struct seccomp_data, args[1])
#else
#define IOCTL_CMD_LOW_WORD (offsetof(struct seccomp_data, args[1]) + 4)
#endif

/* Instruction positions, so every jump is computed from named targets. */
enum filter_step {
	STEP_LOAD_ARCH,
	STEP_IS_ARCH_A,
#ifdef FILTER_ARCH_B
	STEP_IS_ARCH_B,
#endif
	STEP_FOREIGN_ARCH,
	STEP_A_LOAD_NR,
	STEP_A_IS_IOCTL,
#ifdef FILTER_X32_BIT
	STEP_A_IS_X32_IOCTL,
	STEP_A_IS_X32_NATIVE_NUMBER,
#endif
#ifdef FILTER_ARCH_B
	STEP_B_LOAD_NR,
	STEP_B_IS_IOCTL,
#endif
	STEP_LOAD_CMD,
	STEP_IS_TIOCSTI,
	STEP_IS_TIOCLINUX,
	STEP_ALLOW,
	STEP_DENY,
	STEP_COUNT
};
#define JUMP(from, to) ((to) - (from) - 1)

static const struct sock_filter tty_injection_filter[STEP_COUNT] = {
	[STEP_LOAD_ARCH] = BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				    offsetof(struct seccomp_data, arch)),
	[STEP_IS_ARCH_A] = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FILTER_ARCH_A,
				    JUMP(STEP_IS_ARCH_A, STEP_A_LOAD_NR), 0),
#ifdef FILTER_ARCH_B
	[STEP_IS_ARCH_B] = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FILTER_ARCH_B,
				    JUMP(STEP_IS_ARCH_B, STEP_B_LOAD_NR), 0),
#endif
	[STEP_FOREIGN_ARCH] = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),

	[STEP_A_LOAD_NR] = BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				    offsetof(struct seccomp_data, nr)),
#ifdef FILTER_X32_BIT
	[STEP_A_IS_IOCTL] = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FILTER_ARCH_A_IOCTL,
				     JUMP(STEP_A_IS_IOCTL, STEP_LOAD_CMD), 0),
	[STEP_A_IS_X32_IOCTL] = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FILTER_X32_IOCTL,
					 JUMP(STEP_A_IS_X32_IOCTL, STEP_LOAD_CMD), 0),
	/* Kernels differ on whether x32 may call the 64-bit entry; cover it. */
	[STEP_A_IS_X32_NATIVE_NUMBER] =
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FILTER_X32_BIT | FILTER_ARCH_A_IOCTL,
			 JUMP(STEP_A_IS_X32_NATIVE_NUMBER, STEP_LOAD_CMD),
			 JUMP(STEP_A_IS_X32_NATIVE_NUMBER, STEP_ALLOW)),
#else
	[STEP_A_IS_IOCTL] = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FILTER_ARCH_A_IOCTL,
				     JUMP(STEP_A_IS_IOCTL, STEP_LOAD_CMD),
				     JUMP(STEP_A_IS_IOCTL, STEP_ALLOW)),
#endif
#ifdef FILTER_ARCH_B
	[STEP_B_LOAD_NR] = BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				    offsetof(struct seccomp_data, nr)),
	[STEP_B_IS_IOCTL] = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FILTER_ARCH_B_IOCTL,
				     JUMP(STEP_B_IS_IOCTL, STEP_LOAD_CMD),
				     JUMP(STEP_B_IS_IOCTL, STEP_ALLOW)),
#endif
	[STEP_LOAD_CMD] = BPF_STMT(BPF_LD | BPF_W | BPF_ABS, IOCTL_CMD_LOW_WORD),
	[STEP_IS_TIOCSTI] = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCSTI,
				     JUMP(STEP_IS_TIOCSTI, STEP_DENY), 0),
	[STEP_IS_TIOCLINUX] = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCLINUX,
				       JUMP(STEP_IS_TIOCLINUX, STEP_DENY),
				       JUMP(STEP_IS_TIOCLINUX, STEP_ALLOW)),
	[STEP_ALLOW] = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	[STEP_DENY] = BPF_STMT(BPF_RET | BPF_K,
			       SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
};

/*
 * Capabilities: Landlock governs file access by path, not what capabilities
 * allow. A root caller would otherwise keep its full set (and, under
 * no_new_privs alone, an exec keeps the permitted set it already has):
 * init_module from a memory buffer, reboot, bpf, sethostname, chown of any
 * file, raw I/O. So every confined command starts with none, as bwrap's
 * `--cap-drop ALL` gives that rung (SPEC 5).
 */
#define CAP_WORDS _LINUX_CAPABILITY_U32S_3

/* Everything in place stays set: only the bits below are added. NOROOT
 * means uid 0 gets no capabilities from exec; with ambient raising off and
 * every bit locked, nothing in the sandbox can turn that back, even if a
 * future change left a capability in the bounding set. */
#define LOCKED_SECUREBITS                                                   \
	(SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP_LOCKED | \
	 SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |              \
	 SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)

struct cap_sets {
	struct __user_cap_header_struct header;
	struct __user_cap_data_struct data[CAP_WORDS];
};

/* Returns 0, or -errno. */
static int read_caps(struct cap_sets *sets)
{
	memset(sets, 0, sizeof(*sets));
	sets->header.version = _LINUX_CAPABILITY_VERSION_3;
	sets->header.pid = 0;
	return syscall(SYS_capget, &sets->header, sets->data) == 0 ? 0 : -errno;
}

/* Returns 0, or -errno. */
static int write_caps(struct cap_sets *sets)
{
	sets->header.version = _LINUX_CAPABILITY_VERSION_3;
	sets->header.pid = 0;
	return syscall(SYS_capset, &sets->header, sets->data) == 0 ? 0 : -errno;
}

static bool holds_any_cap(const struct cap_sets *sets)
{
	size_t i;

	for (i = 0; i < CAP_WORDS; i++)
		if (sets->data[i].permitted != 0 || sets->data[i].effective != 0 ||
		    sets->data[i].inheritable != 0)
			return true;
	return false;
}

static bool cap_permitted(const struct cap_sets *sets, unsigned cap)
{
	return (sets->data[CAP_TO_INDEX(cap)].permitted & CAP_TO_MASK(cap)) != 0;
}

/*
 * Called after landlock_restrict_self, so nothing between here and exec
 * needs a capability. Not earlier: root may need CAP_DAC_OVERRIDE or
 * CAP_DAC_READ_SEARCH to open its grant paths (a workspace under another
 * user's 0700 directory), and a grant that cannot be opened is fatal.
 *
 * An unprivileged caller holds nothing: one capget, and the ambient set is
 * empty too (the kernel keeps it inside permitted). Its bounding set stays
 * as it is: clearing it needs CAP_SETPCAP, and with no_new_privs an exec
 * never adds to an empty permitted set (setuid and file capabilities are
 * ignored), so the bounding set cannot matter.
 *
 * A caller holding capabilities: make the permitted ones effective (a
 * caller may hold CAP_SETPCAP without it being effective), lock the
 * securebits and empty the bounding set when CAP_SETPCAP allows, clear the
 * ambient set, then zero effective, permitted and inheritable, and read the
 * sets back. Returns 0, or -errno (fatal: the command would keep
 * privileges the sandbox is meant to take away).
 */
static int drop_capabilities(void)
{
	struct cap_sets sets;
	unsigned long cap;
	size_t i;
	int r;

	r = read_caps(&sets);
	if (r < 0)
		return r;
	if (!holds_any_cap(&sets))
		return 0;

	if (cap_permitted(&sets, CAP_SETPCAP)) {
		int bits;

		for (i = 0; i < CAP_WORDS; i++)
			sets.data[i].effective = sets.data[i].permitted;
		r = write_caps(&sets);
		if (r < 0)
			return r;
		bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
		if (bits < 0 ||
		    prctl(PR_SET_SECUREBITS, (unsigned long)bits | LOCKED_SECUREBITS,
			  0, 0, 0) != 0)
			return -errno;
		/* Up to the last capability this kernel knows, whatever our
		 * headers say: the first EINVAL is one past it. */
		for (cap = 0;; cap++) {
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
				continue;
			if (errno == EINVAL && cap > 0)
				break;
			return -errno;
		}
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0)
		return -errno;
	memset(sets.data, 0, sizeof(sets.data));
	r = write_caps(&sets);
	if (r < 0)
		return r;
	r = read_caps(&sets);
	if (r < 0)
		return r;
	return holds_any_cap(&sets) ? -EPERM : 0;
}

enum usage_error {
	USAGE_OK,
	USAGE_PROBE_TAKES_NO_ARGUMENTS,
	USAGE_RO_REQUIRES_PATH,
	USAGE_RW_REQUIRES_PATH,
	USAGE_UNKNOWN_ARGUMENT,
	USAGE_MISSING_COMMAND,
};

/* The parsed command line; command points into argv. */
struct invocation {
	bool probe;
	char **command; /* argv after "--"; NULL for --probe */
};

static void print_failure(const char *format, ...)
	__attribute__((format(printf, 1, 2)));

/* One line, one write(2), so concurrent output cannot split it. */
static void print_failure(const char *format, ...)
{
	char line[PATH_MAX + 256];
	static const char prefix[] = "landlock-run: ";
	size_t used = sizeof(prefix) - 1;
	va_list args;
	int n;

	memcpy(line, prefix, used);
	va_start(args, format);
	n = vsnprintf(line + used, sizeof(line) - used - 1, format, args);
	va_end(args);
	if (n < 0)
		n = 0;
	used += (size_t)n < sizeof(line) - used - 1 ? (size_t)n
						     : sizeof(line) - used - 2;
	line[used++] = '\n';
	if (write(STDERR_FILENO, line, used) < 0) {
		/* Nothing left to report to; the exit status still says 125. */
	}
}

static bool is_grant_flag(const char *arg)
{
	return strcmp(arg, "--ro") == 0 || strcmp(arg, "--rw") == 0;
}

/* Fills ret_invocation on success; on USAGE_UNKNOWN_ARGUMENT points
 * bad_argument at the offending word. */
static enum usage_error parse_arguments(int argc, char **argv,
					struct invocation *ret_invocation,
					const char **bad_argument)
{
	struct invocation parsed = { false, NULL };
	int i = 1;

	while (i < argc) {
		const char *arg = argv[i];

		if (strcmp(arg, "--probe") == 0) {
			if (argc != 2)
				return USAGE_PROBE_TAKES_NO_ARGUMENTS;
			parsed.probe = true;
			i++;
		} else if (is_grant_flag(arg)) {
			/* "--ro --" is a missing path, not a grant of "--". */
			if (i + 1 >= argc || strcmp(argv[i + 1], "--") == 0)
				return arg[3] == 'o' ? USAGE_RO_REQUIRES_PATH
						     : USAGE_RW_REQUIRES_PATH;
			i += 2;
		} else if (strcmp(arg, "--") == 0) {
			parsed.command = &argv[i + 1];
			break;
		} else {
			*bad_argument = arg;
			return USAGE_UNKNOWN_ARGUMENT;
		}
	}
	if (!parsed.probe && (parsed.command == NULL || parsed.command[0] == NULL))
		return USAGE_MISSING_COMMAND;
	*ret_invocation = parsed;
	return USAGE_OK;
}

static int report_usage_error(enum usage_error error, const char *bad_argument)
{
	switch (error) {
	case USAGE_PROBE_TAKES_NO_ARGUMENTS:
		print_failure("usage error: --probe takes no other arguments");
		break;
	case USAGE_RO_REQUIRES_PATH:
		print_failure("usage error: --ro requires a path");
		break;
	case USAGE_RW_REQUIRES_PATH:
		print_failure("usage error: --rw requires a path");
		break;
	case USAGE_UNKNOWN_ARGUMENT:
		print_failure("usage error: unknown argument: %s", bad_argument);
		break;
	case USAGE_MISSING_COMMAND:
		print_failure("usage error: missing `-- <argv>...` command");
		break;
	case USAGE_OK:
		break;
	}
	return LAUNCHER_FAILURE;
}

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

/* Returns the ABI to use, or -errno when the kernel cannot enforce. */
static int landlock_abi(void)
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

static uint64_t handled_fs_rights(int abi)
{
	uint64_t rights = 0;
	size_t row;

	for (row = 0; row < FS_RIGHTS_ROWS; row++)
		if (fs_rights_by_abi[row].abi <= abi)
			rights |= fs_rights_by_abi[row].adds;
	return rights;
}

/* Returns 0, or LAUNCHER_FAILURE after printing why. */
static int add_grant(int ruleset_fd, uint64_t handled, const char *path,
		     bool writable)
{
	struct landlock_path_beneath_attr rule;
	struct stat st;
	int saved_errno;
	int fd;

	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		saved_errno = errno;
		if (fd >= 0)
			close(fd);
		print_failure("cannot open rule path: %s: %s", path,
			      strerror(saved_errno));
		return LAUNCHER_FAILURE;
	}
	rule.allowed_access = (writable ? handled & ~RW_EXCLUDED_RIGHTS
					: RO_RIGHTS) & handled;
	if (!S_ISDIR(st.st_mode))
		rule.allowed_access &= FS_FILE_RIGHTS;
	rule.parent_fd = fd;
	if (syscall(SYS_landlock_add_rule, ruleset_fd, LANDLOCK_RULE_PATH_BENEATH,
		    &rule, 0) != 0) {
		saved_errno = errno;
		close(fd);
		print_failure("landlock ruleset error: %s", strerror(saved_errno));
		return LAUNCHER_FAILURE;
	}
	close(fd);
	return 0;
}

/* Adds every --ro/--rw grant in argv order; the probe grants only "/". */
static int add_grants(int ruleset_fd, uint64_t handled, char **argv,
		      const struct invocation *invocation)
{
	int i;

	if (invocation->probe)
		return add_grant(ruleset_fd, handled, "/", false);
	/* Parsing accepted argv, so it is pairs of flag and path up to "--". */
	for (i = 1; strcmp(argv[i], "--") != 0; i += 2) {
		int status = add_grant(ruleset_fd, handled, argv[i + 1],
				       strcmp(argv[i], "--rw") == 0);
		if (status != 0)
			return status;
	}
	return 0;
}

/*
 * Builds the ruleset, then restricts this process for good: no_new_privs
 * (required by both Landlock and seccomp for an unprivileged caller, and it
 * stops setuid programs from shedding the sandbox), the seccomp filter,
 * the Landlock domain, then every capability dropped. Failures of any of
 * these steps use the ruleset error line: each one leaves the command
 * unconfined or privileged, so each is fatal.
 */
static int restrict_self(int abi, char **argv, const struct invocation *invocation)
{
	struct ruleset_attr attr = { 0, 0, 0 };
	struct sock_fprog filter = {
		.len = STEP_COUNT,
		.filter = (struct sock_filter *)tty_injection_filter,
	};
	size_t attr_size = offsetof(struct ruleset_attr, handled_access_net);
	int ruleset_fd;
	int status;

	attr.handled_access_fs = handled_fs_rights(abi);
	if (abi >= SIGNAL_SCOPE_ABI) {
		attr.scoped = LANDLOCK_SCOPE_SIGNAL;
		attr_size = sizeof(attr);
	}
	/* The kernel returns the ruleset fd close-on-exec. */
	ruleset_fd = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
	if (ruleset_fd < 0) {
		print_failure("landlock ruleset error: %s", strerror(errno));
		return LAUNCHER_FAILURE;
	}
	status = add_grants(ruleset_fd, attr.handled_access_fs, argv, invocation);
	if (status == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		status = -1;
	if (status == 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &filter, 0, 0) != 0)
		status = -1;
	if (status == 0 && syscall(SYS_landlock_restrict_self, ruleset_fd, 0) != 0)
		status = -1;
	if (status == 0) {
		int r = drop_capabilities();

		if (r < 0) {
			errno = -r;
			status = -1;
		}
	}
	if (status < 0) {
		print_failure("landlock ruleset error: %s", strerror(errno));
		status = LAUNCHER_FAILURE;
	}
	close(ruleset_fd);
	return status;
}

int main(int argc, char **argv)
{
	struct invocation invocation = { false, NULL };
	const char *bad_argument = NULL;
	enum usage_error usage;
	int status;
	int abi;

	usage = parse_arguments(argc, argv, &invocation, &bad_argument);
	if (usage != USAGE_OK)
		return report_usage_error(usage, bad_argument);

	/* ENOSYS (not built in) and EOPNOTSUPP (disabled at boot) alike:
	 * nothing would be enforced, so nothing runs. */
	abi = landlock_abi();
	if (abi < 0) {
		print_failure("landlock is not enforced by this kernel "
			      "(ABI unsupported or disabled)");
		return LAUNCHER_FAILURE;
	}

	status = restrict_self(abi, argv, &invocation);
	if (status != 0)
		return status;

	if (invocation.probe) {
		if (puts(abi >= FULL_ENFORCEMENT_ABI
				 ? "landlock: fully enforced"
				 : "landlock: partially enforced (older ABI)") == EOF ||
		    fflush(stdout) != 0)
			return LAUNCHER_FAILURE;
		return 0;
	}
	if (abi < FULL_ENFORCEMENT_ABI) {
		static const char notice[] =
			"landlock-run: partial enforcement (older Landlock ABI)\n";
		if (write(STDERR_FILENO, notice, sizeof(notice) - 1) < 0) {
			/* Informational only; the confinement stands. */
		}
	}
	execvp(invocation.command[0], invocation.command);
	print_failure("exec failed: %s", strerror(errno));
	return LAUNCHER_FAILURE;
}
