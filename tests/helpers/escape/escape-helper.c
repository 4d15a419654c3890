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
 *   connect-unix SOCK MSG      connect to a pathname socket and send MSG
 *   setxattr PATH NAME VALUE   set an extended attribute
 *   write-fd FD TEXT           write TEXT to an inherited descriptor
 *   handle-write PATH TEXT     reopen PATH for writing by file handle
 *                              (name_to_handle_at + open_by_handle_at), a
 *                              route that skips path lookup; append TEXT
 *   serve-unix SOCK FILE       harness: listen on SOCK in a child that appends
 *                              what it receives to FILE; prints the child's
 *                              pid once listening, then returns
 *   pty-run RESULT -- ARGV...  harness: run ARGV with a new pty as its
 *                              controlling terminal and stdio; afterwards
 *                              write "injected=N" to RESULT, N the bytes that
 *                              are waiting in the terminal's input queue
 *                              (what a shell would read and run next)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/un.h>
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

static int unix_address(const char *path, struct sockaddr_un *address)
{
	memset(address, 0, sizeof(*address));
	address->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(address->sun_path)) {
		fprintf(stderr, "escape-helper: socket path too long: %s\n", path);
		return -1;
	}
	strcpy(address->sun_path, path);
	return 0;
}

static int do_connect_unix(const char *path, const char *message)
{
	struct sockaddr_un address;
	int fd;
	size_t length = strlen(message);

	if (unix_address(path, &address) < 0)
		return 2;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return report("connect-unix", errno);
	if (connect(fd, (struct sockaddr *)&address, sizeof(address)) < 0)
		return report("connect-unix", errno);
	if (write(fd, message, length) != (ssize_t)length)
		return report("connect-unix", errno);
	close(fd);
	return report("connect-unix", 0);
}

static int do_serve_unix(const char *path, const char *file)
{
	struct sockaddr_un address;
	int fd;
	pid_t child;

	if (unix_address(path, &address) < 0)
		return 2;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&address, sizeof(address)) < 0 ||
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
		close(connection);
		if (n <= 0)
			continue;
		/* An unconfined daemon doing what a confined client asked. */
		out = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (out >= 0) {
			(void)!write(out, buffer, (size_t)n);
			close(out);
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
	if (strcmp(argv[1], "setxattr") == 0 && argc == 5)
		return do_setxattr(argv[2], argv[3], argv[4]);
	if (strcmp(argv[1], "write-fd") == 0 && argc == 4)
		return do_write_fd(argv[2], argv[3]);
	if (strcmp(argv[1], "handle-write") == 0 && argc == 4)
		return do_handle_write(argv[2], argv[3]);
	if (strcmp(argv[1], "pty-run") == 0 && argc >= 5 && strcmp(argv[3], "--") == 0)
		return do_pty_run(argv[2], argv + 4);
	return usage();
}
