/* SPDX-License-Identifier: MIT */
/*
 * Spawning (SPEC 8 and 9): start a confined (or, for danger-full-access, a
 * plain) argv in its own session with no stray descriptors, capture its
 * output within bounds, end its whole tree on timeout, and classify how it
 * settled with the facts of the wrap it was started from.
 *
 * Everything the child needs (argv, envp, exec candidates, workdir,
 * descriptors) is computed before the child starts: until its exec the child
 * only makes async-signal-safe system calls and allocates nothing, and it
 * reports the step that failed and its errno over a close-on-exec pipe, so an
 * ENOENT from a missing workdir is never mistaken for a missing runner.
 *
 * On Linux the child is started with clone(CLONE_VM | CLONE_VFORK) on a small
 * stack of its own, as glibc's posix_spawn does, not with fork(): fork copies
 * the caller's page tables, which costs milliseconds in a large caller (an
 * agent harness holding hundreds of MiB), while a child sharing the caller's
 * memory costs the same whatever the caller's size. Sharing memory puts rules
 * on the child (see start_child). Elsewhere, and under AddressSanitizer or
 * ThreadSanitizer (whose runtimes do not expect a second process on the same
 * memory), the child is forked; the child's code is the same either way.
 *
 * Every other Linux-only call (pipe2, close_range, the /proc descriptor walk,
 * pidfd_open, sigtimedwait) is a fast path chosen by a Meson feature check
 * (HAVE_* in config.h) with a POSIX fallback next to it; `-Dportable=true`
 * turns them all off so the fallbacks macOS compiles are tested on Linux.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "spawn-internal.h"
#include "util.h"

#if HAVE_NSGETENVIRON
/* In a macOS shared library `environ` is not reliably bound to the running
 * program's; _NSGetEnviron() is (crt_externs.h). */
#include <crt_externs.h>
#define cf_environ (*_NSGetEnviron())
#else
extern char **environ;
#define cf_environ environ
#endif

#if defined(__has_feature)
#define CF_HAS_FEATURE(x) __has_feature(x)
#else
#define CF_HAS_FEATURE(x) 0
#endif
/* Whether the child shares the caller's memory until its exec (see the top
 * of the file). */
#if HAVE_CLONE_VFORK && defined(__linux__) && !defined(__SANITIZE_ADDRESS__) && \
	!defined(__SANITIZE_THREAD__) && !CF_HAS_FEATURE(address_sanitizer) && \
	!CF_HAS_FEATURE(thread_sanitizer) && !CF_HAS_FEATURE(memory_sanitizer)
#define CF_SPAWN_SHARED_VM 1
#include <sched.h>
#else
#define CF_SPAWN_SHARED_VM 0
#endif

/* How long, after the leader ended and its group was killed, the output
 * pipes may stay open before we stop reading: only a process that left the
 * group (its own setsid) can still hold them, and its later output is not
 * part of this run. */
#define DRAIN_GRACE_MS 200
/* Without a pidfd the child's end is noticed by polling, first quickly (the
 * fast path of a short command), then backing off to this bound. */
#define FALLBACK_MAX_WAIT_MS 50
/* Per pump, per stream: bound one pass so a flooding child cannot starve the
 * timeout checks. */
#define PUMP_MAX_BYTES (1024 * 1024)

/* What the child reports when it cannot exec. `what` refines SETUP for the
 * message; `step` is what the classifier sees. */
enum child_setup_what {
	WHAT_NONE = 0,
	WHAT_SETSID,
	WHAT_DUP,
	WHAT_CLOEXEC,
	WHAT_SIGNALS,
};

struct child_report {
	int step;
	int error_number;
	int what;
};

struct stream {
	int fd;               /* parent's read end, or -1 */
	int tee_fd;           /* where to copy live, or -1 */
	bool captured;
	bool tee_broken;      /* the tee target failed: stop copying, keep capturing */
	cf_buf buf;
	bool truncated;
};

enum process_state {
	STATE_RUNNING = 0,
	STATE_DRAINING,  /* leader reaped, output pipes may still hold data */
	STATE_SETTLED,
};

struct confine_process {
	pid_t pid;
	int pidfd;
	enum process_state state;
	int status;          /* waitpid status once reaped */
	int wait_errno;      /* non-zero when the status could not be collected */
	struct stream streams[3]; /* index 1 stdout, 2 stderr; 0 unused */
	size_t capture_limit;
	unsigned timeout_ms;
	unsigned kill_grace_ms; /* SIGTERM to SIGKILL on timeout; 0: SIGKILL at once */
	long long deadline_ms;
	long long kill_at_ms;
	long long drain_until_ms;
	int fallback_wait_ms;
	bool term_sent;
	bool kill_sent;
	bool timed_out;
	/* The leader has ended: its pid may be reaped at any moment, so no
	 * signal goes to it any more. Written before reaping. */
	volatile sig_atomic_t leader_ended;
	/* A bwrap-shaped runner supervises the command (see deliver()). */
	bool runner_supervises;
	confine_argv *confined; /* this run's own copy of the wrap's facts */
	char *workdir;
};

/* ------------------------------------------------------------------------ */
/* The child                                                                */

static void child_fail(int report_fd, confine_spawn_step step, int error_number, int what) {
	struct child_report rep = { (int)step, error_number, what };
	ssize_t n;
	do
		n = write(report_fd, &rep, sizeof rep);
	while (n < 0 && errno == EINTR);
	_exit(127);
}

#ifdef SYS_getdents64
/* Calls `fn` for each numeric entry of the directory `path`. */
static bool for_each_number(const char *path, void (*fn)(pid_t, void *), void *data) {
	char dents[4096] __attribute__((aligned(8)));
	long n;
	int dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return false;
	while ((n = syscall(SYS_getdents64, dir, dents, sizeof dents)) > 0) {
		long off = 0;
		while (off < n) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (void *)(dents + off);
			long value = 0;
			const char *c = d->name;
			bool numeric = *c != '\0';
			for (; *c; c++) {
				if (*c < '0' || *c > '9' || value > INT_MAX / 10) {
					numeric = false;
					break;
				}
				value = value * 10 + (*c - '0');
			}
			if (numeric && value > 0)
				fn((pid_t)value, data);
			off += d->reclen;
		}
	}
	close(dir);
	return n == 0;
}
#endif

#if HAVE_SYS_GETDENTS64
static void mark_cloexec(pid_t fd, void *data) {
	(void)data;
	if (fd > 2)
		(void)fcntl((int)fd, F_SETFD, FD_CLOEXEC);
}
#endif

/* Marks every descriptor from 3 up close-on-exec. Marking rather than
 * closing keeps the report pipe open until exec succeeds. */
static int child_cloexec_from_3(void) {
#if HAVE_SYS_CLOSE_RANGE
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return 0;
#endif
	{
		/* Older kernels: walk /proc/self/fd with raw getdents64 (opendir
		 * would allocate). */
#if HAVE_SYS_GETDENTS64
		/* The directory's own descriptor gets the flag too: it has it. */
		if (for_each_number("/proc/self/fd", mark_cloexec, NULL))
			return 0;
#endif
	}
	{
		/* Everywhere else (macOS: no close_range, and /dev/fd cannot be
		 * read without opendir's allocation): every number below the
		 * descriptor limit. sysconf(_SC_OPEN_MAX) is the soft
		 * RLIMIT_NOFILE, above which open(2) hands out no descriptor; one
		 * opened before the caller lowered its limit is missed, a case
		 * close_range alone covers. The cap only tames an "unlimited"
		 * answer: 2^20 fcntl calls take tens to hundreds of milliseconds,
		 * paid only by a caller that raised its limit that far. */
		int fd;
		long max = sysconf(_SC_OPEN_MAX);
		if (max < 0 || max > (1L << 20))
			max = 1L << 20;
		for (fd = 3; fd < max; fd++)
			(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	return 0;
}

struct child_plan {
	char *const *argv;
	char *const *envp;
	/* exec candidates: argv[0] itself when it has a slash, else the PATH
	 * search's full names */
	char **candidates;
	const char *workdir;   /* NULL: stay */
	int report_fd;
	int source_fd[3];      /* what fd i becomes; -1: inherit */
	int internal_fds[8];   /* the parent's descriptors made for this spawn */
	size_t n_internal;
};

static bool is_internal_fd(const struct child_plan *plan, int fd) {
	for (size_t i = 0; i < plan->n_internal; i++)
		if (plan->internal_fds[i] == fd)
			return true;
	return false;
}

static void child_exec_candidates(const struct child_plan *plan, int report_fd) {
	bool saw_eacces = false;
	int last = ENOENT;
	for (char *const *c = plan->candidates; *c; c++) {
		execve(*c, plan->argv, plan->envp);
		last = errno;
		/* execvp(3)'s rules: keep searching past entries that do not hold
		 * the program; remember a permission failure; stop on anything else
		 * (the program was found but cannot run). */
		if (last == EACCES) {
			saw_eacces = true;
			continue;
		}
		if (last == ENOENT || last == ENOTDIR || last == ESTALE || last == ENODEV ||
		    last == ETIMEDOUT)
			continue;
		child_fail(report_fd, CONFINE_SPAWN_STEP_EXEC, last, WHAT_NONE);
	}
	child_fail(report_fd, CONFINE_SPAWN_STEP_EXEC, saw_eacces ? EACCES : last, WHAT_NONE);
}

static void child_main(const struct child_plan *plan) {
	int report_fd = plan->report_fd;
	int moved[3] = { -1, -1, -1 };
	struct sigaction dfl;
	sigset_t empty;

	/* Our descriptors may sit on 0..2 if the caller had closed them: move
	 * the report pipe and every source above 2 before any dup2 onto 0..2. */
	if (report_fd < 3) {
		int r = fcntl(report_fd, F_DUPFD_CLOEXEC, 3);
		if (r < 0)
			_exit(127);
		report_fd = r;
	}
	/* Its own session: its own process group (one group to signal on
	 * timeout) and no controlling terminal to push keystrokes into. */
	if (setsid() < 0)
		child_fail(report_fd, CONFINE_SPAWN_STEP_SETUP, errno, WHAT_SETSID);
	for (int i = 0; i < 3; i++) {
		if (plan->source_fd[i] < 0)
			continue;
		moved[i] = fcntl(plan->source_fd[i], F_DUPFD_CLOEXEC, 3);
		if (moved[i] < 0)
			child_fail(report_fd, CONFINE_SPAWN_STEP_SETUP, errno, WHAT_DUP);
	}
	for (int i = 0; i < 3; i++) {
		if (moved[i] >= 0) {
			/* moved[i] > 2 >= i, so dup2 always makes a fresh descriptor
			 * without close-on-exec. */
			if (dup2(moved[i], i) < 0)
				child_fail(report_fd, CONFINE_SPAWN_STEP_SETUP, errno, WHAT_DUP);
		} else if (is_internal_fd(plan, i)) {
			/* The caller had this stream closed; keep it closed. */
			close(i);
		} else {
			/* Inherit what the caller has, even if it is close-on-exec. */
			int flags = fcntl(i, F_GETFD);
			if (flags >= 0 && (flags & FD_CLOEXEC))
				(void)fcntl(i, F_SETFD, flags & ~FD_CLOEXEC);
		}
	}
	/* A leaked writable descriptor is a write channel no profile can stop. */
	if (child_cloexec_from_3() < 0)
		child_fail(report_fd, CONFINE_SPAWN_STEP_SETUP, errno, WHAT_CLOEXEC);

	/* The caller may ignore or handle signals; the command starts with the
	 * defaults and nothing blocked. The parent blocked everything before
	 * starting this child, so no caller handler has run here; every
	 * disposition is SIG_DFL before anything is unblocked, so none can (a
	 * child sharing the caller's memory must never run its handlers). */
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)sigaction(sig, &dfl, NULL);
	sigemptyset(&empty);
	if (sigprocmask(SIG_SETMASK, &empty, NULL) < 0)
		child_fail(report_fd, CONFINE_SPAWN_STEP_SETUP, errno, WHAT_SIGNALS);

	if (plan->workdir && chdir(plan->workdir) < 0)
		child_fail(report_fd, CONFINE_SPAWN_STEP_CHDIR, errno, WHAT_NONE);

	child_exec_candidates(plan, report_fd);
}

/* ------------------------------------------------------------------------ */
/* Starting the child                                                       */

#if CF_SPAWN_SHARED_VM
/* The child's own stack: child_main's deepest frame is the 4 KiB getdents
 * buffer of the /proc walk plus libc's system call wrappers, far below this.
 * Below it sits one inaccessible guard page, so an overflow faults instead
 * of writing into whatever the caller had mapped there. */
#define CHILD_STACK_SIZE (64 * 1024)

static int child_entry(void *arg) {
	child_main(arg); /* execs or _exits */
	return 127;
}

/* Every signal, glibc's internal ones included (its sigfillset and
 * pthread_sigmask leave the cancellation and set*id signals open, and their
 * handlers would run in the child on the caller's thread structures): the
 * raw system call, as glibc's posix_spawn does. `old` receives the mask. */
static void block_all_signals(sigset_t *old) {
	sigset_t all;
	memset(&all, 0xff, sizeof all);
	(void)syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, old, (size_t)(_NSIG / 8));
}

static void restore_signals(const sigset_t *old) {
	(void)syscall(SYS_rt_sigprocmask, SIG_SETMASK, old, NULL, (size_t)(_NSIG / 8));
}

/*
 * Starts the child sharing this process's memory, suspended (CLONE_VFORK)
 * until the child execs or exits, so no page table is copied. The child runs
 * on the thread of the caller, on a stack mapped here for it, and must leave
 * the caller's state as it found it:
 *  - it only reads the plan (which lives on our suspended stack) and makes
 *    system calls through libc wrappers that take no lock and allocate
 *    nothing; it never returns into our frames (exec or _exit);
 *  - its errno is our thread's errno (same TLS): saved here and restored
 *    once it has gone;
 *  - no handler of the caller may run in it, on memory the caller is using:
 *    every signal stays blocked from before the clone until the child has
 *    reset every disposition to SIG_DFL (child_main); its disposition table
 *    is its own copy (no CLONE_SIGHAND), as are its descriptor table and its
 *    working directory (no CLONE_FILES, no CLONE_FS).
 * Returns 0 with *ret_pid, or the errno of the failure.
 */
static int start_child(struct child_plan *plan, pid_t *ret_pid) {
	long page_size = sysconf(_SC_PAGESIZE);
	size_t guard = page_size > 0 ? (size_t)page_size : 4096;
	size_t len = CHILD_STACK_SIZE + guard;
	char *map;
	sigset_t old;
	int saved_errno = errno;
	int e = 0;
	pid_t pid;

	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (map == MAP_FAILED)
		return errno;
	if (mprotect(map, guard, PROT_NONE) < 0) {
		e = errno;
		munmap(map, len);
		return e;
	}
	block_all_signals(&old);
	/* The stack grows down on every architecture Linux runs this on but
	 * PA-RISC, where clone() takes its lowest address. */
#if defined(__hppa__)
	pid = clone(child_entry, map + guard, CLONE_VM | CLONE_VFORK | SIGCHLD, plan);
#else
	pid = clone(child_entry, map + len, CLONE_VM | CLONE_VFORK | SIGCHLD, plan);
#endif
	if (pid < 0)
		e = errno;
	restore_signals(&old);
	/* The child has exec'd (its own memory now) or exited: the stack is free. */
	munmap(map, len);
	errno = saved_errno;
	if (pid < 0)
		return e;
	*ret_pid = pid;
	return 0;
}
#else
/* A forked child has its own copy of everything; blocking every signal
 * around fork keeps a caller's handler from running in it before it resets
 * the dispositions. */
static int start_child(struct child_plan *plan, pid_t *ret_pid) {
	sigset_t all, old;
	pid_t pid;
	int e;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0)
		child_main(plan); /* does not return */
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pid < 0)
		return e;
	*ret_pid = pid;
	return 0;
}
#endif

bool cf_spawn_shares_memory(void) {
	return CF_SPAWN_SHARED_VM;
}

void cf_process_set_kill_grace_ms(confine_process *process, unsigned grace_ms) {
	process->kill_grace_ms = grace_ms;
}

/* ------------------------------------------------------------------------ */
/* Preparing                                                                */

void confine_spawn_options_init(confine_spawn_options *options) {
	if (!options)
		return;
	memset(options, 0, sizeof *options);
	for (int i = 0; i < 3; i++) {
		options->stdio[i].kind = CONFINE_STDIO_INHERIT;
		options->stdio[i].fd = -1;
	}
}

static const char *const stream_names[3] = { "stdin", "stdout", "stderr" };

static const char *path_of(const char *const *envp) {
	if (envp) {
		for (const char *const *e = envp; *e; e++)
			if (strncmp(*e, "PATH=", 5) == 0)
				return *e + 5;
	}
	{
		const char *p = getenv("PATH");
		return p ? p : "/usr/local/bin:/usr/bin:/bin";
	}
}

/* The exec candidates for argv[0]: itself when it names a path; else every
 * PATH entry joined with it (the child's PATH, as env(1) would search). */
static char **exec_candidates(const char *program, const char *const *envp) {
	char **out = NULL;
	const char *path;
	if (strchr(program, '/')) {
		if (cf_strv_push(&out, program) < 0)
			return NULL;
		return out;
	}
	out = calloc(1, sizeof *out);
	if (!out)
		return NULL;
	path = path_of(envp);
	for (const char *p = path;;) {
		const char *end = p + strcspn(p, ":"); /* the ':' or the final NUL */
		size_t len = (size_t)(end - p);
		cf_buf b = { 0 };
		/* An empty entry means the current directory, as in execvp(3). */
		if ((len ? cf_buf_append(&b, p, len) : cf_buf_puts(&b, ".")) < 0 ||
		    cf_buf_printf(&b, "/%s", program) < 0 || cf_strv_push(&out, b.data) < 0) {
			cf_buf_free(&b);
			confine_strv_free(out);
			return NULL;
		}
		cf_buf_free(&b);
		if (!*end)
			break;
		p = end + 1;
	}
	return out;
}

static int oom(confine_error *err) {
	return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "spawn", ENOMEM, "out of memory");
}

static int validate(const confine_spawn_options *o, confine_error *err) {
	const char *const *argv;
	if (!o)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
		                    "spawn needs options");
	if (!!o->confined == !!o->argv)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
		                    "spawn needs exactly one of a confined argv and a plain argv");
	if (o->confined) {
		if (!confine_mode_is_confined(o->confined->policy.mode))
			return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
			                    "the confined argv carries mode \"%s\", which is not a "
			                    "confined mode",
			                    confine_mode_name(o->confined->policy.mode)
				                    ? confine_mode_name(o->confined->policy.mode)
				                    : "?");
		argv = (const char *const *)o->confined->argv;
	} else {
		argv = o->argv;
	}
	if (!argv || !argv[0] || !argv[0][0])
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
		                    "spawn needs a non-empty argv (argv[0] is missing or empty)");
	/* A runner named relatively would be looked up from the working
	 * directory, the workspace the command may write: a planted "bwrap"
	 * there would run instead. Providers place runners absolute. */
	if (o->confined && argv[0][0] != '/')
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
		                    "the confined argv's runner \"%s\" is not an absolute path; "
		                    "refusing to look it up",
		                    argv[0]);
	if (o->workdir && !o->workdir[0])
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
		                    "the working directory \"\" is empty");
	for (int i = 0; i < 3; i++) {
		const confine_stdio *s = &o->stdio[i];
		switch (s->kind) {
		case CONFINE_STDIO_INHERIT:
		case CONFINE_STDIO_NULL:
			break;
		case CONFINE_STDIO_CAPTURE:
		case CONFINE_STDIO_TEE:
			if (i == 0)
				return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
				                    "stdin cannot be captured (use inherit, a descriptor "
				                    "or /dev/null)");
			if (s->kind == CONFINE_STDIO_CAPTURE)
				break;
			/* fall through: a tee needs its target descriptor */
			__attribute__((fallthrough));
		case CONFINE_STDIO_FD:
			if (s->fd < 0 || fcntl(s->fd, F_GETFD) < 0)
				return cf_error_set(err, EBADF, CONFINE_E_INVALID_ARGUMENT, "spawn", EBADF,
				                    "the %s descriptor %d is not an open descriptor",
				                    stream_names[i], s->fd);
			break;
		default:
			return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
			                    "unknown %s kind %d", stream_names[i], (int)s->kind);
		}
	}
	return 0;
}

static void close_fd(int *fd) {
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

int cf_pipe_cloexec(int fds[2]) {
#if HAVE_PIPE2
	return pipe2(fds, O_CLOEXEC);
#else
	/* No pipe2 (macOS): the flag is set just after. Until then another
	 * thread of the caller that forks and execs (with its own spawner, not
	 * this one: ours start no child here) inherits these two descriptors;
	 * POSIX offers no atomic way to close that window. Our own child never
	 * sees them leak: it marks every descriptor above 2 close-on-exec. */
	if (pipe(fds) < 0)
		return -1;
	if (fcntl(fds[0], F_SETFD, FD_CLOEXEC) < 0 || fcntl(fds[1], F_SETFD, FD_CLOEXEC) < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		errno = e;
		return -1;
	}
	return 0;
#endif
}

static const char *setup_what_text(int what) {
	switch (what) {
	case WHAT_SETSID: return "cannot start a new session";
	case WHAT_DUP: return "cannot set up the standard streams";
	case WHAT_CLOEXEC: return "cannot close inherited descriptors";
	case WHAT_SIGNALS: return "cannot reset the signal mask";
	default: return "cannot set up the child process";
	}
}

/* The child did not exec: turn its report into the error (SPEC 8's spawn
 * rejection decides whether it is evidence of a broken runner). */
static int start_failure(const confine_spawn_options *o, const char *program,
                         const char *workdir, const struct child_report *rep,
                         confine_error *err) {
	int e = rep->error_number > 0 ? rep->error_number : EIO;
	switch ((confine_spawn_step)rep->step) {
	case CONFINE_SPAWN_STEP_CHDIR:
		return cf_error_set(err, e, CONFINE_E_SPAWN, "spawn", e,
		                    "cannot change to working directory \"%s\": %s",
		                    workdir ? workdir : ".", strerror(e));
	case CONFINE_SPAWN_STEP_EXEC:
		if (o->confined &&
		    confine_classify_spawn_rejection(CONFINE_SPAWN_STEP_EXEC, e,
		                                     confine_workdir_usable(workdir ? workdir : "."))) {
			char detail[4096 + 128];
			int r;
			snprintf(detail, sizeof detail, "cannot execute %s: %s", program, strerror(e));
			r = confine_error_sandbox_unavailable(err, o->confined->policy.mode, detail);
			if (err)
				err->sys_errno = e;
			return r;
		}
		return cf_error_set(err, e, CONFINE_E_SPAWN, "spawn", e, "cannot execute \"%s\": %s",
		                    program, strerror(e));
	case CONFINE_SPAWN_STEP_SETUP:
	case CONFINE_SPAWN_STEP_NONE:
	default:
		return cf_error_set(err, e, CONFINE_E_SPAWN, "spawn", e, "%s for \"%s\": %s",
		                    setup_what_text(rep->what), program, strerror(e));
	}
}

int confine_spawn(const confine_spawn_options *o, confine_process **ret, confine_error *err) {
	confine_process *p = NULL;
	struct child_plan plan;
	char **candidates = NULL;
	const char *const *argv;
	const char *workdir;
	int report[2] = { -1, -1 };
	int child_end[3] = { -1, -1, -1 };
	int devnull = -1;
	pid_t pid = -1;
	int r;

	r = validate(o, err);
	if (r < 0)
		return r;
	if (!ret)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
		                    "spawn needs a result pointer");

	p = calloc(1, sizeof *p);
	if (!p)
		return oom(err);
	p->pid = -1;
	p->pidfd = -1;
	for (int i = 0; i < 3; i++) {
		p->streams[i].fd = -1;
		p->streams[i].tee_fd = -1;
	}
	p->capture_limit = o->capture_limit ? o->capture_limit : CONFINE_DEFAULT_CAPTURE_LIMIT;
	p->runner_supervises = o->confined && (o->confined->runner == CONFINE_RUNNER_BWRAP ||
	                                       o->confined->runner == CONFINE_RUNNER_RUNNER_COMMAND);
	p->timeout_ms = o->timeout_ms;
	p->kill_grace_ms = CONFINE_KILL_GRACE_MS;
	p->fallback_wait_ms = 1;

	if (o->confined) {
		if (confine_argv_copy(o->confined, &p->confined) < 0) {
			r = oom(err);
			goto fail;
		}
		argv = (const char *const *)p->confined->argv;
	} else {
		argv = o->argv;
	}
	workdir = o->workdir;
	if (!workdir && p->confined)
		workdir = p->confined->policy.workspace_root;
	if (workdir) {
		p->workdir = strdup(workdir);
		if (!p->workdir) {
			r = oom(err);
			goto fail;
		}
	}
	candidates = exec_candidates(argv[0], o->envp);
	if (!candidates) {
		r = oom(err);
		goto fail;
	}

	memset(&plan, 0, sizeof plan);
	plan.argv = (char *const *)argv;
	plan.envp = o->envp ? (char *const *)o->envp : cf_environ;
	plan.candidates = candidates;
	plan.workdir = p->workdir;

	if (cf_pipe_cloexec(report) < 0) {
		r = cf_error_set(err, errno, CONFINE_E_SYSTEM, "spawn", errno,
		                 "cannot create a pipe: %s", strerror(errno));
		goto fail;
	}
	plan.report_fd = report[1];
	plan.internal_fds[plan.n_internal++] = report[0];
	plan.internal_fds[plan.n_internal++] = report[1];
	for (int i = 0; i < 3; i++) {
		const confine_stdio *s = &o->stdio[i];
		plan.source_fd[i] = -1;
		switch (s->kind) {
		case CONFINE_STDIO_INHERIT:
			break;
		case CONFINE_STDIO_FD:
			plan.source_fd[i] = s->fd;
			break;
		case CONFINE_STDIO_NULL:
			/* Opened before fork: the child must not call open(3) on a path
			 * that could fail for reasons we could not report well. */
			if (devnull < 0) {
				devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
				if (devnull < 0) {
					r = cf_error_set(err, errno, CONFINE_E_SYSTEM, "spawn", errno,
					                 "cannot open /dev/null: %s", strerror(errno));
					goto fail;
				}
				plan.internal_fds[plan.n_internal++] = devnull;
			}
			plan.source_fd[i] = devnull;
			break;
		case CONFINE_STDIO_CAPTURE:
		case CONFINE_STDIO_TEE: {
			int fds[2];
			if (cf_pipe_cloexec(fds) < 0) {
				r = cf_error_set(err, errno, CONFINE_E_SYSTEM, "spawn", errno,
				                 "cannot create a pipe: %s", strerror(errno));
				goto fail;
			}
			p->streams[i].fd = fds[0];
			child_end[i] = fds[1];
			plan.internal_fds[plan.n_internal++] = fds[0];
			plan.internal_fds[plan.n_internal++] = fds[1];
			plan.source_fd[i] = fds[1];
			p->streams[i].captured = true;
			if (s->kind == CONFINE_STDIO_TEE)
				p->streams[i].tee_fd = s->fd;
			(void)fcntl(fds[0], F_SETFL, O_NONBLOCK);
			break;
		}
		}
	}

	r = start_child(&plan, &pid);
	if (r > 0) {
		r = cf_error_set(err, r, CONFINE_E_SYSTEM, "spawn", r, "cannot start a process: %s",
		                 strerror(r));
		goto fail;
	}
	p->pid = pid;
	close_fd(&report[1]);
	for (int i = 0; i < 3; i++)
		close_fd(&child_end[i]);
	close_fd(&devnull);

	{
		struct child_report rep;
		ssize_t n;
		do
			n = read(report[0], &rep, sizeof rep);
		while (n < 0 && errno == EINTR);
		close_fd(&report[0]);
		if (n == (ssize_t)sizeof rep) {
			/* It never ran anything: reap it and report the step. */
			int status;
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			p->pid = -1;
			r = start_failure(o, argv[0], p->workdir, &rep, err);
			goto fail;
		}
		/* EOF: the report pipe closed on exec. (A short read would mean
		 * the child died mid-report; its status then tells.) */
	}

#if HAVE_SYS_PIDFD_OPEN
	{
		/* pidfd_open's descriptor is close-on-exec. Without it (old
		 * kernels, seccomp, valgrind) the wait falls back to short polls,
		 * and the caller's errno is left as it was: a started child is a
		 * success. */
		int saved = errno;
		long fd = syscall(SYS_pidfd_open, pid, 0);
		p->pidfd = fd >= 0 ? (int)fd : -1;
		errno = saved;
	}
#endif
	p->state = STATE_RUNNING;
	if (p->timeout_ms)
		p->deadline_ms = cf_now_ms() + p->timeout_ms;
	confine_strv_free(candidates);
	*ret = p;
	return 0;

fail:
	close_fd(&report[0]);
	close_fd(&report[1]);
	for (int i = 0; i < 3; i++)
		close_fd(&child_end[i]);
	close_fd(&devnull);
	confine_strv_free(candidates);
	confine_process_free(p);
	return r;
}

/* ------------------------------------------------------------------------ */
/* Running                                                                  */

pid_t confine_process_pid(const confine_process *process) {
	return process ? process->pid : -1;
}

/* Writes all of `data` to the tee target without letting a closed reader
 * raise SIGPIPE in the caller (the library must not kill its host). */
static void tee_write(struct stream *s, const char *data, size_t len) {
	sigset_t pipe_set, old;
	bool was_pending;
	sigset_t pending;
	bool got_epipe = false;
#if HAVE_F_SETNOSIGPIPE
	int nosigpipe;
#endif

	if (s->tee_fd < 0 || s->tee_broken)
		return;
#if HAVE_F_SETNOSIGPIPE
	/* macOS raises a write's SIGPIPE on the process, not on the writing
	 * thread, so the mask below cannot keep another thread of the caller
	 * (one with SIGPIPE unblocked) from taking it and dying. Suppress it
	 * on the descriptor for these writes and put the caller's setting back
	 * after; until then other writers sharing this open file get EPIPE
	 * instead of SIGPIPE. */
	nosigpipe = fcntl(s->tee_fd, F_GETNOSIGPIPE);
	if (nosigpipe == 0 && fcntl(s->tee_fd, F_SETNOSIGPIPE, 1) < 0)
		nosigpipe = -1;
#endif
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	while (len > 0) {
		ssize_t n = write(s->tee_fd, data, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				struct pollfd pfd = { .fd = s->tee_fd, .events = POLLOUT };
				(void)poll(&pfd, 1, 100);
				continue;
			}
			if (errno == EPIPE)
				got_epipe = true;
			s->tee_broken = true;
			break;
		}
		data += n;
		len -= (size_t)n;
	}
	if (got_epipe && !was_pending) {
#if HAVE_SIGTIMEDWAIT
		struct timespec zero = { 0, 0 };
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
#else
		/* No sigtimedwait: sigwait blocks, so only call it when the
		 * SIGPIPE is known to be pending. Where a write's SIGPIPE goes to
		 * the writing thread (Linux, the BSDs), it is blocked there, so no
		 * other thread can take it between the check and the sigwait. On
		 * macOS, where it goes to the process, F_SETNOSIGPIPE above keeps
		 * it from being raised at all. A SIGPIPE the system discarded
		 * (ignored when raised) is simply not pending. */
		int sig;
		sigpending(&pending);
		if (sigismember(&pending, SIGPIPE))
			(void)sigwait(&pipe_set, &sig);
#endif
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
#if HAVE_F_SETNOSIGPIPE
	if (nosigpipe == 0)
		(void)fcntl(s->tee_fd, F_SETNOSIGPIPE, 0);
#endif
}

/* Reads what is available on one stream. */
static void pump_stream(confine_process *p, struct stream *s) {
	char chunk[16384];
	size_t pumped = 0;
	while (s->fd >= 0 && pumped < PUMP_MAX_BYTES) {
		ssize_t n = read(s->fd, chunk, sizeof chunk);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			close_fd(&s->fd);
			return;
		}
		if (n == 0) {
			close_fd(&s->fd);
			return;
		}
		pumped += (size_t)n;
		tee_write(s, chunk, (size_t)n);
		if (s->buf.len < p->capture_limit) {
			size_t room = p->capture_limit - s->buf.len;
			size_t keep = (size_t)n < room ? (size_t)n : room;
			if (cf_buf_append(&s->buf, chunk, keep) < 0)
				s->truncated = true; /* out of memory: keep what we have */
			else if (keep < (size_t)n)
				s->truncated = true;
		} else {
			s->truncated = true;
		}
	}
}

static void pump(confine_process *p) {
	for (int i = 1; i < 3; i++)
		pump_stream(p, &p->streams[i]);
}

static bool pipes_open(const confine_process *p) {
	return p->streams[1].fd >= 0 || p->streams[2].fd >= 0;
}

/* ------------------------------------------------------------------------ */
/* The process tree                                                         */

/*
 * A run's processes are not all in its process group. Under bwrap the
 * command runs below bwrap's own init, which leads a session of its own
 * (--new-session), so a signal for the command sent to the child's group
 * reaches bwrap instead: bwrap dies of it and takes the command down before
 * it can clean up. Under Landlock (and unconfined) a descendant that calls
 * setsid leaves the group and would outlive a timeout or the end of the run.
 *
 * So signals are delivered along the descendant tree, found on Linux in
 * /proc/<pid>/task/<tid>/children (CONFIG_PROC_CHILDREN), or where that file
 * is absent by scanning every /proc/<pid>/stat for parent links. Only
 * processes found below the child just now are signalled, and a group only
 * through a process found to lead it (pgid == pid): a pid read from /proc
 * could otherwise have been reused. (A pid found as a child can still end,
 * be reaped and be reused between the read and the kill; that window is the
 * few microseconds between the two system calls.)
 *
 * The walk allocates nothing and makes only open/read/close/getdents64/kill
 * calls, so confine_process_signal() stays callable from a signal handler
 * (the CLI forwards SIGINT that way). Its size is bounded (TREE_MAX); a
 * larger tree is signalled in the part found. Elsewhere (no /proc) the tree
 * is the child alone and its group is signalled as before.
 */
#define TREE_MAX 1024

struct proc_tree {
	size_t n;
	pid_t pid[TREE_MAX];
	pid_t pgid[TREE_MAX];
};

static bool tree_force_scan;

void cf_process_tree_force_scan(bool on) {
	tree_force_scan = on;
}

static bool tree_has(const struct proc_tree *t, pid_t pid) {
	for (size_t i = 0; i < t->n; i++)
		if (t->pid[i] == pid)
			return true;
	return false;
}

static bool tree_add(struct proc_tree *t, pid_t pid, pid_t pgid) {
	if (t->n >= TREE_MAX || tree_has(t, pid))
		return false;
	t->pid[t->n] = pid;
	t->pgid[t->n] = pgid;
	t->n++;
	return true;
}

#if CONFINE_OS_LINUX && defined(SYS_getdents64)
#define CF_PROC_TREE 1

static size_t put_str(char *buf, size_t size, size_t len, const char *s) {
	for (; *s && len + 1 < size; s++)
		buf[len++] = *s;
	buf[len] = '\0';
	return len;
}

static size_t put_num(char *buf, size_t size, size_t len, pid_t value) {
	char digits[24];
	size_t n = 0;
	unsigned long v = (unsigned long)value;
	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0 && n < sizeof digits);
	while (n > 0 && len + 1 < size)
		buf[len++] = digits[--n];
	buf[len] = '\0';
	return len;
}

/* "/proc/<pid>[/task/<tid>]<tail>", without snprintf (not
 * async-signal-safe). */
static void proc_path(char *buf, size_t size, pid_t pid, pid_t tid, const char *tail) {
	size_t len = put_str(buf, size, 0, "/proc/");
	len = put_num(buf, size, len, pid);
	if (tid > 0) {
		len = put_str(buf, size, len, "/task/");
		len = put_num(buf, size, len, tid);
	}
	(void)put_str(buf, size, len, tail);
}

/* Parent and group of `pid` from /proc/<pid>/stat. */
static bool proc_stat(pid_t pid, pid_t *ppid, pid_t *pgid) {
	char path[64], buf[1024];
	ssize_t n;
	char *p;
	long fields[2] = { 0, 0 };
	int fd;
	proc_path(path, sizeof path, pid, 0, "/stat");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	do
		n = read(fd, buf, sizeof buf - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "pid (comm) S ppid pgrp ...": comm may hold spaces and parentheses,
	 * so parse from the last ')'. */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return false;
	p += 4;
	for (int k = 0; k < 2; k++) {
		bool digits = false;
		while (*p >= '0' && *p <= '9') {
			fields[k] = fields[k] * 10 + (*p++ - '0');
			digits = true;
		}
		if (!digits || (k == 0 && *p++ != ' '))
			return false;
	}
	*ppid = (pid_t)fields[0];
	*pgid = (pid_t)fields[1];
	return true;
}

struct children_walk {
	struct proc_tree *t;
	pid_t parent;
	bool unsupported; /* no children file: the kernel lacks CONFIG_PROC_CHILDREN */
};

/* A child found in a children file joins the tree if /proc still shows it
 * below the same parent. */
static void add_child(struct children_walk *w, pid_t child) {
	pid_t ppid, pgid;
	if (child > 0 && proc_stat(child, &ppid, &pgid) && ppid == w->parent)
		(void)tree_add(w->t, child, pgid);
}

/* One thread's children file: space-separated pids. */
static void read_children_of_task(pid_t tid, void *data) {
	struct children_walk *w = data;
	char path[96], buf[512];
	long value = 0;
	bool in_number = false;
	ssize_t n;
	int fd;
	proc_path(path, sizeof path, w->parent, tid, "/children");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT && tid == w->parent)
			w->unsupported = true; /* the main thread exists: the file does not */
		return;
	}
	for (;;) {
		do
			n = read(fd, buf, sizeof buf);
		while (n < 0 && errno == EINTR);
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] >= '0' && buf[i] <= '9') {
				if (value < INT_MAX / 10)
					value = value * 10 + (buf[i] - '0');
				in_number = true;
			} else if (in_number) {
				add_child(w, (pid_t)value);
				value = 0;
				in_number = false;
			}
		}
	}
	if (in_number)
		add_child(w, (pid_t)value);
	close(fd);
}

struct scan {
	struct proc_tree *t;
	pid_t want_pgid; /* > 0: collect the members of this group instead */
	/* With after > 0: only pids handed out after `after` up to `last`
	 * (wrapping around when last < after) can match. */
	pid_t after, last;
	bool added;
};

static void scan_one(pid_t pid, void *data) {
	struct scan *s = data;
	pid_t ppid, pgid;
	if (s->after > 0 && (s->last >= s->after ? pid <= s->after || pid > s->last
	                                         : pid <= s->after && pid > s->last))
		return;
	if (tree_has(s->t, pid) || !proc_stat(pid, &ppid, &pgid))
		return;
	if (s->want_pgid > 0 ? pgid == s->want_pgid : tree_has(s->t, ppid))
		s->added |= tree_add(s->t, pid, pgid);
}

/* Whether /proc shows this process's own PID namespace: under a PID
 * namespace with another namespace's /proc mounted, the pids read there are
 * not ours to signal. readlink is async-signal-safe; nothing allocates. */
static bool proc_is_our_namespace(void) {
	char buf[32];
	ssize_t n = readlink("/proc/self", buf, sizeof buf - 1);
	long value = 0;
	if (n <= 0)
		return false;
	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return false;
		value = value * 10 + (buf[i] - '0');
	}
	return value == (long)getpid();
}

/* Extends the tree with every descendant of the processes in it (nothing
 * where /proc belongs to another PID namespace: the process groups alone
 * are then signalled). */
static void tree_expand(struct proc_tree *t) {
	if (!proc_is_our_namespace())
		return;
	if (!tree_force_scan) {
		bool unsupported = false;
		for (size_t i = 0; i < t->n && !unsupported; i++) {
			char path[64];
			struct children_walk w = { t, t->pid[i], false };
			proc_path(path, sizeof path, t->pid[i], 0, "/task");
			(void)for_each_number(path, read_children_of_task, &w);
			unsupported = w.unsupported;
		}
		if (!unsupported)
			return;
	}
	/* No children files: follow parent links through all of /proc until a
	 * pass adds nothing. */
	for (;;) {
		struct scan s = { t, 0, 0, 0, false };
		if (!for_each_number("/proc", scan_one, &s) || !s.added || t->n >= TREE_MAX)
			return;
	}
}

/* The pid most recently handed out in our PID namespace, or 0. */
static pid_t last_pid(void) {
	char buf[32];
	ssize_t n;
	long value = 0;
	int fd = open("/proc/sys/kernel/ns_last_pid", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	do
		n = read(fd, buf, sizeof buf - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9' && value < INT_MAX / 10; i++)
		value = value * 10 + (buf[i] - '0');
	return (pid_t)value;
}

/* Adds the live members of the group led by `leader` (which has ended,
 * unreaped). Its members were started after it, so only the /proc entries
 * whose pids were handed out since are read: those after the leader's up to
 * the last one handed out (pids are handed out in increasing order, wrapping
 * around at pid_max). A run pays for the processes started since, not for
 * every process on the host: reading each stat costs microseconds, and this
 * runs at the end of every run. Without ns_last_pid every entry is read. */
static void tree_add_group(struct proc_tree *t, pid_t leader) {
	pid_t last = last_pid();
	struct scan s = { t, leader, last > 0 ? leader : 0, last, false };
	if (last == leader)
		return; /* nothing was started since the leader */
	(void)for_each_number("/proc", scan_one, &s);
}
#else
#define CF_PROC_TREE 0
static void tree_expand(struct proc_tree *t) {
	(void)t;
}
#endif

/*
 * Sends `sig` along the tree: to each group through its leader, and to each
 * process whose group leader was not found on its own. With `spare_group`
 * > 0, the processes of that group are left out, provided the tree holds
 * some other process to receive the signal. Returns 0 when at least one
 * kill succeeded, else the first failure's -errno (-ESRCH for none).
 */
static int tree_signal(const struct proc_tree *t, int sig, pid_t spare_group) {
	bool sent = false;
	int first_error = 0;
	if (spare_group > 0) {
		bool other = false;
		for (size_t i = 0; i < t->n && !other; i++)
			other = t->pgid[i] != spare_group;
		if (!other)
			spare_group = 0;
	}
	for (size_t i = 0; i < t->n; i++) {
		pid_t target;
		int r;
		if (spare_group > 0 && t->pgid[i] == spare_group)
			continue;
		if (t->pid[i] == t->pgid[i]) {
			target = -t->pid[i];
		} else {
			bool leader_found = false;
			for (size_t j = 0; j < t->n && !leader_found; j++)
				leader_found = t->pid[j] == t->pgid[i];
			if (leader_found)
				continue; /* the group's kill reaches it */
			target = t->pid[i];
		}
		r = kill(target, sig);
		if (r == 0)
			sent = true;
		else if (!first_error)
			first_error = -errno;
	}
	if (sent)
		return 0;
	return first_error ? first_error : -ESRCH;
}

/* The child's tree: the child (a session and group leader: it called
 * setsid) and everything found below it. */
static void tree_of_child(const confine_process *p, struct proc_tree *t) {
	t->n = 0;
	(void)tree_add(t, p->pid, p->pid);
	tree_expand(t);
}

/* Delivers `sig` to the run. A bwrap-shaped runner (bwrap, or an operator's
 * runnerCommand) supervises the command and reports its status: a signal
 * meant for the command must not end the runner first, so the runner's own
 * group is spared whenever something below it can receive the signal.
 * SIGKILL spares nothing. */
static int deliver(const confine_process *p, int sig) {
	struct proc_tree t;
	int saved = errno;
	int r;
	tree_of_child(p, &t);
	r = tree_signal(&t, sig, sig != SIGKILL && p->runner_supervises ? p->pid : 0);
	errno = saved;
	return r;
}

int cf_signal_descendants(pid_t root, int sig) {
	struct proc_tree t;
	int count = 0;
	int saved = errno;
	t.n = 0;
	(void)tree_add(&t, root, 0);
	tree_expand(&t);
	for (size_t i = 1; i < t.n; i++)
		if (kill(t.pid[i], sig) == 0)
			count++;
	errno = saved;
	return count;
}

/* The leader has ended (not yet reaped, so its group id cannot be reused):
 * kill its group and what is still attached below the group's surviving
 * members. A descendant that had already been orphaned (its parent ended
 * before) is out of reach here; see confine_spawn's documentation. */
static void kill_after_leader(const confine_process *p) {
	struct proc_tree t;
	int saved = errno;
	t.n = 0;
	(void)tree_add(&t, p->pid, p->pid);
#if CF_PROC_TREE
	tree_add_group(&t, p->pid);
#endif
	/* The ended leader has no children left (they were reparented when it
	 * ended): only surviving members have anything below them. */
	if (t.n > 1)
		tree_expand(&t);
	(void)tree_signal(&t, SIGKILL, 0);
	errno = saved;
}

static void signal_group(confine_process *p, int sig) {
	if (p->pid > 0)
		(void)kill(-p->pid, sig);
}

/* Has the leader ended? If so, end what is left of its group while the
 * unreaped leader still pins the group's id (so the id cannot be reused
 * under us), then reap it. */
static void check_leader(confine_process *p) {
	siginfo_t info;
	int status;
	memset(&info, 0, sizeof info);
	if (waitid(P_PID, (id_t)p->pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0) {
		if (errno == EINTR)
			return;
		/* ECHILD: someone else reaped it (SIGCHLD ignored, or a
		 * waitpid(-1) elsewhere). The status is lost. */
		p->wait_errno = errno;
		p->leader_ended = 1;
		signal_group(p, SIGKILL);
		goto reaped;
	}
	if (info.si_pid == 0)
		return; /* still running */
	if (info.si_code != CLD_EXITED && info.si_code != CLD_KILLED && info.si_code != CLD_DUMPED) {
		/* macOS's waitid can answer WEXITED with a stopped or continued
		 * child (Linux never does): that is not an end. Consume the
		 * notification (the child is ours) so the next check sees past it. */
		memset(&info, 0, sizeof info);
		(void)waitid(P_PID, (id_t)p->pid, &info, WSTOPPED | WCONTINUED | WNOHANG);
		return;
	}
	/* A confined tree never outlives its run: its group, and what is still
	 * attached below the group's other members. */
	p->leader_ended = 1;
	kill_after_leader(p);
	for (;;) {
		pid_t w = waitpid(p->pid, &status, 0);
		if (w == p->pid) {
			p->status = status;
			break;
		}
		if (w < 0 && errno == EINTR)
			continue;
		p->wait_errno = w < 0 ? errno : ECHILD;
		break;
	}
reaped:
	close_fd(&p->pidfd);
	p->state = STATE_DRAINING;
	p->drain_until_ms = cf_now_ms() + DRAIN_GRACE_MS;
}

static void enforce_timeout(confine_process *p, long long now) {
	if (!p->timeout_ms || p->state != STATE_RUNNING)
		return;
	if (!p->term_sent && now >= p->deadline_ms) {
		p->timed_out = true;
		p->term_sent = true;
		p->kill_at_ms = now + p->kill_grace_ms;
		if (p->kill_grace_ms)
			(void)deliver(p, SIGTERM);
	}
	if (p->term_sent && !p->kill_sent && now >= p->kill_at_ms) {
		p->kill_sent = true;
		(void)deliver(p, SIGKILL);
	}
}

/* One step of the run: waits at most until something happens (when
 * `block`), pumps output, notices the leader's end, enforces the timeout.
 * Returns true once settled. */
static bool step(confine_process *p, bool block) {
	struct pollfd pfds[3];
	nfds_t n = 0;
	int wait_ms = 0;
	long long now = cf_now_ms();

	if (p->state == STATE_SETTLED)
		return true;
	enforce_timeout(p, now);

	if (block) {
		long long until = -1;
		if (p->state == STATE_RUNNING) {
			if (p->timeout_ms)
				until = p->term_sent ? (p->kill_sent ? -1 : p->kill_at_ms) : p->deadline_ms;
		} else {
			until = p->drain_until_ms;
		}
		if (until < 0)
			wait_ms = -1;
		else
			wait_ms = until > now ? (int)(until - now > INT_MAX ? INT_MAX : until - now) : 0;
		if (p->state == STATE_RUNNING && p->pidfd < 0) {
			if (wait_ms < 0 || wait_ms > p->fallback_wait_ms)
				wait_ms = p->fallback_wait_ms;
			if (p->fallback_wait_ms < FALLBACK_MAX_WAIT_MS)
				p->fallback_wait_ms *= 2;
		}
	}
	if (p->state == STATE_RUNNING && p->pidfd >= 0)
		pfds[n++] = (struct pollfd){ .fd = p->pidfd, .events = POLLIN };
	for (int i = 1; i < 3; i++)
		if (p->streams[i].fd >= 0)
			pfds[n++] = (struct pollfd){ .fd = p->streams[i].fd, .events = POLLIN };
	if (n > 0 || wait_ms != 0)
		(void)poll(n ? pfds : NULL, n, wait_ms);

	pump(p);
	if (p->state == STATE_RUNNING)
		check_leader(p);
	if (p->state == STATE_DRAINING) {
		pump(p);
		if (!pipes_open(p) || cf_now_ms() >= p->drain_until_ms) {
			close_fd(&p->streams[1].fd);
			close_fd(&p->streams[2].fd);
			p->state = STATE_SETTLED;
		}
	}
	return p->state == STATE_SETTLED;
}

int confine_process_poll(confine_process *process, confine_error *err) {
	if (!process || process->pid <= 0)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "wait", 0,
		                    "poll needs a started process");
	return step(process, false) ? 1 : 0;
}

int confine_process_signal(confine_process *process, int sig) {
	if (!process || process->pid <= 0)
		return -EINVAL;
	if (process->state != STATE_RUNNING || process->leader_ended)
		return -ESRCH;
	return deliver(process, sig);
}

static int copy_stream(const struct stream *s, char **data, size_t *len, bool *truncated) {
	*truncated = s->truncated;
	if (!s->captured) {
		*data = NULL;
		*len = 0;
		return 0;
	}
	*data = malloc(s->buf.len + 1);
	if (!*data)
		return -ENOMEM;
	if (s->buf.len)
		memcpy(*data, s->buf.data, s->buf.len);
	(*data)[s->buf.len] = '\0';
	*len = s->buf.len;
	return 0;
}

/* Settlement classification (SPEC 8 and 9): runner failure first, with
 * this run's own rules; denial second, with its own dialect. Both read only
 * what was captured of stderr. */
static int classify(const confine_process *p, confine_outcome *o) {
	const confine_argv *c = p->confined;
	o->confined = c != NULL;
	if (!c) {
		o->mode = CONFINE_MODE_DANGER_FULL_ACCESS;
		o->runner = CONFINE_RUNNER_NONE;
		o->enforcement = CONFINE_ENFORCEMENT_FULL;
		return 0;
	}
	o->mode = c->policy.mode;
	o->runner = c->runner;
	o->enforcement = c->enforcement;
	{
		char *detail = NULL;
		int r = confine_classify_runner_failure(o->signaled ? 0 : o->exit_code, o->signaled,
		                                        o->stderr_data, o->stderr_len, c->rules,
		                                        c->n_rules, &detail);
		if (r < 0)
			return r;
		if (r > 0) {
			o->runner_failed = true;
			o->runner_failure_detail = detail;
			return 0;
		}
	}
	o->denied = confine_classify_denial(o->signaled ? 0 : o->exit_code, o->signaled,
	                                    o->stderr_data, o->stderr_len, c->denial_signatures);
	return 0;
}

int confine_process_wait(confine_process *process, confine_outcome **ret, confine_error *err) {
	confine_outcome *o;
	if (!process || process->pid <= 0 || !ret)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "wait", 0,
		                    "wait needs a started process and a result pointer");
	while (!step(process, true))
		;
	if (process->wait_errno)
		return cf_error_set(err, process->wait_errno, CONFINE_E_SYSTEM, "wait",
		                    process->wait_errno,
		                    "cannot collect the exit status of process %d: %s (is SIGCHLD "
		                    "ignored?)",
		                    (int)process->pid, strerror(process->wait_errno));
	o = calloc(1, sizeof *o);
	if (!o)
		return oom(err);
	if (WIFSIGNALED(process->status)) {
		o->signaled = true;
		o->signal = WTERMSIG(process->status);
		o->exit_code = -1;
	} else {
		o->exit_code = WEXITSTATUS(process->status);
	}
	o->timed_out = process->timed_out;
	if (copy_stream(&process->streams[1], &o->stdout_data, &o->stdout_len,
	                &o->stdout_truncated) < 0 ||
	    copy_stream(&process->streams[2], &o->stderr_data, &o->stderr_len,
	                &o->stderr_truncated) < 0 ||
	    classify(process, o) < 0) {
		confine_outcome_free(o);
		return oom(err);
	}
	*ret = o;
	return 0;
}

void confine_process_free(confine_process *process) {
	if (!process)
		return;
	if (process->pid > 0 && process->state == STATE_RUNNING) {
		int status;
		(void)deliver(process, SIGKILL);
		while (waitpid(process->pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	close_fd(&process->pidfd);
	for (int i = 0; i < 3; i++) {
		close_fd(&process->streams[i].fd);
		cf_buf_free(&process->streams[i].buf);
	}
	confine_argv_free(process->confined);
	free(process->workdir);
	free(process);
}

int confine_run(const confine_spawn_options *options, confine_outcome **ret,
                confine_error *err) {
	confine_process *p;
	int r;
	if (!ret)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
		                    "run needs a result pointer");
	r = confine_spawn(options, &p, err);
	if (r < 0)
		return r;
	r = confine_process_wait(p, ret, err);
	confine_process_free(p);
	return r;
}

void confine_outcome_free(confine_outcome *outcome) {
	if (!outcome)
		return;
	free(outcome->stdout_data);
	free(outcome->stderr_data);
	free(outcome->runner_failure_detail);
	free(outcome);
}

int confine_outcome_error(const confine_outcome *outcome, confine_error *err) {
	if (!outcome || !outcome->runner_failed)
		return 0;
	return confine_error_sandbox_unavailable(
		err, outcome->mode,
		outcome->runner_failure_detail ? outcome->runner_failure_detail
		                               : "the runner failed before running the command");
}

unsigned cf_process_timeout_ms(const confine_process *process) {
	return process->timeout_ms;
}
