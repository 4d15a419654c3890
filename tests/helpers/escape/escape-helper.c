/* SPDX-License-Identifier: MIT */
/*
 * escape-helper: small attacker and harness tools for the escape suite
 * (tests/escape/). Some subcommands run *inside* the sandbox and try one
 * thing the shell cannot express (an ioctl, ptrace, a unix socket, setxattr);
 * others run *outside* as the harness (a pty that is the caller's terminal, a
 * unix-socket daemon that writes when poked).
 *
 * Every subcommand prints one line saying what the kernel answered and exits
 * 0 when the attempt succeeded, 1 when it was refused, 2 on usage errors.
 *
 *   tiocsti TEXT               push TEXT into fd 0's input queue (TIOCSTI)
 *   ptrace PID                 PTRACE_ATTACH to PID; on success kill it
 *   connect-unix SOCK MSG      connect to a pathname socket and send MSG;
 *                              once sent, wait for the peer to close (a
 *                              serve-unix daemon closes after acting on it)
 *   setxattr PATH NAME VALUE   set an extended attribute
 *   write-fd FD TEXT           write TEXT to an inherited descriptor
 *   handle-write PATH TEXT     reopen PATH for writing by file handle
 *                              (name_to_handle_at + open_by_handle_at), a
 *                              route that skips path lookup; append TEXT
 *   serve-unix SOCK FILE       harness: listen on SOCK in a child that appends
 *                              what it receives to FILE, then closes the
 *                              connection; prints the child's pid once
 *                              listening, then returns
 *   serve-net PORTFILE FILE    harness: a TCP and a UDP listener on one
 *                              127.0.0.1 port (written to PORTFILE) in a
 *                              child that appends what it receives to FILE
 *                              and answers TCP with a 2-byte HTTP response
 *                              "ok"; prints the child's pid, then returns
 *   pty-run RESULT -- ARGV...  harness: run ARGV with a new pty as its
 *                              controlling terminal and stdio; afterwards
 *                              write "injected=N" to RESULT, N the bytes that
 *                              are waiting in the terminal's input queue
 *                              (what a shell would read and run next)
 *
 * A socket path starting with "@" is an abstract address (connect-unix,
 * serve-unix). Host IPC, keyrings, tracing (issue 14, N2-N4, N10):
 *   shm-create KEY TEXT        harness: a SysV segment holding TEXT
 *   shm-write KEY TEXT         overwrite the segment's first bytes
 *   shm-read KEY               print the segment's text (exit 1: none)
 *   ipc-rm shm|msg|sem KEY     delete a SysV object (IPC_RMID)
 *   mq-create NAME             create a POSIX message queue (harness, or
 *                              an attempt from inside)
 *   mq-unlink NAME             delete a POSIX message queue
 *   mq-exists NAME             exit 0 when the queue exists
 *   add-key DESC               add a "user" key to the user keyring
 *   find-key DESC [--unlink]   exit 0 when the user keyring holds DESC
 *                              (harness: --unlink removes it)
 *   ptrace-hold PID            PTRACE_ATTACH and stay attached (the
 *                              tracee stays stopped) until killed
 *   mem-open PID               open /proc/PID/mem for writing (nothing
 *                              is written: the open is the evidence)
 *   vm-write PID               process_vm_writev one byte to address 1:
 *                              EFAULT means access was granted (nothing
 *                              can land there), EPERM/ESRCH refused
 *   kill-parent FILE           SIGKILL the parent (the launcher) at once,
 *                              then append "ran" to FILE: a race against
 *                              the launcher's `started` record
 *
 * A call the supervisor performs on the command's behalf that would block
 * (issue 21): each makes the blocking state, then a child makes one
 * blocking call in it, which never completes (nobody reads or accepts).
 * The parent appends "blocked <syscall number>" to STATE once the child is
 * seen asleep inside that syscall (/proc/<child>/syscall), and
 * "returned <result> <errno>" if it ever returns; then it waits for the
 * child. LABEL is unused: a token for the harness to find the process by.
 *   block-send stream|dgram STATE LABEL
 *                              fill one end of a socketpair, then a
 *                              blocking sendmsg of one byte on it
 *   block-connect SOCK STATE LABEL
 *                              listen on the pathname SOCK (backlog 0),
 *                              fill its queue with non-blocking connects,
 *                              then a blocking connect to it
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <mqueue.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <termios.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr, "escape-helper: usage: see the comment at the top of escape-helper.c\n");
	return 2;
}

static int report(const char *what, int error_number)
{
	if (error_number == 0) {
		printf("%s: succeeded\n", what);
		return 0;
	}
	printf("%s: refused: %s\n", what, strerror(error_number));
	return 1;
}

static int do_tiocsti(const char *text)
{
	for (const char *p = text; *p != '\0'; p++) {
		if (ioctl(STDIN_FILENO, TIOCSTI, p) < 0)
			return report("tiocsti", errno);
	}
	return report("tiocsti", 0);
}

static int do_ptrace(const char *pid_text)
{
	pid_t pid = (pid_t)strtol(pid_text, NULL, 10);
	int status;

	if (pid <= 0)
		return usage();
	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) < 0)
		return report("ptrace", errno);
	/* Attached: prove the power on the outside world by killing the
	 * tracee, which the harness sees as the outside process gone. */
	(void)waitpid(pid, &status, __WALL);
	(void)ptrace(PTRACE_KILL, pid, NULL, NULL);
	(void)kill(pid, SIGKILL);
	return report("ptrace", 0);
}

/* Returns the address length, or -1. "@name" is abstract. */
static int unix_address(const char *path, struct sockaddr_un *address)
{
	size_t length = strlen(path);

	memset(address, 0, sizeof(*address));
	address->sun_family = AF_UNIX;
	if (length >= sizeof(address->sun_path)) {
		fprintf(stderr, "escape-helper: socket path too long: %s\n", path);
		return -1;
	}
	if (path[0] == '@') {
		memcpy(address->sun_path + 1, path + 1, length - 1);
		return (int)(offsetof(struct sockaddr_un, sun_path) + length);
	}
	strcpy(address->sun_path, path);
	return (int)sizeof(*address);
}

static int do_connect_unix(const char *path, const char *message)
{
	struct sockaddr_un address;
	int fd;
	size_t length = strlen(message);
	int address_length = unix_address(path, &address);

	if (address_length < 0)
		return 2;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return report("connect-unix", errno);
	if (connect(fd, (struct sockaddr *)&address, (socklen_t)address_length) < 0)
		return report("connect-unix", errno);
	if (write(fd, message, length) != (ssize_t)length)
		return report("connect-unix", errno);
	/* Until the peer closes: a serve-unix daemon does once it has acted
	 * on the message, so whoever checks its file afterwards needs no pause
	 * (a rendezvous; the 60 s only bound a peer that never closes). */
	(void)shutdown(fd, SHUT_WR);
	{
		struct pollfd peer = { fd, POLLIN, 0 };
		char byte;

		if (poll(&peer, 1, 60000) > 0)
			(void)!read(fd, &byte, 1);
	}
	close(fd);
	return report("connect-unix", 0);
}

static int do_serve_unix(const char *path, const char *file)
{
	struct sockaddr_un address;
	int fd;
	pid_t child;
	int address_length = unix_address(path, &address);

	if (address_length < 0)
		return 2;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&address, (socklen_t)address_length) < 0 ||
	    listen(fd, 8) < 0) {
		fprintf(stderr, "escape-helper: serve-unix %s: %s\n", path, strerror(errno));
		return 1;
	}
	/* Listening before the parent returns, so the harness needs no wait. */
	fflush(stdout);
	child = fork();
	if (child < 0) {
		fprintf(stderr, "escape-helper: fork: %s\n", strerror(errno));
		return 1;
	}
	if (child > 0) {
		printf("%ld\n", (long)child);
		return 0;
	}
	/* The daemon: detached from the harness's stdio, bounded in time. */
	setsid();
	alarm(300);
	for (;;) {
		char buffer[4096];
		ssize_t n;
		int connection = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		int out;

		if (connection < 0)
			continue;
		n = read(connection, buffer, sizeof(buffer));
		if (n > 0) {
			/* An unconfined daemon doing what a confined client asked. */
			out = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
			if (out >= 0) {
				(void)!write(out, buffer, (size_t)n);
				close(out);
			}
		}
		/* Closed after the write: a client waiting for the close knows
		 * the file holds what it sent (connect-unix). */
		close(connection);
	}
}

static void append_to(const char *file, const char *bytes, size_t n)
{
	int out = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (out >= 0) {
		(void)!write(out, bytes, n);
		close(out);
	}
}

/* The network allowlist's escape cases (issue 23): an origin, or a host
 * the command must not reach (FILE under the victim: its appearance is
 * the escape). */
static int do_serve_net(const char *port_file, const char *file)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int tcp, udp, one = 1;
	pid_t child;
	FILE *f;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	tcp = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (tcp < 0 || udp < 0 || setsockopt(tcp, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(tcp, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(tcp, 64) < 0 ||
	    getsockname(tcp, (struct sockaddr *)&a, &len) < 0 ||
	    bind(udp, (struct sockaddr *)&a, sizeof(a)) < 0) {
		fprintf(stderr, "escape-helper: serve-net: %s\n", strerror(errno));
		return 1;
	}
	f = fopen(port_file, "w");
	if (f == NULL || fprintf(f, "%u\n", ntohs(a.sin_port)) < 0 || fclose(f) != 0) {
		fprintf(stderr, "escape-helper: serve-net %s: %s\n", port_file, strerror(errno));
		return 1;
	}
	fflush(stdout);
	child = fork();
	if (child < 0)
		return report("fork", errno);
	if (child > 0) {
		printf("%ld\n", (long)child);
		return 0;
	}
	setsid();
	alarm(300);
	for (;;) {
		struct pollfd p[2] = { { tcp, POLLIN, 0 }, { udp, POLLIN, 0 } };
		char buffer[4096];
		ssize_t n;

		if (poll(p, 2, -1) < 0)
			continue;
		if (p[1].revents & POLLIN) {
			n = recv(udp, buffer, sizeof(buffer), 0);
			if (n > 0)
				append_to(file, buffer, (size_t)n);
		}
		if (p[0].revents & POLLIN) {
			static const char answer[] = "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok";
			int c = accept4(tcp, NULL, NULL, SOCK_CLOEXEC);

			if (c < 0)
				continue;
			n = recv(c, buffer, sizeof(buffer), 0);
			if (n > 0) {
				append_to(file, buffer, (size_t)n);
				(void)!write(c, answer, sizeof(answer) - 1);
			}
			close(c);
		}
	}
}

static int do_setxattr(const char *path, const char *name, const char *value)
{
	if (setxattr(path, name, value, strlen(value), 0) < 0)
		return report("setxattr", errno);
	return report("setxattr", 0);
}

static int do_write_fd(const char *fd_text, const char *text)
{
	int fd = (int)strtol(fd_text, NULL, 10);
	size_t length = strlen(text);

	if (write(fd, text, length) != (ssize_t)length)
		return report("write-fd", errno);
	return report("write-fd", 0);
}

static int do_handle_write(const char *path, const char *text)
{
	struct file_handle *handle;
	int mount_id, mount_fd, fd;
	size_t length = strlen(text);

	handle = malloc(sizeof(*handle) + MAX_HANDLE_SZ);
	if (handle == NULL)
		return report("handle-write", ENOMEM);
	handle->handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, path, handle, &mount_id, 0) < 0)
		return report("handle-write", errno);
	/* Any descriptor on the same mount names it; an O_PATH one needs no
	 * access right at all. */
	mount_fd = open(path, O_PATH | O_CLOEXEC);
	if (mount_fd < 0)
		return report("handle-write", errno);
	fd = open_by_handle_at(mount_fd, handle, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return report("handle-write", errno);
	if (write(fd, text, length) != (ssize_t)length)
		return report("handle-write", errno);
	close(fd);
	free(handle);
	return report("handle-write", 0);
}

static int do_pty_run(const char *result_path, char **argv)
{
	int master, slave, status;
	int pending = 0;
	char *name;
	pid_t child;
	struct termios raw;
	FILE *result;

	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0 ||
	    (name = ptsname(master)) == NULL) {
		fprintf(stderr, "escape-helper: pty: %s\n", strerror(errno));
		return 1;
	}
	slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0) {
		fprintf(stderr, "escape-helper: open %s: %s\n", name, strerror(errno));
		return 1;
	}
	/* Raw mode: an injected byte is readable at once (no line discipline
	 * waiting for a newline) and not echoed away to the master. */
	if (tcgetattr(slave, &raw) == 0) {
		cfmakeraw(&raw);
		(void)tcsetattr(slave, TCSANOW, &raw);
	}
	child = fork();
	if (child < 0) {
		fprintf(stderr, "escape-helper: fork: %s\n", strerror(errno));
		return 1;
	}
	if (child == 0) {
		/* The caller of confine, sitting on its controlling terminal. */
		if (setsid() < 0 || ioctl(slave, TIOCSCTTY, 0) < 0 ||
		    dup2(slave, 0) < 0 || dup2(slave, 1) < 0 || dup2(slave, 2) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	/* Drain the terminal's output so the child never blocks on it; we keep
	 * the slave open ourselves, so the master never sees EOF: poll. */
	(void)fcntl(master, F_SETFL, O_NONBLOCK);
	for (bool ended = false;;) {
		char buffer[4096];
		ssize_t n;

		if (!ended && waitpid(child, &status, WNOHANG) == child)
			ended = true;
		n = read(master, buffer, sizeof(buffer));
		if (n > 0)
			(void)!write(STDERR_FILENO, buffer, (size_t)n);
		else if (ended)
			break; /* ended, and its output is drained */
		else
			usleep(10000);
	}
	if (ioctl(slave, FIONREAD, &pending) < 0)
		pending = -1;
	result = fopen(result_path, "we");
	if (result == NULL) {
		fprintf(stderr, "escape-helper: %s: %s\n", result_path, strerror(errno));
		return 1;
	}
	fprintf(result, "injected=%d\n", pending);
	if (pending > 0) {
		char buffer[256];
		ssize_t n;

		(void)fcntl(slave, F_SETFL, O_NONBLOCK);
		n = read(slave, buffer, sizeof(buffer) - 1);
		if (n > 0) {
			buffer[n] = '\0';
			fprintf(result, "bytes=%s\n", buffer);
		}
	}
	fclose(result);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

static key_t key_of(const char *text)
{
	return (key_t)strtol(text, NULL, 0);
}

static int do_shm_create(const char *key_text, const char *text)
{
	int id = shmget(key_of(key_text), 4096, IPC_CREAT | IPC_EXCL | 0600);
	char *memory;

	if (id < 0)
		return report("shm-create", errno);
	memory = shmat(id, NULL, 0);
	if (memory == (void *)-1)
		return report("shm-create", errno);
	snprintf(memory, 4096, "%s", text);
	shmdt(memory);
	return report("shm-create", 0);
}

static int do_shm_write(const char *key_text, const char *text)
{
	int id = shmget(key_of(key_text), 0, 0);
	char *memory;

	if (id < 0)
		return report("shm-write", errno);
	memory = shmat(id, NULL, 0);
	if (memory == (void *)-1)
		return report("shm-write", errno);
	memcpy(memory, text, strlen(text) + 1);
	shmdt(memory);
	return report("shm-write", 0);
}

static int do_shm_read(const char *key_text)
{
	int id = shmget(key_of(key_text), 0, 0);
	char *memory;

	if (id < 0)
		return report("shm-read", errno);
	memory = shmat(id, NULL, SHM_RDONLY);
	if (memory == (void *)-1)
		return report("shm-read", errno);
	printf("%.*s\n", 4095, memory);
	shmdt(memory);
	return 0;
}

static int do_ipc_rm(const char *kind, const char *key_text)
{
	key_t key = key_of(key_text);
	int id, r;

	if (strcmp(kind, "shm") == 0) {
		id = shmget(key, 0, 0);
		r = id < 0 ? -1 : shmctl(id, IPC_RMID, NULL);
	} else if (strcmp(kind, "msg") == 0) {
		id = msgget(key, 0);
		r = id < 0 ? -1 : msgctl(id, IPC_RMID, NULL);
	} else if (strcmp(kind, "sem") == 0) {
		id = semget(key, 0, 0);
		r = id < 0 ? -1 : semctl(id, 0, IPC_RMID);
	} else {
		return usage();
	}
	return report("ipc-rm", r < 0 ? errno : 0);
}

static int do_mq_create(const char *name)
{
	struct mq_attr attr = { .mq_maxmsg = 1, .mq_msgsize = 16 };
	mqd_t q = mq_open(name, O_RDWR | O_CREAT | O_EXCL, 0600, &attr);

	if (q == (mqd_t)-1)
		return report("mq-create", errno);
	mq_close(q);
	return report("mq-create", 0);
}

static int do_mq_unlink(const char *name)
{
	return report("mq-unlink", mq_unlink(name) < 0 ? errno : 0);
}

static int do_mq_exists(const char *name)
{
	mqd_t q = mq_open(name, O_RDONLY);

	if (q == (mqd_t)-1)
		return report("mq-exists", errno);
	mq_close(q);
	return report("mq-exists", 0);
}

#define KEY_SPEC_USER_KEYRING_ID (-4)
#define KEYCTL_SEARCH_OP 10
#define KEYCTL_UNLINK_OP 9

static int do_add_key(const char *description)
{
	long id = syscall(SYS_add_key, "user", description, "pwn", (size_t)3,
			  KEY_SPEC_USER_KEYRING_ID);

	return report("add-key", id < 0 ? errno : 0);
}

static int do_find_key(const char *description, bool unlink_it)
{
	long id = syscall(SYS_keyctl, KEYCTL_SEARCH_OP, KEY_SPEC_USER_KEYRING_ID, "user",
			  description, 0);

	if (id < 0)
		return report("find-key", errno);
	if (unlink_it)
		(void)syscall(SYS_keyctl, KEYCTL_UNLINK_OP, id, KEY_SPEC_USER_KEYRING_ID);
	return report("find-key", 0);
}

static int do_ptrace_hold(const char *pid_text)
{
	pid_t pid = (pid_t)strtol(pid_text, NULL, 10);

	if (pid <= 0)
		return usage();
	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) < 0)
		return report("ptrace-hold", errno);
	report("ptrace-hold", 0);
	fflush(stdout);
	/* The tracee stays in its attach stop for as long as we live. */
	for (;;)
		pause();
}

static int do_mem_open(const char *pid_text)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/mem", pid_text);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return report("mem-open", errno);
	close(fd);
	return report("mem-open", 0);
}

static int do_vm_write(const char *pid_text)
{
	pid_t pid = (pid_t)strtol(pid_text, NULL, 10);
	char byte = 0;
	struct iovec local = { &byte, 1 };
	struct iovec remote = { (void *)(uintptr_t)1, 1 };

	if (pid <= 0)
		return usage();
	if (process_vm_writev(pid, &local, 1, &remote, 1, 0) >= 0 || errno == EFAULT)
		return report("vm-write", 0);
	return report("vm-write", errno);
}

static int do_kill_parent(const char *file)
{
	int fd;

	kill(getppid(), SIGKILL);
	fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		(void)!write(fd, "ran\n", 4);
		close(fd);
	}
	return 0;
}

static void append_line(const char *file, const char *line)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd >= 0) {
		(void)!write(fd, line, strlen(line));
		close(fd);
	}
}

/* Whether the child sleeps inside syscall `nr`: /proc/<pid>/syscall starts
 * with the number while the task is blocked in a syscall, and its state in
 * /proc/<pid>/stat is S. */
static bool asleep_in(pid_t pid, long nr)
{
	char path[64], text[512];
	const char *paren;
	long seen = -1;
	char state = '?';
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	if (fscanf(f, "%ld", &seen) != 1)
		seen = -1;
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	if (fgets(text, sizeof(text), f) != NULL && (paren = strrchr(text, ')')) != NULL)
		state = paren[2];
	fclose(f);
	return seen == nr && state == 'S';
}

/* Forks a child that runs `call` (the blocking one); reports as above. */
static int block_and_report(const char *state_file, long nr, long (*call)(void *), void *arg)
{
	char line[128];
	pid_t child = fork();
	int status;

	if (child < 0)
		return report("fork", errno);
	if (child == 0) {
		long r = call(arg);

		snprintf(line, sizeof(line), "returned %ld %d\n", r, r < 0 ? errno : 0);
		append_line(state_file, line);
		_exit(0);
	}
	/* Until it is seen (the harness bounds the whole run). */
	while (!asleep_in(child, nr) && waitpid(child, &status, WNOHANG) == 0)
		usleep(10000);
	snprintf(line, sizeof(line), "blocked %ld\n", nr);
	append_line(state_file, line);
	waitpid(child, &status, 0);
	return 0;
}

static long send_one_byte(void *arg)
{
	int sock = *(int *)arg;
	char byte = 'x';
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	return (long)sendmsg(sock, &msg, 0);
}

static int do_block_send(const char *kind, const char *state_file)
{
	static char chunk[4096];
	int type = strcmp(kind, "dgram") == 0 ? SOCK_DGRAM : SOCK_STREAM;
	int pair[2];
	size_t size;

	if (strcmp(kind, "dgram") != 0 && strcmp(kind, "stream") != 0)
		return usage();
	if (socketpair(AF_UNIX, type, 0, pair) != 0)
		return report("socketpair", errno);
	/* send() is sendto without an address: not notified, so the fill is
	 * fast; smaller and smaller until not even one byte fits. */
	for (size = sizeof(chunk); size > 0; size /= 2)
		while (send(pair[0], chunk, size, MSG_DONTWAIT) >= 0)
			continue;
	if (errno != EAGAIN && errno != EWOULDBLOCK)
		return report("fill", errno);
	return block_and_report(state_file, SYS_sendmsg, send_one_byte, &pair[0]);
}

struct connect_args {
	int sock;
	struct sockaddr_un addr;
};

static long connect_blocking(void *arg)
{
	struct connect_args *a = arg;

	return connect(a->sock, (struct sockaddr *)&a->addr, sizeof(a->addr));
}

static int do_block_connect(const char *path, const char *state_file)
{
	struct connect_args a;
	int listener, i;

	memset(&a.addr, 0, sizeof(a.addr));
	a.addr.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a.addr.sun_path))
		return usage();
	strcpy(a.addr.sun_path, path);
	listener = socket(AF_UNIX, SOCK_STREAM, 0);
	if (listener < 0 || bind(listener, (struct sockaddr *)&a.addr, sizeof(a.addr)) != 0 ||
	    listen(listener, 0) != 0)
		return report("listen", errno);
	/* Non-blocking connects until the queue refuses one (EAGAIN). */
	for (i = 0; i < 1000; i++) {
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);

		if (s < 0)
			return report("socket", errno);
		if (connect(s, (struct sockaddr *)&a.addr, sizeof(a.addr)) != 0)
			break;
	}
	if (i == 1000 || errno != EAGAIN)
		return report("fill", i == 1000 ? ENOSPC : errno);
	a.sock = socket(AF_UNIX, SOCK_STREAM, 0);
	if (a.sock < 0)
		return report("socket", errno);
	return block_and_report(state_file, SYS_connect, connect_blocking, &a);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (strcmp(argv[1], "tiocsti") == 0 && argc == 3)
		return do_tiocsti(argv[2]);
	if (strcmp(argv[1], "ptrace") == 0 && argc == 3)
		return do_ptrace(argv[2]);
	if (strcmp(argv[1], "connect-unix") == 0 && argc == 4)
		return do_connect_unix(argv[2], argv[3]);
	if (strcmp(argv[1], "serve-unix") == 0 && argc == 4)
		return do_serve_unix(argv[2], argv[3]);
	if (strcmp(argv[1], "serve-net") == 0 && argc == 4)
		return do_serve_net(argv[2], argv[3]);
	if (strcmp(argv[1], "setxattr") == 0 && argc == 5)
		return do_setxattr(argv[2], argv[3], argv[4]);
	if (strcmp(argv[1], "write-fd") == 0 && argc == 4)
		return do_write_fd(argv[2], argv[3]);
	if (strcmp(argv[1], "handle-write") == 0 && argc == 4)
		return do_handle_write(argv[2], argv[3]);
	if (strcmp(argv[1], "shm-create") == 0 && argc == 4)
		return do_shm_create(argv[2], argv[3]);
	if (strcmp(argv[1], "shm-write") == 0 && argc == 4)
		return do_shm_write(argv[2], argv[3]);
	if (strcmp(argv[1], "shm-read") == 0 && argc == 3)
		return do_shm_read(argv[2]);
	if (strcmp(argv[1], "ipc-rm") == 0 && argc == 4)
		return do_ipc_rm(argv[2], argv[3]);
	if (strcmp(argv[1], "mq-create") == 0 && argc == 3)
		return do_mq_create(argv[2]);
	if (strcmp(argv[1], "mq-unlink") == 0 && argc == 3)
		return do_mq_unlink(argv[2]);
	if (strcmp(argv[1], "mq-exists") == 0 && argc == 3)
		return do_mq_exists(argv[2]);
	if (strcmp(argv[1], "add-key") == 0 && argc == 3)
		return do_add_key(argv[2]);
	if (strcmp(argv[1], "find-key") == 0 && (argc == 3 || (argc == 4 && strcmp(argv[3], "--unlink") == 0)))
		return do_find_key(argv[2], argc == 4);
	if (strcmp(argv[1], "ptrace-hold") == 0 && argc == 3)
		return do_ptrace_hold(argv[2]);
	if (strcmp(argv[1], "mem-open") == 0 && argc == 3)
		return do_mem_open(argv[2]);
	if (strcmp(argv[1], "vm-write") == 0 && argc == 3)
		return do_vm_write(argv[2]);
	if (strcmp(argv[1], "kill-parent") == 0 && argc == 3)
		return do_kill_parent(argv[2]);
	if (strcmp(argv[1], "pty-run") == 0 && argc >= 5 && strcmp(argv[3], "--") == 0)
		return do_pty_run(argv[2], argv + 4);
	if (strcmp(argv[1], "block-send") == 0 && argc == 5)
		return do_block_send(argv[2], argv[3]);
	if (strcmp(argv[1], "block-connect") == 0 && argc == 5)
		return do_block_connect(argv[2], argv[3]);
	return usage();
}
