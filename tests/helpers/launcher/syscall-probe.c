/*
 * syscall-probe: runs inside the sandbox (or unconfined, as the control)
 * and tries what the launcher's seccomp deny-list and Landlock scopes
 * refuse. Prints one line per attempt, "NAME ERRNO" (0: it worked), and
 * undoes what worked, so an unconfined control leaves nothing behind.
 *
 *   syscall-probe deny-list KEY MQNAME KEYDESC   SysV IPC at KEY.., a POSIX
 *       queue, a user-keyring key, socket(AF_VSOCK), io_uring_setup, and last
 *       seccomp(SET_MODE_FILTER, NEW_LISTENER)
 *   syscall-probe abstract NAME     connect to the abstract unix socket @NAME
 *   syscall-probe tcp PORT          socket(AF_INET) + connect 127.0.0.1:PORT
 *   syscall-probe tcp-fd0 PORT      connect the AF_INET socket on fd 0
 *   syscall-probe socketpair        socketpair(AF_UNIX)
 */
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <linux/seccomp.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif

static void report(const char *name, int error)
{
	printf("%s %d\n", name, error);
	fflush(stdout);
}

static int errno_of(long result)
{
	return result < 0 ? errno : 0;
}

static void deny_list(key_t key, const char *queue, const char *description)
{
	struct io_uring_params params;
	int id, fd;

	id = shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0600);
	report("shmget", errno_of(id));
	if (id >= 0)
		shmctl(id, IPC_RMID, NULL);

	id = msgget(key + 1, IPC_CREAT | IPC_EXCL | 0600);
	report("msgget", errno_of(id));
	if (id >= 0)
		msgctl(id, IPC_RMID, NULL);

	id = semget(key + 2, 1, IPC_CREAT | IPC_EXCL | 0600);
	report("semget", errno_of(id));
	if (id >= 0)
		semctl(id, 0, IPC_RMID);

	fd = (int)mq_open(queue, O_CREAT | O_EXCL | O_RDWR, 0600, NULL);
	report("mq_open", errno_of(fd));
	if (fd >= 0)
		mq_unlink(queue);

	id = (int)syscall(SYS_add_key, "user", description, "x", 1, KEY_SPEC_USER_KEYRING);
	report("add_key", errno_of(id));
	if (id >= 0)
		syscall(SYS_keyctl, KEYCTL_UNLINK, id, KEY_SPEC_USER_KEYRING);

	fd = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
	report("socket_vsock", errno_of(fd));
	if (fd >= 0)
		close(fd);

	memset(&params, 0, sizeof(params));
	fd = (int)syscall(SYS_io_uring_setup, 1, &params);
	report("io_uring_setup", errno_of(fd));
	if (fd >= 0)
		close(fd);

	/* Last: it stays installed (allow-everything, so harmless). */
	{
		struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		struct sock_fprog program = { 1, &allow };

		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				  SECCOMP_FILTER_FLAG_NEW_LISTENER, &program);
		report("seccomp_listener", errno_of(fd));
	}
}

static void abstract_connect(const char *name)
{
	struct sockaddr_un address;
	size_t length = strlen(name);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&address, 0, sizeof(address));
	address.sun_family = AF_UNIX;
	memcpy(address.sun_path + 1, name, length); /* sun_path[0] = '\0' */
	report("connect", errno_of(connect(fd, (struct sockaddr *)&address,
					   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + length))));
}

static int tcp_connect(int fd, int port)
{
	struct sockaddr_in address;

	memset(&address, 0, sizeof(address));
	address.sin_family = AF_INET;
	address.sin_port = htons((unsigned short)port);
	address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return errno_of(connect(fd, (struct sockaddr *)&address, sizeof(address)));
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "deny-list") == 0) {
		deny_list((key_t)strtol(argv[2], NULL, 0), argv[3], argv[4]);
	} else if (argc == 3 && strcmp(argv[1], "abstract") == 0) {
		abstract_connect(argv[2]);
	} else if (argc == 3 && strcmp(argv[1], "tcp") == 0) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		report("socket", errno_of(fd));
		if (fd >= 0)
			report("connect", tcp_connect(fd, atoi(argv[2])));
	} else if (argc == 3 && strcmp(argv[1], "tcp-fd0") == 0) {
		report("connect", tcp_connect(0, atoi(argv[2])));
	} else if (argc == 2 && strcmp(argv[1], "socketpair") == 0) {
		int pair[2];

		report("socketpair", errno_of(socketpair(AF_UNIX, SOCK_STREAM, 0, pair)));
	} else {
		fprintf(stderr, "usage: syscall-probe deny-list|abstract|tcp|tcp-fd0|socketpair ...\n");
		return 2;
	}
	return 0;
}
